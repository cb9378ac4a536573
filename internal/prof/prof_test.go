package prof

import "testing"

func TestBucket(t *testing.T) {
	for _, c := range []struct{ n, b int }{{0, 0}, {1, 1}, {2, 2}, {3, 2}, {8, 4}, {1023, 10}, {1024, 11}, {1 << 62, HistBuckets - 1}} {
		if got := Bucket(c.n); got != c.b {
			t.Errorf("Bucket(%d) = %d, want %d", c.n, got, c.b)
		}
	}
}

// The gaps between sampled calls stay in range and are not all alike.
func TestNextGap(t *testing.T) {
	seen := map[uint32]bool{}
	for i := 0; i < 10000; i++ {
		g := nextGap()
		if g < 1 || g > 2*SampleEvery-1 {
			t.Fatalf("gap %d out of range", g)
		}
		seen[g] = true
	}
	if len(seen) < SampleEvery {
		t.Errorf("only %d distinct gaps", len(seen))
	}
}

// Counting a call allocates nothing.
func TestEnterExitAllocs(t *testing.T) {
	if a := testing.AllocsPerRun(1000, func() { Exit(Send, Enter(Send, 0, 2, 1, 0, 8), 8) }); a != 0 {
		t.Errorf("%v allocations per call", a)
	}
}

func TestCallNames(t *testing.T) {
	for c := Call(0); c < NumCalls; c++ {
		if c.String() == "" || CallNamed(c.String()) != c {
			t.Errorf("call %d: name %q does not round-trip", c, c.String())
		}
	}
}
