package mpi_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// TestAllreduceBufColumn sums column 1 of every rank's 5x4 row-major matrix into
// column 2 of a result matrix, both described by a strided vector of Float64, and checks
// it against a serial sum; the other entries stay untouched.
func TestAllreduceBufColumn(t *testing.T) {
	const rows, cols = 5, 4
	job(t, 4, func(t *testing.T, rank, size int) {
		col, err := mpi.TypeVector(rows, 1, cols, mpi.Float64)
		must(t, err)
		must(t, col.Commit())
		a := make([]float64, rows*cols)
		for i := range a {
			a[i] = float64(100*rank + i)
		}
		res := make([]float64, rows*cols)
		for i := range res {
			res[i] = -1
		}
		must(t, mpi.AllreduceBuf(mpi.World, mpi.Typed(a[1:], 1, col), mpi.Typed(res[2:], 1, col), mpi.Sum))
		for i := range rows {
			for j := range cols {
				want := -1.0
				if j == 2 {
					want = 0
					for r := range size { // the serial reference
						want += float64(100*r + i*cols + 1)
					}
				}
				if res[i*cols+j] != want {
					t.Errorf("rank %d: res[%d][%d] = %v, want %v", rank, i, j, res[i*cols+j], want)
				}
			}
		}
		// The same column into a contiguous result: only the signature must match.
		flat := make([]float64, rows)
		must(t, mpi.AllreduceBuf(mpi.World, mpi.Typed(a[1:], 1, col), mpi.Typed(flat, rows, mpi.Float64), mpi.Max))
		for i := range rows {
			if want := float64(100*(size-1) + i*cols + 1); flat[i] != want {
				t.Errorf("rank %d: Max flat[%d] = %v, want %v", rank, i, flat[i], want)
			}
		}
	})
}

// TestReduceBufStruct reduces a struct of int32 fields (with a gap between them) to a root.
func TestReduceBufStruct(t *testing.T) {
	type rec struct{ A, Skip, B int32 }
	job(t, 3, func(t *testing.T, rank, size int) {
		dt, err := mpi.TypeStruct([]int{1, 1}, []int{0, 8}, []*mpi.Datatype{mpi.Int32, mpi.Int32})
		must(t, err)
		dt, err = mpi.TypeResized(dt, 0, 12)
		must(t, err)
		must(t, dt.Commit())
		send := []rec{{int32(rank), 99, int32(-rank)}, {int32(2 * rank), 99, 7}}
		recv := []rec{{0, 5, 0}, {0, 5, 0}}
		must(t, mpi.ReduceBuf(mpi.World, mpi.Typed(send, 2, dt), mpi.Typed(recv, 2, dt), mpi.Max, 1))
		if rank == 1 {
			want := []rec{{int32(size - 1), 5, 0}, {int32(2 * (size - 1)), 5, 7}}
			if recv[0] != want[0] || recv[1] != want[1] {
				t.Errorf("ReduceBuf Max: %v, want %v", recv, want)
			}
		}
	})
}

func TestReduceBufRefusals(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		type mixed struct {
			I int32
			F float64
		}
		dt, err := mpi.TypeOf[mixed]()
		must(t, err)
		m := []mixed{{1, 2}}
		err = mpi.AllreduceBuf(mpi.World, mpi.Typed(m, 1, dt), mpi.Typed(m, 1, dt), mpi.Sum)
		if !errors.Is(err, mpi.ErrType) || !strings.Contains(err.Error(), "mixes element types") {
			t.Errorf("mixed struct: %v, want ErrType naming the rule", err)
		}
		di, err := mpi.TypeOf[[2]float64]()
		must(t, err)
		s, r := []float64{1, 2, 3, 4}, make([]float64, 4)
		if err := mpi.AllreduceBuf(mpi.World, mpi.Typed(s, 2, di), mpi.Typed(r, 3, mpi.Float64), mpi.Sum); !errors.Is(err, mpi.ErrCount) {
			t.Errorf("4 elements into 3: %v, want ErrCount", err)
		}
		if err := mpi.AllreduceBuf(mpi.World, mpi.Typed(s, 4, mpi.Float64), mpi.Typed([]int64{0, 0, 0, 0}, 4, mpi.Int64), mpi.Sum); !errors.Is(err, mpi.ErrType) {
			t.Errorf("float64 into int64: %v, want ErrType", err)
		}
		if err := mpi.AllreduceBuf(mpi.World, mpi.Typed(s, 4, mpi.Float64), mpi.Typed(r, 4, mpi.Float64), mpi.Band); !errors.Is(err, mpi.ErrOp) {
			t.Errorf("Band on float64: %v, want ErrOp", err)
		}
		// MPI_2INT pairs take Maxloc; Sum on them and on the other pair types is refused.
		pairs := []int32{int32(rank), int32(10 + rank), int32(-rank), int32(20 + rank)}
		best := make([]int32, 4)
		must(t, mpi.AllreduceBuf(mpi.World, mpi.Typed(pairs, 2, mpi.Int32Int32), mpi.Typed(best, 2, mpi.Int32Int32), mpi.Maxloc))
		if want := []int32{int32(size - 1), int32(10 + size - 1), 0, 20}; best[0] != want[0] || best[1] != want[1] || best[2] != want[2] || best[3] != want[3] {
			t.Errorf("Maxloc on Int32Int32: %v, want %v", best, want)
		}
		if err := mpi.AllreduceBuf(mpi.World, mpi.Typed(pairs, 2, mpi.Int32Int32), mpi.Typed(best, 2, mpi.Int32Int32), mpi.Sum); !errors.Is(err, mpi.ErrOp) {
			t.Errorf("Sum on Int32Int32: %v, want ErrOp", err)
		}
		fi, fo := make([]float64, 4), make([]float64, 4)
		if err := mpi.AllreduceBuf(mpi.World, mpi.Typed(fi, 2, mpi.Float64Int32), mpi.Typed(fo, 2, mpi.Float64Int32), mpi.Sum); !errors.Is(err, mpi.ErrOp) {
			t.Errorf("Sum on Float64Int32: %v, want ErrOp", err)
		}
		// Still in step after the refusals.
		must(t, mpi.AllreduceBuf(mpi.World, mpi.Typed(s, 2, di), mpi.Typed(r, 4, mpi.Float64), mpi.Sum))
		if r[3] != 8 {
			t.Errorf("after refusals: %v", r)
		}
	})
}

// TestAllreduceBufInter runs the typed reductions on an intercommunicator.
func TestAllreduceBufInter(t *testing.T) {
	interJob(t, func(t *testing.T, ic *mpi.Comm, side int) {
		col, err := mpi.TypeVector(2, 1, 3, mpi.Int64)
		must(t, err)
		must(t, col.Commit())
		me := int64(val(side, ic.Rank()))
		a := []int64{me, 0, 0, 2 * me, 0, 0}
		out := make([]int64, 2)
		must(t, mpi.AllreduceBuf(ic, mpi.Typed(a, 1, col), mpi.Typed(out, 2, mpi.Int64), mpi.Sum))
		want := int64(63) // A gets B's 20+21+22
		if side == 1 {
			want = 21 // B gets A's 10+11
		}
		if out[0] != want || out[1] != 2*want {
			t.Errorf("side %d: AllreduceBuf %v, want [%d %d]", side, out, want, 2*want)
		}
		// ReduceBuf into B's rank 1 from A's columns.
		root := 1
		res := []int64{0, 0, 0, 0, 0, 0}
		if side == 1 {
			root = mpi.ProcNull
			if ic.Rank() == 1 {
				root = mpi.Root
			}
		}
		must(t, mpi.ReduceBuf(ic, mpi.Typed(a, 1, col), mpi.Typed(res, 1, col), mpi.Sum, root))
		if side == 1 && ic.Rank() == 1 && (res[0] != 21 || res[3] != 42 || res[1] != 0) {
			t.Errorf("ReduceBuf into B's root: %v", res)
		}
	})
}
