package mpi

import (
	"strings"
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
)

// The collectives: each typed call views its slices as bytes (collective.Vec), looks up
// the reduction kernel for its element type, and calls mpir's entry point, which
// decides what MPI says of the call (which arguments count on this rank, their
// checks, its record) and runs the device's, which goes through the table the
// communicator chose when it was made (node shared memory, hierarchical, schedules,
// intercommunicator). Every error passes through the communicator's error handler
// (fail).

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

// colls are the collectives as this package names them in its errors: the
// standard's procedures in Go's spelling (MPI_Bcast_init is BcastInit), by kind and
// mode; unrecorded are the blocking ones for the calls made of them (the value
// collectives, which the record counts themselves).
var colls, unrecorded = func() (t, u [mpir.NumCollKinds][3]*mpir.Coll) {
	for k := range t {
		for m := range t[k] {
			p := mpir.CollProc(mpir.CollKind(k), mpir.Mode(m))
			t[k][m] = p.As(goName(p.Op))
			u[k][m] = t[k][m].Unrecorded()
		}
	}
	return
}()

// goName is a procedure's name in Go's spelling: Reduce_scatter_block_init is
// ReduceScatterBlockInit.
func goName(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
	}
	return strings.Join(parts, "")
}

// collOf is the collective of kind k in mode m.
func collOf(k mpir.CollKind, m mpir.Mode) *mpir.Coll { return colls[k][m] }

// The blocking forms of the short collectives, which take entry points of their own.
var (
	pBarrier   = collOf(mpir.CollBarrier, mpir.Blocking)
	pBcast     = collOf(mpir.CollBcast, mpir.Blocking)
	pReduce    = collOf(mpir.CollReduce, mpir.Blocking)
	pAllreduce = collOf(mpir.CollAllreduce, mpir.Blocking)
	pGather    = collOf(mpir.CollGather, mpir.Blocking)
	pAllgather = collOf(mpir.CollAllgather, mpir.Blocking)
)

// coll runs blocking collective p on c with arguments a: through a view's runner where
// c is a view, or some communicator's collectives were stopped (see collArgs).
func (c *Comm) coll(p *mpir.Coll, a *mpir.CollArgs) error {
	if c.special() {
		return c.collArgs(p.Op, &collArgs{p: p, ca: *a}, runColl)
	}
	_, err := mpir.Collective(p, c.dev(), a)
	return c.fail(p.Op, err)
}

// runColl is coll's call, on a view's runner.
func runColl(c *Comm, a *collArgs) error {
	_, err := mpir.Collective(a.p, c.dev(), &a.ca)
	return err
}

// icoll starts nonblocking collective p (or makes persistent one p) on c with
// arguments a, and makes its Request.
func (c *Comm) icoll(p *mpir.Coll, a *mpir.CollArgs) (Request, error) {
	pd, err := mpir.Collective(p, c.dev(), a)
	return c.start(p.Op, pd, err)
}

// Barrier returns once every rank of c has called it.
func (c *Comm) Barrier() error {
	if c.special() {
		return c.collArgs("Barrier", &collArgs{}, runBarrier)
	}
	return c.fail("Barrier", mpir.Barrier(pBarrier, c.dev()))
}

// Bcast sends root's buf to every rank's buf; every rank passes a buf of the same length.
func Bcast[T Elem](c *Comm, buf []T, root int) error {
	return bcastOf(pBcast, c, buf, root)
}

// bcast is Bcast unrecorded, for the calls made of it (the value collectives).
func bcast[T Elem](c *Comm, buf []T, root int) error {
	return bcastOf(unrecorded[mpir.CollBcast][mpir.Blocking], c, buf, root)
}

func bcastOf[T Elem](p *mpir.Coll, c *Comm, buf []T, root int) error {
	if c.special() {
		return c.collArgs("Bcast", &collArgs{p: p, s: vec(buf), root: root}, runBcast)
	}
	var v collective.Vec
	setVec(&v, buf)
	return c.fail("Bcast", mpir.Bcast(p, c.dev(), &v, nil, root))
}

// Reduce combines every rank's send with op, in rank order, into root's recv, which is
// as long as send (recv is ignored on the other ranks). In place at root: send is
// InPlace[T]() and root's input is in recv.
func Reduce[T Elem](c *Comm, send, recv []T, op Op, root int) error {
	var r collective.Red
	rerr := setRed[T](&r, "Reduce", op)
	if c.special() {
		return c.collArgs("Reduce", &collArgs{p: pReduce, s: vec(send), r: vec(recv), red: r, rerr: rerr, root: root}, runReduce)
	}
	var s, rv collective.Vec
	setVec(&s, send)
	setVec(&rv, recv)
	return c.fail("Reduce", mpir.Reduce(pReduce, c.dev(), &s, &rv, &r, rerr, nil, root))
}

// Allreduce combines every rank's send with op into every rank's recv (as long as
// send). In place: send is InPlace[T]() and the input is in recv.
func Allreduce[T Elem](c *Comm, send, recv []T, op Op) error {
	var r collective.Red
	rerr := setRed[T](&r, "Allreduce", op)
	if c.special() {
		return c.collArgs("Allreduce", &collArgs{p: pAllreduce, s: vec(send), r: vec(recv), red: r, rerr: rerr}, runAllreduce)
	}
	var s, rv collective.Vec
	setVec(&s, send)
	setVec(&rv, recv)
	return c.fail("Allreduce", mpir.Allreduce(pAllreduce, c.dev(), &s, &rv, &r, rerr))
}

// blocks are a collective's arguments of two slices.
func blocks[T Elem](send, recv []T, root int) mpir.CollArgs {
	return mpir.CollArgs{Send: vec(send), Recv: vec(recv), Root: root}
}

// vblocks are a v form's: send and recv, and one side's counts and displacements.
func vblocks[T Elem](send, recv []T, counts, displs []int, root int) mpir.CollArgs {
	return mpir.CollArgs{Send: vec(send), Recv: vec(recv), Counts: counts, Displs: displs, Root: root}
}

// reduction are a reduction's arguments: send, recv and op over T.
func reduction[T Elem](p *mpir.Coll, send, recv []T, op Op) mpir.CollArgs {
	a := mpir.CollArgs{Send: vec(send), Recv: vec(recv)}
	a.RedErr = setRed[T](&a.Red, p.Op, op)
	return a
}

// Gather collects every rank's send into root's recv, rank i's at recv[i*len(send):]
// (recv is Size()*len(send) long at root, ignored elsewhere). In place at root: send is
// InPlace[T]() and root's block is already in recv.
func Gather[T Elem](c *Comm, send, recv []T, root int) error {
	if c.special() {
		a := blocks(send, recv, root)
		return c.coll(pGather, &a)
	}
	var s, rv collective.Vec
	setVec(&s, send)
	setVec(&rv, recv)
	return c.fail("Gather", mpir.Gather(pGather, c.dev(), &s, &rv, nil, nil, root))
}

// gather is Gather unrecorded, for the calls made of it (the value collectives).
func gather[T Elem](c *Comm, send, recv []T, root int) error {
	a := blocks(send, recv, root)
	return c.coll(unrecorded[mpir.CollGather][mpir.Blocking], &a)
}

// Gatherv is Gather with rank i's block of counts[i] elements at recv[displs[i]:];
// counts and displs matter at root only. In place at root: send is InPlace[T]().
func Gatherv[T Elem](c *Comm, send, recv []T, counts, displs []int, root int) error {
	a := vblocks(send, recv, counts, displs, root)
	return c.coll(collOf(mpir.CollGatherv, mpir.Blocking), &a)
}

// gatherv is Gatherv unrecorded, for the calls made of it (the value collectives).
func gatherv[T Elem](c *Comm, send, recv []T, counts, displs []int, root int) error {
	a := vblocks(send, recv, counts, displs, root)
	return c.coll(unrecorded[mpir.CollGatherv][mpir.Blocking], &a)
}

// Scatter sends block i of root's send (Size()*len(recv) elements) to rank i's recv.
// In place at root: recv is InPlace[T]() and root's block stays in send.
func Scatter[T Elem](c *Comm, send, recv []T, root int) error {
	a := blocks(send, recv, root)
	return c.coll(collOf(mpir.CollScatter, mpir.Blocking), &a)
}

// scatter is Scatter unrecorded, for the calls made of it (the value collectives).
func scatter[T Elem](c *Comm, send, recv []T, root int) error {
	a := blocks(send, recv, root)
	return c.coll(unrecorded[mpir.CollScatter][mpir.Blocking], &a)
}

// Scatterv is Scatter with rank i's block of counts[i] elements at send[displs[i]:];
// send, counts and displs matter at root only. In place at root: recv is InPlace[T]().
func Scatterv[T Elem](c *Comm, send []T, counts, displs []int, recv []T, root int) error {
	a := vblocks(send, recv, counts, displs, root)
	return c.coll(collOf(mpir.CollScatterv, mpir.Blocking), &a)
}

// scatterv is Scatterv unrecorded, for the calls made of it (the value collectives).
func scatterv[T Elem](c *Comm, send []T, counts, displs []int, recv []T, root int) error {
	a := vblocks(send, recv, counts, displs, root)
	return c.coll(unrecorded[mpir.CollScatterv][mpir.Blocking], &a)
}

// Allgather collects every rank's send into every rank's recv (Size()*len(send)
// elements), rank i's at recv[i*len(send):]. In place: send is InPlace[T]() and this
// rank's block is already in recv.
func Allgather[T Elem](c *Comm, send, recv []T) error {
	if c.special() {
		a := blocks(send, recv, 0)
		return c.coll(pAllgather, &a)
	}
	var s, rv collective.Vec
	setVec(&s, send)
	setVec(&rv, recv)
	return c.fail("Allgather", mpir.Allgather(pAllgather, c.dev(), &s, &rv, nil))
}

// allgather is Allgather unrecorded, for the calls made of it (the value collectives).
func allgather[T Elem](c *Comm, send, recv []T) error {
	a := blocks(send, recv, 0)
	return c.coll(unrecorded[mpir.CollAllgather][mpir.Blocking], &a)
}

// Allgatherv is Allgather with rank i's block of counts[i] elements at recv[displs[i]:].
// In place: send is InPlace[T]().
func Allgatherv[T Elem](c *Comm, send, recv []T, counts, displs []int) error {
	a := vblocks(send, recv, counts, displs, 0)
	return c.coll(collOf(mpir.CollAllgatherv, mpir.Blocking), &a)
}

// allgatherv is Allgatherv unrecorded, for the calls made of it (the value collectives).
func allgatherv[T Elem](c *Comm, send, recv []T, counts, displs []int) error {
	a := vblocks(send, recv, counts, displs, 0)
	return c.coll(unrecorded[mpir.CollAllgatherv][mpir.Blocking], &a)
}

// Alltoall sends block j of send to rank j, which receives it as block i (this rank's)
// of its recv; send and recv are Size() blocks of equal length. In place: send is
// InPlace[T]() and the blocks to send are in recv.
func Alltoall[T Elem](c *Comm, send, recv []T) error {
	a := blocks(send, recv, 0)
	return c.coll(collOf(mpir.CollAlltoall, mpir.Blocking), &a)
}

// alltoall is Alltoall unrecorded, for the calls made of it (the value collectives).
func alltoall[T Elem](c *Comm, send, recv []T) error {
	a := blocks(send, recv, 0)
	return c.coll(unrecorded[mpir.CollAlltoall][mpir.Blocking], &a)
}

// alltoallvArgs are Alltoallv's arguments.
func alltoallvArgs[T Elem](send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) mpir.CollArgs {
	return mpir.CollArgs{Send: vec(send), SCounts: scounts, SDispls: sdispls, Recv: vec(recv), Counts: rcounts, Displs: rdispls}
}

// Alltoallv is Alltoall with per-rank counts and displacements, in elements. In place:
// send is InPlace[T]() (scounts and sdispls are then ignored), and the data to send is
// in recv, laid out by rcounts and rdispls.
func Alltoallv[T Elem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) error {
	a := alltoallvArgs(send, scounts, sdispls, recv, rcounts, rdispls)
	return c.coll(collOf(mpir.CollAlltoallv, mpir.Blocking), &a)
}

// alltoallv is Alltoallv unrecorded, for the calls made of it (the value collectives).
func alltoallv[T Elem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) error {
	a := alltoallvArgs(send, scounts, sdispls, recv, rcounts, rdispls)
	return c.coll(unrecorded[mpir.CollAlltoallv][mpir.Blocking], &a)
}

// ReduceScatterBlock combines every rank's send (Size()*len(recv) elements) with op and
// leaves block i of the result in rank i's recv. In place: send is InPlace[T](), recv
// holds the whole input and gets the result in recv[:len(recv)/Size()].
func ReduceScatterBlock[T Elem](c *Comm, send, recv []T, op Op) error {
	p := collOf(mpir.CollReduceScatterBlock, mpir.Blocking)
	a := reduction(p, send, recv, op)
	return c.coll(p, &a)
}

// ReduceScatter combines every rank's send (sum of counts elements) with op and leaves
// the counts[i] elements of block i of the result in rank i's recv. In place: send is
// InPlace[T](), recv holds the whole input and gets the result in recv[:counts[rank]].
func ReduceScatter[T Elem](c *Comm, send, recv []T, counts []int, op Op) error {
	p := collOf(mpir.CollReduceScatter, mpir.Blocking)
	a := reduction(p, send, recv, op)
	a.Counts = counts
	return c.coll(p, &a)
}

// Scan leaves in rank r's recv the combination with op of the sends of ranks 0..r, in
// rank order. In place: send is InPlace[T]() and the input is in recv.
func Scan[T Elem](c *Comm, send, recv []T, op Op) error {
	p := collOf(mpir.CollScan, mpir.Blocking)
	a := reduction(p, send, recv, op)
	return c.coll(p, &a)
}

// Exscan leaves in rank r's recv the combination of the sends of ranks 0..r-1; rank
// 0's recv is left as it was. In place: send is InPlace[T]().
func Exscan[T Elem](c *Comm, send, recv []T, op Op) error {
	p := collOf(mpir.CollExscan, mpir.Blocking)
	a := reduction(p, send, recv, op)
	return c.coll(p, &a)
}

// The nonblocking collectives: each starts the blocking one's schedule and returns a
// Request that completes in the background; until Wait or Test reports it complete,
// its buffers belong to MPI. On an intercommunicator they run the intercommunicator
// schedules; Iscan and Iexscan, like Scan and Exscan, are not defined there.

// start makes the Request of a nonblocking collective (or persistent one), or passes
// its error through c's handler.
func (c *Comm) start(op string, p *core.Pending, err error) (Request, error) {
	if err != nil {
		return Request{}, c.fail(op, err)
	}
	return opReq(c, p), nil
}

// Ibarrier starts a barrier; the request completes once every rank has called it.
func (c *Comm) Ibarrier() (Request, error) {
	var a mpir.CollArgs
	return c.icoll(collOf(mpir.CollBarrier, mpir.Nonblocking), &a)
}

// Ibcast starts a Bcast.
func Ibcast[T Elem](c *Comm, buf []T, root int) (Request, error) {
	a := mpir.CollArgs{Send: vec(buf), Root: root}
	return c.icoll(collOf(mpir.CollBcast, mpir.Nonblocking), &a)
}

// Ireduce starts a Reduce.
func Ireduce[T Elem](c *Comm, send, recv []T, op Op, root int) (Request, error) {
	p := collOf(mpir.CollReduce, mpir.Nonblocking)
	a := reduction(p, send, recv, op)
	a.Root = root
	return c.icoll(p, &a)
}

// Iallreduce starts an Allreduce.
func Iallreduce[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	p := collOf(mpir.CollAllreduce, mpir.Nonblocking)
	a := reduction(p, send, recv, op)
	return c.icoll(p, &a)
}

// Igather starts a Gather.
func Igather[T Elem](c *Comm, send, recv []T, root int) (Request, error) {
	a := blocks(send, recv, root)
	return c.icoll(collOf(mpir.CollGather, mpir.Nonblocking), &a)
}

// Igatherv starts a Gatherv.
func Igatherv[T Elem](c *Comm, send, recv []T, counts, displs []int, root int) (Request, error) {
	a := vblocks(send, recv, counts, displs, root)
	return c.icoll(collOf(mpir.CollGatherv, mpir.Nonblocking), &a)
}

// Iscatter starts a Scatter.
func Iscatter[T Elem](c *Comm, send, recv []T, root int) (Request, error) {
	a := blocks(send, recv, root)
	return c.icoll(collOf(mpir.CollScatter, mpir.Nonblocking), &a)
}

// Iscatterv starts a Scatterv.
func Iscatterv[T Elem](c *Comm, send []T, counts, displs []int, recv []T, root int) (Request, error) {
	a := vblocks(send, recv, counts, displs, root)
	return c.icoll(collOf(mpir.CollScatterv, mpir.Nonblocking), &a)
}

// Iallgather starts an Allgather.
func Iallgather[T Elem](c *Comm, send, recv []T) (Request, error) {
	a := blocks(send, recv, 0)
	return c.icoll(collOf(mpir.CollAllgather, mpir.Nonblocking), &a)
}

// Iallgatherv starts an Allgatherv.
func Iallgatherv[T Elem](c *Comm, send, recv []T, counts, displs []int) (Request, error) {
	a := vblocks(send, recv, counts, displs, 0)
	return c.icoll(collOf(mpir.CollAllgatherv, mpir.Nonblocking), &a)
}

// Ialltoall starts an Alltoall.
func Ialltoall[T Elem](c *Comm, send, recv []T) (Request, error) {
	a := blocks(send, recv, 0)
	return c.icoll(collOf(mpir.CollAlltoall, mpir.Nonblocking), &a)
}

// Ialltoallv starts an Alltoallv.
func Ialltoallv[T Elem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (Request, error) {
	a := alltoallvArgs(send, scounts, sdispls, recv, rcounts, rdispls)
	return c.icoll(collOf(mpir.CollAlltoallv, mpir.Nonblocking), &a)
}

// IreduceScatterBlock starts a ReduceScatterBlock.
func IreduceScatterBlock[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	p := collOf(mpir.CollReduceScatterBlock, mpir.Nonblocking)
	a := reduction(p, send, recv, op)
	return c.icoll(p, &a)
}

// IreduceScatter starts a ReduceScatter.
func IreduceScatter[T Elem](c *Comm, send, recv []T, counts []int, op Op) (Request, error) {
	p := collOf(mpir.CollReduceScatter, mpir.Nonblocking)
	a := reduction(p, send, recv, op)
	a.Counts = counts
	return c.icoll(p, &a)
}

// Iscan starts a Scan.
func Iscan[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	p := collOf(mpir.CollScan, mpir.Nonblocking)
	a := reduction(p, send, recv, op)
	return c.icoll(p, &a)
}

// Iexscan starts an Exscan.
func Iexscan[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	p := collOf(mpir.CollExscan, mpir.Nonblocking)
	a := reduction(p, send, recv, op)
	return c.icoll(p, &a)
}

// The views' short collectives (see Comm.collArgs): functions, not literals in the
// generic callers, whose closures would carry their dictionaries on the heap.

func runBarrier(c *Comm, _ *collArgs) error { return mpir.Barrier(pBarrier, c.dev()) }

func runBcast(c *Comm, a *collArgs) error {
	return mpir.Bcast(a.p, c.dev(), &a.s, nil, a.root)
}

func runReduce(c *Comm, a *collArgs) error {
	return mpir.Reduce(a.p, c.dev(), &a.s, &a.r, &a.red, a.rerr, nil, a.root)
}

func runAllreduce(c *Comm, a *collArgs) error {
	return mpir.Allreduce(a.p, c.dev(), &a.s, &a.r, &a.red, a.rerr)
}
