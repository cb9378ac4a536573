package op

import "github.com/mpigo/mpigo/internal/datatype"

// KindClass is the class of a predefined type known by its element kind alone, as
// the Go face's element types and datatypes are: Go's integers are C integers, its
// floats floating point, complex64 and complex128 complex, bool logical, the byte
// type byte, and the pair kinds pairs. KindNone is Mixed.
func KindClass(k Kind) Class {
	switch k {
	case datatype.KindInt8, datatype.KindInt16, datatype.KindInt32, datatype.KindInt64, datatype.KindInt,
		datatype.KindUint8, datatype.KindUint16, datatype.KindUint32, datatype.KindUint64, datatype.KindUint:
		return CInteger
	case datatype.KindFloat32, datatype.KindFloat64, datatype.KindLongDouble:
		return Floating
	case datatype.KindComplex64, datatype.KindComplex128, datatype.KindLongDoubleComplex:
		return Complex
	case datatype.KindBool:
		return Logical
	case datatype.KindByte:
		return Byte
	case datatype.KindFloat32Int32, datatype.KindFloat64Int32, datatype.KindInt64Int32,
		datatype.KindInt32Int32, datatype.KindInt16Int32, datatype.KindLongDoubleInt:
		return Pair
	}
	return Mixed
}

// NamedClass is the class of the predefined datatype named name (its MPI name,
// "MPI_INT"), by the lists of MPI 4.1 §6.9.2 and §6.9.4, optional types included;
// Other for a predefined type in none of them, Mixed for a name that is not one.
//
// MPI_CHAR is in no list of the standard, which treats it as a printable character,
// but is a C integer here, as in MPICH: C programs reduce chars, and the standard
// leaves erroneous calls' outcome to the implementation.
func NamedClass(name string) Class {
	if c, ok := named[name]; ok {
		return c
	}
	return Mixed
}

var named = map[string]Class{}

func init() {
	for c, names := range map[Class][]string{
		CInteger: {"MPI_INT", "MPI_LONG", "MPI_SHORT", "MPI_UNSIGNED_SHORT", "MPI_UNSIGNED",
			"MPI_UNSIGNED_LONG", "MPI_LONG_LONG_INT", "MPI_LONG_LONG", "MPI_UNSIGNED_LONG_LONG",
			"MPI_SIGNED_CHAR", "MPI_UNSIGNED_CHAR", "MPI_INT8_T", "MPI_INT16_T", "MPI_INT32_T",
			"MPI_INT64_T", "MPI_UINT8_T", "MPI_UINT16_T", "MPI_UINT32_T", "MPI_UINT64_T", "MPI_CHAR"},
		FortranInteger: {"MPI_INTEGER", "MPI_INTEGER1", "MPI_INTEGER2", "MPI_INTEGER4", "MPI_INTEGER8",
			"MPI_INTEGER16"},
		Floating: {"MPI_FLOAT", "MPI_DOUBLE", "MPI_REAL", "MPI_DOUBLE_PRECISION", "MPI_LONG_DOUBLE",
			"MPI_REAL2", "MPI_REAL4", "MPI_REAL8", "MPI_REAL16"},
		Logical: {"MPI_LOGICAL", "MPI_C_BOOL", "MPI_CXX_BOOL", "MPI_LOGICAL1", "MPI_LOGICAL2",
			"MPI_LOGICAL4", "MPI_LOGICAL8", "MPI_LOGICAL16"},
		Complex: {"MPI_COMPLEX", "MPI_C_COMPLEX", "MPI_C_FLOAT_COMPLEX", "MPI_C_DOUBLE_COMPLEX",
			"MPI_C_LONG_DOUBLE_COMPLEX", "MPI_CXX_FLOAT_COMPLEX", "MPI_CXX_DOUBLE_COMPLEX",
			"MPI_CXX_LONG_DOUBLE_COMPLEX", "MPI_DOUBLE_COMPLEX", "MPI_COMPLEX4", "MPI_COMPLEX8",
			"MPI_COMPLEX16", "MPI_COMPLEX32"},
		Byte:          {"MPI_BYTE"},
		MultiLanguage: {"MPI_AINT", "MPI_OFFSET", "MPI_COUNT"},
		Pair: {"MPI_FLOAT_INT", "MPI_DOUBLE_INT", "MPI_LONG_INT", "MPI_2INT", "MPI_SHORT_INT",
			"MPI_LONG_DOUBLE_INT", "MPI_2REAL", "MPI_2DOUBLE_PRECISION", "MPI_2INTEGER"},
		Other: {"MPI_WCHAR", "MPI_CHARACTER", "MPI_PACKED"},
	} {
		for _, n := range names {
			named[n] = c
		}
	}
}
