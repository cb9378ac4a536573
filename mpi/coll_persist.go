package mpi

// Persistent collectives (MPI 4.1 §6.13, §8.7.2): each XInit makes an inactive
// persistent request for the collective X with the given buffers and arguments; Start
// (or Startall) runs it as the nonblocking IX, and a completion call (Wait, Test and
// their kin) completes the run and leaves the request inactive, to be started again.
// The buffers belong to MPI from Start until the run completes. As the standard
// requires, every member calls the Init functions in the same order and starts the
// requests in the same order. Every argument is checked by the Init call, as mpir's
// rules say (internal/mpir). Free releases the request (a run under way completes
// unobserved).

import (
	"github.com/mpigo/mpigo/internal/mpir"
)

// persist is the persistent form of collective k.
func persist(k mpir.CollKind) *mpir.Coll { return collOf(k, mpir.Persistent) }

// BarrierInit makes a persistent barrier (MPI_Barrier_init).
func (c *Comm) BarrierInit() (Request, error) {
	var a mpir.CollArgs
	return c.icoll(persist(mpir.CollBarrier), &a)
}

// BcastInit makes a persistent Bcast (MPI_Bcast_init).
func BcastInit[T Elem](c *Comm, buf []T, root int) (Request, error) {
	a := mpir.CollArgs{Send: vec(buf), Root: root}
	return c.icoll(persist(mpir.CollBcast), &a)
}

// ReduceInit makes a persistent Reduce (MPI_Reduce_init).
func ReduceInit[T Elem](c *Comm, send, recv []T, op Op, root int) (Request, error) {
	p := persist(mpir.CollReduce)
	a := reduction(p, send, recv, op)
	a.Root = root
	return c.icoll(p, &a)
}

// AllreduceInit makes a persistent Allreduce (MPI_Allreduce_init).
func AllreduceInit[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	p := persist(mpir.CollAllreduce)
	a := reduction(p, send, recv, op)
	return c.icoll(p, &a)
}

// GatherInit makes a persistent Gather (MPI_Gather_init).
func GatherInit[T Elem](c *Comm, send, recv []T, root int) (Request, error) {
	a := blocks(send, recv, root)
	return c.icoll(persist(mpir.CollGather), &a)
}

// GathervInit makes a persistent Gatherv (MPI_Gatherv_init).
func GathervInit[T Elem](c *Comm, send, recv []T, counts, displs []int, root int) (Request, error) {
	a := vblocks(send, recv, counts, displs, root)
	return c.icoll(persist(mpir.CollGatherv), &a)
}

// ScatterInit makes a persistent Scatter (MPI_Scatter_init).
func ScatterInit[T Elem](c *Comm, send, recv []T, root int) (Request, error) {
	a := blocks(send, recv, root)
	return c.icoll(persist(mpir.CollScatter), &a)
}

// ScattervInit makes a persistent Scatterv (MPI_Scatterv_init).
func ScattervInit[T Elem](c *Comm, send []T, counts, displs []int, recv []T, root int) (Request, error) {
	a := vblocks(send, recv, counts, displs, root)
	return c.icoll(persist(mpir.CollScatterv), &a)
}

// AllgatherInit makes a persistent Allgather (MPI_Allgather_init).
func AllgatherInit[T Elem](c *Comm, send, recv []T) (Request, error) {
	a := blocks(send, recv, 0)
	return c.icoll(persist(mpir.CollAllgather), &a)
}

// AllgathervInit makes a persistent Allgatherv (MPI_Allgatherv_init).
func AllgathervInit[T Elem](c *Comm, send, recv []T, counts, displs []int) (Request, error) {
	a := vblocks(send, recv, counts, displs, 0)
	return c.icoll(persist(mpir.CollAllgatherv), &a)
}

// AlltoallInit makes a persistent Alltoall (MPI_Alltoall_init).
func AlltoallInit[T Elem](c *Comm, send, recv []T) (Request, error) {
	a := blocks(send, recv, 0)
	return c.icoll(persist(mpir.CollAlltoall), &a)
}

// AlltoallvInit makes a persistent Alltoallv (MPI_Alltoallv_init).
func AlltoallvInit[T Elem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (Request, error) {
	a := alltoallvArgs(send, scounts, sdispls, recv, rcounts, rdispls)
	return c.icoll(persist(mpir.CollAlltoallv), &a)
}

// ReduceScatterBlockInit makes a persistent ReduceScatterBlock (MPI_Reduce_scatter_block_init).
func ReduceScatterBlockInit[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	p := persist(mpir.CollReduceScatterBlock)
	a := reduction(p, send, recv, op)
	return c.icoll(p, &a)
}

// ReduceScatterInit makes a persistent ReduceScatter (MPI_Reduce_scatter_init).
func ReduceScatterInit[T Elem](c *Comm, send, recv []T, counts []int, op Op) (Request, error) {
	p := persist(mpir.CollReduceScatter)
	a := reduction(p, send, recv, op)
	a.Counts = counts
	return c.icoll(p, &a)
}

// ScanInit makes a persistent Scan (MPI_Scan_init).
func ScanInit[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	p := persist(mpir.CollScan)
	a := reduction(p, send, recv, op)
	return c.icoll(p, &a)
}

// ExscanInit makes a persistent Exscan (MPI_Exscan_init).
func ExscanInit[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	p := persist(mpir.CollExscan)
	a := reduction(p, send, recv, op)
	return c.icoll(p, &a)
}

// AlltoallwInit makes a persistent Alltoallw (MPI_Alltoallw_init).
func AlltoallwInit[S, R any](c *Comm, send []S, scounts, sdispls []int, stypes []*Datatype, recv []R, rcounts, rdispls []int, rtypes []*Datatype) (Request, error) {
	p, err := alltoallw(mpir.Persistent, c, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	return c.start("AlltoallwInit", p, err)
}

// BcastInitBuf makes a persistent Bcast (MPI_Bcast_init).
func BcastInitBuf(c *Comm, buf Buf, root int) (Request, error) {
	p := persist(mpir.CollBcast)
	a := mpir.CollArgs{Root: root}
	a.Send, a.SendErr = buf.cvec(p.Op, "buf")
	return c.icoll(p, &a)
}

// GatherInitBuf makes a persistent Gather (MPI_Gather_init).
func GatherInitBuf(c *Comm, send, recv Buf, root int) (Request, error) {
	a := bufArgs("GatherInit", send, recv, root)
	return c.icoll(persist(mpir.CollGather), &a)
}

// GathervInitBuf makes a persistent Gatherv (MPI_Gatherv_init).
func GathervInitBuf(c *Comm, send, recv Buf, counts, displs []int, root int) (Request, error) {
	a := vbufArgs("GathervInit", send, recv, counts, displs, root)
	return c.icoll(persist(mpir.CollGatherv), &a)
}

// ScatterInitBuf makes a persistent Scatter (MPI_Scatter_init).
func ScatterInitBuf(c *Comm, send, recv Buf, root int) (Request, error) {
	a := bufArgs("ScatterInit", send, recv, root)
	return c.icoll(persist(mpir.CollScatter), &a)
}

// ScattervInitBuf makes a persistent Scatterv (MPI_Scatterv_init).
func ScattervInitBuf(c *Comm, send Buf, counts, displs []int, recv Buf, root int) (Request, error) {
	a := vbufArgs("ScattervInit", send, recv, counts, displs, root)
	return c.icoll(persist(mpir.CollScatterv), &a)
}

// AllgatherInitBuf makes a persistent Allgather (MPI_Allgather_init).
func AllgatherInitBuf(c *Comm, send, recv Buf) (Request, error) {
	a := bufArgs("AllgatherInit", send, recv, 0)
	return c.icoll(persist(mpir.CollAllgather), &a)
}

// AllgathervInitBuf makes a persistent Allgatherv (MPI_Allgatherv_init).
func AllgathervInitBuf(c *Comm, send, recv Buf, counts, displs []int) (Request, error) {
	a := vbufArgs("AllgathervInit", send, recv, counts, displs, 0)
	return c.icoll(persist(mpir.CollAllgatherv), &a)
}

// AlltoallInitBuf makes a persistent Alltoall (MPI_Alltoall_init).
func AlltoallInitBuf(c *Comm, send, recv Buf) (Request, error) {
	a := bufArgs("AlltoallInit", send, recv, 0)
	return c.icoll(persist(mpir.CollAlltoall), &a)
}

// AlltoallvInitBuf makes a persistent Alltoallv (MPI_Alltoallv_init).
func AlltoallvInitBuf(c *Comm, send Buf, scounts, sdispls []int, recv Buf, rcounts, rdispls []int) (Request, error) {
	a := alltoallvBufArgs("AlltoallvInit", send, scounts, sdispls, recv, rcounts, rdispls)
	return c.icoll(persist(mpir.CollAlltoallv), &a)
}

// ReduceInitBuf makes a persistent Reduce (MPI_Reduce_init).
func ReduceInitBuf(c *Comm, send, recv Buf, op Op, root int) (Request, error) {
	return (&redCall{m: mpir.Persistent, c: c, kind: kReduce, root: root}).start(&send, &recv, op)
}

// AllreduceInitBuf makes a persistent Allreduce (MPI_Allreduce_init).
func AllreduceInitBuf(c *Comm, send, recv Buf, op Op) (Request, error) {
	return (&redCall{m: mpir.Persistent, c: c, kind: kAllreduce}).start(&send, &recv, op)
}

// ReduceScatterBlockInitBuf makes a persistent ReduceScatterBlock (MPI_Reduce_scatter_block_init).
func ReduceScatterBlockInitBuf(c *Comm, send, recv Buf, op Op) (Request, error) {
	return (&redCall{m: mpir.Persistent, c: c, kind: kReduceScatterBlock}).start(&send, &recv, op)
}

// ReduceScatterInitBuf makes a persistent ReduceScatter (MPI_Reduce_scatter_init).
func ReduceScatterInitBuf(c *Comm, send, recv Buf, counts []int, op Op) (Request, error) {
	return (&redCall{m: mpir.Persistent, c: c, kind: kReduceScatter, counts: counts}).start(&send, &recv, op)
}

// ScanInitBuf makes a persistent Scan (MPI_Scan_init).
func ScanInitBuf(c *Comm, send, recv Buf, op Op) (Request, error) {
	return (&redCall{m: mpir.Persistent, c: c, kind: kScan}).start(&send, &recv, op)
}

// ExscanInitBuf makes a persistent Exscan (MPI_Exscan_init).
func ExscanInitBuf(c *Comm, send, recv Buf, op Op) (Request, error) {
	return (&redCall{m: mpir.Persistent, c: c, kind: kExscan}).start(&send, &recv, op)
}

// NeighborAllgatherInit makes a persistent NeighborAllgather (MPI_Neighbor_allgather_init).
func NeighborAllgatherInit[T Elem](c *Comm, send, recv []T) (Request, error) {
	p, err := neighborAllgather(mpir.Persistent, c, send, recv)
	return c.start("NeighborAllgatherInit", p, err)
}

// NeighborAllgathervInit makes a persistent NeighborAllgatherv (MPI_Neighbor_allgatherv_init).
func NeighborAllgathervInit[T Elem](c *Comm, send, recv []T, counts, displs []int) (Request, error) {
	p, err := neighborAllgatherv(mpir.Persistent, c, send, recv, counts, displs)
	return c.start("NeighborAllgathervInit", p, err)
}

// NeighborAlltoallInit makes a persistent NeighborAlltoall (MPI_Neighbor_alltoall_init).
func NeighborAlltoallInit[T Elem](c *Comm, send, recv []T) (Request, error) {
	p, err := neighborAlltoall(mpir.Persistent, c, send, recv)
	return c.start("NeighborAlltoallInit", p, err)
}

// NeighborAlltoallvInit makes a persistent NeighborAlltoallv (MPI_Neighbor_alltoallv_init).
func NeighborAlltoallvInit[T Elem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (Request, error) {
	p, err := neighborAlltoallv(mpir.Persistent, c, send, scounts, sdispls, recv, rcounts, rdispls)
	return c.start("NeighborAlltoallvInit", p, err)
}

// NeighborAllgatherInitBuf makes a persistent NeighborAllgather (MPI_Neighbor_allgather_init).
func NeighborAllgatherInitBuf(c *Comm, send, recv Buf) (Request, error) {
	p, err := neighborAllgatherBuf(mpir.Persistent, c, send, recv)
	return c.start("NeighborAllgatherInit", p, err)
}

// NeighborAllgathervInitBuf makes a persistent NeighborAllgatherv (MPI_Neighbor_allgatherv_init).
func NeighborAllgathervInitBuf(c *Comm, send, recv Buf, counts, displs []int) (Request, error) {
	p, err := neighborAllgathervBuf(mpir.Persistent, c, send, recv, counts, displs)
	return c.start("NeighborAllgathervInit", p, err)
}

// NeighborAlltoallInitBuf makes a persistent NeighborAlltoall (MPI_Neighbor_alltoall_init).
func NeighborAlltoallInitBuf(c *Comm, send, recv Buf) (Request, error) {
	p, err := neighborAlltoallBuf(mpir.Persistent, c, send, recv)
	return c.start("NeighborAlltoallInit", p, err)
}

// NeighborAlltoallvInitBuf makes a persistent NeighborAlltoallv (MPI_Neighbor_alltoallv_init).
func NeighborAlltoallvInitBuf(c *Comm, send Buf, scounts, sdispls []int, recv Buf, rcounts, rdispls []int) (Request, error) {
	p, err := neighborAlltoallvBuf(mpir.Persistent, c, send, scounts, sdispls, recv, rcounts, rdispls)
	return c.start("NeighborAlltoallvInit", p, err)
}

// NeighborAlltoallwInit makes a persistent NeighborAlltoallw (MPI_Neighbor_alltoallw_init).
func NeighborAlltoallwInit[S, R any](c *Comm, send []S, scounts, sdispls []int, stypes []*Datatype, recv []R, rcounts, rdispls []int, rtypes []*Datatype) (Request, error) {
	p, err := neighborAlltoallw(mpir.Persistent, c, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	return c.start("NeighborAlltoallwInit", p, err)
}
