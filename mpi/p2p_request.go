package mpi

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/prof"
)

// xReport fills *st with the status of r's operation of many messages, which has
// completed. A completion call (release) also uses r up: a generalized request's
// free function runs, and r becomes the null request.
func (r *Request) xReport(st *Status, release bool) error {
	var ps core.Status
	h := r.ref()
	err := h.StatusInto(&ps)
	r.c.storeStatus(st, &ps)
	if release {
		if ferr := h.Release(); err == nil {
			err = ferr
		}
		if !r.x.IsPersistent() { // a persistent one becomes inactive instead
			r.x, r.q = nil, core.Request{}
		}
	}
	return err
}

// GrequestStart starts a generalized request (MPI_Grequest_start): an operation of
// the program's own that completion calls (Wait, Test, Waitall and their kin, mixed
// with any other requests) treat as any request. The program calls GrequestComplete
// when the operation is done.
//
// query fills the status once the request is complete, each time a completion call or
// GetStatus reports it; free runs once, after the query of the completion call that
// reports the request, or, for a request freed with Free, once both Free and
// GrequestComplete have been called; cancel runs from Cancel, told whether
// GrequestComplete had been called. Each is passed extra. A nil function does
// nothing (a nil query leaves the empty status). An error a function returns is the
// error of the call that ran it.
func GrequestStart[E any](query func(extra E, st *Status) error, free func(extra E) error,
	cancel func(extra E, complete bool) error, extra E) (Request, error) {
	if err := ready("GrequestStart"); err != nil {
		return Request{}, (*Comm)(nil).fail("GrequestStart", err)
	}
	var g core.Grequest
	if query != nil {
		g.Query = func(ps *core.Status) error {
			st := Status{Source: ps.Source, Tag: ps.Tag}
			err := query(extra, &st)
			ps.Source, ps.Tag, ps.Count, ps.Err, ps.Cancelled = st.Source, st.Tag, st.bytes, st.Err, st.cancel
			return err
		}
	}
	if free != nil {
		g.Free = func() error { return free(extra) }
	}
	if cancel != nil {
		g.Cancel = func(complete bool) error { return cancel(extra, complete) }
	}
	return Request{x: core.StartGrequest(g)}, nil
}

// GrequestComplete tells MPI that the generalized request r is done
// (MPI_Grequest_complete): a Wait on it returns, and Test reports it complete. Call it
// on a copy of the Request kept by the code that does the work; it may run in any
// goroutine.
func (r *Request) GrequestComplete() error {
	if r == nil || !r.x.IsGrequest() {
		return (*Comm)(nil).fail("GrequestComplete",
			errorf(ClassRequest, "GrequestComplete", "r is not a generalized request (from GrequestStart)"))
	}
	return r.c.fail("GrequestComplete", r.x.GrequestComplete("GrequestComplete"))
}

// SetElements makes s describe count basic elements of dt (MPI_Status_set_elements),
// so that s.GetElements(dt) is count and s.Bytes() the packed bytes of the first count
// basic elements of instances of dt: for a generalized request's query function to
// fill.
func (s *Status) SetElements(dt *Datatype, count int) error {
	const op = "StatusSetElements"
	switch {
	case s == nil:
		return (*Comm)(nil).fail(op, errorf(ClassArg, op, "s is a nil status"))
	case dt == nil || dt.t == nil:
		return (*Comm)(nil).fail(op, errorf(ClassType, op, "dt is a nil datatype"))
	case count < 0:
		return (*Comm)(nil).fail(op, errorf(ClassCount, op, "count %d is negative", count))
	}
	s.bytes = bytesOfElements(dt.t, int64(count))
	return nil
}

// bytesOfElements is the length of the packed prefix of instances of t that holds
// exactly n basic elements: the least length whose ElementsIn is n (ElementsIn grows
// with the length, and each basic element takes at least one byte).
func bytesOfElements(t *datatype.Type, n int64) int64 {
	per := t.Elements()
	if per == 0 || n == 0 {
		return 0
	}
	whole, rest := n/per, n%per
	lo, hi := int64(0), t.Size()
	for lo < hi { // the least prefix of one instance with at least rest elements
		mid := (lo + hi) / 2
		if got, _ := t.ElementsIn(mid); got < rest {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return whole*t.Size() + lo
}

// SetCancelled sets whether s says its request was cancelled
// (MPI_Status_set_cancelled), for a generalized request's query function.
func (s *Status) SetCancelled(flag bool) { s.cancel = flag }

// RequestGetStatusAll reports whether every request of rs has completed
// (MPI_Request_get_status_all), and if so fills sts (if not nil; as long as rs) with
// their statuses, leaving every request as it is: each is still to be waited on,
// tested or freed, and a persistent one stays active. Null and inactive requests give
// the empty status. An error of class ErrInStatus means some failed: see sts[i].Err.
func RequestGetStatusAll(rs []Request, sts []Status) (bool, error) {
	const op = "RequestGetStatusAll"
	defer prof.Exit(prof.RequestGetStatusAll, enterAll(prof.RequestGetStatusAll, rs), 0)
	if sts != nil && len(sts) < len(rs) {
		return false, (*Comm)(nil).fail(op, errorf(ClassArg, op, "len(statuses) %d < len(requests) %d", len(sts), len(rs)))
	}
	if err := usedUpIn(op, rs); err != nil {
		return false, err
	}
	for i := range rs {
		if !rs[i].peek() {
			return false, nil
		}
	}
	var first error
	for i := range rs {
		st, _, err := rs[i].getStatus()
		st.Err = err
		if sts != nil {
			sts[i] = st
		}
		if err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return true, &Error{Class: ClassInStatus, Op: op, Msg: "a request failed", Err: first}
	}
	return true, nil
}

// RequestGetStatusAny reports the index of one completed request of rs and its
// status (MPI_Request_get_status_any), leaving it as it is (see RequestGetStatusAll).
// ok is false when none of the active ones has completed; with no active request
// the index is Undefined, ok is true and the status empty.
func RequestGetStatusAny(rs []Request) (int, Status, bool, error) {
	defer prof.Exit(prof.RequestGetStatusAny, enterAll(prof.RequestGetStatusAny, rs), 0)
	if err := usedUpIn("RequestGetStatusAny", rs); err != nil {
		return Undefined, Status{}, false, err
	}
	live := false
	for i := range rs {
		if !rs[i].active() {
			continue
		}
		live = true
		if st, ok, err := rs[i].getStatus(); ok {
			return i, st, true, err
		}
	}
	if !live {
		return Undefined, emptyStatus, true, nil
	}
	return Undefined, Status{}, false, nil
}

// RequestGetStatusSome returns the indices of the active requests of rs that have
// completed and their statuses (MPI_Request_get_status_some), leaving them as they
// are (see RequestGetStatusAll); nil indices when none of rs is active.
func RequestGetStatusSome(rs []Request) ([]int, []Status, error) {
	defer prof.Exit(prof.RequestGetStatusSome, enterAll(prof.RequestGetStatusSome, rs), 0)
	if err := usedUpIn("RequestGetStatusSome", rs); err != nil {
		return nil, nil, err
	}
	idx, sts := []int{}, []Status{}
	live := false
	var first error
	for i := range rs {
		if !rs[i].active() {
			continue
		}
		live = true
		if st, ok, err := rs[i].getStatus(); ok {
			st.Err = err
			idx, sts = append(idx, i), append(sts, st)
			if err != nil && first == nil {
				first = err
			}
		}
	}
	if !live {
		return nil, nil, nil
	}
	if first != nil {
		return idx, sts, &Error{Class: ClassInStatus, Op: "RequestGetStatusSome", Msg: "a request failed", Err: first}
	}
	return idx, sts, nil
}

// active reports whether r is an operation started and not yet reported: not null,
// not an inactive persistent request.
func (r *Request) active() bool { return (r.x != nil && !r.ref().Stale()) || r.q.Active() }

// peek reports whether r has completed (null and inactive ones have), leaving it.
func (r *Request) peek() bool {
	if r.x != nil {
		ok, _ := r.ref().Test()
		return ok
	}
	var ps core.Status
	ok, err := core.PeekInto(&r.q, &ps)
	return ok || err != nil
}

// getStatus is GetStatus for the calls on many requests.
func (r *Request) getStatus() (Status, bool, error) { return r.test("GetStatus", false) }
