package mpir

import (
	"slices"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
)

// predefs are predefined objects by MPI name, as a face makes them; lookup finds
// them, and only them.
type predefs map[string]*Datatype

func newPredefs(ts map[string]*datatype.Type) predefs {
	p := predefs{}
	for name, t := range ts {
		d := NewPredefined(name, t)
		d.Handle = name
		p[name] = d
	}
	return p
}

func (p predefs) lookup(name string) *Datatype { return p[name] }

// classOf fails t unless err is of class want.
func classOf(t *testing.T, what string, err error, want core.ErrorClass) {
	t.Helper()
	if got := core.ClassOf(err); got != want {
		t.Errorf("%s: %v (class %v), want class %v", what, err, got, want)
	}
}

// TestDecodeLargeCounts: each constructor's type, made by the int form and by the
// large-count form, decodes as MPI 4.1 section 5.1.13 says for each form of the query:
// the large-count form's counts apart, the int query refusing them.
func TestDecodeLargeCounts(t *testing.T) {
	c := newPredefs(map[string]*datatype.Type{"MPI_INT": datatype.Int32, "MPI_DOUBLE": datatype.Float64})
	i32, f64 := c["MPI_INT"], c["MPI_DOUBLE"]
	vec, err := TypeVector("Type_vector", 3, 2, 5, f64, false)
	if err != nil {
		t.Fatal(err)
	}
	type made func(large bool) (*Datatype, error)
	cases := []struct {
		name                string
		mk                  made
		comb                datatype.Combiner
		ints, addrs, counts []int64 // the large form's; nil counts: the int form's ints and addrs
		smallInts, smallAs  []int64
	}{
		{"contiguous", func(l bool) (*Datatype, error) { return TypeContiguous("c", 5, i32, l) }, datatype.CombinerContiguous,
			nil, nil, []int64{5}, []int64{5}, nil},
		{"vector", func(l bool) (*Datatype, error) { return TypeVector("v", 3, 2, 5, f64, l) }, datatype.CombinerVector,
			nil, nil, []int64{3, 2, 5}, []int64{3, 2, 5}, nil},
		{"hvector", func(l bool) (*Datatype, error) { return TypeHvector("h", 3, 2, 40, i32, l) }, datatype.CombinerHvector,
			nil, nil, []int64{3, 2, 40}, []int64{3, 2}, []int64{40}},
		{"indexed", func(l bool) (*Datatype, error) {
			return TypeIndexed("i", []int32{2, 1}, []int32{1, 5}, i32, l)
		}, datatype.CombinerIndexed, nil, nil, []int64{2, 2, 1, 1, 5}, []int64{2, 2, 1, 1, 5}, nil},
		{"hindexed", func(l bool) (*Datatype, error) {
			return TypeHindexed("hi", []int64{1, 2}, []int64{40, 0}, i32, l)
		}, datatype.CombinerHindexed, nil, nil, []int64{2, 1, 2, 40, 0}, []int64{2, 1, 2}, []int64{40, 0}},
		{"indexed_block", func(l bool) (*Datatype, error) {
			return TypeIndexedBlock("ib", 2, []int64{4, 0, 9}, i32, l)
		}, datatype.CombinerIndexedBlock, nil, nil, []int64{3, 2, 4, 0, 9}, []int64{3, 2, 4, 0, 9}, nil},
		{"hindexed_block", func(l bool) (*Datatype, error) {
			return TypeHindexedBlock("hb", 1, []int64{8, 0, 32}, f64, l)
		}, datatype.CombinerHindexedBlock, nil, nil, []int64{3, 1, 8, 0, 32}, []int64{3, 1}, []int64{8, 0, 32}},
		{"struct", func(l bool) (*Datatype, error) {
			return TypeStruct("s", []int64{1, 2}, []int64{0, 8}, []*Datatype{i32, vec}, l)
		}, datatype.CombinerStruct, nil, nil, []int64{2, 1, 2, 0, 8}, []int64{2, 1, 2}, []int64{0, 8}},
		{"subarray", func(l bool) (*Datatype, error) {
			return TypeSubarray("sa", []int64{4, 6}, []int64{2, 3}, []int64{1, 2}, datatype.OrderFortran, i32, l)
		}, datatype.CombinerSubarray, []int64{2, 1}, nil, []int64{4, 6, 2, 3, 1, 2}, []int64{2, 4, 6, 2, 3, 1, 2, 1}, nil},
		{"darray", func(l bool) (*Datatype, error) {
			return TypeDarray("da", 4, 1, []int64{6, 4}, []datatype.Distribution{datatype.DistributeCyclic, datatype.DistributeBlock},
				[]int64{2, datatype.DefaultDarg}, []int64{2, 2}, datatype.OrderC, i32, l)
		}, datatype.CombinerDarray, []int64{4, 1, 2, 2, 1, 2, -1, 2, 2, 0}, nil, []int64{6, 4},
			[]int64{4, 1, 2, 6, 4, 2, 1, 2, -1, 2, 2, 0}, nil},
		{"resized", func(l bool) (*Datatype, error) { return TypeResized("r", vec, -4, 40, l) }, datatype.CombinerResized,
			nil, nil, []int64{-4, 40}, nil, []int64{-4, 40}},
	}
	for _, k := range cases {
		small, err := k.mk(false)
		if err != nil {
			t.Fatalf("%s: %v", k.name, err)
		}
		large, err := k.mk(true)
		if err != nil {
			t.Fatalf("%s large: %v", k.name, err)
		}
		for _, q := range []bool{false, true} { // either query decodes the int form's type
			e, err := TypeEnvelope("e", small, q)
			want := Envelope{k.comb, len(k.smallInts), len(k.smallAs), 0, e.Types}
			if err != nil || e != want {
				t.Errorf("%s: envelope (large query %v) %+v, %v; want %+v", k.name, q, e, err, want)
			}
			c, err := TypeContents("c", small, q)
			if err != nil || !slices.Equal(c.Ints, k.smallInts) || !slices.Equal(c.Addrs, k.smallAs) || len(c.Counts) != 0 {
				t.Errorf("%s: contents (large query %v) %+v, %v; want ints %v addrs %v", k.name, q, c, err, k.smallInts, k.smallAs)
			}
		}
		e, err := TypeEnvelope("e", large, true)
		want := Envelope{k.comb, len(k.ints), len(k.addrs), len(k.counts), e.Types}
		if err != nil || e != want {
			t.Errorf("%s large: envelope %+v, %v; want %+v", k.name, e, err, want)
		}
		c, err := TypeContents("c", large, true)
		if err != nil || !slices.Equal(c.Ints, k.ints) || !slices.Equal(c.Addrs, k.addrs) || !slices.Equal(c.Counts, k.counts) {
			t.Errorf("%s large: contents %+v, %v; want %v %v %v", k.name, c, err, k.ints, k.addrs, k.counts)
		}
		_, err = TypeEnvelope("Type_get_envelope", large, false)
		classOf(t, k.name+": the int envelope of a large-count type", err, core.ClassType)
		_, err = TypeContents("Type_get_contents", large, false)
		classOf(t, k.name+": the int contents of a large-count type", err, core.ClassType)
	}
}

// TestDecodeParts: the datatypes decoding gives back: a predefined one as itself, a
// derived one as a new object over a copy that outlives the original's Free, with its
// name, form and parts; named and f90 types' envelopes; where the enumerated
// arguments of a subarray and a darray are.
func TestDecodeParts(t *testing.T) {
	c := newPredefs(map[string]*datatype.Type{"MPI_INT": datatype.Int32, "MPI_FLOAT": datatype.Float32})
	i32 := c["MPI_INT"]
	big, err := TypeContiguous("c", 7, i32, true)
	if err != nil {
		t.Fatal(err)
	}
	big.SetName("seven")
	st, err := TypeStruct("s", []int64{1, 1}, []int64{0, 64}, []*Datatype{i32, big}, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := TypeFree("f", big, nil); err != nil {
		t.Fatal(err)
	}
	got, err := TypeContents("c", st, false)
	if err != nil {
		t.Fatal(err)
	}
	p := got.Types[1]
	if got.Types[0] != i32 || p == big || p.Name() != "seven" || p.Predefined() || p.Type().IsFreed() {
		t.Errorf("parts %v, %v (%q): want MPI_INT itself and a live copy of the freed part, named", got.Types[0], p, p.Name())
	}
	if e, err := TypeEnvelope("e", p, true); err != nil || e.Counts != 1 {
		t.Errorf("the copy's envelope %+v, %v: want its large count kept", e, err)
	}
	if e, err := TypeEnvelope("e", i32, false); err != nil || e != (Envelope{}) {
		t.Errorf("MPI_INT's envelope %+v, %v; want MPI_COMBINER_NAMED and nothing", e, err)
	}
	_, err = TypeContents("Type_get_contents", i32, true)
	classOf(t, "contents of a named type", err, core.ClassArg)

	sa, _ := TypeSubarray("sa", []int64{4}, []int64{2}, []int64{1}, datatype.OrderFortran, i32, true)
	da, _ := TypeDarray("da", 2, 0, []int64{8, 3}, []datatype.Distribution{datatype.DistributeBlock, datatype.DistributeNone},
		[]int64{datatype.DefaultDarg, 3}, []int64{2, 1}, datatype.OrderC, i32, false)
	for _, d := range []*Datatype{sa, da} {
		for _, large := range []bool{d == sa, true} { // the int query cannot decode sa
			c, err := TypeContents("c", d, large)
			if err != nil {
				t.Fatal(err)
			}
			if *c.Order() != c.Ints[len(c.Ints)-1] {
				t.Errorf("%v: Order is not the last integer", c.Combiner)
			}
			if c.Combiner == datatype.CombinerDarray &&
				(!slices.Equal(c.Distribs(), []int64{1, 0}) || !slices.Equal(c.Dargs(), []int64{-1, 3})) {
				t.Errorf("darray: distribs %v dargs %v, want [1 0] [-1 3]", c.Distribs(), c.Dargs())
			}
		}
	}
}

// TestDatatypeArgs: the classes of a constructor's bad arguments, and what cannot be
// freed.
func TestDatatypeArgs(t *testing.T) {
	c := newPredefs(map[string]*datatype.Type{"MPI_INT": datatype.Int32})
	i32 := c["MPI_INT"]
	freed, _ := TypeContiguous("c", 2, i32, false)
	if err := TypeFree("f", freed, nil); err != nil {
		t.Fatal(err)
	}
	for _, k := range []struct {
		name string
		err  error
		want core.ErrorClass
	}{
		{"null oldtype", second(TypeContiguous("c", 1, nil, false)), core.ClassType},
		{"freed oldtype", second(TypeVector("v", 1, 1, 1, freed, false)), core.ClassType},
		{"negative count", second(TypeContiguous("c", -1, i32, false)), core.ClassCount},
		{"negative blocklength", second(TypeHvector("h", 1, -2, 8, i32, true)), core.ClassCount},
		{"negative block in an index", second(TypeIndexed("i", []int64{1, -1}, []int64{0, 4}, i32, false)), core.ClassCount},
		{"null struct member", second(TypeStruct("s", []int64{1}, []int64{0}, []*Datatype{nil}, false)), core.ClassType},
		{"subarray past its array", second(TypeSubarray("sa", []int64{4}, []int64{3}, []int64{2}, datatype.OrderC, i32, false)), core.ClassArg},
		{"darray of a grid too small", second(TypeDarray("da", 4, 0, []int64{8}, []datatype.Distribution{datatype.DistributeBlock},
			[]int64{datatype.DefaultDarg}, []int64{2}, datatype.OrderC, i32, false)), core.ClassArg},
		{"free a predefined type", TypeFree("f", i32, nil), core.ClassType},
		{"free twice", TypeFree("f", freed, nil), core.ClassType},
		{"commit the null type", TypeCommit("c", nil), core.ClassType},
	} {
		classOf(t, k.name, k.err, k.want)
	}
}

func second[T any](_ T, err error) error { return err }

// TestNames: a predefined type is named by its MPI name, a derived one not; a long
// name is cut; the null datatype has a name.
func TestNames(t *testing.T) {
	d := NewPredefined("MPI_INT", datatype.Int32)
	if d.Name() != "MPI_INT" || d.MPIName() != "MPI_INT" {
		t.Errorf("predefined: %q %q", d.Name(), d.MPIName())
	}
	d.SetName(strings.Repeat("x", 200))
	if len(d.Name()) != MaxObjectName || d.MPIName() != "MPI_INT" {
		t.Errorf("after a long SetName: %d bytes, MPI name %q", len(d.Name()), d.MPIName())
	}
	if (*Datatype)(nil).Name() != "MPI_DATATYPE_NULL" {
		t.Errorf("the null datatype is named %q", (*Datatype)(nil).Name())
	}
}

// TestFind: MPI_Type_match_size first fit, Fortran before C; the pair types by value
// and index, in C's names and Go's; the f90 kinds, one object per arguments, and a
// kind the face lacks.
func TestFind(t *testing.T) {
	cf := newPredefs(map[string]*datatype.Type{
		"MPI_INTEGER4": datatype.Int32, "MPI_INT32_T": datatype.Int32, "MPI_INT": datatype.Int32, "MPI_REAL4": datatype.Float32,
		"MPI_FLOAT": datatype.Float32, "MPI_DOUBLE": datatype.Float64, "MPI_LONG_DOUBLE": datatype.LongDouble,
		"MPI_FLOAT_INT": datatype.Float32Int32, "MPI_LONG": datatype.CLong, "MPI_LONG_INT": datatype.CLongInt,
	})
	goish := newPredefs(map[string]*datatype.Type{"MPI_INT32_T": datatype.Int32, "MPI_INT64_T": datatype.Int64,
		"MPI_FLOAT": datatype.Float32, "MPI_DOUBLE": datatype.Float64, "MPI_LONG_INT": datatype.Int64Int32})
	for _, k := range []struct {
		name  string
		p     predefs
		class TypeClass
		size  int64
		want  string
	}{
		{"C integer 4", cf, TypeClassInteger, 4, "MPI_INTEGER4"},
		{"C real 4", cf, TypeClassReal, 4, "MPI_REAL4"},
		{"C real 16", cf, TypeClassReal, 16, "MPI_LONG_DOUBLE"},
		{"Go integer 4", goish, TypeClassInteger, 4, "MPI_INT32_T"},
		{"Go real 8", goish, TypeClassReal, 8, "MPI_DOUBLE"},
	} {
		d, err := TypeMatchSize("m", k.class, k.size, k.p.lookup)
		if err != nil || d.Handle != k.want {
			t.Errorf("%s: %v, %v; want %s", k.name, d, err, k.want)
		}
	}
	_, err := TypeMatchSize("m", TypeClassComplex, 8, goish.lookup)
	classOf(t, "a complex the face lacks", err, core.ClassArg)
	_, err = TypeMatchSize("m", 9, 4, cf.lookup)
	classOf(t, "no such class", err, core.ClassArg)

	for _, k := range []struct {
		p            predefs
		value, index string
		want         any // the pair's handle, or nil
	}{
		{cf, "MPI_FLOAT", "MPI_INT", "MPI_FLOAT_INT"},
		{cf, "MPI_LONG", "MPI_INT", "MPI_LONG_INT"},
		{cf, "MPI_DOUBLE", "MPI_INT", nil}, // this face has no MPI_DOUBLE_INT
		{cf, "MPI_FLOAT", "MPI_FLOAT", nil},
		{goish, "MPI_INT64_T", "MPI_INT32_T", "MPI_LONG_INT"},
		{goish, "MPI_FLOAT", "MPI_INT64_T", nil},
	} {
		d, err := TypeGetValueIndex("vi", k.p[k.value], k.p[k.index], k.p.lookup)
		if err != nil || (d == nil) != (k.want == nil) || d != nil && d.Handle != k.want {
			t.Errorf("value index (%s, %s): %v, %v; want %v", k.value, k.index, d, err, k.want)
		}
	}
	_, err = TypeGetValueIndex("vi", nil, cf["MPI_INT"], cf.lookup)
	classOf(t, "a null value type", err, core.ClassType)

	made := 0
	newHandle := func(d *Datatype) any { made++; return made }
	for _, k := range []struct {
		name    string
		p       predefs
		f       func(Lookup) (*Datatype, error)
		size    int64
		comb    datatype.Combiner
		args    []int64
		wantErr bool
	}{
		{"real(6, 30)", cf, func(l Lookup) (*Datatype, error) { return TypeCreateF90Real("f", 6, 30, l, newHandle) }, 4, datatype.CombinerF90Real, []int64{6, 30}, false},
		{"real(-, 300)", goish, func(l Lookup) (*Datatype, error) { return TypeCreateF90Real("f", core.Undefined, 300, l, newHandle) }, 8, datatype.CombinerF90Real, []int64{core.Undefined, 300}, false},
		{"real(18, -) (x87)", cf, func(l Lookup) (*Datatype, error) { return TypeCreateF90Real("f", 18, core.Undefined, l, newHandle) }, 16, datatype.CombinerF90Real, []int64{18, core.Undefined}, false},
		{"real(18, -) without long double", goish, func(l Lookup) (*Datatype, error) { return TypeCreateF90Real("f", 18, core.Undefined, l, newHandle) }, 0, 0, nil, true},
		{"integer(9)", goish, func(l Lookup) (*Datatype, error) { return TypeCreateF90Integer("f", 9, l, newHandle) }, 4, datatype.CombinerF90Integer, []int64{9}, false},
		{"integer(40)", cf, func(l Lookup) (*Datatype, error) { return TypeCreateF90Integer("f", 40, l, newHandle) }, 0, 0, nil, true},
		{"real(undefined twice)", cf, func(l Lookup) (*Datatype, error) {
			return TypeCreateF90Real("f", core.Undefined, core.Undefined, l, newHandle)
		}, 0, 0, nil, true},
	} {
		d, err := k.f(k.p.lookup)
		if k.wantErr {
			classOf(t, k.name, err, core.ClassArg)
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", k.name, err)
			continue
		}
		again, _ := k.f(k.p.lookup)
		c, cerr := TypeContents("c", d, false)
		if again != d || d.Type().Size() != k.size || cerr != nil || c.Combiner != k.comb || !slices.Equal(c.Ints, k.args) || !d.Predefined() {
			t.Errorf("%s: %v (size %d), again %v, contents %+v %v; want one predefined object of %d bytes, %v %v",
				k.name, d, d.Type().Size(), again, c, cerr, k.size, k.comb, k.args)
		}
		classOf(t, k.name+": free", TypeFree("f", d, nil), core.ClassType)
	}
}

// TestCountsAndPacking: MPI_Get_count and MPI_Get_elements of a status's bytes, the
// int forms' MPI_UNDEFINED, MPI_Status_set_elements, and the checks of packing.
func TestCountsAndPacking(t *testing.T) {
	st, err := datatype.Struct([]int64{1, 2}, []int64{0, 8}, []*datatype.Type{datatype.Float64, datatype.Int16})
	if err != nil {
		t.Fatal(err)
	}
	empty, _ := datatype.Contiguous(0, datatype.Int32)
	for _, k := range []struct {
		name         string
		t            *datatype.Type
		bytes        int64
		count, elems int64
	}{
		{"two structs", st, 24, 2, 6},
		{"a struct and its float", st, 20, core.Undefined, 4},
		{"inside a short", st, 13, core.Undefined, core.Undefined},
		{"zero size", empty, 0, 0, 0},
	} {
		if c, e := GetCount(k.t, k.bytes), GetElements(k.t, k.bytes); c != k.count || e != k.elems {
			t.Errorf("%s: count %d elements %d, want %d %d", k.name, c, e, k.count, k.elems)
		}
	}
	if FitInt(1<<31, 1<<31-1) != core.Undefined || FitInt(-5, 1<<31-1) != -5 {
		t.Error("FitInt")
	}
	if n, err := StatusElements("s", st, 4); n != 20 || err != nil {
		t.Errorf("StatusElements(4) = %d, %v; want 20", n, err)
	}
	_, err = StatusElements("s", st, -1)
	classOf(t, "negative elements", err, core.ClassCount)

	src := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	out := make([]byte, 8)
	_, err = Pack("Pack", st, src, 0, 1, out, 0)
	classOf(t, "pack an uncommitted type", err, core.ClassType)
	i16 := datatype.Int16
	for _, k := range []struct {
		name  string
		pos   int64
		count int64
		want  core.ErrorClass
	}{
		{"fits", 2, 3, core.ClassSuccess},
		{"position past the end", 9, 0, core.ClassArg},
		{"negative position", -1, 1, core.ClassArg},
		{"no room", 4, 3, core.ClassTruncate},
		{"negative count", 0, -1, core.ClassCount},
	} {
		p, err := Pack("Pack", i16, src, 0, k.count, out, k.pos)
		classOf(t, k.name, err, k.want)
		if err == nil && p != k.pos+2*k.count || err != nil && p != k.pos {
			t.Errorf("%s: position %d", k.name, p)
		}
	}
	back := make([]byte, 6)
	if p, err := Unpack("Unpack", out, 2, i16, back, 0, 3); err != nil || p != 8 || !slices.Equal(back, src[:6]) {
		t.Errorf("Unpack: %v at %d, %v", back, p, err)
	}
	_, err = Unpack("Unpack", out, 4, i16, back, 0, 3)
	classOf(t, "unpack past the input", err, core.ClassTruncate)
	if p, err := PackExternal("PackExternal", i16, src, 0, 2, out, 0); err != nil || p != 4 || out[0] != 2 || out[1] != 1 {
		t.Errorf("PackExternal: % x at %d, %v; want big-endian", out[:4], p, err)
	}
	classOf(t, "datarep native", Datarep("Pack_external", "native"), core.ClassUnsupportedDatarep)
	if err := Datarep("Pack_external", "external32"); err != nil {
		t.Error(err)
	}
}
