/* tallies.h - what the C short ways count for the profile: per call its bytes, sizes and
 * timed samples (mpigo_calls, prof.Tally), every family's calls in one block,
 * mpigo_tally, which Go hands down to the record once (short.go), so that the short
 * ways never cross into Go to count.
 *
 * Below MPI_THREAD_MULTIPLE one thread counts, with plain adds. At it, each of the
 * first MPIGO_TSLOTS threads that count takes a copy of the block of its own
 * (mpigo_tally_slots, claimed at its first count and given back when it exits), where
 * it is the only writer: plain loads and stores, which Go's reader loads atomically;
 * threads beyond those add atomically into mpigo_tally. A locked add is most of a
 * short Put's cost at MPI_THREAD_MULTIPLE (docs/BENCHMARKS.md, "The window locks at
 * MPI_THREAD_MULTIPLE"); the Go face counts per processor for the same reason
 * (prof.SharedCount). The record sums the block and every copy. */
#ifndef MPIGO_TALLIES_H
#define MPIGO_TALLIES_H

#include <stdint.h>
#include "collshort.h"
#include "fileshort.h"
#include "short.h"
#include "winshort.h"

typedef struct {
    mpigo_calls p2p[MPIGO_C_N]; /* short.c's one-sided calls and p2pshort.c's */
    mpigo_calls coll[MPIGO_CC_N];
    mpigo_calls wsync[MPIGO_W_N];
    mpigo_calls file[MPIGO_FC_N];
} mpigo_tallies;

#define MPIGO_TSLOTS 8

extern MPIGO_HIDDEN mpigo_tallies mpigo_tally;
extern MPIGO_HIDDEN mpigo_tallies mpigo_tally_slots[MPIGO_TSLOTS];

#define mpigo_short_calls (mpigo_tally.p2p)
#define mpigo_coll_calls (mpigo_tally.coll)
#define mpigo_wsync_calls (mpigo_tally.wsync)
#define mpigo_file_calls (mpigo_tally.file)

/* A thread's part of the counting at MPI_THREAD_MULTIPLE: its copy (slot k+1 for
 * mpigo_tally_slots[k]; 0 not claimed yet, -1 none: it counts atomically) and its own
 * countdown to the next timed sample (mpigo_conc_open). */
typedef struct {
    int32_t slot, gap;
} mpigo_thread;

extern __thread mpigo_thread mpigo_self __attribute__((tls_model("initial-exec")));

/* mpigo_claim_slot claims a copy for the calling thread (its slot, or -1). */
MPIGO_HIDDEN int32_t mpigo_claim_slot(void);

/* mpigo_mine is the calling thread's copy of c (a call's tally in mpigo_tally), or NULL
 * where it has none and must add atomically in c. */
static inline mpigo_calls *mpigo_mine(mpigo_calls *c) {
    int32_t s = mpigo_self.slot;
    if (__builtin_expect(s == 0, 0)) s = mpigo_claim_slot();
    if (s < 0) return NULL;
    return (mpigo_calls *)((char *)&mpigo_tally_slots[s - 1] + ((char *)c - (char *)&mpigo_tally));
}

/* mpigo_bump adds v to a count this thread alone writes, which Go loads atomically. */
static inline void mpigo_bump(uint64_t *p, uint64_t v) {
    __atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

/* mpigo_count_size counts a call of n bytes in c at MPI_THREAD_MULTIPLE: in the
 * thread's copy, or atomically. */
static inline void mpigo_count_size(mpigo_calls *c, int64_t n) {
    int b = n > 0 ? 64 - __builtin_clzll((uint64_t)n) : 0;
    mpigo_calls *m = mpigo_mine(c);
    if (m != NULL) {
        mpigo_bump(&m->hist[b], 1);
        mpigo_bump(&m->bytes, (uint64_t)n);
        return;
    }
    __atomic_fetch_add(&c->hist[b], 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&c->bytes, (uint64_t)n, __ATOMIC_RELAXED);
}

#endif
