package mpi

import (
	"reflect"
	"strconv"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
)

// Datatype describes a layout of typed data in memory (MPI_Datatype): the predefined
// types, and derived types built from them that pick pieces out of a buffer (a column
// of a matrix, a halo, the fields of a struct). A derived type must be committed before
// it is used in communication; commit compiles it into tight loops. A nil *Datatype is
// MPI_DATATYPE_NULL: every call given one returns an error of class ErrType, but Name,
// which gives its name.
type Datatype struct {
	// t is m's layout, kept here for the calls that read it on every message.
	t *datatype.Type
	m *mpir.Datatype // the object, shared with mpir: name, attributes, contents
	// raw is T for TypeOf[T]'s types: T was found to hold no pointers when the
	// type was made, so Typed on a []T need not look again.
	raw reflect.Type
}

// The predefined datatypes, one per Go element type, plus the pair types of MAXLOC and
// MINLOC. Each is named (Name) after the MPI type of the same size and meaning. Go's
// int and uint have no C type of their own: they are named for their width
// (MPI_INT64_T and MPI_UINT64_T where int is 64 bits), not MPI_LONG, whose
// external32 form the standard fixes at 4 bytes, which would truncate them.
var (
	Int8       = predefined(datatype.Int8, "MPI_INT8_T")
	Int16      = predefined(datatype.Int16, "MPI_INT16_T")
	Int32      = predefined(datatype.Int32, "MPI_INT32_T")
	Int64      = predefined(datatype.Int64, "MPI_INT64_T")
	Int        = predefined(datatype.Int, intName("MPI_INT"))
	Uint8      = predefined(datatype.Uint8, "MPI_UINT8_T")
	Uint16     = predefined(datatype.Uint16, "MPI_UINT16_T")
	Uint32     = predefined(datatype.Uint32, "MPI_UINT32_T")
	Uint64     = predefined(datatype.Uint64, "MPI_UINT64_T")
	Uint       = predefined(datatype.Uint, intName("MPI_UINT"))
	Float32    = predefined(datatype.Float32, "MPI_FLOAT")
	Float64    = predefined(datatype.Float64, "MPI_DOUBLE")
	Complex64  = predefined(datatype.Complex64, "MPI_C_FLOAT_COMPLEX")
	Complex128 = predefined(datatype.Complex128, "MPI_C_DOUBLE_COMPLEX")
	Bool       = predefined(datatype.Bool, "MPI_C_BOOL")
	Byte       = predefined(datatype.Byte, "MPI_BYTE")
	Packed     = predefined(datatype.Packed, "MPI_PACKED")

	Float32Int32 = predefined(datatype.Float32Int32, "MPI_FLOAT_INT")  // {float32; int32}
	Float64Int32 = predefined(datatype.Float64Int32, "MPI_DOUBLE_INT") // {float64; int32}
	Int64Int32   = predefined(datatype.Int64Int32, "MPI_LONG_INT")     // {int64; int32}
	Int32Int32   = predefined(datatype.Int32Int32, "MPI_2INT")         // {int32; int32}
	Int16Int32   = predefined(datatype.Int16Int32, "MPI_SHORT_INT")    // {int16; int32}
)

// The predefined handles by MPI name (the first of a name: Int64, not Int) and by the
// engine's type, for the calls that find or decode a predefined type.
var (
	predefByName = map[string]*Datatype{}
	predefByType = map[*datatype.Type]*Datatype{}
)

func predefined(t *datatype.Type, name string) *Datatype {
	d := &Datatype{t: t, m: mpir.NewPredefined(name, t)}
	d.m.Handle = d
	if predefByName[name] == nil {
		predefByName[name] = d
	}
	predefByType[t] = d
	return d
}

// intName is the fixed-width MPI name of Go's int (prefix "MPI_INT") or uint
// ("MPI_UINT"): the prefix, the width in bits, "_T".
func intName(prefix string) string { return prefix + strconv.Itoa(strconv.IntSize) + "_T" }

// lookup is this package's predefined datatype of an MPI name (mpir.Lookup).
func lookup(name string) *mpir.Datatype {
	if d := predefByName[name]; d != nil {
		return d.m
	}
	return nil
}

// handleOf is the handle of the object m that mpir gives back: a predefined type's
// own (the types the engine made for a Go type's fields are found by their layout),
// else a new handle, which the caller may Free.
func handleOf(m *mpir.Datatype) *Datatype {
	if d, ok := m.Handle.(*Datatype); ok {
		return d
	}
	if d := predefByType[m.Type()]; d != nil && m.Predefined() {
		return d
	}
	d := &Datatype{t: m.Type(), m: m}
	m.Handle = d
	return d
}

// obj is d's object; nil for the nil Datatype, MPI_DATATYPE_NULL.
func (d *Datatype) obj() *mpir.Datatype {
	if d == nil {
		return nil
	}
	return d.m
}

// Order is the storage order of a multi-dimensional array.
type Order = datatype.Order

// Distribution is how Darray spreads one dimension over the process grid.
type Distribution = datatype.Distribution

const (
	OrderC           = datatype.OrderC       // row-major
	OrderFortran     = datatype.OrderFortran // column-major
	DistributeNone   = datatype.DistributeNone
	DistributeBlock  = datatype.DistributeBlock
	DistributeCyclic = datatype.DistributeCyclic
	DistributeDflt   = int(datatype.DefaultDarg)
)

func i64s(v []int) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

// wrap is the handle of a constructor's new object.
func wrap(m *mpir.Datatype, err error) (*Datatype, error) {
	if err != nil {
		return nil, err
	}
	return handleOf(m), nil
}

// inner checks d, the argument arg of op, and gives its layout.
func (d *Datatype) inner(op, arg string) (*datatype.Type, error) {
	return mpir.Usable(op, arg, d.obj())
}

// TypeContiguous is count copies of old, one after another.
func TypeContiguous(count int, old *Datatype) (*Datatype, error) {
	return wrap(mpir.TypeContiguous("TypeContiguous", int64(count), old.obj(), false))
}

// TypeVector is count blocks of blocklen elements of old, the blocks stride elements apart.
func TypeVector(count, blocklen, stride int, old *Datatype) (*Datatype, error) {
	return wrap(mpir.TypeVector("TypeVector", int64(count), int64(blocklen), int64(stride), old.obj(), false))
}

// TypeHvector is TypeVector with the stride in bytes.
func TypeHvector(count, blocklen, strideBytes int, old *Datatype) (*Datatype, error) {
	return wrap(mpir.TypeHvector("TypeHvector", int64(count), int64(blocklen), int64(strideBytes), old.obj(), false))
}

// TypeIndexed is blocks of blocklens[i] elements of old at displacements displs[i] (in elements).
func TypeIndexed(blocklens, displs []int, old *Datatype) (*Datatype, error) {
	return wrap(mpir.TypeIndexed("TypeIndexed", i64s(blocklens), i64s(displs), old.obj(), false))
}

// TypeHindexed is TypeIndexed with displacements in bytes.
func TypeHindexed(blocklens, displsBytes []int, old *Datatype) (*Datatype, error) {
	return wrap(mpir.TypeHindexed("TypeHindexed", i64s(blocklens), i64s(displsBytes), old.obj(), false))
}

// TypeIndexedBlock is blocks of the same length at displacements in elements.
func TypeIndexedBlock(blocklen int, displs []int, old *Datatype) (*Datatype, error) {
	return wrap(mpir.TypeIndexedBlock("TypeIndexedBlock", int64(blocklen), i64s(displs), old.obj(), false))
}

// TypeHindexedBlock is TypeIndexedBlock with displacements in bytes.
func TypeHindexedBlock(blocklen int, displsBytes []int, old *Datatype) (*Datatype, error) {
	return wrap(mpir.TypeHindexedBlock("TypeHindexedBlock", int64(blocklen), i64s(displsBytes), old.obj(), false))
}

// TypeStruct is blocks of blocklens[i] elements of types[i] at byte displacements displs[i].
func TypeStruct(blocklens, displsBytes []int, types []*Datatype) (*Datatype, error) {
	ms := make([]*mpir.Datatype, len(types))
	for i, d := range types {
		ms[i] = d.obj()
	}
	return wrap(mpir.TypeStruct("TypeStruct", i64s(blocklens), i64s(displsBytes), ms, false))
}

// TypeSubarray is the subarray of subsizes starting at starts of an array of sizes.
func TypeSubarray(sizes, subsizes, starts []int, order Order, old *Datatype) (*Datatype, error) {
	return wrap(mpir.TypeSubarray("TypeSubarray", i64s(sizes), i64s(subsizes), i64s(starts), order, old.obj(), false))
}

// TypeDarray is the part of a distributed array of gsizes that process rank of a grid
// of psizes owns (MPI_Type_create_darray).
func TypeDarray(size, rank int, gsizes []int, distribs []Distribution, dargs, psizes []int, order Order, old *Datatype) (*Datatype, error) {
	return wrap(mpir.TypeDarray("TypeDarray", int64(size), int64(rank), i64s(gsizes), distribs, i64s(dargs), i64s(psizes),
		order, old.obj(), false))
}

// TypeResized gives old a new lower bound and extent (in bytes).
func TypeResized(old *Datatype, lb, extent int) (*Datatype, error) {
	return wrap(mpir.TypeResized("TypeResized", old.obj(), int64(lb), int64(extent), false))
}

// Buf is memory paired with its layout: count items of a datatype, laid out from the
// start of a Go slice (MPI's buf, count, datatype triple). Make one with Typed.
type Buf struct {
	mem   []byte
	count int64
	dt    *datatype.Type
	err   error
}

// Typed describes count items of dt in s. The slice's element type must hold no
// pointers (for a receive would overwrite them); the datatype may not reach outside the
// slice, which is checked when the Buf is used. A nil dt (MPI_DATATYPE_NULL) describes
// no items: it is taken with a count of 0 only.
func Typed[T any](s []T, count int, dt *Datatype) Buf {
	if dt == nil || dt.t == nil {
		// The nil Datatype is MPI_DATATYPE_NULL, which no items may have (mpir.NullFor).
		t, err := mpir.NullFor("Typed", "dt", int64(count))
		return Buf{count: int64(count), dt: t, err: err}
	}
	if dt.t.IsFreed() {
		// Freed, the handle is MPI_DATATYPE_NULL to a new call (MPI 4.1 §5.1.9);
		// calls already under way with it finish.
		return Buf{err: errorf(ClassType, "Typed", "dt (%s) has been freed", dt.t.Name())}
	}
	if count < 0 {
		return Buf{err: errorf(ClassCount, "Typed", "count %d is negative", count)}
	}
	var z T
	if dt.raw == nil || dt.raw != reflect.TypeFor[T]() {
		if err := rawErr[T](); err != nil {
			return Buf{err: errorf(ClassBuffer, "Typed", "elements of type %v cannot be sent as raw memory: %v", reflect.TypeFor[T](), err)}
		}
	}
	var mem []byte
	if len(s) > 0 {
		mem = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), uintptr(len(s))*unsafe.Sizeof(z))
	}
	return Buf{mem: mem, count: int64(count), dt: dt.t}
}

// rawErr is why elements of T cannot be sent as raw memory, or nil.
func rawErr[T any]() error {
	if k := reflect.TypeFor[T]().Kind(); k >= reflect.Bool && k <= reflect.Complex128 {
		// A bool or number holds no pointer. Skipping the cached type's map lookup
		// keeps Typed on []float64 cheap beside the calls that take its Buf.
		return nil
	}
	// TypeFor, not TypeOf of a zero value: that is nil for an interface type, whose
	// elements hold pointers.
	_, err := datatype.Of(reflect.TypeFor[T]())
	return err
}

// engineBuf turns b into what the engine moves: the bytes themselves when the layout
// is contiguous (no copy of mpigo's own), otherwise a packing layout.
func (b Buf) engineBuf(op string) (core.Buf, error) {
	eb, _, err := b.engineBufIn(op, false)
	return eb, err
}

// lentBuf is engineBuf for a blocking call: a packing layout comes from the pool, and
// the caller Returns it (nil when none was needed) once the call is over.
func (b Buf) lentBuf(op string) (core.Buf, *datatype.Layout, error) {
	return b.engineBufIn(op, true)
}

func (b Buf) engineBufIn(op string, lend bool) (core.Buf, *datatype.Layout, error) {
	eb, l, err := b.checkedBuf(op, lend)
	if err != nil {
		l.Return()
		return core.Buf{}, nil, err
	}
	return eb, l, nil
}

func (b Buf) checkedBuf(op string, lend bool) (core.Buf, *datatype.Layout, error) {
	if b.err != nil {
		return core.Buf{}, nil, b.err
	}
	if !b.dt.IsCommitted() {
		return core.Buf{}, nil, mpir.NotCommitted(op, "datatype", b.dt.Name())
	}
	lo, hi, err := b.dt.Span(b.count)
	if err != nil {
		return core.Buf{}, nil, typeErr(op, err)
	}
	if lo < 0 || hi > int64(len(b.mem)) {
		return core.Buf{}, nil, errorf(ClassBuffer, op, "%d items of %s span bytes [%d,%d) but the buffer has %d bytes",
			b.count, b.dt.Name(), lo, hi, len(b.mem))
	}
	if off, n, ok := b.dt.ContiguousSpan(b.count); ok {
		return core.Bytes(b.mem[off : off+n]), nil, nil
	}
	var l *datatype.Layout
	if lend {
		l = datatype.LendLayout()
	} else {
		l = new(datatype.Layout)
	}
	if err := l.Init(b.dt, b.mem, b.count, 0); err != nil {
		return core.Buf{}, l, typeErr(op, err)
	}
	if !lend {
		return core.Packed(l), nil, nil
	}
	return core.Packed(l), l, nil
}

// PackSize is the number of bytes Pack needs for count items of dt.
func PackSize(count int, dt *Datatype) (int, error) {
	t, err := mpir.UsableFor("PackSize", "dt", dt.obj(), int64(count))
	if err != nil {
		return 0, err
	}
	n, err := mpir.PackSize("PackSize", t, int64(count))
	return int(n), err
}

// packed checks the buffer and position of a packing call.
func (b Buf) packed(op string, pos *int) error {
	switch {
	case b.err != nil:
		return b.err
	case b.dt == nil:
		return errorf(ClassBuffer, op, "the buffer has no datatype (make it with Typed)")
	case pos == nil:
		return errorf(ClassArg, op, "pos is nil")
	}
	return nil
}

// Pack packs b into out at *pos and advances *pos (MPI_Pack). Too little room in out
// from *pos is an error of class ErrTruncate.
func Pack(b Buf, out []byte, pos *int) error {
	if err := b.packed("Pack", pos); err != nil {
		return err
	}
	p, err := mpir.Pack("Pack", b.dt, b.mem, 0, b.count, out, int64(*pos))
	*pos = int(p)
	return err
}

// Unpack unpacks from in at *pos into b and advances *pos (MPI_Unpack). Too few
// bytes in in from *pos is an error of class ErrTruncate.
func Unpack(in []byte, pos *int, b Buf) error {
	if err := b.packed("Unpack", pos); err != nil {
		return err
	}
	p, err := mpir.Unpack("Unpack", in, int64(*pos), b.dt, b.mem, 0, b.count)
	*pos = int(p)
	return err
}

// PackExternal packs b into out in the external32 representation (big-endian, fixed sizes).
func PackExternal(b Buf, out []byte, pos *int) error {
	if err := b.packed("PackExternal", pos); err != nil {
		return err
	}
	p, err := mpir.PackExternal("PackExternal", b.dt, b.mem, 0, b.count, out, int64(*pos))
	*pos = int(p)
	return err
}

// UnpackExternal unpacks external32 data from in at *pos into b.
func UnpackExternal(in []byte, pos *int, b Buf) error {
	if err := b.packed("UnpackExternal", pos); err != nil {
		return err
	}
	p, err := mpir.UnpackExternal("UnpackExternal", in, int64(*pos), b.dt, b.mem, 0, b.count)
	*pos = int(p)
	return err
}
