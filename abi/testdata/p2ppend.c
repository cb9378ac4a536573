/* p2ppend.c - MPI_Irecv's pending receives in C (abi/libmpi/p2pshort.c): a nonblocking
 * receive whose message has not come is kept in C, in order, and its message taken from
 * the ring's head by the completion calls; everything else that could match on the
 * communicator (a receive, a probe, a receive C cannot keep) or leave a peer waiting
 * posts the pending receives to Go first. MPI's order of matching must hold throughout:
 * each section below gives a wrong answer (or hangs) if a later receive, a probe or a
 * blocking receive could take a message an earlier pending receive matches. 2 ranks,
 * on MPI_COMM_WORLD and on a split whose ranks are the world's reversed; comm rank 1
 * receives from comm rank 0, which sends when told through a shared-memory window's
 * flags (calling nothing of the library while it waits), so that the ring is empty when
 * a receive is made and holds the messages when the next call comes. With the argument
 * "multiple" (MPI_THREAD_MULTIPLE) the receives are kept pending holding the engine's
 * shared lock, as they are here; with "none" (TCP) none may take C.
 *
 *   - a window of 300 receives (some MPI_ANY_TAG), more than a 16-cell ring holds:
 *     the sender waits for room while the receiver's Waitall takes in C;
 *   - one tag, sizes 8, 4000 and 40000 bytes in turn (the last past the eager limit:
 *     its rendezvous posts the queue to Go): each receive gets its own message;
 *   - a receive into a buffer past the eager limit (32 KiB, as mpi4py's irecv of an
 *     object makes it) is kept pending, and an 8-byte message into it taken in C;
 *   - MPI_Recv after a pending MPI_Irecv, both messages in the ring: the Irecv gets the
 *     first (so neither the C way nor Go's may take it for the Recv);
 *   - MPI_Irecv from MPI_ANY_SOURCE (Go's) after a pending one: the same;
 *   - MPI_Probe after a pending MPI_Irecv: it sees the second message;
 *   - MPI_Cancel of a pending receive: cancelled, its message left for the next;
 *   - MPI_Cancel of an MPI_Issend and a long MPI_Isend that left unmatched: cancelled
 *     (their wait ends while the receiver waits for another message), and the
 *     receives that would have matched them take the messages sent next;
 *   - Testall, Waitany, Testsome and Waitsome over pending receives, C's complete
 *     Isends and Go's Irecvs (a derived datatype's);
 *   - MPI_Test until done; two communicators and tags whose messages come in the
 *     reverse order of their receives; MPI_Comm_free of a communicator with a pending
 *     receive;
 *   - each rank's MPI_Ssend to the other while both have a pending receive of it: the
 *     ack needs the receive posted while the rank sits in its own Ssend. */
#include "reqtest.h"

extern long mpigo_short_irecvs(void);
extern long mpigo_short_completions(void);

static void send64(int64_t v, int tag, MPI_Comm c) { OK(MPI_Send(&v, 1, MPI_INT64_T, 0 == rank ? 1 : 0, tag, c)); }

#define N 300

static void window(void) {
    static int64_t v[N];
    static MPI_Request q[N];
    static MPI_Status st[N];
    if (rank == 1) {
        COUNT(mpigo_short_irecvs, N / 2, N, "a window of 300 Irecvs", for (int i = 0; i < N; i++) {
            v[i] = -1;
            OK(MPI_Irecv(&v[i], 1, MPI_INT64_T, 0, i % 3 ? i % 7 : MPI_ANY_TAG, comm, &q[i]));
        });
        signal_();
        OK(MPI_Waitall(N, q, st));
        for (int i = 0; i < N; i++) {
            CHECK(v[i] == i, "window on %s: receive %d got %lld", cname, i, (long long)v[i]);
            status_is(&st[i], 0, i % 7, 8, "a window's receive");
        }
    } else if (rank == 0) {
        await();
        for (int i = 0; i < N; i++) send64(i, i % 7, comm);
    }
}

static void fill(unsigned char *b, int n, int seed) {
    for (int i = 0; i < n; i++) b[i] = (unsigned char)(seed * 31 + i * 7 + 1);
}

static void sizes(void) {
    static const int sz[3] = {8, 4000, 40000};
    static unsigned char b[12][40000];
    MPI_Request q[12];
    MPI_Status st[12];
    if (rank == 1) {
        for (int i = 0; i < 12; i++) OK(MPI_Irecv(b[i], sz[i % 3], MPI_BYTE, 0, 20, comm, &q[i]));
        signal_();
        OK(MPI_Waitall(12, q, st));
        unsigned char want[40000];
        for (int i = 0; i < 12; i++) {
            status_is(&st[i], 0, 20, sz[i % 3], "sizes across the eager limit");
            fill(want, sz[i % 3], i);
            CHECK(memcmp(b[i], want, (size_t)sz[i % 3]) == 0, "sizes on %s: receive %d has another's bytes", cname, i);
        }
    } else if (rank == 0) {
        await();
        for (int i = 0; i < 12; i++) {
            fill(b[0], sz[i % 3], i);
            OK(MPI_Send(b[0], sz[i % 3], MPI_BYTE, 1, 20, comm));
        }
    }
}

static void big_buffer(void) {
    static unsigned char b[32768];
    if (rank == 1) {
        MPI_Request q;
        MPI_Status st;
        int64_t v = 0;
        COUNT(mpigo_short_irecvs, 1, 1, "an Irecv into 32 KiB",
              OK(MPI_Irecv(b, (int)sizeof b, MPI_BYTE, 0, 25, comm, &q)));
        signal_();
        await();
        COUNT(mpigo_short_completions, 1, 1, "the Wait of an Irecv into 32 KiB", OK(MPI_Wait(&q, &st)));
        status_is(&st, 0, 25, 8, "an 8-byte message into 32 KiB");
        memcpy(&v, b, 8);
        CHECK(v == 25, "an 8-byte message into 32 KiB on %s: %lld", cname, (long long)v);
    } else if (rank == 0) {
        await();
        send64(25, 25, comm);
        signal_();
    }
}

/* pair: rank 1 makes a pending receive of tag ANY, then (after both messages, tags t
 * and t+1, are in its ring) does second; the pending receive must get tag t. */
#define PAIR(t, what, second_decl, second)                                                     \
    do {                                                                                        \
        if (rank == 1) {                                                                        \
            int64_t a = 0;                                                                      \
            MPI_Request q;                                                                      \
            MPI_Status st;                                                                      \
            second_decl;                                                                        \
            COUNT(mpigo_short_irecvs, 0, 1, what, OK(MPI_Irecv(&a, 1, MPI_INT64_T, 0, MPI_ANY_TAG, comm, &q))); \
            signal_();                                                                          \
            await();                                                                            \
            second;                                                                             \
            OK(MPI_Wait(&q, &st));                                                              \
            status_is(&st, 0, t, 8, what);                                                      \
            CHECK(a == t, "%s on %s: the pending receive got %lld, want %d", what, cname, (long long)a, t); \
        } else if (rank == 0) {                                                                 \
            await();                                                                            \
            send64(t, t, comm);                                                                 \
            send64(t + 1, t + 1, comm);                                                         \
            signal_();                                                                          \
        }                                                                                       \
    } while (0)

static void order(void) {
    PAIR(31, "Recv after a pending Irecv", int64_t b = 0, {
        MPI_Status s2;
        OK(MPI_Recv(&b, 1, MPI_INT64_T, 0, MPI_ANY_TAG, comm, &s2));
        status_is(&s2, 0, 32, 8, "the Recv after a pending Irecv");
        CHECK(b == 32, "Recv after a pending Irecv on %s: %lld", cname, (long long)b);
    });
    PAIR(41, "Irecv from any source after a pending Irecv", int64_t b = 0, {
        MPI_Request r;
        MPI_Status s2;
        OK(MPI_Irecv(&b, 1, MPI_INT64_T, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &r));
        OK(MPI_Wait(&r, &s2));
        status_is(&s2, 0, 42, 8, "the Irecv from any source");
    });
    PAIR(51, "Probe after a pending Irecv", int64_t b = 0, {
        MPI_Status s2;
        OK(MPI_Probe(0, MPI_ANY_TAG, comm, &s2));
        status_is(&s2, 0, 52, 8, "Probe after a pending Irecv");
        OK(MPI_Recv(&b, 1, MPI_INT64_T, 0, 52, comm, MPI_STATUS_IGNORE));
    });
    PAIR(55, "Sendrecv after a pending Irecv", int64_t b = 0, {
        MPI_Status s2;
        int64_t x = 0;
        OK(MPI_Sendrecv(&x, 1, MPI_INT64_T, 0, 57, &b, 1, MPI_INT64_T, 0, MPI_ANY_TAG, comm, &s2));
        status_is(&s2, 0, 56, 8, "Sendrecv after a pending Irecv");
    });
    if (rank == 0) {
        int64_t y;
        OK(MPI_Recv(&y, 1, MPI_INT64_T, 1, 57, comm, MPI_STATUS_IGNORE));
    }

    /* Cancel: the cancelled receive leaves its message to the next one. */
    if (rank == 1) {
        int64_t a = -5, b = 0;
        MPI_Request q;
        MPI_Status st;
        int flag = 0;
        OK(MPI_Irecv(&a, 1, MPI_INT64_T, 0, 61, comm, &q));
        OK(MPI_Cancel(&q));
        OK(MPI_Wait(&q, &st));
        OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag && q == MPI_REQUEST_NULL, "a cancelled pending receive on %s: cancelled %d", cname, flag);
        signal_();
        OK(MPI_Recv(&b, 1, MPI_INT64_T, 0, 61, comm, &st));
        CHECK(a == -5 && b == 61, "Cancel on %s: %lld %lld", cname, (long long)a, (long long)b);
    } else if (rank == 0) {
        await();
        send64(61, 61, comm);
    }

    /* Cancel of sends that left unmatched (an MPI_Issend, and an MPI_Isend past the
     * eager limit): cancelled, their Waitall returns while the receiver sits in another
     * receive, and the receives that would have matched them take the next messages. */
    static char big[100000];
    if (rank == 0) {
        int64_t one = 1;
        MPI_Request q[2];
        MPI_Status st[2];
        int f0 = 0, f1 = 0;
        big[0] = 1;
        OK(MPI_Issend(&one, 1, MPI_INT64_T, 1, 62, comm, &q[0]));
        OK(MPI_Isend(big, sizeof big, MPI_BYTE, 1, 63, comm, &q[1]));
        OK(MPI_Cancel(&q[0]));
        OK(MPI_Cancel(&q[1]));
        OK(MPI_Waitall(2, q, st));
        OK(MPI_Test_cancelled(&st[0], &f0));
        OK(MPI_Test_cancelled(&st[1], &f1));
        CHECK(f0 && f1, "unmatched sends on %s: cancelled %d and %d", cname, f0, f1);
        send64(0, 64, comm);
        send64(2, 62, comm);
        big[0] = 2;
        OK(MPI_Send(big, sizeof big, MPI_BYTE, 1, 63, comm));
    } else if (rank == 1) {
        int64_t go = -1, b = 0;
        OK(MPI_Recv(&go, 1, MPI_INT64_T, 0, 64, comm, MPI_STATUS_IGNORE));
        OK(MPI_Recv(&b, 1, MPI_INT64_T, 0, 62, comm, MPI_STATUS_IGNORE));
        OK(MPI_Recv(big, sizeof big, MPI_BYTE, 0, 63, comm, MPI_STATUS_IGNORE));
        CHECK(b == 2 && big[0] == 2, "after cancelled sends on %s: received %lld and %d, want 2 and 2", cname,
              (long long)b, big[0]);
    }
}

static void sets(void) {
    MPI_Datatype t8;
    OK(MPI_Type_contiguous(8, MPI_BYTE, &t8)); /* a derived datatype: Go's way */
    OK(MPI_Type_commit(&t8));
    int64_t g[6] = {0}, s = 7;
    MPI_Request q[6];
    MPI_Status st[6];
    int idx, flag, n, ix[6];
    if (rank == 1) {
        /* [pending 71, C Isend, Go's 72, 73 (after a Go receive: Go's)]. */
        OK(MPI_Irecv(&g[0], 1, MPI_INT64_T, 0, 71, comm, &q[0]));
        OK(MPI_Isend(&s, 1, MPI_INT64_T, 0, 70, comm, &q[1]));
        OK(MPI_Irecv(&g[2], 1, t8, 0, 72, comm, &q[2]));
        OK(MPI_Irecv(&g[3], 1, MPI_INT64_T, 0, 73, comm, &q[3]));
        OK(MPI_Testall(4, q, &flag, st));
        CHECK(!flag, "Testall before the messages on %s", cname);
        signal_();
        int done[4] = {0};
        for (int k = 0; k < 4; k++) {
            OK(MPI_Waitany(4, q, &idx, &st[0]));
            CHECK(idx >= 0 && idx < 4 && !done[idx]++ && q[idx] == MPI_REQUEST_NULL, "Waitany on %s gave %d", cname, idx);
            if (idx != 1) status_is(&st[0], 0, 71 + (idx == 0 ? 0 : idx - 1), 8, "Waitany's receive");
        }
        OK(MPI_Waitany(4, q, &idx, &st[0]));
        CHECK(idx == MPI_UNDEFINED, "Waitany of nulls gave %d", idx);
        CHECK(g[0] == 71 && g[2] == 72 && g[3] == 73, "Waitany's receives on %s: %lld %lld %lld", cname,
              (long long)g[0], (long long)g[2], (long long)g[3]);
        /* [pending 81, pending 82]: Testsome finds none, Waitsome both. */
        OK(MPI_Irecv(&g[4], 1, MPI_INT64_T, 0, 81, comm, &q[0]));
        OK(MPI_Irecv(&g[5], 1, MPI_INT64_T, 0, 82, comm, &q[1]));
        OK(MPI_Testsome(2, q, &n, ix, st));
        CHECK(n == 0, "Testsome before the messages on %s gave %d", cname, n);
        signal_();
        int total = 0;
        while (total < 2) {
            OK(MPI_Waitsome(2, q, &n, ix, st));
            CHECK(n >= 1 && n <= 2 - total, "Waitsome on %s gave %d", cname, n);
            for (int k = 0; k < n; k++) status_is(&st[k], 0, 81 + ix[k], 8, "Waitsome's receive");
            total += n;
        }
        CHECK(g[4] == 81 && g[5] == 82, "Waitsome's receives on %s", cname);
        /* [pending, pending]: Testall until both (C alone), then Test until one. */
        OK(MPI_Irecv(&g[0], 1, MPI_INT64_T, 0, 91, comm, &q[0]));
        OK(MPI_Irecv(&g[1], 1, MPI_INT64_T, 0, MPI_ANY_TAG, comm, &q[1]));
        MPI_Request keep[2] = {q[0], q[1]};
        OK(MPI_Testall(2, q, &flag, st));
        CHECK(!flag && q[0] == keep[0] && q[1] == keep[1], "Testall of pending receives on %s", cname);
        signal_();
        for (flag = 0; !flag;) OK(MPI_Testall(2, q, &flag, st));
        status_is(&st[0], 0, 91, 8, "Testall's first");
        status_is(&st[1], 0, 92, 8, "Testall's second");
        OK(MPI_Irecv(&g[2], 1, MPI_INT64_T, 0, 93, comm, &q[0]));
        signal_();
        for (flag = 0; !flag;) OK(MPI_Test(&q[0], &flag, &st[0]));
        status_is(&st[0], 0, 93, 8, "Test's");
        CHECK(g[0] == 91 && g[1] == 92 && g[2] == 93, "Testall, Test on %s", cname);
    } else if (rank == 0) {
        OK(MPI_Recv(&g[0], 1, MPI_INT64_T, 1, 70, comm, MPI_STATUS_IGNORE));
        await();
        for (int t = 71; t <= 73; t++) send64(t, t, comm);
        await();
        send64(82, 82, comm); /* the second receive's message first */
        send64(81, 81, comm);
        await();
        send64(91, 91, comm);
        send64(92, 92, comm);
        await();
        send64(93, 93, comm);
    }
    OK(MPI_Type_free(&t8));
}

static void comms(void) {
    MPI_Comm d, e;
    OK(MPI_Comm_dup(comm, &d));
    OK(MPI_Comm_dup(comm, &e));
    if (rank == 1) {
        int64_t a = 0, b = 0, c = 0, x = 0;
        MPI_Request q[3];
        MPI_Status st[3];
        MPI_Request qe;
        OK(MPI_Irecv(&a, 1, MPI_INT64_T, 0, 5, comm, &q[0]));
        OK(MPI_Irecv(&b, 1, MPI_INT64_T, 0, 5, d, &q[1]));
        OK(MPI_Irecv(&x, 1, MPI_INT64_T, 0, 9, e, &qe));
        OK(MPI_Irecv(&c, 1, MPI_INT64_T, 0, 6, comm, &q[2]));
        OK(MPI_Comm_free(&e)); /* a pending receive on it goes on */
        signal_();
        OK(MPI_Waitall(3, q, st));
        CHECK(a == 1 && b == 2 && c == 3, "two communicators on %s: %lld %lld %lld", cname, (long long)a, (long long)b,
              (long long)c);
        OK(MPI_Wait(&qe, &st[0]));
        CHECK(x == 4, "a freed communicator's pending receive on %s: %lld", cname, (long long)x);
    } else if (rank == 0) {
        await();
        send64(4, 9, e);
        send64(3, 6, comm);
        send64(2, 5, d);
        send64(1, 5, comm);
        OK(MPI_Comm_free(&e));
    }
    OK(MPI_Comm_free(&d));
}

/* Each rank's Ssend to the other while both have a pending receive of it. */
static void ssends(void) {
    int64_t a = 0, x = 100 + rank;
    MPI_Request q;
    MPI_Status st;
    int other = 1 - rank;
    OK(MPI_Barrier(comm));
    OK(MPI_Irecv(&a, 1, MPI_INT64_T, other, 95, comm, &q));
    signal_();
    await(); /* both receives made before either sends */
    OK(MPI_Ssend(&x, 1, MPI_INT64_T, other, 95, comm));
    OK(MPI_Wait(&q, &st));
    CHECK(a == 100 + other, "Ssend both ways on %s: %lld", cname, (long long)a);
}

/* sections runs every section on comm. Traffic both ways first: the engine shows a
 * peer's ring to C once it has received from it. */
static void sections(void) {
    int64_t w = 0, w2 = 0;
    OK(MPI_Sendrecv(&w, 1, MPI_INT64_T, 1 - rank, 1, &w2, 1, MPI_INT64_T, 1 - rank, 1, comm, MPI_STATUS_IGNORE));
    window();
    sizes();
    big_buffer();
    order();
    sets();
    comms();
    ssends();
}

int main(int argc, char **argv) { return req_main(argc, argv, "p2ppend", sections); }
