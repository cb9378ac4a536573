/* p2preq.c - MPI_Isend's and MPI_Irecv's short ways in C (abi/libmpi/p2pshort.c): a
 * nonblocking send to a node peer written into its ring at once, a nonblocking receive
 * whose message is at the ring's head taken at once, both giving a request complete in
 * C, and every call on requests taking those and Go's alike, with MPI's matching order,
 * statuses and errors. 2 ranks, on MPI_COMM_WORLD and on a split whose ranks are the
 * world's reversed; comm rank 0 and 1 talk. Where a section needs a message to be in
 * the receiver's ring (or not yet) before a call, the ranks say so through a
 * shared-memory window's flags, which neither rank's MPI library polls: a rank that
 * waits on a flag calls nothing of the library. mpigo_short_isends, _irecvs and
 * _completions (the library's counts of calls done in C) say which way calls took; with
 * the argument "none" (TCP) none may take C; with "multiple" the job runs at
 * MPI_THREAD_MULTIPLE, where the C ways hold the engine's shared lock and keep no
 * receive pending (a receive whose ring is empty is Go's).
 *
 *   - a window of 64 MPI_Isend of 8 bytes and one of 1024 (through the data ring, the
 *     way shm's copy chooser says: with shm_nt_copy=on non-temporal stores), MPI_Waitall
 *     with statuses: C; received in order, statuses (source: the destination, tag,
 *     count) as Go's for a derived datatype's Isend;
 *   - 3000 MPI_Isend while the receiver does not receive: the ring fills, Go queues,
 *     the rest must not overtake; received in order;
 *   - MPI_Irecv of a message in the ring: C, data and status right;
 *   - MPI_Irecv of an empty ring (pending in C), two messages sent, a second MPI_Irecv
 *     (pending behind it), waited for in the reverse order: the first takes the first
 *     message;
 *   - a message queued unexpected (MPI_Probe), another in the ring: MPI_Irecv gets
 *     the queued one, through Go, then the other;
 *   - MPI_Irecv of a message longer than its buffer: Go (MPI_ERR_TRUNCATE at Wait);
 *   - sets mixing C's complete requests, Go's (pending or complete) and
 *     MPI_REQUEST_NULL: Waitall, Testall (all or none), Waitany and Testany (the
 *     lowest-indexed complete one), Waitsome and Testsome (every complete one, in
 *     index order), Request_get_status(_all, _any, _some) (leaving the handles);
 *     MPI_ERR_IN_STATUS with a failed Go request: C's statuses say MPI_SUCCESS;
 *   - MPI_Request_free, MPI_Cancel (not cancelled), MPI_Test, MPI_Request_get_status
 *     of a C request; MPI_Start of one and a C request used after it completed:
 *     MPI_ERR_REQUEST. */
#include "reqtest.h"

extern long mpigo_short_isends(void);
extern long mpigo_short_irecvs(void);
extern long mpigo_short_completions(void);

static void empty_is(const MPI_Status *st, const char *what) {
    int n = -1;
    OK(MPI_Get_count(st, MPI_BYTE, &n));
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && n == 0 && st->MPI_ERROR == MPI_SUCCESS,
          "%s on %s: not the empty status: %d %d %d %d", what, cname, st->MPI_SOURCE, st->MPI_TAG, n, st->MPI_ERROR);
}

#define W 64
#define MANY 3000

static void windows(void) {
    static int64_t v[MANY];
    static char big[W][1024];
    MPI_Request q[W];
    MPI_Status st[W];
    MPI_Datatype t8;
    OK(MPI_Type_contiguous(8, MPI_BYTE, &t8));
    OK(MPI_Type_commit(&t8));
    if (rank == 0) {
        for (int i = 0; i < W; i++) v[i] = 1000 + i;
        COUNT(mpigo_short_isends, 1, W, "a window of Isends",
              for (int i = 0; i < W; i++) OK(MPI_Isend(&v[i], 1, MPI_INT64_T, 1, 5, comm, &q[i])));
        for (int i = 0; i < W; i++) st[i].MPI_ERROR = 4321;
        OK(MPI_Waitall(W, q, st));
        for (int i = 0; i < W; i++) {
            CHECK(q[i] == MPI_REQUEST_NULL, "Waitall left request %d", i);
            status_is(&st[i], 1, 5, 8, "an Isend's status");
            CHECK(st[i].MPI_ERROR == 4321, "Waitall changed MPI_ERROR to %d", st[i].MPI_ERROR);
        }
        /* Go's Isend of a derived datatype: the same status. */
        OK(MPI_Isend(&v[0], 1, t8, 1, 6, comm, &q[0]));
        OK(MPI_Wait(&q[0], &st[0]));
        status_is(&st[0], 1, 6, 8, "Go's Isend's status");
        for (int i = 0; i < W; i++) memset(big[i], i + 1, sizeof big[i]);
        COUNT(mpigo_short_isends, 1, W, "a window of 1024-byte Isends",
              for (int i = 0; i < W; i++) OK(MPI_Isend(big[i], 1024, MPI_BYTE, 1, 7, comm, &q[i])));
        OK(MPI_Waitall(W, q, MPI_STATUSES_IGNORE));
        /* The ring fills while rank 1 waits for the last message. */
        for (int i = 0; i < MANY; i++) v[i] = i;
        static MPI_Request many[MANY];
        for (int i = 0; i < MANY; i++) OK(MPI_Isend(&v[i], 1, MPI_INT64_T, 1, 8, comm, &many[i]));
        int64_t last = -1;
        OK(MPI_Send(&last, 1, MPI_INT64_T, 1, 9, comm));
        OK(MPI_Waitall(MANY, many, MPI_STATUSES_IGNORE));
    } else if (rank == 1) {
        int64_t x;
        for (int i = 0; i < W; i++) {
            OK(MPI_Recv(&x, 1, MPI_INT64_T, 0, 5, comm, &st[0]));
            CHECK(x == 1000 + i, "window on %s: message %d is %lld", cname, i, (long long)x);
        }
        OK(MPI_Recv(&x, 1, MPI_INT64_T, 0, 6, comm, MPI_STATUS_IGNORE));
        static char b[1024];
        for (int i = 0; i < W; i++) {
            OK(MPI_Recv(b, 1024, MPI_BYTE, 0, 7, comm, &st[0]));
            status_is(&st[0], 0, 7, 1024, "a 1024-byte message");
            for (int k = 0; k < 1024; k++) CHECK(b[k] == (char)(i + 1), "1024-byte message %d byte %d", i, k);
        }
        OK(MPI_Recv(&x, 1, MPI_INT64_T, 0, 9, comm, MPI_STATUS_IGNORE));
        CHECK(x == -1, "the last message on %s: %lld", cname, (long long)x);
        for (int i = 0; i < MANY; i++) {
            OK(MPI_Recv(&x, 1, MPI_INT64_T, 0, 8, comm, MPI_STATUS_IGNORE));
            CHECK(x == i, "a full ring on %s: message %d is %lld", cname, i, (long long)x);
        }
    }
    OK(MPI_Type_free(&t8));
}

static void irecvs(void) {
    int64_t a = 0, b = 0, x;
    MPI_Request q, r;
    MPI_Status st;
    /* A message in the ring: C, 20 times (a sampled call takes Go). */
    long c0 = mpigo_short_irecvs();
    for (int i = 0; i < 20; i++) {
        if (rank == 0) {
            x = 100 + i;
            OK(MPI_Send(&x, 1, MPI_INT64_T, 1, 10 + i, comm));
            signal_();
            await();
        } else if (rank == 1) {
            await();
            a = 0;
            st.MPI_ERROR = 999;
            OK(MPI_Irecv(&a, 1, MPI_INT64_T, i % 2 ? MPI_ANY_SOURCE : 0, i % 3 ? MPI_ANY_TAG : 10 + i, comm, &q));
            CHECK(q != MPI_REQUEST_NULL, "Irecv gave MPI_REQUEST_NULL");
            OK(MPI_Wait(&q, &st));
            CHECK(a == 100 + i, "Irecv %d on %s: %lld", i, cname, (long long)a);
            status_is(&st, 0, 10 + i, 8, "Irecv of a message in the ring");
            CHECK(st.MPI_ERROR == 999, "Wait changed MPI_ERROR to %d", st.MPI_ERROR);
            signal_();
        }
    }
    if (rank == 1) {
        long d = mpigo_short_irecvs() - c0;
        CHECK(none ? d == 0 : d >= 10, "Irecv of a message in the ring on %s: %ld of 20 in C", cname, d);
    }
    /* A receive pending in C (the ring is empty): the next Irecv is pending too, though
     * its message is in the ring, and the first gets the first message. */
    if (rank == 1) {
        COUNT(mpigo_short_irecvs, 0, 1, "Irecv of an empty ring",
              OK(MPI_Irecv(&a, 1, MPI_INT64_T, 0, MPI_ANY_TAG, comm, &q)));
        signal_();
        await();
        COUNT(mpigo_short_irecvs, 0, 1, "Irecv after a pending Irecv",
              OK(MPI_Irecv(&b, 1, MPI_INT64_T, 0, MPI_ANY_TAG, comm, &r)));
        OK(MPI_Wait(&r, &st));
        status_is(&st, 0, 52, 8, "the second Irecv");
        OK(MPI_Wait(&q, &st));
        status_is(&st, 0, 51, 8, "the first Irecv");
        CHECK(a == 51 && b == 52, "Irecv, Irecv on %s: %lld %lld, want 51 52", cname, (long long)a, (long long)b);
    } else if (rank == 0) {
        await();
        a = 51, b = 52;
        OK(MPI_Send(&a, 1, MPI_INT64_T, 1, 51, comm));
        OK(MPI_Send(&b, 1, MPI_INT64_T, 1, 52, comm));
        signal_();
    }
    /* A message queued unexpected, then one in the ring: the queued one first. */
    if (rank == 0) {
        a = 61;
        OK(MPI_Send(&a, 1, MPI_INT64_T, 1, 61, comm));
        signal_();
        await();
        a = 63;
        OK(MPI_Send(&a, 1, MPI_INT64_T, 1, 63, comm));
        signal_();
    } else if (rank == 1) {
        await();
        OK(MPI_Probe(0, 61, comm, &st)); /* off the ring, into the queue */
        signal_();
        await();
        COUNT(mpigo_short_irecvs, 0, 0, "Irecv of a queued message",
              OK(MPI_Irecv(&a, 1, MPI_INT64_T, 0, MPI_ANY_TAG, comm, &q)));
        OK(MPI_Wait(&q, &st));
        status_is(&st, 0, 61, 8, "the queued message");
        OK(MPI_Irecv(&b, 1, MPI_INT64_T, 0, MPI_ANY_TAG, comm, &q));
        OK(MPI_Wait(&q, &st));
        status_is(&st, 0, 63, 8, "the message after the queued one");
        CHECK(a == 61 && b == 63, "queued then ring on %s: %lld %lld", cname, (long long)a, (long long)b);
    }
    /* A message longer than the buffer: Go's, MPI_ERR_TRUNCATE. */
    if (rank == 0) {
        int64_t two[2] = {71, 72};
        OK(MPI_Send(two, 2, MPI_INT64_T, 1, 70, comm));
        signal_();
    } else if (rank == 1) {
        await();
        OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
        COUNT(mpigo_short_irecvs, 0, 0, "a truncated Irecv", OK(MPI_Irecv(&a, 1, MPI_INT64_T, 0, 70, comm, &q)));
        FAILS(MPI_Wait(&q, &st), MPI_ERR_TRUNCATE);
        OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
    }
}

/* sets: rank 0 mixes C's requests (Isends, complete) with Go's Irecvs from rank 1, which
 * sends only when told, so that each Go request's state is known at each call. */
static void sets(void) {
    MPI_Datatype t8;
    OK(MPI_Type_contiguous(8, MPI_BYTE, &t8)); /* a derived datatype: Go's way */
    OK(MPI_Type_commit(&t8));
    static const int64_t s[8] = {1, 2, 3, 4, 5, 6, 7, 8}; /* a freed Isend may read it after the return */
    int64_t g[8] = {0};
    MPI_Request q[6];
    MPI_Status st[6];
    int idx, flag, n, ix[6];
    if (rank == 1) {
        /* Answers each signal with a message of tag 30+k, then drains rank 0's sends. */
        for (int k = 0; k < 3; k++) {
            await();
            g[0] = 300 + k;
            OK(MPI_Send(&g[0], 1, MPI_INT64_T, 0, 30 + k, comm));
            signal_();
        }
        for (int k = 0; k < 11; k++) OK(MPI_Recv(&g[0], 1, MPI_INT64_T, 0, 40, comm, MPI_STATUS_IGNORE));
        /* the truncating receive's message */
        int64_t two[2] = {1, 2};
        OK(MPI_Send(two, 2, MPI_INT64_T, 0, 50, comm));
        OK(MPI_Type_free(&t8));
        return;
    }
    if (rank != 0) {
        OK(MPI_Type_free(&t8));
        return;
    }
    long c0 = mpigo_short_completions();
    /* Waitall: [NULL, Go Irecv (pending), C Isend, NULL, C Isend]. */
    q[0] = q[3] = MPI_REQUEST_NULL;
    OK(MPI_Irecv(&g[1], 1, t8, 1, 30, comm, &q[1]));
    COUNT(mpigo_short_isends, 2, 2, "Isends into a set", {
        OK(MPI_Isend(&s[2], 1, MPI_INT64_T, 1, 40, comm, &q[2]));
        OK(MPI_Isend(&s[4], 1, MPI_INT64_T, 1, 40, comm, &q[4]));
    });
    /* Testall: Go's is pending, so none completes. */
    MPI_Request keep[5];
    memcpy(keep, q, sizeof keep);
    OK(MPI_Testall(5, q, &flag, st));
    CHECK(!flag && memcmp(keep, q, sizeof keep) == 0, "Testall with a pending request: flag %d, handles changed", flag);
    /* Request_get_status_any: C's Isend at 2 (Go's at 1 is pending). */
    OK(MPI_Request_get_status_any(5, q, &idx, &flag, &st[0]));
    CHECK(flag && idx == 2 && memcmp(keep, q, sizeof keep) == 0, "get_status_any: flag %d index %d", flag, idx);
    status_is(&st[0], 1, 40, 8, "get_status_any's");
    /* Request_get_status_all: not all complete. */
    OK(MPI_Request_get_status_all(5, q, &flag, st));
    CHECK(!flag, "get_status_all with a pending request says complete");
    /* Request_get_status_some: C's two, in order. */
    OK(MPI_Request_get_status_some(5, q, &n, ix, st));
    CHECK(n == 2 && ix[0] == 2 && ix[1] == 4 && memcmp(keep, q, sizeof keep) == 0, "get_status_some: %d [%d %d]", n,
          ix[0], ix[1]);
    signal_();
    await(); /* rank 1's message 30 is in the ring */
    for (int i = 0; i < 5; i++) st[i].MPI_ERROR = 777;
    OK(MPI_Waitall(5, q, st));
    for (int i = 0; i < 5; i++) CHECK(q[i] == MPI_REQUEST_NULL, "Waitall left request %d", i);
    empty_is(&st[0], "Waitall's null request");
    empty_is(&st[3], "Waitall's null request");
    status_is(&st[1], 1, 30, 8, "Waitall's Go Irecv");
    status_is(&st[2], 1, 40, 8, "Waitall's C Isend");
    status_is(&st[4], 1, 40, 8, "Waitall's C Isend");
    CHECK(st[1].MPI_ERROR == 777 && st[2].MPI_ERROR == 777, "Waitall changed MPI_ERROR");
    CHECK(g[1] == 300, "Waitall's Irecv got %lld", (long long)g[1]);

    /* Waitany: [Go Irecv (pending), C Isend] gives 1; then [Go Irecv, NULL] gives 0. */
    OK(MPI_Irecv(&g[1], 1, t8, 1, 31, comm, &q[0]));
    OK(MPI_Isend(&s[1], 1, MPI_INT64_T, 1, 40, comm, &q[1]));
    OK(MPI_Waitany(2, q, &idx, &st[0]));
    CHECK(idx == 1 && q[1] == MPI_REQUEST_NULL && q[0] != MPI_REQUEST_NULL, "Waitany gave %d", idx);
    status_is(&st[0], 1, 40, 8, "Waitany's C Isend");
    signal_();
    await();
    /* Testany: [Go Irecv (complete now), C Isend]: the lowest, Go's. */
    OK(MPI_Isend(&s[1], 1, MPI_INT64_T, 1, 40, comm, &q[1]));
    OK(MPI_Testany(2, q, &idx, &flag, &st[0]));
    CHECK(flag && idx == 0 && q[0] == MPI_REQUEST_NULL && q[1] != MPI_REQUEST_NULL, "Testany gave %d (flag %d)", idx,
          flag);
    status_is(&st[0], 1, 31, 8, "Testany's Go Irecv");
    /* Testany: [NULL, C Isend]: C's. */
    OK(MPI_Testany(2, q, &idx, &flag, &st[0]));
    CHECK(flag && idx == 1 && q[1] == MPI_REQUEST_NULL, "Testany of a C request gave %d (flag %d)", idx, flag);
    /* Testany and Waitany of nulls only. */
    OK(MPI_Testany(2, q, &idx, &flag, &st[0]));
    CHECK(flag && idx == MPI_UNDEFINED, "Testany of nulls gave %d (flag %d)", idx, flag);
    empty_is(&st[0], "Testany of nulls");

    /* Testsome: [C Isend, Go Irecv (pending), NULL, C Isend] gives 0 and 3. */
    OK(MPI_Isend(&s[0], 1, MPI_INT64_T, 1, 40, comm, &q[0]));
    OK(MPI_Irecv(&g[2], 1, t8, 1, 32, comm, &q[1]));
    q[2] = MPI_REQUEST_NULL;
    OK(MPI_Isend(&s[3], 1, MPI_INT64_T, 1, 40, comm, &q[3]));
    OK(MPI_Testsome(4, q, &n, ix, st));
    CHECK(n == 2 && ix[0] == 0 && ix[1] == 3 && q[0] == MPI_REQUEST_NULL && q[3] == MPI_REQUEST_NULL &&
              q[1] != MPI_REQUEST_NULL,
          "Testsome: %d [%d %d]", n, ix[0], ix[1]);
    status_is(&st[0], 1, 40, 8, "Testsome's first");
    /* Waitsome: [C Isend, Go Irecv (complete after the signal), NULL, C Isend]: all three. */
    OK(MPI_Isend(&s[0], 1, MPI_INT64_T, 1, 40, comm, &q[0]));
    OK(MPI_Isend(&s[3], 1, MPI_INT64_T, 1, 40, comm, &q[3]));
    signal_();
    await();
    /* Go's Testsome over the Irecv alone makes progress; it may need a few calls. */
    int total = 0, got[4] = {0};
    while (total < 3) {
        OK(MPI_Waitsome(4, q, &n, ix, st));
        CHECK(n >= 1, "Waitsome gave %d", n);
        for (int k = 0; k < n; k++) {
            CHECK(k == 0 || ix[k] > ix[k - 1], "Waitsome's indices out of order");
            CHECK(!got[ix[k]]++, "Waitsome gave %d twice", ix[k]);
            if (ix[k] == 1)
                status_is(&st[k], 1, 32, 8, "Waitsome's Go Irecv");
            else
                status_is(&st[k], 1, 40, 8, "Waitsome's C Isend");
        }
        total += n;
    }
    CHECK(g[2] == 302, "Waitsome's Irecv got %lld", (long long)g[2]);
    OK(MPI_Waitsome(4, q, &n, ix, st));
    CHECK(n == MPI_UNDEFINED, "Waitsome of nulls gave %d", n);

    /* One C request: Test, Request_get_status, Cancel, Request_free. */
    OK(MPI_Isend(&s[5], 1, MPI_INT64_T, 1, 40, comm, &q[0]));
    MPI_Request old = q[0];
    OK(MPI_Request_get_status(q[0], &flag, &st[0]));
    CHECK(flag && q[0] == old, "Request_get_status: flag %d", flag);
    OK(MPI_Cancel(&q[0]));
    OK(MPI_Test(&q[0], &flag, &st[0]));
    CHECK(flag && q[0] == MPI_REQUEST_NULL, "Test: flag %d", flag);
    OK(MPI_Test_cancelled(&st[0], &flag));
    CHECK(!flag, "a complete C Isend reported cancelled");
    status_is(&st[0], 1, 40, 8, "Test's C Isend");
    OK(MPI_Isend(&s[6], 1, MPI_INT64_T, 1, 40, comm, &q[0]));
    OK(MPI_Request_free(&q[0]));
    CHECK(q[0] == MPI_REQUEST_NULL, "Request_free left the handle");
    /* Errors: a used-up C request, MPI_Start of one, MPI_ERR_IN_STATUS in a mixed set. */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    FAILS(MPI_Wait(&old, &st[0]), MPI_ERR_REQUEST);
    OK(MPI_Isend(&s[7], 1, MPI_INT64_T, 1, 40, comm, &q[0]));
    FAILS(MPI_Start(&q[0]), MPI_ERR_REQUEST);
    OK(MPI_Irecv(&g[3], 1, MPI_INT64_T, 1, 50, comm, &q[1])); /* 16 bytes will come */
    for (int i = 0; i < 2; i++) st[i].MPI_ERROR = 777;
    int rc = MPI_Waitall(2, q, st), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_IN_STATUS, "a mixed Waitall with a truncation returned class %d", cls);
    CHECK(st[0].MPI_ERROR == MPI_SUCCESS, "the C Isend's MPI_ERROR is %d", st[0].MPI_ERROR);
    MPI_Error_class(st[1].MPI_ERROR, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "the truncated Irecv's MPI_ERROR class is %d", cls);
    CHECK(q[0] == MPI_REQUEST_NULL && q[1] == MPI_REQUEST_NULL, "Waitall with errors left requests");
    status_is(&st[0], 1, 40, 8, "the C Isend beside a failure");
    OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    long d = mpigo_short_completions() - c0;
    CHECK(none ? d == 0 : d >= 4, "sets on %s: %ld completion calls in C", cname, d);
    OK(MPI_Type_free(&t8));
}

/* sections runs every section on comm. */
static void sections(void) {
    windows();
    irecvs();
    sets();
}

int main(int argc, char **argv) { return req_main(argc, argv, "p2preq", sections); }
