package info

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
)

// pairs lists in's pairs as "k=v" in Nthkey's order.
func pairs(t *testing.T, in *Info) []string {
	t.Helper()
	ps, err := in.Pairs()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range ps {
		out = append(out, p[0]+"="+p[1])
	}
	return out
}

// TestOrder: keys are numbered in the order of their first Set; a key set again keeps
// its number, a deleted key's followers move down; Dup copies pairs and numbering and
// is independent of the original.
func TestOrder(t *testing.T) {
	in := New()
	for _, kv := range [][2]string{{"b", "1"}, {"a", "2"}, {"c", ""}, {"b", "3"}} {
		if err := in.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if got := pairs(t, in); !slices.Equal(got, []string{"b=3", "a=2", "c="}) {
		t.Fatalf("pairs %v", got)
	}
	d, err := in.Dup()
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Delete("b"); err != nil {
		t.Fatal(err)
	}
	if k, err := in.Nthkey(0); k != "a" || err != nil {
		t.Errorf("Nthkey(0) after Delete = %q, %v", k, err)
	}
	if n, err := in.Nkeys(); n != 2 || err != nil {
		t.Errorf("Nkeys = %d, %v", n, err)
	}
	if got := pairs(t, d); !slices.Equal(got, []string{"b=3", "a=2", "c="}) {
		t.Errorf("the duplicate changed with the original: %v", got)
	}
	if ks, err := d.Keys(); !slices.Equal(ks, []string{"b", "a", "c"}) || err != nil {
		t.Errorf("Keys = %v, %v", ks, err)
	}
	if v, ok, err := d.Get("nope"); v != "" || ok || err != nil {
		t.Errorf("Get of a key not set = %q, %v, %v", v, ok, err)
	}
}

// TestTruncation: MPI_Info_get cuts at valuelen bytes, MPI_Info_get_string at buflen-1
// and says the size the whole value needs; a key not set gives ok false.
func TestTruncation(t *testing.T) {
	in := Of("k", "hello")
	for _, c := range []struct {
		n    int
		want string
	}{{0, ""}, {1, "h"}, {5, "hello"}, {9, "hello"}} {
		if v, ok, err := in.GetN("k", c.n); v != c.want || !ok || err != nil {
			t.Errorf("GetN(k, %d) = %q, %v, %v; want %q", c.n, v, ok, err, c.want)
		}
	}
	for _, c := range []struct {
		buflen int
		want   string
	}{{0, ""}, {1, ""}, {2, "h"}, {5, "hell"}, {6, "hello"}, {60, "hello"}} {
		v, need, ok, err := in.GetString("k", c.buflen)
		if v != c.want || need != 6 || !ok || err != nil {
			t.Errorf("GetString(k, %d) = %q, %d, %v, %v; want %q, 6", c.buflen, v, need, ok, err, c.want)
		}
	}
	if v, need, ok, err := in.GetString("x", 8); v != "" || need != 0 || ok || err != nil {
		t.Errorf("GetString of a key not set = %q, %d, %v, %v", v, need, ok, err)
	}
	if v, ok, err := in.GetN("x", 8); v != "" || ok || err != nil {
		t.Errorf("GetN of a key not set = %q, %v, %v", v, ok, err)
	}
}

// TestLimits: a key of MaxKey-1 bytes and a value of MaxVal-1 are taken, one more
// byte is not; values of a Fixed info are whole.
func TestLimits(t *testing.T) {
	in := New()
	k, v := strings.Repeat("k", MaxKey-1), strings.Repeat("v", MaxVal-1)
	if err := in.Set(k, v); err != nil {
		t.Fatalf("at the limits: %v", err)
	}
	if got, ok, err := in.Get(k); got != v || !ok || err != nil {
		t.Errorf("Get at the limit: %d bytes, %v, %v", len(got), ok, err)
	}
	long := strings.Repeat("x", 5000)
	env := Fixed("argv", long)
	if got, _, _ := env.Get("argv"); got != long {
		t.Errorf("a fixed value was cut to %d bytes", len(got))
	}
}

// TestErrors: every error, its class and what its message names.
func TestErrors(t *testing.T) {
	longKey, longVal := strings.Repeat("k", MaxKey), strings.Repeat("v", MaxVal)
	freed := New()
	if err := freed.Free(); err != nil {
		t.Fatal(err)
	}
	var null *Info
	env := Fixed("host", "h")
	in := Of("a", "1")
	get := func(in *Info, k string) error { _, _, err := in.Get(k); return err }
	for _, c := range []struct {
		name  string
		err   error
		class error
		says  string
	}{
		{"Set of an empty key", in.Set("", "x"), ErrKey, "empty"},
		{"Set of a long key", in.Set(longKey, "x"), ErrKey, "MPI_MAX_INFO_KEY"},
		{"Set of a long value", in.Set("k", longVal), ErrValue, "MPI_MAX_INFO_VAL"},
		{"Get of a long key", get(in, longKey), ErrKey, "256 bytes"},
		{"Delete of a key not set", in.Delete("b"), ErrNoKey, `"b"`},
		{"Delete of an empty key", in.Delete(""), ErrKey, "empty"},
		{"Nthkey(1) of 1", func() error { _, err := in.Nthkey(1); return err }(), ErrArg, "n = 1"},
		{"Nthkey(-1)", func() error { _, err := in.Nthkey(-1); return err }(), ErrArg, "n = -1"},
		{"GetN(-1)", func() error { _, _, err := in.GetN("a", -1); return err }(), ErrArg, "valuelen = -1"},
		{"GetString(-1)", func() error { _, _, _, err := in.GetString("a", -1); return err }(), ErrArg, "buflen = -1"},
		{"Set on null", null.Set("a", "b"), ErrNull, "MPI_INFO_NULL"},
		{"Set of a bad key on null", null.Set("", "b"), ErrNull, "MPI_INFO_NULL"},
		{"Get on null", get(null, "a"), ErrNull, "MPI_INFO_NULL"},
		{"Dup of null", func() error { _, err := null.Dup(); return err }(), ErrNull, "MPI_INFO_NULL"},
		{"Free of null", null.Free(), ErrNull, "MPI_INFO_NULL"},
		{"Get on freed", get(freed, "a"), ErrFreed, "freed"},
		{"Nkeys on freed", func() error { _, err := freed.Nkeys(); return err }(), ErrFreed, "freed"},
		{"Pairs on freed", func() error { _, err := freed.Pairs(); return err }(), ErrFreed, "freed"},
		{"Keys on freed", func() error { _, err := freed.Keys(); return err }(), ErrFreed, "freed"},
		{"Free twice", freed.Free(), ErrFreed, "freed"},
		{"Set on read-only", env.Set("a", "b"), ErrReadOnly, "read-only"},
		{"Set of a long value on read-only", env.Set("a", longVal), ErrReadOnly, "read-only"},
		{"Delete on read-only", env.Delete("host"), ErrReadOnly, "read-only"},
		{"Free of read-only", env.Free(), ErrReadOnly, "read-only"},
	} {
		if !errors.Is(c.err, c.class) || !strings.Contains(c.err.Error(), c.says) {
			t.Errorf("%s: %v, want %v saying %q", c.name, c.err, c.class, c.says)
		}
	}
	if ps, err := null.Pairs(); ps != nil || err != nil {
		t.Errorf("Pairs of MPI_INFO_NULL = %v, %v; want none", ps, err)
	}
	d, err := env.Dup()
	if err != nil || d.Set("host", "other") != nil || d.Delete("host") != nil {
		t.Errorf("a duplicate of a read-only info is not writable: %v", err)
	}
}

// TestConcurrent: many goroutines setting, reading and duplicating one info.
func TestConcurrent(t *testing.T) {
	in := New()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				k := string(rune('a' + (g+i)%8))
				_ = in.Set(k, k)
				_, _, _ = in.Get(k)
				d, _ := in.Dup()
				_, _ = d.Nkeys()
			}
		}()
	}
	wg.Wait()
	if n, _ := in.Nkeys(); n != 8 {
		t.Errorf("Nkeys = %d, want 8", n)
	}
}
