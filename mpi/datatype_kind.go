package mpi

// TypeClass is a class of numbers for TypeMatchSize (MPI_TYPECLASS_*).
type TypeClass int

// The type classes.
const (
	TypeClassInteger TypeClass = iota + 1 // MPI_TYPECLASS_INTEGER
	TypeClassReal                         // MPI_TYPECLASS_REAL
	TypeClassComplex                      // MPI_TYPECLASS_COMPLEX
)

// TypeMatchSize returns the predefined datatype of class and size bytes
// (MPI_Type_match_size, MPI 4.1 §19.1.9): Int8 to Int64, Float32 and Float64,
// Complex64 and Complex128. The handle is predefined: it must not be freed. An
// error of class ClassArg says that no such type exists.
func TypeMatchSize(class TypeClass, size int) (*Datatype, error) {
	bySize := map[TypeClass]map[int]*Datatype{
		TypeClassInteger: {1: Int8, 2: Int16, 4: Int32, 8: Int64},
		TypeClassReal:    {4: Float32, 8: Float64},
		TypeClassComplex: {8: Complex64, 16: Complex128},
	}
	m, ok := bySize[class]
	if !ok {
		return nil, errorf(ClassArg, "TypeMatchSize", "class %d is not TypeClassInteger, TypeClassReal or TypeClassComplex", class)
	}
	if d := m[size]; d != nil {
		return d, nil
	}
	return nil, errorf(ClassArg, "TypeMatchSize", "no type of class %d has %d bytes", class, size)
}

// TypeCreateF90Real returns the predefined datatype of the floating-point type with at
// least p decimal digits of precision and a decimal exponent range of at least r, as
// Fortran's selected_real_kind(p, r) chooses (MPI_Type_create_f90_real): Float32 or
// Float64. Either p or r (not both) may be Undefined. Go has no wider floating-point
// type, so a wider request is an error of class ClassArg. The handle is predefined: it
// must not be freed.
func TypeCreateF90Real(p, r int) (*Datatype, error) {
	return f90Real("TypeCreateF90Real", p, r, Float32, Float64)
}

// TypeCreateF90Complex is TypeCreateF90Real for complex numbers whose parts have
// precision p and range r (MPI_Type_create_f90_complex): Complex64 or Complex128.
func TypeCreateF90Complex(p, r int) (*Datatype, error) {
	return f90Real("TypeCreateF90Complex", p, r, Complex64, Complex128)
}

func f90Real(op string, p, r int, single, double *Datatype) (*Datatype, error) {
	if p == Undefined && r == Undefined {
		return nil, errorf(ClassArg, op, "p and r are both Undefined; at most one may be")
	}
	if p == Undefined {
		p = 0
	}
	if r == Undefined {
		r = 0
	}
	switch {
	case p <= 6 && r <= 37:
		return single, nil
	case p <= 15 && r <= 307:
		return double, nil
	}
	return nil, errorf(ClassArg, op, "no Go type has precision %d and range %d (float64: 15 digits, range 307)", p, r)
}

// TypeCreateF90Integer returns the predefined datatype of the smallest integer type
// holding every n with -10^r < n < 10^r, as Fortran's selected_int_kind(r) chooses
// (MPI_Type_create_f90_integer): Int8 to Int64; a wider request is an error of class
// ClassArg. The handle is predefined: it must not be freed.
func TypeCreateF90Integer(r int) (*Datatype, error) {
	switch {
	case r <= 2:
		return Int8, nil
	case r <= 4:
		return Int16, nil
	case r <= 9:
		return Int32, nil
	case r <= 18:
		return Int64, nil
	}
	return nil, errorf(ClassArg, "TypeCreateF90Integer", "no Go integer type has range %d (int64: 18)", r)
}
