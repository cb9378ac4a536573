package mpir

import (
	"fmt"
	"sync/atomic"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// Error handlers (MPI 4.1 section 9.3), for both faces. An Errhandler is what
// MPI_Errhandler names: one of the predefined handlers, or a user's function made for
// one kind of object. Each object that reports errors (a communicator, window, file or
// session) holds an Errh, the handler set on it. A face turns a call's error into the
// form its users see (a Go error, a C error code) and gives it to Raise; Raise runs
// the object's handler and returns the error, which the face returns.
//
// Invariants:
//   - A handler is set only on the kind of object it was made for (Fits); the
//     predefined ones go on every kind.
//   - Freeing a handler (Free) drops a reference the program holds; once none is left
//     it can be set on no new object, and the objects that have it keep using it.
//     Freeing a predefined handler does nothing; freeing one whose references are all
//     gone is an error (ClassErrhandler).
//   - On success nothing here runs: a face's seam tests err against nil, inlined, and
//     calls in only with an error.

// Kind is the kind of object an error handler serves.
type Kind uint8

const (
	KindComm Kind = iota + 1
	KindWin
	KindFile
	KindSession
)

var kindNames = [...]string{KindComm: "communicators", KindWin: "windows", KindFile: "files", KindSession: "sessions"}

// String names the objects of kind k ("communicators").
func (k Kind) String() string {
	if int(k) < len(kindNames) && k > 0 {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Handler is a user's error handler as its face wraps it: it is given the face's name
// for the object (a *mpi.Comm, a C handle; nil or a null handle where the call that
// was making the object failed) and the error as the face made it.
type Handler func(obj any, err error)

// action is what a handler does.
type action uint8

const (
	actCall   action = iota // call the user's function, then return the error
	actReturn               // return the error (MPI_ERRORS_RETURN)
	actFatal                // end the job (MPI_ERRORS_ARE_FATAL)
	actAbort                // abort the object's processes: for mpigo the job (MPI_ERRORS_ABORT)
)

// Errhandler is an error handler (MPI_Errhandler).
type Errhandler struct {
	kind Kind // the kind it was made for; 0 for a predefined handler
	act  action
	fn   Handler
	name string
	refs atomic.Int32 // the references the program holds (NewErrhandler's and Retain's)

	// Face is the face's own name for the handler (the Go package's *ErrHandler, the C
	// library's handle), set and read by the face.
	Face any
}

// The predefined handlers.
var (
	ErrorsReturn   = &Errhandler{act: actReturn, name: "MPI_ERRORS_RETURN"}
	ErrorsAreFatal = &Errhandler{act: actFatal, name: "MPI_ERRORS_ARE_FATAL"}
	ErrorsAbort    = &Errhandler{act: actAbort, name: "MPI_ERRORS_ABORT"}
)

// NewErrhandler makes a handler of objects of kind k that calls fn
// (MPI_x_create_errhandler), holding one reference of the program's. A nil fn does
// nothing but return the error.
func NewErrhandler(k Kind, fn Handler) *Errhandler {
	h := &Errhandler{kind: k, act: actCall, fn: fn, name: "a handler of " + k.String()}
	h.refs.Store(1)
	return h
}

// Kind is the kind of object h was made for, 0 for a predefined handler.
func (h *Errhandler) Kind() Kind { return h.kind }

// Predefined reports whether h is one of ErrorsReturn, ErrorsAreFatal, ErrorsAbort.
func (h *Errhandler) Predefined() bool { return h.act != actCall }

// Name is MPI's name of a predefined handler, else "a handler of <kind>".
func (h *Errhandler) Name() string { return h.name }

// Retain gives the program one more reference to h (MPI_x_get_errhandler returns one,
// which the program frees); a handler whose references were all freed becomes
// usable again through it.
func (h *Errhandler) Retain() {
	if !h.Predefined() {
		h.refs.Add(1)
	}
}

// Free drops one of the program's references to h (MPI_Errhandler_free). Objects h is
// set on keep it.
func (h *Errhandler) Free(op string) error {
	if h.Predefined() {
		return nil // MPI_x_get_errhandler gives them out like any handler
	}
	for {
		n := h.refs.Load()
		if n <= 0 {
			return core.Errorf(core.ClassErrhandler, op, "the error handler was already freed")
		}
		if h.refs.CompareAndSwap(n, n-1) {
			return nil
		}
	}
}

// Freed reports whether the program holds no reference to h: it can be set on no new
// object. A predefined handler never is.
func (h *Errhandler) Freed() bool { return !h.Predefined() && h.refs.Load() <= 0 }

// Fits is nil when h may be set on an object of kind k (or passed where one is made),
// else the error of op (ClassErrhandler: MPI_ERR_ERRHANDLER, an invalid errhandler
// argument).
func (h *Errhandler) Fits(op string, k Kind) error {
	switch {
	case h == nil:
		return core.Errorf(core.ClassErrhandler, op, "the error handler is null")
	case h.Freed():
		return core.Errorf(core.ClassErrhandler, op, "the error handler was freed")
	case !h.Predefined() && h.kind != k:
		return core.Errorf(core.ClassErrhandler, op, "the error handler was made for %s; this call takes one made for %s, or a predefined one", h.kind, k)
	}
	return nil
}

// Run runs h for err, met by the call op (as the face names it) on the object self
// (the face's name for it, given to a user's function), and returns err. A fatal or
// aborting handler does not return: it ends the job with a message that names the
// object as obj says ("communicator MPI_COMM_WORLD"), asked only then (a face may
// raise errors while it holds the lock that guards the object's name).
func (h *Errhandler) Run(op string, self any, obj func() string, err error) error {
	prof.OnError() // the program may end on it: a profiled rank writes what it has
	switch h.act {
	case actCall:
		if h.fn != nil {
			call(h.fn, self, err)
		}
	case actFatal:
		end(op, obj, err, "errors are fatal")
	case actAbort:
		end(op, obj, err, "MPI_ERRORS_ABORT")
	}
	return err
}

// call runs a user's handler; one that panics leaves the call it was raised in, and
// the recorder must not go on believing the rank is in it.
func call(fn Handler, self any, err error) {
	done := false
	defer func() {
		if !done {
			prof.Unwind()
		}
	}()
	fn(self, err)
	done = true
}

// end ends the job for err of op on obj, with one message naming the call, the object
// and the error (core.Fatal adds the rank); the exit code is the error's class.
func end(op string, obj func() string, err error, why string) {
	msg := fmt.Sprintf("%v (in %s on %s; %s)", err, op, obj(), why)
	code := int(core.ClassOf(err))
	if code < 1 || code > 255 {
		code = 1
	}
	core.Fatal(code, msg)
}

// Errh is the error handler of one object. A zero Errh holds ErrorsReturn until Init
// or Set gives it another.
type Errh struct{ h atomic.Pointer[Errhandler] }

// Init gives a new object its first handler: a communicator its parent's (MPI says
// every new communicator inherits it), an object made from a handler argument that
// one. It does no check; the face checked h where the program passed it.
func (e *Errh) Init(h *Errhandler) { e.h.Store(h) }

// Get is the handler set on the object.
func (e *Errh) Get() *Errhandler {
	if h := e.h.Load(); h != nil {
		return h
	}
	return ErrorsReturn
}

// Set sets h on an object of kind k (MPI_x_set_errhandler), if it fits, and returns
// the handler it replaces.
func (e *Errh) Set(op string, k Kind, h *Errhandler) (*Errhandler, error) {
	if err := h.Fits(op, k); err != nil {
		return nil, err
	}
	old := e.h.Swap(h)
	if old == nil {
		old = ErrorsReturn
	}
	return old, nil
}

// Raise runs the object's handler for err (see Errhandler.Run) and returns err.
func (e *Errh) Raise(op string, self any, obj func() string, err error) error {
	return e.Get().Run(op, self, obj, err)
}

// NoObject is where the error of a call with no valid object goes (MPI 4.1 section
// 9.3): to self, the face's MPI_COMM_SELF, while the world model runs (Init to
// Finalize), else to initial, the face's initial error handler (before Init, after
// Finalize, or with sessions only).
func NoObject(self, initial *Errh) *Errh {
	if core.Initialized() && !core.Finalized() {
		return self
	}
	return initial
}

// FileNull is MPI_FILE_NULL's handler: the one files start with, and the one that
// serves the errors of file calls with no valid file. It starts as ErrorsReturn, as
// MPI says of files, whatever the communicators' default.
var FileNull Errh

// Text is a description of an object that is a fixed text, for Run and Raise.
func Text(s string) func() string { return func() string { return s } }
