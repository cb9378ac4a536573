/* p2pshort.h - what the C short way of MPI_Send (p2pshort.c) reads and writes: the
 * point-to-point engine's words and a node peer's shared-memory ring, which the Go
 * library keeps in memory it maps outside Go's heap (internal/p2p/outside.go,
 * internal/transport/shm/outside.go), laid out field for field as here; per
 * communicator a copy in C memory; and where to find them, which the Go side of this
 * library sets (p2pshort.go). */
#ifndef MPIGO_P2PSHORT_H
#define MPIGO_P2PSHORT_H
#include <stdint.h>
#include "handle.h"
#include "short.h"
#include "tallies.h"

/* A traffic count: prof.Link. */
typedef struct {
    uint64_t bytes, ops;
} mpigo_link;

/* One ring to a node peer, as its sender sees it (shm's outsideRing). */
typedef struct {
    /* The producer's positions, which Go's Send advances too. */
    uint64_t cell_pos, data_pos, cons_cell, cons_data;
    uint64_t pad0[4];
    /* Where the ring lies: the receiver's segment, mapped here. */
    char *cells;
    uint64_t *cons;          /* the consumer's positions */
    uint32_t *closed;        /* the receiver's closed flag */
    uint32_t *door_seq;      /* the receiver's doorbell: ring count, */
    uint32_t *door_sleepers; /* and sleepers */
    uint64_t cell_mask, n_cells, pad1;
    char *data; /* the data ring, in the receiver's segment mapped here */
    uint64_t data_mask, data_size;
    uint64_t plain_max; /* the largest payload C copies into the data ring plainly */
    /* The sender's copy chooser (shm's ccWords): larger payloads, up to cc_max, are
     * copied with non-temporal stores if cc_nt, and counted in its epoch if cc_auto. */
    uint32_t cc_nt, cc_count;
    uint64_t cc_bytes, cc_max;
    uint32_t cc_auto, cc_copies;
} mpigo_ring;

/* One ring from a node peer, as its receiver sees it (shm's outsideInbound). */
typedef struct {
    /* The consumer's positions, which Go's drain advances too. */
    uint64_t pos, data_pos, published, published_data;
    uint64_t pad0[4];
    char *cells, *data;      /* in this rank's segment */
    uint64_t *cons;          /* the consumer's positions as the sender reads them */
    uint32_t *block;         /* the sender's blocked flag */
    uint64_t cell_mask, data_mask, data_size, lazy_cells, lazy_data;
    uint32_t *door_seq;      /* the sender's doorbell once Go mapped it, else NULL, */
    uint32_t *door_sleepers; /* and its sleepers */
    uint64_t lazy_payload;   /* larger payloads' space is given back at once */
    uint64_t pad1[4];
} mpigo_inring;

/* The engine (p2p's outsideHead). */
typedef struct {
    uint32_t ok; /* the short way may send and receive: serialised, not failed */
    int32_t self, size;
    uint32_t quiet;     /* nothing queued to any peer, no get under way */
    uint64_t head0;     /* a compact eager cell's first header word */
    mpigo_ring **rings; /* per world rank: its ring while the short way may use it */
    mpigo_link *sent;   /* per world rank, two: what was sent on even and odd contexts */
    int64_t *eager;     /* per world rank: its eager limit while its ring is shown */
    mpigo_inring **inrings; /* per world rank: the ring from it, once Go's receive found it */
    int64_t polls;      /* a receive's polls of its peer's ring before Go takes over */
    uint32_t deferred;  /* p2pshort.c holds pending receives: Go posts them first (SetDeferred) */
    uint32_t pad;
    int64_t *exch; /* per world rank: its eager limit in an exchange (p2p's exchEager) while its ring is shown */
    uint32_t lockw;  /* the engine's lock where it is shared (p2p's engineLock): 0 free, 1 held */
    uint32_t locked; /* the short ways may run holding lockw: the engine takes its lock (ok 0), shares it, not failed */
} mpigo_eng;

/* A context's matching state (p2p's ctxWords): receives posted, messages unexpected. */
typedef struct {
    uint64_t posted, queued;
} mpigo_ctxw;

/* An intracommunicator the short way may send on, as the Go side made it when the
 * communicator was made (p2pshort.go): its point-to-point context and, per rank, the
 * world rank the engine addresses. A communicator without one (an intercommunicator,
 * one of a single rank) sends every message through Go. */
typedef struct {
    uintptr_t h;  /* the communicator's handle: a stale one (a freed communicator's) finds no copy */
    uint32_t ctx;
    int32_t size;
    int32_t rank; /* this rank's */
    const int32_t *world; /* size ranks */
    const mpigo_ctxw *ctxw; /* the context's matching state; NULL: every receive takes Go */
} mpigo_comm;

/* Where the short way finds them: eng is 0 unless MPI_Init made the world and
 * MPI_Finalize has not begun; gate is the record's short-path word (prof.Gate), 0
 * where the record has none; world is MPI_COMM_WORLD's copy; conc says the record
 * lets code outside Go count the calls it does at MPI_THREAD_MULTIPLE in its own
 * tallies, timing its own samples (prof.SharedOutside: the gate is then 0). */
typedef struct {
    uintptr_t eng;
    uintptr_t gate;
    const mpigo_comm *world;
    uintptr_t conc;
} mpigo_p2p_t;

extern MPIGO_HIDDEN mpigo_p2p_t mpigo_p2p;

/* The copies of the communicators in the slots below MPIGO_SHORT_COMMS (handle.h);
 * the others take the Go way. */
#define MPIGO_SHORT_COMMS 4096
MPIGO_HIDDEN void mpigo_comm_set(uintptr_t h, const mpigo_comm *d);

/* mpigo_pause is what a spin does between two polls of a word another core writes: one
 * PAUSE (x86; YIELD on ARM), in a function of its own. Called, not inlined: a
 * shared-memory ping-pong whose spins paused inline took longer a round trip
 * (docs/BENCHMARKS.md, "The Go face against the C face on one node"), as with Go's
 * idle.Pause. */
MPIGO_HIDDEN void mpigo_pause(void);

/* Compact cells (internal/transport/shm/ring.go), checked against Go's in
 * p2pshort.go. */
#define MPIGO_CELL 128
#define MPIGO_INLINE 96                /* payload bytes */
#define MPIGO_LINE 64                  /* the data ring's unit */
#define MPIGO_SHORT_MAX (1 << 24)      /* bounds a count before it is multiplied; the peer's eager limit decides */
#define MPIGO_COMPACT (1u << 31)       /* in the stamp's high word */
#define MPIGO_GATE_INCALL (1u << 31)   /* prof.GateInCall */
#define MPIGO_SAMPLE_EVERY 64          /* prof.SampleEvery */
#define MPIGO_KIND_EAGER 1             /* p2p's kindEager */
#define MPIGO_ANY_MAX 64               /* MPI_ANY_SOURCE in C on communicators up to this size */

/* The record's sample, taken in C. The gate (prof.Gate) at 1 says the call now due is
 * the one in about MPIGO_SAMPLE_EVERY that the record times; a C short way times it
 * itself, by the record's clock, into its tally, and draws the next gap as
 * prof.nextGap does, instead of leaving the call to Go: each crossing into Go and back
 * leaves the rank's one P in the system-call state, which Go's sysmon retakes, waking
 * a thread on the rank's core (docs/BENCHMARKS.md). t0 is the sample's start, waits
 * what go_waits was then, armed whether a call began at the gate's 1 (a call that left
 * for Go after it was armed leaves it set; the next arms it again); go_waits counts the C ways' waits that outlasted their spin
 * and went on in Go (which sleeps): a sample during which it moved waited. */
typedef struct {
    uint64_t rng, t0;
    uint32_t waits, go_waits;
    uint32_t armed, pad; /* t0 is this call's: the gate was at 1 when it began */
} mpigo_sample_t;
extern MPIGO_HIDDEN mpigo_sample_t mpigo_sample;

/* mpigo_ticks is the record's clock (prof.ticks): the time-stamp counter; 0 where Go's
 * record has no short path (its gate is then NULL: no call gets here). */
static inline uint64_t mpigo_ticks(void) {
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    return 0;
#endif
}

/* mpigo_next_gap is prof.nextGap: the calls to the next sample, 1 to
 * 2*MPIGO_SAMPLE_EVERY-1, so that a program's periodic calls cannot line up with the
 * samples. */
static inline uint32_t mpigo_next_gap(void) {
    uint64_t x = mpigo_sample.rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    mpigo_sample.rng = x;
    return (uint32_t)(x % (2 * MPIGO_SAMPLE_EVERY - 1)) + 1;
}

/* mpigo_gate_open says whether a C short way may take a call now, gate's word being g
 * (prof.Later's LaterCount, or the sample due: 1 <= g < MPIGO_GATE_INCALL; 0 is the
 * timeline's or MPI_THREAD_MULTIPLE's, and the in-call bit a call under way in Go),
 * and starts the sample's clock where it is due. */
static inline int mpigo_gate_open(uint32_t g) {
    if (g - 1 >= MPIGO_GATE_INCALL - 1) return 0;
    if (__builtin_expect(g == 1, 0)) {
        mpigo_sample.t0 = mpigo_ticks();
        mpigo_sample.waits = mpigo_sample.go_waits;
        mpigo_sample.armed = 1;
    }
    return 1;
}

/* mpigo_gate_arm is mpigo_gate_open for a call that decides only at its end whether it
 * was done in C (the completion calls on the requests p2pshort.c keeps: record()). */
static inline void mpigo_gate_arm(const uint32_t *gate) {
    if (gate != NULL) (void)mpigo_gate_open(*gate);
}

/* mpigo_gate_count ends a call a C short way took and counted in c: the gate one call
 * nearer the sample, or, where this call was the sample (armed), its time into c and
 * the next gap drawn. */
static inline void mpigo_gate_count(uint32_t *gate, mpigo_calls *c) {
    uint32_t g = *gate;
    if (__builtin_expect(g != 1, 1)) {
        *gate = g - 1;
        return;
    }
    if (mpigo_sample.armed) {
        uint64_t d = mpigo_ticks() - mpigo_sample.t0;
        if (mpigo_sample.go_waits != mpigo_sample.waits) {
            c->blocked++;
            c->blocked_ticks += d;
        } else {
            c->timed++;
            c->ticks += d;
        }
        mpigo_sample.armed = 0;
    } /* else the sample fell due during the call (a Go call in it counted): skipped */
    *gate = mpigo_next_gap();
}

/* At MPI_THREAD_MULTIPLE the record's gate stays 0. Where the record lets code
 * outside Go count its own calls there (mpigo_p2p.conc), a C short way takes the call,
 * counts it (tallies.h), and times one in about MPIGO_SAMPLE_EVERY of its thread's
 * such calls, by the thread's own countdown (mpigo_self.gap), the next gap from the
 * clock's low bits. mpigo_conc_open says whether this call is the one timed: its start
 * (never 0), else 0, and the count of waits gone to Go then (*waits), which tells a
 * sample that waited. */
static inline uint64_t mpigo_conc_open(uint32_t *waits) {
    int32_t g = mpigo_self.gap;
    if (g > 1) {
        mpigo_self.gap = g - 1;
        return 0;
    }
    uint64_t t0 = mpigo_ticks() | 1;
    mpigo_self.gap = (int32_t)((t0 >> 5) % (2 * MPIGO_SAMPLE_EVERY - 1)) + 1;
    *waits = __atomic_load_n(&mpigo_sample.go_waits, __ATOMIC_RELAXED);
    return t0;
}

/* mpigo_conc_sample counts the sample mpigo_conc_open timed from t0 into c
 * (tallies.h). */
static void __attribute__((noinline, unused)) mpigo_conc_sample(mpigo_calls *c, uint64_t t0, uint32_t waits) {
    uint64_t d = mpigo_ticks() - t0;
    int waited = __atomic_load_n(&mpigo_sample.go_waits, __ATOMIC_RELAXED) != waits;
    mpigo_calls *m = mpigo_mine(c);
    if (m != NULL) {
        mpigo_bump(waited ? &m->blocked : &m->timed, 1);
        mpigo_bump(waited ? &m->blocked_ticks : &m->ticks, d);
    } else {
        __atomic_fetch_add(waited ? &c->blocked : &c->timed, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(waited ? &c->blocked_ticks : &c->ticks, d, __ATOMIC_RELAXED);
    }
}

/* mpigo_conc_count ends a call mpigo_conc_open let a C short way take at
 * MPI_THREAD_MULTIPLE, timed from t0 (0: untimed), into c. */
static inline void mpigo_conc_count(mpigo_calls *c, uint64_t t0, uint32_t waits) {
    if (t0 != 0) mpigo_conc_sample(c, t0, waits);
}

/* mpigo_count_mt counts a call of n bytes that a C short way did at
 * MPI_THREAD_MULTIPLE without the engine's lock, into c, with its sample
 * (mpigo_conc_open's t0 and waits). */
static inline void mpigo_count_mt(mpigo_calls *c, int64_t n, uint64_t t0, uint32_t waits) {
    mpigo_count_size(c, n);
    mpigo_conc_count(c, t0, waits);
}

/* How a C short way that takes no engine lock (a short collective, a window's
 * synchronisation) records its call: through the record's gate below
 * MPI_THREAD_MULTIPLE, or at it counted atomically (mt), t0 a timed one's start. */
typedef struct {
    uint32_t *gate;
    uint64_t t0;
    uint32_t waits;
    int mt;
} mpigo_rec;

/* mpigo_rec_open says whether the record lets such a way take a call now
 * (mpigo_gate_open: counted untimed, or timed here as the sample; at
 * MPI_THREAD_MULTIPLE mpigo_conc_open). */
static inline int mpigo_rec_open(mpigo_rec *r) {
    r->mt = mpigo_short_mt != 0;
    if (r->mt) {
        if (!mpigo_p2p.conc) return 0;
        r->t0 = mpigo_conc_open(&r->waits);
        return 1;
    }
    r->gate = (uint32_t *)mpigo_p2p.gate;
    return r->gate != NULL && mpigo_gate_open(*r->gate);
}

/* mpigo_rec_count counts a call of n bytes that mpigo_rec_open let through into c, as
 * prof.Count does (the sample timed: mpigo_gate_count, mpigo_conc_count). */
static inline void mpigo_rec_count(mpigo_rec *r, mpigo_calls *c, int64_t n) {
    if (r->mt) {
        mpigo_count_mt(c, n, r->t0, r->waits);
        return;
    }
    c->hist[n > 0 ? 64 - __builtin_clzll((uint64_t)n) : 0]++;
    c->bytes += (uint64_t)n;
    mpigo_gate_count(r->gate, c);
}

/* The requests p2pshort.c completes at once (MPI_Isend, MPI_Irecv): mpigo_creq_mt is
 * set once MPI_THREAD_MULTIPLE is provided; mpigo_creq_live says whether h is one. */
extern MPIGO_HIDDEN int32_t mpigo_creq_mt;
MPIGO_HIDDEN int mpigo_creq_live(uintptr_t h);

/* The pending receives' queue, as Go posts it (p2pshort.go's flushPending): the oldest
 * pending receive's arguments, and where Go writes its request. */
typedef struct {
    uintptr_t h;
    void *buf;
    int64_t count;
    uintptr_t dt;
    int32_t src, tag;
    uintptr_t comm;
    uintptr_t gh;
} mpigo_pendrec;
MPIGO_HIDDEN mpigo_pendrec *mpigo_pend_pop(void);

/* The messages p2pshort.c's MPI_Mprobe took, as the Go half adopts them (probe.go). */
MPIGO_HIDDEN int mpigo_cmsg_info(uintptr_t h, int32_t *wsrc, int32_t *tag, int64_t *len, uintptr_t *comm);
MPIGO_HIDDEN int mpigo_cmsg_drain(uintptr_t h, void *dst, int64_t n);
MPIGO_HIDDEN uintptr_t mpigo_cmsg_next(uintptr_t comm, uint32_t *from);
MPIGO_HIDDEN void mpigo_pend_posted(int err);

#endif
