/* p2pmt.c - MPI_Send's, MPI_Recv's and MPI_Sendrecv's short ways in C at
 * MPI_THREAD_MULTIPLE (abi/libmpi/p2pshort.c), where they hold the engine's shared
 * lock, on 2 ranks:
 *
 *   - one thread: ROUNDS rounds of an 8-byte MPI_Send and its MPI_Recv (the message
 *     there before the receive is made, after a Barrier) and ROUNDS MPI_Sendrecv
 *     exchanges: every send and nearly every receive and exchange in C, and the
 *     record has their counts and times (the MPI_T variables send_calls, send_time,
 *     ...), timed in C one in about 64;
 *   - NT threads at once, each ping-ponging 8 bytes with the peer's thread of its
 *     number, in turn on its own duplicate of MPI_COMM_WORLD and on MPI_COMM_WORLD
 *     with its own tag, half the receives from MPI_ANY_SOURCE: every message's data,
 *     source and tag right and in order, whichever way each call took (C where the
 *     lock was free and the message at its ring's head, else Go), some in C, and
 *     every call counted once (send_calls, recv_calls);
 *   - NT threads at once, each ping-ponging 8 bytes by MPI_Isend and MPI_Irecv with
 *     the peer's thread of its number, each rank making its next receive before it
 *     sends (so that every receive but a thread's first is made before its message,
 *     and may be kept pending in C), on its duplicate and on MPI_COMM_WORLD, one
 *     receive in four from MPI_ANY_SOURCE (Go's), completed by each of MPI_Wait,
 *     MPI_Waitall, MPI_Test, MPI_Testall, MPI_Waitany and MPI_Waitsome in turn: every
 *     message's data, source and tag right and in order, more receives in C than the
 *     threads' first ones, and every MPI_Irecv counted once (irecv_calls);
 *   - NT threads at once, each making Barriers, Bcasts and Allreduces of 8 bytes on
 *     its own duplicate (the C short collectives): every result right, some in C,
 *     each call counted once;
 *   - twice NP threads at once, more than the library's copies of the counts
 *     (tallies.h: the first threads count in copies of their own, the others
 *     atomically, and a thread's copy passes to a later thread when it exits), each
 *     making PUTS MPI_Puts of 8 bytes to the peer's shared window: each counted once,
 *     its bytes too, and every word in place. */
#include <pthread.h>
#include <stdint.h>
#include "check.h"
#include "pvars.h"
#include "sentfirst.h"

extern long mpigo_short_sends(void);
extern long mpigo_short_recvs(void);
extern long mpigo_short_sendrecvs(void);
extern long mpigo_short_colls(void);
extern long mpigo_short_irecvs(void);

enum { ROUNDS = 1000, NT = 4, TROUNDS = 2000, NP = 12, PUTS = 500 };

static int rank, peer;
static MPI_Comm comms[NT];

static const char *vars[] = {"send_calls",    "recv_calls",    "sendrecv_calls", "send_time",
                             "recv_time",     "sendrecv_time", "barrier_calls",  "bcast_calls",
                             "allreduce_calls", "irecv_calls",   "put_calls",      "put_bytes"};
static const int classes[] = {MPI_T_PVAR_CLASS_COUNTER, MPI_T_PVAR_CLASS_COUNTER, MPI_T_PVAR_CLASS_COUNTER,
                              MPI_T_PVAR_CLASS_TIMER,   MPI_T_PVAR_CLASS_TIMER,   MPI_T_PVAR_CLASS_TIMER,
                              MPI_T_PVAR_CLASS_COUNTER, MPI_T_PVAR_CLASS_COUNTER, MPI_T_PVAR_CLASS_COUNTER,
                              MPI_T_PVAR_CLASS_COUNTER, MPI_T_PVAR_CLASS_COUNTER, MPI_T_PVAR_CLASS_AGGREGATE};
enum { NVARS = sizeof vars / sizeof vars[0] };
static MPI_T_pvar_handle handles[NVARS];

static unsigned long long calls(int k) {
    unsigned long long n = 0;
    OK(MPI_T_pvar_read(pv_session, handles[k], &n));
    return n;
}

static double seconds(int k) {
    double v = -1;
    OK(MPI_T_pvar_read(pv_session, handles[k], &v));
    return v;
}

static MPI_Win pwin;

/* puts makes thread t's Puts: PUTS words of the peer's window, the thread's slot. */
static void *puts_(void *arg) {
    int t = (int)(long)arg;
    for (int i = 0; i < PUTS; i++) {
        int64_t v = (int64_t)rank << 40 | (int64_t)t << 20 | i;
        OK(MPI_Put(&v, 1, MPI_INT64_T, peer, t, 1, MPI_INT64_T, pwin));
    }
    OK(MPI_Win_flush(peer, pwin));
    return NULL;
}

/* colls runs thread t's collectives on its own duplicate: Barrier, Bcast of 8 bytes
 * from each rank in turn, Allreduce of 8 bytes. */
static void *colls(void *arg) {
    int t = (int)(long)arg;
    for (int i = 0; i < TROUNDS; i++) {
        int64_t v = rank == i % 2 ? (int64_t)t << 32 | i : -1, sum = 0, mine = rank + t + i;
        OK(MPI_Barrier(comms[t]));
        OK(MPI_Bcast(&v, 1, MPI_INT64_T, i % 2, comms[t]));
        CHECK(v == ((int64_t)t << 32 | i), "thread %d round %d: Bcast gave %lld", t, i, (long long)v);
        OK(MPI_Allreduce(&mine, &sum, 1, MPI_INT64_T, MPI_SUM, comms[t]));
        CHECK(sum == 1 + 2 * (int64_t)(t + i), "thread %d round %d: Allreduce gave %lld", t, i, (long long)sum);
    }
    return NULL;
}

static void *worker(void *arg) {
    int t = (int)(long)arg;
    for (int i = 0; i < TROUNDS; i++) {
        MPI_Comm c = i & 1 ? comms[t] : MPI_COMM_WORLD;
        int src = i & 2 ? MPI_ANY_SOURCE : peer;
        int64_t v = (int64_t)t << 32 | i, got = -1;
        MPI_Status st;
        if (rank == 0) {
            OK(MPI_Send(&v, 1, MPI_INT64_T, peer, t, c));
            OK(MPI_Recv(&got, 1, MPI_INT64_T, src, t, c, &st));
            CHECK(got == v + 1, "thread %d round %d: the answer %lld", t, i, (long long)got);
        } else {
            OK(MPI_Recv(&got, 1, MPI_INT64_T, src, t, c, &st));
            CHECK(got == v, "thread %d round %d: received %lld", t, i, (long long)got);
            got++;
            OK(MPI_Send(&got, 1, MPI_INT64_T, peer, t, c));
        }
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == t, "thread %d round %d: source %d tag %d", t, i, st.MPI_SOURCE,
              st.MPI_TAG);
    }
    return NULL;
}

/* complete completes the n requests rq by the calls of mode (0 MPI_Wait each, 1
 * MPI_Waitall, 2 MPI_Test each until true, 3 MPI_Testall until true, 4 MPI_Waitany, 5
 * MPI_Waitsome), their statuses into st in the requests' order. */
static void complete(int mode, int n, MPI_Request *rq, MPI_Status *st) {
    int flag = 0, left = n, idx[2], k;
    MPI_Status s[2];
    switch (mode) {
    case 0:
        for (int j = 0; j < n; j++) OK(MPI_Wait(&rq[j], &st[j]));
        break;
    case 1: OK(MPI_Waitall(n, rq, st)); break;
    case 2:
        for (int j = 0; j < n; j++)
            for (flag = 0; !flag;) OK(MPI_Test(&rq[j], &flag, &st[j]));
        break;
    case 3:
        while (!flag) OK(MPI_Testall(n, rq, &flag, st));
        break;
    case 4:
        while (left-- > 0) {
            OK(MPI_Waitany(n, rq, &k, &s[0]));
            CHECK(k >= 0 && k < n, "MPI_Waitany gave index %d of %d", k, n);
            st[k] = s[0];
        }
        break;
    default:
        while (left > 0) {
            OK(MPI_Waitsome(n, rq, &k, idx, s));
            CHECK(k >= 1 && k <= left, "MPI_Waitsome gave %d of %d", k, left);
            for (int j = 0; j < k; j++) st[idx[j]] = s[j];
            left -= k;
        }
    }
    for (int j = 0; j < n; j++) CHECK(rq[j] == MPI_REQUEST_NULL, "mode %d left request %d live", mode, j);
}

/* nbcomm and nbsrc are thread t's communicator and source for round i's receive. */
static MPI_Comm nbcomm(int t, int i) { return i & 1 ? comms[t] : MPI_COMM_WORLD; }
static int nbsrc(int i) { return (i & 6) == 6 ? MPI_ANY_SOURCE : peer; }

static void *nbworker(void *arg) {
    int t = (int)(long)arg;
    int64_t in = -1, out;
    MPI_Request rq[2];
    MPI_Status st[2];
    if (rank == 1) OK(MPI_Irecv(&in, 1, MPI_INT64_T, nbsrc(0), t, nbcomm(t, 0), &rq[0]));
    for (int i = 0; i < TROUNDS; i++) {
        int64_t v = (int64_t)t << 32 | i;
        int mode = (i / 2) % 6;
        if (rank == 0) {
            in = -1, out = v;
            OK(MPI_Irecv(&in, 1, MPI_INT64_T, nbsrc(i), t, nbcomm(t, i), &rq[0]));
            OK(MPI_Isend(&out, 1, MPI_INT64_T, peer, t, nbcomm(t, i), &rq[1]));
            complete(mode, 2, rq, st);
            CHECK(in == v + 1, "nonblocking thread %d round %d: the answer %lld", t, i, (long long)in);
        } else {
            complete(mode, 1, rq, st);
            CHECK(in == v, "nonblocking thread %d round %d: received %lld", t, i, (long long)in);
            out = in + 1, in = -1;
            if (i + 1 < TROUNDS) OK(MPI_Irecv(&in, 1, MPI_INT64_T, nbsrc(i + 1), t, nbcomm(t, i + 1), &rq[0]));
            OK(MPI_Isend(&out, 1, MPI_INT64_T, peer, t, nbcomm(t, i), &rq[1]));
            complete(mode, 1, &rq[1], &st[1]);
        }
        int n = -1;
        OK(MPI_Get_count(&st[0], MPI_INT64_T, &n));
        CHECK(st[0].MPI_SOURCE == peer && st[0].MPI_TAG == t && n == 1,
              "nonblocking thread %d round %d (mode %d): source %d tag %d count %d", t, i, mode, st[0].MPI_SOURCE,
              st[0].MPI_TAG, n);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int provided, size;
    OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    OK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "p2pmt runs on 2 ranks, not %d", size);
    peer = 1 - rank;
    pv_watch(NVARS, vars, classes, handles);

    long s0 = 0, r0 = 0, x0 = 0;
    unsigned long long n0[3] = {0};
    for (int i = -1; i < ROUNDS; i++) {
        if (i == 0) { /* round -1 makes the rings between the ranks, in Go */
            s0 = mpigo_short_sends(), r0 = mpigo_short_recvs(), x0 = mpigo_short_sendrecvs();
            for (int k = 0; k < 3; k++) n0[k] = calls(k);
        }
        sent_first(i, rank, peer, 7);
        int64_t out = (int64_t)rank << 32 | (i & 0xffff), in = -1;
        OK(MPI_Sendrecv(&out, 1, MPI_INT64_T, peer, 9, &in, 1, MPI_INT64_T, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(in == ((int64_t)peer << 32 | (i & 0xffff)), "round %d: exchanged %lld", i, (long long)in);
    }
    long s = mpigo_short_sends() - s0, r = mpigo_short_recvs() - r0, x = mpigo_short_sendrecvs() - x0;
    /* A receive whose message the engine took first (a Barrier that waited in Go made
     * progress) goes on in Go: up to one in a hundred may. An exchange whose peer is
     * late waits out its spin and goes on in Go: up to one in ten may. */
    CHECK(s == ROUNDS && r >= ROUNDS - ROUNDS / 100 && r <= ROUNDS && x >= ROUNDS - ROUNDS / 10 && x <= ROUNDS,
          "%ld sends, %ld receives, %ld exchanges of %d took C", s, r, x, ROUNDS);
    CHECK(calls(0) - n0[0] == ROUNDS && calls(1) - n0[1] == ROUNDS && calls(2) - n0[2] == ROUNDS,
          "the record counts %llu sends, %llu receives, %llu exchanges, not %d each", calls(0) - n0[0],
          calls(1) - n0[1], calls(2) - n0[2], ROUNDS);
    for (int k = 3; k < 6; k++) CHECK(seconds(k) > 0 && seconds(k) < 60, "%s is %g s", vars[k], seconds(k));

    for (int t = 0; t < NT; t++) OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    s0 = mpigo_short_sends(), r0 = mpigo_short_recvs();
    for (int k = 0; k < 2; k++) n0[k] = calls(k);
    pthread_t th[NT];
    for (int t = 0; t < NT; t++) pthread_create(&th[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
    s = mpigo_short_sends() - s0, r = mpigo_short_recvs() - r0;
    CHECK(s > 0 && s <= NT * TROUNDS && r > 0 && r <= NT * TROUNDS, "threads: %ld sends, %ld receives of %d took C",
          s, r, NT * TROUNDS);
    CHECK(calls(0) - n0[0] == NT * TROUNDS && calls(1) - n0[1] == NT * TROUNDS,
          "threads: the record counts %llu sends, %llu receives, not %d each", calls(0) - n0[0], calls(1) - n0[1],
          NT * TROUNDS);

    /* Nonblocking ping-pongs of every thread at once, each receive made before its
     * message (but a thread's first): right, some kept pending in C and taken there
     * (before MPI_Irecv's receives were kept at this level, at most the NT first
     * could take C), each counted once. */
    long i0 = mpigo_short_irecvs();
    unsigned long long ic0 = calls(9);
    for (int t = 0; t < NT; t++) pthread_create(&th[t], NULL, nbworker, (void *)(long)t);
    for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
    long ir = mpigo_short_irecvs() - i0;
    CHECK(ir > NT && ir <= NT * TROUNDS, "nonblocking threads: %ld receives of %d took C", ir, NT * TROUNDS);
    CHECK(calls(9) - ic0 == NT * TROUNDS, "nonblocking threads: the record counts %llu receives, not %d",
          calls(9) - ic0, NT * TROUNDS);

    /* Collectives of every thread at once, each on its duplicate: right, some in C,
     * each counted once. */
    long c0 = mpigo_short_colls();
    unsigned long long k0[3];
    for (int k = 0; k < 3; k++) k0[k] = calls(6 + k);
    for (int t = 0; t < NT; t++) pthread_create(&th[t], NULL, colls, (void *)(long)t);
    for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
    long c = mpigo_short_colls() - c0;
    CHECK(c > 0 && c <= 3 * NT * TROUNDS, "threads: %ld of %d collectives took C", c, 3 * NT * TROUNDS);
    for (int k = 0; k < 3; k++)
        CHECK(calls(6 + k) - k0[k] == NT * TROUNDS, "threads: the record counts %llu of %s, not %d",
              calls(6 + k) - k0[k], vars[6 + k], NT * TROUNDS);
    for (int t = 0; t < NT; t++) OK(MPI_Comm_free(&comms[t]));

    /* More threads than copies of the counts, twice over: each Put counted once. */
    int64_t *words;
    OK(MPI_Win_allocate(2 * NP * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &words, &pwin));
    OK(MPI_Win_lock_all(0, pwin));
    unsigned long long p0 = calls(10), b0 = calls(11);
    pthread_t pth[2 * NP];
    for (int t = 0; t < 2 * NP; t++) pthread_create(&pth[t], NULL, puts_, (void *)(long)t);
    for (int t = 0; t < 2 * NP; t++) pthread_join(pth[t], NULL);
    for (int t = 0; t < 2 * NP; t++) pthread_create(&pth[t], NULL, puts_, (void *)(long)t);
    for (int t = 0; t < 2 * NP; t++) pthread_join(pth[t], NULL);
    unsigned long long np = calls(10) - p0, nb = calls(11) - b0;
    CHECK(np == 2 * 2 * NP * PUTS && nb == 8 * np, "threads' Puts: the record counts %llu calls and %llu bytes, "
          "not %d and %d", np, nb, 2 * 2 * NP * PUTS, 8 * 2 * 2 * NP * PUTS);
    OK(MPI_Win_unlock_all(pwin));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int t = 0; t < 2 * NP; t++)
        CHECK(words[t] == ((int64_t)peer << 40 | (int64_t)t << 20 | (PUTS - 1)), "word %d: %llx", t,
              (unsigned long long)words[t]);
    OK(MPI_Win_free(&pwin));

    pv_free(NVARS, handles);
    OK(MPI_T_finalize());
    OK(MPI_Finalize());
    if (rank == 0)
        printf("OK p2pmt (threads: %ld sends, %ld receives, %ld nonblocking receives of %d, %ld collectives of %d in "
               "C)\n",
               s, r, ir, NT * TROUNDS, c, 3 * NT * TROUNDS);
    return 0;
}
