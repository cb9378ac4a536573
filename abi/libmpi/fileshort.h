/* fileshort.h - what the C short way of MPI_File_write_at and MPI_File_read_at
 * (fileshort.c) reads: per open file a record in C memory that the Go side of this
 * library (fileshort.go) makes from mpir's File.Plain when the file is opened and
 * after every call that may change it, and empties before the file is closed. */
#ifndef MPIGO_FILESHORT_H
#define MPIGO_FILESHORT_H
#include <stdint.h>
#include "handle.h"
#include "short.h"

/* A file whose explicit-offset accesses may take the C way: its view contiguous,
 * its representation native (or internal), atomic mode off, not MPI_MODE_SEQUENTIAL.
 * An access of n bytes at offset etypes takes it where the amode allows it (read,
 * write), n % esize == 0, 0 <= offset <= INT64_MAX / esize and offset * esize + n <=
 * end; it is at file byte disp + offset * esize (mpir.Plain). */
typedef struct {
    uintptr_t h; /* the file's handle; 0: the entry is empty. A stale one finds no record */
    int32_t fd;
    uint8_t read, write;
    uint8_t pad[2];
    int64_t esize, disp, end;
    uint32_t dirty; /* C wrote: Go takes it over (Close syncs) before Close and Sync */
    uint32_t piece; /* the longest write call to make, 0: no bound (mpio.File.WritePiece) */
    /* MPI_File_write_ordered's short way (mpir.File.Ordered): the file's board in node
     * shared memory (NULL: none, the Go way), member 0's shared pointer word, a
     * member's record area, the members, this one's rank and the board waits' idle
     * policy. copies: member 0's records go by copies into the file's mapping in Go
     * where they land before the file's end, which costs less than this way's pwritev
     * (mpir.Ordered.Copies); known: a size the file has at least, from Go when it made
     * the record and from this way's own writes since. */
    char *board;
    uint64_t *ptr;
    int64_t area;
    int32_t size, rank, spin, yield, handoffs, copies;
    int64_t known;
    /* A write of behind bytes or more starts the writeback of each behind bytes it
     * wrote, 0: none (mpio.File.WriteBehind). */
    uint32_t behind;
    uint32_t pad2;
} mpigo_file;

#define MPIGO_SHORT_FILES 1024 /* files in slots from this on take the Go way */

/* By file slot. */
extern MPIGO_HIDDEN mpigo_file mpigo_files[MPIGO_SHORT_FILES];

/* The record's short-path word (prof.Gate), 0 where it has none: the C way counts a
 * call only where Go's would count it untimed (p2pshort.c says how). */
extern MPIGO_HIDDEN uintptr_t mpigo_file_gate;

/* What an access status holds that is not its count: MPI_SOURCE and MPI_TAG as Go
 * writes them (fileIO's putStatus). */
extern MPIGO_HIDDEN int32_t mpigo_file_source, mpigo_file_tag;

/* The C way's calls, as the profile counts them (tallies.h). */
enum { MPIGO_FC_READ_AT, MPIGO_FC_WRITE_AT, MPIGO_FC_WRITE_ORDERED, MPIGO_FC_N };

#endif
