package mpi_test

import (
	"context"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// TestViewNeighborAllocs: the neighbourhood collectives and Alltoallw allocate as
// much through a view (of a context that can end, and of context.Background) as
// without one: a view's call carries its arguments in its pooled runner, not in a
// closure. On a periodic ring of 2 ranks, each call checked for its result once.
func TestViewNeighborAllocs(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		ring, err := w.CartCreate([]int{size}, []bool{true}, false)
		must(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		views := []struct {
			name string
			c    *mpi.Comm
		}{{"plain", ring}, {"view", ring.WithContext(ctx)}, {"view of Background", ring.WithContext(context.Background())}}
		send := []float64{float64(rank + 1), float64(10 * (rank + 1))}
		recv := make([]float64, 4)
		one := []int{1, 1}
		at := []int{0, 1}
		bat := []int{0, 8}
		f64 := []*mpi.Datatype{mpi.Float64, mpi.Float64}
		sb, rb := mpi.Typed(send[:1], 1, mpi.Float64), mpi.Typed(recv[:2], 2, mpi.Float64)
		sb2, rb2 := mpi.Typed(send, 2, mpi.Float64), mpi.Typed(recv[:2], 2, mpi.Float64)
		var failed error
		ok := func(err error) {
			if err != nil && failed == nil {
				failed = err
			}
		}
		calls := []struct {
			name string
			f    func(c *mpi.Comm)
		}{
			{"NeighborAllgather", func(c *mpi.Comm) { ok(mpi.NeighborAllgather(c, send[:1], recv[:2])) }},
			{"NeighborAllgatherv", func(c *mpi.Comm) { ok(mpi.NeighborAllgatherv(c, send[:1], recv[:2], one, at)) }},
			{"NeighborAlltoall", func(c *mpi.Comm) { ok(mpi.NeighborAlltoall(c, send, recv[:2])) }},
			{"NeighborAlltoallv", func(c *mpi.Comm) { ok(mpi.NeighborAlltoallv(c, send, one, at, recv[:2], one, at)) }},
			{"NeighborAlltoallw", func(c *mpi.Comm) {
				ok(mpi.NeighborAlltoallw(c, send, one, bat, f64, recv[:2], one, bat, f64))
			}},
			{"NeighborAllgatherBuf", func(c *mpi.Comm) { ok(mpi.NeighborAllgatherBuf(c, sb, rb)) }},
			{"NeighborAllgathervBuf", func(c *mpi.Comm) { ok(mpi.NeighborAllgathervBuf(c, sb, rb, one, at)) }},
			{"NeighborAlltoallBuf", func(c *mpi.Comm) { ok(mpi.NeighborAlltoallBuf(c, sb2, rb2)) }},
			{"NeighborAlltoallvBuf", func(c *mpi.Comm) { ok(mpi.NeighborAlltoallvBuf(c, sb2, one, at, rb2, one, at)) }},
			{"Alltoallw", func(c *mpi.Comm) { ok(mpi.Alltoallw(c, send, one, bat, f64, recv[:2], one, bat, f64)) }},
		}
		for _, call := range calls {
			var base float64
			for k, v := range views {
				f := func() { call.f(v.c); ok(w.Barrier()) }
				f() // warm up
				if failed != nil {
					t.Fatalf("%s (%s): %v", call.name, v.name, failed)
				}
				a := testing.AllocsPerRun(200, f)
				if k == 0 {
					base = a
				}
				if a != base && !raceEnabled {
					t.Errorf("%s through a %s: %.2f allocations per call, %.2f without a view", call.name, v.name, a, base)
				}
				t.Logf("%s %s: %.2f", call.name, v.name, a)
			}
		}
		// The ring's two neighbours of each rank are the other rank.
		clear(recv)
		must(t, mpi.NeighborAlltoall(views[1].c, send, recv[:2]))
		other := float64(size - rank)
		if recv[0] != 10*other || recv[1] != other {
			t.Errorf("NeighborAlltoall through a view: got %v, want [%v %v]", recv[:2], 10*other, other)
		}
		// In place through a view: the slice kept in the view's arguments is still
		// InPlace's marker.
		inpl := []float64{float64(rank + 1), float64(10 * (rank + 1))}
		must(t, mpi.Alltoallw(views[1].c, mpi.InPlace[byte](), nil, nil, nil, inpl, one, bat, f64))
		// Block j is rank j's: rank 0 keeps its block 0 (1) and gets rank 1's (2), rank 1
		// gets rank 0's block 1 (10) and keeps its own (20).
		if want := [][]float64{{1, 2}, {10, 20}}[rank]; inpl[0] != want[0] || inpl[1] != want[1] {
			t.Errorf("Alltoallw in place through a view: got %v, want %v", inpl, want)
		}
		must(t, ring.Free())
	})
}
