package mpio

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mpigo/mpigo/internal/datatype"
)

func committed(t *testing.T, ty *datatype.Type, err error) *datatype.Type {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if err := ty.Commit(); err != nil {
		t.Fatal(err)
	}
	return ty
}

func TestNewViewRules(t *testing.T) {
	i32 := datatype.Int32
	hidx := func(disps ...int64) *datatype.Type {
		lens := make([]int64, len(disps))
		for i := range lens {
			lens[i] = 1
		}
		ty, err := datatype.Hindexed(lens, disps, i32)
		return committed(t, ty, err)
	}
	three, _ := datatype.Contiguous(3, datatype.Byte)
	three = committed(t, three, nil)
	zero, err := datatype.Resized(i32, 0, 0)
	zero = committed(t, zero, err)
	empty, err := datatype.Contiguous(0, i32)
	empty = committed(t, empty, err)
	overlap, err := datatype.Resized(hidx(0, 8), 0, 4)
	overlap = committed(t, overlap, err)
	tiles, err := datatype.Contiguous(2, i32)
	tiles = committed(t, tiles, err)
	shingled, err := datatype.Resized(tiles, 0, 4) // tiles overlap, starts still nondecreasing
	shingled = committed(t, shingled, err)
	f64s, err := datatype.Vector(2, 1, 2, datatype.Float64)
	f64s = committed(t, f64s, err)
	for _, c := range []struct {
		name         string
		disp         int64
		etype, ftype *datatype.Type
		want         error
	}{
		{"bytes", 0, datatype.Byte, datatype.Byte, nil},
		{"a byte etype takes any filetype", 10, datatype.Byte, f64s, nil},
		{"holes of whole etypes", 0, i32, hidx(0, 8, 12), nil},
		{"shingled tiles", 0, i32, shingled, nil},
		{"negative disp", -1, datatype.Byte, datatype.Byte, ErrArg},
		{"an etype of no data", 0, empty, i32, ErrType},
		{"a filetype of no data", 0, i32, empty, ErrType},
		{"not a whole number of etypes", 0, three, i32, ErrType},
		{"another kind", 0, i32, f64s, ErrType},
		{"decreasing displacements", 0, i32, hidx(8, 0), ErrType},
		{"a hole of half an etype", 0, i32, hidx(0, 6), ErrType},
		{"extent 0", 0, i32, zero, ErrType},
		{"tiles that go back", 0, i32, overlap, nil},
	} {
		_, err := NewView(c.disp, c.etype, c.ftype)
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// refOffsets is the file offset of each of the first n bytes of a view of disp and
// ftype, from the datatype engine's own tiling (count copies of the filetype).
func refOffsets(t *testing.T, disp int64, ftype *datatype.Type, n int64) []int64 {
	t.Helper()
	count := n/ftype.Size() + 2
	var out []int64
	var iov [64]datatype.Piece
	total, _ := ftype.PackSize(count)
	for from := int64(0); from < total; {
		k, next, err := ftype.Iov(iov[:], count, from)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range iov[:k] {
			for b := range p.Len {
				out = append(out, disp+p.Off+b)
			}
		}
		from = next
	}
	return out[:n]
}

// testViews are views of the shapes MPI-IO meets: contiguous, strided, resized with
// holes at both ends, a subarray, an indexed type with touching blocks, tiles that go
// back.
func testViews(t *testing.T) []*View {
	t.Helper()
	mk := func(disp int64, etype, ftype *datatype.Type) *View {
		v, err := NewView(disp, etype, ftype)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	vec, err := datatype.Vector(3, 2, 5, datatype.Int32)
	vec = committed(t, vec, err)
	res, err := datatype.Resized(vec, -8, 80)
	res = committed(t, res, err)
	sub, err := datatype.Subarray([]int64{6, 7}, []int64{3, 2}, []int64{2, 4}, datatype.OrderC, datatype.Float64)
	sub = committed(t, sub, err)
	idx, err := datatype.Indexed([]int64{2, 1, 3}, []int64{0, 2, 7}, datatype.Int32)
	idx = committed(t, idx, err)
	// Data past the extent: tile k holds [8k, 8k+2) and [8k+13, 8k+15), so each tile
	// starts before the last one's data ends, yet no two tiles share a byte.
	back, err := datatype.Hindexed([]int64{2, 2}, []int64{0, 13}, datatype.Byte)
	back = committed(t, back, err)
	back, err = datatype.Resized(back, 0, 8)
	back = committed(t, back, err)
	return []*View{
		mk(0, datatype.Byte, datatype.Byte),
		mk(13, datatype.Byte, datatype.Byte),
		mk(4, datatype.Int32, vec),
		mk(8, datatype.Int32, res),
		mk(0, datatype.Float64, sub),
		mk(100, datatype.Byte, idx),
		mk(3, datatype.Byte, back),
	}
}

func TestViewMapping(t *testing.T) {
	for vi, v := range testViews(t) {
		const n = 600
		ref := refOffsets(t, v.Disp(), v.Filetype(), n)
		for p := range int64(n) {
			if got := v.FileOff(p); got != ref[p] {
				t.Fatalf("view %d: FileOff(%d) = %d, want %d", vi, p, got, ref[p])
			}
		}
		rng := rand.New(rand.NewPCG(uint64(vi), 1))
		for range 200 {
			pos := rng.Int64N(n / 2)
			k := rng.Int64N(n / 2)
			c := v.Cursor(pos, k)
			var walked []int64
			var last Run
			for r, ok := c.Next(); ok; r, ok = c.Next() {
				if last.Len > 0 && last.End() == r.Off {
					t.Fatalf("view %d: runs %v and %v touch but were not merged", vi, last, r)
				}
				for b := range r.Len {
					walked = append(walked, r.Off+b)
				}
				last = r
			}
			if int64(len(walked)) != k {
				t.Fatalf("view %d: Cursor(%d, %d) walked %d bytes", vi, pos, k, len(walked))
			}
			for i, o := range walked {
				if o != ref[pos+int64(i)] {
					t.Fatalf("view %d: Cursor(%d, %d) byte %d at %d, want %d", vi, pos, k, i, o, ref[pos+int64(i)])
				}
			}
		}
		// EOF: the first view byte at or after the end, rounded up to an etype.
		for size := int64(0); size < ref[n-1]; size += 7 {
			want := int64(n)
			for p, o := range ref {
				if o >= size {
					want = int64(p)
					break
				}
			}
			es := v.EtypeSize()
			want = (want + es - 1) / es * es
			if got := v.EOF(size); got != want {
				t.Fatalf("view %d: EOF(%d) = %d, want %d", vi, size, got, want)
			}
		}
	}
}

func TestViewWritable(t *testing.T) {
	i32 := datatype.Int32
	idx := func(lens, disps []int64) *datatype.Type {
		ty, err := datatype.Indexed(lens, disps, i32)
		return committed(t, ty, err)
	}
	overlap := idx([]int64{3, 1}, []int64{0, 1})
	four, err := datatype.Contiguous(4, i32)
	four = committed(t, four, err)
	shingled, err := datatype.Resized(four, 0, 8)
	shingled = committed(t, shingled, err)
	for _, c := range []struct {
		name         string
		etype, ftype *datatype.Type
		bad          bool
	}{
		{"ints", i32, i32, false},
		{"touching blocks", i32, idx([]int64{2, 1}, []int64{0, 2}), false},
		{"a filetype over itself", i32, overlap, true},
		{"a block inside an earlier one", i32, idx([]int64{4, 1, 1}, []int64{0, 1, 5}), true},
		{"an etype over itself", overlap, four, true},
		{"tiles over each other", i32, shingled, false},
	} {
		v, err := NewView(0, c.etype, c.ftype)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		err = v.Writable()
		if c.bad != (err != nil) || err != nil && !errors.Is(err, ErrType) {
			t.Errorf("%s: Writable() = %v, want an error: %v", c.name, err, c.bad)
		}
	}
}

// TestFitEnd: FitEnd is the bound Fits puts on an access's end, for views whose
// bound lies inside an int64 and for one where every end fits.
func TestFitEnd(t *testing.T) {
	i32 := datatype.Int32
	vec, err := datatype.Vector(3, 2, 5, i32)
	vec = committed(t, vec, err)
	for _, c := range []struct {
		name  string
		disp  int64
		ftype *datatype.Type
	}{
		{"bytes", 0, datatype.Byte},
		{"bytes at a displacement", 1 << 40, datatype.Byte},
		{"ints near the end", math.MaxInt64 - 100, i32},
		{"a vector", 12, vec},
		{"a vector near the end", math.MaxInt64 - 1000, vec},
		{"past the end", math.MaxInt64 - 2, vec},
	} {
		et := i32
		if c.ftype == datatype.Byte {
			et = datatype.Byte
		}
		v, err := NewView(c.disp, et, c.ftype)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		e := v.FitEnd()
		if e >= 0 && (!v.Fits(0, e) || !v.Fits(e, 0) || !v.Fits(e/2, e-e/2)) {
			t.Errorf("%s: FitEnd %d, but Fits refuses it", c.name, e)
		}
		if e < math.MaxInt64 && (v.Fits(0, e+1) || v.Fits(e+1, 0)) {
			t.Errorf("%s: FitEnd %d, but Fits takes %d", c.name, e, e+1)
		}
		if v.Fits(math.MaxInt64-35, 35) { // its last byte's file offset would be MaxInt64
			t.Errorf("%s: Fits takes an access that ends at MaxInt64", c.name)
		}
	}
}
