package op

import (
	"fmt"
	"testing"

	"github.com/mpigo/mpigo/internal/datatype"
)

// BenchmarkKernel measures the kernels reductions and accumulates reach most, at a
// cache-resident 4 KiB and at 1 MiB (the Allreduce benchmark's long size); Sum on long
// double is the integer arithmetic of x87.go.
func BenchmarkKernel(b *testing.B) {
	cases := []struct {
		o Op
		k Kind
	}{
		{Sum, datatype.KindFloat64}, {Prod, datatype.KindFloat64}, {Prod, datatype.KindInt32}, {Sum, datatype.KindInt32}, {Sum, datatype.KindInt64}, {Sum, datatype.KindFloat32},
		{Band, datatype.KindUint8}, {Max, datatype.KindFloat64}, {Min, datatype.KindFloat32}, {Max, datatype.KindInt32},
		{Min, datatype.KindInt64}, {Max, datatype.KindUint8}, {Max, datatype.KindUint64},
		{Maxloc, datatype.KindFloat64Int32}, {Minloc, datatype.KindFloat32Int32}, {Sum, datatype.KindLongDouble},
	}
	for _, c := range cases {
		for _, n := range []int{4 << 10, 1 << 20} {
			b.Run(fmt.Sprintf("%v/%v/%d", c.o, c.k, n), func(b *testing.B) {
				fn := Reduce(c.o, c.k)
				x, y := make([]byte, n), make([]byte, n)
				b.ReportAllocs()
				b.SetBytes(int64(n))
				for b.Loop() {
					fn(x, y)
				}
			})
		}
	}
}
