/* short.c - the one-sided calls' short ways in C. A C program's MPI_Put and
 * MPI_Win_flush would each cross into Go (the cgo callback: docs/BENCHMARKS.md, the C
 * ABI), which costs more than the device's short way itself: so when the target's memory is mapped in this
 * process (node shared memory), an epoch gives access to it, the datatype is one
 * predefined contiguous type on both sides and the bytes lie inside the target's
 * window, these calls do the operation here, as the device's short ways do it
 * (internal/window/fast.go): loads and stores, the CPU's atomics for 8-byte
 * integers, the target's accumulate lock for other accumulates. Anything else, and
 * every error, goes to the call's Go half (goPMPI_x, zgo.h), which checks, reports
 * through the window's error handler and takes the general path: the short way
 * changes no outcome, only its cost.
 *
 * What they read is a copy in C memory of the device's state, per window (short.h):
 * Go fills it when the window is made and refreshes it after every call that changes
 * it (the synchronisation calls, Free, Finalize); the epochs themselves they read from
 * the device's own words where those lie in the node's region (internal/window/
 * epoch.go), which winshort.c's fence and PSCW change too. C never holds Go memory. What they
 * did they count for the profile in C memory too (per call, and per target the bytes
 * moved to and from it), which Go reads at its snapshots. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3") /* the accumulate loops: vectorised as the device's kernels are */
#endif
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include "mpi.h"
#include "short.h"
#include "tallies.h"
#include "zgo.h"

int32_t mpigo_short_live;
mpigo_tallies mpigo_tally, mpigo_tally_slots[MPIGO_TSLOTS];
__thread mpigo_thread mpigo_self __attribute__((tls_model("initial-exec")));
mpigo_dt mpigo_short_dts[256];
mpigo_win *mpigo_short_wins[MPIGO_SHORT_WINS];
int32_t mpigo_short_mt;

/* The copies of mpigo_tally not claimed (bit k: mpigo_tally_slots[k]). A thread gives
 * its copy back when it exits (slot_key's destructor), for the next to add on. */
static uint32_t slots_free = (1u << MPIGO_TSLOTS) - 1;
static pthread_key_t slot_key;
static int slot_key_ok;

static void slot_release(void *v) {
    uint32_t k = (uint32_t)(uintptr_t)v - 1;
    mpigo_self.slot = -1; /* a count in a later destructor of this thread's: atomic */
    __atomic_fetch_or(&slots_free, 1u << k, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void slot_key_make(void) {
    slot_key_ok = pthread_key_create(&slot_key, slot_release) == 0;
}

int32_t mpigo_claim_slot(void) {
    uint32_t f = __atomic_load_n(&slots_free, __ATOMIC_ACQUIRE);
    while (slot_key_ok && f != 0) {
        uint32_t k = (uint32_t)__builtin_ctz(f);
        if (!__atomic_compare_exchange_n(&slots_free, &f, f & ~(1u << k), 1, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
            continue;
        if (pthread_setspecific(slot_key, (void *)(uintptr_t)(k + 1)) != 0) {
            __atomic_fetch_or(&slots_free, 1u << k, __ATOMIC_RELEASE);
            break;
        }
        return mpigo_self.slot = (int32_t)k + 1;
    }
    return mpigo_self.slot = -1;
}

/* The profile's counts of what moved to and from each target (short.h): plain adds
 * unless threads may count at once (mpigo_short_mt, set before any window exists, read
 * once per call). The Go reader loads them atomically; an aligned 8-byte store is
 * never seen torn. The calls' own counts are tallies.h's. */
static inline void add(uint64_t *p, uint64_t v, int mt) {
    if (mt) __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    else *p += v;
}

/* link counts an operation of n bytes in a target's to_bytes or from_bytes (p) and
 * the operations that follow it. */
static inline void link(uint64_t *p, int64_t n, int mt) {
    if (p) {
        add(&p[0], (uint64_t)n, mt);
        add(&p[1], 1, mt);
    }
}

/* counted counts a call of n bytes and what it moved to its target (to: the target's
 * to_bytes) and from it (from), each when not NULL. */
static inline void counted(int call, int64_t n, uint64_t *to, uint64_t *from) {
    mpigo_calls *c = &mpigo_short_calls[call];
    int b = n > 0 ? 64 - __builtin_clzll((uint64_t)n) : 0;
    if (__builtin_expect(mpigo_short_mt != 0, 0)) {
        mpigo_count_size(c, n);
        link(to, n, 1);
        link(from, n, 1);
        return;
    }
    c->hist[b]++;
    c->bytes += (uint64_t)n;
    link(to, n, 0);
    link(from, n, 0);
}

/* Copies of 1 MiB and more take the Go way, whose cost model chooses how they touch the
 * caches (win_fast.go copyDirect); a crossing is nothing beside them. */
#define SHORT_MAX (1 << 20)

/* The copies below SHORT_MAX move as the Go way's do (window.Win.copyDirect), so that a
 * C program's Put and Get run at the same speed as a Go program's: from COPY_LOOP bytes
 * on, Go's memmove copies with REP MOVSB only on Intel's cores that have ERMS and FSRM,
 * with AVX loops elsewhere; glibc's memmove takes REP MOVSB from about 2 KiB up to the
 * L2 cache's size on every core that has FSRM, which on AMD's is slower than the loop
 * below the first-level cache's size (docs/BENCHMARKS.md, issue 36's get_bw); from
 * COPY_REP bytes on AMD's cores with ERMS and FSRM, REP MOVSB is the faster
 * (ntcopy.Move, docs/BENCHMARKS.md, "Copies on AMD"); on Intel's cores with ERMS and
 * FSRM, Go copies 2 to 8 KiB with the loop (ntcopy.MoveCached). copy_loop, set when the
 * library is loaded, says whether the loop is Go's choice on this CPU from COPY_LOOP
 * bytes; mpigo_copy_rep, set by Go (short.go, from window.CopyREP), the size from which
 * Go copies with REP MOVSB (0: never); mpigo_copy_vec_min and _max (window.CopyVec) the
 * sizes Go copies with the loop where copy_loop is 0 (0, 0: none). */
#define COPY_LOOP 2048
static int32_t copy_loop;
int32_t mpigo_intel_fsrm;
int64_t mpigo_copy_rep, mpigo_copy_vec_min, mpigo_copy_vec_max;
int32_t mpigo_shared_spin, mpigo_shared_handoffs;

#if defined(__GNUC__) && defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

__attribute__((constructor)) static void copy_choose(void) {
    unsigned a, b = 0, c, d = 0;
    __builtin_cpu_init();
    __get_cpuid_count(7, 0, &a, &b, &c, &d);
    int erms = (b >> 9) & 1, fsrm = (d >> 4) & 1;
    mpigo_intel_fsrm = __builtin_cpu_is("intel") && erms && fsrm;
    if (!__builtin_cpu_supports("avx")) return;
    copy_loop = !mpigo_intel_fsrm;
}

/* copy_avx is Go's avxUnaligned below its non-temporal size: n >= 256 bytes between
 * buffers that do not overlap, 128 bytes a step in 32-byte loads and stores aligned at
 * the destination; the first 32 and last 128 bytes are loaded before the loop and
 * stored after it, which covers the unaligned head and the tail. */
__attribute__((target("avx"), noinline)) static void copy_avx(char *d, const char *s, size_t n) {
    __m256i head = _mm256_loadu_si256((const __m256i *)s);
    __m256i t0 = _mm256_loadu_si256((const __m256i *)(s + n - 128));
    __m256i t1 = _mm256_loadu_si256((const __m256i *)(s + n - 96));
    __m256i t2 = _mm256_loadu_si256((const __m256i *)(s + n - 64));
    __m256i t3 = _mm256_loadu_si256((const __m256i *)(s + n - 32));
    size_t k = 32 - ((uintptr_t)d & 31); /* to the destination's first aligned byte */
    for (; n - k > 128; k += 128) {
        __m256i v0 = _mm256_loadu_si256((const __m256i *)(s + k));
        __m256i v1 = _mm256_loadu_si256((const __m256i *)(s + k + 32));
        __m256i v2 = _mm256_loadu_si256((const __m256i *)(s + k + 64));
        __m256i v3 = _mm256_loadu_si256((const __m256i *)(s + k + 96));
        _mm256_store_si256((__m256i *)(d + k), v0);
        _mm256_store_si256((__m256i *)(d + k + 32), v1);
        _mm256_store_si256((__m256i *)(d + k + 64), v2);
        _mm256_store_si256((__m256i *)(d + k + 96), v3);
    }
    _mm256_storeu_si256((__m256i *)(d + n - 128), t0);
    _mm256_storeu_si256((__m256i *)(d + n - 96), t1);
    _mm256_storeu_si256((__m256i *)(d + n - 64), t2);
    _mm256_storeu_si256((__m256i *)(d + n - 32), t3);
    _mm256_storeu_si256((__m256i *)d, head);
}
#else
static void copy_avx(char *d, const char *s, size_t n) { memmove(d, s, n); }
#endif

/* copy is memmove(d, s, n) for the short ways' Put and Get, as the Go way copies;
 * buffers that overlap (an origin inside this rank's own window) take memmove. */
static inline void copy(void *d, const void *s, int64_t n) {
    uintptr_t dd = (uintptr_t)d, ss = (uintptr_t)s;
    int apart = dd - ss >= (uint64_t)n && ss - dd >= (uint64_t)n;
    if (apart && n >= COPY_LOOP && copy_loop) {
        if (mpigo_copy_rep > 0 && n >= mpigo_copy_rep)
            mpigo_movsb(d, s, (size_t)n);
        else
            copy_avx(d, s, (size_t)n);
    } else if (apart && n >= mpigo_copy_vec_min && n <= mpigo_copy_vec_max)
        copy_avx(d, s, (size_t)n);
    else
        memmove(d, s, (size_t)n);
}

void mpigo_short_set(uintptr_t h, mpigo_win *d) {
    uintptr_t i = mpigo_slot(h, MPIGO_KIND_WIN);
    if (i < MPIGO_SHORT_WINS) __atomic_store_n(&mpigo_short_wins[i], d, __ATOMIC_RELEASE);
}

static inline mpigo_win *win_of(MPI_Win h) { return mpigo_win_of((uintptr_t)h); }

static inline const mpigo_dt *dt_of(MPI_Datatype h) {
    uintptr_t i = (uintptr_t)h - 0x200;
    return i < 256 && mpigo_short_dts[i].size > 0 ? &mpigo_short_dts[i] : NULL;
}

/* state is what the epochs allow at target rank (the device's ShortState): 0 nothing
 * (not a rank of the window, not direct, no epoch), 1 operations (a fence or PSCW
 * access epoch), 2 operations and flush (a lock). Read from the device's own words
 * where they lie in the region, which winshort.c's fence and PSCW change too. */
static inline int state(const mpigo_win *d, int rank) {
    if ((unsigned)rank >= (unsigned)d->n) return 0;
    if (d->ep == NULL) return __atomic_load_n(&d->t[rank].state, __ATOMIC_ACQUIRE);
    if (!d->t[rank].direct) return 0;
    if (__atomic_load_n(&d->locks[rank], __ATOMIC_ACQUIRE) != 0) return 2;
    return __atomic_load_n(&d->ep->fence, __ATOMIC_ACQUIRE) != 0 || __atomic_load_n(&d->access_to[rank], __ATOMIC_ACQUIRE) != 0;
}

/* at returns where n bytes from disp of target rank lie here, when an operation on
 * them may take the short way: the device's directPeer and at. */
static inline char *at(const mpigo_win *d, int rank, MPI_Aint disp, int64_t n, uint32_t **acc) {
    if (state(d, rank) < 1 || (rank == d->rank && d->served)) return NULL;
    const mpigo_target *t = &d->t[rank];
    if (disp < 0 || disp > t->maxdisp) return NULL;
    int64_t off = disp * t->unit; /* <= size: no overflow */
    if (n > t->size - off) return NULL;
    if (acc) *acc = t->acc;
    return t->mem + off;
}

/* bytes is count items of h when origin and target are the same count of the same
 * predefined type and the call may take the short way; 0 otherwise. */
static inline int64_t bytes(const void *buf, int64_t oc, MPI_Datatype odt, int64_t tc, MPI_Datatype tdt, const mpigo_dt **dt) {
    if (oc != tc || odt != tdt || oc <= 0 || oc >= SHORT_MAX || buf == NULL) return 0;
    const mpigo_dt *t = dt_of(odt);
    if (t == NULL) return 0;
    int64_t n = oc * t->size; /* sizes are at most 64 KiB: no overflow */
    if (n >= SHORT_MAX) return 0;
    if (dt) *dt = t;
    return n;
}

/* short_none reports whether a call that moves nothing (both counts 0, one predefined
 * datatype) may complete on the short way, and counts it: its target is in the epoch
 * and its displacement inside the window, so the Go way would find nothing wrong and
 * do nothing. */
static inline int short_none(int call, int64_t oc, MPI_Datatype odt, int rank, MPI_Aint disp, int64_t tc, MPI_Datatype tdt, MPI_Win win) {
    mpigo_win *d;
    if (oc != 0 || tc != 0 || odt != tdt || dt_of(odt) == NULL || (d = win_of(win)) == NULL || at(d, rank, disp, 0, NULL) == NULL)
        return 0;
    counted(call, 0, NULL, NULL);
    return 1;
}

static inline int short_put(const void *o, int64_t oc, MPI_Datatype odt, int rank, MPI_Aint disp, int64_t tc, MPI_Datatype tdt, MPI_Win win) {
    int64_t n = bytes(o, oc, odt, tc, tdt, NULL);
    mpigo_win *d;
    char *p;
    if (n == 0) return short_none(MPIGO_C_PUT, oc, odt, rank, disp, tc, tdt, win);
    if ((d = win_of(win)) == NULL || (p = at(d, rank, disp, n, NULL)) == NULL) return 0;
    uint64_t *to = &d->t[rank].to_bytes; /* before the store, which may alias d->t */
    if (n == 8) memcpy(p, o, 8); /* one store */
    else copy(p, o, n);
    counted(MPIGO_C_PUT, n, to, NULL);
    return 1;
}

static inline int short_get(void *o, int64_t oc, MPI_Datatype odt, int rank, MPI_Aint disp, int64_t tc, MPI_Datatype tdt, MPI_Win win) {
    int64_t n = bytes(o, oc, odt, tc, tdt, NULL);
    mpigo_win *d;
    char *p;
    if (n == 0) return short_none(MPIGO_C_GET, oc, odt, rank, disp, tc, tdt, win);
    if ((d = win_of(win)) == NULL || (p = at(d, rank, disp, n, NULL)) == NULL) return 0;
    uint64_t *from = &d->t[rank].from_bytes;
    if (n == 8) memcpy(o, p, 8);
    else copy(o, p, n);
    counted(MPIGO_C_GET, n, NULL, from);
    return 1;
}

/* The accumulate lock: rma.Lock and rma.Unlock's protocol on the same word. */
static inline void acc_lock(uint32_t *w) {
    for (int i = 1;; i++) {
        uint32_t z = 0;
        if (__atomic_compare_exchange_n(w, &z, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return;
        if ((i & 63) == 63) sched_yield();
    }
}

/* A release store: what was written under the lock reaches a taker that sees 0 (as
 * rma.Unlock), without the wait for this core's stores that a sequentially consistent
 * one makes. */
static inline void acc_unlock(uint32_t *w) { __atomic_store_n(w, 0, __ATOMIC_RELEASE); }

/* Unrolled, the vector loop issues several loads before its stores: twice as fast on a
 * 4 KiB accumulate, whose stores otherwise stall the next loads (the origin and target
 * often share their addresses' low 12 bits). */
#if defined(__GNUC__) && !defined(__clang__)
#define UNROLL _Pragma("GCC unroll 4")
#else
#define UNROLL
#endif
#define SUM_LOOP(T, t, o, n)                                                              \
    do {                                                                                  \
        T *restrict t_ = (T *)(t);                                                        \
        const T *restrict o_ = (const T *)(o);                                            \
        UNROLL for (int64_t i_ = 0; i_ < (n) / (int64_t)sizeof(T); i_++) t_[i_] = t_[i_] + o_[i_]; \
    } while (0)

/* sum adds origin into target element-wise, as the device's kernels do (integers wrap:
 * the unsigned type of the width); with AVX2 where the CPU has it, as they do. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
static void sum(int kind, void *t, const void *o, int64_t n) {
    switch (kind) {
    case MPIGO_K_I8: SUM_LOOP(uint8_t, t, o, n); break;
    case MPIGO_K_I16: SUM_LOOP(uint16_t, t, o, n); break;
    case MPIGO_K_I32: SUM_LOOP(uint32_t, t, o, n); break;
    case MPIGO_K_I64: SUM_LOOP(uint64_t, t, o, n); break;
    case MPIGO_K_F32: SUM_LOOP(float, t, o, n); break;
    case MPIGO_K_F64: SUM_LOOP(double, t, o, n); break;
    }
}

static inline int short_acc(const void *o, int64_t oc, MPI_Datatype odt, int rank, MPI_Aint disp, int64_t tc, MPI_Datatype tdt, MPI_Op op, MPI_Win win) {
    const mpigo_dt *dt = NULL;
    int64_t n = bytes(o, oc, odt, tc, tdt, &dt);
    if (n == 0) return (op == MPI_SUM || op == MPI_REPLACE) && short_none(MPIGO_C_ACC, oc, odt, rank, disp, tc, tdt, win);
    int replace = op == MPI_REPLACE;
    if (!(replace ? dt->replace : op == MPI_SUM && dt->sum && dt->kind != MPIGO_K_NONE)) return 0;
    mpigo_win *d = win_of(win);
    uint32_t *lock = NULL;
    char *p;
    if (d == NULL || (p = at(d, rank, disp, n, &lock)) == NULL) return 0;
    if (dt->atomic) {
        /* 8-byte integers one by one with the CPU's atomics (rma.accAtomic). */
        if ((uintptr_t)p & 7) return 0;
        uint64_t *w = (uint64_t *)p;
        for (int64_t i = 0; i < n / 8; i++) {
            uint64_t v;
            memcpy(&v, (const char *)o + 8 * i, 8);
            if (replace) __atomic_exchange_n(&w[i], v, __ATOMIC_SEQ_CST);
            else __atomic_fetch_add(&w[i], v, __ATOMIC_SEQ_CST);
        }
    } else {
        if (lock == NULL) return 0; /* the lock word is Go's memory: the Go way takes it */
        acc_lock(lock);
        if (replace) memmove(p, o, n);
        else sum(dt->kind, p, o, n);
        acc_unlock(lock);
    }
    counted(MPIGO_C_ACC, n, &d->t[rank].to_bytes, NULL);
    return 1;
}

/* short_word is where the 8-byte integer at disp of target rank lies, for the atomics
 * of MPI_Fetch_and_op and MPI_Compare_and_swap, when they may take the short way. */
static inline uint64_t *short_word(MPI_Datatype dh, int rank, MPI_Aint disp, MPI_Win win, mpigo_win **dp) {
    const mpigo_dt *dt = dt_of(dh);
    mpigo_win *d;
    char *p;
    if (dt == NULL || !dt->atomic || (d = win_of(win)) == NULL || (p = at(d, rank, disp, 8, NULL)) == NULL ||
        ((uintptr_t)p & 7))
        return NULL;
    *dp = d;
    return (uint64_t *)p;
}

int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
    if (short_put(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win)) return MPI_SUCCESS;
    return goPMPI_Put(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win);
}

int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
    if (short_put(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win)) return MPI_SUCCESS;
    return goPMPI_Put_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win);
}

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
    if (short_get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win)) return MPI_SUCCESS;
    return goPMPI_Get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win);
}

int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
    if (short_get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win)) return MPI_SUCCESS;
    return goPMPI_Get_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win);
}

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
    if (short_acc(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, op, win)) return MPI_SUCCESS;
    return goPMPI_Accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, op, win);
}

int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
    if (short_acc(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, op, win)) return MPI_SUCCESS;
    return goPMPI_Accumulate_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, op, win);
}

/* A Get_accumulate that moves nothing: both counts 0 with one predefined datatype, and
 * the result's count 0 too. */
static inline int short_getacc_none(int64_t oc, MPI_Datatype odt, int64_t rc, MPI_Datatype rdt, int rank, MPI_Aint disp, int64_t tc, MPI_Datatype tdt, MPI_Op op, MPI_Win win) {
    return rc == 0 && rdt == tdt && (op == MPI_NO_OP || (oc == 0 && odt == tdt)) &&
           (op == MPI_SUM || op == MPI_REPLACE || op == MPI_NO_OP) && short_none(MPIGO_C_GETACC, 0, tdt, rank, disp, tc, tdt, win);
}

int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
    if (short_getacc_none(origin_count, origin_datatype, result_count, result_datatype, target_rank, target_disp, target_count, target_datatype, op, win)) return MPI_SUCCESS;
    return goPMPI_Get_accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype, target_rank, target_disp, target_count, target_datatype, op, win);
}

int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
    if (short_getacc_none(origin_count, origin_datatype, result_count, result_datatype, target_rank, target_disp, target_count, target_datatype, op, win)) return MPI_SUCCESS;
    return goPMPI_Get_accumulate_c(origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype, target_rank, target_disp, target_count, target_datatype, op, win);
}

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
    uint64_t *w, v = 0, old;
    mpigo_win *d;
    if (result_addr != NULL && (origin_addr != NULL || op == MPI_NO_OP) && (op == MPI_SUM || op == MPI_REPLACE || op == MPI_NO_OP) &&
        (w = short_word(datatype, target_rank, target_disp, win, &d)) != NULL) {
        if (origin_addr != NULL) memcpy(&v, origin_addr, 8);
        if (op == MPI_SUM) old = __atomic_fetch_add(w, v, __ATOMIC_SEQ_CST);
        else if (op == MPI_REPLACE) old = __atomic_exchange_n(w, v, __ATOMIC_SEQ_CST);
        else old = __atomic_load_n(w, __ATOMIC_SEQ_CST);
        memcpy(result_addr, &old, 8);
        counted(MPIGO_C_FOP, 8, op == MPI_NO_OP ? NULL : &d->t[target_rank].to_bytes, &d->t[target_rank].from_bytes);
        return MPI_SUCCESS;
    }
    return goPMPI_Fetch_and_op(origin_addr, result_addr, datatype, target_rank, target_disp, op, win);
}

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win) {
    uint64_t *w, v, cmp;
    mpigo_win *d;
    if (origin_addr != NULL && compare_addr != NULL && result_addr != NULL &&
        (w = short_word(datatype, target_rank, target_disp, win, &d)) != NULL) {
        memcpy(&v, origin_addr, 8);
        memcpy(&cmp, compare_addr, 8);
        /* On failure cmp receives what the word held; on success it held cmp. */
        __atomic_compare_exchange_n(w, &cmp, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        memcpy(result_addr, &cmp, 8);
        counted(MPIGO_C_CAS, 8, &d->t[target_rank].to_bytes, &d->t[target_rank].from_bytes);
        return MPI_SUCCESS;
    }
    return goPMPI_Compare_and_swap(origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp, win);
}

/* Flush of a target this rank holds a lock on whose memory is mapped here: its
 * operations completed in their calls (the device's FlushDirect). Where a progress
 * goroutine runs, or Go copied a stream since the last flush, the Go half does it: it
 * has more to do then. */
int PMPI_Win_flush(int rank, MPI_Win win) {
    mpigo_win *d = win_of(win);
    if (d != NULL && !d->served && state(d, rank) == 2 && !__atomic_load_n(&d->stream, __ATOMIC_ACQUIRE)) {
        counted(MPIGO_C_FLUSH, 0, NULL, NULL);
        return MPI_SUCCESS;
    }
    return goPMPI_Win_flush(rank, win);
}

int PMPI_Win_flush_local(int rank, MPI_Win win) {
    mpigo_win *d = win_of(win);
    if (d != NULL && state(d, rank) == 2) {
        counted(MPIGO_C_FLUSH_LOCAL, 0, NULL, NULL);
        return MPI_SUCCESS;
    }
    return goPMPI_Win_flush_local(rank, win);
}

/* flushall reports whether MPI_Win_flush(_local)_all have nothing to do: this rank
 * holds a lock and every locked target is direct. On a window whose sync calls may run
 * in C (every target direct), whether it holds a lock is the device's words, which
 * winshort.c's MPI_Win_lock changes too; elsewhere Go's copy says. */
static inline int flushall(const mpigo_win *d) {
    if (d->sync != NULL)
        return __atomic_load_n(&d->ep->nlocked, __ATOMIC_ACQUIRE) != 0 || __atomic_load_n(&d->ep->lock_all, __ATOMIC_ACQUIRE) != 0;
    return __atomic_load_n(&d->flushall, __ATOMIC_ACQUIRE);
}

int PMPI_Win_flush_all(MPI_Win win) {
    mpigo_win *d = win_of(win);
    if (d != NULL && flushall(d)) {
        counted(MPIGO_C_FLUSH_ALL, 0, NULL, NULL);
        return MPI_SUCCESS;
    }
    return goPMPI_Win_flush_all(win);
}

int PMPI_Win_flush_local_all(MPI_Win win) {
    mpigo_win *d = win_of(win);
    if (d != NULL && flushall(d)) {
        counted(MPIGO_C_FLUSH_LOCAL_ALL, 0, NULL, NULL);
        return MPI_SUCCESS;
    }
    return goPMPI_Win_flush_local_all(win);
}

/* MPI_Win_sync where no progress goroutine serves this rank: a full memory barrier
 * (the device's Sync), which orders this rank's loads and stores of the window with
 * those of the ranks that map it. Where one serves, Go also orders them with it. */
int PMPI_Win_sync(MPI_Win win) {
    mpigo_win *d = win_of(win);
    if (d != NULL && !d->served) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        counted(MPIGO_C_WIN_SYNC, 0, NULL, NULL);
        return MPI_SUCCESS;
    }
    return goPMPI_Win_sync(win);
}
