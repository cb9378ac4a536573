package op

import (
	"encoding/binary"
	"math"
)

// Maxloc and Minloc (MPI 4.1 §6.9.4) keep the better value with its index, and of
// equal values the smaller index, whichever operand holds it, so they commute. A
// NaN value is never better nor equal: the inout pair stays, as in C's comparisons.

// flatLoc is Maxloc (or Minloc) on flat pairs of T: element 2i a value, 2i+1 its
// index, as MPI_2INT, MPI_2REAL, MPI_2DOUBLE_PRECISION and MPI_2INTEGER lay them out
// (and the Go face's pairs in a []T).
func flatLoc[T ordered](maxloc bool) Kernel {
	if maxloc {
		return flatMaxloc[T]
	}
	return flatMinloc[T]
}

func flatMaxloc[T ordered](inout, in []byte) {
	a := view[T](inout)
	b := view[T](in)[:len(a)]
	for i := 0; i+1 < len(a); i += 2 {
		switch {
		case b[i] > a[i]:
			a[i], a[i+1] = b[i], b[i+1]
		case b[i] == a[i] && b[i+1] < a[i+1]:
			a[i+1] = b[i+1]
		}
	}
}

func flatMinloc[T ordered](inout, in []byte) {
	a := view[T](inout)
	b := view[T](in)[:len(a)]
	for i := 0; i+1 < len(a); i += 2 {
		switch {
		case b[i] < a[i]:
			a[i], a[i+1] = b[i], b[i+1]
		case b[i] == a[i] && b[i+1] < a[i+1]:
			a[i+1] = b[i+1]
		}
	}
}

// The C pair types whose value is not an int32 (MPI_FLOAT_INT, MPI_DOUBLE_INT,
// MPI_LONG_INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT) reach a kernel packed, as the
// datatype engine packs them: the value's bytes, then the int32 index, with no
// padding ({short; int} is 6 bytes, {double; int} 12), so a value may fall at any
// alignment and is read and written as bytes.

// packedLoc is Maxloc (or Minloc) on packed records of a vs-byte value and an int32
// index; order compares two values' bytes: -1, 0, +1, or 2 when they are unordered
// (a NaN).
func packedLoc(vs int, order func(x, y []byte) int, maxloc bool) Kernel {
	rec, better := vs+4, -1
	if maxloc {
		better = 1
	}
	return func(inout, in []byte) {
		in = in[:len(inout)]
		for o := 0; o+rec <= len(inout); o += rec {
			a, b := inout[o:o+rec], in[o:o+rec]
			switch order(b[:vs], a[:vs]) {
			case better:
				copy(a, b)
			case 0:
				if int32(binary.LittleEndian.Uint32(b[vs:])) < int32(binary.LittleEndian.Uint32(a[vs:])) {
					copy(a[vs:], b[vs:])
				}
			}
		}
	}
}

func orderOf[T ordered](x, y T) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	case x == y:
		return 0
	}
	return 2
}

func orderF32(x, y []byte) int {
	return orderOf(math.Float32frombits(binary.LittleEndian.Uint32(x)), math.Float32frombits(binary.LittleEndian.Uint32(y)))
}

func orderF64(x, y []byte) int {
	return orderOf(math.Float64frombits(binary.LittleEndian.Uint64(x)), math.Float64frombits(binary.LittleEndian.Uint64(y)))
}

func orderI64(x, y []byte) int {
	return orderOf(int64(binary.LittleEndian.Uint64(x)), int64(binary.LittleEndian.Uint64(y)))
}

func orderI16(x, y []byte) int {
	return orderOf(int16(binary.LittleEndian.Uint16(x)), int16(binary.LittleEndian.Uint16(y)))
}

func orderX87(x, y []byte) int {
	a, b := loadX87(x), loadX87(y)
	if a.isNaN() || b.isNaN() {
		return 2
	}
	return cmpX87(a, b)
}
