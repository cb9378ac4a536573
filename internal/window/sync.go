package window

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/idle"
	"github.com/mpigo/mpigo/internal/p2p"
	"github.com/mpigo/mpigo/internal/rma"
)

// Synchronisation: Fence, post/start/complete/wait, and passive target. Each call's
// arguments and epoch were checked by internal/mpir (win_sync.go) against the state
// the accessors below report. Direct
// targets are synchronised through their control blocks in node shared memory;
// shipped ones through requests their progress goroutine serves (ship.go). The
// PSCW counters only grow: Start waits until a target's post counter passes the
// number of epochs this rank has started at it, Wait until each origin's complete
// counter passes the number waited for, so nothing is ever reset.

const lockNoCheck = 1 << 16 // in locks[t]: taken with ModeNoCheck, so nothing to release

// InEpoch reports whether an operation on target t is inside an access epoch.
func (w *Win) InEpoch(t int) bool {
	return w.ep.fence.Load() != 0 || w.ep.lockAll.Load() != 0 || w.locks[t].Load() != 0 || w.accessTo[t].Load() != 0
}

// Locking reports whether this rank holds a passive-target lock on the window (Lock
// of some rank, or LockAll).
func (w *Win) Locking() bool { return w.ep.nlocked.Load() != 0 || w.ep.lockAll.Load() != 0 }

// LockedAll reports whether this rank holds LockAll.
func (w *Win) LockedAll() bool { return w.ep.lockAll.Load() != 0 }

// Accessing reports whether Start's access epoch is open.
func (w *Win) Accessing() bool { return w.ep.accessing.Load() != 0 }

// Exposing reports whether Post's exposure epoch is open.
func (w *Win) Exposing() bool { return w.ep.exposed.Load() != 0 }

// await polls cond until it holds, through the idle policy (servePolicy): spinning,
// then yielding the thread (ranks may outnumber cores), then napping; the engine
// progresses meanwhile when the window ships, so that this rank's own requests and
// replies move. What cond looks at (a lock word, a PSCW counter in a peer's control
// block) is stored by a peer that rings nobody, so the naps are what bounds how late
// a sleeping wait sees it: the policy's, from idle.FirstNap growing to p2p_sleep.
// While it naps, this rank's progress goroutine serves the requests shipped to it.
func (w *Win) await(cond func() bool) { w.awaitOr(cond, nil) }

// awaitOr is await that, once the wait has stopped spinning, calls check every
// checkEvery and gives up with its error: a wait for a lock held by a rank that
// died must end.
func (w *Win) awaitOr(cond func() bool, check func() error) error {
	var last, lastLocks time.Time
	if w.served {
		defer w.endServe()
	}
	a := idle.NewAdaptive(servePolicy(), 0)
	wt := a.Begin()
	var nobody uint32 // the naps' futex word: nothing rings it
	for i := 0; !cond(); i++ {
		spinning := wt.Next(1)
		if w.served {
			// Apply this rank's requests here rather than wake the progress
			// goroutine (drain.go).
			eng().Progress()
			if w.drain() {
				wt.Restart()
				continue
			}
			if !spinning {
				w.checkLocks(&lastLocks)
			}
		} else if w.ships && (i&63 == 63 || !spinning) {
			eng().Progress()
		}
		switch {
		case spinning:
			wt.Gosched()
		case wt.Yielding():
			wt.Yield()
		default:
			if w.served {
				w.endServe() // the progress goroutine serves while this sleeps
			}
			wt.Sleep(&nobody, 0)
		}
		if check != nil && !spinning {
			if now := time.Now(); now.Sub(last) >= checkEvery {
				last = now
				if err := check(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkEvery bounds how often a waiting lock asks whether its holders live (a system
// call per holder).
const checkEvery = 10 * time.Millisecond

// holderGone returns an error naming a rank that holds target t's lock and has died,
// if this rank can tell (deadHolder).
func (w *Win) holderGone(op string, t int) error {
	if o, err := w.deadHolder(w.peers[t].ctrl); err != nil {
		return core.Wrap(core.ClassProcFailed, op, holderGoneMsg(o, t), err)
	}
	return nil
}

func holderGoneMsg(o, t int) string {
	return fmt.Sprintf("rank %d of the window, which holds the lock on rank %d, is gone", o, t)
}

// deadHolder returns a rank that holds the lock of control block c and has died, and
// why, if one has: the node's shared-memory transport watches its peers' pids (a
// holder on this node), the engine knows the peers whose streams broke (TCP).
func (w *Win) deadHolder(c ctrlBlock) (int, error) {
	nt := core.NodeTransport()
	for o := range w.size {
		if o == w.rank || atomic.LoadUint64(c.held(o, w.size)) == 0 {
			continue
		}
		wo := w.worldOf(o)
		var err error
		if nt != nil && core.NodeOf(wo) == core.NodeOf(core.World.Rank()) {
			err = nt.CheckPeer(wo)
		} else {
			err = eng().PeerErr(wo)
		}
		if err != nil {
			return o, err
		}
	}
	return -1, nil
}

// observe orders this rank's goroutines and its progress goroutine in Go's memory
// model, as MPI's synchronisation calls order a window's accesses: what the progress
// goroutine wrote into this rank's window so far becomes visible to the caller (an
// atomic load of the count it bumps after each message), and what the caller wrote
// becomes visible to the progress goroutine's next message (an atomic store it loads
// first). The program then reads and writes its window without a data race. Every
// call that ends or orders an epoch at this rank calls it; Flush of a direct target
// does the store when a progress goroutine runs, and an operation on this rank's own
// memory the load (the goroutine bumps the count before each request, so before any
// reply that tells an origin its earlier operations are complete).
func (w *Win) observe() {
	w.published.Store(1)
	w.applied.Load()
}

// Fence ends the fence epoch and starts the next (MPI_Win_fence), unless assert has
// ModeNoSucceed. With ModeNoPrecede too, which every rank then gives (MPI 4.1 section
// 12.5.5: either assertion given by one process must be given by all), the fence
// neither completes operations nor starts any: it only leaves the epoch, without the
// barrier, on every rank alike (the C face's fence does the same, so the two meet).
// NoStore and NoPut ask nothing of a unified window whose direct accesses are loads
// and stores: the barrier orders them either way.
func (w *Win) Fence(op string, assert int) error {
	if assert&(ModeNoPrecede|ModeNoSucceed) == ModeNoPrecede|ModeNoSucceed {
		w.ep.fence.Store(0)
		w.observe()
		return nil
	}
	if err := w.flushAll(op); err != nil {
		return err
	}
	if err := w.barrier(op); err != nil {
		return err
	}
	w.ep.fence.Store(flag(assert&ModeNoSucceed == 0))
	w.observe()
	return nil
}

// fenceBarrier is Fence's barrier on a window whose every target is direct and none
// served (fenceLocal): each rank raises its count of fences entered in its control
// block, then waits until every other rank's has reached it. Only a rank writes its
// own count, so a count a rank ahead raised again still passes; the store after this
// rank's operations and the loads of the others' order what each wrote before the
// fence before what all read after it. It needs nothing of the communicator's (the
// node collectives' region would cost its making at the window's first fence), and
// the C face's fence (abi/libmpi/winshort.c) runs the same on the same words.
func (w *Win) fenceBarrier(op string) error {
	own := w.ctrl.fence()
	v := atomic.LoadUint64(own) + 1
	atomic.StoreUint64(own, v)
	for r := range w.size {
		if r != w.rank {
			if err := w.FenceWait(op, r, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// FenceWait waits until rank r of the window has entered its v-th fence
// (fenceBarrier), or reports that r is gone.
func (w *Win) FenceWait(op string, r int, v uint64) error {
	p := w.peers[r].ctrl.fence()
	return w.awaitOr(func() bool { return atomic.LoadUint64(p) >= v }, func() error {
		if nt := core.NodeTransport(); nt != nil {
			if err := nt.CheckPeer(w.peers[r].world); err != nil {
				return core.Wrap(core.ClassProcFailed, op, fmt.Sprintf("rank %d of the window is gone before the fence", r), err)
			}
		}
		return nil
	})
}

// Lock starts a passive-target epoch at t (MPI_Win_lock): LockShared or
// LockExclusive; ModeNoCheck promises no conflicting lock, and takes none.
func (w *Win) Lock(op string, typ, t, assert int) error {
	if assert&ModeNoCheck != 0 {
		w.locks[t].Store(int32(typ) | lockNoCheck)
		w.ep.nlocked.Add(1)
		return nil
	}
	if err := w.acquire(op, t, typ == LockExclusive); err != nil {
		return err
	}
	w.locks[t].Store(int32(typ))
	w.ep.nlocked.Add(1)
	w.observe()
	return nil
}

func (w *Win) acquire(op string, t int, exclusive bool) error {
	p := &w.peers[t]
	if p.direct {
		try, typ := rma.TryShared, uint64(LockShared)
		if exclusive {
			try, typ = rma.TryExclusive, LockExclusive
		}
		if err := w.awaitOr(func() bool { return try(p.ctrl.lock()) }, func() error { return w.holderGone(op, t) }); err != nil {
			return err
		}
		atomic.StoreUint64(p.ctrl.held(w.rank, w.size), typ)
		return nil
	}
	// The target queues the request until it can grant it (ship.go): one round
	// trip when the lock is free, no polling when it is not.
	h := rma.Header{Kind: rma.KLock}
	if exclusive {
		h.Flags = rma.Exclusive
	}
	r, err := w.call(op, t, &h)
	if err != nil {
		return err
	}
	if r != 1 {
		return core.Errorf(core.ClassIntern, op, "rank %d answered a lock request with %d", t, r)
	}
	return nil
}

// Unlock completes every operation to t, at t too, and ends the epoch
// (MPI_Win_unlock).
func (w *Win) Unlock(op string, t int) error {
	err := w.release(op, t, w.locks[t].Load())
	w.locks[t].Store(0)
	w.ep.nlocked.Add(-1)
	w.observe()
	return err
}

func (w *Win) release(op string, t int, st int32) error {
	p := &w.peers[t]
	excl := st&^lockNoCheck == LockExclusive
	if p.direct {
		if st&lockNoCheck == 0 {
			atomic.StoreUint64(p.ctrl.held(w.rank, w.size), 0)
			rma.Release(p.ctrl.lock(), excl)
			if atomic.LoadUint64(p.ctrl.queued()) != 0 {
				// Remote requests wait at t: its progress goroutine grants them.
				w.send(t, &rma.Header{Kind: rma.KGrant})
			}
		}
		return nil
	}
	if st&lockNoCheck != 0 {
		return w.flushShipped(op, t)
	}
	// The unlock request travels with the batch; its reply comes once the target has
	// applied everything before it and released the lock.
	h := rma.Header{Kind: rma.KUnlock}
	if excl {
		h.Flags = rma.Exclusive
	}
	w.mu.Lock()
	w.dirty[t] = false
	w.mu.Unlock()
	_, err := w.call(op, t, &h)
	if cerr := w.completeOut(op, t); err == nil {
		err = cerr
	}
	return err
}

// LockAll starts a shared passive-target epoch at every rank (MPI_Win_lock_all).
func (w *Win) LockAll(op string, assert int) error {
	for t := range w.locks {
		if assert&ModeNoCheck != 0 {
			w.locks[t].Store(LockShared | lockNoCheck)
			continue
		}
		if err := w.acquire(op, t, false); err != nil {
			return err
		}
		w.locks[t].Store(LockShared)
	}
	w.ep.lockAll.Store(1)
	w.observe()
	return nil
}

// UnlockAll ends LockAll's epoch, completing every operation (MPI_Win_unlock_all).
func (w *Win) UnlockAll(op string) error {
	var first error
	for t := range w.locks {
		if err := w.release(op, t, w.locks[t].Load()); err != nil && first == nil {
			first = err
		}
		w.locks[t].Store(0)
	}
	w.ep.lockAll.Store(0)
	w.observe()
	return first
}

var fenceWord atomic.Uint64

// Flush completes every operation to t, at t too (MPI_Win_flush); local, only at
// this rank (MPI_Win_flush_local): the buffers may be reused, or hold the data.
func (w *Win) Flush(op string, t int, local bool) error {
	if w.peers[t].direct {
		// The loads and stores are done: a direct operation completes in its call. A
		// target sees them after its own synchronisation (a lock, Sync, a barrier),
		// which orders its loads; a fence here would only slow the origin down.
		return nil
	}
	if local {
		// A batch of Puts to a single-copy target is written at the next Flush or
		// when it fills, not for a local completion, which its copies give already.
		return w.finishOut(op, t, !w.peers[t].single.Load())
	}
	return w.flushShipped(op, t)
}

// FlushAll is Flush to every rank (MPI_Win_flush_all, MPI_Win_flush_local_all).
func (w *Win) FlushAll(op string, local bool) error {
	var first error
	for t := range w.locks {
		if w.locks[t].Load() == 0 {
			continue
		}
		if err := w.Flush(op, t, local); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Sync makes this rank's loads and stores and the window's memory agree
// (MPI_Win_sync): a full memory barrier.
func (w *Win) Sync(op string) error {
	fenceWord.Add(1)
	w.observe()
	return nil
}

// Post starts an exposure epoch to the origins g (ranks of the window)
// (MPI_Win_post).
func (w *Win) Post(op string, g []int, assert int) error {
	for i, o := range g {
		w.exposureL[i] = int32(o)
	}
	w.ep.nExposure = int32(len(g))
	w.ep.exposed.Store(1)
	if assert&ModeNoCheck != 0 {
		return nil
	}
	for _, o := range g {
		if p := &w.peers[o]; p.direct {
			bump(p.ctrl.post(w.rank), &w.postSent[o])
		} else {
			// A message the origin's Start receives itself: no hand-off through its
			// progress goroutine, which the notice needs nothing of.
			var notice [1]byte
			if err := eng().Send(p2p.Bytes(notice[:]), w.worldOf(o), tagPost, w.comm.Ctx(), p2p.Standard); err != nil {
				return core.MapErr(op, err)
			}
		}
	}
	return nil
}

// bump adds one to a post or complete counter p in a peer's control block, which only
// this rank writes (libmpi's winshort.c does the same), from its value kept here in
// sent: a plain store after this rank's earlier stores (idle.Publish). A locked add
// would first wait for them (an epoch's Puts into the target's lines) and then for the
// counter's line before the call returns, and so would a load of the line the peer is
// polling. The waiters poll (await); nobody is woken.
func bump(p, sent *uint64) {
	*sent++
	idle.Publish(p, *sent)
}

// Start starts an access epoch to the targets g, once each has posted
// (MPI_Win_start).
func (w *Win) Start(op string, g []int, assert int) error {
	if assert&ModeNoCheck == 0 {
		for _, t := range g {
			if !w.peers[t].direct {
				var notice [1]byte
				var st p2p.Status
				q, err := eng().Irecv(p2p.Bytes(notice[:]), w.worldOf(t), tagPost, w.comm.Ctx())
				if err == nil {
					err = w.waitReq(&q, &st)
				}
				if err != nil {
					return core.MapErr(op, err)
				}
				continue
			}
			seen := w.startSeen[t]
			w.await(func() bool { return atomic.LoadUint64(w.ctrl.post(t)) > seen })
			w.startSeen[t]++
		}
	}
	for i, t := range g {
		w.accessL[i] = int32(t)
		w.accessTo[t].Store(1)
	}
	w.ep.nAccess = int32(len(g))
	w.ep.accessing.Store(1)
	return nil
}

// Complete ends the access epoch Start began; the targets learn it after every
// operation of the epoch has reached them (MPI_Win_complete).
func (w *Win) Complete(op string) error {
	w.ep.accessing.Store(0)
	g := w.access()
	for _, t := range g {
		w.accessTo[t].Store(0)
	}
	var first error
	for _, t32 := range g {
		t := int(t32)
		p := &w.peers[t]
		if p.direct {
			bump(p.ctrl.complete(w.rank, w.size), &w.completeSent[t])
			continue
		}
		// The notice ends the epoch's batch: one message; the target applies it
		// after everything before it.
		w.ship(t, &rma.Header{Kind: rma.KComplete}, 0, nil, nil, false, false, nil, nil)
		if err := w.completeOut(op, t); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// allOf reports whether ready holds for every rank of g.
func allOf(g []int32, ready func(int32) bool) bool {
	for _, o := range g {
		if !ready(o) {
			return false
		}
	}
	return true
}

// Wait ends the exposure epoch Post began, once every origin has completed
// (MPI_Win_wait); Test is Wait that does not wait (MPI_Win_test).
func (w *Win) Wait(op string, test bool) (bool, error) {
	g := w.exposure()
	ready := func(o int32) bool { return atomic.LoadUint64(w.ctrl.complete(int(o), w.size)) > w.waitSeen[o] }
	if test {
		if !allOf(g, ready) {
			if w.ships || w.served {
				eng().Progress()
			}
			if w.served {
				w.applyArrived()
				w.endServe()
			}
			if !allOf(g, ready) {
				return false, nil
			}
		}
	} else {
		for _, o := range g {
			w.await(func() bool { return ready(o) })
		}
	}
	for _, o := range g {
		w.waitSeen[o]++
	}
	w.ep.exposed.Store(0)
	w.observe()
	return true, nil
}
