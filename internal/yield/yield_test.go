package yield

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// lockedTries bounds the Gosched calls a locked goroutine makes before the tests
// expect skipping: sixteen probes. A probe sees a hand-off only when it finds the
// thread switched out inside Gosched, which under load (CI runs packages in parallel)
// it does not always: four probes in a row saw none once.
const lockedTries = 16 * (probeEvery + 1)

// A goroutine locked to its thread makes Gosched skip; an unlocked one afterwards
// makes it stop skipping.
func TestGoschedNoticesLockedCallers(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for i := 0; i < lockedTries; i++ {
			if Skipping() {
				break
			}
			Gosched()
		}
	}()
	wg.Wait()
	if !Skipping() {
		t.Fatal("Gosched from a goroutine locked to its thread: not skipping")
	}
	// Any cheap Gosched ends the skipping; under load (CI runs packages in parallel, with
	// the race detector) a few executed ones in a row can all be preempted and costly,
	// so allow a hundred.
	for i := 0; i < 100*(skip+1) && Skipping(); i++ {
		Gosched()
	}
	if Skipping() {
		t.Fatal("Gosched from an unlocked goroutine: still skipping")
	}
}

// Other goroutines still run while Gosched skips: a locked waiter that spins on
// Gosched sees another goroutine's work complete.
func TestGoschedLetsOthersRunWhenSkipping(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i := 0; i < lockedTries; i++ {
		if Skipping() {
			break
		}
		Gosched()
	}
	if !Skipping() {
		t.Fatal("Gosched from a goroutine locked to its thread: not skipping")
	}
	done := make(chan struct{})
	var flag atomic.Bool
	go func() { flag.Store(true); close(done) }()
	for !flag.Load() {
		Gosched()
	}
	<-done
}

func BenchmarkGosched(b *testing.B) {
	for _, locked := range []bool{false, true} {
		name := "unlocked"
		if locked {
			name = "locked"
		}
		b.Run(name, func(b *testing.B) {
			if locked {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				Gosched()
			}
		})
	}
}
