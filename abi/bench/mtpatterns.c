/* mtpatterns.c - one-way time of 8-byte ping-pongs between 2 ranks at
 * MPI_THREAD_MULTIPLE (mpi4py's level), in the patterns C programs and mpi4py use:
 *   sendrecv  MPI_Send, MPI_Recv
 *   mprobe    MPI_Send; MPI_Mprobe, MPI_Get_count, MPI_Mrecv (mpi4py's comm.recv)
 *   iprobe    MPI_Send; MPI_Iprobe until found, MPI_Recv
 *   nonblock  MPI_Isend+MPI_Wait; MPI_Irecv (before its message)+MPI_Wait
 *   improbe   MPI_Send; MPI_Improbe until found, MPI_Mrecv
 * Standard MPI only, so any MPI's mpicc builds it: mpigo cc -O2 -o mtpatterns
 * abi/bench/mtpatterns.c && mpigo run -n 2 ./mtpatterns [rounds]; mpicc.openmpi ... &&
 * mpirun.openmpi -n 2 --bind-to core ./mtpatterns. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, peer;
static char b[8];

static void sendrecv(int first) {
    if (first) MPI_Send(b, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
    MPI_Recv(b, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!first) MPI_Send(b, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
}

static void mprobe(int first) {
    MPI_Message m;
    MPI_Status st;
    int n;
    if (first) MPI_Send(b, 8, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
    MPI_Mprobe(peer, 2, MPI_COMM_WORLD, &m, &st);
    MPI_Get_count(&st, MPI_BYTE, &n);
    MPI_Mrecv(b, n, MPI_BYTE, &m, MPI_STATUS_IGNORE);
    if (!first) MPI_Send(b, 8, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
}

static void iprobe(int first) {
    int flag = 0;
    if (first) MPI_Send(b, 8, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
    while (!flag) MPI_Iprobe(peer, 3, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    MPI_Recv(b, 8, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!first) MPI_Send(b, 8, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
}

static void improbe(int first) {
    MPI_Message m;
    int flag = 0;
    if (first) MPI_Send(b, 8, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
    while (!flag) MPI_Improbe(peer, 5, MPI_COMM_WORLD, &flag, &m, MPI_STATUS_IGNORE);
    MPI_Mrecv(b, 8, MPI_BYTE, &m, MPI_STATUS_IGNORE);
    if (!first) MPI_Send(b, 8, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
}

static void nonblock(int first) {
    MPI_Request q;
    if (first) {
        MPI_Isend(b, 8, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
    MPI_Irecv(b, 8, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    if (!first) {
        MPI_Isend(b, 8, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv) {
    int provided, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || provided != MPI_THREAD_MULTIPLE) {
        if (rank == 0) fprintf(stderr, "mtpatterns needs 2 ranks at MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    peer = 1 - rank;
    int n = argc > 1 ? atoi(argv[1]) : 50000;
    static const struct {
        const char *name;
        void (*round)(int);
    } pats[] = {{"sendrecv", sendrecv}, {"mprobe", mprobe}, {"iprobe", iprobe}, {"nonblock", nonblock},
                {"improbe", improbe}};
    for (int p = 0; p < (int)(sizeof pats / sizeof pats[0]); p++) {
        for (int i = 0; i < n / 10; i++) pats[p].round(rank == 0); /* warm-up */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++) pats[p].round(rank == 0);
        double t = (MPI_Wtime() - t0) / n / 2 * 1e6;
        if (rank == 0) printf("RESULT mtpatterns %s_8 %.3f us\n", pats[p].name, t);
    }
    MPI_Finalize();
    return 0;
}
