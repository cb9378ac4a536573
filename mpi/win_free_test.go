package mpi_test

import (
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestWinFreeAfterLockQueue: windows created and freed one after another, each used
// by every rank locking every other rank's window exclusively at once (so lock
// requests queue at the targets) with nonblocking Put and Get, as mpi4py's
// test_rma_nb does; the window is freed right after the last Unlock. The progress
// goroutine that serves the windows waits with a timer while lock requests are
// queued; the Free of the last window must end its wait whatever the timer does
// (a lost stop left one rank in Free while the others went on to the next
// WinCreate). The job's timeout bounds a hang.
func TestWinFreeAfterLockQueue(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr mpitest.Transport) {
		mpitest.Job(t, mpitest.Options{N: 4, Transport: tr}, func(t *testing.T) {
			if _, err := mpi.InitThread(mpi.ThreadMultiple); err != nil {
				t.Fatal(err)
			}
			rank, size := mpi.World.Rank(), mpi.World.Size()
			const rounds = 60
			for i := range rounds {
				mem := make([]byte, 8*size)
				w, err := mpi.WinCreate(mem, 8, nil, mpi.World)
				must(t, err)
				got := make([]int64, size)
				for k := range size {
					target := (rank + k) % size
					must(t, w.Lock(mpi.LockExclusive, target, 0))
					r, err := mpi.Rput(w, []int64{int64(i*size + rank)}, target, rank)
					must(t, err)
					_, err = r.Wait()
					must(t, err)
					must(t, w.Flush(target))
					r, err = mpi.Rget(w, got[rank:rank+1], target, rank)
					must(t, err)
					_, err = r.Wait()
					must(t, err)
					must(t, w.Unlock(target))
					if got[rank] != int64(i*size+rank) {
						t.Fatalf("round %d: got %d back from rank %d, want %d", i, got[rank], target, i*size+rank)
					}
				}
				must(t, w.Free())
				for o, v := range i64view(mem) {
					if v != int64(i*size+o) {
						t.Fatalf("round %d: slot %d of this rank's window holds %d, want %d", i, o, v, i*size+o)
					}
				}
			}
			must(t, mpi.Finalize())
		})
	})
}
