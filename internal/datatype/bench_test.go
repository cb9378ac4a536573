package datatype

import (
	"reflect"
	"testing"
)

// anchorIndexed returns the block lengths and displacements (in doubles) of
// the anchors' indexed type: 100000 blocks of 1..16 doubles with gaps of
// 1..16, from xorshift32 seeded 12345, and the extent in doubles.
func anchorIndexed() (blens, displs []int64, extent int64) {
	state := uint32(12345)
	next := func() int64 {
		x := state
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		state = x
		return int64(x % 16)
	}
	const n = 100000
	blens, displs = make([]int64, n), make([]int64, n)
	var off int64
	for i := range n {
		off += 1 + next()
		blens[i] = 1 + next()
		displs[i] = off
		off += blens[i]
	}
	return blens, displs, off
}

func benchPack(b *testing.B, t *Type, srcLen int64, up bool) {
	if err := t.Commit(); err != nil {
		b.Fatal(err)
	}
	src := make([]byte, srcLen)
	dst := make([]byte, t.Size())
	for i := range src {
		src[i] = byte(i)
	}
	for i := range dst {
		dst[i] = byte(i)
	}
	b.SetBytes(t.Size())
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if up {
			_, err = t.Unpack(src, dst, 1)
		} else {
			_, err = t.Pack(dst, src, 1)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPackVector(b *testing.B) {
	t, _ := Vector(1000000, 1, 2, Float64)
	benchPack(b, t, 16000000, false)
}

func BenchmarkUnpackVector(b *testing.B) {
	t, _ := Vector(1000000, 1, 2, Float64)
	benchPack(b, t, 16000000, true)
}

func BenchmarkPackIndexed(b *testing.B) {
	bl, d, ext := anchorIndexed()
	t, _ := Indexed(bl, d, Float64)
	benchPack(b, t, ext*8, false)
}

func BenchmarkUnpackIndexed(b *testing.B) {
	bl, d, ext := anchorIndexed()
	t, _ := Indexed(bl, d, Float64)
	benchPack(b, t, ext*8, true)
}

// TestAnchorPrograms checks that the anchors' types get the kernels meant
// for them: word moves for the vector, fixed short-block moves over int32
// arrays for the indexed type.
func TestAnchorPrograms(t *testing.T) {
	bl, d, _ := anchorIndexed()
	it, _ := Indexed(bl, d, Float64)
	vt, _ := Vector(1000000, 1, 2, Float64)
	for _, tc := range []struct {
		ty   *Type
		want string
	}{
		{it, "idx128c(100000 blocks)"},
		{vt, "vec8(1000000 x 16, leaf(8@0))"},
	} {
		if err := tc.ty.Commit(); err != nil {
			t.Fatal(err)
		}
		if got := tc.ty.Program(); got != tc.want {
			t.Errorf("program %s, want %s", got, tc.want)
		}
	}
}

// BenchmarkCommitIndexed times Commit alone (create is outside the timer).
func BenchmarkCommitIndexed(b *testing.B) {
	bl, d, _ := anchorIndexed()
	b.ReportAllocs()
	for range b.N {
		b.StopTimer()
		t, _ := Indexed(bl, d, Float64)
		b.StartTimer()
		if err := t.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCreateIndexed(b *testing.B) {
	bl, d, _ := anchorIndexed()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Indexed(bl, d, Float64); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCursorFragments packs the indexed type in 4 KiB fragments.
func BenchmarkCursorFragments(b *testing.B) {
	bl, d, ext := anchorIndexed()
	t, _ := Indexed(bl, d, Float64)
	if err := t.Commit(); err != nil {
		b.Fatal(err)
	}
	src := make([]byte, ext*8)
	for i := range src {
		src[i] = byte(i)
	}
	frag := make([]byte, 4096)
	c, err := NewCursor(t, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(t.Size())
	b.ReportAllocs()
	for b.Loop() {
		c.Reset()
		for !c.Done() {
			if _, err := c.Pack(frag, src); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// Nested and small-element shapes: how much the kernel choice matters.
func BenchmarkPackShapes(b *testing.B) {
	m := func(t *Type, err error) *Type {
		if err != nil {
			b.Fatal(err)
		}
		return t
	}
	face := m(Subarray([]int64{64, 64, 64}, []int64{64, 64, 1}, []int64{0, 0, 5}, OrderC, Float64))
	pairs := m(Contiguous(1, Float64Int32))
	col := m(Vector(512, 1, 512, m(Contiguous(2, Float64))))
	vv := m(Vector(20000, 1, 8, m(Vector(4, 1, 2, Float64))))
	blk := m(IndexedBlock(3, []int64{0, 7, 20, 40, 61, 90}, m(Resized(Float32, 0, 8))))
	type row struct {
		A int32
		B float64
		C [3]int16
	}
	gs := m(Of(reflect.TypeFor[row]()))
	for _, tc := range []struct {
		name  string
		t     *Type
		count int64
	}{
		{"face", face, 1}, {"pairs", pairs, 100000}, {"column2", col, 1}, {"vecvec", vv, 1},
		{"blkleaf", blk, 10000}, {"gostruct", gs, 100000},
	} {
		b.Run(tc.name, func(b *testing.B) {
			if err := tc.t.Commit(); err != nil {
				b.Fatal(err)
			}
			_, hi, _ := tc.t.span(0, tc.count)
			src := make([]byte, hi)
			dst := make([]byte, tc.t.Size()*tc.count)
			b.SetBytes(int64(len(dst)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tc.t.Pack(dst, src, tc.count); err != nil {
					b.Fatal(err)
				}
			}
			b.Log(tc.t.Program())
		})
	}
}
