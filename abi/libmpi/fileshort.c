/* fileshort.c - MPI_File_write_at and MPI_File_read_at's short way in C. In Go such an
 * access of a slice's bytes in a plain view is one checked pwrite (mpir's
 * File.AccessAt); from C it crossed into Go first (the cgo callback, the face's handle
 * and buffer decoding, the error handler's plumbing), which cost several times the
 * access itself (docs/BENCHMARKS.md, "MPI_File_write_at and read_at from C in C"). So
 * where the Go way would take that short way, the access is done here: an independent
 * access at an explicit offset of count items of a contiguous predefined datatype
 * (bytes from the buffer on: short.c's table) to a file whose view is contiguous, in
 * the native or internal representation, outside atomic mode, not opened
 * MPI_MODE_SEQUENTIAL, with an access mode that allows it; its bytes a whole number of
 * the view's etypes at an offset whose file bytes an int64 holds. These are mpir's
 * plainAt checks, made on a record of the file that Go keeps in C memory (fileshort.h,
 * fileshort.go). The system call is pwrite (pread),
 * repeated until every byte has moved (a read: until the file ends, a short count and
 * no error, as Go's ReadAt), and the status is Go's: MPI_SOURCE and MPI_TAG as Go
 * writes them, the count of bytes moved, not cancelled. The individual file pointer is
 * not involved.
 *
 * It is taken only where the record would count the call untimed (the gate, as
 * p2pshort.c takes it: never at MPI_THREAD_MULTIPLE, nor for the sampled call, nor
 * under the timeline); the call is then counted in C memory, which the record reads at
 * its snapshots. Anything else goes to the call's Go half (goPMPI_x, zgo.h), and so
 * does every failure of the system call, before anything is counted: the Go way makes
 * the call again from the start and reports its error with its class, through the
 * file's handler. So the short way changes no outcome, only its cost. */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>
#include "mpi.h"
#include "fileshort.h"
#include "p2pshort.h"
#include "zgo.h"

mpigo_file mpigo_files[MPIGO_SHORT_FILES];
uintptr_t mpigo_file_gate;
int32_t mpigo_file_source, mpigo_file_tag;
mpigo_calls mpigo_file_calls[MPIGO_FC_N];

/* A count beyond this takes the Go way (then count * size cannot overflow: sizes are
 * at most 64 KiB). */
#define FILE_COUNT_MAX ((int64_t)1 << 40)

/* move writes (reads) n bytes of buf at file byte off of fd; 1 when every byte moved
 * (a read: or the file ended, *got then short), 0 when the system call failed. */
static inline int move(int write, int fd, void *buf, int64_t n, int64_t off, int64_t *got) {
    int64_t k = 0;
    while (k < n) {
        ssize_t r = write ? pwrite(fd, (char *)buf + k, (size_t)(n - k), off + k)
                          : pread(fd, (char *)buf + k, (size_t)(n - k), off + k);
        if (r > 0) {
            k += r;
            continue;
        }
        if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (r == 0 && !write) break; /* the end of the file */
        return 0;                    /* an error, or a write of nothing: Go's to report */
    }
    *got = k;
    return 1;
}

static inline __attribute__((always_inline)) int short_at(int write, MPI_File fh, MPI_Offset offset, void *buf, int64_t count, MPI_Datatype dt, MPI_Status *st) {
    uintptr_t i = mpigo_slot((uintptr_t)fh, MPIGO_KIND_FILE), di = (uintptr_t)dt - 0x200;
    if (i >= MPIGO_SHORT_FILES || di >= 256 || (uint64_t)count > (uint64_t)FILE_COUNT_MAX) return 0;
    mpigo_file *f = &mpigo_files[i];
    if (f->h != (uintptr_t)fh || !(write ? f->write : f->read) || !__atomic_load_n(&mpigo_short_live, __ATOMIC_ACQUIRE))
        return 0;
    int64_t size = mpigo_short_dts[di].size, n = count * size, es = f->esize;
    if (size <= 0 || (n > 0 && buf == NULL) || offset < 0) return 0;
    if (es != 1 && (n % es != 0 || offset > INT64_MAX / es)) return 0; /* two divisions a byte view skips */
    int64_t pos = offset * es;
    if (pos > f->end - n) return 0; /* end >= 0 and n >= 0: no overflow */
    uint32_t *gate = (uint32_t *)mpigo_file_gate;
    if (gate == NULL) return 0;
    uint32_t g = *gate;
    if (g - 2 >= MPIGO_GATE_INCALL - 2) return 0;
    int64_t got = 0;
    if (n > 0 && !move(write, f->fd, buf, n, f->disp + pos, &got)) return 0;
    if (write && n > 0) f->dirty = 1;
    if (st != MPI_STATUS_IGNORE) {
        st->MPI_SOURCE = mpigo_file_source;
        st->MPI_TAG = mpigo_file_tag;
        st->MPI_internal[0] = (int)(uint32_t)got;
        st->MPI_internal[1] = (int)(got >> 32);
        st->MPI_internal[2] = 0;
    }
    mpigo_calls *c = &mpigo_file_calls[write ? MPIGO_FC_WRITE_AT : MPIGO_FC_READ_AT];
    c->hist[got > 0 ? 64 - __builtin_clzll((uint64_t)got) : 0]++;
    c->bytes += (uint64_t)got;
    *gate = g - 1;
    return 1;
}

int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
    if (short_at(1, fh, offset, (void *)buf, count, datatype, status)) return MPI_SUCCESS;
    return goPMPI_File_write_at(fh, offset, buf, count, datatype, status);
}

int PMPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) {
    if (short_at(1, fh, offset, (void *)buf, count, datatype, status)) return MPI_SUCCESS;
    return goPMPI_File_write_at_c(fh, offset, buf, count, datatype, status);
}

int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
    if (short_at(0, fh, offset, buf, count, datatype, status)) return MPI_SUCCESS;
    return goPMPI_File_read_at(fh, offset, buf, count, datatype, status);
}

int PMPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) {
    if (short_at(0, fh, offset, buf, count, datatype, status)) return MPI_SUCCESS;
    return goPMPI_File_read_at_c(fh, offset, buf, count, datatype, status);
}
