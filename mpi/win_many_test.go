package mpi_test

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"github.com/mpigo/mpigo/mpi"
)

// windowGoroutines counts this process's goroutines running window code, and those
// of them in the progress goroutine.
func windowGoroutines() (all, serving int) {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if bytes.Contains(g, []byte("mpigo/internal/window.")) {
			all++
			if bytes.Contains(g, []byte("window.serveAll")) {
				serving++
			}
		}
	}
	return all, serving
}

// TestWinManyAlive: with 200 windows alive that are shipped to (WinCreate: memory
// the program gave), a rank serves passive-target operations on one of them while it
// waits elsewhere (a Barrier) about as fast as with that window alone: one progress
// goroutine per process serves them all, and the others cost nothing while idle.
// Freeing them all leaves no goroutine of the windows' behind.
func TestWinManyAlive(t *testing.T) {
	winJob(t, 2, func(t *testing.T, rank, size int) {
		if all, _ := windowGoroutines(); all != 0 {
			t.Fatalf("%d goroutines run window code before any window", all)
		}
		before := runtime.NumGoroutine()
		const many, used, iters = 200, 137, 300
		// phase runs iters passive-target round trips from rank 0 to rank 1's window w
		// while rank 1 waits in a Barrier, and returns rank 0's time for them and rank
		// 1's process CPU time meanwhile.
		phase := func(w *mpi.Win, base int64) (wall, cpu time.Duration) {
			must(t, mpi.World.Barrier())
			t0, c0 := time.Now(), cpuTime(t)
			if rank == 0 {
				got := make([]int64, 1)
				for i := range int64(iters) {
					must(t, w.Lock(mpi.LockExclusive, 1, 0))
					must(t, mpi.Put(w, []int64{base + i}, 1, 0))
					must(t, mpi.Accumulate(w, []int64{1}, 1, 1, mpi.Sum))
					must(t, mpi.Get(w, got, 1, 0))
					must(t, w.Unlock(1))
					if got[0] != base+i {
						t.Fatalf("round %d: got %d back, want %d", i, got[0], base+i)
					}
				}
			}
			must(t, mpi.World.Barrier())
			return time.Since(t0), cpuTime(t) - c0
		}

		mem := make([]byte, 16)
		one, err := mpi.WinCreate(mem, 8, nil, mpi.World)
		must(t, err)
		alone, aloneCPU := phase(one, 1000)
		must(t, one.Free())
		if rank == 1 && i64view(mem)[1] != iters {
			t.Fatalf("one window: the accumulated count is %d, want %d", i64view(mem)[1], iters)
		}

		wins := make([]*mpi.Win, many)
		mems := make([][]byte, many)
		for i := range wins {
			mems[i] = make([]byte, 16)
			wins[i], err = mpi.WinCreate(mems[i], 8, nil, mpi.World)
			must(t, err)
		}
		if all, serving := windowGoroutines(); serving != 1 || runtime.NumGoroutine() > before+2 {
			t.Errorf("%d windows alive: %d goroutines (%d before any window), %d of them running window code, %d serving; want one serving",
				many, runtime.NumGoroutine(), before, all, serving)
		}
		crowd, crowdCPU := phase(wins[used], 5000)
		for i, w := range wins {
			must(t, w.Free())
			want := int64(0)
			if i == used && rank == 1 {
				want = iters
			}
			if got := i64view(mems[i])[1]; got != want {
				t.Fatalf("window %d: the accumulated count is %d, want %d", i, got, want)
			}
		}
		t.Logf("rank %d: %d round trips with one window alive: %v (CPU %v); with %d alive: %v (CPU %v)",
			rank, iters, alone, aloneCPU, many, crowd, crowdCPU)
		// The bound leaves room for a loaded machine; a goroutine per window made it
		// tens of times slower. The race detector's cost is no measure (1.1 s against
		// 0.11 s with it, once).
		if rank == 0 && !raceEnabled && crowd > 4*alone+500*time.Millisecond {
			t.Errorf("%d round trips took %v with %d windows alive, %v with one", iters, crowd, many, alone)
		}

		// Freed: the progress goroutine has ended (it may take a moment to leave the
		// scheduler after Free saw it end).
		deadline := time.Now().Add(10 * time.Second)
		for {
			all, _ := windowGoroutines()
			n := runtime.NumGoroutine()
			if all == 0 && n <= before {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("all windows freed: %d goroutines run window code, %d goroutines (%d before any window)", all, n, before)
			}
			runtime.Gosched()
		}
	})
}
