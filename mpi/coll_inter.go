package mpi

import (
	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/p2p"
)

// Collectives on intercommunicators (MPI 4.1, chapter 6). An intercommunicator joins
// two disjoint groups; its collectives move data from one group to the other. The
// rooted ones follow the standard's root convention: in the group holding the root,
// the root passes Root and every other process ProcNull; the processes of the other
// group pass the root's rank in the root's group (their remote group). Allreduce,
// Allgather(v), Alltoall(v,w) and ReduceScatter(Block) give each group the result
// computed from the OTHER group's data. Scan and Exscan are not defined on
// intercommunicators, and none of these takes InPlace.
//
// Each is one schedule of internal/coll (its Inter* builders): collectives on the
// local group plus exchanges with the remote group, through the groups' leaders (local
// rank 0) or straight between the processes. So the blocking and the nonblocking forms
// are the same schedule, and the nonblocking one progresses on coll_nb.go's progress
// goroutine like any other. A schedule runs on the intercommunicator's collective
// context with one tag per call, numbered by the intercommunicator's collective
// sequence (which both groups advance in the same order): the local phases and the
// exchanges of one call cannot match each other's receives (the groups are disjoint),
// and calls in flight at the same time cannot match each other's either.

// Root is what the root passes as root to a rooted collective on an intercommunicator
// (MPI_ROOT); the other processes of its group pass ProcNull.
const Root = -3

// Tags of the intercommunicator collectives on the collective context: one per call,
// numbered by the intercommunicator's collective sequence.
const (
	tagInterColl    = tagManage + 1<<29
	tagInterCheck   = tagInterColl + 1<<25 // + seq: coll_check's exchange
	tagInterSeqMask = 1<<24 - 1
)

// interConn is coll.Conn over both groups of an intercommunicator: peers 0..size-1
// are the local group, size+j is rank j of the remote group (internal/coll/inter.go).
// It is a single pointer, so making one per call costs nothing.
type interConn struct{ c *Comm }

func (k interConn) Rank() int { return k.c.rank }
func (k interConn) Size() int { return k.c.size }

func (k interConn) world(p int) int {
	if p < k.c.size {
		return int(k.c.group.WorldRank(p))
	}
	return int(k.c.remote.WorldRank(p - k.c.size))
}

func (k interConn) Isend(b []byte, dest, tag int) (coll.Req, error) {
	q, err := eng.Isend(p2p.Bytes(b), k.world(dest), tag, k.c.ctx+1, p2p.Standard)
	return coll.Req{Q: q}, err
}

func (k interConn) Send(b []byte, dest, tag int) error {
	return eng.Send(p2p.Bytes(b), k.world(dest), tag, k.c.ctx+1, p2p.Standard)
}

func (k interConn) Recv(b []byte, src, tag int) error {
	_, err := eng.Recv(p2p.Bytes(b), k.world(src), tag, k.c.ctx+1)
	return err
}

func (k interConn) Irecv(b []byte, src, tag int) (coll.Req, error) {
	q, err := eng.Irecv(p2p.Bytes(b), k.world(src), tag, k.c.ctx+1)
	return coll.Req{Q: q}, err
}

func (k interConn) Wait(q *coll.Req) error {
	_, err := eng.Wait(&q.Q)
	return err
}

func (k interConn) Test(q *coll.Req) (bool, error) {
	_, ok, err := eng.Test(&q.Q)
	return ok, err
}

// beginInter checks c and returns an empty schedule for the call with its tag; with
// coll_check on it first verifies that the processes of both groups make matching
// calls.
func beginInter(c *Comm, cl interCall, esize int) (*coll.Sched, error) {
	if err := c.usable(cl.op); err != nil {
		return nil, err
	}
	if _, err := coll.Tune(); err != nil {
		return nil, errorf(ClassArg, cl.op, "%v", err)
	}
	st := c.coll()
	seq := int(st.seq.Add(1)-1) & tagInterSeqMask
	if coll.Checking() {
		if err := verifyInter(c, tagInterCheck+seq, cl); err != nil {
			return nil, err
		}
	}
	return coll.New(interConn{c}, tagInterColl+seq, esize), nil
}

// runInter runs a blocking intercommunicator collective's schedule.
func runInter(name string, s *coll.Sched, err error) error {
	if err != nil {
		return err
	}
	return run(name, s)
}

// interRole is what a process's root argument makes it in a rooted collective.
type interRole int

const (
	roleNone   interRole = iota // a collective without a root
	roleRoot                    // the root (Root)
	roleIdle                    // another process of the root's group (ProcNull)
	roleRemote                  // a process of the other group, root is the root's rank there
)

func interRootRole(name string, c *Comm, root int) (interRole, error) {
	switch {
	case root == Root:
		return roleRoot, nil
	case root == ProcNull:
		return roleIdle, nil
	case root >= 0 && root < c.remote.Size():
		return roleRemote, nil
	}
	return 0, errorf(ClassRoot, name, "root %d on an intercommunicator: the root passes Root, the rest of its group ProcNull, and the other group the root's rank in [0,%d) of its remote group", root, c.remote.Size())
}

func noInPlaceInter[T Elem](name, arg string, b []T) error {
	if isInPlace(b) {
		return errorf(ClassBuffer, name, "%s is InPlace, which intercommunicator collectives do not take", arg)
	}
	return nil
}

func interBarrierSched(name string, c *Comm, nb bool) (*coll.Sched, error) {
	s, err := beginInter(c, interCall{op: name, kind: kBarrier, out: -1, in: -1, elem: -1, nb: nb}, 1)
	if err != nil {
		return nil, err
	}
	s.InterBarrier()
	return s, nil
}

func interBarrier(c *Comm) error {
	s, err := interBarrierSched("Barrier", c, false)
	return runInter("Barrier", s, err)
}

func interBcastSched[T Elem](name string, c *Comm, buf []T, root int, nb bool) (*coll.Sched, error) {
	role, err := interRootRole(name, c, root)
	if err != nil {
		return nil, err
	}
	if role == roleRemote {
		if err := noInPlaceInter(name, "buf", buf); err != nil {
			return nil, err
		}
	}
	s, err := beginInter(c, interCall{op: name, kind: kBcast, role: role, root: root, elem: int64(esize[T]()), out: ifRole(role, roleRoot, len(buf)), in: ifRole(role, roleRemote, len(buf)), nb: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	switch role {
	case roleRoot:
		s.InterBcastSend(asBytes(buf))
	case roleRemote:
		s.InterBcastRecv(asBytes(buf), root)
	}
	return s, nil
}

func interBcast[T Elem](c *Comm, buf []T, root int) error {
	s, err := interBcastSched("Bcast", c, buf, root, false)
	return runInter("Bcast", s, err)
}

func interReduceSched[T Elem](name string, c *Comm, send, recv []T, op Op, root int, nb bool) (*coll.Sched, error) {
	role, err := interRootRole(name, c, root)
	if err != nil {
		return nil, err
	}
	k, err := kernel[T](name, op)
	if err != nil {
		return nil, err
	}
	if role == roleRemote {
		if err := noInPlaceInter(name, "send", send); err != nil {
			return nil, err
		}
		if err := pairs(name, op, len(send)); err != nil {
			return nil, err
		}
	}
	s, err := beginInter(c, interCall{op: name, kind: kReduce, role: role, root: root, elem: int64(esize[T]()), out: ifRole(role, roleRemote, len(send)), in: ifRole(role, roleRoot, len(recv)), nb: nb}, opEsize[T](op))
	if err != nil {
		return nil, err
	}
	switch role {
	case roleRoot:
		s.InterReduceRecv(asBytes(recv))
	case roleRemote:
		s.InterReduceSend(asBytes(send), k, root)
	}
	return s, nil
}

func interReduce[T Elem](c *Comm, send, recv []T, op Op, root int) error {
	s, err := interReduceSched("Reduce", c, send, recv, op, root, false)
	return runInter("Reduce", s, err)
}

func interAllreduceSched[T Elem](name string, c *Comm, send, recv []T, op Op, nb bool) (*coll.Sched, error) {
	k, err := kernel[T](name, op)
	if err != nil {
		return nil, err
	}
	if err := noInPlaceInter(name, "send", send); err != nil {
		return nil, err
	}
	if len(send) != len(recv) {
		return nil, errorf(ClassCount, name, "len(send) %d != len(recv) %d", len(send), len(recv))
	}
	if err := pairs(name, op, len(send)); err != nil {
		return nil, err
	}
	s, err := beginInter(c, interCall{op: name, kind: kAllreduce, elem: int64(esize[T]()), out: int64(len(send)), in: int64(len(recv)), nb: nb}, opEsize[T](op))
	if err != nil {
		return nil, err
	}
	s.InterAllreduce(asBytes(send), asBytes(recv), k)
	return s, nil
}

func interAllreduce[T Elem](c *Comm, send, recv []T, op Op) error {
	s, err := interAllreduceSched("Allreduce", c, send, recv, op, false)
	return runInter("Allreduce", s, err)
}

func interGatherSched[T Elem](name string, c *Comm, send, recv []T, root int, nb bool) (*coll.Sched, error) {
	role, err := interRootRole(name, c, root)
	if err != nil {
		return nil, err
	}
	m := c.remote.Size()
	switch role {
	case roleRoot:
		if len(recv)%m != 0 {
			return nil, errorf(ClassCount, name, "len(recv) %d at the root is not a multiple of the remote group's size %d", len(recv), m)
		}
	case roleRemote:
		if err := noInPlaceInter(name, "send", send); err != nil {
			return nil, err
		}
	}
	s, err := beginInter(c, interCall{op: name, kind: kGather, role: role, root: root, elem: int64(esize[T]()), out: ifRole(role, roleRemote, len(send)), in: ifRole(role, roleRoot, len(recv)/m), nb: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	switch role {
	case roleRoot:
		s.InterGatherRecv(asBytes(recv))
	case roleRemote:
		s.InterGatherSend(asBytes(send), root)
	}
	return s, nil
}

func interGather[T Elem](c *Comm, send, recv []T, root int) error {
	s, err := interGatherSched("Gather", c, send, recv, root, false)
	return runInter("Gather", s, err)
}

func interGathervSched[T Elem](name string, c *Comm, send, recv []T, counts, displs []int, root int, nb bool) (*coll.Sched, error) {
	s, role, err := beginInterV(name, c, kGatherv, root, recv, send, counts, displs, "send", true, nb)
	if err != nil {
		return nil, err
	}
	switch role {
	case roleRoot:
		s.InterGathervRecv(asBytes(recv), counts, displs)
	case roleRemote:
		s.InterGathervSend(asBytes(send), root)
	}
	return s, nil
}

// beginInterV checks the arguments of an intercommunicator Gatherv or Scatterv and
// begins its schedule: the root's counts and displs place the remote ranks' blocks in
// whole; a remote rank's part (partName) may not be InPlace.
func beginInterV[T Elem](name string, c *Comm, kind collKind, root int, whole, part []T, counts, displs []int, partName string, gather, nb bool) (*coll.Sched, interRole, error) {
	role, err := interRootRole(name, c, root)
	if err != nil {
		return nil, 0, err
	}
	switch role {
	case roleRoot:
		if err := checkV(name, "", c.remote.Size(), counts, displs, len(whole)); err != nil {
			return nil, 0, err
		}
	case roleRemote:
		if err := noInPlaceInter(name, partName, part); err != nil {
			return nil, 0, err
		}
	}
	s, err := beginInter(c, interCall{op: name, kind: kind, role: role, root: root, elem: int64(esize[T]()), out: -1, in: -1, nb: nb}, esize[T]())
	if err != nil {
		return nil, 0, err
	}
	if err := checkVPairs(name, c, s, c.remote.Size(), root, role == roleRoot, role == roleRemote, counts, len(part), esize[T](), gather); err != nil {
		return nil, 0, err
	}
	return s, role, nil
}

func interGatherv[T Elem](c *Comm, send, recv []T, counts, displs []int, root int) error {
	s, err := interGathervSched("Gatherv", c, send, recv, counts, displs, root, false)
	return runInter("Gatherv", s, err)
}

func interScatterSched[T Elem](name string, c *Comm, send, recv []T, root int, nb bool) (*coll.Sched, error) {
	role, err := interRootRole(name, c, root)
	if err != nil {
		return nil, err
	}
	m := c.remote.Size()
	switch role {
	case roleRoot:
		if len(send)%m != 0 {
			return nil, errorf(ClassCount, name, "len(send) %d at the root is not a multiple of the remote group's size %d", len(send), m)
		}
	case roleRemote:
		if err := noInPlaceInter(name, "recv", recv); err != nil {
			return nil, err
		}
	}
	s, err := beginInter(c, interCall{op: name, kind: kScatter, role: role, root: root, elem: int64(esize[T]()), out: ifRole(role, roleRoot, len(send)/m), in: ifRole(role, roleRemote, len(recv)), nb: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	switch role {
	case roleRoot:
		s.InterScatterSend(asBytes(send))
	case roleRemote:
		s.InterScatterRecv(asBytes(recv), root)
	}
	return s, nil
}

func interScatter[T Elem](c *Comm, send, recv []T, root int) error {
	s, err := interScatterSched("Scatter", c, send, recv, root, false)
	return runInter("Scatter", s, err)
}

func interScattervSched[T Elem](name string, c *Comm, send []T, counts, displs []int, recv []T, root int, nb bool) (*coll.Sched, error) {
	s, role, err := beginInterV(name, c, kScatterv, root, send, recv, counts, displs, "recv", false, nb)
	if err != nil {
		return nil, err
	}
	switch role {
	case roleRoot:
		s.InterScattervSend(asBytes(send), counts, displs)
	case roleRemote:
		s.InterScattervRecv(asBytes(recv), root)
	}
	return s, nil
}

func interScatterv[T Elem](c *Comm, send []T, counts, displs []int, recv []T, root int) error {
	s, err := interScattervSched("Scatterv", c, send, counts, displs, recv, root, false)
	return runInter("Scatterv", s, err)
}

func interAllgatherSched[T Elem](name string, c *Comm, send, recv []T, nb bool) (*coll.Sched, error) {
	if err := noInPlaceInter(name, "send", send); err != nil {
		return nil, err
	}
	m := c.remote.Size()
	if len(recv)%m != 0 {
		return nil, errorf(ClassCount, name, "len(recv) %d is not a multiple of the remote group's size %d", len(recv), m)
	}
	s, err := beginInter(c, interCall{op: name, kind: kAllgather, elem: int64(esize[T]()), out: int64(len(send)), in: int64(len(recv) / m), nb: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	s.InterAllgather(asBytes(send), asBytes(recv))
	return s, nil
}

func interAllgather[T Elem](c *Comm, send, recv []T) error {
	s, err := interAllgatherSched("Allgather", c, send, recv, false)
	return runInter("Allgather", s, err)
}

func interAllgathervSched[T Elem](name string, c *Comm, send, recv []T, counts, displs []int, nb bool) (*coll.Sched, error) {
	if err := noInPlaceInter(name, "send", send); err != nil {
		return nil, err
	}
	if err := checkV(name, "", c.remote.Size(), counts, displs, len(recv)); err != nil {
		return nil, err
	}
	s, err := beginInter(c, interCall{op: name, kind: kAllgatherv, elem: int64(esize[T]()), out: -1, in: -1, nb: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	if coll.Checking() {
		if err := checkPairs(name, c, s, blocksOf(len(counts), len(send)*esize[T]()), bytesOf(counts, esize[T]())); err != nil {
			return nil, err
		}
	}
	s.InterAllgatherv(asBytes(send), asBytes(recv), counts, displs)
	return s, nil
}

func interAllgatherv[T Elem](c *Comm, send, recv []T, counts, displs []int) error {
	s, err := interAllgathervSched("Allgatherv", c, send, recv, counts, displs, false)
	return runInter("Allgatherv", s, err)
}

func interAlltoallSched[T Elem](name string, c *Comm, send, recv []T, nb bool) (*coll.Sched, error) {
	if err := noInPlaceInter(name, "send", send); err != nil {
		return nil, err
	}
	m := c.remote.Size()
	if len(send)%m != 0 || len(recv)%m != 0 {
		return nil, errorf(ClassCount, name, "len(send) %d and len(recv) %d must be multiples of the remote group's size %d", len(send), len(recv), m)
	}
	s, err := beginInter(c, interCall{op: name, kind: kAlltoall, elem: int64(esize[T]()), out: int64(len(send) / m), in: int64(len(recv) / m), nb: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	s.InterAlltoall(asBytes(send), asBytes(recv), m)
	return s, nil
}

func interAlltoall[T Elem](c *Comm, send, recv []T) error {
	s, err := interAlltoallSched("Alltoall", c, send, recv, false)
	return runInter("Alltoall", s, err)
}

func interAlltoallvSched[T Elem](name string, c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int, nb bool) (*coll.Sched, error) {
	if err := noInPlaceInter(name, "send", send); err != nil {
		return nil, err
	}
	m := c.remote.Size()
	if err := checkV(name, "s", m, scounts, sdispls, len(send)); err != nil {
		return nil, err
	}
	if err := checkV(name, "r", m, rcounts, rdispls, len(recv)); err != nil {
		return nil, err
	}
	s, err := beginInter(c, interCall{op: name, kind: kAlltoallv, elem: int64(esize[T]()), out: -1, in: -1, nb: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	if coll.Checking() {
		if err := checkPairs(name, c, s, bytesOf(scounts, esize[T]()), bytesOf(rcounts, esize[T]())); err != nil {
			return nil, err
		}
	}
	s.InterAlltoallv(asBytes(send), scounts, sdispls, asBytes(recv), rcounts, rdispls)
	return s, nil
}

func interAlltoallv[T Elem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) error {
	s, err := interAlltoallvSched("Alltoallv", c, send, scounts, sdispls, recv, rcounts, rdispls, false)
	return runInter("Alltoallv", s, err)
}

func interReduceScatterBlockSched[T Elem](name string, c *Comm, send, recv []T, op Op, nb bool) (*coll.Sched, error) {
	k, err := kernel[T](name, op)
	if err != nil {
		return nil, err
	}
	if err := noInPlaceInter(name, "send", send); err != nil {
		return nil, err
	}
	if len(send) != c.size*len(recv) {
		return nil, errorf(ClassCount, name, "len(send) %d != local group size %d × len(recv) %d", len(send), c.size, len(recv))
	}
	if err := pairs(name, op, len(recv)); err != nil {
		return nil, err
	}
	s, err := beginInter(c, interCall{op: name, kind: kReduceScatterBlock, elem: int64(esize[T]()), out: int64(len(send)), in: int64(len(send)), nb: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	s.InterReduceScatterBlock(asBytes(send), asBytes(recv), k)
	return s, nil
}

func interReduceScatterBlock[T Elem](c *Comm, send, recv []T, op Op) error {
	s, err := interReduceScatterBlockSched("ReduceScatterBlock", c, send, recv, op, false)
	return runInter("ReduceScatterBlock", s, err)
}

func interReduceScatterSched[T Elem](name string, c *Comm, send, recv []T, counts []int, op Op, nb bool) (*coll.Sched, error) {
	k, err := kernel[T](name, op)
	if err != nil {
		return nil, err
	}
	if err := noInPlaceInter(name, "send", send); err != nil {
		return nil, err
	}
	total, err := countsTotal(name, op, counts, c.size, "the local group's size")
	if err != nil {
		return nil, err
	}
	if len(recv) != counts[c.rank] {
		return nil, errorf(ClassCount, name, "len(recv) %d != counts[%d] %d", len(recv), c.rank, counts[c.rank])
	}
	if len(send) != total {
		return nil, errorf(ClassCount, name, "len(send) %d != sum(counts) %d", len(send), total)
	}
	s, err := beginInter(c, interCall{op: name, kind: kReduceScatter, elem: int64(esize[T]()), out: int64(total), in: int64(total), nb: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	s.InterReduceScatter(asBytes(send), asBytes(recv), counts, k)
	return s, nil
}

func interReduceScatter[T Elem](c *Comm, send, recv []T, counts []int, op Op) error {
	s, err := interReduceScatterSched("ReduceScatter", c, send, recv, counts, op, false)
	return runInter("ReduceScatter", s, err)
}
