package mpi_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestBcastEmpty: a Bcast whose buffers are all empty (shmcoll's Owing,
// docs/ARCHITECTURE.md): on the node's shared memory a reader returns before its root
// has called (each reader sends the root a message after its Bcasts, which the root
// receives before its own: a reader that waited would hang), one or two in a row, from
// rotating roots, between point-to-point messages and other collectives, at 2, 3 and 4
// ranks; over TCP, where the schedules' readers wait, the root goes first. Then the
// erroneous ones: a root's empty message into a longer buffer leaves it as it was; a
// reader's empty buffer while the root sends bytes ends with MPI_ERR_TRUNCATE at that
// reader, in the Bcast itself or in its next call on the communicator (a Barrier, or
// the communicator's free), naming the counts, and a long message so stopped with
// MPI_ERR_COUNT at the root and the other readers; the communicator in step after each.
func TestBcastEmpty(t *testing.T) {
	for _, tr := range []mpitest.Transport{mpitest.Shm, mpitest.TCP} {
		for _, n := range []int{2, 3, 4} {
			t.Run(fmt.Sprintf("%s/%d", tr.Name, n), func(t *testing.T) {
				mpitest.Job(t, mpitest.Options{N: n, Transport: tr, Timeout: 40 * time.Second}, func(t *testing.T) {
					must(t, mpi.Init())
					ahead := tr.Name == "shm"
					w := mpi.World
					must(t, w.Barrier()) // the first collective makes the node's region
					for it := 0; it < 60; it++ {
						root, k := it%n, 1+it%2
						emptyAhead(t, w, root, ahead, func(int) {
							for range k {
								must(t, mpi.Bcast[byte](w, nil, root))
							}
						}, n-1)
						emptyBetween(t, w, it)
					}
					emptyMismatches(t, w, ahead)
					must(t, mpi.Finalize())
				})
			})
		}
	}
}

// emptyAhead runs bcast on every rank; with ahead, the nempty ranks for which
// bcast's Bcast is empty (all readers, or rank 1) send the root a message after it,
// which the root receives before it calls its own.
func emptyAhead(t *testing.T, w *mpi.Comm, root int, ahead bool, bcast func(rank int), nempty int) {
	t.Helper()
	rank := w.Rank()
	tok := []int32{0}
	if rank != root {
		bcast(rank)
		if ahead && (nempty == w.Size()-1 || rank == 1) {
			must(t, mpi.Send(w, tok, root, 7))
		}
		return
	}
	if ahead {
		for range nempty {
			_, err := mpi.Recv(w, tok, mpi.AnySource, 7)
			must(t, err)
		}
	}
	bcast(rank)
}

// emptyBetween runs another call after a round of empty Bcasts, by iteration.
func emptyBetween(t *testing.T, w *mpi.Comm, it int) {
	t.Helper()
	rank, n := w.Rank(), w.Size()
	switch it % 4 {
	case 0:
		must(t, w.Barrier())
	case 1:
		b := []int64{0}
		if rank == (it/4)%n {
			b[0] = int64(it)
		}
		must(t, mpi.Bcast(w, b, (it/4)%n))
		if b[0] != int64(it) {
			t.Fatalf("iteration %d: Bcast after empty ones got %d", it, b[0])
		}
	case 2:
		r := []int64{0}
		must(t, mpi.Allreduce(w, []int64{int64(rank + it)}, r, mpi.Sum))
		if want := int64(n*(n-1)/2 + n*it); r[0] != want {
			t.Fatalf("iteration %d: Allreduce after empty Bcasts got %d, want %d", it, r[0], want)
		}
	default:
		got := []int32{-1}
		_, err := mpi.Sendrecv(w, []int32{int32(rank)}, (rank+1)%n, 5, got, (rank+n-1)%n, 5)
		must(t, err)
		if got[0] != int32((rank+n-1)%n) {
			t.Fatalf("iteration %d: Sendrecv after empty Bcasts got %d", it, got[0])
		}
	}
}

// emptyMismatches: the erroneous empty Bcasts of TestBcastEmpty.
func emptyMismatches(t *testing.T, w *mpi.Comm, ahead bool) {
	rank := w.Rank()
	b := []byte{9, 9, 9, 9, 9, 9, 9, 9}
	if rank == 0 {
		b = nil
	}
	must(t, mpi.Bcast(w, b, 0))
	if rank != 0 && (b[0] != 9 || b[7] != 9) {
		t.Errorf("a root's empty Bcast changed a reader's buffer: %v", b)
	}
	// 8 bytes (one ring line), and 40 KiB (beyond the ring's limit on 2 ranks, several
	// chunks on more: the root waits for its readers, and stops the op).
	for _, m := range []int{8, 40 << 10} {
		var err error
		emptyAhead(t, w, 0, ahead, func(rank int) {
			buf := make([]byte, m)
			if rank == 1 {
				buf = nil
			}
			err = mpi.Bcast(w, buf, 0)
		}, 1)
		after := w.Barrier()
		if rank == 1 {
			if errors.Is(err, mpi.ErrTruncate) == errors.Is(after, mpi.ErrTruncate) || (err != nil && after != nil) {
				t.Errorf("%d bytes into an empty buffer: Bcast %v, Barrier %v: want ErrTruncate from one", m, err, after)
			}
			if e := errors.Join(err, after); e == nil || !contains(e.Error(), fmt.Sprintf("%d bytes", m)) {
				t.Errorf("%d bytes into an empty buffer: %v does not name the root's count", m, e)
			}
		} else if after != nil || err != nil && !(m > 8 && errors.Is(err, mpi.ErrCount)) || ahead && (err != nil) != (m > 8) {
			t.Errorf("%d bytes, rank 1's buffer empty: Bcast %v, Barrier %v", m, err, after)
		}
		emptyBetween(t, w, 2)
	}
	// A line owed, taken by an Allgather (the region's op; beyond coll_shm_gather_max
	// the op without data, then the schedules): the truncation is reported once, by
	// the Bcast or the Allgather, whose data are right on every rank.
	for _, k := range []int{8, 20 << 10} {
		var err error
		emptyAhead(t, w, 0, ahead, func(rank int) {
			buf := make([]byte, 8)
			if rank == 1 {
				buf = nil
			}
			err = mpi.Bcast(w, buf, 0)
		}, 1)
		send, recv := make([]byte, k), make([]byte, k*w.Size())
		for i := range send {
			send[i] = byte(rank + 1)
		}
		ag := mpi.Allgather(w, send, recv)
		if rank == 1 {
			if errors.Is(err, mpi.ErrTruncate) == errors.Is(ag, mpi.ErrTruncate) || (err != nil && ag != nil) {
				t.Errorf("8 bytes into an empty buffer, then an Allgather of %d: Bcast %v, Allgather %v: want ErrTruncate from one", k, err, ag)
			}
		} else if err != nil || ag != nil {
			t.Errorf("8 bytes, rank 1's buffer empty, then an Allgather of %d: Bcast %v, Allgather %v", k, err, ag)
		}
		for i, v := range recv {
			if v != byte(i/k+1) {
				t.Fatalf("Allgather of %d after an owed line: byte %d is %d, want %d", k, i, v, i/k+1)
			}
		}
		emptyBetween(t, w, 4)
	}
	// A line owed at the communicator's free.
	d, err := w.Dup()
	must(t, err)
	must(t, d.Barrier()) // makes its region
	var bc error
	emptyAhead(t, d, 0, ahead, func(rank int) {
		buf := make([]byte, 8)
		if rank == 1 {
			buf = nil
		}
		bc = mpi.Bcast(d, buf, 0)
	}, 1)
	fr := d.Free()
	if rank == 1 && errors.Is(bc, mpi.ErrTruncate) == errors.Is(fr, mpi.ErrTruncate) {
		t.Errorf("8 bytes into an empty buffer, then Free: Bcast %v, Free %v: want ErrTruncate from one", bc, fr)
	} else if rank != 1 && (bc != nil || fr != nil) {
		t.Errorf("8 bytes, rank 1's buffer empty, then Free: Bcast %v, Free %v", bc, fr)
	}
	emptyBetween(t, w, 3)
}
