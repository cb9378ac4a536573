package mpir

import (
	"strconv"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/window"
)

// The synchronisation calls (MPI 4.1 section 12.5): their arguments and the epochs
// they open and close, checked here; the device synchronises. The rules:
//
//   - An assertion (MPI_MODE_*) outside those the call takes is MPI_ERR_ASSERT: Fence
//     takes NOSTORE, NOPUT, NOPRECEDE and NOSUCCEED; Post NOCHECK, NOSTORE and NOPUT;
//     Start, Lock and LockAll NOCHECK.
//   - A lock type other than MPI_LOCK_SHARED and MPI_LOCK_EXCLUSIVE is
//     MPI_ERR_LOCKTYPE.
//   - A rank outside the window's group is MPI_ERR_RANK; MPI_PROC_NULL makes Lock,
//     Unlock, Flush and FlushLocal do nothing.
//   - Closing an epoch that is not open, or opening one that is (a second Lock of a
//     target, Post or Start again before Wait or Complete), and a flush outside a
//     passive-target epoch, are MPI_ERR_RMA_SYNC.
//   - Opening an epoch of one kind while this rank has an access epoch of another
//     open on the window (a lock inside Start's epoch, Start or Fence while it holds
//     a lock) is MPI_ERR_RMA_CONFLICT: accesses of the two would not be ordered by
//     either's synchronisation.
//
// The epoch calls of one window are serialised by the program (MPI's rule for
// threads), so each state checked here holds when the device acts on it.

// checkAssert refuses assert's bits outside allowed.
func checkAssert(op string, assert, allowed int) error {
	if assert&^allowed != 0 {
		return core.Errorf(core.ClassAssert, op, "assert %#x has bits outside those %s takes (%#x)", assert, op, allowed)
	}
	return nil
}

// target checks rank as a target of w's group for op; null reports MPI_PROC_NULL.
func (w *Win) target(op string, rank int) (null bool, err error) {
	if rank == core.ProcNull {
		return true, nil
	}
	if n := w.d.Size(); rank < 0 || rank >= n {
		return false, core.Errorf(core.ClassRank, op, "rank %d out of range [0,%d) of the window", rank, n)
	}
	return false, nil
}

func conflict(op, why string) error { return core.Errorf(core.ClassRMAConflict, op, "%s", why) }

func outOfSync(op, why string) error { return core.Errorf(core.ClassRMASync, op, "%s", why) }

// Fence is MPI_Win_fence (collective): it ends the fence epoch and starts the next,
// unless assert has ModeNoSucceed.
func (w *Win) Fence(op string, assert int) error {
	t := w.enter(prof.Fence, prof.NoPeer, 0)
	defer prof.Exit(prof.Fence, t, 0)
	if err := w.Check(op); err != nil {
		return err
	}
	if err := checkAssert(op, assert, window.ModeNoStore|window.ModeNoPut|window.ModeNoPrecede|window.ModeNoSucceed); err != nil {
		return err
	}
	if w.d.Locking() {
		return conflict(op, "this rank holds a passive-target lock on the window (Unlock it first)")
	}
	if w.d.Accessing() {
		return conflict(op, "this rank is in Start's access epoch on the window (call Complete first)")
	}
	return w.d.Fence(op, assert)
}

// RanksOf is g's members as ranks of w's group (Start's and Post's group): each must
// be in it, and g of w's owner (else ClassGroup). Groups never change, so the last
// translation is kept: an epoch loop that starts (or posts to) one group translates it
// once.
func (w *Win) RanksOf(op string, g *Group) ([]int, error) {
	if last := w.last.Load(); last != nil && g != nil && last.g == g {
		return last.ranks, nil
	}
	rs, err := RanksIn(op, g, w.owner, w.d.Comm().Group())
	if err == nil {
		w.last.Store(&groupRanks{g, rs})
	}
	return rs, err
}

type groupRanks struct {
	g     *Group
	ranks []int
}

// Start is MPI_Win_start: an access epoch to the ranks of g, once each has posted.
func (w *Win) Start(op string, g *Group, assert int) error {
	t := w.enter(prof.WinStart, prof.NoPeer, 0)
	defer prof.Exit(prof.WinStart, t, 0)
	if err := w.Check(op); err != nil {
		return err
	}
	rs, err := w.RanksOf(op, g)
	if err != nil {
		return err
	}
	if err := checkAssert(op, assert, window.ModeNoCheck); err != nil {
		return err
	}
	if w.d.Accessing() {
		return outOfSync(op, "an access epoch is open already (call Complete)")
	}
	if w.d.Locking() {
		return conflict(op, "this rank holds a passive-target lock on the window (Unlock it first)")
	}
	return w.d.Start(op, rs, assert)
}

// Complete is MPI_Win_complete: it ends Start's access epoch.
func (w *Win) Complete(op string) error {
	t := w.enter(prof.Complete, prof.NoPeer, 0)
	defer prof.Exit(prof.Complete, t, 0)
	if err := w.Check(op); err != nil {
		return err
	}
	if !w.d.Accessing() {
		return outOfSync(op, "no access epoch is open (call Start first)")
	}
	return w.d.Complete(op)
}

// Post is MPI_Win_post: an exposure epoch to the ranks of g.
func (w *Win) Post(op string, g *Group, assert int) error {
	t := w.enter(prof.Post, prof.NoPeer, 0)
	defer prof.Exit(prof.Post, t, 0)
	if err := w.Check(op); err != nil {
		return err
	}
	rs, err := w.RanksOf(op, g)
	if err != nil {
		return err
	}
	if err := checkAssert(op, assert, window.ModeNoCheck|window.ModeNoStore|window.ModeNoPut); err != nil {
		return err
	}
	if w.d.Exposing() {
		return outOfSync(op, "an exposure epoch is open already (call Wait or Test)")
	}
	return w.d.Post(op, rs, assert)
}

// Wait is MPI_Win_wait: it ends Post's exposure epoch once every origin has
// completed.
func (w *Win) Wait(op string) error {
	t := w.enter(prof.WinWait, prof.NoPeer, 0)
	defer prof.Exit(prof.WinWait, t, 0)
	_, err := w.wait(op, false)
	return err
}

// Test is MPI_Win_test: Wait that does not wait; it reports whether the epoch ended.
func (w *Win) Test(op string) (bool, error) {
	t := w.enter(prof.WinTest, prof.NoPeer, 0)
	defer prof.Exit(prof.WinTest, t, 0)
	return w.wait(op, true)
}

func (w *Win) wait(op string, test bool) (bool, error) {
	if err := w.Check(op); err != nil {
		return false, err
	}
	if !w.d.Exposing() {
		return false, outOfSync(op, "no exposure epoch is open (call Post first)")
	}
	return w.d.Wait(op, test)
}

// Lock is MPI_Win_lock: a passive-target epoch at rank, of lockType LockShared or
// LockExclusive (window's); ModeNoCheck promises no conflicting lock, and takes none.
func (w *Win) Lock(op string, lockType, rank, assert int) error {
	t := w.enter(prof.Lock, rank, 0)
	defer prof.Exit(prof.Lock, t, 0)
	if err := w.Check(op); err != nil {
		return err
	}
	if lockType != window.LockShared && lockType != window.LockExclusive {
		return core.Errorf(core.ClassLocktype, op, "lock type %d is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE", lockType)
	}
	if err := checkAssert(op, assert, window.ModeNoCheck); err != nil {
		return err
	}
	if null, err := w.target(op, rank); null || err != nil {
		return err
	}
	if w.d.Locked(rank) {
		return outOfSync(op, "rank "+strconv.Itoa(rank)+" is locked by this rank already (Unlock it first)")
	}
	if w.d.Accessing() {
		return conflict(op, "this rank is in Start's access epoch on the window (call Complete first)")
	}
	return w.d.Lock(op, lockType, rank, assert)
}

// Unlock is MPI_Win_unlock: every operation of the epoch at rank completes, there
// too, and the epoch ends.
func (w *Win) Unlock(op string, rank int) error {
	t := w.enter(prof.Unlock, rank, 0)
	defer prof.Exit(prof.Unlock, t, 0)
	if err := w.Check(op); err != nil {
		return err
	}
	if null, err := w.target(op, rank); null || err != nil {
		return err
	}
	if !w.d.Locked(rank) || w.d.LockedAll() {
		return outOfSync(op, "rank "+strconv.Itoa(rank)+" is not locked by Lock of this rank")
	}
	return w.d.Unlock(op, rank)
}

// LockAll is MPI_Win_lock_all: a shared passive-target epoch at every rank.
func (w *Win) LockAll(op string, assert int) error {
	t := w.enter(prof.LockAll, prof.NoPeer, 0)
	defer prof.Exit(prof.LockAll, t, 0)
	if err := w.Check(op); err != nil {
		return err
	}
	if err := checkAssert(op, assert, window.ModeNoCheck); err != nil {
		return err
	}
	if w.d.Locking() {
		return outOfSync(op, "this rank holds a lock on the window already (LockAll, or Lock of a rank)")
	}
	if w.d.Accessing() {
		return conflict(op, "this rank is in Start's access epoch on the window (call Complete first)")
	}
	return w.d.LockAll(op, assert)
}

// UnlockAll is MPI_Win_unlock_all: LockAll's epoch ends, every operation complete.
func (w *Win) UnlockAll(op string) error {
	t := w.enter(prof.UnlockAll, prof.NoPeer, 0)
	defer prof.Exit(prof.UnlockAll, t, 0)
	if err := w.Check(op); err != nil {
		return err
	}
	if !w.d.LockedAll() {
		return outOfSync(op, "this rank holds no LockAll")
	}
	return w.d.UnlockAll(op)
}

// Flush is MPI_Win_flush (local false) and MPI_Win_flush_local (true): every
// operation to rank completes, at the target too (local: at this rank).
func (w *Win) Flush(op string, rank int, local bool) error {
	call := prof.WinFlush
	if local {
		call = prof.FlushLocal
	}
	t := w.enter(call, rank, 0)
	defer prof.Exit(call, t, 0)
	if err := w.Check(op); err != nil {
		return err
	}
	if null, err := w.target(op, rank); null || err != nil {
		return err
	}
	if !w.d.Locked(rank) {
		return outOfSync(op, "no passive-target epoch at rank "+strconv.Itoa(rank)+" (call Lock or LockAll first)")
	}
	return w.d.Flush(op, rank, local)
}

// FlushAll is MPI_Win_flush_all (local false) and MPI_Win_flush_local_all (true).
func (w *Win) FlushAll(op string, local bool) error {
	call := prof.FlushAll
	if local {
		call = prof.FlushLocalAll
	}
	t := w.enter(call, prof.NoPeer, 0)
	defer prof.Exit(call, t, 0)
	if err := w.Check(op); err != nil {
		return err
	}
	if !w.d.Locking() {
		return outOfSync(op, "no passive-target epoch is open (call Lock or LockAll first)")
	}
	return w.d.FlushAll(op, local)
}

// Sync is MPI_Win_sync: this rank's loads and stores and the window's memory agree.
func (w *Win) Sync(op string) error {
	t := w.enter(prof.Sync, prof.NoPeer, 0)
	defer prof.Exit(prof.Sync, t, 0)
	if err := w.Check(op); err != nil {
		return err
	}
	return w.d.Sync(op)
}
