package idle

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

// bell counts its rings and wakes a channel.
type bell struct {
	n    atomic.Int32
	wake chan struct{}
}

func (b *bell) Ring() {
	b.n.Add(1)
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// TestWatch: a Watch reports its context's end when polled, rings its bell once
// armed when the context ends (also when it had ended before Arm), and watches
// nothing for a nil or never-ending context.
func TestWatch(t *testing.T) {
	var none *Watch
	none.Arm()
	none.Stop()
	if none.Ended() || none.Err() != nil {
		t.Fatal("a nil Watch has ended")
	}
	bg := NewWatch(context.Background(), nil)
	bg.Arm() // nothing to watch: no watcher, no bell
	if bg.Ended() || bg.w != nil {
		t.Fatal("a Watch of context.Background armed a watcher or ended")
	}
	bg.Stop()

	b := &bell{wake: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	w := NewWatch(ctx, b)
	w.Arm()
	if w.Ended() {
		t.Fatal("ended before its context")
	}
	cancel()
	<-b.wake // the watcher rang (the test would time out otherwise)
	if !w.Ended() || w.Err() != context.Canceled {
		t.Fatalf("after cancel: ended %v, err %v", w.Ended(), w.Err())
	}
	w.Stop()

	// Armed after its context ended: rings at once.
	w = NewWatch(ctx, b)
	w.Arm()
	<-b.wake
	w.Stop()
	if n := b.n.Load(); n != 2 {
		t.Fatalf("%d rings, want 2", n)
	}
}

// TestWatchNoAllocation: arming and stopping a Watch reuses a pooled watcher.
func TestWatchNoAllocation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := &bell{wake: make(chan struct{}, 1)}
	round := func() {
		w := NewWatch(ctx, b)
		w.Arm()
		w.Stop()
	}
	round()
	if a := testing.AllocsPerRun(1000, round); a != 0 {
		t.Errorf("%.2f allocations per armed wait", a)
	}
	if b.n.Load() != 0 {
		t.Error("a bell rang for a context that has not ended")
	}
}

// TestWatchConcurrent: waits on many goroutines arm and stop watches at once, some of
// whose contexts end; each ended one rings its bell, the others none. Run under -race.
func TestWatchConcurrent(t *testing.T) {
	const goroutines, rounds = 8, 200
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				b := &bell{wake: make(chan struct{}, 1)}
				ctx, cancel := context.WithCancel(context.Background())
				w := NewWatch(ctx, b)
				w.Arm()
				end := (g+i)%3 == 0
				if end {
					cancel()
					<-b.wake
				}
				w.Stop()
				cancel()
				if got := b.n.Load(); (got == 1) != end || got > 1 {
					t.Errorf("goroutine %d, round %d: %d rings (context ended while armed: %v)", g, i, got, end)
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

// TestStopWatchers: StopWatchers ends the idle watchers' goroutines (none is left in
// the pool) and leaves an armed one alone; a watch armed afterwards starts a new
// watcher and still rings.
func TestStopWatchers(t *testing.T) {
	b := &bell{wake: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	idleW := NewWatch(ctx, b)
	idleW.Arm()
	x := idleW.w
	idleW.Stop() // x goes back to the pool, idle
	busy := NewWatch(ctx, b)
	busy.Arm() // takes x again: armed while StopWatchers runs
	StopWatchers()
	watchers.Lock()
	n := len(watchers.free)
	watchers.Unlock()
	if n != 0 {
		t.Fatalf("%d idle watchers left after StopWatchers", n)
	}
	select {
	case <-x.gone:
		t.Fatal("StopWatchers ended an armed watcher")
	default:
	}
	busy.Stop()
	StopWatchers() // x, idle now, ends
	<-x.gone
	w := NewWatch(ctx, b)
	w.Arm()
	cancel()
	<-b.wake
	w.Stop()
	StopWatchers()
}
