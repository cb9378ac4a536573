package mpir

import "testing"

// TestTwoPhaseChoice checks when a collective access goes through aggregators.
func TestTwoPhaseChoice(t *testing.T) {
	rec := func(lo, hi, n int64) []int64 {
		r := make([]int64, recFields)
		r[recLo], r[recHi], r[recLen] = lo, hi, n
		return r
	}
	join := func(mode, memory int64, recs ...[]int64) []int64 {
		var all []int64
		for _, r := range recs {
			all = append(all, r...)
		}
		all[recMode], all[recMemory] = mode, memory
		return all
	}
	interleaved := [][]int64{rec(0, 100, 50), rec(10, 110, 50)}
	apart := [][]int64{rec(0, 100, 100), rec(100, 200, 100)}
	alone := [][]int64{rec(0, 100, 100), rec(0, 0, 0)}
	for _, c := range []struct {
		name             string
		all              []int64
		write, multiNode bool
		want             bool
	}{
		{"interleaved writes to disk", join(cbAuto, 0, interleaved...), true, false, true},
		{"interleaved writes to memory", join(cbAuto, 1, interleaved...), true, false, false},
		{"interleaved reads on one node", join(cbAuto, 0, interleaved...), false, false, false},
		{"interleaved reads across nodes", join(cbAuto, 0, interleaved...), false, true, true},
		{"interleaved writes to memory across nodes", join(cbAuto, 1, interleaved...), true, true, true},
		{"spans apart", join(cbAuto, 0, apart...), true, true, false},
		{"one member with data", join(cbAuto, 0, alone...), true, true, false},
		{"enabled", join(cbEnable, 1, apart...), false, false, true},
		{"disabled", join(cbDisable, 0, interleaved...), true, true, false},
	} {
		if got := twoPhase(c.all, c.write, c.multiNode); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	atomic := join(cbEnable, 0, interleaved...)
	atomic[recAtomic] = 1
	if twoPhase(atomic, true, true) {
		t.Errorf("atomic mode went through the aggregators")
	}
}
