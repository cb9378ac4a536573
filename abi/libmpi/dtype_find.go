package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/mpir"
)

// The calls that find a predefined datatype (MPI_Type_match_size,
// MPI_Type_get_value_index, MPI_Type_create_f90_*) are mpir's tables of MPI names;
// lookup gives them this library's predefined types, none for an optional Fortran
// type the program said is not supported (fortran.go).

// lookup is the predefined datatype of an MPI name, nil where there is none.
func lookup(name string) *mpir.Datatype {
	h, ok := predefByName[name]
	if !ok {
		return nil
	}
	if d := predefT[h-0x200]; d != nil {
		return d.m
	}
	return nil
}

// typeClassIn is mpir's type class for the ABI's MPI_TYPECLASS_x.
func typeClassIn(op string, class int32) (mpir.TypeClass, error) {
	switch class {
	case C.MPI_TYPECLASS_INTEGER:
		return mpir.TypeClassInteger, nil
	case C.MPI_TYPECLASS_REAL:
		return mpir.TypeClassReal, nil
	case C.MPI_TYPECLASS_COMPLEX:
		return mpir.TypeClassComplex, nil
	case 191: // MPIX_TYPECLASS_LOGICAL of MPICH and the MPI Forum's reference header
		return mpir.TypeClassLogical, nil
	}
	return 0, errorf(errArg, op, "typeclass %d is not MPI_TYPECLASS_INTEGER, _REAL or _COMPLEX", class)
}

//export PMPI_Type_match_size
func PMPI_Type_match_size(class, size int32, out unsafe.Pointer) int32 {
	const op = "Type_match_size"
	c, err := typeClassIn(op, class)
	if err != nil {
		return fail(op, 0, err)
	}
	if out == nil {
		return fail(op, 0, errorf(errArg, op, "datatype is NULL"))
	}
	m, err := mpir.TypeMatchSize(op, c, int64(size), lookup)
	if err != nil {
		return fail(op, 0, err)
	}
	setHandle(out, m.Handle.(uintptr))
	return 0
}

//export PMPI_Type_get_value_index
func PMPI_Type_get_value_index(value, index uintptr, out unsafe.Pointer) int32 {
	const op = "Type_get_value_index"
	v, r := objArg(op, "value_type", value)
	if v == nil {
		return r
	}
	x, r := objArg(op, "index_type", index)
	if x == nil {
		return r
	}
	if out == nil {
		return fail(op, 0, errorf(errArg, op, "pair_type is NULL"))
	}
	m, err := mpir.TypeGetValueIndex(op, v, x, lookup)
	if err != nil {
		return fail(op, 0, err)
	}
	h := uintptr(hDatatypeNull)
	if m != nil {
		h = m.Handle.(uintptr)
	}
	setHandle(out, h)
	return 0
}

// newF90 is the handle of a type mpir made for MPI_Type_create_f90_*: in the table,
// but predefined (mpir refuses to free it).
func newF90(m *mpir.Datatype) any { return addObj(m) }

// f90Out gives in *out the handle of the type make finds.
func f90Out(op string, out unsafe.Pointer, make func() (*mpir.Datatype, error)) int32 {
	if out == nil {
		return fail(op, 0, errorf(errArg, op, "newtype is NULL"))
	}
	m, err := make()
	if err != nil {
		return fail(op, 0, err)
	}
	setHandle(out, m.Handle.(uintptr))
	return 0
}

//export PMPI_Type_create_f90_real
func PMPI_Type_create_f90_real(p, r int32, out unsafe.Pointer) int32 {
	const op = "Type_create_f90_real"
	return f90Out(op, out, func() (*mpir.Datatype, error) {
		return mpir.TypeCreateF90Real(op, int64(p), int64(r), lookup, newF90)
	})
}

//export PMPI_Type_create_f90_complex
func PMPI_Type_create_f90_complex(p, r int32, out unsafe.Pointer) int32 {
	const op = "Type_create_f90_complex"
	return f90Out(op, out, func() (*mpir.Datatype, error) {
		return mpir.TypeCreateF90Complex(op, int64(p), int64(r), lookup, newF90)
	})
}

//export PMPI_Type_create_f90_integer
func PMPI_Type_create_f90_integer(r int32, out unsafe.Pointer) int32 {
	const op = "Type_create_f90_integer"
	return f90Out(op, out, func() (*mpir.Datatype, error) {
		return mpir.TypeCreateF90Integer(op, int64(r), lookup, newF90)
	})
}
