package topo

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	for _, tc := range []struct {
		in, out string
		n       int
	}{
		{"", "", 0},
		{"0", "0", 1},
		{"0-3", "0-3", 4},
		{"0-1,4-5\n", "0-1,4-5", 4},
		{"3,1,2", "1-3", 3},
		{"0,2,4,100-101", "0,2,4,100-101", 5},
	} {
		s, err := ParseCPUList(tc.in)
		if err != nil {
			t.Fatalf("ParseCPUList(%q): %v", tc.in, err)
		}
		if s.String() != tc.out || s.Count() != tc.n {
			t.Errorf("ParseCPUList(%q) = %q (%d CPUs), want %q (%d)", tc.in, s, s.Count(), tc.out, tc.n)
		}
	}
	for _, bad := range []string{"a", "3-1", "-1", "1-", "99999999", "0,,1"} {
		if _, err := ParseCPUList(bad); err == nil {
			t.Errorf("ParseCPUList(%q) succeeded, want an error", bad)
		}
	}
}

func TestCPUSetRoundTrip(t *testing.T) {
	for _, in := range []string{"", "0", "0-1", "1,3,5,7", "0-63", "64", "0-1023", "5,200-300,4000,65535"} {
		s, err := ParseCPUList(in)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := s.MarshalBinary()
		var got CPUSet
		if err := got.UnmarshalBinary(b); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if !got.Equal(s) {
			t.Errorf("round trip of %q gave %q", in, got)
		}
		if in == "0-1023" && len(b) > 4 {
			t.Errorf("encoding of %q takes %d bytes, want a few", in, len(b))
		}
	}
}

func TestCPUSetDecodeRefusesGarbage(t *testing.T) {
	for _, b := range [][]byte{
		{},                             // nothing
		{1},                            // one run, no fields
		{1, 0, 0},                      // an empty run
		{1, 0xff, 0xff, 0xff, 0x7f, 1}, // a gap beyond MaxCPU
		{0, 0},                         // trailing byte
		{0xff, 0xff, 0xff, 0xff, 0x0f}, // too many runs
	} {
		var s CPUSet
		if err := s.UnmarshalBinary(b); err == nil {
			t.Errorf("UnmarshalBinary(%v) succeeded with %q, want an error", b, s)
		}
	}
}

func TestCPUSetOps(t *testing.T) {
	a, b := NewCPUSet(0, 1, 70), NewCPUSet(1, 2)
	if got := a.Union(b).String(); got != "0-2,70" {
		t.Errorf("union %q", got)
	}
	if got := a.Intersect(b).String(); got != "1" {
		t.Errorf("intersect %q", got)
	}
	if !NewCPUSet(1).SubsetOf(a) || b.SubsetOf(a) || a.SubsetOf(b) {
		t.Error("SubsetOf wrong")
	}
	if a.First() != 0 || (CPUSet{}).First() != -1 {
		t.Error("First wrong")
	}
}

func loadFixture(t *testing.T, name string) *Topology {
	t.Helper()
	return LoadFS(os.DirFS("testdata/" + name))
}

func TestLoadTwoSockets(t *testing.T) {
	topo := loadFixture(t, "twosocket")
	if topo.Model != "Fake Xeon 2S" {
		t.Errorf("model %q", topo.Model)
	}
	if got := topo.Summary(); got != "8 CPUs, 4 cores, 2 sockets, 2 NUMA nodes" {
		t.Errorf("summary %q", got)
	}
	var cores []string
	for _, c := range topo.Cores {
		cores = append(cores, c.String())
	}
	if got := strings.Join(cores, " "); got != "0,4 1,5 2,6 3,7" {
		t.Errorf("cores %q", got)
	}
	if len(topo.Packages) != 2 || topo.Packages[1].ID != 1 || topo.Packages[1].CPUs.String() != "2-3,6-7" {
		t.Errorf("packages %+v", topo.Packages)
	}
	// 4 L1d, 4 L1i, 4 L2, 2 L3.
	if len(topo.Caches) != 14 {
		t.Errorf("%d caches, want 14", len(topo.Caches))
	}
	l3 := topo.Caches[len(topo.Caches)-1]
	if l3.Level != 3 || l3.Size != 16<<20 || l3.CPUs.String() != "2-3,6-7" {
		t.Errorf("last cache %+v", l3)
	}
	var buf bytes.Buffer
	if err := topo.Describe(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Fake Xeon 2S", "socket 1: cpus 2-3,6-7", "L3", "16 MiB x2", "L1d", "32 KiB x4"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("Describe lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestLocality(t *testing.T) {
	topo := loadFixture(t, "twosocket")
	// L2 is per core in the fixture, so two threads of one core are SameCore and no
	// pair is SameL2 alone; a variant below gives L2 a pair of cores.
	for _, tc := range []struct {
		a, b string
		want Level
	}{
		{"0", "0", SameCore},
		{"0", "4", SameCore},
		{"0", "1", SameL3},
		{"0,4", "1,5", SameL3},
		{"0", "2", OtherSocket},
		{"0-1,4-5", "2", OtherSocket},
		{"0-7", "0", Unknown},
		{"", "0", Unknown},
	} {
		a, _ := ParseCPUList(tc.a)
		b, _ := ParseCPUList(tc.b)
		if got := topo.Locality(a, b); got != tc.want {
			t.Errorf("Locality(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	// Shared L2 between cores (as on some ARM and Atom parts).
	shared := *topo
	shared.Caches = append([]Cache(nil), topo.Caches...)
	shared.Caches = append(shared.Caches, Cache{Level: 2, Type: "Unified", CPUs: NewCPUSet(0, 1, 4, 5)})
	if got := shared.Locality(NewCPUSet(0), NewCPUSet(1)); got != SameL2 {
		t.Errorf("shared L2: %v", got)
	}
	// Without caches, same package is the best we can say.
	bare := *topo
	bare.Caches = nil
	if got := bare.Locality(NewCPUSet(0), NewCPUSet(1)); got != SameSocket {
		t.Errorf("no caches: %v", got)
	}
	// NUMA node spanning both packages.
	bare.NUMANodes = []Domain{{ID: 0, CPUs: topo.CPUs}}
	if got := bare.Locality(NewCPUSet(0, 2), NewCPUSet(1)); got != SameNUMA {
		t.Errorf("wide numa: %v", got)
	}
}

func TestLevelString(t *testing.T) {
	var names []string
	for l := Unknown; l <= OtherSocket; l++ {
		names = append(names, l.String())
	}
	if got := strings.Join(names, " "); got != "unknown same-core same-l2 same-l3 same-socket same-numa other-socket" {
		t.Errorf("level names %q", got)
	}
}

func TestLoadBareDegrades(t *testing.T) {
	topo := loadFixture(t, "bare")
	if topo.CPUs.String() != "0-3" || len(topo.Cores) != 0 || len(topo.Caches) != 0 || topo.Model != "" {
		t.Errorf("bare fixture: %+v", topo)
	}
	if got := topo.Locality(NewCPUSet(0), NewCPUSet(1)); got != Unknown {
		t.Errorf("Locality on a bare /sys = %v, want unknown", got)
	}
	var buf bytes.Buffer
	if err := topo.Describe(&buf); err != nil || !strings.Contains(buf.String(), "unknown") {
		t.Errorf("Describe: %v %q", err, buf.String())
	}
	// An empty tree still names the CPUs the runtime sees.
	if empty := LoadFS(os.DirFS(t.TempDir())); empty.CPUs.IsEmpty() {
		t.Error("empty tree gave no CPUs")
	}
}

func TestTopologyRoundTrip(t *testing.T) {
	for _, topo := range []*Topology{loadFixture(t, "twosocket"), loadFixture(t, "bare"), Load()} {
		b, err := topo.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var got Topology
		if err := got.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		var w1, w2 bytes.Buffer
		topo.Describe(&w1)
		got.Describe(&w2)
		if w1.String() != w2.String() {
			t.Errorf("round trip changed the layout:\n%s\nvs\n%s", w1.String(), w2.String())
		}
		for n := range b {
			if err := got.UnmarshalBinary(b[:n]); err == nil {
				t.Fatalf("truncated layout (%d of %d bytes) accepted", n, len(b))
			}
		}
	}
}

func TestRealMachine(t *testing.T) {
	topo := Load()
	if topo.CPUs.IsEmpty() {
		t.Fatal("no CPUs")
	}
	allowed, err := Allowed()
	if err != nil {
		t.Fatal(err)
	}
	if allowed.IsEmpty() || !allowed.SubsetOf(topo.CPUs) {
		t.Errorf("allowed %s not within online %s", allowed, topo.CPUs)
	}
	var buf bytes.Buffer
	topo.Describe(&buf)
	t.Logf("this machine (allowed %s):\n%s", allowed, buf.String())
	c := topo.CoreFor(0)
	if got := topo.Locality(c, c); len(topo.Cores) > 0 && got != SameCore {
		t.Errorf("a core with itself: %v", got)
	}
}

func TestBind(t *testing.T) {
	before, err := Allowed()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := Bind(before); err != nil {
			t.Fatal(err)
		}
	}()
	one := NewCPUSet(before.First())
	if err := Bind(one); err != nil {
		t.Fatal(err)
	}
	if got, _ := Allowed(); !got.Equal(one) {
		t.Errorf("after Bind(%s) allowed is %s", one, got)
	}
	if err := Bind(CPUSet{}); err == nil {
		t.Error("Bind(empty) succeeded")
	}
}
