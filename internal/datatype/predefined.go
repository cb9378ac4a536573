package datatype

// The predefined types. They are committed and cannot be freed. Their sizes
// are Go's on 64-bit platforms, which are also the external32 sizes (Go's int
// and uint are 8 bytes, as external32's long).
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

// Predefined lists every predefined type, in Kind order then Packed.
var Predefined = []*Type{Int8, Int16, Int32, Int64, Int, Uint8, Uint16, Uint32, Uint64, Uint,
	Float32, Float64, Complex64, Complex128, Bool, Byte, Float32Int32, Float64Int32, Int64Int32,
	Int32Int32, Int16Int32, Packed}

// ForKind returns the predefined type of kind k, or nil for KindNone.
func ForKind(k Kind) *Type {
	for _, t := range Predefined {
		if t.kind == k && t != Packed {
			return t
		}
	}
	return nil
}

func basic(name string, k Kind, size, align int64) *Type {
	t := &Type{name: name, kind: k, comb: CombinerNamed, size: size, ub: size, tub: size,
		align: align, predefined: true}
	mustCommit(t)
	return t
}

// pair builds {first; int32} with the int at the first's size rounded up to 4.
func pair(name string, k Kind, first *Type, extent int64) *Type {
	off := (first.size + 3) &^ 3
	t := &Type{name: name, kind: k, comb: CombinerNamed, size: first.size + 4, ub: extent,
		tub: off + 4, align: max(first.align, 4), predefined: true,
		def: def{op: defBlocks, blocks: []block{{0, 1, first}, {off, 1, Int32}}}}
	mustCommit(t)
	return t
}

func mustCommit(t *Type) {
	if err := t.Commit(); err != nil {
		panic("datatype: predefined " + t.name + ": " + err.Error())
	}
}
