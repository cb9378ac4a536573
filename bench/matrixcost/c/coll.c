/* coll.c - bench/matrixcost's short collectives in C, through the C ABI: ITERS calls
 * of MPI_Barrier, MPI_Bcast of one MPI_INT64_T from rank 0, or MPI_Allreduce (MPI_SUM)
 * of one MPI_INT64_T, on a duplicate of MPI_COMM_WORLD (as IMB runs on a communicator
 * of its own). For counting instructions with callgrind (bench/matrixcost.sh
 * c-barrier, c-bcast, c-allreduce).
 * usage: mpigo run -n 2 coll ITERS barrier|bcast|allreduce */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int provided;
    MPI_Comm comm;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    long iters = argc > 1 ? atol(argv[1]) : 1000;
    const char *mode = argc > 2 ? argv[2] : "barrier";
    int64_t v = 1, w = 0;
    MPI_Barrier(comm); /* the region is made on the first call */
    if (strcmp(mode, "barrier") == 0) {
        for (long i = 0; i < iters; i++) MPI_Barrier(comm);
    } else if (strcmp(mode, "bcast") == 0) {
        for (long i = 0; i < iters; i++) MPI_Bcast(&v, 1, MPI_INT64_T, 0, comm);
    } else {
        for (long i = 0; i < iters; i++) MPI_Allreduce(&v, &w, 1, MPI_INT64_T, MPI_SUM, comm);
    }
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
