package mpi

import (
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// Communicator creation: the device agrees on the new context and chooses the new
// communicator's collectives; mpir.Comm (Derive, Dup) gives it what it inherits from
// its parent (the error handler, as MPI requires, the owner, and for Dup the
// topology, hints and the attributes the copy functions keep); the facade wraps it.

// Dup returns a new communicator with the same group and a new context: messages on
// one never match receives on the other (MPI_Comm_dup). Attributes are copied by their
// keyvals' copy functions, and the topology is kept.
func (c *Comm) Dup() (*Comm, error) {
	defer prof.Exit(prof.Dup, c.enterRare(prof.Dup, prof.NoPeer, 0), 0)
	if c.special() {
		var nc *Comm
		if done, err := c.around("Dup", func(b *Comm) (err error) { nc, err = b.Dup(); return err }); done {
			if err != nil {
				return nil, err // nc is not read: a given-up call may still set it
			}
			return nc, nil
		}
	}
	if err := c.check("Dup"); err != nil {
		return nil, err
	}
	d, err := c.dup(nil, nil)
	return d, c.fail("Dup", err)
}

// dup makes a duplicate of c (mpir.Comm.Dup: c's handler, session, topology and
// hints, hints in their place when not nil, and the attributes c's copy functions
// keep); bad, this rank's error in its arguments, fails it at every rank.
func (c *Comm) dup(hints *mpir.Hints, bad error) (*Comm, error) {
	d := &Comm{}
	x, err := c.x.Dup("Dup", hints, bad, func(*mpir.Comm) any { return d })
	if err != nil {
		return nil, err
	}
	d.x, d.d = x, x.Dev()
	return d, nil
}

// Idup starts duplicating c and returns the new communicator at once, with a request
// that completes when it is ready (MPI_Comm_idup); the new communicator must not be used
// before then. Meanwhile c stays usable, collectives included.
func (c *Comm) Idup() (*Comm, Request, error) {
	defer prof.Exit(prof.Idup, c.enterRare(prof.Idup, prof.NoPeer, 0), 0)
	if err := c.check("Idup"); err != nil {
		return nil, Request{}, err
	}
	return c.idup(nil, nil)
}

// idup starts the duplication; non-nil hints replace c's on the new communicator, and
// bad, this rank's error in its arguments, fails it at every rank.
func (c *Comm) idup(hints *mpir.Hints, bad error) (*Comm, Request, error) {
	if hints == nil {
		hints = c.x.Hints().Dup() // as they are at the call
	}
	d := &Comm{}
	p, err := c.x.Idup("Idup", hints, bad, func(*mpir.Comm) any { return d }, func(x *mpir.Comm, err error) {
		// The new communicator becomes visible to the caller through the request's
		// completion, which orders these writes before any use.
		if err == nil {
			d.x, d.d = x, x.Dev()
		}
	})
	if err != nil {
		return nil, Request{}, c.fail("Idup", err)
	}
	return d, opReq(c, p), nil
}

// DupWithInfo is Dup, except that the new communicator takes its hints from info
// instead of from c (MPI_Comm_dup_with_info; see SetInfo for the hints mpigo takes).
// A nil info gives every hint its default.
func (c *Comm) DupWithInfo(info *Info) (*Comm, error) {
	defer prof.Exit(prof.Dup, c.enterRare(prof.Dup, prof.NoPeer, 0), 0)
	if nc, done, err := c.aroundNew("DupWithInfo", func(b *Comm) (*Comm, error) { return b.DupWithInfo(info) }); done {
		return nc, err
	}
	if err := c.check("DupWithInfo"); err != nil {
		return nil, err
	}
	hints, bad := mpir.NewCommHints("DupWithInfo", info.obj())
	d, err := c.dup(hints, bad)
	return d, c.fail("DupWithInfo", err)
}

// IdupWithInfo is Idup, except that the new communicator takes its hints from info
// instead of from c (MPI_Comm_idup_with_info). info is read before it returns, so the
// caller may free it at once.
func (c *Comm) IdupWithInfo(info *Info) (*Comm, Request, error) {
	defer prof.Exit(prof.Idup, c.enterRare(prof.Idup, prof.NoPeer, 0), 0)
	if err := c.check("IdupWithInfo"); err != nil {
		return nil, Request{}, err
	}
	hints, bad := mpir.NewCommHints("IdupWithInfo", info.obj())
	return c.idup(hints, bad)
}

// Split partitions c: the ranks that pass the same color form a new communicator, ranked
// by key (ties by rank in c). A rank passing Undefined as color gets nil (MPI_Comm_split).
// On an intercommunicator, each color's ranks of both groups form an intercommunicator
// (nil where the color has no rank in the other group).
func (c *Comm) Split(color, key int) (*Comm, error) {
	defer prof.Exit(prof.Split, c.enterRare(prof.Split, prof.NoPeer, 0), 0)
	if c.special() {
		var nc *Comm
		if done, err := c.around("Split", func(b *Comm) (err error) { nc, err = b.Split(color, key); return err }); done {
			if err != nil {
				return nil, err // nc is not read: a given-up call may still set it
			}
			return nc, nil
		}
	}
	nd, err := mpir.Split("Split", c.dev(), color, key, nil)
	if err != nil {
		return nil, c.fail("Split", err)
	}
	return wrapComm(c, nd), nil
}

// Create makes a communicator of the members of g, a subgroup of c's group; it is
// collective over all of c, and ranks outside g get nil (MPI_Comm_create). On an
// intercommunicator each side passes a subgroup of its own group, and the result joins
// them (nil where either is empty).
func (c *Comm) Create(g *Group) (*Comm, error) {
	defer prof.Exit(prof.Create, c.enterRare(prof.Create, prof.NoPeer, 0), 0)
	if c.special() {
		var nc *Comm
		if done, err := c.around("Create", func(b *Comm) (err error) { nc, err = b.Create(g); return err }); done {
			if err != nil {
				return nil, err // nc is not read: a given-up call may still set it
			}
			return nc, nil
		}
	}
	if err := c.check("Create"); err != nil {
		return nil, err
	}
	nd, err := mpir.Create("Create", c.dev(), c.x.Owner(), g.obj(), nil)
	if err != nil {
		return nil, c.fail("Create", err)
	}
	return wrapComm(c, nd), nil
}

// CreateGroup makes a communicator of the members of g, a subgroup of c's group,
// collectively over g's members only: the rest of c need not take part. Concurrent
// calls on overlapping groups are told apart by tag (MPI_Comm_create_group).
func (c *Comm) CreateGroup(g *Group, tag int) (*Comm, error) {
	defer prof.Exit(prof.CreateGroup, c.enterRare(prof.CreateGroup, prof.NoPeer, 0), 0)
	if nc, done, err := c.aroundNew("CreateGroup", func(b *Comm) (*Comm, error) { return b.CreateGroup(g, tag) }); done {
		return nc, err
	}
	nd, err := mpir.CreateGroup("CreateGroup", c.dev(), c.owner(), g.obj(), tag, nil)
	if err != nil {
		return nil, c.fail("CreateGroup", err)
	}
	return wrapComm(c, nd), nil
}

// Free releases the communicator and its context id, which a later communicator may
// reuse once every member has freed it (MPI_Comm_free). Attributes' delete functions
// run first, the last set first; if one fails, Free returns its error and c stays, with
// that attribute and those set before it. World and Self cannot be freed. Every later
// call on c returns ErrComm.
func (c *Comm) Free() error {
	defer prof.Exit(prof.CommFree, c.enterRare(prof.CommFree, prof.NoPeer, 0), 0)
	if err := c.check("Free"); err != nil {
		return err
	}
	return c.fail("Free", c.x.Free("Free")) // on a delete function's error c stays
}

// CommCompare compares two communicators: Ident (the same one, or views of it by
// WithContext), Congruent (same members and order; both groups of
// intercommunicators), Similar (same members) or Unequal.
func CommCompare(c1, c2 *Comm) (Comparison, error) {
	if err := c1.check("CommCompare"); err != nil {
		return Unequal, err
	}
	if err := c2.check("CommCompare"); err != nil {
		return Unequal, err
	}
	cmp, err := mpir.CommCompare("CommCompare", c1.d, c2.d)
	if err != nil {
		return Unequal, c1.fail("CommCompare", err)
	}
	return comparison(cmp), nil
}

// owner is c's owner: the session it derives from, nil for the world model's (and a
// nil c).
func (c *Comm) owner() *mpir.Session { return c.obj().Owner() }

// IntercommCreate makes an intercommunicator between local (the caller's side) and the
// disjoint group led by remoteLeader, a rank of peer that both leaders belong to (of
// its remote group where peer is an intercommunicator, e.g. a spawn's). It is
// collective over both groups; localLeader is the leader's rank in local, tag keeps
// concurrent creations apart on peer (MPI_Intercomm_create). peer matters at the local
// leader only, and there it belongs to local's owner, the same session or the world
// model (see Group; else ErrComm).
func IntercommCreate(local *Comm, localLeader int, peer *Comm, remoteLeader, tag int) (*Comm, error) {
	defer prof.Exit(prof.IntercommCreate, local.enter(prof.IntercommCreate, prof.NoPeer, 0), 0)
	if nc, done, err := local.aroundNew("IntercommCreate", func(b *Comm) (*Comm, error) { return IntercommCreate(b, localLeader, peer, remoteLeader, tag) }); done {
		return nc, err
	}
	nd, err := mpir.IntercommCreate("IntercommCreate", local.dev(), local.owner(), localLeader, peer.dev(), peer.owner(), remoteLeader, tag, nil)
	if err != nil {
		return nil, local.fail("IntercommCreate", err)
	}
	return wrapComm(local, nd), nil
}

// IntercommMerge makes an intracommunicator of both groups of an intercommunicator: the
// group whose ranks pass high=false comes first (ties broken by the groups' leaders)
// (MPI_Intercomm_merge).
func (c *Comm) IntercommMerge(high bool) (*Comm, error) {
	defer prof.Exit(prof.IntercommMerge, c.enterRare(prof.IntercommMerge, prof.NoPeer, 0), 0)
	if nc, done, err := c.aroundNew("IntercommMerge", func(b *Comm) (*Comm, error) { return b.IntercommMerge(high) }); done {
		return nc, err
	}
	nd, err := mpir.Merge("IntercommMerge", c.dev(), high, nil)
	if err != nil {
		return nil, c.fail("IntercommMerge", err)
	}
	return wrapComm(c, nd), nil
}
