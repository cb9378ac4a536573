package mpi_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// redCase is a reduction of count int64s on every rank but odd, which passes other.
type redCase struct{ count, other, odd int }

// redMismatches straddle every switch of way by size: on the node's shared memory the
// inline line (56 bytes), a Reduce's cell (8368 bytes), the split reduction (64 KiB, 3+ ranks), the timed choice with
// the reads (256 KiB), the pieces of a slot (512 KiB), the region's limit (16 KiB on 2
// ranks, 1 MiB on more) and the schedules beyond; on the schedules their blocking
// sends (256 bytes), the direct (flat) algorithms (1 KiB), recursive doubling against
// Rabenseifner or the ring (coll_allreduce_large); an empty contribution; and the odd
// rank first, last, or forwarding in the trees.
func redMismatches(n int, sched bool) []redCase {
	const k = 1024 / 8
	cs := []redCase{
		{7, 8, n - 1}, {8, 7, 0}, {0, 4, 1}, {32, 33, n - 1}, {2 * k, 3 * k, n - 1}, {3 * k, 2 * k, 0},
		{254, 255, n - 1}, {255, 254, 0}, {1046, 1047, n - 1}, {1047, 1046, 0},
	}
	if sched && n > 2 {
		// Counts on both sides of a switch of the schedules' algorithm (1 KiB: direct
		// against trees; coll_allreduce_large) may still hang (docs/ARCHITECTURE.md).
		return cs
	}
	cs = append(cs, redCase{127, 129, 1})
	if n == 2 {
		return append(cs, redCase{16 * k, 16*k + 1, 1}, redCase{20 * k, 12 * k, 0}, redCase{300 * k, 200 * k, 1})
	}
	return append(cs,
		redCase{64*k - 1, 64 * k, n - 1}, redCase{64 * k, 60 * k, 1},
		redCase{256 * k, 255 * k, 1}, redCase{200 * k, 300 * k, 0},
		redCase{512 * k, 520 * k, n - 1}, redCase{600 * k, 500 * k, 1},
		redCase{1024 * k, 1025 * k, n - 1}, redCase{1100 * k, 900 * k, 0}, redCase{2048 * k, 8, 1},
	)
}

// TestReduceMismatchedCounts: a Reduce or Allreduce (blocking or not) whose rank odd
// passes another count than the others (erroneous: MPI requires equal counts) ends
// with an error on every rank that combines (every rank of an Allreduce, the root of
// a Reduce; the others return success or the error), MPI_ERR_COUNT or
// MPI_ERR_TRUNCATE, whatever ways each rank's count would take alone; no rank hangs,
// and the communicator stays in step: the next, matched Allreduce is right.
func TestReduceMismatchedCounts(t *testing.T) {
	for _, p := range pathsShmSchedTCP {
		name := p.Name
		for _, n := range []int{2, 3, 4} {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				mpitest.Job(t, mpitest.Options{N: n, Transport: p, Timeout: 60 * time.Second}, func(t *testing.T) {
					must(t, mpi.Init())
					for it := 0; it < 3; it++ { // the timed choice tries both ways
						for _, kind := range redKinds {
							// Only Reduce and Allreduce have a node path.
							sched := name != "shm" || !strings.Contains("allreduce reduce0 reduceodd", kind)
							for _, k := range redMismatches(n, sched) {
								redMismatch(t, mpi.World, k, kind)
							}
						}
					}
					must(t, mpi.Finalize())
				})
			})
		}
	}
}

func redMismatch(t *testing.T, w *mpi.Comm, k redCase, kind string) {
	t.Helper()
	redMismatchEmpty(t, w, k, kind, false)
}

// redMismatchEmpty is redMismatch where, with emptyMayPass, a rank whose own count is
// zero may succeed: it may get only the empty messages of broken peers (the
// hierarchical path's leaders), which it cannot tell from a right result.
func redMismatchEmpty(t *testing.T, w *mpi.Comm, k redCase, kind string, emptyMayPass bool) {
	t.Helper()
	rank := w.Rank()
	if os.Getenv("MPIGO_TEST_TRACE") != "" {
		fmt.Fprintf(os.Stderr, "rank %d: %s %+v\n", rank, kind, k)
	}
	count := k.count
	if rank == k.odd {
		count = k.other
	}
	send, recv := make([]int64, count), make([]int64, count)
	for i := range send {
		send[i] = int64(rank + 1)
	}
	var err error
	combines := true
	switch kind {
	case "allreduce":
		err = mpi.Allreduce(w, send, recv, mpi.Sum)
	case "iallreduce":
		var q mpi.Request
		if q, err = mpi.Iallreduce(w, send, recv, mpi.Sum); err == nil {
			_, err = q.Wait()
		}
	case "reduce0":
		err = mpi.Reduce(w, send, recv, mpi.Sum, 0)
		combines = rank == 0
	case "reduceodd":
		err = mpi.Reduce(w, send, recv, mpi.Sum, k.odd)
		combines = rank == k.odd
	case "scan":
		err = mpi.Scan(w, send, recv, mpi.Sum)
		combines = rank == k.odd
	case "exscan":
		err = mpi.Exscan(w, send, recv, mpi.Sum)
		combines = rank == k.odd && rank > 0
	case "reducescatterblock":
		all := make([]int64, count*w.Size())
		err = mpi.ReduceScatterBlock(w, all, recv, mpi.Sum)
		combines = rank == k.odd
	}
	if emptyMayPass && count == 0 {
		combines = false
	}
	bad := err != nil && !errors.Is(err, mpi.ErrCount) && !errors.Is(err, mpi.ErrTruncate)
	if bad || combines && err == nil {
		t.Errorf("%s %+v: rank %d: err %v, want ErrCount or ErrTruncate", kind, k, rank, err)
	}
	// In step: a matched Allreduce works after it.
	in, out := []int64{int64(rank + 1)}, []int64{0}
	must(t, mpi.Allreduce(w, in, out, mpi.Sum))
	if n := int64(w.Size()); out[0] != n*(n+1)/2 {
		t.Fatalf("%s %+v: the Allreduce after it got %d, want %d", kind, k, out[0], n*(n+1)/2)
	}
}

var redKinds = []string{"allreduce", "reduce0", "reduceodd", "iallreduce", "scan", "exscan", "reducescatterblock"}

// TestReduceScatterBlockZeroCount: a ReduceScatterBlock in which one rank passes an
// empty block while the others do not, or the reverse (erroneous), ends with
// MPI_ERR_COUNT or MPI_ERR_TRUNCATE on every rank whose block is not empty (and on
// any that gets a longer message than its empty block), commutative (the ring) or
// not (a Reduce and a Scatter), instead of the empty rank returning at once and its
// peers waiting for it; the communicator stays in step.
func TestReduceScatterBlockZeroCount(t *testing.T) {
	minus := mpi.OpCreate(func(inout, in []int64) {
		for i := range inout {
			inout[i] = in[i] - inout[i]
		}
	}, false)
	for _, p := range pathsShmTCP {
		for n := 2; n <= 4; n++ {
			t.Run(fmt.Sprintf("%s/%d", p.Name, n), func(t *testing.T) {
				mpitest.Job(t, mpitest.Options{N: n, Transport: p, Timeout: 30 * time.Second}, func(t *testing.T) {
					must(t, mpi.Init())
					w := mpi.World
					rank := w.Rank()
					for _, k := range []redCase{{3, 0, 1}, {0, 3, n - 1}, {0, 40 << 10, 0}, {40 << 10, 0, 1}} {
						for _, op := range []mpi.Op{mpi.Sum, minus} {
							count := k.count
							if rank == k.odd {
								count = k.other
							}
							send, recv := make([]int64, n*count), make([]int64, count)
							err := mpi.ReduceScatterBlock(w, send, recv, op)
							what := fmt.Sprintf("%+v commutative=%v: rank %d", k, op == mpi.Sum, rank)
							// A rank whose block is empty may get only empty messages
							// (from a rank that broke before passing anything on).
							mayPass := count == 0
							switch {
							case err == nil && !mayPass:
								t.Errorf("%s: success, want ErrCount or ErrTruncate", what)
							case err != nil && !errors.Is(err, mpi.ErrCount) && !errors.Is(err, mpi.ErrTruncate):
								t.Errorf("%s: err %v, want ErrCount or ErrTruncate", what, err)
							}
							in, out := []int64{int64(rank + 1)}, []int64{0}
							must(t, mpi.Allreduce(w, in, out, mpi.Sum))
							if m := int64(n); out[0] != m*(m+1)/2 {
								t.Fatalf("%s: the Allreduce after it got %d", what, out[0])
							}
						}
					}
					must(t, mpi.Finalize())
				})
			})
		}
	}
}

// TestReduceMismatchedHierarchical is TestReduceMismatchedCounts on a communicator
// that spans three (pretend) hosts, whose blocking Reduce and Allreduce are
// hierarchical (the node's shared memory, then one leader per host) up to the node's
// limit: with ranks mapped in blocks and round robin, the odd rank leading its host,
// not leading it, or alone on its host, every rank that combines reports
// MPI_ERR_COUNT or MPI_ERR_TRUNCATE (but one whose count is zero, which may get
// only empty messages) and nobody hangs; the communicator stays in step. Counts on both sides of the
// node's limit (where each rank would choose its way by its own count) are left out:
// they need the ranks to agree on a way (docs/ARCHITECTURE.md). As
// TestBcastMismatchedHierarchical, the job goes through mpigo's agents.
func TestReduceMismatchedHierarchical(t *testing.T) {
	hierJob(t, hierOpts{}, func(t *testing.T) {
		must(t, mpi.Init())
		w := mpi.World
		n := w.Size()
		for it := 0; it < 2; it++ {
			for _, k := range []redCase{{7, 8, n - 1}, {8, 7, 0}, {0, 4, 1}, {4, 0, 2}, {32, 33, 3}, {256, 384, 1}, {384, 256, n - 1}, {1000, 1001, 2}, {1046, 1047, 2}} {
				for _, odd := range []int{k.odd, 0, 1, 2, 3, n - 1} {
					k.odd = odd
					for _, kind := range []string{"allreduce", "reduce0", "reduceodd"} {
						redMismatchEmpty(t, w, k, kind, true)
					}
				}
			}
		}
		must(t, mpi.Finalize())
	})
}
