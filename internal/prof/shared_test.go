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
	before, after, ncalls := hammer(t, FileWriteAt, 64, sharedCall)
	checkSampled(t, after.Timed-before.Timed, ncalls)
	if after.Ns <= before.Ns {
		t.Errorf("FileWriteAt's time did not grow: %v ns, then %v", before.Ns, after.Ns)
	}
}

// checkSampled checks that timed of ncalls calls were timed: about one in SampleEvery,
// or every one where there is no short path (the race detector's builds).
func checkSampled(t *testing.T, timed, ncalls uint64) {
	t.Helper()
	switch {
	case !fast && timed != ncalls:
		t.Errorf("%d of %d calls timed, want all (no short path)", timed, ncalls)
	case fast && (timed < ncalls/(2*SampleEvery) || timed > 4*ncalls/SampleEvery):
		t.Errorf("%d of %d calls timed, want about 1 in %d", timed, ncalls, SampleEvery)
	}
}

// hammer makes call from 8 goroutines at once, 4000 times each, through do, with
// base bytes, and twice that for half of the odd goroutines' calls, and checks that
// the record counted every call, its bytes and its size class. It returns the call's
// totals before and after, and the number of calls.
func hammer(t *testing.T, call Call, base int, do func(Call, int)) (before, after CallTotals, ncalls uint64) {
	t.Helper()
	before = totals(call)
	const goroutines, each = 8, 4000
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				do(call, base<<(g%2*(i%2)))
			}
		}()
	}
	wg.Wait()
	after = totals(call)
	ncalls = goroutines * each
	big := uint64(goroutines / 2 * each / 2)
	if n, b := after.N-before.N, after.Bytes-before.Bytes; n != ncalls || b != uint64(base)*(ncalls+big) {
		t.Errorf("%s: %d calls, %d bytes; want %d, %d", call, n, b, ncalls, uint64(base)*(ncalls+big))
	}
	k := Bucket(base)
	if lo, hi := after.Hist[k]-before.Hist[k], after.Hist[k+1]-before.Hist[k+1]; lo != ncalls-big || hi != big {
		t.Errorf("%s by size: %d of %d bytes, %d of %d; want %d, %d", call, lo, base, hi, 2*base, ncalls-big, big)
	}
	return before, after, ncalls
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
// once, are every one counted, with their bytes and size classes, in the processors'
// tallies, and about one in SampleEvery is timed from its entry (every one without
// the short path).
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
	ticks0 := shardTicks(call)
	before, after, ncalls := hammer(t, call, 8, func(call Call, n int) {
		var at int64
		if !Try(call, nil, 1, 0, n) {
			at = Enter(call, nil, 1, 0, n)
		}
		if !TryExit(call, at, n) {
			Exit(call, at, n)
		}
	})
	checkSampled(t, after.Timed-before.Timed, ncalls)
	if after.Ns <= before.Ns {
		t.Errorf("%v's time did not grow: %v ns, then %v", call, before.Ns, after.Ns)
	}
	if fast && shardTicks(call) <= ticks0 {
		t.Errorf("the processors' tallies hold no time of the calls: %d ticks, then %d", ticks0, shardTicks(call))
	}
}

// At ThreadMultiple a call that blocks is timed from its wait when it is not a sample,
// so every one that blocked has a time.
func TestSharedBlocked(t *testing.T) {
	if err := Start(0, 2, true); err != nil {
		t.Fatal(err)
	}
	defer Start(0, 2, false)
	before := totals(Bcast)
	const ncalls = 4 * SampleEvery
	for range ncalls {
		at := Enter(Bcast, nil, 0, -1, 8)
		Blocked()
		Exit(Bcast, at, 8)
	}
	after := totals(Bcast)
	if n, timed := after.N-before.N, after.Timed-before.Timed; n != ncalls || timed != ncalls {
		t.Errorf("%d blocked calls: %d counted, %d timed; want every one both", ncalls, n, timed)
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

// col is a profile column's count of world rank w: 0 where the column is empty (a
// snapshot leaves the one-sided columns out until an operation is counted).
func col(c []uint64, w int) uint64 {
	if w < len(c) {
		return c[w]
	}
	return 0
}

// At ThreadMultiple the one-sided operations done directly (DoneDirect), from many
// goroutines at once, are every one counted: the calls in the per-call totals, the
// links they move data on in the matrix's one-sided columns of their world rank. A
// link of a world rank past the processors' (a job grown since) is counted in its
// owner's memory. Below ThreadMultiple one goroutine's plain adds count the same.
// Neither allocates.
func TestSharedOneSided(t *testing.T) {
	defer Start(0, 2, false)
	for _, multi := range []bool{true, false} {
		if err := Start(0, 2, multi); err != nil {
			t.Fatal(err)
		}
		var to, from, far, farIn Link
		taps := Watch([]Tap{{&to, 1, RMATo}, {&from, 1, RMAFrom}})
		put0, cas0, p0 := totals(Put), totals(CompareAndSwap), snapshot("")
		goroutines, each := 8, 4000
		if !multi {
			goroutines = 1 // one goroutine calls below ThreadMultiple
		}
		together(goroutines, each, func() {
			DoneDirect(Put, 8, &to, &from, 1, DirTo)
			DoneDirect(None, 3, &to, &from, 1, DirFrom)
			DoneDirect(CompareAndSwap, 5, &far, &farIn, 1000, DirTo|DirFrom)
		})
		put1, cas1, p1 := totals(Put), totals(CompareAndSwap), snapshot("")
		ncalls := uint64(goroutines * each)
		if n, b := put1.N-put0.N, put1.Bytes-put0.Bytes; n != ncalls || b != 8*ncalls {
			t.Errorf("ThreadMultiple %v: Put: %d calls, %d bytes; want %d, %d", multi, n, b, ncalls, 8*ncalls)
		}
		if n, b := cas1.N-cas0.N, cas1.Bytes-cas0.Bytes; n != ncalls || b != 5*ncalls {
			t.Errorf("ThreadMultiple %v: CompareAndSwap: %d calls, %d bytes; want %d, %d", multi, n, b, ncalls, 5*ncalls)
		}
		if b, o := col(p1.RMABytes, 1)-col(p0.RMABytes, 1), col(p1.RMAOps, 1)-col(p0.RMAOps, 1); b != 8*ncalls || o != ncalls {
			t.Errorf("ThreadMultiple %v: to rank 1: %d bytes in %d operations; want %d in %d", multi, b, o, 8*ncalls, ncalls)
		}
		if b, o := col(p1.RMAInBytes, 1)-col(p0.RMAInBytes, 1), col(p1.RMAInOps, 1)-col(p0.RMAInOps, 1); b != 3*ncalls || o != ncalls {
			t.Errorf("ThreadMultiple %v: from rank 1: %d bytes in %d operations; want %d in %d", multi, b, o, 3*ncalls, ncalls)
		}
		if far != (Link{5 * ncalls, ncalls}) || farIn != far {
			t.Errorf("ThreadMultiple %v: links of world rank 1000: %+v, %+v; want %d bytes in %d operations each", multi, far, farIn, 5*ncalls, ncalls)
		}
		if a := testing.AllocsPerRun(1000, func() {
			DoneDirect(Get, 8, &to, &from, 1, DirFrom)
		}); a != 0 {
			t.Errorf("ThreadMultiple %v: %v allocations per operation", multi, a)
		}
		taps.Retire()
	}
}

// A node collective's flows (Flows), added to from many goroutines at once at
// ThreadMultiple, are every one counted in the matrix's collective column of the world
// rank they are tapped for, beside what C's short ways add to their base link; below
// ThreadMultiple they are the base link alone. Neither level allocates per add.
func TestFlows(t *testing.T) {
	for _, multi := range []bool{true, false} {
		if err := Start(0, 2, multi); err != nil {
			t.Fatal(err)
		}
		var base Link
		f := NewFlows(&base)
		if fast && multi != (f.per != nil) {
			t.Errorf("ThreadMultiple %v: per-processor copies %v", multi, f.per != nil)
		}
		taps := Watch(f.Taps(nil, 1, Sent|Coll))
		p0 := snapshot("")
		goroutines, each := 8, 4000
		if !multi {
			goroutines = 1 // one goroutine calls below ThreadMultiple
		}
		together(goroutines, each, func() { f.Add(8) })
		base.Bytes, base.Ops = base.Bytes+100, base.Ops+1 // a C short way's count
		p1 := snapshot("")
		n := uint64(goroutines * each)
		if b, o := col(p1.CollBytes, 1)-col(p0.CollBytes, 1), col(p1.CollMsgs, 1)-col(p0.CollMsgs, 1); b != 8*n+100 || o != n+1 {
			t.Errorf("ThreadMultiple %v: %d collective bytes in %d flows to rank 1; want %d in %d", multi, b, o, 8*n+100, n+1)
		}
		if a := testing.AllocsPerRun(1000, func() { f.Add(8) }); a != 0 {
			t.Errorf("ThreadMultiple %v: %v allocations per add", multi, a)
		}
		taps.Retire()
	}
}

// together runs do each times in every one of goroutines goroutines at once.
func together(goroutines, each int, do func()) {
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				do()
			}
		}()
	}
	wg.Wait()
}
