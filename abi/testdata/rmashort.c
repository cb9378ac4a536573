/* rmashort.c - the one-sided calls' short ways in C (abi/libmpi/short.c): Put, Get,
 * Accumulate, Fetch_and_op, Compare_and_swap and the flushes done in C when the
 * target's memory is mapped here, and handed to Go otherwise. Every rank works on
 * every target under lock/unlock, lock_all, fence and PSCW, checks the data, and
 * checks through mpigo_short_fallbacks (the library's count of calls handed to Go)
 * that the short way was taken exactly where it applies: a target on this rank's node
 * (MPI_COMM_TYPE_SHARED), but not this rank's own memory when a rank on another node
 * ships requests to it, and nowhere with the argument "tcp" (the job runs with
 * transports=self,tcp); calls that move nothing too; with the argument "create" the
 * window is MPI_Win_create's over MPI_Alloc_mem memory. Then the errors: a bad rank, displacement, range or epoch,
 * and a freed window, reported as before through the window's handler; two
 * threads updating the same words at once (MPI_THREAD_MULTIPLE); and Put and Get
 * from 2 KiB to just under 1 MiB at odd offsets, byte for byte. */
#include "check.h"
#include <pthread.h>
#include <stdint.h>
#include <string.h>

extern long mpigo_short_fallbacks(void);

#define SLOT 4096           /* bytes each origin writes at each target */
#define NACC 1024           /* ints of the accumulate area */
#define NTH 2               /* threads */
#define NFOP 2000           /* fetch-and-ops per thread */

static int rank, n, tcp, offnode;
static int *local;          /* local[t]: t shares this rank's node */
static MPI_Win win;
static char *base;
static MPI_Aint accoff, wordoff, size;

/* fast reports whether an operation on target t should stay in C: not when a
 * progress goroutine serves this rank's memory (a rank ships to it: over TCP, or from
 * another node) and t is this rank. */
static int fast(int t) { return !tcp && local[t] && !(t == rank && offnode); }

/* fastflush reports whether MPI_Win_flush(t) should stay in C: with a progress
 * goroutine, Flush synchronises with it in Go. */
static int fastflush(int t) { return fast(t) && !tcp && !offnode; }

/* SPANX runs body and checks the calls it handed to Go: none when expect, some
 * otherwise; SPAN expects what fast(t) says. */
#define SPANX(expect, t, what, body)                                                          \
    do {                                                                                      \
        long f0_ = mpigo_short_fallbacks();                                                   \
        body;                                                                                 \
        long d_ = mpigo_short_fallbacks() - f0_;                                              \
        CHECK((expect) ? d_ == 0 : d_ > 0, "%s at target %d (fast %d): %ld calls went to Go", \
              what, t, (expect), d_);                                                         \
    } while (0)
#define SPAN(t, what, body) SPANX(fast(t), t, what, body)

static int errclass(int rc) {
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

static void *fop_worker(void *arg) {
    (void)arg;
    int64_t one = 1, res;
    int ones[16];
    for (int i = 0; i < 16; i++) ones[i] = 1;
    for (int i = 0; i < NFOP; i++) {
        int t = i % n;
        OK(MPI_Fetch_and_op(&one, &res, MPI_INT64_T, t, wordoff, MPI_SUM, win));
        OK(MPI_Accumulate(ones, 16, MPI_INT, t, accoff + 64 * (1 + (i & 7)), 16, MPI_INT, MPI_SUM, win));
    }
    /* res and ones live on this thread's stack, which goes when it returns: the
     * operations must complete here, not at the main thread's MPI_Win_unlock_all
     * (over TCP a late reply would write into a dead stack). */
    OK(MPI_Win_flush_local_all(win));
    return NULL;
}

int main(int argc, char **argv) {
    int provided;
    OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    tcp = argc > 1 && strcmp(argv[1], "tcp") == 0;
    /* "create": the window is MPI_Win_create's over MPI_Alloc_mem memory, which the
     * node's ranks map: the same ways as MPI_Win_allocate's. */
    int created = argc > 1 && strcmp(argv[1], "create") == 0;
    int right = (rank + 1) % n, left = (rank + n - 1) % n;

    /* Who shares this rank's node. */
    MPI_Comm node;
    int nn;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Comm_size(node, &nn);
    offnode = nn < n;
    local = calloc(n, sizeof(int));
    int *mine = calloc(n, sizeof(int));
    mine[rank] = 1;
    {
        MPI_Group wg, ng;
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Comm_group(node, &ng);
        int *in = malloc(nn * sizeof(int)), *out = malloc(nn * sizeof(int));
        for (int i = 0; i < nn; i++) in[i] = i;
        OK(MPI_Group_translate_ranks(ng, nn, in, wg, out));
        for (int i = 0; i < nn; i++) local[out[i]] = 1;
        free(in), free(out), free(mine);
        MPI_Group_free(&wg), MPI_Group_free(&ng);
    }

    /* The window: a slot per origin, an accumulate area of ints, a word. */
    accoff = (MPI_Aint)n * SLOT;
    wordoff = accoff + NACC * sizeof(int) + 64;
    size = wordoff + 64;
    if (created) {
        OK(MPI_Alloc_mem(size, MPI_INFO_NULL, &base));
        OK(MPI_Win_create(base, size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    } else {
        OK(MPI_Win_allocate(size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    }
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    memset(base, 0, size);
    OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Passive target, one target at a time: Put, Flush, Get, Flush_local. */
    char *src = malloc(SLOT), *dst = malloc(SLOT);
    for (int t = 0; t < n; t++) {
        for (int i = 0; i < SLOT; i++) src[i] = (char)(rank * 31 + t * 7 + i);
        OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
        SPAN(t, "Put 4 KiB", OK(MPI_Put(src, SLOT, MPI_CHAR, t, (MPI_Aint)rank * SLOT, SLOT, MPI_CHAR, win)));
        SPANX(fastflush(t), t, "Flush", OK(MPI_Win_flush(t, win)));
        SPAN(t, "Get+Flush_local 4 KiB", {
            memset(dst, 0, SLOT);
            OK(MPI_Get(dst, SLOT / 8, MPI_DOUBLE, t, (MPI_Aint)rank * SLOT, SLOT / 8, MPI_DOUBLE, win));
            OK(MPI_Win_flush_local(t, win));
        });
        CHECK(memcmp(src, dst, SLOT) == 0, "Get after Put at target %d", t);
        /* Calls that move nothing: in C too, where their arguments are right. */
        SPAN(t, "Put, Get, Accumulate of nothing", {
            OK(MPI_Put(NULL, 0, MPI_INT, t, 0, 0, MPI_INT, win));
            OK(MPI_Get(NULL, 0, MPI_DOUBLE, t, size, 0, MPI_DOUBLE, win));
            OK(MPI_Accumulate(NULL, 0, MPI_INT, t, 8, 0, MPI_INT, MPI_SUM, win));
            OK(MPI_Get_accumulate(NULL, 0, MPI_INT, NULL, 0, MPI_INT, t, 8, 0, MPI_INT, MPI_SUM, win));
            OK(MPI_Get_accumulate_c(NULL, 0, MPI_INT, NULL, 0, MPI_INT, t, 8, 0, MPI_INT, MPI_NO_OP, win));
        });
        CHECK(errclass(MPI_Put(NULL, 0, MPI_INT, t, -1, 0, MPI_INT, win)) == MPI_ERR_DISP, "Put of nothing at -1");
        /* The op of an accumulate that combines nothing is not looked at (the Go way). */
        OK(MPI_Accumulate(NULL, 0, MPI_INT, t, 0, 0, MPI_INT, MPI_OP_NULL, win));
        /* The large-count forms, 8 bytes. */
        int64_t v = 1000 + rank, g = 0;
        SPAN(t, "Put_c 8 B", OK(MPI_Put_c(&v, 1, MPI_INT64_T, t, (MPI_Aint)rank * SLOT, 1, MPI_INT64_T, win)));
        SPANX(fastflush(t), t, "Flush", OK(MPI_Win_flush(t, win)));
        SPAN(t, "Get_c 8 B", OK(MPI_Get_c(&g, 8, MPI_BYTE, t, (MPI_Aint)rank * SLOT, 8, MPI_BYTE, win)));
        OK(MPI_Win_flush(t, win));
        CHECK(g == v, "Get_c after Put_c at target %d: %lld", t, (long long)g);
        OK(MPI_Win_unlock(t, win));
        /* Past the epoch: no access, in C as in Go. */
        int rc = MPI_Put(src, 8, MPI_CHAR, t, 0, 8, MPI_CHAR, win);
        CHECK(errclass(rc) == MPI_ERR_RMA_SYNC, "Put after Unlock: class %d", errclass(rc));
        rc = MPI_Get(NULL, 0, MPI_CHAR, t, 0, 0, MPI_CHAR, win);
        CHECK(errclass(rc) == MPI_ERR_RMA_SYNC, "Get of nothing after Unlock: class %d", errclass(rc));
        rc = MPI_Win_flush(t, win);
        CHECK(errclass(rc) == MPI_ERR_RMA_SYNC, "Flush after Unlock: class %d", errclass(rc));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int o = 0; o < n; o++) {
        int64_t v;
        memcpy(&v, base + (MPI_Aint)o * SLOT, 8);
        CHECK(v == 1000 + o, "slot of origin %d holds %lld", o, (long long)v);
        for (int i = 8; i < SLOT; i++)
            CHECK(base[(MPI_Aint)o * SLOT + i] == (char)(o * 31 + rank * 7 + i), "slot of origin %d, byte %d", o, i);
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Lock_all: Accumulate (MPI_SUM on ints, under the accumulate lock; on int64,
     * atomic; MPI_REPLACE on doubles), Fetch_and_op, Compare_and_swap, Flush_all. */
    int ones[NACC];
    for (int i = 0; i < NACC; i++) ones[i] = i + 1;
    OK(MPI_Win_lock_all(0, win));
    for (int t = 0; t < n; t++) {
        int64_t one = 1, fres = -1, res = -1, cmp = 0, swp = 7; /* two results: MPI orders no writes to one */
        double d = rank + 0.5;
        SPAN(t, "Accumulate, Fetch_and_op, Compare_and_swap, Flush_all", {
            OK(MPI_Accumulate(ones, NACC, MPI_INT, t, accoff, NACC, MPI_INT, MPI_SUM, win));
            OK(MPI_Accumulate_c(&one, 1, MPI_INT64_T, t, wordoff, 1, MPI_INT64_T, MPI_SUM, win));
            OK(MPI_Accumulate(&d, 1, MPI_DOUBLE, t, (MPI_Aint)rank * SLOT + 8, 1, MPI_DOUBLE, MPI_REPLACE, win));
            OK(MPI_Fetch_and_op(&one, &fres, MPI_INT64_T, t, wordoff + 8, MPI_SUM, win));
            OK(MPI_Compare_and_swap(&swp, &cmp, &res, MPI_INT64_T, t, wordoff + 16, win));
            OK(MPI_Win_flush_local(t, win));
        });
        SPANX(fastflush(t), t, "Flush", OK(MPI_Win_flush(t, win)));
        /* Flush_all stays in C when every target is mapped here. */
        SPANX(!tcp && !offnode, t, "Flush_all, Flush_local_all", {
            OK(MPI_Win_flush_all(win));
            OK(MPI_Win_flush_local_all(win));
        });
        CHECK(res == 0 || res == 7, "Compare_and_swap at %d returned %lld", t, (long long)res);
        CHECK(fres >= 0 && fres < n, "Fetch_and_op at %d returned %lld", t, (long long)fres);
    }
    /* A vector target type takes the Go way. */
    MPI_Datatype every2;
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &every2));
    OK(MPI_Type_commit(&every2));
    long f0 = mpigo_short_fallbacks();
    OK(MPI_Put(ones, 2, MPI_INT, rank, accoff + 4 * NACC, 1, every2, win));
    CHECK(mpigo_short_fallbacks() > f0, "a vector target type stayed in C");
    OK(MPI_Type_free(&every2));
    OK(MPI_Win_unlock_all(win));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    /* Fetch_and_op's MPI_NO_OP reads. */
    int64_t got = -1;
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    SPAN(right, "Fetch_and_op MPI_NO_OP", OK(MPI_Fetch_and_op(NULL, &got, MPI_INT64_T, right, wordoff + 16, MPI_NO_OP, win)));
    OK(MPI_Win_unlock(right, win));
    CHECK(got == 7, "Fetch_and_op MPI_NO_OP read %lld", (long long)got);
    for (int i = 0; i < NACC; i++) {
        int v;
        memcpy(&v, base + accoff + 4 * i, 4);
        CHECK(v == n * (i + 1), "accumulated int %d: %d, want %d", i, v, n * (i + 1));
    }
    int64_t w0, w1, w2;
    memcpy(&w0, base + wordoff, 8), memcpy(&w1, base + wordoff + 8, 8), memcpy(&w2, base + wordoff + 16, 8);
    CHECK(w0 == n && w1 == n && w2 == 7, "int64 words: %lld %lld %lld, want %d %d 7", (long long)w0, (long long)w1, (long long)w2, n, n);
    for (int o = 0; o < n; o++) {
        double d;
        memcpy(&d, base + (MPI_Aint)o * SLOT + 8, 8);
        CHECK(d == o + 0.5, "replaced double of origin %d: %g", o, d);
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Fence: each rank puts 8 bytes at its right neighbour. */
    int64_t tok = 500 + rank;
    OK(MPI_Win_fence(0, win));
    SPAN(right, "Put under fence", OK(MPI_Put(&tok, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, win)));
    int rc = MPI_Win_flush(right, win); /* a fence epoch is no passive one */
    CHECK(errclass(rc) == MPI_ERR_RMA_SYNC, "Flush under fence: class %d", errclass(rc));
    OK(MPI_Win_fence(0, win));
    int64_t seen;
    memcpy(&seen, base, 8);
    CHECK(seen == 500 + left, "Put under fence from %d: %lld", left, (long long)seen);
    OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    rc = MPI_Put(&tok, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, win);
    CHECK(errclass(rc) == MPI_ERR_RMA_SYNC, "Put after the last fence: class %d", errclass(rc));

    /* PSCW: a ring. */
    MPI_Group wg, rg, lg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_incl(wg, 1, &right, &rg);
    MPI_Group_incl(wg, 1, &left, &lg);
    tok = 900 + rank;
    OK(MPI_Win_post(lg, 0, win));
    OK(MPI_Win_start(rg, 0, win));
    SPAN(right, "Put under PSCW", OK(MPI_Put(&tok, 8, MPI_BYTE, right, 8, 8, MPI_BYTE, win)));
    OK(MPI_Win_complete(win));
    OK(MPI_Win_wait(win));
    memcpy(&seen, base + 8, 8);
    CHECK(seen == 900 + left, "Put under PSCW from %d: %lld", left, (long long)seen);
    MPI_Group_free(&wg), MPI_Group_free(&rg), MPI_Group_free(&lg);
    OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Errors, inside an epoch, as the Go way reports them. */
    OK(MPI_Win_lock_all(0, win));
    rc = MPI_Put(src, 8, MPI_CHAR, n, 0, 8, MPI_CHAR, win);
    CHECK(errclass(rc) == MPI_ERR_RANK, "Put to rank n: class %d", errclass(rc));
    rc = MPI_Put(src, 8, MPI_CHAR, right, -1, 8, MPI_CHAR, win);
    CHECK(errclass(rc) == MPI_ERR_DISP, "Put at displacement -1: class %d", errclass(rc));
    rc = MPI_Put(src, 16, MPI_CHAR, right, size - 8, 16, MPI_CHAR, win);
    CHECK(errclass(rc) == MPI_ERR_RMA_RANGE, "Put past the window's end: class %d", errclass(rc));
    rc = MPI_Get(dst, 1, MPI_CHAR, right, size + 1, 1, MPI_CHAR, win);
    CHECK(errclass(rc) == MPI_ERR_RMA_RANGE, "Get past the window's end: class %d", errclass(rc));
    rc = MPI_Accumulate(ones, 1, MPI_INT, right, size, 1, MPI_INT, MPI_SUM, win);
    CHECK(errclass(rc) == MPI_ERR_RMA_RANGE, "Accumulate past the window's end: class %d", errclass(rc));
    rc = MPI_Accumulate(ones, 1, MPI_INT, right, accoff, 1, MPI_INT, MPI_MAXLOC, win);
    CHECK(rc != MPI_SUCCESS, "MPI_MAXLOC on MPI_INT was accepted");
    rc = MPI_Fetch_and_op(src, dst, MPI_INT64_T, right, size, MPI_SUM, win);
    CHECK(errclass(rc) == MPI_ERR_RMA_RANGE, "Fetch_and_op past the window's end: class %d", errclass(rc));
    rc = MPI_Win_flush(n, win);
    CHECK(errclass(rc) == MPI_ERR_RANK, "Flush of rank n: class %d", errclass(rc));
    OK(MPI_Win_unlock_all(win));
    rc = MPI_Win_flush_all(win);
    CHECK(errclass(rc) == MPI_ERR_RMA_SYNC, "Flush_all with no lock: class %d", errclass(rc));
    OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Two threads at once on the same words of every target. */
    memset(base, 0, size);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_lock_all(0, win));
    pthread_t th[NTH];
    for (int i = 0; i < NTH; i++) pthread_create(&th[i], NULL, fop_worker, NULL);
    for (int i = 0; i < NTH; i++) pthread_join(th[i], NULL);
    OK(MPI_Win_unlock_all(win));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    memcpy(&w0, base + wordoff, 8);
    long per = 0; /* fetch-and-ops per origin at this target */
    for (int i = 0; i < NFOP; i++) per += i % n == rank;
    CHECK(w0 == (int64_t)n * NTH * per, "threads' Fetch_and_op total %lld, want %lld", (long long)w0, (long long)n * NTH * per);
    long acc = 0;
    for (int i = 0; i < 16 * 9; i++) {
        int v;
        memcpy(&v, base + accoff + 4 * i, 4);
        acc += v;
    }
    CHECK(acc == (long)n * NTH * per * 16, "threads' Accumulate total %ld, want %ld", acc, (long)n * NTH * per * 16);
    OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Put and Get of 2 KiB to just under 1 MiB, which short.c copies with its own loop
     * where the CPU calls for it: every byte where it belongs at odd origins and
     * displacements, and the bytes beside the range untouched, at the target (Put) and
     * at the origin (Get). Fence epochs, so each target checks its own window. */
    {
        static const int sizes[] = {2047, 2048, 2049, 4096 + 3, 8192, 8193, 65536 + 5, (1 << 20) - 1};
        static const int offs[][2] = {{0, 0}, {1, 7}, {33, 31}}; /* origin offset, displacement */
        MPI_Aint wsz = (1 << 20) + 128;
        char *cw, *co = malloc(wsz), *cr = malloc(wsz);
        MPI_Win cwin;
        OK(MPI_Win_allocate(wsz, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &cw, &cwin));
        for (MPI_Aint i = 0; i < wsz; i++) co[i] = (char)(rank * 37 + i * 13 + (i >> 8));
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            for (size_t a = 0; a < sizeof offs / sizeof offs[0]; a++) {
                int m = sizes[k], oo = offs[a][0], td = offs[a][1];
                memset(cw, 0xEE, wsz);
                memset(cr, 0xDD, wsz);
                OK(MPI_Win_fence(0, cwin));
                SPAN(right, "Put 2 KiB-1 MiB", OK(MPI_Put(co + oo, m, MPI_CHAR, right, td, m, MPI_CHAR, cwin)));
                OK(MPI_Win_fence(0, cwin));
                for (int i = 0; i < m; i++)
                    CHECK(cw[td + i] == (char)(left * 37 + (MPI_Aint)(oo + i) * 13 + ((MPI_Aint)(oo + i) >> 8)),
                          "Put of %d bytes from %d (origin offset %d, displacement %d): byte %d", m, left, oo, td, i);
                CHECK((td == 0 || cw[td - 1] == (char)0xEE) && cw[td + m] == (char)0xEE,
                      "Put of %d bytes from %d at displacement %d wrote beside its range", m, left, td);
                SPAN(right, "Get 2 KiB-1 MiB", OK(MPI_Get(cr + oo, m, MPI_CHAR, right, td, m, MPI_CHAR, cwin)));
                OK(MPI_Win_fence(0, cwin));
                CHECK(memcmp(cr + oo, co + oo, m) == 0, "Get of %d bytes from %d (origin offset %d, displacement %d)", m,
                      right, oo, td);
                CHECK((oo == 0 || cr[oo - 1] == (char)0xDD) && cr[oo + m] == (char)0xDD,
                      "Get of %d bytes from %d into origin offset %d wrote beside its range", m, right, oo);
            }
        }
        OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, cwin));
        OK(MPI_Win_free(&cwin));
        free(co), free(cr);
    }

    /* 1 MiB copies take Go's cache model, and so does the next Flush, which resets it;
     * the one after stays in C. */
    {
        char *big, *bb = malloc(1 << 20);
        MPI_Win bw;
        OK(MPI_Win_allocate(1 << 20, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &big, &bw));
        memset(bb, rank + 1, 1 << 20);
        OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, bw));
        SPANX(0, right, "Put 1 MiB", OK(MPI_Put(bb, 1 << 20, MPI_BYTE, right, 0, 1 << 20, MPI_BYTE, bw)));
        SPANX(0, right, "Flush after 1 MiB", OK(MPI_Win_flush(right, bw)));
        SPANX(fastflush(right), right, "Flush after that", OK(MPI_Win_flush(right, bw)));
        OK(MPI_Win_unlock(right, bw));
        OK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(big[0] == left + 1 && big[(1 << 20) - 1] == left + 1, "1 MiB Put from %d: %d", left, big[0]);
        OK(MPI_Win_free(&bw));
        free(bb);
    }

    /* A freed window's handle: MPI_ERR_WIN through MPI_COMM_SELF's handler. */
    MPI_Win old = win;
    OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "Win_free left the handle");
    if (created) OK(MPI_Free_mem(base));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    rc = MPI_Put(src, 8, MPI_CHAR, rank, 0, 8, MPI_CHAR, old);
    CHECK(errclass(rc) == MPI_ERR_WIN, "Put on a freed window: class %d", errclass(rc));
    rc = MPI_Win_flush(rank, old);
    CHECK(errclass(rc) == MPI_ERR_WIN, "Flush on a freed window: class %d", errclass(rc));

    free(src), free(dst), free(local);
    MPI_Comm_free(&node);
    OK(MPI_Finalize());
    if (rank == 0) printf("OK rmashort\n");
    return 0;
}
