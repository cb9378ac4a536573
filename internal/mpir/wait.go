package mpir

import (
	"context"
	"errors"

	"github.com/mpigo/mpigo/internal/core"
)

// Completion of a set of requests (MPI 4.1 section 3.7.5: MPI_Waitany, Testany,
// Waitall, Testall, Waitsome, Testsome, and section 3.7.6's MPI_Request_get_status_*),
// for both faces. A face gives the set as the device knows it (Set), calls here, and
// then converts the statuses and makes the handles of the completed requests null
// (or leaves a persistent one inactive), as its handles require.
//
// The waiting is the device's: a set of point-to-point requests only is one call of
// the engine (its Waitany, Waitall, Waitsome), whose wait sleeps through the idle
// policy; a set with an operation of many messages (a nonblocking collective, a
// generalized request, ...) is polled through core.AwaitCtx, the same policy, whose
// last phase sleeps on the word every completing operation bumps. So no wait here
// spins: a rank waiting for a late message sleeps, whichever face it calls from.
//
// The rules MPI gives for such sets hold here once: a null request, an inactive
// persistent one, takes no part and gets the empty status; with no active request
// the index is -1 (the face's MPI_UNDEFINED) and Waitany, Testany and Testall report
// at once; a request's failure is the error of Waitany and Testany, and
// MPI_ERR_IN_STATUS for the calls that report several, each failed one's error in
// its status (Status.Err); Testall completes every request or none.

// Op is an operation of many messages as a handle names it: its record and the
// generation the handle was made at (core.Ref). The zero Op names none.
type Op struct {
	X   *core.Pending
	Gen uint32
}

func (o Op) ref() core.Ref { return core.RefOf(o.X, o.Gen) }

// Set is the requests of a call on many. Qs[i] is request i's engine request (a
// point-to-point one, null or inactive included), null where the request is an
// operation of many messages (Ops[i].X not nil). Ops is nil when no request is one.
// The calls complete the engine requests in Qs in place, which the face writes back
// to its handles.
type Set struct {
	Qs  []core.Request
	Ops []Op
}

// emptyStatus is the status of a request that takes no part (MPI's empty status).
var emptyStatus = core.Status{Source: core.AnySource, Tag: core.AnyTag}

func (s Set) isOp(i int) bool { return s.Ops != nil && s.Ops[i].X != nil }

// active reports whether request i takes part: started and not yet reported.
func (s Set) active(i int) bool {
	if s.isOp(i) {
		r := s.Ops[i].ref()
		return !r.Stale() && r.Active()
	}
	return s.Qs[i].Active()
}

// test reports whether request i has completed, and if so fills *st. release: it is
// reported (a completion call's; the engine request becomes null or inactive, an
// operation's record is let go); else it stays as it is.
func (s Set) test(i int, st *core.Status, release bool) (bool, error) {
	if !s.isOp(i) {
		if release {
			return core.TestInto(&s.Qs[i], st)
		}
		return core.PeekInto(&s.Qs[i], st)
	}
	r := s.Ops[i].ref()
	ok, err := r.Test()
	if !ok {
		return false, nil
	}
	return true, s.report(i, st, err, release)
}

// report fills *st for operation i, which has completed with err, and releases it if
// release; it returns the operation's error.
func (s Set) report(i int, st *core.Status, err error, release bool) error {
	r := s.Ops[i].ref()
	if serr := r.StatusInto(st); err == nil {
		err = serr
	}
	if release {
		if ferr := r.Release(); err == nil {
			err = ferr
		}
	}
	if err != nil {
		st.Err = err
	}
	return err
}

// wait completes operation i, waiting for it (until ctx ends, if not nil: then it
// returns ctx's error and i stays pending).
func (s Set) wait(ctx context.Context, i int, st *core.Status) error {
	r := s.Ops[i].ref()
	var err error
	if ctx != nil {
		if err = r.WaitContext(ctx); err != nil && err == ctx.Err() {
			return err
		}
	} else {
		err = r.Wait()
	}
	return s.report(i, st, err, true)
}

// SendersNamed names the sender of each truncated message that err, the error of op
// on many requests, and sts report, as a rank of its request's communicator
// (comm(i), i = at(k) for sts[k]), as Recv and Wait name it: the engine's error knows
// the world rank only. It runs where err is not nil, off the path of success.
func SendersNamed(op string, err error, sts []core.Status, at func(k int) int, comm func(i int) *core.Comm) error {
	for k := range sts {
		if sts[k].Err != nil {
			sts[k].Err = core.TruncFrom(op, comm(at(k)), sts[k].Err)
		}
	}
	var se *core.SetError
	if errors.As(err, &se) && se.Index >= 0 {
		se.Err = core.TruncFromCause(comm(se.Index), se.Err)
	}
	return err
}

// IsCtx reports whether err is ctx's own: the wait gave up when ctx ended, and the
// requests not completed are still pending.
func IsCtx(ctx context.Context, err error) bool {
	return ctx != nil && err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err())
}

// inStatus is the error of op, a call that reports several requests, where some
// failed: MPI_ERR_IN_STATUS, naming the first.
func inStatus(op string, first error) error {
	return &core.Error{Class: core.ClassInStatus, Op: op, Msg: "a request failed", Err: first}
}

// Failed is the index in the set of the request whose failure made err, an error of
// a call on many, or -1 when err does not say (the statuses do).
func Failed(err error) int {
	var se *core.SetError
	if errors.As(err, &se) {
		return se.Index
	}
	return -1
}

// Waitany waits until one active request of s completes, completes it and returns
// its index, its status in *st and its error (MPI_Waitany). With no active request it
// returns -1 and the empty status at once. A ctx that ends gives its error and index
// -1, the requests still pending.
func Waitany(ctx context.Context, op string, s Set, st *core.Status) (int, error) {
	if s.Ops == nil {
		i, ps, err := core.WaitanyCtx(ctx, s.Qs)
		if IsCtx(ctx, err) {
			return -1, err
		}
		*st = ps
		return i, core.MapErr(op, err)
	}
	idx, err := -1, error(nil)
	core.AwaitCtx(ctx, func() bool {
		var done bool
		idx, done, err = s.anyOnce(st, true)
		if !done && ctx != nil && ctx.Err() != nil {
			idx, done, err = -1, true, ctx.Err()
		}
		return done
	})
	if IsCtx(ctx, err) {
		return -1, err
	}
	return idx, core.MapErr(op, err)
}

// anyOnce looks once for a completed active request (release: completing it): its
// index and whether the call is done (one completed, or none is active: index -1).
func (s Set) anyOnce(st *core.Status, release bool) (int, bool, error) {
	live := false
	for i := range s.Qs {
		if !s.active(i) {
			continue
		}
		live = true
		if ok, err := s.test(i, st, release); ok {
			return i, true, err
		}
	}
	if !live {
		*st = emptyStatus
		return -1, true, nil
	}
	return -1, false, nil
}

// Testany is Waitany that does not wait (MPI_Testany): ok is false when no active
// request has completed.
func Testany(op string, s Set, st *core.Status) (int, bool, error) {
	if s.Ops == nil {
		i, ps, ok, err := core.Testany(s.Qs)
		*st = ps
		return i, ok, core.MapErr(op, err)
	}
	i, ok, err := s.anyOnce(st, true)
	return i, ok, core.MapErr(op, err)
}

// GetStatusAny is Testany that leaves the request it reports as it is
// (MPI_Request_get_status_any).
func GetStatusAny(op string, s Set, st *core.Status) (int, bool, error) {
	i, ok, err := s.anyOnce(st, false)
	return i, ok, core.MapErr(op, err)
}

// Waitall waits for every request of s and completes them all (MPI_Waitall); sts, if
// not nil, gets their statuses (the empty one for those that take no part). If some
// failed, the error is of class ErrInStatus and each status says its own (see
// Failed). A ctx that ends gives its error, the requests not completed still pending.
func Waitall(ctx context.Context, op string, s Set, sts []core.Status) error {
	err := core.WaitallCtx(ctx, s.Qs, sts)
	if IsCtx(ctx, err) {
		return err
	}
	return s.completeOps(ctx, op, sts, err)
}

// completeOps completes the operations of many messages of s after its engine
// requests (first: their first failure), waiting for each; the error is the call's.
func (s Set) completeOps(ctx context.Context, op string, sts []core.Status, first error) error {
	for i := range s.Ops {
		if !s.isOp(i) {
			continue
		}
		st := emptyStatus
		var err error
		if s.active(i) {
			if err = s.wait(ctx, i, &st); IsCtx(ctx, err) {
				return err
			}
		}
		if sts != nil {
			sts[i] = st
		}
		if err != nil && first == nil {
			first = &core.SetError{Call: op, Index: i, Err: err}
		}
	}
	if first != nil {
		return inStatus(op, first)
	}
	return nil
}

// Testall completes every request of s if all have completed (MPI_Testall), as
// Waitall does; else it completes none and returns false.
func Testall(op string, s Set, sts []core.Status) (bool, error) {
	if !s.allDone() {
		return false, nil
	}
	ok, err := core.Testall(s.Qs, sts)
	if !ok {
		return false, nil
	}
	return true, s.completeOps(nil, op, sts, err)
}

// allDone reports whether every operation of many messages of s that takes part has
// completed; the engine's Testall looks at the rest.
func (s Set) allDone() bool {
	for i := range s.Ops {
		if s.isOp(i) && s.active(i) {
			if ok, _ := s.Ops[i].ref().Test(); !ok {
				return false
			}
		}
	}
	return true
}

// GetStatusAll reports whether every request of s has completed, and if so fills sts
// (if not nil) with their statuses, leaving every request as it is
// (MPI_Request_get_status_all). Some failed: the error is of class ErrInStatus.
func GetStatusAll(op string, s Set, sts []core.Status) (bool, error) {
	var st core.Status
	for i := range s.Qs {
		if s.active(i) {
			if ok, _ := s.test(i, &st, false); !ok {
				return false, nil
			}
		}
	}
	var first error
	for i := range s.Qs {
		st := emptyStatus
		var err error
		if s.active(i) {
			_, err = s.test(i, &st, false)
		}
		if sts != nil {
			sts[i] = st
		}
		if err != nil && first == nil {
			first = &core.SetError{Call: op, Index: i, Err: err}
		}
	}
	if first != nil {
		return true, inStatus(op, first)
	}
	return true, nil
}

// Waitsome waits until at least one active request of s completes, completes every
// one that has, and writes their indices to idx and statuses to sts (if not nil), both
// at least as long as s (MPI_Waitsome). It returns how many; -1 when none is active.
// If some failed, the error is of class ErrInStatus and each status says its own. A
// ctx that ends gives its error, the requests still pending.
func Waitsome(ctx context.Context, op string, s Set, idx []int, sts []core.Status) (int, error) {
	if s.Ops == nil {
		n, err := core.WaitsomeCtx(ctx, s.Qs, idx, sts)
		if IsCtx(ctx, err) {
			return 0, err
		}
		return n, someErr(op, err)
	}
	n, err := 0, error(nil)
	core.AwaitCtx(ctx, func() bool {
		n, err = s.someOnce(idx, sts, true)
		if n == 0 && ctx != nil && ctx.Err() != nil {
			n, err = 0, ctx.Err()
			return true
		}
		return n != 0
	})
	if IsCtx(ctx, err) {
		return 0, err
	}
	return n, someErr(op, err)
}

// Testsome is Waitsome that does not wait (MPI_Testsome): it returns 0 when no active
// request has completed.
func Testsome(op string, s Set, idx []int, sts []core.Status) (int, error) {
	if s.Ops == nil {
		n, err := core.Testsome(s.Qs, idx, sts)
		return n, someErr(op, err)
	}
	n, err := s.someOnce(idx, sts, true)
	return n, someErr(op, err)
}

// GetStatusSome is Testsome that leaves the requests it reports as they are
// (MPI_Request_get_status_some).
func GetStatusSome(op string, s Set, idx []int, sts []core.Status) (int, error) {
	n, err := s.someOnce(idx, sts, false)
	return n, someErr(op, err)
}

// someOnce looks once at every active request, completing (release) or reporting
// those that have completed: how many, -1 when none is active, and the first
// failure.
func (s Set) someOnce(idx []int, sts []core.Status, release bool) (int, error) {
	n, live := 0, false
	var first error
	var st core.Status
	for i := range s.Qs {
		if !s.active(i) {
			continue
		}
		live = true
		ok, err := s.test(i, &st, release)
		if !ok {
			continue
		}
		idx[n] = i
		if sts != nil {
			sts[n] = st
		}
		if err != nil && first == nil {
			first = &core.SetError{Index: i, Err: err}
		}
		n++
	}
	if !live {
		return -1, nil
	}
	return n, first
}

// someErr is the error of a Waitsome or Testsome whose first failure was first.
func someErr(op string, first error) error {
	if first == nil {
		return nil
	}
	return inStatus(op, first)
}
