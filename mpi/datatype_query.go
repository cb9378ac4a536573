package mpi

import (
	"math"
	"reflect"

	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
)

// Dup returns a copy of d (MPI_Type_dup): the same typemap, committed if d is, with
// the attributes d's keyvals' copy functions keep.
func (d *Datatype) Dup() (*Datatype, error) {
	m, err := mpir.TypeDup("TypeDup", d.obj())
	if err != nil {
		return nil, err
	}
	nd := handleOf(m)
	if err := mpir.CopyAttrs("TypeDup", &d.m.Attrs, d, &m.Attrs, nd); err != nil {
		m.Type().Free()
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
	c := t.Clone() // a clone: never predefined
	return &Datatype{t: c, m: mpir.Wrap(c), raw: reflect.TypeFor[T]()}, nil
}

// Commit compiles d for use in communication. Committing twice is harmless.
func (d *Datatype) Commit() error { return mpir.TypeCommit("TypeCommit", d.obj()) }

// Free releases d (MPI_Type_free), first deleting its attributes, the last set first
// (if a delete function fails, Free returns its error and d stays); predefined types
// cannot be freed. Types built from d stay valid.
func (d *Datatype) Free() error { return mpir.TypeFree("TypeFree", d.obj(), d) }

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
// derived type the empty string until one is set. The nil Datatype, MPI_DATATYPE_NULL,
// is named "MPI_DATATYPE_NULL", as MPI names its null handles.
func (d *Datatype) Name() (string, error) {
	if d != nil {
		if _, err := d.inner("TypeGetName", "d"); err != nil {
			return "", err
		}
	}
	return d.obj().Name(), nil
}

// MaxObjectName is the longest name SetName keeps, in bytes (MPI_MAX_OBJECT_NAME
// less C's terminating zero).
const MaxObjectName = 127

// mpir keeps names of MaxObjectName bytes (these constants do not compile otherwise).
const (
	_ uint = MaxObjectName - mpir.MaxObjectName
	_ uint = mpir.MaxObjectName - MaxObjectName
)

// SetName names d, for messages and tools (MPI_Type_set_name). The name belongs to
// this handle in this process; a predefined type may be renamed too. A name longer
// than MaxObjectName bytes is cut to that length, as MPI says.
func (d *Datatype) SetName(name string) error {
	if _, err := d.inner("TypeSetName", "d"); err != nil {
		return err
	}
	d.m.SetName(name)
	return nil
}

// Combiner names the constructor that made a datatype (MPI_COMBINER_*).
type Combiner = datatype.Combiner

// The combiners. TypeOf builds a Go struct as CombinerResized of CombinerStruct, and a
// Go array as CombinerContiguous. The types TypeCreateF90Real, TypeCreateF90Complex and
// TypeCreateF90Integer return have the combiners CombinerF90Real, CombinerF90Complex
// and CombinerF90Integer.
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
	CombinerF90Real       = datatype.CombinerF90Real
	CombinerF90Complex    = datatype.CombinerF90Complex
	CombinerF90Integer    = datatype.CombinerF90Integer
)

// Envelope returns the combiner that built d and the lengths of the integers,
// addresses and datatypes Contents returns (MPI_Type_get_envelope).
func (d *Datatype) Envelope() (comb Combiner, nints, naddrs, ntypes int, err error) {
	e, err := mpir.TypeEnvelope("TypeGetEnvelope", d.obj(), false)
	return e.Combiner, e.Ints, e.Addrs, e.Types, err
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
//	F90Real, F90Complex  ints: p, r
//	F90Integer           ints: r
//
// Predefined types come back as the package's variables (Float64, ...); a derived one
// as a new handle to the same layout, valid even if the type it was built from has been
// freed, which the caller may Free. A named predefined type has no contents
// (CombinerNamed): asking for them is an error of class ErrArg.
func (d *Datatype) Contents() (ints, addrs []int, types []*Datatype, err error) {
	c, err := mpir.TypeContents("TypeGetContents", d.obj(), false)
	if err != nil {
		return nil, nil, nil, err
	}
	types = make([]*Datatype, len(c.Types))
	for i, m := range c.Types {
		types[i] = handleOf(m)
	}
	return ints64(c.Ints), ints64(c.Addrs), types, nil
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
	m, err := mpir.TypeGetValueIndex("TypeGetValueIndex", value.obj(), index.obj(), lookup)
	if m == nil || err != nil {
		return nil, err
	}
	return handleOf(m), nil
}

// PackExternalSize is the number of bytes PackExternal needs for count items of dt in
// the external32 representation (MPI_Pack_external_size).
func PackExternalSize(count int, dt *Datatype) (int, error) {
	t, err := dt.inner("PackExternalSize", "dt")
	if err != nil {
		return 0, err
	}
	n, err := mpir.PackExternalSize("PackExternalSize", t, int64(count))
	return int(n), err
}

// GetCount is the number of whole items of dt a message filled, or Undefined when it
// filled part of one (MPI_Get_count with a datatype). A datatype of size zero counts
// zero.
func (s Status) GetCount(dt *Datatype) (int, error) {
	t, err := dt.inner("GetCount", "dt")
	if err != nil {
		return 0, err
	}
	return int(mpir.FitInt(mpir.GetCount(t, s.bytes), math.MaxInt)), nil
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
	return int(mpir.FitInt(mpir.GetElements(t, s.bytes), math.MaxInt)), nil
}
