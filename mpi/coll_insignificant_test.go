package mpi_test

import (
	"slices"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// Arguments the standard calls insignificant are never checked (issue 35, principle
// 2): a zero-count block's displacement, the root's arguments on the other ranks, and
// on an intercommunicator everything but root at the root group's other processes.
// Every call here is correct, so each must succeed on every rank; a rank that refused
// one would leave the others waiting, which the job's time bound turns into a failure.

// far is a displacement outside every buffer of these tests.
const far = 1 << 20

// TestInsignificantDisplacements: a block of no elements is never placed, wherever its
// displacement points (mpi4py's test_cco_nb_vec: an Ialltoallv refused "scounts[1] 0
// at sdispls[1] 2 out of the buffer of 0").
func TestInsignificantDisplacements(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, n int) {
		c := mpi.World
		to, from := (rank+1)%n, (rank+n-1)%n
		sc, sd := make([]int, n), make([]int, n)
		rc, rd := make([]int, n), make([]int, n)
		for j := range n {
			sd[j], rd[j] = far, -far
		}
		sc[to], sd[to], rc[from], rd[from] = 1, 0, 1, 0
		recv := []int32{-1}
		req, err := mpi.Ialltoallv(c, []int32{int32(100 + rank)}, sc, sd, recv, rc, rd)
		must(t, err)
		_, err = req.Wait()
		must(t, err)
		if recv[0] != int32(100+from) {
			t.Errorf("rank %d: Ialltoallv got %d, want %d", rank, recv[0], 100+from)
		}
		// No data at all: empty buffers, every count zero, displacements anywhere.
		zeros := make([]int, n)
		must(t, mpi.Alltoallv(c, []int32(nil), zeros, sd, []int32(nil), zeros, rd))

		// Gatherv and Scatterv at root 0, rank 1's block empty at a displacement
		// outside the buffer.
		counts, displs := []int{1, 0, 1}, []int{0, far, 1}
		all := make([]int32, 2)
		mine := []int32{int32(10 * rank)}
		must(t, mpi.Gatherv(c, mine[:counts[rank]], all, counts, displs, 0))
		if rank == 0 {
			eq(t, "Gatherv", rank, all, []int32{0, 20})
		}
		got := make([]int32, counts[rank])
		must(t, mpi.Scatterv(c, all, counts, displs, got, 0))
		if rank == 0 || rank == 2 {
			eq(t, "Scatterv", rank, got, []int32{int32(10 * rank)})
		}
	})
}

// TestInsignificantRootArguments: the root's receive side of Gather, Gatherv and
// Reduce and its send side of Scatter and Scatterv count at the root only; the others
// pass nothing there (nil slices and nil counts) and succeed.
func TestInsignificantRootArguments(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, n int) {
		c := mpi.World
		mine := []int32{int32(10 * rank)}
		var all, sum []int32
		var counts, displs []int
		if rank == 1 {
			all, sum = make([]int32, n), make([]int32, 1)
			counts, displs = []int{1, 1, 1}, []int{0, 1, 2}
		}
		want := []int32{0, 10, 20}
		must(t, mpi.Gather(c, mine, all, 1))
		must(t, mpi.Gatherv(c, mine, all, counts, displs, 1))
		must(t, mpi.Reduce(c, mine, sum, mpi.Sum, 1))
		req, err := mpi.Ireduce(c, mine, sum, mpi.Sum, 1)
		must(t, err)
		_, err = req.Wait()
		must(t, err)
		if rank == 1 {
			eq(t, "Gather and Gatherv", rank, all, want)
			eq(t, "Reduce", rank, sum, []int32{30})
		}
		got := []int32{-1}
		must(t, mpi.Scatter(c, all, got, 1))
		eq(t, "Scatter", rank, got, mine)
		got[0] = -1
		must(t, mpi.Scatterv(c, all, counts, displs, got, 1))
		eq(t, "Scatterv", rank, got, mine)
	})
}

// TestInterInsignificant: on an intercommunicator, the root group's processes other
// than the root pass ProcNull and nothing else counts there (nil buffers); the other
// group's receive side of Reduce and Gather does not count (nil). mpi4py's
// test_cco_pr_vec hung on a Reduce with a NULL buffer on the non-root group.
func TestInterInsignificant(t *testing.T) {
	interJob(t, func(t *testing.T, ic *mpi.Comm, side int) {
		// Side A's local rank 0 is the root; side B sends.
		root, me := 0, int32(10*ic.Rank()+1)
		if side == 0 {
			root = mpi.ProcNull
			if ic.Rank() == 0 {
				root = mpi.Root
			}
		}
		switch root {
		case mpi.ProcNull:
			must(t, mpi.Reduce[int32](ic, nil, nil, mpi.Sum, root))
			must(t, mpi.Bcast[int32](ic, nil, root))
			must(t, mpi.Gather[int32](ic, nil, nil, root))
			req, err := mpi.Ireduce[int32](ic, nil, nil, mpi.Sum, root)
			must(t, err)
			_, err = req.Wait()
			must(t, err)
		case mpi.Root:
			sum := []int32{-1}
			must(t, mpi.Reduce(ic, nil, sum, mpi.Sum, root))
			eq(t, "inter Reduce", 0, sum, []int32{1 + 11 + 21})
			must(t, mpi.Bcast(ic, []int32{77}, root))
			all := make([]int32, 3)
			must(t, mpi.Gather(ic, nil, all, root))
			eq(t, "inter Gather", 0, all, []int32{1, 11, 21})
			sum[0] = -1
			req, err := mpi.Ireduce(ic, nil, sum, mpi.Sum, root)
			must(t, err)
			_, err = req.Wait()
			must(t, err)
			eq(t, "inter Ireduce", 0, sum, []int32{1 + 11 + 21})
		default:
			must(t, mpi.Reduce(ic, []int32{me}, nil, mpi.Sum, root))
			b := []int32{-1}
			must(t, mpi.Bcast(ic, b, root))
			if !slices.Equal(b, []int32{77}) {
				t.Errorf("B rank %d: inter Bcast got %v", ic.Rank(), b)
			}
			must(t, mpi.Gather(ic, []int32{me}, nil, root))
			req, err := mpi.Ireduce(ic, []int32{me}, nil, mpi.Sum, root)
			must(t, err)
			_, err = req.Wait()
			must(t, err)
		}
	})
}
