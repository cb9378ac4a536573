package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
)

// dtype is a datatype handle's object: mpir's, which holds its layout, name,
// attributes and what made it, with the layout kept here too for the calls that read
// it on every message.
type dtype struct {
	t *datatype.Type // m.Type()
	m *mpir.Datatype
}

var (
	types        = table[dtype]{kind: kType}
	predefT      [0x100]*dtype // predefined datatypes by handle - 0x200
	predefByName = map[string]uintptr{}
)

func def(h uintptr, t *datatype.Type, name string) {
	predefT[h-0x200] = predefDtype(h, name, t)
	predefByName[name] = h
}

// synonym makes name, which mpi.h defines as the handle of primary, find that handle
// too. The handle's own name (MPI_Type_get_name) stays primary's, the standard's name
// for the type (MPI 4.1 Table 3.2 lists the other "as a synonym").
func synonym(name, primary string) { predefByName[name] = predefByName[primary] }

// predefDtype is the object of the predefined datatype h, named name, laid out as t.
func predefDtype(h uintptr, name string, t *datatype.Type) *dtype {
	m := mpir.NewPredefined(name, t)
	m.Handle = h
	return &dtype{t: t, m: m}
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
	def(0x201, datatype.Int64, "MPI_AINT")
	def(0x202, datatype.Int64, "MPI_COUNT")
	def(0x203, datatype.Int64, "MPI_OFFSET")
	def(0x207, datatype.Packed, "MPI_PACKED")
	def(0x208, datatype.Int16, "MPI_SHORT")
	def(0x209, datatype.Int32, "MPI_INT")
	def(0x20a, datatype.CLong, "MPI_LONG")
	def(0x20b, datatype.Int64, "MPI_LONG_LONG_INT")
	def(0x20c, datatype.Uint16, "MPI_UNSIGNED_SHORT")
	def(0x20d, datatype.Uint32, "MPI_UNSIGNED")
	def(0x20e, datatype.CUlong, "MPI_UNSIGNED_LONG")
	def(0x20f, datatype.Uint64, "MPI_UNSIGNED_LONG_LONG")
	def(0x210, datatype.Float32, "MPI_FLOAT")
	def(0x212, datatype.Complex64, "MPI_C_COMPLEX")
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
	synonym("MPI_LONG_LONG", "MPI_LONG_LONG_INT")
	synonym("MPI_C_FLOAT_COMPLEX", "MPI_C_COMPLEX")
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
		return nil, mpir.NotCommitted(op, "datatype", d.m.Name())
	}
	return d.t, nil
}

// typeFor checks the datatype argument of count items: MPI_DATATYPE_NULL is taken
// where count is 0 (mpir.NullFor).
func typeFor(op string, h uintptr, count int64) (*datatype.Type, error) {
	return argTypeFor(op, "datatype", h, count)
}

// argTypeFor is typeFor of the datatype argument arg.
func argTypeFor(op, arg string, h uintptr, count int64) (*datatype.Type, error) {
	if h == hDatatypeNull {
		return mpir.NullFor(op, arg, count)
	}
	return typeOf(op, h)
}

// maxSpan bounds the C memory a buffer may span (2^47 bytes, as much as x86-64 user
// space holds): a larger count is an error, not a slice the runtime refuses.
const maxSpan = 1 << 47

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
	if hi-lo > maxSpan {
		return nil, 0, errorf(errCount, op, "%d items of the datatype span %d bytes, more than memory holds", count, hi-lo)
	}
	if uintptr(p)+uintptr(lo) == 0 { // as a number: see cmem
		return nil, 0, errorf(errBuffer, op, "buffer is NULL but %d items of the datatype span %d bytes", count, hi-lo)
	}
	return unsafe.Slice((*byte)(unsafe.Add(p, lo)), hi-lo), -lo, nil
}

// cmem is the C memory from p+lo to p+hi (hi > lo) that the blocks of buffer argument
// what span: an error naming it, not a panic, for a NULL address or a span larger
// than memory.
func cmem(op, what string, p unsafe.Pointer, lo, hi int64) ([]byte, error) {
	if hi-lo > maxSpan {
		return nil, errorf(errCount, op, "the blocks of %s span %d bytes, more than memory holds", what, hi-lo)
	}
	// The address is checked as a number: the compiler takes unsafe.Add's result for
	// a pointer that is not nil, and dropped a check of it (a NULL buffer panicked in
	// unsafe.Slice).
	if uintptr(p)+uintptr(lo) == 0 {
		return nil, errorf(errBuffer, op, "%s is NULL but its blocks span %d bytes", what, hi-lo)
	}
	return unsafe.Slice((*byte)(unsafe.Add(p, lo)), hi-lo), nil
}

// cbuf is the engine's buffer for count items of datatype dh at p.
func cbuf(op string, p unsafe.Pointer, count int64, dh uintptr) (core.Buf, error) {
	if b, ok := bytesOf(p, count, dh); ok {
		return b, nil
	}
	b, _, err := cbufIn(op, p, count, dh, false)
	return b, err
}

// lentBuf is cbuf for a blocking call: a packing layout comes from the pool, and the
// caller Returns it (nil when none was needed) once the call has succeeded.
func lentBuf(op string, p unsafe.Pointer, count int64, dh uintptr) (core.Buf, *datatype.Layout, error) {
	if b, ok := bytesOf(p, count, dh); ok {
		return b, nil, nil
	}
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
	t, err := typeFor(op, dh, count)
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
		if uintptr(p)+uintptr(off) == 0 { // as a number: see span
			return core.Buf{}, nil, errorf(errBuffer, op, "buffer is NULL for %d items", count)
		}
		return core.Bytes(unsafe.Slice((*byte)(unsafe.Add(p, off)), n)), nil, nil
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
func cvec(op string, p unsafe.Pointer, count int64, dh uintptr) (collective.Vec, error) {
	if uintptr(p) == inPlaceAddr {
		esz := 1
		if d := dtOf(dh); d != nil && d.t.Size() > 0 {
			esz = int(d.t.Size())
		}
		return collective.InPlaceVec(esz), nil
	}
	t, err := typeFor(op, dh, count)
	if err != nil {
		return collective.Vec{}, err
	}
	if count < 0 {
		return collective.Vec{}, errorf(errCount, op, "count %d is negative", count)
	}
	esz := int(t.Size())
	if t.IsDense() {
		if esz == 0 {
			return collective.Vec{Esz: 1}, nil
		}
		if count > maxSpan/int64(esz) {
			return collective.Vec{}, errorf(errCount, op, "count %d of %d-byte items is more than memory holds", count, esz)
		}
		n := count * int64(esz)
		if n == 0 {
			return collective.Vec{Esz: esz}, nil
		}
		if p == nil {
			return collective.Vec{}, errorf(errBuffer, op, "buffer is NULL for %d items", count)
		}
		return collective.Vec{B: unsafe.Slice((*byte)(p), n), Esz: esz}, nil
	}
	// For typed vectors the count may be a per-rank count; the memory must span what
	// the largest use reaches, which the caller gives as count.
	mem, origin, err := span(op, p, count, t)
	if err != nil {
		return collective.Vec{}, err
	}
	if origin != 0 {
		// Items at p + i*extent + d become items at base + i*extent + (d - lo).
		st, err := datatype.Hindexed([]int64{1}, []int64{origin}, t)
		if err == nil {
			err = st.Commit()
		}
		if err != nil {
			return collective.Vec{}, core.TypeErr(op, err)
		}
		t = st
	}
	return collective.TypedVec(mem, int(count), t), nil
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

//export goPMPI_Type_commit
func goPMPI_Type_commit(p unsafe.Pointer) int32 {
	goHalves.Add(1)
	const op = "Type_commit"
	if p == nil {
		return fail(op, 0, errorf(errArg, op, "datatype is NULL"))
	}
	m, r := needObj(op, *(*uintptr)(p))
	if m == nil {
		return r
	}
	return fail(op, 0, mpir.TypeCommit(op, m))
}

//export goPMPI_Type_free
func goPMPI_Type_free(p unsafe.Pointer) int32 {
	goHalves.Add(1)
	const op = "Type_free"
	if p == nil {
		return fail(op, 0, errorf(errArg, op, "datatype is NULL"))
	}
	h := *(*uintptr)(p)
	m, r := needObj(op, h)
	if m == nil {
		return r
	}
	if err := mpir.TypeFree(op, m, h); err != nil {
		return fail(op, 0, err)
	}
	removeType(h)
	setHandle(p, hDatatypeNull)
	return 0
}

//export goPMPI_Type_size
func goPMPI_Type_size(h uintptr, size unsafe.Pointer) int32 {
	goHalves.Add(1)
	if size == nil {
		return fail("Type_size", 0, errorf(errArg, "Type_size", "size is NULL"))
	}
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

//export goPMPI_Type_size_c
func goPMPI_Type_size_c(h uintptr, size unsafe.Pointer) int32 {
	goHalves.Add(1)
	return typeSize64("Type_size_c", h, size)
}

//export PMPI_Type_size_x
func PMPI_Type_size_x(h uintptr, size unsafe.Pointer) int32 {
	return typeSize64("Type_size_x", h, size)
}

// typeSize64 is MPI_Type_size's MPI_Count forms, named op.
func typeSize64(op string, h uintptr, size unsafe.Pointer) int32 {
	if size == nil {
		return fail(op, 0, errorf(errArg, op, "size is NULL"))
	}
	if fortranOff(h) {
		*(*int64)(size) = undefined
		return 0
	}
	t, r := needType(op, h)
	if t == nil {
		return r
	}
	*(*int64)(size) = t.Size()
	return 0
}

//export goPMPI_Type_get_extent
func goPMPI_Type_get_extent(h uintptr, lb, extent unsafe.Pointer) int32 {
	goHalves.Add(1)
	return getExtent("Type_get_extent", h, lb, extent)
}

//export goPMPI_Type_get_extent_c
func goPMPI_Type_get_extent_c(h uintptr, lb, extent unsafe.Pointer) int32 {
	goHalves.Add(1)
	return getExtent("Type_get_extent_c", h, lb, extent)
}

//export goPMPI_Type_get_extent_x
func goPMPI_Type_get_extent_x(h uintptr, lb, extent unsafe.Pointer) int32 {
	goHalves.Add(1)
	return getExtent("Type_get_extent_x", h, lb, extent)
}

// getExtent is MPI_Type_get_extent, named op (its forms write MPI_Aint or MPI_Count,
// both 64 bits in the standard ABI).
func getExtent(op string, h uintptr, lb, extent unsafe.Pointer) int32 {
	return extents(op, h, lb, extent, false)
}

// extents writes the type's lower bound and extent, or its true ones.
func extents(op string, h uintptr, lb, extent unsafe.Pointer, trueOnes bool) int32 {
	t, r := needType(op, h)
	if t == nil {
		return r
	}
	names := "lb, extent"
	if trueOnes {
		names = "true_lb, true_extent"
	}
	if err := nullOut(op, names, lb, extent); err != nil {
		return fail(op, 0, err)
	}
	if trueOnes {
		*(*int64)(lb), *(*int64)(extent) = t.TrueLB(), t.TrueExtent()
	} else {
		*(*int64)(lb), *(*int64)(extent) = t.LB(), t.Extent()
	}
	return 0
}

//export PMPI_Type_get_true_extent
func PMPI_Type_get_true_extent(h uintptr, lb, extent unsafe.Pointer) int32 {
	return getTrueExtent("Type_get_true_extent", h, lb, extent)
}

//export PMPI_Type_get_true_extent_c
func PMPI_Type_get_true_extent_c(h uintptr, lb, extent unsafe.Pointer) int32 {
	return getTrueExtent("Type_get_true_extent_c", h, lb, extent)
}

//export PMPI_Type_get_true_extent_x
func PMPI_Type_get_true_extent_x(h uintptr, lb, extent unsafe.Pointer) int32 {
	return getTrueExtent("Type_get_true_extent_x", h, lb, extent)
}

// getTrueExtent is MPI_Type_get_true_extent, named op.
func getTrueExtent(op string, h uintptr, lb, extent unsafe.Pointer) int32 {
	return extents(op, h, lb, extent, true)
}

//export PMPI_Type_set_name
func PMPI_Type_set_name(h uintptr, name unsafe.Pointer) int32 {
	const op = "Type_set_name"
	m, r := needObj(op, h)
	if m == nil {
		return r
	}
	if name == nil {
		return fail(op, 0, errorf(errArg, op, "type_name is NULL"))
	}
	m.SetName(cstr(name))
	return 0
}

//export PMPI_Type_get_name
func PMPI_Type_get_name(h uintptr, name, n unsafe.Pointer) int32 {
	const op = "Type_get_name"
	var m *mpir.Datatype // MPI_DATATYPE_NULL has a name too
	if h != hDatatypeNull {
		var r int32
		if m, r = needObj(op, h); m == nil {
			return r
		}
	}
	if err := nullOut(op, "type_name, resultlen", name, n); err != nil {
		return fail(op, 0, err)
	}
	putCString(name, C.MPI_MAX_OBJECT_NAME, m.Name(), n)
	return 0
}

//export PMPI_Get_address
func PMPI_Get_address(p unsafe.Pointer, addr unsafe.Pointer) int32 {
	if addr == nil {
		return fail("Get_address", 0, errorf(errArg, "Get_address", "address is NULL"))
	}
	*(*int64)(addr) = int64(uintptr(p))
	return 0
}
