package mpi_test

import (
	"errors"
	"math/rand"
	"sync"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestPartitioned: a partitioned send of 8 partitions, marked ready from 8 goroutines
// in a random order, reaches a partitioned receive cut into 4, in three rounds (MPI
// 4.1 chapter 4); the receiver reads each partition once Parrived says so; two
// channels on one (peer, tag) match in init order; PreadyRange and PreadyList; the
// status is the receive's; bad arguments are refused.
func TestPartitioned(t *testing.T) {
	for _, tr := range mpitest.Transports {
		t.Run(tr.Name, func(t *testing.T) {
			jobWith(t, mpitest.Options{N: 2, Transport: tr}, partitioned)
		})
	}
}

func partitioned(t *testing.T, rank, size int) {
	w := mpi.World
	const n, sparts, rparts = 32, 8, 4
	if rank == 0 {
		a, b := make([]int64, n), make([]int64, n)
		sa, err := mpi.PsendInit(w, a, sparts, 1, 5)
		must(t, err)
		sb, err := mpi.PsendInit(w, b, 2, 1, 5) // the same (peer, tag): matched second
		must(t, err)
		if err := sa.Pready(0); !errors.Is(err, mpi.ErrRequest) {
			t.Errorf("Pready before Start: %v, want ErrRequest", err)
		}
		for round := range 3 {
			for i := range a {
				a[i], b[i] = int64(1000*round+i), int64(-1000*round-i)
			}
			must(t, sa.Start())
			must(t, sb.Start())
			var wg sync.WaitGroup
			for _, i := range rand.Perm(sparts) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := sa.Pready(i); err != nil {
						t.Errorf("Pready(%d): %v", i, err)
					}
				}()
			}
			if round%2 == 0 {
				must(t, sb.PreadyRange(0, 1))
			} else {
				must(t, sb.PreadyList([]int{1, 0}))
			}
			wg.Wait()
			if err := sa.Pready(3); !errors.Is(err, mpi.ErrArg) {
				t.Errorf("Pready of a partition ready already: %v, want ErrArg", err)
			}
			must(t, mpi.Waitall([]mpi.Request{sa, sb}, nil))
		}
		must(t, sa.Free())
		must(t, sb.Free())
		zeroPartitions(t, 1)
		return
	}
	if _, err := mpi.PrecvInit(w, make([]int64, n), rparts, mpi.AnySource, 5); !errors.Is(err, mpi.ErrRank) {
		t.Errorf("PrecvInit from AnySource: %v, want ErrRank", err)
	}
	if _, err := mpi.PrecvInit(w, make([]int64, 30), rparts, 0, 5); !errors.Is(err, mpi.ErrCount) {
		t.Errorf("PrecvInit of 30 elements in 4 partitions: %v, want ErrCount", err)
	}
	a, b := make([]int64, n), make([]int64, n)
	ra, err := mpi.PrecvInit(w, a, rparts, 0, 5)
	must(t, err)
	rb, err := mpi.PrecvInit(w, b, 1, 0, 5)
	must(t, err)
	for round := range 3 {
		must(t, ra.Start())
		must(t, rb.Start())
		seen := make([]bool, rparts)
		for left := rparts; left > 0; {
			for p := range rparts {
				if seen[p] {
					continue
				}
				ok, err := ra.Parrived(p)
				must(t, err)
				if !ok {
					continue
				}
				seen[p], left = true, left-1
				for i := p * n / rparts; i < (p+1)*n/rparts; i++ {
					if a[i] != int64(1000*round+i) {
						t.Fatalf("round %d: partition %d arrived with a[%d] = %d, want %d", round, p, i, a[i], 1000*round+i)
					}
				}
			}
		}
		st, err := ra.Wait()
		must(t, err)
		if st.Source != 0 || st.Tag != 5 || mpi.GetCount[int64](st) != n {
			t.Errorf("status %+v, want source 0, tag 5, %d int64", st, n)
		}
		_, err = rb.Wait()
		must(t, err)
		for i := range b {
			if b[i] != int64(-1000*round-i) {
				t.Fatalf("round %d: the second channel got b[%d] = %d, want %d", round, i, b[i], -1000*round-i)
			}
		}
		if ok, err := ra.Parrived(0); !ok || err != nil {
			t.Errorf("Parrived on an inactive request: %v, %v; want true", ok, err)
		}
	}
	if _, err := ra.Parrived(rparts); !errors.Is(err, mpi.ErrArg) {
		t.Errorf("Parrived(%d) of %d partitions: %v, want ErrArg", rparts, rparts, err)
	}
	must(t, ra.Free())
	must(t, rb.Free())
	zeroPartitions(t, 0)
}

// zeroPartitions: MPI's partitions argument is a non-negative integer; with 0 a
// round carries nothing and completes, and a non-empty buffer is refused.
func zeroPartitions(t *testing.T, peer int) {
	w := mpi.World
	init := mpi.PrecvInit[int64]
	if mpi.World.Rank() == 0 {
		init = mpi.PsendInit[int64]
	}
	if _, err := init(w, make([]int64, 4), 0, peer, 6); !errors.Is(err, mpi.ErrCount) {
		t.Errorf("0 partitions of a 4-element buffer: %v, want ErrCount", err)
	}
	r, err := init(w, nil, 0, peer, 6)
	must(t, err)
	for range 2 {
		must(t, r.Start())
		if _, err := r.Wait(); err != nil {
			t.Errorf("a round of 0 partitions: %v", err)
		}
	}
	must(t, r.Free())
}

// TestPartitionedDatatypes: a partitioned send of a matrix column (a derived datatype
// of one int32 with a row's extent, 4 partitions) into a partitioned receive of packed
// int32 cut into 2 (PsendInitBuf, PrecvInitBuf), over shm and forced TCP.
func TestPartitionedDatatypes(t *testing.T) {
	for _, tr := range mpitest.Transports {
		t.Run(tr.Name, func(t *testing.T) {
			jobWith(t, mpitest.Options{N: 2, Transport: tr}, func(t *testing.T, rank, size int) {
				const rows, cols = 64, 4
				w := mpi.World
				if rank == 0 {
					cell, err := mpi.TypeResized(mpi.Int32, 0, 4*cols)
					must(t, err)
					must(t, cell.Commit())
					m := make([]int32, rows*cols)
					for i := range m {
						m[i] = int32(i)
					}
					r, err := mpi.PsendInitBuf(w, mpi.Typed(m[1:], rows, cell), 4, 1, 9)
					must(t, err)
					must(t, r.Start())
					for p := 3; p >= 0; p-- {
						must(t, r.Pready(p))
					}
					_, err = r.Wait()
					must(t, err)
					must(t, r.Free())
					return
				}
				got := make([]int32, rows)
				r, err := mpi.PrecvInitBuf(w, mpi.Typed(got, rows, mpi.Int32), 2, 0, 9)
				must(t, err)
				must(t, r.Start())
				_, err = r.Wait()
				must(t, err)
				for i, v := range got {
					if v != int32(i*cols+1) {
						t.Fatalf("got[%d] = %d, want %d (column 1 of the matrix)", i, v, i*cols+1)
					}
				}
				must(t, r.Free())
			})
		})
	}
}

// TestPartitionedEmpty: partitions of zero bytes (mpi4py's test_p2p_buf_part with
// an empty buffer) have not arrived before the sender's round starts, and arrive
// once it marks them ready.
func TestPartitionedEmpty(t *testing.T) {
	jobWith(t, mpitest.Options{N: 2}, func(t *testing.T, rank, size int) {
		w := mpi.World
		const parts = 3
		init := mpi.PrecvInit[int64]
		if rank == 0 {
			init = mpi.PsendInit[int64]
		}
		r, err := init(w, []int64{}, parts, 1-rank, 7)
		must(t, err)
		for round := range 2 {
			must(t, w.Barrier())
			if rank == 1 {
				must(t, r.Start())
				for i := range parts {
					if ok, err := r.Parrived(i); ok || err != nil {
						t.Errorf("round %d: Parrived(%d) before the sender started: %v, %v; want false", round, i, ok, err)
					}
				}
			}
			must(t, w.Barrier())
			if rank == 0 {
				must(t, r.Start())
				for i := range parts {
					must(t, r.Pready(i))
				}
			}
			must(t, w.Barrier())
			if rank == 1 {
				for i := range parts {
					for {
						ok, err := r.Parrived(i)
						must(t, err)
						if ok {
							break
						}
					}
				}
			}
			if _, err := r.Wait(); err != nil {
				t.Errorf("round %d: Wait: %v", round, err)
			}
		}
		must(t, r.Free())
	})
}
