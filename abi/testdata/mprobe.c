/* mprobe.c - MPI_Mprobe's and MPI_Mrecv's short way in C (abi/libmpi/p2pshort.c): a
 * matched probe of a message at the head of a node peer's ring takes it into a record
 * of the C library's, and MPI_Mrecv of it into a plain predefined datatype copies it
 * out there; every other case goes to Go, which adopts the record and receives it as
 * a message it matched itself. 2 ranks; rank 0 sends, rank 1 probes and receives.
 * With the argument "multiple" the job runs at MPI_THREAD_MULTIPLE (the engine's
 * shared lock); with "none" (the job over TCP) no call may take C.
 *
 *   - a ping-pong of 8 bytes through MPI_Mprobe, MPI_Get_count and MPI_Mrecv, as
 *     mpi4py's comm.recv does, its probes in turn from the peer and from
 *     MPI_ANY_SOURCE with MPI_ANY_TAG: data, source, tag and count right; then
 *     messages sent before the probe is made (a Barrier between): nearly every probe
 *     and receive in C;
 *   - MPI_Improbe in a loop until it finds the message, then MPI_Mrecv: most calls
 *     answered in C, and some messages taken and received there (the others found
 *     by Go's progress, which every MPIGO_PROBE_TURN-th "no" is), the message's data,
 *     source and tag right; from MPI_ANY_SOURCE with MPI_ANY_TAG in turn; a probe that
 *     finds nothing leaves the message handle and the status as they were. Over TCP
 *     the "no"s are C's too (as MPI_Iprobe's: the rings C reads are empty), the
 *     messages Go's;
 *   - a message matched on a duplicate that is then freed (MPI 4.1 sec. 6.4.3: what
 *     is pending on it completes): received by MPI_Imrecv and by MPI_Mrecv after the
 *     free, data and status right;
 *   - sizes 0 to 100, 1000 and 6000 bytes: the data and MPI_Get_count right;
 *   - a message received into a derived datatype, one received through MPI_Imrecv,
 *     one into too small a buffer (MPI_ERR_TRUNCATE, and the message gone), one
 *     with a bad datatype (MPI_ERR_TYPE, and the message still there to receive),
 *     and 200 KiB (a rendezvous, Go's probe): all taken by Go, right;
 *   - tags out of order: MPI_Mprobe of the second message's tag, then of any tag, gets
 *     the second and then the first;
 *   - MPI_Mrecv of a handle already received: MPI_ERR_REQUEST; MPI_PROC_NULL's
 *     MPI_MESSAGE_NO_PROC received as from no process. */
#include "check.h"
#include <stdint.h>
#include <string.h>

extern long mpigo_short_mprobes(void);
extern long mpigo_short_mrecvs(void);
extern long mpigo_short_improbes(void);

enum { ROUNDS = 1000, BIG = 200 << 10 };

static int rank, peer, none;

/* mrecv_bytes probes (from src, with tag) and receives a message of bytes into buf
 * (room for max), checking its status; it returns the message's length. */
static int mrecv_bytes(int src, int tag, char *buf, int max, int want_tag) {
    MPI_Message m;
    MPI_Status st;
    int n = -1;
    OK(MPI_Mprobe(src, tag, MPI_COMM_WORLD, &m, &st));
    CHECK(m != MPI_MESSAGE_NULL && st.MPI_SOURCE == peer && st.MPI_TAG == want_tag, "probe: source %d tag %d",
          st.MPI_SOURCE, st.MPI_TAG);
    OK(MPI_Get_count(&st, MPI_BYTE, &n));
    CHECK(n >= 0 && n <= max, "probe: count %d", n);
    MPI_Status rs;
    OK(MPI_Mrecv(buf, n, MPI_BYTE, &m, &rs));
    int rn = -1;
    OK(MPI_Get_count(&rs, MPI_BYTE, &rn));
    CHECK(m == MPI_MESSAGE_NULL && rs.MPI_SOURCE == peer && rs.MPI_TAG == want_tag && rn == n,
          "Mrecv: message %#lx, source %d tag %d count %d of %d", (long)(uintptr_t)m, rs.MPI_SOURCE, rs.MPI_TAG, rn, n);
    return n;
}

static void fill(char *b, int n, int seed) {
    for (int i = 0; i < n; i++) b[i] = (char)(seed * 31 + i);
}

static void same(const char *b, int n, int seed, const char *what) {
    for (int i = 0; i < n; i++) CHECK(b[i] == (char)(seed * 31 + i), "%s: byte %d of %d", what, i, n);
}

int main(int argc, char **argv) {
    int provided, size, multiple = argc > 1 && strcmp(argv[1], "multiple") == 0;
    none = argc > 1 && strcmp(argv[1], "none") == 0;
    OK(MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "mprobe runs on 2 ranks, not %d", size);
    peer = 1 - rank;
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN)); /* a used-up message names no communicator */
    static char buf[BIG], out[BIG];

    /* The ping-pong, round -1 making the rings in Go. */
    long p0 = 0, r0 = 0;
    for (int i = -1; i < ROUNDS; i++) {
        if (i == 0) p0 = mpigo_short_mprobes(), r0 = mpigo_short_mrecvs();
        int64_t v = i, got = -1;
        int src = i & 1 ? MPI_ANY_SOURCE : peer, tag = i & 2 ? MPI_ANY_TAG : 5;
        if (rank == 0) {
            OK(MPI_Send(&v, 1, MPI_INT64_T, peer, 5, MPI_COMM_WORLD));
            CHECK(mrecv_bytes(src, tag, (char *)&got, 8, 5) == 8 && got == v + 1, "round %d: the answer %lld", i,
                  (long long)got);
        } else {
            CHECK(mrecv_bytes(src, tag, (char *)&got, 8, 5) == 8 && got == v, "round %d: received %lld", i,
                  (long long)got);
            got++;
            OK(MPI_Send(&got, 1, MPI_INT64_T, peer, 5, MPI_COMM_WORLD));
        }
    }
    long p = mpigo_short_mprobes() - p0, r = mpigo_short_mrecvs() - r0;
    /* A probe whose message came later than its spin goes on in Go (its receive too),
     * as many may on a loaded host: counted below, where the message is there first. */
    CHECK(none ? p == 0 && r == 0 : p <= ROUNDS && r == p, "ping-pong: %ld probes and %ld receives of %d took C", p,
          r, ROUNDS);

    /* The message there before the probe (a Barrier after the send): nearly all in C.
     * One whose Barrier waited in Go, which made progress and queued it unexpected,
     * goes on in Go: up to one in ten may. */
    p0 = mpigo_short_mprobes(), r0 = mpigo_short_mrecvs();
    for (int i = 0; i < ROUNDS; i++) {
        int64_t v = i, got = -1;
        if (rank == 0) OK(MPI_Send(&v, 1, MPI_INT64_T, peer, 4, MPI_COMM_WORLD));
        OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 1)
            CHECK(mrecv_bytes(i & 1 ? MPI_ANY_SOURCE : peer, 4, (char *)&got, 8, 4) == 8 && got == v,
                  "round %d: received %lld", i, (long long)got);
    }
    if (rank == 1) {
        p = mpigo_short_mprobes() - p0, r = mpigo_short_mrecvs() - r0;
        CHECK(none ? p == 0 && r == 0 : p >= ROUNDS - ROUNDS / 10 && p <= ROUNDS && r == p,
              "%ld probes and %ld receives of %d took C", p, r, ROUNDS);
    }

    /* MPI_Improbe until found, then MPI_Mrecv: rank 0 sends after a Barrier, so rank 1's
     * first probe finds nothing. Every MPIGO_PROBE_TURN-th "no" is Go's (its progress,
     * which may find the message first), and the take is C's where the message is at
     * the ring's head. */
    {
        long i0 = mpigo_short_improbes(), calls = 0;
        r0 = mpigo_short_mrecvs();
        for (int i = 0; i < 200; i++) {
            int64_t v = 1000 + i, got = -1;
            if (rank == 0) {
                OK(MPI_Barrier(MPI_COMM_WORLD));
                OK(MPI_Send(&v, 1, MPI_INT64_T, peer, 7, MPI_COMM_WORLD));
                continue;
            }
            int src = i & 1 ? MPI_ANY_SOURCE : peer, tag = i & 2 ? MPI_ANY_TAG : 7, flag = 0;
            MPI_Message m = (MPI_Message)(uintptr_t)0x1234;
            MPI_Status st;
            st.MPI_SOURCE = -7;
            OK(MPI_Improbe(src, tag, MPI_COMM_WORLD, &flag, &m, &st));
            calls++;
            CHECK(flag || (m == (MPI_Message)(uintptr_t)0x1234 && st.MPI_SOURCE == -7),
                  "round %d: a probe that found nothing wrote message %#lx, source %d", i, (long)(uintptr_t)m,
                  st.MPI_SOURCE);
            OK(MPI_Barrier(MPI_COMM_WORLD));
            while (!flag) {
                OK(MPI_Improbe(src, tag, MPI_COMM_WORLD, &flag, &m, &st));
                calls++;
            }
            int n = -1;
            OK(MPI_Get_count(&st, MPI_BYTE, &n));
            CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 7 && n == 8, "round %d: Improbe's status source %d tag %d count %d",
                  i, st.MPI_SOURCE, st.MPI_TAG, n);
            OK(MPI_Mrecv(&got, 1, MPI_INT64_T, &m, &st));
            CHECK(got == v && m == MPI_MESSAGE_NULL, "round %d: Mrecv after Improbe got %lld", i, (long long)got);
        }
        if (rank == 1) {
            long ic = mpigo_short_improbes() - i0, rc = mpigo_short_mrecvs() - r0;
            CHECK(ic >= calls / 2 && ic <= calls && (none ? rc == 0 : rc > 0 && rc <= 200),
                  "Improbe: %ld of %ld calls and %ld of 200 receives took C", ic, calls, rc);
        }
    }

    /* Matched on a duplicate, received after its free: by MPI_Imrecv (Go's, which
     * adopts a message C took) and by MPI_Mrecv. */
    for (int i = 0; i < 4; i++) {
        MPI_Comm d;
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        int64_t v = 7000 + i, got = -1;
        if (rank == 0) OK(MPI_Send(&v, 1, MPI_INT64_T, peer, 8, d));
        OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 1) {
            MPI_Message m;
            MPI_Status st;
            OK(MPI_Mprobe(peer, 8, d, &m, &st));
            OK(MPI_Comm_free(&d));
            if (i % 2 == 0) {
                MPI_Request q;
                OK(MPI_Imrecv(&got, 1, MPI_INT64_T, &m, &q));
                OK(MPI_Wait(&q, &st));
            } else {
                OK(MPI_Mrecv(&got, 1, MPI_INT64_T, &m, &st));
            }
            CHECK(got == v && st.MPI_SOURCE == peer && st.MPI_TAG == 8 && m == MPI_MESSAGE_NULL,
                  "round %d: received %lld (source %d, tag %d) after the communicator's free", i, (long long)got,
                  st.MPI_SOURCE, st.MPI_TAG);
        } else {
            OK(MPI_Comm_free(&d));
        }
    }

    /* Sizes, in both directions of the eager range the short way takes. */
    int sizes[] = {0, 1, 7, 8, 9, 40, 95, 96, 97, 100, 1000, 6000};
    for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
        int n = sizes[k];
        if (rank == 0) {
            fill(out, n, k);
            OK(MPI_Send(out, n, MPI_BYTE, peer, 6, MPI_COMM_WORLD));
        } else {
            memset(buf, 0, (size_t)n + 1);
            CHECK(mrecv_bytes(peer, 6, buf, BIG, 6) == n, "size %d", n);
            same(buf, n, k, "sizes");
        }
        OK(MPI_Barrier(MPI_COMM_WORLD));
    }

    /* Go's cases: a derived datatype, MPI_Imrecv, truncation, a rendezvous. */
    if (rank == 0) {
        int32_t ints[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        OK(MPI_Send(ints, 8, MPI_INT32_T, peer, 7, MPI_COMM_WORLD));
        OK(MPI_Send(ints, 4, MPI_INT32_T, peer, 8, MPI_COMM_WORLD));
        OK(MPI_Send(ints, 8, MPI_INT32_T, peer, 9, MPI_COMM_WORLD));
        OK(MPI_Send(ints, 1, MPI_INT32_T, peer, 10, MPI_COMM_WORLD));
        OK(MPI_Send(ints + 5, 1, MPI_INT32_T, peer, 12, MPI_COMM_WORLD));
        fill(out, BIG, 3);
        OK(MPI_Send(out, BIG, MPI_BYTE, peer, 11, MPI_COMM_WORLD));
    } else {
        MPI_Message m;
        MPI_Status st;
        MPI_Datatype pair;
        OK(MPI_Type_contiguous(2, MPI_INT32_T, &pair));
        OK(MPI_Type_commit(&pair));
        int32_t in[8] = {0};
        OK(MPI_Mprobe(peer, 7, MPI_COMM_WORLD, &m, &st));
        OK(MPI_Mrecv(in, 4, pair, &m, &st));
        int cnt = -1;
        OK(MPI_Get_count(&st, pair, &cnt));
        CHECK(m == MPI_MESSAGE_NULL && cnt == 4 && in[0] == 1 && in[7] == 8 && st.MPI_TAG == 7,
              "derived: count %d, %d..%d", cnt, in[0], in[7]);
        OK(MPI_Type_free(&pair));

        memset(in, 0, sizeof in);
        MPI_Request q;
        OK(MPI_Mprobe(peer, 8, MPI_COMM_WORLD, &m, &st));
        OK(MPI_Imrecv(in, 8, MPI_INT32_T, &m, &q));
        CHECK(m == MPI_MESSAGE_NULL, "Imrecv left the message %#lx", (long)(uintptr_t)m);
        OK(MPI_Wait(&q, &st));
        OK(MPI_Get_count(&st, MPI_INT32_T, &cnt));
        CHECK(cnt == 4 && in[0] == 1 && in[3] == 4 && in[4] == 0 && st.MPI_SOURCE == peer && st.MPI_TAG == 8,
              "Imrecv: count %d, source %d tag %d", cnt, st.MPI_SOURCE, st.MPI_TAG);

        OK(MPI_Mprobe(peer, 9, MPI_COMM_WORLD, &m, &st));
        MPI_Message used = m;
        FAILS(MPI_Mrecv(in, 2, MPI_INT32_T, &m, &st), MPI_ERR_TRUNCATE);
        CHECK(m == MPI_MESSAGE_NULL, "truncated: the message %#lx", (long)(uintptr_t)m);
        FAILS(MPI_Mrecv(in, 8, MPI_INT32_T, &used, &st), MPI_ERR_REQUEST);
        in[0] = -1;
        OK(MPI_Mprobe(peer, 10, MPI_COMM_WORLD, &m, &st));
        OK(MPI_Mrecv(in, 1, MPI_INT32_T, &m, &st));
        CHECK(in[0] == 1 && st.MPI_TAG == 10, "after the truncation: %d, tag %d", in[0], st.MPI_TAG);

        /* A bad datatype leaves the message to be received. */
        OK(MPI_Mprobe(peer, 12, MPI_COMM_WORLD, &m, &st));
        FAILS(MPI_Mrecv(in, 1, MPI_DATATYPE_NULL, &m, &st), MPI_ERR_TYPE);
        CHECK(m != MPI_MESSAGE_NULL, "a failed Mrecv took the message");
        OK(MPI_Mrecv(in, 1, MPI_INT32_T, &m, &st));
        CHECK(m == MPI_MESSAGE_NULL && in[0] == 6 && st.MPI_TAG == 12, "after the bad datatype: %d, tag %d", in[0],
              st.MPI_TAG);

        memset(buf, 0, BIG);
        CHECK(mrecv_bytes(peer, 11, buf, BIG, 11) == BIG, "rendezvous");
        same(buf, BIG, 3, "rendezvous");
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Tags out of order. */
    if (rank == 0) {
        int a = 1, b = 2;
        OK(MPI_Send(&a, 1, MPI_INT, peer, 21, MPI_COMM_WORLD));
        OK(MPI_Send(&b, 1, MPI_INT, peer, 22, MPI_COMM_WORLD));
    } else {
        int x = 0, y = 0;
        CHECK(mrecv_bytes(peer, 22, (char *)&x, 4, 22) == 4 && x == 2, "tag 22 first: %d", x);
        CHECK(mrecv_bytes(MPI_ANY_SOURCE, MPI_ANY_TAG, (char *)&y, 4, 21) == 4 && y == 1, "then tag 21: %d", y);
    }

    /* MPI_PROC_NULL. */
    MPI_Message m;
    MPI_Status st;
    OK(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &m, &st));
    CHECK(m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL, "MPI_PROC_NULL: message %#lx source %d",
          (long)(uintptr_t)m, st.MPI_SOURCE);
    OK(MPI_Mrecv(buf, 4, MPI_BYTE, &m, &st));
    CHECK(m == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL, "MPI_MESSAGE_NO_PROC received: source %d",
          st.MPI_SOURCE);

    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Finalize());
    if (rank == 1) printf("OK mprobe (%ld of %d probes in C)\n", p, ROUNDS);
    return 0;
}
