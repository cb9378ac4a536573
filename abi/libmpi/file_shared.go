package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"
)

// The shared file pointer's seek and position (MPI 4.1 section 14.4.4), with mpir's
// shared pointer (file_shared.go there). Its data accesses are file.go's functions
// with the access's Shared flag, their exports generated (zexports.go).

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
