/* mpicolltest.h - MTest_<collective> as the blocking MPI collective (the tests'
 * default mode). mpigo's own, for its harness of MPICH's test suite. */
#ifndef MPICOLLTEST_H_INCLUDED
#define MPICOLLTEST_H_INCLUDED
#include "mpitest.h"
#define MTest_Barrier MPI_Barrier
#define MTest_Bcast MPI_Bcast
#define MTest_Gather MPI_Gather
#define MTest_Gatherv MPI_Gatherv
#define MTest_Scatter MPI_Scatter
#define MTest_Scatterv MPI_Scatterv
#define MTest_Allgather MPI_Allgather
#define MTest_Allgatherv MPI_Allgatherv
#define MTest_Alltoall MPI_Alltoall
#define MTest_Alltoallv MPI_Alltoallv
#define MTest_Alltoallw MPI_Alltoallw
#define MTest_Reduce MPI_Reduce
#define MTest_Allreduce MPI_Allreduce
#define MTest_Reduce_scatter MPI_Reduce_scatter
#define MTest_Reduce_scatter_block MPI_Reduce_scatter_block
#define MTest_Scan MPI_Scan
#define MTest_Exscan MPI_Exscan
#define MTest_Neighbor_allgather MPI_Neighbor_allgather
#define MTest_Neighbor_allgatherv MPI_Neighbor_allgatherv
#define MTest_Neighbor_alltoall MPI_Neighbor_alltoall
#define MTest_Neighbor_alltoallv MPI_Neighbor_alltoallv
#define MTest_Neighbor_alltoallw MPI_Neighbor_alltoallw
#endif
