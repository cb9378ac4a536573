/* pingpong.c - bench/matrixcost's ping-pong in C, through the C ABI: rank 0 sends one
 * int64 to rank 1 with MPI_Send and receives it back with MPI_Recv, ITERS times. For
 * counting instructions with callgrind (bench/matrixcost.sh c-pingpong).
 * usage: mpigo run -n 2 pingpong ITERS [BYTES [split]]
 * BYTES: send that many MPI_BYTEs instead; split: on a split of MPI_COMM_WORLD (as
 * the Intel MPI Benchmarks run), not on the world itself. */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm comm = MPI_COMM_WORLD;
    if (argc > 3 && strcmp(argv[3], "split") == 0) MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &comm);
    MPI_Comm_rank(comm, &rank);
    long iters = argc > 1 ? atol(argv[1]) : 1000;
    int count = 1;
    MPI_Datatype dt = MPI_INT64_T;
    if (argc > 2) count = atoi(argv[2]), dt = MPI_BYTE;
    char *v = calloc(count > 8 ? count : 8, 1);
    int peer = 1 - rank;
    for (long i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(v, count, dt, peer, 1, comm);
            MPI_Recv(v, count, dt, peer, 1, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(v, count, dt, peer, 1, comm, MPI_STATUS_IGNORE);
            MPI_Send(v, count, dt, peer, 1, comm);
        }
    }
    free(v);
    if (comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
