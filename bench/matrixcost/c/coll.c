/* coll.c - bench/matrixcost's short collectives in C, through the C ABI: ITERS calls
 * of MPI_Barrier, MPI_Bcast of one MPI_INT64_T from rank 0, or MPI_Allreduce (MPI_SUM)
 * of one MPI_INT64_T, on a duplicate of MPI_COMM_WORLD (as IMB runs on a communicator
 * of its own); or ITERS rounds of the anchors' rma.c active-target loops on an
 * allocated window: fence, rank 0's 8-byte Put, fence (fence); rank 0's Start, Put and
 * Complete against rank 1's Post and Wait (pscw). For counting instructions with
 * callgrind (bench/matrixcost.sh c-barrier, c-bcast, c-allreduce, c-fence, c-pscw).
 * usage: mpigo run -n 2 coll ITERS barrier|bcast|allreduce|fence|pscw */
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
    } else if (strcmp(mode, "allreduce") == 0) {
        for (long i = 0; i < iters; i++) MPI_Allreduce(&v, &w, 1, MPI_INT64_T, MPI_SUM, comm);
    } else {
        int rank, other;
        int64_t *base;
        MPI_Win win;
        MPI_Group world, peer;
        MPI_Comm_rank(comm, &rank);
        other = 1 - rank;
        MPI_Comm_group(comm, &world);
        MPI_Group_incl(world, 1, &other, &peer);
        MPI_Win_allocate(64, 1, MPI_INFO_NULL, comm, &base, &win);
        if (strcmp(mode, "fence") == 0) {
            MPI_Win_fence(0, win);
            for (long i = 0; i < iters; i++) {
                if (rank == 0) MPI_Put(&v, 8, MPI_CHAR, 1, 0, 8, MPI_CHAR, win);
                MPI_Win_fence(0, win);
            }
        } else {
            for (long i = 0; i < iters + 1; i++) { /* the first translates the group in Go */
                if (rank == 0) {
                    MPI_Win_start(peer, 0, win);
                    MPI_Put(&v, 8, MPI_CHAR, 1, 0, 8, MPI_CHAR, win);
                    MPI_Win_complete(win);
                } else {
                    MPI_Win_post(peer, 0, win);
                    MPI_Win_wait(win);
                }
            }
        }
        MPI_Win_free(&win);
        MPI_Group_free(&peer);
        MPI_Group_free(&world);
    }
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
