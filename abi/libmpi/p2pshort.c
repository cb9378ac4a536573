/* p2pshort.c - MPI_Send's short way in C. A C program's MPI_Send would cross into Go
 * (the cgo callback, about 680 instructions: docs/BENCHMARKS.md, "C point-to-point"),
 * more than the engine's whole work for a small message. So a send of at most 1 KiB
 * on an intracommunicator (one the Go side made a copy of: p2pshort.go) of a
 * predefined plain datatype to a node peer is done here, as the engine's short path
 * (p2p's SendNow) does it: the message written into the peer's shared-memory ring (a
 * compact cell up to 32 bytes; above, a cell and the payload in the ring's data area),
 * its stamp last, the ring's positions advanced, the peer's doorbell rung if it
 * sleeps, the message counted in the engine's traffic counts and the call in the
 * record's (as prof.Count does).
 *
 * It is taken only where the Go way would take that short path and do nothing else:
 * the engine serialised (below MPI_THREAD_MULTIPLE, no goroutine of mpigo's calling
 * it) and not failed; the peer connected through shared memory with an eager limit
 * of at least 32 bytes (and the message's size), nothing queued to it (so the message
 * is in order with every send before it, on any communicator) and not failed; past
 * 32 bytes, below the size from which shm's Send chooses how to copy (shm_nt_min);
 * the record counting the call untimed (no timeline, no sample due, not inside
 * another call); room in the ring.
 * Anything else, and every error, goes to the Go half (goPMPI_Send, zgo.h), which
 * does what it always did: the short way changes no outcome, only its cost.
 *
 * What it reads and writes is the engine's and the ring's own memory, which Go maps
 * outside its heap (p2pshort.h), and the communicator's copy in C memory: C holds no
 * Go memory, and Go's Send and this code advance the same ring. */
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/futex.h>
#include "mpi.h"
#include "p2pshort.h"
#include "zgo.h"

mpigo_p2p_t mpigo_p2p;

/* put copies n (1 to 32) bytes from src to dst with at most two moves of a width,
 * overlapping, rather than a call of memcpy. */
static inline void put(char *dst, const char *src, int64_t n) {
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

static inline __attribute__((always_inline)) int short_send(const void *buf, int64_t count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
    mpigo_eng *e = (mpigo_eng *)__atomic_load_n(&mpigo_p2p.eng, __ATOMIC_ACQUIRE);
    uint32_t *gate = (uint32_t *)mpigo_p2p.gate;
    uintptr_t i = (uintptr_t)dt - 0x200;
    if (e == NULL || !__atomic_load_n(&e->ok, __ATOMIC_ACQUIRE) || gate == NULL || i >= 256 ||
        (uint64_t)count > MPIGO_SHORT_MAX || tag < 0)
        return 0;
    int64_t size = mpigo_short_dts[i].size, n = count * size;
    if (size <= 0 || n > MPIGO_SHORT_MAX || (n > 0 && buf == NULL)) return 0;
    const mpigo_comm *c = comm_of(comm);
    if (c == NULL || (unsigned)dest >= (unsigned)c->size) return 0;
    int w = c->world[dest];
    if ((unsigned)w >= (unsigned)e->size) return 0;
    mpigo_ring *r = e->rings[w]; /* none for this rank itself */
    uint32_t g = *gate;
    if (r == NULL || g - 2 >= MPIGO_GATE_INCALL - 2 || __atomic_load_n(r->closed, __ATOMIC_ACQUIRE)) return 0;
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
        if ((uint64_t)n > r->plain_max || n > e->eager[w]) return 0;
        uint64_t start = r->data_pos, need = ((uint64_t)n + MPIGO_LINE - 1) & ~(uint64_t)(MPIGO_LINE - 1);
        uint64_t off = start & r->data_mask;
        if (off + need > r->data_size) start += r->data_size - off;
        uint64_t end = start + need;
        if (end - r->cons_data > r->data_size) {
            r->cons_data = __atomic_load_n(&r->cons[1], __ATOMIC_ACQUIRE);
            if (end - r->cons_data > r->data_size) return 0; /* full: Go waits for room */
        }
        memcpy(r->data + (start & r->data_mask), buf, (size_t)n);
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
    mpigo_calls *cs = &mpigo_short_calls[MPIGO_C_SEND];
    cs->hist[n > 0 ? 64 - __builtin_clzll((uint64_t)n) : 0]++;
    cs->bytes += (uint64_t)n;
    *gate = g - 1;
    return 1;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    if (short_send(buf, count, datatype, dest, tag, comm)) return MPI_SUCCESS;
    return goPMPI_Send(buf, count, datatype, dest, tag, comm);
}

int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    if (short_send(buf, count, datatype, dest, tag, comm)) return MPI_SUCCESS;
    return goPMPI_Send_c(buf, count, datatype, dest, tag, comm);
}
