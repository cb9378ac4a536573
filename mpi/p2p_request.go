package mpi

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
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
	if s == nil {
		return (*Comm)(nil).fail(op, errorf(ClassArg, op, "s is a nil status"))
	}
	t, err := dt.inner(op, "dt")
	if err == nil {
		s.bytes, err = mpir.StatusElements(op, t, int64(count))
	}
	return (*Comm)(nil).fail(op, err)
}

// SetCancelled sets whether s says its request was cancelled
// (MPI_Status_set_cancelled), for a generalized request's query function.
func (s *Status) SetCancelled(flag bool) { s.cancel = flag }

// reqSeam is where the errors of a request's completion calls go: the handler of its
// file for an operation of a file (MPI 4.1 section 14.7), else of its communicator.
type reqSeam struct {
	c *Comm
	f *File
}

// seam is r's reqSeam, taken before a completion call releases r.
func (r *Request) seam() reqSeam {
	if r.x != nil {
		if f, ok := r.x.Owner().(*File); ok {
			return reqSeam{f: f}
		}
	}
	return reqSeam{c: r.c}
}

func (s reqSeam) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	if s.f != nil {
		return s.f.fail(op, err)
	}
	return s.c.fail(op, err)
}
