package mpi_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

func TestNeighborCollectivesOnCartesianGrids(t *testing.T) {
	job(t, 6, func(t *testing.T, rank, size int) {
		// 2x3, periodic: every block comes from the neighbour CartShift names.
		g, err := mpi.World.CartCreate([]int{2, 3}, []bool{true, true}, false)
		must(t, err)
		recv := make([]int, 4)
		must(t, mpi.NeighborAllgather(g, []int{g.Rank()}, recv))
		for d := 0; d < 2; d++ {
			src, dst, err := g.CartShift(d, 1)
			must(t, err)
			if recv[2*d] != src || recv[2*d+1] != dst {
				t.Errorf("dim %d: got %v, want -1 neighbour %d and +1 neighbour %d", d, recv[2*d:2*d+2], src, dst)
			}
		}
		// Alltoall: block j goes to destination j, and arrives in the slot of the side it
		// came from.
		send := make([]int, 4) // one element for each of the 4 neighbours
		for j := range send {
			send[j] = g.Rank()*100 + j
		}
		got := make([]int, 4)
		must(t, mpi.NeighborAlltoall(g, send, got))
		for d := 0; d < 2; d++ {
			src, dst, _ := g.CartShift(d, 1)
			// Slot 2d holds what the -1 neighbour sent to its +1 side (its block 2d+1);
			// slot 2d+1 what the +1 neighbour sent to its -1 side (its block 2d).
			want := []int{src*100 + 2*d + 1, dst*100 + 2*d}
			if got[2*d] != want[0] || got[2*d+1] != want[1] {
				t.Errorf("dim %d: alltoall got %v, want %v", d, got[2*d:2*d+2], want)
			}
		}
		// A periodic dimension of size 2: both neighbours are the same rank, and each
		// block must still land in its own slot.
		line, err := mpi.World.Split(map[bool]int{true: 0, false: 1}[rank < 2], rank)
		must(t, err)
		if rank < 2 {
			ring, err := line.CartCreate([]int{2}, []bool{true}, false)
			must(t, err)
			out := []int{ring.Rank()*10 + 0, ring.Rank()*10 + 1}
			in := make([]int, 2)
			must(t, mpi.NeighborAlltoall(ring, out, in))
			other := 1 - ring.Rank()
			if in[0] != other*10+1 || in[1] != other*10+0 {
				t.Errorf("size-2 periodic ring: got %v from %d", in, other)
			}
		}
		// A non-periodic line: the ends have ProcNull neighbours and their blocks stay.
		chain, err := mpi.World.CartCreate([]int{6}, []bool{false}, false)
		must(t, err)
		in := []int{-7, -7}
		must(t, mpi.NeighborAllgather(chain, []int{chain.Rank()}, in))
		want := []int{chain.Rank() - 1, chain.Rank() + 1}
		if chain.Rank() == 0 {
			want[0] = -7
		}
		if chain.Rank() == 5 {
			want[1] = -7
		}
		if in[0] != want[0] || in[1] != want[1] {
			t.Errorf("line: got %v, want %v", in, want)
		}
	})
}

func TestNeighborCollectivesOnGraphs(t *testing.T) {
	job(t, 4, func(t *testing.T, rank, size int) {
		// A directed ring: each rank sends to the next and receives from the previous.
		next, prev := (rank+1)%size, (rank+size-1)%size
		g, err := mpi.World.DistGraphCreateAdjacent([]int{prev}, mpi.Unweighted, []int{next}, mpi.Unweighted, false)
		must(t, err)
		got := make([]float64, 3)
		r, err := mpi.IneighborAllgather(g, []float64{float64(rank), 1, 2}, got)
		must(t, err)
		_, err = r.Wait()
		must(t, err)
		if got[0] != float64(prev) || got[1] != 1 || got[2] != 2 {
			t.Errorf("from %d: got %v", prev, got)
		}
		in := make([]int, 5)
		must(t, mpi.NeighborAlltoallv(g, []int{0, 0, rank, rank}, []int{2}, []int{2}, in, []int{2}, []int{3}))
		if in[3] != prev || in[4] != prev || in[0] != 0 {
			t.Errorf("alltoallv: got %v", in)
		}
		if err := mpi.NeighborAllgather(mpi.World, []int{1}, make([]int, 4)); !errors.Is(err, mpi.ErrTopology) {
			t.Errorf("on a communicator without a topology: %v", err)
		}
		if err := mpi.NeighborAllgather(g, []int{1, 2}, make([]int, 1)); !errors.Is(err, mpi.ErrCount) {
			t.Errorf("a receive buffer too small: %v", err)
		}
	})
}

// TestNeighborAlltoallw: blocks of derived datatypes at byte displacements, packed and
// unpacked on the way, land where the neighbour order says; a ProcNull neighbour's
// block is left alone; the nonblocking form gives the same.
func TestNeighborAlltoallw(t *testing.T) {
	job(t, 6, func(t *testing.T, rank, size int) {
		pick, err := mpi.TypeVector(2, 1, 4, mpi.Int32) // elements k and k+4
		must(t, err)
		must(t, pick.Commit())
		pair, err := mpi.TypeContiguous(2, mpi.Int32)
		must(t, err)
		must(t, pair.Commit())
		spread, err := mpi.TypeVector(2, 1, 3, mpi.Int32) // elements k and k+3
		must(t, err)
		must(t, spread.Commit())

		g, err := mpi.World.CartCreate([]int{2, 3}, []bool{true, true}, false)
		must(t, err)
		send := make([]int32, 8)
		for k := range send {
			send[k] = int32(g.Rank()*100 + k)
		}
		ones := []int{1, 1, 1, 1}
		sd := []int{0, 4, 8, 12} // block j: send[j] and send[j+4]
		st := []*mpi.Datatype{pick, pick, pick, pick}
		rd := []int{0, 8, 16, 24} // block i: recv[2i], recv[2i+1]
		rt := []*mpi.Datatype{pair, pair, pair, pair}
		check := func(what string, recv []int32) {
			for d := 0; d < 2; d++ {
				src, dst, _ := g.CartShift(d, 1)
				// The -1 neighbour sent its block 2d+1, the +1 neighbour its block 2d.
				want := []int32{int32(src*100 + 2*d + 1), int32(src*100 + 2*d + 5), int32(dst*100 + 2*d), int32(dst*100 + 2*d + 4)}
				if got := recv[4*d : 4*d+4]; !slices.Equal(got, want) {
					t.Errorf("%s, dim %d: got %v, want %v", what, d, got, want)
				}
			}
		}
		recv := make([]int32, 8)
		must(t, mpi.NeighborAlltoallw(g, send, ones, sd, st, recv, ones, rd, rt))
		check("NeighborAlltoallw", recv)
		recv2 := make([]int32, 8)
		q, err := mpi.IneighborAlltoallw(g, send, ones, sd, st, recv2, ones, rd, rt)
		must(t, err)
		_, err = q.Wait()
		must(t, err)
		check("IneighborAlltoallw", recv2)

		// A non-periodic line, received through a non-contiguous type: the ends keep
		// what their ProcNull side's slot held.
		chain, err := mpi.World.CartCreate([]int{6}, []bool{false}, false)
		must(t, err)
		r := int32(chain.Rank())
		out := []int32{r, r + 10, r + 20, r + 30} // block 0 to the -1 side, block 1 to the +1 side
		in := []int32{-7, -7, -7, -7, -7, -7}
		pairs := []*mpi.Datatype{pair, pair}
		must(t, mpi.NeighborAlltoallw(chain, out, []int{1, 1}, []int{0, 8}, pairs,
			in, []int{1, 1}, []int{0, 4}, []*mpi.Datatype{spread, spread}))
		// Slot 0 (in[0], in[3]) holds the -1 neighbour's block 1, slot 1 (in[1], in[4])
		// the +1 neighbour's block 0.
		want := []int32{r - 1 + 20, r + 1, -7, r - 1 + 30, r + 11, -7}
		if r == 0 {
			want[0], want[3] = -7, -7
		}
		if r == 5 {
			want[1], want[4] = -7, -7
		}
		if !slices.Equal(in, want) {
			t.Errorf("line: got %v, want %v", in, want)
		}

		// Bad input is refused before anything moves.
		if err := mpi.NeighborAlltoallw(chain, out, []int{1}, []int{0}, pairs[:1], in, []int{1, 1}, []int{0, 4}, pairs); !errors.Is(err, mpi.ErrArg) {
			t.Errorf("one send block for two destinations: %v", err)
		}
		loose, err := mpi.TypeContiguous(2, mpi.Int32)
		must(t, err)
		if err := mpi.NeighborAlltoallw(chain, out, []int{1, 1}, []int{0, 8}, []*mpi.Datatype{pair, loose}, in, []int{1, 1}, []int{0, 4}, pairs); !errors.Is(err, mpi.ErrType) {
			t.Errorf("an uncommitted datatype: %v", err)
		}
		if err := mpi.NeighborAlltoallw(chain, out, []int{1, 1}, []int{0, 12}, pairs, in, []int{1, 1}, []int{0, 4}, pairs); !errors.Is(err, mpi.ErrBuffer) {
			t.Errorf("a send block past the end of send: %v", err)
		}
		if err := mpi.NeighborAlltoallw(mpi.World, out, nil, nil, nil, in, nil, nil, nil); !errors.Is(err, mpi.ErrTopology) {
			t.Errorf("on a communicator without a topology: %v", err)
		}
	})
}
