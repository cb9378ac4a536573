/* p2precv.c - MPI_Recv's and MPI_Sendrecv's short way in C (abi/libmpi/p2pshort.c):
 * a blocking receive of a message at the head of a node peer's ring, taken without
 * crossing into Go when nothing else is posted or queued on the communicator, and
 * every other receive taken by Go, with MPI's matching order, wildcards, statuses and
 * truncation errors either way. 2 or 3 ranks (the third for two senders; then more
 * ranks than this machine's cores, where a receive rarely finds its message within
 * its spin, and no count of C calls is required); each section runs on
 * MPI_COMM_WORLD and on a split whose ranks are the world's reversed. Comm rank 0
 * sends to comm rank 1; rank 2 sends too where two senders are needed. mpigo_short_recvs and
 * mpigo_short_sendrecvs (the library's counts of calls done in C) say which way each
 * receive took; with the argument "none" (TCP) none may take C. With "multiple" the
 * job runs at MPI_THREAD_MULTIPLE, where the short ways take the engine's shared lock:
 * the same cases, the same ways.
 *
 *   - a ping-pong of 8 bytes, half of the receives from MPI_ANY_SOURCE: C (but for
 *     the record's samples, the first message, and messages later than the spin);
 *   - sizes 0 to 40, 100, 1000, 2000, 6000 bytes (eager through the data ring, the
 *     larger ones written by Go), received exactly and into a larger buffer: the data,
 *     MPI_SOURCE, MPI_TAG, MPI_Get_count right, MPI_ERROR left as it was;
 *   - an MPI_Irecv posted (Go) before a blocking MPI_Recv, both MPI_ANY_TAG: the
 *     Irecv takes the first message, the Recv the second, and the Recv is Go's;
 *   - a message queued unexpected (an MPI_Probe took it off the ring), then another
 *     sent: Recv with MPI_ANY_TAG gets the queued one first, through Go, then the
 *     other;
 *   - a message longer than the buffer: MPI_ERR_TRUNCATE (Go), and the next in C;
 *   - 8 bytes, 200 KiB (a rendezvous) and 8 bytes with one tag: in order;
 *   - a synchronous send: its receive is Go's (the ack), the send completes;
 *   - MPI_ANY_SOURCE with two senders, 200 messages each: every sender's in order,
 *     MPI_SOURCE right;
 *   - MPI_Sendrecv exchanges of 8 bytes and 16 KiB (eager as an exchange only), and
 *     MPI_Sendrecv_replace ones of 16: C;
 *     MPI_Sendrecv of 8 bytes with a 4-byte receive
 *     buffer: MPI_ERR_TRUNCATE, the send delivered; overlapping buffers:
 *     MPI_ERR_BUFFER, nothing sent. */
#include "check.h"
#include <stdint.h>
#include <string.h>

extern long mpigo_short_recvs(void);
extern long mpigo_short_sendrecvs(void);
extern long mpigo_waits_shared(void);

#define ROUNDS 1000
#define ANY 200
#define BIG (200 << 10)

static int rank, none, nranks;
static MPI_Comm comm;
static const char *cname;

/* RECVS runs body and checks how many receives it did in C: exactly 0 if max is 0
 * (or "none"), else at least min and at most max. */
#define RECVS(counter, min, max, what, body)                                                   \
    do {                                                                                       \
        long r0_ = counter();                                                                  \
        body;                                                                                  \
        long d_ = counter() - r0_, m_ = none ? 0 : (max), n_ = none || nranks > 2 ? 0 : (min);  \
        CHECK(d_ >= n_ && d_ <= m_, "%s on %s: %ld calls in C, want %ld to %ld", what, cname, d_, n_, m_); \
    } while (0)

/* RECVS_SOME runs body, a block of receives that meet their messages within the
 * spin when both ranks run, and checks that it did at most max in C, and some. On a
 * loaded machine a descheduled peer can make every receive of a block miss its spin
 * (the ranks then take turns sleeping in Go), so a block that took none is run
 * again, up to TRIES blocks, until each rank has taken one in C; the two ranks agree
 * on each repetition. A block during which the launcher said the node is shared
 * (mpigo_waits_shared) does not count: the waits then spin a few polls only and give
 * the core to the others, and a ping-pong's receives may all end in Go; if every
 * block was such, none need be in C. With "none", or on 3 ranks (more than the
 * cores), it runs once and none or any number may be in C. */
#define TRIES 10
#define RECVS_SOME(counter, max, what, body)                                                   \
    do {                                                                                       \
        int some_ = none || nranks > 2, again_[2] = {0, 0}, tries_ = 0, quiet_ = 0;           \
        do {                                                                                   \
            long r0_ = counter(), s0_ = mpigo_waits_shared();                                  \
            body;                                                                              \
            long d_ = counter() - r0_, m_ = none ? 0 : (max);                                  \
            CHECK(d_ <= m_, "%s on %s: %ld calls in C, want at most %ld", what, cname, d_, m_); \
            some_ |= d_ > 0;                                                                   \
            if (none || nranks > 2) break;                                                     \
            again_[0] = !some_;                                                                \
            again_[1] = s0_ != mpigo_waits_shared() || s0_ % 2 == 1;                           \
            OK(MPI_Allreduce(MPI_IN_PLACE, again_, 2, MPI_INT, MPI_LOR, comm));                \
            quiet_ += !again_[1];                                                              \
        } while (again_[0] && ++tries_ < TRIES);                                               \
        CHECK(some_ || !quiet_, "%s on %s: no call in C in %d blocks, %d of them on a quiet node", what, cname, tries_, quiet_); \
    } while (0)

static void fill(unsigned char *b, int n, int seed) {
    for (int i = 0; i < n; i++) b[i] = (unsigned char)(seed * 31 + i * 7 + 1);
}

static void expect(const unsigned char *b, int n, int seed, const char *what) {
    for (int i = 0; i < n; i++)
        CHECK(b[i] == (unsigned char)(seed * 31 + i * 7 + 1), "%s on %s: byte %d of %d is %d", what, cname, i, n, b[i]);
}

static void status_is(const MPI_Status *st, int src, int tag, int bytes, const char *what) {
    int n = -1;
    OK(MPI_Get_count(st, MPI_BYTE, &n));
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && n == bytes,
          "%s on %s: status source %d tag %d count %d, want %d %d %d", what, cname, st->MPI_SOURCE, st->MPI_TAG, n, src,
          tag, bytes);
}

static void pingpong(void) {
    int64_t v = 0;
    MPI_Status st;
    if (rank == 0) {
        RECVS_SOME(mpigo_short_recvs, ROUNDS, "ping-pong", for (int i = 0; i < ROUNDS; i++) {
            v = i;
            OK(MPI_Send(&v, 1, MPI_INT64_T, 1, 7, comm));
            st.MPI_ERROR = 12345;
            OK(MPI_Recv(&v, 1, MPI_INT64_T, i % 2 ? MPI_ANY_SOURCE : 1, 8, comm, &st));
            CHECK(v == -i, "ping-pong on %s: got %lld for %d", cname, (long long)v, i);
            CHECK(st.MPI_ERROR == 12345, "ping-pong: MPI_ERROR changed to %d", st.MPI_ERROR);
            status_is(&st, 1, 8, 8, "ping-pong");
        });
    } else if (rank == 1) {
        RECVS_SOME(mpigo_short_recvs, ROUNDS, "ping-pong", for (int i = 0; i < ROUNDS; i++) {
            OK(MPI_Recv(&v, 1, MPI_INT64_T, 0, MPI_ANY_TAG, comm, &st));
            CHECK(v == i, "ping-pong on %s: got %lld for %d", cname, (long long)v, i);
            status_is(&st, 0, 7, 8, "ping-pong");
            v = -v;
            OK(MPI_Send(&v, 1, MPI_INT64_T, 0, 8, comm));
        });
    }
}

static const int sizes[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 100, 1000, 2000, 6000};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

static void sizes_(void) {
    static unsigned char b[8192];
    MPI_Status st;
    for (int k = 0; k < NSIZES; k++) {
        int n = sizes[k];
        for (int exact = 0; exact < 2; exact++) {
            if (rank == 0) {
                fill(b, n, k);
                OK(MPI_Send(n ? b : NULL, n, MPI_BYTE, 1, 100 + k, comm));
                OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 99, comm, MPI_STATUS_IGNORE)); /* one at a time */
            } else if (rank == 1) {
                memset(b, 0, sizeof b);
                st.MPI_ERROR = 777;
                OK(MPI_Recv(b, exact ? n : (int)sizeof b, MPI_BYTE, 0, exact ? 100 + k : MPI_ANY_TAG, comm, &st));
                expect(b, n, k, "sizes");
                status_is(&st, 0, 100 + k, n, "sizes");
                CHECK(st.MPI_ERROR == 777, "sizes: MPI_ERROR changed to %d", st.MPI_ERROR);
                OK(MPI_Send(NULL, 0, MPI_BYTE, 0, 99, comm));
            }
        }
    }
}

/* sync_ waits for comm rank 1 to say it is ready. */
static void sync_(int tag) {
    if (rank == 0) OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, tag, comm, MPI_STATUS_IGNORE));
    if (rank == 1) OK(MPI_Send(NULL, 0, MPI_BYTE, 0, tag, comm));
}

static void mixed(void) {
    int64_t a = 0, b = 0;
    MPI_Status st;
    MPI_Request q;
    /* An Irecv posted before a blocking Recv. */
    if (rank == 1) {
        OK(MPI_Irecv(&a, 1, MPI_INT64_T, 0, MPI_ANY_TAG, comm, &q));
        sync_(50);
        RECVS(mpigo_short_recvs, 0, 0, "Recv after an Irecv",
              OK(MPI_Recv(&b, 1, MPI_INT64_T, 0, MPI_ANY_TAG, comm, &st)));
        status_is(&st, 0, 52, 8, "Recv after an Irecv");
        OK(MPI_Wait(&q, &st));
        status_is(&st, 0, 51, 8, "Irecv before a Recv");
        CHECK(a == 51 && b == 52, "Irecv then Recv on %s: %lld %lld, want 51 52", cname, (long long)a, (long long)b);
    } else if (rank == 0) {
        sync_(50);
        a = 51, b = 52;
        OK(MPI_Send(&a, 1, MPI_INT64_T, 1, 51, comm));
        OK(MPI_Send(&b, 1, MPI_INT64_T, 1, 52, comm));
    }
    /* A message queued unexpected, then one in the ring: the queued one first. */
    if (rank == 0) {
        a = 61;
        OK(MPI_Send(&a, 1, MPI_INT64_T, 1, 61, comm));
        sync_(60);
        a = 63;
        OK(MPI_Send(&a, 1, MPI_INT64_T, 1, 63, comm));
    } else if (rank == 1) {
        OK(MPI_Probe(0, 61, comm, &st)); /* off the ring, into the queue */
        sync_(60);
        RECVS(mpigo_short_recvs, 0, 0, "Recv of a queued message",
              OK(MPI_Recv(&a, 1, MPI_INT64_T, 0, MPI_ANY_TAG, comm, &st)));
        status_is(&st, 0, 61, 8, "the queued message");
        RECVS(mpigo_short_recvs, 0, 1, "Recv after the queue emptied",
              OK(MPI_Recv(&b, 1, MPI_INT64_T, 0, MPI_ANY_TAG, comm, &st)));
        status_is(&st, 0, 63, 8, "the message after the queued one");
        CHECK(a == 61 && b == 63, "queued then ring on %s: %lld %lld", cname, (long long)a, (long long)b);
    }
    /* Truncation, then a message in C. */
    if (rank == 0) {
        int64_t two[2] = {71, 72};
        OK(MPI_Send(two, 2, MPI_INT64_T, 1, 70, comm));
        OK(MPI_Send(two, 1, MPI_INT64_T, 1, 70, comm));
    } else if (rank == 1) {
        OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
        RECVS(mpigo_short_recvs, 0, 0, "a truncated Recv",
              FAILS(MPI_Recv(&a, 1, MPI_INT64_T, 0, 70, comm, &st), MPI_ERR_TRUNCATE));
        CHECK(a == 71, "truncated on %s: %lld", cname, (long long)a);
        RECVS(mpigo_short_recvs, 0, 1, "Recv after a truncation", OK(MPI_Recv(&b, 1, MPI_INT64_T, 0, 70, comm, &st)));
        CHECK(b == 71, "after the truncation on %s: %lld", cname, (long long)b);
        OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
    }
    /* Small, large, small with one tag. */
    static unsigned char big[BIG];
    if (rank == 0) {
        a = 81, b = 83;
        fill(big, BIG, 82);
        OK(MPI_Send(&a, 1, MPI_INT64_T, 1, 80, comm));
        OK(MPI_Send(big, BIG, MPI_BYTE, 1, 80, comm));
        OK(MPI_Send(&b, 1, MPI_INT64_T, 1, 80, comm));
    } else if (rank == 1) {
        memset(big, 0, BIG);
        OK(MPI_Recv(big, BIG, MPI_BYTE, 0, 80, comm, &st));
        status_is(&st, 0, 80, 8, "the small before the large");
        CHECK(memcmp(big, &(int64_t){81}, 8) == 0, "the first of three on %s is not the small one", cname);
        OK(MPI_Recv(big, BIG, MPI_BYTE, 0, 80, comm, &st));
        status_is(&st, 0, 80, BIG, "the large");
        expect(big, BIG, 82, "the large");
        OK(MPI_Recv(&b, 1, MPI_INT64_T, 0, 80, comm, &st));
        CHECK(b == 83, "the small after the large on %s: %lld", cname, (long long)b);
    }
    /* A synchronous send. */
    if (rank == 0) {
        a = 91;
        OK(MPI_Ssend(&a, 1, MPI_INT64_T, 1, 90, comm));
    } else if (rank == 1) {
        RECVS(mpigo_short_recvs, 0, 0, "Recv of an Ssend", OK(MPI_Recv(&a, 1, MPI_INT64_T, 0, 90, comm, &st)));
        CHECK(a == 91, "Ssend on %s: %lld", cname, (long long)a);
    }
}

/* Two senders, comm ranks 0 and 2, to rank 1 with MPI_ANY_SOURCE (3 ranks). */
static void anysource(void) {
    if (nranks < 3) return;
    int64_t v[2];
    MPI_Status st;
    if (rank == 0 || rank == 2) {
        for (int i = 0; i < ANY; i++) {
            v[0] = rank, v[1] = i;
            OK(MPI_Send(v, 2, MPI_INT64_T, 1, 200 + i % 3, comm));
        }
    } else if (rank == 1) {
        int next[3] = {0, 0, 0};
        RECVS(mpigo_short_recvs, 0, 2 * ANY, "MPI_ANY_SOURCE", for (int i = 0; i < 2 * ANY; i++) {
            OK(MPI_Recv(v, 2, MPI_INT64_T, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
            int s = st.MPI_SOURCE;
            CHECK((s == 0 || s == 2) && v[0] == s, "MPI_ANY_SOURCE on %s: source %d, message from %lld", cname, s,
                  (long long)v[0]);
            CHECK(v[1] == next[s], "MPI_ANY_SOURCE on %s: from %d message %lld, want %d", cname, s, (long long)v[1],
                  next[s]);
            status_is(&st, s, 200 + next[s] % 3, 16, "MPI_ANY_SOURCE");
            next[s]++;
        });
    }
}

static void sendrecv(void) {
    int64_t out, in;
    MPI_Status st;
    int peer = rank == 0 ? 1 : 0;
    if (rank > 1) return;
    RECVS_SOME(mpigo_short_sendrecvs, ROUNDS, "MPI_Sendrecv", for (int i = 0; i < ROUNDS; i++) {
        out = 1000 * rank + i;
        st.MPI_ERROR = 4242;
        OK(MPI_Sendrecv(&out, 1, MPI_INT64_T, peer, 300 + rank, &in, 1, MPI_INT64_T, peer, MPI_ANY_TAG, comm, &st));
        CHECK(in == 1000 * peer + i, "Sendrecv on %s: got %lld in round %d", cname, (long long)in, i);
        CHECK(st.MPI_ERROR == 4242, "Sendrecv: MPI_ERROR changed to %d", st.MPI_ERROR);
        status_is(&st, peer, 300 + peer, 8, "Sendrecv");
    });
    /* MPI_Sendrecv_replace: the buffer sent, then replaced. */
    int64_t b2[2];
    RECVS_SOME(mpigo_short_sendrecvs, ROUNDS, "MPI_Sendrecv_replace", for (int i = 0; i < ROUNDS; i++) {
        b2[0] = 2000 * rank + i;
        b2[1] = -i;
        OK(MPI_Sendrecv_replace(b2, 2, MPI_INT64_T, peer, 330, peer, 330, comm, &st));
        CHECK(b2[0] == 2000 * peer + i && b2[1] == -i, "Sendrecv_replace on %s: got %lld %lld in round %d", cname,
              (long long)b2[0], (long long)b2[1], i);
        status_is(&st, peer, 330, 16, "Sendrecv_replace");
    });
    /* 16 KiB, beyond a message's eager range alone and within an exchange's
     * (p2p's exchEager): C sends it eagerly too. */
    static unsigned char xo[16384], xi[16384];
    RECVS_SOME(mpigo_short_sendrecvs, ROUNDS, "a 16 KiB MPI_Sendrecv", for (int i = 0; i < ROUNDS; i++) {
        fill(xo, sizeof xo, 7 * rank + i);
        OK(MPI_Sendrecv(xo, sizeof xo, MPI_BYTE, peer, 340, xi, sizeof xi, MPI_BYTE, peer, 340, comm, &st));
        expect(xi, sizeof xi, 7 * peer + i, "a 16 KiB Sendrecv");
        status_is(&st, peer, 340, sizeof xi, "a 16 KiB Sendrecv");
    });
    OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    /* The receive truncates; the send arrives whole. */
    int32_t small = 0;
    out = 5000 + rank;
    if (rank == 0) {
        RECVS(mpigo_short_sendrecvs, 0, 0, "a truncated Sendrecv",
              FAILS(MPI_Sendrecv(&out, 1, MPI_INT64_T, 1, 310, &small, 4, MPI_BYTE, 1, 310, comm, &st), MPI_ERR_TRUNCATE));
    } else {
        OK(MPI_Sendrecv(&out, 1, MPI_INT64_T, 0, 310, &in, 1, MPI_INT64_T, 0, 310, comm, &st));
        CHECK(in == 5000, "Sendrecv's send beside a truncation on %s: %lld", cname, (long long)in);
    }
    /* Overlapping buffers: an error before anything is sent. */
    int64_t both[2] = {0, 0};
    RECVS(mpigo_short_sendrecvs, 0, 0, "an overlapping Sendrecv",
          FAILS(MPI_Sendrecv(both, 2, MPI_INT64_T, peer, 320, both + 1, 1, MPI_INT64_T, peer, 320, comm, &st),
                MPI_ERR_BUFFER));
    OK(MPI_Sendrecv(&out, 1, MPI_INT64_T, peer, 321, &in, 1, MPI_INT64_T, peer, MPI_ANY_TAG, comm, &st));
    status_is(&st, peer, 321, 8, "the Sendrecv after an error");
    OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
}

static void sections(void) {
    pingpong();
    OK(MPI_Barrier(comm));
    sizes_();
    OK(MPI_Barrier(comm));
    mixed();
    OK(MPI_Barrier(comm));
    anysource();
    OK(MPI_Barrier(comm));
    sendrecv();
    OK(MPI_Barrier(comm));
}

int main(int argc, char **argv) {
    int provided, size, wrank;
    int multiple = argc > 1 && strcmp(argv[1], "multiple") == 0;
    none = argc > 1 && !multiple;
    OK(MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
    CHECK(size == 2 || size == 3, "run on 2 or 3 ranks, not %d", size);
    nranks = size;
    comm = MPI_COMM_WORLD, cname = "MPI_COMM_WORLD", rank = wrank;
    sections();
    MPI_Comm rev;
    OK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - wrank, &rev));
    comm = rev, cname = "a reversed split";
    OK(MPI_Comm_rank(rev, &rank));
    sections();
    OK(MPI_Comm_free(&rev));
    OK(MPI_Finalize());
    if (wrank == 0) printf("OK p2precv\n");
    return 0;
}
