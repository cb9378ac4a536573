package datatype

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

// checkBound checks that count instances of ty bound over src pack to want and
// unpack back, or, when the type reaches below the base address (origin > 0),
// that Bind refuses src.
func checkBound(t *testing.T, ty *Type, count int64, src []byte, origin int64, want []byte) {
	t.Helper()
	b, err := ty.Bind(src, count)
	if origin > 0 && len(want) > 0 {
		if !errors.Is(err, ErrBuffer) {
			t.Fatalf("%s x%d: Bind below the base address = %v, want ErrBuffer", ty.Program(), count, err)
		}
		return
	}
	if err != nil || b.Size() != int64(len(want)) {
		t.Fatalf("%s x%d: Bind = size %d, %v; want size %d", ty.Program(), count, b.Size(), err, len(want))
	}
	got := make([]byte, len(want))
	if err := b.Pack(got); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s x%d: Bound.Pack = %v\n got %v\nwant %v", ty.Program(), count, err, got, want)
	}
	if mem, ok := b.Contiguous(); ok && !bytes.Equal(mem, want) {
		t.Fatalf("%s x%d: Bound.Contiguous is not the packed stream", ty.Program(), count)
	}
	dst := make([]byte, len(src))
	wantU := bytes.Clone(dst)
	if _, err := ty.Unpack(wantU, want, count); err != nil {
		t.Fatal(err)
	}
	bd, err := ty.Bind(dst, count)
	if err != nil {
		t.Fatal(err)
	}
	if err := bd.Unpack(want); err != nil || !bytes.Equal(dst, wantU) {
		t.Fatalf("%s x%d: Bound.Unpack = %v", ty.Program(), count, err)
	}
}

func TestBindErrors(t *testing.T) {
	v, err := Vector(4, 1, 3, Float64)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Bind(make([]byte, 1000), 1); !errors.Is(err, ErrNotCommitted) {
		t.Errorf("uncommitted: %v", err)
	}
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := v.prepare(); err != nil { // v.safe below is set when prepared
		t.Fatal(err)
	}
	span := 3*3*8 + 8
	for _, c := range []struct {
		mem   int
		count int64
		want  error
	}{
		{span, 1, nil},
		{span - 1, 1, ErrBuffer},
		{2 * span, 2, nil},
		{2*span - 1, 2, ErrBuffer},
		{0, 0, nil},
		{0, -1, ErrArg},
		{1 << 20, math.MaxInt64 / 8, ErrOverflow},
		{1 << 20, v.safe + 1, ErrBuffer}, // past the fast path's bound, checked in full
	} {
		b, err := v.Bind(make([]byte, c.mem), c.count)
		if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("Bind(%d bytes, count %d) = %v, want %v", c.mem, c.count, err, c.want)
		}
		if err == nil && b.Size() != c.count*32 {
			t.Errorf("Bind(%d bytes, count %d).Size() = %d", c.mem, c.count, b.Size())
		}
	}
	if b, _ := v.Bind(make([]byte, span), 1); !errors.Is(b.Pack(make([]byte, 31)), ErrBuffer) || !errors.Is(b.Unpack(make([]byte, 31)), ErrBuffer) {
		t.Error("Bound.Pack and Unpack take a packed buffer shorter than Size()")
	}
	var nilType *Type
	if _, err := nilType.Bind(nil, 1); !errors.Is(err, ErrArg) {
		t.Errorf("nil type: %v", err)
	}
	if err := v.Free(); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Bind(make([]byte, span), 1); err != nil {
		t.Errorf("a freed type no longer binds: %v", err)
	}
}

// TestBoundAllocFree proves that binding, packing and unpacking allocate nothing.
func TestBoundAllocFree(t *testing.T) {
	v, err := Vector(256, 1, 4, Float64)
	if err == nil {
		err = v.Commit()
	}
	if err != nil {
		t.Fatal(err)
	}
	mem, packed := make([]byte, 8*4*256), make([]byte, 8*256)
	if n := testing.AllocsPerRun(100, func() {
		b, err := v.Bind(mem, 1)
		if err != nil {
			t.Fatal(err)
		}
		if b.Pack(packed) != nil || b.Unpack(packed) != nil {
			t.Fatal("pack failed")
		}
	}); n != 0 {
		t.Errorf("%v allocations per bind, pack and unpack", n)
	}
}
