package mpi_test

import (
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// A Wait on a nonblocking collective drives every outstanding schedule itself, taking
// the driving over from the progress goroutine; the progress goroutine drives while no
// Wait does. These tests run with two Go threads per rank (gomaxprocs=2), so that the
// progress goroutine runs beside the caller and a Wait finds it driving, over shared
// memory and forced TCP.

// jobDrive runs body on n ranks of each transport with two Go threads per rank.
func jobDrive(t *testing.T, n int, body func(t *testing.T, rank, size int)) {
	t.Helper()
	jobEachSet(t, n, map[string]string{"gomaxprocs": "2"}, body)
}

// TestNonblockingCollWaitOrders: two collectives outstanding on two communicators,
// waited for in opposite orders on the two ranks, many times over: whichever a Wait
// is for, it drives both, so neither rank waits on the other forever, and each result
// is its own.
func TestNonblockingCollWaitOrders(t *testing.T) {
	jobDrive(t, 2, func(t *testing.T, rank, size int) {
		c1, err := mpi.World.Dup()
		must(t, err)
		c2, err := mpi.World.Dup()
		must(t, err)
		for i := 0; i < 300; i++ {
			a, sum := []int64{int64(i + rank)}, make([]int64, 1)
			r1, err := mpi.Iallreduce(c1, a, sum, mpi.Sum)
			must(t, err)
			b := []int32{-1}
			if rank == 1 {
				b[0] = int32(i)
			}
			r2, err := mpi.Ibcast(c2, b, 1)
			must(t, err)
			first, second := r1, r2
			if rank == 1 {
				first, second = r2, r1
			}
			_, err = first.Wait()
			must(t, err)
			_, err = second.Wait()
			must(t, err)
			if sum[0] != int64(2*i+1) || b[0] != int32(i) {
				t.Fatalf("round %d: sum %d (want %d), broadcast %d (want %d)", i, sum[0], 2*i+1, b[0], i)
			}
		}
		must(t, c1.Free())
		must(t, c2.Free())
	})
}

// TestNonblockingCollProgressInOtherCall: a collective of several rounds completes
// while its caller is blocked in a receive that its peers send only once they have
// the collective's result (the progress goroutine drives it then); a WaitContext whose
// context ends first gives up without harm, and a later Wait reports the result.
func TestNonblockingCollProgressInOtherCall(t *testing.T) {
	jobDrive(t, 3, func(t *testing.T, rank, size int) {
		c, err := mpi.World.Dup()
		must(t, err)
		// Long enough to take rounds that need each rank's part in turn.
		const n = 1 << 14
		a, sum := make([]int64, n), make([]int64, n)
		for i := 0; i < 50; i++ {
			for k := range a {
				a[k] = int64(rank + i + k)
			}
			r, err := mpi.Iallreduce(c, a, sum, mpi.Sum)
			must(t, err)
			want := int64(3 + 3*i)
			if rank == 0 {
				// Rank 2 sends only once its Iallreduce is done, which needs rank 0's
				// part in every round.
				got, _, err := mpi.RecvValue[int64](mpi.World, 2, 5)
				must(t, err)
				if got != want {
					t.Fatalf("round %d: rank 2's first sum %d, want %d", i, got, want)
				}
			} else {
				_, err := r.Wait()
				must(t, err)
				if rank == 2 {
					must(t, mpi.SendValue(mpi.World, sum[0], 0, 5))
				}
			}
			if rank == 0 {
				_, err := r.Wait()
				must(t, err)
			}
			for k := range sum {
				if sum[k] != want+3*int64(k) {
					t.Fatalf("round %d: sum[%d] %d, want %d", i, k, sum[k], want+3*int64(k))
				}
			}
		}
		// A WaitContext that ends while it drives: rank 1 joins only after it.
		a, sum = a[:1], sum[:1]
		a[0] = int64(rank)
		if rank == 1 {
			_, _, err := mpi.RecvValue[int](mpi.World, 0, 6)
			must(t, err)
		}
		r, err := mpi.Iallreduce(c, a, sum, mpi.Sum)
		must(t, err)
		if rank == 0 {
			_, err := r.WaitContext(deadline(t))
			wantCtxErr(t, "WaitContext of an Iallreduce rank 1 has not joined", err)
			must(t, mpi.SendValue(mpi.World, 1, 1, 6))
		}
		_, err = r.Wait()
		must(t, err)
		if sum[0] != 3 {
			t.Fatalf("Iallreduce after a given-up WaitContext: sum %d, want 3", sum[0])
		}
		must(t, c.Free())
	})
}
