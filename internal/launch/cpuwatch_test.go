package launch

import (
	"testing"
)

// The watch frees the ranks after freeAfter busy intervals in a row and binds them
// again after bindAfter quiet ones in a row; a single interval either way, or a load
// between the two thresholds, changes nothing.
func TestBindStateSteps(t *testing.T) {
	var s bindState
	run := func(others float64, k int) (acts []int) {
		for range k {
			if a := s.step(others); a != 0 {
				acts = append(acts, a)
			}
		}
		return acts
	}
	if a := run(0, 20); a != nil || s.on {
		t.Fatalf("quiet node: actions %v, free %v", a, s.on)
	}
	if a := run(1, freeAfter-1); a != nil {
		t.Fatalf("%d busy intervals: %v", freeAfter-1, a)
	}
	if a := run(0, 1); a != nil {
		t.Fatalf("then a quiet one: %v", a)
	}
	if a := run(freeAt, freeAfter); len(a) != 1 || a[0] != +1 || !s.on {
		t.Fatalf("%d intervals at %v CPUs: %v, free %v; want the ranks freed once", freeAfter, freeAt, a, s.on)
	}
	if a := run(2, 10); a != nil {
		t.Fatalf("still busy: %v", a)
	}
	if a := run((freeAt+bindAt)/2, 3*bindAfter); a != nil || !s.on {
		t.Fatalf("between the thresholds: %v, free %v; want no change", a, s.on)
	}
	if a := run(0, bindAfter-1); a != nil {
		t.Fatalf("%d quiet intervals: %v", bindAfter-1, a)
	}
	if a := run(bindAt, 1); a != nil {
		t.Fatalf("then one at %v: %v", bindAt, a)
	}
	if a := run(bindAt/2, bindAfter); len(a) != 1 || a[0] != -1 || s.on {
		t.Fatalf("%d quiet intervals: %v, free %v; want the ranks bound again once", bindAfter, a, s.on)
	}
}

// parseProcTicks reads utime and stime after the command name, whatever it holds.
func TestParseProcTicks(t *testing.T) {
	line := "4242 (a (b) c) R 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 3 0 100 0 0\n"
	if k, err := parseProcTicks([]byte(line)); err != nil || k != 1234+567 {
		t.Fatalf("got %d, %v; want %d", k, err, 1234+567)
	}
	for _, bad := range []string{"4242 no name", "4242 (x) R 1 2 3", "4242 (x) R 1 2 3 4 5 6 7 8 9 a b c"} {
		if _, err := parseProcTicks([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// nodeBusy and procTicks("self") grow while this process keeps a CPU busy.
func TestBusyTicksGrow(t *testing.T) {
	b0, err := nodeBusy()
	if err != nil {
		t.Skipf("no /proc/stat: %v", err)
	}
	s0, err := procTicks("self")
	if err != nil {
		t.Fatal(err)
	}
	for {
		b, err1 := nodeBusy()
		s, err2 := procTicks("self")
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if b > b0 && s > s0 {
			return
		}
		if s-s0 > 100 {
			t.Fatalf("this process spent %d ticks but the node's busy time stayed %d", s-s0, b)
		}
	}
}

// The node counts as shared as the ranks are freed (others' CPU time), and also when
// tasks waited for a CPU stallAt of the time in stallAfter intervals in a row though
// others took little (a job starved by this one; fewer are a start's); it is quiet
// again only when both measures are; an unknown stall (negative) leaves the CPU time
// alone to decide.
func TestShareStateSteps(t *testing.T) {
	var s shareState
	run := func(others, stall float64, k int) (acts []int) {
		for range k {
			if a := s.step(others, stall); a != 0 {
				acts = append(acts, a)
			}
		}
		return acts
	}
	if a := run(0, 0.2, 20); a != nil || s.on {
		t.Fatalf("ranks alone: %v, shared %v", a, s.on)
	}
	if a := run(0.1, stallAt, stallAfter-1); a != nil || s.on {
		t.Fatalf("stalled %v for %d intervals: %v, shared %v; want no change", stallAt, stallAfter-1, a, s.on)
	}
	if a := run(0, 0.2, 1); a != nil {
		t.Fatalf("then one interval below: %v", a)
	}
	if a := run(0.1, stallAt, stallAfter); len(a) != 1 || a[0] != +1 || !s.on {
		t.Fatalf("stalled %v for %d intervals: %v, shared %v; want shared once", stallAt, stallAfter, a, s.on)
	}
	if a := run(0, (stallAt+stallQuiet)/2, 3*bindAfter); a != nil || !s.on {
		t.Fatalf("stall between the thresholds: %v, shared %v; want no change", a, s.on)
	}
	if a := run(bindAt, 0, 3*bindAfter); a != nil || !s.on {
		t.Fatalf("others at %v: %v, shared %v; want no change", bindAt, a, s.on)
	}
	if a := run(0, stallQuiet/2, bindAfter); len(a) != 1 || a[0] != -1 || s.on {
		t.Fatalf("quiet: %v, shared %v; want the job's again once", a, s.on)
	}
	if a := run(freeAt, -1, freeAfter); len(a) != 1 || a[0] != +1 {
		t.Fatalf("others at %v, stall unknown: %v; want shared", freeAt, a)
	}
	if a := run(0, -1, bindAfter); len(a) != 1 || a[0] != -1 {
		t.Fatalf("quiet, stall unknown: %v; want the job's again", a)
	}
}

// The excess is what others took beyond the CPUs the ranks leave: all of it where the
// ranks fill or outnumber the CPUs, less one CPU a rank short of them.
func TestExcess(t *testing.T) {
	for _, c := range []struct {
		others  float64
		cpus, n int
		want    float64
	}{{0.5, 4, 4, 0.5}, {0.5, 4, 6, 0.5}, {1.5, 4, 3, 0.5}, {1.5, 4, 2, -0.5}, {2.5, 4, 2, 0.5}, {0, 2, 1, -1}} {
		if got := excess(c.others, c.cpus, c.n); got != c.want {
			t.Errorf("excess(%v, %d CPUs, %d ranks) = %v, want %v", c.others, c.cpus, c.n, got, c.want)
		}
	}
}

// parseStalled reads the "some" line's total; other shapes are errors.
func TestParseStalled(t *testing.T) {
	b := []byte("some avg10=19.92 avg60=35.78 avg300=23.27 total=8924175837\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
	if v, err := parseStalled(b); err != nil || v != 8924175837 {
		t.Fatalf("got %d, %v; want 8924175837", v, err)
	}
	for _, bad := range []string{"", "full total=3\n", "some avg10=1.00\n", "some total=x\n"} {
		if _, err := parseStalled([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
