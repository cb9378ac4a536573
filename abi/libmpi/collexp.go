package main

// The exports of the collectives: every form (blocking, nonblocking, persistent;
// int and large-count) of each calls one function of coll.go or neighbor.go with
// the large-count arguments, big (the arrays are MPI_Count/MPI_Aint) and the mode.
// Written by a one-off script from procs.txt; keep them in step by hand.

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import "unsafe"

//export PMPI_Barrier
func PMPI_Barrier(ch uintptr) int32 {
	return barrier("Barrier", ch, false, nil, mBlock)
}

//export PMPI_Ibarrier
func PMPI_Ibarrier(ch uintptr, req unsafe.Pointer) int32 {
	return barrier("Ibarrier", ch, false, req, mNB)
}

//export PMPI_Barrier_init
func PMPI_Barrier_init(ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return barrier("Barrier_init", ch, false, req, mPersist(info))
}

//export PMPI_Bcast
func PMPI_Bcast(buffer unsafe.Pointer, count int32, datatype uintptr, root int32, ch uintptr) int32 {
	return bcast("Bcast", buffer, int64(count), datatype, root, ch, false, nil, mBlock)
}

//export PMPI_Bcast_c
func PMPI_Bcast_c(buffer unsafe.Pointer, count int64, datatype uintptr, root int32, ch uintptr) int32 {
	return bcast("Bcast", buffer, count, datatype, root, ch, true, nil, mBlock)
}

//export PMPI_Ibcast
func PMPI_Ibcast(buffer unsafe.Pointer, count int32, datatype uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	return bcast("Ibcast", buffer, int64(count), datatype, root, ch, false, req, mNB)
}

//export PMPI_Ibcast_c
func PMPI_Ibcast_c(buffer unsafe.Pointer, count int64, datatype uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	return bcast("Ibcast", buffer, count, datatype, root, ch, true, req, mNB)
}

//export PMPI_Bcast_init
func PMPI_Bcast_init(buffer unsafe.Pointer, count int32, datatype uintptr, root int32, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return bcast("Bcast_init", buffer, int64(count), datatype, root, ch, false, req, mPersist(info))
}

//export PMPI_Bcast_init_c
func PMPI_Bcast_init_c(buffer unsafe.Pointer, count int64, datatype uintptr, root int32, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return bcast("Bcast_init", buffer, count, datatype, root, ch, true, req, mPersist(info))
}

//export PMPI_Reduce
func PMPI_Reduce(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int32, datatype uintptr, op uintptr, root int32, ch uintptr) int32 {
	return reduce("Reduce", sendbuf, recvbuf, int64(count), datatype, op, root, ch, false, nil, mBlock)
}

//export PMPI_Reduce_c
func PMPI_Reduce_c(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int64, datatype uintptr, op uintptr, root int32, ch uintptr) int32 {
	return reduce("Reduce", sendbuf, recvbuf, count, datatype, op, root, ch, true, nil, mBlock)
}

//export PMPI_Ireduce
func PMPI_Ireduce(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int32, datatype uintptr, op uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	return reduce("Ireduce", sendbuf, recvbuf, int64(count), datatype, op, root, ch, false, req, mNB)
}

//export PMPI_Ireduce_c
func PMPI_Ireduce_c(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int64, datatype uintptr, op uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	return reduce("Ireduce", sendbuf, recvbuf, count, datatype, op, root, ch, true, req, mNB)
}

//export PMPI_Reduce_init
func PMPI_Reduce_init(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int32, datatype uintptr, op uintptr, root int32, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return reduce("Reduce_init", sendbuf, recvbuf, int64(count), datatype, op, root, ch, false, req, mPersist(info))
}

//export PMPI_Reduce_init_c
func PMPI_Reduce_init_c(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int64, datatype uintptr, op uintptr, root int32, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return reduce("Reduce_init", sendbuf, recvbuf, count, datatype, op, root, ch, true, req, mPersist(info))
}

//export PMPI_Allreduce
func PMPI_Allreduce(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int32, datatype uintptr, op uintptr, ch uintptr) int32 {
	return allreduce("Allreduce", sendbuf, recvbuf, int64(count), datatype, op, ch, false, nil, mBlock)
}

//export PMPI_Allreduce_c
func PMPI_Allreduce_c(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int64, datatype uintptr, op uintptr, ch uintptr) int32 {
	return allreduce("Allreduce", sendbuf, recvbuf, count, datatype, op, ch, true, nil, mBlock)
}

//export PMPI_Iallreduce
func PMPI_Iallreduce(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int32, datatype uintptr, op uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return allreduce("Iallreduce", sendbuf, recvbuf, int64(count), datatype, op, ch, false, req, mNB)
}

//export PMPI_Iallreduce_c
func PMPI_Iallreduce_c(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int64, datatype uintptr, op uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return allreduce("Iallreduce", sendbuf, recvbuf, count, datatype, op, ch, true, req, mNB)
}

//export PMPI_Allreduce_init
func PMPI_Allreduce_init(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int32, datatype uintptr, op uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return allreduce("Allreduce_init", sendbuf, recvbuf, int64(count), datatype, op, ch, false, req, mPersist(info))
}

//export PMPI_Allreduce_init_c
func PMPI_Allreduce_init_c(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int64, datatype uintptr, op uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return allreduce("Allreduce_init", sendbuf, recvbuf, count, datatype, op, ch, true, req, mPersist(info))
}

//export PMPI_Scan
func PMPI_Scan(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int32, datatype uintptr, op uintptr, ch uintptr) int32 {
	return scan("Scan", sendbuf, recvbuf, int64(count), datatype, op, ch, false, nil, mBlock)
}

//export PMPI_Scan_c
func PMPI_Scan_c(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int64, datatype uintptr, op uintptr, ch uintptr) int32 {
	return scan("Scan", sendbuf, recvbuf, count, datatype, op, ch, true, nil, mBlock)
}

//export PMPI_Iscan
func PMPI_Iscan(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int32, datatype uintptr, op uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return scan("Iscan", sendbuf, recvbuf, int64(count), datatype, op, ch, false, req, mNB)
}

//export PMPI_Iscan_c
func PMPI_Iscan_c(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int64, datatype uintptr, op uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return scan("Iscan", sendbuf, recvbuf, count, datatype, op, ch, true, req, mNB)
}

//export PMPI_Scan_init
func PMPI_Scan_init(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int32, datatype uintptr, op uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return scan("Scan_init", sendbuf, recvbuf, int64(count), datatype, op, ch, false, req, mPersist(info))
}

//export PMPI_Scan_init_c
func PMPI_Scan_init_c(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int64, datatype uintptr, op uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return scan("Scan_init", sendbuf, recvbuf, count, datatype, op, ch, true, req, mPersist(info))
}

//export PMPI_Exscan
func PMPI_Exscan(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int32, datatype uintptr, op uintptr, ch uintptr) int32 {
	return exscan("Exscan", sendbuf, recvbuf, int64(count), datatype, op, ch, false, nil, mBlock)
}

//export PMPI_Exscan_c
func PMPI_Exscan_c(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int64, datatype uintptr, op uintptr, ch uintptr) int32 {
	return exscan("Exscan", sendbuf, recvbuf, count, datatype, op, ch, true, nil, mBlock)
}

//export PMPI_Iexscan
func PMPI_Iexscan(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int32, datatype uintptr, op uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return exscan("Iexscan", sendbuf, recvbuf, int64(count), datatype, op, ch, false, req, mNB)
}

//export PMPI_Iexscan_c
func PMPI_Iexscan_c(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int64, datatype uintptr, op uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return exscan("Iexscan", sendbuf, recvbuf, count, datatype, op, ch, true, req, mNB)
}

//export PMPI_Exscan_init
func PMPI_Exscan_init(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int32, datatype uintptr, op uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return exscan("Exscan_init", sendbuf, recvbuf, int64(count), datatype, op, ch, false, req, mPersist(info))
}

//export PMPI_Exscan_init_c
func PMPI_Exscan_init_c(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count int64, datatype uintptr, op uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return exscan("Exscan_init", sendbuf, recvbuf, count, datatype, op, ch, true, req, mPersist(info))
}

//export PMPI_Reduce_scatter_block
func PMPI_Reduce_scatter_block(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcount int32, datatype uintptr, op uintptr, ch uintptr) int32 {
	return reduceScatterBlock("Reduce_scatter_block", sendbuf, recvbuf, int64(recvcount), datatype, op, ch, false, nil, mBlock)
}

//export PMPI_Reduce_scatter_block_c
func PMPI_Reduce_scatter_block_c(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcount int64, datatype uintptr, op uintptr, ch uintptr) int32 {
	return reduceScatterBlock("Reduce_scatter_block", sendbuf, recvbuf, recvcount, datatype, op, ch, true, nil, mBlock)
}

//export PMPI_Ireduce_scatter_block
func PMPI_Ireduce_scatter_block(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcount int32, datatype uintptr, op uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return reduceScatterBlock("Ireduce_scatter_block", sendbuf, recvbuf, int64(recvcount), datatype, op, ch, false, req, mNB)
}

//export PMPI_Ireduce_scatter_block_c
func PMPI_Ireduce_scatter_block_c(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcount int64, datatype uintptr, op uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return reduceScatterBlock("Ireduce_scatter_block", sendbuf, recvbuf, recvcount, datatype, op, ch, true, req, mNB)
}

//export PMPI_Reduce_scatter_block_init
func PMPI_Reduce_scatter_block_init(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcount int32, datatype uintptr, op uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return reduceScatterBlock("Reduce_scatter_block_init", sendbuf, recvbuf, int64(recvcount), datatype, op, ch, false, req, mPersist(info))
}

//export PMPI_Reduce_scatter_block_init_c
func PMPI_Reduce_scatter_block_init_c(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcount int64, datatype uintptr, op uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return reduceScatterBlock("Reduce_scatter_block_init", sendbuf, recvbuf, recvcount, datatype, op, ch, true, req, mPersist(info))
}

//export PMPI_Reduce_scatter
func PMPI_Reduce_scatter(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, datatype uintptr, op uintptr, ch uintptr) int32 {
	return reduceScatter("Reduce_scatter", sendbuf, recvbuf, recvcounts, datatype, op, ch, false, nil, mBlock)
}

//export PMPI_Reduce_scatter_c
func PMPI_Reduce_scatter_c(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, datatype uintptr, op uintptr, ch uintptr) int32 {
	return reduceScatter("Reduce_scatter", sendbuf, recvbuf, recvcounts, datatype, op, ch, true, nil, mBlock)
}

//export PMPI_Ireduce_scatter
func PMPI_Ireduce_scatter(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, datatype uintptr, op uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return reduceScatter("Ireduce_scatter", sendbuf, recvbuf, recvcounts, datatype, op, ch, false, req, mNB)
}

//export PMPI_Ireduce_scatter_c
func PMPI_Ireduce_scatter_c(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, datatype uintptr, op uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return reduceScatter("Ireduce_scatter", sendbuf, recvbuf, recvcounts, datatype, op, ch, true, req, mNB)
}

//export PMPI_Reduce_scatter_init
func PMPI_Reduce_scatter_init(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, datatype uintptr, op uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return reduceScatter("Reduce_scatter_init", sendbuf, recvbuf, recvcounts, datatype, op, ch, false, req, mPersist(info))
}

//export PMPI_Reduce_scatter_init_c
func PMPI_Reduce_scatter_init_c(sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, datatype uintptr, op uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return reduceScatter("Reduce_scatter_init", sendbuf, recvbuf, recvcounts, datatype, op, ch, true, req, mPersist(info))
}

//export PMPI_Gather
func PMPI_Gather(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, root int32, ch uintptr) int32 {
	return gather("Gather", sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), recvtype, root, ch, false, nil, mBlock)
}

//export PMPI_Gather_c
func PMPI_Gather_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, root int32, ch uintptr) int32 {
	return gather("Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, ch, true, nil, mBlock)
}

//export PMPI_Igather
func PMPI_Igather(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	return gather("Igather", sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), recvtype, root, ch, false, req, mNB)
}

//export PMPI_Igather_c
func PMPI_Igather_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	return gather("Igather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, ch, true, req, mNB)
}

//export PMPI_Gather_init
func PMPI_Gather_init(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, root int32, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return gather("Gather_init", sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), recvtype, root, ch, false, req, mPersist(info))
}

//export PMPI_Gather_init_c
func PMPI_Gather_init_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, root int32, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return gather("Gather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, ch, true, req, mPersist(info))
}

//export PMPI_Gatherv
func PMPI_Gatherv(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, displs unsafe.Pointer, recvtype uintptr, root int32, ch uintptr) int32 {
	return gatherv("Gatherv", sendbuf, int64(sendcount), sendtype, recvbuf, recvcounts, displs, recvtype, root, ch, false, nil, mBlock)
}

//export PMPI_Gatherv_c
func PMPI_Gatherv_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, displs unsafe.Pointer, recvtype uintptr, root int32, ch uintptr) int32 {
	return gatherv("Gatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, ch, true, nil, mBlock)
}

//export PMPI_Igatherv
func PMPI_Igatherv(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, displs unsafe.Pointer, recvtype uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	return gatherv("Igatherv", sendbuf, int64(sendcount), sendtype, recvbuf, recvcounts, displs, recvtype, root, ch, false, req, mNB)
}

//export PMPI_Igatherv_c
func PMPI_Igatherv_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, displs unsafe.Pointer, recvtype uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	return gatherv("Igatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, ch, true, req, mNB)
}

//export PMPI_Gatherv_init
func PMPI_Gatherv_init(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, displs unsafe.Pointer, recvtype uintptr, root int32, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return gatherv("Gatherv_init", sendbuf, int64(sendcount), sendtype, recvbuf, recvcounts, displs, recvtype, root, ch, false, req, mPersist(info))
}

//export PMPI_Gatherv_init_c
func PMPI_Gatherv_init_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, displs unsafe.Pointer, recvtype uintptr, root int32, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return gatherv("Gatherv_init", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, ch, true, req, mPersist(info))
}

//export PMPI_Scatter
func PMPI_Scatter(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, root int32, ch uintptr) int32 {
	return scatter("Scatter", sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), recvtype, root, ch, false, nil, mBlock)
}

//export PMPI_Scatter_c
func PMPI_Scatter_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, root int32, ch uintptr) int32 {
	return scatter("Scatter", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, ch, true, nil, mBlock)
}

//export PMPI_Iscatter
func PMPI_Iscatter(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	return scatter("Iscatter", sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), recvtype, root, ch, false, req, mNB)
}

//export PMPI_Iscatter_c
func PMPI_Iscatter_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	return scatter("Iscatter", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, ch, true, req, mNB)
}

//export PMPI_Scatter_init
func PMPI_Scatter_init(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, root int32, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return scatter("Scatter_init", sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), recvtype, root, ch, false, req, mPersist(info))
}

//export PMPI_Scatter_init_c
func PMPI_Scatter_init_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, root int32, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return scatter("Scatter_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, ch, true, req, mPersist(info))
}

//export PMPI_Scatterv
func PMPI_Scatterv(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, displs unsafe.Pointer, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, root int32, ch uintptr) int32 {
	return scatterv("Scatterv", sendbuf, sendcounts, displs, sendtype, recvbuf, int64(recvcount), recvtype, root, ch, false, nil, mBlock)
}

//export PMPI_Scatterv_c
func PMPI_Scatterv_c(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, displs unsafe.Pointer, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, root int32, ch uintptr) int32 {
	return scatterv("Scatterv", sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, ch, true, nil, mBlock)
}

//export PMPI_Iscatterv
func PMPI_Iscatterv(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, displs unsafe.Pointer, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	return scatterv("Iscatterv", sendbuf, sendcounts, displs, sendtype, recvbuf, int64(recvcount), recvtype, root, ch, false, req, mNB)
}

//export PMPI_Iscatterv_c
func PMPI_Iscatterv_c(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, displs unsafe.Pointer, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	return scatterv("Iscatterv", sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, ch, true, req, mNB)
}

//export PMPI_Scatterv_init
func PMPI_Scatterv_init(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, displs unsafe.Pointer, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, root int32, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return scatterv("Scatterv_init", sendbuf, sendcounts, displs, sendtype, recvbuf, int64(recvcount), recvtype, root, ch, false, req, mPersist(info))
}

//export PMPI_Scatterv_init_c
func PMPI_Scatterv_init_c(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, displs unsafe.Pointer, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, root int32, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return scatterv("Scatterv_init", sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, ch, true, req, mPersist(info))
}

//export PMPI_Allgather
func PMPI_Allgather(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, ch uintptr) int32 {
	return allgather("Allgather", sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), recvtype, ch, false, nil, mBlock)
}

//export PMPI_Allgather_c
func PMPI_Allgather_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, ch uintptr) int32 {
	return allgather("Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, ch, true, nil, mBlock)
}

//export PMPI_Iallgather
func PMPI_Iallgather(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return allgather("Iallgather", sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), recvtype, ch, false, req, mNB)
}

//export PMPI_Iallgather_c
func PMPI_Iallgather_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return allgather("Iallgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, ch, true, req, mNB)
}

//export PMPI_Allgather_init
func PMPI_Allgather_init(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return allgather("Allgather_init", sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), recvtype, ch, false, req, mPersist(info))
}

//export PMPI_Allgather_init_c
func PMPI_Allgather_init_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return allgather("Allgather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, ch, true, req, mPersist(info))
}

//export PMPI_Allgatherv
func PMPI_Allgatherv(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, displs unsafe.Pointer, recvtype uintptr, ch uintptr) int32 {
	return allgatherv("Allgatherv", sendbuf, int64(sendcount), sendtype, recvbuf, recvcounts, displs, recvtype, ch, false, nil, mBlock)
}

//export PMPI_Allgatherv_c
func PMPI_Allgatherv_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, displs unsafe.Pointer, recvtype uintptr, ch uintptr) int32 {
	return allgatherv("Allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, ch, true, nil, mBlock)
}

//export PMPI_Iallgatherv
func PMPI_Iallgatherv(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, displs unsafe.Pointer, recvtype uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return allgatherv("Iallgatherv", sendbuf, int64(sendcount), sendtype, recvbuf, recvcounts, displs, recvtype, ch, false, req, mNB)
}

//export PMPI_Iallgatherv_c
func PMPI_Iallgatherv_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, displs unsafe.Pointer, recvtype uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return allgatherv("Iallgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, ch, true, req, mNB)
}

//export PMPI_Allgatherv_init
func PMPI_Allgatherv_init(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, displs unsafe.Pointer, recvtype uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return allgatherv("Allgatherv_init", sendbuf, int64(sendcount), sendtype, recvbuf, recvcounts, displs, recvtype, ch, false, req, mPersist(info))
}

//export PMPI_Allgatherv_init_c
func PMPI_Allgatherv_init_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, displs unsafe.Pointer, recvtype uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return allgatherv("Allgatherv_init", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, ch, true, req, mPersist(info))
}

//export PMPI_Alltoall
func PMPI_Alltoall(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, ch uintptr) int32 {
	return alltoall("Alltoall", sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), recvtype, ch, false, nil, mBlock)
}

//export PMPI_Alltoall_c
func PMPI_Alltoall_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, ch uintptr) int32 {
	return alltoall("Alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, ch, true, nil, mBlock)
}

//export PMPI_Ialltoall
func PMPI_Ialltoall(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return alltoall("Ialltoall", sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), recvtype, ch, false, req, mNB)
}

//export PMPI_Ialltoall_c
func PMPI_Ialltoall_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return alltoall("Ialltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, ch, true, req, mNB)
}

//export PMPI_Alltoall_init
func PMPI_Alltoall_init(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return alltoall("Alltoall_init", sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), recvtype, ch, false, req, mPersist(info))
}

//export PMPI_Alltoall_init_c
func PMPI_Alltoall_init_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return alltoall("Alltoall_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, ch, true, req, mPersist(info))
}

//export PMPI_Alltoallv
func PMPI_Alltoallv(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtype uintptr, ch uintptr) int32 {
	return alltoallv("Alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, ch, false, nil, mBlock)
}

//export PMPI_Alltoallv_c
func PMPI_Alltoallv_c(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtype uintptr, ch uintptr) int32 {
	return alltoallv("Alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, ch, true, nil, mBlock)
}

//export PMPI_Ialltoallv
func PMPI_Ialltoallv(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtype uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return alltoallv("Ialltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, ch, false, req, mNB)
}

//export PMPI_Ialltoallv_c
func PMPI_Ialltoallv_c(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtype uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return alltoallv("Ialltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, ch, true, req, mNB)
}

//export PMPI_Alltoallv_init
func PMPI_Alltoallv_init(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtype uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return alltoallv("Alltoallv_init", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, ch, false, req, mPersist(info))
}

//export PMPI_Alltoallv_init_c
func PMPI_Alltoallv_init_c(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtype uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return alltoallv("Alltoallv_init", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, ch, true, req, mPersist(info))
}

//export PMPI_Alltoallw
func PMPI_Alltoallw(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtypes unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtypes unsafe.Pointer, ch uintptr) int32 {
	return alltoallw("Alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, ch, false, nil, mBlock)
}

//export PMPI_Alltoallw_c
func PMPI_Alltoallw_c(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtypes unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtypes unsafe.Pointer, ch uintptr) int32 {
	return alltoallw("Alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, ch, true, nil, mBlock)
}

//export PMPI_Ialltoallw
func PMPI_Ialltoallw(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtypes unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtypes unsafe.Pointer, ch uintptr, req unsafe.Pointer) int32 {
	return alltoallw("Ialltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, ch, false, req, mNB)
}

//export PMPI_Ialltoallw_c
func PMPI_Ialltoallw_c(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtypes unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtypes unsafe.Pointer, ch uintptr, req unsafe.Pointer) int32 {
	return alltoallw("Ialltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, ch, true, req, mNB)
}

//export PMPI_Alltoallw_init
func PMPI_Alltoallw_init(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtypes unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtypes unsafe.Pointer, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return alltoallw("Alltoallw_init", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, ch, false, req, mPersist(info))
}

//export PMPI_Alltoallw_init_c
func PMPI_Alltoallw_init_c(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtypes unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtypes unsafe.Pointer, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return alltoallw("Alltoallw_init", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, ch, true, req, mPersist(info))
}

//export PMPI_Neighbor_allgather
func PMPI_Neighbor_allgather(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, ch uintptr) int32 {
	return neighborAllgather("Neighbor_allgather", sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), recvtype, ch, false, nil, mBlock)
}

//export PMPI_Neighbor_allgather_c
func PMPI_Neighbor_allgather_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, ch uintptr) int32 {
	return neighborAllgather("Neighbor_allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, ch, true, nil, mBlock)
}

//export PMPI_Ineighbor_allgather
func PMPI_Ineighbor_allgather(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return neighborAllgather("Ineighbor_allgather", sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), recvtype, ch, false, req, mNB)
}

//export PMPI_Ineighbor_allgather_c
func PMPI_Ineighbor_allgather_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return neighborAllgather("Ineighbor_allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, ch, true, req, mNB)
}

//export PMPI_Neighbor_allgather_init
func PMPI_Neighbor_allgather_init(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return neighborAllgather("Neighbor_allgather_init", sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), recvtype, ch, false, req, mPersist(info))
}

//export PMPI_Neighbor_allgather_init_c
func PMPI_Neighbor_allgather_init_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return neighborAllgather("Neighbor_allgather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, ch, true, req, mPersist(info))
}

//export PMPI_Neighbor_allgatherv
func PMPI_Neighbor_allgatherv(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, displs unsafe.Pointer, recvtype uintptr, ch uintptr) int32 {
	return neighborAllgatherv("Neighbor_allgatherv", sendbuf, int64(sendcount), sendtype, recvbuf, recvcounts, displs, recvtype, ch, false, nil, mBlock)
}

//export PMPI_Neighbor_allgatherv_c
func PMPI_Neighbor_allgatherv_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, displs unsafe.Pointer, recvtype uintptr, ch uintptr) int32 {
	return neighborAllgatherv("Neighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, ch, true, nil, mBlock)
}

//export PMPI_Ineighbor_allgatherv
func PMPI_Ineighbor_allgatherv(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, displs unsafe.Pointer, recvtype uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return neighborAllgatherv("Ineighbor_allgatherv", sendbuf, int64(sendcount), sendtype, recvbuf, recvcounts, displs, recvtype, ch, false, req, mNB)
}

//export PMPI_Ineighbor_allgatherv_c
func PMPI_Ineighbor_allgatherv_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, displs unsafe.Pointer, recvtype uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return neighborAllgatherv("Ineighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, ch, true, req, mNB)
}

//export PMPI_Neighbor_allgatherv_init
func PMPI_Neighbor_allgatherv_init(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, displs unsafe.Pointer, recvtype uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return neighborAllgatherv("Neighbor_allgatherv_init", sendbuf, int64(sendcount), sendtype, recvbuf, recvcounts, displs, recvtype, ch, false, req, mPersist(info))
}

//export PMPI_Neighbor_allgatherv_init_c
func PMPI_Neighbor_allgatherv_init_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, displs unsafe.Pointer, recvtype uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return neighborAllgatherv("Neighbor_allgatherv_init", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, ch, true, req, mPersist(info))
}

//export PMPI_Neighbor_alltoall
func PMPI_Neighbor_alltoall(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, ch uintptr) int32 {
	return neighborAlltoall("Neighbor_alltoall", sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), recvtype, ch, false, nil, mBlock)
}

//export PMPI_Neighbor_alltoall_c
func PMPI_Neighbor_alltoall_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, ch uintptr) int32 {
	return neighborAlltoall("Neighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, ch, true, nil, mBlock)
}

//export PMPI_Ineighbor_alltoall
func PMPI_Ineighbor_alltoall(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return neighborAlltoall("Ineighbor_alltoall", sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), recvtype, ch, false, req, mNB)
}

//export PMPI_Ineighbor_alltoall_c
func PMPI_Ineighbor_alltoall_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return neighborAlltoall("Ineighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, ch, true, req, mNB)
}

//export PMPI_Neighbor_alltoall_init
func PMPI_Neighbor_alltoall_init(sendbuf unsafe.Pointer, sendcount int32, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int32, recvtype uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return neighborAlltoall("Neighbor_alltoall_init", sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), recvtype, ch, false, req, mPersist(info))
}

//export PMPI_Neighbor_alltoall_init_c
func PMPI_Neighbor_alltoall_init_c(sendbuf unsafe.Pointer, sendcount int64, sendtype uintptr, recvbuf unsafe.Pointer, recvcount int64, recvtype uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return neighborAlltoall("Neighbor_alltoall_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, ch, true, req, mPersist(info))
}

//export PMPI_Neighbor_alltoallv
func PMPI_Neighbor_alltoallv(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtype uintptr, ch uintptr) int32 {
	return neighborAlltoallv("Neighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, ch, false, nil, mBlock)
}

//export PMPI_Neighbor_alltoallv_c
func PMPI_Neighbor_alltoallv_c(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtype uintptr, ch uintptr) int32 {
	return neighborAlltoallv("Neighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, ch, true, nil, mBlock)
}

//export PMPI_Ineighbor_alltoallv
func PMPI_Ineighbor_alltoallv(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtype uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return neighborAlltoallv("Ineighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, ch, false, req, mNB)
}

//export PMPI_Ineighbor_alltoallv_c
func PMPI_Ineighbor_alltoallv_c(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtype uintptr, ch uintptr, req unsafe.Pointer) int32 {
	return neighborAlltoallv("Ineighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, ch, true, req, mNB)
}

//export PMPI_Neighbor_alltoallv_init
func PMPI_Neighbor_alltoallv_init(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtype uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return neighborAlltoallv("Neighbor_alltoallv_init", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, ch, false, req, mPersist(info))
}

//export PMPI_Neighbor_alltoallv_init_c
func PMPI_Neighbor_alltoallv_init_c(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtype uintptr, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtype uintptr, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return neighborAlltoallv("Neighbor_alltoallv_init", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, ch, true, req, mPersist(info))
}

//export PMPI_Neighbor_alltoallw
func PMPI_Neighbor_alltoallw(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtypes unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtypes unsafe.Pointer, ch uintptr) int32 {
	return neighborAlltoallw("Neighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, ch, false, nil, mBlock)
}

//export PMPI_Neighbor_alltoallw_c
func PMPI_Neighbor_alltoallw_c(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtypes unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtypes unsafe.Pointer, ch uintptr) int32 {
	return neighborAlltoallw("Neighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, ch, true, nil, mBlock)
}

//export PMPI_Ineighbor_alltoallw
func PMPI_Ineighbor_alltoallw(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtypes unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtypes unsafe.Pointer, ch uintptr, req unsafe.Pointer) int32 {
	return neighborAlltoallw("Ineighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, ch, false, req, mNB)
}

//export PMPI_Ineighbor_alltoallw_c
func PMPI_Ineighbor_alltoallw_c(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtypes unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtypes unsafe.Pointer, ch uintptr, req unsafe.Pointer) int32 {
	return neighborAlltoallw("Ineighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, ch, true, req, mNB)
}

//export PMPI_Neighbor_alltoallw_init
func PMPI_Neighbor_alltoallw_init(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtypes unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtypes unsafe.Pointer, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return neighborAlltoallw("Neighbor_alltoallw_init", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, ch, false, req, mPersist(info))
}

//export PMPI_Neighbor_alltoallw_init_c
func PMPI_Neighbor_alltoallw_init_c(sendbuf unsafe.Pointer, sendcounts unsafe.Pointer, sdispls unsafe.Pointer, sendtypes unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts unsafe.Pointer, rdispls unsafe.Pointer, recvtypes unsafe.Pointer, ch uintptr, info uintptr, req unsafe.Pointer) int32 {
	return neighborAlltoallw("Neighbor_alltoallw_init", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, ch, true, req, mPersist(info))
}
