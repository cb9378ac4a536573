package p2p

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mpigo/mpigo/internal/idle"
	"github.com/mpigo/mpigo/internal/prof"
)

// block drives progress until r completes (r non-nil; checked without the lock, so a
// request completed by another goroutine's progress is seen at once, except a private
// one, seen when this goroutine next takes the lock) or cond holds
// (cond non-nil; evaluated with e.mu held, and block returns as soon as it reports
// true: it may take what it found). It is entered and left with e.mu held.
//
// Idle policy (internal/idle, e.idle): poll while spinning, then poll and yield the OS
// thread, then sleep on the doorbell, which transports ring when a packet arrives, for
// at most the policy's nap (a dead peer rings nobody), and after a nap poll once and
// sleep again, with no yields in between: a long wait costs a poll or two per nap
// (over TCP each is a system call), and a packet, which rings the doorbell (TCP's
// watcher does, once armed), wakes it at once. A poll that finds a packet starts the
// phases over (Restart). Only one goroutine polls at a time: the others spin on their
// request's flag and TryLock. A wait given a context (cw non-nil) ends with the context's error when
// the context ends: cw is read after the spin, where the policy yields or sleeps, and
// armed before the first sleep, so that the context's end rings the doorbell.
func (e *Engine) block(cw *idle.Watch, r *request, cond func() bool) error {
	var t0 int64 // when the wait began, while a tool watches the waits (tools.go); else 0
	if e.waitWatch.Load() != 0 {
		t0 = waitClock()
	}
	ready := func() bool {
		return (r != nil && (r.fin || r.done.Load() != 0)) || (cond != nil && cond())
	}
	prof.WaitBegins()
	w := e.idle.Begin() // End (with e.mu held) adapts the spin of the next waits
	locked := true
	for {
		polls := 1
		if locked {
			// While spinning, poll a few times per hold of the lock: an unlock and a
			// re-lock cost two locked instructions, more than a poll that finds
			// nothing, and they widen the gap in which an arriving packet waits.
			if w.Spinning() {
				polls = lockPolls
			}
			for k := 0; k < polls; k++ {
				if ready() {
					w.End()
					e.flush()
					return e.waited(t0, nil)
				}
				if e.progressLocked() > 0 {
					if ready() {
						w.End()
						e.flush()
						return e.waited(t0, nil)
					}
					w.Restart()
				}
			}
			e.mu.Unlock()
		} else if r != nil && r.done.Load() != 0 {
			e.mu.Lock()
			w.End()
			e.flush()
			return e.waited(t0, nil)
		}
		switch {
		case w.Next(polls):
			w.Gosched() // other goroutines of this process may be what we wait for
		case cw.Ended():
			e.mu.Lock()
			return e.waited(t0, cw.Err())
		case w.Yielding() || !e.mu.TryLock():
			w.Yield()
		default:
			// Holding the lock: announce the sleep, then look one last time. A packet or
			// a completion after this look rings the doorbell and Sleep returns at once;
			// so does the end of the context, once cw is armed.
			cw.Arm()
			e.sleepers.Add(1)
			seq := e.db.Prepare() // before the last look: shm rings only known sleepers
			for _, a := range e.armers {
				a.Arm()
			}
			if ready() {
				// Return now: cond may claim what it found (MprobeClaim's TryLock), so
				// a second evaluation would fail to claim it again and wait forever.
				e.db.Leave()
				e.sleepers.Add(-1)
				w.End()
				e.flush()
				return e.waited(t0, nil)
			}
			if e.progressLocked() > 0 {
				e.db.Leave()
				e.sleepers.Add(-1)
				w.Restart()
				locked = true
				continue
			}
			if cw.Ended() {
				e.db.Leave()
				e.sleepers.Add(-1)
				return e.waited(t0, cw.Err())
			}
			e.mu.Unlock()
			e.db.Sleep(seq, w.Nap())
			e.db.Leave()
			e.sleepers.Add(-1)
			e.mu.Lock()
			if e.db.Seq() == seq {
				// Timed out: has a peer died silently? Checking may cost a system call
				// per peer, so not on every timeout of a long wait.
				if now := time.Now(); now.Sub(e.lastCheck) >= checkEvery {
					e.lastCheck = now
					e.checkPeers()
				}
			}
			locked = true
			continue
		}
		locked = e.mu.TryLock()
	}
}

// lockPolls is how many polls a spinning waiter makes per hold of the engine's lock.
const lockPolls = 8

// endWindow: a wait that ends at most this many polls past its spin, after a yield
// that gave the core away, ended right after that yield (idle.NewAdaptive); with
// block's counting, after at most four yields.
const endWindow = 4

// checkEvery bounds how often a sleeping waiter asks transports about dead peers.
const checkEvery = 20 * time.Millisecond

// Wait waits for q to complete, reports its status and frees it (a persistent request
// becomes inactive). Waiting on the null or an inactive request returns an empty status.
func (e *Engine) Wait(q *Request) (Status, error) {
	var st Status
	err := e.waitInto(nil, q, &st)
	return st, err
}

// WaitInto is Wait that stores the status in *st (see RecvInfo for why).
func (e *Engine) WaitInto(q *Request, st *Status) error { return e.waitInto(nil, q, st) }

// WaitCtx is Wait that gives up when c is done, returning c.Err() and leaving the
// request pending.
func (e *Engine) WaitCtx(c context.Context, q *Request) (Status, error) {
	var st Status
	var wv idle.Watch
	cw := e.watch(c, &wv)
	err := e.waitInto(cw, q, &st)
	cw.Stop()
	return st, err
}

func (e *Engine) waitInto(c *idle.Watch, q *Request, st *Status) error {
	r := q.r
	if r == nil || (r.gen == q.gen && !r.started) {
		*st = emptyStatus
		return nil
	}
	if q.Stale() {
		return usedUp("Wait")
	}
	e.mu.Lock()
	if r.kind == recvReq && r.peer >= 0 && c == nil && r.done.Load() == 0 {
		e.pollPeer(r, int(r.peer), false)
	}
	err := e.waitLocked(c, q, st)
	e.mu.Unlock()
	return err
}

// waitLocked is waitInto for a started request q.r of the current generation, with
// e.mu held (block may release and retake it).
func (e *Engine) waitLocked(c *idle.Watch, q *Request, st *Status) error {
	if q.r.done.Load() == 0 {
		if err := e.block(c, q.r, nil); err != nil {
			return err
		}
	}
	q.r.storeStatus(st)
	e.release(q)
	return st.Err
}

// Test reports whether q has completed; if so it is finished as by Wait.
func (e *Engine) Test(q *Request) (Status, bool, error) {
	var st Status
	ok, err := e.TestInto(q, &st)
	return st, ok, err
}

// TestInto is Test that stores the status in *st when q has completed (see RecvInfo).
func (e *Engine) TestInto(q *Request, st *Status) (bool, error) { return e.test(q, st, true) }

// PeekInto is TestInto that leaves q as it is (MPI_Request_get_status): a completed
// request stays to be waited on, tested or freed.
func (e *Engine) PeekInto(q *Request, st *Status) (bool, error) { return e.test(q, st, false) }

func (e *Engine) test(q *Request, st *Status, release bool) (bool, error) {
	r := q.r
	if r == nil || (r.gen == q.gen && !r.started) {
		*st = emptyStatus
		return true, nil
	}
	if q.Stale() {
		return false, usedUp("Test")
	}
	if r.done.Load() == 0 {
		if !e.mu.TryLock() {
			return false, nil // another goroutine is making progress
		}
		e.progressLocked()
		if r.done.Load() == 0 {
			e.mu.Unlock()
			return false, nil
		}
	} else {
		e.mu.Lock()
	}
	r.storeStatus(st)
	if release {
		e.release(q)
	}
	e.mu.Unlock()
	return true, st.Err
}

// Waitall waits for every request of qs. sts, if not nil, receives each status. The
// error, if any, names the first failed request; sts has them all.
func (e *Engine) Waitall(qs []Request, sts []Status) error { return e.WaitallCtx(nil, qs, sts) }

// WaitallCtx is Waitall that gives up when c is done.
func (e *Engine) WaitallCtx(ctx context.Context, qs []Request, sts []Status) error {
	var wv idle.Watch
	c := e.watch(ctx, &wv)
	defer c.Stop()
	var first error
	locked := false // one hold of the lock for the requests that are done or started
	for i := range qs {
		var st Status
		var err error
		if q := &qs[i]; q.r != nil && q.r.gen == q.gen && q.r.started {
			if !locked {
				e.mu.Lock()
				locked = true
			}
			err = e.waitLocked(c, q, &st)
		} else {
			err = e.waitInto(c, q, &st)
		}
		if c != nil && err != nil && err == ctx.Err() {
			if locked {
				e.mu.Unlock()
			}
			return err
		}
		if sts != nil {
			sts[i] = st
		}
		if err != nil && first == nil {
			first = &SetError{Call: "Waitall", Index: i, Err: err}
		}
	}
	if locked {
		e.mu.Unlock()
	}
	return first
}

// active reports whether q names a started request.
func (q *Request) active() bool { return q.r != nil && q.r.gen == q.gen && q.r.started }

// Waitany waits for one of qs to complete and returns its index and status; -1 when
// every request is null or inactive.
func (e *Engine) Waitany(qs []Request) (int, Status, error) { return e.WaitanyCtx(nil, qs) }

// WaitanyCtx is Waitany that gives up when c is done (the requests stay pending).
func (e *Engine) WaitanyCtx(c context.Context, qs []Request) (int, Status, error) {
	return e.WaitanyUntil(c, nil, qs)
}

// WaitanyUntil is WaitanyCtx that also returns, with index -1 and no error, once stop
// (if not nil) is set: whoever sets it rings the engine's Doorbell after, so that a
// sleeping wait looks again.
func (e *Engine) WaitanyUntil(c context.Context, stop *atomic.Bool, qs []Request) (int, Status, error) {
	var wv idle.Watch
	cw := e.watch(c, &wv)
	defer cw.Stop()
	e.mu.Lock()
	defer e.mu.Unlock()
	found := -1
	any := func() bool {
		found = -1
		seen := false
		for i := range qs {
			if qs[i].active() {
				seen = true
				if qs[i].r.done.Load() != 0 {
					found = i
					return true
				}
			}
		}
		return !seen || (stop != nil && stop.Load())
	}
	if err := e.block(cw, nil, any); err != nil {
		return -1, Status{}, err
	}
	if found < 0 {
		return -1, emptyStatus, nil
	}
	st := e.finish(&qs[found])
	return found, st, st.Err
}

// Testany is Waitany that does not wait: ok is false when none has completed.
func (e *Engine) Testany(qs []Request) (idx int, st Status, ok bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.progressLocked()
	seen := false
	for i := range qs {
		if qs[i].active() {
			seen = true
			if qs[i].r.done.Load() != 0 {
				st := e.finish(&qs[i])
				return i, st, true, st.Err
			}
		}
	}
	if !seen {
		return -1, emptyStatus, true, nil
	}
	return -1, Status{}, false, nil
}

// Waitsome waits until at least one of qs completes, finishes all that have, and
// writes their indices to idx and statuses to sts (if not nil), both at least
// len(qs) long. It returns how many; -1 when every request is null or inactive.
func (e *Engine) Waitsome(qs []Request, idx []int, sts []Status) (int, error) {
	return e.WaitsomeCtx(nil, qs, idx, sts)
}

// WaitsomeCtx is Waitsome that gives up when c is done (the requests stay pending).
func (e *Engine) WaitsomeCtx(c context.Context, qs []Request, idx []int, sts []Status) (int, error) {
	var wv idle.Watch
	cw := e.watch(c, &wv)
	defer cw.Stop()
	e.mu.Lock()
	defer e.mu.Unlock()
	some := func() bool {
		seen := false
		for i := range qs {
			if qs[i].active() {
				seen = true
				if qs[i].r.done.Load() != 0 {
					return true
				}
			}
		}
		return !seen
	}
	if err := e.block(cw, nil, some); err != nil {
		return 0, err
	}
	return e.collect(qs, idx, sts)
}

// Testsome is Waitsome that does not wait: it returns 0 when none has completed.
func (e *Engine) Testsome(qs []Request, idx []int, sts []Status) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.progressLocked()
	return e.collect(qs, idx, sts)
}

func (e *Engine) collect(qs []Request, idx []int, sts []Status) (int, error) {
	n, seen := 0, false
	var first error
	for i := range qs {
		if !qs[i].active() {
			continue
		}
		seen = true
		if qs[i].r.done.Load() == 0 {
			continue
		}
		st := e.finish(&qs[i])
		idx[n] = i
		if sts != nil {
			sts[n] = st
		}
		if st.Err != nil && first == nil {
			first = &SetError{Index: i, Err: st.Err}
		}
		n++
	}
	if !seen {
		return -1, nil
	}
	return n, first
}

// Testall reports whether every request of qs has completed; only then are they all
// finished (statuses to sts, if not nil).
func (e *Engine) Testall(qs []Request, sts []Status) (bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.progressLocked()
	for i := range qs {
		if qs[i].active() && qs[i].r.done.Load() == 0 {
			return false, nil
		}
	}
	var first error
	for i := range qs {
		st := emptyStatus
		if qs[i].active() {
			st = e.finish(&qs[i])
		}
		if sts != nil {
			sts[i] = st
		}
		if st.Err != nil && first == nil {
			first = &SetError{Call: "Testall", Index: i, Err: st.Err}
		}
	}
	return true, first
}

// SetError is the error of a call on a set of requests (Waitall, Waitsome, Testsome,
// Testall): the first request that failed, by its index in the set, and its error.
type SetError struct {
	Call  string // the call, if it names itself
	Index int
	Err   error
}

func (e *SetError) Error() string {
	if e.Call != "" {
		return fmt.Sprintf("%s: request %d: %v", e.Call, e.Index, e.Err)
	}
	return fmt.Sprintf("request %d: %v", e.Index, e.Err)
}

func (e *SetError) Unwrap() error { return e.Err }
