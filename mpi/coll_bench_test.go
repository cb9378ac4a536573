package mpi_test

import (
	"context"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// BenchmarkCollOverhead measures the per-call cost of the collective layer alone: on
// a job of one rank no message moves, so what is left is argument checks, the
// communicator's state, the schedule and its pools. Run it alone
// (go test -run XXX -bench CollOverhead): the process must not have finalised MPI.
func BenchmarkCollOverhead(b *testing.B) {
	if !mpi.Initialized() {
		if err := mpi.Init(); err != nil {
			b.Fatal(err)
		}
	}
	if mpi.Finalized() {
		b.Skip("MPI was finalised by an earlier test")
	}
	send, recv := []float64{1}, []float64{0}
	b.Run("Barrier", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := mpi.World.Barrier(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Allreduce8", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := mpi.Allreduce(mpi.World, send, recv, mpi.Sum); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The nonblocking forms and their Wait: the request's record comes from a pool.
	wait := func(b *testing.B, r mpi.Request, err error) {
		if err == nil {
			_, err = r.Wait()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.Run("Ibarrier", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r, err := mpi.World.Ibarrier()
			wait(b, r, err)
		}
	})
	b.Run("Iallreduce8", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r, err := mpi.Iallreduce(mpi.World, send, recv, mpi.Sum)
			wait(b, r, err)
		}
	})
	b.Run("Ibcast8", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r, err := mpi.Ibcast(mpi.World, recv, 0)
			wait(b, r, err)
		}
	})
	// Alltoallw with one block, to the rank itself: a copy, or a pack and an unpack
	// through scratch on a vector (2 float64s 2 apart).
	one, at := []int{1}, []int{0}
	f64 := []*mpi.Datatype{mpi.Float64}
	wvec, err := mpi.TypeVector(2, 1, 2, mpi.Float64)
	if err == nil {
		err = wvec.Commit()
	}
	if err != nil {
		b.Fatal(err)
	}
	vecs, three, out3 := []*mpi.Datatype{wvec}, []float64{1, 2, 3}, make([]float64, 3)
	b.Run("Alltoallw8", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := mpi.Alltoallw(mpi.World, send, one, at, f64, recv, one, at, f64); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Ialltoallw8", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r, err := mpi.Ialltoallw(mpi.World, send, one, at, f64, recv, one, at, f64)
			wait(b, r, err)
		}
	})
	b.Run("AlltoallwVector", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := mpi.Alltoallw(mpi.World, three, one, at, vecs, out3, one, at, vecs); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Neighbourhood collectives on a periodic ring of one rank: its two neighbours are
	// itself, so two messages go through the self transport each call.
	ring, err := mpi.World.CartCreate([]int{1}, []bool{true}, false)
	if err != nil {
		b.Fatal(err)
	}
	two, got := []float64{1, 2}, []float64{0, 0}
	b.Run("NeighborAlltoall8", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := mpi.NeighborAlltoall(ring, two, got); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("IneighborAlltoall8", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r, err := mpi.IneighborAlltoall(ring, two, got)
			wait(b, r, err)
		}
	})
	// On a type with gaps: each block packed, sent and unpacked.
	vec, err := mpi.TypeVector(2, 1, 2, mpi.Float64)
	if err == nil {
		err = vec.Commit()
	}
	if err != nil {
		b.Fatal(err)
	}
	a6, g6 := make([]float64, 6), make([]float64, 6)
	b.Run("NeighborAlltoallBuf/vector", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := mpi.NeighborAlltoallBuf(ring, mpi.Typed(a6, 2, vec), mpi.Typed(g6, 2, vec)); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Through a view whose context can end: a blocking collective runs in a pooled
	// runner goroutine while the caller waits for it or the context; a request's
	// WaitContext watches the context while it waits.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v := mpi.World.WithContext(ctx)
	b.Run("Barrier/view", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := v.Barrier(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Allreduce8/view", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := mpi.Allreduce(v, send, recv, mpi.Sum); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Ibarrier/WaitContext", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r, err := mpi.World.Ibarrier()
			if err == nil {
				_, err = r.WaitContext(ctx)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
