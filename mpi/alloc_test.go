package mpi_test

import (
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// TestNoAllocationPerMessage measures, inside a real 2-rank job over shared memory, the
// heap allocations of typed Send/Recv and Isend/Irecv+Wait ping-pongs through the whole
// stack (mpi, the engine, the transport): there must be none per message.
func TestNoAllocationPerMessage(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		peer := 1 - rank
		small := make([]float64, 4)
		medium := make([]byte, 2000)
		pingpong := func() {
			if rank == 0 {
				mpi.Send(w, small, peer, 1)
				mpi.Recv(w, small, peer, 1)
				mpi.Send(w, medium, peer, 2)
				mpi.Recv(w, medium, peer, 2)
			} else {
				mpi.Recv(w, small, peer, 1)
				mpi.Send(w, small, peer, 1)
				mpi.Recv(w, medium, peer, 2)
				mpi.Send(w, medium, peer, 2)
			}
		}
		if a := testing.AllocsPerRun(2000, pingpong); a != 0 {
			t.Errorf("Send/Recv: %.2f allocations per round trip", a)
		}
		nonblocking := func() {
			r, _ := mpi.Irecv(w, small, peer, 3)
			s, _ := mpi.Isend(w, small, peer, 3)
			s.Wait()
			r.Wait()
		}
		if a := testing.AllocsPerRun(2000, nonblocking); a != 0 {
			t.Errorf("Isend/Irecv/Wait: %.2f allocations per exchange", a)
		}
	})
}
