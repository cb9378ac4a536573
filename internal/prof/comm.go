package prof

import (
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/group"
)

// Comm is a communicator as the record knows it: what the layer below told it when
// the communicator was made (Register), its name as the program last set it
// (SetName), and whether it was freed (Retire). The record reads nothing else of a
// communicator, and calls nothing to learn more: the world ranks of its groups it
// reads from the groups themselves (internal/group, immutable), only when asked
// (State).
//
// The layer below keeps a Comm in each of its communicators, so that the facades
// name one to the record by a pointer they hold already: the hot calls' entry stores
// it, with no load and no call (internal/core puts it first in its communicator,
// where the pointer to one is the pointer to the other). A nil *Comm is no
// communicator: State reports the world's.
//
// Register happens before the communicator is used, so a reader that found it
// through the current call (State, the timeline) sees its fields; the name and the
// retirement may change at any time and are atomic.
type Comm struct {
	ctx  uint32
	size int32
	// local is the world ranks of the (local) group, nil when they are the world's
	// in order; remote an intercommunicator's other group.
	local, remote *group.Group
	name          atomic.Pointer[string]
	retired       atomic.Bool
}

// Register describes c: its context id, the size of its (local) group, that group
// (nil: the world's, in order), an intercommunicator's remote group (nil: none) and
// its name. The layer below calls it once, when it makes the communicator, before
// any call names it to the record.
func (c *Comm) Register(ctx uint32, size int, local, remote *group.Group, name string) {
	c.ctx, c.size, c.local, c.remote = ctx, int32(size), local, remote
	c.SetName(name)
	c.retired.Store(false)
}

// SetName records c's new name (MPI_Comm_set_name), from any goroutine.
func (c *Comm) SetName(name string) { c.name.Store(&name) }

// Retire records that c was freed: a call still under way on it (a wait on one of
// its requests, which MPI lets outlive it) is reported as on a freed communicator.
func (c *Comm) Retire() { c.retired.Store(true) }

// context is c's context id (0 for none: the world's).
func (c *Comm) context() uint32 {
	if c == nil {
		return 0
	}
	return c.ctx
}

// describe fills w's communicator fields from c (nil: the world).
func (c *Comm) describe(w *Where) {
	if c == nil {
		w.CommName, w.Size = "MPI_COMM_WORLD", size
		return
	}
	w.Comm, w.Size = c.ctx, int(c.size)
	if p := c.name.Load(); p != nil {
		w.CommName = *p
	}
	w.Freed = c.retired.Load()
	w.Group, w.Remote = worldRanks(c.local), worldRanks(c.remote)
}

// worldRanks lists g's world ranks (nil for nil g).
func worldRanks(g *group.Group) []int {
	if g == nil {
		return nil
	}
	out := make([]int, g.Size())
	for i := range out {
		out[i] = int(g.WorldRank(i))
	}
	return out
}

// loadCommAtomic loads *p atomically (a reader's, from another goroutine).
func loadCommAtomic(p **Comm) *Comm {
	return (*Comm)(atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(p))))
}
