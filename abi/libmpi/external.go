package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"sync"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
)

// Canonical packing (MPI_Pack_external and kin, MPI 4.1 §5.2.3) and the Fortran
// types of a given precision and range (MPI_Type_create_f90_*, §19.1.9).

const errUnsupportedDatarep = 54 // MPI_ERR_UNSUPPORTED_DATAREP

// datarep checks the data representation argument: "external32" is the only one
// MPI defines for these calls; another is an unsupported representation.
func datarep(op string, p unsafe.Pointer) error {
	if p == nil {
		return errorf(errArg, op, "datarep is NULL")
	}
	if s := cstr(p); s != "external32" {
		return errorf(errUnsupportedDatarep, op, "datarep %q is not \"external32\", the only one MPI defines for canonical packing", s)
	}
	return nil
}

//export PMPI_Pack_external_size
func PMPI_Pack_external_size(rep unsafe.Pointer, count int32, dh uintptr, size unsafe.Pointer) int32 {
	return packExternalSize(rep, int64(count), dh, size)
}

//export PMPI_Pack_external_size_c
func PMPI_Pack_external_size_c(rep unsafe.Pointer, count int64, dh uintptr, size unsafe.Pointer) int32 {
	return packExternalSize(rep, count, dh, size)
}

func packExternalSize(rep unsafe.Pointer, count int64, dh uintptr, size unsafe.Pointer) int32 {
	const op = "Pack_external_size"
	if err := datarep(op, rep); err != nil {
		return fail(op, 0, err)
	}
	d := dtOf(dh)
	if d == nil {
		return fail(op, 0, noType(op, dh))
	}
	if size == nil {
		return fail(op, 0, errorf(errArg, op, "size is NULL"))
	}
	if count < 0 {
		return fail(op, 0, errorf(errCount, op, "incount %d is negative", count))
	}
	n, err := d.t.External32Size(count)
	if err != nil {
		return fail(op, 0, core.TypeErr(op, err))
	}
	*(*int64)(size) = n // MPI_Aint and MPI_Count are both 64 bits
	return 0
}

//export PMPI_Pack_external
func PMPI_Pack_external(rep, in unsafe.Pointer, count int32, dh uintptr, out unsafe.Pointer, outsize int64, pos unsafe.Pointer) int32 {
	return packExternal(rep, in, int64(count), dh, out, outsize, pos)
}

//export PMPI_Pack_external_c
func PMPI_Pack_external_c(rep, in unsafe.Pointer, count int64, dh uintptr, out unsafe.Pointer, outsize int64, pos unsafe.Pointer) int32 {
	return packExternal(rep, in, count, dh, out, outsize, pos)
}

func packExternal(rep, in unsafe.Pointer, count int64, dh uintptr, out unsafe.Pointer, outsize int64, pos unsafe.Pointer) int32 {
	const op = "Pack_external"
	if err := datarep(op, rep); err != nil {
		return fail(op, 0, err)
	}
	t, err := typeOf(op, dh)
	if err != nil {
		return fail(op, 0, err)
	}
	if pos == nil {
		return fail(op, 0, errorf(errArg, op, "position is NULL"))
	}
	if count < 0 {
		return fail(op, 0, errorf(errCount, op, "incount %d is negative", count))
	}
	p := *(*int64)(pos)
	need, err := t.External32Size(count)
	if err != nil {
		return fail(op, 0, core.TypeErr(op, err))
	}
	if p < 0 || p > outsize || need > outsize-p {
		return fail(op, 0, errorf(errTruncate, op, "packing %d bytes at position %d overflows outsize %d", need, p, outsize))
	}
	if need == 0 {
		return 0
	}
	mem, origin, err := span(op, in, count, t)
	if err != nil {
		return fail(op, 0, err)
	}
	dst := unsafe.Slice((*byte)(unsafe.Add(out, p)), need)
	n, err := t.PackExternalAt(dst, mem, origin, count)
	if err != nil {
		return fail(op, 0, core.TypeErr(op, err))
	}
	*(*int64)(pos) = p + n
	return 0
}

//export PMPI_Unpack_external
func PMPI_Unpack_external(rep, in unsafe.Pointer, insize int64, pos, out unsafe.Pointer, count int32, dh uintptr) int32 {
	return unpackExternal(rep, in, insize, pos, out, int64(count), dh)
}

//export PMPI_Unpack_external_c
func PMPI_Unpack_external_c(rep, in unsafe.Pointer, insize int64, pos, out unsafe.Pointer, count int64, dh uintptr) int32 {
	return unpackExternal(rep, in, insize, pos, out, count, dh)
}

func unpackExternal(rep, in unsafe.Pointer, insize int64, pos, out unsafe.Pointer, count int64, dh uintptr) int32 {
	const op = "Unpack_external"
	if err := datarep(op, rep); err != nil {
		return fail(op, 0, err)
	}
	t, err := typeOf(op, dh)
	if err != nil {
		return fail(op, 0, err)
	}
	if pos == nil {
		return fail(op, 0, errorf(errArg, op, "position is NULL"))
	}
	if count < 0 {
		return fail(op, 0, errorf(errCount, op, "outcount %d is negative", count))
	}
	p := *(*int64)(pos)
	need, err := t.External32Size(count)
	if err != nil {
		return fail(op, 0, core.TypeErr(op, err))
	}
	if p < 0 || p > insize || need > insize-p {
		return fail(op, 0, errorf(errTruncate, op, "unpacking %d bytes at position %d overruns insize %d", need, p, insize))
	}
	if need == 0 {
		return 0
	}
	mem, origin, err := span(op, out, count, t)
	if err != nil {
		return fail(op, 0, err)
	}
	src := unsafe.Slice((*byte)(unsafe.Add(in, p)), need)
	n, err := t.UnpackExternalAt(mem, origin, src, count)
	if err != nil {
		return fail(op, 0, core.TypeErr(op, err))
	}
	*(*int64)(pos) = p + n
	return 0
}

// --- MPI_Type_create_f90_*: the predefined type of a Fortran KIND ---

// The ABI's combiners of the types these calls return (mpi.h).
const (
	combF90Integer = C.MPI_COMBINER_F90_INTEGER
	combF90Real    = C.MPI_COMBINER_F90_REAL
	combF90Complex = C.MPI_COMBINER_F90_COMPLEX
)

// f90 is what made an MPI_Type_create_f90_* type: its combiner and arguments.
type f90 struct {
	comb int
	args []int64
}

var (
	f90Mu    sync.Mutex
	f90Types = map[[3]int32]uintptr{}
)

// f90Type returns the handle of the type of combiner comb and arguments (p, r),
// made once per combination from the predefined type base: the standard makes
// these types predefined (not freed by the program) and asks an implementation
// to return the same handle for the same arguments.
func f90Type(comb int, p, r int32, base uintptr, args []int64) uintptr {
	f90Mu.Lock()
	defer f90Mu.Unlock()
	k := [3]int32{int32(comb), p, r}
	if h, ok := f90Types[k]; ok {
		return h
	}
	h := types.add(&dtype{t: predefT[base-0x200].t, f90: &f90{comb: comb, args: args}})
	f90Types[k] = h
	return h
}

// f90Handle is the handle of the MPI_Type_create_f90_* type d, or 0.
func f90Handle(d *dtype) uintptr {
	f90Mu.Lock()
	defer f90Mu.Unlock()
	for _, h := range f90Types {
		if types.get(h) == d {
			return h
		}
	}
	return 0
}

// f90Kind picks a real (or complex) kind as gfortran's selected_real_kind does on
// x86-64: kinds 4 and 8 (IEEE single and double), 10 (x87 extended precision in 16
// bytes) and 16 (IEEE quad). It returns the kind, or 0 when none has precision p and
// range r.
func f90Kind(p, r int32) int {
	if p == undefined {
		p = 0
	}
	if r == undefined {
		r = 0
	}
	switch {
	case p <= 6 && r <= 37:
		return 4
	case p <= 15 && r <= 307:
		return 8
	case p <= 18 && r <= 4931:
		return 10
	case p <= 33 && r <= 4931:
		return 16
	}
	return 0
}

//export PMPI_Type_create_f90_real
func PMPI_Type_create_f90_real(p, r int32, out unsafe.Pointer) int32 {
	return f90Real("Type_create_f90_real", combF90Real, p, r, out,
		map[int]uintptr{4: 0x2d2, 8: 0x2da, 10: 0x220, 16: 0x2e2}) // REAL4, REAL8, LONG_DOUBLE, REAL16
}

//export PMPI_Type_create_f90_complex
func PMPI_Type_create_f90_complex(p, r int32, out unsafe.Pointer) int32 {
	return f90Real("Type_create_f90_complex", combF90Complex, p, r, out,
		map[int]uintptr{4: 0x2db, 8: 0x2e3, 10: 0x224, 16: 0x2eb}) // COMPLEX8, 16, C_LONG_DOUBLE_COMPLEX, COMPLEX32
}

func f90Real(op string, comb int, p, r int32, out unsafe.Pointer, bases map[int]uintptr) int32 {
	if out == nil {
		return fail(op, 0, errorf(errArg, op, "newtype is NULL"))
	}
	if p == undefined && r == undefined {
		return fail(op, 0, errorf(errArg, op, "p and r are both MPI_UNDEFINED; at most one may be"))
	}
	k := f90Kind(p, r)
	if k == 0 {
		return fail(op, 0, errorf(errArg, op, "no kind has precision %d and range %d (the widest is IEEE quad: 33 digits, range 4931)", p, r))
	}
	if fortranOff(bases[k]) {
		return fail(op, 0, errorf(errArg, op, "the kind of precision %d and range %d is of %d bytes, which MPI_Abi_set_fortran_info said is not supported", p, r, k))
	}
	setHandle(out, f90Type(comb, p, r, bases[k], []int64{int64(p), int64(r)}))
	return 0
}

//export PMPI_Type_create_f90_integer
func PMPI_Type_create_f90_integer(r int32, out unsafe.Pointer) int32 {
	const op = "Type_create_f90_integer"
	if out == nil {
		return fail(op, 0, errorf(errArg, op, "newtype is NULL"))
	}
	// selected_int_kind(r): the smallest integer holding -10^r < n < 10^r.
	var base uintptr
	switch {
	case r <= 2:
		base = 0x2c1 // MPI_INTEGER1
	case r <= 4:
		base = 0x2c9 // MPI_INTEGER2
	case r <= 9:
		base = 0x2d1 // MPI_INTEGER4
	case r <= 18:
		base = 0x2d9 // MPI_INTEGER8
	case r <= 38:
		base = 0x2e1 // MPI_INTEGER16
	default:
		return fail(op, 0, errorf(errArg, op, "no integer kind has range %d (the widest, 16 bytes, has 38)", r))
	}
	if fortranOff(base) {
		return fail(op, 0, errorf(errArg, op, "the integer kind of range %d is one MPI_Abi_set_fortran_info said is not supported", r))
	}
	setHandle(out, f90Type(combF90Integer, 0, r, base, []int64{int64(r)}))
	return 0
}
