package core

import (
	"encoding/binary"
	"slices"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/group"
)

// Communicator creation. Every call agrees on a new context id (ctx.go) over the
// processes that take part, using the collectives of internal/coll over a conn of
// those processes on a context no user message can match (the parent's internal
// context, or World's for IntercommCreate, whose two groups share no communicator
// but World). A new communicator chooses its collectives at once (colltable.go).

// Undefined is MPI_UNDEFINED: the color that leaves a process out of Split.
const Undefined = -32766

// Dup returns a communicator with c's groups and a new context (MPI_Comm_dup).
// Duplications of one communicator run in call order, as MPI requires (Idup runs
// Dup in the background).
func (c *Comm) Dup(op string) (*Comm, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	c.idup.Lock()
	defer c.idup.Unlock()
	k := c.lconn
	if c.remote != nil {
		// Both groups of an intercommunicator take part, listed alike everywhere.
		a, b := c.group, c.remote
		if b.WorldRank(0) < a.WorldRank(0) {
			a, b = b, a
		}
		k = unionConn(a, b, c.ctx+1)
	}
	ctx, err := allocCtx(op, &k, c.ctx, tagCtxAlloc)
	if err != nil {
		return nil, err
	}
	return newComm(ctx, c.group, c.remote), nil
}

// Split partitions c (MPI_Comm_split): the processes that pass the same color form a
// new communicator, ranked by key (ties by rank in c). A process passing Undefined
// gets nil. On an intercommunicator each color's processes of both groups form an
// intercommunicator; a color found in one group only gives nil there.
func (c *Comm) Split(op string, color, key int) (*Comm, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if color < 0 && color != Undefined {
		return nil, Errorf(ClassArg, op, "color %d is negative (and not Undefined)", color)
	}
	rec := make([]byte, 16)
	binary.LittleEndian.PutUint64(rec, uint64(int64(color)))
	binary.LittleEndian.PutUint64(rec[8:], uint64(int64(key)))
	if c.remote != nil {
		return c.splitInter(op, rec, color)
	}
	all := make([]byte, 16*c.size)
	if err := c.lconn.run(tagGather, 1, func(s *coll.Sched) { s.Allgather(rec, all) }); err != nil {
		return nil, MapErr(op, err)
	}
	ctx, err := allocCtx(op, &c.lconn, c.ctx, tagCtxAlloc)
	if err != nil {
		return nil, err
	}
	if color == Undefined {
		releaseCtx(ctx)
		return nil, nil
	}
	g, err := c.group.Incl(colorRanks(all, color))
	if err != nil {
		releaseCtx(ctx)
		return nil, GroupErr(op, err)
	}
	return newComm(ctx, g, nil), nil
}

// colorRanks lists the ranks whose (color, key) records in all carry color, ordered
// by key, ties by rank.
func colorRanks(all []byte, color int) []int {
	type member struct{ key, rank int }
	var ms []member
	for r := 0; r < len(all)/16; r++ {
		if int(int64(binary.LittleEndian.Uint64(all[16*r:]))) == color {
			ms = append(ms, member{int(int64(binary.LittleEndian.Uint64(all[16*r+8:]))), r})
		}
	}
	slices.SortStableFunc(ms, func(a, b member) int { return a.key - b.key })
	ranks := make([]int, len(ms))
	for i, m := range ms {
		ranks[i] = m.rank
	}
	return ranks
}

// splitInter is Split on an intercommunicator (MPI 4.1 §7.4.2): every process of
// both groups learns every (color, key), each color's processes of this group form
// the local group and those of the other group the remote one.
func (c *Comm) splitInter(op string, rec []byte, color int) (*Comm, error) {
	nl, nr := c.size, c.remote.Size()
	// Both groups gather their records over the intercommunicator's conn: an
	// allgather of the local group, then the leaders swap and tell their groups.
	local := make([]byte, 16*nl)
	if err := c.lconn.run(tagGather, 1, func(s *coll.Sched) { s.Allgather(rec, local) }); err != nil {
		return nil, MapErr(op, err)
	}
	remote := make([]byte, 16*nr)
	if c.rank == 0 {
		if err := c.iconn.sendrecv(local, remote, c.size, tagGather); err != nil {
			return nil, MapErr(op, err)
		}
	}
	if err := c.lconn.run(tagGather, 1, func(s *coll.Sched) { s.Bcast(remote, 0) }); err != nil {
		return nil, MapErr(op, err)
	}
	a, b := c.group, c.remote
	if b.WorldRank(0) < a.WorldRank(0) {
		a, b = b, a
	}
	k := unionConn(a, b, c.ctx+1)
	ctx, err := allocCtx(op, &k, c.ctx, tagCtxAlloc)
	if err != nil {
		return nil, err
	}
	if color == Undefined {
		releaseCtx(ctx)
		return nil, nil
	}
	lg, err := c.group.Incl(colorRanks(local, color))
	if err != nil {
		releaseCtx(ctx)
		return nil, GroupErr(op, err)
	}
	rr := colorRanks(remote, color)
	if len(rr) == 0 {
		releaseCtx(ctx)
		return nil, nil
	}
	rg, err := c.remote.Incl(rr)
	if err != nil {
		releaseCtx(ctx)
		return nil, GroupErr(op, err)
	}
	return newComm(ctx, lg, rg), nil
}

// SplitShared splits c by node (MPI_COMM_TYPE_SHARED): one communicator per node.
func (c *Comm) SplitShared(op string, key int) (*Comm, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	return c.Split(op, proc.NodeOf(World.rank), key)
}

// Create makes a communicator of the members of g, a subgroup of c's group; it is
// collective over all of c, and processes outside g get nil (MPI_Comm_create). On an
// intercommunicator g is a subgroup of the local group, and the result joins each
// side's g (nil where either side's g is empty).
func (c *Comm) Create(op string, g *group.Group) (*Comm, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if g == nil {
		return nil, Errorf(ClassGroup, op, "the group is nil")
	}
	if err := c.subgroup(op, g); err != nil {
		return nil, err
	}
	if c.remote != nil {
		return c.createInter(op, g)
	}
	ctx, err := allocCtx(op, &c.lconn, c.ctx, tagCtxAlloc)
	if err != nil {
		return nil, err
	}
	if g.Rank(int32(World.rank)) == group.Undefined {
		releaseCtx(ctx)
		return nil, nil
	}
	return newComm(ctx, g, nil), nil
}

// createInter is Create on an intercommunicator: each side passes a subgroup of its
// own group; the leaders swap them and tell their sides.
func (c *Comm) createInter(op string, g *group.Group) (*Comm, error) {
	mine := encodeRanks(g)
	sizes := make([]byte, 8)
	var theirs []byte
	if c.rank == 0 {
		n := make([]byte, 8)
		binary.LittleEndian.PutUint64(n, uint64(len(mine)))
		if err := c.iconn.sendrecv(n, sizes, c.size, tagInterBcast); err != nil {
			return nil, MapErr(op, err)
		}
		theirs = make([]byte, binary.LittleEndian.Uint64(sizes))
		if err := c.iconn.sendrecv(mine, theirs, c.size, tagInterBcast); err != nil {
			return nil, MapErr(op, err)
		}
	}
	if err := c.lconn.run(tagInterBcast, 1, func(s *coll.Sched) { s.Bcast(sizes, 0) }); err != nil {
		return nil, MapErr(op, err)
	}
	if theirs == nil {
		theirs = make([]byte, binary.LittleEndian.Uint64(sizes))
	}
	if err := c.lconn.run(tagInterBcast, 1, func(s *coll.Sched) { s.Bcast(theirs, 0) }); err != nil {
		return nil, MapErr(op, err)
	}
	rg, err := World.group.Incl(decodeRanks(theirs))
	if err != nil {
		return nil, GroupErr(op, err)
	}
	a, b := c.group, c.remote
	if b.WorldRank(0) < a.WorldRank(0) {
		a, b = b, a
	}
	k := unionConn(a, b, c.ctx+1)
	ctx, err := allocCtx(op, &k, c.ctx, tagCtxAlloc)
	if err != nil {
		return nil, err
	}
	if g.Rank(int32(World.rank)) == group.Undefined || rg.Size() == 0 {
		releaseCtx(ctx)
		return nil, nil
	}
	return newComm(ctx, g, rg), nil
}

// CreateGroup makes a communicator of the members of g, a subgroup of c's group,
// collectively over g's members only (MPI_Comm_create_group); concurrent calls on
// overlapping groups are told apart by tag.
func (c *Comm) CreateGroup(op string, g *group.Group, tag int) (*Comm, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if c.remote != nil {
		return nil, Errorf(ClassComm, op, "%q is an intercommunicator; MPI_Comm_create_group takes an intracommunicator", c.Name())
	}
	if g == nil {
		return nil, Errorf(ClassGroup, op, "the group is nil")
	}
	if tag < 0 || tag >= GroupTagLimit {
		return nil, Errorf(ClassTag, op, "tag %d out of range [0,%d)", tag, GroupTagLimit)
	}
	if g.Rank(int32(World.rank)) == group.Undefined {
		return nil, Errorf(ClassGroup, op, "the calling rank is not a member of the group")
	}
	if err := c.subgroup(op, g); err != nil {
		return nil, err
	}
	k := groupConn(g, c.ctx+1)
	ctx, err := allocCtx(op, &k, c.ctx, tagGroupBase+tag)
	if err != nil {
		return nil, err
	}
	return newComm(ctx, g, nil), nil
}

func (c *Comm) subgroup(op string, g *group.Group) error {
	for i, w := range g.All() {
		if c.group.Rank(w) == group.Undefined {
			return Errorf(ClassGroup, op, "member %d of the group is not in communicator %q", i, c.Name())
		}
	}
	return nil
}

func encodeRanks(g *group.Group) []byte {
	b := make([]byte, 0, 4*g.Size())
	for _, w := range g.All() {
		b = binary.LittleEndian.AppendUint32(b, uint32(w))
	}
	return b
}

func decodeRanks(b []byte) []int {
	out := make([]int, len(b)/4)
	for i := range out {
		out[i] = int(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// IntercommCreate makes an intercommunicator between local (the caller's side) and the
// disjoint group led by remoteLeader, a rank of peer that both leaders belong to
// (MPI_Intercomm_create). It is collective over both groups; localLeader is the
// leader's rank in local, tag keeps concurrent creations apart on peer.
func IntercommCreate(op string, local *Comm, localLeader int, peer *Comm, remoteLeader, tag int) (*Comm, error) {
	if err := local.Check(op); err != nil {
		return nil, err
	}
	if localLeader < 0 || localLeader >= local.size {
		return nil, Errorf(ClassRank, op, "localLeader %d out of range [0,%d)", localLeader, local.size)
	}
	if tag < 0 || tag > MaxTag-tagInterLeaders {
		return nil, Errorf(ClassTag, op, "tag %d out of range [0,%d]", tag, MaxTag-tagInterLeaders)
	}
	sizes := make([]byte, 8)
	var remote []byte
	if local.rank == localLeader {
		if err := peer.Check(op); err != nil {
			return nil, err
		}
		if remoteLeader < 0 || remoteLeader >= peer.size {
			return nil, Errorf(ClassRank, op, "remoteLeader %d out of range [0,%d) of the peer communicator", remoteLeader, peer.size)
		}
		mine := encodeRanks(local.group)
		n := make([]byte, 8)
		binary.LittleEndian.PutUint64(n, uint64(len(mine)))
		if err := peer.lconn.sendrecv(n, sizes, remoteLeader, tagInterLeaders+tag); err != nil {
			return nil, MapErr(op, err)
		}
		remote = make([]byte, binary.LittleEndian.Uint64(sizes))
		if err := peer.lconn.sendrecv(mine, remote, remoteLeader, tagInterLeaders+tag); err != nil {
			return nil, MapErr(op, err)
		}
	}
	if err := local.lconn.run(tagInterBcast, 1, func(s *coll.Sched) { s.Bcast(sizes, localLeader) }); err != nil {
		return nil, MapErr(op, err)
	}
	if remote == nil {
		remote = make([]byte, binary.LittleEndian.Uint64(sizes))
	}
	if err := local.lconn.run(tagInterBcast, 1, func(s *coll.Sched) { s.Bcast(remote, localLeader) }); err != nil {
		return nil, MapErr(op, err)
	}
	rg, err := World.group.Incl(decodeRanks(remote))
	if err != nil {
		return nil, GroupErr(op, err)
	}
	if both, err := group.Intersection(local.group, rg); err != nil || both.Size() > 0 {
		return nil, Errorf(ClassGroup, op, "the local and remote groups overlap; an intercommunicator joins disjoint groups")
	}
	// Both sides agree on one context over the union, ordered by the leaders' world
	// ranks so that every process lists it alike, on World's internal context (the
	// one communicator every process is in).
	a, b := local.group, rg
	if rg.WorldRank(0) < local.group.WorldRank(0) {
		a, b = rg, local.group
	}
	k := unionConn(a, b, World.ctx+1)
	ctx, err := allocCtx(op, &k, 0, tagInterCtx)
	if err != nil {
		return nil, err
	}
	return newComm(ctx, local.group, rg), nil
}

// Merge makes an intracommunicator of both groups of an intercommunicator
// (MPI_Intercomm_merge): the group whose processes pass high=false comes first
// (ties broken by the groups' leaders).
func (c *Comm) Merge(op string, high bool) (*Comm, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if c.remote == nil {
		return nil, Errorf(ClassComm, op, "%q is not an intercommunicator", c.Name())
	}
	flag := []byte{0}
	if high {
		flag[0] = 1
	}
	theirs := []byte{0}
	if c.rank == 0 {
		if err := c.iconn.sendrecv(flag, theirs, c.size, tagMergeFlags); err != nil {
			return nil, MapErr(op, err)
		}
	}
	both := []byte{flag[0], theirs[0]}
	if err := c.lconn.run(tagMergeFlags, 1, func(s *coll.Sched) { s.Bcast(both, 0) }); err != nil {
		return nil, MapErr(op, err)
	}
	mineHigh, theirHigh := both[0] == 1, both[1] == 1
	first, second := c.group, c.remote
	if mineHigh && !theirHigh || mineHigh == theirHigh && c.remote.WorldRank(0) < c.group.WorldRank(0) {
		first, second = c.remote, c.group
	}
	k := unionConn(first, second, c.ctx+1)
	ctx, err := allocCtx(op, &k, c.ctx, tagInterCtx)
	if err != nil {
		return nil, err
	}
	u, err := group.Union(first, second)
	if err != nil {
		releaseCtx(ctx)
		return nil, GroupErr(op, err)
	}
	return newComm(ctx, u, nil), nil
}
