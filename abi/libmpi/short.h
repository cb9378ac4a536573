/* short.h - what the C short ways of the one-sided calls (short.c) read: per window a
 * copy of the device's state that decides whether an operation may be done here in C,
 * kept by the Go side (short.go), in C memory. */
#ifndef MPIGO_SHORT_H
#define MPIGO_SHORT_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "handle.h"

/* A target of a window, as this rank reaches it. */
typedef struct {
    char *mem;        /* its memory, mapped here (node shared memory or C memory) */
    int64_t size;     /* bytes */
    int64_t maxdisp;  /* size / unit: the largest displacement inside the window */
    int64_t unit;     /* displacement unit */
    uint32_t *acc;    /* its accumulate lock word in shared memory, or NULL */
    int32_t state;    /* atomic: 0 none, 1 operations, 2 operations and flush (a window
                       * whose epochs lie in Go's memory: ep NULL) */
    int32_t direct;   /* its memory is mapped here (the device's direct target) */
    /* The PSCW counters (the device's control blocks, in the node's region), when the
     * window's sync calls may run in C (mpigo_win.sync): the one Post raises at this
     * target as origin, the one Start waits on for it, the one Complete raises at it,
     * the one Wait waits on for it. */
    uint64_t *post_out, *post_in, *complete_out, *complete_in;
    /* Its passive-target lock word, this rank's holder word beside it, and its count of
     * lock requests queued by shipped origins (the device's control block). */
    uint64_t *lock, *held, *queued;
    /* For the profile: bytes and operations this rank's short ways moved to the
     * target and from it (see mpigo_calls). */
    uint64_t to_bytes, to_ops, from_bytes, from_ops;
    /* Its count of fences entered (the device's control block), when the window's sync
     * calls may run in C: the fence's barrier (winshort.c). */
    uint64_t *fence;
} mpigo_target;

/* A rank's epochs on a window: the device's own words (internal/window/epoch.go's
 * epochHead, field for field), in its control block in the node's region, which both
 * the Go calls and these read and write. */
typedef struct {
    int32_t fence, accessing, exposed, lock_all; /* atomic: 1 while open or held */
    int32_t nlocked;                             /* atomic: targets locked by MPI_Win_lock */
    int32_t n_access, n_exposure;                /* members of the open PSCW epochs */
    int32_t pad;
} mpigo_epoch;

struct mpigo_wsync; /* winshort.h */

/* A window. */
typedef struct {
    int32_t n, rank;   /* ranks in the window, this rank */
    int32_t served;    /* a progress goroutine applies requests to this rank's memory */
    int32_t stream;    /* atomic: a copy of 1 MiB or more went through Go since its last flush */
    int32_t flushall;  /* atomic: MPI_Win_flush(_local)_all have nothing to do */
    int32_t pad;
    mpigo_target *t;   /* n targets */
    uintptr_t h;       /* the window's handle: a stale one (a freed window's) finds no copy */
    /* This rank's epochs (the device's words) where they lie in the node's region, and
     * per target its lock and whether it is in the access epoch (int32 each); NULL: in
     * Go's memory, and the targets' state words say what the epochs allow. */
    mpigo_epoch *ep;
    int32_t *locks, *access_to;
    struct mpigo_wsync *sync; /* fence and PSCW in C (winshort.c); NULL: always in Go */
} mpigo_win;

/* A predefined datatype (handle 0x200 + i), as Go's tables describe it. size 0: not
 * taken here (not contiguous from 0, or not a plain type). */
typedef struct {
    int32_t size;
    uint8_t kind;     /* MPIGO_K_*: what the C kernels add */
    uint8_t atomic;   /* an 8-byte integer: accumulates with the CPU's atomics */
    uint8_t sum;      /* the device has MPI_SUM for it */
    uint8_t replace;  /* the device has MPI_REPLACE for it */
} mpigo_dt;

enum { MPIGO_K_NONE, MPIGO_K_I8, MPIGO_K_I16, MPIGO_K_I32, MPIGO_K_I64, MPIGO_K_F32, MPIGO_K_F64 };

/* What the short ways did, for the profile (internal/prof): per call its bytes and
 * sizes (as prof.Counter: bucket b holds sizes of bit length b; the count is the
 * buckets' sum), the samples a short way timed itself (timed of them, ticks in all,
 * and those that waited: prof.Tally; kept in tallies.h's block), and per target
 * (mpigo_target) what moved to and from it. Plain adds below MPI_THREAD_MULTIPLE; at it
 * a thread's own copy of the calls' counts, the targets' atomic; Go reads them at its
 * snapshots (short.go), so the short ways never cross into Go to count. */
typedef struct {
    uint64_t bytes, hist[65];
    uint64_t timed, ticks;                 /* samples that did not wait */
    uint64_t blocked, blocked_ticks;       /* samples whose wait went to Go's idle policy */
} mpigo_calls;

enum { MPIGO_C_PUT, MPIGO_C_GET, MPIGO_C_ACC, MPIGO_C_FOP, MPIGO_C_CAS, MPIGO_C_FLUSH, MPIGO_C_FLUSH_LOCAL,
       MPIGO_C_FLUSH_ALL, MPIGO_C_FLUSH_LOCAL_ALL, MPIGO_C_SEND /* p2pshort.c */, MPIGO_C_RECV, MPIGO_C_SENDRECV,
       MPIGO_C_SENDRECV_REPLACE, MPIGO_C_ISEND, MPIGO_C_IRECV, MPIGO_C_WAIT, MPIGO_C_TEST, MPIGO_C_GET_STATUS,
       MPIGO_C_WAITALL, MPIGO_C_TESTALL, MPIGO_C_GET_STATUS_ALL, MPIGO_C_WAITANY, MPIGO_C_TESTANY,
       MPIGO_C_GET_STATUS_ANY, MPIGO_C_WAITSOME, MPIGO_C_TESTSOME, MPIGO_C_GET_STATUS_SOME, MPIGO_C_REQUEST_FREE,
       MPIGO_C_CANCEL, MPIGO_C_WIN_SYNC, MPIGO_C_IPROBE, MPIGO_C_MPROBE, MPIGO_C_MRECV, MPIGO_C_IMPROBE, MPIGO_C_GETACC, MPIGO_C_N };

#define MPIGO_SHORT_WINS 1024 /* windows in slots from this on take the Go way */

/* The library's own: not in its dynamic symbol table. */
#define MPIGO_HIDDEN __attribute__((visibility("hidden")))
extern MPIGO_HIDDEN int32_t mpigo_short_live;
extern MPIGO_HIDDEN mpigo_dt mpigo_short_dts[256];
extern MPIGO_HIDDEN int32_t mpigo_short_mt; /* MPI_THREAD_MULTIPLE: threads count at once (tallies.h) */
extern MPIGO_HIDDEN int64_t mpigo_copy_vec_min, mpigo_copy_vec_max; /* window.CopyVec: copies of these sizes take the AVX loop (0, 0: none) */
extern MPIGO_HIDDEN int32_t mpigo_intel_fsrm; /* an Intel CPU with fast string moves (ERMS and FSRM), set when the library is loaded */
extern MPIGO_HIDDEN int64_t mpigo_copy_rep; /* window.CopyREP: copies from this size take REP MOVSB (0: never) */
MPIGO_HIDDEN void mpigo_short_set(uintptr_t h, mpigo_win *d);
extern MPIGO_HIDDEN mpigo_win *mpigo_short_wins[MPIGO_SHORT_WINS];

/* While the launcher says other processes share the node (internal/idle's SetShared,
 * through short.go), every wait of the C ways spins at most mpigo_shared_spin polls
 * (idle.MinSpin) and yields the core away at most mpigo_shared_handoffs times
 * (idle.MaxHandoffs) before it goes on in Go, as Go's waits do then; 0: the node is the
 * job's, and the waits follow their own policy. */
extern MPIGO_HIDDEN int32_t mpigo_shared_spin, mpigo_shared_handoffs;

/* mpigo_movsb copies n bytes forward with REP MOVSB (buffers that do not overlap;
 * memmove where there is no such instruction). */
static inline void mpigo_movsb(void *d, const void *s, size_t n) {
#if defined(__GNUC__) && defined(__x86_64__)
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
#else
    memmove(d, s, n);
#endif
}

/* mpigo_spin_cap is spin capped by the node's shared state. */
static inline int64_t mpigo_spin_cap(int64_t spin) {
    int32_t cap = __atomic_load_n(&mpigo_shared_spin, __ATOMIC_RELAXED);
    return cap > 0 && spin > cap ? cap : spin;
}

/* mpigo_handoffs_cap is a policy's handoffs under the node's shared state. */
static inline int32_t mpigo_handoffs_cap(int32_t handoffs) {
    return __atomic_load_n(&mpigo_shared_spin, __ATOMIC_RELAXED) > 0 ? mpigo_shared_handoffs : handoffs;
}

/* mpigo_win_of is the copy of window h, NULL when the Go way must take the call: h is
 * not a live window's handle (the copy in its slot is another generation's), or MPI
 * does not run. */
static inline mpigo_win *mpigo_win_of(uintptr_t h) {
    uintptr_t i = mpigo_slot(h, MPIGO_KIND_WIN);
    if (i >= MPIGO_SHORT_WINS || !__atomic_load_n(&mpigo_short_live, __ATOMIC_ACQUIRE)) return NULL;
    mpigo_win *d = __atomic_load_n(&mpigo_short_wins[i], __ATOMIC_ACQUIRE);
    return d != NULL && d->h == h ? d : NULL;
}

#endif
