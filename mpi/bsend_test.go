package mpi_test

import (
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// TestBsendThenFinalize: buffered sends still under way when the sender finalizes
// (large ones need the sender to keep pushing fragments) are delivered, as MPI requires.
func TestBsendThenFinalize(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		const n = 4 << 20
		if rank == 0 {
			must(t, mpi.BufferAttach(make([]byte, 2*n+1024)))
			big := make([]byte, n)
			for i := range big {
				big[i] = byte(i % 251)
			}
			must(t, mpi.Bsend(mpi.World, big, 1, 0))
			must(t, mpi.Bsend(mpi.World, []int{42}, 1, 1))
			return // Finalize follows at once, in job()
		}
		got := make([]byte, n)
		_, err := mpi.Recv(mpi.World, got, 0, 0)
		must(t, err)
		for i := range got {
			if got[i] != byte(i%251) {
				t.Fatalf("byte %d", i)
			}
		}
		x := []int{0}
		_, err = mpi.Recv(mpi.World, x, 0, 1)
		must(t, err)
		if x[0] != 42 {
			t.Errorf("got %d", x[0])
		}
	})
}
