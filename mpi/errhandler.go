package mpi

import (
	"fmt"
	"os"
)

// ErrHandler decides what happens when an MPI call on a communicator fails
// (MPI_Errhandler). The Go default is ErrorsReturn: every call returns its error.
// ErrorsAreFatal ends the whole job with a message naming the rank and the error, as
// MPI's own default does; a handler made by NewErrHandler is called first, and the
// error is then returned.
type ErrHandler struct {
	fn    func(c *Comm, err error)
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
func (c *Comm) SetErrHandler(h *ErrHandler) {
	c.mu.Lock()
	c.errh = h
	c.mu.Unlock()
}

// ErrHandler returns c's handler.
func (c *Comm) ErrHandler() *ErrHandler {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.errh == nil {
		return ErrorsReturn
	}
	return c.errh
}

// handle passes a failed call's error through c's handler. With the default handler
// it costs one nil check and a load.
func (c *Comm) handle(op string, err error) error {
	if err == nil || c == nil {
		return err
	}
	c.mu.Lock()
	h := c.errh
	c.mu.Unlock()
	if h == nil {
		return err
	}
	if h.fn != nil {
		h.fn(c, err)
	}
	if h.fatal {
		msg := fmt.Sprintf("rank %d: %v (communicator %s, errors are fatal)", World.rank, err, c.Name())
		fmt.Fprintln(os.Stderr, "mpigo:", msg)
		if state.Load() == stateInit {
			code := int(ClassOf(err)) // the error class, as the exit code
			if code < 1 || code > 255 {
				code = 1
			}
			proc.Abort(code, msg)
		}
		os.Exit(1)
	}
	return err
}

// CallErrHandler invokes c's handler on err, as MPI_Comm_call_errhandler does.
func (c *Comm) CallErrHandler(err error) error { return c.handle("CallErrHandler", err) }
