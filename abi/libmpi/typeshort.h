/* typeshort.h - what the C short ways of the datatype calls (typeshort.c) share with Go
 * (typeshort.go), in C memory. */
#ifndef MPIGO_TYPESHORT_H
#define MPIGO_TYPESHORT_H
#include <stdint.h>
#include "short.h"

/* The types Go makes have handles 0x1000 + i. For the first MPIGO_TYPE_SLOTS of them
 * Go keeps a state word here: 0 not a live datatype (C knows nothing: the Go half decides),
 * 1 live, 2 live and committed here (Go takes the commit over at the type's next use). */
#define MPIGO_TYPE_SLOTS 4096
extern MPIGO_HIDDEN int32_t mpigo_type_state[MPIGO_TYPE_SLOTS];

/* Types made here: handle MPIGO_CTYPE_BASE + i is record i. */
#define MPIGO_CTYPE_BASE 0x40000000
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
} mpigo_ctype;
extern MPIGO_HIDDEN mpigo_ctype mpigo_ctypes[MPIGO_CTYPES];

/* mpigo_ctype_release frees record i (state 0) for reuse. */
MPIGO_HIDDEN void mpigo_ctype_release(int32_t i);

#endif
