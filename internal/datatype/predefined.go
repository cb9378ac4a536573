package datatype

// The predefined types. They are committed and cannot be freed. Their sizes
// are Go's on 64-bit platforms, which are also their external32 sizes (Go's
// int and uint are 8 bytes in both).
var (
	Int8       = basic("int8", KindInt8, 1, 1)
	Int16      = basic("int16", KindInt16, 2, 2)
	Int32      = basic("int32", KindInt32, 4, 4)
	Int64      = basic("int64", KindInt64, 8, 8)
	Int        = basic("int", KindInt, 8, 8)
	Uint8      = basic("uint8", KindUint8, 1, 1)
	Uint16     = basic("uint16", KindUint16, 2, 2)
	Uint32     = basic("uint32", KindUint32, 4, 4)
	Uint64     = basic("uint64", KindUint64, 8, 8)
	Uint       = basic("uint", KindUint, 8, 8)
	Float32    = basic("float32", KindFloat32, 4, 4)
	Float64    = basic("float64", KindFloat64, 8, 8)
	Complex64  = basic("complex64", KindComplex64, 8, 4)
	Complex128 = basic("complex128", KindComplex128, 16, 8)
	Bool       = basic("bool", KindBool, 1, 1)
	// Byte is raw bytes (MPI_BYTE); external32 leaves it as is.
	Byte = basic("byte", KindByte, 1, 1)
	// Packed is the type of packed data (MPI_PACKED).
	Packed = basic("packed", KindByte, 1, 1)

	// The pair types for MAXLOC and MINLOC, laid out as the C structs.
	Float32Int32 = pair("float32int32", KindFloat32Int32, Float32, 8)  // MPI_FLOAT_INT
	Float64Int32 = pair("float64int32", KindFloat64Int32, Float64, 16) // MPI_DOUBLE_INT
	Int64Int32   = pair("int64int32", KindInt64Int32, Int64, 16)       // MPI_LONG_INT
	Int32Int32   = pair("int32int32", KindInt32Int32, Int32, 8)        // MPI_2INT
	Int16Int32   = pair("int16int32", KindInt16Int32, Int16, 8)        // MPI_SHORT_INT
)

// Types of C's elements whose external32 form differs from the Go type of the
// same size and arithmetic (MPI 4.1 §19.3.5): for the C ABI, which gives them
// the MPI names. They move and reduce as the Go type of their kind; only
// PackExternal and UnpackExternal treat them differently.
var (
	CLong  = xbasic8("long", Int64, xrep{op: xNarrowS, n: 1, ns: 8, xs: 4})   // MPI_LONG: 4 bytes in external32
	CUlong = xbasic8("ulong", Uint64, xrep{op: xNarrowU, n: 1, ns: 8, xs: 4}) // MPI_UNSIGNED_LONG
	Wchar  = xbasic8("wchar", Int32, xrep{op: xNarrowU, n: 1, ns: 4, xs: 2})  // MPI_WCHAR: 2 bytes (Unicode)
	// LongDouble is x87 extended precision in 16 bytes: it moves as bytes and
	// converts (IEEE binary128 in external32); its kind gives reductions its
	// arithmetic (internal/op).
	LongDouble        = kinded(KindLongDouble, xbasic8("longdouble", Byte16, xrep{op: xLongDouble, n: 1, ns: 16, xs: 16}))
	LongDoubleComplex = kinded(KindLongDoubleComplex, xbasic8("longdoublecomplex", Byte32, xrep{op: xLongDouble, n: 2, ns: 16, xs: 16}))
	// CLongInt is MPI_LONG_INT ({long; int}, 8 bytes in external32).
	CLongInt = pair("longint", KindInt64Int32, CLong, 16)
	// LongDoubleInt is MPI_LONG_DOUBLE_INT ({long double; int}, 20 bytes of data).
	LongDoubleInt = pair("longdoubleint", KindLongDoubleInt, LongDouble, 32)
)

// kinded gives the new predefined type t the element kind k.
func kinded(k Kind, t *Type) *Type {
	t.kind = k
	return t
}

// Byte16 and Byte32 are 16 and 32 raw bytes, the native part of the long
// double types.
var (
	Byte16 = basic("byte16", KindByte, 16, 16)
	Byte32 = basic("byte32", KindByte, 32, 16)
)

// Swapped returns a predefined type of size bytes that moves as raw bytes and
// whose external32 form swaps each unit bytes (unit divides size): the
// optional Fortran types mpigo has no arithmetic for (MPI_REAL2, MPI_COMPLEX4,
// MPI_INTEGER16, MPI_REAL16, MPI_COMPLEX32, MPI_LOGICAL16).
func Swapped(name string, size, unit int64) *Type {
	if unit <= 0 || size%unit != 0 {
		panic("datatype: Swapped: unit must divide size")
	}
	return xbasic8(name, basic(name, KindByte, size, unit), xrep{op: xSwap, n: size / unit, ns: unit, xs: unit})
}

// xbasic8 returns a new predefined type like like, with the external32 form x.
func xbasic8(name string, like *Type, x xrep) *Type {
	t := &Type{name: name, kind: like.kind, comb: CombinerNamed, size: like.size, ub: like.ub,
		tub: like.tub, align: like.align, predefined: true, xsize: x.n * x.xs, xconv: true, xr: &x}
	mustCommit(t)
	return t
}

// Predefined lists every predefined type, in Kind order then Packed.
var Predefined = []*Type{Int8, Int16, Int32, Int64, Int, Uint8, Uint16, Uint32, Uint64, Uint,
	Float32, Float64, Complex64, Complex128, Bool, Byte, Float32Int32, Float64Int32, Int64Int32,
	Int32Int32, Int16Int32, Packed}

// ForKind returns the predefined type of kind k, or nil for KindNone.
func ForKind(k Kind) *Type {
	switch k {
	case KindLongDouble:
		return LongDouble
	case KindLongDoubleComplex:
		return LongDoubleComplex
	case KindLongDoubleInt:
		return LongDoubleInt
	}
	for _, t := range Predefined {
		if t.kind == k && t != Packed {
			return t
		}
	}
	return nil
}

func basic(name string, k Kind, size, align int64) *Type {
	t := &Type{name: name, kind: k, comb: CombinerNamed, size: size, ub: size, tub: size,
		align: align, predefined: true, xsize: size}
	mustCommit(t)
	return t
}

// pair builds {first; int32} with the int at the first's size rounded up to 4.
func pair(name string, k Kind, first *Type, extent int64) *Type {
	off := (first.size + 3) &^ 3
	t := &Type{name: name, kind: k, comb: CombinerNamed, size: first.size + 4, ub: extent,
		tub: off + 4, align: max(first.align, 4), predefined: true,
		def: def{op: defBlocks, blocks: []block{{0, 1, first}, {off, 1, Int32}}}}
	var c checked
	t.external(&c)
	mustCommit(t)
	return t
}

func mustCommit(t *Type) {
	_ = t.Commit()
	if err := t.prepare(); err != nil {
		panic("datatype: predefined " + t.name + ": " + err.Error())
	}
}

// Null is what MPI_DATATYPE_NULL stands for where a call's count is 0 and a program
// may pass it (internal/mpir's NullFor): a committed type of no bytes, no elements and
// no extent, named as the handle is. No handle names it and nothing frees it.
var Null = func() *Type {
	t, err := Contiguous(0, Byte)
	if err != nil {
		panic("datatype: the null type: " + err.Error())
	}
	t.name = "MPI_DATATYPE_NULL"
	mustCommit(t)
	return t
}()
