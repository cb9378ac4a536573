package mpi_test

import (
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

func BenchmarkTmpAllreduce(b *testing.B) {
	if !mpi.Initialized() {
		mpi.Init()
	}
	n := 256
	a, res := make([]float64, 4*n), make([]float64, 4*n)
	col, _ := mpi.TypeVector(n, 1, 4, mpi.Float64)
	col.Commit()
	packed, out := make([]float64, n), make([]float64, n)
	b.Run("typed", func(b *testing.B) {
		for b.Loop() {
			mpi.AllreduceBuf(mpi.World, mpi.Typed(a[1:], 1, col), mpi.Typed(res[1:], 1, col), mpi.Sum)
		}
	})
	b.Run("hand", func(b *testing.B) {
		for b.Loop() {
			for i := range packed {
				packed[i] = a[4*i+1]
			}
			mpi.Allreduce(mpi.World, packed, out, mpi.Sum)
			for i, v := range out {
				res[4*i+1] = v
			}
		}
	})
}
