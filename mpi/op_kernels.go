package mpi

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/datatype"
)

// Reduction kernels: one generic loop per op, instantiated per element type at init
// and stored in a table, so a call dispatches once and the loop runs on the concrete
// type. The loops are plain indexed loops over equal-length slices (the re-slice of in
// lets the compiler drop bounds checks), unrolled by four for the common arithmetic.

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint | ~uintptr
}

type float interface{ ~float32 | ~float64 }

type number interface {
	integer | float | ~complex64 | ~complex128
}

// view sees a byte slice as whole elements of T, without copying.
func view[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

func sumB[T number](inout, in []byte) {
	a, b := view[T](inout), view[T](in)
	b = b[:len(a)]
	i := 0
	for ; i+4 <= len(a); i += 4 {
		a[i] += b[i]
		a[i+1] += b[i+1]
		a[i+2] += b[i+2]
		a[i+3] += b[i+3]
	}
	for ; i < len(a); i++ {
		a[i] += b[i]
	}
}

// prodB computes in*inout: the order matters for nothing here, but it is MPI's.
func prodB[T number](inout, in []byte) {
	a, b := view[T](inout), view[T](in)
	b = b[:len(a)]
	for i := range a {
		a[i] = b[i] * a[i]
	}
}

// minB and maxB use the builtins on integers (branch-free code) and a comparison on
// floats, which keeps C's result for NaNs (the builtins would spread them).
func minB[T integer](inout, in []byte) {
	a, b := view[T](inout), view[T](in)
	b = b[:len(a)]
	for i := range a {
		a[i] = min(a[i], b[i])
	}
}

func maxB[T integer](inout, in []byte) {
	a, b := view[T](inout), view[T](in)
	b = b[:len(a)]
	for i := range a {
		a[i] = max(a[i], b[i])
	}
}

func minF[T float](inout, in []byte) {
	a, b := view[T](inout), view[T](in)
	b = b[:len(a)]
	for i := range a {
		if b[i] < a[i] {
			a[i] = b[i]
		}
	}
}

func maxF[T float](inout, in []byte) {
	a, b := view[T](inout), view[T](in)
	b = b[:len(a)]
	for i := range a {
		if b[i] > a[i] {
			a[i] = b[i]
		}
	}
}

func landB[T integer](inout, in []byte) {
	a, b := view[T](inout), view[T](in)
	b = b[:len(a)]
	for i := range a {
		if b[i] != 0 && a[i] != 0 {
			a[i] = 1
		} else {
			a[i] = 0
		}
	}
}

func lorB[T integer](inout, in []byte) {
	a, b := view[T](inout), view[T](in)
	b = b[:len(a)]
	for i := range a {
		if b[i] != 0 || a[i] != 0 {
			a[i] = 1
		} else {
			a[i] = 0
		}
	}
}

func lxorB[T integer](inout, in []byte) {
	a, b := view[T](inout), view[T](in)
	b = b[:len(a)]
	for i := range a {
		if (b[i] != 0) != (a[i] != 0) {
			a[i] = 1
		} else {
			a[i] = 0
		}
	}
}

func bandB[T integer](inout, in []byte) {
	a, b := view[T](inout), view[T](in)
	b = b[:len(a)]
	for i := range a {
		a[i] &= b[i]
	}
}

func borB[T integer](inout, in []byte) {
	a, b := view[T](inout), view[T](in)
	b = b[:len(a)]
	for i := range a {
		a[i] |= b[i]
	}
}

func bxorB[T integer](inout, in []byte) {
	a, b := view[T](inout), view[T](in)
	b = b[:len(a)]
	for i := range a {
		a[i] ^= b[i]
	}
}

func landBool(inout, in []byte) {
	a, b := view[bool](inout), view[bool](in)
	b = b[:len(a)]
	for i := range a {
		a[i] = b[i] && a[i]
	}
}

func lorBool(inout, in []byte) {
	a, b := view[bool](inout), view[bool](in)
	b = b[:len(a)]
	for i := range a {
		a[i] = b[i] || a[i]
	}
}

func lxorBool(inout, in []byte) {
	a, b := view[bool](inout), view[bool](in)
	b = b[:len(a)]
	for i := range a {
		a[i] = b[i] != a[i]
	}
}

// maxlocB and minlocB work on flat (value, index) pairs.
func maxlocB[T integer | float](inout, in []byte) {
	a, b := view[T](inout), view[T](in)
	b = b[:len(a)]
	for i := 0; i+1 < len(a); i += 2 {
		switch {
		case b[i] > a[i]:
			a[i], a[i+1] = b[i], b[i+1]
		case b[i] == a[i] && b[i+1] < a[i+1]:
			a[i+1] = b[i+1]
		}
	}
}

func minlocB[T integer | float](inout, in []byte) {
	a, b := view[T](inout), view[T](in)
	b = b[:len(a)]
	for i := 0; i+1 < len(a); i += 2 {
		switch {
		case b[i] < a[i]:
			a[i], a[i+1] = b[i], b[i+1]
		case b[i] == a[i] && b[i+1] < a[i+1]:
			a[i+1] = b[i+1]
		}
	}
}

// replaceB: in ⊕ inout = inout (the later rank's value wins).
func replaceB(inout, in []byte) {}

// noopB: in ⊕ inout = in (the earlier rank's value stays).
func noopB(inout, in []byte) { copy(inout, in) }

// The pair types' kernels work on packed records: a value of V, then an int32 index,
// rec bytes in all with no padding, so values fall at any alignment and are read and
// written through encoding/binary rather than as Go values.

// pairKernel returns the record size and the Maxloc (or Minloc) kernel of a pair kind.
func pairKernel(k datatype.Kind, maxloc bool) (int, collective.Kernel) {
	switch k {
	case datatype.KindFloat32Int32:
		return 8, locKernel(4, func(b []byte) float32 { return math.Float32frombits(binary.NativeEndian.Uint32(b)) }, maxloc)
	case datatype.KindFloat64Int32:
		return 12, locKernel(8, func(b []byte) float64 { return math.Float64frombits(binary.NativeEndian.Uint64(b)) }, maxloc)
	case datatype.KindInt64Int32:
		return 12, locKernel(8, func(b []byte) int64 { return int64(binary.NativeEndian.Uint64(b)) }, maxloc)
	case datatype.KindInt16Int32:
		return 6, locKernel(2, func(b []byte) int16 { return int16(binary.NativeEndian.Uint16(b)) }, maxloc)
	}
	return 0, nil
}

// locKernel is Maxloc or Minloc over records of a vs-byte value read by load and an
// int32 index: the better value wins with its index; on equal values the smaller index
// stays (MPI 4.1 §6.9.4).
func locKernel[V integer | float](vs int, load func([]byte) V, maxloc bool) collective.Kernel {
	rec := vs + 4
	return func(inout, in []byte) {
		in = in[:len(inout)]
		for o := 0; o+rec <= len(inout); o += rec {
			a, b := inout[o:o+rec], in[o:o+rec]
			va, vb := load(a), load(b)
			better := vb < va
			if maxloc {
				better = vb > va
			}
			switch {
			case better:
				copy(a, b)
			case vb == va && int32(binary.NativeEndian.Uint32(b[vs:])) < int32(binary.NativeEndian.Uint32(a[vs:])):
				copy(a[vs:], b[vs:])
			}
		}
	}
}
