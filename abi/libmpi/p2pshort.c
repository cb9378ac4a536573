/* p2pshort.c - MPI_Send's, MPI_Recv's and MPI_Sendrecv's short ways in C (the
 * receives' are described below, with MPI_Recv). A C program's MPI_Send would cross
 * into Go (the cgo callback, about 680 instructions: docs/BENCHMARKS.md, "C point-to-point"),
 * more than the engine's whole work for a small message. So a send of at most 1 KiB
 * on an intracommunicator (one the Go side made a copy of: p2pshort.go) of a
 * predefined plain datatype to a node peer is done here, as the engine's short path
 * (p2p's SendNow) does it: the message written into the peer's shared-memory ring (a
 * compact cell up to 96 bytes; above, a cell and the payload in the ring's data area),
 * its stamp last, the ring's positions advanced, the peer's doorbell rung if it
 * sleeps, the message counted in the engine's traffic counts and the call in the
 * record's (as prof.Count does).
 *
 * It is taken only where the Go way would take that short path and do nothing else:
 * the engine serialised (below MPI_THREAD_MULTIPLE, no goroutine of mpigo's calling
 * it) and not failed; the peer connected through shared memory with an eager limit
 * of at least 96 bytes (and the message's size), nothing queued to it (so the message
 * is in order with every send before it, on any communicator) and not failed; from
 * the size from which shm's Send chooses how to copy (shm_nt_min), the way its chooser
 * says, counted in its epoch, but for the epoch's first and last copy (Go's);
 * the record counting the call untimed (no timeline, no sample due, not inside
 * another call); room in the ring.
 * Anything else, and every error, goes to the Go half (goPMPI_Send, zgo.h), which
 * does what it always did: the short way changes no outcome, only its cost.
 *
 * What it reads and writes is the engine's and the ring's own memory, which Go maps
 * outside its heap (p2pshort.h), and the communicator's copy in C memory: C holds no
 * Go memory, and Go's Send and this code advance the same ring. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/futex.h>
#include <emmintrin.h>
#include "mpi.h"
#include "p2pshort.h"
#include "zgo.h"

mpigo_p2p_t mpigo_p2p;
mpigo_sample_t mpigo_sample = {.rng = 0x2545f4914f6cdd1dull};

/* How many MPI_Irecv requests are pending here (below, "MPI_Isend, MPI_Irecv and the
 * requests kept here"): while any is, no receive takes a message here at once. */
static int64_t npend;

/* put32 copies n (1 to 32) bytes from src to dst with at most two moves of a width,
 * overlapping, rather than a call of memcpy. */
static inline void put32(char *dst, const char *src, int64_t n) {
    uint64_t a, b;
    if (n >= 16) {
        uint64_t c, d;
        memcpy(&a, src, 8), memcpy(&b, src + 8, 8);
        memcpy(&c, src + n - 16, 8), memcpy(&d, src + n - 8, 8);
        memcpy(dst, &a, 8), memcpy(dst + 8, &b, 8);
        memcpy(dst + n - 16, &c, 8), memcpy(dst + n - 8, &d, 8);
    } else if (n >= 8) {
        memcpy(&a, src, 8), memcpy(&b, src + n - 8, 8);
        memcpy(dst, &a, 8), memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, src, 4), memcpy(&y, src + n - 4, 4);
        memcpy(dst, &x, 4), memcpy(dst + n - 4, &y, 4);
    } else {
        for (int64_t i = 0; i < n; i++) dst[i] = src[i];
    }
}

/* put copies n (1 to MPIGO_INLINE) bytes from src to dst: 32 at a time, the last 32
 * overlapping what came before. */
static inline void put(char *dst, const char *src, int64_t n) {
    if (n > 32) {
        for (int64_t o = 0; o + 32 < n; o += 32) put32(dst + o, src + o, 32);
        dst += n - 32, src += n - 32, n = 32;
    }
    put32(dst, src, n);
}

/* nt_copy copies n bytes to dst (line-aligned) as shm's copy chooser does with
 * non-temporal stores (ntcopy.Copy): the whole lines with MOVNTDQ, a fence, the rest
 * with ordinary stores. */
static void nt_copy(char *dst, const char *src, int64_t n) {
    int64_t lines = n / MPIGO_LINE;
    for (int64_t l = 0; l < lines; l++, dst += MPIGO_LINE, src += MPIGO_LINE) {
        __m128i a = _mm_loadu_si128((const __m128i *)src), b = _mm_loadu_si128((const __m128i *)(src + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(src + 32)), d = _mm_loadu_si128((const __m128i *)(src + 48));
        _mm_stream_si128((__m128i *)dst, a);
        _mm_stream_si128((__m128i *)(dst + 16), b);
        _mm_stream_si128((__m128i *)(dst + 32), c);
        _mm_stream_si128((__m128i *)(dst + 48), d);
    }
    _mm_sfence();
    if (n % MPIGO_LINE) memcpy(dst, src, (size_t)(n % MPIGO_LINE));
}

/* wake rings the receiver's doorbell (transport.Doorbell's wake): it sleeps. */
static void __attribute__((noinline)) wake(uint32_t *seq) {
    __atomic_fetch_add(seq, 1, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, seq, FUTEX_WAKE, 1 << 30, NULL, NULL, 0);
}

static const mpigo_comm *comms[MPIGO_SHORT_COMMS];

void mpigo_comm_set(uintptr_t h, const mpigo_comm *d) {
    uintptr_t i = mpigo_slot(h, MPIGO_KIND_COMM);
    if (i < MPIGO_SHORT_COMMS) __atomic_store_n(&comms[i], d, __ATOMIC_RELEASE);
}

/* comm_of is the copy of communicator h, NULL when it has none: h is not a live
 * communicator's handle (the copy in its slot is another generation's), or the
 * communicator sends through Go. */
static inline const mpigo_comm *comm_of(MPI_Comm h) {
    if (h == MPI_COMM_WORLD) return mpigo_p2p.world;
    uintptr_t i = mpigo_slot((uintptr_t)h, MPIGO_KIND_COMM);
    if (i >= MPIGO_SHORT_COMMS) return NULL;
    const mpigo_comm *d = __atomic_load_n(&comms[i], __ATOMIC_ACQUIRE);
    return d != NULL && d->h == (uintptr_t)h ? d : NULL;
}


/* --- MPI_Comm_rank and MPI_Comm_size ---
 *
 * Asked often, answered from the communicator's copy without crossing into Go: the
 * copy lives exactly as long as its communicator (a freed one's handle finds none),
 * and the world model runs (eng, as for the sends: MPI_Init done, MPI_Finalize not
 * begun). MPI_COMM_SELF, which has no copy, is rank 0 of 1 then. Anything else (no
 * copy, a NULL argument, MPI not running) is the Go half's, errors included. */
static inline const mpigo_comm *query_comm(MPI_Comm comm, const void *out, int *self) {
    if (out == NULL || __atomic_load_n(&mpigo_p2p.eng, __ATOMIC_ACQUIRE) == 0) return NULL;
    *self = comm == MPI_COMM_SELF;
    return *self ? NULL : comm_of(comm);
}

int PMPI_Comm_rank(MPI_Comm comm, int *rank) {
    int self = 0;
    const mpigo_comm *c = query_comm(comm, rank, &self);
    if (c == NULL && !self) return goPMPI_Comm_rank(comm, rank);
    *rank = self ? 0 : c->rank;
    return MPI_SUCCESS;
}

int PMPI_Comm_size(MPI_Comm comm, int *size) {
    int self = 0;
    const mpigo_comm *c = query_comm(comm, size, &self);
    if (c == NULL && !self) return goPMPI_Comm_size(comm, size);
    *size = self ? 1 : c->size;
    return MPI_SUCCESS;
}

/* A communicator with a copy is an intracommunicator (newShortComm), as is
 * MPI_COMM_SELF. */
int PMPI_Comm_test_inter(MPI_Comm comm, int *flag) {
    int self = 0;
    const mpigo_comm *c = query_comm(comm, flag, &self);
    if (c == NULL && !self) return goPMPI_Comm_test_inter(comm, flag);
    *flag = 0;
    return MPI_SUCCESS;
}

/* While the world model runs (eng), MPI_Init has been called and MPI_Finalize has not
 * begun: the Go halves' answers (core.Initialized, core.Finalized) then. */
int PMPI_Initialized(int *flag) {
    if (flag == NULL || __atomic_load_n(&mpigo_p2p.eng, __ATOMIC_ACQUIRE) == 0) return goPMPI_Initialized(flag);
    *flag = 1;
    return MPI_SUCCESS;
}

int PMPI_Finalized(int *flag) {
    if (flag == NULL || __atomic_load_n(&mpigo_p2p.eng, __ATOMIC_ACQUIRE) == 0) return goPMPI_Finalized(flag);
    *flag = 0;
    return MPI_SUCCESS;
}

/* count_call counts a call of n bytes in the record's tally, as prof.Count does. */
static inline void count_call(int call, int64_t n) {
    mpigo_calls *cs = &mpigo_short_calls[call];
    cs->hist[n > 0 ? 64 - __builtin_clzll((uint64_t)n) : 0]++;
    cs->bytes += (uint64_t)n;
}

/* --- At MPI_THREAD_MULTIPLE ---
 *
 * Where the engine takes its lock (ok 0: MPI_THREAD_MULTIPLE, or a goroutine of
 * mpigo's calls it beside the program) and shares it with this library (locked),
 * MPI_Send's, MPI_Recv's and MPI_Sendrecv's short ways run holding it, under the
 * same conditions, which the engine keeps true under it. A thread tries the lock
 * once and takes the Go way if it is held: the short ways never wait for it, and
 * hold it only for one look at a ring and one message, so a Go waiter for it
 * (engineLock's lockShared) waits for a bounded piece of work. A receive waits for
 * its message with the lock given back, and looks again holding it.
 *
 * How such a call is recorded: where the record has a gate (below
 * MPI_THREAD_MULTIPLE) through it, as the program's one thread does; at
 * MPI_THREAD_MULTIPLE (conc) counted here under the lock, one in about
 * MPIGO_SAMPLE_EVERY timed (mpigo_conc_open); with the timeline on, not here:
 * every call takes Go. */

/* eng_lock tries engine e's shared lock: 1 held (and the short ways may run under it). */
static inline int eng_lock(mpigo_eng *e) {
    uint32_t z = 0;
    if (!__atomic_load_n(&e->locked, __ATOMIC_RELAXED) || __atomic_load_n(&e->lockw, __ATOMIC_RELAXED) != 0 ||
        !__atomic_compare_exchange_n(&e->lockw, &z, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return 0;
    if (__atomic_load_n(&e->locked, __ATOMIC_RELAXED)) return 1;
    __atomic_store_n(&e->lockw, 0, __ATOMIC_RELEASE); /* failed meanwhile */
    return 0;
}

static inline void eng_unlock(mpigo_eng *e) { __atomic_store_n(&e->lockw, 0, __ATOMIC_RELEASE); }

/* How a call a short way does is recorded: through the record's gate, or (conc) in
 * its tally here, t0 the start of a timed one (mpigo_conc_open). */
typedef struct {
    uint32_t *gate;
    uint64_t t0;
    int conc;
    uint32_t waits;
} srec;

/* srec_open says whether the record lets the short way take the call now (as
 * mpigo_gate_open), locked whether the engine's lock is held. */
static inline int srec_open(srec *s, int locked) {
    s->gate = (uint32_t *)mpigo_p2p.gate;
    s->t0 = 0;
    s->conc = locked && mpigo_p2p.conc != 0;
    if (!s->conc) return s->gate != NULL && mpigo_gate_open(*s->gate);
    s->t0 = mpigo_conc_open(&s->waits);
    return 1;
}

/* srec_count ends a call a short way took, counted in c (as mpigo_gate_count). */
static inline void srec_count(srec *s, mpigo_calls *c) {
    if (!s->conc) {
        mpigo_gate_count(s->gate, c);
        return;
    }
    mpigo_conc_count(c, s->t0, s->waits);
}

/* short_send is MPI_Send's short way: 1 if it sent the message, 0 if it did nothing
 * (the Go way does it all). It counts the call as call (MPIGO_C_SEND, MPIGO_C_ISEND),
 * recorded through s (opened here); MPI_Sendrecv's short way (call -1, s NULL) counts
 * itself. exch: the send is half of an exchange, which goes eagerly up to the peer's
 * exchange limit (e->exch). locked: the caller holds the engine's shared lock, in
 * place of the engine's being serialised (ok). */
static inline __attribute__((always_inline)) int send_in(mpigo_eng *e, srec *s, const void *buf, int64_t count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, int call, int exch, int locked) {
    uintptr_t i = (uintptr_t)dt - 0x200;
    if ((!locked && !__atomic_load_n(&e->ok, __ATOMIC_ACQUIRE)) || i >= 256 ||
        (uint64_t)count > MPIGO_SHORT_MAX || tag < 0)
        return 0;
    int64_t size = mpigo_short_dts[i].size, n = count * size;
    if (size <= 0 || n > MPIGO_SHORT_MAX || (n > 0 && buf == NULL)) return 0;
    const mpigo_comm *c = comm_of(comm);
    if (c == NULL || (unsigned)dest >= (unsigned)c->size) return 0;
    int w = c->world[dest];
    if ((unsigned)w >= (unsigned)e->size) return 0;
    mpigo_ring *r = e->rings[w]; /* none for this rank itself */
    if (r == NULL || __atomic_load_n(r->closed, __ATOMIC_ACQUIRE) || (s != NULL && !srec_open(s, locked))) return 0;
    uint64_t pos = r->cell_pos;
    if (pos - r->cons_cell >= r->n_cells) {
        r->cons_cell = __atomic_load_n(&r->cons[0], __ATOMIC_ACQUIRE);
        if (pos - r->cons_cell >= r->n_cells) return 0; /* full: Go waits for room */
    }
    uint32_t ctx = c->ctx;
    char *cell = r->cells + (pos & r->cell_mask) * MPIGO_CELL;
    uint64_t *wd = (uint64_t *)cell, meta = (uint64_t)n;
    if (n <= MPIGO_INLINE) {
        wd[3] = 0; /* SendID */
        if (n > 0) put(cell + 32, buf, n);
        meta |= MPIGO_COMPACT;
    } else {
        /* A cell and its payload in the data ring, whole lines, from the ring's
         * start if they would wrap: as shm's Send lays out a packet it does not copy
         * with its chooser (below shm_nt_min). */
        if (n > (exch ? e->exch[w] : e->eager[w])) return 0;
        int nt = 0, chosen = (uint64_t)n > r->plain_max;
        if (chosen) {
            /* The copy chooser's: Send reads the clock at an epoch's first copy and
             * judges the epoch at its last, so those are Go's. */
            if ((uint64_t)n > r->cc_max || (r->cc_auto && (r->cc_count == 0 || r->cc_count + 1 >= r->cc_copies)))
                return 0;
            nt = r->cc_nt != 0;
        }
        uint64_t start = r->data_pos, need = ((uint64_t)n + MPIGO_LINE - 1) & ~(uint64_t)(MPIGO_LINE - 1);
        uint64_t off = start & r->data_mask;
        if (off + need > r->data_size) start += r->data_size - off;
        uint64_t end = start + need;
        if (end - r->cons_data > r->data_size) {
            r->cons_data = __atomic_load_n(&r->cons[1], __ATOMIC_ACQUIRE);
            if (end - r->cons_data > r->data_size) return 0; /* full: Go waits for room */
        }
        if (nt)
            nt_copy(r->data + (start & r->data_mask), buf, n);
        else
            memcpy(r->data + (start & r->data_mask), buf, (size_t)n);
        if (chosen && r->cc_auto) {
            r->cc_count++;
            r->cc_bytes += (uint64_t)n;
        }
        wd[3] = (uint64_t)n; /* Len, then SendID, RecvID, Addr, Offset */
        wd[4] = wd[5] = wd[6] = wd[7] = 0;
        r->data_pos = end;
    }
    wd[1] = e->head0;
    wd[2] = (uint64_t)ctx | (uint64_t)(uint32_t)tag << 32;
    /* The stamp releases the cell to the reader. */
    __atomic_store_n(&wd[0], (uint64_t)(uint32_t)(pos + 1) | meta << 32, __ATOMIC_RELEASE);
    r->cell_pos = pos + 1;
    if (__atomic_load_n(r->door_sleepers, __ATOMIC_RELAXED) != 0) wake(r->door_seq);
    mpigo_link *l = &e->sent[2 * w + (ctx & 1)];
    l->bytes += (uint64_t)n;
    l->ops++;
    if (s != NULL) {
        count_call(call, n);
        srec_count(s, &mpigo_short_calls[call]);
    }
    return 1;
}

/* locked_send is short_send holding the engine's shared lock. */
static int __attribute__((noinline)) locked_send(mpigo_eng *e, const void *buf, int64_t count, MPI_Datatype dt, int dest,
                                                 int tag, MPI_Comm comm, int call) {
    if (!eng_lock(e)) return 0;
    srec s;
    int k = send_in(e, &s, buf, count, dt, dest, tag, comm, call, 0, 1);
    eng_unlock(e);
    return k;
}

static inline __attribute__((always_inline)) int short_send(const void *buf, int64_t count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, int call) {
    mpigo_eng *e = (mpigo_eng *)__atomic_load_n(&mpigo_p2p.eng, __ATOMIC_ACQUIRE);
    if (e == NULL) return 0;
    if (__builtin_expect(!__atomic_load_n(&e->ok, __ATOMIC_ACQUIRE), 0))
        return locked_send(e, buf, count, dt, dest, tag, comm, call);
    srec s;
    return send_in(e, &s, buf, count, dt, dest, tag, comm, call, 0, 0);
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    if (short_send(buf, count, datatype, dest, tag, comm, MPIGO_C_SEND)) return MPI_SUCCESS;
    return goPMPI_Send(buf, count, datatype, dest, tag, comm);
}

int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    if (short_send(buf, count, datatype, dest, tag, comm, MPIGO_C_SEND)) return MPI_SUCCESS;
    return goPMPI_Send_c(buf, count, datatype, dest, tag, comm);
}

/* --- MPI_Recv and MPI_Sendrecv ---
 *
 * A blocking receive of a predefined plain datatype on an intracommunicator from a
 * node peer (or MPI_ANY_SOURCE on a communicator of at most MPIGO_ANY_MAX ranks)
 * takes the message here when the engine would give it that message and do nothing
 * else: the engine serialised and not failed (ok), nothing queued to any peer and no
 * get under way (quiet: pollPeer's condition, so that no peer waits for this rank's
 * packets meanwhile), no receive posted and no message unexpected on the
 * communicator's context (so no earlier receive could take the message, and no
 * earlier message could match this receive), and the packet at the head of the
 * source's ring an eager message of that context, a tag the receive takes, no
 * synchronous flag, no longer than the buffer. That is the packet onEager would
 * hand to the receive, with the status deliverEager writes. Anything else at the
 * head, a message longer than the buffer (MPI_ERR_TRUNCATE), a ring Go has not shown
 * (the peer's first message comes through Go), the record wanting more than a count:
 * the Go half, which finds the ring as it was and does everything.
 *
 * It waits for the message as pollPeer does, polling the source's ring alone, as
 * many polls as the engine's pollPeer would make (polls); then the Go half, whose
 * wait makes full progress and sleeps. */

/* publish gives the sender back the space of every packet consumed (shm's publish). */
static inline void in_publish(mpigo_inring *r) {
    if (r->published != r->pos) {
        r->published = r->pos;
        __atomic_store_n(&r->cons[0], r->pos, __ATOMIC_SEQ_CST);
    }
    if (r->published_data != r->data_pos) {
        r->published_data = r->data_pos;
        __atomic_store_n(&r->cons[1], r->data_pos, __ATOMIC_SEQ_CST);
    }
}

/* in_unblock answers a sender that met a full ring, as drain does: everything
 * published, and its doorbell rung if Go has mapped it (else Go's next poll of the
 * ring rings it, the flag still up). */
static void __attribute__((noinline)) in_unblock(mpigo_inring *r) {
    in_publish(r);
    if (r->door_seq == NULL) return;
    __atomic_store_n(r->block, 0, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(r->door_seq, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(r->door_sleepers, __ATOMIC_SEQ_CST) != 0)
        syscall(SYS_futex, r->door_seq, FUTEX_WAKE, 1 << 30, NULL, NULL, 0);
}

/* get copies n (1 to MPIGO_INLINE) bytes from a compact cell's payload. */
static inline void get(char *dst, const char *src, uint64_t n) { put(dst, src, (int64_t)n); }

/* in_take looks at the head of ring r from world rank wsrc for the message a receive
 * on context ctx with tag (or MPI_ANY_TAG) and room for n bytes takes: 1 taken (its
 * bytes into buf, its length and tag into *got and *gtag), 0 nothing there yet, -1
 * another packet is there, which the engine must handle. */
/* in_head reads the packet at the head of ring r from world rank wsrc, at position
 * pos: 1 the message a receive on context ctx with tag (or MPI_ANY_TAG) takes (its cell
 * in *cell, its stamp's high word in *meta, its length and tag in *got and *gtag), 0
 * nothing there, -1 another packet. */
static inline __attribute__((always_inline)) int in_head(const mpigo_inring *r, uint64_t pos, int32_t wsrc, uint32_t ctx,
                                                          int tag, const uint64_t **cell, uint32_t *meta, int64_t *got,
                                                          int *gtag) {
    const uint64_t *wd = (const uint64_t *)(r->cells + (pos & r->cell_mask) * MPIGO_CELL);
    uint64_t stamp = __atomic_load_n(&wd[0], __ATOMIC_ACQUIRE);
    if ((uint32_t)stamp != (uint32_t)(pos + 1)) return 0;
    uint64_t h1 = wd[1], h2 = wd[2];
    int mtag = (int32_t)(h2 >> 32);
    /* Kind and flags: an eager message, not synchronous (its ack is Go's). */
    if ((h1 & 0xffff) != MPIGO_KIND_EAGER || (int32_t)(h1 >> 32) != wsrc || (uint32_t)h2 != ctx ||
        (tag != MPI_ANY_TAG && mtag != tag))
        return -1;
    *cell = wd;
    *meta = (uint32_t)(stamp >> 32);
    *got = (int64_t)(*meta & ~MPIGO_COMPACT);
    *gtag = mtag;
    return 1;
}

static inline __attribute__((always_inline)) int in_take(mpigo_inring *r, int32_t wsrc, uint32_t ctx, int tag, char *buf,
                                                          int64_t n, int64_t *got, int *gtag) {
    uint64_t pos = r->pos;
    const uint64_t *wd;
    uint32_t meta;
    int64_t len;
    int mtag, k = in_head(r, pos, wsrc, ctx, tag, &wd, &meta, &len, &mtag);
    if (k <= 0) return k;
    uint64_t plen = (uint64_t)len;
    if (plen > (uint64_t)n) return -1;
    uint64_t end = r->data_pos;
    if (meta & MPIGO_COMPACT) {
        if (plen > 0) get(buf, (const char *)&wd[4], plen);
    } else if (plen > 0) {
        /* As drain places it: whole lines, from the ring's start if they would wrap. */
        uint64_t start = r->data_pos, need = (plen + MPIGO_LINE - 1) & ~(uint64_t)(MPIGO_LINE - 1);
        uint64_t off = start & r->data_mask;
        if (off + need > r->data_size) start += r->data_size - off;
        end = start + need;
        memcpy(buf, r->data + (start & r->data_mask), plen);
    }
    r->pos = pos + 1;
    r->data_pos = end;
    /* The space goes back as drain gives it: a large payload's at once, small ones'
     * a quarter of the ring at a time. */
    if (plen > r->lazy_payload || pos + 1 - r->published >= r->lazy_cells || end - r->published_data >= r->lazy_data)
        in_publish(r);
    if (__atomic_load_n(r->block, __ATOMIC_ACQUIRE) != 0) in_unblock(r);
    *got = (int64_t)plen;
    *gtag = mtag;
    return 1;
}

/* recv_ok checks what a receive's short way needs before it looks at a ring: the
 * engine (serialised, or its shared lock held: locked), the buffer (*n its bytes),
 * the communicator's copy and its matching state, the source and the tag. */
static inline __attribute__((always_inline)) const mpigo_comm *recv_ok(mpigo_eng *e, const void *buf, int64_t count,
                                                                       MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                                                                       int64_t *n, int locked) {
    uintptr_t i = (uintptr_t)dt - 0x200;
    if (e == NULL || (!locked && !__atomic_load_n(&e->ok, __ATOMIC_ACQUIRE)) || !e->quiet || i >= 256 ||
        (uint64_t)count > (uint64_t)INT64_MAX / 1024 || (tag < 0 && tag != MPI_ANY_TAG))
        return NULL;
    int64_t size = mpigo_short_dts[i].size;
    *n = count * size;
    if (size <= 0 || (*n > 0 && buf == NULL)) return NULL;
    const mpigo_comm *c = comm_of(comm);
    if (c == NULL || c->ctxw == NULL || c->ctxw->posted != 0 || c->ctxw->queued != 0) return NULL;
    if (src == MPI_ANY_SOURCE ? c->size > MPIGO_ANY_MAX : (unsigned)src >= (unsigned)c->size) return NULL;
    return c;
}

/* head_there says whether a packet is at the head of ring r. (pos is read atomically:
 * at MPI_THREAD_MULTIPLE a receive waits without the engine's lock, under which the
 * ring's consumer advances it; what it sees it looks at again holding the lock.) */
static inline int head_there(const mpigo_inring *r) {
    uint64_t pos = __atomic_load_n(&r->pos, __ATOMIC_RELAXED);
    const uint64_t *wd = (const uint64_t *)(r->cells + (pos & r->cell_mask) * MPIGO_CELL);
    return (uint32_t)__atomic_load_n(&wd[0], __ATOMIC_ACQUIRE) == (uint32_t)(pos + 1);
}

void __attribute__((noinline)) mpigo_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/* spin_one waits up to polls polls for a packet at the head of ring r: 1 there. (The
 * waiting, apart from the work, for bench/matrixcost.sh.) */
static int __attribute__((noinline)) spin_one(const mpigo_inring *r, int64_t polls) {
    for (; polls > 0; polls--) {
        if (head_there(r)) return 1;
        mpigo_pause();
    }
    return 0;
}

/* spin_any is spin_one for the rings from communicator c's ranks. */
static int __attribute__((noinline)) spin_any(const mpigo_eng *e, const mpigo_comm *c, int64_t polls) {
    for (; polls > 0; polls--) {
        for (int s = 0; s < c->size; s++) {
            int w = c->world[s];
            const mpigo_inring *r = (unsigned)w < (unsigned)e->size ? e->inrings[w] : NULL;
            if (r != NULL && head_there(r)) return 1;
        }
        mpigo_pause();
    }
    return 0;
}

/* any_next: the communicator rank whose ring an MPI_ANY_SOURCE receive looks at first,
 * the one after the rank it last took from (p2p's recvAnyNow), so that one sender's
 * stream does not keep the others' messages waiting. */
static int any_next;

/* any_rings says whether every rank of c but this one has its ring shown here: a rank
 * without one (over TCP, or not yet seen) would wait behind the rings' packets. */
static inline int any_rings(const mpigo_eng *e, const mpigo_comm *c) {
    for (int s = 0; s < c->size; s++) {
        int w = c->world[s];
        if ((unsigned)w >= (unsigned)e->size) return 0;
        if (w != e->self && e->inrings[w] == NULL) return 0;
    }
    return 1;
}

/* recv_wait takes the message from the source's ring (or, for MPI_ANY_SOURCE, from
 * the communicator's ranks' rings where each has one, looked at in turn from
 * any_next, the first with a packet at its head deciding; another packet at a head
 * leaves the receive to Go, which handles that packet first), waiting for it as
 * pollPeer does (polls polls; 0: MPI_Irecv's look, which does not wait): 1 taken
 * (the status written), 0 not (Go's way). */
static inline __attribute__((always_inline)) int recv_wait(mpigo_eng *e, const mpigo_comm *c, char *buf, int64_t n, int src,
                                                           int tag, MPI_Status *st, int64_t *got, int64_t polls) {
    int gtag = 0, from = src, k = 0;
    if (src != MPI_ANY_SOURCE) {
        int w = c->world[src];
        if ((unsigned)w >= (unsigned)e->size) return 0;
        mpigo_inring *r = e->inrings[w];
        if (r == NULL) return 0;
        k = in_take(r, w, c->ctx, tag, buf, n, got, &gtag);
        if (k == 0 && polls > 0 && spin_one(r, polls)) k = in_take(r, w, c->ctx, tag, buf, n, got, &gtag);
    } else {
        if (!any_rings(e, c)) return 0;
        for (int round = 0; round < 2 && k == 0; round++) {
            if (round == 1 && (polls == 0 || !spin_any(e, c, polls))) return 0;
            for (int j = 0; j < c->size && k == 0; j++) {
                int s = (any_next + j) % c->size, w = c->world[s];
                mpigo_inring *r = e->inrings[w];
                if (r == NULL) continue; /* this rank's own */
                k = in_take(r, w, c->ctx, tag, buf, n, got, &gtag);
                from = s;
            }
        }
        if (k > 0) any_next = (from + 1) % c->size;
    }
    if (k <= 0) return 0;
    if (st != MPI_STATUS_IGNORE) {
        st->MPI_SOURCE = from;
        st->MPI_TAG = gtag;
        st->MPI_internal[0] = (int)(uint32_t)*got;
        st->MPI_internal[1] = (int)(*got >> 32);
        st->MPI_internal[2] = 0;
    }
    return 1;
}

/* --- MPI_Iprobe ---
 *
 * A loop of MPI_Iprobe waiting for a message would cross into Go on every call to
 * hear that none has come, and again to hear that it has. The answer is given here
 * where the engine would give it and have nothing else to do: the engine serialised
 * (or its shared lock held, at MPI_THREAD_MULTIPLE), not failed and quiet (nothing
 * queued to any peer, no get under way: no peer waits for this rank), no receive
 * pending here, nothing unexpected on the communicator's context (the messages a
 * probe could match that Go already holds). Then "no" where the head of the source's
 * ring, or of each rank's of the communicator for MPI_ANY_SOURCE (on at most
 * MPIGO_ANY_MAX ranks), is empty where Go has shown it; "yes", with the message's
 * status, where a head holds the message a receive would take there with nothing
 * posted on the context (in_peek: an eager packet of the context with a tag the probe
 * takes), which stays there for the receive that follows. Another packet at a head,
 * this rank as the source, MPI_PROC_NULL, a communicator without a copy, every error:
 * the Go half, which makes progress and matches. What C cannot see (a ring not yet
 * shown, as a first message's is; TCP; the self transport's queue for MPI_ANY_SOURCE;
 * a failed peer) Go sees at every MPIGO_PROBE_TURN-th probe that would have been
 * answered "no" here: a loop of probes finds such a message within that many calls,
 * as MPI's progress rule asks ("eventually", MPI 4.1 sec. 3.8.1). */
#define MPIGO_PROBE_TURN 32
static uint32_t probe_turn;

/* in_peek is in_take that leaves the packet where it is: 1 the message a receive on
 * context ctx with tag (or MPI_ANY_TAG) would take (its length and tag in *got and
 * *gtag), 0 nothing there, -1 another packet. */
static inline int in_peek(const mpigo_inring *r, int32_t wsrc, uint32_t ctx, int tag, int64_t *got, int *gtag) {
    const uint64_t *wd;
    uint32_t meta;
    return in_head(r, r->pos, wsrc, ctx, tag, &wd, &meta, got, gtag);
}

/* probe_in is MPI_Iprobe's short way: 1 nothing there, 2 a message (its status in *st),
 * 0 the Go way; counted as call (none where call < 0: the caller counts). The message
 * is one at the head of the source's ring that a receive would take there (the
 * receive's conditions: nothing unexpected or posted on the context, an eager packet
 * of it with a tag it takes); it stays there for the receive that follows. For MPI_ANY_SOURCE the first such head from any_next on, as a receive
 * would look (a head with another packet: Go's). */
static inline __attribute__((always_inline)) int probe_in(mpigo_eng *e, srec *s, int src, int tag, MPI_Comm comm,
                                                          MPI_Status *st, int locked, int call) {
    if (npend != 0 || (!locked && !__atomic_load_n(&e->ok, __ATOMIC_ACQUIRE)) || !e->quiet ||
        (tag < 0 && tag != MPI_ANY_TAG))
        return 0;
    const mpigo_comm *c = comm_of(comm);
    if (c == NULL || c->ctxw == NULL || c->ctxw->queued != 0) return 0;
    int from = -1, gtag = 0, k = 0;
    int64_t got = 0;
    if (src == MPI_ANY_SOURCE) {
        if (c->size > MPIGO_ANY_MAX) return 0;
        for (int j = 0; j < c->size && k == 0; j++) {
            int q = (any_next + j) % c->size, w = c->world[q];
            const mpigo_inring *r = (unsigned)w < (unsigned)e->size ? e->inrings[w] : NULL;
            if (r != NULL) k = in_peek(r, w, c->ctx, tag, &got, &gtag), from = q;
        }
    } else {
        if ((unsigned)src >= (unsigned)c->size) return 0;
        int w = c->world[src];
        if ((unsigned)w >= (unsigned)e->size || w == e->self) return 0;
        const mpigo_inring *r = e->inrings[w];
        if (r != NULL) k = in_peek(r, w, c->ctx, tag, &got, &gtag), from = src;
    }
    if (k < 0 || c->ctxw->posted != 0 || (k == 0 && ++probe_turn % MPIGO_PROBE_TURN == 0) ||
        (call >= 0 && !srec_open(s, locked)))
        return 0;
    if (k > 0 && st != MPI_STATUS_IGNORE) {
        st->MPI_SOURCE = from;
        st->MPI_TAG = gtag;
        st->MPI_internal[0] = (int)(uint32_t)got;
        st->MPI_internal[1] = (int)(got >> 32);
        st->MPI_internal[2] = 0;
    }
    if (call >= 0) {
        count_call(call, 0);
        srec_count(s, &mpigo_short_calls[call]);
    }
    return k > 0 ? 2 : 1;
}

/* locked_probe is probe_in holding the engine's shared lock. */
static int __attribute__((noinline)) locked_probe(mpigo_eng *e, int src, int tag, MPI_Comm comm, MPI_Status *st) {
    if (!eng_lock(e)) return 0;
    srec s;
    int k = probe_in(e, &s, src, tag, comm, st, 1, MPIGO_C_IPROBE);
    eng_unlock(e);
    return k;
}

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
    mpigo_eng *e = (mpigo_eng *)__atomic_load_n(&mpigo_p2p.eng, __ATOMIC_ACQUIRE);
    int k = 0;
    if (flag != NULL && e != NULL) {
        srec s;
        k = __builtin_expect(!__atomic_load_n(&e->ok, __ATOMIC_ACQUIRE), 0) ? locked_probe(e, source, tag, comm, status)
                                                                               : probe_in(e, &s, source, tag, comm, status, 0, MPIGO_C_IPROBE);
    }
    if (k == 0) return goPMPI_Iprobe(source, tag, comm, flag, status);
    *flag = k == 2;
    return MPI_SUCCESS;
}

/* recv_spin waits, without the engine's lock, up to polls polls for a packet at the
 * head of the ring of communicator c's rank src (or of any of its ranks'): 1 there. */
static int __attribute__((noinline)) recv_spin(const mpigo_eng *e, const mpigo_comm *c, int src, int64_t polls) {
    if (src == MPI_ANY_SOURCE) return spin_any(e, c, polls);
    int w = c->world[src];
    const mpigo_inring *r = (unsigned)w < (unsigned)e->size ? __atomic_load_n(&e->inrings[w], __ATOMIC_ACQUIRE) : NULL;
    return r != NULL && spin_one(r, polls);
}

/* spin_ok is the communicator's copy where a receive's short way at the engine's
 * shared lock may wait for its message without the lock: what recv_ok would refuse at
 * once (a message unexpected on the context, a receive posted, the engine not quiet,
 * a source it does not read), read without the lock as a hint (the take checks it all
 * holding the lock), so that a message Go has already taken off the ring (an MPI_Iprobe
 * that found it) is not waited for at the ring's head. NULL: Go's way. */
static inline const mpigo_comm *spin_ok(const mpigo_eng *e, int src, MPI_Comm comm) {
    const mpigo_comm *c = comm_of(comm);
    if (c == NULL || c->ctxw == NULL || __atomic_load_n(&npend, __ATOMIC_RELAXED) != 0 ||
        !__atomic_load_n(&e->quiet, __ATOMIC_RELAXED) ||
        __atomic_load_n(&c->ctxw->queued, __ATOMIC_RELAXED) != 0 || __atomic_load_n(&c->ctxw->posted, __ATOMIC_RELAXED) != 0 ||
        (src == MPI_ANY_SOURCE ? c->size > MPIGO_ANY_MAX : (unsigned)src >= (unsigned)c->size))
        return NULL;
    return c;
}

/* locked_take is the look of a receive's short way holding the engine's shared lock:
 * the conditions checked and the message taken as at once, recorded through s (opened
 * at the first look: first); 1 taken, 0 not. The caller gives the lock back. */
static inline int locked_take(mpigo_eng *e, srec *s, int first, void *buf, int64_t count, MPI_Datatype dt, int src,
                              int tag, MPI_Comm comm, MPI_Status *st, int64_t *got) {
    int64_t n;
    const mpigo_comm *c = recv_ok(e, buf, count, dt, src, tag, comm, &n, 1);
    if (c == NULL || npend != 0 || (first && !srec_open(s, 1))) return 0;
    return recv_wait(e, c, buf, n, src, tag, st, got, 0);
}

/* locked_recv is short_recv with the engine's shared lock: it waits without the lock
 * for a packet at the head of the source's ring (the first poll finds one already
 * there), then takes it holding the lock, where it is the message. The lock's
 * compare-and-swap waits for this rank's earlier stores to leave the store buffer,
 * which after a send are stores into lines the peer reads: taken once the peer has
 * answered, it finds them gone. */
static int __attribute__((noinline)) locked_recv(mpigo_eng *e, void *buf, int64_t count, MPI_Datatype dt, int src,
                                                 int tag, MPI_Comm comm, MPI_Status *st) {
    const mpigo_comm *c = spin_ok(e, src, comm);
    if (c == NULL || !recv_spin(e, c, src, e->polls > 0 ? mpigo_spin_cap(e->polls) : 1) || !eng_lock(e)) return 0;
    srec s;
    int64_t got;
    int k = locked_take(e, &s, 1, buf, count, dt, src, tag, comm, st, &got);
    if (k) {
        count_call(MPIGO_C_RECV, got);
        srec_count(&s, &mpigo_short_calls[MPIGO_C_RECV]);
    }
    eng_unlock(e);
    return k;
}

/* short_recv is MPI_Recv's short way: 1 done, 0 the Go way does it all. */
static inline __attribute__((always_inline)) int short_recv(void *buf, int64_t count, MPI_Datatype dt, int src, int tag,
                                                            MPI_Comm comm, MPI_Status *st) {
    mpigo_eng *e = (mpigo_eng *)__atomic_load_n(&mpigo_p2p.eng, __ATOMIC_ACQUIRE);
    if (e == NULL) return 0;
    if (__builtin_expect(!__atomic_load_n(&e->ok, __ATOMIC_ACQUIRE), 0))
        return locked_recv(e, buf, count, dt, src, tag, comm, st);
    uint32_t *gate = (uint32_t *)mpigo_p2p.gate;
    int64_t n, got;
    const mpigo_comm *c = recv_ok(e, buf, count, dt, src, tag, comm, &n, 0);
    if (c == NULL || gate == NULL || npend != 0) return 0;
    if (!mpigo_gate_open(*gate)) return 0;
    if (!recv_wait(e, c, buf, n, src, tag, st, &got, e->polls > 0 ? mpigo_spin_cap(e->polls) : 1)) return 0;
    count_call(MPIGO_C_RECV, got);
    mpigo_gate_count(gate, &mpigo_short_calls[MPIGO_C_RECV]);
    return 1;
}

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status) {
    if (short_recv(buf, count, datatype, source, tag, comm, status)) return MPI_SUCCESS;
    return goPMPI_Recv(buf, count, datatype, source, tag, comm, status);
}

int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status) {
    if (short_recv(buf, count, datatype, source, tag, comm, status)) return MPI_SUCCESS;
    return goPMPI_Recv_c(buf, count, datatype, source, tag, comm, status);
}

/* The Go half of an MPI_Sendrecv whose send was done here (sendrecv.go). */
int goSendrecvSent(int64_t sn, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int source, int recvtag, MPI_Comm comm, MPI_Status *status, int replace, int big);

/* short_sendrecv is MPI_Sendrecv's short way: the send done here as MPI_Send's short
 * way does it, then the receive as MPI_Recv's. An eager message that has left needs
 * nothing from its receiver, so sending first and then receiving ends as the Go way
 * (a receive posted, the send, the wait) does; every argument is checked before
 * anything is sent, as Sendrecv checks them (the buffers disjoint, or the Go way's
 * MPI_ERR_BUFFER). -1: nothing done, the Go way does it all; else the call's return:
 * MPI_SUCCESS done here, or, sent here, the Go half's receive's (goSendrecvSent). With
 * replace (MPI_Sendrecv_replace, one
 * buffer) the send has copied the buffer into the ring before the receive writes it,
 * which is what the Go way's packed copy is for. */
static inline __attribute__((always_inline)) int sendrecv_in(mpigo_eng *e, srec *s, const void *sbuf, int64_t scount,
                                                             MPI_Datatype sdt, int dest, int stag, void *rbuf,
                                                             int64_t rcount, MPI_Datatype rdt, int src, int rtag,
                                                             MPI_Comm comm, MPI_Status *st, int replace, int big,
                                                             int locked, int *held) {
    int64_t n, got, sn;
    const mpigo_comm *c = recv_ok(e, rbuf, rcount, rdt, src, rtag, comm, &n, locked);
    uintptr_t i = (uintptr_t)sdt - 0x200;
    if (c == NULL || npend != 0 || i >= 256 || (uint64_t)scount > MPIGO_SHORT_MAX) return -1;
    int64_t ss = mpigo_short_dts[i].size;
    sn = scount * ss;
    if (ss <= 0) return -1;
    if (!replace && sn > 0 && n > 0 && (const char *)sbuf < (char *)rbuf + n && (char *)rbuf < (const char *)sbuf + sn)
        return -1;
    if (!srec_open(s, locked)) return -1;
    /* Receiving from the rank it sends to, it is half of an exchange: its send goes
     * eagerly up to the exchange's limit (p2p's exchEager). */
    if (!send_in(e, NULL, sbuf, scount, sdt, dest, stag, comm, -1, src == dest, locked)) return -1;
    int64_t polls = e->polls > 0 ? mpigo_spin_cap(e->polls) : 1;
    int k = recv_wait(e, c, rbuf, n, src, rtag, st, &got, locked ? 0 : polls);
    if (!k && locked) {
        /* The message waited for without the lock, then looked at holding it. */
        eng_unlock(e);
        *held = k = recv_spin(e, c, src, polls) && eng_lock(e);
        if (k && !locked_take(e, s, 0, rbuf, rcount, rdt, src, rtag, comm, st, &got)) {
            eng_unlock(e);
            *held = k = 0;
        }
    }
    if (!k) return goSendrecvSent(sn, dest, stag, rbuf, rcount, rdt, src, rtag, comm, st, replace, big);
    int call = replace ? MPIGO_C_SENDRECV_REPLACE : MPIGO_C_SENDRECV;
    count_call(call, sn);
    srec_count(s, &mpigo_short_calls[call]);
    return MPI_SUCCESS;
}

/* locked_sendrecv is short_sendrecv holding the engine's shared lock. */
static int __attribute__((noinline)) locked_sendrecv(mpigo_eng *e, const void *sbuf, int64_t scount, MPI_Datatype sdt,
                                                     int dest, int stag, void *rbuf, int64_t rcount, MPI_Datatype rdt,
                                                     int src, int rtag, MPI_Comm comm, MPI_Status *st, int replace,
                                                     int big) {
    if (!eng_lock(e)) return -1;
    srec s;
    int held = 1;
    int r = sendrecv_in(e, &s, sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, src, rtag, comm, st, replace, big, 1, &held);
    if (held) eng_unlock(e);
    return r;
}

static inline __attribute__((always_inline)) int short_sendrecv(const void *sbuf, int64_t scount, MPI_Datatype sdt, int dest,
                                                                int stag, void *rbuf, int64_t rcount, MPI_Datatype rdt,
                                                                int src, int rtag, MPI_Comm comm, MPI_Status *st,
                                                                int replace, int big) {
    mpigo_eng *e = (mpigo_eng *)__atomic_load_n(&mpigo_p2p.eng, __ATOMIC_ACQUIRE);
    if (e == NULL) return -1;
    if (__builtin_expect(!__atomic_load_n(&e->ok, __ATOMIC_ACQUIRE), 0))
        return locked_sendrecv(e, sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, src, rtag, comm, st, replace, big);
    srec s;
    int held = 0;
    return sendrecv_in(e, &s, sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, src, rtag, comm, st, replace, big, 0, &held);
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
    int r = short_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                           comm, status, 0, 0);
    return r >= 0 ? r
                  : goPMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                                    recvtag, comm, status);
}

int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                    MPI_Status *status) {
    int r = short_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                           comm, status, 0, 1);
    return r >= 0 ? r
                  : goPMPI_Sendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                                      recvtag, comm, status);
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                          MPI_Comm comm, MPI_Status *status) {
    int r = short_sendrecv(buf, count, datatype, dest, sendtag, buf, count, datatype, source, recvtag, comm, status, 1, 0);
    return r >= 0 ? r : goPMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}

int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                            int recvtag, MPI_Comm comm, MPI_Status *status) {
    int r = short_sendrecv(buf, count, datatype, dest, sendtag, buf, count, datatype, source, recvtag, comm, status, 1, 1);
    return r >= 0 ? r : goPMPI_Sendrecv_replace_c(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}

/* --- MPI_Mprobe and MPI_Mrecv ---
 *
 * mpi4py's comm.recv of an object is MPI_Mprobe, MPI_Get_count and MPI_Mrecv. A matched
 * probe whose message MPI_Recv's short way would take (the same conditions and the
 * same wait, serialised or holding the engine's shared lock) takes it here: the
 * packet off the ring into a record of the table below, its handle of kind
 * MPIGO_KIND_CMSG, the status as a receive's. MPI_Mrecv of such a message into a
 * predefined plain datatype with room for it copies it out here and frees the record;
 * anything else (another datatype, too little room, MPI_Imrecv, a freed handle) is
 * the Go half's, which adopts the record as a message the engine matched
 * (p2p.Engine.Adopt, through mpigo_cmsg_info and mpigo_cmsg_drain) and receives it as
 * its own, errors included. The table is guarded as the engine's words are: the engine
 * serialised, or its lock held (Go adopts under it). */
typedef struct {
    uintptr_t h; /* while live; 0 free */
    uint32_t gen, ctx;
    int32_t src, tag, wsrc; /* src: the communicator's rank */
    int32_t pad;
    MPI_Comm comm;
    int64_t len, cap;
    char *buf;
} mpigo_cmsg;

#define MPIGO_CMSG_ROOM (64 << 10) /* a record's room: a larger message is Go's */

static mpigo_cmsg cmsgs[MPIGO_CMSGS];
/* The free records in the order freed (cmsg_head to cmsg_tail), reused once
 * MPIGO_QUARANTINE others wait, as handle.h asks; cmsg_made have been made. */
static uint32_t cmsg_ring[MPIGO_CMSGS], cmsg_head, cmsg_tail, cmsg_made;

static mpigo_cmsg *cmsg_take(void) {
    uint32_t i;
    if (cmsg_tail - cmsg_head > MPIGO_QUARANTINE || (cmsg_made == MPIGO_CMSGS && cmsg_tail != cmsg_head))
        i = cmsg_ring[cmsg_head++ % MPIGO_CMSGS];
    else if (cmsg_made < MPIGO_CMSGS)
        i = cmsg_made++;
    else
        return NULL;
    mpigo_cmsg *m = &cmsgs[i];
    if (m->buf == NULL) {
        m->buf = malloc(MPIGO_CMSG_ROOM);
        if (m->buf == NULL) {
            cmsg_ring[cmsg_tail++ % MPIGO_CMSGS] = i;
            return NULL;
        }
        m->cap = MPIGO_CMSG_ROOM;
    }
    return m;
}

/* cmsg_put frees record m, or gives back one cmsg_take gave that was not used. */
static void cmsg_put(mpigo_cmsg *m) {
    __atomic_store_n(&m->h, 0, __ATOMIC_RELAXED);
    cmsg_ring[cmsg_tail++ % MPIGO_CMSGS] = (uint32_t)(m - cmsgs);
}

/* cmsg_of is the live record of handle h, or NULL. */
static mpigo_cmsg *cmsg_of(uintptr_t h) {
    uintptr_t i = mpigo_slot(h, MPIGO_KIND_CMSG);
    if (i >= MPIGO_CMSGS) return NULL;
    mpigo_cmsg *m = &cmsgs[i];
    return __atomic_load_n(&m->h, __ATOMIC_RELAXED) == h && h != 0 ? m : NULL;
}

/* mprobe_in is MPI_Mprobe's short way, the engine serialised or its lock held
 * (locked): the message taken into a record (polls: how long to wait for it; 0 a look),
 * *msg its handle, the status written; 0 nothing done. */
static inline int mprobe_in(mpigo_eng *e, srec *s, int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *st,
                            int64_t polls, int locked, int call) {
    int64_t n, got;
    const mpigo_comm *c = recv_ok(e, NULL, 0, MPI_BYTE, src, tag, comm, &n, locked);
    if (c == NULL || npend != 0) return 0;
    mpigo_cmsg *m = cmsg_take();
    if (m == NULL) return 0;
    MPI_Status ms;
    if (!srec_open(s, locked) || !recv_wait(e, c, m->buf, m->cap, src, tag, &ms, &got, polls)) {
        cmsg_put(m);
        return 0;
    }
    m->gen++;
    m->ctx = c->ctx;
    m->src = ms.MPI_SOURCE;
    m->tag = ms.MPI_TAG;
    m->wsrc = c->world[ms.MPI_SOURCE];
    m->comm = comm;
    m->len = got;
    __atomic_store_n(&m->h, mpigo_handle(MPIGO_KIND_CMSG, m->gen, (uintptr_t)(m - cmsgs)), __ATOMIC_RELAXED);
    *msg = (MPI_Message)m->h;
    if (st != MPI_STATUS_IGNORE) {
        ms.MPI_ERROR = st->MPI_ERROR;
        *st = ms;
    }
    count_call(call, 0);
    srec_count(s, &mpigo_short_calls[call]);
    return 1;
}

/* locked_mprobe is MPI_Mprobe's short way with the engine's shared lock: as
 * locked_recv, it waits without the lock and takes the message holding it. */
static int __attribute__((noinline)) locked_mprobe(mpigo_eng *e, int src, int tag, MPI_Comm comm, MPI_Message *msg,
                                                   MPI_Status *st) {
    const mpigo_comm *c = spin_ok(e, src, comm);
    if (c == NULL || !recv_spin(e, c, src, e->polls > 0 ? mpigo_spin_cap(e->polls) : 1) || !eng_lock(e)) return 0;
    srec s;
    int k = mprobe_in(e, &s, src, tag, comm, msg, st, 0, 1, MPIGO_C_MPROBE);
    eng_unlock(e);
    return k;
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status) {
    mpigo_eng *e = (mpigo_eng *)__atomic_load_n(&mpigo_p2p.eng, __ATOMIC_ACQUIRE);
    if (e != NULL && message != NULL) {
        srec s;
        if (!__atomic_load_n(&e->ok, __ATOMIC_ACQUIRE)) {
            if (locked_mprobe(e, source, tag, comm, message, status)) return MPI_SUCCESS;
        } else if (mprobe_in(e, &s, source, tag, comm, message, status, e->polls > 0 ? mpigo_spin_cap(e->polls) : 1, 0,
                             MPIGO_C_MPROBE))
            return MPI_SUCCESS;
    }
    return goPMPI_Mprobe(source, tag, comm, message, status);
}

/* improbe_in is MPI_Improbe's short way, the engine serialised or its lock held
 * (locked): MPI_Iprobe's answer (probe_in) where it is "no", and where it finds the
 * message a receive would take at its ring's head, MPI_Mprobe's take of it (one look)
 * into a record of the table above. 1 done (*flag set; on "no" the message and status
 * are left alone, as the Go half leaves them), 0 the Go way. */
static inline int improbe_in(mpigo_eng *e, int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg, MPI_Status *st,
                             int locked) {
    srec s;
    int k = probe_in(e, &s, src, tag, comm, MPI_STATUS_IGNORE, locked, -1);
    if (k == 2 && mprobe_in(e, &s, src, tag, comm, msg, st, 0, locked, MPIGO_C_IMPROBE)) {
        *flag = 1;
        return 1;
    }
    if (k != 1 || !srec_open(&s, locked)) return 0;
    *flag = 0;
    count_call(MPIGO_C_IMPROBE, 0);
    srec_count(&s, &mpigo_short_calls[MPIGO_C_IMPROBE]);
    return 1;
}

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status) {
    mpigo_eng *e = (mpigo_eng *)__atomic_load_n(&mpigo_p2p.eng, __ATOMIC_ACQUIRE);
    if (e != NULL && flag != NULL && message != NULL) {
        int k;
        if (!__atomic_load_n(&e->ok, __ATOMIC_ACQUIRE)) {
            k = eng_lock(e);
            if (k) {
                k = improbe_in(e, source, tag, comm, flag, message, status, 1);
                eng_unlock(e);
            }
        } else {
            k = improbe_in(e, source, tag, comm, flag, message, status, 0);
        }
        if (k) return MPI_SUCCESS;
    }
    return goPMPI_Improbe(source, tag, comm, flag, message, status);
}

/* short_mrecv is MPI_Mrecv's short way for a message of this table: 1 received (the
 * record freed, *msg MPI_MESSAGE_NULL), 0 the Go way does it all. */
static int short_mrecv(void *buf, int64_t count, MPI_Datatype dt, MPI_Message *msg, MPI_Status *st) {
    mpigo_eng *e = (mpigo_eng *)__atomic_load_n(&mpigo_p2p.eng, __ATOMIC_ACQUIRE);
    uintptr_t i = (uintptr_t)dt - 0x200;
    if (e == NULL || msg == NULL || mpigo_slot((uintptr_t)*msg, MPIGO_KIND_CMSG) >= MPIGO_CMSGS || i >= 256 ||
        (uint64_t)count > MPIGO_SHORT_MAX)
        return 0;
    int64_t size = mpigo_short_dts[i].size;
    int locked = !__atomic_load_n(&e->ok, __ATOMIC_ACQUIRE);
    if (size <= 0 || (locked && !eng_lock(e))) return 0;
    mpigo_cmsg *m = cmsg_of((uintptr_t)*msg);
    srec s;
    int k = m != NULL && count * size >= m->len && (m->len == 0 || buf != NULL) && srec_open(&s, locked);
    if (k) {
        if (m->len > 0) memcpy(buf, m->buf, (size_t)m->len);
        if (st != MPI_STATUS_IGNORE) {
            st->MPI_SOURCE = m->src;
            st->MPI_TAG = m->tag;
            st->MPI_internal[0] = (int)(uint32_t)m->len;
            st->MPI_internal[1] = (int)(m->len >> 32);
            st->MPI_internal[2] = 0;
        }
        cmsg_put(m);
        *msg = MPI_MESSAGE_NULL;
        count_call(MPIGO_C_MRECV, count * size);
        srec_count(&s, &mpigo_short_calls[MPIGO_C_MRECV]);
    }
    if (locked) eng_unlock(e);
    return k;
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status) {
    if (short_mrecv(buf, count, datatype, message, status)) return MPI_SUCCESS;
    return goPMPI_Mrecv(buf, count, datatype, message, status);
}

int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status) {
    if (short_mrecv(buf, count, datatype, message, status)) return MPI_SUCCESS;
    return goPMPI_Mrecv_c(buf, count, datatype, message, status);
}

/* mpigo_cmsg_info is what the Go half needs of the message of handle h to adopt it:
 * its context, source (world rank), tag, length and communicator; 0 if h is no live
 * record's. The caller holds the engine's lock, or the engine is serialised. */
MPIGO_HIDDEN int mpigo_cmsg_info(uintptr_t h, int32_t *wsrc, int32_t *tag, int64_t *len, uintptr_t *comm) {
    mpigo_cmsg *m = cmsg_of(h);
    if (m == NULL) return 0;
    *wsrc = m->wsrc;
    *tag = m->tag;
    *len = m->len;
    *comm = (uintptr_t)m->comm;
    return 1;
}

/* mpigo_cmsg_drain copies the n bytes of the message of handle h to dst and frees its
 * record: 0 if h is no live record's or its length is not n. Under the engine's lock
 * (p2p.Engine.Adopt's fill), or serialised. */
MPIGO_HIDDEN int mpigo_cmsg_drain(uintptr_t h, void *dst, int64_t n) {
    mpigo_cmsg *m = cmsg_of(h);
    if (m == NULL || m->len != n) return 0;
    if (n > 0) memcpy(dst, m->buf, (size_t)n);
    cmsg_put(m);
    return 1;
}

/* mpigo_cmsg_next is the handle of the next live record, from slot *from on, of a
 * message matched on communicator comm (*from moved past it), 0 for none: the Go half
 * adopts them before comm is freed (adoptCMsgsOf). */
MPIGO_HIDDEN uintptr_t mpigo_cmsg_next(uintptr_t comm, uint32_t *from) {
    for (; *from < cmsg_made; (*from)++) {
        mpigo_cmsg *m = &cmsgs[*from];
        uintptr_t h = __atomic_load_n(&m->h, __ATOMIC_RELAXED);
        if (h != 0 && (uintptr_t)m->comm == comm) {
            (*from)++;
            return h;
        }
    }
    return 0;
}

/* --- MPI_Isend, MPI_Irecv and the requests kept here ---
 *
 * A nonblocking send that MPI_Send's short way can do is done here the same way: the
 * message is in the peer's ring when MPI_Isend returns, so its request is complete.
 * A nonblocking receive whose message MPI_Recv's short way would take at once (the
 * same conditions, but looking at the ring once, without waiting) takes it here, and
 * its request is complete too. Such a request is a record of the table below, its
 * handle of kind MPIGO_KIND_CREQ: the status the Go way would report for it (source,
 * tag, count; MPI_Send's status as the engine makes it: the destination and the
 * message's tag and length).
 *
 * A nonblocking receive whose message is not there yet, from a node peer whose ring
 * the engine shows, is kept here too, pending (whatever its buffer's size: a program
 * may receive a short message into a large buffer, as mpi4py's irecv of an object
 * does into 32 KiB, and a message past the eager limit comes as a rendezvous, which
 * posts the queue to Go): its arguments in its record, its place in one queue of pending
 * receives in the order they were made (and every later MPI_Irecv that may be kept
 * joins the queue, taking nothing at once: an earlier pending receive may match its
 * message). The completion calls take the pending receives' messages from the rings'
 * heads here (pend_step): each packet at the head of a pending receive's source's ring
 * goes to the first pending receive in the queue it matches, as the engine's posted
 * queue would give it, if it is an eager message that receive takes; anything else (a
 * packet no pending receive matches, another context's, a rendezvous, a synchronous
 * one, a truncation), a wait longer than pollPeer's polls, a set with Go's requests or
 * a call other than Wait, Test, Waitall, Testall: the queue is posted to Go
 * (pend_flush), in order, each record then following its Go request (its handle, the
 * program's, stays valid; the calls pass Go's handle to the Go half in its place).
 * Go posts them itself, before anything else could match on any context or move a
 * packet: the engine's deferred word (p2p.Engine.SetDeferred) makes every receive,
 * probe and progress round of the engine post them first, so the order of receives is
 * the order they were made, and a peer waiting for one of them (a full ring, a
 * synchronous send, a rendezvous) is answered as soon as this rank runs Go at all.
 * While receives are pending no MPI_Recv, MPI_Sendrecv or at-once MPI_Irecv takes a
 * message here. Where the engine is not serialised (MPI_THREAD_MULTIPLE) all this is
 * done holding its shared lock, under which the engine calls Go's half too; a
 * completion call waits between its looks without it (locked_pend_wait).
 *
 * Every call that takes a request takes both kinds. On requests of this table alone
 * (and MPI_REQUEST_NULL) the completion calls are done here: complete ones are
 * reported at once and the handle made MPI_REQUEST_NULL (MPI_Request_get_status* leave
 * it), MPI_Cancel has nothing to cancel, MPI_Request_free frees the record. A set that
 * mixes both kinds goes to the Go half with this table's complete requests shown as
 * MPI_REQUEST_NULL and those that follow a Go request as that request (a copy of the
 * handles), and what Go reports is merged with them: MPI_Waitall, MPI_Testall and
 * MPI_Request_get_status_all complete this table's requests when Go completed its own
 * (Testall: all or none); MPI_Waitany, MPI_Testany and MPI_Request_get_status_any report
 * the lowest-indexed completed request, as the engine's do (Go tests the requests
 * before the first complete one of this table; none there completed, that one);
 * MPI_Waitsome, MPI_Testsome and MPI_Request_get_status_some report Go's completed
 * requests and all of this table's complete ones, in index order. Where Go reports
 * MPI_ERR_IN_STATUS this table's requests' statuses say MPI_SUCCESS; any other error
 * of Go's leaves them as they were. The calls are counted as the C short ways count
 * (the record's gate), or recorded by Go (mpigo_record_call) where the record would
 * time them. Persistent requests, and MPI_Start, are Go's alone. */

/* A record's states: complete; pending (a receive not yet posted to Go); following
 * the Go request gh; being posted to Go (mpigo_pend_pop to mpigo_pend_posted, inside
 * one hold of the engine's lock). Complete and following are final: only the record's
 * owner (the thread that holds its handle) changes it then. Pending records change
 * under the engine's lock (serialised, or its shared lock held): at
 * MPI_THREAD_MULTIPLE another thread may take a pending record's message or post it
 * to Go meanwhile, so its owner reads the state with creq_state and settles a record
 * that is not final before reading anything else of it. */
enum { CREQ_DONE, CREQ_PEND, CREQ_FWD, CREQ_POST };

/* A request kept here: its handle while live (0 free), the generation of its next
 * one, its state, and its status (complete) or its receive's arguments (pending) or
 * its Go request (following). */
typedef struct {
    uintptr_t h;
    uint32_t gen, state;
    MPI_Status st;
    int32_t err; /* a complete record's MPI_ERROR: Go failed to post it */
    int32_t src, tag, wsrc;
    uint32_t ctx, pad;
    void *buf;
    int64_t n, count;
    MPI_Datatype dt;
    MPI_Comm comm;
    uintptr_t gh;
} mpigo_creq;

#define MPIGO_CREQS 16384 /* live at once; past it MPI_Isend and MPI_Irecv take Go */

static mpigo_creq creqs[MPIGO_CREQS];
static uint32_t creq_free[MPIGO_CREQS], creq_nfree, creq_made, creq_lock;

/* The queue of pending receives: their handles in the order they were made, from
 * pend_head to pend_tail; a handle that is no longer a pending record's is skipped.
 * npend counts the pending records (the engine's deferred word mirrors it). */
#define PENDQ 4096
static uintptr_t pend_q[PENDQ];
static uint32_t pend_head, pend_tail;
static int32_t pend_src = -1; /* the world rank every pending receive is from, -1 if several */

/* mpigo_creq_mt is set (by the Go side's reqsMT) once MPI_THREAD_MULTIPLE is
 * provided: from then on the completion calls of several threads may free records at
 * once, and the free list takes a lock. Records are made only below it (the engine's
 * ok word), by one thread at a time. */
int32_t mpigo_creq_mt;

/* The Go half that records a call the record would time (p2pshort.go). */
extern void mpigo_record_call(int call, int64_t n);

/* The Go half that posts the pending receives in order (p2pshort.go: flushPending). */
extern void mpigo_pend_flush(void);

static inline void creq_locked(int on) {
    if (__builtin_expect(__atomic_load_n(&mpigo_creq_mt, __ATOMIC_RELAXED) == 0, 1)) return;
    if (!on) {
        __atomic_store_n(&creq_lock, 0, __ATOMIC_RELEASE);
        return;
    }
    while (__atomic_exchange_n(&creq_lock, 1, __ATOMIC_ACQUIRE) != 0) __builtin_ia32_pause();
}

/* creq_state is q's state, and what was written of q before it (creq_set). */
static inline uint32_t creq_state(const mpigo_creq *q) { return __atomic_load_n(&q->state, __ATOMIC_ACQUIRE); }

static inline void creq_set(mpigo_creq *q, uint32_t state) { __atomic_store_n(&q->state, state, __ATOMIC_RELEASE); }

/* creq_final says whether q's state is final (complete, or following a Go request). */
static inline int creq_final(uint32_t state) { return state == CREQ_DONE || state == CREQ_FWD; }

/* creq_of is the live record of handle h, NULL when h is not one. */
static inline mpigo_creq *creq_of(MPI_Request h) {
    uintptr_t i = mpigo_slot((uintptr_t)h, MPIGO_KIND_CREQ);
    if (i >= MPIGO_CREQS) return NULL;
    mpigo_creq *q = &creqs[i];
    return __atomic_load_n(&q->h, __ATOMIC_ACQUIRE) == (uintptr_t)h ? q : NULL;
}

int mpigo_creq_live(uintptr_t h) { return creq_of((MPI_Request)h) != NULL; }

/* creq_take takes a free record (not yet live), NULL when all are live. */
static inline mpigo_creq *creq_take(void) {
    mpigo_creq *q = NULL;
    creq_locked(1);
    if (creq_nfree > 0)
        q = &creqs[creq_free[--creq_nfree]];
    else if (creq_made < MPIGO_CREQS)
        q = &creqs[creq_made++];
    creq_locked(0);
    if (q != NULL) q->state = CREQ_DONE, q->err = MPI_SUCCESS;
    return q;
}

/* creq_put gives a record back (live or not). */
static inline void creq_put(mpigo_creq *q) {
    __atomic_store_n(&q->h, 0, __ATOMIC_RELEASE);
    creq_locked(1);
    creq_free[creq_nfree++] = (uint32_t)(q - creqs);
    creq_locked(0);
}

/* creq_live makes record q live under its slot's next handle, which it returns. */
static inline MPI_Request creq_live(mpigo_creq *q) {
    uintptr_t h = mpigo_handle(MPIGO_KIND_CREQ, ++q->gen, (uintptr_t)(q - creqs));
    __atomic_store_n(&q->h, h, __ATOMIC_RELEASE);
    return (MPI_Request)h;
}

/* creq_status writes q's status into st as the Go half's putStatus does (MPI_ERROR
 * untouched). */
static inline void creq_status(const mpigo_creq *q, MPI_Status *st) {
    if (st == MPI_STATUS_IGNORE) return;
    st->MPI_SOURCE = q->st.MPI_SOURCE;
    st->MPI_TAG = q->st.MPI_TAG;
    st->MPI_internal[0] = q->st.MPI_internal[0];
    st->MPI_internal[1] = q->st.MPI_internal[1];
    st->MPI_internal[2] = 0;
}

/* empty_status is the status of a null request (the Go half's emptyStatus). */
static inline void empty_status(MPI_Status *st) {
    if (st == MPI_STATUS_IGNORE) return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    st->MPI_internal[0] = st->MPI_internal[1] = st->MPI_internal[2] = 0;
}

/* record counts a call done here (of n bytes) that armed the sample at its start
 * (mpigo_gate_arm) where the record counts it, untimed or as the sample, and has Go
 * record it elsewhere (the timeline, a call under way in Go). */
static inline void record(int call, int64_t n) {
    if (__builtin_expect(mpigo_short_mt != 0, 0)) {
        /* Threads may count at once: atomically, timed as mpigo_conc_open says. */
        if (!mpigo_p2p.conc) {
            mpigo_record_call(call, n);
            return;
        }
        uint32_t w = 0;
        uint64_t t0 = mpigo_conc_open(&w);
        mpigo_count_mt(&mpigo_short_calls[call], n, t0, w);
        return;
    }
    uint32_t *gate = (uint32_t *)mpigo_p2p.gate;
    if (gate != NULL) {
        uint32_t g = *gate;
        if (g - 1 < MPIGO_GATE_INCALL - 1 && (g != 1 || mpigo_sample.armed)) {
            count_call(call, n);
            mpigo_gate_count(gate, &mpigo_short_calls[call]);
            return;
        }
    }
    mpigo_record_call(call, n);
}

/* arm is mpigo_gate_arm on the record's gate. */
static inline void arm(void) { mpigo_gate_arm((const uint32_t *)mpigo_p2p.gate); }

/* set_npend sets the count of pending records and the engine's word mirroring it. */
static inline void set_npend(int64_t k) {
    __atomic_store_n(&npend, k, __ATOMIC_RELAXED);
    if (k == 0) pend_src = -1;
    mpigo_eng *e = (mpigo_eng *)__atomic_load_n(&mpigo_p2p.eng, __ATOMIC_ACQUIRE);
    if (e != NULL) e->deferred = k != 0;
}

/* pend_flush has Go post every pending receive, in order (each record then follows
 * its Go request). Go takes the engine's lock to do it, so a record another thread was
 * posting meanwhile is posted too when it returns. */
static void __attribute__((noinline)) pend_flush(void) { mpigo_pend_flush(); }

/* The pending receive Go posts now (mpigo_pend_pop), in C memory so that Go's side
 * passes no pointer of its own. */
static mpigo_pendrec pend_rec;

/* mpigo_pend_pop gives Go the oldest pending receive's arguments and makes it no
 * longer pending (Go posts it, writing its request into gh, and then calls
 * mpigo_pend_posted): NULL none left. */
mpigo_pendrec *mpigo_pend_pop(void) {
    while (pend_head != pend_tail) {
        uintptr_t ph = pend_q[pend_head % PENDQ];
        pend_head++;
        mpigo_creq *q = creq_of((MPI_Request)ph);
        if (q == NULL || q->state != CREQ_PEND) continue;
        q->gh = (uintptr_t)MPI_REQUEST_NULL;
        creq_set(q, CREQ_POST);
        set_npend(npend - 1);
        pend_rec = (mpigo_pendrec){.h = ph, .buf = q->buf, .count = q->count, .dt = (uintptr_t)q->dt,
                                   .src = q->src, .tag = q->tag, .comm = (uintptr_t)q->comm, .gh = 0};
        return &pend_rec;
    }
    set_npend(0);
    return NULL;
}

/* mpigo_pend_posted: Go posted the pending receive mpigo_pend_pop gave it as its
 * request gh, or failed with err (the record is then complete, its calls reporting
 * err). */
void mpigo_pend_posted(int err) {
    mpigo_creq *q = creq_of((MPI_Request)pend_rec.h);
    uintptr_t gh = pend_rec.gh;
    if (q == NULL) return;
    if (err != MPI_SUCCESS) {
        q->err = err;
        empty_status(&q->st);
        q->st.MPI_ERROR = err;
        creq_set(q, CREQ_DONE);
        return;
    }
    q->gh = gh;
    creq_set(q, CREQ_FWD);
}

/* is_pend says whether queue entry h is still a pending record. */
static inline int is_pend(uintptr_t h) {
    mpigo_creq *q = creq_of((MPI_Request)h);
    return q != NULL && q->state == CREQ_PEND;
}

/* pend_take takes the packet at the head of ring r (from world rank w), if any, into
 * the first pending receive in the queue that it matches: 1 taken, 0 no packet, -1 a
 * packet only Go may handle. */
static inline int pend_take(mpigo_inring *r, int32_t w) {
    const uint64_t *wd = (const uint64_t *)(r->cells + (r->pos & r->cell_mask) * MPIGO_CELL);
    uint64_t stamp = __atomic_load_n(&wd[0], __ATOMIC_ACQUIRE);
    if ((uint32_t)stamp != (uint32_t)(r->pos + 1)) return 0;
    uint64_t h2 = wd[2];
    uint32_t ctx = (uint32_t)h2;
    int mtag = (int32_t)(h2 >> 32);
    while (pend_head != pend_tail && !is_pend(pend_q[pend_head % PENDQ])) pend_head++;
    for (uint32_t i = pend_head; i != pend_tail; i++) {
        mpigo_creq *q = creq_of((MPI_Request)pend_q[i % PENDQ]);
        if (q == NULL || q->state != CREQ_PEND || q->wsrc != w || q->ctx != ctx ||
            (q->tag != MPI_ANY_TAG && q->tag != mtag))
            continue;
        int64_t got;
        int gtag;
        if (in_take(r, w, ctx, mtag, q->buf, q->n, &got, &gtag) <= 0) return -1;
        q->st.MPI_SOURCE = q->src;
        q->st.MPI_TAG = gtag;
        q->st.MPI_internal[0] = (int)(uint32_t)got;
        q->st.MPI_internal[1] = (int)(got >> 32);
        q->st.MPI_internal[2] = 0;
        creq_set(q, CREQ_DONE);
        set_npend(npend - 1);
        return 1;
    }
    return -1; /* no pending receive takes it: Go queues it */
}

/* pend_step takes what the heads of the pending receives' sources' rings hold, in the
 * queue's order, until they hold nothing more: 1 something taken, 0 nothing there, -1
 * Go must go on (a packet only it may handle, or the engine wanting more than a look).
 * Where every pending receive has one source (pend_src), its ring alone. locked: the
 * caller holds engine e's shared lock, in place of the engine's being serialised. */
static int pend_step(mpigo_eng *e, int locked) {
    if (e == NULL || (!locked && !__atomic_load_n(&e->ok, __ATOMIC_ACQUIRE)) || !e->quiet) return -1;
    int took = 0;
    if (pend_src >= 0) {
        mpigo_inring *r = pend_src < e->size ? e->inrings[pend_src] : NULL;
        if (r == NULL) return -1;
        while (npend != 0) {
            int k = pend_take(r, pend_src);
            if (k <= 0) return k < 0 ? -1 : took;
            took = 1;
        }
        return 1;
    }
    for (uint32_t i = pend_head; i != pend_tail;) {
        mpigo_creq *q = creq_of((MPI_Request)pend_q[i % PENDQ]);
        if (q == NULL || q->state != CREQ_PEND) {
            i++;
            continue;
        }
        mpigo_inring *r = (unsigned)q->wsrc < (unsigned)e->size ? e->inrings[q->wsrc] : NULL;
        if (r == NULL) return -1;
        int k = pend_take(r, q->wsrc);
        if (k < 0) return -1;
        if (k == 0) {
            i++;
            continue;
        }
        /* The next packet from that ring may match an earlier record than this one's. */
        took = 1;
        i = pend_head;
    }
    return took;
}

/* spin_pend is spin_one that stops too when pending record q is pending no more (another
 * thread took its message, or posted it to Go): 1 stopped, 0 polls polls passed. */
static int __attribute__((noinline)) spin_pend(const mpigo_inring *r, const mpigo_creq *q, int64_t polls) {
    for (; polls > 0; polls--) {
        if (head_there(r) || creq_state(q) != CREQ_PEND) return 1;
        mpigo_pause();
    }
    return 0;
}

/* locked_pend_wait is pend_wait where the engine is not serialised: each look at the
 * rings is made holding its shared lock, and the waiting between looks without it. Where
 * the lock is held (by Go, or by another thread's look) or the engine does not share it,
 * the pending receives are posted to Go at once. */
static void __attribute__((noinline)) locked_pend_wait(mpigo_eng *e, int n, const MPI_Request *hs, int64_t polls,
                                                       int flush) {
    for (;;) {
        if (!eng_lock(e)) break;
        int from = 0;
        while (from < n && !is_pend((uintptr_t)hs[from])) from++;
        if (from == n) {
            eng_unlock(e);
            return;
        }
        int k = pend_step(e, 1);
        const mpigo_creq *q = creq_of(hs[from]);
        const mpigo_inring *r = (unsigned)q->wsrc < (unsigned)e->size ? e->inrings[q->wsrc] : NULL;
        eng_unlock(e);
        if (k < 0) break;
        if (k > 0) continue;
        if (polls == 0 && !flush) return;
        if (r == NULL || !spin_pend(r, q, polls)) {
            if (!flush) return;
            break;
        }
    }
    pend_flush();
}

/* pend_wait takes messages for the pending receives until none of the n handles hs is
 * a pending record, waiting as pollPeer does (up to polls polls of the ring of the first
 * one still pending, each time nothing came; 0: one look, without waiting), then posts
 * what is left to Go if any of them is still pending and flush (or at once where a
 * packet only Go may handle is there). */
static void pend_wait(int n, const MPI_Request *hs, int64_t polls, int flush) {
    mpigo_eng *e = (mpigo_eng *)__atomic_load_n(&mpigo_p2p.eng, __ATOMIC_ACQUIRE);
    if (e != NULL && !__atomic_load_n(&e->ok, __ATOMIC_ACQUIRE)) {
        locked_pend_wait(e, n, hs, polls, flush);
        return;
    }
    int from = 0;
    for (;;) {
        while (from < n && !is_pend((uintptr_t)hs[from])) from++;
        if (from == n) return;
        int k = pend_step(e, 0);
        if (k < 0) break;
        if (k > 0) continue;
        if (polls == 0 && !flush) return;
        int32_t w = creq_of(hs[from])->wsrc;
        mpigo_inring *r = e != NULL && w < e->size ? e->inrings[w] : NULL;
        if (r == NULL || !spin_one(r, polls)) {
            if (!flush) return;
            break;
        }
    }
    pend_flush();
}

static inline int64_t wait_polls(void) {
    mpigo_eng *e = (mpigo_eng *)__atomic_load_n(&mpigo_p2p.eng, __ATOMIC_ACQUIRE);
    return e != NULL && e->polls > 0 ? mpigo_spin_cap(e->polls) : 1;
}

/* short_isend is MPI_Isend's short way: 1 sent, *req a complete request; 0 the Go
 * way does it all. */
static inline __attribute__((always_inline)) int short_isend(const void *buf, int64_t count, MPI_Datatype dt, int dest,
                                                             int tag, MPI_Comm comm, MPI_Request *req) {
    if (req == NULL || (uintptr_t)dt - 0x200 >= 256) return 0;
    mpigo_creq *q = creq_take();
    if (q == NULL) return 0;
    if (!short_send(buf, count, dt, dest, tag, comm, MPIGO_C_ISEND)) {
        creq_put(q);
        return 0;
    }
    int64_t n = count * mpigo_short_dts[(uintptr_t)dt - 0x200].size;
    q->st.MPI_SOURCE = dest;
    q->st.MPI_TAG = tag;
    q->st.MPI_internal[0] = (int)(uint32_t)n;
    q->st.MPI_internal[1] = (int)(n >> 32);
    *req = creq_live(q);
    return 1;
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) {
    if (short_isend(buf, count, datatype, dest, tag, comm, request)) return MPI_SUCCESS;
    return goPMPI_Isend(buf, count, datatype, dest, tag, comm, request);
}

int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                 MPI_Request *request) {
    if (short_isend(buf, count, datatype, dest, tag, comm, request)) return MPI_SUCCESS;
    return goPMPI_Isend_c(buf, count, datatype, dest, tag, comm, request);
}

/* pend_make makes record q the pending receive of n bytes into buf (count of dt) from
 * src with tag on communicator c (handle comm), *req its handle, where one may be kept
 * (serialised, or holding the engine's shared lock): from a node peer whose ring the
 * engine shows, its ring empty (a packet there this receive could not take is Go's)
 * or receives pending before it. 1 made, 0 not. */
static inline int pend_make(mpigo_eng *e, const mpigo_comm *c, mpigo_creq *q, void *buf, int64_t n, int64_t count,
                            MPI_Datatype dt, int src, int tag, MPI_Comm comm, MPI_Request *req) {
    int w = src != MPI_ANY_SOURCE ? c->world[src] : -1;
    if (w < 0 || w >= e->size || e->inrings[w] == NULL || pend_tail - pend_head >= PENDQ ||
        (npend == 0 && head_there(e->inrings[w])))
        return 0;
    q->state = CREQ_PEND;
    q->buf = buf, q->n = n, q->count = count, q->dt = dt, q->comm = comm;
    q->src = src, q->tag = tag, q->wsrc = w, q->ctx = c->ctx;
    *req = creq_live(q);
    pend_q[pend_tail++ % PENDQ] = (uintptr_t)*req;
    pend_src = npend == 0 || pend_src == w ? w : -1;
    set_npend(npend + 1);
    return 1;
}

/* short_irecv is MPI_Irecv's short way: 1 done, *req a request complete (its message
 * was at the head of its ring) or pending; 0 the Go way does it all (posts the
 * receive, after the pending ones). */
/* locked_irecv is short_irecv with the engine's shared lock: the message taken at once
 * or the receive kept pending as where the engine is serialised, holding the lock. */
static int __attribute__((noinline)) locked_irecv(mpigo_eng *e, void *buf, int64_t count, MPI_Datatype dt, int src,
                                                  int tag, MPI_Comm comm, MPI_Request *req) {
    if (req == NULL || !eng_lock(e)) return 0;
    int64_t n, got;
    srec s;
    mpigo_creq *q = NULL;
    const mpigo_comm *c = recv_ok(e, buf, count, dt, src, tag, comm, &n, 1);
    int k = 0;
    if (c != NULL && (q = creq_take()) != NULL && srec_open(&s, 1)) {
        if (npend == 0 && recv_wait(e, c, buf, n, src, tag, &q->st, &got, 0)) {
            *req = creq_live(q);
            k = 1;
        } else {
            k = pend_make(e, c, q, buf, n, count, dt, src, tag, comm, req);
        }
    }
    if (k) {
        count_call(MPIGO_C_IRECV, n); /* as the Go way's Irecv: the buffer's bytes */
        srec_count(&s, &mpigo_short_calls[MPIGO_C_IRECV]);
    } else if (q != NULL) {
        creq_put(q);
    }
    eng_unlock(e);
    return k;
}

static inline __attribute__((always_inline)) int short_irecv(void *buf, int64_t count, MPI_Datatype dt, int src, int tag,
                                                             MPI_Comm comm, MPI_Request *req) {
    mpigo_eng *e = (mpigo_eng *)__atomic_load_n(&mpigo_p2p.eng, __ATOMIC_ACQUIRE);
    if (e != NULL && __builtin_expect(!__atomic_load_n(&e->ok, __ATOMIC_ACQUIRE), 0))
        return locked_irecv(e, buf, count, dt, src, tag, comm, req);
    uint32_t *gate = (uint32_t *)mpigo_p2p.gate;
    int64_t n, got;
    const mpigo_comm *c = recv_ok(e, buf, count, dt, src, tag, comm, &n, 0);
    if (c == NULL || gate == NULL || req == NULL) return 0;
    /* A call the record would time in Go (the timeline, a call under way) takes Go,
     * but behind pending receives, where it joins them and Go records it. */
    if (!mpigo_gate_open(*gate) && npend == 0) return 0;
    mpigo_creq *q = creq_take();
    if (q == NULL) return 0;
    if (npend != 0 || !recv_wait(e, c, buf, n, src, tag, &q->st, &got, 0)) {
        if (!pend_make(e, c, q, buf, n, count, dt, src, tag, comm, req)) {
            creq_put(q);
            return 0;
        }
    } else {
        *req = creq_live(q);
    }
    record(MPIGO_C_IRECV, n); /* as the Go way's Irecv: the buffer's bytes */
    return 1;
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request) {
    if (short_irecv(buf, count, datatype, source, tag, comm, request)) return MPI_SUCCESS;
    return goPMPI_Irecv(buf, count, datatype, source, tag, comm, request);
}

int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                 MPI_Request *request) {
    if (short_irecv(buf, count, datatype, source, tag, comm, request)) return MPI_SUCCESS;
    return goPMPI_Irecv_c(buf, count, datatype, source, tag, comm, request);
}

/* creq_finish ends complete record q: its status into status (MPI_ERROR left alone:
 * MPI 4.1 sec. 3.2.5 lets only the calls returning several statuses set it, as the Go
 * half's putStatus), the record freed and *request MPI_REQUEST_NULL. It returns the
 * record's error. */
static inline int creq_finish(mpigo_creq *q, MPI_Request *request, MPI_Status *status) {
    int err = q->err;
    creq_status(q, status);
    creq_put(q);
    *request = MPI_REQUEST_NULL;
    return err;
}

/* fwd_back makes the program's handle *request MPI_REQUEST_NULL and frees record q
 * (following a Go request) if the Go half made that request's handle null. */
static inline void fwd_back(mpigo_creq *q, MPI_Request *request) {
    if (q->gh == (uintptr_t)MPI_REQUEST_NULL) {
        creq_put(q);
        *request = MPI_REQUEST_NULL;
    }
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status) {
    if (request != NULL && *request == MPI_REQUEST_NULL) {
        arm();
        empty_status(status);
        record(MPIGO_C_WAIT, 0);
        return MPI_SUCCESS;
    }
    mpigo_creq *q = request != NULL ? creq_of(*request) : NULL;
    if (q == NULL) return goPMPI_Wait(request, status);
    arm();
    if (!creq_final(creq_state(q))) pend_wait(1, request, wait_polls(), 1);
    if (creq_state(q) == CREQ_FWD) {
        int rc = goPMPI_Wait((MPI_Request *)&q->gh, status);
        fwd_back(q, request);
        return rc;
    }
    int err = creq_finish(q, request, status);
    record(MPIGO_C_WAIT, 0);
    return err;
}

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
    if (request != NULL && flag != NULL && *request == MPI_REQUEST_NULL) {
        arm();
        empty_status(status);
        *flag = 1;
        record(MPIGO_C_TEST, 0);
        return MPI_SUCCESS;
    }
    mpigo_creq *q = request != NULL && flag != NULL ? creq_of(*request) : NULL;
    if (q == NULL) return goPMPI_Test(request, flag, status);
    arm();
    if (!creq_final(creq_state(q))) {
        pend_wait(1, request, 0, 0);
        if (!creq_final(creq_state(q))) {
            *flag = 0;
            record(MPIGO_C_TEST, 0);
            return MPI_SUCCESS;
        }
    }
    if (creq_state(q) == CREQ_FWD) {
        int rc = goPMPI_Test((MPI_Request *)&q->gh, flag, status);
        fwd_back(q, request);
        return rc;
    }
    int err = creq_finish(q, request, status);
    *flag = 1;
    record(MPIGO_C_TEST, 0);
    return err;
}

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
    mpigo_creq *q = flag != NULL ? creq_of(request) : NULL;
    if (q == NULL) return goPMPI_Request_get_status(request, flag, status);
    arm();
    if (!creq_final(creq_state(q))) {
        pend_wait(1, &request, 0, 0);
        if (!creq_final(creq_state(q))) {
            *flag = 0;
            record(MPIGO_C_GET_STATUS, 0);
            return MPI_SUCCESS;
        }
    }
    if (creq_state(q) == CREQ_FWD) return goPMPI_Request_get_status((MPI_Request)q->gh, flag, status);
    creq_status(q, status);
    *flag = 1;
    record(MPIGO_C_GET_STATUS, 0);
    return q->err;
}

int PMPI_Request_free(MPI_Request *request) {
    mpigo_creq *q = request != NULL ? creq_of(*request) : NULL;
    if (q == NULL) return goPMPI_Request_free(request);
    arm();
    if (!creq_final(creq_state(q))) pend_flush(); /* it goes on in Go */
    if (creq_state(q) == CREQ_FWD) {
        int rc = goPMPI_Request_free((MPI_Request *)&q->gh);
        fwd_back(q, request);
        return rc;
    }
    creq_put(q);
    *request = MPI_REQUEST_NULL;
    record(MPIGO_C_REQUEST_FREE, 0);
    return MPI_SUCCESS;
}

/* A complete request has nothing to cancel: its status says not cancelled. A pending
 * one is posted to Go, which cancels it. */
int PMPI_Cancel(MPI_Request *request) {
    mpigo_creq *q = request != NULL ? creq_of(*request) : NULL;
    if (q == NULL) return goPMPI_Cancel(request);
    arm();
    if (!creq_final(creq_state(q))) pend_flush();
    if (creq_state(q) == CREQ_FWD) return goPMPI_Cancel((MPI_Request *)&q->gh);
    record(MPIGO_C_CANCEL, 0);
    return MPI_SUCCESS;
}

/* A set's records by state: set_scan counts among n handles hs the complete records
 * (*nd; the first at *first, -1 for none), the pending ones (*np), those following a
 * Go request (*nf), and the other handles that are not MPI_REQUEST_NULL (the return). */
static inline int set_scan(int n, const MPI_Request *hs, int *nd, int *np, int *nf, int *first) {
    int ng = 0;
    uint32_t st;
    *nd = *np = *nf = 0;
    *first = -1;
    for (int i = 0; i < n; i++) {
        if (hs[i] == MPI_REQUEST_NULL) continue;
        mpigo_creq *q = creq_of(hs[i]);
        if (q == NULL) {
            ng++;
        } else if ((st = creq_state(q)) == CREQ_DONE) {
            if ((*nd)++ == 0) *first = i;
        } else if (st != CREQ_FWD) {
            (*np)++;
        } else {
            (*nf)++;
        }
    }
    return ng;
}

/* shown is the handle the Go half sees for h: MPI_REQUEST_NULL for a complete record,
 * its Go request for one following it, h itself for Go's own. */
static inline MPI_Request shown(MPI_Request h) {
    mpigo_creq *q = creq_of(h);
    if (q == NULL) return h;
    return q->state == CREQ_FWD ? (MPI_Request)q->gh : MPI_REQUEST_NULL;
}

/* A set's scratch: a copy of its handles as the Go half sees them (shown), and room for
 * Go's indices and statuses, on the stack for up to SET_SMALL requests. */
#define SET_SMALL 64
typedef struct {
    MPI_Request *hs;
    int *idx;
    MPI_Status *sts;
    MPI_Request hb[SET_SMALL];
    int ib[SET_SMALL];
    MPI_Status sb[SET_SMALL];
} set_scratch;

/* scratch_make fills x for n handles hs (idx and sts too if asked): 0 out of memory. */
static int scratch_make(set_scratch *x, int n, const MPI_Request *hs, int idx, int sts) {
    x->hs = x->hb, x->idx = x->ib, x->sts = x->sb;
    if (n > SET_SMALL) {
        x->hs = malloc((size_t)n * sizeof *x->hs);
        x->idx = idx ? malloc((size_t)n * sizeof *x->idx) : NULL;
        x->sts = sts ? malloc((size_t)n * sizeof *x->sts) : NULL;
        if (x->hs == NULL || (idx && x->idx == NULL) || (sts && x->sts == NULL)) {
            free(x->hs), free(x->idx), free(x->sts);
            return 0;
        }
    }
    for (int i = 0; i < n; i++) x->hs[i] = shown(hs[i]);
    return 1;
}

/* scratch_errs keeps in x's indices the MPI_ERROR of each complete record's status in
 * sts, which Go's emptyStatus for the null request it sees there would clear. */
static void scratch_errs(set_scratch *x, int n, const MPI_Status *sts) {
    if (sts == MPI_STATUSES_IGNORE) return;
    for (int i = 0; i < n; i++)
        if (x->hs[i] == MPI_REQUEST_NULL) x->idx[i] = sts[i].MPI_ERROR;
}

static void scratch_free(set_scratch *x, int n) {
    if (n > SET_SMALL) free(x->hs), free(x->idx), free(x->sts);
}

/* go_back takes what the Go half did to the handle it saw at i into hs[i] (release:
 * a completing call): Go's own as Go left it; a record following a Go request freed
 * and made null if Go made that request null. */
static inline void go_back(set_scratch *x, int i, MPI_Request *hs, int release) {
    mpigo_creq *q = creq_of(hs[i]);
    if (q == NULL) {
        if (release) hs[i] = x->hs[i];
    } else if (q->state == CREQ_FWD && x->hs[i] == MPI_REQUEST_NULL) {
        creq_put(q);
        hs[i] = MPI_REQUEST_NULL;
    }
}

/* scratch_back writes the Go requests' handles back to hs (go_back), and completes
 * (release) or reports the complete records: their statuses into sts[i] if done, with
 * MPI_SUCCESS as MPI_ERROR where inst (Go's MPI_ERR_IN_STATUS). */
static void scratch_back(set_scratch *x, int n, MPI_Request *hs, int done, MPI_Status *sts, int inst, int release) {
    /* (sts is not MPI_STATUSES_IGNORE only where scratch_errs kept its errors.) */
    for (int i = 0; i < n; i++) {
        mpigo_creq *q = creq_of(hs[i]);
        if (q == NULL || q->state != CREQ_DONE) {
            go_back(x, i, hs, release);
            continue;
        }
        if (!done) continue;
        if (sts != MPI_STATUSES_IGNORE) {
            creq_status(q, &sts[i]);
            sts[i].MPI_ERROR = inst ? MPI_SUCCESS : x->idx[i];
        }
        if (release) {
            creq_put(q);
            hs[i] = MPI_REQUEST_NULL;
        }
    }
}

/* The calls on many requests, by what they do (the index into mpigo_set_test's and
 * the calls' counts: Wait, Test, Get_status). */
enum { SET_WAIT, SET_TEST, SET_PEEK };

/* The Go half that tests a set for a call on many (p2pshort.go): MPI_Testany's or
 * MPI_Testsome's work (MPI_Request_get_status_any's, _some's for SET_PEEK) on n
 * handles, recorded as the call (how: SET_WAIT is Waitany's, Waitsome's). */
extern int mpigo_set_test(int some, int how, int n, MPI_Request *hs, int *a, int *b, MPI_Status *c);

/* set_pending settles a set's pending records before a call on many: Waitall waits
 * for them here (and posts them to Go if it must), Testall looks once; the other
 * calls, and a set with Go's requests, post them to Go. It rescans the set. */
static inline int set_pending(int how, int all, int n, MPI_Request *hs, int *nd, int *np, int *nf, int *first) {
    int ng = set_scan(n, hs, nd, np, nf, first);
    if (*np == 0) return ng;
    if (all && ng == 0 && *nf == 0 && how != SET_PEEK)
        pend_wait(n, hs, how == SET_WAIT ? wait_polls() : 0, how == SET_WAIT);
    else
        pend_flush();
    return set_scan(n, hs, nd, np, nf, first);
}

/* all is MPI_Waitall, MPI_Testall and MPI_Request_get_status_all: -1 where the Go half
 * does it all (no record among hs). */
static int all(int how, int n, MPI_Request *hs, int *flag, MPI_Status *sts) {
    int nd, np, nf, first;
    if (n <= 0 || hs == NULL || (how != SET_WAIT && flag == NULL)) return -1;
    arm();
    int ng = set_pending(how, 1, n, hs, &nd, &np, &nf, &first);
    if (nd + np + nf == 0) return -1;
    if (np > 0) {
        /* Testall: records only, some still pending. */
        if (flag != NULL) *flag = 0;
        record(MPIGO_C_WAITALL + how, 0);
        return MPI_SUCCESS;
    }
    if (ng + nf == 0) {
        /* MPI_ERR_IN_STATUS where a record failed; then, and only then, every status's
         * MPI_ERROR is set (MPI 4.1 sec. 3.2.5; the Go half's reqSet.inStatus). */
        int rc = MPI_SUCCESS;
        for (int i = 0; i < n; i++) {
            mpigo_creq *q = creq_of(hs[i]);
            if (q != NULL && q->err != MPI_SUCCESS) rc = MPI_ERR_IN_STATUS;
        }
        for (int i = 0; i < n; i++) {
            mpigo_creq *q = creq_of(hs[i]);
            if (q == NULL) {
                if (sts != MPI_STATUSES_IGNORE) empty_status(&sts[i]);
                continue;
            }
            if (sts != MPI_STATUSES_IGNORE) {
                creq_status(q, &sts[i]);
                if (rc == MPI_ERR_IN_STATUS) sts[i].MPI_ERROR = q->err;
            }
            if (how != SET_PEEK) {
                creq_put(q);
                hs[i] = MPI_REQUEST_NULL;
            }
        }
        if (flag != NULL) *flag = 1;
        record(MPIGO_C_WAITALL + how, 0);
        return rc;
    }
    set_scratch x;
    if (!scratch_make(&x, n, hs, 1, 0)) return -1;
    scratch_errs(&x, n, sts);
    int gflag = 1, rc;
    switch (how) {
    case SET_WAIT: rc = goPMPI_Waitall(n, x.hs, sts); break;
    case SET_TEST: rc = goPMPI_Testall(n, x.hs, &gflag, sts); break;
    default: rc = goPMPI_Request_get_status_all(n, x.hs, &gflag, sts);
    }
    int ok = rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS;
    scratch_back(&x, n, hs, ok && gflag, sts, rc == MPI_ERR_IN_STATUS, how != SET_PEEK);
    if (ok && flag != NULL) *flag = gflag;
    scratch_free(&x, n);
    return rc;
}

int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
    int r = all(SET_WAIT, count, array_of_requests, NULL, array_of_statuses);
    return r >= 0 ? r : goPMPI_Waitall(count, array_of_requests, array_of_statuses);
}

int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]) {
    int r = all(SET_TEST, count, array_of_requests, flag, array_of_statuses);
    return r >= 0 ? r : goPMPI_Testall(count, array_of_requests, flag, array_of_statuses);
}

int PMPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                                MPI_Status array_of_statuses[]) {
    int r = all(SET_PEEK, count, (MPI_Request *)array_of_requests, flag, array_of_statuses);
    return r >= 0 ? r : goPMPI_Request_get_status_all(count, array_of_requests, flag, array_of_statuses);
}

/* any is MPI_Waitany, MPI_Testany and MPI_Request_get_status_any: -1 where the Go half
 * does it all. A complete record is complete, so the call reports the lowest-indexed
 * completed request: one of Go's before the first complete record, which Go's Testany
 * finds, or else that record. Without a complete record, Go's call on the handles as
 * it sees them. */
static int any(int how, int n, MPI_Request *hs, int *idx, int *flag, MPI_Status *st) {
    int nd, np, nf, first;
    if (n <= 0 || hs == NULL || idx == NULL || (how != SET_WAIT && flag == NULL)) return -1;
    arm();
    set_pending(how, 0, n, hs, &nd, &np, &nf, &first);
    if (nd + nf == 0) return -1;
    if (nd == 0) {
        set_scratch x;
        if (!scratch_make(&x, n, hs, 0, 0)) return -1;
        int rc;
        switch (how) {
        case SET_WAIT: rc = goPMPI_Waitany(n, x.hs, idx, st); break;
        case SET_TEST: rc = goPMPI_Testany(n, x.hs, idx, flag, st); break;
        default: rc = goPMPI_Request_get_status_any(n, x.hs, idx, flag, st);
        }
        for (int i = 0; i < n; i++) go_back(&x, i, hs, how != SET_PEEK);
        scratch_free(&x, n);
        return rc;
    }
    int before = 0;
    for (int i = 0; i < first; i++) before |= hs[i] != MPI_REQUEST_NULL;
    if (before) {
        set_scratch x;
        if (!scratch_make(&x, first, hs, 0, 0)) return -1;
        int gidx = MPI_UNDEFINED, gflag = 0, err = st != MPI_STATUS_IGNORE ? st->MPI_ERROR : 0;
        int rc = mpigo_set_test(0, how, first, x.hs, &gidx, &gflag, st);
        for (int i = 0; i < first; i++) go_back(&x, i, hs, how != SET_PEEK);
        scratch_free(&x, first);
        if (rc != MPI_SUCCESS || (gflag && gidx != MPI_UNDEFINED)) {
            *idx = gidx;
            if (flag != NULL) *flag = gflag;
            return rc;
        }
        if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = err; /* Go's empty status cleared it */
    } else {
        record(MPIGO_C_WAITANY + how, 0);
    }
    mpigo_creq *q = creq_of(hs[first]);
    int rc = q->err;
    creq_status(q, st);
    if (how != SET_PEEK) {
        creq_put(q);
        hs[first] = MPI_REQUEST_NULL;
    }
    *idx = first;
    if (flag != NULL) *flag = 1;
    return rc;
}

int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status) {
    int r = any(SET_WAIT, count, array_of_requests, index, NULL, status);
    return r >= 0 ? r : goPMPI_Waitany(count, array_of_requests, index, status);
}

int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status) {
    int r = any(SET_TEST, count, array_of_requests, index, flag, status);
    return r >= 0 ? r : goPMPI_Testany(count, array_of_requests, index, flag, status);
}

int PMPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *index, int *flag,
                                MPI_Status *status) {
    int r = any(SET_PEEK, count, (MPI_Request *)array_of_requests, index, flag, status);
    return r >= 0 ? r : goPMPI_Request_get_status_any(count, array_of_requests, index, flag, status);
}

/* some is MPI_Waitsome, MPI_Testsome and MPI_Request_get_status_some: -1 where the Go
 * half does it all. Every complete record is complete, so the call reports them all
 * with what Go's Testsome reports of the others, in index order; without a complete
 * record, Go's call on the handles as it sees them. */
static int some(int how, int n, MPI_Request *hs, int *outcount, int *idx, MPI_Status *sts) {
    int nd, np, nf, first;
    if (n <= 0 || hs == NULL || outcount == NULL || idx == NULL) return -1;
    arm();
    int ng = set_pending(how, 0, n, hs, &nd, &np, &nf, &first);
    if (nd + nf == 0) return -1;
    set_scratch x;
    if (nd == 0) {
        if (!scratch_make(&x, n, hs, 0, 0)) return -1;
        int rc;
        switch (how) {
        case SET_WAIT: rc = goPMPI_Waitsome(n, x.hs, outcount, idx, sts); break;
        case SET_TEST: rc = goPMPI_Testsome(n, x.hs, outcount, idx, sts); break;
        default: rc = goPMPI_Request_get_status_some(n, x.hs, outcount, idx, sts);
        }
        for (int i = 0; i < n; i++) go_back(&x, i, hs, how != SET_PEEK);
        scratch_free(&x, n);
        return rc;
    }
    int gn = 0, rc = MPI_SUCCESS, mixed = ng + nf > 0;
    if (mixed) {
        if (!scratch_make(&x, n, hs, 1, sts != MPI_STATUSES_IGNORE)) return -1;
        rc = mpigo_set_test(1, how, n, x.hs, &gn, x.idx, sts != MPI_STATUSES_IGNORE ? x.sts : MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
            scratch_back(&x, n, hs, 0, MPI_STATUSES_IGNORE, 0, how != SET_PEEK);
            scratch_free(&x, n);
            return rc;
        }
        if (gn == MPI_UNDEFINED) gn = 0;
    } else {
        record(MPIGO_C_WAITSOME + how, 0);
    }
    int k = 0, g = 0;
    for (int i = 0; i < n; i++) {
        mpigo_creq *q = creq_of(hs[i]);
        if (q != NULL && q->state == CREQ_DONE) {
            idx[k] = i;
            if (sts != MPI_STATUSES_IGNORE) {
                creq_status(q, &sts[k]);
                if (rc == MPI_ERR_IN_STATUS) sts[k].MPI_ERROR = MPI_SUCCESS;
            }
            if (how != SET_PEEK) {
                creq_put(q);
                hs[i] = MPI_REQUEST_NULL;
            }
            k++;
        } else if (g < gn && x.idx[g] == i) {
            idx[k] = i;
            if (sts != MPI_STATUSES_IGNORE) {
                /* Go wrote MPI_ERROR only where it says MPI_ERR_IN_STATUS. */
                int err = rc == MPI_ERR_IN_STATUS ? x.sts[g].MPI_ERROR : sts[k].MPI_ERROR;
                sts[k] = x.sts[g];
                sts[k].MPI_ERROR = err;
            }
            go_back(&x, i, hs, how != SET_PEEK);
            g++, k++;
        } else if (mixed) {
            go_back(&x, i, hs, how != SET_PEEK);
        }
    }
    if (mixed) scratch_free(&x, n);
    *outcount = k;
    return rc;
}

int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                  MPI_Status array_of_statuses[]) {
    int r = some(SET_WAIT, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    return r >= 0 ? r : goPMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                  MPI_Status array_of_statuses[]) {
    int r = some(SET_TEST, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    return r >= 0 ? r : goPMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

int PMPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[], int *outcount,
                                 int array_of_indices[], MPI_Status array_of_statuses[]) {
    int r = some(SET_PEEK, incount, (MPI_Request *)array_of_requests, outcount, array_of_indices, array_of_statuses);
    return r >= 0
               ? r
               : goPMPI_Request_get_status_some(incount, array_of_requests, outcount, array_of_indices,
                                                array_of_statuses);
}
