package mpi

import (
	"reflect"

	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
)

// Dup returns a copy of d (MPI_Type_dup): the same typemap, committed if d is, with
// the attributes d's keyvals' copy functions keep.
func (d *Datatype) Dup() (*Datatype, error) {
	o, err := d.inner("TypeDup", "d")
	if err != nil {
		return nil, err
	}
	t, err := datatype.Dup(o)
	if err != nil {
		return nil, typeErr("TypeDup", err)
	}
	nd := &Datatype{t: t}
	if err := mpir.CopyAttrs("TypeDup", &d.attrs, d, &nd.attrs, nd); err != nil {
		t.Free()
		return nil, err
	}
	return nd, nil
}

// TypeOf returns the committed datatype of the Go type T, built from its real field
// offsets and padding. Types holding pointers, slices, maps, strings, interfaces,
// channels or functions are refused: their bytes mean nothing in another process.
// Each call returns a handle of its own, which may be freed without affecting others.
func TypeOf[T any]() (*Datatype, error) {
	t, err := datatype.Of(reflect.TypeFor[T]())
	if err != nil {
		return nil, typeErr("TypeOf", err)
	}
	return &Datatype{t: t.Clone(), raw: reflect.TypeFor[T]()}, nil // a clone: never predefined
}

// Commit compiles d for use in communication. Committing twice is harmless.
func (d *Datatype) Commit() error {
	o, err := d.inner("TypeCommit", "d")
	if err != nil {
		return err
	}
	return typeErr("TypeCommit", o.Commit())
}

// Free releases d (MPI_Type_free), first deleting its attributes, the last set first
// (if a delete function fails, Free returns its error and d stays); predefined types
// cannot be freed. Types built from d stay valid.
func (d *Datatype) Free() error {
	o, err := d.inner("TypeFree", "d")
	if err != nil {
		return err
	}
	if o.IsPredefined() {
		// MPI 4.1 §5.1.10: freeing a predefined datatype is erroneous; the type is the
		// argument at fault, as MPICH and Open MPI say.
		return errorf(ClassType, "TypeFree", "d is the predefined %s, which cannot be freed", o.Name())
	}
	if err := mpir.FreeAttrs("TypeFree", &d.attrs, d); err != nil {
		return err // d stays, with the attributes not deleted
	}
	return typeErr("TypeFree", o.Free())
}

// Size is the number of bytes of data in one d (MPI_Type_size).
func (d *Datatype) Size() (int64, error) {
	t, err := d.inner("TypeSize", "d")
	if err != nil {
		return 0, err
	}
	return t.Size(), nil
}

// Extent is the span one d occupies, lower to upper bound (MPI_Type_get_extent).
func (d *Datatype) Extent() (int64, error) {
	t, err := d.inner("TypeGetExtent", "d")
	if err != nil {
		return 0, err
	}
	return t.Extent(), nil
}

// LB is d's lower bound (MPI_Type_get_extent).
func (d *Datatype) LB() (int64, error) {
	t, err := d.inner("TypeGetExtent", "d")
	if err != nil {
		return 0, err
	}
	return t.LB(), nil
}

// TrueLB is the offset of the first byte d really touches (MPI_Type_get_true_extent).
func (d *Datatype) TrueLB() (int64, error) {
	t, err := d.inner("TypeGetTrueExtent", "d")
	if err != nil {
		return 0, err
	}
	return t.TrueLB(), nil
}

// TrueExtent is the span of the bytes d really touches (MPI_Type_get_true_extent).
func (d *Datatype) TrueExtent() (int64, error) {
	t, err := d.inner("TypeGetTrueExtent", "d")
	if err != nil {
		return 0, err
	}
	return t.TrueExtent(), nil
}

// Name is the name last given to d by SetName (MPI_Type_get_name): for a predefined
// type its MPI name (MPI_DOUBLE for Float64; see the list of predefined types), for a
// derived type the empty string until one is set.
func (d *Datatype) Name() (string, error) {
	if _, err := d.inner("TypeGetName", "d"); err != nil {
		return "", err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.name, nil
}

// MaxObjectName is the longest name SetName takes, in bytes (MPI_MAX_OBJECT_NAME
// less C's terminating zero).
const MaxObjectName = 127

// SetName names d, for messages and tools (MPI_Type_set_name). The name belongs to
// this handle in this process; a predefined type may be renamed too. Names longer than
// MaxObjectName bytes are refused rather than cut.
func (d *Datatype) SetName(name string) error {
	if _, err := d.inner("TypeSetName", "d"); err != nil {
		return err
	}
	if len(name) > MaxObjectName {
		return errorf(ClassArg, "TypeSetName", "name is %d bytes; the limit is MaxObjectName (%d)", len(name), MaxObjectName)
	}
	d.mu.Lock()
	d.name = name
	d.mu.Unlock()
	return nil
}

// Combiner names the constructor that made a datatype (MPI_COMBINER_*).
type Combiner = datatype.Combiner

// The combiners. TypeOf builds a Go struct as CombinerResized of CombinerStruct, and a
// Go array as CombinerContiguous.
const (
	CombinerNamed         = datatype.CombinerNamed
	CombinerDup           = datatype.CombinerDup
	CombinerContiguous    = datatype.CombinerContiguous
	CombinerVector        = datatype.CombinerVector
	CombinerHvector       = datatype.CombinerHvector
	CombinerIndexed       = datatype.CombinerIndexed
	CombinerHindexed      = datatype.CombinerHindexed
	CombinerIndexedBlock  = datatype.CombinerIndexedBlock
	CombinerHindexedBlock = datatype.CombinerHindexedBlock
	CombinerStruct        = datatype.CombinerStruct
	CombinerSubarray      = datatype.CombinerSubarray
	CombinerDarray        = datatype.CombinerDarray
	CombinerResized       = datatype.CombinerResized
)

// Envelope returns the combiner that built d and the lengths of the integers,
// addresses and datatypes Contents returns (MPI_Type_get_envelope).
func (d *Datatype) Envelope() (comb Combiner, nints, naddrs, ntypes int, err error) {
	t, err := d.inner("TypeGetEnvelope", "d")
	if err != nil {
		return 0, 0, 0, 0, err
	}
	comb, nints, naddrs, ntypes = t.Envelope()
	return comb, nints, naddrs, ntypes, nil
}

// Contents returns the arguments d's constructor was called with, so that d can be
// rebuilt (MPI_Type_get_contents), in the standard's order for each combiner:
//
//	Contiguous     ints: count                          types: old
//	Vector         ints: count, blocklen, stride        types: old
//	Hvector        ints: count, blocklen; addrs: stride types: old
//	Indexed        ints: n, blocklens[n], displs[n]     types: old
//	Hindexed       ints: n, blocklens[n]; addrs: displs types: old
//	IndexedBlock   ints: n, blocklen, displs[n]         types: old
//	HindexedBlock  ints: n, blocklen; addrs: displs     types: old
//	Struct         ints: n, blocklens[n]; addrs: displs types: types[n]
//	Subarray       ints: nd, sizes, subsizes, starts, order            types: old
//	Darray         ints: size, rank, nd, gsizes, distribs, dargs, psizes, order  types: old
//	Resized        addrs: lb, extent                    types: old
//	Dup                                                 types: old
//
// Predefined types come back as the package's variables (Float64, ...); a derived one
// as a new handle to the same layout, valid even if the type it was built from has been
// freed, which the caller may Free. A predefined type has no contents (CombinerNamed):
// asking for them is an error of class ErrArg.
func (d *Datatype) Contents() (ints, addrs []int, types []*Datatype, err error) {
	t, err := d.inner("TypeGetContents", "d")
	if err != nil {
		return nil, nil, nil, err
	}
	if c, _, _, _ := t.Envelope(); c == CombinerNamed {
		return nil, nil, nil, errorf(ClassArg, "TypeGetContents", "%s is a predefined type (CombinerNamed): it has no contents", t.Name())
	}
	is, as, ts, err := t.Contents()
	if err != nil {
		return nil, nil, nil, typeErr("TypeGetContents", err)
	}
	types = make([]*Datatype, len(ts))
	for i, x := range ts {
		types[i] = handle(x.Clone())
	}
	return ints64(is), ints64(as), types, nil
}

func ints64(v []int64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// TypeGetValueIndex returns the predefined pair type of Maxloc and Minloc for a value
// of type value and an index of type index (MPI_Type_get_value_index): Float32Int32,
// Float64Int32, Int64Int32 (for Int64 or Int values), Int32Int32 or Int16Int32, all with
// an Int32 index. Where no predefined pair type exists it returns nil
// (MPI_DATATYPE_NULL) and no error, as the standard says; a nil argument is an error.
func TypeGetValueIndex(value, index *Datatype) (*Datatype, error) {
	v, err := value.inner("TypeGetValueIndex", "value")
	if err != nil {
		return nil, err
	}
	x, err := index.inner("TypeGetValueIndex", "index")
	if err != nil {
		return nil, err
	}
	if x != datatype.Int32 {
		return nil, nil
	}
	switch v {
	case datatype.Float32:
		return Float32Int32, nil
	case datatype.Float64:
		return Float64Int32, nil
	case datatype.Int64, datatype.Int:
		return Int64Int32, nil
	case datatype.Int32:
		return Int32Int32, nil
	case datatype.Int16:
		return Int16Int32, nil
	}
	return nil, nil
}

// PackExternalSize is the number of bytes PackExternal needs for count items of dt in
// the external32 representation (MPI_Pack_external_size).
func PackExternalSize(count int, dt *Datatype) (int, error) {
	t, err := dt.inner("PackExternalSize", "dt")
	if err != nil {
		return 0, err
	}
	n, err := t.External32Size(int64(count))
	return int(n), typeErr("PackExternalSize", err)
}

// GetCount is the number of whole items of dt a message filled, or Undefined when it
// filled part of one (MPI_Get_count with a datatype). A datatype of size zero counts
// zero.
func (s Status) GetCount(dt *Datatype) (int, error) {
	t, err := dt.inner("GetCount", "dt")
	if err != nil {
		return 0, err
	}
	n := t.Size()
	switch {
	case n == 0:
		return 0, nil
	case s.bytes%n != 0:
		return Undefined, nil
	}
	return int(s.bytes / n), nil
}

// GetElements is the number of basic elements a message filled (MPI_Get_elements,
// MPI 4.1 §5.1.11): the predefined types inside dt's typemap, counted through a partly
// filled last item: two items and one float64 of a type of three float64 count 7, where
// GetCount says Undefined. The pair types count two elements each. It is
// Undefined when the message ends inside a basic element.
func (s Status) GetElements(dt *Datatype) (int, error) {
	t, err := dt.inner("GetElements", "dt")
	if err != nil {
		return 0, err
	}
	n, ok := t.ElementsIn(s.bytes)
	if !ok {
		return Undefined, nil
	}
	return int(n), nil
}
