package op

import (
	"golang.org/x/sys/cpu"

	"github.com/mpigo/mpigo/internal/datatype"
)

// The kernels programs reach most, Sum, Prod, Min and Max on integers and floats and the
// bitwise operations, run as AVX2 loops of 64 bytes a step (simd_amd64.s) where the
// CPU has AVX2: the Go compiler does not vectorise. Each lane is one element's
// operation, so the results are the Go loops' (IEEE addition for floats, wrapping for
// integers, Go's min and max);
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

//go:noescape
func vpmaxsb(dst, src *byte, blocks int)

//go:noescape
func vpminsb(dst, src *byte, blocks int)

//go:noescape
func vpmaxub(dst, src *byte, blocks int)

//go:noescape
func vpminub(dst, src *byte, blocks int)

//go:noescape
func vpmaxsw(dst, src *byte, blocks int)

//go:noescape
func vpminsw(dst, src *byte, blocks int)

//go:noescape
func vpmaxuw(dst, src *byte, blocks int)

//go:noescape
func vpminuw(dst, src *byte, blocks int)

//go:noescape
func vpmaxsd(dst, src *byte, blocks int)

//go:noescape
func vpminsd(dst, src *byte, blocks int)

//go:noescape
func vpmaxud(dst, src *byte, blocks int)

//go:noescape
func vpminud(dst, src *byte, blocks int)

//go:noescape
func vpmaxsq(dst, src *byte, blocks int)

//go:noescape
func vpminsq(dst, src *byte, blocks int)

//go:noescape
func vpmaxuq(dst, src *byte, blocks int)

//go:noescape
func vpminuq(dst, src *byte, blocks int)

//go:noescape
func vmaxpd(dst, src *byte, blocks int)

//go:noescape
func vminpd(dst, src *byte, blocks int)

//go:noescape
func vmaxps(dst, src *byte, blocks int)

//go:noescape
func vminps(dst, src *byte, blocks int)

//go:noescape
func vmulpd(dst, src *byte, blocks int)

//go:noescape
func vmulps(dst, src *byte, blocks int)

//go:noescape
func vpmulld(dst, src *byte, blocks int)

//go:noescape
func vpmullw(dst, src *byte, blocks int)

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

// vecK is a kernel whose vector loop vec does inout's whole 64-byte blocks and the Go
// kernel tail the rest: Prod, Min and Max (the vector Min and Max give Go's min and
// max exactly, for floats too: NaN if either operand is, -0 below +0, simd_amd64.s).
func vecK(vec func(dst, src *byte, blocks int), tail Kernel) Kernel {
	return func(inout, in []byte) {
		n := len(inout) &^ 63
		if n > 0 {
			vec(&inout[0], &in[0], n>>6)
		}
		tail(inout[n:], in[n:len(inout)])
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
	// AVX2 multiplies no 8- or 64-bit integers: those Prods keep the Go loops.
	vecs := []struct {
		o   Op
		k   Kind
		vec func(dst, src *byte, blocks int)
	}{
		{Prod, datatype.KindInt16, vpmullw}, {Prod, datatype.KindUint16, vpmullw},
		{Prod, datatype.KindInt32, vpmulld}, {Prod, datatype.KindUint32, vpmulld},
		{Prod, datatype.KindFloat32, vmulps}, {Prod, datatype.KindFloat64, vmulpd},
		{Min, datatype.KindInt8, vpminsb}, {Max, datatype.KindInt8, vpmaxsb},
		{Min, datatype.KindUint8, vpminub}, {Max, datatype.KindUint8, vpmaxub},
		{Min, datatype.KindInt16, vpminsw}, {Max, datatype.KindInt16, vpmaxsw},
		{Min, datatype.KindUint16, vpminuw}, {Max, datatype.KindUint16, vpmaxuw},
		{Min, datatype.KindInt32, vpminsd}, {Max, datatype.KindInt32, vpmaxsd},
		{Min, datatype.KindUint32, vpminud}, {Max, datatype.KindUint32, vpmaxud},
		{Min, datatype.KindInt64, vpminsq}, {Max, datatype.KindInt64, vpmaxsq},
		{Min, datatype.KindInt, vpminsq}, {Max, datatype.KindInt, vpmaxsq},
		{Min, datatype.KindUint64, vpminuq}, {Max, datatype.KindUint64, vpmaxuq},
		{Min, datatype.KindUint, vpminuq}, {Max, datatype.KindUint, vpmaxuq},
		{Min, datatype.KindFloat32, vminps}, {Max, datatype.KindFloat32, vmaxps},
		{Min, datatype.KindFloat64, vminpd}, {Max, datatype.KindFloat64, vmaxpd},
	}
	for _, v := range vecs {
		kernels[v.o][v.k] = vecK(v.vec, kernels[v.o][v.k])
	}
	for k := range datatype.NumKinds {
		if kernels[Band][k] != nil {
			kernels[Band][k], kernels[Bor][k], kernels[Bxor][k] = band, bor, bxor
		}
	}
}
