package mpi

// Persistent collectives (MPI 4.1 §6.13, §8.7.2): each XInit makes an inactive
// persistent request for the collective X with the given buffers and arguments; Start
// (or Startall) runs it as the nonblocking IX, and a completion call (Wait, Test and
// their kin) completes the run and leaves the request inactive, to be started again.
// The buffers belong to MPI from Start until the run completes. As the standard
// requires, every member calls the Init functions in the same order and starts the
// requests in the same order. Every argument is checked by the Init call. Free releases the
// request (a run under way completes unobserved).

import (
	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// persistent makes the persistent request whose every run start begins, once start
// has passed its argument checks (which go through the handler as an error of the
// nonblocking call's).
func (c *Comm) persistent(op string, start func() (Request, error)) (Request, error) {
	if err := c.check(op); err != nil {
		return Request{}, err
	}
	err := collective.CheckArgs(c.dev(), func() error {
		r, err := start()
		if err == nil && r.x != nil {
			r.ref().Free()
			return c.fail(op, errorf(ClassIntern, op, "the argument check started the operation"))
		}
		return err // through the handler already, as the nonblocking call's error
	})
	if err != nil {
		return Request{}, err
	}
	return persistReq(c, start), nil
}

func persistReq(c *Comm, start func() (Request, error)) Request {
	return Request{c: c, x: collective.Persistent(func() (*core.Pending, error) {
		r, err := start()
		return r.x, err
	})}
}

// BarrierInit makes a persistent barrier (MPI_Barrier_init).
func (c *Comm) BarrierInit() (Request, error) {
	defer prof.Exit(prof.BarrierInit, c.enter(prof.BarrierInit, prof.NoPeer, 0), 0)
	return c.persistent("BarrierInit", c.Ibarrier)
}

// BcastInit makes a persistent Bcast (MPI_Bcast_init).
func BcastInit[T Elem](c *Comm, buf []T, root int) (Request, error) {
	defer prof.Exit(prof.BcastInit, c.enter(prof.BcastInit, root, nbytes(buf)), nbytes(buf))
	return c.persistent("BcastInit", func() (Request, error) { return Ibcast[T](c, buf, root) })
}

// ReduceInit makes a persistent Reduce (MPI_Reduce_init).
func ReduceInit[T Elem](c *Comm, send, recv []T, op Op, root int) (Request, error) {
	defer prof.Exit(prof.ReduceInit, c.enter(prof.ReduceInit, root, collBytes(send, recv)), collBytes(send, recv))
	return c.persistent("ReduceInit", func() (Request, error) { return Ireduce[T](c, send, recv, op, root) })
}

// AllreduceInit makes a persistent Allreduce (MPI_Allreduce_init).
func AllreduceInit[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	defer prof.Exit(prof.AllreduceInit, c.enter(prof.AllreduceInit, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	return c.persistent("AllreduceInit", func() (Request, error) { return Iallreduce[T](c, send, recv, op) })
}

// GatherInit makes a persistent Gather (MPI_Gather_init).
func GatherInit[T Elem](c *Comm, send, recv []T, root int) (Request, error) {
	defer prof.Exit(prof.GatherInit, c.enter(prof.GatherInit, root, collBytes(send, recv)), collBytes(send, recv))
	return c.persistent("GatherInit", func() (Request, error) { return Igather[T](c, send, recv, root) })
}

// GathervInit makes a persistent Gatherv (MPI_Gatherv_init).
func GathervInit[T Elem](c *Comm, send, recv []T, counts, displs []int, root int) (Request, error) {
	defer prof.Exit(prof.GathervInit, c.enter(prof.GathervInit, root, collBytes(send, recv)), collBytes(send, recv))
	return c.persistent("GathervInit", func() (Request, error) { return Igatherv[T](c, send, recv, counts, displs, root) })
}

// ScatterInit makes a persistent Scatter (MPI_Scatter_init).
func ScatterInit[T Elem](c *Comm, send, recv []T, root int) (Request, error) {
	defer prof.Exit(prof.ScatterInit, c.enter(prof.ScatterInit, root, collBytes(send, recv)), collBytes(send, recv))
	return c.persistent("ScatterInit", func() (Request, error) { return Iscatter[T](c, send, recv, root) })
}

// ScattervInit makes a persistent Scatterv (MPI_Scatterv_init).
func ScattervInit[T Elem](c *Comm, send []T, counts, displs []int, recv []T, root int) (Request, error) {
	defer prof.Exit(prof.ScattervInit, c.enter(prof.ScattervInit, root, nbytes(send)), nbytes(send))
	return c.persistent("ScattervInit", func() (Request, error) { return Iscatterv[T](c, send, counts, displs, recv, root) })
}

// AllgatherInit makes a persistent Allgather (MPI_Allgather_init).
func AllgatherInit[T Elem](c *Comm, send, recv []T) (Request, error) {
	defer prof.Exit(prof.AllgatherInit, c.enter(prof.AllgatherInit, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	return c.persistent("AllgatherInit", func() (Request, error) { return Iallgather[T](c, send, recv) })
}

// AllgathervInit makes a persistent Allgatherv (MPI_Allgatherv_init).
func AllgathervInit[T Elem](c *Comm, send, recv []T, counts, displs []int) (Request, error) {
	defer prof.Exit(prof.AllgathervInit, c.enter(prof.AllgathervInit, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	return c.persistent("AllgathervInit", func() (Request, error) { return Iallgatherv[T](c, send, recv, counts, displs) })
}

// AlltoallInit makes a persistent Alltoall (MPI_Alltoall_init).
func AlltoallInit[T Elem](c *Comm, send, recv []T) (Request, error) {
	defer prof.Exit(prof.AlltoallInit, c.enter(prof.AlltoallInit, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	return c.persistent("AlltoallInit", func() (Request, error) { return Ialltoall[T](c, send, recv) })
}

// AlltoallvInit makes a persistent Alltoallv (MPI_Alltoallv_init).
func AlltoallvInit[T Elem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (Request, error) {
	defer prof.Exit(prof.AlltoallvInit, c.enter(prof.AlltoallvInit, prof.NoPeer, nbytes(send)), nbytes(send))
	return c.persistent("AlltoallvInit", func() (Request, error) { return Ialltoallv[T](c, send, scounts, sdispls, recv, rcounts, rdispls) })
}

// ReduceScatterBlockInit makes a persistent ReduceScatterBlock (MPI_Reduce_scatter_block_init).
func ReduceScatterBlockInit[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	defer prof.Exit(prof.ReduceScatterBlockInit, c.enter(prof.ReduceScatterBlockInit, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	return c.persistent("ReduceScatterBlockInit", func() (Request, error) { return IreduceScatterBlock[T](c, send, recv, op) })
}

// ReduceScatterInit makes a persistent ReduceScatter (MPI_Reduce_scatter_init).
func ReduceScatterInit[T Elem](c *Comm, send, recv []T, counts []int, op Op) (Request, error) {
	defer prof.Exit(prof.ReduceScatterInit, c.enter(prof.ReduceScatterInit, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	return c.persistent("ReduceScatterInit", func() (Request, error) { return IreduceScatter[T](c, send, recv, counts, op) })
}

// ScanInit makes a persistent Scan (MPI_Scan_init).
func ScanInit[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	defer prof.Exit(prof.ScanInit, c.enter(prof.ScanInit, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	return c.persistent("ScanInit", func() (Request, error) { return Iscan[T](c, send, recv, op) })
}

// ExscanInit makes a persistent Exscan (MPI_Exscan_init).
func ExscanInit[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	defer prof.Exit(prof.ExscanInit, c.enter(prof.ExscanInit, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	return c.persistent("ExscanInit", func() (Request, error) { return Iexscan[T](c, send, recv, op) })
}

// AlltoallwInit makes a persistent Alltoallw (MPI_Alltoallw_init).
func AlltoallwInit[S, R any](c *Comm, send []S, scounts, sdispls []int, stypes []*Datatype, recv []R, rcounts, rdispls []int, rtypes []*Datatype) (Request, error) {
	defer prof.Exit(prof.AlltoallwInit, c.enter(prof.AlltoallwInit, prof.NoPeer, wBytes(scounts, stypes)), wBytes(scounts, stypes))
	return c.persistent("AlltoallwInit", func() (Request, error) {
		return Ialltoallw[S, R](c, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	})
}

// BcastInitBuf makes a persistent Bcast (MPI_Bcast_init).
func BcastInitBuf(c *Comm, buf Buf, root int) (Request, error) {
	defer prof.Exit(prof.BcastInit, c.enter(prof.BcastInit, root, buf.size()), buf.size())
	return c.persistent("BcastInitBuf", func() (Request, error) { return IbcastBuf(c, buf, root) })
}

// GatherInitBuf makes a persistent Gather (MPI_Gather_init).
func GatherInitBuf(c *Comm, send, recv Buf, root int) (Request, error) {
	defer prof.Exit(prof.GatherInit, c.enter(prof.GatherInit, root, collSize(send, recv)), collSize(send, recv))
	return c.persistent("GatherInitBuf", func() (Request, error) { return IgatherBuf(c, send, recv, root) })
}

// GathervInitBuf makes a persistent Gatherv (MPI_Gatherv_init).
func GathervInitBuf(c *Comm, send, recv Buf, counts, displs []int, root int) (Request, error) {
	defer prof.Exit(prof.GathervInit, c.enter(prof.GathervInit, root, collSize(send, recv)), collSize(send, recv))
	return c.persistent("GathervInitBuf", func() (Request, error) { return IgathervBuf(c, send, recv, counts, displs, root) })
}

// ScatterInitBuf makes a persistent Scatter (MPI_Scatter_init).
func ScatterInitBuf(c *Comm, send, recv Buf, root int) (Request, error) {
	defer prof.Exit(prof.ScatterInit, c.enter(prof.ScatterInit, root, collSize(send, recv)), collSize(send, recv))
	return c.persistent("ScatterInitBuf", func() (Request, error) { return IscatterBuf(c, send, recv, root) })
}

// ScattervInitBuf makes a persistent Scatterv (MPI_Scatterv_init).
func ScattervInitBuf(c *Comm, send Buf, counts, displs []int, recv Buf, root int) (Request, error) {
	defer prof.Exit(prof.ScattervInit, c.enter(prof.ScattervInit, root, send.size()), send.size())
	return c.persistent("ScattervInitBuf", func() (Request, error) { return IscattervBuf(c, send, counts, displs, recv, root) })
}

// AllgatherInitBuf makes a persistent Allgather (MPI_Allgather_init).
func AllgatherInitBuf(c *Comm, send, recv Buf) (Request, error) {
	defer prof.Exit(prof.AllgatherInit, c.enter(prof.AllgatherInit, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	return c.persistent("AllgatherInitBuf", func() (Request, error) { return IallgatherBuf(c, send, recv) })
}

// AllgathervInitBuf makes a persistent Allgatherv (MPI_Allgatherv_init).
func AllgathervInitBuf(c *Comm, send, recv Buf, counts, displs []int) (Request, error) {
	defer prof.Exit(prof.AllgathervInit, c.enter(prof.AllgathervInit, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	return c.persistent("AllgathervInitBuf", func() (Request, error) { return IallgathervBuf(c, send, recv, counts, displs) })
}

// AlltoallInitBuf makes a persistent Alltoall (MPI_Alltoall_init).
func AlltoallInitBuf(c *Comm, send, recv Buf) (Request, error) {
	defer prof.Exit(prof.AlltoallInit, c.enter(prof.AlltoallInit, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	return c.persistent("AlltoallInitBuf", func() (Request, error) { return IalltoallBuf(c, send, recv) })
}

// AlltoallvInitBuf makes a persistent Alltoallv (MPI_Alltoallv_init).
func AlltoallvInitBuf(c *Comm, send Buf, scounts, sdispls []int, recv Buf, rcounts, rdispls []int) (Request, error) {
	defer prof.Exit(prof.AlltoallvInit, c.enter(prof.AlltoallvInit, prof.NoPeer, send.size()), send.size())
	return c.persistent("AlltoallvInitBuf", func() (Request, error) { return IalltoallvBuf(c, send, scounts, sdispls, recv, rcounts, rdispls) })
}

// ReduceInitBuf makes a persistent Reduce (MPI_Reduce_init).
func ReduceInitBuf(c *Comm, send, recv Buf, op Op, root int) (Request, error) {
	defer prof.Exit(prof.ReduceInit, c.enter(prof.ReduceInit, root, collSize(send, recv)), collSize(send, recv))
	return c.persistent("ReduceInitBuf", func() (Request, error) { return IreduceBuf(c, send, recv, op, root) })
}

// AllreduceInitBuf makes a persistent Allreduce (MPI_Allreduce_init).
func AllreduceInitBuf(c *Comm, send, recv Buf, op Op) (Request, error) {
	defer prof.Exit(prof.AllreduceInit, c.enter(prof.AllreduceInit, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	return c.persistent("AllreduceInitBuf", func() (Request, error) { return IallreduceBuf(c, send, recv, op) })
}

// ReduceScatterBlockInitBuf makes a persistent ReduceScatterBlock (MPI_Reduce_scatter_block_init).
func ReduceScatterBlockInitBuf(c *Comm, send, recv Buf, op Op) (Request, error) {
	defer prof.Exit(prof.ReduceScatterBlockInit, c.enter(prof.ReduceScatterBlockInit, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	return c.persistent("ReduceScatterBlockInitBuf", func() (Request, error) { return IreduceScatterBlockBuf(c, send, recv, op) })
}

// ReduceScatterInitBuf makes a persistent ReduceScatter (MPI_Reduce_scatter_init).
func ReduceScatterInitBuf(c *Comm, send, recv Buf, counts []int, op Op) (Request, error) {
	defer prof.Exit(prof.ReduceScatterInit, c.enter(prof.ReduceScatterInit, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	return c.persistent("ReduceScatterInitBuf", func() (Request, error) { return IreduceScatterBuf(c, send, recv, counts, op) })
}

// ScanInitBuf makes a persistent Scan (MPI_Scan_init).
func ScanInitBuf(c *Comm, send, recv Buf, op Op) (Request, error) {
	defer prof.Exit(prof.ScanInit, c.enter(prof.ScanInit, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	return c.persistent("ScanInitBuf", func() (Request, error) { return IscanBuf(c, send, recv, op) })
}

// ExscanInitBuf makes a persistent Exscan (MPI_Exscan_init).
func ExscanInitBuf(c *Comm, send, recv Buf, op Op) (Request, error) {
	defer prof.Exit(prof.ExscanInit, c.enter(prof.ExscanInit, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	return c.persistent("ExscanInitBuf", func() (Request, error) { return IexscanBuf(c, send, recv, op) })
}

// NeighborAllgatherInit makes a persistent NeighborAllgather (MPI_Neighbor_allgather_init).
func NeighborAllgatherInit[T Elem](c *Comm, send, recv []T) (Request, error) {
	defer prof.Exit(prof.NeighborAllgatherInit, c.enter(prof.NeighborAllgatherInit, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	return c.persistent("NeighborAllgatherInit", func() (Request, error) { return IneighborAllgather[T](c, send, recv) })
}

// NeighborAllgathervInit makes a persistent NeighborAllgatherv (MPI_Neighbor_allgatherv_init).
func NeighborAllgathervInit[T Elem](c *Comm, send, recv []T, counts, displs []int) (Request, error) {
	defer prof.Exit(prof.NeighborAllgathervInit, c.enter(prof.NeighborAllgathervInit, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	return c.persistent("NeighborAllgathervInit", func() (Request, error) { return IneighborAllgatherv[T](c, send, recv, counts, displs) })
}

// NeighborAlltoallInit makes a persistent NeighborAlltoall (MPI_Neighbor_alltoall_init).
func NeighborAlltoallInit[T Elem](c *Comm, send, recv []T) (Request, error) {
	defer prof.Exit(prof.NeighborAlltoallInit, c.enter(prof.NeighborAlltoallInit, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	return c.persistent("NeighborAlltoallInit", func() (Request, error) { return IneighborAlltoall[T](c, send, recv) })
}

// NeighborAlltoallvInit makes a persistent NeighborAlltoallv (MPI_Neighbor_alltoallv_init).
func NeighborAlltoallvInit[T Elem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (Request, error) {
	defer prof.Exit(prof.NeighborAlltoallvInit, c.enter(prof.NeighborAlltoallvInit, prof.NoPeer, nbytes(send)), nbytes(send))
	return c.persistent("NeighborAlltoallvInit", func() (Request, error) {
		return IneighborAlltoallv[T](c, send, scounts, sdispls, recv, rcounts, rdispls)
	})
}

// NeighborAllgatherInitBuf makes a persistent NeighborAllgather (MPI_Neighbor_allgather_init).
func NeighborAllgatherInitBuf(c *Comm, send, recv Buf) (Request, error) {
	defer prof.Exit(prof.NeighborAllgatherInit, c.enter(prof.NeighborAllgatherInit, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	return c.persistent("NeighborAllgatherInitBuf", func() (Request, error) { return IneighborAllgatherBuf(c, send, recv) })
}

// NeighborAllgathervInitBuf makes a persistent NeighborAllgatherv (MPI_Neighbor_allgatherv_init).
func NeighborAllgathervInitBuf(c *Comm, send, recv Buf, counts, displs []int) (Request, error) {
	defer prof.Exit(prof.NeighborAllgathervInit, c.enter(prof.NeighborAllgathervInit, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	return c.persistent("NeighborAllgathervInitBuf", func() (Request, error) { return IneighborAllgathervBuf(c, send, recv, counts, displs) })
}

// NeighborAlltoallInitBuf makes a persistent NeighborAlltoall (MPI_Neighbor_alltoall_init).
func NeighborAlltoallInitBuf(c *Comm, send, recv Buf) (Request, error) {
	defer prof.Exit(prof.NeighborAlltoallInit, c.enter(prof.NeighborAlltoallInit, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	return c.persistent("NeighborAlltoallInitBuf", func() (Request, error) { return IneighborAlltoallBuf(c, send, recv) })
}

// NeighborAlltoallvInitBuf makes a persistent NeighborAlltoallv (MPI_Neighbor_alltoallv_init).
func NeighborAlltoallvInitBuf(c *Comm, send Buf, scounts, sdispls []int, recv Buf, rcounts, rdispls []int) (Request, error) {
	defer prof.Exit(prof.NeighborAlltoallvInit, c.enter(prof.NeighborAlltoallvInit, prof.NoPeer, send.size()), send.size())
	return c.persistent("NeighborAlltoallvInitBuf", func() (Request, error) {
		return IneighborAlltoallvBuf(c, send, scounts, sdispls, recv, rcounts, rdispls)
	})
}

// NeighborAlltoallwInit makes a persistent NeighborAlltoallw (MPI_Neighbor_alltoallw_init).
func NeighborAlltoallwInit[S, R any](c *Comm, send []S, scounts, sdispls []int, stypes []*Datatype, recv []R, rcounts, rdispls []int, rtypes []*Datatype) (Request, error) {
	defer prof.Exit(prof.NeighborAlltoallwInit, c.enter(prof.NeighborAlltoallwInit, prof.NoPeer, wBytes(scounts, stypes)), wBytes(scounts, stypes))
	return c.persistent("NeighborAlltoallwInit", func() (Request, error) {
		return IneighborAlltoallw[S, R](c, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	})
}
