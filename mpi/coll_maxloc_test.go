package mpi_test

import (
	"fmt"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// maxlocLarge reduces thousands of (value, index) pairs with ties, large enough for
// the algorithms that split buffers among ranks (Rabenseifner, ring, shared-memory
// sections): a split must never fall inside a pair, and a tie goes to the lowest index.
func maxlocLarge(t *testing.T) {
	must(t, mpi.Init())
	w := mpi.World
	rank, size := w.Rank(), w.Size()
	for _, pairs := range []int{1, 3, 257, 1000, 5000, 70000} {
		in := make([]float64, 2*pairs)
		for i := 0; i < pairs; i++ {
			in[2*i] = float64((i + rank) % 3) // ties: several ranks share the maximum 2
			in[2*i+1] = float64(rank)
		}
		out := make([]float64, 2*pairs)
		must(t, mpi.Allreduce(w, in, out, mpi.Maxloc))
		lo := make([]float64, 2*pairs)
		must(t, mpi.Allreduce(w, in, lo, mpi.Minloc))
		red := make([]float64, 2*pairs)
		must(t, mpi.Reduce(w, in, red, mpi.Maxloc, size-1))
		for i := 0; i < pairs; i++ {
			wantMax, wantMaxAt, wantMin, wantMinAt := -1.0, -1.0, 4.0, -1.0
			for r := 0; r < size; r++ {
				v := float64((i + r) % 3)
				if v > wantMax {
					wantMax, wantMaxAt = v, float64(r)
				}
				if v < wantMin {
					wantMin, wantMinAt = v, float64(r)
				}
			}
			if out[2*i] != wantMax || out[2*i+1] != wantMaxAt {
				t.Fatalf("%d pairs: Allreduce Maxloc pair %d = (%v, %v), want (%v, %v)", pairs, i, out[2*i], out[2*i+1], wantMax, wantMaxAt)
			}
			if lo[2*i] != wantMin || lo[2*i+1] != wantMinAt {
				t.Fatalf("%d pairs: Allreduce Minloc pair %d = (%v, %v), want (%v, %v)", pairs, i, lo[2*i], lo[2*i+1], wantMin, wantMinAt)
			}
			if rank == size-1 && (red[2*i] != wantMax || red[2*i+1] != wantMaxAt) {
				t.Fatalf("%d pairs: Reduce Maxloc pair %d = (%v, %v), want (%v, %v)", pairs, i, red[2*i], red[2*i+1], wantMax, wantMaxAt)
			}
		}
	}
	must(t, mpi.Finalize())
}

func TestMaxlocLargeBuffers(t *testing.T) {
	for _, n := range []int{2, 3, 4} {
		for _, shm := range []string{"auto", "off"} {
			t.Run(fmt.Sprintf("n%d/coll_shm=%s", n, shm), func(t *testing.T) {
				mpitest.Job(t, mpitest.Options{N: n, Settings: map[string]string{"coll_shm": shm}}, maxlocLarge)
			})
		}
	}
}
