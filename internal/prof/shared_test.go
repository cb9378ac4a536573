package prof

import (
	"sync"
	"testing"
)

// sharedCall runs one call of sharedCalls as the file short way does at
// ThreadMultiple: the processor's tally, else Enter and Exit.
func sharedCall(c Call, n int) {
	if SharedUntimed(c) {
		SharedCount(c, n)
		return
	}
	Exit(c, Enter(c, nil, NoPeer, -2, n), n)
}

// totals is call's line of a snapshot (zero if it has none).
func totals(c Call) (t CallTotals) {
	for _, x := range snapshot("test").Calls {
		if x.Call == c.String() {
			return x
		}
	}
	t.Hist = make([]uint64, HistBuckets)
	return t
}

// At ThreadMultiple, calls of sharedCalls made from many goroutines at once are
// every one counted, with their bytes and size classes, and about one in SampleEvery
// is timed (every one where there is no short path: the race detector's builds).
func TestSharedCalls(t *testing.T) {
	if err := Start(0, 2, true); err != nil {
		t.Fatal(err)
	}
	defer Start(0, 2, false)
	before := totals(FileWriteAt)
	const goroutines, each = 8, 4000
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				sharedCall(FileWriteAt, 64+g%2*(i%2)*64) // 64, and 128 for half of the odd goroutines' calls
			}
		}()
	}
	wg.Wait()
	after := totals(FileWriteAt)
	const ncalls = goroutines * each
	big := goroutines / 2 * each / 2
	if n, b := after.N-before.N, after.Bytes-before.Bytes; n != ncalls || b != 64*ncalls+64*uint64(big) {
		t.Errorf("FileWriteAt: %d calls, %d bytes; want %d, %d", n, b, ncalls, 64*ncalls+64*big)
	}
	if h7, h8 := after.Hist[7]-before.Hist[7], after.Hist[8]-before.Hist[8]; h7 != ncalls-uint64(big) || h8 != uint64(big) {
		t.Errorf("FileWriteAt by size: %d of 64-127 bytes, %d of 128-255; want %d, %d", h7, h8, ncalls-big, big)
	}
	timed := after.Timed - before.Timed
	switch {
	case !fast && timed != ncalls:
		t.Errorf("%d of %d calls timed, want all (no short path)", timed, ncalls)
	case fast && (timed < ncalls/(2*SampleEvery) || timed > 4*ncalls/SampleEvery):
		t.Errorf("%d of %d calls timed, want about 1 in %d", timed, ncalls, SampleEvery)
	}
	if after.Ns <= before.Ns {
		t.Errorf("FileWriteAt's time did not grow: %v ns, then %v", before.Ns, after.Ns)
	}
}

// A call that is not one of sharedCalls, or one made below ThreadMultiple, is not
// taken by the short path.
func TestSharedOnlyMultiple(t *testing.T) {
	if err := Start(0, 2, false); err != nil {
		t.Fatal(err)
	}
	if SharedUntimed(FileWriteAt) {
		t.Error("SharedUntimed below ThreadMultiple")
	}
	if err := Start(0, 2, true); err != nil {
		t.Fatal(err)
	}
	defer Start(0, 2, false)
	for range 4 * SampleEvery {
		if SharedUntimed(Send) {
			t.Fatal("SharedUntimed(Send)")
		}
	}
}

// The short path at ThreadMultiple allocates nothing.
func TestSharedAllocs(t *testing.T) {
	if err := Start(0, 2, true); err != nil {
		t.Fatal(err)
	}
	defer Start(0, 2, false)
	if a := testing.AllocsPerRun(1000, func() { sharedCall(FileReadAt, 64) }); a != 0 {
		t.Errorf("%v allocations per call", a)
	}
}

// At ThreadMultiple the point-to-point calls and the blocking collectives, made as
// their callers make them (Try or Enter, TryExit or Exit) from many goroutines at
// once, are every one counted, with their bytes and size classes, and every one timed
// from its entry, in the processors' tallies.
func TestSharedPointToPoint(t *testing.T) {
	for _, call := range []Call{Send, Bcast} {
		t.Run(call.String(), func(t *testing.T) { testSharedCall(t, call) })
	}
}

func testSharedCall(t *testing.T, call Call) {
	if err := Start(0, 2, true); err != nil {
		t.Fatal(err)
	}
	defer Start(0, 2, false)
	before, ticks0 := totals(call), shardTicks(call)
	const goroutines, each = 8, 4000
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				n := 8 << (g % 2 * (i % 2)) // 8, and 16 for half of the odd goroutines' calls
				var at int64
				if !Try(call, nil, 1, 0, n) {
					at = Enter(call, nil, 1, 0, n)
				}
				if !TryExit(call, at, n) {
					Exit(call, at, n)
				}
			}
		}()
	}
	wg.Wait()
	after := totals(call)
	const ncalls = goroutines * each
	big := goroutines / 2 * each / 2
	if n, b := after.N-before.N, after.Bytes-before.Bytes; n != ncalls || b != 8*ncalls+8*uint64(big) {
		t.Errorf("%d calls, %d bytes; want %d, %d", n, b, ncalls, 8*ncalls+8*big)
	}
	if h4, h5 := after.Hist[4]-before.Hist[4], after.Hist[5]-before.Hist[5]; h4 != ncalls-uint64(big) || h5 != uint64(big) {
		t.Errorf("by size: %d of 8-15 bytes, %d of 16-31; want %d, %d", h4, h5, ncalls-big, big)
	}
	if timed := after.Timed - before.Timed; timed != ncalls {
		t.Errorf("%d of %d calls timed, want all", timed, ncalls)
	}
	if fast && shardTicks(call) <= ticks0 {
		t.Errorf("the processors' tallies hold no time of the calls: %d ticks, then %d", ticks0, shardTicks(call))
	}
}

// shardTicks is the time the processors' tallies hold of call.
func shardTicks(call Call) (ticks uint64) {
	if sharedIndex[call] < 0 {
		return 0
	}
	for p := range shards {
		x := &shards[p].t[sharedIndex[call]]
		ticks += x.Ticks + x.BlockedTicks
	}
	return ticks
}

// At ThreadMultiple the one-sided operations done at once (Done) and the links they
// move data on (AddLinkTo), from many goroutines at once, are every one counted: the
// calls in the per-call totals, the links in the matrix's one-sided columns of their
// world rank. A link of a world rank past the processors' (a job grown since) is
// counted in its owner's memory. Neither allocates.
func TestSharedOneSided(t *testing.T) {
	if err := Start(0, 2, true); err != nil {
		t.Fatal(err)
	}
	defer Start(0, 2, false)
	var to, from, far Link
	taps := Watch([]Tap{{&to, 1, RMATo}, {&from, 1, RMAFrom}})
	defer taps.Retire()
	before, p0 := totals(Put), snapshot("")
	const goroutines, each = 8, 4000
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if !TryDone(Put, 8) {
					Done(Put, 8)
				}
				AddLinkTo(&to, 2*1, 8)
				AddLinkTo(&from, 2*1+1, 3)
				AddLinkTo(&far, 2*1000, 5)
			}
		}()
	}
	wg.Wait()
	after, p1 := totals(Put), snapshot("")
	const ncalls = goroutines * each
	if n, b := after.N-before.N, after.Bytes-before.Bytes; n != ncalls || b != 8*ncalls {
		t.Errorf("Put: %d calls, %d bytes; want %d, %d", n, b, ncalls, 8*ncalls)
	}
	if b, o := p1.RMABytes[1]-p0.RMABytes[1], p1.RMAOps[1]-p0.RMAOps[1]; b != 8*ncalls || o != ncalls {
		t.Errorf("to rank 1: %d bytes in %d operations; want %d in %d", b, o, 8*ncalls, ncalls)
	}
	if b, o := p1.RMAInBytes[1]-p0.RMAInBytes[1], p1.RMAInOps[1]-p0.RMAInOps[1]; b != 3*ncalls || o != ncalls {
		t.Errorf("from rank 1: %d bytes in %d operations; want %d in %d", b, o, 3*ncalls, ncalls)
	}
	if far != (Link{5 * ncalls, ncalls}) {
		t.Errorf("link of world rank 1000: %+v; want %d bytes in %d operations", far, 5*ncalls, ncalls)
	}
	if a := testing.AllocsPerRun(1000, func() {
		if !TryDone(Get, 8) {
			Done(Get, 8)
		}
		AddLinkTo(&to, 2*1, 8)
	}); a != 0 {
		t.Errorf("%v allocations per operation", a)
	}
}
