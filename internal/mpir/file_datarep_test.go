package mpir

import (
	"errors"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
)

// TestFileDatarep: the names a view takes, whatever their case.
func TestFileDatarep(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"native", RepNative}, {"NATIVE", RepNative}, {"internal", RepInternal},
		{"External32", RepExternal32}, {"external", ""}, {"", ""}, {"ieee", ""},
	} {
		if got := FileDatarep(c.in); got != c.want {
			t.Errorf("FileDatarep(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func must(t *testing.T) func(*datatype.Type, error) *datatype.Type {
	return func(tp *datatype.Type, err error) *datatype.Type {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if err := tp.Commit(); err != nil {
			t.Fatal(err)
		}
		return tp
	}
}

// TestRepExtent: get_type_extent's extents, in memory and in external32, where the
// displacements a constructor counts in elements scale with the elements' size in
// the file and those it takes in bytes do not.
func TestRepExtent(t *testing.T) {
	vec := must(t)(datatype.Vector(3, 1, 2, datatype.CLong))    // 5 longs' extent
	hvec := must(t)(datatype.Hvector(2, 1, 16, datatype.CLong)) // 16 bytes, then a long
	sub := must(t)(datatype.Subarray([]int64{4, 4}, []int64{2, 2}, []int64{1, 1}, datatype.OrderC, datatype.CUlong))
	st := must(t)(datatype.Struct([]int64{1, 2}, []int64{0, 8}, []*datatype.Type{datatype.Int32, datatype.CLong}))
	res := must(t)(datatype.Resized(datatype.CLong, 0, 12))
	idx := must(t)(datatype.Indexed([]int64{2, 1}, []int64{0, 5}, datatype.CLong))
	iblk := must(t)(datatype.IndexedBlock(2, []int64{1, 4}, datatype.CLong))
	hidx := must(t)(datatype.Hindexed([]int64{1, 1}, []int64{0, 16}, datatype.CLong))
	hblk := must(t)(datatype.HindexedBlock(1, []int64{0, 12}, datatype.CLong))
	cont := must(t)(datatype.Contiguous(3, datatype.CLong))
	dup := must(t)(datatype.Dup(cont))
	dar := must(t)(datatype.Darray(2, 1, []int64{8}, []datatype.Distribution{datatype.DistributeBlock},
		[]int64{datatype.DefaultDarg}, []int64{2}, datatype.OrderC, datatype.CLong))
	for _, c := range []struct {
		rep  string
		t    *datatype.Type
		want int64
	}{
		{RepNative, datatype.CLong, 8}, {RepExternal32, datatype.CLong, 4},
		{RepExternal32, datatype.Int32, 4}, {RepExternal32, datatype.Float64, 8},
		{RepInternal, datatype.Int16, 2}, {RepExternal32, datatype.LongDouble, 16},
		{RepNative, vec, 40}, {RepExternal32, vec, 20},
		{RepNative, hvec, 24}, {RepExternal32, hvec, 20},
		{RepNative, sub, 128}, {RepExternal32, sub, 64},
		{RepExternal32, st, 16}, // struct displacements are the file's: 8 + 2*4
		{RepExternal32, res, 12},
		{RepExternal32, datatype.Wchar, 2},
		{RepExternal32, idx, 24}, {RepExternal32, iblk, 20}, // iblk: longs 1 to 5
		{RepExternal32, hidx, 20}, {RepExternal32, hblk, 16}, // byte displacements stay
		{RepExternal32, cont, 12}, {RepExternal32, dup, 12},
		{RepNative, dar, 64}, {RepExternal32, dar, 32},
	} {
		if got, err := repExtent("File_get_type_extent", c.rep, nil, c.t); err != nil || got != c.want {
			t.Errorf("repExtent(%s, %s) = %d, %v; want %d", c.rep, c.t.Name(), got, err, c.want)
		}
	}
	// The layout keeps the type's shape: a vector of longs in external32 is runs of
	// 4 bytes 8 apart; rank 1's block of a darray starts half way.
	ft, err := fileLayout("f", nil, vec, repLeaf("f", RepExternal32))
	if err != nil || ft.Size() != 12 || ft.Extent() != 20 {
		t.Errorf("external32 layout of %s: size %d extent %d, %v; want 12, 20", vec.Name(), ft.Size(), ft.Extent(), err)
	}
	if ft, err := fileLayout("f", nil, dar, repLeaf("f", RepExternal32)); err != nil || ft.Size() != 16 || ft.TrueLB() != 16 {
		t.Errorf("external32 layout of %s: size %d true lb %d, %v; want 16, 16", dar.Name(), ft.Size(), ft.TrueLB(), err)
	}
	if ft, _ := fileLayout("f", nil, vec, repLeaf("f", RepNative)); ft != vec {
		t.Errorf("the native layout of a type is not the type itself")
	}
}

// TestRegisterDatarep: the registry's rules and a user representation's layouts.
func TestRegisterDatarep(t *testing.T) {
	const op = "Register_datarep"
	half := func(d *Datatype) (int64, error) { return d.Type().Size() / 2, nil }
	if err := RegisterDatarep(op, "mpir-test-half", nil, nil, half); err != nil {
		t.Fatal(err)
	}
	classOf(t, "registering twice", RegisterDatarep(op, "mpir-test-half", nil, nil, half), core.ClassDupDatarep)
	classOf(t, "registering external32", RegisterDatarep(op, "External32", nil, nil, half), core.ClassDupDatarep)
	classOf(t, "an empty name", RegisterDatarep(op, "", nil, nil, half), core.ClassArg)
	classOf(t, "a name too long", RegisterDatarep(op, strings.Repeat("x", MaxDatarep+1), nil, nil, half), core.ClassArg)
	classOf(t, "no extent function", RegisterDatarep(op, "mpir-test-noext", nil, nil, nil), core.ClassArg)
	if got := FileDatarep("mpir-test-half"); got != "mpir-test-half" {
		t.Errorf("FileDatarep of a registered name = %q", got)
	}
	if got := FileDatarep("MPIR-TEST-HALF"); got != "" {
		t.Errorf("FileDatarep takes a registered name in another case: %q", got)
	}
	vec := must(t)(datatype.Vector(2, 1, 3, datatype.Int64))
	if got, err := repExtent("f", "mpir-test-half", nil, vec); err != nil || got != 16 {
		t.Errorf("extent of %s in a representation of half sizes = %d, %v; want 16", vec.Name(), got, err)
	}
	boom := errors.New("boom")
	if err := RegisterDatarep(op, "mpir-test-fail", nil, nil, func(*Datatype) (int64, error) { return 0, boom }); err != nil {
		t.Fatal(err)
	}
	_, err := repExtent("File_get_type_extent", "mpir-test-fail", nil, vec)
	classOf(t, "a failing extent function", err, core.ClassConversion)
	if !errors.Is(err, boom) {
		t.Errorf("the extent function's error is not the cause: %v", err)
	}
}
