package window

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/idle"
	"github.com/mpigo/mpigo/internal/p2p"
	"github.com/mpigo/mpigo/internal/rma"
)

// Serving inside synchronisation calls. A rank whose window is shipped to has a
// progress goroutine that applies the requests (ship.go), which passive target
// needs: the target may be computing and never call MPI. But when the target is itself
// waiting inside a call on the window (Fence, Wait or Test, Start, or as an origin in
// Flush, Unlock, Lock or Complete waiting for its own replies), handing each request
// to that goroutine costs a wake-up of a sleeping thread on the critical path (in a
// VM, more than the round trip itself: docs/BENCHMARKS.md, one-sided communication
// over TCP). So such a call applies the requests
// itself while it spins (drain), as Open MPI's osc pt2pt progresses inside the fence;
// once its spin and yield phases are over it sleeps in the engine and the goroutine
// takes over. Take and apply happen under applyMu, in the goroutine and here alike, so
// one goroutine at a time applies this rank's requests and they are applied in the
// order they came (per origin, the order sent).

// drain applies the requests that have come, unless another goroutine is applying
// them; it reports whether it applied any. It looks only at what has arrived: the
// caller drives the engine's progress.
func (w *Win) drain() bool {
	if !w.applyMu.TryLock() {
		return false
	}
	did := w.applyQueued()
	w.applyMu.Unlock()
	return did
}

// applyArrived applies every request that has come, waiting for the progress
// goroutine if it is applying one: Test's answer must count a Complete that arrived
// before it was called, which the goroutine may hold (drain would give up on it).
func (w *Win) applyArrived() {
	w.applyMu.Lock()
	w.applyQueued()
	w.applyMu.Unlock()
}

// serveWhile waits until done holds (done drives the engine's progress), applying
// this rank's requests meanwhile, through the idle policy's spin and yield phases. It
// reports whether done holds; false when the phases are over: the caller then sleeps
// in the engine and the progress goroutine serves.
func (w *Win) serveWhile(done func() bool) bool {
	a := idle.NewAdaptive(servePolicy(), 0)
	wt := a.Begin()
	for !done() {
		if w.drain() {
			continue
		}
		switch {
		case wt.Next(1):
			wt.Gosched()
		case wt.Yielding():
			wt.Yield()
		default:
			w.endServe()
			return false
		}
	}
	w.endServe()
	return true
}

// Lock requests queued here while a holder of the lock may die must be looked after
// (failQueuedLocks every checkEvery): by the progress goroutine, which sets itself a
// timer when it sees requests queued before it waits, and by a call that serves
// meanwhile (checkLocks). A call that stops serving with requests queued, which it
// may have queued itself while the goroutine waits with no timer, wakes the
// goroutine with a request to this rank (endServe). Each is one load when nothing is
// queued.

// endServe wakes the progress goroutine when lock requests are queued here.
func (w *Win) endServe() {
	if atomic.LoadUint64(w.ctrl.queued()) != 0 {
		w.send(w.rank, &rma.Header{Kind: rma.KGrant})
	}
}

// checkLocks runs failQueuedLocks at most every checkEvery (since *last) while lock
// requests are queued here, unless another goroutine is applying requests.
func (w *Win) checkLocks(last *time.Time) {
	if atomic.LoadUint64(w.ctrl.queued()) == 0 {
		return
	}
	if now := time.Now(); now.Sub(*last) >= checkEvery && w.applyMu.TryLock() {
		*last = now
		w.failQueuedLocks()
		w.applyMu.Unlock()
	}
}

// servePolicy is the idle policy of serveWhile: the engine's, read once (ranks that
// outnumber the node's cores yield far sooner, as the engine's waits do).
var servePolicy = sync.OnceValue(func() idle.Policy {
	p := core.AwaitPolicy()
	if core.LocalSize() > runtime.NumCPU() {
		p = p.Oversubscribed()
	}
	return p
})

// waitReq waits for request q, serving meanwhile when this rank is shipped to.
func (w *Win) waitReq(q *p2p.Request, st *p2p.Status) error {
	if w.served {
		done, err := false, error(nil)
		w.serveWhile(func() bool {
			done, err = eng().TestInto(q, st)
			return done || err != nil
		})
		if done || err != nil {
			return err
		}
	}
	return eng().WaitInto(q, st)
}

// waitOp completes x, serving meanwhile when this rank is shipped to.
func (w *Win) waitOp(x *shipOp) error {
	if w.served {
		w.serveWhile(func() bool { ok, _ := x.Test(); return ok })
	}
	return x.complete()
}

// barrier is the window's barrier (Fence, Free): a schedule this rank advances itself
// while it serves, when it is shipped to. Whether a rank is shipped to is alike on
// every rank of a window (some rank maps no other's memory, or none does; see setup),
// so all take the same barrier.
func (w *Win) barrier(op string) error {
	if w.fenceLocal {
		return w.fenceBarrier(op)
	}
	if !w.served {
		return collective.Barrier(w.comm, op)
	}
	return w.schedBarrier(op)
}

// schedBarrier is the barrier of a point-to-point schedule, for creation and Free:
// the node's shared-memory barrier would first make the communicator's collective
// region (megabytes, a millisecond and more), which a window that never fences
// never needs. A served rank advances it while it serves.
func (w *Win) schedBarrier(op string) error {
	c := w.comm
	s := coll.New(c.Local().All(), c.SeqTag(), 1)
	s.Barrier()
	w.serveWhile(func() bool { done, _ := s.Progress(); return done })
	err := s.Run() // at once when the schedule is done; else it sleeps in the engine
	s.Free()
	if err != nil {
		return core.MapErr(op, err)
	}
	return nil
}
