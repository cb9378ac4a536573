/* queryshort.c - the questions the C library answers without crossing into Go
 * (abi/libmpi/p2pshort.c, typeshort.c): MPI_Comm_rank, MPI_Comm_size,
 * MPI_Comm_test_inter, MPI_Initialized, MPI_Finalized, MPI_Type_size(_c),
 * MPI_Type_get_extent(_c, _x), MPI_Get_count(_c), MPI_Test and MPI_Wait of
 * MPI_REQUEST_NULL, and MPI_Iprobe (nothing there, or a message at its ring's head).
 * Each answer is checked against
 * what a user knows from elsewhere (a group's rank and size, a split's order, a
 * message's length, a type's layout), and, through mpigo_short_fallbacks (the
 * library's count of calls handed to their Go halves), which way it took: here where
 * the C way applies, Go where it does not (an intercommunicator, a paired type, a
 * freed handle, a NULL argument, MPI not running). A NULL where an answer goes is
 * MPI_ERR_ARG for the other questions too. Argument "multiple" runs at
 * MPI_THREAD_MULTIPLE, where the same ways apply. Runs on 2 ranks. */
#include <limits.h>
#include <string.h>
#include "check.h"

static void communicators(int rank, int size) {
    long n;
    int r = -1, s = -1, inter = -1;
    MPI_Group g;
    int grank, gsize;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
    OK(MPI_Group_rank(g, &grank));
    OK(MPI_Group_size(g, &gsize));
    OK(MPI_Group_free(&g));
    CALLS(n, {
        OK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
        OK(MPI_Comm_size(MPI_COMM_WORLD, &s));
        OK(MPI_Comm_test_inter(MPI_COMM_WORLD, &inter));
    });
    CHECK(r == grank && s == gsize && inter == 0 && n == 0, "world: rank %d size %d inter %d, %ld calls to Go", r, s,
          inter, n);

    /* Ranks in reverse order: the copy holds this rank's own place. */
    MPI_Comm rev;
    OK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev));
    CALLS(n, {
        OK(MPI_Comm_rank(rev, &r));
        OK(MPI_Comm_size(rev, &s));
        OK(MPI_Comm_test_inter(rev, &inter));
    });
    CHECK(r == size - 1 - rank && s == size && inter == 0 && n == 0, "reversed: rank %d size %d inter %d, %ld calls", r,
          s, inter, n);

    CALLS(n, {
        OK(MPI_Comm_rank(MPI_COMM_SELF, &r));
        OK(MPI_Comm_size(MPI_COMM_SELF, &s));
        OK(MPI_Comm_test_inter(MPI_COMM_SELF, &inter));
    });
    CHECK(r == 0 && s == 1 && inter == 0 && n == 0, "self: rank %d size %d inter %d, %ld calls", r, s, inter, n);

    /* A communicator of one rank has no copy: Go answers. */
    MPI_Comm alone;
    OK(MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &alone));
    CALLS(n, {
        OK(MPI_Comm_rank(alone, &r));
        OK(MPI_Comm_size(alone, &s));
    });
    CHECK(r == 0 && s == 1 && n == 2, "alone: rank %d size %d, %ld calls", r, s, n);

    /* An intercommunicator between the two ranks: the local group's answers, from Go. */
    MPI_Comm inter_c;
    OK(MPI_Intercomm_create(alone, 0, MPI_COMM_WORLD, 1 - rank, 7, &inter_c));
    CALLS(n, {
        OK(MPI_Comm_rank(inter_c, &r));
        OK(MPI_Comm_size(inter_c, &s));
        OK(MPI_Comm_test_inter(inter_c, &inter));
    });
    CHECK(r == 0 && s == 1 && inter == 1 && n == 3, "inter: rank %d size %d inter %d, %ld calls", r, s, inter, n);

    /* A freed communicator's handle finds no copy: Go says what is wrong. */
    MPI_Comm stale = rev;
    OK(MPI_Comm_free(&rev));
    CALLS(n, {
        FAILS(MPI_Comm_rank(stale, &r), MPI_ERR_COMM);
        FAILS(MPI_Comm_size(stale, &s), MPI_ERR_COMM);
        FAILS(MPI_Comm_test_inter(stale, &inter), MPI_ERR_COMM);
        FAILS(MPI_Comm_rank(MPI_COMM_NULL, &r), MPI_ERR_COMM);
        FAILS(MPI_Comm_rank(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
        FAILS(MPI_Comm_size(MPI_COMM_SELF, NULL), MPI_ERR_ARG);
    });
    CHECK(n == 6, "errors: %ld calls to Go", n);
    OK(MPI_Comm_free(&inter_c));
    OK(MPI_Comm_free(&alone));
}

static void types(void) {
    long n;
    int a = -1, b = -1, c = -1, d = -1;
    MPI_Count e = -1;
    CALLS(n, {
        OK(MPI_Type_size(MPI_INT, &a));
        OK(MPI_Type_size(MPI_DOUBLE, &b));
        OK(MPI_Type_size(MPI_2INT, &c));
        OK(MPI_Type_size(MPI_CHAR, &d));
        OK(MPI_Type_size_c(MPI_LONG_LONG, &e));
    });
    CHECK(a == 4 && b == 8 && c == 8 && d == 1 && e == 8 && n == 0, "sizes %d %d %d %d %lld, %ld calls", a, b, c, d,
          (long long)e, n);

    /* A pair with a gap is Go's; a type made in C (below MPI_THREAD_MULTIPLE: the
     * contiguous one) is Go's too, whose answers are checked, not their way. */
    MPI_Datatype three;
    OK(MPI_Type_contiguous(3, MPI_INT, &three));
    OK(MPI_Type_commit(&three));
    OK(MPI_Type_size(three, &b));
    OK(MPI_Type_size_c(three, &e));
    CHECK(b == 12 && e == 12, "contiguous sizes %d %lld", b, (long long)e);
    CALLS(n, {
        OK(MPI_Type_size(MPI_DOUBLE_INT, &a));
        FAILS(MPI_Type_size(MPI_DATATYPE_NULL, &c), MPI_ERR_TYPE);
        FAILS(MPI_Type_size(MPI_INT, NULL), MPI_ERR_ARG);
        FAILS(MPI_Type_size_c(MPI_INT, NULL), MPI_ERR_ARG);
    });
    CHECK(a == 12 && n == 4, "Go's sizes %d, %ld calls", a, n);

    /* Vectors, with strides of every sign, and a contiguous type: made in C below
     * MPI_THREAD_MULTIPLE, by Go above. Their bounds from C (Type_get_extent) against
     * Go's (Type_get_true_extent, the same for these types), and no call to Go. */
    struct {
        int count, bl, stride;
        MPI_Aint hstride;
    } vs[] = {{3, 2, 4, 0}, {3, 2, -4, 0}, {1, 5, 7, 0}, {4, 1, 1, 0}, {3, 2, 0, -40}, {2, 3, 0, 100}};
    for (unsigned k = 0; k < sizeof vs / sizeof vs[0]; k++) {
        MPI_Datatype v;
        if (vs[k].hstride != 0)
            OK(MPI_Type_create_hvector(vs[k].count, vs[k].bl, vs[k].hstride, MPI_DOUBLE, &v));
        else
            OK(MPI_Type_vector(vs[k].count, vs[k].bl, vs[k].stride, MPI_DOUBLE, &v));
        MPI_Aint clb, cex, glb, gex;
        int csz;
        CALLS(n, {
            OK(MPI_Type_get_extent(v, &clb, &cex));
            OK(MPI_Type_size(v, &csz));
        });
        OK(MPI_Type_get_true_extent(v, &glb, &gex));
        CHECK(clb == glb && cex == gex && csz == vs[k].count * vs[k].bl * 8 && n == 0,
              "vector %u: [%ld,+%ld] size %d, Go's [%ld,+%ld], %ld calls", k, (long)clb, (long)cex, csz, (long)glb,
              (long)gex, n);
        OK(MPI_Type_free(&v));
    }
    MPI_Aint tlb, tex;
    OK(MPI_Type_get_extent(three, &tlb, &tex));
    CHECK(tlb == 0 && tex == 12, "contiguous: [%ld,+%ld]", (long)tlb, (long)tex);

    /* Types Go made: their size, bounds and counts from C. */
    MPI_Datatype rs, idx, stale;
    int bl[2] = {2, 1}, dis[2] = {0, 5};
    OK(MPI_Type_create_resized(MPI_INT, -4, 16, &rs));
    OK(MPI_Type_indexed(2, bl, dis, MPI_DOUBLE, &idx));
    OK(MPI_Type_commit(&idx));
    MPI_Aint lb1 = 0, ex1 = 0, lb2 = 0, ex2 = 0;
    MPI_Count lb3 = 0, ex3 = 0, lb4 = 0, ex4 = 0;
    CALLS(n, {
        OK(MPI_Type_size(rs, &a));
        OK(MPI_Type_size(idx, &b));
        OK(MPI_Type_get_extent(rs, &lb1, &ex1));
        OK(MPI_Type_get_extent(idx, &lb2, &ex2));
        OK(MPI_Type_get_extent_c(rs, &lb3, &ex3));
        OK(MPI_Type_get_extent_x(MPI_DOUBLE, &lb4, &ex4));
    });
    CHECK(a == 4 && b == 24 && lb1 == -4 && ex1 == 16 && lb2 == 0 && ex2 == 48 && lb3 == -4 && ex3 == 16 &&
              lb4 == 0 && ex4 == 8 && n == 0,
          "derived: sizes %d %d, resized [%ld,+%ld], indexed [%ld,+%ld], _c [%lld,+%lld], double [%lld,+%lld], %ld calls",
          a, b, (long)lb1, (long)ex1, (long)lb2, (long)ex2, (long long)lb3, (long long)ex3, (long long)lb4,
          (long long)ex4, n);
    stale = rs;
    OK(MPI_Type_free(&rs));
    CALLS(n, {
        FAILS(MPI_Type_size(stale, &a), MPI_ERR_TYPE);
        FAILS(MPI_Type_get_extent(stale, &lb1, &ex1), MPI_ERR_TYPE);
    });
    CHECK(n == 2, "a freed type: %ld calls to Go", n);

    /* A message of 12 bytes, to this rank itself. */
    char sb[12] = {0}, rb[16];
    MPI_Status st;
    OK(MPI_Sendrecv(sb, 12, MPI_BYTE, 0, 1, rb, 16, MPI_BYTE, 0, 1, MPI_COMM_SELF, &st));
    MPI_Count k1 = -1, k2 = -1;
    CALLS(n, {
        OK(MPI_Get_count(&st, MPI_INT, &a));
        OK(MPI_Get_count(&st, MPI_DOUBLE, &b));
        OK(MPI_Get_count(&st, MPI_BYTE, &c));
        OK(MPI_Get_count_c(&st, MPI_SHORT, &k1));
        OK(MPI_Get_count_c(&st, MPI_DOUBLE, &k2));
    });
    CHECK(a == 3 && b == MPI_UNDEFINED && c == 12 && k1 == 6 && k2 == MPI_UNDEFINED && n == 0,
          "counts %d %d %d %lld %lld, %ld calls", a, b, c, (long long)k1, (long long)k2, n);
    int d24 = -1;
    CALLS(n, OK(MPI_Get_count(&st, idx, &d24)));
    CHECK(d24 == MPI_UNDEFINED && n == 0, "12 bytes of a 24-byte type: %d, %ld calls", d24, n);
    OK(MPI_Get_count(&st, three, &a));
    CHECK(a == 1, "12 bytes of three ints: %d", a);
    CALLS(n, {
        OK(MPI_Get_count(&st, MPI_DOUBLE_INT, &b));
        FAILS(MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, &c), MPI_ERR_ARG);
        FAILS(MPI_Get_count(&st, MPI_DATATYPE_NULL, &c), MPI_ERR_TYPE);
        FAILS(MPI_Get_count(&st, MPI_INT, NULL), MPI_ERR_ARG);
        FAILS(MPI_Get_count_c(&st, MPI_INT, NULL), MPI_ERR_ARG);
    });
    CHECK(b == 1 && n == 5, "Go's counts %d, %ld calls", b, n);

    /* More items than an int holds: MPI_UNDEFINED in the int form, the count in the
     * MPI_Count form. */
    MPI_Count big = (MPI_Count)INT_MAX + 10;
    OK(MPI_Status_set_elements_x(&st, MPI_BYTE, big));
    CALLS(n, {
        OK(MPI_Get_count(&st, MPI_BYTE, &a));
        OK(MPI_Get_count_c(&st, MPI_BYTE, &k1));
        OK(MPI_Get_count(&st, MPI_SHORT, &b));
    });
    CHECK(a == MPI_UNDEFINED && k1 == big && b == MPI_UNDEFINED && n == 0, "big: %d %lld %d, %ld calls", a,
          (long long)k1, b, n);
    OK(MPI_Type_free(&three));
    OK(MPI_Type_free(&idx));
}

/* NULL where an answer goes: MPI_ERR_ARG, not a crash and not a silent success. */
static void null_outputs(void) {
    MPI_Datatype vec;
    MPI_Aint a;
    MPI_Count c;
    char buf[8];
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    OK(MPI_Type_commit(&vec));
    FAILS(MPI_Type_get_extent(MPI_INT, NULL, &a), MPI_ERR_ARG);
    FAILS(MPI_Type_get_extent(vec, &a, NULL), MPI_ERR_ARG);
    FAILS(MPI_Type_get_extent_c(vec, NULL, &c), MPI_ERR_ARG);
    FAILS(MPI_Type_get_true_extent(vec, NULL, &a), MPI_ERR_ARG);
    FAILS(MPI_Type_get_true_extent_c(vec, &c, NULL), MPI_ERR_ARG);
    FAILS(MPI_Get_address(buf, NULL), MPI_ERR_ARG);
    FAILS(MPI_Pack_size(2, MPI_INT, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    FAILS(MPI_Query_thread(NULL), MPI_ERR_ARG);
    OK(MPI_Type_free(&vec));
}

static void null_requests(void) {
    long n;
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_Status st1, st2;
    int flag = 0, count = -1, cancelled = -1;
    memset(&st1, 0x5a, sizeof st1);
    memset(&st2, 0x5a, sizeof st2);
    CALLS(n, {
        OK(MPI_Test(&rq, &flag, &st1));
        OK(MPI_Wait(&rq, &st2));
    });
    CHECK(flag == 1 && rq == MPI_REQUEST_NULL && n == 0, "flag %d, %ld calls", flag, n);
    for (MPI_Status *st = &st1; st != NULL; st = st == &st1 ? &st2 : NULL) {
        OK(MPI_Get_count(st, MPI_BYTE, &count));
        OK(MPI_Test_cancelled(st, &cancelled));
        CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && st->MPI_ERROR == MPI_SUCCESS &&
                  count == 0 && cancelled == 0,
              "empty status: source %d tag %d error %d count %d cancelled %d", st->MPI_SOURCE, st->MPI_TAG,
              st->MPI_ERROR, count, cancelled);
    }
    FAILS(MPI_Test(NULL, &flag, &st1), MPI_ERR_ARG);
}

/* poll probes until a message from src with tag is there: the loop must end, however
 * the message travels (a first message's ring is not shown to C yet, a message to
 * this rank itself waits in Go). */
static long poll(int src, int tag, MPI_Status *st) {
    int flag = 0;
    long k = 0;
    while (!flag && k < 100000000) {
        OK(MPI_Iprobe(src, tag, MPI_COMM_WORLD, &flag, st));
        k++;
    }
    CHECK(flag, "no message from %d tag %d after %ld probes", src, tag, k);
    return k;
}

static void probes(int rank) {
    int peer = 1 - rank, flag = -1, count = -1, got[3];
    const int msg[3] = {1, 2, 3};
    long n;
    MPI_Status st;

    /* A first message, to rank 0, which probes for it. */
    if (rank == 1) {
        OK(MPI_Send(msg, 3, MPI_INT, 0, 5, MPI_COMM_WORLD));
    } else {
        poll(1, 5, &st);
        OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 5 && count == 3, "first: source %d tag %d count %d", st.MPI_SOURCE,
              st.MPI_TAG, count);
        OK(MPI_Recv(got, 3, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(got[2] == 3, "first: got %d", got[2]);
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Nothing there: Go is asked one probe in MPIGO_PROBE_TURN (32), at
     * MPI_THREAD_MULTIPLE too (the engine's shared lock, free here). */
    CALLS(n, {
        for (int i = 0; i < 320; i++) {
            OK(MPI_Iprobe(peer, 99, MPI_COMM_WORLD, &flag, &st));
            CHECK(flag == 0, "probe %d found a message", i);
        }
    });
    CHECK(n >= 10 && n <= 11, "320 empty probes: %ld calls to Go", n);
    OK(MPI_Barrier(MPI_COMM_WORLD)); /* a message unexpected on the context would make them Go's */

    /* A message at its ring's head: found here, its status right, left for the
     * receive that follows; a probe of another tag finds nothing (Go's, the head being
     * another packet, whose progress then queues the message). Rank 0 says the message
     * is sent, and rank 1 that it received it, through a shared window's words, which
     * neither rank's MPI library touches: no progress of Go's moves the message off
     * the ring before the probe. */
    MPI_Win win;
    int *said;
    OK(MPI_Win_allocate_shared(rank == 0 ? 2 * sizeof(int) : 0, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &said,
                               &win));
    MPI_Aint wsz;
    int wdisp;
    OK(MPI_Win_shared_query(win, 0, &wsz, &wdisp, &said));
    if (rank == 0) said[0] = said[1] = 0;
    OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 1; i <= 50; i++) {
        if (rank == 0) {
            OK(MPI_Send(msg, 3, MPI_INT, 1, 9, MPI_COMM_WORLD));
            __atomic_store_n(&said[0], i, __ATOMIC_RELEASE);
            while (__atomic_load_n(&said[1], __ATOMIC_ACQUIRE) != i) {
            }
            continue;
        }
        while (__atomic_load_n(&said[0], __ATOMIC_ACQUIRE) != i) {
        }
        st.MPI_SOURCE = st.MPI_TAG = -7;
        CALLS(n, OK(MPI_Iprobe(i % 2 ? MPI_ANY_SOURCE : 0, i % 3 ? MPI_ANY_TAG : 9, MPI_COMM_WORLD, &flag, &st)));
        OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(flag == 1 && st.MPI_SOURCE == 0 && st.MPI_TAG == 9 && count == 3 && n == 0,
              "found %d: flag %d source %d tag %d count %d, %ld calls to Go", i, flag, st.MPI_SOURCE, st.MPI_TAG, count, n);
        CALLS(n, OK(MPI_Iprobe(0, 10, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE)));
        CHECK(flag == 0 && n == 1, "found %d: a probe of another tag: flag %d, %ld calls to Go", i, flag, n);
        got[2] = 0;
        OK(MPI_Recv(got, 3, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(got[2] == 3, "found %d: received %d", i, got[2]);
        __atomic_store_n(&said[1], i, __ATOMIC_RELEASE);
    }
    OK(MPI_Win_free(&win));

    /* From any source, with any tag: rank 0 sends to rank 1. */
    if (rank == 0) {
        OK(MPI_Send(msg, 2, MPI_INT, 1, 6, MPI_COMM_WORLD));
    } else {
        poll(MPI_ANY_SOURCE, MPI_ANY_TAG, &st);
        OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 6 && count == 2, "any: source %d tag %d count %d", st.MPI_SOURCE,
              st.MPI_TAG, count);
        OK(MPI_Recv(got, 2, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }

    /* To this rank itself: Go answers at once. */
    MPI_Request rq;
    OK(MPI_Isend(msg, 1, MPI_INT, rank, 8, MPI_COMM_WORLD, &rq));
    OK(MPI_Iprobe(rank, 8, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag == 1 && st.MPI_SOURCE == rank && st.MPI_TAG == 8, "self: flag %d source %d tag %d", flag, st.MPI_SOURCE,
          st.MPI_TAG);
    OK(MPI_Recv(got, 1, MPI_INT, rank, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));

    /* MPI_PROC_NULL: a message at once, from MPI_PROC_NULL (MPI 4.1 sec. 3.11). */
    OK(MPI_Iprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &st));
    OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(flag == 1 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0,
          "PROC_NULL: flag %d source %d tag %d count %d", flag, st.MPI_SOURCE, st.MPI_TAG, count);
    FAILS(MPI_Iprobe(peer, 3, MPI_COMM_WORLD, NULL, &st), MPI_ERR_ARG);
    FAILS(MPI_Iprobe(peer, -5, MPI_COMM_WORLD, &flag, &st), MPI_ERR_TAG);
    OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv) {
    int multiple = argc > 1 && strcmp(argv[1], "multiple") == 0;
    long n;
    int init = -1, fin = -1, provided;
    CALLS(n, {
        OK(MPI_Initialized(&init));
        OK(MPI_Finalized(&fin));
    });
    CHECK(init == 0 && fin == 0 && n == 2, "before Init: initialized %d finalized %d, %ld calls", init, fin, n);
    OK(MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided));
    CHECK(!multiple || provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    /* Errors on freed and null handles return (they are raised on MPI_COMM_SELF). */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CALLS(n, {
        OK(MPI_Initialized(&init));
        OK(MPI_Finalized(&fin));
    });
    CHECK(init == 1 && fin == 0 && n == 0, "running: initialized %d finalized %d, %ld calls", init, fin, n);
    int rank, size;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "size %d: run on 2 ranks", size);
    probes(rank);
    communicators(rank, size);
    types();
    null_requests();
    null_outputs();
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Finalize());
    CALLS(n, {
        OK(MPI_Initialized(&init));
        OK(MPI_Finalized(&fin));
    });
    CHECK(init == 1 && fin == 1 && n == 2, "after Finalize: initialized %d finalized %d, %ld calls", init, fin, n);
    if (rank == 0) printf("OK queryshort\n");
    return 0;
}
