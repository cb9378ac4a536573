package op

import (
	"golang.org/x/sys/cpu"

	"github.com/mpigo/mpigo/internal/datatype"
)

// The kernels programs reach most, Sum on integers and floats and the bitwise
// operations, run as AVX2 loops of 64 bytes a step (simd_amd64.s) where the CPU has
// AVX2: the Go compiler does not vectorise. Each lane is one element's operation, so
// the results are the Go loops' (IEEE addition for floats, wrapping for integers);
// the bytes past the last whole 64 go to the Go loop. A call shorter than 64 bytes
// costs one comparison more than the Go loop alone.

//go:noescape
func vpaddb(dst, src *byte, blocks int)

//go:noescape
func vpaddw(dst, src *byte, blocks int)

//go:noescape
func vpaddd(dst, src *byte, blocks int)

//go:noescape
func vpaddq(dst, src *byte, blocks int)

//go:noescape
func vaddps(dst, src *byte, blocks int)

//go:noescape
func vaddpd(dst, src *byte, blocks int)

//go:noescape
func vpand(dst, src *byte, blocks int)

//go:noescape
func vpor(dst, src *byte, blocks int)

//go:noescape
func vpxor(dst, src *byte, blocks int)

// Each kernel runs its vector loop on inout's whole 64-byte blocks and a Go loop of
// its own on the rest: a named function with the loop inline, so that a short call
// (an 8-byte Allreduce's) is one call.

func sum8(inout, in []byte) {
	n := len(inout) &^ 63
	if n > 0 {
		vpaddb(&inout[0], &in[0], n>>6)
	}
	a := view[uint8](inout[n:])
	b := view[uint8](in[n:len(inout)])[:len(a)]
	for i := range a {
		a[i] += b[i]
	}
}

func sum16(inout, in []byte) {
	n := len(inout) &^ 63
	if n > 0 {
		vpaddw(&inout[0], &in[0], n>>6)
	}
	a := view[uint16](inout[n:])
	b := view[uint16](in[n:len(inout)])[:len(a)]
	for i := range a {
		a[i] += b[i]
	}
}

func sum32(inout, in []byte) {
	n := len(inout) &^ 63
	if n > 0 {
		vpaddd(&inout[0], &in[0], n>>6)
	}
	a := view[uint32](inout[n:])
	b := view[uint32](in[n:len(inout)])[:len(a)]
	for i := range a {
		a[i] += b[i]
	}
}

func sum64(inout, in []byte) {
	n := len(inout) &^ 63
	if n > 0 {
		vpaddq(&inout[0], &in[0], n>>6)
	}
	a := view[uint64](inout[n:])
	b := view[uint64](in[n:len(inout)])[:len(a)]
	for i := range a {
		a[i] += b[i]
	}
}

func sumF32(inout, in []byte) {
	n := len(inout) &^ 63
	if n > 0 {
		vaddps(&inout[0], &in[0], n>>6)
	}
	a := view[float32](inout[n:])
	b := view[float32](in[n:len(inout)])[:len(a)]
	for i := range a {
		a[i] += b[i]
	}
}

func sumF64(inout, in []byte) {
	n := len(inout) &^ 63
	if n > 0 {
		vaddpd(&inout[0], &in[0], n>>6)
	}
	a := view[float64](inout[n:])
	b := view[float64](in[n:len(inout)])[:len(a)]
	for i := range a {
		a[i] += b[i]
	}
}

// The bitwise operations act on bits alone: one loop serves every integer width,
// and its tail works on bytes.

func band(inout, in []byte) {
	n := len(inout) &^ 63
	if n > 0 {
		vpand(&inout[0], &in[0], n>>6)
	}
	a := view[uint8](inout[n:])
	b := view[uint8](in[n:len(inout)])[:len(a)]
	for i := range a {
		a[i] &= b[i]
	}
}

func bor(inout, in []byte) {
	n := len(inout) &^ 63
	if n > 0 {
		vpor(&inout[0], &in[0], n>>6)
	}
	a := view[uint8](inout[n:])
	b := view[uint8](in[n:len(inout)])[:len(a)]
	for i := range a {
		a[i] |= b[i]
	}
}

func bxor(inout, in []byte) {
	n := len(inout) &^ 63
	if n > 0 {
		vpxor(&inout[0], &in[0], n>>6)
	}
	a := view[uint8](inout[n:])
	b := view[uint8](in[n:len(inout)])[:len(a)]
	for i := range a {
		a[i] ^= b[i]
	}
}

func simdKernels() {
	if !cpu.X86.HasAVX2 {
		return
	}
	sums := []struct {
		k  Kind
		fn Kernel
	}{
		{datatype.KindInt8, sum8}, {datatype.KindUint8, sum8},
		{datatype.KindInt16, sum16}, {datatype.KindUint16, sum16},
		{datatype.KindInt32, sum32}, {datatype.KindUint32, sum32},
		{datatype.KindInt64, sum64}, {datatype.KindUint64, sum64},
		{datatype.KindInt, sum64}, {datatype.KindUint, sum64},
		{datatype.KindFloat32, sumF32}, {datatype.KindFloat64, sumF64},
		{datatype.KindComplex64, sumF32}, {datatype.KindComplex128, sumF64}, // lane by lane, re and im
	}
	for _, s := range sums {
		kernels[Sum][s.k] = s.fn
	}
	for k := range datatype.NumKinds {
		if kernels[Band][k] != nil {
			kernels[Band][k], kernels[Bor][k], kernels[Bxor][k] = band, bor, bxor
		}
	}
}
