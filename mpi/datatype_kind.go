package mpi

import "github.com/mpigo/mpigo/internal/mpir"

// TypeClass is a class of numbers for TypeMatchSize (MPI_TYPECLASS_*).
type TypeClass int

// The type classes.
const (
	TypeClassInteger TypeClass = iota + 1 // MPI_TYPECLASS_INTEGER
	TypeClassReal                         // MPI_TYPECLASS_REAL
	TypeClassComplex                      // MPI_TYPECLASS_COMPLEX
)

// The type classes are mpir's numbers (these constants do not compile otherwise).
const (
	_ uint = uint(int(TypeClassInteger) - int(mpir.TypeClassInteger))
	_ uint = uint(int(mpir.TypeClassInteger) - int(TypeClassInteger))
	_ uint = uint(int(TypeClassComplex) - int(mpir.TypeClassComplex))
	_ uint = uint(int(mpir.TypeClassComplex) - int(TypeClassComplex))
)

// TypeMatchSize returns the predefined datatype of class and size bytes
// (MPI_Type_match_size, MPI 4.1 §19.1.9): Int8 to Int64, Float32 and Float64,
// Complex64 and Complex128. The handle is predefined: it must not be freed. An
// error of class ClassArg says that no such type exists.
func TypeMatchSize(class TypeClass, size int) (*Datatype, error) {
	m, err := mpir.TypeMatchSize("TypeMatchSize", mpir.TypeClass(class), int64(size), lookup)
	if err != nil {
		return nil, err
	}
	return handleOf(m), nil
}

// TypeCreateF90Real returns the predefined datatype of the floating-point type with at
// least p decimal digits of precision and a decimal exponent range of at least r, as
// Fortran's selected_real_kind(p, r) chooses (MPI_Type_create_f90_real): a type laid
// out as Float32 or Float64, which MPI makes predefined but unnamed: its Envelope is
// CombinerF90Real, its Contents p and r. The same p and r give the same handle. Either
// p or r (not both) may be Undefined. Go has no wider floating-point type, so a wider
// request is an error of class ClassArg. The handle is predefined: it must not be
// freed.
func TypeCreateF90Real(p, r int) (*Datatype, error) {
	return f90(mpir.TypeCreateF90Real("TypeCreateF90Real", int64(p), int64(r), lookup, newF90))
}

// TypeCreateF90Complex is TypeCreateF90Real for complex numbers whose parts have
// precision p and range r (MPI_Type_create_f90_complex): laid out as Complex64 or
// Complex128, with the combiner CombinerF90Complex.
func TypeCreateF90Complex(p, r int) (*Datatype, error) {
	return f90(mpir.TypeCreateF90Complex("TypeCreateF90Complex", int64(p), int64(r), lookup, newF90))
}

// TypeCreateF90Integer returns the predefined datatype of the smallest integer type
// holding every n with -10^r < n < 10^r, as Fortran's selected_int_kind(r) chooses
// (MPI_Type_create_f90_integer): laid out as one of Int8 to Int64, with the combiner
// CombinerF90Integer and r as its contents; a wider request is an error of class
// ClassArg. The handle is predefined: it must not be freed.
func TypeCreateF90Integer(r int) (*Datatype, error) {
	return f90(mpir.TypeCreateF90Integer("TypeCreateF90Integer", int64(r), lookup, newF90))
}

// newF90 is the handle of a type mpir made for TypeCreateF90*.
func newF90(m *mpir.Datatype) any { return &Datatype{t: m.Type(), m: m} }

func f90(m *mpir.Datatype, err error) (*Datatype, error) {
	if err != nil {
		return nil, err
	}
	return m.Handle.(*Datatype), nil
}
