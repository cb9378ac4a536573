package op

import (
	"unsafe"
)

// Kernel combines whole elements in place: inout[i] = in[i] ⊕ inout[i] over
// len(inout) bytes, in holding at least as many. It is the order of MPI's user
// functions: in is the earlier operand (a lower rank's contribution), inout the later.
// The type is a plain func type, so a Kernel is assignable to the device's kernel
// types (coll.Kernel, rma.Kernel) as it is.
type Kernel = func(inout, in []byte)

// The kernels are generic loops instantiated per element type and stored in a table
// (table.go), so that a call dispatches once and the loop runs on the concrete type.
// They are plain indexed loops over equal-length slices (re-slicing in lets the
// compiler drop bounds checks). Floats' Min and Max are Go's min and max, which
// spread a NaN operand: with them the result does not depend on the order the
// operands come in, which MPI leaves to the implementation.

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint | ~uintptr
}

type float interface{ ~float32 | ~float64 }

type ordered interface{ integer | float }

type number interface {
	integer | float | ~complex64 | ~complex128
}

// view sees b as whole elements of T, without copying.
func view[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

func sumK[T number](inout, in []byte) {
	a := view[T](inout)
	b := view[T](in)[:len(a)]
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

func prodK[T number](inout, in []byte) {
	a := view[T](inout)
	b := view[T](in)[:len(a)]
	for i := range a {
		a[i] = b[i] * a[i]
	}
}

func minK[T ordered](inout, in []byte) {
	a := view[T](inout)
	b := view[T](in)[:len(a)]
	for i := range a {
		a[i] = min(b[i], a[i])
	}
}

func maxK[T ordered](inout, in []byte) {
	a := view[T](inout)
	b := view[T](in)[:len(a)]
	for i := range a {
		a[i] = max(b[i], a[i])
	}
}

// C's logical operations on integers: nonzero is true, the result 1 or 0.

func landK[T integer](inout, in []byte) {
	a := view[T](inout)
	b := view[T](in)[:len(a)]
	for i := range a {
		a[i] = truth[T](b[i] != 0 && a[i] != 0)
	}
}

func lorK[T integer](inout, in []byte) {
	a := view[T](inout)
	b := view[T](in)[:len(a)]
	for i := range a {
		a[i] = truth[T](b[i] != 0 || a[i] != 0)
	}
}

func lxorK[T integer](inout, in []byte) {
	a := view[T](inout)
	b := view[T](in)[:len(a)]
	for i := range a {
		a[i] = truth[T]((b[i] != 0) != (a[i] != 0))
	}
}

func truth[T integer](v bool) T {
	if v {
		return 1
	}
	return 0
}

func bandK[T integer](inout, in []byte) {
	a := view[T](inout)
	b := view[T](in)[:len(a)]
	for i := range a {
		a[i] &= b[i]
	}
}

func borK[T integer](inout, in []byte) {
	a := view[T](inout)
	b := view[T](in)[:len(a)]
	for i := range a {
		a[i] |= b[i]
	}
}

func bxorK[T integer](inout, in []byte) {
	a := view[T](inout)
	b := view[T](in)[:len(a)]
	for i := range a {
		a[i] ^= b[i]
	}
}

func landBool(inout, in []byte) {
	a := view[bool](inout)
	b := view[bool](in)[:len(a)]
	for i := range a {
		a[i] = b[i] && a[i]
	}
}

func lorBool(inout, in []byte) {
	a := view[bool](inout)
	b := view[bool](in)[:len(a)]
	for i := range a {
		a[i] = b[i] || a[i]
	}
}

func lxorBool(inout, in []byte) {
	a := view[bool](inout)
	b := view[bool](in)[:len(a)]
	for i := range a {
		a[i] = b[i] != a[i]
	}
}

// replaceK: in ⊕ inout = inout, the later operand stays.
func replaceK(inout, in []byte) {}

// noopK: in ⊕ inout = in, the earlier operand stays.
func noopK(inout, in []byte) { copy(inout, in[:len(inout)]) }

// LiteralLogical is Land, Lor or Lxor (nil for another operation) on logicals whose
// true and false are the byte strings yes and no, of one length: a Fortran compiler's
// .TRUE. and .FALSE. (MPI_Abi_set_fortran_booleans). An element is true unless it
// is no; the result is yes or no.
func LiteralLogical(o Op, yes, no []byte) Kernel {
	var f func(a, b bool) bool
	switch o {
	case Land:
		f = func(a, b bool) bool { return a && b }
	case Lor:
		f = func(a, b bool) bool { return a || b }
	case Lxor:
		f = func(a, b bool) bool { return a != b }
	default:
		return nil
	}
	n := len(no)
	return func(inout, in []byte) {
		for k := 0; k+n <= len(inout); k += n {
			a := inout[k : k+n]
			if f(string(in[k:k+n]) != string(no), string(a) != string(no)) {
				copy(a, yes)
			} else {
				copy(a, no)
			}
		}
	}
}
