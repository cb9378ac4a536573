/* collshort.h - what the C short collectives (collshort.c) read and write: a
 * communicator's node shared-memory region, which the Go library maps outside its heap
 * (internal/shmcoll: the region's layout, and each rank's own line, shmcoll.Own, field
 * for field as mpigo_own here), and per communicator where it lies, which the Go side
 * of this library fills in (collshort.go) from collective.ShortOf. */
#ifndef MPIGO_COLLSHORT_H
#define MPIGO_COLLSHORT_H
#include <stdint.h>
#include "short.h"

/* A rank's own line of the region (shmcoll.Own). */
typedef struct {
    uint64_t s, c;      /* ops run, ring chunks used: the group's counts */
    uint64_t ack_known; /* every other rank's ack was at least this when last looked at */
    uint64_t ok;        /* 1 while the group has not failed */
    uint64_t flow_bytes, flow_ops; /* the data sent to every other member (prof.Link) */
    uint64_t bar;                  /* the op of this rank's last Barrier */
    uint64_t owed; /* broadcast chunks not acknowledged yet (shmcoll's Owing): count, roots */
    uint64_t g;       /* the blocking Gathers run (shmcoll's gather cells) */
    uint64_t g_known; /* a root's taken word as last read: value << 16 | rank */
    uint16_t roots[16]; /* the root of Gather g at g mod MPIGO_R_CELLS */
    uint64_t pad_[2];
} mpigo_own;

/* A communicator whose node region is in use. */
typedef struct {
    uintptr_t h; /* its handle; 0: the entry is empty */
    char *base;  /* the region */
    mpigo_own *own;
    int32_t rank, size;
    int32_t oversub; /* Barrier: rank 0 raises done, the others yield once if it has not */
    int32_t spin;    /* polls a wait spins through before it yields */
    int32_t yield;   /* polls, each followed by a yield, before it goes on in Go (to sleep) */
    int32_t handoffs; /* unless this many yields gave the core away first (0: no bound) */
    int64_t ring_off, ring_stride, chunks;
    int32_t bcast_max;  /* the largest Bcast (bytes) done here: one chunk, ordinary stores */
    int32_t reduce_max; /* the largest Allreduce done here: the inline lines */
    int64_t cells_off;  /* the gather cells (shmcoll.Geometry's CellsOff) */
    int64_t slots_off, slot; /* the reductions' slots: rank r's of bank b at slots_off + (b*size + r)*slot */
    int32_t gather_max; /* the longest block of an Allgather done here (coll_shm_gather_max, a slot) */
    int32_t scatter_max; /* the longest root's buffer of a Scatter (a Scatterv's parts) done here */
    int32_t alltoall_max; /* the longest send buffer of an Alltoall (an Alltoallv's block) done here */
} mpigo_coll;

/* The region's geometry (shmcoll.Geometry), checked against Go's before an entry is
 * filled in (collshort.go). */
#define MPIGO_R_BLOCKS 128 /* rank r's block: MPIGO_R_BLOCKS + r * MPIGO_R_STRIDE */
#define MPIGO_R_STRIDE 256
#define MPIGO_R_ARRIVE 0 /* in a block: flags */
#define MPIGO_R_ACK 16
#define MPIGO_R_DONE 24
#define MPIGO_R_LEN 32     /* two words, by bank */
#define MPIGO_R_DEFER 48   /* the op of the last Bcast this rank left owing its line */
#define MPIGO_R_BEGUN 120  /* the op of the last long Bcast this rank began as root */
#define MPIGO_R_INLINE 128 /* two lines, by bank */
#define MPIGO_R_SLEEPERS 64 /* in the header: int32, waiters asleep on a futex */
#define MPIGO_R_BCAST_INLINE 48
#define MPIGO_R_REDUCE_INLINE 56
#define MPIGO_R_TAKEN 56   /* in a block: the last Gather this rank took as root */
#define MPIGO_R_CELLS 16   /* gather cells per rank */
#define MPIGO_R_CELL 128   /* a cell: sequence word, length word, the block's head */
#define MPIGO_R_CELL_EXT 8256 /* the rest of a cell's block, in the extensions after the cells */
#define MPIGO_R_GATHER_INLINE 8368

#define MPIGO_COLL_COMMS 1024 /* communicators in slots from this on take the Go way */

/* By communicator slot; the last entry is MPI_COMM_WORLD's. */
extern MPIGO_HIDDEN mpigo_coll mpigo_colls[MPIGO_COLL_COMMS + 1];

enum { MPIGO_CC_BARRIER, MPIGO_CC_BCAST, MPIGO_CC_ALLREDUCE, MPIGO_CC_GATHER, MPIGO_CC_GATHERV, MPIGO_CC_ALLGATHER,
       MPIGO_CC_ALLGATHERV, MPIGO_CC_REDUCE, MPIGO_CC_SCATTER, MPIGO_CC_ALLTOALL,
       MPIGO_CC_ALLTOALLV, MPIGO_CC_SCATTERV, MPIGO_CC_REDUCE_SCATTER, MPIGO_CC_REDUCE_SCATTER_BLOCK, MPIGO_CC_N };
/* Or'ed into a call's MPIGO_CC_* where it reaches Go (mpigo_coll_wait): the large-count
 * form (MPI_Bcast_c), which errors name. */
#define MPIGO_CC_LARGE 0x100
/* For winshort.c: a poll of the word at p until it is at least v by d's idle policy's
 * spin and yields (1), or until they are used up (0, *spun the polls done: Go's wait
 * goes on from there). */
MPIGO_HIDDEN int mpigo_coll_poll(const mpigo_coll *d, const uint64_t *p, uint64_t v, int32_t *spun);

#endif
