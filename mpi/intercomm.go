package mpi

import (
	"encoding/binary"

	"github.com/mpigo/mpigo/internal/group"
	"github.com/mpigo/mpigo/internal/p2p"
)

// Tags of intercommunicator construction.
const (
	tagInterLeaders = tagManage + 10 // leaders exchange their groups on the peer communicator
	tagInterBcast   = tagManage + 11
	tagInterCtx     = tagManage + 12
	tagMergeFlags   = tagManage + 13
)

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

// groupOfWorld builds the group of the given world ranks, in order.
func groupOfWorld(ranks []int) (*group.Group, error) { return World.group.Incl(ranks) }

// union lists the world ranks of a then b, for participants spanning both groups.
func unionParticipants(a, b *group.Group, ctx uint32) participants {
	na := a.Size()
	me := a.Rank(int32(World.rank))
	if me == group.Undefined {
		me = na + b.Rank(int32(World.rank))
	}
	return participants{
		world: func(i int) int {
			if i < na {
				return int(a.WorldRank(i))
			}
			return int(b.WorldRank(i - na))
		},
		n: na + b.Size(), me: me, ctx: ctx,
	}
}

// IntercommCreate makes an intercommunicator between local (the caller's side) and the
// disjoint group led by remoteLeader, a rank of peer that both leaders belong to. It is
// collective over both groups; localLeader is the leader's rank in local, tag keeps
// concurrent creations apart on peer (MPI_Intercomm_create).
func IntercommCreate(local *Comm, localLeader int, peer *Comm, remoteLeader, tag int) (*Comm, error) {
	const op = "IntercommCreate"
	if err := local.usable(op); err != nil {
		return nil, err
	}
	if localLeader < 0 || localLeader >= local.size {
		return nil, errorf(ClassRank, op, "localLeader %d out of range [0,%d)", localLeader, local.size)
	}
	if tag < 0 || tag > TagUB {
		return nil, errorf(ClassTag, op, "tag %d out of range [0,%d]", tag, TagUB)
	}
	mine := encodeRanks(local.group)
	// The leader is participant 0 of the broadcast to its side.
	p := participants{n: local.size, me: (local.rank - localLeader + local.size) % local.size, ctx: local.ctx + 1,
		world: func(i int) int { return local.worldRank((i + localLeader) % local.size) }}
	sizes := make([]byte, 8)
	var remote []byte
	if local.rank == localLeader {
		if err := peer.usable(op); err != nil {
			return nil, err
		}
		if remoteLeader < 0 || remoteLeader >= peer.size {
			return nil, errorf(ClassRank, op, "remoteLeader %d out of range [0,%d) of the peer communicator", remoteLeader, peer.size)
		}
		rl := peer.worldRank(remoteLeader)
		n := []byte{0, 0, 0, 0}
		binary.LittleEndian.PutUint32(n, uint32(len(mine)/4))
		got := make([]byte, 4)
		if _, err := mpiSendrecvBytes(peer.ctx+1, n, got, rl, tagInterLeaders+tag); err != nil {
			return nil, mapErr(op, err)
		}
		remote = make([]byte, 4*int(binary.LittleEndian.Uint32(got)))
		if _, err := mpiSendrecvBytes(peer.ctx+1, mine, remote, rl, tagInterLeaders+tag); err != nil {
			return nil, mapErr(op, err)
		}
		binary.LittleEndian.PutUint64(sizes, uint64(len(remote)))
	}
	if err := p.bcast(sizes, tagInterBcast); err != nil {
		return nil, mapErr(op, err)
	}
	if remote == nil {
		remote = make([]byte, binary.LittleEndian.Uint64(sizes))
	}
	if err := p.bcast(remote, tagInterBcast); err != nil {
		return nil, mapErr(op, err)
	}
	rg, err := groupOfWorld(decodeRanks(remote))
	if err != nil {
		return nil, groupErr(op, err)
	}
	if both, err := group.Intersection(local.group, rg); err != nil || both.Size() > 0 {
		return nil, errorf(ClassGroup, op, "the local and remote groups overlap; an intercommunicator joins disjoint groups")
	}
	// Both sides agree on one context over the union, ordered by the leaders' world ranks
	// so that every participant lists it the same way. Every process is in World, whose
	// collective context carries the agreement.
	a, b := local.group, rg
	if rg.WorldRank(0) < local.group.WorldRank(0) {
		a, b = rg, local.group
	}
	ctx, err := allocCtx(op, unionParticipants(a, b, World.ctx+1), 0, tagInterCtx)
	if err != nil {
		return nil, err
	}
	c := newComm(local, ctx, local.group)
	c.remote = rg
	return c, nil
}

// mpiSendrecvBytes exchanges with one world rank on a context.
func mpiSendrecvBytes(ctx uint32, out, in []byte, peer, tag int) (p2p.Status, error) {
	q, err := eng.Irecv(p2p.Bytes(in), peer, tag, ctx)
	if err != nil {
		return p2p.Status{}, err
	}
	if err := eng.Send(p2p.Bytes(out), peer, tag, ctx, p2p.Standard); err != nil {
		eng.Cancel(&q)
		eng.Wait(&q)
		return p2p.Status{}, err
	}
	return eng.Wait(&q)
}

// IntercommMerge makes an intracommunicator of both groups of an intercommunicator: the
// group whose ranks pass high=false comes first (ties broken by the groups' leaders)
// (MPI_Intercomm_merge).
func (c *Comm) IntercommMerge(high bool) (*Comm, error) {
	const op = "IntercommMerge"
	if err := c.usable(op); err != nil {
		return nil, err
	}
	if c.remote == nil {
		return nil, errorf(ClassComm, op, "%q is not an intercommunicator", c.Name())
	}
	// Rank 0 of each side exchanges the side's flag with the other's rank 0, then tells
	// its own side.
	flag := []byte{0}
	if high {
		flag[0] = 1
	}
	local := participants{world: func(i int) int { return int(c.group.WorldRank(i)) }, n: c.size, me: c.rank, ctx: c.ctx + 1}
	theirs := []byte{0}
	if c.rank == 0 {
		if _, err := mpiSendrecvBytes(c.ctx+1, flag, theirs, int(c.remote.WorldRank(0)), tagMergeFlags); err != nil {
			return nil, mapErr(op, err)
		}
	}
	both := []byte{flag[0], theirs[0]}
	if err := local.bcast(both, tagMergeFlags); err != nil {
		return nil, mapErr(op, err)
	}
	mineHigh, theirHigh := both[0] == 1, both[1] == 1
	first, second := c.group, c.remote
	if mineHigh && !theirHigh || mineHigh == theirHigh && c.remote.WorldRank(0) < c.group.WorldRank(0) {
		first, second = c.remote, c.group
	}
	ctx, err := allocCtx(op, unionParticipants(first, second, c.ctx+1), c.ctx, tagInterCtx)
	if err != nil {
		return nil, err
	}
	u, err := group.Union(first, second)
	if err != nil {
		releaseCtx(ctx)
		return nil, groupErr(op, err)
	}
	return newComm(c, ctx, u), nil
}
