/* pingpong.c - bench/matrixcost's ping-pong in C, through the C ABI: rank 0 sends one
 * int64 to rank 1 with MPI_Send and receives it back with MPI_Recv, ITERS times. For
 * counting instructions with callgrind (bench/matrixcost.sh c-pingpong).
 * usage: mpigo run -n 2 pingpong ITERS */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long iters = argc > 1 ? atol(argv[1]) : 1000;
    int64_t v = 1;
    int peer = 1 - rank;
    for (long i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(&v, 1, MPI_INT64_T, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(&v, 1, MPI_INT64_T, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&v, 1, MPI_INT64_T, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&v, 1, MPI_INT64_T, peer, 1, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
