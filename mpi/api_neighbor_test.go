package mpi_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// ringBothWays is a distributed graph on World in which every rank receives from its
// predecessor and its successor (sources in that order) and sends to its successor and
// its predecessor (destinations in that order).
func ringBothWays(t *testing.T, rank, size int) (g *mpi.Comm, prev, next int) {
	t.Helper()
	next, prev = (rank+1)%size, (rank+size-1)%size
	g, err := mpi.World.DistGraphCreateAdjacent([]int{prev, next}, mpi.Unweighted, []int{next, prev}, mpi.Unweighted, false)
	must(t, err)
	return g, prev, next
}

// TestNeighborAllgatherv: blocks of different lengths, from each source, land at
// their displacements (here out of neighbour order and with gaps), and nothing else of
// the receive buffer changes.
func TestNeighborAllgatherv(t *testing.T) {
	job(t, 4, func(t *testing.T, rank, size int) {
		g, prev, next := ringBothWays(t, rank, size)
		// Rank r sends r+1 elements r*10, r*10+1, ...
		send := make([]int, rank+1)
		for k := range send {
			send[k] = rank*10 + k
		}
		// The successor's block first, then a gap, then the predecessor's, then a gap.
		counts := []int{prev + 1, next + 1}
		displs := []int{next + 2, 0}
		recv := make([]int, prev+next+4)
		for i := range recv {
			recv[i] = -1
		}
		must(t, mpi.NeighborAllgatherv(g, send, recv, counts, displs))
		want := slices.Repeat([]int{-1}, len(recv))
		for i, s := range []int{prev, next} {
			for k := 0; k <= s; k++ {
				want[displs[i]+k] = s*10 + k
			}
		}
		if !slices.Equal(recv, want) {
			t.Errorf("got %v, want %v", recv, want)
		}
		if rank == 0 && !slices.Equal(recv, []int{10, 11, -1, 30, 31, 32, 33, -1}) {
			t.Errorf("rank 0 got %v, want [10 11 -1 30 31 32 33 -1]", recv)
		}
		if err := mpi.NeighborAllgatherv(g, send, recv, counts, []int{len(recv), 0}); !errors.Is(err, mpi.ErrCount) {
			t.Errorf("a block displaced past the buffer's end: %v, want class ErrCount", err)
		}
	})
}

// TestNonblockingNeighborCollectives: IneighborAllgatherv on a non-periodic line
// (the ends' missing neighbours leave their blocks alone), IneighborAlltoall and
// IneighborAlltoallv on a graph, each completed by Wait, put each block where the
// neighbour order and the displacements say.
func TestNonblockingNeighborCollectives(t *testing.T) {
	job(t, 4, func(t *testing.T, rank, size int) {
		line, err := mpi.World.CartCreate([]int{size}, []bool{false}, false)
		must(t, err)
		// Rank r sends r+1 copies of r; the block from the +1 neighbour goes first.
		send := slices.Repeat([]int{rank}, rank+1)
		lo, hi := rank-1, rank+1
		counts := []int{lo + 1, hi + 1}
		if rank == 0 {
			counts[0] = 1 // no -1 neighbour: any count, nothing comes
		}
		displs := []int{hi + 1, 0}
		recv := slices.Repeat([]int{-1}, counts[0]+counts[1]+1)
		r, err := mpi.IneighborAllgatherv(line, send, recv, counts, displs)
		must(t, err)
		_, err = r.Wait()
		must(t, err)
		want := slices.Repeat([]int{-1}, len(recv))
		if rank > 0 {
			copy(want[displs[0]:], slices.Repeat([]int{lo}, lo+1))
		}
		if rank < size-1 {
			copy(want[displs[1]:], slices.Repeat([]int{hi}, hi+1))
		}
		if !slices.Equal(recv, want) {
			t.Errorf("IneighborAllgatherv on the line: got %v, want %v", recv, want)
		}

		g, prev, next := ringBothWays(t, rank, size)
		// Two elements for each destination: block 0 to the successor, block 1 to the
		// predecessor.
		out := []int{rank*100 + 0, rank*100 + 1, rank*100 + 10, rank*100 + 11}
		in := make([]int, 4)
		r, err = mpi.IneighborAlltoall(g, out, in)
		must(t, err)
		_, err = r.Wait()
		must(t, err)
		// From the predecessor (source 0) its block for its successor, and from the
		// successor (source 1) its block for its predecessor.
		if want := []int{prev * 100, prev*100 + 1, next*100 + 10, next*100 + 11}; !slices.Equal(in, want) {
			t.Errorf("IneighborAlltoall: got %v, want %v", in, want)
		}

		// One element (at 3) for the successor, two (at 0) for the predecessor.
		out = []int{rank*10 + 1, rank*10 + 2, -9, rank*10 + 3}
		in = slices.Repeat([]int{-1}, 6)
		// The predecessor's one element at 4, the successor's two at 1.
		r, err = mpi.IneighborAlltoallv(g, out, []int{1, 2}, []int{3, 0}, in, []int{1, 2}, []int{4, 1})
		must(t, err)
		_, err = r.Wait()
		must(t, err)
		if want := []int{-1, next*10 + 1, next*10 + 2, -1, prev*10 + 3, -1}; !slices.Equal(in, want) {
			t.Errorf("IneighborAlltoallv: got %v, want %v", in, want)
		}
		r, err = mpi.IneighborAlltoall(mpi.World, out, in)
		if err == nil {
			_, err = r.Wait()
		}
		if !errors.Is(err, mpi.ErrTopology) {
			t.Errorf("IneighborAlltoall on a communicator without a topology: %v, want class ErrTopology", err)
		}
	})
}
