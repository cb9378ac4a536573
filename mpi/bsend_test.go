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

// TestBsendReusesDeliveredSpace: the attached buffer has room for one large
// message; once the receiver has it (and says so through a Barrier), the next
// Bsend of the same size finds the room free, though the sender made no call that
// waits on point-to-point in between (MPI 4.1 section 3.6.1: a message's space is
// free once it has been transmitted), as MPICH's threads/pt2pt/mt_bsendrecv_huge
// expects of its buffer sized for one round.
func TestBsendReusesDeliveredSpace(t *testing.T) {
	jobEach(t, 2, func(t *testing.T, rank, size int) {
		const n, rounds = 1 << 20, 4
		msg := make([]byte, n)
		if rank == 0 {
			must(t, mpi.BufferAttach(make([]byte, n+mpi.BsendOverhead)))
			defer mpi.BufferDetach()
		}
		for i := 0; i < rounds; i++ {
			if rank == 0 {
				msg[0] = byte(i)
				if err := mpi.Bsend(mpi.World, msg, 1, i); err != nil {
					t.Fatalf("round %d: Bsend after the last one was received: %v", i, err)
				}
			} else {
				_, err := mpi.Recv(mpi.World, msg, 0, i)
				must(t, err)
				if msg[0] != byte(i) {
					t.Errorf("round %d: got the message of round %d", i, msg[0])
				}
			}
			must(t, mpi.World.Barrier())
		}
	})
}
