package collective

import (
	"sync"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/group"
)

// Making communicators. A communicator chooses its collectives once, when it is made
// (table.go), and core, which makes its core (context, groups), imports nothing of
// this package: so the faces make communicators here. Each call makes the core with
// core's creation call of the same name, then the communicator's collectives, before
// it returns the communicator to anyone; Free releases both. World and Self are made
// by the runtime's start (Init, SessionInit), which makes their collectives likewise.

// made finishes a communicator core has just made (nil where this process is not a
// member of any): it chooses its collectives and keeps them in its CollState.
func made(c *core.Comm, err error) (*core.Comm, error) {
	if c != nil {
		c.SetCollState(unsafe.Pointer(newComm(c)))
	}
	return c, err
}

// Dup is MPI_Comm_dup (core.Comm.DupCore, then the new communicator's collectives).
// bad, here and in every constructor, is the error the caller met in its arguments,
// which fails the creation at every member (core's creation calls).
func Dup(c *core.Comm, op string, bad error) (*core.Comm, error) {
	return made(c.DupCore(op, bad))
}

// DupAt is Dup with the duplication's tag taken already (core.Comm.DupCoreAt).
func DupAt(c *core.Comm, op string, tag int, bad error) (*core.Comm, error) {
	return made(c.DupCoreAt(op, tag, bad))
}

// Split is MPI_Comm_split (core.Comm.SplitCore).
func Split(c *core.Comm, op string, color, key int, bad error) (*core.Comm, error) {
	return made(c.SplitCore(op, color, key, bad))
}

// SplitType is MPI_Comm_split_type (core.Comm.SplitTypeCore).
func SplitType(c *core.Comm, op string, a core.SplitTypeArgs, bad error) (*core.Comm, string, error) {
	nc, typ, err := c.SplitTypeCore(op, a, bad)
	nc, err = made(nc, err)
	return nc, typ, err
}

// Create is MPI_Comm_create (core.Comm.CreateCore).
func Create(c *core.Comm, op string, g *group.Group, bad error) (*core.Comm, error) {
	return made(c.CreateCore(op, g, bad))
}

// CreateGroup is MPI_Comm_create_group (core.Comm.CreateGroupCore).
func CreateGroup(c *core.Comm, op string, g *group.Group, tag int, bad error) (*core.Comm, error) {
	return made(c.CreateGroupCore(op, g, tag, bad))
}

// IntercommCreate is MPI_Intercomm_create (core.IntercommCreateCore).
func IntercommCreate(op string, bad, peerBad error, local *core.Comm, localLeader int, peer *core.Comm, remoteLeader, tag int) (*core.Comm, error) {
	return made(core.IntercommCreateCore(op, bad, peerBad, local, localLeader, peer, remoteLeader, tag))
}

// Merge is MPI_Intercomm_merge (core.Comm.MergeCore).
func Merge(c *core.Comm, op string, high bool, bad error) (*core.Comm, error) {
	return made(c.MergeCore(op, high, bad))
}

// CreateFromGroup is MPI_Comm_create_from_group (core.CreateFromGroupCore).
func CreateFromGroup(op string, g *group.Group, stringtag string, bad error) (*core.Comm, error) {
	return made(core.CreateFromGroupCore(op, g, stringtag, bad))
}

// IntercommFromGroups is MPI_Intercomm_create_from_groups
// (core.IntercommFromGroupsCore).
func IntercommFromGroups(op string, local *group.Group, localLeader int, remote *group.Group, remoteLeader int, stringtag string, bad error) (*core.Comm, error) {
	return made(core.IntercommFromGroupsCore(op, local, localLeader, remote, remoteLeader, stringtag, bad))
}

// Free is MPI_Comm_free: core frees c's core (core.Comm.FreeCore), then c's
// collectives release what they hold (its node region, or the node and leaders'
// communicators of its hierarchical collectives).
func Free(c *core.Comm, op string) error {
	var late error
	if cc := of(c); cc != nil {
		late = cc.settleNode(op)
	}
	if err := c.FreeCore(op); err != nil {
		return err
	}
	of(c).freeNode()
	return late
}

// worldMu orders the making of World's and Self's collectives.
var worldMu sync.Mutex

// Init is MPI_Init_thread (core.Init), then World's and Self's collectives, made
// once, by the first start of the runtime (here or SessionInit).
func Init(required int) error {
	if err := core.Init(required); err != nil {
		return err
	}
	makeWorld()
	return nil
}

// SessionInit is MPI_Session_init (core.SessionInit): the runtime it starts, if it
// does, has World and Self, whose collectives are made as Init's.
func SessionInit(op string, level int) (*core.Session, error) {
	s, err := core.SessionInit(op, level)
	if err == nil {
		makeWorld()
	}
	return s, err
}

func makeWorld() {
	worldMu.Lock()
	defer worldMu.Unlock()
	for _, c := range []*core.Comm{core.World, core.Self} {
		if c.CollState() == nil {
			made(c, nil)
		}
	}
}

// Finalize is MPI_Finalize (core.Finalize): where it stops the runtime, the node
// regions of every communicator's collectives are unmapped after it, once every rank
// has passed the final fence.
func Finalize(before func() error) error {
	late := settleNodes("Finalize")
	err := core.Finalize(before)
	if !core.Live() {
		closeNodeRegions()
	}
	if err == nil {
		err = late
	}
	return err
}

// Accept is MPI_Comm_accept (core.AcceptCore).
func Accept(op, port string, bad, mine error, root int, c *core.Comm) (*core.Comm, error) {
	return made(core.AcceptCore(op, port, bad, mine, root, c))
}

// Connect is MPI_Comm_connect (core.ConnectCore).
func Connect(op, port string, bad, mine error, root int, c *core.Comm) (*core.Comm, error) {
	return made(core.ConnectCore(op, port, bad, mine, root, c))
}

// Join is MPI_Comm_join (core.JoinCore).
func Join(op string, fd int) (*core.Comm, error) { return made(core.JoinCore(op, fd)) }

// Spawn is MPI_Comm_spawn(_multiple) (core.SpawnCore).
func Spawn(op string, cmds []core.SpawnCmd, bad, mine error, root int, c *core.Comm) (*core.Comm, []error, error) {
	nc, errs, err := core.SpawnCore(op, cmds, bad, mine, root, c)
	nc, err = made(nc, err)
	return nc, errs, err
}

// Parent is MPI_Comm_get_parent's communicator (core.Parent), its collectives chosen
// on first use.
func Parent() *core.Comm {
	parentOnce.Do(func() {
		if p := core.Parent(); p != nil {
			made(p, nil)
		}
	})
	return core.Parent()
}

var parentOnce sync.Once
