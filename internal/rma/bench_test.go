package rma

import (
	"fmt"
	"testing"

	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/op"
)

// BenchmarkAccKernel measures the accumulate kernels a window applies under its lock:
// Sum on the vector-loop kinds, Band, and Max (a Go loop), at a cache-resident 4 KiB
// and a 1 MiB run.
func BenchmarkAccKernel(b *testing.B) {
	cases := []struct {
		op Op
		k  datatype.Kind
	}{
		{OpSum, datatype.KindFloat64}, {OpSum, datatype.KindInt32}, {OpSum, datatype.KindFloat32},
		{OpBand, datatype.KindUint8}, {op.Max, datatype.KindFloat64}, {op.Max, datatype.KindInt32},
	}
	for _, c := range cases {
		for _, n := range []int{4 << 10, 1 << 20} {
			b.Run(fmt.Sprintf("%v/%v/%d", c.op, c.k, n), func(b *testing.B) {
				fn, err := Lookup(c.op, c.k)
				if err != nil {
					b.Fatal(err)
				}
				t, o := make([]byte, n), make([]byte, n)
				b.ReportAllocs()
				b.SetBytes(int64(n))
				for b.Loop() {
					fn(t, o)
				}
			})
		}
	}
}
