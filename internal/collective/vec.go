package collective

import (
	"fmt"
	"math/bits"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/datatype"
)

// Vec is a collective's buffer: contiguous elements of Esz bytes each in B (whose
// length is a whole number of them), or the in-place marker (MPI_IN_PLACE), which
// says that the input is where the collective documents it to be in the other buffer.
//
// With a Type, the buffer is Count items of that datatype laid out from the start of B
// (MPI's buf, count, datatype); the entry points lay it out as contiguous items of the
// type's size before the builders see it (typed.go).
type Vec struct {
	B       []byte
	Esz     int
	InPlace bool
	Type    *datatype.Type
	Count   int
}

// TypedVec is count items of dt laid out from the start of mem.
func TypedVec(mem []byte, count int, dt *datatype.Type) Vec {
	v := Vec{B: mem, Count: count, Type: dt}
	if dt != nil {
		v.Esz = int(dt.Size())
	}
	return v
}

// InPlaceVec is the in-place marker of a collective whose elements are esz bytes.
func InPlaceVec(esz int) Vec { return Vec{Esz: esz, InPlace: true} }

// N is the number of elements in v.
func (v *Vec) N() int {
	if v.Type != nil {
		return v.Count
	}
	if v.Esz <= 0 {
		return len(v.B)
	}
	if v.Esz&(v.Esz-1) == 0 {
		// Element sizes are powers of two but for derived types: a shift, not a
		// division, which costs as much as the rest of a short collective's checks.
		return len(v.B) >> bits.TrailingZeros(uint(v.Esz))
	}
	return len(v.B) / v.Esz
}

// Sub is elements [i, j) of v.
func (v Vec) Sub(i, j int) Vec { return Vec{B: v.B[i*v.Esz : j*v.Esz], Esz: v.Esz} }

// block is a v form's block i of v: counts[i] elements at element displs[i], empty
// for no elements, whose displacement MPI never reads.
func (v Vec) block(counts, displs []int, i int) Vec {
	if counts[i] == 0 {
		return Vec{B: v.B[:0], Esz: v.Esz}
	}
	return v.Sub(displs[i], displs[i]+counts[i])
}

// same reports whether a and b start at the same address (one buffer passed twice).
func same(a, b []byte) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }

// Red is a reduction operation as the collectives run it: the kernel over whole
// elements and whether it commutes, the unit a schedule may split buffers at (an
// element, or a (value, index) pair for Maxloc and Minloc), and whether it is a user
// function (which may treat several elements as one, so its buffers are never cut).
type Red struct {
	K    coll.Op
	Unit int
	User bool
	Pair bool   // Maxloc or Minloc on flat (value, index) pairs: counts must be even
	Name string // for messages
	// Code identifies the operation for coll_check, alike on every rank: a predefined
	// op's number, or one value shared by all user functions.
	Code uint64
}

func (r *Red) code() uint64 { return r.Code }

// unit is the schedule's element size for r over elements of esz bytes.
func (r *Red) unit(esz int) int {
	if r.Unit > 0 {
		return r.Unit
	}
	return esz
}

func (r *Red) String() string { return fmt.Sprint(r.Name) }

// Kernel is a reduction over two equal-length byte buffers of whole elements:
// inout = in ⊕ inout (in holds the lower ranks' contribution).
type Kernel = coll.Kernel

// ReduceOp is a reduction's kernel and whether it commutes.
type ReduceOp = coll.Op
