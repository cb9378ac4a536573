/* winshort.c - the window synchronisation calls' short ways in C (abi/libmpi/winshort.c):
 * MPI_Win_fence, MPI_Win_start, MPI_Win_complete, MPI_Win_post and MPI_Win_wait done
 * in C on a window whose every target is in node shared memory, on the device's own
 * epoch words, so that what Go checks after them (an operation outside an epoch, an
 * epoch call out of turn) is what the C calls left (MPI_Win_sync too, in short.c);
 * and taken by Go where something
 * only Go does may be pending (a window whose targets are shipped to: MPI_Win_create's
 * memory, or every window over TCP), or where a check fails (an assertion the call
 * does not take, a lock held). It counts the calls C did (mpigo_short_syncs) and those
 * handed to Go (mpigo_short_fallbacks). argv[1] "go": no sync call may stay in C
 * (TCP); "multiple": MPI_THREAD_MULTIPLE, where the calls stay in C too, and two
 * threads then fence and put on a window each at once (each window's fence a barrier
 * of its own), and then lock, put and unlock at once: on 3 ranks or more two targets
 * of one window, on 2 a window each. */
#include "check.h"
#include <pthread.h>
#include <stdint.h>
#include <string.h>

extern long mpigo_short_fallbacks(void);
extern long mpigo_short_syncs(void);

static int rank, n, nofence, nopscw;
static MPI_Win win;
static int64_t *base;

static int errclass(int rc) {
    int c = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
    return c;
}

/* INC runs body, want sync calls: where inc says they may stay in C, each took C or
 * (the record times one call in about 64, in Go) Go, and nothing else went to Go;
 * elsewhere none took C. */
#define INC(inc, want, what, body)                                                                     \
    do {                                                                                               \
        long s0_ = mpigo_short_syncs(), f0_ = mpigo_short_fallbacks();                                 \
        body;                                                                                          \
        long s_ = mpigo_short_syncs() - s0_, f_ = mpigo_short_fallbacks() - f0_;                       \
        if (inc) CHECK(s_ + f_ == (want), "%s: %ld sync calls in C, %ld in Go (want %d)", what, s_, f_, \
                       (int)(want));                                                                   \
        else CHECK(s_ == 0, "%s: %ld sync calls in C, want none", what, s_);                           \
    } while (0)

/* MOSTLY checks that of want calls since *s0, more than half stayed in C (or none,
 * where inc says none may). */
static void mostly(int inc, long s0, int want, const char *what) {
    long s = mpigo_short_syncs() - s0;
    if (inc) CHECK(s > want / 2 && s <= want, "%s: %ld of %d sync calls in C", what, s, want);
    else CHECK(s == 0, "%s: %ld sync calls in C, want none", what, s);
}

/* fencer is a thread's part at MPI_THREAD_MULTIPLE: 100 epochs of a Put to the right
 * neighbour on its own window wins[t], between fences, each value checked. */
static MPI_Win wins[2];
static int64_t *wbase[2];
static long tsyncs[2];

static void *fencer(void *arg) {
    int t = (int)(long)arg, right = (rank + 1) % n, left = (rank + n - 1) % n;
    long s0 = mpigo_short_syncs();
    for (int64_t i = 1; i <= 100; i++) {
        int64_t v = (t + 1) * 100000 + rank * 1000 + i;
        OK(MPI_Put(&v, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, wins[t]));
        OK(MPI_Win_fence(0, wins[t]));
        CHECK(wbase[t][0] == (t + 1) * 100000 + left * 1000 + i, "thread %d fence %d: %lld", t, (int)i,
              (long long)wbase[t][0]);
        OK(MPI_Win_fence(MPI_MODE_NOPUT, wins[t]));
    }
    tsyncs[t] = mpigo_short_syncs() - s0;
    return NULL;
}

/* locker is a thread's part of the locks at MPI_THREAD_MULTIPLE: 100 exclusive locks of
 * its target (thread 0 its right neighbour, thread 1 its left one), a Put into word
 * 1+t and the unlock, on window wins[0] (3 ranks or more: two targets of one window)
 * or wins[t]. */
static void *locker(void *arg) {
    int t = (int)(long)arg, target = t == 0 ? (rank + 1) % n : (rank + n - 1) % n;
    MPI_Win w = n >= 3 ? wins[0] : wins[t];
    for (int64_t i = 1; i <= 100; i++) {
        int64_t v = (t + 1) * 100000 + rank * 1000 + i;
        OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, w));
        OK(MPI_Put(&v, 1, MPI_INT64_T, target, 1 + t, 1, MPI_INT64_T, w));
        OK(MPI_Win_unlock(target, w));
    }
    return NULL;
}

/* threads runs fencer on two threads at once, each on a window of its own, then
 * locker. */
static void threads(void) {
    pthread_t th[2];
    for (int t = 0; t < 2; t++) {
        OK(MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &wbase[t], &wins[t]));
        wbase[t][0] = 0;
        OK(MPI_Win_fence(0, wins[t])); /* the first goes to Go, which finds the node region */
    }
    long s0 = mpigo_short_syncs();
    for (int t = 0; t < 2; t++) pthread_create(&th[t], NULL, fencer, (void *)(long)t);
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    long s = mpigo_short_syncs() - s0;
    /* Both threads count in one tally: each sees the other's too. */
    CHECK(s > 200 && s <= 400 && tsyncs[0] > 0 && tsyncs[1] > 0, "two threads' fences: %ld of 400 in C", s);
    for (int t = 0; t < 2; t++) OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, wins[t]));

    s0 = mpigo_short_syncs();
    for (int t = 0; t < 2; t++) pthread_create(&th[t], NULL, locker, (void *)(long)t);
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    s = mpigo_short_syncs() - s0;
    OK(MPI_Barrier(MPI_COMM_WORLD));
    int right = (rank + 1) % n, left = (rank + n - 1) % n;
    int64_t *b1 = wbase[0], *b2 = n >= 3 ? wbase[0] : wbase[1];
    int64_t w1 = __atomic_load_n(&b1[1], __ATOMIC_SEQ_CST), w2 = __atomic_load_n(&b2[2], __ATOMIC_SEQ_CST);
    CHECK(w1 == 100000 + left * 1000 + 100 && w2 == 200000 + right * 1000 + 100,
          "two threads' locks: words %lld and %lld", (long long)w1, (long long)w2);
    CHECK(s > 200 && s <= 400, "two threads' locks: %ld of 400 in C", s);
    for (int t = 0; t < 2; t++) OK(MPI_Win_free(&wins[t]));
}

int main(int argc, char **argv) {
    int multiple = argc > 1 && strcmp(argv[1], "multiple") == 0, provided;
    OK(MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided));
    CHECK(!multiple || provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int go = argc > 1 && strcmp(argv[1], "go") == 0;
    nofence = go;
    nopscw = go;
    int right = (rank + 1) % n, left = (rank + n - 1) % n;
    const MPI_Aint words = 64;

    OK(MPI_Win_allocate(words * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    memset(base, 0, words * 8);
    OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Fence: each rank puts to its right neighbour between fences, in C from the first
     * (its barrier is counters in the window's control blocks). */
    INC(!nofence, 1, "the first fence", OK(MPI_Win_fence(0, win)));
    long s0 = mpigo_short_syncs();
    for (int64_t i = 1; i <= 50; i++) {
        int64_t v = rank * 1000 + i;
        OK(MPI_Put(&v, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, win));
        INC(!nofence, 1, "fence", OK(MPI_Win_fence(0, win)));
        CHECK(base[0] == left * 1000 + i, "after fence %d: %lld from rank %d", (int)i, (long long)base[0], left);
        /* The next epoch's Put waits for this rank's read. */
        INC(!nofence, 1, "fence", OK(MPI_Win_fence(MPI_MODE_NOPUT, win)));
    }
    mostly(!nofence, s0, 100, "fences");

    /* An accumulate that goes through Go (MPI_MAX: not a short way's) is there after a
     * fence done in C. */
    {
        int64_t v = 7 + rank;
        long f0 = mpigo_short_fallbacks();
        OK(MPI_Accumulate(&v, 1, MPI_INT64_T, right, 1, 1, MPI_INT64_T, MPI_MAX, win));
        CHECK(mpigo_short_fallbacks() > f0, "MPI_MAX accumulate stayed in C");
        INC(!nofence, 1, "fence after a Go accumulate", OK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win)));
        CHECK(base[1] == 7 + left, "accumulated %lld, want %d", (long long)base[1], 7 + left);
    }

    /* NOSUCCEED ends the epoch: a Put after it is MPI_ERR_RMA_SYNC (Go's check of the
     * words C left), a fence with NOPRECEDE and NOSUCCEED does nothing, a fence with
     * NOPRECEDE starts the next epoch. */
    INC(!nofence, 1, "fence NOSUCCEED", OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win)));
    {
        int64_t v = 1;
        CHECK(errclass(MPI_Put(&v, 1, MPI_INT64_T, right, 2, 1, MPI_INT64_T, win)) == MPI_ERR_RMA_SYNC,
              "Put after fence(NOSUCCEED) is not MPI_ERR_RMA_SYNC");
        INC(!nofence, 1, "fence NOPRECEDE|NOSUCCEED",
            OK(MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED, win)));
        CHECK(errclass(MPI_Put(&v, 1, MPI_INT64_T, right, 2, 1, MPI_INT64_T, win)) == MPI_ERR_RMA_SYNC,
              "Put after fence(NOPRECEDE|NOSUCCEED) is not MPI_ERR_RMA_SYNC");
        INC(!nofence, 1, "fence NOPRECEDE", OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win)));
        v = 100 + rank;
        OK(MPI_Put(&v, 1, MPI_INT64_T, right, 2, 1, MPI_INT64_T, win));
        INC(!nofence, 1, "fence NOSUCCEED after puts", OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win)));
        CHECK(base[2] == 100 + left, "after fence NOPRECEDE: %lld", (long long)base[2]);
    }

    /* MPI_Win_sync: a memory barrier, in C where no progress goroutine serves. */
    {
        long f0 = mpigo_short_fallbacks();
        OK(MPI_Win_lock_all(0, win));
        for (int i = 0; i < 10; i++) OK(MPI_Win_sync(win));
        OK(MPI_Win_unlock_all(win));
        long f = mpigo_short_fallbacks() - f0;
        CHECK(nopscw ? f >= 10 : f == 0, "Win_sync: %ld calls went to Go", f);
    }

    /* Errors, reported by Go: an assertion the fence does not take, a fence while this
     * rank holds a lock. */
    INC(0, 0, "fence NOCHECK", CHECK(errclass(MPI_Win_fence(MPI_MODE_NOCHECK, win)) == MPI_ERR_ASSERT, "fence NOCHECK"));
    OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    INC(0, 0, "fence in a lock", CHECK(errclass(MPI_Win_fence(0, win)) == MPI_ERR_RMA_CONFLICT, "fence in a lock"));
    OK(MPI_Win_unlock(right, win));
    OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Passive target: Lock and Unlock in C (a held lock waits in Go), on the device's
     * lock words, so that C and Go holders exclude each other; Flush_all in a C lock
     * stays in C. */
    {
        long s0 = mpigo_short_syncs();
        for (int64_t i = 1; i <= 20; i++) {
            int64_t v = rank * 1000 + i;
            OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
            OK(MPI_Put(&v, 1, MPI_INT64_T, right, 7, 1, MPI_INT64_T, win));
            long f0 = mpigo_short_fallbacks();
            OK(MPI_Win_flush_all(win));
            CHECK(nopscw || mpigo_short_fallbacks() == f0, "Flush_all in a lock went to Go");
            OK(MPI_Win_unlock(right, win));
        }
        mostly(!nopscw, s0, 40, "Lock/Unlock");
        OK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(base[7] == left * 1000 + 20, "after locks: %lld", (long long)base[7]);
        /* Mutual exclusion: every rank adds 1 to rank 0's word 8 by Get and Put under an
         * exclusive lock, 200 times. */
        for (int i = 0; i < 200; i++) {
            int64_t v;
            OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            OK(MPI_Get(&v, 1, MPI_INT64_T, 0, 8, 1, MPI_INT64_T, win));
            OK(MPI_Win_flush(0, win));
            v++;
            OK(MPI_Put(&v, 1, MPI_INT64_T, 0, 8, 1, MPI_INT64_T, win));
            OK(MPI_Win_unlock(0, win));
        }
        OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) CHECK(base[8] == 200 * n, "exclusive increments: %lld, want %d", (long long)base[8], 200 * n);
        /* What C's locks left, checked by Go. */
        int64_t v = 1;
        CHECK(errclass(MPI_Put(&v, 1, MPI_INT64_T, right, 9, 1, MPI_INT64_T, win)) == MPI_ERR_RMA_SYNC,
              "Put after Unlock is not MPI_ERR_RMA_SYNC");
        CHECK(errclass(MPI_Win_unlock(right, win)) == MPI_ERR_RMA_SYNC, "Unlock without Lock");
        CHECK(errclass(MPI_Win_flush_all(win)) == MPI_ERR_RMA_SYNC, "Flush_all without a lock");
        CHECK(errclass(MPI_Win_lock(12345, right, 0, win)) == MPI_ERR_LOCKTYPE, "bad lock type");
        OK(MPI_Win_lock(MPI_LOCK_SHARED, right, MPI_MODE_NOCHECK, win));
        CHECK(errclass(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win)) == MPI_ERR_RMA_SYNC, "second Lock");
        OK(MPI_Win_unlock(right, win));
        OK(MPI_Barrier(MPI_COMM_WORLD));
    }

    /* PSCW around a ring: each rank exposes to its left neighbour and accesses its
     * right one. The first Post and Start go to Go (which translates the groups); the
     * rest stay in C. */
    MPI_Group world, from, to;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    OK(MPI_Group_incl(world, 1, &left, &from));
    OK(MPI_Group_incl(world, 1, &right, &to));
    s0 = mpigo_short_syncs();
    for (int64_t i = 1; i <= 50; i++) {
        int c = i > 1 && !nopscw;
        INC(c, 1, "post", OK(MPI_Win_post(from, 0, win)));
        INC(c, 1, "start", OK(MPI_Win_start(to, 0, win)));
        int64_t v = rank * 1000 + i;
        OK(MPI_Put(&v, 1, MPI_INT64_T, right, 3, 1, MPI_INT64_T, win));
        INC(!nopscw, 1, "complete", OK(MPI_Win_complete(win)));
        INC(!nopscw, 1, "wait", OK(MPI_Win_wait(win)));
        CHECK(base[3] == left * 1000 + i, "after wait %d: %lld", (int)i, (long long)base[3]);
    }
    mostly(!nopscw, s0, 200, "PSCW");

    /* What C's PSCW left, checked by Go: a Put after Complete, a Complete without Start,
     * a Wait without Post are MPI_ERR_RMA_SYNC; so is a second Start, and a fence in
     * Start's epoch MPI_ERR_RMA_CONFLICT. */
    {
        int64_t v = 1;
        CHECK(errclass(MPI_Put(&v, 1, MPI_INT64_T, right, 3, 1, MPI_INT64_T, win)) == MPI_ERR_RMA_SYNC,
              "Put after Complete is not MPI_ERR_RMA_SYNC");
        CHECK(errclass(MPI_Win_complete(win)) == MPI_ERR_RMA_SYNC, "Complete without Start");
        CHECK(errclass(MPI_Win_wait(win)) == MPI_ERR_RMA_SYNC, "Wait without Post");
        INC(!nopscw, 1, "post", OK(MPI_Win_post(from, MPI_MODE_NOSTORE, win)));
        INC(!nopscw, 1, "start", OK(MPI_Win_start(to, 0, win)));
        INC(0, 0, "second start", CHECK(errclass(MPI_Win_start(to, 0, win)) == MPI_ERR_RMA_SYNC, "second Start"));
        INC(0, 0, "fence in start", CHECK(errclass(MPI_Win_fence(0, win)) == MPI_ERR_RMA_CONFLICT, "fence in Start"));
        INC(0, 0, "start assert", CHECK(errclass(MPI_Win_start(to, MPI_MODE_NOSTORE, win)) == MPI_ERR_ASSERT, "Start NOSTORE"));
        v = 5000 + rank;
        OK(MPI_Put(&v, 1, MPI_INT64_T, right, 4, 1, MPI_INT64_T, win));
        INC(!nopscw, 1, "complete", OK(MPI_Win_complete(win)));
        INC(!nopscw, 1, "wait", OK(MPI_Win_wait(win)));
        CHECK(base[4] == 5000 + left, "after wait: %lld", (long long)base[4]);
    }

    /* NOCHECK on both sides: Start after Post by a barrier. */
    INC(!nopscw, 1, "post NOCHECK", OK(MPI_Win_post(from, MPI_MODE_NOCHECK, win)));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    INC(!nopscw, 1, "start NOCHECK", OK(MPI_Win_start(to, MPI_MODE_NOCHECK, win)));
    int64_t v6 = 6000 + rank; /* the origin lives until Complete */
    OK(MPI_Put(&v6, 1, MPI_INT64_T, right, 5, 1, MPI_INT64_T, win));
    INC(!nopscw, 2, "complete and wait", {
        OK(MPI_Win_complete(win));
        OK(MPI_Win_wait(win));
    });
    CHECK(base[5] == 6000 + left, "after NOCHECK epoch: %lld", (long long)base[5]);

    /* A group freed anywhere: the next Start and Post go to Go, which translates anew. */
    {
        MPI_Group tmp;
        OK(MPI_Group_incl(world, 1, &rank, &tmp));
        OK(MPI_Group_free(&tmp));
        INC(0, 0, "post after a group free", OK(MPI_Win_post(from, 0, win)));
        INC(0, 0, "start after a group free", OK(MPI_Win_start(to, 0, win)));
        INC(!nopscw, 2, "complete and wait", {
            OK(MPI_Win_complete(win));
            OK(MPI_Win_wait(win));
        });
    }

    /* A C rank meets a Go rank: rank 0 starts with a new group each time (Go), the
     * others with their cached one (C). */
    for (int64_t i = 1; i <= 20; i++) {
        MPI_Group t2 = to;
        if (rank == 0) OK(MPI_Group_incl(world, 1, &right, &t2));
        OK(MPI_Win_post(from, 0, win));
        OK(MPI_Win_start(t2, 0, win));
        int64_t v = rank * 1000 + i;
        OK(MPI_Put(&v, 1, MPI_INT64_T, right, 6, 1, MPI_INT64_T, win));
        OK(MPI_Win_complete(win));
        OK(MPI_Win_wait(win));
        CHECK(base[6] == left * 1000 + i, "mixed epoch %d: %lld", (int)i, (long long)base[6]);
        if (rank == 0) OK(MPI_Group_free(&t2));
    }
    OK(MPI_Group_free(&from));
    OK(MPI_Group_free(&to));
    OK(MPI_Group_free(&world));
    OK(MPI_Win_free(&win));

    /* MPI_Win_create's memory is shipped to: operations may be pending in Go at a fence,
     * which then stays in Go (and completes them). */
    {
        int64_t *mem = calloc(words, 8), *vs = calloc(words, 8); /* origins: until the fence */
        MPI_Win cw;
        OK(MPI_Win_create(mem, words * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &cw));
        OK(MPI_Win_fence(0, cw));
        for (int64_t i = 1; i <= 20; i++) {
            for (int k = 0; k < words; k++) {
                vs[k] = rank * 100000 + i * 100 + k;
                OK(MPI_Put(&vs[k], 1, MPI_INT64_T, right, k, 1, MPI_INT64_T, cw));
            }
            INC(0, 0, "fence of a created window", OK(MPI_Win_fence(0, cw)));
            for (int k = 0; k < words; k++)
                CHECK(mem[k] == left * 100000 + i * 100 + k, "created window, fence %d word %d: %lld", (int)i, k,
                      (long long)mem[k]);
            OK(MPI_Win_fence(0, cw));
        }
        OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, cw));
        OK(MPI_Win_free(&cw));
        free(mem), free(vs);
    }

    if (multiple) threads();

    OK(MPI_Finalize());
    if (rank == 0) printf("OK winshort\n");
    return 0;
}
