package mpir

import (
	"fmt"
	"sync"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
)

// Datatypes (MPI 4.1 chapter 5). The engine (internal/datatype) builds layouts,
// checks a constructor's arguments (counts, block lengths, the subarray and darray
// rules, overflow) and moves data; this file keeps what MPI says beside a layout,
// for both faces:
//
//   - The object a handle names (Datatype): the layout, the datatypes the
//     constructor took as the program named them (so that MPI_Type_get_contents
//     gives back MPI_INT, not some other handle of the same layout), whether a
//     large-count constructor made it, its name and its attributes.
//   - The constructors: a null or freed datatype argument is MPI_ERR_TYPE, a
//     negative count or block length MPI_ERR_COUNT, any other bad argument
//     MPI_ERR_ARG (the engine's errors, classed by core.TypeErr).
//   - Decoding (datatype_decode.go), the predefined types a call finds by size,
//     precision or value (datatype_find.go), and the counts and packing calls
//     (datatype_pack.go).
//
// A face converts its arguments (Go values, or C handles and arrays read in place),
// calls these, and converts the answer back: the ABI's numbers for combiners, orders
// and distributions stay the C face's.

// Datatype is the object a datatype handle names, in either face. A face holds a
// pointer to one per handle: a predefined handle's is made once, for the life of the
// process (NewPredefined); a constructor makes a new one.
type Datatype struct {
	t     *datatype.Type
	mpi   string      // a named predefined type's MPI name ("MPI_INT"); "" for the others
	parts []*Datatype // the constructor's datatype arguments, in its order
	large bool        // made by a large-count (_c) constructor: see datatype_decode.go
	f90   *f90        // made by MPI_Type_create_f90_*: its combiner and arguments

	// Handle is the face's own name for the object (its *mpi.Datatype, its C
	// handle), set by the face when it made it: what decoding and the finding
	// calls give back for a predefined type, which is always the same handle.
	Handle any
	// Attrs are the object's attributes (attr.go).
	Attrs Attrs

	mu   sync.Mutex
	name string
}

// MaxObjectName is the longest name, in bytes, a datatype keeps: MPI_MAX_OBJECT_NAME
// less C's terminating zero.
const MaxObjectName = 127

// NewPredefined makes the object of the predefined datatype named name (MPI_INT, ...)
// with the engine's layout t; a face makes one per predefined handle it has, and sets
// its Handle.
func NewPredefined(name string, t *datatype.Type) *Datatype {
	return &Datatype{t: t, mpi: name, name: name}
}

// Wrap is the object of a layout the engine made by itself (the mpi package's TypeOf,
// from a Go type): decoding gives its parts as the engine's types, wrapped.
func Wrap(t *datatype.Type) *Datatype { return &Datatype{t: t} }

// derived is the object of the layout t a constructor made from parts.
func derived(t *datatype.Type, large bool, parts ...*Datatype) *Datatype {
	return &Datatype{t: t, large: large, parts: parts}
}

// Type is d's layout. It never changes, so a face may keep it beside d for its
// calls that move data.
func (d *Datatype) Type() *datatype.Type { return d.t }

// MPIName is the MPI name of a named predefined type, whatever SetName has made of
// its name since; "" for the others.
func (d *Datatype) MPIName() string { return d.mpi }

// Predefined reports whether d is a predefined datatype, named or not (the types of
// MPI_Type_create_f90_*, and the engine's basic types MPI_Type_get_contents finds
// in a Go type's layout): it cannot be freed, and decoding gives it back as itself.
func (d *Datatype) Predefined() bool { return d.mpi != "" || d.f90 != nil || d.t.IsPredefined() }

// named reports whether d's combiner is MPI_COMBINER_NAMED.
func (d *Datatype) named() bool { return d.f90 == nil && (d.mpi != "" || d.t.IsPredefined()) }

// Name is d's name (MPI_Type_get_name): a named predefined type's MPI name, or what
// SetName gave it; "" for a derived type never named. The null datatype (nil) is
// named too, as the standard's predefined null handles are.
func (d *Datatype) Name() string {
	if d == nil {
		return "MPI_DATATYPE_NULL"
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.name
}

// SetName names d (MPI_Type_set_name), any datatype but the null one: a longer name
// than MaxObjectName bytes is cut to that length, as MPI 4.1 section 7.8 says.
func (d *Datatype) SetName(name string) {
	if len(name) > MaxObjectName {
		name = name[:MaxObjectName]
	}
	d.mu.Lock()
	d.name = name
	d.mu.Unlock()
}

// label is how an error names d: its name, else its combiner.
func (d *Datatype) label() string {
	if n := d.Name(); n != "" {
		return n
	}
	return d.t.Name()
}

// typeErr gives an engine error its MPI class.
func typeErr(op string, err error) error { return core.TypeErr(op, err) }

// Usable checks the datatype argument arg of a call that starts something new with
// it: not the null datatype (nil) and not freed (MPI 4.1 section 5.1.10: a freed
// handle is MPI_DATATYPE_NULL to a new call). It returns d's layout.
func Usable(op, arg string, d *Datatype) (*datatype.Type, error) {
	if d == nil {
		return nil, core.Errorf(core.ClassType, op, "%s is the null datatype (MPI_DATATYPE_NULL)", arg)
	}
	if d.t.IsFreed() {
		return nil, core.Errorf(core.ClassType, op, "%s (%s) has been freed", arg, d.label())
	}
	return d.t, nil
}

// NullFor is the layout a call reads for the null datatype (MPI_DATATYPE_NULL) as
// its datatype argument arg of count items. A count of 0 moves no data, so nothing of
// the datatype is looked at and the null datatype is taken: it is the empty type
// (datatype.Null). Real programs pass it so (NCAR ParallelIO, ESMF, PnetCDF's users),
// MPICH takes it since 4.0.1 (pmodels/mpich#4659, #6323) and the standard gives no
// meaning to the datatype of no items. Any other count is an error naming arg.
func NullFor(op, arg string, count int64) (*datatype.Type, error) {
	if count == 0 {
		return datatype.Null, nil
	}
	return nil, core.Errorf(core.ClassType, op, "%s is the null datatype (MPI_DATATYPE_NULL) for a count of %d: it is taken for a count of 0 only", arg, count)
}

// UsableFor is Usable of the datatype argument arg of count items: the null datatype
// is taken where count is 0 (NullFor).
func UsableFor(op, arg string, d *Datatype, count int64) (*datatype.Type, error) {
	if d == nil {
		return NullFor(op, arg, count)
	}
	return Usable(op, arg, d)
}

// usables is Usable of each of ds, named arg[i].
func usables(op, arg string, ds []*Datatype) ([]*datatype.Type, error) {
	ts := make([]*datatype.Type, len(ds))
	for i, d := range ds {
		t, err := Usable(op, fmt.Sprintf("%s[%d]", arg, i), d)
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	return ts, nil
}

// made is the result of a constructor: the new object, or the engine's error classed.
func made(op string, t *datatype.Type, err error, large bool, parts ...*Datatype) (*Datatype, error) {
	if err != nil {
		return nil, typeErr(op, err)
	}
	return derived(t, large, parts...), nil
}

// The constructors (MPI 4.1 section 5.1.2). large says that the program called the
// large-count form (MPI_Type_contiguous_c, ...), whose counts decode as large counts;
// the Go face's constructors are not. The index constructors take the program's
// arrays of any integer type (the C face's are read in place).

// TypeContiguous is MPI_Type_contiguous.
func TypeContiguous(op string, count int64, old *Datatype, large bool) (*Datatype, error) {
	o, err := Usable(op, "oldtype", old)
	if err != nil {
		return nil, err
	}
	t, err := datatype.Contiguous(count, o)
	return made(op, t, err, large, old)
}

// TypeVector is MPI_Type_vector.
func TypeVector(op string, count, blocklen, stride int64, old *Datatype, large bool) (*Datatype, error) {
	o, err := Usable(op, "oldtype", old)
	if err != nil {
		return nil, err
	}
	t, err := datatype.Vector(count, blocklen, stride, o)
	return made(op, t, err, large, old)
}

// TypeHvector is MPI_Type_create_hvector: the stride in bytes.
func TypeHvector(op string, count, blocklen, stride int64, old *Datatype, large bool) (*Datatype, error) {
	o, err := Usable(op, "oldtype", old)
	if err != nil {
		return nil, err
	}
	t, err := datatype.Hvector(count, blocklen, stride, o)
	return made(op, t, err, large, old)
}

// TypeIndexed is MPI_Type_indexed.
func TypeIndexed[L, D datatype.Ints](op string, blocklens []L, displs []D, old *Datatype, large bool) (*Datatype, error) {
	o, err := Usable(op, "oldtype", old)
	if err != nil {
		return nil, err
	}
	t, err := datatype.IndexedOf(blocklens, displs, o)
	return made(op, t, err, large, old)
}

// TypeHindexed is MPI_Type_create_hindexed: displacements in bytes.
func TypeHindexed[L, D datatype.Ints](op string, blocklens []L, displs []D, old *Datatype, large bool) (*Datatype, error) {
	o, err := Usable(op, "oldtype", old)
	if err != nil {
		return nil, err
	}
	t, err := datatype.HindexedOf(blocklens, displs, o)
	return made(op, t, err, large, old)
}

// TypeIndexedBlock is MPI_Type_create_indexed_block.
func TypeIndexedBlock[D datatype.Ints](op string, blocklen int64, displs []D, old *Datatype, large bool) (*Datatype, error) {
	o, err := Usable(op, "oldtype", old)
	if err != nil {
		return nil, err
	}
	t, err := datatype.IndexedBlockOf(blocklen, displs, o)
	return made(op, t, err, large, old)
}

// TypeHindexedBlock is MPI_Type_create_hindexed_block: displacements in bytes.
func TypeHindexedBlock[D datatype.Ints](op string, blocklen int64, displs []D, old *Datatype, large bool) (*Datatype, error) {
	o, err := Usable(op, "oldtype", old)
	if err != nil {
		return nil, err
	}
	t, err := datatype.HindexedBlockOf(blocklen, displs, o)
	return made(op, t, err, large, old)
}

// TypeStruct is MPI_Type_create_struct.
func TypeStruct(op string, blocklens, displs []int64, types []*Datatype, large bool) (*Datatype, error) {
	ts, err := usables(op, "array_of_types", types)
	if err != nil {
		return nil, err
	}
	t, err := datatype.Struct(blocklens, displs, ts)
	return made(op, t, err, large, types...)
}

// TypeSubarray is MPI_Type_create_subarray.
func TypeSubarray(op string, sizes, subsizes, starts []int64, order datatype.Order, old *Datatype, large bool) (*Datatype, error) {
	o, err := Usable(op, "oldtype", old)
	if err != nil {
		return nil, err
	}
	t, err := datatype.Subarray(sizes, subsizes, starts, order, o)
	return made(op, t, err, large, old)
}

// TypeDarray is MPI_Type_create_darray; a darg of datatype.DefaultDarg is
// MPI_DISTRIBUTE_DFLT_DARG.
func TypeDarray(op string, size, rank int64, gsizes []int64, distribs []datatype.Distribution, dargs, psizes []int64,
	order datatype.Order, old *Datatype, large bool) (*Datatype, error) {
	o, err := Usable(op, "oldtype", old)
	if err != nil {
		return nil, err
	}
	t, err := datatype.Darray(size, rank, gsizes, distribs, dargs, psizes, order, o)
	return made(op, t, err, large, old)
}

// TypeResized is MPI_Type_create_resized.
func TypeResized(op string, old *Datatype, lb, extent int64, large bool) (*Datatype, error) {
	o, err := Usable(op, "oldtype", old)
	if err != nil {
		return nil, err
	}
	t, err := datatype.Resized(o, lb, extent)
	return made(op, t, err, large, old)
}

// TypeDup is MPI_Type_dup: the same layout, committed if old is. The face copies
// old's attributes to the new object (CopyAttrs) once it has named it.
func TypeDup(op string, old *Datatype) (*Datatype, error) {
	o, err := Usable(op, "oldtype", old)
	if err != nil {
		return nil, err
	}
	t, err := datatype.Dup(o)
	return made(op, t, err, false, old)
}

// TypeCommit is MPI_Type_commit; a predefined type is committed already.
func TypeCommit(op string, d *Datatype) error {
	t, err := Usable(op, "datatype", d)
	if err != nil {
		return err
	}
	return typeErr(op, t.Commit())
}

// TypeFree is MPI_Type_free of d, which the face names obj: its attributes are
// deleted first, the last set first, and if a delete function fails d stays. Types
// built from d stay valid. Freeing a predefined type is erroneous (MPI 4.1 section
// 5.1.10): the datatype is the argument at fault, as MPICH and Open MPI say.
func TypeFree(op string, d *Datatype, obj any) error {
	t, err := Usable(op, "datatype", d)
	if err != nil {
		return err
	}
	if d.Predefined() {
		return core.Errorf(core.ClassType, op, "datatype %s is predefined: it cannot be freed", d.label())
	}
	if err := FreeAttrs(op, &d.Attrs, obj); err != nil {
		return err
	}
	return typeErr(op, t.Free())
}
