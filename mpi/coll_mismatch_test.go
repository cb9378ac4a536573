package mpi_test

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// bcastCase is a Bcast whose root sends root bytes and whose rank odd passes a buffer
// of other bytes instead (every other rank passes root bytes).
type bcastCase struct{ root, other, odd int }

// bcastMismatches straddle every switch of path or algorithm by size: the node
// shared-memory ring's limit (32 KiB on 2 ranks, 128 KiB on more), the reads from the
// root's buffer and the timed choice (256 KiB to 1 MiB), the schedules beyond, the
// schedules' direct (flat) limit (1 KiB), scatter_ring's (256 KiB); a short buffer on
// a rank that forwards in the schedules' tree (rank 2 of 4), and longer ones.
func bcastMismatches(n int) []bcastCase {
	if n == 2 {
		return []bcastCase{{40 << 10, 8 << 10, 1}, {8 << 10, 40 << 10, 1}, {2 << 10, 512, 1}, {40 << 10, 39 << 10, 1}}
	}
	return []bcastCase{
		{2 << 10, 512, 2}, {512, 2 << 10, 2},
		{2 << 10, 512, n - 1}, {512, 2 << 10, n - 1}, {1024, 1025, n - 1}, {1025, 1024, 1},
		{200 << 10, 64 << 10, 2}, {64 << 10, 200 << 10, 2},
		{512 << 10, 200 << 10, 2}, {200 << 10, 512 << 10, 1},
		{2 << 20, 512 << 10, 2}, {512 << 10, 2 << 20, 2},
		{2 << 20, 64 << 10, n - 1}, {64 << 10, 2 << 20, n - 1},
		{300 << 10, 290 << 10, 1},
	}
}

// TestBcastMismatchedSizes: a Bcast in which one rank's buffer is shorter than the
// root's message ends with MPI_ERR_TRUNCATE on that rank (its buffer holding the
// message's first bytes) and success elsewhere, and a longer buffer gets the message
// with its tail unchanged, whatever paths the root's and that rank's sizes would each
// choose alone; no rank hangs, and the communicator stays in step for the next Bcast.
// On shared memory at 2, 3 and 4 ranks; on the schedules and over TCP at 2 and 3.
func TestBcastMismatchedSizes(t *testing.T) {
	// The schedules alone (coll_shm=off, TCP) still hang at 4 ranks, where the
	// direct (flat) algorithm's tree differs from the binomial one and a rank that
	// forwards in the tree stops at its truncated receive; on 3 ranks every schedule is a
	// star from the root, unless each rank has a core for scatter_ring, which
	// coll_bcast_large rules out here (docs/ARCHITECTURE.md).
	paths := []struct {
		name  string
		set   map[string]string
		ranks []int
	}{
		{"shm", nil, []int{2, 3, 4}},
		{"sched", map[string]string{"coll_shm": "off", "coll_bcast_large": "1G"}, []int{2, 3, 4, 5}},
		{"tcp", map[string]string{"transports": "self,tcp", "coll_bcast_large": "1G"}, []int{2, 3, 4, 5}},
	}
	for _, p := range paths {
		name, set := p.name, p.set
		for _, n := range p.ranks {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				res := mpitest.Launch(t, mpitest.Options{N: n, Settings: set, Timeout: 40 * time.Second}, func(t *testing.T) {
					must(t, mpi.Init())
					for it := 0; it < 3; it++ { // the timed choice tries both ways
						for _, k := range bcastMismatches(n) {
							bcastMismatch(t, mpi.World, k)
						}
					}
					must(t, mpi.Finalize())
				})
				if !mpitest.IsRank(t) && res.Code != 0 {
					t.Fatalf("job failed (%d)\n%s%s", res.Code, res.Stdout, res.Stderr)
				}
			})
		}
	}
}

func bcastMismatch(t *testing.T, w *mpi.Comm, k bcastCase) {
	t.Helper()
	rank := w.Rank()
	if os.Getenv("MPIGO_TEST_TRACE") != "" {
		fmt.Fprintf(os.Stderr, "rank %d: Bcast %+v\n", rank, k)
	}
	size := k.root
	if rank == k.odd {
		size = k.other
	}
	buf := make([]byte, size)
	for i := range buf {
		buf[i] = 0xee
		if rank == 0 {
			buf[i] = byte(i*7 + i>>8)
		}
	}
	err := mpi.Bcast(w, buf, 0)
	switch {
	case rank == k.odd && k.other < k.root:
		if !errors.Is(err, mpi.ErrTruncate) {
			t.Errorf("%+v: rank %d: err %v, want ErrTruncate", k, rank, err)
		}
	case err != nil:
		t.Errorf("%+v: rank %d: %v", k, rank, err)
	}
	for i := range buf {
		want := byte(i*7 + i>>8)
		if i >= k.root {
			want = 0xee
		}
		if buf[i] != want {
			t.Fatalf("%+v: rank %d: buf[%d] = %#x, want %#x", k, rank, i, buf[i], want)
		}
	}
	// In step: a Bcast of matching lengths works after it.
	next := []int64{int64(k.root * (rank + 1))}
	must(t, mpi.Bcast(w, next, 0))
	if next[0] != int64(k.root) {
		t.Fatalf("%+v: the Bcast after it got %d, want %d", k, next[0], k.root)
	}
}
