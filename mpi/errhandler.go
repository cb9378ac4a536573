package mpi

import (
	"fmt"
	"os"
	"sync"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
)

// ErrHandler decides what happens when an MPI call on a communicator, window, file or
// session fails (MPI_Errhandler). The Go default is ErrorsReturn: every call returns
// its error. ErrorsAreFatal ends the whole job with a message naming the rank, the
// call, the object and the error, as MPI's own default does; ErrorsAbort ends it too,
// as MPI_Abort on the object's processes would (for mpigo, the job); a handler made by
// NewErrHandler (or its kin for windows, files and sessions) is called first, and the
// error is then returned.
type ErrHandler struct {
	h *mpir.Errhandler // what it does, and its kind and references (internal/mpir)
}

var (
	// ErrorsReturn returns errors to the caller (MPI_ERRORS_RETURN).
	ErrorsReturn = &ErrHandler{h: mpir.ErrorsReturn}
	// ErrorsAreFatal ends the job on any error (MPI_ERRORS_ARE_FATAL).
	ErrorsAreFatal = &ErrHandler{h: mpir.ErrorsAreFatal}
	// ErrorsAbort ends the job on any error (MPI_ERRORS_ABORT): MPI aborts the
	// processes of the object's group, which for mpigo is the job.
	ErrorsAbort = &ErrHandler{h: mpir.ErrorsAbort}
)

// newErrHandler is the handler of objects of kind k that calls fn with the object, a
// T, and the error.
func newErrHandler[T any](k mpir.Kind, fn func(T, error)) *ErrHandler {
	var h mpir.Handler
	if fn != nil {
		h = func(obj any, err error) {
			o, _ := obj.(T) // nil where the call that makes the object failed
			fn(o, err)
		}
	}
	e := &ErrHandler{h: mpir.NewErrhandler(k, h)}
	e.h.Face = e
	return e
}

// errhOf is the ErrHandler of h.
func errhOf(h *mpir.Errhandler) *ErrHandler {
	switch h {
	case mpir.ErrorsReturn:
		return ErrorsReturn
	case mpir.ErrorsAreFatal:
		return ErrorsAreFatal
	case mpir.ErrorsAbort:
		return ErrorsAbort
	}
	return h.Face.(*ErrHandler)
}

// dev is h's handler below: ErrorsReturn for nil (the calls that take a handler
// restore ErrorsReturn with nil); nil for an ErrHandler mpigo did not make, which
// no call takes.
func (h *ErrHandler) dev() *mpir.Errhandler {
	if h == nil {
		return mpir.ErrorsReturn
	}
	return h.h
}

// NewErrHandler makes a handler for communicators that calls fn with the communicator
// and the error (MPI_Comm_create_errhandler); the error is then returned.
func NewErrHandler(fn func(c *Comm, err error)) *ErrHandler {
	return newErrHandler(mpir.KindComm, fn)
}

// Free marks h freed (MPI_Errhandler_free): objects it is set on keep using it, but
// it can be set on no other. Freeing ErrorsReturn, ErrorsAreFatal or ErrorsAbort does
// nothing, as MPI allows (Comm.ErrHandler and its kin give them out like any
// handler); freeing a handler twice, or nil, is an error of class ErrErrhandler. The
// memory is the collector's.
func (h *ErrHandler) Free() error {
	const op = "ErrhandlerFree"
	if h == nil || h.h == nil {
		return noObject(op, errorf(ClassErrhandler, op, "the error handler is nil"))
	}
	return noObject(op, h.h.Free(op))
}

// SetErrHandler sets c's handler: ErrorsReturn, ErrorsAreFatal, ErrorsAbort or one of
// NewErrHandler (else ErrErrhandler); nil restores ErrorsReturn.
func (c *Comm) SetErrHandler(h *ErrHandler) error {
	const op = "SetErrHandler"
	if err := c.check(op); err != nil {
		return err
	}
	_, err := c.x.Errh.Set(op, mpir.KindComm, h.dev())
	return c.fail(op, err)
}

// ErrHandler returns c's handler (ErrorsReturn for a nil communicator).
func (c *Comm) ErrHandler() *ErrHandler {
	if c.obj() == nil {
		return ErrorsReturn
	}
	return errhOf(c.x.Errh.Get())
}

// initialErrh is the initial error handler (MPI 4.1 section 9.3), which serves the
// errors with no valid object while MPI_COMM_SELF is not there (before Init, after
// Finalize, with sessions only): ErrorsReturn, Go's default.
var initialErrh mpir.Errh

// noObject raises err of op, a call with no valid object, as MPI 4.1 section 9.3
// says: on Self's handler while the world model runs, else on the initial one. On
// success it costs one comparison.
func noObject(op string, err error) error {
	if err == nil {
		return nil
	}
	return (*Comm)(nil).raise(op, err)
}

// unreturned raises err of op, a call with no valid object and no error result,
// on Self's handler (as noObject does); when the handler returns, as ErrorsReturn
// does, the caller could never see the error, so it is written to standard error,
// once per call in a process, with what the call gives instead.
func unreturned(op string, err error, gives string) {
	if noObject(op, err) == nil {
		return
	}
	if _, told := unreturnedTold.LoadOrStore(op, true); !told {
		fmt.Fprintf(os.Stderr, "mpigo: rank %d: %v (%s has no error result; it returns %s)\n", core.WorldRank(), err, op, gives)
	}
}

// unreturnedTold holds the calls unreturned has written about.
var unreturnedTold sync.Map

// fail is the one seam every call's error passes through: it goes to the handler of
// the call's communicator (Self's, for a nil communicator, MPI's rule for errors with
// no valid object). On success it costs one comparison, inlined.
func (c *Comm) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	if collective.IsDry(err) {
		return err // a persistent Init's check of its arguments passed
	}
	return c.raise(op, err)
}

// check is the seam's handle check: nil when c can be used by op; otherwise the error
// (class ErrComm for a nil or freed communicator, ErrOther when MPI does not run),
// through the handler.
func (c *Comm) check(op string) error {
	if err := c.dev().Check(op); err != nil {
		return c.raise(op, err)
	}
	return nil
}

func (c *Comm) raise(op string, err error) error { return c.invoke(op, core.MapErr(op, err)) }

// invoke runs the handler of c on err and returns err; of Self, or the initial
// handler, where c is no valid communicator (see noObject).
func (c *Comm) invoke(op string, err error) error {
	if c == nil || c.d == nil || c == Self {
		return mpir.NoObject(&Self.x.Errh, &initialErrh).Raise(op, Self, Self.x.What, err)
	}
	return c.x.Errh.Raise(op, c, c.x.What, err)
}

// CallErrHandler invokes c's handler on err, as MPI_Comm_call_errhandler does.
// The error is passed as it is, not given a class.
func (c *Comm) CallErrHandler(err error) error {
	if err == nil {
		return nil
	}
	return c.invoke("CallErrHandler", err)
}
