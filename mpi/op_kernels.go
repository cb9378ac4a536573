package mpi

import "unsafe"

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
