/* winshort.h - what the C short ways of the window synchronisation calls (winshort.c)
 * read beside short.h's copy of a window (whose targets' control words hold the
 * fence's and PSCW's counters): the device's PSCW state, in the node's region; the
 * groups of the last Start and Post with the ranks Go translated them to. Kept by
 * short.go. */
#ifndef MPIGO_WINSHORT_H
#define MPIGO_WINSHORT_H
#include <stdint.h>
#include "collshort.h"
#include "short.h"

/* A group as ranks of the window, as Go's Start or Post found them. Valid while the
 * group handle h lives: frees is mpigo_group_frees when it was filled, and any
 * MPI_Group_free since (a freed handle may come back under another group) empties it. */
typedef struct {
    uintptr_t h; /* 0: none */
    uint64_t frees;
    int32_t n, pad;
    int32_t *ranks; /* n ranks of the window */
} mpigo_wgroup;

struct mpigo_wsync {
    /* The idle policy of the device's waits (spin, yield, handoffs), for the fence's
     * and PSCW's. */
    mpigo_coll pol;
    /* The device's PSCW words (epoch.go): the access epoch's targets and the exposure
     * epoch's origins (the epoch head's counts say how many), per rank the post and
     * complete counts Start and Wait have seen and those Post and Complete raised. */
    int32_t *access, *exposure;
    uint64_t *start_seen, *wait_seen, *post_sent, *complete_sent;
    mpigo_wgroup start, post;
};

extern MPIGO_HIDDEN uint64_t mpigo_group_frees;

/* The sync calls, as the profile counts them (tallies.h). */
enum { MPIGO_W_FENCE, MPIGO_W_START, MPIGO_W_COMPLETE, MPIGO_W_POST, MPIGO_W_WAIT, MPIGO_W_LOCK, MPIGO_W_UNLOCK, MPIGO_W_N };

/* The device's lock words (internal/window: LockShared, LockExclusive, the NoCheck bit
 * of its epoch state; internal/rma's exclusive bit), checked in winshort.go. */
#define MPIGO_DEV_LOCK_EXCLUSIVE 234
#define MPIGO_DEV_LOCK_SHARED 235
#define MPIGO_DEV_LOCK_NOCHECK (1 << 16)
#define MPIGO_LOCK_EXCL_BIT (1ull << 63)

#endif
