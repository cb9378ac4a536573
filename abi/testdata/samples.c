/* samples.c - the record's sampled calls done in C: the one call in about 64 that
 * the record times (prof.SampleEvery) takes the C short way like every other, timed
 * there (abi/libmpi/p2pshort.h, mpigo_gate_open and mpigo_gate_count), so that every
 * MPI_Send, MPI_Recv, MPI_Isend, MPI_Irecv, MPI_Wait, MPI_Waitall, MPI_Test,
 * MPI_Barrier, MPI_Bcast, MPI_Allreduce, MPI_Win_fence and post/start/complete/wait
 * of this program on 2 ranks takes C, and the record still
 * has their times (the MPI_T performance variables NAME_time, which are the record's
 * estimates: zero where no call of NAME was timed). Each receive's message is there
 * when it is made (a Barrier after the send), so that no receive outlasts its spin
 * and goes on in Go. */
#include "check.h"
#include "pvars.h"
#include "sentfirst.h"
#include <stdint.h>
#include <string.h>

extern long mpigo_short_sends(void);
extern long mpigo_short_recvs(void);
extern long mpigo_short_colls(void);
extern long mpigo_short_syncs(void);
extern long mpigo_short_isends(void);
extern long mpigo_short_irecvs(void);
extern long mpigo_short_completions(void);

enum { ROUNDS = 1000 };

static int rank;

static const char *timers[] = {"send_time",   "recv_time",      "isend_time", "irecv_time", "wait_time",
                               "barrier_time", "allreduce_time", "bcast_time", "fence_time"};
enum { NTIMERS = sizeof timers / sizeof timers[0] };
static MPI_T_pvar_handle handles[NTIMERS];

/* watch starts the timers. */
static void watch(void) {
    int classes[NTIMERS];
    for (int k = 0; k < NTIMERS; k++) classes[k] = MPI_T_PVAR_CLASS_TIMER;
    pv_watch(NTIMERS, timers, classes, handles);
}

/* timed checks that every timer has a time, and frees them. */
static void timed(void) {
    for (int k = 0; k < NTIMERS; k++) {
        double v = -1;
        OK(MPI_T_pvar_read(pv_session, handles[k], &v));
        CHECK(v > 0 && v < 60, "%s is %g s", timers[k], v);
    }
    pv_free(NTIMERS, handles);
}

int main(int argc, char **argv) {
    int provided;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    watch();
    int peer = 1 - rank;
    int64_t v = 0, sum = 0;
    long s0 = 0, r0 = 0, c0 = 0;
    for (int i = -1; i < ROUNDS; i++) {
        if (i == 0) /* round -1 makes the rings between the ranks, in Go */
            s0 = mpigo_short_sends(), r0 = mpigo_short_recvs(), c0 = mpigo_short_colls();
        sent_first(i, rank, peer, 7);
        v = i;
        OK(MPI_Bcast(&v, 1, MPI_INT64_T, i & 1, MPI_COMM_WORLD));
        OK(MPI_Allreduce(&v, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
        CHECK(sum == 2 * (int64_t)i, "round %d: Allreduce %lld", i, (long long)sum);
    }
    long s = mpigo_short_sends() - s0, r = mpigo_short_recvs() - r0, c = mpigo_short_colls() - c0;
    /* A receive goes on in Go where the engine took its message first, which a loaded
     * host allows (a Barrier whose spin ran out waits in Go, and Go's waits make
     * progress): up to one receive in a hundred may; the timed one in about 64 (15 or
     * 16 of them) may not. */
    CHECK(s == ROUNDS && r >= ROUNDS - ROUNDS / 100 && r <= ROUNDS, "%ld of %d sends, %ld of %d receives took C", s,
          ROUNDS, r, ROUNDS);
    CHECK(c == 4 * ROUNDS, "%ld of %d collectives took C", c, 4 * ROUNDS);

    /* Nonblocking: each request complete in C (the message there before its Irecv),
     * completed by MPI_Wait, MPI_Waitall or MPI_Test in turn. */
    long is0 = mpigo_short_isends(), ir0 = mpigo_short_irecvs(), w0 = mpigo_short_completions();
    for (int i = 0; i < ROUNDS; i++) {
        for (int from = 0; from < 2; from++) {
            MPI_Request q;
            int got = -1, flag = 0;
            if (rank == from) OK(MPI_Isend(&i, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, &q));
            OK(MPI_Barrier(MPI_COMM_WORLD));
            if (rank != from) OK(MPI_Irecv(&got, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, &q));
            switch (i % 3) {
            case 0: OK(MPI_Wait(&q, MPI_STATUS_IGNORE)); break;
            case 1: OK(MPI_Waitall(1, &q, MPI_STATUSES_IGNORE)); break;
            default:
                OK(MPI_Test(&q, &flag, MPI_STATUS_IGNORE));
                CHECK(flag, "round %d: MPI_Test of a complete request says not done", i);
            }
            CHECK(q == MPI_REQUEST_NULL, "round %d: the request was not freed", i);
            if (rank != from) CHECK(got == i, "round %d: received %d", i, got);
        }
    }
    long is = mpigo_short_isends() - is0, ir = mpigo_short_irecvs() - ir0, w = mpigo_short_completions() - w0;
    /* As the blocking receives above: up to one in a hundred may go on in Go, and then
     * its completion too. */
    CHECK(is == ROUNDS && ir >= ROUNDS - ROUNDS / 100 && ir <= ROUNDS && w == is + ir,
          "%ld isends, %ld irecvs, %ld completions of %d, %d, %d took C", is, ir, w, ROUNDS, ROUNDS, 2 * ROUNDS);

    int64_t *base;
    MPI_Win win;
    MPI_Group world, other;
    OK(MPI_Win_allocate(sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    OK(MPI_Group_incl(world, 1, &peer, &other));
    long y0 = 0;
    for (int i = -1; i < ROUNDS; i++) {
        if (i == 0) y0 = mpigo_short_syncs(); /* round -1: Go translates the group, once */
        OK(MPI_Win_fence(0, win));
        OK(MPI_Win_post(other, 0, win));
        OK(MPI_Win_start(other, 0, win));
        OK(MPI_Win_complete(win));
        OK(MPI_Win_wait(win));
    }
    OK(MPI_Win_fence(0, win));
    long y = mpigo_short_syncs() - y0;
    CHECK(y == 5 * ROUNDS + 1, "%ld of %d window synchronisations took C", y, 5 * ROUNDS + 1);
    OK(MPI_Group_free(&other));
    OK(MPI_Group_free(&world));
    OK(MPI_Win_free(&win));

    timed();
    OK(MPI_T_finalize());
    OK(MPI_Finalize());
    if (rank == 0) printf("OK samples\n");
    return 0;
}
