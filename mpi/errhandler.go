package mpi

import (
	"fmt"
	"os"

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
	wfn   func(w *Win, err error) // a window's handler (NewWinErrHandler)
	fatal bool
	name  string
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

// SetErrHandler sets c's handler; nil restores ErrorsReturn.
func (c *Comm) SetErrHandler(h *ErrHandler) error {
	if err := c.check("SetErrHandler"); err != nil {
		return err
	}
	if h == ErrorsReturn {
		h = nil
	}
	c.mu.Lock()
	c.errh = h
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
