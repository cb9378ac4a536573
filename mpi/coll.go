package mpi

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// The collectives: each typed call views its slices as bytes (collective.Vec), looks up the
// reduction kernel for its element type, and calls the device's entry point, which
// goes through the table the communicator chose when it was made (node shared memory,
// hierarchical, schedules, intercommunicator). Every error passes through the
// communicator's error handler (fail).

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

// Root is what the root passes as root to a rooted collective on an intercommunicator
// (MPI_ROOT); the other processes of its group pass ProcNull.
const Root = collective.Root

func esize[T Elem]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// vec is b as the device's collective buffer.
func vec[T Elem](b []T) collective.Vec {
	if isInPlace(b) {
		return collective.InPlaceVec(esize[T]())
	}
	return collective.Vec{B: asBytes(b), Esz: esize[T]()}
}

// setVec makes *v b as the device's collective buffer, in place (see setRed).
func setVec[T Elem](v *collective.Vec, b []T) {
	v.Esz = esize[T]()
	if isInPlace(b) {
		v.InPlace = true
		return
	}
	v.B = asBytes(b)
}

// Barrier returns once every rank of c has called it.
func (c *Comm) Barrier() error {
	t := c.enter(prof.Barrier, prof.NoPeer, 0)
	var err error
	if c.special() {
		err = c.collArgs("Barrier", &collArgs{}, func(c *Comm, _ *collArgs) error {
			return collective.Barrier(c.dev(), "Barrier")
		})
	} else {
		err = c.fail("Barrier", collective.Barrier(c.dev(), "Barrier"))
	}
	exit(prof.Barrier, t, 0)
	return err
}

// exit is prof.Exit with its short path inlined: the short collectives end with it
// rather than with a deferred Exit, whose wrapper costs as much again.
func exit(call prof.Call, t int64, n int) {
	if !prof.TryExit(call, t, n) {
		prof.Exit(call, t, n)
	}
}

// Bcast sends root's buf to every rank's buf; every rank passes a buf of the same length.
func Bcast[T Elem](c *Comm, buf []T, root int) error {
	n := nbytes(buf)
	t := c.enter(prof.Bcast, root, n)
	err := bcast(c, buf, root)
	exit(prof.Bcast, t, n)
	return err
}

func bcast[T Elem](c *Comm, buf []T, root int) error {
	if c.special() {
		return c.collArgs("Bcast", &collArgs{s: vec(buf), root: root}, runBcast)
	}
	var v collective.Vec
	setVec(&v, buf)
	return c.fail("Bcast", collective.Bcast(c.dev(), "Bcast", &v, root))
}

// Reduce combines every rank's send with op, in rank order, into root's recv, which is
// as long as send (recv is ignored on the other ranks). In place at root: send is
// InPlace[T]() and root's input is in recv.
func Reduce[T Elem](c *Comm, send, recv []T, op Op, root int) error {
	n := collBytes(send, recv)
	t := c.enter(prof.Reduce, root, n)
	err := reduce(c, send, recv, op, root)
	exit(prof.Reduce, t, n)
	return err
}

func reduce[T Elem](c *Comm, send, recv []T, op Op, root int) error {
	var r collective.Red
	if err := setRed[T](&r, "Reduce", op); err != nil {
		return c.fail("Reduce", err)
	}
	if c.special() {
		return c.collArgs("Reduce", &collArgs{s: vec(send), r: vec(recv), red: r, root: root}, runReduce)
	}
	var s, rv collective.Vec
	setVec(&s, send)
	setVec(&rv, recv)
	return c.fail("Reduce", collective.Reduce(c.dev(), "Reduce", &s, &rv, &r, root))
}

// Allreduce combines every rank's send with op into every rank's recv (as long as
// send). In place: send is InPlace[T]() and the input is in recv.
func Allreduce[T Elem](c *Comm, send, recv []T, op Op) error {
	n := collBytes(send, recv)
	t := c.enter(prof.Allreduce, prof.NoPeer, n)
	err := allreduce(c, send, recv, op)
	exit(prof.Allreduce, t, n)
	return err
}

func allreduce[T Elem](c *Comm, send, recv []T, op Op) error {
	var r collective.Red
	if err := setRed[T](&r, "Allreduce", op); err != nil {
		return c.fail("Allreduce", err)
	}
	if c.special() {
		return c.collArgs("Allreduce", &collArgs{s: vec(send), r: vec(recv), red: r}, runAllreduce)
	}
	var s, rv collective.Vec
	setVec(&s, send)
	setVec(&rv, recv)
	return c.fail("Allreduce", collective.Allreduce(c.dev(), "Allreduce", &s, &rv, &r))
}

// Gather collects every rank's send into root's recv, rank i's at recv[i*len(send):]
// (recv is Size()*len(send) long at root, ignored elsewhere). In place at root: send is
// InPlace[T]() and root's block is already in recv.
func Gather[T Elem](c *Comm, send, recv []T, root int) error {
	defer prof.Exit(prof.Gather, c.enter(prof.Gather, root, collBytes(send, recv)), collBytes(send, recv))
	return gather(c, send, recv, root)
}

// gather is Gather unrecorded, for the calls made of it (the value collectives).
func gather[T Elem](c *Comm, send, recv []T, root int) error {
	if c.special() {
		return c.collArgs("Gather", &collArgs{s: vec(send), r: vec(recv), root: root}, runGather)
	}
	_, err := collective.Gather(c.dev(), "Gather", vec(send), vec(recv), root, false)
	return c.fail("Gather", err)
}

// Gatherv is Gather with rank i's block of counts[i] elements at recv[displs[i]:];
// counts and displs matter at root only. In place at root: send is InPlace[T]().
func Gatherv[T Elem](c *Comm, send, recv []T, counts, displs []int, root int) error {
	defer prof.Exit(prof.Gatherv, c.enter(prof.Gatherv, root, collBytes(send, recv)), collBytes(send, recv))
	return gatherv(c, send, recv, counts, displs, root)
}

// gatherv is Gatherv unrecorded, for the calls made of it (the value collectives).
func gatherv[T Elem](c *Comm, send, recv []T, counts, displs []int, root int) error {
	if c.special() {
		return c.collArgs("Gatherv", &collArgs{s: vec(send), r: vec(recv), counts: counts, displs: displs, root: root}, runGatherv)
	}
	_, err := collective.Gatherv(c.dev(), "Gatherv", vec(send), vec(recv), counts, displs, root, false)
	return c.fail("Gatherv", err)
}

// Scatter sends block i of root's send (Size()*len(recv) elements) to rank i's recv.
// In place at root: recv is InPlace[T]() and root's block stays in send.
func Scatter[T Elem](c *Comm, send, recv []T, root int) error {
	defer prof.Exit(prof.Scatter, c.enter(prof.Scatter, root, collBytes(send, recv)), collBytes(send, recv))
	return scatter(c, send, recv, root)
}

// scatter is Scatter unrecorded, for the calls made of it (the value collectives).
func scatter[T Elem](c *Comm, send, recv []T, root int) error {
	if c.special() {
		return c.collArgs("Scatter", &collArgs{s: vec(send), r: vec(recv), root: root}, runScatter)
	}
	_, err := collective.Scatter(c.dev(), "Scatter", vec(send), vec(recv), root, false)
	return c.fail("Scatter", err)
}

// Scatterv is Scatter with rank i's block of counts[i] elements at send[displs[i]:];
// send, counts and displs matter at root only. In place at root: recv is InPlace[T]().
func Scatterv[T Elem](c *Comm, send []T, counts, displs []int, recv []T, root int) error {
	defer prof.Exit(prof.Scatterv, c.enter(prof.Scatterv, root, nbytes(send)), nbytes(send))
	return scatterv(c, send, counts, displs, recv, root)
}

// scatterv is Scatterv unrecorded, for the calls made of it (the value collectives).
func scatterv[T Elem](c *Comm, send []T, counts, displs []int, recv []T, root int) error {
	if c.special() {
		return c.collArgs("Scatterv", &collArgs{s: vec(send), r: vec(recv), counts: counts, displs: displs, root: root}, runScatterv)
	}
	_, err := collective.Scatterv(c.dev(), "Scatterv", vec(send), counts, displs, vec(recv), root, false)
	return c.fail("Scatterv", err)
}

// Allgather collects every rank's send into every rank's recv (Size()*len(send)
// elements), rank i's at recv[i*len(send):]. In place: send is InPlace[T]() and this
// rank's block is already in recv.
func Allgather[T Elem](c *Comm, send, recv []T) error {
	defer prof.Exit(prof.Allgather, c.enter(prof.Allgather, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	return allgather(c, send, recv)
}

// allgather is Allgather unrecorded, for the calls made of it (the value collectives).
func allgather[T Elem](c *Comm, send, recv []T) error {
	if c.special() {
		return c.collArgs("Allgather", &collArgs{s: vec(send), r: vec(recv)}, runAllgather)
	}
	_, err := collective.Allgather(c.dev(), "Allgather", vec(send), vec(recv), false)
	return c.fail("Allgather", err)
}

// Allgatherv is Allgather with rank i's block of counts[i] elements at recv[displs[i]:].
// In place: send is InPlace[T]().
func Allgatherv[T Elem](c *Comm, send, recv []T, counts, displs []int) error {
	defer prof.Exit(prof.Allgatherv, c.enter(prof.Allgatherv, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	return allgatherv(c, send, recv, counts, displs)
}

// allgatherv is Allgatherv unrecorded, for the calls made of it (the value collectives).
func allgatherv[T Elem](c *Comm, send, recv []T, counts, displs []int) error {
	if c.special() {
		return c.collArgs("Allgatherv", &collArgs{s: vec(send), r: vec(recv), counts: counts, displs: displs}, runAllgatherv)
	}
	_, err := collective.Allgatherv(c.dev(), "Allgatherv", vec(send), vec(recv), counts, displs, false)
	return c.fail("Allgatherv", err)
}

// Alltoall sends block j of send to rank j, which receives it as block i (this rank's)
// of its recv; send and recv are Size() blocks of equal length. In place: send is
// InPlace[T]() and the blocks to send are in recv.
func Alltoall[T Elem](c *Comm, send, recv []T) error {
	defer prof.Exit(prof.Alltoall, c.enter(prof.Alltoall, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	return alltoall(c, send, recv)
}

// alltoall is Alltoall unrecorded, for the calls made of it (the value collectives).
func alltoall[T Elem](c *Comm, send, recv []T) error {
	if c.special() {
		return c.collArgs("Alltoall", &collArgs{s: vec(send), r: vec(recv)}, runAlltoall)
	}
	_, err := collective.Alltoall(c.dev(), "Alltoall", vec(send), vec(recv), false)
	return c.fail("Alltoall", err)
}

// Alltoallv is Alltoall with per-rank counts and displacements, in elements. In place:
// send is InPlace[T]() (scounts and sdispls are then ignored), and the data to send is
// in recv, laid out by rcounts and rdispls.
func Alltoallv[T Elem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) error {
	defer prof.Exit(prof.Alltoallv, c.enter(prof.Alltoallv, prof.NoPeer, nbytes(send)), nbytes(send))
	return alltoallv(c, send, scounts, sdispls, recv, rcounts, rdispls)
}

// alltoallv is Alltoallv unrecorded, for the calls made of it (the value collectives).
func alltoallv[T Elem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) error {
	if c.special() {
		return c.collArgs("Alltoallv", &collArgs{s: vec(send), r: vec(recv), counts: scounts, displs: sdispls, rcounts: rcounts, rdispls: rdispls}, runAlltoallv)
	}
	_, err := collective.Alltoallv(c.dev(), "Alltoallv", vec(send), scounts, sdispls, vec(recv), rcounts, rdispls, false)
	return c.fail("Alltoallv", err)
}

// ReduceScatterBlock combines every rank's send (Size()*len(recv) elements) with op and
// leaves block i of the result in rank i's recv. In place: send is InPlace[T](), recv
// holds the whole input and gets the result in recv[:len(recv)/Size()].
func ReduceScatterBlock[T Elem](c *Comm, send, recv []T, op Op) error {
	defer prof.Exit(prof.ReduceScatterBlock, c.enter(prof.ReduceScatterBlock, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	if c.special() {
		r, err := red[T]("ReduceScatterBlock", op)
		if err != nil {
			return c.fail("ReduceScatterBlock", err)
		}
		return c.collArgs("ReduceScatterBlock", &collArgs{s: vec(send), r: vec(recv), red: r}, runReduceScatterBlock)
	}
	_, err := reduceScatterBlock("ReduceScatterBlock", c, send, recv, op, false)
	return c.fail("ReduceScatterBlock", err)
}

func reduceScatterBlock[T Elem](name string, c *Comm, send, recv []T, op Op, nb bool) (*core.Pending, error) {
	r, err := red[T](name, op)
	if err != nil {
		return nil, err
	}
	return collective.ReduceScatterBlock(c.dev(), name, vec(send), vec(recv), r, nb)
}

// ReduceScatter combines every rank's send (sum of counts elements) with op and leaves
// the counts[i] elements of block i of the result in rank i's recv. In place: send is
// InPlace[T](), recv holds the whole input and gets the result in recv[:counts[rank]].
func ReduceScatter[T Elem](c *Comm, send, recv []T, counts []int, op Op) error {
	defer prof.Exit(prof.ReduceScatter, c.enter(prof.ReduceScatter, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	if c.special() {
		r, err := red[T]("ReduceScatter", op)
		if err != nil {
			return c.fail("ReduceScatter", err)
		}
		return c.collArgs("ReduceScatter", &collArgs{s: vec(send), r: vec(recv), red: r, counts: counts}, runReduceScatter)
	}
	_, err := reduceScatter("ReduceScatter", c, send, recv, counts, op, false)
	return c.fail("ReduceScatter", err)
}

func reduceScatter[T Elem](name string, c *Comm, send, recv []T, counts []int, op Op, nb bool) (*core.Pending, error) {
	r, err := red[T](name, op)
	if err != nil {
		return nil, err
	}
	return collective.ReduceScatter(c.dev(), name, vec(send), vec(recv), counts, r, nb)
}

// Scan leaves in rank r's recv the combination with op of the sends of ranks 0..r, in
// rank order. In place: send is InPlace[T]() and the input is in recv.
func Scan[T Elem](c *Comm, send, recv []T, op Op) error {
	defer prof.Exit(prof.Scan, c.enter(prof.Scan, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	if c.special() {
		r, err := red[T]("Scan", op)
		if err != nil {
			return c.fail("Scan", err)
		}
		return c.collArgs("Scan", &collArgs{s: vec(send), r: vec(recv), red: r}, runScan)
	}
	_, err := scan("Scan", c, send, recv, op, false, false)
	return c.fail("Scan", err)
}

// Exscan leaves in rank r's recv the combination of the sends of ranks 0..r-1; rank
// 0's recv is left as it was. In place: send is InPlace[T]().
func Exscan[T Elem](c *Comm, send, recv []T, op Op) error {
	defer prof.Exit(prof.Exscan, c.enter(prof.Exscan, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	if c.special() {
		r, err := red[T]("Exscan", op)
		if err != nil {
			return c.fail("Exscan", err)
		}
		return c.collArgs("Exscan", &collArgs{s: vec(send), r: vec(recv), red: r}, runExscan)
	}
	_, err := scan("Exscan", c, send, recv, op, true, false)
	return c.fail("Exscan", err)
}

func scan[T Elem](name string, c *Comm, send, recv []T, op Op, excl, nb bool) (*core.Pending, error) {
	r, err := red[T](name, op)
	if err != nil {
		return nil, err
	}
	return collective.Scan(c.dev(), name, vec(send), vec(recv), r, excl, nb)
}

// The nonblocking collectives: each starts the blocking one's schedule and returns a
// Request that completes in the background; until Wait or Test reports it complete,
// its buffers belong to MPI. On an intercommunicator they run the intercommunicator
// schedules; Iscan and Iexscan, like Scan and Exscan, are not defined there.

// start makes the Request of a nonblocking collective, or passes its error through
// c's handler.
func (c *Comm) start(op string, p *core.Pending, err error) (Request, error) {
	if err != nil {
		return Request{}, c.fail(op, err)
	}
	return opReq(c, p), nil
}

// Ibarrier starts a barrier; the request completes once every rank has called it.
func (c *Comm) Ibarrier() (Request, error) {
	defer prof.Exit(prof.Ibarrier, c.enter(prof.Ibarrier, prof.NoPeer, 0), 0)
	p, err := collective.Ibarrier(c.dev(), "Ibarrier")
	return c.start("Ibarrier", p, err)
}

// Ibcast starts a Bcast.
func Ibcast[T Elem](c *Comm, buf []T, root int) (Request, error) {
	defer prof.Exit(prof.Ibcast, c.enter(prof.Ibcast, root, nbytes(buf)), nbytes(buf))
	p, err := collective.Ibcast(c.dev(), "Ibcast", vec(buf), root)
	return c.start("Ibcast", p, err)
}

// Ireduce starts a Reduce.
func Ireduce[T Elem](c *Comm, send, recv []T, op Op, root int) (Request, error) {
	defer prof.Exit(prof.Ireduce, c.enter(prof.Ireduce, root, collBytes(send, recv)), collBytes(send, recv))
	r, err := red[T]("Ireduce", op)
	if err != nil {
		return Request{}, c.fail("Ireduce", err)
	}
	p, err := collective.Ireduce(c.dev(), "Ireduce", vec(send), vec(recv), r, root)
	return c.start("Ireduce", p, err)
}

// Iallreduce starts an Allreduce.
func Iallreduce[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	defer prof.Exit(prof.Iallreduce, c.enter(prof.Iallreduce, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	r, err := red[T]("Iallreduce", op)
	if err != nil {
		return Request{}, c.fail("Iallreduce", err)
	}
	p, err := collective.Iallreduce(c.dev(), "Iallreduce", vec(send), vec(recv), r)
	return c.start("Iallreduce", p, err)
}

// Igather starts a Gather.
func Igather[T Elem](c *Comm, send, recv []T, root int) (Request, error) {
	defer prof.Exit(prof.Igather, c.enter(prof.Igather, root, collBytes(send, recv)), collBytes(send, recv))
	p, err := collective.Gather(c.dev(), "Igather", vec(send), vec(recv), root, true)
	return c.start("Igather", p, err)
}

// Igatherv starts a Gatherv.
func Igatherv[T Elem](c *Comm, send, recv []T, counts, displs []int, root int) (Request, error) {
	defer prof.Exit(prof.Igatherv, c.enter(prof.Igatherv, root, collBytes(send, recv)), collBytes(send, recv))
	p, err := collective.Gatherv(c.dev(), "Igatherv", vec(send), vec(recv), counts, displs, root, true)
	return c.start("Igatherv", p, err)
}

// Iscatter starts a Scatter.
func Iscatter[T Elem](c *Comm, send, recv []T, root int) (Request, error) {
	defer prof.Exit(prof.Iscatter, c.enter(prof.Iscatter, root, collBytes(send, recv)), collBytes(send, recv))
	p, err := collective.Scatter(c.dev(), "Iscatter", vec(send), vec(recv), root, true)
	return c.start("Iscatter", p, err)
}

// Iscatterv starts a Scatterv.
func Iscatterv[T Elem](c *Comm, send []T, counts, displs []int, recv []T, root int) (Request, error) {
	defer prof.Exit(prof.Iscatterv, c.enter(prof.Iscatterv, root, nbytes(send)), nbytes(send))
	p, err := collective.Scatterv(c.dev(), "Iscatterv", vec(send), counts, displs, vec(recv), root, true)
	return c.start("Iscatterv", p, err)
}

// Iallgather starts an Allgather.
func Iallgather[T Elem](c *Comm, send, recv []T) (Request, error) {
	defer prof.Exit(prof.Iallgather, c.enter(prof.Iallgather, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	p, err := collective.Allgather(c.dev(), "Iallgather", vec(send), vec(recv), true)
	return c.start("Iallgather", p, err)
}

// Iallgatherv starts an Allgatherv.
func Iallgatherv[T Elem](c *Comm, send, recv []T, counts, displs []int) (Request, error) {
	defer prof.Exit(prof.Iallgatherv, c.enter(prof.Iallgatherv, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	p, err := collective.Allgatherv(c.dev(), "Iallgatherv", vec(send), vec(recv), counts, displs, true)
	return c.start("Iallgatherv", p, err)
}

// Ialltoall starts an Alltoall.
func Ialltoall[T Elem](c *Comm, send, recv []T) (Request, error) {
	defer prof.Exit(prof.Ialltoall, c.enter(prof.Ialltoall, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	p, err := collective.Alltoall(c.dev(), "Ialltoall", vec(send), vec(recv), true)
	return c.start("Ialltoall", p, err)
}

// Ialltoallv starts an Alltoallv.
func Ialltoallv[T Elem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (Request, error) {
	defer prof.Exit(prof.Ialltoallv, c.enter(prof.Ialltoallv, prof.NoPeer, nbytes(send)), nbytes(send))
	p, err := collective.Alltoallv(c.dev(), "Ialltoallv", vec(send), scounts, sdispls, vec(recv), rcounts, rdispls, true)
	return c.start("Ialltoallv", p, err)
}

// IreduceScatterBlock starts a ReduceScatterBlock.
func IreduceScatterBlock[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	defer prof.Exit(prof.IreduceScatterBlock, c.enter(prof.IreduceScatterBlock, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	p, err := reduceScatterBlock("IreduceScatterBlock", c, send, recv, op, true)
	return c.start("IreduceScatterBlock", p, err)
}

// IreduceScatter starts a ReduceScatter.
func IreduceScatter[T Elem](c *Comm, send, recv []T, counts []int, op Op) (Request, error) {
	defer prof.Exit(prof.IreduceScatter, c.enter(prof.IreduceScatter, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	p, err := reduceScatter("IreduceScatter", c, send, recv, counts, op, true)
	return c.start("IreduceScatter", p, err)
}

// Iscan starts a Scan.
func Iscan[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	defer prof.Exit(prof.Iscan, c.enter(prof.Iscan, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	p, err := scan("Iscan", c, send, recv, op, false, true)
	return c.start("Iscan", p, err)
}

// Iexscan starts an Exscan.
func Iexscan[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	defer prof.Exit(prof.Iexscan, c.enter(prof.Iexscan, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	p, err := scan("Iexscan", c, send, recv, op, true, true)
	return c.start("Iexscan", p, err)
}

// The views' typed collectives (see Comm.collArgs): functions, not literals in the
// generic callers, whose closures would carry their dictionaries on the heap.

func runBcast(c *Comm, a *collArgs) error {
	return collective.Bcast(c.dev(), "Bcast", &a.s, a.root)
}

func runReduce(c *Comm, a *collArgs) error {
	return collective.Reduce(c.dev(), "Reduce", &a.s, &a.r, &a.red, a.root)
}

func runAllreduce(c *Comm, a *collArgs) error {
	return collective.Allreduce(c.dev(), "Allreduce", &a.s, &a.r, &a.red)
}

func runGather(c *Comm, a *collArgs) error {
	_, err := collective.Gather(c.dev(), "Gather", a.s, a.r, a.root, false)
	return err
}

func runGatherv(c *Comm, a *collArgs) error {
	_, err := collective.Gatherv(c.dev(), "Gatherv", a.s, a.r, a.counts, a.displs, a.root, false)
	return err
}

func runScatter(c *Comm, a *collArgs) error {
	_, err := collective.Scatter(c.dev(), "Scatter", a.s, a.r, a.root, false)
	return err
}

func runScatterv(c *Comm, a *collArgs) error {
	_, err := collective.Scatterv(c.dev(), "Scatterv", a.s, a.counts, a.displs, a.r, a.root, false)
	return err
}

func runAllgather(c *Comm, a *collArgs) error {
	_, err := collective.Allgather(c.dev(), "Allgather", a.s, a.r, false)
	return err
}

func runAllgatherv(c *Comm, a *collArgs) error {
	_, err := collective.Allgatherv(c.dev(), "Allgatherv", a.s, a.r, a.counts, a.displs, false)
	return err
}

func runAlltoall(c *Comm, a *collArgs) error {
	_, err := collective.Alltoall(c.dev(), "Alltoall", a.s, a.r, false)
	return err
}

func runAlltoallv(c *Comm, a *collArgs) error {
	_, err := collective.Alltoallv(c.dev(), "Alltoallv", a.s, a.counts, a.displs, a.r, a.rcounts, a.rdispls, false)
	return err
}

func runReduceScatterBlock(c *Comm, a *collArgs) error {
	_, err := collective.ReduceScatterBlock(c.dev(), "ReduceScatterBlock", a.s, a.r, a.red, false)
	return err
}

func runReduceScatter(c *Comm, a *collArgs) error {
	_, err := collective.ReduceScatter(c.dev(), "ReduceScatter", a.s, a.r, a.counts, a.red, false)
	return err
}

func runScan(c *Comm, a *collArgs) error {
	_, err := collective.Scan(c.dev(), "Scan", a.s, a.r, a.red, false, false)
	return err
}

func runExscan(c *Comm, a *collArgs) error {
	_, err := collective.Scan(c.dev(), "Exscan", a.s, a.r, a.red, true, false)
	return err
}
