package main

/*
#define MPIGO_ABI_NO_PROTOTYPES 1
#include "mpi.h"
#include <stdlib.h>

static void call_user_op(void *fn, int big, void *in, void *inout, long long n, uintptr_t dth) {
	MPI_Datatype dt = (MPI_Datatype)dth;
	if (big) {
		MPI_Count c = n;
		((MPI_User_function_c *)fn)(in, inout, &c, &dt);
	} else {
		int c = (int)n;
		((MPI_User_function *)fn)(in, inout, &c, &dt);
	}
}
*/
import "C"

import (
	"math"
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/datatype"
)

// userOp is an operation a program made with MPI_Op_create from a C function.
type userOp struct {
	fn      unsafe.Pointer
	commute bool
	big     bool // MPI_Op_create_c: the count is an MPI_Count
}

var userOps = table[userOp]{kind: kOp}

// Predefined operations (mpi.h), by handle.
const (
	opSum     = 0x21
	opMin     = 0x22
	opMax     = 0x23
	opProd    = 0x24
	opBand    = 0x28
	opBor     = 0x29
	opBxor    = 0x2a
	opLand    = 0x30
	opLor     = 0x31
	opLxor    = 0x32
	opMinloc  = 0x38
	opMaxloc  = 0x39
	opReplace = 0x3c
	opNoOp    = 0x3d
)

var opNames = map[uintptr]string{opSum: "MPI_SUM", opMin: "MPI_MIN", opMax: "MPI_MAX",
	opProd: "MPI_PROD", opBand: "MPI_BAND", opBor: "MPI_BOR", opBxor: "MPI_BXOR",
	opLand: "MPI_LAND", opLor: "MPI_LOR", opLxor: "MPI_LXOR", opMinloc: "MPI_MINLOC",
	opMaxloc: "MPI_MAXLOC", opReplace: "MPI_REPLACE", opNoOp: "MPI_NO_OP"}

//export PMPI_Op_create
func PMPI_Op_create(fn unsafe.Pointer, commute int32, out unsafe.Pointer) int32 {
	if fn == nil || out == nil {
		return fail("Op_create", 0, errorf(errArg, "Op_create", "user_fn or op is NULL"))
	}
	setHandle(out, userOps.add(&userOp{fn: fn, commute: commute != 0}))
	return 0
}

//export PMPI_Op_create_c
func PMPI_Op_create_c(fn unsafe.Pointer, commute int32, out unsafe.Pointer) int32 {
	if fn == nil || out == nil {
		return fail("Op_create", 0, errorf(errArg, "Op_create", "user_fn or op is NULL"))
	}
	setHandle(out, userOps.add(&userOp{fn: fn, commute: commute != 0, big: true}))
	return 0
}

//export PMPI_Op_free
func PMPI_Op_free(p unsafe.Pointer) int32 {
	if p == nil {
		return fail("Op_free", 0, errorf(errArg, "Op_free", "op is NULL"))
	}
	h := *(*uintptr)(p)
	if userOps.get(h) == nil {
		if _, ok := opNames[h]; ok {
			return fail("Op_free", 0, errorf(errOp, "Op_free", "op %#x is predefined: only what MPI_Op_create made is freed", h))
		}
		return fail("Op_free", 0, badHandle("Op_free", "op", h, kOp))
	}
	userOps.remove(h)
	setHandle(p, hOpNull)
	return 0
}

//export PMPI_Op_commutative
func PMPI_Op_commutative(h uintptr, flag unsafe.Pointer) int32 {
	if u := userOps.get(h); u != nil {
		setBool(flag, u.commute)
		return 0
	}
	if _, ok := opNames[h]; ok {
		setBool(flag, true)
		return 0
	}
	return fail("Op_commutative", 0, badHandle("Op_commutative", "op", h, kOp))
}

// red is the device's reduction for op on items of datatype dh.
func red(name string, oh uintptr, dh uintptr) (collective.Red, error) {
	var r collective.Red
	err := redInto(name, oh, dh, &r)
	return r, err
}

// redInto is red filling *out: a predefined operation on a predefined datatype from
// predefRed, the others made here.
func redInto(name string, oh uintptr, dh uintptr, out *collective.Red) (err error) {
	if i, j := oh-opSum, dh-0x200; i < uintptr(len(predefRed)) && j < uintptr(len(predefRed[0])) {
		if r := predefRed[i][j]; r != nil {
			*out = *r
			return nil
		}
	}
	*out, err = makeRed(name, oh, dh)
	return err
}

// makeRed is the general way of red: user functions, and the predefined operations'
// errors.
func makeRed(name string, oh uintptr, dh uintptr) (collective.Red, error) {
	t, err := typeOf(name, dh)
	if err != nil {
		return collective.Red{}, err
	}
	if u := userOps.get(oh); u != nil {
		size := t.Size()
		fn, big := u.fn, u.big
		k := func(inout, in []byte) {
			if len(in) == 0 {
				return
			}
			C.call_user_op(fn, C.int(boolInt(big)), unsafe.Pointer(&in[0]), unsafe.Pointer(&inout[0]),
				C.longlong(int64(len(in))/size), C.uintptr_t(dh))
		}
		if !dense(t) {
			// The device hands the kernel packed items; the function is called with
			// the datatype, so it must see them laid out as the datatype says (MPI
			// 4.1 6.9.5): unpack both into scratch memory of the type's span, call
			// it there, and pack the result back.
			k = func(inout, in []byte) {
				n := int64(len(in)) / size
				if n == 0 {
					return
				}
				lo, hi, _ := t.Span(n)
				a, b := C.malloc(C.size_t(hi-lo)), C.malloc(C.size_t(hi-lo))
				defer C.free(a)
				defer C.free(b)
				ma, mb := unsafe.Slice((*byte)(a), hi-lo), unsafe.Slice((*byte)(b), hi-lo)
				t.UnpackAt(ma, -lo, in, n)
				t.UnpackAt(mb, -lo, inout, n)
				C.call_user_op(fn, C.int(boolInt(big)), unsafe.Add(a, -lo), unsafe.Add(b, -lo), C.longlong(n), C.uintptr_t(dh))
				t.PackAt(inout, mb, -lo, n)
			}
		}
		return collective.Red{K: collective.ReduceOp{Fn: k, Commute: u.commute}, Unit: int(size), User: true,
			Name: "user function", Code: 1 << 20}, nil
	}
	opName, ok := opNames[oh]
	if !ok {
		return collective.Red{}, badHandle(name, "op", oh, kOp)
	}
	k := kindKernel(oh, t.Kind())
	if k == nil {
		return collective.Red{}, errorf(errOp, name, "%s is not defined on datatype %s", opName, dtOf(dh).m.Name())
	}
	return collective.Red{K: collective.ReduceOp{Fn: k, Commute: true}, Unit: int(t.Size()), Name: opName, Code: uint64(oh)}, nil
}

// predefRed holds the reductions of the predefined operations on the predefined
// datatypes, made once (initPredefRed): a call's red is then two index operations,
// where the general way looks the operation up in a map and makes its kernel, a
// closure for some, on every call. nil: not defined there (the general way says why).
var predefRed [opNoOp - opSum + 1][0x100]*collective.Red

// kindKernels holds the predefined operations' kernels on each element kind, made
// once (initPredefRed) for the datatypes made by the program, whose kernel is that
// of their elements' kind: a generic kernel's value, made on each call, would be a
// closure allocated on the heap.
var kindKernels [opNoOp - opSum + 1][datatype.KindInt16Int32 + 1]collective.Kernel

// kindKernel is kernelFor, from kindKernels.
func kindKernel(op uintptr, k datatype.Kind) collective.Kernel {
	if i := op - opSum; i < uintptr(len(kindKernels)) && int(k) < len(kindKernels[0]) {
		return kindKernels[i][k]
	}
	return kernelFor(op, k)
}

func initPredefRed() {
	for oh := range opNames {
		for k := range kindKernels[0] {
			kindKernels[oh-opSum][k] = kernelFor(oh, datatype.Kind(k))
		}
	}
	for j := range predefT {
		predefRedRow(j, nil)
	}
}

// predefRedRow makes the reductions of the predefined operations on the predefined
// datatype of handle 0x200+j (none if there is none), with the kernels of special
// where it has one (the Fortran LOGICALs' of fortran.go).
func predefRedRow(j int, special func(op uintptr) collective.Kernel) {
	d := predefT[j]
	for oh := range opNames {
		predefRed[oh-opSum][j] = nil
		if d == nil {
			continue
		}
		var k collective.Kernel
		if special != nil {
			k = special(oh)
		}
		if k == nil {
			k = kernelFor(oh, d.t.Kind())
		}
		if k == nil {
			continue
		}
		predefRed[oh-opSum][j] = &collective.Red{K: collective.ReduceOp{Fn: k, Commute: true}, Unit: int(d.t.Size()), Name: opNames[oh], Code: uint64(oh)}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// dense reports whether items of t lie back to back with no gaps: their packed form
// is their layout.
func dense(t *datatype.Type) bool {
	return t.IsContiguous() && t.LB() == 0 && t.Extent() == t.Size()
}

// The kernels of the predefined operations, over C's element types.

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

type float interface{ ~float32 | ~float64 }

type number interface{ integer | float }

func view[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

func sum[T number | complex64 | complex128](inout, in []byte) {
	o, i := view[T](inout), view[T](in)
	for k := range o {
		o[k] += i[k]
	}
}

func prod[T number | complex64 | complex128](inout, in []byte) {
	o, i := view[T](inout), view[T](in)
	for k := range o {
		o[k] *= i[k]
	}
}

func minK[T number](inout, in []byte) {
	o, i := view[T](inout), view[T](in)
	for k := range o {
		o[k] = min(o[k], i[k])
	}
}

func maxK[T number](inout, in []byte) {
	o, i := view[T](inout), view[T](in)
	for k := range o {
		o[k] = max(o[k], i[k])
	}
}

func bitK[T integer](f func(a, b T) T) collective.Kernel {
	return func(inout, in []byte) {
		o, i := view[T](inout), view[T](in)
		for k := range o {
			o[k] = f(o[k], i[k])
		}
	}
}

func logK[T integer](f func(a, b bool) bool) collective.Kernel {
	return func(inout, in []byte) {
		o, i := view[T](inout), view[T](in)
		for k := range o {
			if f(o[k] != 0, i[k] != 0) {
				o[k] = 1
			} else {
				o[k] = 0
			}
		}
	}
}

// loc is MAXLOC/MINLOC on packed pairs {value; int} of sz bytes, value at 0 and the
// int at idx. Packed, not C's structs: the device hands a kernel packed items of a
// type with gaps (red, PMPI_Reduce_local), and C pads {double; int}, {long; int}
// and {short; int}, so their packed pairs are 12, 12 and 6 bytes.
func loc[V number](sz, idx int, maxloc bool) collective.Kernel {
	return func(inout, in []byte) {
		for off := 0; off+sz <= len(inout); off += sz {
			ov := *(*V)(unsafe.Pointer(&inout[off]))
			iv := *(*V)(unsafe.Pointer(&in[off]))
			oi := (*int32)(unsafe.Pointer(&inout[off+idx]))
			ii := *(*int32)(unsafe.Pointer(&in[off+idx]))
			better := iv < ov
			if maxloc {
				better = iv > ov
			}
			if better {
				*(*V)(unsafe.Pointer(&inout[off])) = iv
				*oi = ii
			} else if iv == ov && ii < *oi {
				*oi = ii
			}
		}
	}
}

func replace(inout, in []byte) { copy(inout, in) }
func noop(inout, in []byte)    {}

func intKernels[T integer](op uintptr) collective.Kernel {
	switch op {
	case opSum:
		return sum[T]
	case opProd:
		return prod[T]
	case opMin:
		return minK[T]
	case opMax:
		return maxK[T]
	case opBand:
		return bitK(func(a, b T) T { return a & b })
	case opBor:
		return bitK(func(a, b T) T { return a | b })
	case opBxor:
		return bitK(func(a, b T) T { return a ^ b })
	case opLand:
		return logK[T](func(a, b bool) bool { return a && b })
	case opLor:
		return logK[T](func(a, b bool) bool { return a || b })
	case opLxor:
		return logK[T](func(a, b bool) bool { return a != b })
	}
	return nil
}

func floatKernels[T float](op uintptr) collective.Kernel {
	switch op {
	case opSum:
		return sum[T]
	case opProd:
		return prod[T]
	case opMin:
		return func(inout, in []byte) {
			o, i := view[T](inout), view[T](in)
			for k := range o {
				o[k] = T(math.Min(float64(o[k]), float64(i[k])))
			}
		}
	case opMax:
		return func(inout, in []byte) {
			o, i := view[T](inout), view[T](in)
			for k := range o {
				o[k] = T(math.Max(float64(o[k]), float64(i[k])))
			}
		}
	}
	return nil
}

// kernelFor is op's kernel on elements of kind k, nil where the standard does not
// define it.
func kernelFor(op uintptr, k datatype.Kind) collective.Kernel {
	switch op {
	case opReplace:
		return replace
	case opNoOp:
		return noop
	case opMaxloc, opMinloc:
		mx := op == opMaxloc
		switch k {
		case datatype.KindFloat32Int32:
			return loc[float32](8, 4, mx)
		case datatype.KindFloat64Int32:
			return loc[float64](12, 8, mx)
		case datatype.KindInt64Int32:
			return loc[int64](12, 8, mx)
		case datatype.KindInt32Int32:
			return loc[int32](8, 4, mx)
		case datatype.KindInt16Int32:
			return loc[int16](6, 2, mx)
		}
		return nil
	}
	switch k {
	case datatype.KindInt8:
		return intKernels[int8](op)
	case datatype.KindInt16:
		return intKernels[int16](op)
	case datatype.KindInt32:
		return intKernels[int32](op)
	case datatype.KindInt64, datatype.KindInt:
		return intKernels[int64](op)
	case datatype.KindUint8, datatype.KindByte:
		return intKernels[uint8](op)
	case datatype.KindUint16:
		return intKernels[uint16](op)
	case datatype.KindUint32:
		return intKernels[uint32](op)
	case datatype.KindUint64, datatype.KindUint:
		return intKernels[uint64](op)
	case datatype.KindBool:
		switch op {
		case opLand, opLor, opLxor:
			return intKernels[uint8](op)
		}
	case datatype.KindFloat32:
		return floatKernels[float32](op)
	case datatype.KindFloat64:
		return floatKernels[float64](op)
	case datatype.KindComplex64:
		switch op {
		case opSum:
			return sum[complex64]
		case opProd:
			return prod[complex64]
		}
	case datatype.KindComplex128:
		switch op {
		case opSum:
			return sum[complex128]
		case opProd:
			return prod[complex128]
		}
	}
	return nil
}

//export PMPI_Reduce_local
func PMPI_Reduce_local(in, inout unsafe.Pointer, count int32, dh uintptr, oh uintptr) int32 {
	return PMPI_Reduce_local_c(in, inout, int64(count), dh, oh)
}

//export PMPI_Reduce_local_c
func PMPI_Reduce_local_c(in, inout unsafe.Pointer, count int64, dh uintptr, oh uintptr) int32 {
	const op = "Reduce_local"
	r, err := red(op, oh, dh)
	if err != nil {
		return fail(op, 0, err)
	}
	if count < 0 {
		return fail(op, 0, errorf(errCount, op, "count %d is negative", count))
	}
	if count == 0 {
		return 0
	}
	if u := userOps.get(oh); u != nil {
		// The buffers are in the datatype's layout already: the function gets them.
		C.call_user_op(u.fn, C.int(boolInt(u.big)), in, inout, C.longlong(count), C.uintptr_t(dh))
		return 0
	}
	t, _ := typeOf(op, dh)
	if dense(t) {
		n := count * t.Size()
		r.K.Fn(unsafe.Slice((*byte)(inout), n), unsafe.Slice((*byte)(in), n))
		return 0
	}
	// A predefined operation on a type with gaps: its kernel runs on the packed items.
	mi, oi, err := span(op, in, count, t)
	if err != nil {
		return fail(op, 0, err)
	}
	mo, oo, err := span(op, inout, count, t)
	if err != nil {
		return fail(op, 0, err)
	}
	n := count * t.Size()
	a, b := make([]byte, n), make([]byte, n)
	t.PackAt(a, mi, oi, count)
	t.PackAt(b, mo, oo, count)
	r.K.Fn(b, a)
	t.UnpackAt(mo, oo, b, count)
	return 0
}
