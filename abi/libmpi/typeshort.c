/* typeshort.c - the datatype calls' short ways in C. A C call into Go costs about 50
 * ns (the cgo callback), more than MPI_Type_commit or a vector constructor has to do,
 * and more than a C MPI takes for them. So:
 *
 *   - MPI_Type_commit of a type Go made marks it committed in a word of C memory per
 *     handle (mpigo_type_state); the engine commits lazily anyway (the program is
 *     compiled at the type's first use), so Go takes the mark over when it next looks
 *     the handle up (typeshort.go).
 *   - MPI_Type_contiguous, MPI_Type_vector and MPI_Type_create_hvector of a predefined
 *     type that is one run of bytes (mpigo_short_dts) record their arguments here and
 *     return a handle of their own (kind MPIGO_KIND_CTYPE, handle.h); Go builds the type from
 *     the record at the handle's first use in Go. MPI_Type_commit and MPI_Type_free of
 *     such a handle that Go has not used stay here too.
 *
 * Only where the arguments cannot be wrong (counts not negative, nothing that could
 * overflow, an output pointer) and MPI runs below MPI_THREAD_MULTIPLE (the records are
 * kept without locks); everything else, every error included, goes to the Go half. */
#include <stdint.h>
#include <stdlib.h>
#include "mpi.h"
#include "typeshort.h"
#include "zgo.h"

uint32_t mpigo_type_state[MPIGO_TYPE_SLOTS];
mpigo_ctype mpigo_ctypes[MPIGO_CTYPES];
/* The released records, released longest ago first (a ring), reused as Go's tables
 * reuse slots (handle.go): only once MPIGO_QUARANTINE others wait. */
static int32_t ctype_free[MPIGO_CTYPES];
static int32_t ctype_head, ctype_nfree, ctype_used; /* the ring's oldest, its length; records ever used */

void mpigo_ctype_release(int32_t i) {
    __atomic_store_n(&mpigo_ctypes[i].state, 0, __ATOMIC_RELEASE);
    ctype_free[(ctype_head + ctype_nfree++) % MPIGO_CTYPES] = i;
}

/* live is the record of handle h when it is one made here and not freed. */
static inline mpigo_ctype *live(uintptr_t h) {
    uintptr_t i = mpigo_slot(h, MPIGO_KIND_CTYPE);
    if (i >= MPIGO_CTYPES) return NULL;
    mpigo_ctype *r = &mpigo_ctypes[i];
    return __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != 0 && r->h == h ? r : NULL;
}

/* plain says whether h is a predefined type that is one run of bytes, and its size. */
static inline int plain(MPI_Datatype old, int64_t *size) {
    uintptr_t h = (uintptr_t)old;
    if (h < 0x200 || h >= 0x300) return 0;
    *size = mpigo_short_dts[h - 0x200].size;
    return *size > 0;
}

/* made records a type and gives its handle (a reused record's at its next
 * generation); 0 when no record is free. */
static int made(int32_t comb, int64_t count, int64_t bl, int64_t stride, MPI_Datatype old, MPI_Datatype *out) {
    int32_t i;
    if (ctype_nfree > MPIGO_QUARANTINE) {
        i = ctype_free[ctype_head];
        ctype_head = (ctype_head + 1) % MPIGO_CTYPES;
        ctype_nfree--;
    } else if (ctype_used < MPIGO_CTYPES) {
        i = ctype_used++;
    } else {
        return 0;
    }
    mpigo_ctype *r = &mpigo_ctypes[i];
    r->h = mpigo_handle(MPIGO_KIND_CTYPE, r->h ? (r->h >> MPIGO_GEN_SHIFT) + 1 : 0, (uintptr_t)i);
    r->comb = comb;
    r->count = count;
    r->bl = bl;
    r->stride = stride;
    r->old = (uintptr_t)old;
    r->committed = 0;
    __atomic_store_n(&r->state, 1, __ATOMIC_RELEASE);
    *out = (MPI_Datatype)r->h;
    return 1;
}

/* here says whether the short ways may run: MPI runs, below MPI_THREAD_MULTIPLE. */
static inline int here(void) {
    return __atomic_load_n(&mpigo_short_live, __ATOMIC_RELAXED) && !mpigo_short_mt;
}

/* The bytes a vector reaches stay far inside int64 (the engine checks its own sums;
 * here nothing may reach them): under 2^60. */
static inline int small(int64_t count, int64_t reach) {
    return (__int128)count * reach < ((__int128)1 << 60);
}

int PMPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *out) {
    int64_t sz;
    if (out != NULL && count >= 0 && here() && plain(old, &sz) &&
        made(MPIGO_CT_CONTIGUOUS, count, 0, 0, old, out))
        return MPI_SUCCESS;
    return goPMPI_Type_contiguous(count, old, out);
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype old, MPI_Datatype *out) {
    int64_t sz;
    if (out != NULL && count >= 0 && blocklength >= 0 && here() && plain(old, &sz) &&
        small(count, (llabs(stride) + blocklength) * sz) &&
        made(MPIGO_CT_VECTOR, count, blocklength, stride, old, out))
        return MPI_SUCCESS;
    return goPMPI_Type_vector(count, blocklength, stride, old, out);
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype old, MPI_Datatype *out) {
    int64_t sz;
    if (out != NULL && count >= 0 && blocklength >= 0 && here() && plain(old, &sz) &&
        stride > -((int64_t)1 << 40) && stride < ((int64_t)1 << 40) &&
        small(count, llabs(stride) + (int64_t)blocklength * sz) &&
        made(MPIGO_CT_HVECTOR, count, blocklength, stride, old, out))
        return MPI_SUCCESS;
    return goPMPI_Type_create_hvector(count, blocklength, stride, old, out);
}

int PMPI_Type_commit(MPI_Datatype *p) {
    if (p != NULL && __atomic_load_n(&mpigo_short_live, __ATOMIC_RELAXED)) {
        uintptr_t h = (uintptr_t)*p, i;
        mpigo_ctype *r = live(h);
        if (r != NULL) {
            __atomic_store_n(&r->committed, 1, __ATOMIC_RELEASE);
            return MPI_SUCCESS;
        }
        if ((i = mpigo_slot(h, MPIGO_KIND_TYPE)) < MPIGO_TYPE_SLOTS) {
            uint32_t *s = &mpigo_type_state[i];
            if ((__atomic_load_n(s, __ATOMIC_ACQUIRE) & ~MPIGO_TYPE_COMMITTED) == h) {
                __atomic_store_n(s, (uint32_t)h | MPIGO_TYPE_COMMITTED, __ATOMIC_RELEASE);
                return MPI_SUCCESS;
            }
        }
    }
    return goPMPI_Type_commit(p);
}

int PMPI_Type_free(MPI_Datatype *p) {
    if (p != NULL && here()) {
        mpigo_ctype *r = live((uintptr_t)*p);
        if (r != NULL && __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == 1) {
            mpigo_ctype_release((int32_t)(r - mpigo_ctypes));
            *p = MPI_DATATYPE_NULL;
            return MPI_SUCCESS;
        }
    }
    return goPMPI_Type_free(p);
}
