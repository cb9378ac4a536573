package mpir

import (
	"sync"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
)

// The calls that find a predefined datatype: by type class and size
// (MPI_Type_match_size), by the value and index types of a MAXLOC pair
// (MPI_Type_get_value_index), by a Fortran kind's precision and range
// (MPI_Type_create_f90_*). Their rules are tables of MPI names; each face has its
// own objects for the predefined types (its handles), which it gives as lookup: the
// object of the predefined type of an MPI name, nil where the face has none (the Go
// face has no Fortran types; the C face none for an optional Fortran type the
// program said is not supported).

// Lookup is a face's predefined datatype of an MPI name, nil where it has none.
type Lookup func(name string) *Datatype

// TypeClass is a class of numbers of MPI_Type_match_size.
type TypeClass int

// The type classes, numbered as the Go face's TypeClass.
const (
	TypeClassInteger TypeClass = 1 + iota // MPI_TYPECLASS_INTEGER
	TypeClassReal                         // MPI_TYPECLASS_REAL
	TypeClassComplex                      // MPI_TYPECLASS_COMPLEX
	// TypeClassLogical is MPIX_TYPECLASS_LOGICAL of MPICH and the MPI Forum's
	// reference ABI header: not the standard's, but a C program built against them
	// may pass it.
	TypeClassLogical
)

// matchCandidates are the types MPI_Type_match_size picks from, first fit: the
// Fortran types of each size first, as the standard's example (MPI 4.1 section
// 19.1.9) and MPICH do, then the C types. Go's integer types are the fixed-width C
// ones, so the Go face finds those.
var matchCandidates = map[TypeClass][]string{
	TypeClassInteger: {"MPI_INTEGER1", "MPI_INTEGER2", "MPI_INTEGER4", "MPI_INTEGER8", "MPI_INTEGER16",
		"MPI_INT8_T", "MPI_INT16_T", "MPI_INT32_T", "MPI_INT64_T"},
	TypeClassReal: {"MPI_REAL2", "MPI_REAL4", "MPI_REAL8", "MPI_REAL16",
		"MPI_FLOAT", "MPI_DOUBLE", "MPI_LONG_DOUBLE"},
	TypeClassComplex: {"MPI_COMPLEX4", "MPI_COMPLEX8", "MPI_COMPLEX16", "MPI_COMPLEX32",
		"MPI_C_FLOAT_COMPLEX", "MPI_C_DOUBLE_COMPLEX", "MPI_C_LONG_DOUBLE_COMPLEX"},
	TypeClassLogical: {"MPI_LOGICAL1", "MPI_LOGICAL2", "MPI_LOGICAL4", "MPI_LOGICAL8", "MPI_LOGICAL16"},
}

// TypeMatchSize is MPI_Type_match_size: the predefined type of class whose
// elements have size bytes. No such type, or no such class, is MPI_ERR_ARG.
func TypeMatchSize(op string, class TypeClass, size int64, lookup Lookup) (*Datatype, error) {
	names, ok := matchCandidates[class]
	if !ok {
		return nil, core.Errorf(core.ClassArg, op, "typeclass %d is none of MPI_TYPECLASS_INTEGER, MPI_TYPECLASS_REAL and MPI_TYPECLASS_COMPLEX", class)
	}
	for _, n := range names {
		if d := lookup(n); d != nil && d.t.Size() == size {
			return d, nil
		}
	}
	return nil, core.Errorf(core.ClassArg, op, "no predefined type of %s has %d bytes", className[class], size)
}

var className = map[TypeClass]string{TypeClassInteger: "MPI_TYPECLASS_INTEGER", TypeClassReal: "MPI_TYPECLASS_REAL",
	TypeClassComplex: "MPI_TYPECLASS_COMPLEX", TypeClassLogical: "MPIX_TYPECLASS_LOGICAL"}

// valueIndex are the predefined pair types of MAXLOC and MINLOC (MPI 4.1 section
// 6.9.4) by the MPI names of their value and index types. C's int is also
// MPI_INT32_T, short MPI_INT16_T and long (LP64) MPI_INT64_T: the Go face names its
// integer types so.
var valueIndex = []struct{ value, index, pair string }{
	{"MPI_FLOAT", "MPI_INT", "MPI_FLOAT_INT"},
	{"MPI_DOUBLE", "MPI_INT", "MPI_DOUBLE_INT"},
	{"MPI_LONG", "MPI_INT", "MPI_LONG_INT"},
	{"MPI_INT64_T", "MPI_INT", "MPI_LONG_INT"},
	{"MPI_INT", "MPI_INT", "MPI_2INT"},
	{"MPI_INT32_T", "MPI_INT", "MPI_2INT"},
	{"MPI_SHORT", "MPI_INT", "MPI_SHORT_INT"},
	{"MPI_INT16_T", "MPI_INT", "MPI_SHORT_INT"},
	{"MPI_LONG_DOUBLE", "MPI_INT", "MPI_LONG_DOUBLE_INT"},
	{"MPI_REAL", "MPI_REAL", "MPI_2REAL"},
	{"MPI_DOUBLE_PRECISION", "MPI_DOUBLE_PRECISION", "MPI_2DOUBLE_PRECISION"},
	{"MPI_INTEGER", "MPI_INTEGER", "MPI_2INTEGER"},
}

// TypeGetValueIndex is MPI_Type_get_value_index: the predefined pair type of a
// value of type value and an index of type index, or nil (MPI_DATATYPE_NULL) where
// the face has none, which is no error.
func TypeGetValueIndex(op string, value, index *Datatype, lookup Lookup) (*Datatype, error) {
	if _, err := Usable(op, "value_type", value); err != nil {
		return nil, err
	}
	if _, err := Usable(op, "index_type", index); err != nil {
		return nil, err
	}
	v, x := value.mpi, index.mpi
	if x == "MPI_INT32_T" {
		x = "MPI_INT"
	}
	for _, r := range valueIndex {
		if r.value == v && r.index == x && v != "" {
			return lookup(r.pair), nil
		}
	}
	return nil, nil
}

// The Fortran kinds MPI_Type_create_f90_* choose among (MPI 4.1 section 19.1.9), as
// gfortran's selected_real_kind and selected_int_kind do on x86-64: the smallest
// kind with at least the precision and range asked for, its bytes, and the
// predefined types of its layout, Fortran's first.
type f90Kind struct {
	p, r  int64 // decimal precision and exponent range (integers: range only)
	bytes int64
	names []string
}

var (
	f90Reals = []f90Kind{
		{6, 37, 4, []string{"MPI_REAL4", "MPI_FLOAT"}},
		{15, 307, 8, []string{"MPI_REAL8", "MPI_DOUBLE"}},
		{18, 4931, 10, []string{"MPI_LONG_DOUBLE"}}, // x87 extended precision
		{33, 4931, 16, []string{"MPI_REAL16"}},      // IEEE quad
	}
	f90Complexes = []f90Kind{
		{6, 37, 4, []string{"MPI_COMPLEX8", "MPI_C_FLOAT_COMPLEX"}},
		{15, 307, 8, []string{"MPI_COMPLEX16", "MPI_C_DOUBLE_COMPLEX"}},
		{18, 4931, 10, []string{"MPI_C_LONG_DOUBLE_COMPLEX"}},
		{33, 4931, 16, []string{"MPI_COMPLEX32"}},
	}
	f90Integers = []f90Kind{
		{0, 2, 1, []string{"MPI_INTEGER1", "MPI_INT8_T"}},
		{0, 4, 2, []string{"MPI_INTEGER2", "MPI_INT16_T"}},
		{0, 9, 4, []string{"MPI_INTEGER4", "MPI_INT32_T"}},
		{0, 18, 8, []string{"MPI_INTEGER8", "MPI_INT64_T"}},
		{0, 38, 16, []string{"MPI_INTEGER16"}},
	}
)

// f90Types holds the types MPI_Type_create_f90_* made, by combiner, arguments and
// base type: the standard makes them predefined, and the same arguments give the
// same handle.
var f90Types struct {
	sync.Mutex
	m map[f90Key]*Datatype
}

type f90Key struct {
	comb datatype.Combiner
	p, r int64
	base *Datatype
}

// TypeCreateF90Real is MPI_Type_create_f90_real: the predefined (unnamed) type of
// the real kind with decimal precision p and exponent range r, either of them (not
// both) Undefined. newHandle gives the face's handle of a type made for the first
// time. No such kind, or one the face lacks, is MPI_ERR_ARG.
func TypeCreateF90Real(op string, p, r int64, lookup Lookup, newHandle func(*Datatype) any) (*Datatype, error) {
	return f90Type(op, datatype.CombinerF90Real, f90Reals, p, r, lookup, newHandle)
}

// TypeCreateF90Complex is MPI_Type_create_f90_complex: TypeCreateF90Real for
// complex numbers whose parts have precision p and range r.
func TypeCreateF90Complex(op string, p, r int64, lookup Lookup, newHandle func(*Datatype) any) (*Datatype, error) {
	return f90Type(op, datatype.CombinerF90Complex, f90Complexes, p, r, lookup, newHandle)
}

// TypeCreateF90Integer is MPI_Type_create_f90_integer: the predefined type of the
// smallest integer kind holding every n with -10^r < n < 10^r.
func TypeCreateF90Integer(op string, r int64, lookup Lookup, newHandle func(*Datatype) any) (*Datatype, error) {
	return f90Type(op, datatype.CombinerF90Integer, f90Integers, 0, r, lookup, newHandle)
}

func f90Type(op string, comb datatype.Combiner, kinds []f90Kind, p, r int64, lookup Lookup, newHandle func(*Datatype) any) (*Datatype, error) {
	args := []int64{p, r}
	if comb == datatype.CombinerF90Integer {
		args = []int64{r}
	} else if p == core.Undefined && r == core.Undefined {
		return nil, core.Errorf(core.ClassArg, op, "p and r are both MPI_UNDEFINED; at most one may be")
	}
	wp, wr := max(p, 0), max(r, 0) // Undefined (negative) asks nothing
	var k *f90Kind
	for i := range kinds {
		if wp <= kinds[i].p && wr <= kinds[i].r {
			k = &kinds[i]
			break
		}
	}
	if k == nil {
		w := kinds[len(kinds)-1]
		if comb == datatype.CombinerF90Integer {
			return nil, core.Errorf(core.ClassArg, op, "no integer kind has range %d (the widest, %d bytes, has %d)", r, w.bytes, w.r)
		}
		return nil, core.Errorf(core.ClassArg, op, "no kind has precision %d and range %d (the widest, %d bytes, has %d and %d)", p, r, w.bytes, w.p, w.r)
	}
	var base *Datatype
	for _, n := range k.names {
		if base = lookup(n); base != nil {
			break
		}
	}
	if base == nil {
		return nil, core.Errorf(core.ClassArg, op, "the kind of precision %d and range %d has %d bytes, which this binding does not support", p, r, k.bytes)
	}
	f90Types.Lock()
	defer f90Types.Unlock()
	key := f90Key{comb, p, r, base}
	if d := f90Types.m[key]; d != nil {
		return d, nil
	}
	d := &Datatype{t: base.t, f90: &f90{comb: comb, args: args}}
	d.Handle = newHandle(d)
	if f90Types.m == nil {
		f90Types.m = map[f90Key]*Datatype{}
	}
	f90Types.m[key] = d
	return d, nil
}
