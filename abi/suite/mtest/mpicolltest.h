/* mpicolltest.h - the MTest_<collective> calls of MPICH's coll tests, mpigo's own for
 * its harness of MPICH's test suite. Older tests call MTest_X with MPI_X's arguments
 * (the blocking call); newer ones put is_blocking first (0: MPI_IX, then MPI_Wait). The
 * macros pick the form by the number of arguments. */
#ifndef MPICOLLTEST_H_INCLUDED
#define MPICOLLTEST_H_INCLUDED
#include "mpitest.h"
#define MTEST_NARG_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, n, ...) n
#define MTEST_NARG(...) MTEST_NARG_(__VA_ARGS__, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define MTEST_CAT_(a, b) a##b
#define MTEST_CAT(a, b) MTEST_CAT_(a, b)

static inline int MTest_Barrier_nb(int is_blocking, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Barrier(comm);
    err = MPI_Ibarrier(comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Barrier_1 MPI_Barrier
#define MTest_Barrier_2 MTest_Barrier_nb
#define MTest_Barrier(...) MTEST_CAT(MTest_Barrier_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Bcast_nb(int is_blocking, void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Bcast(buffer, count, datatype, root, comm);
    err = MPI_Ibcast(buffer, count, datatype, root, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Bcast_5 MPI_Bcast
#define MTest_Bcast_6 MTest_Bcast_nb
#define MTest_Bcast(...) MTEST_CAT(MTest_Bcast_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Gather_nb(int is_blocking, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    err = MPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Gather_8 MPI_Gather
#define MTest_Gather_9 MTest_Gather_nb
#define MTest_Gather(...) MTEST_CAT(MTest_Gather_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Gatherv_nb(int is_blocking, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
    err = MPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Gatherv_9 MPI_Gatherv
#define MTest_Gatherv_10 MTest_Gatherv_nb
#define MTest_Gatherv(...) MTEST_CAT(MTest_Gatherv_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Scatter_nb(int is_blocking, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    err = MPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Scatter_8 MPI_Scatter
#define MTest_Scatter_9 MTest_Scatter_nb
#define MTest_Scatter(...) MTEST_CAT(MTest_Scatter_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Scatterv_nb(int is_blocking, const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
    err = MPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Scatterv_9 MPI_Scatterv
#define MTest_Scatterv_10 MTest_Scatterv_nb
#define MTest_Scatterv(...) MTEST_CAT(MTest_Scatterv_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Allgather_nb(int is_blocking, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    err = MPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Allgather_7 MPI_Allgather
#define MTest_Allgather_8 MTest_Allgather_nb
#define MTest_Allgather(...) MTEST_CAT(MTest_Allgather_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Allgatherv_nb(int is_blocking, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    err = MPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Allgatherv_8 MPI_Allgatherv
#define MTest_Allgatherv_9 MTest_Allgatherv_nb
#define MTest_Allgatherv(...) MTEST_CAT(MTest_Allgatherv_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Alltoall_nb(int is_blocking, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    err = MPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Alltoall_7 MPI_Alltoall
#define MTest_Alltoall_8 MTest_Alltoall_nb
#define MTest_Alltoall(...) MTEST_CAT(MTest_Alltoall_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Alltoallv_nb(int is_blocking, const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
    err = MPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Alltoallv_9 MPI_Alltoallv
#define MTest_Alltoallv_10 MTest_Alltoallv_nb
#define MTest_Alltoallv(...) MTEST_CAT(MTest_Alltoallv_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Alltoallw_nb(int is_blocking, const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
    err = MPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Alltoallw_9 MPI_Alltoallw
#define MTest_Alltoallw_10 MTest_Alltoallw_nb
#define MTest_Alltoallw(...) MTEST_CAT(MTest_Alltoallw_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Reduce_nb(int is_blocking, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    err = MPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Reduce_7 MPI_Reduce
#define MTest_Reduce_8 MTest_Reduce_nb
#define MTest_Reduce(...) MTEST_CAT(MTest_Reduce_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Allreduce_nb(int is_blocking, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    err = MPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Allreduce_6 MPI_Allreduce
#define MTest_Allreduce_7 MTest_Allreduce_nb
#define MTest_Allreduce(...) MTEST_CAT(MTest_Allreduce_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Reduce_scatter_nb(int is_blocking, const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    err = MPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Reduce_scatter_6 MPI_Reduce_scatter
#define MTest_Reduce_scatter_7 MTest_Reduce_scatter_nb
#define MTest_Reduce_scatter(...) MTEST_CAT(MTest_Reduce_scatter_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Reduce_scatter_block_nb(int is_blocking, const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
    err = MPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Reduce_scatter_block_6 MPI_Reduce_scatter_block
#define MTest_Reduce_scatter_block_7 MTest_Reduce_scatter_block_nb
#define MTest_Reduce_scatter_block(...) MTEST_CAT(MTest_Reduce_scatter_block_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Scan_nb(int is_blocking, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Scan(sendbuf, recvbuf, count, datatype, op, comm);
    err = MPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Scan_6 MPI_Scan
#define MTest_Scan_7 MTest_Scan_nb
#define MTest_Scan(...) MTEST_CAT(MTest_Scan_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Exscan_nb(int is_blocking, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm);
    err = MPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Exscan_6 MPI_Exscan
#define MTest_Exscan_7 MTest_Exscan_nb
#define MTest_Exscan(...) MTEST_CAT(MTest_Exscan_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Neighbor_allgather_nb(int is_blocking, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    err = MPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Neighbor_allgather_7 MPI_Neighbor_allgather
#define MTest_Neighbor_allgather_8 MTest_Neighbor_allgather_nb
#define MTest_Neighbor_allgather(...) MTEST_CAT(MTest_Neighbor_allgather_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Neighbor_allgatherv_nb(int is_blocking, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    err = MPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Neighbor_allgatherv_8 MPI_Neighbor_allgatherv
#define MTest_Neighbor_allgatherv_9 MTest_Neighbor_allgatherv_nb
#define MTest_Neighbor_allgatherv(...) MTEST_CAT(MTest_Neighbor_allgatherv_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Neighbor_alltoall_nb(int is_blocking, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    err = MPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Neighbor_alltoall_7 MPI_Neighbor_alltoall
#define MTest_Neighbor_alltoall_8 MTest_Neighbor_alltoall_nb
#define MTest_Neighbor_alltoall(...) MTEST_CAT(MTest_Neighbor_alltoall_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Neighbor_alltoallv_nb(int is_blocking, const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
    err = MPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Neighbor_alltoallv_9 MPI_Neighbor_alltoallv
#define MTest_Neighbor_alltoallv_10 MTest_Neighbor_alltoallv_nb
#define MTest_Neighbor_alltoallv(...) MTEST_CAT(MTest_Neighbor_alltoallv_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

static inline int MTest_Neighbor_alltoallw_nb(int is_blocking, const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    MPI_Request req;
    int err;
    if (is_blocking)
        return MPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
    err = MPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, &req);
    return err != MPI_SUCCESS ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#define MTest_Neighbor_alltoallw_9 MPI_Neighbor_alltoallw
#define MTest_Neighbor_alltoallw_10 MTest_Neighbor_alltoallw_nb
#define MTest_Neighbor_alltoallw(...) MTEST_CAT(MTest_Neighbor_alltoallw_, MTEST_NARG(__VA_ARGS__))(__VA_ARGS__)

#endif
