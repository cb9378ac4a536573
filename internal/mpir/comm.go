package mpir

import (
	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
)

// Communicators (MPI 4.1 chapters 7 and 8). The device (internal/core and
// internal/collective) makes communicators, agrees on their contexts and moves their
// messages; this file holds what MPI says a communicator is beside that, for both
// faces:
//
//   - The object a communicator handle names (Comm): the device's communicator, its
//     owner session, topology, hints, error handler and attributes, and the face's
//     own name for it (Handle).
//   - What a new communicator inherits from the one it was made from (MPI 4.1
//     section 9.3: the error handler; the owner and its buffer; on Dup the topology,
//     the hints and the attributes the copy functions keep), written once here so
//     that no creation call of either face gives it differently.
//   - The calls on the object itself: name (cut at MaxObjectName), info, attributes,
//     Free (the delete functions first).
//
// The hot paths never come here: a face keeps the device communicator (Dev, which
// never changes) beside its *Comm and gives it to point-to-point and collective calls
// directly, so Rank, Size and a Send cost what they did with no object above them.

// Comm is the object a communicator handle names, in either face.
type Comm struct {
	d     *core.Comm
	owner *Session
	topo  *Topology // set at creation, never changed
	hints *Hints

	// Errh is the communicator's error handler; Attrs its attributes.
	Errh  Errh
	Attrs Attrs
	// Handle is the face's own name for the communicator (its *mpi.Comm, its C
	// handle), set by the face when it made the communicator: what the error handler
	// and the attributes' copy and delete functions are given.
	Handle any
}

// NewComm is the object of device communicator d made with no parent to inherit from:
// a predefined one (MPI_COMM_WORLD, MPI_COMM_SELF, owner nil) or one made from a
// session's groups (owner that session). initial is its error handler, hints its
// hints (nil: every hint's default). A nil d (the caller is in no group) gives nil.
func NewComm(d *core.Comm, owner *Session, initial *Errhandler, hints *Hints) *Comm {
	if d == nil {
		return nil
	}
	if hints == nil {
		hints = DefaultCommHints()
	}
	c := &Comm{d: d, owner: owner, hints: hints}
	c.Errh.Init(initial)
	return c
}

// Derive is the object of device communicator d made from p (by a split, a creation
// from a group, an intercommunicator's creation or merge, a topology's creation):
// it inherits p's error handler, as MPI says every new communicator does, and p's
// owner with its buffer. t is its topology (nil: none) and hints its hints (nil:
// every hint's default, as the standard gives a new communicator no hint of its
// parent's but Dup's). A nil d (the caller is left out) gives nil; a nil p gives
// nothing to inherit.
func (p *Comm) Derive(d *core.Comm, t *Topology, hints *Hints) *Comm {
	if d == nil {
		return nil
	}
	if p == nil {
		c := NewComm(d, nil, ErrorsReturn, hints)
		c.topo = t
		return c
	}
	d.InheritSessionBuffer(p.d) // a communicator derived from a session's
	c := NewComm(d, p.owner, p.Errh.Get(), hints)
	c.topo = t
	return c
}

// Dup is MPI_Comm_dup of p (collective): a new device communicator with p's group,
// p's handler, owner, topology and hints (hints in their place when not nil:
// MPI_Comm_dup_with_info's), and the attributes p's copy functions keep. handle
// gives the face's name for the new object before the attributes are copied, since
// the delete functions of a failed copy are given it; if a copy fails, the new
// device communicator is freed (freeing is local) and the copy's error returned:
// the face discards what handle made. bad is the error the face met in this rank's
// arguments, nil if none: it fails the duplication at every member (collective.Dup).
func (p *Comm) Dup(op string, hints *Hints, bad error, handle func(*Comm) any) (*Comm, error) {
	if err := p.Check(op); err != nil {
		return nil, err
	}
	return p.dupAt(op, p.d.SeqTag(), hints, bad, handle)
}

// Idup is MPI_Comm_idup of p: Dup, run in the background. The duplication takes its
// place among p's collectives here, at the call (its tag, a number of p's collective
// sequence), as MPI orders it: duplications and other creations and collectives
// pending on p at once then agree pairwise at every member, whatever order their
// goroutines run in. done gets the new communicator, or the error, before the
// request completes: the faces publish the handle there. bad is as for Dup: with one,
// the duplication still runs, so that it fails at the other members too, and its
// error is returned at once as well (the request is then for the face to drop).
func (p *Comm) Idup(op string, hints *Hints, bad error, handle func(*Comm) any, done func(*Comm, error)) (*core.Pending, error) {
	if err := p.Check(op); err != nil {
		return nil, err
	}
	tag := p.d.SeqTag()
	return core.Go(op, func() error {
		c, err := p.dupAt(op, tag, hints, bad, handle)
		done(c, err)
		return err
	}), bad
}

func (p *Comm) dupAt(op string, tag int, hints *Hints, bad error, handle func(*Comm) any) (*Comm, error) {
	nd, err := collective.DupAt(p.d, op, tag, bad)
	if err != nil {
		return nil, err
	}
	if hints == nil {
		hints = p.hints.Dup()
	}
	c := p.Derive(nd, p.topo, hints)
	c.Handle = handle(c)
	if err := CopyAttrs(op, &p.Attrs, p.Handle, &c.Attrs, c.Handle); err != nil {
		_ = collective.Free(nd, op)
		return nil, err
	}
	return c, nil
}

// Dev is c's device communicator (nil for a nil c): what the faces' hot paths use.
// It never changes, so a face may keep it beside c.
func (c *Comm) Dev() *core.Comm {
	if c == nil {
		return nil
	}
	return c.d
}

// Check returns nil when c can be used by op: MPI runs, c is not MPI_COMM_NULL and
// not freed (else ClassComm).
func (c *Comm) Check(op string) error { return c.Dev().Check(op) }

// Owner is the session c derives from (nil: the world model's, and a nil c's). Its
// groups carry it, so that what is made from them is the session's.
func (c *Comm) Owner() *Session {
	if c == nil {
		return nil
	}
	return c.owner
}

// Topo is c's process topology, nil for none (and a nil c).
func (c *Comm) Topo() *Topology {
	if c == nil {
		return nil
	}
	return c.topo
}

// Hints are c's info hints in effect.
func (c *Comm) Hints() *Hints { return c.hints }

// SetInfo is MPI_Comm_set_info: the hints of in that communicators take;
// MPI_INFO_NULL (nil) changes nothing.
func (c *Comm) SetInfo(op string, in *Info) error {
	if err := c.Check(op); err != nil {
		return err
	}
	return c.hints.Set(op, in)
}

// Info is MPI_Comm_get_info: a new info with every hint in effect.
func (c *Comm) Info(op string) (*Info, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	return c.hints.Info(), nil
}

// Group is c's (local) group (MPI_Comm_group), a new group of c's owner.
func (c *Comm) Group() *Group { return NewGroup(c.d.Group(), c.owner) }

// RemoteGroup is an intercommunicator's remote group (MPI_Comm_remote_group), a new
// group of c's owner.
func (c *Comm) RemoteGroup() *Group { return NewGroup(c.d.Remote(), c.owner) }

// Name is c's name (MPI_Comm_get_name): the predefined ones' own ("MPI_COMM_WORLD",
// "MPI_COMM_SELF"), "" until SetName for the rest; "MPI_COMM_NULL" for a nil c.
func (c *Comm) Name() string { return c.Dev().Name() }

// SetName names c (MPI_Comm_set_name); a name longer than MaxObjectName bytes is cut
// there (MPI 4.1 section 7.8).
func (c *Comm) SetName(op, name string) error {
	if err := c.Check(op); err != nil {
		return err
	}
	c.d.SetName(name[:min(len(name), MaxObjectName)])
	return nil
}

// What names c in the message of a fatal error.
func (c *Comm) What() string { return "communicator " + c.Name() }

// SetAttr is MPI_Comm_set_attr.
func (c *Comm) SetAttr(op string, k *Keyval, val any) error {
	if err := c.Check(op); err != nil {
		return err
	}
	return SetAttr(op, AttrComm, &c.Attrs, c.Handle, k, val)
}

// Attr is MPI_Comm_get_attr: a predefined attribute's value (CommPredefined), or the
// value set under k.
func (c *Comm) Attr(op string, k *Keyval) (any, bool, error) {
	if err := c.Check(op); err != nil {
		return nil, false, err
	}
	return CommAttr(op, &c.Attrs, k)
}

// DeleteAttr is MPI_Comm_delete_attr.
func (c *Comm) DeleteAttr(op string, k *Keyval) error {
	if err := c.Check(op); err != nil {
		return err
	}
	return DeleteAttr(op, AttrComm, &c.Attrs, c.Handle, k)
}

// Free frees c (collective; MPI_Comm_free): the attributes' delete functions run
// first, the last set first; if one fails, Free returns its error and c stays, with
// that attribute and those set before it. Then the device frees c (MPI_COMM_WORLD and
// MPI_COMM_SELF: ClassComm).
func (c *Comm) Free(op string) error {
	if err := c.Check(op); err != nil {
		return err
	}
	if c.d == core.World || c.d == core.Self {
		return core.Errorf(core.ClassComm, op, "%s cannot be freed", c.Name())
	}
	// The files' window first: freeing it is collective, and a delete function
	// failing on one member must not leave the others waiting in it.
	if err := freeSlots(op, c.d, false); err != nil {
		return err
	}
	if err := FreeAttrs(op, &c.Attrs, c.Handle); err != nil {
		return err
	}
	return collective.Free(c.d, op)
}

// Finalize deletes the attributes of c, MPI_COMM_SELF, at MPI_Finalize (see
// FinalizeAttrs; name is what the face calls it), then frees the windows that
// MPI_COMM_WORLD's and MPI_COMM_SELF's files used (file_slots.go), while the device
// still runs.
func (c *Comm) Finalize(op, name string) error {
	err := FinalizeAttrs(op, &c.Attrs, c.Handle, name)
	if serr := finalizeSlots(op); err == nil {
		err = serr
	}
	return err
}
