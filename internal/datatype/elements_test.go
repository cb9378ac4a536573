package datatype

import "testing"

// TestElementsIn counts basic elements in prefixes of the packed stream: through
// vectors, structs, pairs and resized types, and not at all inside an element.
func TestElementsIn(t *testing.T) {
	must := func(t2 *Type, err error) *Type {
		if err != nil {
			t.Fatal(err)
		}
		return t2
	}
	st := must(Struct([]int64{1, 2, 1}, []int64{0, 8, 16}, []*Type{Float64, Int16, Float64Int32}))
	vec := must(Vector(2, 3, 4, st))
	cases := []struct {
		name string
		t    *Type
		n    int64
		want int64
		ok   bool
	}{
		{"int32 x 3", Int32, 12, 3, true},
		{"int32, half", Int32, 6, 1, false},
		{"pair", Float64Int32, 12, 2, true},
		{"pair's value", Float64Int32, 8, 1, true},
		{"struct", st, 8 + 4 + 12, 5, true},
		{"struct, float and a short", st, 10, 2, true},
		{"struct and its float", st, 24 + 8, 6, true},
		{"struct, inside the pair's index", st, 8 + 4 + 10, 0, false},
		{"vector of structs, 4 and a bit", vec, 4*24 + 8 + 2 + 2 + 8, 4*5 + 4, true},
		{"resized", must(Resized(Int16, -2, 10)), 6, 3, true},
		{"empty", must(Contiguous(0, Int32)), 0, 0, true},
		{"empty, given bytes", must(Contiguous(0, Int32)), 4, 0, false},
	}
	for _, c := range cases {
		got, ok := c.t.ElementsIn(c.n)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("%s: ElementsIn(%d) = %d, %v; want %d, %v", c.name, c.n, got, ok, c.want, c.ok)
		}
	}
	if e := vec.Elements(); e != 2*3*5 {
		t.Errorf("vector of structs has %d elements, want 30", e)
	}
}

// TestClone: a clone keeps the envelope, bounds and packing of its source, stays usable
// when the source is freed, and is freed on its own.
func TestClone(t *testing.T) {
	v, err := Vector(3, 1, 2, Int32)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	c := v.Clone()
	if err := v.Free(); err != nil {
		t.Fatal(err)
	}
	if comb, ni, _, _ := c.Envelope(); comb != CombinerVector || ni != 3 || c.Extent() != v.Extent() || c.Origin() != v {
		t.Errorf("clone: %v with %d ints, extent %d", comb, ni, c.Extent())
	}
	src := []byte{1, 0, 0, 0, 9, 9, 9, 9, 2, 0, 0, 0, 9, 9, 9, 9, 3, 0, 0, 0}
	dst := make([]byte, 12)
	if n, err := c.Pack(dst, src, 1); err != nil || n != 12 || dst[4] != 2 || dst[8] != 3 {
		t.Errorf("clone packs %d bytes % x, %v", n, dst, err)
	}
	if Int32.Clone() != Int32 {
		t.Errorf("a predefined type's clone is not itself")
	}
	if err := c.Free(); err != nil {
		t.Errorf("freeing the clone: %v", err)
	}
}

// TestBytesOfElements: the least packed length holding n basic elements, which
// ElementsIn counts back as n, through structs of mixed sizes and vectors of them.
func TestBytesOfElements(t *testing.T) {
	st, err := Struct([]int64{1, 2, 1}, []int64{0, 8, 16}, []*Type{Float64, Int16, Float64Int32})
	if err != nil {
		t.Fatal(err)
	}
	vec, err := Vector(2, 3, 4, st)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		t    *Type
		n    int64
		want int64
	}{
		{"int32 x 3", Int32, 3, 12},
		{"none", st, 0, 0},
		{"struct's float and shorts", st, 3, 12},
		{"struct's pair value", st, 4, 20},
		{"a struct and one float", st, 6, 24 + 8},
		{"vector of structs and two elements", vec, 5*5 + 2, 5*24 + 8 + 2},
		{"pairs", Float64Int32, 3, 12 + 8},
	} {
		got := c.t.BytesOfElements(c.n)
		if got != c.want {
			t.Errorf("%s: BytesOfElements(%d) = %d, want %d", c.name, c.n, got, c.want)
		}
		if e, ok := c.t.ElementsIn(got); !ok || e != c.n {
			t.Errorf("%s: ElementsIn(%d) = %d, %v; want %d", c.name, got, e, ok, c.n)
		}
	}
}

// IsDense: a type's buffer is its packed form only where its data starts at byte 0 and
// items follow back to back; a type resized to lb 0 whose data lies further on (an
// int at byte 8 in an extent of 4) is contiguous but not dense.
func TestIsDense(t *testing.T) {
	late, err := Hindexed([]int64{1}, []int64{8}, Int32)
	if err != nil {
		t.Fatal(err)
	}
	shifted, err := Resized(late, 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	gapped, err := Resized(Int32, 0, 8)
	if err != nil {
		t.Fatal(err)
	}
	four, err := Contiguous(4, Int32)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		t     *Type
		dense bool
	}{{"int32", Int32, true}, {"4 x int32", four, true}, {"int32 at byte 8, extent 4", shifted, false},
		{"int32 in an extent of 8", gapped, false}} {
		if err := c.t.Commit(); err != nil {
			t.Fatal(err)
		}
		if got := c.t.IsDense(); got != c.dense {
			t.Errorf("%s: IsDense %v, want %v (contiguous %v, true lb %d)", c.name, got, c.dense, c.t.IsContiguous(), c.t.TrueLB())
		}
	}
}
