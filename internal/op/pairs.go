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

func orderX87(x, y []byte) int {
	a, b := loadX87(x), loadX87(y)
	if a.isNaN() || b.isNaN() {
		return 2
	}
	return cmpX87(a, b)
}

// The packed pairs of the common value types have loops of their own: the value read
// in place, no call a record (packedLoc's order and copy cost 25-30 cycles a record).

// locStep says what Maxloc (Minloc: maxloc false) does with a record whose value x
// and index xi meet inout's y and yi: 1 take the record, 2 take the index, 0 nothing.
func locStep[V ordered](x, y V, xi, yi int32, maxloc bool) int {
	switch {
	case maxloc && x > y, !maxloc && x < y:
		return 1
	case x == y && xi < yi:
		return 2
	}
	return 0
}

func index32(b []byte) int32 { return int32(binary.LittleEndian.Uint32(b)) }

// locF64 is MPI_DOUBLE_INT's: 8-byte values, 12-byte records.
func locF64(maxloc bool) Kernel {
	return func(inout, in []byte) {
		in = in[:len(inout)]
		for o := 0; o+12 <= len(inout); o += 12 {
			a, b := inout[o:o+12:o+12], in[o:o+12:o+12]
			x, y := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(a)
			switch locStep(math.Float64frombits(x), math.Float64frombits(y), index32(b[8:]), index32(a[8:]), maxloc) {
			case 1:
				binary.LittleEndian.PutUint64(a, x)
				fallthrough
			case 2:
				copy(a[8:12], b[8:12])
			}
		}
	}
}

// locI64 is MPI_LONG_INT's: 8-byte values, 12-byte records.
func locI64(maxloc bool) Kernel {
	return func(inout, in []byte) {
		in = in[:len(inout)]
		for o := 0; o+12 <= len(inout); o += 12 {
			a, b := inout[o:o+12:o+12], in[o:o+12:o+12]
			x, y := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(a)
			switch locStep(int64(x), int64(y), index32(b[8:]), index32(a[8:]), maxloc) {
			case 1:
				binary.LittleEndian.PutUint64(a, x)
				fallthrough
			case 2:
				copy(a[8:12], b[8:12])
			}
		}
	}
}

// locF32 is MPI_FLOAT_INT's: 4-byte values, 8-byte records.
func locF32(maxloc bool) Kernel {
	return func(inout, in []byte) {
		in = in[:len(inout)]
		for o := 0; o+8 <= len(inout); o += 8 {
			a, b := inout[o:o+8:o+8], in[o:o+8:o+8]
			x, y := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(a)
			switch locStep(math.Float32frombits(x), math.Float32frombits(y), index32(b[4:]), index32(a[4:]), maxloc) {
			case 1:
				binary.LittleEndian.PutUint32(a, x)
				fallthrough
			case 2:
				copy(a[4:8], b[4:8])
			}
		}
	}
}

// locI16 is MPI_SHORT_INT's: 2-byte values, 6-byte records.
func locI16(maxloc bool) Kernel {
	return func(inout, in []byte) {
		in = in[:len(inout)]
		for o := 0; o+6 <= len(inout); o += 6 {
			a, b := inout[o:o+6:o+6], in[o:o+6:o+6]
			x, y := binary.LittleEndian.Uint16(b), binary.LittleEndian.Uint16(a)
			switch locStep(int16(x), int16(y), index32(b[2:]), index32(a[2:]), maxloc) {
			case 1:
				binary.LittleEndian.PutUint16(a, x)
				fallthrough
			case 2:
				copy(a[2:6], b[2:6])
			}
		}
	}
}
