package mpi

import (
	"context"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// The calls on sets of requests (MPI 4.1 sections 3.7.5 and 3.7.6). What they do, and
// how they wait, is internal/mpir's (wait.go), shared with the C library: here the
// requests become the set mpir takes, and its statuses and errors the Go values; a
// request's failure goes to the handler of its communicator.

// reqSet is rs as mpir takes it: the engine requests, in qs (room for len(rs), or
// nil: allocated), and the operations of many messages.
func reqSet(rs []Request, qs []core.Request) mpir.Set {
	qs = qs[:0]
	for i := range rs {
		qs = append(qs, rs[i].q)
	}
	s := mpir.Set{Qs: qs}
	for i := range rs {
		if rs[i].x == nil {
			continue
		}
		if s.Ops == nil {
			s.Ops = make([]mpir.Op, len(rs))
		}
		_, gen := rs[i].q.Handle()
		s.Ops[i] = mpir.Op{X: rs[i].x, Gen: gen}
	}
	return s
}

// settle writes back what the call did to rs: the engine requests mpir completed in
// place, and the null request where an operation of many messages was completed (a
// persistent one stays, inactive).
func settle(rs []Request, s mpir.Set) {
	for i := range rs {
		rs[i].q = s.Qs[i]
		if rs[i].x != nil && rs[i].ref().Stale() {
			rs[i].x, rs[i].q = nil, core.Request{}
		}
	}
}

// status is request r's status in Go terms, from the device's st.
func (r *Request) status(st *core.Status) Status {
	c := r.c
	if c == nil {
		c = World
	}
	return c.status(*st)
}

// failIn raises err, an error of op of class ErrInStatus, on the communicator of the
// request that failed: the first of rs whose status (in sts, where at[k] is status
// k's request) has an error, or the one err names.
func failIn(op string, to []reqSeam, err error, sts []core.Status, at func(k int) int) error {
	failed := mpir.Failed(err)
	for k := range sts {
		if sts[k].Err != nil {
			failed = at(k)
			break
		}
	}
	if failed < 0 {
		return noObject(op, err)
	}
	return to[failed].fail(op, err)
}

// seamsOn is where the errors of rs go, each request's, taken before settle forgets
// what a completed request was; nil when err is nil (nothing will go).
func seamsOn(err error, rs []Request) []reqSeam {
	if err == nil {
		return nil
	}
	to := make([]reqSeam, len(rs))
	for i := range rs {
		to[i] = rs[i].seam()
	}
	return to
}

func same(k int) int { return k }

// commsOf gives the device communicator of each request of rs, for
// mpir.SendersNamed.
func commsOf(rs []Request) func(i int) *core.Comm {
	return func(i int) *core.Comm { return rs[i].devComm() }
}

// devComm is r's communicator in the device (World's for a request without one).
func (r *Request) devComm() *core.Comm {
	if r.c == nil {
		return World.dev()
	}
	return r.c.dev()
}

// ctxPending is the error of op given up when its context ended.
func ctxPending(op string, err error) error {
	return ctxErr(op, err, "gave up when its context ended; the requests not completed are still pending")
}

// Waitall waits for every request of rs; sts, if not nil, gets their statuses (it must
// be as long as rs). An error of class ErrInStatus means some failed: see sts[i].Err.
func Waitall(rs []Request, sts []Status) error {
	const op = "Waitall"
	defer prof.Exit(prof.Waitall, enterAll(prof.Waitall, rs), 0)
	if sts != nil && len(sts) < len(rs) {
		return noObject(op, errorf(ClassArg, op, "len(statuses) %d < len(requests) %d", len(sts), len(rs)))
	}
	if err := usedUpIn(op, rs); err != nil {
		return err
	}
	// The common window (OSU's 64 requests) needs no allocation: engine handles on
	// the stack, and no engine statuses when the caller wants none.
	var stack [64]core.Request
	s := reqSet(rs, stack[:])
	var ps []core.Status
	if sts != nil {
		ps = make([]core.Status, len(rs))
	}
	ctx := ctxOf(rs)
	err := mpir.Waitall(ctx, op, s, ps)
	if err != nil && !mpir.IsCtx(ctx, err) {
		err = mpir.SendersNamed(op, err, ps, same, commsOf(rs))
	}
	for i := range ps { // before settle: a completed request's status names its communicator
		sts[i] = rs[i].status(&ps[i]) // empty for one still pending if ctx ended
	}
	to := seamsOn(err, rs)
	settle(rs, s)
	switch {
	case mpir.IsCtx(ctx, err):
		return ctxPending(op, err)
	case err != nil:
		return failIn(op, to, err, ps, same)
	}
	return nil
}

// Testall reports whether every request of rs has completed, and if so completes them
// all as Waitall does; else it completes none.
func Testall(rs []Request, sts []Status) (bool, error) {
	const op = "Testall"
	defer prof.Exit(prof.Testall, enterAll(prof.Testall, rs), 0)
	if sts != nil && len(sts) < len(rs) {
		return false, noObject(op, errorf(ClassArg, op, "len(statuses) %d < len(requests) %d", len(sts), len(rs)))
	}
	if err := usedUpIn(op, rs); err != nil {
		return false, err
	}
	s := reqSet(rs, nil)
	ps := make([]core.Status, len(rs))
	ok, err := mpir.Testall(op, s, ps)
	if !ok {
		return false, nil
	}
	if err != nil {
		err = mpir.SendersNamed(op, err, ps, same, commsOf(rs))
	}
	for i := range sts[:min(len(sts), len(rs))] {
		sts[i] = rs[i].status(&ps[i])
	}
	to := seamsOn(err, rs)
	settle(rs, s)
	if err != nil {
		return true, failIn(op, to, err, ps, same)
	}
	return true, nil
}

// Waitany waits until one request of rs completes and returns its index (Undefined
// when every request is null).
func Waitany(rs []Request) (int, Status, error) {
	const op = "Waitany"
	defer prof.Exit(prof.Waitany, enterAll(prof.Waitany, rs), 0)
	if err := usedUpIn(op, rs); err != nil {
		return Undefined, Status{}, err
	}
	s := reqSet(rs, nil)
	ctx := ctxOf(rs)
	var ps core.Status
	i, err := mpir.Waitany(ctx, op, s, &ps)
	return anyResult(op, rs, s, ctx, i, true, &ps, err)
}

// anyResult is the result of a call that completes one request of rs (i, Undefined
// when none is active; ok false when none has completed).
func anyResult(op string, rs []Request, s mpir.Set, ctx context.Context, i int, ok bool, ps *core.Status, err error) (int, Status, error) {
	var st Status
	var to reqSeam
	if i >= 0 {
		if ps.Err != nil {
			ps.Err = core.TruncFrom(op, rs[i].devComm(), ps.Err)
		}
		st = rs[i].status(ps)
		if err != nil {
			err = core.TruncFrom(op, rs[i].devComm(), err)
			to = rs[i].seam()
		}
	}
	settle(rs, s)
	switch {
	case mpir.IsCtx(ctx, err):
		return Undefined, Status{}, ctxErr(op, err, "gave up when its context ended; the requests are still pending")
	case !ok:
		return Undefined, Status{}, nil
	case i < 0:
		return Undefined, emptyStatus, nil
	}
	return i, st, to.fail(op, err)
}

// Testany is Waitany that does not wait: ok is false when none has completed.
func Testany(rs []Request) (int, Status, bool, error) {
	const op = "Testany"
	defer prof.Exit(prof.Testany, enterAll(prof.Testany, rs), 0)
	if err := usedUpIn(op, rs); err != nil {
		return Undefined, Status{}, false, err
	}
	s := reqSet(rs, nil)
	var ps core.Status
	i, ok, err := mpir.Testany(op, s, &ps)
	i, st, err := anyResult(op, rs, s, nil, i, ok, &ps, err)
	return i, st, ok, err
}

// Waitsome waits until at least one request completes and returns the indices of all
// that did (nil when every request is null).
func Waitsome(rs []Request) ([]int, []Status, error) {
	const op = "Waitsome"
	defer prof.Exit(prof.Waitsome, enterAll(prof.Waitsome, rs), 0)
	return some(op, rs, func(ctx context.Context, s mpir.Set, idx []int, ps []core.Status) (int, error) {
		return mpir.Waitsome(ctx, op, s, idx, ps)
	})
}

// Testsome returns the indices of the requests that have completed, without waiting:
// an empty (not nil) slice when none has, nil when every request is null
// (MPI_Testsome's outcount 0 and MPI_UNDEFINED).
func Testsome(rs []Request) ([]int, []Status, error) {
	const op = "Testsome"
	defer prof.Exit(prof.Testsome, enterAll(prof.Testsome, rs), 0)
	return some(op, rs, func(_ context.Context, s mpir.Set, idx []int, ps []core.Status) (int, error) {
		return mpir.Testsome(op, s, idx, ps)
	})
}

// some runs f, a call that reports some of rs (mpir's Waitsome, Testsome,
// GetStatusSome), and gives its indices and statuses.
func some(op string, rs []Request, f func(context.Context, mpir.Set, []int, []core.Status) (int, error)) ([]int, []Status, error) {
	if err := usedUpIn(op, rs); err != nil {
		return nil, nil, err
	}
	s := reqSet(rs, nil)
	idx := make([]int, len(rs))
	ps := make([]core.Status, len(rs))
	ctx := ctxOf(rs)
	n, err := f(ctx, s, idx, ps)
	if err != nil && n > 0 && !mpir.IsCtx(ctx, err) {
		err = mpir.SendersNamed(op, err, ps[:n], func(k int) int { return idx[k] }, commsOf(rs))
	}
	sts := make([]Status, max(n, 0))
	for k := range sts {
		sts[k] = rs[idx[k]].status(&ps[k])
	}
	to := seamsOn(err, rs)
	settle(rs, s)
	switch {
	case mpir.IsCtx(ctx, err):
		return nil, nil, ctxErr(op, err, "gave up when its context ended; the requests are still pending")
	case n < 0:
		return nil, nil, nil
	case err != nil:
		return idx[:n], sts, failIn(op, to, err, ps[:n], func(k int) int { return idx[k] })
	}
	return idx[:n], sts, nil
}

// RequestGetStatusAll reports whether every request of rs has completed
// (MPI_Request_get_status_all), and if so fills sts (if not nil; as long as rs) with
// their statuses, leaving every request as it is: each is still to be waited on,
// tested or freed, and a persistent one stays active. Null and inactive requests give
// the empty status. An error of class ErrInStatus means some failed: see sts[i].Err.
func RequestGetStatusAll(rs []Request, sts []Status) (bool, error) {
	const op = "RequestGetStatusAll"
	defer prof.Exit(prof.RequestGetStatusAll, enterAll(prof.RequestGetStatusAll, rs), 0)
	if sts != nil && len(sts) < len(rs) {
		return false, noObject(op, errorf(ClassArg, op, "len(statuses) %d < len(requests) %d", len(sts), len(rs)))
	}
	if err := usedUpIn(op, rs); err != nil {
		return false, err
	}
	ps := make([]core.Status, len(rs))
	ok, err := mpir.GetStatusAll(op, reqSet(rs, nil), ps)
	if !ok {
		return false, nil
	}
	if err != nil {
		err = mpir.SendersNamed(op, err, ps, same, commsOf(rs))
	}
	for i := range sts[:min(len(sts), len(rs))] {
		sts[i] = rs[i].status(&ps[i])
	}
	if err != nil {
		return true, failIn(op, seamsOn(err, rs), err, ps, same)
	}
	return true, nil
}

// RequestGetStatusAny reports the index of one completed request of rs and its
// status (MPI_Request_get_status_any), leaving it as it is (see RequestGetStatusAll).
// ok is false when none of the active ones has completed; with no active request
// the index is Undefined, ok is true and the status empty.
func RequestGetStatusAny(rs []Request) (int, Status, bool, error) {
	const op = "RequestGetStatusAny"
	defer prof.Exit(prof.RequestGetStatusAny, enterAll(prof.RequestGetStatusAny, rs), 0)
	if err := usedUpIn(op, rs); err != nil {
		return Undefined, Status{}, false, err
	}
	s := reqSet(rs, nil)
	var ps core.Status
	i, ok, err := mpir.GetStatusAny(op, s, &ps)
	i, st, err := anyResult(op, rs, s, nil, i, ok, &ps, err)
	return i, st, ok, err
}

// RequestGetStatusSome returns the indices of the active requests of rs that have
// completed and their statuses (MPI_Request_get_status_some), leaving them as they
// are (see RequestGetStatusAll); nil indices when none of rs is active.
func RequestGetStatusSome(rs []Request) ([]int, []Status, error) {
	const op = "RequestGetStatusSome"
	defer prof.Exit(prof.RequestGetStatusSome, enterAll(prof.RequestGetStatusSome, rs), 0)
	return some(op, rs, func(_ context.Context, s mpir.Set, idx []int, ps []core.Status) (int, error) {
		return mpir.GetStatusSome(op, s, idx, ps)
	})
}
