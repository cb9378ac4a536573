package prof

import (
	"math/bits"
	"runtime"
	_ "unsafe" // linkname
)

// The short path at ThreadMultiple, for the calls in sharedCalls: a call that does
// not wait and moves a few bytes (the file short way's read_at and write_at: one
// system call), for which Enter's long path (a clock read at entry and exit, six
// atomic adds) cost as much again as the call's own work in user space. Such a call is
// counted instead in a tally of the Go scheduler's processor (P) that runs the
// caller, with plain adds made while the goroutine is pinned to it, so that no other
// goroutine adds to the same words meanwhile; every snapshot adds the tallies to the
// record's counts (WatchTallies), so counts and bytes stay exact. One call in about
// SampleEvery per processor still goes through Enter and Exit, timed, and the others'
// time is estimated from those (Counter.Estimate), as below ThreadMultiple. A call
// counted this way is not the current call while it runs (State does not show it):
// it cannot wait.
//
// Below ThreadMultiple these calls take Try and TryExit; with the timeline on, or
// under the race detector (whose builds have no short path), Enter and Exit.

// sharedCalls are the calls that may take the short path at ThreadMultiple.
var sharedCalls = [...]Call{FileReadAt, FileWriteAt}

// sharedIndex is a call's index in sharedCalls, -1 where it is not one.
var sharedIndex = func() (x [NumCalls]int8) {
	for c := range x {
		x[c] = -1
	}
	for i, c := range sharedCalls {
		x[c] = int8(i)
	}
	return x
}()

// shard is one processor's tallies of sharedCalls, and its count of calls to the next
// timed one; a whole number of cache lines, so that processors share none.
type shard struct {
	gap uint64
	rng uint64
	_   [6]uint64
	t   [len(sharedCalls)]Tally
	_   [(64 - len(sharedCalls)*(HistBuckets+1)*8%64) % 64]byte
}

// shards is indexed by processor id (made once, at the first Start at ThreadMultiple,
// for the processors there may be then); a call on a processor beyond it takes the
// long path.
var shards []shard

//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// startShared makes the tallies of the short path at ThreadMultiple (under mu, from
// Start).
func startShared() {
	if !fast || shards != nil {
		return
	}
	n := max(runtime.GOMAXPROCS(0), runtime.NumCPU())
	shards = make([]shard, n)
	for p := range shards {
		shards[p].gap = uint64(p%SampleEvery) + 1
		shards[p].rng = 0x9e3779b97f4a7c15 ^ uint64(p+1)*0xbf58476d1ce4e5b9
		calls := sharedCalls
		WatchTallies(calls[:], shards[p].t[:])
	}
}

// SharedUntimed says whether call, a call of sharedCalls about to be made at
// ThreadMultiple, is to be counted by SharedCount once done, untimed; false: it goes
// through Enter and Exit (the program is not at ThreadMultiple, the timeline is on,
// it is the processor's next sample, or call is not one of sharedCalls).
func SharedUntimed(call Call) bool {
	if !fast || !concurrent || timed || sharedIndex[call] < 0 {
		return false
	}
	p := procPin()
	if p >= len(shards) {
		procUnpin()
		return false
	}
	s := &shards[p]
	if s.gap > 1 {
		s.gap--
		procUnpin()
		return true
	}
	s.rng ^= s.rng << 13
	s.rng ^= s.rng >> 7
	s.rng ^= s.rng << 17
	s.gap = s.rng%(2*SampleEvery-1) + 1
	procUnpin()
	return false
}

// SharedCount counts call, of n bytes, done where SharedUntimed said so, in the
// tally of the processor that runs the caller now.
func SharedCount(call Call, n int) {
	p := procPin()
	if p < len(shards) {
		t := &shards[p].t[sharedIndex[call]]
		t.Bytes += uint64(n)
		t.Hist[bits.Len64(uint64(n))]++
		procUnpin()
		return
	}
	procUnpin()
	// A processor added since the shards were made (GOMAXPROCS raised): the record's
	// own counters, atomically.
	c := &counts[call]
	add(&c.Bytes, uint64(n))
	add(&c.Hist[bits.Len64(uint64(n))], 1)
}
