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
 * It is taken only where the record would count the call (the gate, as p2pshort.c
 * takes it: never at MPI_THREAD_MULTIPLE, nor under the timeline); the call is then
 * counted in C memory, which the record reads at its snapshots. The call the record
 * would time (the gate at 1: one in about prof.SampleEvery) is timed here, by the
 * record's clock (the time-stamp counter, prof.ticks), into the same memory, and the
 * gate drawn again as prof.nextGap draws it (p2pshort.h's mpigo_gate_open and
 * mpigo_gate_count, as every C short way does; MPI_File_write_ordered's too): leaving
 * it to Go would cross into Go, and
 * every crossing back into C leaves the rank's one P in the system-call state, which
 * Go's sysmon retakes at once, waking a thread on the rank's core
 * (docs/BENCHMARKS.md: MPI-IO's small writes). Anything else goes to the call's Go half (goPMPI_x, zgo.h), and so
 * does every failure of the system call, before anything is counted: the Go way makes
 * the call again from the start and reports its error with its class, through the
 * file's handler. So the short way changes no outcome, only its cost. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "mpi.h"
#include "fileshort.h"
#include "p2pshort.h"
#include "zgo.h"

mpigo_file mpigo_files[MPIGO_SHORT_FILES];
uintptr_t mpigo_file_gate;
int32_t mpigo_file_source, mpigo_file_tag;

/* A count beyond this takes the Go way (then count * size cannot overflow: sizes are
 * at most 64 KiB). */
#define FILE_COUNT_MAX ((int64_t)1 << 40)

#ifndef SYNC_FILE_RANGE_WRITE
#define SYNC_FILE_RANGE_WRITE 2 /* Linux's; fcntl.h gives it only under _GNU_SOURCE */
#endif

/* behind_from is where a write of n bytes starts the writeback of what it wrote (at
 * its first byte, 0), or -1 for one that does not (mpio's behind). */
static inline int64_t behind_from(uint32_t behind, int64_t n) { return behind != 0 && n >= behind ? 0 : -1; }

/* behind_wrote starts the writeback of the write's bytes [*from, k) from file byte off
 * once they are behind bytes or the write's end n; an error is the next sync's. */
static inline void behind_wrote(int fd, uint32_t behind, int64_t off, int64_t *from, int64_t k, int64_t n) {
    if (*from < 0 || (k - *from < behind && k < n) || k <= *from) return;
    syscall(SYS_sync_file_range, fd, off + *from, k - *from, SYNC_FILE_RANGE_WRITE);
    *from = k;
}

/* move writes (reads) n bytes of buf at file byte off of fd, writes in calls of at
 * most piece bytes where piece is not 0, and with behind (not 0) starts the writeback
 * of a long write as it goes; 1 when every byte moved (a read: or the file
 * ended, *got then short), 0 when the system call failed. */
static inline int move(int write, int fd, uint32_t piece, uint32_t behind, void *buf, int64_t n, int64_t off, int64_t *got) {
    int64_t k = 0, from = write ? behind_from(behind, n) : -1;
    while (k < n) {
        int64_t m = write && piece != 0 && n - k > piece ? piece : n - k;
        ssize_t r = write ? pwrite(fd, (char *)buf + k, (size_t)m, off + k)
                          : pread(fd, (char *)buf + k, (size_t)m, off + k);
        if (r > 0) {
            k += r;
            behind_wrote(fd, behind, off, &from, k, n);
            continue;
        }
        if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (r == 0 && !write) break; /* the end of the file */
        return 0;                    /* an error, or a write of nothing: Go's to report */
    }
    *got = k;
    return 1;
}

/* pwritev_piece is pwritev of v[0..k) at off, of at most piece bytes where piece is
 * not 0: the whole parts that fit, or the first piece bytes of a longer first part. */
static ssize_t pwritev_piece(int fd, const struct iovec *v, int k, int64_t off, uint32_t piece) {
    if (piece == 0) return pwritev(fd, v, k, off);
    size_t room = piece;
    int n = 0;
    while (n < k && v[n].iov_len <= room) room -= v[n++].iov_len;
    if (n > 0) return pwritev(fd, v, n, off);
    struct iovec one = {v[0].iov_base, piece};
    return pwritev(fd, &one, 1, off);
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
    if (write && f->copies && n > 0 && f->disp + pos + n <= f->known) return 0; /* Go copies it */
    if (!mpigo_gate_open(*gate)) return 0;
    int64_t got = 0;
    if (n > 0 && !move(write, f->fd, f->piece, f->behind, buf, n, f->disp + pos, &got)) return 0;
    if (write && n > 0) {
        f->dirty = 1;
        if (f->disp + pos + got > f->known) f->known = f->disp + pos + got;
    }
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
    mpigo_gate_count(gate, c);
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

/* MPI_File_write_ordered's short way: the joined write on the file's board (mpir's
 * file_board.go and file_ordered.go say the protocol; this is the same, for a call
 * whose own part is plain): member r > 0 copies its record into its area, posts its
 * header and waits for member 0's outcome; member 0 waits for every header, writes
 * its record and the others' from the board with one pwritev at the shared pointer,
 * moves the pointer and publishes the outcome. Taken where the gate lets a call be
 * counted in C (as short_at), the file's record has a board (Go made it, in the
 * file's first ordered write, and no atomic mode, conversion, sequential mode or
 * forced collective buffering stands in the way: mpir.File.Ordered), the buffer is
 * count items of a contiguous predefined type, at most a record area and whole
 * etypes, and no collective of the file is under way (the lane's mirror on the
 * board). Member 0 leaves everything to Go before it has published anything: when a
 * header says a member failed or takes the general way, the write would pass the
 * largest offset, the system call fails, or a member has not come within the wait's
 * spin and yields (Go's waiter then sleeps and checks that it lives); Go reads the
 * same headers and does the call as its own. It leaves it to Go as well where Go
 * would copy the records into the file's mapping (a file in memory: copies) and they
 * land before the size the file is known to have: a copy costs Go less than the
 * pwritev, the crossing included, and a copy that faults needs Go's recovery.
 * Member r leaves it to Go before its header, or after it (mpigo_file_ordered_posted:
 * Go then does not post again) when the outcome is not there within the spin and
 * yields or is not a success. */
extern int32_t mpigo_file_ordered_posted(uintptr_t fh, const void *buf, int64_t count, uintptr_t dt, void *st,
                                         int32_t big);

#define BD_LINE 64
#define BD_OUT 0
#define BD_SLEEP 64
#define BD_HDR 128
#define BD_LANE 24
#define ORD_MAX_MEMBERS 64 /* member 0's iovec on the stack */

static inline uint64_t ld(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

static inline int64_t ns_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* bd_poll polls until the word at p is at least v by the board's idle policy's spin
 * and yields (as collshort.c's poll); 0 when Go must go on waiting. */
static int bd_poll(const mpigo_file *f, const uint64_t *p, uint64_t v) {
    int32_t spin = (int32_t)mpigo_spin_cap(f->spin), handoffs = mpigo_handoffs_cap(f->handoffs);
    for (int i = 0; i < spin; i++) {
        if (ld(p) >= v) return 1;
        mpigo_pause();
    }
    for (int y = 0, gave = 0; y < f->yield && (handoffs == 0 || gave < handoffs); y++) {
        if (ld(p) >= v) return 1;
        int64_t t0 = ns_now();
        sched_yield();
        if (ns_now() - t0 > 2000) gave++;
    }
    return ld(p) >= v;
}

/* bd_publish stores v in the sequence word at off of board b and wakes its sleepers
 * (board.publish). */
static void bd_publish(char *b, int64_t off, uint64_t v) {
    uint64_t *p = (uint64_t *)(b + off);
    __atomic_store_n(p, v, __ATOMIC_SEQ_CST);
    if (__atomic_load_n((int32_t *)(b + BD_SLEEP), __ATOMIC_SEQ_CST) != 0)
        syscall(SYS_futex, (uint32_t *)p, 1 /* FUTEX_WAKE, shared */, INT_MAX, NULL, NULL, 0);
}

/* 0: nothing done, Go's way; 1: done; 2: posted, Go finishes (member r > 0). */
static int short_ordered(MPI_File fh, const void *buf, int64_t count, MPI_Datatype dt, MPI_Status *st) {
    uintptr_t i = mpigo_slot((uintptr_t)fh, MPIGO_KIND_FILE), di = (uintptr_t)dt - 0x200;
    if (i >= MPIGO_SHORT_FILES || di >= 256 || (uint64_t)count > (uint64_t)FILE_COUNT_MAX) return 0;
    mpigo_file *f = &mpigo_files[i];
    if (f->h != (uintptr_t)fh || !f->write || f->board == NULL || !__atomic_load_n(&mpigo_short_live, __ATOMIC_ACQUIRE))
        return 0;
    int64_t size = mpigo_short_dts[di].size, n = count * size, es = f->esize;
    if (size <= 0 || (n > 0 && buf == NULL) || n > f->area || (es != 1 && n % es != 0)) return 0;
    if (f->size > ORD_MAX_MEMBERS || f->rank < 0 || f->rank >= f->size) return 0;
    uint32_t *gate = (uint32_t *)mpigo_file_gate;
    if (gate == NULL) return 0;
    if (!mpigo_gate_open(*gate)) return 0;
    char *b = f->board;
    const uint64_t *lane = (const uint64_t *)(b + BD_HDR + (int64_t)f->rank * BD_LINE + BD_LANE);
    if (ld(&lane[0]) != ld(&lane[1])) return 0; /* a collective of the file is under way */
    char *areas = b + BD_HDR + (int64_t)f->size * BD_LINE;
    uint64_t *out = (uint64_t *)(b + BD_OUT);
    if (f->rank != 0) {
        uint64_t *h = (uint64_t *)(b + BD_HDR + (int64_t)f->rank * BD_LINE);
        uint64_t seq = ld(h) + 1;
        if (n > 0) memcpy(areas + (int64_t)(f->rank - 1) * f->area, buf, (size_t)n);
        h[1] = 0;
        h[2] = (uint64_t)n;
        bd_publish(b, (char *)h - b, seq);
        if (!bd_poll(f, out, seq) || out[1] != 0 /* joinDone */) return 2;
    } else {
        if (f->ptr == NULL) return 0;
        uint64_t seq = ld(out) + 1;
        struct iovec iov[ORD_MAX_MEMBERS];
        int k = 0;
        int64_t total = n;
        if (n > 0) iov[k++] = (struct iovec){(void *)buf, (size_t)n};
        for (int r = 1; r < f->size; r++) {
            const uint64_t *h = (const uint64_t *)(b + BD_HDR + (int64_t)r * BD_LINE);
            if (!bd_poll(f, h, seq)) return 0;
            int64_t len = (int64_t)h[2];
            if (h[1] != 0 || len < 0 || len > f->area) return 0; /* a failure, or the general way: Go's */
            if (len > 0) iov[k++] = (struct iovec){areas + (int64_t)(r - 1) * f->area, (size_t)len};
            total += len;
        }
        if (total > 0) {
            int64_t base = (int64_t)ld(f->ptr);
            if (base < 0 || base > f->end - total) return 0; /* Go's error */
            int64_t off = f->disp + base, done = 0, from = behind_from(f->behind, total);
            if (f->copies && off + total <= f->known) return 0; /* Go copies them */
            struct iovec *v = iov;
            while (done < total) {
                ssize_t w = pwritev_piece(f->fd, v, k, off + done, f->piece);
                if (w < 0 && (errno == EINTR || errno == EAGAIN)) continue;
                if (w <= 0) return 0; /* Go writes again from the start and reports */
                done += w;
                behind_wrote(f->fd, f->behind, off, &from, done, total);
                while (k > 0 && (size_t)w >= v->iov_len) { w -= (ssize_t)v->iov_len; v++; k--; }
                if (k > 0) { v->iov_base = (char *)v->iov_base + w; v->iov_len -= (size_t)w; }
            }
            f->dirty = 1;
            if (off + total > f->known) f->known = off + total;
            __atomic_store_n(f->ptr, (uint64_t)(base + total), __ATOMIC_SEQ_CST);
        }
        out[1] = out[2] = out[3] = 0;
        bd_publish(b, BD_OUT, seq);
    }
    if (st != MPI_STATUS_IGNORE) {
        st->MPI_SOURCE = mpigo_file_source;
        st->MPI_TAG = mpigo_file_tag;
        st->MPI_internal[0] = (int)(uint32_t)n;
        st->MPI_internal[1] = (int)(n >> 32);
        st->MPI_internal[2] = 0;
    }
    mpigo_calls *c = &mpigo_file_calls[MPIGO_FC_WRITE_ORDERED];
    c->hist[n > 0 ? 64 - __builtin_clzll((uint64_t)n) : 0]++;
    c->bytes += (uint64_t)n;
    mpigo_gate_count(gate, c);
    return 1;
}

int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
    switch (short_ordered(fh, buf, count, datatype, status)) {
    case 1: return MPI_SUCCESS;
    case 2: return mpigo_file_ordered_posted((uintptr_t)fh, buf, count, (uintptr_t)datatype, status, 0);
    }
    return goPMPI_File_write_ordered(fh, buf, count, datatype, status);
}

int PMPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status) {
    switch (short_ordered(fh, buf, count, datatype, status)) {
    case 1: return MPI_SUCCESS;
    case 2: return mpigo_file_ordered_posted((uintptr_t)fh, buf, count, (uintptr_t)datatype, status, 1);
    }
    return goPMPI_File_write_ordered_c(fh, buf, count, datatype, status);
}
