/* typeshort.c - the datatype calls' short ways in C. A C call into Go costs 50-160
 * ns (the cgo callback; docs/BENCHMARKS.md), more than MPI_Type_commit or a vector constructor has to do,
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
 *   - MPI_Type_size, MPI_Type_get_extent and MPI_Get_count are answered here for a
 *     predefined type that is one run of bytes (mpigo_short_dts: its size; Go fills
 *     the table when the library loads, and again when MPI_Abi_set_fortran_info
 *     changes a Fortran type), for a type made here (from its record) and for a type
 *     Go made in one of the first MPIGO_TYPE_SLOTS slots (mpigo_type_geom, read once
 *     the slot's word holds the handle).
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
mpigo_geom mpigo_type_geom[MPIGO_TYPE_SLOTS];
/* Page-aligned so that the records a program cycles through (the quarantine's and a few
 * live ones: 4096 / sizeof(mpigo_ctype) of them) lie in one page, which the first
 * constructor faults in: a later record's first use takes no page fault. */
mpigo_ctype mpigo_ctypes[MPIGO_CTYPES] __attribute__((aligned(4096)));
_Static_assert((MPIGO_CTYPES & (MPIGO_CTYPES - 1)) == 0, "MPIGO_CTYPES is a power of 2");
_Static_assert(4096 / sizeof(mpigo_ctype) > MPIGO_QUARANTINE, "the quarantine's records fit in a page");

/* The released records, released longest ago first (a ring), reused as Go's tables
 * reuse slots (handle.go): only once MPIGO_QUARANTINE others wait. The ring holds the
 * handle each record has at its next use (its generation bumped when it was released,
 * while the record was at hand), so that made writes a reused record without first
 * reading it: a record unused for a while may be out of the cache, and a store that
 * misses waits in the store buffer where a load would stall the call. */
static struct {
    uint32_t head, nfree, used; /* the ring's oldest, its length; records ever used */
    uint32_t next[MPIGO_CTYPES];
} ctype_free;

static inline void release(uintptr_t i) {
    mpigo_ctype *r = &mpigo_ctypes[i];
    __atomic_store_n(&r->state, 0, __ATOMIC_RELEASE);
    ctype_free.next[(ctype_free.head + ctype_free.nfree++) & (MPIGO_CTYPES - 1)] =
        (uint32_t)mpigo_handle(MPIGO_KIND_CTYPE, (r->h >> MPIGO_GEN_SHIFT) + 1, i);
}

void mpigo_ctype_release(int32_t i) { release((uintptr_t)i); }

/* live is the record of handle h when it is one made here and not freed. */
static inline mpigo_ctype *live(uintptr_t h) {
    uintptr_t i = mpigo_slot(h, MPIGO_KIND_CTYPE);
    if (i >= MPIGO_CTYPES) return NULL;
    mpigo_ctype *r = &mpigo_ctypes[i];
    return r->h == h && __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != 0 ? r : NULL;
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
static inline int made(int32_t comb, int64_t count, int64_t bl, int64_t stride, MPI_Datatype old, MPI_Datatype *out) {
    uintptr_t h;
    if (ctype_free.nfree > MPIGO_QUARANTINE) {
        h = ctype_free.next[ctype_free.head];
        ctype_free.head = (ctype_free.head + 1) & (MPIGO_CTYPES - 1);
        ctype_free.nfree--;
    } else if (ctype_free.used < MPIGO_CTYPES) {
        h = mpigo_handle(MPIGO_KIND_CTYPE, 0, ctype_free.used++);
    } else {
        return 0;
    }
    mpigo_ctype *r = &mpigo_ctypes[h & (MPIGO_SLOTS - 1)];
    r->h = h;
    r->comb = comb;
    r->count = count;
    r->bl = bl;
    r->stride = stride;
    r->old = (uintptr_t)old;
    r->committed = 0;
    __atomic_store_n(&r->state, 1, __ATOMIC_RELEASE);
    *out = (MPI_Datatype)h;
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
        uintptr_t h = (uintptr_t)*p;
        mpigo_ctype *r = live(h);
        if (r != NULL && __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == 1) {
            release(h & (MPIGO_SLOTS - 1));
            *p = MPI_DATATYPE_NULL;
            return MPI_SUCCESS;
        }
    }
    return goPMPI_Type_free(p);
}

/* --- MPI_Type_size, MPI_Type_get_extent and MPI_Get_count ---
 * As the Go halves answer them (dtype.go, dtype_pack.go: mpir.GetCount): the size,
 * lower bound and extent; the status's bytes over the size, 0 for a type of size 0,
 * MPI_UNDEFINED where they are not whole items or the int form cannot hold the count.
 * A status of negative bytes (not one MPI wrote), a type C knows nothing of (a freed
 * handle, a slot past the table, a record of no blocks) and every NULL go to Go, which
 * says what is wrong. */

/* record_geom is the geometry of record r (a predefined plain type repeated): blocks of
 * bl items of size sz, count of them, each step bytes after the last, their bounds
 * the first and last blocks' (the old type has lower bound 0 and extent sz). Only with
 * blocks of something (an empty type's bounds are the Go half's): 1 done, 0 not. */
static inline int record_geom(const mpigo_ctype *r, mpigo_geom *g) {
    int64_t sz, count = r->count, bl = r->comb == MPIGO_CT_CONTIGUOUS ? 1 : r->bl;
    if (!plain((MPI_Datatype)r->old, &sz) || count <= 0 || bl <= 0) return 0;
    int64_t step = r->comb == MPIGO_CT_CONTIGUOUS ? sz : r->comb == MPIGO_CT_VECTOR ? r->stride * sz : r->stride;
    int64_t last = (count - 1) * step; /* the records' arguments keep this far inside int64 */
    g->size = count * bl * sz;
    g->lb = last < 0 ? last : 0;
    g->extent = (last > 0 ? last : 0) + bl * sz - g->lb;
    return 1;
}

/* geom is dt's size, lower bound and extent: 1 known here, 0 the Go half's. */
static inline int geom(MPI_Datatype dt, mpigo_geom *g) {
    uintptr_t h = (uintptr_t)dt, i;
    int64_t n;
    if (plain(dt, &n)) {
        g->size = g->extent = n;
        g->lb = 0;
        return 1;
    }
    const mpigo_ctype *r = live(h);
    if (r != NULL) return record_geom(r, g);
    if ((i = mpigo_slot(h, MPIGO_KIND_TYPE)) < MPIGO_TYPE_SLOTS &&
        (__atomic_load_n(&mpigo_type_state[i], __ATOMIC_ACQUIRE) & ~MPIGO_TYPE_COMMITTED) == h) {
        *g = mpigo_type_geom[i];
        return 1;
    }
    return 0;
}

int PMPI_Type_size(MPI_Datatype datatype, int *size) {
    mpigo_geom g;
    if (size == NULL || !geom(datatype, &g)) return goPMPI_Type_size(datatype, size);
    *size = g.size > INT32_MAX ? MPI_UNDEFINED : (int)g.size;
    return MPI_SUCCESS;
}

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size) {
    mpigo_geom g;
    if (size == NULL || !geom(datatype, &g)) return goPMPI_Type_size_c(datatype, size);
    *size = g.size;
    return MPI_SUCCESS;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent) {
    mpigo_geom g;
    if (lb == NULL || extent == NULL || !geom(datatype, &g)) return goPMPI_Type_get_extent(datatype, lb, extent);
    *lb = g.lb;
    *extent = g.extent;
    return MPI_SUCCESS;
}

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent) {
    mpigo_geom g;
    if (lb == NULL || extent == NULL || !geom(datatype, &g)) return goPMPI_Type_get_extent_c(datatype, lb, extent);
    *lb = g.lb;
    *extent = g.extent;
    return MPI_SUCCESS;
}

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent) {
    mpigo_geom g;
    if (lb == NULL || extent == NULL || !geom(datatype, &g)) return goPMPI_Type_get_extent_x(datatype, lb, extent);
    *lb = g.lb;
    *extent = g.extent;
    return MPI_SUCCESS;
}

/* status_items is the count of items of dt in status st: 1 done (*items, or
 * MPI_UNDEFINED), 0 the Go half's. */
static inline int status_items(const MPI_Status *st, MPI_Datatype dt, int64_t *items) {
    mpigo_geom g;
    if (st == NULL || !geom(dt, &g)) return 0;
    int64_t bytes = (int64_t)(uint32_t)st->MPI_internal[0] | (int64_t)st->MPI_internal[1] << 32;
    if (bytes < 0) return 0;
    *items = g.size == 0 ? 0 : bytes % g.size != 0 ? MPI_UNDEFINED : bytes / g.size;
    return 1;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count) {
    int64_t k;
    if (count == NULL || !status_items(status, datatype, &k)) return goPMPI_Get_count(status, datatype, count);
    *count = k > INT32_MAX ? MPI_UNDEFINED : (int)k;
    return MPI_SUCCESS;
}

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) {
    int64_t k;
    if (count == NULL || !status_items(status, datatype, &k)) return goPMPI_Get_count_c(status, datatype, count);
    *count = k;
    return MPI_SUCCESS;
}
