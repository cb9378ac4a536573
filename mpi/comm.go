package mpi

import (
	"sync"

	"github.com/mpigo/mpigo/internal/group"
)

// Comm is a communicator: a group of ranks and a context in which their messages match.
// Each communicator has two contexts: ctx for point-to-point messages and ctx+1 for its
// collectives, so a collective's messages never match a user's receive.
type Comm struct {
	ctx   uint32
	rank  int
	size  int
	group *group.Group // the members, as world ranks
	// remote is the other group of an intercommunicator, which point-to-point ranks
	// address; nil for an intracommunicator.
	remote *group.Group

	// topo is the process topology attached by CartCreate, GraphCreate or
	// DistGraphCreate (topology*.go), nil for none.
	topo any

	idup sync.Mutex // orders duplications of this communicator (Dup, Idup)

	collOnce sync.Once
	cs       *collState // the collectives' sequence and connection (coll.go)

	mu    sync.Mutex
	name  string
	freed bool
	attrs map[*Keyval]any
	errh  *ErrHandler // nil: ErrorsReturn
}

// World is every rank of the job (MPI_COMM_WORLD); Self is this rank alone
// (MPI_COMM_SELF). Both are ready after Init.
var (
	World = &Comm{ctx: 0, name: "MPI_COMM_WORLD"}
	Self  = &Comm{ctx: 2, name: "MPI_COMM_SELF"}
)

// Rank is this process's rank in c, from 0 to Size()-1.
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks in c.
func (c *Comm) Size() int { return c.size }

// Name is the communicator's name (MPI_Comm_get_name).
func (c *Comm) Name() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.name
}

// SetName names the communicator, for people reading messages (MPI_Comm_set_name).
func (c *Comm) SetName(name string) {
	c.mu.Lock()
	c.name = name
	c.mu.Unlock()
}

// Group returns the communicator's group.
func (c *Comm) Group() *Group { return &Group{c.group} }

// Abort ends every rank of the job with code. It does not return.
func (c *Comm) Abort(code int) { Abort(code) }

// worldRank translates a peer's rank in c (in the remote group, for an
// intercommunicator) to the world rank the engine addresses. World and its duplicates
// share the world group, whose ranks are world ranks: no lookup at all on every message.
func (c *Comm) worldRank(r int) int {
	if c.group == World.group && c.remote == nil {
		return r
	}
	if c.remote != nil {
		return int(c.remote.WorldRank(r))
	}
	return int(c.group.WorldRank(r))
}

// worldRanks reports whether MPI is running and c's ranks are world ranks (World and
// its duplicates: an intracommunicator of the world group), so point-to-point calls
// need no translation: their fast path (send, recvInto). A nil c says false.
func (c *Comm) worldRanks() bool {
	return state.Load() == stateInit && c != nil && c.remote == nil && c.group == World.group
}

// commRank translates a sender's world rank back to its rank in c.
func (c *Comm) commRank(w int) int {
	if c.group == World.group && c.remote == nil {
		return w
	}
	if c.remote != nil {
		return c.remote.Rank(int32(w))
	}
	return c.group.Rank(int32(w))
}

// peers is the number of ranks point-to-point can address: the remote group's size
// for an intercommunicator.
func (c *Comm) peers() int {
	if c.remote != nil {
		return c.remote.Size()
	}
	return c.size
}

// IsInter reports whether c is an intercommunicator.
func (c *Comm) IsInter() bool { return c.remote != nil }

// RemoteSize is the size of an intercommunicator's remote group (0 for an intracommunicator).
func (c *Comm) RemoteSize() int { return c.remote.Size() }

// RemoteGroup is an intercommunicator's remote group (nil for an intracommunicator).
func (c *Comm) RemoteGroup() *Group {
	if c.remote == nil {
		return nil
	}
	return &Group{c.remote}
}

func setupWorldComms(rank, size int) error {
	wg, err := group.World(size)
	if err != nil {
		return err
	}
	sg, err := wg.Incl([]int{rank})
	if err != nil {
		return err
	}
	World.rank, World.size, World.group = rank, size, wg
	Self.rank, Self.size, Self.group = 0, 1, sg
	return nil
}
