/* threads.c - MPI_THREAD_MULTIPLE: four pthreads per rank exchange messages with
 * the peer's threads at once, each on its own tag, then nonblocking messages and
 * collectives on duplicates. */
#include <pthread.h>
#include "check.h"

#define NT 4
#define ROUNDS 500

static int rank, peer;
static MPI_Comm comms[NT];

static void *worker(void *arg) {
    int t = (int)(long)arg;
    for (int i = 0; i < ROUNDS; i++) {
        int out = rank * 1000000 + t * 1000 + i, in = -1;
        MPI_Status st;
        OK(MPI_Sendrecv(&out, 1, MPI_INT, peer, t, &in, 1, MPI_INT, peer, t, MPI_COMM_WORLD, &st));
        CHECK(in == peer * 1000000 + t * 1000 + i && st.MPI_TAG == t, "thread %d round %d got %d", t, i, in);
    }
    /* Requests made and freed by every thread at once, on the thread's communicator. */
    for (int i = 0; i < ROUNDS; i++) {
        int out = t * 1000 + i, in = -1;
        MPI_Request q[2];
        OK(MPI_Irecv(&in, 1, MPI_INT, peer, i, comms[t], &q[0]));
        OK(MPI_Isend(&out, 1, MPI_INT, peer, i, comms[t], &q[1]));
        OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        CHECK(in == t * 1000 + i && q[0] == MPI_REQUEST_NULL && q[1] == MPI_REQUEST_NULL,
              "thread %d nonblocking round %d got %d", t, i, in);
    }
    int s = 1, sum = 0;
    OK(MPI_Allreduce(&s, &sum, 1, MPI_INT, MPI_SUM, comms[t]));
    CHECK(sum == 2, "allreduce on thread %d's communicator", t);
    return NULL;
}

int main(int argc, char **argv) {
    int provided;
    OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    int flag;
    OK(MPI_Is_thread_main(&flag));
    CHECK(flag, "main thread");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    for (int t = 0; t < NT; t++) OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    pthread_t th[NT];
    for (int t = 0; t < NT; t++) pthread_create(&th[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < NT; t++) OK(MPI_Comm_free(&comms[t]));
    OK(MPI_Finalize());
    if (rank == 0) printf("OK threads\n");
    return 0;
}
