package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
)

// The datatype constructors (MPI 4.1 section 5.1.2): their checks, errors and the
// record of what made a type are mpir's; here the arguments are read (the caller's
// arrays in place, the ABI's constants for orders and distributions) and the new
// type gets a handle. The int forms and the large-count (_c) forms differ in the
// types of their arrays, and in how their types decode (mpir's large).

// newType gives the type a constructor made a handle in *out.
func newType(op string, out unsafe.Pointer, m *mpir.Datatype, err error) int32 {
	if err != nil {
		return fail(op, 0, err)
	}
	if out == nil {
		return fail(op, 0, errorf(errArg, op, "newtype is NULL"))
	}
	setHandle(out, addObj(m))
	return 0
}

// addObj registers the object of a new datatype and gives its handle.
func addObj(m *mpir.Datatype) uintptr {
	h := addType(&dtype{t: m.Type(), m: m})
	m.Handle = h
	return h
}

// needObj is the object of the datatype argument h.
func needObj(op string, h uintptr) (*mpir.Datatype, int32) { return objArg(op, "datatype", h) }

// objArg is the object of the datatype argument arg, h.
func objArg(op, arg string, h uintptr) (*mpir.Datatype, int32) {
	d := dtOf(h)
	if d == nil {
		return nil, fail(op, 0, typeArgErr(op, arg, h))
	}
	return d.m, 0
}

// cArray views the caller's array arg of n elements at p in place: NULL only when it
// is empty.
func cArray[T int32 | int64 | uintptr](op, arg string, p unsafe.Pointer, n int64) ([]T, error) {
	if n <= 0 {
		return nil, nil
	}
	if p == nil {
		return nil, errorf(errArg, op, "%s is NULL but holds %d entries", arg, n)
	}
	return unsafe.Slice((*T)(p), n), nil
}

// cCount checks a count that gives the length of the caller's arrays.
func cCount(op, arg string, n int64) error {
	if n < 0 {
		return errorf(errCount, op, "%s %d is negative", arg, n)
	}
	return nil
}

// cWide reads the caller's array arg of n int (or, large, MPI_Count or MPI_Aint)
// elements as int64s.
func cWide(op, arg string, p unsafe.Pointer, n int64, large bool) ([]int64, error) {
	if large {
		return cArray[int64](op, arg, p, n)
	}
	s, err := cArray[int32](op, arg, p, n)
	return toInts64(s), err
}

//export goPMPI_Type_contiguous
func goPMPI_Type_contiguous(count int32, old uintptr, out unsafe.Pointer) int32 {
	goHalves.Add(1)
	return contiguous(int64(count), old, out, false)
}

//export PMPI_Type_contiguous_c
func PMPI_Type_contiguous_c(count int64, old uintptr, out unsafe.Pointer) int32 {
	return contiguous(count, old, out, true)
}

func contiguous(count int64, old uintptr, out unsafe.Pointer, large bool) int32 {
	op := "Type_contiguous"
	if large {
		op = "Type_contiguous_c"
	}
	o, r := objArg(op, "oldtype", old)
	if o == nil {
		return r
	}
	m, err := mpir.TypeContiguous(op, count, o, large)
	return newType(op, out, m, err)
}

//export goPMPI_Type_vector
func goPMPI_Type_vector(count, bl, stride int32, old uintptr, out unsafe.Pointer) int32 {
	goHalves.Add(1)
	return vector(int64(count), int64(bl), int64(stride), old, out, false)
}

//export PMPI_Type_vector_c
func PMPI_Type_vector_c(count, bl, stride int64, old uintptr, out unsafe.Pointer) int32 {
	return vector(count, bl, stride, old, out, true)
}

func vector(count, bl, stride int64, old uintptr, out unsafe.Pointer, large bool) int32 {
	op := "Type_vector"
	if large {
		op = "Type_vector_c"
	}
	o, r := objArg(op, "oldtype", old)
	if o == nil {
		return r
	}
	m, err := mpir.TypeVector(op, count, bl, stride, o, large)
	return newType(op, out, m, err)
}

//export goPMPI_Type_create_hvector
func goPMPI_Type_create_hvector(count, bl int32, stride int64, old uintptr, out unsafe.Pointer) int32 {
	goHalves.Add(1)
	return hvector(int64(count), int64(bl), stride, old, out, false)
}

//export PMPI_Type_create_hvector_c
func PMPI_Type_create_hvector_c(count, bl, stride int64, old uintptr, out unsafe.Pointer) int32 {
	return hvector(count, bl, stride, old, out, true)
}

func hvector(count, bl, stride int64, old uintptr, out unsafe.Pointer, large bool) int32 {
	op := "Type_create_hvector"
	if large {
		op = "Type_create_hvector_c"
	}
	o, r := objArg(op, "oldtype", old)
	if o == nil {
		return r
	}
	m, err := mpir.TypeHvector(op, count, bl, stride, o, large)
	return newType(op, out, m, err)
}

// blocks reads the count and the displacements (of D) of an index constructor.
func blocks[D int32 | int64](op string, count int64, displs unsafe.Pointer) ([]D, error) {
	if err := cCount(op, "count", count); err != nil {
		return nil, err
	}
	return cArray[D](op, "array_of_displacements", displs, count)
}

// indexed is MPI_Type_indexed (bytes: _create_hindexed) with the caller's arrays read
// in place: block lengths of L and displacements of D, int or MPI_Aint or MPI_Count.
func indexed[L, D int32 | int64](op string, count int64, bls, displs unsafe.Pointer, old uintptr, out unsafe.Pointer, bytes, large bool) int32 {
	o, r := objArg(op, "oldtype", old)
	if o == nil {
		return r
	}
	d, err := blocks[D](op, count, displs)
	var b []L
	if err == nil {
		b, err = cArray[L](op, "array_of_blocklengths", bls, count)
	}
	if err != nil {
		return fail(op, 0, err)
	}
	var m *mpir.Datatype
	if bytes {
		m, err = mpir.TypeHindexed(op, b, d, o, large)
	} else {
		m, err = mpir.TypeIndexed(op, b, d, o, large)
	}
	return newType(op, out, m, err)
}

//export PMPI_Type_indexed
func PMPI_Type_indexed(count int32, bls, displs unsafe.Pointer, old uintptr, out unsafe.Pointer) int32 {
	return indexed[int32, int32]("Type_indexed", int64(count), bls, displs, old, out, false, false)
}

//export PMPI_Type_indexed_c
func PMPI_Type_indexed_c(count int64, bls, displs unsafe.Pointer, old uintptr, out unsafe.Pointer) int32 {
	return indexed[int64, int64]("Type_indexed_c", count, bls, displs, old, out, false, true)
}

//export PMPI_Type_create_hindexed
func PMPI_Type_create_hindexed(count int32, bls, displs unsafe.Pointer, old uintptr, out unsafe.Pointer) int32 {
	return indexed[int32, int64]("Type_create_hindexed", int64(count), bls, displs, old, out, true, false)
}

//export PMPI_Type_create_hindexed_c
func PMPI_Type_create_hindexed_c(count int64, bls, displs unsafe.Pointer, old uintptr, out unsafe.Pointer) int32 {
	return indexed[int64, int64]("Type_create_hindexed_c", count, bls, displs, old, out, true, true)
}

// indexedBlock is MPI_Type_create_indexed_block (bytes: _hindexed_block) with the
// caller's displacements of D read in place.
func indexedBlock[D int32 | int64](op string, count, bl int64, displs unsafe.Pointer, old uintptr, out unsafe.Pointer, bytes, large bool) int32 {
	o, r := objArg(op, "oldtype", old)
	if o == nil {
		return r
	}
	d, err := blocks[D](op, count, displs)
	if err != nil {
		return fail(op, 0, err)
	}
	var m *mpir.Datatype
	if bytes {
		m, err = mpir.TypeHindexedBlock(op, bl, d, o, large)
	} else {
		m, err = mpir.TypeIndexedBlock(op, bl, d, o, large)
	}
	return newType(op, out, m, err)
}

//export PMPI_Type_create_indexed_block
func PMPI_Type_create_indexed_block(count, bl int32, displs unsafe.Pointer, old uintptr, out unsafe.Pointer) int32 {
	return indexedBlock[int32]("Type_create_indexed_block", int64(count), int64(bl), displs, old, out, false, false)
}

//export PMPI_Type_create_indexed_block_c
func PMPI_Type_create_indexed_block_c(count, bl int64, displs unsafe.Pointer, old uintptr, out unsafe.Pointer) int32 {
	return indexedBlock[int64]("Type_create_indexed_block_c", count, bl, displs, old, out, false, true)
}

//export PMPI_Type_create_hindexed_block
func PMPI_Type_create_hindexed_block(count, bl int32, displs unsafe.Pointer, old uintptr, out unsafe.Pointer) int32 {
	return indexedBlock[int64]("Type_create_hindexed_block", int64(count), int64(bl), displs, old, out, true, false)
}

//export PMPI_Type_create_hindexed_block_c
func PMPI_Type_create_hindexed_block_c(count, bl int64, displs unsafe.Pointer, old uintptr, out unsafe.Pointer) int32 {
	return indexedBlock[int64]("Type_create_hindexed_block_c", count, bl, displs, old, out, true, true)
}

func structType(count int64, bls, displs, ts unsafe.Pointer, out unsafe.Pointer, large bool) int32 {
	op := "Type_create_struct"
	if large {
		op = "Type_create_struct_c"
	}
	if err := cCount(op, "count", count); err != nil {
		return fail(op, 0, err)
	}
	hs, err := cArray[uintptr](op, "array_of_types", ts, count)
	if err != nil {
		return fail(op, 0, err)
	}
	objs := make([]*mpir.Datatype, len(hs))
	for i, h := range hs {
		d := dtOf(h)
		if d == nil {
			return fail(op, 0, typeArgErr(op, fmt.Sprintf("array_of_types[%d]", i), h))
		}
		objs[i] = d.m
	}
	b, err := cWide(op, "array_of_blocklengths", bls, count, large)
	if err != nil {
		return fail(op, 0, err)
	}
	d, err := cArray[int64](op, "array_of_displacements", displs, count)
	if err != nil {
		return fail(op, 0, err)
	}
	m, err := mpir.TypeStruct(op, b, d, objs, large)
	return newType(op, out, m, err)
}

//export PMPI_Type_create_struct
func PMPI_Type_create_struct(count int32, bls, displs, ts unsafe.Pointer, out unsafe.Pointer) int32 {
	return structType(int64(count), bls, displs, ts, out, false)
}

//export PMPI_Type_create_struct_c
func PMPI_Type_create_struct_c(count int64, bls, displs, ts unsafe.Pointer, out unsafe.Pointer) int32 {
	return structType(count, bls, displs, ts, out, true)
}

func resized(old uintptr, lb, extent int64, out unsafe.Pointer, large bool) int32 {
	op := "Type_create_resized"
	if large {
		op = "Type_create_resized_c"
	}
	o, r := objArg(op, "oldtype", old)
	if o == nil {
		return r
	}
	m, err := mpir.TypeResized(op, o, lb, extent, large)
	return newType(op, out, m, err)
}

//export PMPI_Type_create_resized
func PMPI_Type_create_resized(old uintptr, lb, extent int64, out unsafe.Pointer) int32 {
	return resized(old, lb, extent, out, false)
}

//export PMPI_Type_create_resized_c
func PMPI_Type_create_resized_c(old uintptr, lb, extent int64, out unsafe.Pointer) int32 {
	return resized(old, lb, extent, out, true)
}

// orderIn is the engine's order for the ABI's.
func orderIn(op string, order int32) (datatype.Order, error) {
	switch order {
	case C.MPI_ORDER_C:
		return datatype.OrderC, nil
	case C.MPI_ORDER_FORTRAN:
		return datatype.OrderFortran, nil
	}
	return 0, errorf(errArg, op, "order %d is not MPI_ORDER_C or MPI_ORDER_FORTRAN", order)
}

// cDims checks the ndims of a subarray or darray, which gives the length of its
// arrays; the engine says it must be positive.
func cDims(op string, ndims int64) error {
	if ndims < 0 {
		return errorf(errArg, op, "ndims %d is negative", ndims)
	}
	return nil
}

func subarray(ndims int64, sizes, subsizes, starts unsafe.Pointer, order int32, old uintptr, out unsafe.Pointer, large bool) int32 {
	op := "Type_create_subarray"
	if large {
		op = "Type_create_subarray_c"
	}
	o, r := objArg(op, "oldtype", old)
	if o == nil {
		return r
	}
	ord, err := orderIn(op, order)
	if err == nil {
		err = cDims(op, ndims)
	}
	if err != nil {
		return fail(op, 0, err)
	}
	var arrs [3][]int64
	for i, a := range []struct {
		name string
		p    unsafe.Pointer
	}{{"array_of_sizes", sizes}, {"array_of_subsizes", subsizes}, {"array_of_starts", starts}} {
		if arrs[i], err = cWide(op, a.name, a.p, ndims, large); err != nil {
			return fail(op, 0, err)
		}
	}
	m, err := mpir.TypeSubarray(op, arrs[0], arrs[1], arrs[2], ord, o, large)
	return newType(op, out, m, err)
}

//export PMPI_Type_create_subarray
func PMPI_Type_create_subarray(ndims int32, sizes, subsizes, starts unsafe.Pointer, order int32, old uintptr, out unsafe.Pointer) int32 {
	return subarray(int64(ndims), sizes, subsizes, starts, order, old, out, false)
}

//export PMPI_Type_create_subarray_c
func PMPI_Type_create_subarray_c(ndims int32, sizes, subsizes, starts unsafe.Pointer, order int32, old uintptr, out unsafe.Pointer) int32 {
	return subarray(int64(ndims), sizes, subsizes, starts, order, old, out, true)
}

// darrayArgs reads a darray's distributions and distribution arguments in the
// engine's terms.
func darrayArgs(op string, distribs, dargs unsafe.Pointer, n int64) ([]datatype.Distribution, []int64, error) {
	ds, err := cArray[int32](op, "array_of_distribs", distribs, n)
	if err != nil {
		return nil, nil, err
	}
	das, err := cWide(op, "array_of_dargs", dargs, n, false)
	if err != nil {
		return nil, nil, err
	}
	out := make([]datatype.Distribution, n)
	for i, d := range ds {
		switch d {
		case C.MPI_DISTRIBUTE_NONE:
			out[i] = datatype.DistributeNone
		case C.MPI_DISTRIBUTE_BLOCK:
			out[i] = datatype.DistributeBlock
		case C.MPI_DISTRIBUTE_CYCLIC:
			out[i] = datatype.DistributeCyclic
		default:
			return nil, nil, errorf(errArg, op, "array_of_distribs[%d] %d is not MPI_DISTRIBUTE_NONE, _BLOCK or _CYCLIC", i, d)
		}
		if das[i] == C.MPI_DISTRIBUTE_DFLT_DARG {
			das[i] = datatype.DefaultDarg
		}
	}
	return out, das, nil
}

func darray(size, rank, ndims int32, gsizes, distribs, dargs, psizes unsafe.Pointer, order int32, old uintptr, out unsafe.Pointer, large bool) int32 {
	op := "Type_create_darray"
	if large {
		op = "Type_create_darray_c"
	}
	o, r := objArg(op, "oldtype", old)
	if o == nil {
		return r
	}
	n := int64(ndims)
	ord, err := orderIn(op, order)
	if err == nil {
		err = cDims(op, n)
	}
	if err != nil {
		return fail(op, 0, err)
	}
	gs, err := cWide(op, "array_of_gsizes", gsizes, n, large)
	if err != nil {
		return fail(op, 0, err)
	}
	ds, das, err := darrayArgs(op, distribs, dargs, n)
	if err != nil {
		return fail(op, 0, err)
	}
	ps, err := cWide(op, "array_of_psizes", psizes, n, false)
	if err != nil {
		return fail(op, 0, err)
	}
	m, err := mpir.TypeDarray(op, int64(size), int64(rank), gs, ds, das, ps, ord, o, large)
	return newType(op, out, m, err)
}

//export PMPI_Type_create_darray
func PMPI_Type_create_darray(size, rank, ndims int32, gsizes, distribs, dargs, psizes unsafe.Pointer, order int32, old uintptr, out unsafe.Pointer) int32 {
	return darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, old, out, false)
}

//export PMPI_Type_create_darray_c
func PMPI_Type_create_darray_c(size, rank, ndims int32, gsizes, distribs, dargs, psizes unsafe.Pointer, order int32, old uintptr, out unsafe.Pointer) int32 {
	return darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, old, out, true)
}

//export PMPI_Type_dup
func PMPI_Type_dup(old uintptr, out unsafe.Pointer) int32 {
	const op = "Type_dup"
	o, r := objArg(op, "oldtype", old)
	if o == nil {
		return r
	}
	if out == nil {
		return fail(op, 0, errorf(errArg, op, "newtype is NULL"))
	}
	m, err := mpir.TypeDup(op, o)
	if err != nil {
		return fail(op, 0, err)
	}
	nh := addObj(m)
	if err := mpir.CopyAttrs(op, &o.Attrs, old, &m.Attrs, nh); err != nil {
		_ = m.Type().Free()
		removeType(nh)
		setHandle(out, hDatatypeNull)
		return fail(op, 0, err)
	}
	setHandle(out, nh)
	return 0
}
