package mpi

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"

	"github.com/mpigo/mpigo/internal/group"
	"github.com/mpigo/mpigo/internal/p2p"
	"github.com/mpigo/mpigo/internal/yield"
)

// Tags on a communicator's collective context that communicator management uses; the
// collectives keep below tagManage.
const (
	tagManage    = 1 << 30
	tagCtxAlloc  = tagManage + 1
	tagGather    = tagManage + 2
	tagGroupBase = tagManage + 1<<20 // CreateGroup: tagGroupBase + the user's tag, per round
)

// participants is a set of processes running one of the small internal collectives of
// communicator management: the world ranks of the members in order, and this
// process's index among them, exchanging on a communicator's collective context.
type participants struct {
	world func(i int) int
	n, me int
	ctx   uint32
}

// all is every member of c's own group (for an intercommunicator, the local group).
func (c *Comm) all() participants {
	return participants{world: func(i int) int { return int(c.group.WorldRank(i)) }, n: c.size, me: c.rank, ctx: c.ctx + 1}
}

// reduceBcast combines every member's buf with combine (a binomial tree to member 0)
// and leaves the result in every member's buf (a binomial tree back out).
func (p participants) reduceBcast(buf []byte, tag int, combine func(acc, in []byte)) error {
	tmp := make([]byte, len(buf))
	for mask := 1; mask < p.n; mask <<= 1 {
		if p.me&mask != 0 {
			if err := eng.Send(p2p.Bytes(buf), p.world(p.me-mask), tag, p.ctx, p2p.Standard); err != nil {
				return err
			}
			break
		}
		if p.me+mask < p.n {
			if _, err := eng.Recv(p2p.Bytes(tmp), p.world(p.me+mask), tag, p.ctx); err != nil {
				return err
			}
			combine(buf, tmp)
		}
	}
	return p.bcast(buf, tag)
}

// bcast sends member 0's buf to every member (binomial tree).
func (p participants) bcast(buf []byte, tag int) error {
	mask := 1
	for mask < p.n {
		if p.me&mask != 0 {
			if _, err := eng.Recv(p2p.Bytes(buf), p.world(p.me-mask), tag, p.ctx); err != nil {
				return err
			}
			break
		}
		mask <<= 1
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if p.me+mask < p.n {
			if err := eng.Send(p2p.Bytes(buf), p.world(p.me+mask), tag, p.ctx, p2p.Standard); err != nil {
				return err
			}
		}
	}
	return nil
}

// allgather gives every member the records of all, in member order: gathered to member
// 0, then broadcast. Communicator creation is not a hot path.
func (p participants) allgather(rec []byte, tag int) ([]byte, error) {
	out := make([]byte, len(rec)*p.n)
	if p.me != 0 {
		if err := eng.Send(p2p.Bytes(rec), p.world(0), tag, p.ctx, p2p.Standard); err != nil {
			return nil, err
		}
	} else {
		copy(out, rec)
		for i := 1; i < p.n; i++ {
			if _, err := eng.Recv(p2p.Bytes(out[i*len(rec):(i+1)*len(rec)]), p.world(i), tag, p.ctx); err != nil {
				return nil, err
			}
		}
	}
	return out, p.bcast(out, tag)
}

// Context ids. Each communicator takes one bit of a process-wide mask, which gives it
// the two contexts 2*bit (point-to-point) and 2*bit+1 (collectives). A new
// communicator's bit is agreed by a bitwise AND of the members' masks, as in MPICH:
// only a process's lowest waiting creation may offer its mask at a time (the others
// offer nothing and try again), so that creations running at once from different
// goroutines, on different communicators, in any order, neither collide nor livelock.
const ctxWords = 64 // 4096 bits: 4096 communicators alive at once

var ctxs struct {
	sync.Mutex
	free    [ctxWords]uint64
	inUse   bool
	waiting []uint32 // the parent contexts of creations in progress
}

func init() {
	for i := range ctxs.free {
		ctxs.free[i] = ^uint64(0)
	}
	ctxs.free[0] &^= 3 // World (bit 0) and Self (bit 1)
}

// allocCtx agrees with the participants on a context id that all of them have free.
// parent is the context the agreement runs on; it orders concurrent creations.
func allocCtx(op string, p participants, parent uint32, tag int) (uint32, error) {
	ctxs.Lock()
	ctxs.waiting = append(ctxs.waiting, parent)
	ctxs.Unlock()
	defer func() {
		ctxs.Lock()
		if i := slices.Index(ctxs.waiting, parent); i >= 0 {
			ctxs.waiting = slices.Delete(ctxs.waiting, i, i+1)
		}
		ctxs.Unlock()
	}()
	buf := make([]byte, 8*(ctxWords+1))
	for {
		ctxs.Lock()
		own := !ctxs.inUse && parent == slices.Min(ctxs.waiting)
		clear(buf)
		if own {
			ctxs.inUse = true
			for i, w := range ctxs.free {
				binary.LittleEndian.PutUint64(buf[8*i:], w)
			}
			binary.LittleEndian.PutUint64(buf[8*ctxWords:], 1) // "I offered my mask"
		}
		ctxs.Unlock()
		err := p.reduceBcast(buf, tag, func(acc, in []byte) {
			for i := 0; i < len(acc); i += 8 {
				binary.LittleEndian.PutUint64(acc[i:], binary.LittleEndian.Uint64(acc[i:])&binary.LittleEndian.Uint64(in[i:]))
			}
		})
		ctxs.Lock()
		if own {
			ctxs.inUse = false
		}
		if err != nil {
			ctxs.Unlock()
			return 0, mapErr(op, err)
		}
		allOffered := binary.LittleEndian.Uint64(buf[8*ctxWords:]) == 1
		for i := 0; i < ctxWords && allOffered; i++ {
			if w := binary.LittleEndian.Uint64(buf[8*i:]); w != 0 {
				b := bits.TrailingZeros64(w)
				ctxs.free[i] &^= 1 << b
				ctxs.Unlock()
				return uint32(2 * (64*i + b)), nil
			}
		}
		ctxs.Unlock()
		if allOffered {
			return 0, errorf(ClassOther, op, "no context id is free on every member: %d communicators are alive; free some", 64*ctxWords)
		}
		yield.Gosched()
	}
}

func releaseCtx(ctx uint32) {
	b := ctx / 2
	ctxs.Lock()
	ctxs.free[b/64] |= 1 << (b % 64)
	ctxs.Unlock()
}

func (c *Comm) usable(op string) error {
	if err := ready(op); err != nil {
		return err
	}
	if c == nil {
		return errorf(ClassComm, op, "the communicator is nil (MPI_COMM_NULL)")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.freed {
		return errorf(ClassComm, op, "communicator %q was freed", c.name)
	}
	return nil
}

// newComm makes a communicator derived from parent: it inherits the error handler, as
// MPI requires of every new communicator.
func newComm(parent *Comm, ctx uint32, g *group.Group) *Comm {
	c := &Comm{ctx: ctx, group: g, size: g.Size(), rank: g.Rank(int32(World.rank))}
	if parent != nil {
		c.errh = parent.ErrHandler()
		if c.errh == ErrorsReturn {
			c.errh = nil
		}
	}
	return c
}

// Dup returns a new communicator with the same group and a new context: messages on
// one never match receives on the other (MPI_Comm_dup).
func (c *Comm) Dup() (*Comm, error) {
	if err := c.usable("Dup"); err != nil {
		return nil, err
	}
	c.idup.Lock()
	defer c.idup.Unlock()
	return c.dup()
}

func (c *Comm) dup() (*Comm, error) {
	p := c.all()
	if c.remote != nil {
		// Both groups of an intercommunicator take part, listed the same way everywhere.
		a, b := c.group, c.remote
		if b.WorldRank(0) < a.WorldRank(0) {
			a, b = b, a
		}
		p = unionParticipants(a, b, c.ctx+1)
	}
	ctx, err := allocCtx("Dup", p, c.ctx, tagCtxAlloc)
	if err != nil {
		return nil, c.handle("Dup", err)
	}
	d := newComm(c, ctx, c.group)
	d.remote = c.remote
	d.topo = c.topo
	if err := c.copyAttrs(d); err != nil {
		releaseCtx(ctx)
		return nil, c.handle("Dup", &Error{Class: ClassOther, Op: "Dup", Msg: "an attribute copy function failed", Err: err})
	}
	return d, nil
}

// Idup starts duplicating c and returns the new communicator at once, with a request
// that completes when it is ready (MPI_Comm_idup); the new communicator must not be used
// before then. Meanwhile c stays usable, collectives included.
func (c *Comm) Idup() (*Comm, Request, error) {
	if err := c.usable("Idup"); err != nil {
		return nil, Request{}, err
	}
	d := &Comm{}
	op := &bgOp{name: "Idup", done: make(chan struct{})}
	c.idup.Lock()    // duplications of one communicator run in call order, as MPI requires
	eng.Concurrent() // the goroutine calls the engine beside the caller
	go func() {
		defer c.idup.Unlock()
		defer close(op.done)
		nd, err := c.dup()
		if err != nil {
			op.err = err
			return
		}
		// The new communicator becomes visible to the caller through the request's
		// completion, which orders these writes before any use.
		d.ctx, d.rank, d.size, d.group, d.remote = nd.ctx, nd.rank, nd.size, nd.group, nd.remote
		d.topo, d.errh, d.attrs = nd.topo, nd.errh, nd.attrs
	}()
	op.box.op = op
	return d, Request{c: c, x: &op.box}, nil
}

// bgOp is an operation running in a goroutine of its own.
type bgOp struct {
	name string
	done chan struct{}
	err  error
	box  pending // its Request's handle on it
}

func (o *bgOp) test() (Status, bool, error) {
	select {
	case <-o.done:
		return Status{Source: AnySource, Tag: AnyTag}, true, o.err
	default:
		return Status{}, false, nil
	}
}

func (o *bgOp) wait() (Status, error) {
	<-o.done
	return Status{Source: AnySource, Tag: AnyTag}, o.err
}

// Split partitions c: the ranks that pass the same color form a new communicator, ranked
// by key (ties by rank in c). A rank passing Undefined as color gets nil (MPI_Comm_split).
func (c *Comm) Split(color, key int) (*Comm, error) {
	if err := c.usable("Split"); err != nil {
		return nil, err
	}
	if c.remote != nil {
		return nil, errorf(ClassComm, "Split", "not supported on intercommunicator %q yet; merge it first (IntercommMerge)", c.Name())
	}
	if color < 0 && color != Undefined {
		return nil, errorf(ClassArg, "Split", "color %d is negative (and not Undefined)", color)
	}
	rec := make([]byte, 16)
	binary.LittleEndian.PutUint64(rec, uint64(int64(color)))
	binary.LittleEndian.PutUint64(rec[8:], uint64(int64(key)))
	all, err := c.all().allgather(rec, tagGather)
	if err != nil {
		return nil, mapErr("Split", err)
	}
	ctx, err := allocCtx("Split", c.all(), c.ctx, tagCtxAlloc)
	if err != nil {
		return nil, err
	}
	if color == Undefined {
		releaseCtx(ctx)
		return nil, nil
	}
	type member struct{ key, rank int }
	var ms []member
	for r := 0; r < c.size; r++ {
		if int(int64(binary.LittleEndian.Uint64(all[16*r:]))) == color {
			ms = append(ms, member{int(int64(binary.LittleEndian.Uint64(all[16*r+8:]))), r})
		}
	}
	slices.SortStableFunc(ms, func(a, b member) int { return a.key - b.key })
	ranks := make([]int, len(ms))
	for i, m := range ms {
		ranks[i] = m.rank
	}
	g, err := c.group.Incl(ranks)
	if err != nil {
		releaseCtx(ctx)
		return nil, groupErr("Split", err)
	}
	return newComm(c, ctx, g), nil
}

// SplitType kinds.
const (
	// SplitTypeShared groups the ranks that can share memory: those of one node.
	SplitTypeShared = 1
)

// SplitType splits c by a property of the machine: with SplitTypeShared, one
// communicator per node (MPI_Comm_split_type).
func (c *Comm) SplitType(kind, key int) (*Comm, error) {
	switch kind {
	case SplitTypeShared:
		return c.Split(proc.NodeOf(World.rank), key)
	case Undefined:
		return c.Split(Undefined, key)
	}
	return nil, errorf(ClassArg, "SplitType", "split type %d: want SplitTypeShared or Undefined", kind)
}

// Create makes a communicator of the members of g, a subgroup of c's group; it is
// collective over all of c, and ranks outside g get nil (MPI_Comm_create).
func (c *Comm) Create(g *Group) (*Comm, error) {
	if err := c.usable("Create"); err != nil {
		return nil, err
	}
	if c.remote != nil {
		return nil, errorf(ClassComm, "Create", "not supported on intercommunicator %q yet; merge it first (IntercommMerge)", c.Name())
	}
	if g == nil || g.g == nil {
		return nil, errorf(ClassGroup, "Create", "the group is nil")
	}
	if err := c.subgroup("Create", g.g); err != nil {
		return nil, err
	}
	ctx, err := allocCtx("Create", c.all(), c.ctx, tagCtxAlloc)
	if err != nil {
		return nil, err
	}
	if g.g.Rank(int32(World.rank)) == group.Undefined {
		releaseCtx(ctx)
		return nil, nil
	}
	return newComm(c, ctx, g.g), nil
}

// CreateGroup makes a communicator of the members of g, a subgroup of c's group,
// collectively over g's members only: the rest of c need not take part. Concurrent
// calls on overlapping groups are told apart by tag (MPI_Comm_create_group).
func (c *Comm) CreateGroup(g *Group, tag int) (*Comm, error) {
	if err := c.usable("CreateGroup"); err != nil {
		return nil, err
	}
	if c.remote != nil {
		return nil, errorf(ClassComm, "CreateGroup", "not supported on intercommunicator %q yet; merge it first (IntercommMerge)", c.Name())
	}
	if g == nil || g.g == nil {
		return nil, errorf(ClassGroup, "CreateGroup", "the group is nil")
	}
	if tag < 0 || tag >= 1<<20 {
		return nil, errorf(ClassTag, "CreateGroup", "tag %d out of range [0,%d)", tag, 1<<20)
	}
	me := g.g.Rank(int32(World.rank))
	if me == group.Undefined {
		return nil, errorf(ClassGroup, "CreateGroup", "the calling rank is not a member of the group")
	}
	if err := c.subgroup("CreateGroup", g.g); err != nil {
		return nil, err
	}
	p := participants{world: func(i int) int { return int(g.g.WorldRank(i)) }, n: g.g.Size(), me: me, ctx: c.ctx + 1}
	ctx, err := allocCtx("CreateGroup", p, c.ctx, tagGroupBase+tag)
	if err != nil {
		return nil, err
	}
	return newComm(c, ctx, g.g), nil
}

func (c *Comm) subgroup(op string, g *group.Group) error {
	bad := -1
	for i, w := range g.All() {
		if c.group.Rank(w) == group.Undefined {
			bad = i
			break
		}
	}
	if bad >= 0 {
		return errorf(ClassGroup, op, "member %d of the group is not in communicator %q", bad, c.Name())
	}
	return nil
}

// Free releases the communicator and its context id, which a later communicator may
// reuse once every member has freed it (MPI_Comm_free). World and Self cannot be freed.
func (c *Comm) Free() error {
	if err := c.usable("Free"); err != nil {
		return err
	}
	if c == World || c == Self {
		return errorf(ClassComm, "Free", "%s cannot be freed", c.Name())
	}
	err := c.deleteAttrs()
	c.mu.Lock()
	c.freed = true
	c.mu.Unlock()
	c.freeNode()
	releaseCtx(c.ctx)
	if err != nil {
		return &Error{Class: ClassOther, Op: "Free", Msg: "an attribute delete function failed", Err: err}
	}
	return nil
}

// CommCompare compares two communicators: Ident (the same one), Congruent (same
// members and order), Similar (same members) or Unequal.
func CommCompare(c1, c2 *Comm) (Comparison, error) {
	if c1 == nil || c2 == nil {
		return Unequal, errorf(ClassComm, "CommCompare", "a communicator is nil")
	}
	if c1 == c2 {
		return Ident, nil
	}
	cmp, err := group.Compare(c1.group, c2.group)
	if err != nil {
		return Unequal, groupErr("CommCompare", err)
	}
	if cmp == group.Ident {
		return Congruent, nil
	}
	return comparison(cmp), nil
}
