package mpi

import (
	"context"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
)

// Comm is a communicator: a group of ranks and a context in which their messages match
// (MPI_Comm). A nil *Comm is MPI_COMM_NULL (what Split gives a rank that passes
// Undefined): every call on it, as on a freed communicator, returns an error of class
// ErrComm.
//
// The operations that move typed data are package functions taking the communicator
// first, not methods: mpi.Send(c, buf, dest, tag), mpi.Recv(c, buf, src, tag),
// mpi.Bcast(c, buf, root), mpi.Allreduce(c, send, recv, mpi.Sum). Go methods cannot
// have type parameters, and these are generic over the element type of the slice
// ([]float64, []int32, ...), so that a message's datatype is the slice's and needs no
// argument of its own. Calls that move no typed data are methods: c.Rank(), c.Size(),
// c.Barrier(), c.Split(color, key), c.Dup(), c.Free().
type Comm struct {
	// d is x's device communicator, which never changes, kept here (and first) so
	// that the hot paths (Rank, Size, the point-to-point and collective calls) reach
	// it with one load. x is the communicator's object, which both faces share the
	// shape of (internal/mpir/comm.go): its owner, topology, hints, error handler and
	// attributes. A view (WithContext) shares its base's. Both are nil until an Idup
	// completes.
	d *core.Comm
	x *mpir.Comm

	// ctx is a view's context (WithContext, ctx.go); nil for the communicator itself.
	// plain is a view's communicator without its context (base), made with the view
	// so that a view's call that needs it allocates nothing.
	ctx   context.Context
	plain *Comm
}

// World is every rank of the job (MPI_COMM_WORLD); Self is this rank alone
// (MPI_COMM_SELF). Both are ready after Init.
var (
	World = newComm(mpir.NewComm(core.World, nil, mpir.ErrorsReturn, nil))
	Self  = newComm(mpir.NewComm(core.Self, nil, mpir.ErrorsReturn, nil))
)

// newComm is the face's communicator of object x (nil for a nil x: a rank left
// out), which it names.
func newComm(x *mpir.Comm) *Comm {
	if x == nil {
		return nil
	}
	c := &Comm{x: x, d: x.Dev()}
	x.Handle = c
	return c
}

// dev is c's device communicator, nil for a nil c (MPI_COMM_NULL).
func (c *Comm) dev() *core.Comm {
	if c == nil {
		return nil
	}
	return c.d
}

// Rank is this process's rank in c, from 0 to Size()-1 (in the local group of an
// intercommunicator); Undefined before Init.
//
// A nil communicator (MPI_COMM_NULL) has no ranks, and MPI makes asking one for its
// rank an error: Rank then raises an error of class ErrComm, which goes to Self's
// handler (the handler of errors with no communicator), and returns Undefined. When
// that handler returns the error, as the default ErrorsReturn does, Rank cannot, so
// the error is written to standard error (once per process).
// Undefined, unlike ProcNull, is a rank no call accepts, so that a rank taken from
// the wrong communicator fails the call it is passed to (a Send: ErrRank) rather
// than make it do nothing.
func (c *Comm) Rank() int {
	if c == nil {
		unreturned("Rank", errorf(ClassComm, "Rank", "the communicator is nil (MPI_COMM_NULL), which has no ranks"), "Undefined")
		return Undefined
	}
	if c.d == nil || !c.d.Known() {
		return Undefined
	}
	return c.d.Rank()
}

// Size is the number of ranks in c (its local group for an intercommunicator); 0
// before Init. On a nil communicator (MPI_COMM_NULL) it raises an error of class
// ErrComm, as Rank does, and returns 0.
func (c *Comm) Size() int {
	if c == nil {
		unreturned("Size", errorf(ClassComm, "Size", "the communicator is nil (MPI_COMM_NULL), which has no ranks"), "0")
		return 0
	}
	if c.d == nil || !c.d.Known() {
		return 0
	}
	return c.d.Size()
}

// Name is the communicator's name (MPI_Comm_get_name); "MPI_COMM_NULL" for a nil one.
func (c *Comm) Name() string { return c.dev().Name() }

// obj is c's object, nil for a nil c (MPI_COMM_NULL).
func (c *Comm) obj() *mpir.Comm {
	if c == nil {
		return nil
	}
	return c.x
}

// SetName names the communicator, for people reading messages (MPI_Comm_set_name). A
// name longer than MaxObjectName bytes is cut there.
func (c *Comm) SetName(name string) error {
	if err := c.check("SetName"); err != nil {
		return err
	}
	return c.fail("SetName", c.x.SetName("SetName", name))
}

// Group returns the communicator's group (the local group of an intercommunicator);
// nil for a nil or freed communicator, after an error of class ErrComm goes to the
// handler.
func (c *Comm) Group() *Group {
	if c.check("Group") != nil {
		return nil
	}
	return wrapGroup(c.x.Group())
}

// Abort ends every rank of the job with code. It does not return.
func (c *Comm) Abort(code int) { Abort(code) }

// IsInter reports whether c is an intercommunicator (false for a nil communicator).
func (c *Comm) IsInter() bool { return c.dev() != nil && c.d.IsInter() }

// RemoteSize is the size of an intercommunicator's remote group. On an
// intracommunicator, a nil or a freed communicator it is 0, after an error of class
// ErrComm goes to the handler (MPI_Comm_remote_size).
func (c *Comm) RemoteSize() int {
	if !c.interOK("RemoteSize") {
		return 0
	}
	return c.d.Remote().Size()
}

// RemoteGroup is an intercommunicator's remote group. On an intracommunicator, a nil or
// a freed communicator it is nil, after an error of class ErrComm goes to the handler
// (MPI_Comm_remote_group).
func (c *Comm) RemoteGroup() *Group {
	if !c.interOK("RemoteGroup") {
		return nil
	}
	return wrapGroup(c.x.RemoteGroup())
}

// interOK checks that c is a live intercommunicator for op, raising ErrComm if not.
func (c *Comm) interOK(op string) bool {
	if c.check(op) != nil {
		return false
	}
	if !c.d.IsInter() {
		c.raise(op, errorf(ClassComm, op, "%s is an intracommunicator: only an intercommunicator has a remote group", c.Name()))
		return false
	}
	return true
}

// wrapComm makes the face's communicator of a new device communicator made from
// parent, which inherits what MPI says it does (mpir.Comm.Derive). A nil d (a rank
// left out) gives nil.
func wrapComm(parent *Comm, d *core.Comm) *Comm { return newComm(parent.obj().Derive(d, nil, nil)) }
