package mpi_test

import (
	"context"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// idleCase is one kind of wait that rank 1 makes while rank 0 keeps it waiting: wait
// blocks rank 1 until rank 0 has called release, which rank 0 calls after a pause. Both
// return the wall-clock time (the ranks share the machine's clock) at which the
// waited-for event happened (rank 0) or was seen (rank 1).
// polled: what rank 1 waits for is looked at between naps, not rung, so its wake-up
// is bounded by the nap only.
type idleCase struct {
	name    string
	polled  bool
	release func(t *testing.T, w *mpi.Comm, win *mpi.Win) time.Time
	wait    func(t *testing.T, w *mpi.Comm, win *mpi.Win) time.Time
}

var idleCases = []idleCase{
	{"Recv", false,
		func(t *testing.T, w *mpi.Comm, _ *mpi.Win) time.Time {
			at := time.Now()
			must(t, mpi.Send(w, []int{1}, 1, 5))
			return at
		},
		func(t *testing.T, w *mpi.Comm, _ *mpi.Win) time.Time {
			_, err := mpi.Recv(w, []int{0}, 0, 5)
			must(t, err)
			return time.Now()
		}},
	{"Recv with a context", false,
		func(t *testing.T, w *mpi.Comm, _ *mpi.Win) time.Time {
			at := time.Now()
			must(t, mpi.Send(w, []int{1}, 1, 6))
			return at
		},
		func(t *testing.T, w *mpi.Comm, _ *mpi.Win) time.Time {
			ctx, cancel := context.WithCancel(context.Background()) // watched: it can end
			defer cancel()
			_, err := mpi.Recv(w.WithContext(ctx), []int{0}, 0, 6)
			must(t, err)
			return time.Now()
		}},
	{"Barrier", false,
		func(t *testing.T, w *mpi.Comm, _ *mpi.Win) time.Time {
			at := time.Now()
			must(t, w.Barrier())
			return at
		},
		func(t *testing.T, w *mpi.Comm, _ *mpi.Win) time.Time {
			must(t, w.Barrier())
			return time.Now()
		}},
	// A set that mixes a message with a collective is polled (core.Await): the
	// collective's completion rings, the message's is seen after a nap.
	{"Waitany (Irecv, Ibarrier)", true,
		func(t *testing.T, w *mpi.Comm, _ *mpi.Win) time.Time {
			at := time.Now()
			must(t, mpi.Send(w, []int{1}, 1, 7))
			ib, err := w.Ibarrier()
			must(t, err)
			_, err = ib.Wait()
			must(t, err)
			return at
		},
		func(t *testing.T, w *mpi.Comm, _ *mpi.Win) time.Time {
			r, err := mpi.Irecv(w, []int{0}, 0, 7)
			must(t, err)
			ib, err := w.Ibarrier()
			must(t, err)
			rs := []mpi.Request{r, ib}
			i, _, err := mpi.Waitany(rs)
			must(t, err)
			at := time.Now()
			if i < 0 || i > 1 {
				t.Fatalf("Waitany: index %d of 2 requests", i)
			}
			// Either may be seen first: over TCP the barrier's shared-memory flags
			// can be read before the message's socket, and MPI lets Waitany return
			// any request that is complete.
			_, err = rs[1-i].Wait()
			must(t, err)
			return at
		}},
	{"Win.Lock", true, // rank 0 holds the exclusive lock on itself meanwhile
		func(t *testing.T, _ *mpi.Comm, win *mpi.Win) time.Time {
			at := time.Now()
			must(t, win.Unlock(0))
			return at
		},
		func(t *testing.T, _ *mpi.Comm, win *mpi.Win) time.Time {
			must(t, win.Lock(mpi.LockShared, 0, 0))
			at := time.Now()
			return at
		}},
}

// TestIdleWaitSleeps: a rank kept waiting (rank 0 pauses 1.2 s before it releases
// it) in a Recv, a Recv through a view with a context, a Barrier, a Waitany over a
// message and a collective, and a Win.Lock uses a small fraction of a core (under 25%
// of the wait's wall time, user and system time of the whole process), over shared
// memory and over forced TCP, with the default idle policy; and is woken promptly
// once released: within 250 ms of the release (a bound that leaves room for a loaded
// machine) with the default naps of at most 1 ms, and also
// with naps of a second (p2p_sleep=1s), where only the release's wake-up (a doorbell,
// a futex) can end the sleep in time: the naps, doubling from 50 us, have reached
// 819 ms when rank 0 releases at 1.2 s, and that nap ends about 440 ms after it.
// Waitany's message and Win.Lock's lock word are polled between naps, which a second
// would not bound: they run with the default naps only, bounded at a second (a nap
// takes a millisecond, but a loaded machine can keep Win.Lock from running for much
// longer).
func TestIdleWaitSleeps(t *testing.T) {
	for _, tr := range mpitest.Transports {
		for _, naps := range []string{"", "1s"} {
			set := map[string]string{}
			name := tr.Name
			if naps != "" {
				set["p2p_sleep"] = naps
				name += "_p2p_sleep_" + naps
			}
			t.Run(name, func(t *testing.T) {
				jobWith(t, mpitest.Options{N: 2, Transport: tr, Settings: set, Timeout: time.Minute}, func(t *testing.T, rank, size int) { idleWaits(t, rank, naps == "") })
			})
		}
	}
}

func idleWaits(t *testing.T, rank int, shortNaps bool) {
	const pause = 1200 * time.Millisecond
	w := mpi.World
	win, _, err := mpi.WinAllocate(64, 8, nil, w)
	must(t, err)
	for _, c := range idleCases {
		if c.polled && !shortNaps {
			continue
		}
		if c.name == "Win.Lock" && rank == 0 {
			must(t, win.Lock(mpi.LockExclusive, 0, 0))
		}
		must(t, w.Barrier())
		if rank == 0 {
			time.Sleep(pause) // the scenario: a rank that comes late, not synchronisation
			at := c.release(t, w, win)
			must(t, mpi.SendValue(w, at.UnixNano(), 1, 99))
			continue
		}
		cpu0, t0 := cpuTime(t), time.Now()
		seen := c.wait(t, w, win)
		cpu, wall := cpuTime(t)-cpu0, time.Since(t0)
		at, _, err := mpi.RecvValue[int64](w, 0, 99)
		must(t, err)
		late := seen.Sub(time.Unix(0, at))
		t.Logf("%s: waited %v, used %v of CPU (%.1f%%), woke %v after the release",
			c.name, wall.Round(time.Millisecond), cpu, 100*float64(cpu)/float64(wall), late)
		if wall < pause/2 {
			t.Errorf("%s: returned after %v, before rank 0 released it (%v)", c.name, wall, pause)
		}
		// The bound is what tells a sleeping wait from one that returns to its
		// yield phase after each nap, not the naps' own cost, which grows with load and
		// the race detector (docs/BENCHMARKS.md, idle waits).
		if cpu > wall/4 {
			t.Errorf("%s: used %v of CPU in a wait of %v: more than 25%%", c.name, cpu, wall)
		}
		bound := 250 * time.Millisecond
		if c.polled {
			bound = time.Second // a nap, and more if the machine's load keeps it from running
		}
		if late > bound {
			t.Errorf("%s: woke %v after rank 0 released it", c.name, late)
		}
	}
	must(t, w.Barrier())
	must(t, win.Free())
}
