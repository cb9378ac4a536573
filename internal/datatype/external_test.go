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

// TestExternal32CTypes checks the C types whose external32 size differs from the
// native one (MPI 4.1 §19.3.5): long and unsigned long in 4 bytes, wchar_t in 2,
// long double as IEEE binary128, and a struct and a count of them.
func TestExternal32CTypes(t *testing.T) {
	x87 := func(mant uint64, se uint16) []byte {
		b := make([]byte, 16)
		binary.LittleEndian.PutUint64(b, mant)
		binary.LittleEndian.PutUint16(b[8:], se)
		return b
	}
	quad := func(hi, lo uint64) []byte {
		return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, hi), lo)
	}
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	le := func(v uint64, n int) []byte { return binary.LittleEndian.AppendUint64(nil, v)[:n] }
	tests := []struct {
		name      string
		ty        *Type
		count     int64
		nat, want []byte
	}{
		{"long", CLong, 3, cat(le(uint64(1), 8), le(^uint64(0), 8), le(uint64(0x7fffffff), 8)),
			[]byte{0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff}},
		{"ulong", CUlong, 1, le(0xfffffffe, 8), []byte{0xff, 0xff, 0xff, 0xfe}},
		{"wchar", Wchar, 2, cat(le('A', 4), le(0x20ac, 4)), []byte{0, 'A', 0x20, 0xac}},
		// 1.0, -2.5, the smallest x87 denormal, +Inf.
		{"long double", LongDouble, 4,
			cat(x87(1<<63, 0x3fff), x87(0xa<<60, 0xc000), x87(1, 0), x87(1<<63, 0x7fff)),
			cat(quad(0x3fff<<48, 0), quad(0xc000<<48|1<<46, 0), quad(0, 1<<49), quad(0x7fff<<48, 0))},
		{"long double complex", LongDoubleComplex, 1, cat(x87(1<<63, 0x3fff), x87(1<<63, 0xbfff)),
			cat(quad(0x3fff<<48, 0), quad(0xbfff<<48, 0))},
		{"long int", CLongInt, 1, cat(le(^uint64(6), 8), le(9, 4)), []byte{0xff, 0xff, 0xff, 0xf9, 0, 0, 0, 9}},
		{"long double int", LongDoubleInt, 1, cat(x87(1<<63, 0x3fff), le(9, 4)),
			cat(quad(0x3fff<<48, 0), []byte{0, 0, 0, 9})},
		{"real16 (swapped)", Swapped("real16", 16, 16), 1, le(0x0102030405060708, 8),
			cat([]byte{0, 0, 0, 0, 0, 0, 0, 0}, []byte{1, 2, 3, 4, 5, 6, 7, 8})},
	}
	for _, tc := range tests {
		// The native memory: count instances at the type's extent.
		ext := tc.ty.Extent()
		mem := make([]byte, tc.count*ext)
		per := int64(len(tc.nat)) / tc.count
		for k := range tc.count {
			copy(mem[k*ext:], tc.nat[k*per:(k+1)*per])
		}
		if tc.ty == LongDoubleInt {
			// {long double; int}: the int sits at 16.
			mem = make([]byte, 32)
			copy(mem, tc.nat[:16])
			copy(mem[16:], tc.nat[16:])
		}
		if tc.ty.Name() == "real16" {
			mem = make([]byte, 16)
			copy(mem, tc.nat)
		}
		n, err := tc.ty.External32Size(tc.count)
		if err != nil || n != int64(len(tc.want)) {
			t.Errorf("%s: External32Size(%d) = %d, %v; want %d", tc.name, tc.count, n, err, len(tc.want))
			continue
		}
		got := make([]byte, n)
		if k, err := tc.ty.PackExternal(got, mem, tc.count); err != nil || k != n || !bytes.Equal(got, tc.want) {
			t.Errorf("%s: PackExternal = %d, %v\n got %x\nwant %x", tc.name, k, err, got, tc.want)
			continue
		}
		back := make([]byte, len(mem))
		if k, err := tc.ty.UnpackExternal(back, got, tc.count); err != nil || k != n {
			t.Errorf("%s: UnpackExternal = %d, %v", tc.name, k, err)
			continue
		}
		// Compare the data bytes only: long double's 6 padding bytes and a
		// struct's padding are not data.
		for _, p := range mustIov(t, tc.ty, tc.count) {
			if tc.ty == LongDouble || tc.ty == LongDoubleComplex || tc.ty == LongDoubleInt {
				continue
			}
			if !bytes.Equal(back[p.Off:p.Off+p.Len], mem[p.Off:p.Off+p.Len]) {
				t.Errorf("%s: round trip at %d: %x, want %x", tc.name, p.Off, back[p.Off:p.Off+p.Len], mem[p.Off:p.Off+p.Len])
			}
		}
		if tc.ty == LongDouble {
			for k := range tc.count {
				if !bytes.Equal(back[k*16:k*16+10], mem[k*16:k*16+10]) {
					t.Errorf("long double %d: round trip %x, want %x", k, back[k*16:k*16+10], mem[k*16:k*16+10])
				}
			}
		}
	}
	// A vector of longs converts each element: external32 is 4 bytes each.
	v, _ := Vector(2, 1, 2, CLong)
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	if n, _ := v.External32Size(3); n != 24 {
		t.Errorf("vector of 2 longs x3: external32 size %d, want 24", n)
	}
	if n, _ := v.PackSize(3); n != 48 {
		t.Errorf("vector of 2 longs x3: native size %d, want 48", n)
	}
}

func mustIov(t *testing.T, ty *Type, count int64) []Piece {
	t.Helper()
	iov := make([]Piece, 64)
	n, _, err := ty.Iov(iov, count, 0)
	if err != nil {
		t.Fatal(err)
	}
	return iov[:n]
}
