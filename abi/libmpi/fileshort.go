package main

/*
#include "fileshort.h"
#include "tallies.h"
*/
import "C"

import (
	"math"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// The Go side of MPI_File_write_at and MPI_File_read_at's short way in C
// (fileshort.c): per open file a record of what its explicit-offset accesses need
// (mpir.File.Plain), made when the file is opened and again after every call that may
// change the view, the atomicity or the hints (showFile), emptied before the file is
// closed (hideFile); what the C way wrote, Go takes over before Close and Sync
// (takeDirty), so that Close syncs it as it syncs Go's writes.

// fileEntry is the C record of file h, nil beyond the table.
func fileEntry(h uintptr) *C.mpigo_file {
	if h>>C.MPIGO_KIND_SHIFT != uintptr(kFile) {
		return nil
	}
	if i := h & (C.MPIGO_SLOTS - 1); i < C.MPIGO_SHORT_FILES {
		return &C.mpigo_files[i]
	}
	return nil
}

// takeDirty tells d that the C way wrote to it, if it did, since the last time.
func takeDirty(h uintptr, d *mpir.File) {
	if e := fileEntry(h); e != nil && e.h == C.uintptr_t(h) && e.dirty != 0 {
		e.dirty = 0
		d.Wrote()
	}
}

// showFile makes file h's record from d as it is now: empty where no access may take
// the short way.
func showFile(h uintptr, d *mpir.File) {
	e := fileEntry(h)
	if e == nil {
		return
	}
	takeDirty(h, d)
	e.h = 0 // first: the record is incomplete (one thread calls MPI below MPI_THREAD_MULTIPLE)
	p, ok := d.Plain()
	if !ok || p.Fd < 0 || p.Fd > math.MaxInt32 {
		return
	}
	*e = C.mpigo_file{fd: C.int32_t(p.Fd), esize: C.int64_t(p.Etype), disp: C.int64_t(p.Disp), end: C.int64_t(p.End),
		piece: C.uint32_t(min(p.Piece, math.MaxUint32)), behind: C.uint32_t(min(p.Behind, math.MaxUint32))}
	if p.Read {
		e.read = 1
	}
	if p.Write {
		e.write = 1
	}
	if p.Copies {
		e.copies, e.known = 1, C.int64_t(p.Known)
	}
	if o, ok := d.Ordered(); ok {
		e.board, e.ptr, e.area = (*C.char)(o.Board), (*C.uint64_t)(o.Ptr), C.int64_t(o.Area)
		e.size, e.rank = C.int32_t(o.Size), C.int32_t(o.Rank)
		e.spin, e.yield, e.handoffs = C.int32_t(min(o.Spin, 1<<28)), C.int32_t(min(o.Yield, 1<<28)), C.int32_t(min(o.Handoffs, 1<<28))
		if o.Copies {
			e.copies, e.known = 1, C.int64_t(o.FileSize)
		}
	}
	e.h = C.uintptr_t(h) // last: the record is complete
}

// showOrdered makes file h's record again after an ordered write that made the
// file's board, which the record does not have yet.
func showOrdered(h uintptr, d *mpir.File) {
	if e := fileEntry(h); e != nil && e.board == nil && d.HasBoard() {
		showFile(h, d)
	}
}

// mpigo_file_ordered_posted finishes MPI_File_write_ordered (or _c) on file fh whose
// member posted its header and record on the board in fileshort.c, which did not
// see the outcome it could finish the call with: the Go way, without posting again.
//
//export mpigo_file_ordered_posted
func mpigo_file_ordered_posted(fh uintptr, buf unsafe.Pointer, count int64, dh uintptr, st unsafe.Pointer, big int32) int32 {
	op := "File_write_ordered"
	if big != 0 {
		op = "File_write_ordered_c"
	}
	return fileIO(op, fh, mpir.Access{Write: true, Shared: true, Coll: true, Posted: true}, buf, count, dh, st)
}

// hideFile empties file h's record: it is about to be closed.
func hideFile(h uintptr, d *mpir.File) {
	if e := fileEntry(h); e != nil {
		takeDirty(h, d)
		e.h = 0
	}
}

// mpigo_short_files is how many MPI_File_write_at and read_at calls fileshort.c did
// itself, for C programs that check which way a call took (abi/testdata/fileshort.c).
//
//export mpigo_short_files
func mpigo_short_files() int64 {
	return callsDone(func(b *C.mpigo_tallies) []C.mpigo_calls { return b.file[:] })
}

func init() {
	C.mpigo_file_gate = C.uintptr_t(prof.Gate())
	C.mpigo_file_source = C.int32_t(rankOut(mpir.SourceRank(nil, core.AnySource)))
	C.mpigo_file_tag = C.int32_t(tagOut(core.AnyTag))
	watchTallies([]prof.Call{prof.FileReadAt, prof.FileWriteAt, prof.FileWriteOrdered},
		func(b *C.mpigo_tallies) []C.mpigo_calls { return b.file[:] })
}
