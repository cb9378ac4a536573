package mpi_test

import (
	"errors"
	"math"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

type pair32 struct{ V, I int32 }

// shortPair is MPI_SHORT_INT as Go lays it out: 6 bytes of data in 8.
type shortPair struct {
	V int16
	I int32
}

// TestPairAccumulates: Maxloc and Minloc accumulate on the pair types, ties going to
// the smaller index; a GetAccumulate of one Int16Int32 (MPI_Fetch_and_op's form, 6
// bytes of data in 8) returns the old pair; an accumulate that moves no data (a
// zero-size datatype) succeeds whatever its origin's type.
func TestPairAccumulates(t *testing.T) {
	winJob(t, 3, func(t *testing.T, rank, size int) {
		w, _, err := mpi.WinAllocate(64, 1, nil, mpi.World)
		must(t, err)
		if rank == 0 {
			must(t, w.Lock(mpi.LockExclusive, 0, 0))
			init2 := []pair32{{-100, 99}, {100, 99}}
			must(t, mpi.PutBuf(w, mpi.Typed(init2, 2, mpi.Int32Int32), 0, 0, 2, mpi.Int32Int32))
			must(t, mpi.PutBuf(w, mpi.Typed([]shortPair{{-1, 99}}, 1, mpi.Int16Int32), 0, 16, 1, mpi.Int16Int32))
			must(t, w.Unlock(0))
		}
		must(t, mpi.World.Barrier())
		// Ranks 1 and 2 bring 9, rank 0 brings 7: Maxloc keeps (9, 1), Minloc (7, 0).
		v := int32(9)
		if rank == 0 {
			v = 7
		}
		mine := []pair32{{v, int32(rank)}}
		must(t, w.Lock(mpi.LockShared, 0, 0))
		must(t, mpi.AccumulateBuf(w, mpi.Typed(mine, 1, mpi.Int32Int32), 0, 0, 1, mpi.Int32Int32, mpi.Maxloc))
		must(t, mpi.AccumulateBuf(w, mpi.Typed(mine, 1, mpi.Int32Int32), 0, 8, 1, mpi.Int32Int32, mpi.Minloc))
		must(t, w.Unlock(0))
		old := []shortPair{{-7, -7}}
		must(t, w.Lock(mpi.LockExclusive, 0, 0))
		must(t, mpi.GetAccumulateBuf(w, mpi.Typed([]shortPair{{int16(10 * rank), int32(rank)}}, 1, mpi.Int16Int32),
			mpi.Typed(old, 1, mpi.Int16Int32), 0, 16, 1, mpi.Int16Int32, mpi.Maxloc))
		must(t, w.Unlock(0))
		if old[0].V > int16(10*(size-1)) || (old[0].V == -1) != (old[0].I == 99) {
			t.Errorf("GetAccumulate Maxloc on Int16Int32 returned %+v", old[0])
		}
		// Nothing moves: the origin's float64s and the target's zero-size int32s are
		// not compared, nor is Band looked at.
		none, err := mpi.TypeContiguous(0, mpi.Int32)
		must(t, err)
		must(t, none.Commit())
		must(t, w.Lock(mpi.LockShared, 0, 0))
		must(t, mpi.AccumulateBuf(w, mpi.Typed([]float64{}, 0, mpi.Float64), 0, 0, 1, none, mpi.Band))
		must(t, mpi.AccumulateBuf(w, mpi.Typed([]int32{}, 3, none), 0, 0, 1, none, mpi.Sum))
		must(t, w.Unlock(0))
		// A pair type still takes Maxloc and Minloc only.
		must(t, w.Lock(mpi.LockShared, 0, 0))
		if err := mpi.AccumulateBuf(w, mpi.Typed(mine, 1, mpi.Int32Int32), 0, 0, 1, mpi.Int32Int32, mpi.Sum); !errors.Is(err, mpi.ErrOp) {
			t.Errorf("Sum accumulate on Int32Int32: %v, want ErrOp", err)
		}
		must(t, w.Unlock(0))
		must(t, mpi.World.Barrier())
		if rank == 0 {
			got, sp := make([]pair32, 2), make([]shortPair, 1)
			must(t, w.Lock(mpi.LockShared, 0, 0))
			must(t, mpi.GetBuf(w, mpi.Typed(got, 2, mpi.Int32Int32), 0, 0, 2, mpi.Int32Int32))
			must(t, mpi.GetBuf(w, mpi.Typed(sp, 1, mpi.Int16Int32), 0, 16, 1, mpi.Int16Int32))
			must(t, w.Unlock(0))
			if got[0] != (pair32{9, 1}) || got[1] != (pair32{7, 0}) {
				t.Errorf("Maxloc, Minloc accumulates: %+v, want {9 1} {7 0}", got)
			}
			if want := (shortPair{int16(10 * (size - 1)), int32(size - 1)}); sp[0] != want {
				t.Errorf("GetAccumulate Maxloc on Int16Int32 left %+v, want %+v", sp[0], want)
			}
		}
		must(t, none.Free())
		must(t, w.Free())
	})
}

// TestMinMaxSpreadNaN: Max and Min on floats give NaN when any rank brings one, on
// every rank, so the result does not depend on the order the ranks combine in.
func TestMinMaxSpreadNaN(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		in := []float64{float64(rank), 1, float64(-rank)}
		if rank == 1 {
			in[0], in[2] = math.NaN(), math.NaN()
		}
		mx, mn := make([]float64, 3), make([]float64, 3)
		must(t, mpi.Allreduce(mpi.World, in, mx, mpi.Max))
		must(t, mpi.Allreduce(mpi.World, in, mn, mpi.Min))
		if !math.IsNaN(mx[0]) || mx[1] != 1 || !math.IsNaN(mx[2]) || !math.IsNaN(mn[0]) || mn[1] != 1 || !math.IsNaN(mn[2]) {
			t.Errorf("Max %v, Min %v: want NaN, 1, NaN in both", mx, mn)
		}
		// Replace keeps the later operand, NoOp the earlier; neither commutes.
		a, b := []int32{1, 2}, []int32{3, 4}
		must(t, mpi.ReduceLocal(a, b, mpi.Replace))
		if b[0] != 3 || b[1] != 4 || mpi.Replace.Commutative() || mpi.NoOp.Commutative() || !mpi.Maxloc.Commutative() {
			t.Errorf("Replace: %v; Commutative Replace %v NoOp %v Maxloc %v", b, mpi.Replace.Commutative(), mpi.NoOp.Commutative(), mpi.Maxloc.Commutative())
		}
		must(t, mpi.ReduceLocal(a, b, mpi.NoOp))
		if b[0] != 1 || b[1] != 2 {
			t.Errorf("NoOp: %v, want [1 2]", b)
		}
	})
}
