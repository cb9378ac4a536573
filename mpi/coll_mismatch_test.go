package mpi_test

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// bcastCase is a Bcast whose root (rank from) sends root bytes and whose rank odd
// passes a buffer of other bytes instead (every other rank passes root bytes).
type bcastCase struct{ root, other, odd, from int }

// bcastMismatches straddle every switch of path or algorithm by size: the node
// shared-memory ring's limit (32 KiB on 2 ranks, 128 KiB on more), the reads from the
// root's buffer and the timed choice (256 KiB to 1 MiB), the schedules beyond, the
// schedules' direct (flat) limit (1 KiB), scatter_ring's (256 KiB); a short buffer on
// a rank that forwards in the schedules' tree (rank 2 of 4), and longer ones; roots
// other than rank 0 too (the root, not rank 0, picks a long node Bcast's way).
func bcastMismatches(n int) []bcastCase {
	if n == 2 {
		return []bcastCase{{40 << 10, 8 << 10, 1, 0}, {8 << 10, 40 << 10, 1, 0}, {2 << 10, 512, 1, 0}, {40 << 10, 39 << 10, 1, 0},
			{40 << 10, 64 << 10, 0, 1}, {64 << 10, 40 << 10, 0, 1}}
	}
	return []bcastCase{
		{2 << 10, 512, 2, 0}, {512, 2 << 10, 2, 0},
		{2 << 10, 512, n - 1, 0}, {512, 2 << 10, n - 1, 0}, {1024, 1025, n - 1, 0}, {1025, 1024, 1, 0},
		{200 << 10, 64 << 10, 2, 0}, {64 << 10, 200 << 10, 2, 0},
		{512 << 10, 200 << 10, 2, 0}, {200 << 10, 512 << 10, 1, 0},
		{2 << 20, 512 << 10, 2, 0}, {512 << 10, 2 << 20, 2, 0},
		{2 << 20, 64 << 10, n - 1, 0}, {64 << 10, 2 << 20, n - 1, 0},
		{300 << 10, 290 << 10, 1, 0},
		{300 << 10, 200 << 10, 0, 1}, {200 << 10, 300 << 10, 0, n - 1}, {512 << 10, 64 << 10, 1, n - 1},
	}
}

// TestBcastMismatchedSizes: a Bcast in which one rank's buffer is shorter than the
// root's message ends with MPI_ERR_TRUNCATE on that rank (its buffer holding the
// message's first bytes) and success elsewhere, and a longer buffer gets the message
// with its tail unchanged, whatever paths the root's and that rank's sizes would each
// choose alone; no rank hangs, and the communicator stays in step for the next Bcast.
// On shared memory at 2, 3 and 4 ranks; on the schedules alone (coll_shm=off) and over
// TCP at 2 to 5, where the flat algorithm's tree differs from the binomial one at 4
// and more, and a short buffer forwards in the tree. coll_bcast_large rules out
// scatter_ring, whose switch is still open where each rank has a core
// (docs/ARCHITECTURE.md).
func TestBcastMismatchedSizes(t *testing.T) {
	sched := pathsShmSchedTCP[1]
	paths := []struct {
		tr    mpitest.Transport
		set   map[string]string
		ranks []int
	}{
		{mpitest.Shm, nil, []int{2, 3, 4}},
		{sched, map[string]string{"coll_bcast_large": "1G"}, []int{2, 3, 4, 5}},
		{mpitest.TCP, map[string]string{"coll_bcast_large": "1G"}, []int{2, 3, 4, 5}},
	}
	for _, p := range paths {
		name := p.tr.Name
		for _, n := range p.ranks {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				mpitest.Job(t, mpitest.Options{N: n, Transport: p.tr, Settings: p.set, Timeout: 40 * time.Second}, func(t *testing.T) {
					must(t, mpi.Init())
					iters := 1
					if name == "shm" {
						iters = 3 // the node's timed choice tries both ways
					}
					for it := 0; it < iters; it++ {
						for _, k := range bcastMismatches(n) {
							bcastMismatch(t, mpi.World, k)
						}
					}
					must(t, mpi.Finalize())
				})
			})
		}
	}
}

func bcastMismatch(t *testing.T, w *mpi.Comm, k bcastCase) {
	t.Helper()
	bcastMismatchBy(t, w, k, func(buf []byte, root int) error { return mpi.Bcast(w, buf, root) })
}

// The nonblocking and persistent forms, as bcastMismatchBy's Bcast.
func ibcast(w *mpi.Comm) func([]byte, int) error {
	return func(buf []byte, root int) error {
		q, err := mpi.Ibcast(w, buf, root)
		if err != nil {
			return err
		}
		_, err = q.Wait()
		return err
	}
}

func bcastInit(w *mpi.Comm) func([]byte, int) error {
	return func(buf []byte, root int) error {
		q, err := mpi.BcastInit(w, buf, root)
		if err != nil {
			return err
		}
		defer q.Free()
		if err := q.Start(); err != nil {
			return err
		}
		_, err = q.Wait()
		return err
	}
}

func bcastMismatchBy(t *testing.T, w *mpi.Comm, k bcastCase, bcast func([]byte, int) error) {
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
		if rank == k.from {
			buf[i] = byte(i*7 + i>>8)
		}
	}
	err := bcast(buf, k.from)
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
	must(t, mpi.Bcast(w, next, k.from))
	if want := int64(k.root * (k.from + 1)); next[0] != want {
		t.Fatalf("%+v: the Bcast after it got %d, want %d", k, next[0], want)
	}
}

// TestIbcastMismatchedSizes is TestBcastMismatchedSizes for Ibcast and BcastInit,
// which always run the schedules.
func TestIbcastMismatchedSizes(t *testing.T) {
	for _, p := range mpitest.Transports {
		for n := 2; n <= 5; n++ {
			t.Run(fmt.Sprintf("%s/%d", p.Name, n), func(t *testing.T) {
				set := map[string]string{"coll_bcast_large": "1G"}
				mpitest.Job(t, mpitest.Options{N: n, Transport: p, Settings: set, Timeout: 40 * time.Second}, func(t *testing.T) {
					must(t, mpi.Init())
					for _, k := range bcastMismatches(n) {
						bcastMismatchBy(t, mpi.World, k, ibcast(mpi.World))
						bcastMismatchBy(t, mpi.World, k, bcastInit(mpi.World))
					}
					must(t, mpi.Finalize())
				})
			})
		}
	}
}

// gatherCase is a Gather to root 0 of blocks of block bytes, in which rank odd sends
// other bytes instead.
type gatherCase struct{ block, other, odd int }

// TestGatherMismatchedSizes: a Gather in which one rank sends fewer bytes than the
// root's block for it ends with MPI_ERR_COUNT at the root, one that sends more with
// MPI_ERR_TRUNCATE there (the block holding what fits), and success elsewhere; the
// other blocks arrive, nobody hangs (an empty send included), and the communicator
// stays in step. Blocking, Igather and GatherInit, on shared memory and TCP, 2 to 5
// ranks, short (eager) and long (rendezvous) blocks.
func TestGatherMismatchedSizes(t *testing.T) {
	for _, p := range pathsShmTCP {
		for n := 2; n <= 5; n++ {
			t.Run(fmt.Sprintf("%s/%d", p.Name, n), func(t *testing.T) {
				mpitest.Job(t, mpitest.Options{N: n, Transport: p, Timeout: 40 * time.Second}, func(t *testing.T) {
					must(t, mpi.Init())
					w := mpi.World
					for _, k := range []gatherCase{{64, 8, n - 1}, {8, 64, 1}, {64, 0, 1}, {0, 16, n - 1},
						{256 << 10, 100 << 10, 1}, {100 << 10, 256 << 10, n - 1}} {
						for _, how := range []string{"blocking", "nonblocking", "persistent"} {
							gatherMismatch(t, w, k, how)
						}
					}
					must(t, mpi.Finalize())
				})
			})
		}
	}
}

func gatherMismatch(t *testing.T, w *mpi.Comm, k gatherCase, how string) {
	t.Helper()
	rank, n := w.Rank(), w.Size()
	m := k.block
	if rank == k.odd {
		m = k.other
	}
	send := make([]byte, m)
	for i := range send {
		send[i] = byte(rank*31 + i)
	}
	var recv []byte
	if rank == 0 {
		recv = make([]byte, n*k.block)
		for i := range recv {
			recv[i] = 0xee
		}
	}
	var err error
	switch how {
	case "blocking":
		err = mpi.Gather(w, send, recv, 0)
	case "nonblocking":
		var q mpi.Request
		if q, err = mpi.Igather(w, send, recv, 0); err == nil {
			_, err = q.Wait()
		}
	case "persistent":
		var q mpi.Request
		if q, err = mpi.GatherInit(w, send, recv, 0); err == nil {
			if err = q.Start(); err == nil {
				_, err = q.Wait()
			}
			q.Free()
		}
	}
	switch {
	case rank == 0 && k.other < k.block:
		if !errors.Is(err, mpi.ErrCount) {
			t.Errorf("%s %+v: root: err %v, want ErrCount", how, k, err)
		}
	case rank == 0 && k.other > k.block:
		if !errors.Is(err, mpi.ErrTruncate) {
			t.Errorf("%s %+v: root: err %v, want ErrTruncate", how, k, err)
		}
	case err != nil:
		t.Errorf("%s %+v: rank %d: %v", how, k, rank, err)
	}
	if rank == 0 {
		for r := 0; r < n; r++ {
			b := recv[r*k.block : (r+1)*k.block]
			fits := k.block
			if r == k.odd {
				fits = min(k.block, k.other)
			}
			for i := range b {
				want := byte(r*31 + i)
				if i >= fits {
					want = 0xee
				}
				if b[i] != want {
					t.Fatalf("%s %+v: block %d byte %d = %#x, want %#x", how, k, r, i, b[i], want)
				}
			}
		}
	}
	// In step: a Gather of matching lengths works after it.
	one := []int32{int32(rank)}
	var all []int32
	if rank == 0 {
		all = make([]int32, n)
	}
	must(t, mpi.Gather(w, one, all, 0))
	for r := 0; r < n && rank == 0; r++ {
		if all[r] != int32(r) {
			t.Fatalf("%s %+v: the Gather after it got %v", how, k, all)
		}
	}
}

// TestBcastMismatchedHierarchical is TestBcastMismatchedSizes on a communicator that
// spans three (pretend) hosts, whose blocking Bcast is hierarchical (the node's shared
// memory, then one leader per host): with ranks mapped in blocks and round robin, a
// short or long buffer on a leader (rank 1 round robin, rank 2 in blocks... every case
// of bcastMismatches) ends as on one node. As TestNodeCollHierarchical, the job goes
// through mpigo's agents, started by a script standing in for ssh.
func TestBcastMismatchedHierarchical(t *testing.T) {
	o := hierOpts{
		set: map[string]string{"coll_bcast_large": "1G"},
		env: func(byNode bool) []string {
			return []string{fmt.Sprintf("MPIGO_TEST_ROOT=%d", map[bool]int{true: 3, false: 1}[byNode])}
		},
	}
	hierJob(t, o, func(t *testing.T) {
		must(t, mpi.Init())
		w := mpi.World
		if p, _ := collective.PathOf(core.World); p != collective.PathHier {
			t.Fatalf("World's collectives run by %v, want hierarchical", p)
		}
		// Rank 0 leads its host; the other root does not (the host's phase first).
		other, _ := strconv.Atoi(os.Getenv("MPIGO_TEST_ROOT"))
		for it := 0; it < 2; it++ {
			for _, k := range bcastMismatches(w.Size()) {
				bcastMismatch(t, w, k)
				if k.odd != other {
					k.from = other
					bcastMismatch(t, w, k)
				}
				k.from, k.odd = other, 0 // the leader of the root's host
				bcastMismatch(t, w, k)
			}
		}
		must(t, mpi.Finalize())
	})
}
