/* wtime.c - MPI_Wtime in C. Programs time their short calls with it (the anchors'
 * coll.c and lat.c, the OSU and Intel benchmarks put every call between two), so it
 * should cost what reading the clock costs: exported from Go, each call crossed into
 * Go and back (a cgo callback), and that crossing, about as long as an 8-byte Bcast on
 * two ranks, fell inside every interval timed (docs/BENCHMARKS.md, MPI_Wtime in C).
 * The clock is the one Go's time.Since reads, CLOCK_MONOTONIC, from the library's
 * load on: not synchronised across processes (MPI_WTIME_IS_GLOBAL is false). */
#include <stdint.h>
#include <time.h>
#include "mpi.h"

static int64_t wtime_base; /* ns: CLOCK_MONOTONIC when the library was loaded */

static inline int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

__attribute__((constructor)) static void wtime_start(void) { wtime_base = mono_ns(); }

double PMPI_Wtime(void) { return (double)(mono_ns() - wtime_base) * 1e-9; }
