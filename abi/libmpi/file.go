package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/mpir"
)

// Files (MPI 4.1 chapter 14) are internal/mpir's: a handle names an entry of the file
// table, which holds the mpir.File. The exports read C
// strings and buffers and write C results; the semantics, checks and agreements are
// mpir's. Errors of a call on an open file go to the file's handler; those of a call
// with no valid file (MPI_File_open, MPI_File_delete, a handle that is no open file)
// to MPI_FILE_NULL's, the default of files (MPI_ERRORS_RETURN unless the program set
// another). A request of a file's nonblocking operation carries the file's handle
// where other requests carry their communicator's, so the completion calls' errors go
// to the file's handler too (raise).

type file struct {
	d *mpir.File
}

var files = table[file]{kind: kFile}

const hFileNull = 0x118

// The amodes are the ABI's: mpir's values are the same numbers (these constants do
// not compile otherwise).
const (
	_ uint = C.MPI_MODE_APPEND - uint(mpir.ModeAppend)
	_ uint = uint(mpir.ModeAppend) - C.MPI_MODE_APPEND
	_ uint = C.MPI_MODE_CREATE - uint(mpir.ModeCreate)
	_ uint = uint(mpir.ModeCreate) - C.MPI_MODE_CREATE
	_ uint = C.MPI_MODE_DELETE_ON_CLOSE - uint(mpir.ModeDeleteOnClose)
	_ uint = uint(mpir.ModeDeleteOnClose) - C.MPI_MODE_DELETE_ON_CLOSE
	_ uint = C.MPI_MODE_EXCL - uint(mpir.ModeExcl)
	_ uint = uint(mpir.ModeExcl) - C.MPI_MODE_EXCL
	_ uint = C.MPI_MODE_RDONLY - uint(mpir.ModeRdonly)
	_ uint = uint(mpir.ModeRdonly) - C.MPI_MODE_RDONLY
	_ uint = C.MPI_MODE_RDWR - uint(mpir.ModeRdwr)
	_ uint = uint(mpir.ModeRdwr) - C.MPI_MODE_RDWR
	_ uint = C.MPI_MODE_SEQUENTIAL - uint(mpir.ModeSequential)
	_ uint = uint(mpir.ModeSequential) - C.MPI_MODE_SEQUENTIAL
	_ uint = C.MPI_MODE_UNIQUE_OPEN - uint(mpir.ModeUniqueOpen)
	_ uint = uint(mpir.ModeUniqueOpen) - C.MPI_MODE_UNIQUE_OPEN
	_ uint = C.MPI_MODE_WRONLY - uint(mpir.ModeWronly)
	_ uint = uint(mpir.ModeWronly) - C.MPI_MODE_WRONLY
)

func fileOf(h uintptr) *file { return files.get(h) }

// failFile raises err of a file call that has no valid file through MPI_FILE_NULL's
// handler.
func failFile(op string, err error) int32 {
	if err == nil {
		return 0
	}
	ce := cerror(op, err)
	mpir.FileNull.Raise(ce.op, uintptr(hFileNull), mpir.Text("file MPI_FILE_NULL"), ce)
	return ce.code
}

// failF is fail for a call on file fh: the file's handler, or MPI_FILE_NULL's where fh
// is no open file.
func failF(op string, fh uintptr, err error) int32 {
	if err == nil {
		return 0
	}
	return raiseFile(op, fh, err)
}

func raiseFile(op string, fh uintptr, err error) int32 {
	f := fileOf(fh)
	if f == nil {
		return failFile(op, err)
	}
	ce := cerror(op, err)
	f.d.Errh().Raise(ce.op, fh, f.d.What, ce)
	return ce.code
}

// needFile is the open file of handle h, or the error code of a bad handle (raised).
func needFile(op string, h uintptr) (*file, int32) {
	f := fileOf(h)
	if f == nil {
		return nil, failFile(op, badHandle(op, "fh", h, kFile))
	}
	if err := f.d.Check(op); err != nil {
		return nil, failFile(op, err)
	}
	return f, 0
}

//export PMPI_File_open
func PMPI_File_open(ch uintptr, name unsafe.Pointer, amode int32, ih uintptr, out unsafe.Pointer) int32 {
	const op = "File_open"
	setHandle(out, hFileNull)
	c := commOf(ch)
	if c == nil {
		return failFile(op, badHandle(op, "comm", ch, kComm))
	}
	var bad error
	in, err := infoArg(op, ih)
	switch {
	case name == nil:
		bad = errorf(errArg, op, "filename is NULL")
	case out == nil:
		bad = errorf(errArg, op, "fh is NULL")
	case err != nil:
		bad = err
	}
	d, err := mpir.FileOpen(op, c.c, c.x.Owner(), cstr(name), int(amode), in, bad)
	if err != nil {
		return failFile(op, err)
	}
	f := &file{d: d}
	h := files.add(f)
	d.Face = h
	showFile(h, d)
	setHandle(out, h)
	return 0
}

//export PMPI_File_close
func PMPI_File_close(p unsafe.Pointer) int32 {
	const op = "File_close"
	if p == nil {
		return failFile(op, errorf(errArg, op, "fh is NULL"))
	}
	fh := *(*uintptr)(p)
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	hideFile(fh, f.d)
	r = failF(op, fh, f.d.Close(op))
	files.remove(fh)
	setHandle(p, hFileNull)
	return r
}

//export PMPI_File_delete
func PMPI_File_delete(name unsafe.Pointer, ih uintptr) int32 {
	const op = "File_delete"
	if name == nil {
		return failFile(op, errorf(errArg, op, "filename is NULL"))
	}
	in, err := infoArg(op, ih)
	if err != nil {
		return failFile(op, err)
	}
	return failFile(op, mpir.FileDelete(op, cstr(name), in))
}

//export PMPI_File_set_size
func PMPI_File_set_size(fh uintptr, size int64) int32 {
	const op = "File_set_size"
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	return failF(op, fh, f.d.SetSize(op, size))
}

//export PMPI_File_preallocate
func PMPI_File_preallocate(fh uintptr, size int64) int32 {
	const op = "File_preallocate"
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	return failF(op, fh, f.d.Preallocate(op, size))
}

//export PMPI_File_get_size
func PMPI_File_get_size(fh uintptr, p unsafe.Pointer) int32 {
	const op = "File_get_size"
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	if p == nil {
		return failF(op, fh, errorf(errArg, op, "size is NULL"))
	}
	n, err := f.d.Size(op)
	*(*int64)(p) = n
	return failF(op, fh, err)
}

//export PMPI_File_get_group
func PMPI_File_get_group(fh uintptr, p unsafe.Pointer) int32 {
	const op = "File_get_group"
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	if p == nil {
		return failF(op, fh, errorf(errArg, op, "group is NULL"))
	}
	setHandle(p, newGroup(f.d.Group()))
	return 0
}

//export PMPI_File_get_amode
func PMPI_File_get_amode(fh uintptr, p unsafe.Pointer) int32 {
	const op = "File_get_amode"
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	if p == nil {
		return failF(op, fh, errorf(errArg, op, "amode is NULL"))
	}
	setInt(p, f.d.Amode())
	return 0
}

//export PMPI_File_set_info
func PMPI_File_set_info(fh uintptr, ih uintptr) int32 {
	const op = "File_set_info"
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	in, err := infoArg(op, ih)
	err = f.d.SetInfo(op, in, err)
	showFile(fh, f.d)
	return failF(op, fh, err)
}

//export PMPI_File_get_info
func PMPI_File_get_info(fh uintptr, p unsafe.Pointer) int32 {
	const op = "File_get_info"
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	if p == nil {
		return failF(op, fh, errorf(errArg, op, "info_used is NULL"))
	}
	setHandle(p, newInfoHandle(f.d.Info()))
	return 0
}

//export PMPI_File_sync
func PMPI_File_sync(fh uintptr) int32 {
	const op = "File_sync"
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	takeDirty(fh, f.d)
	return failF(op, fh, f.d.Sync(op))
}

//export PMPI_File_set_atomicity
func PMPI_File_set_atomicity(fh uintptr, flag int32) int32 {
	const op = "File_set_atomicity"
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	err := f.d.SetAtomicity(op, flag != 0)
	showFile(fh, f.d)
	return failF(op, fh, err)
}

//export PMPI_File_get_atomicity
func PMPI_File_get_atomicity(fh uintptr, p unsafe.Pointer) int32 {
	const op = "File_get_atomicity"
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	if p == nil {
		return failF(op, fh, errorf(errArg, op, "flag is NULL"))
	}
	setBool(p, f.d.Atomicity())
	return 0
}

// --- views ---

//export PMPI_File_set_view
func PMPI_File_set_view(fh uintptr, disp int64, eh, th uintptr, rep unsafe.Pointer, ih uintptr) int32 {
	const op = "File_set_view"
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	et, ft := dtOf(eh), dtOf(th)
	var bad error
	in, err := infoArg(op, ih)
	switch {
	case et == nil:
		bad = noType(op, eh)
	case ft == nil:
		bad = noType(op, th)
	case err != nil:
		bad = err
	case rep == nil:
		bad = nullOut(op, "datarep", rep) // no representation's name: "native" is spelled out
	}
	datarep := "native"
	if rep != nil {
		datarep = cstr(rep)
	}
	err = f.d.SetView(op, disp, typeObj(et), typeObj(ft), datarep, in, bad)
	showFile(fh, f.d)
	return failF(op, fh, err)
}

// typeObj is d's object, nil for nil.
func typeObj(d *dtype) *mpir.Datatype {
	if d == nil {
		return nil
	}
	return d.m
}

//export PMPI_File_get_view
func PMPI_File_get_view(fh uintptr, disp, ep, tp, rep unsafe.Pointer) int32 {
	const op = "File_get_view"
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	if err := nullOut(op, "disp, etype, filetype, datarep", disp, ep, tp, rep); err != nil {
		return failF(op, fh, err)
	}
	d, et, ft, datarep := f.d.View(lookup)
	*(*int64)(disp) = d
	setHandle(ep, partHandle(et))
	setHandle(tp, partHandle(ft))
	putCString(rep, C.MPI_MAX_DATAREP_STRING, datarep, nil)
	return 0
}

func typeExtent(op string, fh, dh uintptr, p unsafe.Pointer) (int64, int32) {
	f, r := needFile(op, fh)
	if f == nil {
		return 0, r
	}
	if p == nil {
		return 0, failF(op, fh, errorf(errArg, op, "extent is NULL"))
	}
	d := dtOf(dh)
	if d == nil {
		return 0, failF(op, fh, noType(op, dh))
	}
	n, err := f.d.TypeExtent(op, d.m)
	return n, failF(op, fh, err)
}

//export PMPI_File_get_type_extent
func PMPI_File_get_type_extent(fh, dh uintptr, p unsafe.Pointer) int32 {
	n, r := typeExtent("File_get_type_extent", fh, dh, p)
	if r == 0 {
		*(*int64)(p) = n // MPI_Aint
	}
	return r
}

//export PMPI_File_get_type_extent_c
func PMPI_File_get_type_extent_c(fh, dh uintptr, p unsafe.Pointer) int32 {
	n, r := typeExtent("File_get_type_extent_c", fh, dh, p)
	if r == 0 {
		*(*int64)(p) = n // MPI_Count
	}
	return r
}

//export PMPI_File_get_byte_offset
func PMPI_File_get_byte_offset(fh uintptr, offset int64, p unsafe.Pointer) int32 {
	const op = "File_get_byte_offset"
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	if p == nil {
		return failF(op, fh, errorf(errArg, op, "disp is NULL"))
	}
	n, err := f.d.ByteOffset(op, offset)
	if err == nil {
		*(*int64)(p) = n
	}
	return failF(op, fh, err)
}

var whences = map[int32]int{C.MPI_SEEK_SET: mpir.SeekSet, C.MPI_SEEK_CUR: mpir.SeekCur, C.MPI_SEEK_END: mpir.SeekEnd}

//export PMPI_File_seek
func PMPI_File_seek(fh uintptr, offset int64, whence int32) int32 {
	const op = "File_seek"
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	w, ok := whences[whence]
	if !ok {
		return failF(op, fh, errorf(errArg, op, "whence %d is none of MPI_SEEK_SET, MPI_SEEK_CUR, MPI_SEEK_END", whence))
	}
	return failF(op, fh, f.d.Seek(op, offset, w))
}

//export PMPI_File_get_position
func PMPI_File_get_position(fh uintptr, p unsafe.Pointer) int32 {
	const op = "File_get_position"
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	if p == nil {
		return failF(op, fh, errorf(errArg, op, "offset is NULL"))
	}
	n, err := f.d.Position(op)
	if err == nil {
		*(*int64)(p) = n
	}
	return failF(op, fh, err)
}

// --- error handlers ---

//export PMPI_File_create_errhandler
func PMPI_File_create_errhandler(fn, eh unsafe.Pointer) int32 {
	return createErrh("File_create_errhandler", fn, eh, mpir.KindFile)
}

// errhOfFile is the handler slot of file handle fh: MPI_FILE_NULL's for it, an open
// file's own, nil for a handle that is neither.
func errhOfFile(fh uintptr) *mpir.Errh {
	if fh == hFileNull {
		return &mpir.FileNull
	}
	if f := fileOf(fh); f != nil && f.d.Check("") == nil {
		return f.d.Errh()
	}
	return nil
}

//export PMPI_File_set_errhandler
func PMPI_File_set_errhandler(fh uintptr, eh uintptr) int32 {
	const op = "File_set_errhandler"
	e := errhOfFile(fh)
	if e == nil {
		return failFile(op, badHandle(op, "file", fh, kFile))
	}
	return failF(op, fh, setErrh(op, e, mpir.KindFile, eh))
}

//export PMPI_File_get_errhandler
func PMPI_File_get_errhandler(fh uintptr, eh unsafe.Pointer) int32 {
	const op = "File_get_errhandler"
	e := errhOfFile(fh)
	if e == nil {
		return failFile(op, badHandle(op, "file", fh, kFile))
	}
	return failF(op, fh, getErrh(op, e, eh))
}

//export PMPI_File_call_errhandler
func PMPI_File_call_errhandler(fh uintptr, code int32) int32 {
	const op = "File_call_errhandler"
	if fh == hFileNull {
		mpir.FileNull.Raise("MPI_"+op, uintptr(hFileNull), mpir.Text("file MPI_FILE_NULL"), codeErr(op, code))
		return 0
	}
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	f.d.Errh().Raise("MPI_"+op, fh, f.d.What, codeErr(op, code))
	return 0
}

// --- data access ---
//
// Every data access procedure (MPI_File_[i]{read|write}[_at][_all|_shared|_ordered]
// [_begin|_end][_c]) is one call of fileIO, fileStart, fileBegin or fileEnd with the
// access its name says; abi/gen writes those exports (zexports.go).

// ioBuf is the memory of count items of datatype dh at p, and the error of a bad
// argument (which mpir raises on every rank of a collective call).
func ioBuf(op string, p unsafe.Pointer, count int64, dh uintptr) (mpir.IOBuf, error) {
	d := dtOf(dh)
	switch {
	case dh == hDatatypeNull:
		t, err := mpir.NullFor(op, "datatype", count)
		return mpir.IOBuf{Type: t}, err
	case d == nil:
		return mpir.IOBuf{}, noType(op, dh)
	case count < 0:
		return mpir.IOBuf{}, errorf(errCount, op, "count %d is negative", count)
	}
	mem, origin, err := span(op, p, count, d.t)
	return mpir.IOBuf{Mem: mem, Origin: origin, Count: count, Type: d.t, Obj: d.m}, err
}

// fileIO is every blocking data access.
func fileIO(op string, fh uintptr, a mpir.Access, p unsafe.Pointer, count int64, dh uintptr, st unsafe.Pointer) int32 {
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	b, bad := ioBuf(op, p, count, dh)
	ps, err := f.d.Access(op, a, b, bad)
	if a.Shared && a.Coll && a.Write {
		showOrdered(fh, f.d)
	}
	putStatus(st, nil, &ps)
	return failF(op, fh, err)
}

// fileStart is every nonblocking data access: its request carries the file's handle,
// whose handler serves the completion calls' errors.
func fileStart(op string, fh uintptr, a mpir.Access, p unsafe.Pointer, count int64, dh uintptr, req unsafe.Pointer) int32 {
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	b, bad := ioBuf(op, p, count, dh)
	if req == nil && bad == nil {
		bad = errorf(errArg, op, "request is NULL")
	}
	x, err := f.d.Start(op, a, b, bad)
	if err != nil {
		return failF(op, fh, err)
	}
	addPending(x, nil, fh, nil, req)
	return 0
}

// --- split collectives ---

// fileBegin is every split collective's begin.
func fileBegin(op, kind string, fh uintptr, a mpir.Access, p unsafe.Pointer, count int64, dh uintptr) int32 {
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	b, bad := ioBuf(op, p, count, dh)
	return failF(op, fh, f.d.BeginSplit(op, kind, a, b, bad))
}

// fileEnd is every split collective's end. The buffer argument is the begin's, which
// the begin already took.
func fileEnd(op, kind string, fh uintptr, st unsafe.Pointer) int32 {
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	ps, err := f.d.EndSplit(op, kind)
	putStatus(st, nil, &ps)
	return failF(op, fh, err)
}
