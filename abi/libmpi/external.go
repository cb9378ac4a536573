package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/mpir"
)

// Canonical packing (MPI_Pack_external and kin, MPI 4.1 §5.2.3) in external32
// (§19.3.5): the checks and the packing are mpir's, as MPI_Pack's are
// (dtype_pack.go).

// datarep reads and checks the data representation argument.
func datarep(op string, p unsafe.Pointer) error {
	if p == nil {
		return errorf(errArg, op, "datarep is NULL")
	}
	return mpir.Datarep(op, cstr(p))
}

//export PMPI_Pack_external_size
func PMPI_Pack_external_size(rep unsafe.Pointer, count int32, dh uintptr, size unsafe.Pointer) int32 {
	return packExternalSize("Pack_external_size", rep, int64(count), dh, size)
}

//export PMPI_Pack_external_size_c
func PMPI_Pack_external_size_c(rep unsafe.Pointer, count int64, dh uintptr, size unsafe.Pointer) int32 {
	return packExternalSize("Pack_external_size_c", rep, count, dh, size)
}

func packExternalSize(op string, rep unsafe.Pointer, count int64, dh uintptr, size unsafe.Pointer) int32 {
	if err := datarep(op, rep); err != nil {
		return fail(op, 0, err)
	}
	t, err := packType(op, dh, count)
	if err != nil {
		return fail(op, 0, err)
	}
	if size == nil {
		return fail(op, 0, errorf(errArg, op, "size is NULL"))
	}
	n, err := mpir.PackExternalSize(op, t, count)
	if err != nil {
		return fail(op, 0, err)
	}
	*(*int64)(size) = n // MPI_Aint and MPI_Count are both 64 bits
	return 0
}

//export PMPI_Pack_external
func PMPI_Pack_external(rep, in unsafe.Pointer, count int32, dh uintptr, out unsafe.Pointer, outsize int64, pos unsafe.Pointer) int32 {
	return packExternal("Pack_external", rep, in, int64(count), dh, out, outsize, pos)
}

//export PMPI_Pack_external_c
func PMPI_Pack_external_c(rep, in unsafe.Pointer, count int64, dh uintptr, out unsafe.Pointer, outsize int64, pos unsafe.Pointer) int32 {
	return packExternal("Pack_external_c", rep, in, count, dh, out, outsize, pos)
}

func packExternal(op string, rep, in unsafe.Pointer, count int64, dh uintptr, out unsafe.Pointer, outsize int64, pos unsafe.Pointer) int32 {
	if err := datarep(op, rep); err != nil {
		return fail(op, 0, err)
	}
	return packC(op, in, count, dh, out, outsize, pos, 0, mpir.PackExternal)
}

//export PMPI_Unpack_external
func PMPI_Unpack_external(rep, in unsafe.Pointer, insize int64, pos, out unsafe.Pointer, count int32, dh uintptr) int32 {
	return unpackExternal("Unpack_external", rep, in, insize, pos, out, int64(count), dh)
}

//export PMPI_Unpack_external_c
func PMPI_Unpack_external_c(rep, in unsafe.Pointer, insize int64, pos, out unsafe.Pointer, count int64, dh uintptr) int32 {
	return unpackExternal("Unpack_external_c", rep, in, insize, pos, out, count, dh)
}

func unpackExternal(op string, rep, in unsafe.Pointer, insize int64, pos, out unsafe.Pointer, count int64, dh uintptr) int32 {
	if err := datarep(op, rep); err != nil {
		return fail(op, 0, err)
	}
	return unpackC(op, in, insize, pos, out, count, dh, 0, mpir.UnpackExternal)
}
