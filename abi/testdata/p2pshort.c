/* p2pshort.c - MPI_Send's short way in C (abi/libmpi/p2pshort.c): a send of at most
 * 1 KiB on an intracommunicator to a node peer written into its ring without
 * crossing into Go, and every other send taken by Go, with the same data, order and
 * errors. Each section runs on MPI_COMM_WORLD, on a split of it whose ranks are the
 * world's reversed (so a rank's world rank is not its rank, and its context is its
 * own), and on a duplicate of the split. Rank 0 of the communicator sends to rank 1,
 * which checks what arrives, and that nothing arrives on MPI_COMM_WORLD instead;
 * mpigo_short_sends (the library's count of sends done in C) says which way each
 * took. With the argument "none" (the job over TCP) no send may take the short way;
 * with "multiple" the job runs at MPI_THREAD_MULTIPLE, where the short way takes the
 * engine's shared lock: the same cases, the same ways.
 *
 *   - every size from 0 to 40 bytes and some to 1023, of MPI_BYTE, and 1 to 4
 *     MPI_INT64_T: in C (but for the record's samples); 1024 bytes to the eager limit
 *     (16 KiB) in C as shm's copy chooser lets it, more, and 2049
 *     MPI_INT64_T, in Go; 400 sends of 33 to 1023 bytes through the data ring, which
 *     wraps;
 *   - a large Isend (a rendezvous) and then small Sends with the same tag: received
 *     in that order, the small ones in C;
 *   - a full ring: 3000 sends before the receiver receives any, in turn 8 and 100
 *     bytes (C while there is room) and 2000 (C or Go, as the chooser says), all in order, some of the small
 *     ones in Go; then a rendezvous, whose request may wait for room, and a small send;
 *   - packets waiting in the engine for room in the ring, and a small send once the
 *     ring has room again: in order (the short way must not overtake them);
 *   - a synchronous send, then small sends: in order;
 *   - to this rank itself, on an intercommunicator, of a derived datatype: Go;
 *   - errors (MPI_ERRORS_RETURN): a bad rank, a negative tag, a NULL buffer with a
 *     count, a bad datatype; and MPI_PROC_NULL and a NULL buffer with a count of 0,
 *     which succeed;
 *   - on a freed communicator's handle: MPI_ERR_COMM, from Go. */
#include "check.h"
#include <sched.h>
#include <stdint.h>
#include <string.h>

extern long mpigo_short_sends(void);

#define BIG (1 << 20)
#define FULL 3000
#define RING 16 /* the test runs with shm_ring_cells=16 */
#define STREAM 400

/* Sizes past a compact cell that the short way sends with ordinary stores (below
 * shm_nt_min, 1024 by default), sizes it sends as shm's copy chooser says (up to the
 * eager limit, 16 KiB by default), and sizes above the eager limit. */
static const int mid[] = {41, 63, 64, 65, 100, 128, 255, 512, 1000, 1023};
static const int chosen[] = {1024, 1025, 1100, 2000, 4096, 8191, 16384};
static const int big_[] = {16385, 20000, 65536};
#define NMID (int)(sizeof mid / sizeof mid[0])
#define NBIG (int)(sizeof big_ / sizeof big_[0])
#define NCHOSEN (int)(sizeof chosen / sizeof chosen[0])

static int rank, none;
static MPI_Comm comm; /* the communicator of the section running */
static const char *cname;

/* SENDS runs body on rank 0 and checks how many sends it did in C: none if max is
 * 0, else some and at most max. (The Go way takes a short one too when the record
 * times it, one call in about 64, and when it is the first to a peer, which connects.) */
#define SENDS(max, what, body)                                                          \
    do {                                                                                \
        long s0_ = mpigo_short_sends();                                                 \
        body;                                                                           \
        long d_ = mpigo_short_sends() - s0_, m_ = none ? 0 : (max);                     \
        CHECK(m_ == 0 ? d_ == 0 : d_ > 0 && d_ <= m_, "%s on %s: %ld sends in C, want %s %ld", \
              what, cname, d_, m_ ? "1 to" : "", m_);                                    \
    } while (0)

static void fill(unsigned char *b, int n, int seed) {
    for (int i = 0; i < n; i++) b[i] = (unsigned char)(seed * 31 + i * 7 + 1);
}

static void expect(const unsigned char *b, int n, int seed, const char *what) {
    for (int i = 0; i < n; i++)
        CHECK(b[i] == (unsigned char)(seed * 31 + i * 7 + 1), "%s: byte %d of %d is %d", what, i, n, b[i]);
}

/* arrive waits until a message from rank 0 with tag is there on comm, and checks
 * that none arrives on MPI_COMM_WORLD meanwhile (a send on another communicator that
 * took the world's context). */
static void arrive(int tag, const char *what) {
    int flag = 0;
    while (comm != MPI_COMM_WORLD) {
        OK(MPI_Iprobe(0, tag, comm, &flag, MPI_STATUS_IGNORE));
        if (flag) return;
        OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "%s on %s: a message arrived on MPI_COMM_WORLD", what, cname);
    }
}

static void recv_bytes(int n, int seed, int tag, const char *what) {
    static unsigned char b[65536 + 64];
    MPI_Status st;
    int count;
    memset(b, 0xee, sizeof b);
    arrive(tag, what);
    OK(MPI_Recv(b, sizeof b, MPI_BYTE, 0, tag, comm, &st));
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == n && st.MPI_SOURCE == 0 && st.MPI_TAG == tag, "%s on %s: count %d source %d tag %d, want %d 0 %d",
          what, cname, count, st.MPI_SOURCE, st.MPI_TAG, n, tag);
    expect(b, n, seed, what);
    CHECK(b[n] == 0xee, "%s: byte %d past the message written", what, n);
}

/* recv_big receives the rendezvous of seed with tag into big: whole, so no small
 * message sent after it overtook it. */
static void recv_big(unsigned char *big, int seed, int tag, const char *what) {
    MPI_Status st;
    int count;
    OK(MPI_Recv(big, BIG, MPI_BYTE, 0, tag, comm, &st));
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == BIG, "%s: the rendezvous's receive got %d bytes: a small send overtook it", what, count);
    expect(big, BIG, seed, what);
}

/* sections runs every section on comm, whose rank 0 sends to its rank 1. */
static void sections(MPI_Comm c, const char *name) {
    comm = c, cname = name;
    MPI_Comm_rank(comm, &rank);
    static unsigned char b[65536];

    /* Every size, of bytes and of 8-byte integers. */
    if (rank == 0) {
        SENDS(41, "0 to 40 bytes", {
            for (int n = 0; n <= 40; n++) {
                fill(b, n, n);
                OK(MPI_Send(b, n, MPI_BYTE, 1, n, comm));
            }
        });
        /* Those filled the ring of 16 cells, and the sends past it queued in Go, which
         * hides the ring from C until they have gone: the receiver takes them all first. */
        OK(MPI_Barrier(comm));
        SENDS(NMID, "41 to 1023 bytes", {
            for (int i = 0; i < NMID; i++) {
                fill(b, mid[i], mid[i]);
                OK(MPI_Send(b, mid[i], MPI_BYTE, 1, mid[i], comm));
            }
        });
        SENDS(NCHOSEN, "1024 bytes to the eager limit", {
            for (int i = 0; i < NCHOSEN; i++) {
                fill(b, chosen[i], chosen[i]);
                OK(MPI_Send(b, chosen[i], MPI_BYTE, 1, chosen[i], comm));
            }
        });
        SENDS(0, "above the eager limit", {
            for (int i = 0; i < NBIG; i++) {
                fill(b, big_[i], big_[i]);
                OK(MPI_Send(b, big_[i], MPI_BYTE, 1, big_[i], comm));
            }
        });
        SENDS(4, "1 to 4 int64", {
            for (int k = 1; k <= 4; k++) {
                fill(b, 8 * k, 100 + k);
                OK(MPI_Send_c(b, k, MPI_INT64_T, 1, 7, comm));
            }
        });
        SENDS(0, "2049 int64", {
            fill(b, 8 * 2049, 105);
            OK(MPI_Send_c(b, 2049, MPI_INT64_T, 1, 8, comm));
        });
        SENDS(STREAM, "a stream through the data ring", {
            for (int i = 0; i < STREAM; i++) {
                int n = 33 + (i * 97) % 991;
                fill(b, n, i);
                OK(MPI_Send(b, n, MPI_BYTE, 1, 9, comm));
            }
        });
    } else {
        for (int n = 0; n <= 40; n++) recv_bytes(n, n, n, "0 to 40 bytes");
        OK(MPI_Barrier(comm));
        for (int i = 0; i < NMID; i++) recv_bytes(mid[i], mid[i], mid[i], "41 to 1023 bytes");
        for (int i = 0; i < NCHOSEN; i++) recv_bytes(chosen[i], chosen[i], chosen[i], "1024 bytes to the eager limit");
        for (int i = 0; i < NBIG; i++) recv_bytes(big_[i], big_[i], big_[i], "above the eager limit");
        for (int k = 1; k <= 4; k++) {
            int64_t v[8];
            MPI_Status st;
            int count;
            OK(MPI_Recv(v, 8, MPI_INT64_T, 0, 7, comm, &st));
            MPI_Get_count(&st, MPI_INT64_T, &count);
            CHECK(count == k, "%d int64: received %d", k, count);
            expect((unsigned char *)v, 8 * k, 100 + k, "int64");
        }
        recv_bytes(8 * 2049, 105, 8, "2049 int64");
        for (int i = 0; i < STREAM; i++) recv_bytes(33 + (i * 97) % 991, i, 9, "a stream through the data ring");
    }

    /* A rendezvous, then small sends with the same tag: in order. */
    unsigned char *big = malloc(BIG);
    if (rank == 0) {
        MPI_Request r;
        fill(big, BIG, 5);
        OK(MPI_Isend(big, BIG, MPI_BYTE, 1, 11, comm, &r));
        SENDS(4, "small after a rendezvous", {
            for (int s = 6; s < 10; s++) {
                fill(b, 8, s);
                OK(MPI_Send(b, 8, MPI_BYTE, 1, 11, comm));
            }
        });
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        recv_big(big, 5, 11, "rendezvous");
        for (int s = 6; s < 10; s++) recv_bytes(8, s, 11, "small after a rendezvous");
    }

    /* A full ring: the receiver waits in a barrier until every send has started; then
     * a rendezvous and a small send, whose request to send may wait for room. */
    if (rank == 0) {
        long s0 = mpigo_short_sends();
        for (int i = 0; i < FULL; i++) {
            int n = i % 3 == 2 ? 2000 : i % 3 ? 100 : 8;
            fill(b, n, i);
            OK(MPI_Send(b, n, MPI_BYTE, 1, 12, comm));
        }
        long d = mpigo_short_sends() - s0;
        CHECK(none ? d == 0 : d > 0 && d < FULL, "full ring: %ld of %d sends in C, want some and not all", d, FULL);
        MPI_Request r;
        fill(big, BIG, 7);
        OK(MPI_Isend(big, BIG, MPI_BYTE, 1, 12, comm, &r));
        fill(b, 8, FULL);
        OK(MPI_Send(b, 8, MPI_BYTE, 1, 12, comm));
        OK(MPI_Barrier(comm));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        OK(MPI_Barrier(comm));
        for (int i = 0; i < FULL; i++) recv_bytes(i % 3 == 2 ? 2000 : i % 3 ? 100 : 8, i, 12, "full ring");
        recv_big(big, 7, 12, "rendezvous after the full ring");
        recv_bytes(8, FULL, 12, "small after the full ring's rendezvous");
    }

    /* A request to send waiting for room while the ring has room again: the rings
     * hold RING cells (the job's shm_ring_cells). Rank 0 fills the ring with
     * Isends (2*RING: the rest wait in the engine) and a rendezvous behind them, and
     * makes no MPI call while rank 1 takes the first RING/2 (fewer than the ring
     * holds: its receiver gives space back lazily) and with them every packet in the
     * ring: then a small send must not overtake the packets still waiting. The ranks signal each other through a shared
     * window, by plain loads and stores, outside MPI. */
    {
        MPI_Win w;
        volatile int *flags, *mine;
        MPI_Aint sz;
        int du;
        OK(MPI_Win_allocate_shared(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &mine, &w));
        OK(MPI_Win_shared_query(w, 0, &sz, &du, &flags));
        flags[rank] = 0;
        OK(MPI_Barrier(comm));
        MPI_Request r[2 * RING + 1];
        unsigned char small[2 * RING][8];
        if (rank == 0) {
            for (int i = 0; i < 2 * RING; i++) {
                fill(small[i], 8, 40 + i);
                OK(MPI_Isend(small[i], 8, MPI_BYTE, 1, 21, comm, &r[i]));
            }
            fill(big, BIG, 9);
            OK(MPI_Isend(big, BIG, MPI_BYTE, 1, 21, comm, &r[2 * RING]));
            __atomic_store_n(&flags[0], 1, __ATOMIC_RELEASE);
            while (!__atomic_load_n(&flags[1], __ATOMIC_ACQUIRE)) sched_yield();
            fill(b, 8, 10);
            OK(MPI_Send(b, 8, MPI_BYTE, 1, 21, comm));
            OK(MPI_Waitall(2 * RING + 1, r, MPI_STATUSES_IGNORE));
        } else {
            while (!__atomic_load_n(&flags[0], __ATOMIC_ACQUIRE)) sched_yield();
            for (int i = 0; i < RING / 2; i++) recv_bytes(8, 40 + i, 21, "a full ring's first");
            __atomic_store_n(&flags[1], 1, __ATOMIC_RELEASE);
            for (int i = RING / 2; i < 2 * RING; i++) recv_bytes(8, 40 + i, 21, "waiting for room");
            recv_big(big, 9, 21, "rendezvous behind a full ring");
            recv_bytes(8, 10, 21, "small after waiting packets");
        }
        OK(MPI_Barrier(comm));
        MPI_Win_free(&w);
    }

    /* A synchronous send, then small sends. */
    if (rank == 0) {
        fill(b, 8, 20);
        OK(MPI_Ssend(b, 8, MPI_BYTE, 1, 13, comm));
        SENDS(2, "after a synchronous send", {
            fill(b, 8, 21);
            OK(MPI_Send(b, 8, MPI_BYTE, 1, 13, comm));
            fill(b, 8, 22);
            OK(MPI_Send(b, 8, MPI_BYTE, 1, 13, comm));
        });
    } else {
        for (int s = 20; s <= 22; s++) recv_bytes(8, s, 13, "after a synchronous send");
    }

    /* Go's: to itself, on an intercommunicator (between the two ranks, each alone in
     * its local group), of a derived datatype. */
    MPI_Comm alone, inter;
    OK(MPI_Comm_split(comm, rank, 0, &alone));
    OK(MPI_Intercomm_create(alone, 0, comm, 1 - rank, 30, &inter));
    MPI_Datatype pair;
    OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    OK(MPI_Type_commit(&pair));
    if (rank == 0) {
        SENDS(0, "Go's sends", {
            MPI_Request r;
            fill(b, 8, 30);
            OK(MPI_Irecv(b + 32, 8, MPI_BYTE, 0, 14, comm, &r));
            OK(MPI_Send(b, 8, MPI_BYTE, 0, 14, comm));
            OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            expect(b + 32, 8, 30, "to itself");
            OK(MPI_Send(b, 8, MPI_BYTE, 0, 15, inter));
            OK(MPI_Send(b, 1, pair, 1, 16, comm));
        });
    } else {
        MPI_Status st;
        OK(MPI_Recv(b, 8, MPI_BYTE, 0, 15, inter, &st));
        expect(b, 8, 30, "on an intercommunicator");
        OK(MPI_Recv(b, 8, MPI_BYTE, 0, 16, comm, &st));
        expect(b, 8, 30, "of a derived datatype");
    }
    MPI_Type_free(&pair);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&alone);

    /* Errors, as the Go way reports them, and the calls that do nothing. */
    if (rank == 0) {
        SENDS(0, "errors", {
            FAILS(MPI_Send(b, 8, MPI_BYTE, 2, 1, comm), MPI_ERR_RANK);
            FAILS(MPI_Send(b, 8, MPI_BYTE, -7, 1, comm), MPI_ERR_RANK);
            FAILS(MPI_Send(b, 8, MPI_BYTE, 1, -5, comm), MPI_ERR_TAG);
            FAILS(MPI_Send(NULL, 8, MPI_BYTE, 1, 1, comm), MPI_ERR_BUFFER);
            FAILS(MPI_Send(b, 8, MPI_DATATYPE_NULL, 1, 1, comm), MPI_ERR_TYPE);
            FAILS(MPI_Send(b, -1, MPI_BYTE, 1, 1, comm), MPI_ERR_COUNT);
            OK(MPI_Send(b, 8, MPI_BYTE, MPI_PROC_NULL, 1, comm));
        });
        SENDS(1, "a NULL buffer of 0 items", OK(MPI_Send(NULL, 0, MPI_INT, 1, 17, comm)));
    } else {
        MPI_Status st;
        int count;
        OK(MPI_Recv(b, 8, MPI_BYTE, 0, 17, comm, &st));
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == 0, "empty message: %d bytes", count);
    }
    free(big);
}

int main(int argc, char **argv) {
    int provided, size, wrank, multiple = argc > 1 && strcmp(argv[1], "multiple") == 0;
    none = argc > 1 && strcmp(argv[1], "none") == 0;
    OK(MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "run on 2 ranks, not %d", size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    sections(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    MPI_Comm split, dup;
    OK(MPI_Comm_split(MPI_COMM_WORLD, 0, -wrank, &split));
    MPI_Comm_set_errhandler(split, MPI_ERRORS_RETURN);
    MPI_Comm_rank(split, &rank);
    CHECK(rank == 1 - wrank, "split: rank %d at world rank %d", rank, wrank);
    sections(split, "the reversed split");
    OK(MPI_Comm_dup(split, &dup));
    sections(dup, "the split's duplicate");

    /* A freed communicator's handle: the Go way's error. */
    MPI_Comm stale = dup;
    OK(MPI_Comm_free(&dup));
    if (rank == 0) {
        unsigned char b[8] = {0};
        cname = "a freed communicator";
        SENDS(0, "a stale handle", FAILS(MPI_Send(b, 8, MPI_BYTE, 1, 1, stale), MPI_ERR_COMM));
    }
    OK(MPI_Comm_free(&split));
    OK(MPI_Finalize());
    printf("OK p2pshort\n");
    return 0;
}
