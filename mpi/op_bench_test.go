package mpi

import (
	"fmt"
	"testing"
)

// BenchmarkSumKernel measures the float64 Sum kernel on the 1 MiB vector of the
// allreduce benchmark (and a cache-resident 8 KiB one).
func BenchmarkSumKernel(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 17} {
		b.Run(fmt.Sprint(n*8), func(b *testing.B) {
			x, y := make([]float64, n), make([]float64, n)
			k, err := red[float64]("bench", Sum)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				k.K.Fn(asBytes(x), asBytes(y))
			}
		})
	}
}

// BenchmarkMaxKernel is the same for Max on int32, a compare-and-select loop.
func BenchmarkMaxKernel(b *testing.B) {
	n := 1 << 18
	x, y := make([]int32, n), make([]int32, n)
	k, _ := red[int32]("bench", Max)
	b.ReportAllocs()
	b.SetBytes(int64(4 * n))
	for b.Loop() {
		k.K.Fn(asBytes(x), asBytes(y))
	}
}
