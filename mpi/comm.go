package mpi

import (
	"context"
	"sync"

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
	d *core.Comm // the device's communicator; nil until an Idup completes

	// topo is the process topology attached by CartCreate, GraphCreate or
	// DistGraphCreate (topology*.go), nil for none.
	topo *mpir.Topology

	attrs mpir.Attrs // attr.go; in the order they were set (Self's are deleted in reverse at Finalize)

	mu    sync.Mutex
	errh  mpir.Errh   // ErrorsReturn until set or inherited
	hints *mpir.Hints // the info hints in effect (info.go), shared by c's views

	// ctx is a view's context (WithContext, ctx.go); nil for the communicator itself.
	// plain is a view's communicator without its context (base), made with the view
	// so that a view's call that needs it allocates nothing.
	ctx   context.Context
	plain *Comm

	// s is c's owner, the session c derives from (CommCreateFromGroup of a session's
	// group, or a communicator made from such a one), nil for the world model's. Set
	// at creation, never changed; c's groups carry it (Group, RemoteGroup).
	s *mpir.Session
}

// World is every rank of the job (MPI_COMM_WORLD); Self is this rank alone
// (MPI_COMM_SELF). Both are ready after Init.
var (
	World = &Comm{d: core.World, hints: mpir.DefaultCommHints()}
	Self  = &Comm{d: core.Self, hints: mpir.DefaultCommHints()}
)

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
// handler (the handler of errors with no communicator), and returns Undefined.
// Undefined, unlike ProcNull, is a rank no call accepts, so that a rank taken from
// the wrong communicator fails the call it is passed to (a Send: ErrRank) rather
// than make it do nothing.
func (c *Comm) Rank() int {
	if c == nil {
		c.raise("Rank", errorf(ClassComm, "Rank", "the communicator is nil (MPI_COMM_NULL), which has no ranks"))
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
		c.raise("Size", errorf(ClassComm, "Size", "the communicator is nil (MPI_COMM_NULL), which has no ranks"))
		return 0
	}
	if c.d == nil || !c.d.Known() {
		return 0
	}
	return c.d.Size()
}

// Name is the communicator's name (MPI_Comm_get_name); "MPI_COMM_NULL" for a nil one.
func (c *Comm) Name() string { return c.dev().Name() }

// SetName names the communicator, for people reading messages (MPI_Comm_set_name).
func (c *Comm) SetName(name string) error {
	if err := c.check("SetName"); err != nil {
		return err
	}
	c.d.SetName(name)
	return nil
}

// Group returns the communicator's group (the local group of an intercommunicator);
// nil for a nil or freed communicator, after an error of class ErrComm goes to the
// handler.
func (c *Comm) Group() *Group {
	if c.check("Group") != nil {
		return nil
	}
	return wrapGroup(mpir.NewGroup(c.d.Group(), c.s))
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
	return wrapGroup(mpir.NewGroup(c.d.Remote(), c.s))
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

// wrapComm makes the facade's communicator of a new device communicator made from
// parent: it inherits parent's error handler, as MPI requires of every new
// communicator, and parent's session (with its buffer). A nil d (a rank left out)
// gives nil.
func wrapComm(parent *Comm, d *core.Comm) *Comm {
	if d == nil {
		return nil
	}
	c := &Comm{d: d, hints: mpir.DefaultCommHints()}
	if parent != nil {
		c.s = parent.s
		c.errh.Init(parent.errh.Get())
		d.InheritSessionBuffer(parent.d) // a communicator derived from a session's
	}
	return c
}
