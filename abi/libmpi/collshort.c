/* collshort.c - the short collectives in C. A C program's MPI_Barrier, MPI_Bcast and
 * MPI_Allreduce would each cross into Go (the cgo callback, about 600-700
 * instructions: docs/BENCHMARKS.md, "C point-to-point"), more than the node
 * shared-memory protocol's own work for a small call. So on a communicator whose node
 * region is in use (internal/shmcoll: made on its first collective, the choice of the
 * node path fixed when the communicator was made), these calls run here, by the same
 * protocol on the same flags and counts as shmcoll's Barrier, Bcast and Allreduce
 * (one protocol, two entry points): a Barrier; a Bcast of a predefined plain datatype
 * that fits one ring chunk written with ordinary stores; an Allreduce of such a
 * datatype with MPI_SUM, MPI_PROD or a bitwise op whose message fits the inline lines.
 *
 * Taken only where the record would count the call untimed (prof.Gate, as p2pshort.c),
 * or at MPI_THREAD_MULTIPLE where it lets C count the call (tallies.h: in the thread's
 * copy of the counts, one in about 64 of its calls timed, mpigo_conc_open), while the group has not
 * failed; everything else goes to
 * the Go half (goPMPI_x, zgo.h) before the op begins, which does what it always did. Once
 * begun, what only Go does is handed to Go to go on from where C stopped: a wait
 * that outlasts the spin (the Go waiter yields, sleeps, drives the engine's progress
 * and checks that the peer lives), a Bcast whose root sent another length or took
 * another way, an Allreduce whose ranks' lengths differ (the errors). So every outcome
 * is the Go way's, only the cost differs.
 *
 * C holds no Go memory: the region is mapped outside Go's heap, and what C reads of a
 * communicator is a copy in C memory (collshort.h) that Go fills in after a Go
 * collective found the region in use and empties before the communicator is freed
 * and at Finalize. */
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/futex.h>
#include "mpi.h"
#include "collshort.h"
#include "p2pshort.h"
#include "zgo.h"

mpigo_coll mpigo_colls[MPIGO_COLL_COMMS + 1];
/* Per predefined datatype (0x200 + i), the operations of MPIGO_OP_* an Allreduce may
 * apply to it here: those Go's conversion accepts (collshort.go). */
MPIGO_HIDDEN uint8_t mpigo_coll_ops[256];

enum { MPIGO_OP_SUM = 1, MPIGO_OP_PROD = 2, MPIGO_OP_BAND = 4, MPIGO_OP_BOR = 8, MPIGO_OP_BXOR = 16 };

/* The Go halves that go on from where C stopped (collshort.go). */
extern int32_t mpigo_coll_wait(int32_t op, uintptr_t comm, int32_t spun, int32_t r, void *p, uint64_t v, void *q, uint64_t qv);
extern int32_t mpigo_coll_bcast_resume(void *buf, int64_t count, uintptr_t dt, int32_t root, uintptr_t comm,
                                       int32_t begun, int32_t big);
extern int32_t mpigo_coll_mismatch(uintptr_t comm, int32_t r, int64_t total, int32_t esz, int32_t cc);

static inline uint64_t *flag(const mpigo_coll *d, int r, int off) {
    return (uint64_t *)(d->base + MPIGO_R_BLOCKS + (int64_t)r * MPIGO_R_STRIDE + off);
}

static inline uint64_t load(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

static void __attribute__((noinline)) wake(uint64_t *p) {
    syscall(SYS_futex, (uint32_t *)p, FUTEX_WAKE, 1 << 30, NULL, NULL, 0);
}

/* raise sets the word at p (this rank's to write) to v and wakes its sleepers, as
 * shmcoll's raiseAt does (a plain store on amd64, then the region's sleeper count). */
static inline void raise_(const mpigo_coll *d, uint64_t *p, uint64_t v) {
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
    if (__atomic_load_n((int32_t *)(d->base + MPIGO_R_SLEEPERS), __ATOMIC_RELAXED) != 0) wake(p);
}

static inline int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* poll polls until the word at p, which rank r writes, is at least v, or the word at q
 * (NULL: none) at least qv, as the group's idle policy says (shmcoll's waitSlow): it
 * spins, then yields the CPU after each poll (sched_yield, which a Go waiter on this
 * thread, a cgo callback's and so locked to it, would precede with a costly
 * runtime.Gosched) until its yields or the handoffs they may make are used up. 1 when
 * the word got there; 0 when Go must go on waiting (it sleeps, drives the engine's
 * progress, checks that r lives), from the polls done (*spun). */
static int poll(const mpigo_coll *d, const uint64_t *p, uint64_t v, const uint64_t *q, uint64_t qv, int32_t *spun) {
    int32_t spin = (int32_t)mpigo_spin_cap(d->spin), handoffs = mpigo_handoffs_cap(d->handoffs);
    for (int i = 0; i < spin; i++) {
        if (load(p) >= v || (q != NULL && load(q) >= qv)) return 1;
        mpigo_pause();
    }
    int y = 0, gave = 0;
    for (; y < d->yield && (handoffs == 0 || gave < handoffs); y++) {
        if (load(p) >= v || (q != NULL && load(q) >= qv)) return 1;
        int64_t t0 = now_ns();
        sched_yield();
        if (now_ns() - t0 > 2000) gave++; /* another process took the core (yield.OS) */
    }
    /* Go's waiter goes on from the polls done: past its yields when the handoffs ran out. */
    *spun = spin + (y < d->yield ? d->yield + 1 : y);
    return 0;
}

int mpigo_coll_poll(const mpigo_coll *d, const uint64_t *p, uint64_t v, int32_t *spun) {
    return poll(d, p, v, NULL, 0, spun);
}

/* spin_wait waits until the word at p, which rank r writes, is at least v, or the word
 * at q (NULL: none) at least qv: poll, then the Go half. 0, or the Go half's error
 * code (already through the handler). */
static int __attribute__((noinline)) spin_wait(const mpigo_coll *d, int op, MPI_Comm comm, int r, uint64_t *p, uint64_t v,
                                               uint64_t *q, uint64_t qv) {
    int32_t spun;
    if (poll(d, p, v, q, qv, &spun)) return 0;
    __atomic_fetch_add(&mpigo_sample.go_waits, 1, __ATOMIC_RELAXED);
    return mpigo_coll_wait(op, (uintptr_t)comm, spun, r, p, v, q, qv);
}

static inline int wait_for(const mpigo_coll *d, int op, MPI_Comm comm, int r, uint64_t *p, uint64_t v, uint64_t *q,
                           uint64_t qv) {
    if (load(p) >= v) return 0;
    return spin_wait(d, op, comm, r, p, v, q, qv);
}

/* coll_of is comm's entry while its node region is in use and the call may run here,
 * else NULL: the Go way. */
static inline mpigo_coll *coll_of(MPI_Comm comm) {
    uintptr_t i = MPIGO_COLL_COMMS;
    if (comm != MPI_COMM_WORLD) {
        i = mpigo_slot((uintptr_t)comm, MPIGO_KIND_COMM);
        if (i >= MPIGO_COLL_COMMS) return NULL;
    }
    mpigo_coll *d = &mpigo_colls[i];
    if (d->h != (uintptr_t)comm || !d->own->ok) return NULL;
    return d;
}

/* counted counts a call of n bytes for the profile (mpigo_rec_count). */
static inline void counted(mpigo_rec *r, int call, int64_t n) { mpigo_rec_count(r, &mpigo_coll_calls[call], n); }

/* barrier is shmcoll's Barrier on d's region (h: d's handle, for the Go half). */
static inline __attribute__((always_inline)) int barrier(mpigo_coll *d, uintptr_t h) {
    MPI_Comm comm = (MPI_Comm)h;
    uint64_t s = ++d->own->s;
    /* A Barrier right after a Barrier skips the yield to rank 0 (shmcoll's Barrier). */
    int again = d->own->bar != 0 && d->own->bar == s - 1;
    d->own->bar = s;
    raise_(d, flag(d, d->rank, MPIGO_R_ARRIVE), s);
    for (int j = 0; j < d->size; j++) {
        if (j == d->rank) continue;
        int rc = wait_for(d, MPIGO_CC_BARRIER, comm, j, flag(d, j, MPIGO_R_ARRIVE), s, NULL, 0);
        if (rc != 0) return rc;
    }
    if (d->oversub && !again) {
        if (d->rank == 0) raise_(d, flag(d, 0, MPIGO_R_DONE), s);
        else if (load(flag(d, 0, MPIGO_R_DONE)) < s) sched_yield();
    }
    return MPI_SUCCESS;
}


int PMPI_Barrier(MPI_Comm comm) {
    mpigo_coll *d = coll_of(comm);
    mpigo_rec rec;
    /* Lines owed (shmcoll's Owing): Go waits for them first. */
    if (d == NULL || d->own->owed != 0 || !mpigo_rec_open(&rec)) return goPMPI_Barrier(comm);
    int rc = barrier(d, (uintptr_t)comm);
    if (rc != 0) return rc;
    counted(&rec, MPIGO_CC_BARRIER, 0);
    return MPI_SUCCESS;
}

static inline char *ring_line(const mpigo_coll *d, uint64_t c) {
    return d->base + d->ring_off + (int64_t)(c % (uint64_t)d->chunks) * d->ring_stride;
}

static inline int owed_max(const mpigo_coll *d) { return d->chunks - 1 < 3 ? (int)d->chunks - 1 : 3; }

/* settle_ready takes the lines this rank owes (shmcoll's Owing: the count in owed's
 * low byte, each chunk's root in 16 bits from the oldest, the last owed chunk c) that
 * are there, in order, acknowledging each; it stops before a line that holds bytes
 * (erroneous), and then says 1: Go takes it and reports. */
static int settle_ready(const mpigo_coll *d, mpigo_own *o) {
    uint64_t w = o->owed;
    int m = (int)(w & 0xff), i = 0, bytes = 0;
    uint64_t c = o->c - (uint64_t)m + 1;
    for (; i < m; i++) {
        uint64_t x = c + (uint64_t)i;
        int r = (int)(uint16_t)(w >> (8 + 16 * i));
        if (r != d->rank) {
            char *line = ring_line(d, x);
            if (load((uint64_t *)line) < x) break;
            if (*(uint64_t *)(line + 56) != 0) {
                bytes = 1;
                break;
            }
        }
        raise_(d, flag(d, d->rank, MPIGO_R_ACK), x);
    }
    o->owed = (w >> (8 + 16 * i)) << 8 | (uint64_t)(m - i);
    return bytes;
}

/* owe adds chunk o->c, whose root is r, to the lines owed. */
static inline void owe(mpigo_own *o, int r) {
    uint64_t w = o->owed, m = w & 0xff;
    o->owed = (w & ~(uint64_t)0xff) | (uint64_t)r << (8 + 16 * m) | (m + 1);
}

/* A Bcast's root writes its chunk into ring lines that the readers hold from their last
 * read of them. Ordinary stores (glibc's memcpy below its REP MOVSB threshold) take each
 * line back from the readers' caches before writing it; on Intel's cores with fast
 * string moves REP MOVSB writes whole lines without reading them, so the flag stored
 * after them reaches the readers sooner. From RING_MOVSB bytes the root copies so
 * (docs/BENCHMARKS.md, "A Bcast's ring chunk written by REP MOVSB"). */
#define RING_MOVSB 128

static inline void ring_copy(char *d, const void *s, size_t n) {
    if (n >= RING_MOVSB && mpigo_intel_fsrm) mpigo_movsb(d, s, n);
    else memcpy(d, s, n);
}

/* short_bcast is MPI_Bcast here (MPI_Bcast_c with big), or -1: the Go way. */
static inline __attribute__((always_inline)) int short_bcast(void *buf, int64_t count, MPI_Datatype dt, int root,
                                                             MPI_Comm comm, int big) {
    const int cc = MPIGO_CC_BCAST | (big ? MPIGO_CC_LARGE : 0);
    mpigo_coll *d = coll_of(comm);
    uintptr_t i = (uintptr_t)dt - 0x200;
    if (d == NULL || i >= 256 || count < 0 || count > d->bcast_max || (unsigned)root >= (unsigned)d->size) return -1;
    int64_t n = count * mpigo_short_dts[i].size;
    mpigo_rec rec;
    if (mpigo_short_dts[i].size <= 0 || n > d->bcast_max || (n > 0 && buf == NULL) || !mpigo_rec_open(&rec))
        return -1;
    mpigo_own *o = d->own;
    int reader = d->rank != root;
    if (o->owed != 0) {
        /* A reader takes its line only after those it owes, so while it still owes
         * some a reader of bytes goes to Go (which waits for them), as does a rank that
         * owes as many as it may; a reader of an empty buffer owes one more. */
        if (settle_ready(d, o) || (o->owed != 0 && reader && n != 0) || (int)(o->owed & 0xff) >= owed_max(d))
            return -1;
    }
    uint64_t s = ++o->s;
    uint64_t c = ++o->c;
    char *line = ring_line(d, c);
    uint64_t *seq = (uint64_t *)line, *total = (uint64_t *)(line + 56);
    char *data = n <= MPIGO_R_BCAST_INLINE ? line + 8 : line + 64;
    if (reader && n == 0 && (o->owed != 0 || load(seq) < c)) {
        /* Not there: leave owing it, unless the root has begun a long op (the defer
         * flag, then the root's begun word, sequentially consistent: shmcoll's
         * deferrer; only long ops write that word's line, so it is read from this
         * core's cache). */
        __atomic_store_n(flag(d, d->rank, MPIGO_R_DEFER), s, __ATOMIC_SEQ_CST);
        raise_(d, flag(d, d->rank, MPIGO_R_ARRIVE), s);
        if (__atomic_load_n(flag(d, root, MPIGO_R_BEGUN), __ATOMIC_SEQ_CST) < s) {
            owe(o, root);
            counted(&rec, MPIGO_CC_BCAST, 0);
            return MPI_SUCCESS;
        }
        if (o->owed != 0) {
            /* Its line comes, but the lines owed come first: Go waits for them. */
            int rc = mpigo_coll_bcast_resume(buf, count, (uintptr_t)dt, root, (uintptr_t)comm, 1, big);
            if (rc == 0) counted(&rec, MPIGO_CC_BCAST, 0);
            return rc;
        }
    } else {
        raise_(d, flag(d, d->rank, MPIGO_R_ARRIVE), s);
    }
    if (!reader) {
        /* The ring buffer is free once every other rank acknowledged its last chunk
         * (shmcoll's reuse). */
        uint64_t k = (uint64_t)d->chunks;
        if (c > k && o->ack_known < c - k) {
            uint64_t m = UINT64_MAX;
            for (int j = 0; j < d->size; j++) {
                if (j == d->rank) continue;
                int rc = wait_for(d, cc, comm, j, flag(d, j, MPIGO_R_ACK), c - k, NULL, 0);
                if (rc != 0) return rc;
            }
            for (int j = 0; j < d->size; j++)
                if (j != d->rank && load(flag(d, j, MPIGO_R_ACK)) < m) m = load(flag(d, j, MPIGO_R_ACK));
            o->ack_known = m;
        }
        if (n > 0) ring_copy(data, buf, (size_t)n);
        *total = (uint64_t)n;
        raise_(d, seq, c);
        /* Owing lines before it, its own chunk is acknowledged after them. */
        if (o->owed == 0) raise_(d, flag(d, d->rank, MPIGO_R_ACK), c);
        else owe(o, d->rank);
        o->flow_bytes += (uint64_t)n;
        o->flow_ops++;
    } else {
        int rc = wait_for(d, cc, comm, root, seq, c, NULL, 0);
        if (rc != 0) return rc;
        if (*total != (uint64_t)n) {
            /* Another length, or another way: Go goes on (and reports the mismatch). */
            rc = mpigo_coll_bcast_resume(buf, count, (uintptr_t)dt, root, (uintptr_t)comm, 0, big);
            if (rc == 0) counted(&rec, MPIGO_CC_BCAST, n);
            return rc;
        }
        if (n > 0) memcpy(buf, data, (size_t)n);
        raise_(d, flag(d, d->rank, MPIGO_R_ACK), c);
    }
    counted(&rec, MPIGO_CC_BCAST, n);
    return MPI_SUCCESS;
}

int PMPI_Bcast(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    int rc = short_bcast(buf, count, datatype, root, comm, 0);
    return rc >= 0 ? rc : goPMPI_Bcast(buf, count, datatype, root, comm);
}

int PMPI_Bcast_c(void *buf, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    int rc = short_bcast(buf, count, datatype, root, comm, 1);
    return rc >= 0 ? rc : goPMPI_Bcast_c(buf, count, datatype, root, comm);
}

/* combine sets acc to in (op) acc, element by element, as the device's kernels do
 * (in holds the lower ranks' contribution). */
#define COMBINE(T, EXPR)                                   \
    for (int64_t e = 0; e < count; e++) {                  \
        T a, b;                                            \
        memcpy(&a, acc + e * sizeof(T), sizeof(T));        \
        memcpy(&b, in + e * sizeof(T), sizeof(T));         \
        a = (T)(EXPR);                                     \
        memcpy(acc + e * sizeof(T), &a, sizeof(T));        \
    }
#define INT_CASES_OF(OP, EXPR)                                 \
    case (OP) << 4 | MPIGO_K_I8: COMBINE(uint8_t, EXPR) break;   \
    case (OP) << 4 | MPIGO_K_I16: COMBINE(uint16_t, EXPR) break; \
    case (OP) << 4 | MPIGO_K_I32: COMBINE(uint32_t, EXPR) break; \
    case (OP) << 4 | MPIGO_K_I64: COMBINE(uint64_t, EXPR) break;

/* GCC's -O2 leaves these loops scalar (its cheapest vectorizing), far slower than Go's
 * kernels on a Reduce's 8 KiB cells or an MPI_Reduce_local of kilobytes
 * (docs/BENCHMARKS.md); clang vectorizes them at -O2. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("tree-vectorize")))
#endif
static void combine(int kind, int op, char *acc, const char *in, int64_t count) {
    /* Integers wrap, signed or not (the unsigned types' arithmetic is the same bits). */
    switch (op << 4 | kind) {
    INT_CASES_OF(MPIGO_OP_SUM, b + a)
    case MPIGO_OP_SUM << 4 | MPIGO_K_F32: COMBINE(float, b + a) break;
    case MPIGO_OP_SUM << 4 | MPIGO_K_F64: COMBINE(double, b + a) break;
    INT_CASES_OF(MPIGO_OP_PROD, (uint64_t)b * a) /* not int: uint16_t products overflow it */
    case MPIGO_OP_PROD << 4 | MPIGO_K_F32: COMBINE(float, b * a) break;
    case MPIGO_OP_PROD << 4 | MPIGO_K_F64: COMBINE(double, b * a) break;
    INT_CASES_OF(MPIGO_OP_BAND, b & a)
    INT_CASES_OF(MPIGO_OP_BOR, b | a)
    INT_CASES_OF(MPIGO_OP_BXOR, b ^ a)
    }
}

static inline int op_bit(MPI_Op op) {
    if (op == MPI_SUM) return MPIGO_OP_SUM;
    if (op == MPI_PROD) return MPIGO_OP_PROD;
    if (op == MPI_BAND) return MPIGO_OP_BAND;
    if (op == MPI_BOR) return MPIGO_OP_BOR;
    if (op == MPI_BXOR) return MPIGO_OP_BXOR;
    return 0;
}

/* bank_free waits until op s's bank (s mod 2), last read in op s-2, is free: every
 * other rank has entered op s-1 (shmcoll's nextBank). 0, or the Go half's error code. */
static inline int bank_free(const mpigo_coll *d, int cc, MPI_Comm comm, uint64_t s) {
    if (s <= 2) return MPI_SUCCESS;
    for (int j = 0; j < d->size; j++) {
        if (j == d->rank) continue;
        int rc = wait_for(d, cc, comm, j, flag(d, j, MPIGO_R_ARRIVE), s - 1, NULL, 0);
        if (rc != 0) return rc;
    }
    return MPI_SUCCESS;
}

/* allreduce_op is shmcoll's Allreduce op in the inline lines for the call cc: count
 * items of kind (size bytes each, n in all, within the lines) from src combined under
 * bit into dst, in rank order as the device's kernels do. 0, or the Go half's error
 * code. */
static inline __attribute__((always_inline)) int allreduce_op(mpigo_coll *d, int cc, MPI_Comm comm,
                                                              const char *src, char *dst, int64_t count,
                                                              int kind, int bit, int64_t size) {
    int64_t n = count * size;
    mpigo_own *o = d->own;
    uint64_t s = ++o->s;
    int rc = bank_free(d, cc, comm, s);
    if (rc != 0) return rc;
    int bank = (int)(s & 1);
    char *mine = (char *)flag(d, d->rank, MPIGO_R_INLINE + bank * 64);
    if (n > 0) memcpy(mine + 8, src, (size_t)n);
    raise_(d, (uint64_t *)mine, s << 8 | (uint64_t)n);
    *flag(d, d->rank, MPIGO_R_LEN + 8 * bank) = (uint64_t)n;
    raise_(d, flag(d, d->rank, MPIGO_R_ARRIVE), s);
    uint64_t want = s << 8 | (uint64_t)n;
    for (int j = d->size - 1; j >= 0; j--) {
        uint64_t *line = flag(d, j, MPIGO_R_INLINE + bank * 64);
        if (j != d->rank) {
            uint64_t v = load(line);
            if (v < s << 8) {
                /* A rank that arrives without an inline line took another way. */
                int rc = wait_for(d, cc, comm, j, line, s << 8, flag(d, j, MPIGO_R_ARRIVE), s);
                if (rc != 0) return rc;
                v = load(line);
            }
            if (v != want) return mpigo_coll_mismatch((uintptr_t)comm, j, n, (int32_t)size, cc);
        }
        if (j == d->size - 1) {
            if (n > 0) memcpy(dst, (char *)line + 8, (size_t)n);
        } else {
            combine(kind, bit, dst, (const char *)line + 8, count);
        }
    }
    o->flow_bytes += (uint64_t)n;
    o->flow_ops++;
    return MPI_SUCCESS;
}

/* short_allreduce is MPI_Allreduce here (MPI_Allreduce_c with big), or -1: the Go way. */
static inline __attribute__((always_inline)) int short_allreduce(const void *sbuf, void *rbuf, int64_t count,
                                                                 MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int big) {
    const int cc = MPIGO_CC_ALLREDUCE | (big ? MPIGO_CC_LARGE : 0);
    mpigo_coll *d = coll_of(comm);
    uintptr_t i = (uintptr_t)dt - 0x200;
    if (d == NULL || i >= 256 || count < 0 || count > d->reduce_max) return -1;
    int bit = op_bit(op), kind = mpigo_short_dts[i].kind;
    int64_t size = mpigo_short_dts[i].size, n = count * size;
    const char *src = sbuf == MPI_IN_PLACE ? (const char *)rbuf : (const char *)sbuf;
    mpigo_rec rec;
    if ((mpigo_coll_ops[i] & bit) == 0 || size <= 0 || n > d->reduce_max || sbuf == rbuf || d->own->owed != 0 ||
        (n > 0 && (rbuf == NULL || src == NULL)) || !mpigo_rec_open(&rec))
        return -1;
    int rc = allreduce_op(d, cc, comm, src, (char *)rbuf, count, kind, bit, size);
    if (rc != 0) return rc;
    counted(&rec, MPIGO_CC_ALLREDUCE, n);
    return MPI_SUCCESS;
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    int rc = short_allreduce(sendbuf, recvbuf, count, datatype, op, comm, 0);
    return rc >= 0 ? rc : goPMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm) {
    int rc = short_allreduce(sendbuf, recvbuf, count, datatype, op, comm, 1);
    return rc >= 0 ? rc : goPMPI_Allreduce_c(sendbuf, recvbuf, count, datatype, op, comm);
}

/* The Go halves of the gathers (collshort.go): the root's receive of a block that went
 * as a message; the error of a block whose length is not the collector's (far: the sender took the
 * schedules' way, this rank the region's). */
extern int32_t mpigo_coll_gather_far(int32_t op, uintptr_t comm, int32_t j, int64_t n, void *dst, int64_t want);
extern int32_t mpigo_coll_block_err(int32_t op, uintptr_t comm, int32_t j, int64_t n, int64_t want);
extern void mpigo_coll_join(uintptr_t comm);
extern int32_t mpigo_coll_reduce_err(uintptr_t comm, int32_t j, int64_t n, int64_t want, int32_t esz, int32_t big);

static inline char *cell(const mpigo_coll *d, int r, uint64_t g) {
    return d->base + d->cells_off + ((int64_t)r * MPIGO_R_CELLS + (int64_t)(g % MPIGO_R_CELLS)) * MPIGO_R_CELL;
}

/* cell_ext is the extension of rank r's cell of Gather g: its block's bytes beyond the
 * cell's head (MPIGO_R_CELL - 16). */
static inline char *cell_ext(const mpigo_coll *d, int r, uint64_t g) {
    return d->base + d->cells_off + (int64_t)d->size * MPIGO_R_CELLS * MPIGO_R_CELL +
           ((int64_t)r * MPIGO_R_CELLS + (int64_t)(g % MPIGO_R_CELLS)) * MPIGO_R_CELL_EXT;
}

#define MPIGO_CELL_HEAD (MPIGO_R_CELL - 16)

#define MPIGO_FAR ((uint64_t)1 << 63)

/* slot_of is rank r's reduction slot of bank b. */
static inline char *slot_of(const mpigo_coll *d, int b, int r) {
    return d->base + d->slots_off + ((int64_t)b * d->size + r) * d->slot;
}

/* bank_begin takes this rank's next op (*sp) for a block of n bytes (at most a slot:
 * the caller's bound) that the caller writes at *dst, its inline line's or its slot of
 * the op's bank, before bank_publish (shmcoll's PutBegin and PutEnd). 0, or the Go
 * half's error code. */
static inline int bank_begin(mpigo_coll *d, int cc, MPI_Comm comm, int64_t n, uint64_t *sp, char **dst) {
    uint64_t s = ++d->own->s;
    int rc = bank_free(d, cc, comm, s);
    if (rc != 0) return rc;
    int bank = (int)(s & 1);
    *dst = n <= MPIGO_R_REDUCE_INLINE ? (char *)flag(d, d->rank, MPIGO_R_INLINE + bank * 64) + 8
                                      : slot_of(d, bank, d->rank);
    *sp = s;
    return MPI_SUCCESS;
}

static inline void bank_publish(mpigo_coll *d, uint64_t s, int64_t n) {
    int bank = (int)(s & 1);
    if (n <= MPIGO_R_REDUCE_INLINE) raise_(d, flag(d, d->rank, MPIGO_R_INLINE + bank * 64), s << 8 | (uint64_t)n);
    *flag(d, d->rank, MPIGO_R_LEN + 8 * bank) = (uint64_t)n;
    raise_(d, flag(d, d->rank, MPIGO_R_ARRIVE), s);
}

/* bank_put takes this rank's next op (*sp) and puts its n bytes from src in it
 * (shmcoll's Put): in its inline line up to MPIGO_R_REDUCE_INLINE, else in its slot of
 * the op's bank (at most a slot: the caller's bound), then its length and arrival. 0,
 * or the Go half's error code. */
static inline int bank_put(mpigo_coll *d, int cc, MPI_Comm comm, const void *src, int64_t n, uint64_t *sp) {
    char *dst;
    int rc = bank_begin(d, cc, comm, n, sp, &dst);
    if (rc != 0) return rc;
    if (n > 0) memcpy(dst, src, (size_t)n);
    bank_publish(d, *sp, n);
    return MPI_SUCCESS;
}

/* bank_block waits for rank j's block of op s (shmcoll's TakePart): *b its bytes (its
 * inline line's, or its slot's) and *n its length, or *b NULL where it went by other
 * means (far: its length alone). 0, or the Go half's error code. */
static inline int bank_block(const mpigo_coll *d, int cc, MPI_Comm comm, int j, uint64_t s, const char **b, int64_t *n) {
    int bank = (int)(s & 1);
    uint64_t *line = flag(d, j, MPIGO_R_INLINE + bank * 64);
    uint64_t v = load(line);
    if (v >> 8 != s) {
        int rc = wait_for(d, cc, comm, j, line, s << 8, flag(d, j, MPIGO_R_ARRIVE), s);
        if (rc != 0) return rc;
        v = load(line);
    }
    if (v >> 8 == s) {
        *n = (int64_t)(v & 0xff);
        *b = (const char *)line + 8;
        return MPI_SUCCESS;
    }
    uint64_t w = *flag(d, j, MPIGO_R_LEN + 8 * bank);
    *n = (int64_t)(w & ~MPIGO_FAR);
    *b = (w & MPIGO_FAR) ? NULL : slot_of(d, bank, j);
    return MPI_SUCCESS;
}

/* bank_start opens the call's record and puts this rank's n bytes from src (bank_put):
 * 0, -1 where the record declines the call (the Go way), or the Go half's error code. */
static inline int bank_start(mpigo_coll *d, int cc, MPI_Comm comm, const void *src, int64_t n, mpigo_rec *rec,
                             uint64_t *sp) {
    if (!mpigo_rec_open(rec)) return -1;
    return bank_put(d, cc, comm, src, n, sp);
}

/* bank_start_at is bank_start of a block the caller writes at *dst before bank_publish
 * (bank_begin's). */
static inline int bank_start_at(mpigo_coll *d, int cc, MPI_Comm comm, int64_t n, mpigo_rec *rec, uint64_t *sp,
                                char **dst) {
    if (!mpigo_rec_open(rec)) return -1;
    return bank_begin(d, cc, comm, n, sp, dst);
}

/* bank_seen is what the blocks an Allgather's or Alltoall's rank took showed: a rank
 * that went by the schedules (far), and the first block whose length differs from the
 * receiving one (bad: its rank, badn its length, badw the receiver's). */
typedef struct {
    int far, bad;
    int64_t badn, badw;
} bank_seen;

static inline void seen_len(bank_seen *t, int j, int64_t n, int64_t want) {
    if (t->bad < 0 && n != want) t->bad = j, t->badn = n, t->badw = want;
}

/* bank_end ends an Allgather's or Alltoall's op that took every block (t): where a
 * rank went by the schedules (its counts differ, erroneous, and its block is too long
 * for the region), the Go half joins them without an op (-1); a length that differs is
 * the call's error; else flow bytes went to the others and n are counted. */
static inline int bank_end(mpigo_coll *d, int cc, MPI_Comm comm, mpigo_rec *rec, const bank_seen *t, int64_t flow,
                           int64_t n) {
    if (t->far) {
        mpigo_coll_join((uintptr_t)comm);
        return -1;
    }
    if (t->bad >= 0) return mpigo_coll_block_err(cc, (uintptr_t)comm, t->bad, t->badn, t->badw);
    d->own->flow_bytes += (uint64_t)flow;
    d->own->flow_ops++;
    counted(rec, cc & ~MPIGO_CC_LARGE, n);
    return MPI_SUCCESS;
}

/* dt_size is a predefined datatype's size, or -1 (not one this file takes). */
static inline int64_t dt_size(MPI_Datatype dt) {
    uintptr_t i = (uintptr_t)dt - 0x200;
    if (i >= 256 || mpigo_short_dts[i].size <= 0) return -1;
    return mpigo_short_dts[i].size;
}

/* count_at and displ_at read element j of a v form's counts and displacements: int
 * arrays, or (wide, the _c forms) MPI_Count and MPI_Aint ones. */
static inline int64_t count_at(const void *counts, int j, int wide) {
    return wide ? (int64_t)((const MPI_Count *)counts)[j] : (int64_t)((const int *)counts)[j];
}
static inline int64_t displ_at(const void *displs, int j, int wide) {
    return wide ? (int64_t)((const MPI_Aint *)displs)[j] : (int64_t)((const int *)displs)[j];
}

/* gather_put is shmcoll's GatherPut: a non-root's block of n bytes (at most a cell's,
 * MPIGO_R_GATHER_INLINE: its head, then its extension) in its cell of the next Gather,
 * to root. */
static inline int gather_put(mpigo_coll *d, int cc, MPI_Comm comm, const void *src, int64_t n, int root) {
    mpigo_own *o = d->own;
    uint64_t g = o->g + 1;
    int i = (int)(g % MPIGO_R_CELLS), old = o->roots[i];
    if (g > MPIGO_R_CELLS && old != d->rank) {
        /* The cell is free once the root of the Gather that last used it took it. */
        uint64_t need = g - MPIGO_R_CELLS;
        if (!((int)(o->g_known & 0xffff) == old && (o->g_known >> 16) >= need)) {
            uint64_t *p = flag(d, old, MPIGO_R_TAKEN);
            int rc = wait_for(d, cc, comm, old, p, need, NULL, 0);
            if (rc != 0) return rc;
            o->g_known = load(p) << 16 | (uint64_t)old;
        }
    }
    char *c = cell(d, d->rank, g);
    if (n > MPIGO_CELL_HEAD) {
        memcpy(c + 16, src, MPIGO_CELL_HEAD);
        memcpy(cell_ext(d, d->rank, g), (const char *)src + MPIGO_CELL_HEAD, (size_t)(n - MPIGO_CELL_HEAD));
    } else if (n > 0) {
        memcpy(c + 16, src, (size_t)n);
    }
    *(uint64_t *)(c + 8) = (uint64_t)n;
    raise_(d, (uint64_t *)c, g);
    o->g = g;
    o->roots[i] = (uint16_t)root;
    return MPI_SUCCESS;
}

/* gather_take is shmcoll's GatherTake of rank j's block of Gather g into dst (want
 * bytes): 0, or an error code; *bad is set at the first block whose length differs
 * (then *badn, *badw), *badrc at the first failed receive of a far block. */
static inline int gather_take(mpigo_coll *d, int cc, MPI_Comm comm, int j, uint64_t g, char *dst, int64_t want,
                              int *bad, int64_t *badn, int64_t *badw, int *badrc) {
    char *c = cell(d, j, g);
    if (load((uint64_t *)c) < g) {
        int rc = wait_for(d, cc, comm, j, (uint64_t *)c, g, NULL, 0);
        if (rc != 0) return rc;
    }
    uint64_t w = *(uint64_t *)(c + 8);
    int64_t n = (int64_t)(w & ~MPIGO_FAR);
    if (w & MPIGO_FAR) {
        int rc = mpigo_coll_gather_far(cc, (uintptr_t)comm, j, n, dst, want);
        if (rc != 0 && *badrc == 0) *badrc = rc;
    } else if (n > 0 && want > 0) {
        int64_t k = n < want ? n : want;
        if (k > MPIGO_CELL_HEAD) {
            memcpy(dst, c + 16, MPIGO_CELL_HEAD);
            memcpy(dst + MPIGO_CELL_HEAD, cell_ext(d, j, g), (size_t)(k - MPIGO_CELL_HEAD));
        } else {
            memcpy(dst, c + 16, (size_t)k);
        }
    }
    if (n != want && *bad < 0) *bad = j, *badn = n, *badw = want;
    return MPI_SUCCESS;
}

/* short_gather is MPI_Gather here, or MPI_Gatherv with v (counts, displs: the root's),
 * their _c forms with big, or -1: the Go way. A non-root whose block fits a cell puts it
 * there and leaves; a root whose blocks all fit one takes them. */
static inline __attribute__((always_inline)) int short_gather(const void *sbuf, int64_t scount, MPI_Datatype sdt,
                                                              void *rbuf, int64_t rcount, const void *counts,
                                                              const void *displs, MPI_Datatype rdt, int root,
                                                              MPI_Comm comm, int v, int big) {
    int cc = (v ? MPIGO_CC_GATHERV : MPIGO_CC_GATHER) | (big ? MPIGO_CC_LARGE : 0);
    mpigo_coll *d = coll_of(comm);
    if (d == NULL || (unsigned)root >= (unsigned)d->size) return -1;
    mpigo_rec rec;
    if (d->rank != root) {
        int64_t ssz = dt_size(sdt), n = scount * ssz;
        if (ssz < 0 || scount < 0 || n > MPIGO_R_GATHER_INLINE || (n > 0 && sbuf == NULL) || sbuf == MPI_IN_PLACE ||
            !mpigo_rec_open(&rec))
            return -1;
        int rc = gather_put(d, cc, comm, sbuf, n, root);
        if (rc != 0) return rc;
        counted(&rec, cc & ~MPIGO_CC_LARGE, n);
        return MPI_SUCCESS;
    }
    int64_t rsz = dt_size(rdt), ssz = 0, own = 0;
    if (rsz < 0) return -1;
    if (!v) {
        if (rcount < 0 || rcount * rsz > MPIGO_R_GATHER_INLINE) return -1;
    } else {
        if (counts == NULL || displs == NULL) return -1;
        for (int j = 0; j < d->size; j++) {
            int64_t k = count_at(counts, j, big);
            if (k < 0 || k * rsz > MPIGO_R_GATHER_INLINE) return -1;
        }
    }
    if (sbuf != MPI_IN_PLACE) {
        ssz = dt_size(sdt);
        own = scount * ssz;
        if (ssz < 0 || scount < 0 || (own > 0 && sbuf == NULL)) return -1;
    }
    /* A send buffer that is the receive buffer (erroneous but for MPI_IN_PLACE): Go's
     * checks report it. */
    if (rbuf == NULL || sbuf == rbuf || !mpigo_rec_open(&rec)) return -1;
    mpigo_own *o = d->own;
    uint64_t g = ++o->g;
    o->roots[g % MPIGO_R_CELLS] = (uint16_t)d->rank;
    int bad = -1, badrc = 0;
    int64_t badn = 0, badw = 0, total = 0;
    for (int j = 0; j < d->size; j++) {
        int64_t want = (v ? count_at(counts, j, big) : rcount) * rsz;
        char *dst = (char *)rbuf + (v ? displ_at(displs, j, big) * rsz : (int64_t)j * want);
        if (j == root) {
            if (sbuf != MPI_IN_PLACE && own > 0 && want > 0) memcpy(dst, sbuf, (size_t)(own < want ? own : want));
            continue;
        }
        total += want;
        int rc = gather_take(d, cc, comm, j, g, dst, want, &bad, &badn, &badw, &badrc);
        if (rc != 0) return rc;
    }
    raise_(d, flag(d, d->rank, MPIGO_R_TAKEN), g);
    if (badrc != 0) return badrc;
    if (bad >= 0) return mpigo_coll_block_err(cc, (uintptr_t)comm, bad, badn, badw);
    counted(&rec, cc & ~MPIGO_CC_LARGE, total);
    return MPI_SUCCESS;
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
    int rc = short_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, root, comm, 0, 0);
    return rc >= 0 ? rc : goPMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm) {
    int rc = short_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, root, comm, 0, 1);
    return rc >= 0 ? rc : goPMPI_Gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
    int rc = short_gather(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, root, comm, 1, 0);
    return rc >= 0 ? rc
                   : goPMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
}

int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm) {
    int rc = short_gather(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, root, comm, 1, 1);
    return rc >= 0 ? rc
                   : goPMPI_Gatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
}

/* short_reduce is MPI_Reduce here (MPI_Reduce_c with big), or -1: the Go way. A
 * contribution of a predefined datatype, with an operation combine applies to it, of
 * at most a cell (shmcoll's ReducePut and ReduceRoot): a non-root puts it in its cell
 * and leaves; the root combines every rank's from the highest down (in MPI's order, as
 * the Go way does), its kernels on a cell's head and extension apart (their elements
 * divide the head). A length that differs is reported once every cell was read; a
 * cell of a longer contribution (erroneous here: the root's fits) leaves the call to
 * the Go way, before anything was taken, which follows it or rejects it. */
static inline __attribute__((always_inline)) int short_reduce(const void *sbuf, void *rbuf, int64_t count,
                                                              MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
                                                              int big) {
    const int cc = MPIGO_CC_REDUCE | (big ? MPIGO_CC_LARGE : 0);
    mpigo_coll *d = coll_of(comm);
    uintptr_t i = (uintptr_t)dt - 0x200;
    if (d == NULL || i >= 256 || count < 0 || count > MPIGO_R_GATHER_INLINE || (unsigned)root >= (unsigned)d->size)
        return -1;
    int bit = op_bit(op), kind = mpigo_short_dts[i].kind;
    int64_t size = mpigo_short_dts[i].size, n = count * size;
    if ((mpigo_coll_ops[i] & bit) == 0 || size <= 0 || n > MPIGO_R_GATHER_INLINE) return -1;
    mpigo_rec rec;
    if (d->rank != root) {
        if (sbuf == MPI_IN_PLACE || (n > 0 && sbuf == NULL) || !mpigo_rec_open(&rec)) return -1;
        int rc = gather_put(d, cc, comm, sbuf, n, root);
        if (rc != 0) return rc;
        counted(&rec, MPIGO_CC_REDUCE, n);
        return MPI_SUCCESS;
    }
    const char *own = sbuf == MPI_IN_PLACE ? (const char *)rbuf : (const char *)sbuf;
    if (sbuf == rbuf || (n > 0 && (rbuf == NULL || own == NULL)) || !mpigo_rec_open(&rec)) return -1;
    char keep[MPIGO_R_GATHER_INLINE];
    if (own == rbuf && d->rank != d->size - 1 && n > 0) {
        memcpy(keep, own, (size_t)n);
        own = keep;
    }
    mpigo_own *o = d->own;
    /* Every cell first: one whose contribution went alone (erroneous, this root's
     * fits) leaves the whole call to Go, which follows or rejects it. */
    for (int j = 0; j < d->size; j++) {
        if (j == d->rank) continue;
        char *c = cell(d, j, o->g + 1);
        if (load((uint64_t *)c) < o->g + 1) {
            int rc = wait_for(d, cc, comm, j, (uint64_t *)c, o->g + 1, NULL, 0);
            if (rc != 0) return rc;
        }
        if (*(uint64_t *)(c + 8) & MPIGO_FAR) return -1;
    }
    uint64_t g = ++o->g;
    o->roots[g % MPIGO_R_CELLS] = (uint16_t)d->rank;
    int bad = -1;
    int64_t badn = 0;
    int64_t head = n < MPIGO_CELL_HEAD ? n : MPIGO_CELL_HEAD;
    for (int j = d->size - 1; j >= 0; j--) {
        int top = j == d->size - 1;
        if (j == d->rank) {
            if (bad < 0 && n > 0) {
                if (!top) combine(kind, bit, (char *)rbuf, own, count);
                else if (own != rbuf) memcpy(rbuf, own, (size_t)n);
            }
            continue;
        }
        char *c = cell(d, j, g);
        uint64_t w = *(uint64_t *)(c + 8);
        if (w != (uint64_t)n) {
            if (bad < 0) bad = j, badn = (int64_t)w;
            continue;
        }
        if (bad >= 0 || n == 0) continue;
        if (top) {
            memcpy(rbuf, c + 16, (size_t)head);
            if (n > head) memcpy((char *)rbuf + head, cell_ext(d, j, g), (size_t)(n - head));
        } else {
            combine(kind, bit, (char *)rbuf, c + 16, head / size);
            if (n > head) combine(kind, bit, (char *)rbuf + head, cell_ext(d, j, g), (n - head) / size);
        }
    }
    raise_(d, flag(d, d->rank, MPIGO_R_TAKEN), g);
    if (bad >= 0) return mpigo_coll_reduce_err((uintptr_t)comm, bad, badn, n, (int32_t)size, big);
    counted(&rec, MPIGO_CC_REDUCE, n);
    return MPI_SUCCESS;
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm) {
    int rc = short_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, 0);
    return rc >= 0 ? rc : goPMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                  MPI_Comm comm) {
    int rc = short_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, 1);
    return rc >= 0 ? rc : goPMPI_Reduce_c(sendbuf, recvbuf, count, datatype, op, root, comm);
}

/* short_allgather is MPI_Allgather here, or MPI_Allgatherv with v (counts, displs),
 * their _c forms with big, or -1: the Go way. Every block fits the region
 * (d->gather_max): shmcoll's Put and Take, an inline line up to 56 bytes, else a slot,
 * as the Allreduce's without the combine. */
static inline __attribute__((always_inline)) int short_allgather(const void *sbuf, int64_t scount, MPI_Datatype sdt,
                                                                 void *rbuf, int64_t rcount, const void *counts,
                                                                 const void *displs, MPI_Datatype rdt, MPI_Comm comm,
                                                                 int v, int big) {
    const int cc = (v ? MPIGO_CC_ALLGATHERV : MPIGO_CC_ALLGATHER) | (big ? MPIGO_CC_LARGE : 0);
    mpigo_coll *d = coll_of(comm);
    if (d == NULL) return -1;
    int64_t rsz = dt_size(rdt);
    if (rsz < 0 || rbuf == NULL || sbuf == rbuf || d->own->owed != 0) return -1;
    if (!v) {
        if (rcount < 0 || rcount * rsz > d->gather_max) return -1;
    } else {
        if (counts == NULL || displs == NULL) return -1;
        for (int j = 0; j < d->size; j++) {
            int64_t k = count_at(counts, j, big);
            if (k < 0 || k * rsz > d->gather_max) return -1;
        }
    }
#define BLOCK_LEN(j) ((v ? count_at(counts, j, big) : rcount) * rsz)
#define BLOCK_AT(j) ((char *)rbuf + (v ? displ_at(displs, j, big) * rsz : (int64_t)(j) * rcount * rsz))
    const char *src = BLOCK_AT(d->rank);
    int64_t n = BLOCK_LEN(d->rank);
    if (sbuf != MPI_IN_PLACE) {
        int64_t ssz = dt_size(sdt);
        n = scount * ssz;
        src = (const char *)sbuf;
        if (ssz < 0 || scount < 0 || n > d->gather_max || (n > 0 && sbuf == NULL)) return -1;
    }
    mpigo_rec rec;
    uint64_t s;
    int rc = bank_start(d, cc, comm, src, n, &rec, &s);
    if (rc != 0) return rc;
    bank_seen t = {0, -1, 0, 0};
    for (int j = 0; j < d->size; j++) {
        char *dst = BLOCK_AT(j);
        int64_t m = BLOCK_LEN(j);
        if (j == d->rank) {
            if (sbuf != MPI_IN_PLACE && n > 0 && m > 0) memcpy(dst, src, (size_t)(n < m ? n : m));
            continue;
        }
        const char *b;
        int64_t nj;
        if ((rc = bank_block(d, cc, comm, j, s, &b, &nj)) != 0) return rc;
        if (b == NULL) {
            t.far = 1;
            continue;
        }
        if (nj > 0 && m > 0) memcpy(dst, b, (size_t)(nj < m ? nj : m));
        seen_len(&t, j, nj, m);
    }
#undef BLOCK_LEN
#undef BLOCK_AT
    return bank_end(d, cc, comm, &rec, &t, n, n);
}

/* part_want is the bytes (*want) of a Scatter's or Scatterv's receive of rcount items
 * of rdt at rbuf, or -1 where Go would refuse the arguments or the count is past the
 * region's limit (not one a root's buffer here can serve). */
static inline int part_want(const mpigo_coll *d, const void *rbuf, int64_t rcount, MPI_Datatype rdt, int64_t *want) {
    int64_t rsz = dt_size(rdt);
    if (rsz < 0 || rcount < 0 || rcount > d->scatter_max || rbuf == MPI_IN_PLACE) return -1;
    *want = rcount * rsz;
    return *want > 0 && rbuf == NULL ? -1 : 0;
}

/* short_scatter is MPI_Scatter here (MPI_Scatter_c with big), or -1: the Go way. It is
 * the Go way's op on the region (collective's nodeScatterEntry, shmcoll's Put and
 * TakePart): the root puts its whole send buffer (at most scatter_max bytes, else the
 * root goes to Go, which puts its length alone, far), every other rank puts nothing,
 * and each copies its part of the root's block out; a non-root that finds the root's
 * far joins the schedules in Go. Any argument Go would refuse takes the Go way. */
static inline __attribute__((always_inline)) int short_scatter(const void *sbuf, int64_t scount, MPI_Datatype sdt,
                                                               void *rbuf, int64_t rcount, MPI_Datatype rdt, int root,
                                                               MPI_Comm comm, int big) {
    const int cc = MPIGO_CC_SCATTER | (big ? MPIGO_CC_LARGE : 0);
    mpigo_coll *d = coll_of(comm);
    if (d == NULL || (unsigned)root >= (unsigned)d->size || d->own->owed != 0) return -1;
    int me = d->rank;
    int64_t total = 0, block = 0, want = 0;
    if (me == root) {
        int64_t ssz = dt_size(sdt);
        if (ssz < 0 || scount < 0 || scount > d->scatter_max) return -1;
        block = scount * ssz;
        total = block * d->size;
        if (total > d->scatter_max || (total > 0 && sbuf == NULL) || sbuf == rbuf) return -1;
        if (rbuf != MPI_IN_PLACE) {
            int64_t rsz = dt_size(rdt);
            if (rsz < 0 || rcount < 0 || rcount > block || rcount * rsz != block || (block > 0 && rbuf == NULL)) return -1;
        }
    } else if (part_want(d, rbuf, rcount, rdt, &want) != 0) {
        return -1;
    }
    mpigo_rec rec;
    if (!mpigo_rec_open(&rec)) return -1;
    mpigo_own *o = d->own;
    uint64_t s;
    int64_t n = me == root ? total : 0;
    int rc = bank_put(d, cc, comm, sbuf, n, &s);
    if (rc != 0) return rc;
    if (me == root) {
        if (rbuf != MPI_IN_PLACE && block > 0) memcpy(rbuf, (const char *)sbuf + (int64_t)me * block, (size_t)block);
        o->flow_bytes += (uint64_t)(total - block);
        o->flow_ops++;
        counted(&rec, MPIGO_CC_SCATTER, total);
        return MPI_SUCCESS;
    }
    const char *b;
    rc = bank_block(d, cc, comm, root, s, &b, &n);
    if (rc != 0) return rc;
    if (b == NULL) {
        /* The root's buffer went by the schedules: the Go half joins them. */
        mpigo_coll_join((uintptr_t)comm);
        return -1;
    }
    int64_t m = n / d->size, k = m < want ? m : want;
    if (k > 0) memcpy(rbuf, b + (int64_t)me * m, (size_t)k);
    if (m != want) return mpigo_coll_block_err(cc, (uintptr_t)comm, root, m, want);
    counted(&rec, MPIGO_CC_SCATTER, want);
    return MPI_SUCCESS;
}

/* short_alltoall is MPI_Alltoall here (MPI_Alltoall_c with big), or -1: the Go way. It
 * is the Go way's op on the region (collective's nodeAlltoallEntry, shmcoll's Put and
 * TakePart): every rank puts its whole send buffer (at most alltoall_max bytes, else
 * it goes to Go, which puts its length alone, far) and copies its part of every other
 * rank's out; a rank that finds another's far joins the schedules in Go. Any argument
 * Go would refuse takes the Go way before the op. */
static inline __attribute__((always_inline)) int short_alltoall(const void *sbuf, int64_t scount, MPI_Datatype sdt,
                                                                void *rbuf, int64_t rcount, MPI_Datatype rdt,
                                                                MPI_Comm comm, int big) {
    const int cc = MPIGO_CC_ALLTOALL | (big ? MPIGO_CC_LARGE : 0);
    mpigo_coll *d = coll_of(comm);
    if (d == NULL || d->own->owed != 0) return -1;
    int64_t rsz = dt_size(rdt);
    if (rsz < 0 || rcount < 0 || rcount > d->alltoall_max || rbuf == NULL || sbuf == rbuf) return -1;
    int64_t m = rcount * rsz, sm = m;
    const char *src = (const char *)rbuf;
    if (sbuf != MPI_IN_PLACE) {
        int64_t ssz = dt_size(sdt);
        if (ssz < 0 || scount < 0 || scount > d->alltoall_max || sbuf == NULL) return -1;
        sm = scount * ssz;
        src = (const char *)sbuf;
    }
    int64_t n = sm * d->size;
    if (n > d->alltoall_max || m * d->size > d->alltoall_max) return -1;
    mpigo_rec rec;
    uint64_t s;
    int rc = bank_start(d, cc, comm, src, n, &rec, &s);
    if (rc != 0) return rc;
    bank_seen t = {0, -1, 0, 0};
    int me = d->rank;
    for (int j = 0; j < d->size; j++) {
        char *dst = (char *)rbuf + (int64_t)j * m;
        const char *b = src;
        int64_t part = sm;
        if (j != me) {
            int64_t nj;
            if ((rc = bank_block(d, cc, comm, j, s, &b, &nj)) != 0) return rc;
            if (b == NULL) {
                t.far = 1;
                continue;
            }
            part = nj / d->size;
        } else if (sbuf == MPI_IN_PLACE) {
            continue;
        }
        if (part > 0 && m > 0) memcpy(dst, b + (int64_t)me * part, (size_t)(part < m ? part : m));
        seen_len(&t, j, part, m);
    }
    return bank_end(d, cc, comm, &rec, &t, n - sm, n);
}

/* MPIGO_V_END is the bytes of an entry of a v form's block's table: where a rank's
 * part ends (collective's vEnd). */
#define MPIGO_V_END 4

/* v_image writes at img a v form's block (collective's putV): a table of where each of
 * the size parts ends (uint32, native order), then the parts of buf by counts and
 * displs (elements of esz bytes) in rank order. */
static inline void v_image(char *img, const void *buf, const void *counts, const void *displs, int64_t esz, int size,
                           int big) {
    uint32_t end = 0;
    for (int j = 0; j < size; j++) {
        int64_t k = count_at(counts, j, big) * esz;
        if (k > 0) memcpy(img + MPIGO_V_END * size + end, (const char *)buf + displ_at(displs, j, big) * esz, (size_t)k);
        end += (uint32_t)k;
        memcpy(img + MPIGO_V_END * j, &end, sizeof end);
    }
}

/* v_part is rank k's part of a v form's block b of size parts (collective's vPart):
 * its length, and its bytes at *p. */
static inline int64_t v_part(const char *b, int k, int size, const char **p) {
    uint32_t at = 0, to;
    if (k > 0) memcpy(&at, b + MPIGO_V_END * (k - 1), sizeof at);
    memcpy(&to, b + MPIGO_V_END * k, sizeof to);
    *p = b + MPIGO_V_END * size + at;
    return (int64_t)to - at;
}

/* short_alltoallv is MPI_Alltoallv here (MPI_Alltoallv_c with big), or -1: the Go way.
 * It is the Go way's op on the region (collective's nodeAlltoallvEntry): every rank
 * puts one block, a table of where each rank's part ends (uint32, native order) and
 * the parts after it in rank order (parts of at most alltoall_max bytes in all, and
 * the block within a slot, else it goes to Go, which puts its length alone, far), waits for every other rank's, and only then
 * copies its part of each out; a rank that finds another's far joins the schedules in
 * Go, its receive buffer untouched (an in-place call's parts are read from it). Any
 * argument Go would refuse takes the Go way before the op. */
static inline __attribute__((always_inline)) int short_alltoallv(const void *sbuf, const void *scounts,
                                                                 const void *sdispls, MPI_Datatype sdt, void *rbuf,
                                                                 const void *rcounts, const void *rdispls,
                                                                 MPI_Datatype rdt, MPI_Comm comm, int big) {
    const int cc = MPIGO_CC_ALLTOALLV | (big ? MPIGO_CC_LARGE : 0);
    mpigo_coll *d = coll_of(comm);
    if (d == NULL || d->own->owed != 0) return -1;
    int64_t rsz = dt_size(rdt), ssz = rsz;
    if (rsz < 0 || rbuf == NULL || sbuf == rbuf || rcounts == NULL || rdispls == NULL) return -1;
    int in_place = sbuf == MPI_IN_PLACE;
    if (in_place) {
        sbuf = rbuf, scounts = rcounts, sdispls = rdispls;
    } else {
        ssz = dt_size(sdt);
        if (ssz < 0 || sbuf == NULL || scounts == NULL || sdispls == NULL) return -1;
    }
    const int size = d->size, me = d->rank;
    int64_t data = 0;
    for (int j = 0; j < size; j++) {
        int64_t k = count_at(scounts, j, big), r = count_at(rcounts, j, big);
        if (k < 0 || r < 0 || k > d->alltoall_max || r > d->alltoall_max || displ_at(sdispls, j, big) < 0 ||
            displ_at(rdispls, j, big) < 0)
            return -1;
        data += k * ssz;
    }
    int64_t n = MPIGO_V_END * size + data;
    if (data > d->alltoall_max || n > d->slot) return -1;
#define SPART(j) ((const char *)sbuf + displ_at(sdispls, j, big) * ssz)
    mpigo_rec rec;
    uint64_t s;
    char *img;
    int rc = bank_start_at(d, cc, comm, n, &rec, &s, &img);
    if (rc != 0) return rc;
    v_image(img, sbuf, scounts, sdispls, ssz, size, big);
    bank_publish(d, s, n);
    bank_seen t = {0, -1, 0, 0};
    for (int j = 0; j < size; j++) {
        const char *b;
        int64_t nj;
        if (j == me) continue;
        if ((rc = bank_block(d, cc, comm, j, s, &b, &nj)) != 0) return rc;
        if (b == NULL) t.far = 1;
    }
    if (t.far) return bank_end(d, cc, comm, &rec, &t, 0, 0);
    for (int j = 0; j < size; j++) {
        char *dst = (char *)rbuf + displ_at(rdispls, j, big) * rsz;
        int64_t m = count_at(rcounts, j, big) * rsz, part;
        const char *p;
        if (j == me) {
            p = SPART(j), part = count_at(scounts, j, big) * ssz;
        } else {
            const char *b;
            int64_t nj;
            bank_block(d, cc, comm, j, s, &b, &nj); /* arrived */
            part = v_part(b, me, size, &p);
        }
        if (part > 0 && m > 0 && p != dst) memcpy(dst, p, (size_t)(part < m ? part : m));
        seen_len(&t, j, part, m);
    }
#undef SPART
    return bank_end(d, cc, comm, &rec, &t, n - MPIGO_V_END * size, n);
}

/* short_scatterv is MPI_Scatterv here (MPI_Scatterv_c with big), or -1: the Go way. It
 * is the Go way's op on the region (collective's nodeScattervEntry): a Scatter's, the
 * root's block a v form's (v_image), its parts of at most scatter_max bytes in all and
 * the block within a slot (else the root goes to Go, which puts its length alone,
 * far); every other rank puts nothing and copies its part out (v_part), or, finding the
 * root's far, joins the schedules in Go. Any argument Go would refuse takes the Go way
 * before the op. */
static inline __attribute__((always_inline)) int short_scatterv(const void *sbuf, const void *counts,
                                                                const void *displs, MPI_Datatype sdt, void *rbuf,
                                                                int64_t rcount, MPI_Datatype rdt, int root,
                                                                MPI_Comm comm, int big) {
    const int cc = MPIGO_CC_SCATTERV | (big ? MPIGO_CC_LARGE : 0);
    mpigo_coll *d = coll_of(comm);
    if (d == NULL || (unsigned)root >= (unsigned)d->size || d->own->owed != 0) return -1;
    const int me = d->rank, size = d->size;
    int64_t ssz = 0, data = 0, n = 0, want = 0;
    if (me == root) {
        ssz = dt_size(sdt);
        if (ssz < 0 || sbuf == NULL || sbuf == rbuf || counts == NULL || displs == NULL) return -1;
        for (int j = 0; j < size; j++) {
            int64_t k = count_at(counts, j, big);
            if (k < 0 || k > d->scatter_max || displ_at(displs, j, big) < 0) return -1;
            data += k * ssz;
        }
        n = MPIGO_V_END * size + data;
        if (data > d->scatter_max || n > d->slot) return -1;
    }
    if ((me != root || rbuf != MPI_IN_PLACE) && part_want(d, rbuf, rcount, rdt, &want) != 0) return -1;
    mpigo_rec rec;
    uint64_t s;
    char *img;
    int rc = bank_start_at(d, cc, comm, n, &rec, &s, &img);
    if (rc != 0) return rc;
    const char *p = NULL;
    int64_t part;
    if (me == root) {
        v_image(img, sbuf, counts, displs, ssz, size, big);
        bank_publish(d, s, n);
        if (rbuf == MPI_IN_PLACE) want = part = 0;
        else p = (const char *)sbuf + displ_at(displs, me, big) * ssz, part = count_at(counts, me, big) * ssz;
        d->own->flow_bytes += (uint64_t)(data - part);
        d->own->flow_ops++;
    } else {
        bank_publish(d, s, 0);
        const char *b;
        int64_t nj;
        if ((rc = bank_block(d, cc, comm, root, s, &b, &nj)) != 0) return rc;
        if (b == NULL) {
            /* The root's parts went by the schedules: the Go half joins them. */
            mpigo_coll_join((uintptr_t)comm);
            return -1;
        }
        part = v_part(b, me, size, &p);
    }
    if (part > 0 && want > 0) memcpy(rbuf, p, (size_t)(part < want ? part : want));
    if (part != want) return mpigo_coll_block_err(cc, (uintptr_t)comm, root, part, want);
    counted(&rec, MPIGO_CC_SCATTERV, want);
    return MPI_SUCCESS;
}

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    int rc = short_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, 0);
    return rc >= 0 ? rc
                   : goPMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                    MPI_Comm comm) {
    int rc = short_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, 1);
    return rc >= 0 ? rc
                   : goPMPI_Scatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                                       comm);
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
    int rc = short_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, 0);
    return rc >= 0 ? rc
                   : goPMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                      comm);
}

int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                     MPI_Datatype recvtype, MPI_Comm comm) {
    int rc = short_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, 1);
    return rc >= 0 ? rc
                   : goPMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                        recvtype, comm);
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
    int rc = short_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, 0);
    return rc >= 0 ? rc : goPMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    int rc = short_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, 1);
    return rc >= 0 ? rc : goPMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
    int rc = short_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, 0);
    return rc >= 0 ? rc : goPMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    int rc = short_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, 1);
    return rc >= 0 ? rc : goPMPI_Scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) {
    int rc = short_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, comm, 0, 0);
    return rc >= 0 ? rc : goPMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    int rc = short_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, comm, 0, 1);
    return rc >= 0 ? rc : goPMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
    int rc = short_allgather(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, comm, 1, 0);
    return rc >= 0 ? rc : goPMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm) {
    int rc = short_allgather(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, comm, 1, 1);
    return rc >= 0 ? rc
                   : goPMPI_Allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

/* short_reduce_local is MPI_Reduce_local (its _c form alike): inoutbuf = inbuf (op)
 * inoutbuf on a predefined datatype with an op the kernels above have, in buffers
 * that do not overlap, up to REDUCE_LOCAL_MAX bytes (beyond, Go's kernels, with wider
 * vectors, are the faster), or -1: the Go way, which checks what this does not and
 * reports it. No communicator: the kernels' table is filled at load (collOps). */
#define REDUCE_LOCAL_MAX (16 << 10)
static inline int short_reduce_local(const void *in, void *inout, int64_t count, MPI_Datatype dt, MPI_Op op) {
    uintptr_t i = (uintptr_t)dt - 0x200;
    int bit = op_bit(op);
    if (i >= 256 || bit == 0 || (mpigo_coll_ops[i] & bit) == 0 || count < 0) return -1;
    if (count == 0) return MPI_SUCCESS;
    int64_t n = count * mpigo_short_dts[i].size; /* sizes are at most 64 KiB: no overflow below 2^47 items */
    const char *a = (const char *)in;
    char *b = (char *)inout;
    if (count >= (int64_t)1 << 47 || n > REDUCE_LOCAL_MAX || a == NULL || b == NULL || in == MPI_IN_PLACE ||
        inout == MPI_IN_PLACE || (a < b + n && b < a + n))
        return -1;
    combine(mpigo_short_dts[i].kind, bit, b, a, count);
    return MPI_SUCCESS;
}

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) {
    int rc = short_reduce_local(inbuf, inoutbuf, count, datatype, op);
    return rc >= 0 ? rc : goPMPI_Reduce_local(inbuf, inoutbuf, count, datatype, op);
}

int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op) {
    int rc = short_reduce_local(inbuf, inoutbuf, count, datatype, op);
    return rc >= 0 ? rc : goPMPI_Reduce_local_c(inbuf, inoutbuf, count, datatype, op);
}

/* short_reduce_scatter is MPI_Reduce_scatter (counts: every rank's count) or, with
 * block, MPI_Reduce_scatter_block (rcount), their _c forms with big, or -1: the Go way.
 * It is the Go way's op on the region (collective's nodeReduceScatterEntry): an
 * Allreduce of the whole vector, here within the inline lines, into scratch, of which
 * this rank copies its block out (in place, the vector is the receive buffer and the
 * block goes to its start). Any argument Go would refuse takes the Go way before the
 * op. */
static inline __attribute__((always_inline)) int short_reduce_scatter(const void *sbuf, void *rbuf,
                                                                      const void *counts, int64_t rcount,
                                                                      MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                                                      int block, int big) {
    const int cc = (block ? MPIGO_CC_REDUCE_SCATTER_BLOCK : MPIGO_CC_REDUCE_SCATTER) | (big ? MPIGO_CC_LARGE : 0);
    mpigo_coll *d = coll_of(comm);
    uintptr_t i = (uintptr_t)dt - 0x200;
    if (d == NULL || i >= 256) return -1;
    int bit = op_bit(op), kind = mpigo_short_dts[i].kind;
    int64_t size = mpigo_short_dts[i].size, total = 0, at = 0, mine = rcount;
    if ((mpigo_coll_ops[i] & bit) == 0 || size <= 0) return -1;
    if (block) {
        if (rcount < 0 || rcount > d->reduce_max) return -1;
        at = rcount * d->rank, total = rcount * d->size;
    } else {
        if (counts == NULL) return -1;
        for (int j = 0; j < d->size; j++) {
            int64_t k = count_at(counts, j, big);
            if (k < 0 || k > d->reduce_max) return -1;
            if (j == d->rank) at = total, mine = k;
            total += k;
        }
    }
    int64_t n = total * size;
    const char *src = sbuf == MPI_IN_PLACE ? (const char *)rbuf : (const char *)sbuf;
    char tmp[MPIGO_R_REDUCE_INLINE] __attribute__((aligned(16)));
    mpigo_rec rec;
    if (n > d->reduce_max || n > (int64_t)sizeof tmp || sbuf == rbuf || d->own->owed != 0 ||
        (n > 0 && src == NULL) || (mine > 0 && rbuf == NULL) || !mpigo_rec_open(&rec))
        return -1;
    int rc = allreduce_op(d, cc, comm, src, tmp, total, kind, bit, size);
    if (rc != 0) return rc;
    if (mine > 0) memcpy(rbuf, tmp + at * size, (size_t)(mine * size));
    counted(&rec, cc & ~MPIGO_CC_LARGE, n);
    return MPI_SUCCESS;
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm) {
    int rc = short_reduce_scatter(sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, 0, 0);
    return rc >= 0 ? rc : goPMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm) {
    int rc = short_reduce_scatter(sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, 0, 1);
    return rc >= 0 ? rc : goPMPI_Reduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm) {
    int rc = short_reduce_scatter(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm, 1, 0);
    return rc >= 0 ? rc : goPMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
}

int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                MPI_Op op, MPI_Comm comm) {
    int rc = short_reduce_scatter(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm, 1, 1);
    return rc >= 0 ? rc : goPMPI_Reduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype, op, comm);
}
