package core

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/group"
	"github.com/mpigo/mpigo/internal/prof"
)

// Comm is the core of a communicator: its group (world ranks), this process's rank in
// it, its context id, the remote group of an intercommunicator, and the collectives it
// chose when it was made. Each communicator owns two contexts, Ctx for point-to-point
// and Ctx+1 for everything internal (tags.go divides that one among its users), so
// internal traffic never matches a user's receive.
//
// A Comm is made by Init (World, Self) or by a creation call of this package, and is
// usable until Free. Every method may be called on a nil or freed Comm: Check says
// what is wrong.
type Comm struct {
	// rec is c as the record of calls knows it (internal/prof; prof.go): first, so
	// that a pointer to c is one to it (Prof).
	rec prof.Comm

	ctx    uint32
	rank   int
	size   int
	group  *group.Group
	remote *group.Group // an intercommunicator's other group; nil for an intracommunicator

	// direct says that ranks in c are world ranks (World, its duplicates, and any
	// intracommunicator of World's members in World's order: worldOrder), so that
	// point-to-point needs no translation; Free clears it, sending the calls that
	// follow down the checked path, which refuses them.
	direct bool
	freed  atomic.Bool
	// foreign says that c has members of other jobs (procs.go), which it keeps
	// reachable while it lives.
	foreign bool

	seq atomic.Uint32 // the collective sequence: each collective's tag
	// pinG is pinAny while draws from the sequence are pinned (Pinned), 0 otherwise;
	// pinNext the pin's next number. pinMu lets one pin at a time.
	pinG    atomic.Int64
	pinNext int
	pinMu   sync.Mutex
	lconn   Conn // the local group on the internal context
	iconn   Conn // an intercommunicator's both groups (local first)
	// coll is the collective package's state of c (internal/collective: the
	// collectives c chose when it was made), set there once, when c is made and
	// before anyone else sees it; core never reads it (beside.go).
	coll unsafe.Pointer

	mu   sync.Mutex
	name string
	part *partTable // partitioned communication's matching, made on first use
}

// World is every rank of the job; Self is this rank alone. Init fills them.
var (
	World = &Comm{ctx: 0, name: "MPI_COMM_WORLD"}
	Self  = &Comm{ctx: 2, name: "MPI_COMM_SELF"}
)

// setGroup makes c a communicator of g (and remote, for an intercommunicator).
func (c *Comm) setGroup(g, remote *group.Group) {
	c.group, c.remote, c.size = g, remote, g.Size()
	c.rank = g.Rank(int32(World.rank))
	c.direct = remote == nil && worldOrder(g)
}

// worldOrder says whether g is World's group, member for member in World's order (as
// a split of World that keeps every rank in order is): then a rank of g is its world
// rank. Decided once, when a communicator is made, so that point-to-point on such a
// communicator takes World's path, with no translation.
func worldOrder(g *group.Group) bool {
	w := World.group
	if g == w {
		return true
	}
	if w == nil || g == nil || g.Size() != w.Size() {
		return false
	}
	cmp, err := group.Compare(g, w)
	return err == nil && cmp == group.Ident
}

// Rank is this process's rank in c (in its local group).
func (c *Comm) Rank() int { return c.rank }

// Size is the size of c's (local) group.
func (c *Comm) Size() int { return c.size }

// Group is c's (local) group.
func (c *Comm) Group() *group.Group { return c.group }

// Remote is an intercommunicator's remote group, nil for an intracommunicator.
func (c *Comm) Remote() *group.Group { return c.remote }

// IsInter reports whether c is an intercommunicator.
func (c *Comm) IsInter() bool { return c.remote != nil }

// Name is c's name, for messages.
func (c *Comm) Name() string {
	if c == nil {
		return "MPI_COMM_NULL"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.name
}

// SetName names c.
func (c *Comm) SetName(name string) {
	c.mu.Lock()
	c.name = name
	c.mu.Unlock()
	c.rec.SetName(name)
}

// Check returns nil when c can be used by op, else an error of the class MPI names:
// MPI not running (ClassOther), a nil communicator or a freed one (ClassComm).
func (c *Comm) Check(op string) error {
	if state.Load() == stateInit && c != nil && !c.freed.Load() {
		return nil // inlined: every call's check costs three loads
	}
	return c.checkSlow(op)
}

func (c *Comm) checkSlow(op string) error {
	if err := Ready(op); err != nil {
		return err
	}
	if c == nil {
		return Errorf(ClassComm, op, "the communicator is nil (MPI_COMM_NULL)")
	}
	if c.freed.Load() {
		if c == World || c == Self {
			return worldClosed(op, c)
		}
		return Errorf(ClassComm, op, "communicator %q was freed", c.Name())
	}
	return nil
}

// worldClosed is the error of a call on World or Self while the world model is not
// initialised, or after it was finalised, and sessions keep the runtime up.
func worldClosed(op string, c *Comm) error {
	if world.Load() == stateFinal {
		return Errorf(ClassOther, op, "%s belongs to the world model, which was finalised; no MPI call may use it after Finalize", c.Name())
	}
	return Errorf(ClassOther, op, "%s belongs to the world model, which is not initialised (call mpi.Init; a program with sessions only makes its communicators with CommCreateFromGroup)", c.Name())
}

// Known reports whether c's group and rank are set: any communicator but World and
// Self, which are the world model's only after Init.
func (c *Comm) Known() bool {
	if c == World || c == Self {
		return Initialized()
	}
	return c != nil
}

// Peers is the number of ranks point-to-point on c addresses: the remote group's size
// for an intercommunicator.
func (c *Comm) Peers() int {
	if c.remote != nil {
		return c.remote.Size()
	}
	return c.size
}

// WorldRank translates a peer's rank in c (in the remote group, for an
// intercommunicator) to the world rank the engine addresses.
func (c *Comm) WorldRank(r int) int {
	if c.direct {
		return r
	}
	if c.remote != nil {
		return int(c.remote.WorldRank(r))
	}
	return int(c.group.WorldRank(r))
}

// CommRank translates a sender's world rank back to its rank in c.
func (c *Comm) CommRank(w int) int {
	if c.direct {
		return w
	}
	if c.remote != nil {
		return c.remote.Rank(int32(w))
	}
	return c.group.Rank(int32(w))
}

// LocalWorldRank translates a rank of c's local group to a world rank.
func (c *Comm) LocalWorldRank(r int) int {
	if c.direct {
		return r
	}
	return int(c.group.WorldRank(r))
}

// newComm makes a communicator of g (and remote) on context ctx.
func newComm(ctx uint32, g, remote *group.Group) *Comm {
	c := &Comm{ctx: ctx}
	c.setGroup(g, remote)
	c.setConns()
	c.holdProcs()
	c.describe()
	return c
}

// FreeCore releases c's core: its context id, which a later communicator may reuse
// once every member has freed it. World and Self cannot be freed. The faces free a
// communicator through internal/collective's Free, which releases its collectives'
// resources too.
func (c *Comm) FreeCore(op string) error {
	if err := c.Check(op); err != nil {
		return err
	}
	if c == World || c == Self {
		return Errorf(ClassComm, op, "%s cannot be freed", c.Name())
	}
	if c.freed.Swap(true) {
		return Errorf(ClassComm, op, "communicator %q was freed", c.Name())
	}
	c.direct = false
	c.rec.Retire()
	eng.DropBuffer(c.ctx) // its buffered messages under way still go
	releaseCtx(c.ctx)
	c.releaseProcs()
	return nil
}
