/* collshort.c - the short collectives in C (abi/libmpi/collshort.c): MPI_Barrier,
 * MPI_Bcast of at most one ring chunk, MPI_Allreduce of at most 56 bytes with
 * MPI_SUM, MPI_PROD or a bitwise op, MPI_Reduce of at most 8368 bytes with those ops,
 * MPI_Gather and MPI_Gatherv of at most 8368 bytes per block and MPI_Allgather and MPI_Allgatherv of at most coll_shm_gather_max,
 * MPI_Scatter of at most coll_shm_scatter_max bytes of the root's buffer (MPI_Scatterv: its parts), MPI_Alltoall of at
 * most coll_shm_alltoall_max bytes of each rank's send buffer (MPI_Alltoallv: its block), run
 * on a communicator's node shared-memory region without crossing into Go, by the
 * protocol Go's calls use on the same counts, and every other call taken by Go;
 * mpigo_short_colls (the library's count of the calls done in C) says which way each
 * took. With the argument "none" (the job
 * over TCP, or with coll_shm=off) no call may take the C way; with "multiple" the job
 * runs at MPI_THREAD_MULTIPLE, where the same calls take it (counted atomically).
 *
 * On MPI_COMM_WORLD, a duplicate and a split of it:
 *   - Barriers that order a shared window's writes and reads (a Barrier that returns
 *     early shows a stale value);
 *   - Bcasts of 0 to 20000 bytes from every root, of MPI_BYTE, MPI_INT and MPI_DOUBLE,
 *     more than the ring's buffers (their reuse), the small ones in C, the large in Go;
 *   - Allreduces with every op the C way has on integers and floats, in place too,
 *     and with MPI_MAX, MPI_MINLOC, 64 bytes and a derived type (Go), their results
 *     checked exactly (floats sum values whose sums are exact);
 *   - Go collectives between them (MPI_Reduce and MPI_Allreduce with MPI_MAX), which run
 *     on the same counts: any disagreement hangs or gives wrong data;
 *   - errors (MPI_ERRORS_RETURN): a bad root, count, datatype, op, buffer; a Bcast
 *     whose ranks' lengths differ (MPI_ERR_TRUNCATE where a buffer is shorter, the
 *     message where it is longer), an Allreduce whose counts differ (MPI_ERR_COUNT on
 *     every rank); and the group in step afterwards;
 *   - empty Bcasts whose readers leave before their root calls (empties), and an empty
 *     buffer where the root sends bytes;
 *   - Reduce_scatter and Reduce_scatter_block (reducescatters: see there);
 *   - gathers (gathers, gather_errors: see there), scatters, scattervs, alltoalls and alltoallvs
 *     (see there);
 *   - Reduces (reduces: see there);
 *   - a freed communicator's handle, and a new one in its slot. */
#include "check.h"
#include <stdint.h>
#include <string.h>

extern long mpigo_short_colls(void);

static int none, cway; /* cway: the communicator under test may take the C way */
static int nt;         /* coll_shm_nt applies on this CPU: a whole ring chunk goes by Go */

/* IN_C runs body and checks how many calls it did in C: none if max is 0, in "none"
 * mode or on a communicator of one rank, else some and at most max (the record times one call in about 64, in
 * Go; a communicator's first collective makes its region, in Go). */
#define IN_C(max, what, ...)                                                             \
    do {                                                                                 \
        long s0_ = mpigo_short_colls();                                                  \
        __VA_ARGS__;                                                                     \
        long d_ = mpigo_short_colls() - s0_, m_ = cway ? (max) : 0;                      \
        CHECK(m_ == 0 ? d_ == 0 : d_ > 0 && d_ <= m_, "%s: %ld calls in C, want %s %ld", \
              what, d_, m_ ? "1 to" : "", m_);                                            \
    } while (0)

static unsigned char val(int root, int iter, int i) { return (unsigned char)(root * 37 + iter * 11 + i * 7 + 3); }

static void barriers(MPI_Comm comm, const char *name) {
    int rank, size, disp;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Win win;
    MPI_Aint sz;
    int *cell;
    OK(MPI_Win_allocate_shared(rank == 0 ? sizeof(int) : 0, sizeof(int), MPI_INFO_NULL, comm, &cell, &win));
    OK(MPI_Win_shared_query(win, 0, &sz, &disp, &cell));
    OK(MPI_Win_lock_all(0, win));
    OK(MPI_Barrier(comm));
    IN_C(2 * 300, name, {
        for (int i = 1; i <= 300; i++) {
            if (rank == i % size) *(volatile int *)cell = i;
            MPI_Win_sync(win);
            OK(MPI_Barrier(comm));
            MPI_Win_sync(win);
            CHECK(*(volatile int *)cell == i, "%s: Barrier %d: the cell holds %d", name, i, *(volatile int *)cell);
            OK(MPI_Barrier(comm));
        }
    });
    OK(MPI_Win_unlock_all(win));
    OK(MPI_Win_free(&win));
}

static void bcasts(MPI_Comm comm, const char *name) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static unsigned char b[20000];
    static const int sizes[] = {0, 1, 8, 48, 49, 100, 127, 128, 129, 1024, 2047, 4095}; /* around ring_copy's RING_MOVSB */
    int ns = (int)(sizeof sizes / sizeof sizes[0]);
    int calls = 0;
    IN_C(ns * 2 * size, name, {
        for (int it = 0; it < 2; it++)
            for (int k = 0; k < ns; k++)
                for (int root = 0; root < size; root++) {
                    int n = sizes[k];
                    for (int i = 0; i < n; i++) b[i] = rank == root ? val(root, it * ns + k, i) : 0;
                    b[n] = 0xee;
                    OK(MPI_Bcast(b, n, MPI_BYTE, root, comm));
                    for (int i = 0; i < n; i++)
                        CHECK(b[i] == val(root, it * ns + k, i), "%s: Bcast of %d from %d: byte %d is %d", name, n, root, i, b[i]);
                    CHECK(b[n] == 0xee, "%s: Bcast of %d wrote past its end", name, n);
                    calls++;
                }
    });
    /* Typed, and MPI_Bcast_c. */
    IN_C(3 * size, name, {
        for (int root = 0; root < size; root++) {
            int v[5];
            double d[3];
            for (int i = 0; i < 5; i++) v[i] = rank == root ? -1000 * root - i : 0;
            for (int i = 0; i < 3; i++) d[i] = rank == root ? 0.5 + root + i : 0;
            OK(MPI_Bcast(v, 5, MPI_INT, root, comm));
            OK(MPI_Bcast_c(d, 3, MPI_DOUBLE, root, comm));
            for (int i = 0; i < 5; i++) CHECK(v[i] == -1000 * root - i, "%s: MPI_INT Bcast: %d", name, v[i]);
            for (int i = 0; i < 3; i++) CHECK(d[i] == 0.5 + root + i, "%s: MPI_DOUBLE Bcast: %g", name, d[i]);
            OK(MPI_Bcast(NULL, 0, MPI_INT, root, comm));
        }
    });
    /* Up to a ring chunk (16 KiB) and below coll_shm_nt (16 KiB, where it applies: nt):
     * C, with ordinary stores; from there on, Go. */
    int whole = nt ? 12288 : 16384, longer = nt ? 16384 : whole + 1;
    IN_C((whole / 4096) * size, name, {
        for (int root = 0; root < size; root++)
            for (int n = 4096; n <= whole; n += 4096) {
                for (int i = 0; i < n; i++) b[i] = rank == root ? val(root, n, i) : 0;
                OK(MPI_Bcast(b, n, MPI_BYTE, root, comm));
                for (int i = 0; i < n; i++) CHECK(b[i] == val(root, n, i), "%s: Bcast of %d: byte %d", name, n, i);
            }
    });
    /* Longer: Go (non-temporal stores from 16 KiB where nt, pieces, other ways). */
    IN_C(0, name, {
        for (int root = 0; root < size; root++)
            for (int n = longer; n <= 20000; n += 20000 - longer) {
                for (int i = 0; i < n; i++) b[i] = rank == root ? val(root, n, i) : 0;
                OK(MPI_Bcast(b, n, MPI_BYTE, root, comm));
                for (int i = 0; i < n; i++) CHECK(b[i] == val(root, n, i), "%s: Bcast of %d: byte %d", name, n, i);
            }
    });
}

/* The values each rank contributes: exact in float and double, whose sums in any
 * order are then the same. */
static int64_t contrib(int rank, int i) { return (int64_t)(rank + 1) * 3 + i; }

static void allreduces(MPI_Comm comm, const char *name) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    IN_C(9 * 7, name, {
        for (int count = 1; count <= 7; count++) {
            int64_t a[7], r[7];
            int32_t ia[7], ir[7];
            double da[7], dr[7];
            float fa[7], fr[7];
            uint8_t ba[7], br[7];
            for (int i = 0; i < count; i++) {
                a[i] = contrib(rank, i), ia[i] = (int32_t)contrib(rank, i);
                da[i] = (double)contrib(rank, i) / 4, fa[i] = (float)contrib(rank, i) / 2;
                ba[i] = (uint8_t)(1u << ((rank + i) % 8));
            }
            int64_t sum[7], prod[7];
            uint8_t bor[7], band[7], bxor[7];
            for (int i = 0; i < count; i++) {
                sum[i] = 0, prod[i] = 1, bor[i] = 0, band[i] = 0xff, bxor[i] = 0;
                for (int q = 0; q < size; q++) {
                    sum[i] += contrib(q, i), prod[i] *= contrib(q, i);
                    uint8_t bq = (uint8_t)(1u << ((q + i) % 8));
                    bor[i] |= bq, band[i] &= bq, bxor[i] ^= bq;
                }
            }
            OK(MPI_Allreduce(a, r, count, MPI_INT64_T, MPI_SUM, comm));
            for (int i = 0; i < count; i++) CHECK(r[i] == sum[i], "%s: int64 sum %d: %lld", name, i, (long long)r[i]);
            OK(MPI_Allreduce_c(a, r, count, MPI_INT64_T, MPI_PROD, comm));
            for (int i = 0; i < count; i++) CHECK(r[i] == prod[i], "%s: int64 prod %d: %lld", name, i, (long long)r[i]);
            OK(MPI_Allreduce(ia, ir, count, MPI_INT32_T, MPI_SUM, comm));
            for (int i = 0; i < count; i++) CHECK(ir[i] == sum[i], "%s: int32 sum %d: %d", name, i, ir[i]);
            OK(MPI_Allreduce(da, dr, count, MPI_DOUBLE, MPI_SUM, comm));
            for (int i = 0; i < count; i++) CHECK(dr[i] == (double)sum[i] / 4, "%s: double sum %d: %g", name, i, dr[i]);
            OK(MPI_Allreduce(fa, fr, count, MPI_FLOAT, MPI_SUM, comm));
            for (int i = 0; i < count; i++) CHECK(fr[i] == (float)sum[i] / 2, "%s: float sum %d: %g", name, i, fr[i]);
            OK(MPI_Allreduce(ba, br, count, MPI_UINT8_T, MPI_BOR, comm));
            for (int i = 0; i < count; i++) CHECK(br[i] == bor[i], "%s: bor %d: %d", name, i, br[i]);
            OK(MPI_Allreduce(ba, br, count, MPI_UINT8_T, MPI_BAND, comm));
            for (int i = 0; i < count; i++) CHECK(br[i] == band[i], "%s: band %d: %d", name, i, br[i]);
            OK(MPI_Allreduce(ba, br, count, MPI_UINT8_T, MPI_BXOR, comm));
            for (int i = 0; i < count; i++) CHECK(br[i] == bxor[i], "%s: bxor %d: %d", name, i, br[i]);
            memcpy(r, a, sizeof a);
            OK(MPI_Allreduce(MPI_IN_PLACE, r, count, MPI_INT64_T, MPI_SUM, comm));
            for (int i = 0; i < count; i++) CHECK(r[i] == sum[i], "%s: in place %d: %lld", name, i, (long long)r[i]);
        }
    });
    /* Products that wrap, of 16-bit and signed 8-bit integers. */
    IN_C(2, name, {
        uint16_t h = (uint16_t)(300 + rank), hr, hw = 1;
        int8_t c = (int8_t)(-3 - rank), cr, cw = 1;
        for (int q = 0; q < size; q++) hw = (uint16_t)(hw * (uint32_t)(300 + q)), cw = (int8_t)(cw * (-3 - q));
        OK(MPI_Allreduce(&h, &hr, 1, MPI_UINT16_T, MPI_PROD, comm));
        CHECK(hr == hw, "%s: uint16 prod: %u, want %u", name, hr, hw);
        OK(MPI_Allreduce(&c, &cr, 1, MPI_INT8_T, MPI_PROD, comm));
        CHECK(cr == cw, "%s: int8 prod: %d, want %d", name, cr, cw);
    });
    /* Go: other ops, longer messages, derived types; and Go's Reduce on the same counts. */
    IN_C(0, name, {
        int64_t a[8], r[8];
        for (int i = 0; i < 8; i++) a[i] = contrib(rank, i);
        OK(MPI_Allreduce(a, r, 1, MPI_INT64_T, MPI_MAX, comm));
        CHECK(r[0] == contrib(size - 1, 0), "%s: max: %lld", name, (long long)r[0]);
        OK(MPI_Allreduce(a, r, 8, MPI_INT64_T, MPI_SUM, comm));
        CHECK(r[7] == (int64_t)size * (size + 1) / 2 * 3 + (int64_t)size * 7, "%s: 64 bytes: %lld", name, (long long)r[7]);
        struct { int v, i; } p = {rank % 2, rank}, pr;
        OK(MPI_Allreduce(&p, &pr, 1, MPI_2INT, MPI_MINLOC, comm));
        CHECK(pr.v == 0 && pr.i == 0, "%s: minloc: %d %d", name, pr.v, pr.i);
        MPI_Datatype two;
        OK(MPI_Type_contiguous(2, MPI_INT64_T, &two));
        OK(MPI_Type_commit(&two));
        OK(MPI_Allreduce(a, r, 1, two, MPI_SUM, comm));
        CHECK(r[1] == (int64_t)size * (size + 1) / 2 * 3 + size, "%s: derived: %lld", name, (long long)r[1]);
        OK(MPI_Type_free(&two));
        OK(MPI_Reduce(a, r, 1, MPI_INT64_T, MPI_MAX, size - 1, comm));
        if (rank == size - 1) CHECK(r[0] == contrib(size - 1, 0), "%s: reduce: %lld", name, (long long)r[0]);
    });
}

static void errors(MPI_Comm comm, const char *name) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    unsigned char b[64] = {0};
    int64_t a[2] = {1, 2}, r[2];
    IN_C(0, name, {
        FAILS(MPI_Bcast(b, 8, MPI_BYTE, size, comm), MPI_ERR_ROOT);
        FAILS(MPI_Bcast(b, 8, MPI_BYTE, -1, comm), MPI_ERR_ROOT);
        FAILS(MPI_Bcast(b, -1, MPI_BYTE, 0, comm), MPI_ERR_COUNT);
        FAILS(MPI_Bcast(b, 8, MPI_DATATYPE_NULL, 0, comm), MPI_ERR_TYPE);
        FAILS(MPI_Bcast(NULL, 8, MPI_BYTE, 0, comm), MPI_ERR_BUFFER);
        FAILS(MPI_Allreduce(a, r, 1, MPI_INT64_T, MPI_OP_NULL, comm), MPI_ERR_OP);
        FAILS(MPI_Allreduce(a, r, 1, MPI_BYTE, MPI_SUM, comm), MPI_ERR_OP);
        FAILS(MPI_Allreduce(a, r, -1, MPI_INT64_T, MPI_SUM, comm), MPI_ERR_COUNT);
        FAILS(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    });
    OK(MPI_Barrier(comm));
    /* Lengths that differ (erroneous): the C way begins, Go ends it with the error. */
    int n = rank == 0 ? 16 : 8;
    for (int i = 0; i < 16; i++) b[i] = rank == 0 ? (unsigned char)(i + 1) : 0;
    if (rank == 0) OK(MPI_Bcast(b, n, MPI_BYTE, 0, comm));
    else FAILS(MPI_Bcast(b, n, MPI_BYTE, 0, comm), MPI_ERR_TRUNCATE);
    for (int i = 0; i < 8; i++) CHECK(b[i] == i + 1, "%s: truncated Bcast: byte %d is %d", name, i, b[i]);
    n = rank == 0 ? 4 : 8;
    memset(b, 0, 16);
    if (rank == 0) for (int i = 0; i < 4; i++) b[i] = (unsigned char)(i + 9);
    OK(MPI_Bcast(b, n, MPI_BYTE, 0, comm)); /* a longer buffer gets the message */
    for (int i = 0; i < 4; i++) CHECK(b[i] == i + 9, "%s: short Bcast: byte %d is %d", name, i, b[i]);
    /* On the node's region every rank finds the count error; on the schedules (TCP,
     * coll_shm=off) a rank may find a truncated message instead. */
    int rc = MPI_Allreduce(a, r, rank == 0 ? 2 : 1, MPI_INT64_T, MPI_SUM, comm), cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COUNT || (!cway && size > 1 && cls == MPI_ERR_TRUNCATE) || (size == 1 && cls == MPI_SUCCESS),
          "%s: Allreduce of other counts: class %d", name, cls);
    /* The group is in step. */
    OK(MPI_Allreduce(a, r, 2, MPI_INT64_T, MPI_SUM, comm));
    CHECK(r[0] == size && r[1] == 2 * size, "%s: after the errors: %lld %lld", name, (long long)r[0], (long long)r[1]);
    OK(MPI_Barrier(comm));
}

/* between runs, after a round of empty Bcasts, another call: a Barrier, a Bcast of 8
 * bytes, an Allreduce, or a ring of point-to-point messages, by iteration. */
static void between(MPI_Comm comm, const char *name, int it) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    unsigned char b[8];
    int64_t a = rank + it, r = 0;
    int tok = rank, got = -1;
    switch (it % 4) {
    case 0: OK(MPI_Barrier(comm)); break;
    case 1:
        for (int i = 0; i < 8; i++) b[i] = rank == (it / 4) % size ? val(it, 1, i) : 0;
        OK(MPI_Bcast(b, 8, MPI_BYTE, (it / 4) % size, comm));
        for (int i = 0; i < 8; i++) CHECK(b[i] == val(it, 1, i), "%s: empties %d: Bcast byte %d", name, it, i);
        break;
    case 2:
        OK(MPI_Allreduce(&a, &r, 1, MPI_INT64_T, MPI_SUM, comm));
        CHECK(r == (int64_t)size * (size - 1) / 2 + (int64_t)size * it, "%s: empties %d: Allreduce %lld", name, it, (long long)r);
        break;
    default:
        OK(MPI_Sendrecv(&tok, 1, MPI_INT, (rank + 1) % size, 5, &got, 1, MPI_INT, (rank + size - 1) % size, 5, comm,
                        MPI_STATUS_IGNORE));
        CHECK(got == (rank + size - 1) % size, "%s: empties %d: Sendrecv got %d", name, it, got);
    }
}

/* AHEAD: with the C way, the readers of a Bcast with empty buffers (those for which
 * empty holds, nempty of them) leave before its root calls it: each sends the root a
 * message after its Bcast, which the root receives before its own (a reader that
 * waited for the root would hang); elsewhere (the schedules, where a reader waits) the
 * root goes first. */
#define AHEAD(comm, root, empty, nempty, reader, root_call)                                      \
    do {                                                                                         \
        int rank_, tok_ = 0;                                                                     \
        MPI_Comm_rank(comm, &rank_);                                                             \
        if (rank_ != (root)) {                                                                   \
            reader;                                                                              \
            if (cway && (empty)) OK(MPI_Send(&tok_, 1, MPI_INT, root, 7, comm));                 \
        } else {                                                                                 \
            if (cway)                                                                            \
                for (int j_ = 0; j_ < (nempty); j_++)                                            \
                    OK(MPI_Recv(&tok_, 1, MPI_INT, MPI_ANY_SOURCE, 7, comm, MPI_STATUS_IGNORE)); \
            root_call;                                                                           \
        }                                                                                        \
    } while (0)

/* Empty Bcasts (shmcoll's Owing): a reader's returns without waiting for its root
 * (AHEAD), one or two in a row, from rotating roots, between other calls; a root's
 * empty message into a longer buffer leaves it as it was; a reader's empty buffer
 * while the root sends bytes (erroneous) ends with MPI_ERR_TRUNCATE at that reader,
 * in the Bcast or in its next call, and a long message so stopped with MPI_ERR_COUNT
 * at the root and the other readers; the group in step after each. */
static void empties(MPI_Comm comm, const char *name) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size < 2) return;
    OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    IN_C(60 * 6, name, {
        for (int it = 0; it < 60; it++) {
            int root = it % size, k = 1 + it % 2;
            AHEAD(comm, root, 1, size - 1, for (int j = 0; j < k; j++) OK(MPI_Bcast(NULL, 0, MPI_BYTE, root, comm)),
                  for (int j = 0; j < k; j++) OK(MPI_Bcast(NULL, 0, MPI_INT, root, comm)));
            between(comm, name, it);
        }
    });
    unsigned char b[8] = {9, 9, 9, 9, 9, 9, 9, 9};
    OK(MPI_Bcast(b, rank == 0 ? 0 : 8, MPI_BYTE, 0, comm)); /* a root's empty message */
    CHECK(b[0] == 9 && b[7] == 9, "%s: an empty Bcast changed a reader's buffer", name);
    static unsigned char big[20000];
    for (int pass = 0; pass < 2; pass++) {
        int n = pass == 0 ? 8 : (int)sizeof big, rc = MPI_SUCCESS, rc2, cls = MPI_SUCCESS, cls2 = MPI_SUCCESS;
        AHEAD(comm, 0, rank == 1, 1, rc = MPI_Bcast(big, rank == 1 ? 0 : n, MPI_BYTE, 0, comm), rc = MPI_Bcast(big, n, MPI_BYTE, 0, comm));
        rc2 = MPI_Barrier(comm);
        MPI_Error_class(rc, &cls);
        MPI_Error_class(rc2, &cls2);
        if (rank == 1)
            CHECK((cls == MPI_ERR_TRUNCATE) != (cls2 == MPI_ERR_TRUNCATE) && (cls | cls2) == MPI_ERR_TRUNCATE,
                  "%s: empty buffer, %d bytes from the root: classes %d and %d", name, n, cls, cls2);
        else
            CHECK(cls2 == MPI_SUCCESS && (cls == MPI_SUCCESS || (n > 8 && cls == MPI_ERR_COUNT)) &&
                      (!cway || (cls == MPI_ERR_COUNT) == (n > 8)),
                  "%s: %d bytes, rank 1's buffer empty: classes %d and %d", name, n, cls, cls2);
        between(comm, name, 2);
    }
    OK(MPI_Barrier(comm));
}

static unsigned char gval(int from, int iter, int i) { return (unsigned char)(from * 29 + iter * 13 + i * 5 + 1); }

/* in_step checks that every rank of comm takes part in an Allreduce after a call
 * (named after) that failed on some: the group is in step. */
static void in_step(MPI_Comm comm, const char *name, const char *after) {
    int size;
    MPI_Comm_size(comm, &size);
    int64_t a = 1, t = 0;
    OK(MPI_Allreduce(&a, &t, 1, MPI_INT64_T, MPI_SUM, comm));
    CHECK(t == size, "%s: after %s: %lld", name, after, (long long)t);
}

/* checkb checks n bytes at p against gval(from, iter, ...). */
static void checkb(const char *name, const char *what, const unsigned char *p, int n, int from, int iter) {
    for (int i = 0; i < n; i++)
        CHECK(p[i] == gval(from, iter, i), "%s: %s %d: rank %d's byte %d is %d, want %d", name, what, iter, from, i, p[i],
              gval(from, iter, i));
}

/* Gathers (shmcoll's cells, inline lines and slots): MPI_Gather and MPI_Gatherv (and
 * its _c form) of 0 to 8368 bytes per block in C, from rotating roots, more than a
 * rank's 16 cells; longer blocks (a point-to-point message each, through Go) mixed
 * among them, one rank's alone; non-roots that leave before their root calls; in
 * place at the root;
 * MPI_Allgather and MPI_Allgatherv (and its _c form) in C (inline lines up to 56 bytes
 * per block, slots beyond), in place too; their data checked exactly. */
static void gathers(MPI_Comm comm, const char *name) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static unsigned char s[10000], r[8 * 10000];
    int counts[8], displs[8];
    IN_C(40 * 4, name, {
        for (int it = 0; it < 40; it++) {
            int root = it % size, m = (it * 7) % 113 + (it % 4 == 3 ? 8200 : 0); /* heads, extensions */
            for (int i = 0; i < m; i++) s[i] = gval(rank, it, i);
            memset(r, 0, sizeof r);
            OK(MPI_Gather(s, m, MPI_BYTE, r, m, MPI_BYTE, root, comm));
            if (rank == root)
                for (int j = 0; j < size; j++) checkb(name, "Gather", r + j * m, m, j, it);
            /* Gatherv: block j of (j + it) % 5 ints, laid out backwards with gaps. */
            int at = 0;
            for (int j = size - 1; j >= 0; j--) counts[j] = (j + it) % 5 * 7, displs[j] = at, at += counts[j] + 1;
            int mine = counts[rank];
            for (int i = 0; i < 4 * mine; i++) s[i] = gval(rank, it, i);
            memset(r, 0, sizeof r);
            if (rank == root && it % 3 == 0) {
                memcpy(r + 4 * displs[rank], s, 4 * mine);
                OK(MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, counts, displs, MPI_INT, root, comm));
            } else if (it % 2) {
                MPI_Count cc[8];
                MPI_Aint cd[8];
                for (int j = 0; j < size; j++) cc[j] = counts[j], cd[j] = displs[j];
                OK(MPI_Gatherv_c(s, mine, MPI_INT, r, cc, cd, MPI_INT, root, comm));
            } else {
                OK(MPI_Gatherv(s, mine, MPI_INT, r, counts, displs, MPI_INT, root, comm));
            }
            if (rank == root)
                for (int j = 0; j < size; j++) checkb(name, "Gatherv", r + 4 * displs[j], 4 * counts[j], j, it);
            /* Allgather of (it % 40) ints (inline lines, then slots), in place every third time. */
            int k = it % 40;
            for (int i = 0; i < 4 * k; i++) s[i] = gval(rank, it, i);
            memset(r, 0, sizeof r);
            if (it % 3 == 1) {
                memcpy(r + 4 * k * rank, s, 4 * k);
                OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, k, MPI_INT, comm));
            } else {
                OK(MPI_Allgather(s, k, MPI_INT, r, k, MPI_INT, comm));
            }
            for (int j = 0; j < size; j++) checkb(name, "Allgather", r + 4 * k * j, 4 * k, j, it);
            at = 0;
            for (int j = 0; j < size; j++) counts[j] = (j + it * 5) % 150, displs[j] = at, at += counts[j] + 3;
            for (int i = 0; i < counts[rank]; i++) s[i] = gval(rank, it, i);
            memset(r, 0, sizeof r);
            if (it % 2) {
                MPI_Count cc[8];
                MPI_Aint cd[8];
                for (int j = 0; j < size; j++) cc[j] = counts[j], cd[j] = displs[j];
                OK(MPI_Allgatherv_c(s, counts[rank], MPI_BYTE, r, cc, cd, MPI_BYTE, comm));
            } else {
                OK(MPI_Allgatherv(s, counts[rank], MPI_BYTE, r, counts, displs, MPI_BYTE, comm));
            }
            for (int j = 0; j < size; j++) checkb(name, "Allgatherv", r + displs[j], counts[j], j, it);
        }
    });
    /* Longer blocks: messages to the root, the cells between them; one rank's alone. */
    for (int it = 0; it < 24; it++) {
        int root = (it / 2) % size, m = it % 2 ? 8 : 9000;
        for (int i = 0; i < m; i++) s[i] = gval(rank, it, i);
        memset(r, 0, sizeof r);
        OK(MPI_Gather(s, m, MPI_BYTE, r, m, MPI_BYTE, root, comm));
        if (rank == root)
            for (int j = 0; j < size; j++) checkb(name, "long Gather", r + j * m, m, j, it);
        int at = 0;
        for (int j = 0; j < size; j++) counts[j] = j == (it + 1) % size ? 9000 : j % 3 * 20, displs[j] = at, at += counts[j];
        for (int i = 0; i < counts[rank]; i++) s[i] = gval(rank, it, i);
        memset(r, 0, sizeof r);
        OK(MPI_Gatherv(s, counts[rank], MPI_BYTE, r, counts, displs, MPI_BYTE, root, comm));
        if (rank == root)
            for (int j = 0; j < size; j++) checkb(name, "long Gatherv", r + displs[j], counts[j], j, it);
        int k = it % 2 ? 20 : 100;
        for (int i = 0; i < 4 * k; i++) s[i] = gval(rank, it, i);
        OK(MPI_Allgather(s, k, MPI_INT, r, k, MPI_INT, comm));
        for (int j = 0; j < size; j++) checkb(name, "long Allgather", r + 4 * k * j, 4 * k, j, it);
    }
    /* Non-roots leave before their root calls: each sends the root a message after
     * ten Gathers (fewer than its cells), which the root receives before its own. */
    if (size > 1) {
        int tok = 0;
        if (rank != 0) {
            for (int it = 0; it < 10; it++) {
                for (int i = 0; i < 8; i++) s[i] = gval(rank, it, i);
                OK(MPI_Gather(s, 8, MPI_BYTE, NULL, 0, MPI_DATATYPE_NULL, 0, comm));
            }
            OK(MPI_Send(&tok, 1, MPI_INT, 0, 9, comm));
        } else {
            for (int j = 1; j < size; j++) OK(MPI_Recv(&tok, 1, MPI_INT, MPI_ANY_SOURCE, 9, comm, MPI_STATUS_IGNORE));
            for (int it = 0; it < 10; it++) {
                for (int i = 0; i < 8; i++) s[i] = gval(rank, it, i);
                OK(MPI_Gather(s, 8, MPI_BYTE, r, 8, MPI_BYTE, 0, comm));
                for (int j = 0; j < size; j++) checkb(name, "early Gather", r + 8 * j, 8, j, it);
            }
        }
    }
    OK(MPI_Barrier(comm));
}

/* gather_errors: blocks whose lengths differ from the root's (erroneous): shorter,
 * MPI_ERR_COUNT at the root; longer, MPI_ERR_TRUNCATE with what fits kept, from a
 * cell and from a message; an Allgather whose counts differ, an error where a rank
 * sees it; the group in step after each. */
static void gather_errors(MPI_Comm comm, const char *name) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size < 2) return;
    OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    static unsigned char s[10000], r[8 * 4096];
    int sends[4] = {8, 24, 300, 9000}, cls;
    for (int c = 0; c < 4; c++) {
        int m = rank == 1 ? sends[c] : 16;
        for (int i = 0; i < m; i++) s[i] = gval(rank, c, i);
        memset(r, 0, sizeof r);
        int rc = MPI_Gather(s, m, MPI_BYTE, r, 16, MPI_BYTE, 0, comm);
        MPI_Error_class(rc, &cls);
        if (rank == 0) {
            CHECK(cls == (sends[c] < 16 ? MPI_ERR_COUNT : MPI_ERR_TRUNCATE), "%s: Gather, rank 1 sends %d: class %d", name,
                  sends[c], cls);
            checkb(name, "mismatched Gather", r + 16, sends[c] < 16 ? sends[c] : 16, 1, c);
            for (int j = 2; j < size; j++) checkb(name, "mismatched Gather", r + 16 * j, 16, j, c);
        } else {
            CHECK(cls == MPI_SUCCESS, "%s: Gather, a sender's class %d", name, cls);
        }
        in_step(comm, name, "a mismatched Gather");
    }
    /* Rank 0's blocks longer: in an inline line, in its slot, too long for the region
     * (it takes the schedules, the others find it there and join them; not on 4 ranks,
     * where rank 0's total is beyond the schedules' switch of algorithm at 64 KiB and
     * the others' below, and the schedules' ranks would wait for each other). */
    static int sbig[5000], rbig[8 * 5000];
    for (int c = 0; c < (size < 4 ? 3 : 2); c++) {
        int k = rank == 0 ? (c == 2 ? 5000 : c ? 20 : 2) : (c == 2 ? 10 : c ? 10 : 1);
        int rc = MPI_Allgather(sbig, k, MPI_INT, rbig, k, MPI_INT, comm);
        MPI_Error_class(rc, &cls);
        CHECK(rank == 0 ? cls == MPI_ERR_COUNT || ((!cway || c == 2) && cls == MPI_ERR_TRUNCATE)
                        : (cls == MPI_ERR_COUNT || cls == MPI_ERR_TRUNCATE || (!cway && cls == MPI_SUCCESS)),
              "%s: Allgather of other counts (%d): class %d", name, c, cls);
        OK(MPI_Barrier(comm));
        in_step(comm, name, "a mismatched Allgather");
    }
}

/* scatters: MPI_Scatter (and its _c form) of 0 to 16 KiB of the root's buffer in C
 * (inline lines up to 56 bytes, slots beyond), from rotating roots, in place at the
 * root every third time, of MPI_BYTE and MPI_INT; longer ones (the root's length
 * alone, far: every rank then takes the schedules, the non-roots by joining them in
 * Go) among them; parts shorter or longer than the root's (erroneous): MPI_ERR_COUNT
 * or MPI_ERR_TRUNCATE with what fits kept at that rank, the group in step after. */
static void scatters(MPI_Comm comm, const char *name) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static unsigned char s[8 * 9000], r[17000];
    IN_C(30, name, {
        for (int it = 0; it < 30; it++) {
            int root = it % size, m = it % 2 ? (it * 13) % 12 : (it * 37) % (16384 / size / 4 + 1) * 4;
            if (rank == root)
                for (int j = 0; j < size; j++)
                    for (int i = 0; i < m; i++) s[j * m + i] = gval(j, it, i);
            memset(r, 0, sizeof r);
            if (rank == root && it % 3 == 0) {
                OK(MPI_Scatter(s, m, MPI_BYTE, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, comm));
                checkb(name, "Scatter in place", s + rank * m, m, rank, it);
            } else if (it % 4 == 1) {
                OK(MPI_Scatter_c(s, m, MPI_BYTE, r, m, MPI_BYTE, root, comm));
                checkb(name, "Scatter_c", r, m, rank, it);
            } else if (m % 4 == 0) {
                OK(MPI_Scatter(s, m / 4, MPI_INT, r, m / 4, MPI_INT, root, comm));
                checkb(name, "Scatter of ints", r, m, rank, it);
            } else {
                OK(MPI_Scatter(s, m, MPI_BYTE, r, m, MPI_BYTE, root, comm));
                checkb(name, "Scatter", r, m, rank, it);
            }
        }
    });
    /* Beyond the region's limit the root takes the schedules; the others find it far. */
    for (int it = 0; it < 6; it++) {
        int root = it % size, m = it % 2 ? 16 : 9000;
        if (rank == root)
            for (int j = 0; j < size; j++)
                for (int i = 0; i < m; i++) s[j * m + i] = gval(j, it, i);
        memset(r, 0, sizeof r);
        OK(MPI_Scatter(s, m, MPI_BYTE, r, m, MPI_BYTE, root, comm));
        checkb(name, "long Scatter", r, m, rank, it);
    }
    if (size < 2) return;
    OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    int wants[2] = {8, 24}, cls;
    for (int c = 0; c < 2; c++) {
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 16; i++) s[j * 16 + i] = gval(j, c, i);
        memset(r, 0, sizeof r);
        int want = rank == 1 ? wants[c] : 16;
        int rc = MPI_Scatter(s, 16, MPI_BYTE, r, want, MPI_BYTE, 0, comm);
        MPI_Error_class(rc, &cls);
        if (rank == 1 && cway) {
            CHECK(cls == (wants[c] < 16 ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT), "%s: Scatter, rank 1 wants %d: class %d",
                  name, wants[c], cls);
            checkb(name, "mismatched Scatter", r, wants[c] < 16 ? wants[c] : 16, 1, c);
        } else if (rank != 1) {
            CHECK(cls == MPI_SUCCESS, "%s: Scatter, rank %d's class %d", name, rank, cls);
        }
        in_step(comm, name, "a mismatched Scatter");
    }
}

/* alltoalls: MPI_Alltoall (and its _c form) of 0 to 8 KiB of each rank's send buffer
 * in C (inline lines up to 56 bytes, slots beyond), in place every third time, of
 * MPI_BYTE and MPI_INT; longer ones (every rank's length alone, far: every rank then
 * takes the schedules, by joining them in Go) among them; and one rank's parts shorter
 * or longer than the others' (erroneous): MPI_ERR_COUNT or MPI_ERR_TRUNCATE with what
 * fits kept at a rank whose receive block differs from a part that came, the group in
 * step after. Block j of rank q's send buffer is gval(q * size + j, it, ...). */
static void alltoalls(MPI_Comm comm, const char *name) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static unsigned char s[8 * 5000], r[8 * 5000];
#define FILL_A2A(m)                                                                     \
    for (int j = 0; j < size; j++)                                                      \
        for (int i = 0; i < (m); i++) s[j * (m) + i] = gval(rank * size + j, it, i)
#define CHECK_A2A(what, p, m)                                                           \
    for (int j = 0; j < size; j++) checkb(name, what, (p) + j * (m), (m), j * size + rank, it)
    IN_C(30, name, {
        for (int it = 0; it < 30; it++) {
            int m = it % 2 ? (it * 13) % 12 : (it * 37) % (8192 / size / 4 + 1) * 4;
            FILL_A2A(m);
            memset(r, 0, sizeof r);
            if (it % 3 == 0) {
                memcpy(r, s, (size_t)(size * m));
                OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, m, MPI_BYTE, comm));
                CHECK_A2A("Alltoall in place", r, m);
            } else if (it % 4 == 1) {
                OK(MPI_Alltoall_c(s, m, MPI_BYTE, r, m, MPI_BYTE, comm));
                CHECK_A2A("Alltoall_c", r, m);
            } else if (m % 4 == 0) {
                OK(MPI_Alltoall(s, m / 4, MPI_INT, r, m / 4, MPI_INT, comm));
                CHECK_A2A("Alltoall of ints", r, m);
            } else {
                OK(MPI_Alltoall(s, m, MPI_BYTE, r, m, MPI_BYTE, comm));
                CHECK_A2A("Alltoall", r, m);
            }
        }
    });
    /* Beyond the region's limit every rank takes the schedules: in Go, with its length
     * alone in the region, where the rank's own buffer is too long; else by joining. */
    for (int it = 0; it < 6; it++) {
        int m = it % 2 ? 16 : 5000;
        FILL_A2A(m);
        memset(r, 0, sizeof r);
        OK(MPI_Alltoall(s, m, MPI_BYTE, r, m, MPI_BYTE, comm));
        CHECK_A2A("long Alltoall", r, m);
    }
#undef FILL_A2A
#undef CHECK_A2A
    if (size < 2) return;
    OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    int parts[2] = {8, 24}, cls;
    for (int c = 0; c < 2; c++) {
        /* Rank 1 sends parts[c] bytes to each rank, the others 16, and every rank
         * receives 16 from each. */
        int k = rank == 1 ? parts[c] : 16;
        for (int i = 0; i < size * k; i++) s[i] = (unsigned char)(rank * 31 + i);
        memset(r, 0, sizeof r);
        int rc = MPI_Alltoall(s, k, MPI_BYTE, r, 16, MPI_BYTE, comm);
        MPI_Error_class(rc, &cls);
        if (cway) {
            CHECK(cls == (parts[c] < 16 ? MPI_ERR_COUNT : MPI_ERR_TRUNCATE),
                  "%s: Alltoall, rank 1 sends %d of 16: rank %d's class %d", name, parts[c], rank, cls);
            int got = parts[c] < 16 ? parts[c] : 16;
            for (int i = 0; i < got; i++)
                CHECK(r[16 + i] == (unsigned char)(31 + rank * parts[c] + i),
                      "%s: mismatched Alltoall: rank 1's byte %d is %d", name, i, r[16 + i]);
        }
        in_step(comm, name, "a mismatched Alltoall");
    }
}

/* vlayout is a v form's counts laid out one after the other with a gap of 4 bytes,
 * as int and as the _c forms' types (v_place fills in all but counts). */
typedef struct {
    int counts[8], displs[8], at;
    MPI_Count ccounts[8];
    MPI_Aint cdispls[8];
} vlayout;

static void v_place(vlayout *l, int size) {
    l->at = 0;
    for (int j = 0; j < size; j++) {
        l->displs[j] = l->at;
        l->at += l->counts[j] + 4;
        l->ccounts[j] = l->counts[j], l->cdispls[j] = l->displs[j];
    }
}

/* alltoallvs: MPI_Alltoallv (and its _c form) of blocks of 0 to 40 bytes between each
 * pair (alike both ways), laid out with gaps that must stay untouched, in C; in place
 * every third time; of MPI_INT when whole; every fifth call's blocks up to 150 times
 * longer, past coll_shm_alltoall_max on some ranks or all (far: every rank then takes
 * the schedules, its receive buffer untouched before); one rank's part to another longer
 * or shorter than the receiver's block (erroneous): MPI_ERR_COUNT or MPI_ERR_TRUNCATE
 * at that receiver, the group in step after. */
static void alltoallvs(MPI_Comm comm, const char *name) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static unsigned char s[32768], r[32768];
    vlayout l;
    int *counts = l.counts, *displs = l.displs;
    long in_c = 0;
    for (int it = 0; it < 40; it++) {
        int unit = it % 5 == 4 ? 150 : 1, ints = it % 2 == 0 && unit == 1;
        for (int j = 0; j < size; j++) counts[j] = ((rank + j) * 3 + it) % 41 * unit * (ints ? 4 : 1);
        v_place(&l, size);
        int at = l.at;
        for (int j = 0; j < size; j++)
            for (int i = 0; i < counts[j]; i++) s[displs[j] + i] = gval(rank * size + j, it, i);
        memset(r, 0, sizeof r);
        long c0 = mpigo_short_colls();
        if (it % 3 == 0) {
            memcpy(r, s, (size_t)at);
            OK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r, counts, displs, MPI_BYTE, comm));
        } else if (it % 4 == 1) {
            OK(MPI_Alltoallv_c(s, l.ccounts, l.cdispls, MPI_BYTE, r, l.ccounts, l.cdispls, MPI_BYTE, comm));
        } else if (ints) {
            int ic[8], id[8];
            for (int j = 0; j < size; j++) ic[j] = counts[j] / 4, id[j] = displs[j] / 4;
            OK(MPI_Alltoallv(s, ic, id, MPI_INT, r, ic, id, MPI_INT, comm));
        } else {
            OK(MPI_Alltoallv(s, counts, displs, MPI_BYTE, r, counts, displs, MPI_BYTE, comm));
        }
        in_c += mpigo_short_colls() - c0;
        for (int j = 0; j < size; j++) {
            checkb(name, "Alltoallv", r + displs[j], counts[j], j * size + rank, it);
            if (it % 3 != 0)
                for (int i = 0; i < 4; i++)
                    CHECK(r[displs[j] + counts[j] + i] == 0, "%s: Alltoallv %d: the gap after rank %d's block holds %d",
                          name, it, j, r[displs[j] + counts[j] + i]);
        }
    }
    CHECK(cway ? in_c > 0 && in_c <= 40 : in_c == 0, "%s: Alltoallv: %ld calls in C", name, in_c);
    if (size < 2) return;
    OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    int sends[2] = {8, 24}, cls;
    for (int c = 0; c < 2; c++) {
        /* Rank 1 sends sends[c] bytes to rank 0, 16 elsewhere; every rank receives 16. */
        for (int j = 0; j < size; j++) counts[j] = rank == 1 && j == 0 ? sends[c] : 16, displs[j] = 32 * j;
        int rc16[8], rd[8];
        for (int j = 0; j < size; j++) rc16[j] = 16, rd[j] = 32 * j;
        for (int i = 0; i < 32 * size; i++) s[i] = (unsigned char)(rank * 31 + i);
        memset(r, 0, sizeof r);
        int rc = MPI_Alltoallv(s, counts, displs, MPI_BYTE, r, rc16, rd, MPI_BYTE, comm);
        MPI_Error_class(rc, &cls);
        if (rank == 0 && cway) {
            CHECK(cls == (sends[c] < 16 ? MPI_ERR_COUNT : MPI_ERR_TRUNCATE), "%s: Alltoallv, rank 1 sends %d of 16: class %d",
                  name, sends[c], cls);
            int got = sends[c] < 16 ? sends[c] : 16;
            for (int i = 0; i < got; i++)
                CHECK(r[32 + i] == (unsigned char)(31 + i), "%s: mismatched Alltoallv: rank 1's byte %d is %d", name, i,
                      r[32 + i]);
        } else if (rank != 0) {
            CHECK(cls == MPI_SUCCESS, "%s: Alltoallv, rank %d's class %d", name, rank, cls);
        }
        in_step(comm, name, "a mismatched Alltoallv");
    }
}

/* scattervs: MPI_Scatterv (and its _c form) from rotating roots of parts of 0 to 40
 * bytes laid out with gaps, in C; in place at the root every third time; of MPI_INT
 * when whole; every fifth call's parts up to 450 times longer, some past
 * coll_shm_scatter_max (far: every rank then takes the schedules, the non-roots by
 * joining them in Go); a rank's part longer or shorter than the root's (erroneous):
 * MPI_ERR_COUNT or MPI_ERR_TRUNCATE at that rank, what fits kept, the group in step
 * after. */
static void scattervs(MPI_Comm comm, const char *name) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static unsigned char s[8 * 20000], r[20000];
    vlayout l;
    int *counts = l.counts, *displs = l.displs;
    long in_c = 0;
    for (int it = 0; it < 40; it++) {
        int root = it % size, unit = it % 5 == 4 ? 450 : 1, ints = it % 2 == 0 && unit == 1;
        for (int j = 0; j < size; j++) counts[j] = (j * 7 + it) % 41 * unit * (ints ? 4 : 1);
        v_place(&l, size);
        if (rank == root)
            for (int j = 0; j < size; j++)
                for (int i = 0; i < counts[j]; i++) s[displs[j] + i] = gval(j, it, i);
        memset(r, 0, sizeof r);
        int m = counts[rank];
        long c0 = mpigo_short_colls();
        if (rank == root && it % 3 == 0) {
            OK(MPI_Scatterv(s, counts, displs, MPI_BYTE, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, comm));
            memcpy(r, s + displs[rank], (size_t)m);
        } else if (it % 4 == 1) {
            OK(MPI_Scatterv_c(s, l.ccounts, l.cdispls, MPI_BYTE, r, m, MPI_BYTE, root, comm));
        } else if (ints) {
            int ic[8], id[8];
            for (int j = 0; j < size; j++) ic[j] = counts[j] / 4, id[j] = displs[j] / 4;
            OK(MPI_Scatterv(s, ic, id, MPI_INT, r, m / 4, MPI_INT, root, comm));
        } else {
            OK(MPI_Scatterv(s, counts, displs, MPI_BYTE, r, m, MPI_BYTE, root, comm));
        }
        in_c += mpigo_short_colls() - c0;
        checkb(name, "Scatterv", r, m, rank, it);
        for (int i = 0; i < 4; i++)
            CHECK(r[m + i] == 0, "%s: Scatterv %d: byte %d after the part holds %d", name, it, i, r[m + i]);
    }
    CHECK(cway ? in_c > 0 && in_c <= 40 : in_c == 0, "%s: Scatterv: %ld calls in C", name, in_c);
    if (size < 2) return;
    OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    int wants[2] = {8, 24}, cls;
    for (int c = 0; c < 2; c++) {
        for (int j = 0; j < size; j++) counts[j] = 16, displs[j] = 16 * j;
        for (int i = 0; i < 16 * size; i++) s[i] = gval(i / 16, c, i % 16);
        memset(r, 0, sizeof r);
        int want = rank == 1 ? wants[c] : 16;
        int rc = MPI_Scatterv(s, counts, displs, MPI_BYTE, r, want, MPI_BYTE, 0, comm);
        MPI_Error_class(rc, &cls);
        if (rank == 1 && cway) {
            CHECK(cls == (wants[c] < 16 ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT), "%s: Scatterv, rank 1 wants %d: class %d",
                  name, wants[c], cls);
            checkb(name, "mismatched Scatterv", r, wants[c] < 16 ? wants[c] : 16, 1, c);
        } else if (rank != 1) {
            CHECK(cls == MPI_SUCCESS, "%s: Scatterv, rank %d's class %d", name, rank, cls);
        }
        in_step(comm, name, "a mismatched Scatterv");
    }
}

/* rval is element i of rank q's contribution to Reduce it: small, so that sums and
 * products of doubles are exact. */
static int64_t rval(int q, int it, int i) { return (q * 7 + it * 3 + i * 11) % 5 + 1; }

/* reduces: MPI_Reduce of at most a cell (8368 bytes) of a predefined datatype with an
 * op the C way has, from rotating roots: in C, over the cells' heads and extensions,
 * in place at the root, the _c form; Go's Reduces between them on the same cells
 * (MPI_MAX, a derived type, longer than a cell); non-roots that leave before their
 * root calls; counts that differ (erroneous): MPI_ERR_COUNT at the root (in C, or in
 * Go where a rank's contribution is longer than a cell), at a rank whose longer
 * contribution waited for the root's verdict (3 ranks or more); the group in step
 * after each. */
static void reduces(MPI_Comm comm, const char *name) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static int64_t a[1100], r[1100];
    static double da[1100], dr[1100];
    static int32_t ia[2200], ir[2200];
    IN_C(40 * 3, name, {
        for (int it = 0; it < 40; it++) {
            int root = (it * 3) % size, count = (it * 37) % 1047; /* up to 8368 bytes */
            for (int i = 0; i < count; i++) a[i] = rval(rank, it, i), da[i] = (double)rval(rank, it, i), ia[2 * i] = ia[2 * i + 1] = (int32_t)rval(rank, it, i) << (rank % 8);
            memset(r, 0, sizeof r);
            if (rank == root && it % 3 == 0) {
                memcpy(r, a, sizeof(int64_t) * count);
                OK(MPI_Reduce(MPI_IN_PLACE, r, count, MPI_INT64_T, MPI_SUM, root, comm));
            } else if (it % 2) {
                OK(MPI_Reduce_c(a, r, count, MPI_INT64_T, MPI_SUM, root, comm));
            } else {
                OK(MPI_Reduce(a, r, count, MPI_INT64_T, MPI_SUM, root, comm));
            }
            OK(MPI_Reduce(da, dr, count, MPI_DOUBLE, MPI_PROD, root, comm));
            OK(MPI_Reduce(ia, ir, 2 * count, MPI_INT32_T, MPI_BXOR, root, comm));
            if (rank != root) continue;
            for (int i = 0; i < count; i++) {
                int64_t sum = 0, x = 0;
                double prod = 1;
                for (int q = 0; q < size; q++) sum += rval(q, it, i), prod *= (double)rval(q, it, i), x ^= rval(q, it, i) << (q % 8);
                CHECK(r[i] == sum, "%s: Reduce %d of %d to %d: element %d is %lld, want %lld", name, it, count, root, i,
                      (long long)r[i], (long long)sum);
                CHECK(dr[i] == prod, "%s: Reduce %d (prod) element %d is %g, want %g", name, it, i, dr[i], prod);
                CHECK(ir[2 * i] == (int32_t)x && ir[2 * i + 1] == (int32_t)x, "%s: Reduce %d (bxor) element %d", name, it, i);
            }
        }
    });
    /* Go's Reduces on the same cells: another op, a derived type, longer than a cell. */
    IN_C(0, name, {
        for (int it = 0; it < 6; it++) {
            int root = it % size;
            MPI_Datatype two;
            OK(MPI_Type_contiguous(2, MPI_INT64_T, &two));
            OK(MPI_Type_commit(&two));
            for (int i = 0; i < 1100; i++) a[i] = rval(rank, it, i);
            OK(MPI_Reduce(a, r, 3, MPI_INT64_T, MPI_MAX, root, comm));
            OK(MPI_Reduce(a, r + 3, 2, two, MPI_SUM, root, comm));
            OK(MPI_Type_free(&two));
            if (rank == root)
                for (int i = 0; i < 7; i++) {
                    int64_t want = 0;
                    for (int q = 0; q < size; q++) want = i < 3 ? (rval(q, it, i) > want ? rval(q, it, i) : want) : want + rval(q, it, i - 3);
                    CHECK(r[i] == want, "%s: Go's Reduce %d element %d: %lld, want %lld", name, it, i, (long long)r[i], (long long)want);
                }
            OK(MPI_Reduce(a, r, 1100, MPI_INT64_T, MPI_SUM, root, comm));
            if (rank == root)
                for (int i = 0; i < 1100; i++) {
                    int64_t want = 0;
                    for (int q = 0; q < size; q++) want += rval(q, it, i);
                    CHECK(r[i] == want, "%s: a long Reduce %d element %d: %lld, want %lld", name, it, i, (long long)r[i], (long long)want);
                }
        }
    });
    /* Non-roots leave before their root calls (fewer Reduces than cells). */
    if (size > 1) {
        int tok = 0;
        if (rank != 0) {
            for (int it = 0; it < 10; it++) {
                a[0] = rval(rank, it, 0);
                OK(MPI_Reduce(a, NULL, 1, MPI_INT64_T, MPI_SUM, 0, comm));
            }
            OK(MPI_Send(&tok, 1, MPI_INT, 0, 9, comm));
        } else {
            for (int j = 1; j < size; j++) OK(MPI_Recv(&tok, 1, MPI_INT, MPI_ANY_SOURCE, 9, comm, MPI_STATUS_IGNORE));
            for (int it = 0; it < 10; it++) {
                a[0] = rval(rank, it, 0);
                OK(MPI_Reduce(a, r, 1, MPI_INT64_T, MPI_SUM, 0, comm));
                int64_t want = 0;
                for (int q = 0; q < size; q++) want += rval(q, it, 0);
                CHECK(r[0] == want, "%s: early Reduce %d: %lld, want %lld", name, it, (long long)r[0], (long long)want);
            }
        }
    }
    OK(MPI_Barrier(comm));
    if (size < 2) return;
    /* Counts that differ: rank 1's longer (in a cell, then beyond one), then rank 0's
     * (the root) beyond a cell. */
    OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    int cases[3][2] = {{2, 1}, {1100, 1}, {1, 1100}}; /* rank 1's count, the others' */
    for (int c = 0; c < 3; c++) {
        int count = (c == 2 ? rank == 0 : rank == 1) ? cases[c][0] : cases[c][1], cls;
        if (c == 2) count = rank == 0 ? 1100 : 1;
        int rc = MPI_Reduce(a, r, count, MPI_INT64_T, MPI_SUM, 0, comm);
        MPI_Error_class(rc, &cls);
        /* The root reports it; a non-root whose contribution fits a cell has left; a
         * longer one waits for the root's verdict on 3 ranks or more, and on 2 goes on
         * (the root follows it). */
        int long_ = count > 1046, err = cls == MPI_ERR_COUNT || (!cway && cls == MPI_ERR_TRUNCATE);
        CHECK(rank == 0 ? err
              : long_   ? err || ((size == 2 || !cway) && cls == MPI_SUCCESS)
                        : cls == MPI_SUCCESS || !cway,
              "%s: Reduce of other counts (%d, this rank %d): class %d", name, c, count, cls);
        int64_t one = 1, t = 0;
        OK(MPI_Allreduce(&one, &t, 1, MPI_INT64_T, MPI_SUM, comm));
        CHECK(t == size, "%s: after a mismatched Reduce: %lld", name, (long long)t);
    }
}

/* reducescatters: MPI_Reduce_scatter_block and MPI_Reduce_scatter (and their _c forms)
 * of MPI_INT32_T sums whose whole vector fits the inline lines (56 bytes), in C, in
 * place too, every rank's block checked; a longer vector (Go, on the same counts);
 * totals that differ between ranks (erroneous): MPI_ERR_COUNT where a rank combines,
 * the group in step after. */
static void reducescatters(MPI_Comm comm, const char *name) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int32_t a[64], r[64], want[64];
    int counts[8];
    MPI_Count ccounts[8];
    IN_C(4 * 4, name, {
        for (int per = 0; per < 4; per++) {
            if (per * size * 4 > 56) break;
            for (int i = 0; i < per * size; i++) {
                a[i] = (int32_t)contrib(rank, i), want[i] = 0;
                for (int q = 0; q < size; q++) want[i] += (int32_t)contrib(q, i);
            }
            memset(r, 0, sizeof r);
            OK(MPI_Reduce_scatter_block(a, r, per, MPI_INT32_T, MPI_SUM, comm));
            for (int i = 0; i < per; i++) CHECK(r[i] == want[rank * per + i], "%s: Reduce_scatter_block %d", name, i);
            memcpy(r, a, sizeof a);
            OK(MPI_Reduce_scatter_block_c(MPI_IN_PLACE, r, per, MPI_INT32_T, MPI_SUM, comm));
            for (int i = 0; i < per; i++) CHECK(r[i] == want[rank * per + i], "%s: Reduce_scatter_block_c in place %d", name, i);
            /* Blocks of 0 to 2 items by rank, the vector their sum. */
            int total = 0, at = 0;
            for (int j = 0; j < size; j++) {
                counts[j] = (j + per) % 3, ccounts[j] = counts[j];
                if (j == rank) at = total;
                total += counts[j];
            }
            for (int i = 0; i < total; i++) {
                a[i] = (int32_t)contrib(rank, i), want[i] = 0;
                for (int q = 0; q < size; q++) want[i] += (int32_t)contrib(q, i);
            }
            memset(r, 0, sizeof r);
            OK(MPI_Reduce_scatter(a, r, counts, MPI_INT32_T, MPI_SUM, comm));
            for (int i = 0; i < counts[rank]; i++) CHECK(r[i] == want[at + i], "%s: Reduce_scatter %d", name, i);
            CHECK(r[counts[rank]] == 0, "%s: Reduce_scatter wrote past its block", name);
            memcpy(r, a, sizeof a);
            OK(MPI_Reduce_scatter_c(MPI_IN_PLACE, r, ccounts, MPI_INT32_T, MPI_SUM, comm));
            for (int i = 0; i < counts[rank]; i++) CHECK(r[i] == want[at + i], "%s: Reduce_scatter_c in place %d", name, i);
        }
    });
    /* A vector longer than the inline lines: Go's way, on the same counts. */
    for (int i = 0; i < 16 * size && i < 64; i++) a[i] = (int32_t)contrib(rank, i);
    int per = 64 / size < 16 ? 64 / size : 16;
    OK(MPI_Reduce_scatter_block(a, r, per, MPI_INT32_T, MPI_SUM, comm));
    for (int i = 0; i < per; i++) {
        int32_t w = 0;
        for (int q = 0; q < size; q++) w += (int32_t)contrib(q, rank * per + i);
        CHECK(r[i] == w, "%s: a long Reduce_scatter_block %d: %d, want %d", name, i, r[i], w);
    }
    if (size < 2) return;
    OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    int rc = MPI_Reduce_scatter_block(a, r, rank == 1 ? 2 : 1, MPI_INT32_T, MPI_SUM, comm), cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COUNT || (!cway && cls == MPI_ERR_TRUNCATE), "%s: Reduce_scatter_block of other counts: class %d",
          name, cls);
    in_step(comm, name, "a mismatched Reduce_scatter_block");
}

static void all(MPI_Comm comm, const char *name) {
    int size;
    MPI_Comm_size(comm, &size);
    cway = !none && size > 1;
    OK(MPI_Barrier(comm)); /* makes the region, in Go */
    barriers(comm, name);
    bcasts(comm, name);
    allreduces(comm, name);
    reducescatters(comm, name);
    errors(comm, name);
    empties(comm, name);
    gathers(comm, name);
    gather_errors(comm, name);
    scatters(comm, name);
    scattervs(comm, name);
    alltoalls(comm, name);
    alltoallvs(comm, name);
    reduces(comm, name);
}

int main(int argc, char **argv) {
    int provided, rank, size;
    int multiple = argc > 1 && strcmp(argv[1], "multiple") == 0;
    none = argc > 1 && strcmp(argv[1], "none") == 0;
    nt = argc > 1 && strcmp(argv[1], "nt") == 0;
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN)); /* a bad handle's errors */

    all(MPI_COMM_WORLD, "world");
    MPI_Comm dup, split;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    all(dup, "dup");
    OK(MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : 1, -rank, &split));
    all(split, "split");
    /* A freed communicator's slot and a new one in it. */
    MPI_Comm old = dup;
    OK(MPI_Comm_free(&dup));
    FAILS(MPI_Barrier(old), MPI_ERR_COMM);
    FAILS(MPI_Bcast(&rank, 1, MPI_INT, 0, old), MPI_ERR_COMM);
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    all(dup, "dup again");
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_free(&split));
    OK(MPI_Finalize());
    printf("OK collshort\n");
    return 0;
}
