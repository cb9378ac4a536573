package rma

import (
	"golang.org/x/sys/cpu"

	"github.com/mpigo/mpigo/internal/datatype"
)

// The accumulate kernels programs reach most (Sum on floats and on integers of up to 4
// bytes, the bitwise ops) as AVX2 loops of 64 bytes a step (simd_amd64.s), where the
// CPU has AVX2: the Go compiler does not vectorise (docs/BENCHMARKS.md, one-sided
// communication: one node). Each lane is one element's operation, so the results
// are the Go loops' (IEEE addition for floats, wrapping for integers). 8-byte integers
// never reach these: they take the CPU's atomics (Atomic).

//go:noescape
func vpaddb(dst, src *byte, blocks int)

//go:noescape
func vpaddw(dst, src *byte, blocks int)

//go:noescape
func vpaddd(dst, src *byte, blocks int)

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

// simd runs vec on the whole 64-byte blocks of target and tail on the rest.
func simd(vec func(dst, src *byte, blocks int), tail Kernel) Kernel {
	return func(t, o []byte) {
		n := len(t) &^ 63
		if n > 0 {
			vec(&t[0], &o[0], n>>6)
		}
		if n < len(t) {
			tail(t[n:], o[n:len(t)])
		}
	}
}

func simdKernels() {
	if !cpu.X86.HasAVX2 {
		return
	}
	sums := []struct {
		k   datatype.Kind
		vec func(dst, src *byte, blocks int)
	}{
		{datatype.KindInt8, vpaddb}, {datatype.KindUint8, vpaddb},
		{datatype.KindInt16, vpaddw}, {datatype.KindUint16, vpaddw},
		{datatype.KindInt32, vpaddd}, {datatype.KindUint32, vpaddd},
		{datatype.KindFloat32, vaddps}, {datatype.KindFloat64, vaddpd},
	}
	for _, s := range sums {
		kernels[OpSum][s.k] = simd(s.vec, kernels[OpSum][s.k])
	}
	for _, k := range []datatype.Kind{datatype.KindInt8, datatype.KindInt16, datatype.KindInt32,
		datatype.KindUint8, datatype.KindUint16, datatype.KindUint32, datatype.KindByte} {
		kernels[OpBand][k] = simd(vpand, kernels[OpBand][k])
		kernels[OpBor][k] = simd(vpor, kernels[OpBor][k])
		kernels[OpBxor][k] = simd(vpxor, kernels[OpBxor][k])
	}
}
