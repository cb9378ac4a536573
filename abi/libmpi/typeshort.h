/* typeshort.h - what the C short ways of the datatype calls (typeshort.c) share with Go
 * (typeshort.go), in C memory. */
#ifndef MPIGO_TYPESHORT_H
#define MPIGO_TYPESHORT_H
#include <stdint.h>
#include "handle.h"
#include "short.h"

/* The types Go makes have handles of kind MPIGO_KIND_TYPE (handle.h). For the first
 * MPIGO_TYPE_SLOTS slots Go keeps a word here: 0 when the slot holds no datatype (C
 * knows nothing: the Go half decides), the slot's handle while it holds one, the
 * handle | MPIGO_TYPE_COMMITTED once MPI_Type_commit marked it here (Go takes the
 * commit over at the type's next use). C acts only on the handle the word holds, so a
 * stale one (a freed type's) goes to Go, which reports it. */
#define MPIGO_TYPE_SLOTS 4096
#define MPIGO_TYPE_COMMITTED 0x80000000u /* handles are below 2^31 */
extern MPIGO_HIDDEN uint32_t mpigo_type_state[MPIGO_TYPE_SLOTS];

/* The size, lower bound and extent of the type in each of those slots, which Go writes
 * before the slot's word (a type does not change once made), for the queries C
 * answers (MPI_Type_size, MPI_Type_get_extent, MPI_Get_count). */
typedef struct {
    int64_t size, lb, extent;
} mpigo_geom;
extern MPIGO_HIDDEN mpigo_geom mpigo_type_geom[MPIGO_TYPE_SLOTS];

/* Types made here have handles of kind MPIGO_KIND_CTYPE: slot i is record i. */
#define MPIGO_CTYPES 4096

enum { MPIGO_CT_CONTIGUOUS = 1, MPIGO_CT_VECTOR, MPIGO_CT_HVECTOR };

/* A type made here from a predefined one. state: 0 free, 1 made here, 2 Go made it
 * too (at the handle's first use in Go), which then owns it: only Go frees it. */
typedef struct {
    int32_t state;
    int32_t committed; /* MPI_Type_commit was called */
    int32_t comb;      /* MPIGO_CT_* */
    int32_t pad;
    int64_t count, bl, stride; /* the constructor's arguments, stride as given */
    uintptr_t old;             /* a predefined handle */
    uintptr_t h;               /* its handle (its last one while free), 0 if never used */
} mpigo_ctype;
extern MPIGO_HIDDEN mpigo_ctype mpigo_ctypes[MPIGO_CTYPES];

/* mpigo_ctype_release frees record i (state 0) for reuse. */
MPIGO_HIDDEN void mpigo_ctype_release(int32_t i);

#endif
