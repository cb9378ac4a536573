package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
)

// dtype is a datatype: the engine's type, its MPI name, the types it was built
// from (for MPI_Type_get_contents) and its attributes.
type dtype struct {
	t     *datatype.Type
	name  string
	parts []*dtype
	attrs mpir.Attrs // attr.go
	// f90 is set on the types of MPI_Type_create_f90_*: predefined, so never
	// freed, and decoded as their combiner says.
	f90 *f90
}

var (
	types   = table[dtype]{kind: kType}
	predefT [0x100]*dtype // predefined datatypes by handle - 0x200
)

func def(h uintptr, t *datatype.Type, name string) {
	predefT[h-0x200] = &dtype{t: t, name: name}
}

func pairOf(t *datatype.Type) *datatype.Type {
	p, err := datatype.Contiguous(2, t)
	if err != nil {
		panic(err)
	}
	if err := p.Commit(); err != nil {
		panic(err)
	}
	return p
}

func init() {
	d := datatype.Int8
	_ = d
	def(0x201, datatype.Int64, "MPI_AINT")
	def(0x202, datatype.Int64, "MPI_COUNT")
	def(0x203, datatype.Int64, "MPI_OFFSET")
	def(0x207, datatype.Packed, "MPI_PACKED")
	def(0x208, datatype.Int16, "MPI_SHORT")
	def(0x209, datatype.Int32, "MPI_INT")
	def(0x20a, datatype.CLong, "MPI_LONG")
	def(0x20b, datatype.Int64, "MPI_LONG_LONG")
	def(0x20c, datatype.Uint16, "MPI_UNSIGNED_SHORT")
	def(0x20d, datatype.Uint32, "MPI_UNSIGNED")
	def(0x20e, datatype.CUlong, "MPI_UNSIGNED_LONG")
	def(0x20f, datatype.Uint64, "MPI_UNSIGNED_LONG_LONG")
	def(0x210, datatype.Float32, "MPI_FLOAT")
	def(0x212, datatype.Complex64, "MPI_C_FLOAT_COMPLEX")
	def(0x213, datatype.Complex64, "MPI_CXX_FLOAT_COMPLEX")
	def(0x214, datatype.Float64, "MPI_DOUBLE")
	def(0x216, datatype.Complex128, "MPI_C_DOUBLE_COMPLEX")
	def(0x217, datatype.Complex128, "MPI_CXX_DOUBLE_COMPLEX")
	def(0x218, datatype.Int32, "MPI_LOGICAL")
	def(0x219, datatype.Int32, "MPI_INTEGER")
	def(0x21a, datatype.Float32, "MPI_REAL")
	def(0x21b, datatype.Complex64, "MPI_COMPLEX")
	def(0x21c, datatype.Float64, "MPI_DOUBLE_PRECISION")
	def(0x21d, datatype.Complex128, "MPI_DOUBLE_COMPLEX")
	def(0x21e, datatype.Uint8, "MPI_CHARACTER")
	// long double is x87 extended precision in 16 bytes: it moves, it does not reduce.
	// Its types, long's and wchar_t's are the engine's C types, whose external32
	// form differs from the Go type of the same size.
	def(0x220, datatype.LongDouble, "MPI_LONG_DOUBLE")
	def(0x224, datatype.LongDoubleComplex, "MPI_C_LONG_DOUBLE_COMPLEX")
	def(0x225, datatype.LongDoubleComplex, "MPI_CXX_LONG_DOUBLE_COMPLEX")
	def(0x228, datatype.Float32Int32, "MPI_FLOAT_INT")
	def(0x229, datatype.Float64Int32, "MPI_DOUBLE_INT")
	def(0x22a, datatype.CLongInt, "MPI_LONG_INT")
	def(0x22b, datatype.Int32Int32, "MPI_2INT")
	def(0x22c, datatype.Int16Int32, "MPI_SHORT_INT")
	def(0x22d, datatype.LongDoubleInt, "MPI_LONG_DOUBLE_INT")
	def(0x230, pairOf(datatype.Float32), "MPI_2REAL")
	def(0x231, pairOf(datatype.Float64), "MPI_2DOUBLE_PRECISION")
	def(0x232, pairOf(datatype.Int32), "MPI_2INTEGER")
	def(0x238, datatype.Bool, "MPI_C_BOOL")
	def(0x239, datatype.Bool, "MPI_CXX_BOOL")
	def(0x23c, datatype.Wchar, "MPI_WCHAR")
	def(0x240, datatype.Int8, "MPI_INT8_T")
	def(0x241, datatype.Uint8, "MPI_UINT8_T")
	def(0x243, datatype.Int8, "MPI_CHAR")
	def(0x244, datatype.Int8, "MPI_SIGNED_CHAR")
	def(0x245, datatype.Uint8, "MPI_UNSIGNED_CHAR")
	def(0x247, datatype.Byte, "MPI_BYTE")
	def(0x248, datatype.Int16, "MPI_INT16_T")
	def(0x249, datatype.Uint16, "MPI_UINT16_T")
	def(0x250, datatype.Int32, "MPI_INT32_T")
	def(0x251, datatype.Uint32, "MPI_UINT32_T")
	def(0x258, datatype.Int64, "MPI_INT64_T")
	def(0x259, datatype.Uint64, "MPI_UINT64_T")
	def(0x2c0, datatype.Int8, "MPI_LOGICAL1")
	def(0x2c1, datatype.Int8, "MPI_INTEGER1")
	def(0x2c8, datatype.Int16, "MPI_LOGICAL2")
	def(0x2c9, datatype.Int16, "MPI_INTEGER2")
	def(0x2ca, datatype.Swapped("real2", 2, 2), "MPI_REAL2")
	def(0x2d0, datatype.Int32, "MPI_LOGICAL4")
	def(0x2d1, datatype.Int32, "MPI_INTEGER4")
	def(0x2d2, datatype.Float32, "MPI_REAL4")
	def(0x2d3, datatype.Swapped("complex4", 4, 2), "MPI_COMPLEX4")
	def(0x2d8, datatype.Int64, "MPI_LOGICAL8")
	def(0x2d9, datatype.Int64, "MPI_INTEGER8")
	def(0x2da, datatype.Float64, "MPI_REAL8")
	def(0x2db, datatype.Complex64, "MPI_COMPLEX8")
	def(0x2e0, datatype.Swapped("logical16", 16, 16), "MPI_LOGICAL16")
	def(0x2e1, datatype.Swapped("integer16", 16, 16), "MPI_INTEGER16")
	def(0x2e2, datatype.Swapped("real16", 16, 16), "MPI_REAL16")
	def(0x2e3, datatype.Complex128, "MPI_COMPLEX16")
	def(0x2eb, datatype.Swapped("complex32", 32, 16), "MPI_COMPLEX32")
	initPredefRed()
}

// dtOf is the datatype of handle h, nil when h is not one.
func dtOf(h uintptr) *dtype {
	switch {
	case h >= 0x200 && h < 0x300:
		return predefT[h-0x200]
	case kindOf(h) == kTypeC:
		return cType(h)
	}
	d := types.get(h)
	if d != nil && !d.t.IsCommitted() && committedInC(h) {
		_ = d.t.Commit() // MPI_Type_commit marked it in C (typeshort.c)
	}
	return d
}

// typeOf checks a datatype argument.
func typeOf(op string, h uintptr) (*datatype.Type, error) {
	d := dtOf(h)
	if d == nil {
		return nil, noType(op, h)
	}
	if !d.t.IsCommitted() {
		return nil, errorf(errType, op, "datatype %s is not committed (call MPI_Type_commit)", d.name)
	}
	return d.t, nil
}

// span is the C memory count items of t at p reach: the slice starts at the lowest
// byte touched (p + lo, which for MPI_BOTTOM is the lowest absolute address), and
// origin is where p falls in it.
func span(op string, p unsafe.Pointer, count int64, t *datatype.Type) (mem []byte, origin int64, err error) {
	lo, hi, err := t.Span(count)
	if err != nil {
		return nil, 0, core.TypeErr(op, err)
	}
	if hi <= lo {
		return nil, 0, nil
	}
	base := unsafe.Add(p, lo)
	if base == nil {
		return nil, 0, errorf(errBuffer, op, "buffer is NULL but %d items of the datatype span %d bytes", count, hi-lo)
	}
	return unsafe.Slice((*byte)(base), hi-lo), -lo, nil
}

// cbuf is the engine's buffer for count items of datatype dh at p.
func cbuf(op string, p unsafe.Pointer, count int64, dh uintptr) (core.Buf, error) {
	b, _, err := cbufIn(op, p, count, dh, false)
	return b, err
}

// lentBuf is cbuf for a blocking call: a packing layout comes from the pool, and the
// caller Returns it (nil when none was needed) once the call has succeeded.
func lentBuf(op string, p unsafe.Pointer, count int64, dh uintptr) (core.Buf, *datatype.Layout, error) {
	return cbufIn(op, p, count, dh, true)
}

func cbufIn(op string, p unsafe.Pointer, count int64, dh uintptr, lend bool) (core.Buf, *datatype.Layout, error) {
	if dh >= 0x200 && dh < 0x300 { // a predefined type: contiguous bytes
		if d := predefT[dh-0x200]; d != nil && d.t.IsContiguous() {
			if count < 0 {
				return core.Buf{}, nil, errorf(errCount, op, "count %d is negative", count)
			}
			n := count * d.t.Size()
			if n == 0 {
				return core.Bytes(nil), nil, nil
			}
			if p == nil {
				return core.Buf{}, nil, errorf(errBuffer, op, "buffer is NULL for %d items", count)
			}
			return core.Bytes(unsafe.Slice((*byte)(p), n)), nil, nil
		}
	}
	t, err := typeOf(op, dh)
	if err != nil {
		return core.Buf{}, nil, err
	}
	if count < 0 {
		return core.Buf{}, nil, errorf(errCount, op, "count %d is negative", count)
	}
	if t.Size() == 0 || count == 0 {
		return core.Bytes(nil), nil, nil
	}
	if off, n, ok := t.ContiguousSpan(count); ok {
		base := unsafe.Add(p, off)
		if base == nil {
			return core.Buf{}, nil, errorf(errBuffer, op, "buffer is NULL for %d items", count)
		}
		return core.Bytes(unsafe.Slice((*byte)(base), n)), nil, nil
	}
	mem, origin, err := span(op, p, count, t)
	if err != nil {
		return core.Buf{}, nil, err
	}
	var l *datatype.Layout
	if lend {
		l = datatype.LendLayout()
	} else {
		l = new(datatype.Layout)
	}
	if err := l.Init(t, mem, count, origin); err != nil {
		if lend {
			l.Return()
		}
		return core.Buf{}, nil, core.TypeErr(op, err)
	}
	if !lend {
		return core.Packed(l), nil, nil
	}
	return core.Packed(l), l, nil
}

// cvec is a collective's buffer: count items of dh at p, or MPI_IN_PLACE. A type
// whose items do not start at p (a negative lower bound, MPI_BOTTOM) is shifted so
// that they do, since the device lays typed buffers out from the start of their
// memory.
func cvec(op string, p unsafe.Pointer, count int64, dh uintptr) (core.Vec, error) {
	if uintptr(p) == inPlaceAddr {
		esz := 1
		if d := dtOf(dh); d != nil && d.t.Size() > 0 {
			esz = int(d.t.Size())
		}
		return core.InPlaceVec(esz), nil
	}
	t, err := typeOf(op, dh)
	if err != nil {
		return core.Vec{}, err
	}
	if count < 0 {
		return core.Vec{}, errorf(errCount, op, "count %d is negative", count)
	}
	esz := int(t.Size())
	if t.IsContiguous() && t.LB() == 0 && t.Extent() == t.Size() {
		if esz == 0 {
			return core.Vec{Esz: 1}, nil
		}
		n := count * int64(esz)
		if n == 0 {
			return core.Vec{Esz: esz}, nil
		}
		if p == nil {
			return core.Vec{}, errorf(errBuffer, op, "buffer is NULL for %d items", count)
		}
		return core.Vec{B: unsafe.Slice((*byte)(p), n), Esz: esz}, nil
	}
	// For typed vectors the count may be a per-rank count; the memory must span what
	// the largest use reaches, which the caller gives as count.
	mem, origin, err := span(op, p, count, t)
	if err != nil {
		return core.Vec{}, err
	}
	if origin != 0 {
		// Items at p + i*extent + d become items at base + i*extent + (d - lo).
		st, err := datatype.Hindexed([]int64{1}, []int64{origin}, t)
		if err == nil {
			err = st.Commit()
		}
		if err != nil {
			return core.Vec{}, core.TypeErr(op, err)
		}
		t = st
	}
	return core.TypedVec(mem, int(count), t), nil
}

// --- constructors and queries ---

// newType registers a type a constructor made from the types parts (their handles),
// which MPI_Type_get_contents gives back.
func newType(op string, t *datatype.Type, err error, out unsafe.Pointer, parts ...uintptr) int32 {
	if err != nil {
		return fail(op, 0, core.TypeErr(op, err))
	}
	if out == nil {
		return fail(op, 0, errorf(errArg, op, "newtype is NULL"))
	}
	d := &dtype{t: t}
	for _, h := range parts {
		d.parts = append(d.parts, dtOf(h))
	}
	setHandle(out, addType(d))
	return 0
}

func needType(op string, h uintptr) (*datatype.Type, int32) {
	d := dtOf(h)
	if d == nil {
		return nil, fail(op, 0, noType(op, h))
	}
	return d.t, 0
}

// noType is the error of a datatype argument h that names no datatype.
func noType(op string, h uintptr) error { return typeArgErr(op, "datatype", h) }

// typeArgErr is the error of the datatype argument arg, h, that names no datatype.
func typeArgErr(op, arg string, h uintptr) error {
	if fortranOff(h) {
		return errorf(errType, op, "%s %#x is an optional Fortran type MPI_Abi_set_fortran_info said is not supported", arg, h)
	}
	return badHandle(op, arg, h, kType)
}

//export goPMPI_Type_contiguous
func goPMPI_Type_contiguous(count int32, old uintptr, out unsafe.Pointer) int32 {
	goHalves.Add(1)
	return PMPI_Type_contiguous_c(int64(count), old, out)
}

//export PMPI_Type_contiguous_c
func PMPI_Type_contiguous_c(count int64, old uintptr, out unsafe.Pointer) int32 {
	t, r := needType("Type_contiguous", old)
	if t == nil {
		return r
	}
	nt, err := datatype.Contiguous(count, t)
	return newType("Type_contiguous", nt, err, out, old)
}

//export goPMPI_Type_vector
func goPMPI_Type_vector(count, bl, stride int32, old uintptr, out unsafe.Pointer) int32 {
	goHalves.Add(1)
	return PMPI_Type_vector_c(int64(count), int64(bl), int64(stride), old, out)
}

//export PMPI_Type_vector_c
func PMPI_Type_vector_c(count, bl, stride int64, old uintptr, out unsafe.Pointer) int32 {
	t, r := needType("Type_vector", old)
	if t == nil {
		return r
	}
	nt, err := datatype.Vector(count, bl, stride, t)
	return newType("Type_vector", nt, err, out, old)
}

//export goPMPI_Type_create_hvector
func goPMPI_Type_create_hvector(count, bl int32, stride int64, old uintptr, out unsafe.Pointer) int32 {
	goHalves.Add(1)
	return PMPI_Type_create_hvector_c(int64(count), int64(bl), stride, old, out)
}

//export PMPI_Type_create_hvector_c
func PMPI_Type_create_hvector_c(count, bl, stride int64, old uintptr, out unsafe.Pointer) int32 {
	t, r := needType("Type_create_hvector", old)
	if t == nil {
		return r
	}
	nt, err := datatype.Hvector(count, bl, stride, t)
	return newType("Type_create_hvector", nt, err, out, old)
}

// i64s reads n C ints (big: MPI_Count or MPI_Aint) as a new []int64.
func i64s(p unsafe.Pointer, n int64, big bool) []int64 {
	if big {
		return append([]int64(nil), int64s(p, int(n))...)
	}
	return toInts64(ints(p, int(n)))
}

// indexed reads the caller's arrays in place (the engine copies what it keeps):
// int lengths and displacements, or MPI_Aint displacements (bytes), or MPI_Count
// and MPI_Aint arrays (big).
func indexed(op string, count int64, bls, displs unsafe.Pointer, old uintptr, out unsafe.Pointer, big, bytes bool) int32 {
	t, r := needType(op, old)
	if t == nil {
		return r
	}
	if count < 0 {
		return fail(op, 0, errorf(errCount, op, "count %d is negative", count))
	}
	n := int(count)
	var nt *datatype.Type
	var err error
	switch {
	case big && bytes:
		nt, err = datatype.Hindexed(int64s(bls, n), int64s(displs, n), t)
	case big:
		nt, err = datatype.Indexed(int64s(bls, n), int64s(displs, n), t)
	case bytes:
		nt, err = datatype.HindexedOf(ints(bls, n), int64s(displs, n), t)
	default:
		nt, err = datatype.IndexedOf(ints(bls, n), ints(displs, n), t)
	}
	return newType(op, nt, err, out, old)
}

//export PMPI_Type_indexed
func PMPI_Type_indexed(count int32, bls, displs unsafe.Pointer, old uintptr, out unsafe.Pointer) int32 {
	return indexed("Type_indexed", int64(count), bls, displs, old, out, false, false)
}

//export PMPI_Type_indexed_c
func PMPI_Type_indexed_c(count int64, bls, displs unsafe.Pointer, old uintptr, out unsafe.Pointer) int32 {
	return indexed("Type_indexed", count, bls, displs, old, out, true, false)
}

//export PMPI_Type_create_hindexed
func PMPI_Type_create_hindexed(count int32, bls, displs unsafe.Pointer, old uintptr, out unsafe.Pointer) int32 {
	return indexed("Type_create_hindexed", int64(count), bls, displs, old, out, false, true)
}

//export PMPI_Type_create_hindexed_c
func PMPI_Type_create_hindexed_c(count int64, bls, displs unsafe.Pointer, old uintptr, out unsafe.Pointer) int32 {
	return indexed("Type_create_hindexed", count, bls, displs, old, out, true, true)
}

func indexedBlock(op string, count, bl int64, displs unsafe.Pointer, old uintptr, out unsafe.Pointer, big, bytes bool) int32 {
	t, r := needType(op, old)
	if t == nil {
		return r
	}
	if count < 0 {
		return fail(op, 0, errorf(errCount, op, "count %d is negative", count))
	}
	n := int(count)
	var nt *datatype.Type
	var err error
	switch {
	case bytes:
		nt, err = datatype.HindexedBlock(bl, int64s(displs, n), t)
	case big:
		nt, err = datatype.IndexedBlock(bl, int64s(displs, n), t)
	default:
		nt, err = datatype.IndexedBlockOf(bl, ints(displs, n), t)
	}
	return newType(op, nt, err, out, old)
}

//export PMPI_Type_create_indexed_block
func PMPI_Type_create_indexed_block(count, bl int32, displs unsafe.Pointer, old uintptr, out unsafe.Pointer) int32 {
	return indexedBlock("Type_create_indexed_block", int64(count), int64(bl), displs, old, out, false, false)
}

//export PMPI_Type_create_indexed_block_c
func PMPI_Type_create_indexed_block_c(count, bl int64, displs unsafe.Pointer, old uintptr, out unsafe.Pointer) int32 {
	return indexedBlock("Type_create_indexed_block", count, bl, displs, old, out, true, false)
}

//export PMPI_Type_create_hindexed_block
func PMPI_Type_create_hindexed_block(count, bl int32, displs unsafe.Pointer, old uintptr, out unsafe.Pointer) int32 {
	return indexedBlock("Type_create_hindexed_block", int64(count), int64(bl), displs, old, out, false, true)
}

//export PMPI_Type_create_hindexed_block_c
func PMPI_Type_create_hindexed_block_c(count, bl int64, displs unsafe.Pointer, old uintptr, out unsafe.Pointer) int32 {
	return indexedBlock("Type_create_hindexed_block", count, bl, displs, old, out, true, true)
}

func structType(count int64, bls, displs, ts unsafe.Pointer, out unsafe.Pointer, big bool) int32 {
	const op = "Type_create_struct"
	if count < 0 {
		return fail(op, 0, errorf(errCount, op, "count %d is negative", count))
	}
	hs := handles(ts, int(count))
	if hs == nil && count > 0 {
		return fail(op, 0, errorf(errArg, op, "array_of_types is NULL"))
	}
	tt := make([]*datatype.Type, len(hs))
	for i, h := range hs {
		d := dtOf(h)
		if d == nil {
			return fail(op, 0, typeArgErr(op, fmt.Sprintf("array_of_types[%d]", i), h))
		}
		tt[i] = d.t
	}
	nt, err := datatype.Struct(i64s(bls, count, big), i64s(displs, count, true), tt)
	return newType(op, nt, err, out, hs...)
}

//export PMPI_Type_create_struct
func PMPI_Type_create_struct(count int32, bls, displs, ts unsafe.Pointer, out unsafe.Pointer) int32 {
	return structType(int64(count), bls, displs, ts, out, false)
}

//export PMPI_Type_create_struct_c
func PMPI_Type_create_struct_c(count int64, bls, displs, ts unsafe.Pointer, out unsafe.Pointer) int32 {
	return structType(count, bls, displs, ts, out, true)
}

//export PMPI_Type_create_resized
func PMPI_Type_create_resized(old uintptr, lb, extent int64, out unsafe.Pointer) int32 {
	t, r := needType("Type_create_resized", old)
	if t == nil {
		return r
	}
	nt, err := datatype.Resized(t, lb, extent)
	return newType("Type_create_resized", nt, err, out, old)
}

//export PMPI_Type_create_resized_c
func PMPI_Type_create_resized_c(old uintptr, lb, extent int64, out unsafe.Pointer) int32 {
	return PMPI_Type_create_resized(old, lb, extent, out)
}

func orderIn(op string, order int32) (datatype.Order, error) {
	switch order {
	case C.MPI_ORDER_C:
		return datatype.OrderC, nil
	case C.MPI_ORDER_FORTRAN:
		return datatype.OrderFortran, nil
	}
	return 0, errorf(errArg, op, "order %d is not MPI_ORDER_C or MPI_ORDER_FORTRAN", order)
}

func subarray(ndims int64, sizes, subsizes, starts unsafe.Pointer, order int32, old uintptr, out unsafe.Pointer, big bool) int32 {
	const op = "Type_create_subarray"
	t, r := needType(op, old)
	if t == nil {
		return r
	}
	o, err := orderIn(op, order)
	if err != nil {
		return fail(op, 0, err)
	}
	if ndims < 0 {
		return fail(op, 0, errorf(errArg, op, "ndims %d is negative", ndims))
	}
	nt, err := datatype.Subarray(i64s(sizes, ndims, big), i64s(subsizes, ndims, big), i64s(starts, ndims, big), o, t)
	return newType(op, nt, err, out, old)
}

//export PMPI_Type_create_subarray
func PMPI_Type_create_subarray(ndims int32, sizes, subsizes, starts unsafe.Pointer, order int32, old uintptr, out unsafe.Pointer) int32 {
	return subarray(int64(ndims), sizes, subsizes, starts, order, old, out, false)
}

//export PMPI_Type_create_subarray_c
func PMPI_Type_create_subarray_c(ndims int32, sizes, subsizes, starts unsafe.Pointer, order int32, old uintptr, out unsafe.Pointer) int32 {
	return subarray(int64(ndims), sizes, subsizes, starts, order, old, out, true)
}

//export PMPI_Type_dup
func PMPI_Type_dup(old uintptr, out unsafe.Pointer) int32 {
	t, r := needType("Type_dup", old)
	if t == nil {
		return r
	}
	nt, err := datatype.Dup(t)
	if r := newType("Type_dup", nt, err, out, old); r != 0 {
		return r
	}
	nh := *(*uintptr)(out)
	if err := mpir.CopyAttrs("Type_dup", &dtOf(old).attrs, old, &dtOf(nh).attrs, nh); err != nil {
		_ = nt.Free()
		removeType(nh)
		setHandle(out, hDatatypeNull)
		return fail("Type_dup", 0, err)
	}
	return 0
}

//export goPMPI_Type_commit
func goPMPI_Type_commit(p unsafe.Pointer) int32 {
	goHalves.Add(1)
	if p == nil {
		return fail("Type_commit", 0, errorf(errArg, "Type_commit", "datatype is NULL"))
	}
	t, r := needType("Type_commit", *(*uintptr)(p))
	if t == nil {
		return r
	}
	if err := t.Commit(); err != nil {
		return fail("Type_commit", 0, core.TypeErr("Type_commit", err))
	}
	return 0
}

//export goPMPI_Type_free
func goPMPI_Type_free(p unsafe.Pointer) int32 {
	goHalves.Add(1)
	const op = "Type_free"
	if p == nil {
		return fail(op, 0, errorf(errArg, op, "datatype is NULL"))
	}
	h := *(*uintptr)(p)
	d := dtOf(h)
	if d == nil {
		return fail(op, 0, noType(op, h))
	}
	if h < handleBase {
		return fail(op, 0, errorf(errType, op, "a predefined datatype cannot be freed"))
	}
	if d.f90 != nil {
		return fail(op, 0, errorf(errType, op, "the types MPI_Type_create_f90_* return are predefined and cannot be freed"))
	}
	if err := mpir.FreeAttrs(op, &d.attrs, h); err != nil {
		return fail(op, 0, err) // the datatype stays, with the attributes not deleted
	}
	if err := d.t.Free(); err != nil {
		return fail(op, 0, core.TypeErr(op, err))
	}
	removeType(h)
	setHandle(p, hDatatypeNull)
	return 0
}

//export PMPI_Type_size
func PMPI_Type_size(h uintptr, size unsafe.Pointer) int32 {
	if fortranOff(h) { // what an unsupported optional type says (MPI 5.0 §21.4)
		setInt(size, undefined)
		return 0
	}
	t, r := needType("Type_size", h)
	if t == nil {
		return r
	}
	setIntOrUndefined(size, t.Size())
	return 0
}

//export PMPI_Type_size_c
func PMPI_Type_size_c(h uintptr, size unsafe.Pointer) int32 {
	if fortranOff(h) {
		*(*int64)(size) = undefined
		return 0
	}
	t, r := needType("Type_size", h)
	if t == nil {
		return r
	}
	*(*int64)(size) = t.Size()
	return 0
}

//export PMPI_Type_size_x
func PMPI_Type_size_x(h uintptr, size unsafe.Pointer) int32 { return PMPI_Type_size_c(h, size) }

//export PMPI_Type_get_extent
func PMPI_Type_get_extent(h uintptr, lb, extent unsafe.Pointer) int32 {
	t, r := needType("Type_get_extent", h)
	if t == nil {
		return r
	}
	*(*int64)(lb), *(*int64)(extent) = t.LB(), t.Extent()
	return 0
}

//export PMPI_Type_get_extent_c
func PMPI_Type_get_extent_c(h uintptr, lb, extent unsafe.Pointer) int32 {
	return PMPI_Type_get_extent(h, lb, extent)
}

//export PMPI_Type_get_extent_x
func PMPI_Type_get_extent_x(h uintptr, lb, extent unsafe.Pointer) int32 {
	return PMPI_Type_get_extent(h, lb, extent)
}

//export PMPI_Type_get_true_extent
func PMPI_Type_get_true_extent(h uintptr, lb, extent unsafe.Pointer) int32 {
	t, r := needType("Type_get_true_extent", h)
	if t == nil {
		return r
	}
	*(*int64)(lb), *(*int64)(extent) = t.TrueLB(), t.TrueExtent()
	return 0
}

//export PMPI_Type_get_true_extent_c
func PMPI_Type_get_true_extent_c(h uintptr, lb, extent unsafe.Pointer) int32 {
	return PMPI_Type_get_true_extent(h, lb, extent)
}

//export PMPI_Type_get_true_extent_x
func PMPI_Type_get_true_extent_x(h uintptr, lb, extent unsafe.Pointer) int32 {
	return PMPI_Type_get_true_extent(h, lb, extent)
}

//export PMPI_Type_set_name
func PMPI_Type_set_name(h uintptr, name unsafe.Pointer) int32 {
	d := dtOf(h)
	if d == nil {
		return fail("Type_set_name", 0, noType("Type_set_name", h))
	}
	d.name = cstr(name)
	return 0
}

//export PMPI_Type_get_name
func PMPI_Type_get_name(h uintptr, name, n unsafe.Pointer) int32 {
	d := dtOf(h)
	if d == nil {
		return fail("Type_get_name", 0, noType("Type_get_name", h))
	}
	putCString(name, C.MPI_MAX_OBJECT_NAME, d.name, n)
	return 0
}

//export PMPI_Get_address
func PMPI_Get_address(p unsafe.Pointer, addr unsafe.Pointer) int32 {
	*(*int64)(addr) = int64(uintptr(p))
	return 0
}

// status fields mpigo keeps in MPI_Status's five private ints.
type cstatus struct {
	source, tag, err int32
	countLo, countHi int32
	cancelled        int32
	_                [2]int32
}

func getCount(op string, st unsafe.Pointer, dh uintptr) (int64, int64, error) {
	if st == nil {
		return 0, 0, errorf(errArg, op, "status is NULL")
	}
	t, err := typeOf(op, dh)
	if err != nil {
		return 0, 0, err
	}
	s := (*cstatus)(st)
	n := int64(uint32(s.countLo)) | int64(s.countHi)<<32
	return n, t.Size(), nil
}

//export PMPI_Get_count
func PMPI_Get_count(st unsafe.Pointer, dh uintptr, count unsafe.Pointer) int32 {
	var c int64
	r := PMPI_Get_count_c(st, dh, unsafe.Pointer(&c))
	if r == 0 {
		setIntOrUndefined(count, c)
	}
	return r
}

//export PMPI_Get_count_c
func PMPI_Get_count_c(st unsafe.Pointer, dh uintptr, count unsafe.Pointer) int32 {
	n, size, err := getCount("Get_count", st, dh)
	if err != nil {
		return fail("Get_count", 0, err)
	}
	switch {
	case size == 0:
		*(*int64)(count) = 0
	case n%size != 0:
		*(*int64)(count) = C.MPI_UNDEFINED
	default:
		*(*int64)(count) = n / size
	}
	return 0
}

//export PMPI_Get_elements
func PMPI_Get_elements(st unsafe.Pointer, dh uintptr, count unsafe.Pointer) int32 {
	var c int64
	r := PMPI_Get_elements_c(st, dh, unsafe.Pointer(&c))
	if r == 0 {
		setIntOrUndefined(count, c)
	}
	return r
}

//export PMPI_Get_elements_c
func PMPI_Get_elements_c(st unsafe.Pointer, dh uintptr, count unsafe.Pointer) int32 {
	n, _, err := getCount("Get_elements", st, dh)
	if err != nil {
		return fail("Get_elements", 0, err)
	}
	t, _ := typeOf("Get_elements", dh)
	e, ok := t.ElementsIn(n)
	if !ok {
		e = C.MPI_UNDEFINED
	}
	*(*int64)(count) = e
	return 0
}

//export PMPI_Get_elements_x
func PMPI_Get_elements_x(st unsafe.Pointer, dh uintptr, count unsafe.Pointer) int32 {
	return PMPI_Get_elements_c(st, dh, count)
}

// --- packing ---

//export PMPI_Pack_size
func PMPI_Pack_size(count int32, dh uintptr, ch uintptr, size unsafe.Pointer) int32 {
	var n int64
	r := PMPI_Pack_size_c(int64(count), dh, ch, unsafe.Pointer(&n))
	if r == 0 && n > math.MaxInt32 {
		// Only the _c form can hold it (MPI 4.1 §19.3.4 and its errata: the class
		// for an output an int cannot hold).
		return fail("Pack_size", ch, errorf(errValueTooLarge, "Pack_size", "the packed size %d does not fit in an int: use MPI_Pack_size_c", n))
	}
	if r == 0 {
		setInt(size, int(n))
	}
	return r
}

//export PMPI_Pack_size_c
func PMPI_Pack_size_c(count int64, dh uintptr, ch uintptr, size unsafe.Pointer) int32 {
	t, err := typeOf("Pack_size", dh)
	if err != nil {
		return fail("Pack_size", ch, err)
	}
	n, err := t.PackSize(count)
	if err != nil {
		return fail("Pack_size", ch, core.TypeErr("Pack_size", err))
	}
	*(*int64)(size) = n
	return 0
}

//export PMPI_Pack
func PMPI_Pack(in unsafe.Pointer, count int32, dh uintptr, out unsafe.Pointer, outsize int32, pos unsafe.Pointer, ch uintptr) int32 {
	p := int64(*(*int32)(pos))
	r := PMPI_Pack_c(in, int64(count), dh, out, int64(outsize), unsafe.Pointer(&p), ch)
	if r == 0 {
		*(*int32)(pos) = int32(p)
	}
	return r
}

//export PMPI_Pack_c
func PMPI_Pack_c(in unsafe.Pointer, count int64, dh uintptr, out unsafe.Pointer, outsize int64, pos unsafe.Pointer, ch uintptr) int32 {
	const op = "Pack"
	t, err := typeOf(op, dh)
	if err != nil {
		return fail(op, ch, err)
	}
	p := *(*int64)(pos)
	need, err := t.PackSize(count)
	if err != nil {
		return fail(op, ch, core.TypeErr(op, err))
	}
	if p < 0 || p+need > outsize {
		return fail(op, ch, errorf(errTruncate, op, "packing %d bytes at position %d overflows outsize %d", need, p, outsize))
	}
	if need == 0 {
		return 0
	}
	mem, origin, err := span(op, in, count, t)
	if err != nil {
		return fail(op, ch, err)
	}
	dst := unsafe.Slice((*byte)(unsafe.Add(out, p)), need)
	n, err := t.PackAt(dst, mem, origin, count)
	if err != nil {
		return fail(op, ch, core.TypeErr(op, err))
	}
	*(*int64)(pos) = p + n
	return 0
}

//export PMPI_Unpack
func PMPI_Unpack(in unsafe.Pointer, insize int32, pos unsafe.Pointer, out unsafe.Pointer, count int32, dh uintptr, ch uintptr) int32 {
	p := int64(*(*int32)(pos))
	r := PMPI_Unpack_c(in, int64(insize), unsafe.Pointer(&p), out, int64(count), dh, ch)
	if r == 0 {
		*(*int32)(pos) = int32(p)
	}
	return r
}

//export PMPI_Unpack_c
func PMPI_Unpack_c(in unsafe.Pointer, insize int64, pos unsafe.Pointer, out unsafe.Pointer, count int64, dh uintptr, ch uintptr) int32 {
	const op = "Unpack"
	t, err := typeOf(op, dh)
	if err != nil {
		return fail(op, ch, err)
	}
	p := *(*int64)(pos)
	need, err := t.PackSize(count)
	if err != nil {
		return fail(op, ch, core.TypeErr(op, err))
	}
	if p < 0 || p+need > insize {
		return fail(op, ch, errorf(errTruncate, op, "unpacking %d bytes at position %d overruns insize %d", need, p, insize))
	}
	if need == 0 {
		return 0
	}
	mem, origin, err := span(op, out, count, t)
	if err != nil {
		return fail(op, ch, err)
	}
	src := unsafe.Slice((*byte)(unsafe.Add(in, p)), need)
	n, err := t.UnpackAt(mem, origin, src, count)
	if err != nil {
		return fail(op, ch, core.TypeErr(op, err))
	}
	*(*int64)(pos) = p + n
	return 0
}

func darray(size, rank, ndims int32, gsizes, distribs, dargs, psizes unsafe.Pointer, order int32, old uintptr, out unsafe.Pointer, big bool) int32 {
	const op = "Type_create_darray"
	t, r := needType(op, old)
	if t == nil {
		return r
	}
	o, err := orderIn(op, order)
	if err != nil {
		return fail(op, 0, err)
	}
	if ndims < 0 {
		return fail(op, 0, errorf(errArg, op, "ndims %d is negative", ndims))
	}
	n := int(ndims)
	ds := make([]datatype.Distribution, n)
	for i, d := range ints(distribs, n) {
		switch d {
		case C.MPI_DISTRIBUTE_NONE:
			ds[i] = datatype.DistributeNone
		case C.MPI_DISTRIBUTE_BLOCK:
			ds[i] = datatype.DistributeBlock
		case C.MPI_DISTRIBUTE_CYCLIC:
			ds[i] = datatype.DistributeCyclic
		default:
			return fail(op, 0, errorf(errArg, op, "array_of_distribs[%d] %d is not MPI_DISTRIBUTE_NONE, _BLOCK or _CYCLIC", i, d))
		}
	}
	da := toInts64(ints(dargs, n))
	for i := range da {
		if da[i] == C.MPI_DISTRIBUTE_DFLT_DARG {
			da[i] = datatype.DefaultDarg
		}
	}
	nt, err := datatype.Darray(int64(size), int64(rank), i64s(gsizes, int64(n), big), ds, da, toInts64(ints(psizes, n)), o, t)
	return newType(op, nt, err, out, old)
}

//export PMPI_Type_create_darray
func PMPI_Type_create_darray(size, rank, ndims int32, gsizes, distribs, dargs, psizes unsafe.Pointer, order int32, old uintptr, out unsafe.Pointer) int32 {
	return darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, old, out, false)
}

//export PMPI_Type_create_darray_c
func PMPI_Type_create_darray_c(size, rank, ndims int32, gsizes, distribs, dargs, psizes unsafe.Pointer, order int32, old uintptr, out unsafe.Pointer) int32 {
	return darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, old, out, true)
}

//export PMPI_Type_match_size
func PMPI_Type_match_size(class, size int32, out unsafe.Pointer) int32 {
	const op = "Type_match_size"
	m := map[int32]map[int32]uintptr{
		C.MPI_TYPECLASS_INTEGER: {1: 0x2c1, 2: 0x2c9, 4: 0x2d1, 8: 0x2d9, 16: 0x2e1}, // MPI_INTEGERn
		C.MPI_TYPECLASS_REAL:    {2: 0x2ca, 4: 0x2d2, 8: 0x2da, 16: 0x2e2},           // MPI_REALn
		C.MPI_TYPECLASS_COMPLEX: {4: 0x2d3, 8: 0x2db, 16: 0x2e3, 32: 0x2eb},          // MPI_COMPLEXn
		// MPIX_TYPECLASS_LOGICAL of the MPI Forum's reference header and MPICH: not the
		// standard's, so not in mpi.h, but a program built against them may pass it.
		191: {1: 0x2c0, 2: 0x2c8, 4: 0x2d0, 8: 0x2d8, 16: 0x2e0},
	}
	bySize, ok := m[class]
	if !ok {
		return fail(op, 0, errorf(errArg, op, "typeclass %d is not MPI_TYPECLASS_INTEGER, _REAL or _COMPLEX", class))
	}
	h, ok := bySize[size]
	if !ok || fortranOff(h) {
		return fail(op, 0, errorf(errArg, op, "no type of typeclass %d has size %d", class, size))
	}
	setHandle(out, h)
	return 0
}

func needDtype(op string, h uintptr) (*dtype, int32) {
	d := dtOf(h)
	if d == nil {
		return nil, fail(op, 0, noType(op, h))
	}
	return d, 0
}

//export PMPI_Type_get_value_index
func PMPI_Type_get_value_index(value, index uintptr, out unsafe.Pointer) int32 {
	const op = "Type_get_value_index"
	if dtOf(value) == nil {
		return fail(op, 0, typeArgErr(op, "value_type", value))
	}
	if dtOf(index) == nil {
		return fail(op, 0, typeArgErr(op, "index_type", index))
	}
	if out == nil {
		return fail(op, 0, errorf(errArg, op, "pair_type is NULL"))
	}
	// The predefined pair types of MPI_MAXLOC and MPI_MINLOC; MPI_DATATYPE_NULL where
	// there is none, as the standard says.
	pair := map[uintptr]uintptr{0x210: 0x228, 0x214: 0x229, 0x20a: 0x22a, 0x209: 0x22b, 0x208: 0x22c, 0x220: 0x22d}
	h, ok := pair[value]
	if index != 0x209 || !ok {
		h = hDatatypeNull
	}
	setHandle(out, h)
	return 0
}
