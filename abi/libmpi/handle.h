/* handle.h - the layout of the handles mpigo makes (handle.go), which the C short ways
 * (short.c, typeshort.c) decode as Go does.
 *
 * A handle a program gets from a constructor is a positive C int, so that the
 * MPI_x_toint conversions (handles.c) are the identity both ways:
 *
 *     bit 31     0
 *     bits 27-30 kind (MPIGO_KIND_*), never 0: above every predefined handle, which
 *                the standard reserves 1 to 4095 for, and apart from every other kind's
 *     bits 20-26 generation: bumped each time the slot is reused, so that the handle
 *                of a freed object names no later one
 *     bits 0-19  slot: the index in its kind's table
 *
 * A lookup compares the whole handle with the one its slot holds, which checks kind,
 * generation and slot at once; the short ways' C records (a window's mpigo_win, a
 * datatype's word or record) hold their handle for the same check. */
#ifndef MPIGO_HANDLE_H
#define MPIGO_HANDLE_H
#include <stdint.h>

#define MPIGO_KIND_SHIFT 27
#define MPIGO_GEN_SHIFT 20
#define MPIGO_GEN_BITS 7
#define MPIGO_SLOTS (1 << MPIGO_GEN_SHIFT) /* per kind */

/* A freed slot is reused once this many others of its kind wait: a stale handle then
 * names nothing until its kind's slots were reused MPIGO_QUARANTINE << MPIGO_GEN_BITS
 * times. */
#define MPIGO_QUARANTINE 64

enum {
    MPIGO_KIND_COMM = 1,
    MPIGO_KIND_TYPE,  /* a datatype Go made */
    MPIGO_KIND_CTYPE, /* a datatype typeshort.c made: a record of mpigo_ctypes */
    MPIGO_KIND_GROUP,
    MPIGO_KIND_INFO,
    MPIGO_KIND_ERRHANDLER,
    MPIGO_KIND_OP,
    MPIGO_KIND_REQUEST,
    MPIGO_KIND_MESSAGE,
    MPIGO_KIND_SESSION,
    MPIGO_KIND_WIN,
    MPIGO_KIND_FILE,
    MPIGO_KIND_KEYVAL, /* attribute keys are C ints, made by the same tables */
    MPIGO_KIND_CREQ,   /* a request p2pshort.c completed at once: a record of its table */
    MPIGO_KIND_CMSG,   /* a message p2pshort.c's MPI_Mprobe took: a record of its table */
    MPIGO_KINDS
};

/* The slots of MPIGO_KIND_CMSG: p2pshort.c's matched messages, at most this many live
 * at once (past it MPI_Mprobe takes Go); a handle of that kind with a higher slot is
 * none. */
#define MPIGO_CMSGS 1024

/* mpigo_slot is h's slot when h has kind k, else MPIGO_SLOTS (no slot): a garbage
 * value wider than 31 bits has no kind. */
static inline uintptr_t mpigo_slot(uintptr_t h, uintptr_t k) {
    return (h >> MPIGO_KIND_SHIFT) == k ? (h & (MPIGO_SLOTS - 1)) : MPIGO_SLOTS;
}

/* mpigo_handle is the handle of slot i of kind k at generation g. */
static inline uintptr_t mpigo_handle(uintptr_t k, uintptr_t g, uintptr_t i) {
    return k << MPIGO_KIND_SHIFT | (g & ((1 << MPIGO_GEN_BITS) - 1)) << MPIGO_GEN_SHIFT | i;
}

#endif
