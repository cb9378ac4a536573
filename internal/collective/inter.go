package collective

import (
	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/core"
)

// Collectives on intercommunicators (MPI 4.1, chapter 6). An intercommunicator joins
// two disjoint groups; its collectives move data from one group to the other. The
// rooted ones follow the standard's root convention: in the group holding the root,
// the root passes Root and every other process ProcNull; the processes of the other
// group pass the root's rank in the root's group (their remote group). Allreduce,
// Allgather(v), Alltoall(v,w) and ReduceScatter(Block) give each group the result
// computed from the OTHER group's data. Scan and Exscan are not defined on
// intercommunicators, and none of these takes InPlace. The arguments were checked
// above the device (internal/mpir), which gives the builders empty buffers where a
// process's are not significant.
//
// Each is one schedule of internal/coll (its Inter* builders): collectives on the
// local group plus exchanges with the remote group, through the groups' leaders (local
// rank 0) or straight between the processes. So the blocking and the nonblocking forms
// are the same schedule, and the nonblocking one progresses on nb.go's progress
// goroutine like any other. A schedule runs on the intercommunicator's collective
// context with one tag per call, numbered by the intercommunicator's collective
// sequence (which both groups advance in the same order): the local phases and the
// exchanges of one call cannot match each other's receives (the groups are disjoint),
// and calls in flight at the same time cannot match each other's either.

// Root is what the root passes as root to a rooted collective on an intercommunicator
// (MPI_ROOT); the other processes of its group pass ProcNull.
const Root = -3

// beginInter checks c and returns an empty schedule for the call with its tag; with
// coll_check on it first verifies that the processes of both groups make matching
// calls.
func (c *comm) beginInter(cl interCall, esize int) (*coll.Sched, error) {
	if err := c.Check(cl.op); err != nil {
		return nil, err
	}
	if _, err := coll.Tune(); err != nil {
		return nil, core.Errorf(core.ClassArg, cl.op, "%v", err)
	}
	if c.dry.Load() {
		if err := c.dryStop(); err != nil {
			return nil, err
		}
	}
	seq := c.NextSeq() & core.TagInterSeqMask
	if c.check {
		if err := c.verifyInter(core.TagInterCheck+seq, cl); err != nil {
			return nil, err
		}
	}
	return coll.New(c.Inter(), core.TagInterColl+seq, esize), nil
}

// interRole is what a process's root argument makes it in a rooted collective.
type interRole int

const (
	roleNone   interRole = iota // a collective without a root
	roleRoot                    // the root (Root)
	roleIdle                    // another process of the root's group (core.ProcNull)
	roleRemote                  // a process of the other group, root is the root's rank there
)

func (c *comm) interRootRole(name string, root int) (interRole, error) {
	switch {
	case root == Root:
		return roleRoot, nil
	case root == core.ProcNull:
		return roleIdle, nil
	case root >= 0 && root < c.remote.Size():
		return roleRemote, nil
	}
	return 0, core.Errorf(core.ClassRoot, name, "root %d on an intercommunicator: the root passes Root, the rest of its group core.ProcNull, and the other group the root's rank in [0,%d) of its remote group", root, c.remote.Size())
}

func (c *comm) interBarrierSched(name string, nb bool) (*coll.Sched, error) {
	s, err := c.beginInter(interCall{op: name, kind: KBarrier, out: -1, in: -1, elem: -1, nb: nb}, 1)
	if err != nil {
		return nil, err
	}
	s.InterBarrier()
	return s, nil
}

func (c *comm) interBcastSched(name string, buf Vec, root int, nb bool) (*coll.Sched, error) {
	esz := buf.Esz
	role, err := c.interRootRole(name, root)
	if err != nil {
		return nil, err
	}
	s, err := c.beginInter(interCall{op: name, kind: KBcast, role: role, root: root, elem: int64(esz), out: ifRole(role, roleRoot, buf.N()), in: ifRole(role, roleRemote, buf.N()), nb: nb}, esz)
	if err != nil {
		return nil, err
	}
	switch role {
	case roleRoot:
		s.InterBcastSend(buf.B)
	case roleRemote:
		s.InterBcastRecv(buf.B, root)
	}
	return s, nil
}

func (c *comm) interReduceSched(name string, send, recv Vec, r Red, root int, nb bool) (*coll.Sched, error) {
	esz := send.Esz
	role, err := c.interRootRole(name, root)
	if err != nil {
		return nil, err
	}
	s, err := c.beginInter(interCall{op: name, kind: KReduce, role: role, root: root, elem: int64(esz), out: ifRole(role, roleRemote, send.N()), in: ifRole(role, roleRoot, recv.N()), nb: nb}, r.unit(esz))
	if err != nil {
		return nil, err
	}
	switch role {
	case roleRoot:
		s.InterReduceRecv(recv.B)
	case roleRemote:
		s.InterReduceSend(send.B, r.K, root)
	}
	return s, nil
}

func (c *comm) interAllreduceSched(name string, send, recv Vec, r Red, nb bool) (*coll.Sched, error) {
	esz := send.Esz
	s, err := c.beginInter(interCall{op: name, kind: KAllreduce, elem: int64(esz), out: int64(send.N()), in: int64(recv.N()), nb: nb}, r.unit(esz))
	if err != nil {
		return nil, err
	}
	s.InterAllreduce(send.B, recv.B, r.K)
	return s, nil
}

func (c *comm) interGatherSched(name string, send, recv Vec, root int, nb bool) (*coll.Sched, error) {
	esz := send.Esz
	role, err := c.interRootRole(name, root)
	if err != nil {
		return nil, err
	}
	m := c.remote.Size()
	s, err := c.beginInter(interCall{op: name, kind: KGather, role: role, root: root, elem: int64(esz), out: ifRole(role, roleRemote, send.N()), in: ifRole(role, roleRoot, recv.N()/m), nb: nb}, esz)
	if err != nil {
		return nil, err
	}
	switch role {
	case roleRoot:
		s.InterGatherRecv(recv.B)
	case roleRemote:
		s.InterGatherSend(send.B, root)
	}
	return s, nil
}

func (c *comm) interGathervSched(name string, send, recv Vec, counts, displs []int, root int, nb bool) (*coll.Sched, error) {
	s, role, err := c.beginInterV(name, KGatherv, root, recv, send, counts, displs, true, nb)
	if err != nil {
		return nil, err
	}
	switch role {
	case roleRoot:
		s.InterGathervRecv(recv.B, counts, displs)
	case roleRemote:
		s.InterGathervSend(send.B, root)
	}
	return s, nil
}

// beginInterV begins the schedule of an intercommunicator Gatherv or Scatterv: the
// root's counts and displs place the remote ranks' blocks in whole.
func (c *comm) beginInterV(name string, kind Kind, root int, whole, part Vec, counts, displs []int, gather, nb bool) (*coll.Sched, interRole, error) {
	role, err := c.interRootRole(name, root)
	if err != nil {
		return nil, 0, err
	}
	// The root's part buffer is not significant (an empty stand-in, whatever
	// datatype the caller gave): its counts are in elements of whole.
	esz := part.Esz
	if role == roleRoot {
		esz = whole.Esz
	}
	s, err := c.beginInter(interCall{op: name, kind: kind, role: role, root: root, elem: int64(esz), out: -1, in: -1, nb: nb}, esz)
	if err != nil {
		return nil, 0, err
	}
	if err := c.checkVPairs(name, s, c.remote.Size(), root, role == roleRoot, role == roleRemote, counts, part.N(), esz, gather); err != nil {
		return nil, 0, err
	}
	return s, role, nil
}

func (c *comm) interScatterSched(name string, send, recv Vec, root int, nb bool) (*coll.Sched, error) {
	esz := recv.Esz
	role, err := c.interRootRole(name, root)
	if err != nil {
		return nil, err
	}
	m := c.remote.Size()
	s, err := c.beginInter(interCall{op: name, kind: KScatter, role: role, root: root, elem: int64(esz), out: ifRole(role, roleRoot, send.N()/m), in: ifRole(role, roleRemote, recv.N()), nb: nb}, esz)
	if err != nil {
		return nil, err
	}
	switch role {
	case roleRoot:
		s.InterScatterSend(send.B)
	case roleRemote:
		s.InterScatterRecv(recv.B, root)
	}
	return s, nil
}

func (c *comm) interScattervSched(name string, send Vec, counts, displs []int, recv Vec, root int, nb bool) (*coll.Sched, error) {
	s, role, err := c.beginInterV(name, KScatterv, root, send, recv, counts, displs, false, nb)
	if err != nil {
		return nil, err
	}
	switch role {
	case roleRoot:
		s.InterScattervSend(send.B, counts, displs)
	case roleRemote:
		s.InterScattervRecv(recv.B, root)
	}
	return s, nil
}

func (c *comm) interAllgatherSched(name string, send, recv Vec, nb bool) (*coll.Sched, error) {
	esz := send.Esz
	m := c.remote.Size()
	s, err := c.beginInter(interCall{op: name, kind: KAllgather, elem: int64(esz), out: int64(send.N()), in: int64(recv.N() / m), nb: nb}, esz)
	if err != nil {
		return nil, err
	}
	s.InterAllgather(send.B, recv.B)
	return s, nil
}

func (c *comm) interAllgathervSched(name string, send, recv Vec, counts, displs []int, nb bool) (*coll.Sched, error) {
	esz := send.Esz
	s, err := c.beginInter(interCall{op: name, kind: KAllgatherv, elem: int64(esz), out: -1, in: -1, nb: nb}, esz)
	if err != nil {
		return nil, err
	}
	if c.check {
		if err := c.checkPairs(name, s, blocksOf(len(counts), send.N()*esz), bytesOf(counts, esz)); err != nil {
			return nil, err
		}
	}
	s.InterAllgatherv(send.B, recv.B, counts, displs)
	return s, nil
}

func (c *comm) interAlltoallSched(name string, send, recv Vec, nb bool) (*coll.Sched, error) {
	esz := send.Esz
	m := c.remote.Size()
	s, err := c.beginInter(interCall{op: name, kind: KAlltoall, elem: int64(esz), out: int64(send.N() / m), in: int64(recv.N() / m), nb: nb}, esz)
	if err != nil {
		return nil, err
	}
	s.InterAlltoall(send.B, recv.B, m)
	return s, nil
}

func (c *comm) interAlltoallvSched(name string, send Vec, scounts, sdispls []int, recv Vec, rcounts, rdispls []int, nb bool) (*coll.Sched, error) {
	esz := send.Esz
	s, err := c.beginInter(interCall{op: name, kind: KAlltoallv, elem: int64(esz), out: -1, in: -1, nb: nb}, esz)
	if err != nil {
		return nil, err
	}
	if c.check {
		if err := c.checkPairs(name, s, bytesOf(scounts, esz), bytesOf(rcounts, esz)); err != nil {
			return nil, err
		}
	}
	s.InterAlltoallv(send.B, scounts, sdispls, recv.B, rcounts, rdispls)
	return s, nil
}

func (c *comm) interReduceScatterBlockSched(name string, send, recv Vec, r Red, nb bool) (*coll.Sched, error) {
	esz := send.Esz
	s, err := c.beginInter(interCall{op: name, kind: KReduceScatterBlock, elem: int64(esz), out: int64(send.N()), in: int64(send.N()), nb: nb}, esz)
	if err != nil {
		return nil, err
	}
	s.InterReduceScatterBlock(send.B, recv.B, r.K)
	return s, nil
}

func (c *comm) interReduceScatterSched(name string, send, recv Vec, counts []int, r Red, nb bool) (*coll.Sched, error) {
	esz := send.Esz
	total := countsTotal(counts)
	s, err := c.beginInter(interCall{op: name, kind: KReduceScatter, elem: int64(esz), out: int64(total), in: int64(total), nb: nb}, esz)
	if err != nil {
		return nil, err
	}
	s.InterReduceScatter(send.B, recv.B, counts, r.K)
	return s, nil
}
