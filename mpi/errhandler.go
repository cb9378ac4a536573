package mpi

import (
	"fmt"
	"os"
	"sync/atomic"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// ErrHandler decides what happens when an MPI call on a communicator fails
// (MPI_Errhandler). The Go default is ErrorsReturn: every call returns its error.
// ErrorsAreFatal ends the whole job with a message naming the rank, the call and the
// error, as MPI's own default does; a handler made by NewErrHandler is called first,
// and the error is then returned.
type ErrHandler struct {
	fn    func(c *Comm, err error)
	wfn   func(w *Win, err error)     // a window's handler (NewWinErrHandler)
	ffn   func(f *File, err error)    // a file's handler (NewFileErrHandler)
	sfn   func(s *Session, err error) // a session's handler (NewSessionErrHandler)
	fatal bool
	name  string
	freed atomic.Bool // Free: no longer set on objects; those that have it keep it
}

// The kinds of object a handler made from a function serves; the predefined handlers
// (ErrorsReturn, ErrorsAreFatal) serve every kind.
const (
	kindAny     = ""
	kindComm    = "communicators (NewErrHandler)"
	kindWin     = "windows (NewWinErrHandler)"
	kindFile    = "files (NewFileErrHandler)"
	kindSession = "sessions (NewSessionErrHandler)"
)

// kind is what h was made for.
func (h *ErrHandler) kind() string {
	switch {
	case h == nil:
		return kindAny
	case h.fn != nil:
		return kindComm
	case h.wfn != nil:
		return kindWin
	case h.ffn != nil:
		return kindFile
	case h.sfn != nil:
		return kindSession
	}
	return kindAny
}

// fits is nil when h may be set on an object of kind want, else the error of class
// ErrArg for op: MPI says a handler serves the kind of object it was created for.
func (h *ErrHandler) fits(op, want string) error {
	if h != nil && h.freed.Load() {
		return errorf(ClassArg, op, "the error handler was freed (ErrHandler.Free)")
	}
	if k := h.kind(); k != kindAny && k != want {
		return errorf(ClassArg, op, "the error handler was made for %s; this call takes one made for %s, ErrorsReturn or ErrorsAreFatal", k, want)
	}
	return nil
}

// runAny runs h, whatever its kind, for an error of op met where no object of h's kind
// exists yet (SessionInit, CommCreateFromGroup: the handler passed as an argument):
// its function gets a nil object. obj names what the call was making.
func (h *ErrHandler) runAny(op, obj string, err error) error {
	if h == nil || err == nil {
		return err
	}
	prof.OnError()
	switch {
	case h.fn != nil:
		runHandler(h.fn, nil, err)
	case h.sfn != nil:
		h.sfn(nil, err)
	case h.wfn != nil:
		h.wfn(nil, err)
	case h.ffn != nil:
		h.ffn(nil, err)
	}
	if h.fatal {
		fatal(op, obj, err)
	}
	return err
}

var (
	// ErrorsReturn returns errors to the caller (MPI_ERRORS_RETURN).
	ErrorsReturn = &ErrHandler{name: "MPI_ERRORS_RETURN"}
	// ErrorsAreFatal ends the job on any error (MPI_ERRORS_ARE_FATAL).
	ErrorsAreFatal = &ErrHandler{fatal: true, name: "MPI_ERRORS_ARE_FATAL"}
)

// NewErrHandler makes a handler that calls fn with the communicator and the error.
func NewErrHandler(fn func(c *Comm, err error)) *ErrHandler {
	return &ErrHandler{fn: fn, name: "user"}
}

// Free marks h freed (MPI_Errhandler_free): objects it is set on keep using it, but
// it can be set on no other. Freeing ErrorsReturn or ErrorsAreFatal does nothing, as
// MPI allows (Comm.ErrHandler and its kin give them out like any handler); freeing a
// handler twice, or nil, is an error of class ErrArg. The memory is the collector's.
func (h *ErrHandler) Free() error {
	const op = "ErrhandlerFree"
	if h == nil {
		return Self.fail(op, errorf(ClassArg, op, "the error handler is nil"))
	}
	if h == ErrorsReturn || h == ErrorsAreFatal {
		return nil
	}
	if h.freed.Swap(true) {
		return Self.fail(op, errorf(ClassArg, op, "the error handler was already freed"))
	}
	return nil
}

// SetErrHandler sets c's handler; nil restores ErrorsReturn.
func (c *Comm) SetErrHandler(h *ErrHandler) error {
	if err := c.check("SetErrHandler"); err != nil {
		return err
	}
	if err := h.fits("SetErrHandler", kindComm); err != nil {
		return c.fail("SetErrHandler", err)
	}
	if h == ErrorsReturn {
		h = nil
	}
	c.mu.Lock()
	c.errh = h
	if c.plain != nil { // a view's: its plain form is the view without its context
		c.plain.errh = h
	}
	c.mu.Unlock()
	return nil
}

// ErrHandler returns c's handler (ErrorsReturn for a nil communicator).
func (c *Comm) ErrHandler() *ErrHandler {
	if c == nil {
		return ErrorsReturn
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.errh == nil {
		return ErrorsReturn
	}
	return c.errh
}

// fail is the one seam every call's error passes through: it goes to the handler of
// the call's communicator (Self's, for a nil communicator, MPI's rule for errors with
// no valid object). On success it costs one comparison, inlined.
func (c *Comm) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	if core.IsDry(err) {
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

// invoke runs the handler of c (of Self, for a nil communicator) on err and returns err.
func (c *Comm) invoke(op string, err error) error {
	prof.OnError() // the program may exit on it: a profiled rank writes what it has
	at := c
	if c == nil || c.d == nil {
		at = Self
	}
	at.mu.Lock()
	h := at.errh
	at.mu.Unlock()
	if h == nil {
		return err
	}
	if h.fn != nil {
		runHandler(h.fn, at, err)
	}
	if h.fatal {
		fatal(op, "communicator "+at.Name(), err)
	}
	return err
}

// fatal ends the job for err met by op on obj (ErrorsAreFatal), naming the rank.
func fatal(op, obj string, err error) {
	rank := core.WorldRank()
	msg := fmt.Sprintf("rank %d: %v (in %s on %s; errors are fatal)", rank, err, op, obj)
	fmt.Fprintln(os.Stderr, "mpigo:", msg)
	code := int(ClassOf(err)) // the error class, as the exit code
	if code < 1 || code > 255 {
		code = 1
	}
	core.Abort(code, msg)
}

// CallErrHandler invokes c's handler on err, as MPI_Comm_call_errhandler does.
// The error is passed as it is, not given a class.
func (c *Comm) CallErrHandler(err error) error {
	if err == nil {
		return nil
	}
	return c.invoke("CallErrHandler", err)
}
