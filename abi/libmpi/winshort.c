/* winshort.c - the window synchronisation calls' short ways in C. A C program's
 * MPI_Win_fence, MPI_Win_start, MPI_Win_complete, MPI_Win_post and MPI_Win_wait would
 * each cross into Go (the cgo callback: docs/BENCHMARKS.md, the C ABI), which costs
 * more than what the device does for a window whose every target is direct (node
 * shared memory) and that no progress goroutine serves: there every operation
 * completed in its call, nothing is pending in Go, and the calls are counters in the
 * ranks' control blocks (the fence's barrier, PSCW's posts and completes) and the
 * epoch's flags. So on such a window these calls run here, by
 * the device's protocol (internal/window/sync.go) on its own words: the epoch state
 * lies in this rank's control block in the node's region (internal/window/epoch.go),
 * which the Go calls read and write too, so a Put's check of its epoch, an epoch
 * error, a C rank and a Go rank meet the same state. One state, two entry points.
 *
 * Taken only where every check of mpir's would pass without a word of Go's: the
 * window's copy is live (not freed, MPI runs), its assertions are the call's (any
 * other bit: Go's MPI_ERR_ASSERT), the epochs allow the call (else Go's
 * MPI_ERR_RMA_SYNC or MPI_ERR_RMA_CONFLICT), the group is the one Go translated for
 * the last Start or Post (and no group was freed since), and the record lets a C
 * short way count the call (prof.Gate below MPI_THREAD_MULTIPLE; at it the count is
 * atomic and one call in about 64 of all threads' is timed, mpigo_conc_open). At
 * MPI_THREAD_MULTIPLE these calls run here too: a fence is collective on the window,
 * which MPI lets one thread make at a time, and an access epoch's Start and Complete
 * (an exposure epoch's Post and Wait) are one thread's to make in order, on words of
 * their own; a lock of one target is that target's words alone (this rank's lock
 * state for it, its lock word, taken by compare-and-swap, and the count of locks
 * held, changed atomically), as in the device's Lock, so threads locking different
 * targets at once meet as Go's do. Everything else goes to the Go half (goPMPI_x,
 * zgo.h) before anything is done. A wait that outlasts the idle
 * policy's spin and yields goes on in Go (mpigo_win_fence_wait for the fence's barrier,
 * mpigo_win_await for PSCW's counters), which sleeps as the device's waits do.
 *
 * The assertions (MPI 4.1 section 12.5): a fence with MPI_MODE_NOPRECEDE and
 * MPI_MODE_NOSUCCEED, which every rank then gives, neither completes nor starts
 * anything and leaves the epoch without the barrier, as the device's Fence does;
 * MPI_MODE_NOSUCCEED ends the fence epoch; MPI_MODE_NOSTORE and MPI_MODE_NOPUT ask
 * nothing here (the barrier orders loads and stores either way); MPI_MODE_NOCHECK in
 * Post and Start, which both sides then give, skips the post counters. */
#include <stdint.h>
#include "mpi.h"
#include "p2pshort.h"
#include "winshort.h"
#include "zgo.h"

uint64_t mpigo_group_frees;

/* The Go halves of a PSCW wait and a fence's wait beyond the spin (winshort.go). */
extern int32_t mpigo_win_await(uintptr_t win, void *p, uint64_t v);
extern int32_t mpigo_win_fence_wait(uintptr_t win, int32_t r, uint64_t v);

#define FENCE_ASSERTS (MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)
#define POST_ASSERTS (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT)

static inline int32_t ld(const int32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void st(int32_t *p, int32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

/* bump adds one to a post or complete counter p, which only this rank writes, from its
 * value kept in *sent (as internal/window's bump): a plain store after this rank's
 * earlier stores. A locked add would wait for them (an epoch's Puts into the target's
 * lines) and then for the counter's line before the call returns, and so would a load
 * of the line the peer is polling. */
static inline void bump(uint64_t *p, uint64_t *sent) { __atomic_store_n(p, ++*sent, __ATOMIC_RELEASE); }

/* sync_of is window h's copy when its sync calls may run here and a C short way may
 * take a call now (mpigo_gate_open, or at MPI_THREAD_MULTIPLE mpigo_conc_open: r says
 * which), else NULL: the Go way. */
static inline mpigo_win *sync_of(MPI_Win h, mpigo_rec *r) {
    mpigo_win *d = mpigo_win_of((uintptr_t)h);
    return d == NULL || d->sync == NULL || !mpigo_rec_open(r) ? NULL : d;
}

/* locking reports whether this rank holds a passive-target lock on d (mpir's
 * Locking), or is in Start's access epoch too (access). */
static inline int busy(const mpigo_win *d, int access) {
    return ld(&d->ep->nlocked) != 0 || ld(&d->ep->lock_all) != 0 || (access && ld(&d->ep->accessing) != 0);
}

/* counted counts a call for the profile (mpigo_rec_count). */
static inline void counted(mpigo_rec *r, int call) { mpigo_rec_count(r, &mpigo_wsync_calls[call], 0); }

/* group_of is g's ranks in the window as Go translated them last, or NULL (Go writes
 * the handle last: showGroup). */
static inline const mpigo_wgroup *group_of(const mpigo_wgroup *c, MPI_Group g) {
    uintptr_t h = __atomic_load_n(&c->h, __ATOMIC_ACQUIRE);
    return h == (uintptr_t)g && h != 0 && c->frees == __atomic_load_n(&mpigo_group_frees, __ATOMIC_RELAXED) ? c : NULL;
}

/* await waits until the word at p is at least v: the device's idle policy's spin and
 * yields here, then the Go half. 0, or the Go half's error code. */
static int __attribute__((noinline)) await(struct mpigo_wsync *s, MPI_Win win, uint64_t *p, uint64_t v) {
    int32_t spun;
    if (mpigo_coll_poll(&s->pol, p, v, &spun)) return 0;
    __atomic_fetch_add(&mpigo_sample.go_waits, 1, __ATOMIC_RELAXED);
    return mpigo_win_await((uintptr_t)win, p, v);
}

/* fence_barrier is the device's fenceBarrier: this rank's count of fences entered
 * raised, then every other rank's awaited. 0, or the Go half's error code. */
static int fence_barrier(mpigo_win *d, MPI_Win win) {
    uint64_t *own = d->t[d->rank].fence;
    uint64_t v = __atomic_load_n(own, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(own, v, __ATOMIC_SEQ_CST);
    for (int32_t r = 0; r < d->n; r++) {
        if (r == d->rank || __atomic_load_n(d->t[r].fence, __ATOMIC_ACQUIRE) >= v) continue;
        int32_t spun;
        if (mpigo_coll_poll(&d->sync->pol, d->t[r].fence, v, &spun)) continue;
        __atomic_fetch_add(&mpigo_sample.go_waits, 1, __ATOMIC_RELAXED);
        int rc = mpigo_win_fence_wait((uintptr_t)win, r, v);
        if (rc != 0) return rc;
    }
    return 0;
}

int PMPI_Win_fence(int assert, MPI_Win win) {
    mpigo_rec rec;
    mpigo_win *d = sync_of(win, &rec);
    if (d == NULL || (assert & ~FENCE_ASSERTS) != 0 || busy(d, 1)) return goPMPI_Win_fence(assert, win);
    if ((assert & (MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)) != (MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)) {
        int rc = fence_barrier(d, win);
        if (rc != 0) return rc;
    }
    st(&d->ep->fence, (assert & MPI_MODE_NOSUCCEED) == 0);
    counted(&rec, MPIGO_W_FENCE);
    return MPI_SUCCESS;
}

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
    mpigo_rec rec;
    mpigo_win *d = sync_of(win, &rec);
    struct mpigo_wsync *s;
    const mpigo_wgroup *g;
    if (d == NULL || (g = group_of(&(s = d->sync)->start, group)) == NULL || (assert & ~MPI_MODE_NOCHECK) != 0 ||
        busy(d, 1))
        return goPMPI_Win_start(group, assert, win);
    if ((assert & MPI_MODE_NOCHECK) == 0) {
        for (int i = 0; i < g->n; i++) {
            int t = g->ranks[i];
            uint64_t *p = d->t[t].post_in, want = s->start_seen[t] + 1;
            if (__atomic_load_n(p, __ATOMIC_ACQUIRE) < want) {
                int rc = await(s, win, p, want);
                if (rc != 0) return rc;
            }
            s->start_seen[t] = want;
        }
    }
    for (int i = 0; i < g->n; i++) {
        int t = g->ranks[i];
        s->access[i] = t;
        st(&d->access_to[t], 1);
    }
    d->ep->n_access = g->n;
    st(&d->ep->accessing, 1);
    counted(&rec, MPIGO_W_START);
    return MPI_SUCCESS;
}

int PMPI_Win_complete(MPI_Win win) {
    mpigo_rec rec;
    mpigo_win *d = sync_of(win, &rec);
    if (d == NULL || !ld(&d->ep->accessing)) return goPMPI_Win_complete(win);
    struct mpigo_wsync *s = d->sync;
    int n = d->ep->n_access;
    st(&d->ep->accessing, 0);
    for (int i = 0; i < n; i++) st(&d->access_to[s->access[i]], 0);
    /* The epoch's operations were loads and stores, done: the count tells the target. */
    for (int i = 0; i < n; i++) bump(d->t[s->access[i]].complete_out, &s->complete_sent[s->access[i]]);
    counted(&rec, MPIGO_W_COMPLETE);
    return MPI_SUCCESS;
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
    mpigo_rec rec;
    mpigo_win *d = sync_of(win, &rec);
    struct mpigo_wsync *s;
    const mpigo_wgroup *g;
    if (d == NULL || (g = group_of(&(s = d->sync)->post, group)) == NULL || (assert & ~POST_ASSERTS) != 0 ||
        ld(&d->ep->exposed))
        return goPMPI_Win_post(group, assert, win);
    for (int i = 0; i < g->n; i++) s->exposure[i] = g->ranks[i];
    d->ep->n_exposure = g->n;
    st(&d->ep->exposed, 1);
    if ((assert & MPI_MODE_NOCHECK) == 0)
        for (int i = 0; i < g->n; i++) bump(d->t[g->ranks[i]].post_out, &s->post_sent[g->ranks[i]]);
    counted(&rec, MPIGO_W_POST);
    return MPI_SUCCESS;
}

int PMPI_Win_wait(MPI_Win win) {
    mpigo_rec rec;
    mpigo_win *d = sync_of(win, &rec);
    if (d == NULL || !ld(&d->ep->exposed)) return goPMPI_Win_wait(win);
    struct mpigo_wsync *s = d->sync;
    int n = d->ep->n_exposure;
    for (int i = 0; i < n; i++) {
        int o = s->exposure[i];
        uint64_t *p = d->t[o].complete_in, want = s->wait_seen[o] + 1;
        if (__atomic_load_n(p, __ATOMIC_ACQUIRE) < want) {
            int rc = await(s, win, p, want);
            if (rc != 0) return rc;
        }
    }
    for (int i = 0; i < n; i++) s->wait_seen[s->exposure[i]]++;
    st(&d->ep->exposed, 0);
    counted(&rec, MPIGO_W_WAIT);
    return MPI_SUCCESS;
}

/* MPI_Win_lock of a target of such a window: the device's lock protocol on the
 * target's lock word (internal/rma: a count of shared holders, or the exclusive bit),
 * tried once; a lock that is held takes the Go half, which waits for it (and asks
 * whether its holders live). mpir's checks: the lock type, the assertion, a rank of the
 * window (MPI_PROC_NULL: Go), not locked by this rank already (LockAll included), not
 * in Start's access epoch. */
int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
    mpigo_rec rec;
    mpigo_win *d = sync_of(win, &rec);
    if (d == NULL || (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE) ||
        (assert & ~MPI_MODE_NOCHECK) != 0 || (unsigned)rank >= (unsigned)d->n || ld(&d->locks[rank]) != 0 ||
        ld(&d->ep->accessing) != 0)
        return goPMPI_Win_lock(lock_type, rank, assert, win);
    int excl = lock_type == MPI_LOCK_EXCLUSIVE;
    int32_t typ = excl ? MPIGO_DEV_LOCK_EXCLUSIVE : MPIGO_DEV_LOCK_SHARED;
    if (assert & MPI_MODE_NOCHECK) {
        typ |= MPIGO_DEV_LOCK_NOCHECK; /* no conflicting lock, promised: none taken */
    } else {
        mpigo_target *t = &d->t[rank];
        uint64_t v = __atomic_load_n(t->lock, __ATOMIC_ACQUIRE);
        int got = excl ? v == 0 && __atomic_compare_exchange_n(t->lock, &v, MPIGO_LOCK_EXCL_BIT, 0, __ATOMIC_SEQ_CST,
                                                               __ATOMIC_SEQ_CST)
                       : (v & MPIGO_LOCK_EXCL_BIT) == 0 &&
                             __atomic_compare_exchange_n(t->lock, &v, v + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        if (!got) return goPMPI_Win_lock(lock_type, rank, assert, win); /* held, or raced: Go waits */
        __atomic_store_n(t->held, (uint64_t)(excl ? MPIGO_DEV_LOCK_EXCLUSIVE : MPIGO_DEV_LOCK_SHARED), __ATOMIC_SEQ_CST);
    }
    st(&d->locks[rank], typ);
    __atomic_fetch_add(&d->ep->nlocked, 1, __ATOMIC_SEQ_CST);
    counted(&rec, MPIGO_W_LOCK);
    return MPI_SUCCESS;
}

/* MPI_Win_unlock of a target this rank locked with MPI_Win_lock: its operations were
 * loads and stores, done; the lock goes back, unless shipped origins queue at the
 * target (the Go half grants them). */
int PMPI_Win_unlock(int rank, MPI_Win win) {
    mpigo_rec rec;
    mpigo_win *d = sync_of(win, &rec);
    int32_t typ;
    if (d == NULL || (unsigned)rank >= (unsigned)d->n || (typ = ld(&d->locks[rank])) == 0 || ld(&d->ep->lock_all) != 0 ||
        (!(typ & MPIGO_DEV_LOCK_NOCHECK) && __atomic_load_n(d->t[rank].queued, __ATOMIC_ACQUIRE) != 0))
        return goPMPI_Win_unlock(rank, win);
    if (!(typ & MPIGO_DEV_LOCK_NOCHECK)) {
        mpigo_target *t = &d->t[rank];
        __atomic_store_n(t->held, 0, __ATOMIC_SEQ_CST);
        if (typ == MPIGO_DEV_LOCK_EXCLUSIVE) __atomic_fetch_and(t->lock, ~MPIGO_LOCK_EXCL_BIT, __ATOMIC_SEQ_CST);
        else __atomic_fetch_sub(t->lock, 1, __ATOMIC_SEQ_CST);
    }
    st(&d->locks[rank], 0);
    __atomic_fetch_sub(&d->ep->nlocked, 1, __ATOMIC_SEQ_CST);
    counted(&rec, MPIGO_W_UNLOCK);
    return MPI_SUCCESS;
}
