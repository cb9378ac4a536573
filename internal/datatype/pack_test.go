package datatype

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"testing"
)

// checkAgainstRef packs and unpacks count instances of t with every engine
// entry point and compares with the reference walker byte for byte.
func checkAgainstRef(t *testing.T, r *rand.Rand, ty *Type, count int64) {
	t.Helper()
	if err := ty.Commit(); err != nil {
		t.Fatalf("commit %s: %v", ty.Program(), err)
	}
	m := typemap(ty)
	var size int64
	for _, e := range m {
		size += e.size
	}
	if size != ty.Size() {
		t.Fatalf("%s: Size %d, typemap has %d bytes", ty.Program(), ty.Size(), size)
	}
	if size > 0 {
		lo, hi := refSpan(m, ty.Extent(), 1)
		if lo != ty.TrueLB() || hi-lo != ty.TrueExtent() {
			t.Fatalf("%s: true bounds [%d,%d), typemap [%d,%d)", ty.Program(), ty.TrueLB(), ty.TrueLB()+ty.TrueExtent(), lo, hi)
		}
	}
	ext := ty.Extent()
	lo, hi := refSpan(m, ext, count)
	origin := max(0, -lo)
	src := make([]byte, origin+hi)
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	want := refPack(m, ext, count, src, origin)
	total := int64(len(want))
	got := make([]byte, total+3)
	n, err := ty.PackAt(got, src, origin, count)
	if err != nil || n != total || !bytes.Equal(got[:n], want) {
		t.Fatalf("%s x%d: PackAt = %d, %v\n got %v\nwant %v", ty.Program(), count, n, err, got[:n], want)
	}

	checkBound(t, ty, count, src, origin, want)

	// Fragments of random sizes through a cursor, with seeks back and forth.
	c, err := NewCursor(ty, count)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetOrigin(origin); err != nil {
		t.Fatal(err)
	}
	frag := make([]byte, 0, 64)
	for !c.Done() {
		if r.IntN(5) == 0 {
			off := r.Int64N(total + 1)
			if _, err := c.Seek(off, io.SeekStart); err != nil {
				t.Fatal(err)
			}
		}
		at := c.Offset()
		frag = frag[:1+r.IntN(cap(frag))]
		k, err := c.Pack(frag, src)
		if err != nil || int64(k) != min(int64(len(frag)), total-at) || !bytes.Equal(frag[:k], want[at:at+int64(k)]) {
			t.Fatalf("%s x%d: fragment at %d len %d = %d, %v\n got %v\nwant %v", ty.Program(), count, at, len(frag), k, err, frag[:k], want[at:at+int64(k)])
		}
	}

	// Unpack into a buffer of noise: the engine and the reference must
	// leave identical bytes, gaps untouched.
	noise := make([]byte, len(src))
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	wantU := bytes.Clone(noise)
	refUnpack(m, ext, count, wantU, origin, want)
	gotU := bytes.Clone(noise)
	if n, err := ty.UnpackAt(gotU, origin, want, count); err != nil || n != total || !bytes.Equal(gotU, wantU) {
		t.Fatalf("%s x%d: UnpackAt = %d, %v", ty.Program(), count, n, err)
	}
	gotU = bytes.Clone(noise)
	c.Reset()
	for !c.Done() {
		at := c.Offset()
		k := min(int64(1+r.IntN(40)), total-at)
		if n, err := c.Unpack(gotU, want[at:at+k]); err != nil || int64(n) != k {
			t.Fatalf("%s: cursor unpack = %d, %v", ty.Program(), n, err)
		}
	}
	if !bytes.Equal(gotU, wantU) {
		t.Fatalf("%s x%d: cursor unpack differs", ty.Program(), count)
	}

	// The iovec view, a few pieces per call, gathers the same bytes.
	iov := make([]Piece, 1+r.IntN(3))
	var gathered []byte
	for from := int64(0); from < total; {
		n, next, err := ty.Iov(iov, count, from)
		if err != nil || n == 0 || next <= from {
			t.Fatalf("%s: Iov(from %d) = %d, %d, %v", ty.Program(), from, n, next, err)
		}
		for _, p := range iov[:n] {
			gathered = append(gathered, src[origin+p.Off:origin+p.Off+p.Len]...)
		}
		from = next
	}
	if !bytes.Equal(gathered, want) {
		t.Fatalf("%s x%d: Iov gathers\n%v\nwant %v", ty.Program(), count, gathered, want)
	}
}

func TestRandomTypesAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	defer func(m int64) { compactMax = m }(compactMax)
	for i := range 20000 {
		// Every other type keeps its indexes in int64 arrays, as types
		// spanning more than 2 GiB do.
		compactMax = []int64{math.MaxInt32, -1}[i%2]
		ty := randType(r, 1+i%4)
		checkAgainstRef(t, r, ty, int64(r.IntN(4)))
	}
}

func FuzzPack(f *testing.F) {
	for i := range uint64(8) {
		f.Add(i, i*7+1)
	}
	f.Fuzz(func(t *testing.T, seed, seed2 uint64) {
		r := rand.New(rand.NewPCG(seed, seed2))
		checkAgainstRef(t, r, randType(r, 1+int(seed%4)), int64(r.IntN(4)))
	})
}

func TestAnchorTypesAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	bl, d, _ := anchorIndexed()
	it, err := Indexed(bl[:3000], d[:3000], Float64)
	if err != nil {
		t.Fatal(err)
	}
	vt, err := Vector(5000, 1, 2, Float64)
	if err != nil {
		t.Fatal(err)
	}
	for _, ty := range []*Type{it, vt} {
		checkAgainstRef(t, r, ty, 2)
	}
}

// TestPackZeroAllocs proves the hot paths allocate nothing.
func TestPackZeroAllocs(t *testing.T) {
	bl, d, ext := anchorIndexed()
	it, _ := Indexed(bl[:1000], d[:1000], Float64)
	vt, _ := Vector(1000, 1, 2, Float64)
	st, _ := Struct([]int64{1, 2}, []int64{0, 8}, []*Type{Int32, vt})
	for _, ty := range []*Type{it, vt, st} {
		if err := ty.Commit(); err != nil {
			t.Fatal(err)
		}
		src := make([]byte, ext*8+ty.TrueExtent()*2)
		dst := make([]byte, ty.Size()*2)
		c, err := NewCursor(ty, 2)
		if err != nil {
			t.Fatal(err)
		}
		frag := dst[:100]
		iov := make([]Piece, 4)
		for name, f := range map[string]func(){
			"Pack":   func() { ty.Pack(dst, src, 2) },
			"Unpack": func() { ty.Unpack(src, dst, 2) },
			"Cursor.Pack": func() {
				if c.Done() {
					c.Reset()
				}
				c.Pack(frag, src)
			},
			"Cursor.Unpack": func() {
				if c.Done() {
					c.Reset()
				}
				c.Unpack(src, frag)
			},
			"Iov": func() { ty.Iov(iov, 2, 10) },
		} {
			if a := testing.AllocsPerRun(50, f); a != 0 {
				t.Errorf("%s %s: %v allocs per call", ty.Program(), name, a)
			}
		}
	}
}

func TestPackErrors(t *testing.T) {
	v, _ := Vector(4, 1, 2, Float64) // touches [0, 56)
	neg, _ := Hvector(2, 1, -8, Float64)
	uncommitted, _ := Contiguous(2, Int32)
	freed, _ := Contiguous(2, Int32)
	freed.Commit()
	freed.Free()
	for _, ty := range []*Type{v, neg} {
		ty.Commit()
	}
	big := make([]byte, 100)
	tests := []struct {
		name string
		f    func() error
		want error
	}{
		{"short src", func() error { _, err := v.Pack(big, big[:55], 1); return err }, ErrBuffer},
		{"short dst", func() error { _, err := v.Pack(big[:31], big, 1); return err }, ErrBuffer},
		{"short packed src", func() error { _, err := v.Unpack(big, big[:31], 1); return err }, ErrBuffer},
		{"negative lb without origin", func() error { _, err := neg.Pack(big, big, 1); return err }, ErrBuffer},
		{"negative count", func() error { _, err := v.Pack(big, big, -1); return err }, ErrArg},
		{"uncommitted", func() error { _, err := uncommitted.Pack(big, big, 1); return err }, ErrNotCommitted},
		{"freed", func() error { _, err := freed.Pack(big, big, 1); return err }, ErrFreed},
		{"cursor short src", func() error {
			c, _ := NewCursor(v, 2)
			_, err := c.Pack(big[:10], big[:100])
			return err
		}, ErrBuffer},
		{"cursor bad seek", func() error {
			c, _ := NewCursor(v, 1)
			_, err := c.Seek(33, io.SeekStart)
			return err
		}, ErrArg},
		{"cursor negative origin reach", func() error {
			c, _ := NewCursor(neg, 1)
			return c.SetOrigin(7)
		}, ErrArg},
	}
	for _, tc := range tests {
		if err := tc.f(); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
	// With the origin given, the negative-stride vector packs.
	n, err := neg.PackAt(big, big, 8, 1)
	if err != nil || n != 16 {
		t.Errorf("PackAt with origin: %d, %v", n, err)
	}
}

func TestCursorInitAllocFree(t *testing.T) {
	vt, _ := Vector(10, 1, 2, Float64)
	vt.Commit()
	var c Cursor
	if a := testing.AllocsPerRun(20, func() { c.Init(vt, 3) }); a != 0 {
		t.Errorf("Init: %v allocs", a)
	}
	if c.Size() != 240 || c.Remaining() != 240 {
		t.Errorf("Size %d Remaining %d", c.Size(), c.Remaining())
	}
	if off, err := c.Seek(-8, io.SeekEnd); err != nil || off != 232 {
		t.Errorf("Seek end: %d, %v", off, err)
	}
	if off, err := c.Seek(-32, io.SeekCurrent); err != nil || off != 200 {
		t.Errorf("Seek current: %d, %v", off, err)
	}
}

func TestContiguousDetection(t *testing.T) {
	ct, _ := Contiguous(10, Float64)
	st, _ := Struct([]int64{1, 1}, []int64{0, 4}, []*Type{Int32, Float32})
	gap, _ := Struct([]int64{1, 1}, []int64{0, 8}, []*Type{Int32, Float64})
	rs, _ := Resized(Int32, -4, 4)
	shiftedT, _ := Hindexed([]int64{2}, []int64{24}, Float64)
	tests := []struct {
		ty      *Type
		contig  bool
		off, ln int64
	}{
		{ct, true, 0, 240},
		{st, true, 0, 24},
		{gap, false, 0, 0},
		{rs, true, 0, 12},
		{shiftedT, true, 24, 48}, // lb 24, extent 16: adjacent instances
		{Float64Int32, false, 0, 0},
		{Int32Int32, true, 0, 24},
	}
	for _, tc := range tests {
		tc.ty.Commit()
		off, n, ok := tc.ty.ContiguousSpan(3)
		if ok != tc.contig || off != tc.off || n != tc.ln {
			t.Errorf("%s %s: ContiguousSpan(3) = %d, %d, %v; want %d, %d, %v", tc.ty.Name(), tc.ty.Program(), off, n, ok, tc.off, tc.ln, tc.contig)
		}
	}
}

// TestConcurrentCommitAndPack commits one type from several goroutines and
// packs it from all of them; run with -race.
func TestConcurrentCommitAndPack(t *testing.T) {
	inner, _ := Vector(3, 2, 5, Int32)
	ty, _ := Struct([]int64{2, 1}, []int64{0, 200}, []*Type{inner, Float64}) // extent 208
	src := make([]byte, 416)
	for i := range src {
		src[i] = byte(i)
	}
	want := refPack(typemap(ty), ty.Extent(), 2, src, 0)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			if err := ty.Commit(); err != nil {
				errs <- err
				return
			}
			got := make([]byte, len(want))
			if _, err := ty.Pack(got, src, 2); err != nil || !bytes.Equal(got, want) {
				errs <- fmt.Errorf("pack: %v, %v", err, got)
				return
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestIovAndSpan(t *testing.T) {
	v, _ := Vector(3, 2, 4, Int32) // pieces (0,8) (16,8) (32,8)
	v.Commit()
	iov := make([]Piece, 2)
	n, next, err := v.Iov(iov, 2, 0)
	// The second instance starts at the extent, 40: (40,8) touches (32,8).
	if err != nil || n != 2 || next != 16 || iov[0] != (Piece{0, 8}) || iov[1] != (Piece{16, 8}) {
		t.Errorf("Iov first call: %d %d %v %v", n, next, iov, err)
	}
	n, next, err = v.Iov(iov, 2, next)
	if err != nil || n != 2 || next != 40 || iov[0] != (Piece{32, 16}) || iov[1] != (Piece{56, 8}) {
		t.Errorf("Iov second call: %d %d %v %v", n, next, iov, err)
	}
	n, next, err = v.Iov(iov, 2, 36) // from the middle of a piece
	if err != nil || n != 2 || next != 48 || iov[0] != (Piece{60, 4}) || iov[1] != (Piece{72, 8}) {
		t.Errorf("Iov mid-piece: %d %d %v %v", n, next, iov, err)
	}
	if _, _, err := v.Iov(iov, 2, 49); !errors.Is(err, ErrArg) {
		t.Errorf("Iov past end: %v", err)
	}
	if _, _, err := v.Iov(nil, 2, 0); !errors.Is(err, ErrArg) {
		t.Errorf("Iov no room: %v", err)
	}
	neg, _ := Hvector(3, 1, -16, Float64)
	if lo, hi, err := neg.Span(2); err != nil || lo != -32 || hi != 8+neg.Extent() {
		t.Errorf("Span: %d %d %v", lo, hi, err)
	}
}

// A cursor made before its type is freed finishes its work: MPI_Type_free lets
// a pending receive that uses the type complete normally.
func TestCursorOutlivesFree(t *testing.T) {
	v, _ := Vector(4, 1, 2, Int32) // ints 0, 2, 4, 6 of 7
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	c, err := NewCursor(v, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Free(); err != nil {
		t.Fatal(err)
	}
	if _, err := NewCursor(v, 1); !errors.Is(err, ErrFreed) {
		t.Errorf("NewCursor on a freed type: %v, want ErrFreed", err)
	}
	src := []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0}
	dst := make([]byte, 28)
	n, err := c.Unpack(dst, src)
	if err != nil || n != 16 {
		t.Fatalf("Unpack after Free: %d, %v", n, err)
	}
	for i, want := range []byte{1, 2, 3, 4} {
		if dst[8*i] != want {
			t.Errorf("int %d = %d, want %d", 2*i, dst[8*i], want)
		}
	}
}
