/* abort.c - one rank calls MPI_Abort(MPI_COMM_WORLD, 7) while the others wait:
 *   abort MODE RANK
 * MODE is where the others are: "recv" (MPI_Recv from any source, which nothing
 * matches), "barrier" (a barrier the aborting rank never enters) or "thread" (a
 * thread in MPI_Recv beside one that computes, outside MPI). Every error handler is
 * the default, MPI_ERRORS_ARE_FATAL. The program never ends on its own: the job
 * ends by the abort, or not at all. */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void *receive(void *arg) {
    (void)arg;
    int v;
    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return NULL;
}

static void *compute(void *arg) {
    (void)arg;
    volatile unsigned long x = 0;
    for (;;)
        x++;
    return NULL;
}

int main(int argc, char **argv) {
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argc > 2 ? argv[1] : "recv";
    int who = argc > 2 ? atoi(argv[2]) : 0;
    /* Every rank is connected to every other before the abort: the others would see
     * the aborting rank's connections close, were it to go before them. */
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int *s = calloc(n, sizeof(int)), *r = calloc(n, sizeof(int));
    MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD);
    if (rank == who)
        MPI_Abort(MPI_COMM_WORLD, 7);
    if (strcmp(mode, "barrier") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "thread") == 0) {
        pthread_t r, c;
        pthread_create(&r, NULL, receive, NULL);
        pthread_create(&c, NULL, compute, NULL);
        pthread_join(r, NULL);
    } else {
        receive(NULL);
    }
    for (;;)
        MPI_Barrier(MPI_COMM_WORLD);
}
