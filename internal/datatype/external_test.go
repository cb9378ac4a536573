package datatype

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
	"unsafe"
)

// unsafeBytes views a slice of plain values as its bytes.
func unsafeBytes[T any](s []T) []byte {
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

func TestExternal32(t *testing.T) {
	// {int16; pad; float64 at 8; int32 pair} in a vector: mixed sizes.
	st, err := Struct([]int64{1, 1, 1}, []int64{0, 8, 16}, []*Type{Int16, Float64, Float64Int32})
	if err != nil {
		t.Fatal(err)
	}
	vt, err := Vector(2, 1, 2, st)
	if err != nil {
		t.Fatal(err)
	}
	if err := vt.Commit(); err != nil {
		t.Fatal(err)
	}
	src := make([]byte, 4*st.Extent())
	var want []byte
	for i := range int64(2) {
		b := src[i*2*st.Extent():]
		binary.NativeEndian.PutUint16(b[0:], uint16(0x0102+i))
		binary.NativeEndian.PutUint64(b[8:], math.Float64bits(1.5+float64(i)))
		binary.NativeEndian.PutUint64(b[16:], math.Float64bits(-2.25))
		binary.NativeEndian.PutUint32(b[24:], uint32(7+i))
		want = binary.BigEndian.AppendUint16(want, uint16(0x0102+i))
		want = binary.BigEndian.AppendUint64(want, math.Float64bits(1.5+float64(i)))
		want = binary.BigEndian.AppendUint64(want, math.Float64bits(-2.25))
		want = binary.BigEndian.AppendUint32(want, uint32(7+i))
	}
	n, _ := vt.External32Size(1)
	got := make([]byte, n)
	if _, err := vt.PackExternal(got, src, 1); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("PackExternal = %v, %v\nwant %v", got, err, want)
	}
	back := make([]byte, len(src))
	if _, err := vt.UnpackExternal(back, got, 1); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back[:st.TrueExtent()], src[:st.TrueExtent()]) {
		t.Errorf("UnpackExternal round trip differs")
	}

	c, _ := Contiguous(3, Complex64)
	c.Commit()
	cs := []complex64{complex(1, 2), complex(3, 4), complex(5, 6)}
	out := make([]byte, 24)
	c.PackExternal(out, unsafeBytes(cs), 1)
	for i, v := range cs {
		re := math.Float32frombits(binary.BigEndian.Uint32(out[8*i:]))
		im := math.Float32frombits(binary.BigEndian.Uint32(out[8*i+4:]))
		if complex(re, im) != v {
			t.Errorf("complex64 %d: %v, want %v", i, complex(re, im), v)
		}
	}
}
