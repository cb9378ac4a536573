/* put.c - bench/matrixcost's Put+Flush loop in C, through the C ABI's short ways
 * (abi/libmpi/short.c): rank 0 puts one int64 into rank 1's allocated window and
 * flushes, ITERS times in one lock epoch. For counting instructions with callgrind
 * (bench/matrixcost.sh c-put). usage: mpigo run -n 2 put ITERS */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long iters = argc > 1 ? atol(argv[1]) : 1000;
    int64_t *base;
    MPI_Win win;
    MPI_Win_allocate(8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        for (int64_t i = 0; i < iters; i++) {
            MPI_Put(&i, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, win);
            MPI_Win_flush(1, win);
        }
        MPI_Win_unlock(1, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
