package datatype

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// stdOld is the standard's running example oldtype {(double,0),(char,8)},
// extent 16 (MPI 4.1, section 5.1.2 onwards).
func stdOld(t *testing.T) *Type {
	t.Helper()
	ty, err := Struct([]int64{1, 1}, []int64{0, 8}, []*Type{Float64, Int8})
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

// elems turns (double,d) and (char,d) lists into a typemap.
func dc(disps ...int64) []elem {
	var m []elem
	for i, d := range disps {
		m = append(m, elem{d, []int64{8, 1}[i%2]})
	}
	return m
}

func must(t *testing.T) func(*Type, error) *Type {
	return func(ty *Type, err error) *Type {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return ty
	}
}

// TestStandardExamples checks each constructor against the typemaps, sizes
// and bounds of the MPI standard's examples: the reference walker must give
// the standard's typemap, and the engine must pack that typemap.
func TestStandardExamples(t *testing.T) {
	m := must(t)
	old := stdOld(t)
	type1 := old
	tests := []struct {
		name          string
		ty            *Type
		want          []elem
		size, lb, ext int64
		tlb, textent  int64
	}{
		{"old", old, dc(0, 8), 9, 0, 16, 0, 9},
		{"contiguous(3)", m(Contiguous(3, old)), dc(0, 8, 16, 24, 32, 40), 27, 0, 48, 0, 41},
		{"vector(2,3,4)", m(Vector(2, 3, 4, old)),
			dc(0, 8, 16, 24, 32, 40, 64, 72, 80, 88, 96, 104), 54, 0, 112, 0, 105},
		{"vector(3,1,-2)", m(Vector(3, 1, -2, old)), dc(0, 8, -32, -24, -64, -56), 27, -64, 80, -64, 73},
		{"hvector(2,3,4)", m(Hvector(2, 3, 4, old)),
			dc(0, 8, 16, 24, 32, 40, 4, 12, 20, 28, 36, 44), 54, 0, 52, 0, 45},
		{"indexed((3,1),(4,0))", m(Indexed([]int64{3, 1}, []int64{4, 0}, old)),
			dc(64, 72, 80, 88, 96, 104, 0, 8), 36, 0, 112, 0, 105},
		{"hindexed((3,1),(4,0))", m(Hindexed([]int64{3, 1}, []int64{4, 0}, old)),
			dc(4, 12, 20, 28, 36, 44, 0, 8), 36, 0, 52, 0, 45},
		{"indexed_block(2,(4,0))", m(IndexedBlock(2, []int64{4, 0}, old)),
			dc(64, 72, 80, 88, 0, 8, 16, 24), 36, 0, 96, 0, 89},
		{"hindexed_block(1,(4,0))", m(HindexedBlock(1, []int64{4, 0}, old)),
			dc(4, 12, 0, 8), 18, 0, 20, 0, 13},
		// Struct example: B=(2,1,3), D=(0,16,26), T=(float,type1,char).
		{"struct", m(Struct([]int64{2, 1, 3}, []int64{0, 16, 26}, []*Type{Float32, type1, Int8})),
			[]elem{{0, 4}, {4, 4}, {16, 8}, {24, 1}, {26, 1}, {27, 1}, {28, 1}}, 20, 0, 32, 0, 29},
		{"resized(-4,24)", m(Resized(old, -4, 24)), dc(0, 8), 9, -4, 24, 0, 9},
		{"dup", m(Dup(old)), dc(0, 8), 9, 0, 16, 0, 9},
		// Negative and zero extents (§5.1.7 allows any): copies step back,
		// and the markers of the copies give the bounds: lb markers at
		// 8-16j, ub markers at -8-16j.
		{"resized(8,-16)", m(Resized(old, 8, -16)), dc(0, 8), 9, 8, -16, 0, 9},
		{"contiguous(2,resized(8,-16))", m(Contiguous(2, m(Resized(old, 8, -16)))),
			dc(0, 8, -16, -8), 18, -8, 0, -16, 25},
		{"contiguous(3,resized(8,-16))", m(Contiguous(3, m(Resized(old, 8, -16)))),
			dc(0, 8, -16, -8, -32, -24), 27, -24, 16, -32, 41},
		{"contiguous(3,resized(0,0))", m(Contiguous(3, m(Resized(Int32, 0, 0)))),
			[]elem{{0, 4}, {0, 4}, {0, 4}}, 12, 0, 0, 0, 4},
		// Markers win over data: the int at 16 does not raise ub, and the
		// struct is not padded to its alignment.
		{"struct(marked, int)", m(Struct([]int64{1, 1}, []int64{0, 16}, []*Type{m(Resized(Int32, 0, 6)), Int32})),
			[]elem{{0, 4}, {16, 4}}, 8, 0, 6, 0, 20},
		// A 2x2 block at (1,1) of a 3x4 array of int32, C order.
		{"subarray C", m(Subarray([]int64{3, 4}, []int64{2, 2}, []int64{1, 1}, OrderC, Int32)),
			[]elem{{20, 4}, {24, 4}, {36, 4}, {40, 4}}, 16, 0, 48, 20, 24},
		// The same in Fortran order: the first index is the fast one.
		{"subarray Fortran", m(Subarray([]int64{3, 4}, []int64{2, 2}, []int64{1, 1}, OrderFortran, Int32)),
			[]elem{{16, 4}, {20, 4}, {28, 4}, {32, 4}}, 16, 0, 48, 16, 20},
		// Rank 1 of 2, 10 int32s in blocks of 5: elements 5..9.
		{"darray block", m(Darray(2, 1, []int64{10}, []Distribution{DistributeBlock}, []int64{DefaultDarg}, []int64{2}, OrderC, Int32)),
			[]elem{{20, 20}}, 20, 0, 40, 20, 20},
		// Rank 0 of 2, cyclic(2) over 7: elements 0,1,4,5.
		{"darray cyclic(2)", m(Darray(2, 0, []int64{7}, []Distribution{DistributeCyclic}, []int64{2}, []int64{2}, OrderC, Int32)),
			[]elem{{0, 8}, {16, 8}}, 16, 0, 28, 0, 24},
		{"float64int32", Float64Int32, []elem{{0, 8}, {8, 4}}, 12, 0, 16, 0, 12},
		{"int16int32", Int16Int32, []elem{{0, 2}, {4, 4}}, 6, 0, 8, 0, 8},
	}
	for _, tc := range tests {
		ty := tc.ty
		if got := merge(typemap(ty)); !slices.Equal(got, merge(tc.want)) {
			t.Errorf("%s: reference typemap %v, standard says %v", tc.name, got, tc.want)
		}
		if ty.Size() != tc.size || ty.LB() != tc.lb || ty.Extent() != tc.ext ||
			ty.TrueLB() != tc.tlb || ty.TrueExtent() != tc.textent {
			t.Errorf("%s: size %d lb %d extent %d tlb %d textent %d; want %d %d %d %d %d", tc.name,
				ty.Size(), ty.LB(), ty.Extent(), ty.TrueLB(), ty.TrueExtent(), tc.size, tc.lb, tc.ext, tc.tlb, tc.textent)
		}
		if err := ty.Commit(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		// The engine's pieces are the standard's typemap.
		iov := make([]Piece, 64)
		n, next, err := ty.Iov(iov, 1, 0)
		if err != nil || next != tc.size {
			t.Fatalf("%s: Iov: %d %d %v", tc.name, n, next, err)
		}
		var got []elem
		for _, p := range iov[:n] {
			got = append(got, elem{p.Off, p.Len})
		}
		if want := merge(tc.want); !slices.Equal(got, want) {
			t.Errorf("%s: engine pieces %v, want %v (program %s)", tc.name, got, want, ty.Program())
		}
	}
}

// merge joins typemap entries that touch, as the iovec view does.
func merge(m []elem) []elem {
	var out []elem
	for _, e := range m {
		if n := len(out); n > 0 && out[n-1].disp+out[n-1].size == e.disp {
			out[n-1].size += e.size
			continue
		}
		out = append(out, e)
	}
	return out
}

func TestEnvelopeContents(t *testing.T) {
	m := must(t)
	tests := []struct {
		ty          *Type
		comb        Combiner
		ints, addrs []int64
		types       []*Type
	}{
		{m(Contiguous(3, Int32)), CombinerContiguous, []int64{3}, nil, []*Type{Int32}},
		{m(Vector(2, 3, 4, Int32)), CombinerVector, []int64{2, 3, 4}, nil, []*Type{Int32}},
		{m(Hvector(2, 3, 40, Int32)), CombinerHvector, []int64{2, 3}, []int64{40}, []*Type{Int32}},
		{m(Indexed([]int64{1, 2}, []int64{5, 0}, Int32)), CombinerIndexed, []int64{2, 1, 2, 5, 0}, nil, []*Type{Int32}},
		{m(Hindexed([]int64{1, 2}, []int64{5, 0}, Int32)), CombinerHindexed, []int64{2, 1, 2}, []int64{5, 0}, []*Type{Int32}},
		{m(IndexedBlock(2, []int64{5, 0}, Int32)), CombinerIndexedBlock, []int64{2, 2, 5, 0}, nil, []*Type{Int32}},
		{m(HindexedBlock(2, []int64{5, 0}, Int32)), CombinerHindexedBlock, []int64{2, 2}, []int64{5, 0}, []*Type{Int32}},
		{m(Struct([]int64{1, 2}, []int64{0, 8}, []*Type{Int32, Float64})), CombinerStruct, []int64{2, 1, 2}, []int64{0, 8}, []*Type{Int32, Float64}},
		{m(Resized(Int32, -4, 12)), CombinerResized, nil, []int64{-4, 12}, []*Type{Int32}},
		{m(Dup(Int32)), CombinerDup, nil, nil, []*Type{Int32}},
		{m(Subarray([]int64{4}, []int64{2}, []int64{1}, OrderFortran, Int32)), CombinerSubarray, []int64{1, 4, 2, 1, 1}, nil, []*Type{Int32}},
		{m(Darray(2, 1, []int64{4}, []Distribution{DistributeCyclic}, []int64{1}, []int64{2}, OrderC, Int32)), CombinerDarray,
			[]int64{2, 1, 1, 4, 2, 1, 2, 0}, nil, []*Type{Int32}},
	}
	for _, tc := range tests {
		c, ni, na, nt := tc.ty.Envelope()
		ints, addrs, types, err := tc.ty.Contents()
		if err != nil || c != tc.comb || ni != len(tc.ints) || na != len(tc.addrs) || nt != len(tc.types) ||
			!slices.Equal(ints, tc.ints) || !slices.Equal(addrs, tc.addrs) || !slices.Equal(types, tc.types) {
			t.Errorf("%s: envelope %s %d %d %d contents %v %v %v %v", tc.comb, c, ni, na, nt, ints, addrs, types, err)
		}
	}
	if c, _, _, _ := Float64.Envelope(); c != CombinerNamed {
		t.Errorf("Float64 combiner %s", c)
	}
	if _, _, _, err := Float64.Contents(); err == nil {
		t.Error("Contents of a predefined type: no error")
	}
}

func TestConstructorErrors(t *testing.T) {
	freed, _ := Contiguous(1, Int32)
	freed.Free()
	big := int64(math.MaxInt64 / 2)
	tests := []struct {
		name string
		f    func() (*Type, error)
		arg  string // must appear in the message
		want error
	}{
		{"count<0", func() (*Type, error) { return Contiguous(-1, Int32) }, "count", ErrArg},
		{"nil old", func() (*Type, error) { return Contiguous(1, nil) }, "old", ErrArg},
		{"freed old", func() (*Type, error) { return Vector(1, 1, 1, freed) }, "old", ErrFreed},
		{"blocklen<0", func() (*Type, error) { return Vector(1, -1, 1, Int32) }, "blocklen", ErrArg},
		{"vector overflow", func() (*Type, error) { return Vector(3, 1, big, Int32) }, "stride", ErrOverflow},
		{"hvector overflow", func() (*Type, error) { return Hvector(3, 1, big, Int32) }, "hvector", ErrOverflow},
		{"contiguous overflow", func() (*Type, error) { return Contiguous(big, Int64) }, "contiguous", ErrOverflow},
		{"indexed lengths", func() (*Type, error) { return Indexed([]int64{1}, []int64{1, 2}, Int32) }, "displs", ErrArg},
		{"indexed negative", func() (*Type, error) { return Indexed([]int64{1, -2}, []int64{1, 2}, Int32) }, "blocklens[1]", ErrArg},
		{"indexed overflow", func() (*Type, error) { return Indexed([]int64{1}, []int64{big}, Int64) }, "displs[0]", ErrOverflow},
		{"indexedblock overflow", func() (*Type, error) { return IndexedBlock(1, []int64{big}, Int64) }, "displs[0]", ErrOverflow},
		{"struct types", func() (*Type, error) { return Struct([]int64{1}, []int64{0}, nil) }, "types", ErrArg},
		{"struct nil type", func() (*Type, error) { return Struct([]int64{1}, []int64{0}, []*Type{nil}) }, "types[0]", ErrArg},
		{"struct overflow", func() (*Type, error) {
			return Struct([]int64{1, 1}, []int64{math.MinInt64 + 1, big * 2}, []*Type{Int32, Int32})
		}, "struct", ErrOverflow},
		{"subarray dims", func() (*Type, error) { return Subarray(nil, nil, nil, OrderC, Int32) }, "sizes", ErrArg},
		{"subarray subsize", func() (*Type, error) {
			return Subarray([]int64{4, 4}, []int64{2, 5}, []int64{0, 0}, OrderC, Int32)
		}, "subsizes[1]", ErrArg},
		{"subarray start", func() (*Type, error) {
			return Subarray([]int64{4, 4}, []int64{2, 2}, []int64{3, 0}, OrderC, Int32)
		}, "starts[0]", ErrArg},
		{"subarray order", func() (*Type, error) { return Subarray([]int64{4}, []int64{2}, []int64{0}, 7, Int32) }, "order", ErrArg},
		{"darray rank", func() (*Type, error) {
			return Darray(2, 2, []int64{4}, []Distribution{DistributeBlock}, []int64{DefaultDarg}, []int64{2}, OrderC, Int32)
		}, "rank", ErrArg},
		{"darray psizes", func() (*Type, error) {
			return Darray(3, 0, []int64{4}, []Distribution{DistributeBlock}, []int64{DefaultDarg}, []int64{2}, OrderC, Int32)
		}, "psizes", ErrArg},
		{"darray none", func() (*Type, error) {
			return Darray(2, 0, []int64{4}, []Distribution{DistributeNone}, []int64{DefaultDarg}, []int64{2}, OrderC, Int32)
		}, "psizes[0]", ErrArg},
		{"darray small block", func() (*Type, error) {
			return Darray(2, 0, []int64{9}, []Distribution{DistributeBlock}, []int64{4}, []int64{2}, OrderC, Int32)
		}, "dargs[0]", ErrArg},
		{"darray distrib", func() (*Type, error) {
			return Darray(1, 0, []int64{9}, []Distribution{9}, []int64{4}, []int64{1}, OrderC, Int32)
		}, "distribs[0]", ErrArg},
	}
	for _, tc := range tests {
		ty, err := tc.f()
		if ty != nil || !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.arg) {
			t.Errorf("%s: got %v, %v; want %v naming %q", tc.name, ty, err, tc.want, tc.arg)
		}
	}
}

func TestFree(t *testing.T) {
	if err := Float64.Free(); !errors.Is(err, ErrArg) {
		t.Errorf("Free(Float64) = %v", err)
	}
	inner, _ := Contiguous(2, Int32)
	outer, _ := Vector(2, 1, 3, inner)
	if err := inner.Free(); err != nil {
		t.Fatal(err)
	}
	if err := inner.Free(); !errors.Is(err, ErrFreed) {
		t.Errorf("double Free = %v", err)
	}
	// Types built from a freed type stay usable.
	if err := outer.Commit(); err != nil {
		t.Fatal(err)
	}
	src := make([]byte, 40)
	if n, err := outer.Pack(make([]byte, 16), src, 1); err != nil || n != 16 {
		t.Errorf("pack of type built on freed type: %d, %v", n, err)
	}
	if err := inner.Commit(); !errors.Is(err, ErrFreed) {
		t.Errorf("Commit freed = %v", err)
	}
}

func TestPredefined(t *testing.T) {
	for _, ty := range Predefined {
		if !ty.IsPredefined() || !ty.IsCommitted() {
			t.Errorf("%s: predefined %v committed %v", ty.Name(), ty.IsPredefined(), ty.IsCommitted())
		}
		if ty != Packed && ForKind(ty.Kind()) != ty {
			t.Errorf("ForKind(%s) = %v", ty.Kind(), ForKind(ty.Kind()))
		}
		if n, _ := ty.External32Size(1); n != ty.Size() {
			t.Errorf("%s: external32 size %d", ty.Name(), n)
		}
	}
	v, _ := Vector(3, 1, 2, Float64)
	if v.Kind() != KindFloat64 {
		t.Errorf("vector of float64: kind %s", v.Kind())
	}
	s, _ := Struct([]int64{1, 1}, []int64{0, 8}, []*Type{Int32, Float64})
	if s.Kind() != KindNone {
		t.Errorf("mixed struct: kind %s", s.Kind())
	}
}

func TestOf(t *testing.T) {
	type inner struct {
		A int16
		B [3]float32
	}
	type outer struct {
		X  int8
		In inner
		Z  [2]inner
		C  complex128
		_  [0]int64
		Ok bool
	}
	ty, err := Of(reflect.TypeFor[outer]())
	if err != nil {
		t.Fatal(err)
	}
	rt := reflect.TypeFor[outer]()
	if ty.Extent() != int64(rt.Size()) || ty.LB() != 0 {
		t.Errorf("extent %d, Go size %d", ty.Extent(), rt.Size())
	}
	var want int64 = 1 + 3*(2+12) + 16 + 1
	if ty.Size() != want {
		t.Errorf("size %d, want %d", ty.Size(), want)
	}
	// Every data byte the type names is a field byte: pack two values whose
	// padding is poisoned and check the fields survive a round trip.
	vals := []outer{{X: 1, In: inner{2, [3]float32{3, 4, 5}}, Z: [2]inner{{6, [3]float32{7, 8, 9}}, {10, [3]float32{11, 12, 13}}}, C: complex(14, 15), Ok: true},
		{X: -1, C: 1i}}
	raw := unsafeBytes(vals)
	packed := make([]byte, 2*ty.Size())
	if _, err := ty.Pack(packed, raw, 2); err != nil {
		t.Fatal(err)
	}
	got := make([]outer, 2)
	if _, err := ty.Unpack(unsafeBytes(got), packed, 2); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, vals) {
		t.Errorf("round trip %+v, want %+v", got, vals)
	}
	if again, _ := Of(rt); again != ty {
		t.Error("Of not cached")
	}
	bad := []struct {
		rt    reflect.Type
		field string
	}{
		{reflect.TypeFor[struct{ P *int }](), ".P"},
		{reflect.TypeFor[struct{ A [2]struct{ S []int } }](), ".A[].S"},
		{reflect.TypeFor[struct{ M map[int]int }](), ".M"},
		{reflect.TypeFor[struct{ S string }](), ".S"},
		{reflect.TypeFor[struct{ I any }](), ".I"},
		{reflect.TypeFor[struct{ C chan int }](), ".C"},
		{reflect.TypeFor[struct{ F func() }](), ".F"},
	}
	for _, b := range bad {
		if _, err := Of(b.rt); !errors.Is(err, ErrArg) || !strings.Contains(err.Error(), b.field) {
			t.Errorf("Of(%s) = %v, want an error naming %s", b.rt, err, b.field)
		}
	}
}

// TestDarrayLarge builds a cyclic distribution of 2^40 elements: the type
// must stay small (regular blocks, not one per element).
func TestDarrayLarge(t *testing.T) {
	const g = int64(1) << 40
	ty, err := Darray(3, 1, []int64{g}, []Distribution{DistributeCyclic}, []int64{5}, []int64{3}, OrderC, Int8)
	if err != nil {
		t.Fatal(err)
	}
	if err := ty.Commit(); err != nil {
		t.Fatal(err)
	}
	// Blocks of 5 start at 5, 20, 35, ...; the last one starting below g
	// keeps what fits.
	nb := (g - 5 + 14) / 15
	lastStart := 5 + (nb-1)*15
	lastLen := min(5, g-lastStart)
	if want := (nb-1)*5 + lastLen; ty.Size() != want || ty.Extent() != g {
		t.Errorf("size %d extent %d, want %d %d; program %s", ty.Size(), ty.Extent(), want, g, ty.Program())
	}
	iov := make([]Piece, 2)
	n, _, err := ty.Iov(iov, 1, ty.Size()-1)
	if err != nil || n != 1 || iov[0] != (Piece{lastStart + lastLen - 1, 1}) {
		t.Errorf("last piece %v (%d, %v); program %s", iov[:n], n, err, ty.Program())
	}
}
