package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/mpir"
)

// The shared file pointer's calls (MPI 4.1 section 14.4.4): the same conversions as
// file.go's other data accesses, with mpir's shared pointer (file_shared.go there).

//export PMPI_File_read_shared
func PMPI_File_read_shared(fh uintptr, p unsafe.Pointer, count int32, dh uintptr, st unsafe.Pointer) int32 {
	return fileIO("File_read_shared", fh, mpir.Access{Shared: true}, p, int64(count), dh, st)
}

//export PMPI_File_read_shared_c
func PMPI_File_read_shared_c(fh uintptr, p unsafe.Pointer, count int64, dh uintptr, st unsafe.Pointer) int32 {
	return fileIO("File_read_shared", fh, mpir.Access{Shared: true}, p, count, dh, st)
}

//export PMPI_File_iread_shared
func PMPI_File_iread_shared(fh uintptr, p unsafe.Pointer, count int32, dh uintptr, req unsafe.Pointer) int32 {
	return fileStart("File_iread_shared", fh, mpir.Access{Shared: true}, p, int64(count), dh, req)
}

//export PMPI_File_iread_shared_c
func PMPI_File_iread_shared_c(fh uintptr, p unsafe.Pointer, count int64, dh uintptr, req unsafe.Pointer) int32 {
	return fileStart("File_iread_shared", fh, mpir.Access{Shared: true}, p, count, dh, req)
}

//export PMPI_File_write_shared
func PMPI_File_write_shared(fh uintptr, p unsafe.Pointer, count int32, dh uintptr, st unsafe.Pointer) int32 {
	return fileIO("File_write_shared", fh, mpir.Access{Write: true, Shared: true}, p, int64(count), dh, st)
}

//export PMPI_File_write_shared_c
func PMPI_File_write_shared_c(fh uintptr, p unsafe.Pointer, count int64, dh uintptr, st unsafe.Pointer) int32 {
	return fileIO("File_write_shared", fh, mpir.Access{Write: true, Shared: true}, p, count, dh, st)
}

//export PMPI_File_iwrite_shared
func PMPI_File_iwrite_shared(fh uintptr, p unsafe.Pointer, count int32, dh uintptr, req unsafe.Pointer) int32 {
	return fileStart("File_iwrite_shared", fh, mpir.Access{Write: true, Shared: true}, p, int64(count), dh, req)
}

//export PMPI_File_iwrite_shared_c
func PMPI_File_iwrite_shared_c(fh uintptr, p unsafe.Pointer, count int64, dh uintptr, req unsafe.Pointer) int32 {
	return fileStart("File_iwrite_shared", fh, mpir.Access{Write: true, Shared: true}, p, count, dh, req)
}

//export PMPI_File_read_ordered
func PMPI_File_read_ordered(fh uintptr, p unsafe.Pointer, count int32, dh uintptr, st unsafe.Pointer) int32 {
	return fileIO("File_read_ordered", fh, mpir.Access{Shared: true, Coll: true}, p, int64(count), dh, st)
}

//export PMPI_File_read_ordered_c
func PMPI_File_read_ordered_c(fh uintptr, p unsafe.Pointer, count int64, dh uintptr, st unsafe.Pointer) int32 {
	return fileIO("File_read_ordered", fh, mpir.Access{Shared: true, Coll: true}, p, count, dh, st)
}

//export PMPI_File_read_ordered_begin
func PMPI_File_read_ordered_begin(fh uintptr, p unsafe.Pointer, count int32, dh uintptr) int32 {
	return fileBegin("File_read_ordered_begin", "File_read_ordered", fh, mpir.Access{Shared: true, Coll: true}, p, int64(count), dh)
}

//export PMPI_File_read_ordered_begin_c
func PMPI_File_read_ordered_begin_c(fh uintptr, p unsafe.Pointer, count int64, dh uintptr) int32 {
	return fileBegin("File_read_ordered_begin", "File_read_ordered", fh, mpir.Access{Shared: true, Coll: true}, p, count, dh)
}

//export PMPI_File_read_ordered_end
func PMPI_File_read_ordered_end(fh uintptr, _ unsafe.Pointer, st unsafe.Pointer) int32 {
	return fileEnd("File_read_ordered_end", "File_read_ordered", fh, st)
}

//export PMPI_File_write_ordered
func PMPI_File_write_ordered(fh uintptr, p unsafe.Pointer, count int32, dh uintptr, st unsafe.Pointer) int32 {
	return fileIO("File_write_ordered", fh, mpir.Access{Write: true, Shared: true, Coll: true}, p, int64(count), dh, st)
}

//export PMPI_File_write_ordered_c
func PMPI_File_write_ordered_c(fh uintptr, p unsafe.Pointer, count int64, dh uintptr, st unsafe.Pointer) int32 {
	return fileIO("File_write_ordered", fh, mpir.Access{Write: true, Shared: true, Coll: true}, p, count, dh, st)
}

//export PMPI_File_write_ordered_begin
func PMPI_File_write_ordered_begin(fh uintptr, p unsafe.Pointer, count int32, dh uintptr) int32 {
	return fileBegin("File_write_ordered_begin", "File_write_ordered", fh, mpir.Access{Write: true, Shared: true, Coll: true}, p, int64(count), dh)
}

//export PMPI_File_write_ordered_begin_c
func PMPI_File_write_ordered_begin_c(fh uintptr, p unsafe.Pointer, count int64, dh uintptr) int32 {
	return fileBegin("File_write_ordered_begin", "File_write_ordered", fh, mpir.Access{Write: true, Shared: true, Coll: true}, p, count, dh)
}

//export PMPI_File_write_ordered_end
func PMPI_File_write_ordered_end(fh uintptr, _ unsafe.Pointer, st unsafe.Pointer) int32 {
	return fileEnd("File_write_ordered_end", "File_write_ordered", fh, st)
}

//export PMPI_File_seek_shared
func PMPI_File_seek_shared(fh uintptr, offset int64, whence int32) int32 {
	const op = "File_seek_shared"
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	w, ok := whences[whence]
	var bad error
	if !ok {
		// It still takes part in the agreement, so that the other ranks fail too.
		w, bad = -1, errorf(errArg, op, "whence %d is none of MPI_SEEK_SET, MPI_SEEK_CUR, MPI_SEEK_END", whence)
	}
	_, err := f.d.SeekShared(op, offset, w, bad)
	return failF(op, fh, err)
}

//export PMPI_File_get_position_shared
func PMPI_File_get_position_shared(fh uintptr, p unsafe.Pointer) int32 {
	const op = "File_get_position_shared"
	f, r := needFile(op, fh)
	if f == nil {
		return r
	}
	if p == nil {
		return failF(op, fh, errorf(errArg, op, "offset is NULL"))
	}
	n, err := f.d.PositionShared(op)
	if err == nil {
		*(*int64)(p) = n
	}
	return failF(op, fh, err)
}
