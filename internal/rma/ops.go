package rma

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/mpigo/mpigo/internal/datatype"
)

// Op is an accumulate operation. The numbering is the facade's (package mpi's op
// codes), so that an Op crosses the wire as one byte.
type Op uint8

// The operations MPI allows in accumulates: the predefined reductions, Replace
// (target = origin: what Put does, but element-wise atomic) and NoOp (target kept: a
// GetAccumulate that only reads, atomically).
const (
	OpNone Op = iota
	OpSum
	OpProd
	OpMin
	OpMax
	OpLand
	OpLor
	OpLxor
	OpBand
	OpBor
	OpBxor
	OpMaxloc
	OpMinloc
	OpReplace
	OpNoOp
	NumOps
)

var opNames = [NumOps]string{"invalid op", "Sum", "Prod", "Min", "Max", "Land", "Lor", "Lxor",
	"Band", "Bor", "Bxor", "Maxloc", "Minloc", "Replace", "NoOp"}

func (o Op) String() string {
	if o < NumOps {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Kernel combines whole elements: target[i] = target[i] op origin[i], for
// len(target) bytes (len(origin) >= len(target)).
type Kernel func(target, origin []byte)

// Lookup returns op's kernel on elements of kind k, or an error naming the rule
// when MPI does not define op on k.
func Lookup(op Op, k datatype.Kind) (Kernel, error) {
	if op >= NumOps || op == OpNone {
		return nil, fmt.Errorf("%v is not an accumulate operation", op)
	}
	if int(k) < len(kernels[op]) {
		if fn := kernels[op][k]; fn != nil {
			return fn, nil
		}
	}
	if k == datatype.KindNone {
		return nil, fmt.Errorf("%v needs every element of the datatypes to be of one predefined type", op)
	}
	return nil, fmt.Errorf("%v is not defined on %v", op, k)
}

// Atomic reports whether elements of kind k are updated with the CPU's atomic
// instructions (8-byte integers) rather than under the target's accumulate lock.
func Atomic(k datatype.Kind) bool {
	switch k {
	case datatype.KindInt64, datatype.KindUint64, datatype.KindInt, datatype.KindUint:
		return true
	}
	return false
}

// kernels are the kernels by op and element kind; scalar the Go loops among them,
// before vector loops replaced some (simdKernels).
var kernels, scalar [NumOps][datatype.KindInt16Int32 + 1]Kernel

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint
}
type float interface{ ~float32 | ~float64 }
type number interface {
	integer | float | ~complex64 | ~complex128
}

func view[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// Kernels are named generic functions stored in the table directly, so that applying
// one is a single indirect call on the concrete element type.

func sumK[T number](t, o []byte) {
	a := view[T](t)
	b := view[T](o)[:len(a)]
	i := 0
	for ; i+8 <= len(a); i += 8 {
		a[i] += b[i]
		a[i+1] += b[i+1]
		a[i+2] += b[i+2]
		a[i+3] += b[i+3]
		a[i+4] += b[i+4]
		a[i+5] += b[i+5]
		a[i+6] += b[i+6]
		a[i+7] += b[i+7]
	}
	for ; i < len(a); i++ {
		a[i] += b[i]
	}
}

func prodK[T number](t, o []byte) {
	a := view[T](t)
	b := view[T](o)[:len(a)]
	for i := range a {
		a[i] *= b[i]
	}
}

func minK[T integer](t, o []byte) {
	a := view[T](t)
	b := view[T](o)[:len(a)]
	for i := range a {
		a[i] = min(a[i], b[i])
	}
}

func maxK[T integer](t, o []byte) {
	a := view[T](t)
	b := view[T](o)[:len(a)]
	for i := range a {
		a[i] = max(a[i], b[i])
	}
}

// MPI's MIN and MAX on floats: a NaN operand gives NaN, as in the facade.
func fminK[T float](t, o []byte) {
	a := view[T](t)
	b := view[T](o)[:len(a)]
	for i := range a {
		a[i] = T(math.Min(float64(a[i]), float64(b[i])))
	}
}

func fmaxK[T float](t, o []byte) {
	a := view[T](t)
	b := view[T](o)[:len(a)]
	for i := range a {
		a[i] = T(math.Max(float64(a[i]), float64(b[i])))
	}
}

func landK[T integer](t, o []byte) {
	a := view[T](t)
	b := view[T](o)[:len(a)]
	for i := range a {
		a[i] = b2i[T](a[i] != 0 && b[i] != 0)
	}
}

func lorK[T integer](t, o []byte) {
	a := view[T](t)
	b := view[T](o)[:len(a)]
	for i := range a {
		a[i] = b2i[T](a[i] != 0 || b[i] != 0)
	}
}

func lxorK[T integer](t, o []byte) {
	a := view[T](t)
	b := view[T](o)[:len(a)]
	for i := range a {
		a[i] = b2i[T]((a[i] != 0) != (b[i] != 0))
	}
}

func bandK[T integer](t, o []byte) {
	a := view[T](t)
	b := view[T](o)[:len(a)]
	for i := range a {
		a[i] &= b[i]
	}
}

func borK[T integer](t, o []byte) {
	a := view[T](t)
	b := view[T](o)[:len(a)]
	for i := range a {
		a[i] |= b[i]
	}
}

func bxorK[T integer](t, o []byte) {
	a := view[T](t)
	b := view[T](o)[:len(a)]
	for i := range a {
		a[i] ^= b[i]
	}
}

func replaceK(t, o []byte) { copy(t, o[:len(t)]) }
func noopK(t, o []byte)    {}

func b2i[T integer](v bool) T {
	if v {
		return 1
	}
	return 0
}

func regInt[T integer](k datatype.Kind) {
	regNum[T](k)
	kernels[OpMin][k], kernels[OpMax][k] = minK[T], maxK[T]
	kernels[OpLand][k], kernels[OpLor][k], kernels[OpLxor][k] = landK[T], lorK[T], lxorK[T]
	regBits[T](k)
}

func regBits[T integer](k datatype.Kind) {
	kernels[OpBand][k], kernels[OpBor][k], kernels[OpBxor][k] = bandK[T], borK[T], bxorK[T]
}

func regNum[T number](k datatype.Kind) {
	kernels[OpSum][k], kernels[OpProd][k] = sumK[T], prodK[T]
	regMove(k)
}

func regMove(k datatype.Kind) {
	kernels[OpReplace][k], kernels[OpNoOp][k] = replaceK, noopK
}

func regFloat[T float](k datatype.Kind) {
	regNum[T](k)
	kernels[OpMin][k], kernels[OpMax][k] = fminK[T], fmaxK[T]
}

func boolK(op func(x, y bool) bool) Kernel {
	return func(t, o []byte) {
		a := view[bool](t)
		b := view[bool](o)[:len(a)]
		for i := range a {
			a[i] = op(a[i], b[i])
		}
	}
}

// loc registers Maxloc and Minloc on a pair kind: a value of type V at offset 0, an
// int32 index at ioff, size bytes apart. Ties keep the smaller index.
func loc[V integer | float](k datatype.Kind, ioff, size int) {
	mk := func(better func(x, y V) bool) Kernel {
		return func(target, origin []byte) {
			for o := 0; o+size <= len(target); o += size {
				tv, ov := (*V)(unsafe.Pointer(&target[o])), (*V)(unsafe.Pointer(&origin[o]))
				ti, oi := (*int32)(unsafe.Pointer(&target[o+ioff])), (*int32)(unsafe.Pointer(&origin[o+ioff]))
				switch {
				case better(*ov, *tv):
					*tv, *ti = *ov, *oi
				case *ov == *tv && *oi < *ti:
					*ti = *oi
				}
			}
		}
	}
	kernels[OpMaxloc][k] = mk(func(x, y V) bool { return x > y })
	kernels[OpMinloc][k] = mk(func(x, y V) bool { return x < y })
	regMove(k)
}

func init() {
	regInt[int8](datatype.KindInt8)
	regInt[int16](datatype.KindInt16)
	regInt[int32](datatype.KindInt32)
	regInt[int64](datatype.KindInt64)
	regInt[int](datatype.KindInt)
	regInt[uint8](datatype.KindUint8)
	regInt[uint16](datatype.KindUint16)
	regInt[uint32](datatype.KindUint32)
	regInt[uint64](datatype.KindUint64)
	regInt[uint](datatype.KindUint)
	regFloat[float32](datatype.KindFloat32)
	regFloat[float64](datatype.KindFloat64)
	regNum[complex64](datatype.KindComplex64)
	regNum[complex128](datatype.KindComplex128)
	regBits[uint8](datatype.KindByte)
	regMove(datatype.KindByte)
	kernels[OpLand][datatype.KindBool] = boolK(func(x, y bool) bool { return x && y })
	kernels[OpLor][datatype.KindBool] = boolK(func(x, y bool) bool { return x || y })
	kernels[OpLxor][datatype.KindBool] = boolK(func(x, y bool) bool { return x != y })
	regMove(datatype.KindBool)
	loc[float32](datatype.KindFloat32Int32, 4, 8)
	loc[float64](datatype.KindFloat64Int32, 8, 12)
	loc[int64](datatype.KindInt64Int32, 8, 12)
	loc[int32](datatype.KindInt32Int32, 4, 8)
	loc[int16](datatype.KindInt16Int32, 2, 6)
	scalar = kernels
	simdKernels()
}
