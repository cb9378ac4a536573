/* pingpong.c - bench/matrixcost's ping-pong in C, through the C ABI: rank 0 sends one
 * int64 to rank 1 with MPI_Send and receives it back with MPI_Recv, ITERS times. For
 * counting instructions with callgrind (bench/matrixcost.sh c-pingpong).
 * usage: mpigo run -n 2 pingpong ITERS [BYTES [split] [sendrecv]]
 * BYTES: send that many MPI_BYTEs instead; split: on a split of MPI_COMM_WORLD (as
 * the Intel MPI Benchmarks run), not on the world itself; sendrecv: both ranks
 * exchange with MPI_Sendrecv instead (IMB's Sendrecv at 2 ranks); isend: the ping-pong
 * with MPI_Isend and MPI_Irecv, each completed by MPI_Wait; window: the anchors' bw.c
 * instead, per iteration rank 0 MPI_Isend-s 64 messages and completes them with one
 * MPI_Waitall, then receives a 4-byte ack, rank 1 MPI_Irecv-s 64 and MPI_Waitall-s
 * them, then sends the ack (divide the count per call by 64 for one message's). */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm comm = MPI_COMM_WORLD;
    int sendrecv = 0, isend = 0, window = 0;
    for (int a = 3; a < argc; a++) {
        if (strcmp(argv[a], "split") == 0) MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &comm);
        if (strcmp(argv[a], "sendrecv") == 0) sendrecv = 1;
        if (strcmp(argv[a], "isend") == 0) isend = 1;
        if (strcmp(argv[a], "window") == 0) window = 1;
    }
    MPI_Request q[64];
    char ack[4] = {0};
    MPI_Comm_rank(comm, &rank);
    long iters = argc > 1 ? atol(argv[1]) : 1000;
    int count = 1;
    MPI_Datatype dt = MPI_INT64_T;
    if (argc > 2) count = atoi(argv[2]), dt = MPI_BYTE;
    char *v = calloc(count > 8 ? count : 8, 1), *w = calloc(count > 8 ? count : 8, 1);
    int peer = 1 - rank;
    for (long i = 0; i < iters; i++) {
        if (sendrecv) {
            MPI_Sendrecv(v, count, dt, peer, 1, w, count, dt, peer, 1, comm, MPI_STATUS_IGNORE);
        } else if (window && rank == 0) {
            for (int k = 0; k < 64; k++) MPI_Isend(v, count, dt, peer, 1, comm, &q[k]);
            MPI_Waitall(64, q, MPI_STATUSES_IGNORE);
            MPI_Recv(ack, 4, MPI_CHAR, peer, 2, comm, MPI_STATUS_IGNORE);
        } else if (window) {
            for (int k = 0; k < 64; k++) MPI_Irecv(w, count, dt, peer, 1, comm, &q[k]);
            MPI_Waitall(64, q, MPI_STATUSES_IGNORE);
            MPI_Send(ack, 4, MPI_CHAR, peer, 2, comm);
        } else if (isend && rank == 0) {
            MPI_Isend(v, count, dt, peer, 1, comm, &q[0]);
            MPI_Wait(&q[0], MPI_STATUS_IGNORE);
            MPI_Irecv(v, count, dt, peer, 1, comm, &q[0]);
            MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        } else if (isend) {
            MPI_Irecv(v, count, dt, peer, 1, comm, &q[0]);
            MPI_Wait(&q[0], MPI_STATUS_IGNORE);
            MPI_Isend(v, count, dt, peer, 1, comm, &q[0]);
            MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        } else if (rank == 0) {
            MPI_Send(v, count, dt, peer, 1, comm);
            MPI_Recv(v, count, dt, peer, 1, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(v, count, dt, peer, 1, comm, MPI_STATUS_IGNORE);
            MPI_Send(v, count, dt, peer, 1, comm);
        }
    }
    free(v);
    free(w);
    if (comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
