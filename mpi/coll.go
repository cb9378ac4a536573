package mpi

import (
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/p2p"
)

// Collectives run as schedules of internal/coll over the communicator's collective
// context (ctx+1). Each call takes the next number of the communicator's collective
// sequence as its tag: ranks call collectives on a communicator in the same order, so
// they agree on it, and the messages of collectives in flight at the same time
// (nonblocking ones) can never match each other's receives. Tags stay below tagManage,
// which communicator management uses on the same context.
const (
	tagSeqMask = 1<<29 - 1
	tagCheck   = 1 << 29 // + seq: the coll_check exchange that precedes a collective
)

// InPlace returns the in-place marker (MPI_IN_PLACE): passed as the send buffer of a
// collective, it says the rank's input is already in the receive buffer, where the
// collective documents it to be (e.g. Allreduce: all of recv; Gather at the root: its own
// block of recv). It is an empty slice at a reserved address, so it is never mistaken
// for a real buffer, and code that ignores it reads nothing.
func InPlace[T Elem]() []T {
	return unsafe.Slice((*T)(unsafe.Pointer(&inPlaceMem)), 0)
}

var inPlaceMem [2]uint64 // aligned for every Elem

func isInPlace[T Elem](b []T) bool {
	return cap(b) == 0 && unsafe.Pointer(unsafe.SliceData(b)) == unsafe.Pointer(&inPlaceMem)
}

// collState is a communicator's collective state: its sequence counter and its Conn.
type collState struct {
	seq  atomic.Uint32
	conn collConn

	node *nodeColl // node-local shared-memory collectives (coll_node.go), made on first use
}

// coll returns c's collective state, made on first use (after the communicator's
// context is final, also for one made by Idup).
func (c *Comm) coll() *collState {
	c.collOnce.Do(func() { c.cs = &collState{conn: collConn{c: c, ctx: c.ctx + 1}} })
	return c.cs
}

// collConn is coll.Conn over the engine, on c's collective context.
type collConn struct {
	c   *Comm
	ctx uint32
}

func (k *collConn) Rank() int { return k.c.rank }
func (k *collConn) Size() int { return k.c.size }

func (k *collConn) Isend(b []byte, dest, tag int) (coll.Req, error) {
	q, err := eng.Isend(p2p.Bytes(b), k.c.worldRank(dest), tag, k.ctx, p2p.Standard)
	return coll.Req{Q: q}, err
}

func (k *collConn) Send(b []byte, dest, tag int) error {
	return eng.Send(p2p.Bytes(b), k.c.worldRank(dest), tag, k.ctx, p2p.Standard)
}

func (k *collConn) Recv(b []byte, src, tag int) error {
	_, err := eng.Recv(p2p.Bytes(b), k.c.worldRank(src), tag, k.ctx)
	return err
}

func (k *collConn) Irecv(b []byte, src, tag int) (coll.Req, error) {
	q, err := eng.Irecv(p2p.Bytes(b), k.c.worldRank(src), tag, k.ctx)
	return coll.Req{Q: q}, err
}

func (k *collConn) Wait(q *coll.Req) error {
	_, err := eng.Wait(&q.Q)
	return err
}

func (k *collConn) Test(q *coll.Req) (bool, error) {
	_, ok, err := eng.Test(&q.Q)
	return ok, err
}

// collKind names a collective in coll_check's exchange.
type collKind int64

const (
	kBarrier collKind = iota + 1
	kBcast
	kReduce
	kAllreduce
	kGather
	kGatherv
	kScatter
	kScatterv
	kAllgather
	kAllgatherv
	kAlltoall
	kAlltoallv
	kAlltoallw
	kReduceScatter
	kReduceScatterBlock
	kScan
	kExscan
)

var kindNames = map[collKind]string{kBarrier: "Barrier", kBcast: "Bcast", kReduce: "Reduce",
	kAllreduce: "Allreduce", kGather: "Gather", kGatherv: "Gatherv", kScatter: "Scatter",
	kScatterv: "Scatterv", kAllgather: "Allgather", kAllgatherv: "Allgatherv", kAlltoall: "Alltoall",
	kAlltoallv: "Alltoallv", kAlltoallw: "Alltoallw", kReduceScatter: "ReduceScatter", kReduceScatterBlock: "ReduceScatterBlock",
	kScan: "Scan", kExscan: "Exscan"}

// noRoot is call.root for collectives without one.
const noRoot = -1 << 31

// call describes one collective call for coll_check: what it is, its root
// (noRoot: none) and a size every rank must agree on (-1: none to compare).
type call struct {
	op          string
	kind        collKind
	root        int
	size        int64
	elem        int64
	nonblocking bool
}

// begin checks that c can run a collective and returns a schedule for it with the
// next tag; with coll_check on it first verifies that every rank makes the same call.
func begin(c *Comm, cl call, esize int) (*coll.Sched, error) {
	if err := admit(c, cl); err != nil {
		return nil, err
	}
	if _, err := coll.Tune(); err != nil {
		return nil, errorf(ClassArg, cl.op, "%v", err)
	}
	st := c.coll()
	seq := int(st.seq.Add(1)-1) & tagSeqMask
	if coll.Checking() {
		if err := verify(c, st, seq, cl); err != nil {
			return nil, err
		}
	}
	return coll.New(&st.conn, seq, esize), nil
}

// admit checks that c can run the collective cl on an intracommunicator: c usable,
// not an intercommunicator (every collective defined there goes to coll_inter.go
// first), the root in range.
func admit(c *Comm, cl call) error {
	if err := c.usable(cl.op); err != nil {
		return err
	}
	if c.remote != nil {
		return errorf(ClassComm, cl.op, "%s is not defined on intercommunicators (MPI defines Scan and Exscan on intracommunicators only)", cl.op)
	}
	if cl.root != noRoot && (cl.root < 0 || cl.root >= c.size) {
		return errorf(ClassRoot, cl.op, "root %d out of range [0,%d)", cl.root, c.size)
	}
	return nil
}

// verify is coll_check: an allgather of every rank's call description, compared here.
func verify(c *Comm, st *collState, seq int, cl call) error {
	me := [5]int64{int64(cl.kind), int64(cl.root), cl.size, cl.elem, 0}
	if cl.nonblocking {
		me[4] = 1
	}
	all := make([]int64, 5*c.size)
	s := coll.New(&st.conn, tagCheck+seq, 8)
	s.Allgather(asBytes(me[:]), asBytes(all))
	err := s.Run()
	s.Free()
	if err != nil {
		return mapErr(cl.op, err)
	}
	for r := 0; r < c.size; r++ {
		o := all[5*r : 5*r+5]
		switch {
		case collKind(o[0]) != cl.kind:
			return errorf(ClassArg, cl.op, "coll_check: rank %d called %s while rank %d called %s", r, kindNames[collKind(o[0])], c.rank, cl.op)
		case o[1] != me[1]:
			return errorf(ClassRoot, cl.op, "coll_check: rank %d gave root %d, rank %d root %d", r, o[1], c.rank, me[1])
		case o[3] != me[3]:
			return errorf(ClassType, cl.op, "coll_check: rank %d has elements of %d bytes, rank %d of %d", r, o[3], c.rank, me[3])
		case o[4] != me[4]:
			return errorf(ClassArg, cl.op, "coll_check: rank %d called the %s form, rank %d the %s one (they do not match)", r, form(o[4]), c.rank, form(me[4]))
		case o[2] != me[2] && o[2] >= 0 && me[2] >= 0:
			return errorf(ClassCount, cl.op, "coll_check: rank %d has %d elements, rank %d has %d", r, o[2], c.rank, me[2])
		}
	}
	return nil
}

func form(nb int64) string {
	if nb != 0 {
		return "nonblocking"
	}
	return "blocking"
}

// run runs a blocking collective's schedule and releases it.
func run(op string, s *coll.Sched) error {
	err := s.Run()
	s.Free()
	return mapErr(op, err)
}

func esize[T Elem]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// Barrier returns once every rank of c has called it (on one node: flags in shared
// memory; otherwise dissemination: ceil(log2 n) rounds of empty messages).
func (c *Comm) Barrier() error {
	if c != nil && c.remote != nil {
		return interBarrier(c)
	}
	if g, err := nodeGroup(c, call{op: "Barrier", kind: kBarrier, root: noRoot}, 0, 0); err != nil {
		return err
	} else if g != nil {
		return mapErr("Barrier", g.Barrier())
	}
	if h, err := hierGroup(c, call{op: "Barrier", kind: kBarrier, root: noRoot}, 0, 0, true); err != nil || h != nil {
		if err != nil {
			return err
		}
		return hierBarrier(h)
	}
	s, err := begin(c, call{op: "Barrier", kind: kBarrier, root: noRoot}, 1)
	if err != nil {
		return err
	}
	s.Barrier()
	return run("Barrier", s)
}

// Bcast sends root's buf to every rank's buf; every rank passes a buf of the same length.
func Bcast[T Elem](c *Comm, buf []T, root int) error {
	if c != nil && c.remote != nil {
		return interBcast(c, buf, root)
	}
	s, err := bcast("Bcast", c, buf, root, false)
	if err != nil || s == nil {
		return err
	}
	return run("Bcast", s)
}

// bcast returns the schedule of a Bcast, or nil when a blocking one has run through
// the node's shared memory.
func bcast[T Elem](op string, c *Comm, buf []T, root int, nb bool) (*coll.Sched, error) {
	cl := call{op: op, kind: kBcast, root: root, size: int64(len(buf)), elem: int64(esize[T]()), nonblocking: nb}
	if !nb {
		if g, err := nodeGroup(c, cl, int64(len(buf)*esize[T]()), bcastMax(c)); err != nil {
			return nil, err
		} else if g != nil {
			return nil, mapErr(op, g.Bcast(asBytes(buf), root))
		}
		if h, err := hierGroup(c, cl, int64(len(buf)*esize[T]()), bcastMax(c), true); err != nil || h != nil {
			if err != nil {
				return nil, err
			}
			return nil, hierBcast(h, c, buf, root)
		}
	}
	s, err := begin(c, cl, esize[T]())
	if err != nil {
		return nil, err
	}
	s.Bcast(asBytes(buf), root)
	return s, nil
}

// Reduce combines every rank's send with op, in rank order, into root's recv, which is
// as long as send (recv is ignored on the other ranks). In place at root: send is
// InPlace[T]() and root's input is in recv.
func Reduce[T Elem](c *Comm, send, recv []T, op Op, root int) error {
	if c != nil && c.remote != nil {
		return interReduce(c, send, recv, op, root)
	}
	s, err := reduce("Reduce", c, send, recv, op, root, false)
	if err != nil || s == nil {
		return err
	}
	return run("Reduce", s)
}

func reduce[T Elem](name string, c *Comm, send, recv []T, op Op, root int, nb bool) (*coll.Sched, error) {
	k, err := kernel[T](name, op)
	if err != nil {
		return nil, err
	}
	if c != nil && c.rank == root {
		if isInPlace(send) {
			send = recv
		}
		if len(send) != len(recv) {
			return nil, errorf(ClassCount, name, "len(send) %d != len(recv) %d at the root", len(send), len(recv))
		}
	} else if isInPlace(send) {
		return nil, errorf(ClassBuffer, name, "InPlace is for the root only")
	}
	if err := pairs(name, op, len(send)); err != nil {
		return nil, err
	}
	cl := call{op: name, kind: kReduce, root: root, size: int64(len(send)), elem: int64(esize[T]()), nonblocking: nb}
	if !nb {
		if g, err := nodeGroup(c, cl, int64(len(send)*esize[T]()), reduceLimit(c, op)); err != nil {
			return nil, err
		} else if g != nil {
			return nil, mapErr(name, g.Reduce(asBytes(send), asBytes(recv), esize[T](), k.Fn, root))
		}
		if h, err := hierGroup(c, cl, int64(len(send)*esize[T]()), reduceMax(c), k.Commute); err != nil || h != nil {
			if err != nil {
				return nil, err
			}
			return nil, hierReduce(h, c, send, recv, op, root)
		}
	}
	s, err := begin(c, cl, opEsize[T](op))
	if err != nil {
		return nil, err
	}
	s.Reduce(asBytes(send), asBytes(recv), k, root)
	return s, nil
}

// opEsize is the unit a reduction's schedule may split its buffers at: an element, or
// for Maxloc and Minloc a (value, index) pair, which the kernel must see whole.
func opEsize[T Elem](op Op) int {
	if (op.code == opMaxloc || op.code == opMinloc) && op.user == nil {
		return 2 * esize[T]()
	}
	return esize[T]()
}

// countsTotal checks ReduceScatter's counts, one per rank of a group of size n (named
// group in the error): none negative, whole (value, index) pairs for Maxloc and Minloc.
// It returns their sum.
func countsTotal(name string, op Op, counts []int, n int, group string) (int, error) {
	if len(counts) != n {
		return 0, errorf(ClassCount, name, "len(counts) %d != %s %d", len(counts), group, n)
	}
	total := 0
	for i, k := range counts {
		if k < 0 {
			return 0, errorf(ClassCount, name, "counts[%d] %d is negative", i, k)
		}
		if err := pairs(name, op, k); err != nil {
			return 0, err
		}
		total += k
	}
	return total, nil
}

func pairs(name string, op Op, n int) error {
	if (op.code == opMaxloc || op.code == opMinloc) && op.user == nil && n%2 != 0 {
		return errorf(ClassCount, name, "%v takes (value, index) pairs: the buffer's length %d is odd", op, n)
	}
	return nil
}

// Allreduce combines every rank's send with op into every rank's recv (as long as
// send). In place: send is InPlace[T]() and the input is in recv.
func Allreduce[T Elem](c *Comm, send, recv []T, op Op) error {
	if c != nil && c.remote != nil {
		return interAllreduce(c, send, recv, op)
	}
	s, err := allreduce("Allreduce", c, send, recv, op, false)
	if err != nil || s == nil {
		return err
	}
	return run("Allreduce", s)
}

func allreduce[T Elem](name string, c *Comm, send, recv []T, op Op, nb bool) (*coll.Sched, error) {
	k, err := kernel[T](name, op)
	if err != nil {
		return nil, err
	}
	if isInPlace(send) {
		send = recv
	}
	if len(send) != len(recv) {
		return nil, errorf(ClassCount, name, "len(send) %d != len(recv) %d", len(send), len(recv))
	}
	if err := pairs(name, op, len(send)); err != nil {
		return nil, err
	}
	cl := call{op: name, kind: kAllreduce, root: noRoot, size: int64(len(recv)), elem: int64(esize[T]()), nonblocking: nb}
	if !nb {
		if g, err := nodeGroup(c, cl, int64(len(recv)*esize[T]()), reduceLimit(c, op)); err != nil {
			return nil, err
		} else if g != nil {
			return nil, mapErr(name, nodeAllreduce(g, asBytes(send), asBytes(recv), esize[T](), op, k.Fn))
		}
		if h, err := hierGroup(c, cl, int64(len(recv)*esize[T]()), reduceMax(c), k.Commute); err != nil || h != nil {
			if err != nil {
				return nil, err
			}
			return nil, hierAllreduce(h, send, recv, op)
		}
	}
	s, err := begin(c, cl, opEsize[T](op))
	if err != nil {
		return nil, err
	}
	s.Allreduce(asBytes(send), asBytes(recv), k)
	return s, nil
}

// Gather collects every rank's send into root's recv, rank i's at recv[i*len(send):]
// (recv is Size()*len(send) long at root, ignored elsewhere). In place at root: send is
// InPlace[T]() and root's block is already in recv.
func Gather[T Elem](c *Comm, send, recv []T, root int) error {
	if c != nil && c.remote != nil {
		return interGather(c, send, recv, root)
	}
	s, err := gather("Gather", c, send, recv, root, false)
	if err != nil {
		return err
	}
	return run("Gather", s)
}

func gather[T Elem](name string, c *Comm, send, recv []T, root int, nb bool) (*coll.Sched, error) {
	if c == nil {
		return begin(c, call{op: name}, 1)
	}
	send, err := rootBlocks(name, c, root, recv, send, "recv", "send")
	if err != nil {
		return nil, err
	}
	s, err := begin(c, call{op: name, kind: kGather, root: root, size: int64(len(send)), elem: int64(esize[T]()), nonblocking: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	s.Gather(asBytes(send), asBytes(recv), root)
	return s, nil
}

// checkV checks counts and displacements (in elements) against a buffer of n elements.
func checkV(name, what string, size int, counts, displs []int, n int) error {
	if len(counts) != size || len(displs) != size {
		return errorf(ClassCount, name, "len(%scounts) %d and len(%sdispls) %d must be the size %d", what, len(counts), what, len(displs), size)
	}
	for i := range counts {
		if counts[i] < 0 || displs[i] < 0 || displs[i]+counts[i] > n {
			return errorf(ClassCount, name, "%scounts[%d] %d at %sdispls[%d] %d out of the buffer of %d", what, i, counts[i], what, i, displs[i], n)
		}
	}
	return nil
}

// Gatherv is Gather with rank i's block of counts[i] elements at recv[displs[i]:];
// counts and displs matter at root only. In place at root: send is InPlace[T]().
func Gatherv[T Elem](c *Comm, send, recv []T, counts, displs []int, root int) error {
	if c != nil && c.remote != nil {
		return interGatherv(c, send, recv, counts, displs, root)
	}
	s, err := gatherv("Gatherv", c, send, recv, counts, displs, root, false)
	if err != nil {
		return err
	}
	return run("Gatherv", s)
}

func gatherv[T Elem](name string, c *Comm, send, recv []T, counts, displs []int, root int, nb bool) (*coll.Sched, error) {
	send, err := rootVBlocks(name, c, root, recv, send, counts, displs, "send")
	if err != nil {
		return nil, err
	}
	s, err := begin(c, call{op: name, kind: kGatherv, root: root, size: -1, elem: int64(esize[T]()), nonblocking: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	if err := checkVPairs(name, c, s, c.size, root, c.rank == root, true, counts, len(send), esize[T](), true); err != nil {
		return nil, err
	}
	s.Gatherv(asBytes(send), asBytes(recv), counts, displs, root)
	return s, nil
}

// rootVBlocks checks the buffers of Gatherv and Scatterv: at the root, counts and
// displs place each rank's block in whole, part is the root's own block, and an InPlace
// part stands for that block of whole (which is returned in its place); elsewhere
// InPlace is refused.
func rootVBlocks[T Elem](name string, c *Comm, root int, whole, part []T, counts, displs []int, partName string) ([]T, error) {
	if c == nil {
		return part, nil // begin reports the nil communicator
	}
	if c.rank != root {
		if isInPlace(part) {
			return nil, errorf(ClassBuffer, name, "InPlace is for the root only")
		}
		return part, nil
	}
	if err := checkV(name, "", c.size, counts, displs, len(whole)); err != nil {
		return nil, err
	}
	if isInPlace(part) {
		part = whole[displs[root] : displs[root]+counts[root]]
	}
	if len(part) != counts[root] {
		return nil, errorf(ClassCount, name, "len(%s) %d != counts[%d] %d at the root", partName, len(part), root, counts[root])
	}
	return part, nil
}

// checkVPairs is the debug check (coll.Checking) of a v-form rooted collective on n
// ranks: the root's counts against the others' block of mine elements of esz bytes
// (gather: the blocks go to the root; else they come from it).
func checkVPairs(name string, c *Comm, s *coll.Sched, n, root int, atRoot, atOther bool, counts []int, mine, esz int, gather bool) error {
	if !coll.Checking() {
		return nil
	}
	out, in := vPairs(n, root, atRoot, atOther, counts, mine*esz, esz, gather)
	return checkPairs(name, c, s, out, in)
}

// Scatter sends block i of root's send (Size()*len(recv) elements) to rank i's recv.
// In place at root: recv is InPlace[T]() and root's block stays in send.
func Scatter[T Elem](c *Comm, send, recv []T, root int) error {
	if c != nil && c.remote != nil {
		return interScatter(c, send, recv, root)
	}
	s, err := scatter("Scatter", c, send, recv, root, false)
	if err != nil {
		return err
	}
	return run("Scatter", s)
}

// rootBlocks checks the buffers of Gather and Scatter: at the root, whole holds one
// block of part's length per rank, and an InPlace part stands for the root's own block
// of whole (which is returned in its place); elsewhere InPlace is refused.
func rootBlocks[T Elem](name string, c *Comm, root int, whole, part []T, wholeName, partName string) ([]T, error) {
	n := c.size
	if c.rank != root {
		if isInPlace(part) {
			return nil, errorf(ClassBuffer, name, "InPlace is for the root only")
		}
		return part, nil
	}
	if isInPlace(part) {
		if len(whole)%n != 0 {
			return nil, errorf(ClassCount, name, "len(%s) %d is not a multiple of the size %d", wholeName, len(whole), n)
		}
		m := len(whole) / n
		part = whole[root*m : (root+1)*m]
	}
	if len(whole) != n*len(part) {
		return nil, errorf(ClassCount, name, "len(%s) %d != size %d × len(%s) %d at the root", wholeName, len(whole), n, partName, len(part))
	}
	return part, nil
}

func scatter[T Elem](name string, c *Comm, send, recv []T, root int, nb bool) (*coll.Sched, error) {
	if c == nil {
		return begin(c, call{op: name}, 1)
	}
	recv, err := rootBlocks(name, c, root, send, recv, "send", "recv")
	if err != nil {
		return nil, err
	}
	s, err := begin(c, call{op: name, kind: kScatter, root: root, size: int64(len(recv)), elem: int64(esize[T]()), nonblocking: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	s.Scatter(asBytes(send), asBytes(recv), root)
	return s, nil
}

// Scatterv is Scatter with rank i's block of counts[i] elements at send[displs[i]:];
// send, counts and displs matter at root only. In place at root: recv is InPlace[T]().
func Scatterv[T Elem](c *Comm, send []T, counts, displs []int, recv []T, root int) error {
	if c != nil && c.remote != nil {
		return interScatterv(c, send, counts, displs, recv, root)
	}
	s, err := scatterv("Scatterv", c, send, counts, displs, recv, root, false)
	if err != nil {
		return err
	}
	return run("Scatterv", s)
}

func scatterv[T Elem](name string, c *Comm, send []T, counts, displs []int, recv []T, root int, nb bool) (*coll.Sched, error) {
	recv, err := rootVBlocks(name, c, root, send, recv, counts, displs, "recv")
	if err != nil {
		return nil, err
	}
	s, err := begin(c, call{op: name, kind: kScatterv, root: root, size: -1, elem: int64(esize[T]()), nonblocking: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	if err := checkVPairs(name, c, s, c.size, root, c.rank == root, true, counts, len(recv), esize[T](), false); err != nil {
		return nil, err
	}
	s.Scatterv(asBytes(send), counts, displs, asBytes(recv), root)
	return s, nil
}

// Allgather collects every rank's send into every rank's recv (Size()*len(send)
// elements), rank i's at recv[i*len(send):]. In place: send is InPlace[T]() and this
// rank's block is already in recv.
func Allgather[T Elem](c *Comm, send, recv []T) error {
	if c != nil && c.remote != nil {
		return interAllgather(c, send, recv)
	}
	s, err := allgather("Allgather", c, send, recv, false)
	if err != nil {
		return err
	}
	return run("Allgather", s)
}

func allgather[T Elem](name string, c *Comm, send, recv []T, nb bool) (*coll.Sched, error) {
	if c == nil {
		return begin(c, call{op: name}, 1)
	}
	n := c.size
	if isInPlace(send) {
		if len(recv)%n != 0 {
			return nil, errorf(ClassCount, name, "len(recv) %d is not a multiple of the size %d", len(recv), n)
		}
		m := len(recv) / n
		send = recv[c.rank*m : (c.rank+1)*m]
	}
	if len(recv) != n*len(send) {
		return nil, errorf(ClassCount, name, "len(recv) %d != size %d × len(send) %d", len(recv), n, len(send))
	}
	s, err := begin(c, call{op: name, kind: kAllgather, root: noRoot, size: int64(len(send)), elem: int64(esize[T]()), nonblocking: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	s.Allgather(asBytes(send), asBytes(recv))
	return s, nil
}

// Allgatherv is Allgather with rank i's block of counts[i] elements at recv[displs[i]:].
// In place: send is InPlace[T]().
func Allgatherv[T Elem](c *Comm, send, recv []T, counts, displs []int) error {
	if c != nil && c.remote != nil {
		return interAllgatherv(c, send, recv, counts, displs)
	}
	s, err := allgatherv("Allgatherv", c, send, recv, counts, displs, false)
	if err != nil {
		return err
	}
	return run("Allgatherv", s)
}

func allgatherv[T Elem](name string, c *Comm, send, recv []T, counts, displs []int, nb bool) (*coll.Sched, error) {
	if c == nil {
		return begin(c, call{op: name}, 1)
	}
	if err := checkV(name, "", c.size, counts, displs, len(recv)); err != nil {
		return nil, err
	}
	r := c.rank
	if isInPlace(send) {
		send = recv[displs[r] : displs[r]+counts[r]]
	}
	if len(send) != counts[r] {
		return nil, errorf(ClassCount, name, "len(send) %d != counts[%d] %d", len(send), r, counts[r])
	}
	s, err := begin(c, call{op: name, kind: kAllgatherv, root: noRoot, size: -1, elem: int64(esize[T]()), nonblocking: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	if coll.Checking() {
		if err := checkPairs(name, c, s, blocksOf(c.size, len(send)*esize[T]()), bytesOf(counts, esize[T]())); err != nil {
			return nil, err
		}
	}
	s.Allgatherv(asBytes(send), asBytes(recv), counts, displs)
	return s, nil
}

// Alltoall sends block j of send to rank j, which receives it as block i (this rank's)
// of its recv; send and recv are Size() blocks of equal length. In place: send is
// InPlace[T]() and the blocks to send are in recv.
func Alltoall[T Elem](c *Comm, send, recv []T) error {
	if c != nil && c.remote != nil {
		return interAlltoall(c, send, recv)
	}
	s, err := alltoall("Alltoall", c, send, recv, false)
	if err != nil {
		return err
	}
	return run("Alltoall", s)
}

func alltoall[T Elem](name string, c *Comm, send, recv []T, nb bool) (*coll.Sched, error) {
	if c == nil {
		return begin(c, call{op: name}, 1)
	}
	if isInPlace(send) {
		send = recv
	}
	if len(send) != len(recv) || len(recv)%c.size != 0 {
		return nil, errorf(ClassCount, name, "len(send) %d and len(recv) %d must be equal multiples of the size %d", len(send), len(recv), c.size)
	}
	s, err := begin(c, call{op: name, kind: kAlltoall, root: noRoot, size: int64(len(recv)), elem: int64(esize[T]()), nonblocking: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	s.Alltoall(asBytes(send), asBytes(recv))
	return s, nil
}

// Alltoallv is Alltoall with per-rank counts and displacements, in elements. In place:
// send is InPlace[T]() (scounts and sdispls are then ignored), and the data to send is
// in recv, laid out by rcounts and rdispls.
func Alltoallv[T Elem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) error {
	if c != nil && c.remote != nil {
		return interAlltoallv(c, send, scounts, sdispls, recv, rcounts, rdispls)
	}
	s, err := alltoallv("Alltoallv", c, send, scounts, sdispls, recv, rcounts, rdispls, false)
	if err != nil {
		return err
	}
	return run("Alltoallv", s)
}

func alltoallv[T Elem](name string, c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int, nb bool) (*coll.Sched, error) {
	if c == nil {
		return begin(c, call{op: name}, 1)
	}
	if isInPlace(send) {
		send, scounts, sdispls = recv, rcounts, rdispls
	}
	if err := checkV(name, "s", c.size, scounts, sdispls, len(send)); err != nil {
		return nil, err
	}
	if err := checkV(name, "r", c.size, rcounts, rdispls, len(recv)); err != nil {
		return nil, err
	}
	s, err := begin(c, call{op: name, kind: kAlltoallv, root: noRoot, size: -1, elem: int64(esize[T]()), nonblocking: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	if coll.Checking() {
		if err := checkPairs(name, c, s, bytesOf(scounts, esize[T]()), bytesOf(rcounts, esize[T]())); err != nil {
			return nil, err
		}
	}
	s.Alltoallv(asBytes(send), scounts, sdispls, asBytes(recv), rcounts, rdispls)
	return s, nil
}

// ReduceScatterBlock combines every rank's send (Size()*len(recv) elements) with op and
// leaves block i of the result in rank i's recv. In place: send is InPlace[T](), recv
// holds the whole input and gets the result in recv[:len(recv)/Size()].
func ReduceScatterBlock[T Elem](c *Comm, send, recv []T, op Op) error {
	if c != nil && c.remote != nil {
		return interReduceScatterBlock(c, send, recv, op)
	}
	s, err := reduceScatterBlock("ReduceScatterBlock", c, send, recv, op, false)
	if err != nil {
		return err
	}
	return run("ReduceScatterBlock", s)
}

func reduceScatterBlock[T Elem](name string, c *Comm, send, recv []T, op Op, nb bool) (*coll.Sched, error) {
	k, err := kernel[T](name, op)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return begin(c, call{op: name}, 1)
	}
	n := c.size
	m := len(recv)
	if isInPlace(send) {
		if len(recv)%n != 0 {
			return nil, errorf(ClassCount, name, "in place: len(recv) %d is not a multiple of the size %d", len(recv), n)
		}
		send, m = recv, len(recv)/n
	}
	if len(send) != n*m {
		return nil, errorf(ClassCount, name, "len(send) %d != size %d × len(recv) %d", len(send), n, m)
	}
	if err := pairs(name, op, m); err != nil {
		return nil, err
	}
	s, err := begin(c, call{op: name, kind: kReduceScatterBlock, root: noRoot, size: int64(m), elem: int64(esize[T]()), nonblocking: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	counts := make([]int, n)
	for i := range counts {
		counts[i] = m
	}
	s.ReduceScatter(asBytes(send), asBytes(recv), counts, k)
	return s, nil
}

// ReduceScatter combines every rank's send (sum of counts elements) with op and leaves
// the counts[i] elements of block i of the result in rank i's recv. In place: send is
// InPlace[T](), recv holds the whole input and gets the result in recv[:counts[rank]].
func ReduceScatter[T Elem](c *Comm, send, recv []T, counts []int, op Op) error {
	if c != nil && c.remote != nil {
		return interReduceScatter(c, send, recv, counts, op)
	}
	s, err := reduceScatter("ReduceScatter", c, send, recv, counts, op, false)
	if err != nil {
		return err
	}
	return run("ReduceScatter", s)
}

func reduceScatter[T Elem](name string, c *Comm, send, recv []T, counts []int, op Op, nb bool) (*coll.Sched, error) {
	k, err := kernel[T](name, op)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return begin(c, call{op: name}, 1)
	}
	total, err := countsTotal(name, op, counts, c.size, "the size")
	if err != nil {
		return nil, err
	}
	if isInPlace(send) {
		send = recv
	} else if len(recv) != counts[c.rank] {
		return nil, errorf(ClassCount, name, "len(recv) %d != counts[%d] %d", len(recv), c.rank, counts[c.rank])
	}
	if len(send) != total {
		return nil, errorf(ClassCount, name, "len(send) %d != sum(counts) %d", len(send), total)
	}
	s, err := begin(c, call{op: name, kind: kReduceScatter, root: noRoot, size: int64(total), elem: int64(esize[T]()), nonblocking: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	s.ReduceScatter(asBytes(send), asBytes(recv), counts, k)
	return s, nil
}

// Scan leaves in rank r's recv the combination with op of the sends of ranks 0..r, in
// rank order. In place: send is InPlace[T]() and the input is in recv.
func Scan[T Elem](c *Comm, send, recv []T, op Op) error {
	s, err := scan("Scan", c, send, recv, op, false, false)
	if err != nil {
		return err
	}
	return run("Scan", s)
}

// Exscan leaves in rank r's recv the combination of the sends of ranks 0..r-1; rank
// 0's recv is left as it was. In place: send is InPlace[T]().
func Exscan[T Elem](c *Comm, send, recv []T, op Op) error {
	s, err := scan("Exscan", c, send, recv, op, true, false)
	if err != nil {
		return err
	}
	return run("Exscan", s)
}

func scan[T Elem](name string, c *Comm, send, recv []T, op Op, excl, nb bool) (*coll.Sched, error) {
	k, err := kernel[T](name, op)
	if err != nil {
		return nil, err
	}
	if isInPlace(send) {
		send = recv
	}
	if len(send) != len(recv) {
		return nil, errorf(ClassCount, name, "len(send) %d != len(recv) %d", len(send), len(recv))
	}
	if err := pairs(name, op, len(send)); err != nil {
		return nil, err
	}
	kind := kScan
	if excl {
		kind = kExscan
	}
	s, err := begin(c, call{op: name, kind: kind, root: noRoot, size: int64(len(recv)), elem: int64(esize[T]()), nonblocking: nb}, esize[T]())
	if err != nil {
		return nil, err
	}
	if excl {
		s.Exscan(asBytes(send), asBytes(recv), k)
	} else {
		s.Scan(asBytes(send), asBytes(recv), k)
	}
	return s, nil
}
