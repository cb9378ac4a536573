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
