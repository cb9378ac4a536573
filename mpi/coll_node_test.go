package mpi_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/launch"
	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// Tiny buffers, so that short messages cross the node collectives' chunk, ring and
// slot boundaries, and every size goes through shared memory.
var nodeSettings = map[string]string{
	"coll_shm_chunk": "256", "coll_shm_chunks": "3", "coll_shm_slot": "192",
	"coll_shm_split": "512", "coll_shm_bcast_max": "1M", "coll_shm_reduce_max": "1M", "coll_shm_bcast_max2": "1M", "coll_shm_reduce_max2": "1M", "coll_shm_reduce_root_max2": "1M",
}

// launchOK runs body on n ranks with settings and checks that the node's collectives
// left no file in /dev/shm.
func launchOK(t *testing.T, n int, settings map[string]string, body func(t *testing.T)) {
	t.Helper()
	mpitest.Job(t, mpitest.Options{N: n, Settings: settings}, body)
	if left, _ := filepath.Glob("/dev/shm/*coll*"); len(left) > 0 {
		t.Errorf("files left in /dev/shm: %v", left)
	}
}

// input is rank r's deterministic contribution to iteration it.
func input(r, it, i int) int64 { return int64((r+1)*1000003 + it*7919 + i*31) }

// affine is rank r's map for element i (a uint64 packs x -> a*x+b mod 2^32 as
// a<<32|b): odd multipliers, so that no order of composition collapses to one rank's
// map.
func affine(r, it, i int) uint64 {
	return uint64(2*input(r, it, i)+1)<<32 | uint64(input(r, it, i+1))&0xffffffff
}

// compose(f, g) = f∘g of two packed affine maps is associative and not commutative.
func compose(f, g uint64) uint64 {
	a1, b1 := f>>32, f&0xffffffff
	a2, b2 := g>>32, g&0xffffffff
	return (a1*a2&0xffffffff)<<32 | (a1*b2+b1)&0xffffffff
}

// composeOp is compose as an MPI op: inout = in ∘ inout (in holds the lower ranks).
var composeOp = mpi.OpCreate(func(inout, in []uint64) {
	for i := range inout {
		inout[i] = compose(in[i], inout[i])
	}
}, false)

// nodeCollCheck runs Bcast, Reduce, Allreduce (also in place, also with a
// non-commutative op) and Barrier on c many times in a row, with changing roots and
// sizes, and compares every result with a serial computation.
func nodeCollCheck(t *testing.T, c *mpi.Comm, iters int) {
	n, me := c.Size(), c.Rank()
	for it := 0; it < iters; it++ {
		m := (it * 53) % 300 // elements: 0..299, up to 2400 bytes
		root := (it * 5) % n
		// Bcast of bytes and of int64s.
		b := make([]byte, m*3)
		for i := range b {
			if me == root {
				b[i] = byte(input(root, it, i))
			}
		}
		must(t, mpi.Bcast(c, b, root))
		for i := range b {
			if b[i] != byte(input(root, it, i)) {
				t.Fatalf("size %d it %d: Bcast from %d: byte %d is %d, want %d", n, it, root, i, b[i], byte(input(root, it, i)))
			}
		}
		// Sum and Max, to a root and to all, in place or not.
		send := make([]int64, m)
		for i := range send {
			send[i] = input(me, it, i)
		}
		sum, mx := make([]int64, m), make([]int64, m)
		for i := range sum {
			for r := 0; r < n; r++ {
				sum[i] += input(r, it, i)
				mx[i] = max(mx[i], input(r, it, i))
			}
		}
		recv := make([]int64, m)
		switch it % 4 {
		case 0:
			must(t, mpi.Allreduce(c, send, recv, mpi.Sum))
			equal(t, fmt.Sprintf("size %d it %d Allreduce Sum", n, it), recv, sum)
		case 1:
			copy(recv, send)
			must(t, mpi.Allreduce(c, mpi.InPlace[int64](), recv, mpi.Max))
			equal(t, fmt.Sprintf("size %d it %d Allreduce Max in place", n, it), recv, mx)
		case 2:
			must(t, mpi.Reduce(c, send, recv, mpi.Sum, root))
			if me == root {
				equal(t, fmt.Sprintf("size %d it %d Reduce Sum to %d", n, it, root), recv, sum)
			}
		case 3:
			if me == root {
				copy(recv, send)
				must(t, mpi.Reduce(c, mpi.InPlace[int64](), recv, mpi.Max, root))
				equal(t, fmt.Sprintf("size %d it %d Reduce Max in place to %d", n, it, root), recv, mx)
			} else {
				must(t, mpi.Reduce(c, send, nil, mpi.Max, root))
			}
		}
		// Maxloc on (value, index) pairs: the maximum's value and the least index having
		// it. (At most 150 pairs: longer ones, 4 KiB and more, go to the point-to-point
		// Rabenseifner algorithm when coll_shm=off, and it cuts pairs in half: a bug of
		// internal/coll that this test is not about.)
		mp := m / 2
		pairs := make([]float64, 2*mp)
		for i := 0; i < mp; i++ {
			pairs[2*i], pairs[2*i+1] = float64(input(me, it, i)%5), float64(me)
		}
		locs := make([]float64, 2*mp)
		must(t, mpi.Allreduce(c, pairs, locs, mpi.Maxloc))
		for i := 0; i < mp; i++ {
			best, at := float64(-1), float64(-1)
			for r := 0; r < n; r++ {
				if v := float64(input(r, it, i) % 5); v > best {
					best, at = v, float64(r)
				}
			}
			if locs[2*i] != best || locs[2*i+1] != at {
				t.Fatalf("size %d it %d Maxloc pair %d: (%v, %v), want (%v, %v)", n, it, i, locs[2*i], locs[2*i+1], best, at)
			}
		}
		// A non-commutative op, in rank order.
		fs := make([]uint64, m)
		for i := range fs {
			fs[i] = affine(me, it, i)
		}
		want := make([]uint64, m)
		for i := range want {
			want[i] = affine(n-1, it, i)
			for r := n - 2; r >= 0; r-- {
				want[i] = compose(affine(r, it, i), want[i])
			}
		}
		got := make([]uint64, m)
		must(t, mpi.Allreduce(c, fs, got, composeOp))
		equal(t, fmt.Sprintf("size %d it %d Allreduce of a non-commutative op", n, it), got, want)
		clear(got)
		must(t, mpi.Reduce(c, fs, got, composeOp, root))
		if me == root {
			equal(t, fmt.Sprintf("size %d it %d Reduce of a non-commutative op to %d", n, it, root), got, want)
		}
		if it%7 == 0 {
			must(t, c.Barrier())
		}
	}
}

func equal[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: element %d is %v, want %v", what, i, got[i], want[i])
		}
	}
}

// TestNodeCollSizes: communicators of every size from 1 to 9 on one node (Split of 9
// ranks into the first k and the rest), against serial results.
func TestNodeCollSizes(t *testing.T) {
	launchOK(t, 9, nodeSettings, func(t *testing.T) {
		must(t, mpi.Init())
		w := mpi.World
		for k := 1; k <= 9; k++ {
			color := 0
			if w.Rank() >= k {
				color = 1
			}
			c, err := w.Split(color, w.Rank())
			must(t, err)
			nodeCollCheck(t, c, 40)
			must(t, c.Free())
		}
		must(t, mpi.Finalize())
	})
}

// TestNodeCollBcastDirect: on 4 ranks, Bcasts from every root whose sizes fall in each
// of the node path's ranges (through the ring; between the ring's limit and the direct
// range, the schedules; read from the root's buffer) deliver the root's bytes, over
// World and a duplicate, and the collective table names the direct range, on once the
// region is set up; where the ranks cannot read each other's memory (shm_cma=false) the
// set-up turns it off on every rank and the same Bcasts take the other paths.
func TestNodeCollBcastDirect(t *testing.T) {
	for _, cma := range []string{"true", "false"} {
		t.Run("cma="+cma, func(t *testing.T) { testNodeCollBcastDirect(t, cma) })
	}
}

func testNodeCollBcastDirect(t *testing.T, cma string) {
	// Not staged (TestNodeCollBcastStaged), which would take the reads' range on 4 ranks.
	set := map[string]string{"coll_shm_bcast_max": "4K", "coll_shm_bcast_direct": "16K", "coll_shm_bcast_direct_max": "256K",
		"shm_cma": cma, "coll_shm_bcast_stage_ranks": "0"}
	state := "(on: every rank can)"
	if cma == "false" {
		state = "(off: some rank cannot read another's memory)"
	}
	launchOK(t, 4, set, func(t *testing.T) {
		must(t, mpi.Init())
		w := mpi.World
		d, err := w.Dup()
		must(t, err)
		if tab := collective.Table(core.World); !strings.Contains(tab, "from 16384 to 262144 B read from the root's buffer") {
			t.Errorf("the collective table does not name the direct range:\n%s", tab)
		}
		// The long ones choose by timing between the reads and the schedule, each
		// root by its own record: a run of them takes both ways at every root (the
		// first calls try each, twice).
		sizes := []int{0, 100, 4 << 10, 5000, 16<<10 - 1, 16 << 10, 100000, 256 << 10, 256<<10 + 1, 300000}
		for k := 0; k < 24; k++ {
			sizes = append(sizes, 20000+k*10000)
		}
		for it, n := range sizes {
			for _, c := range []*mpi.Comm{w, d} {
				root := it % c.Size()
				b := make([]byte, n)
				if c.Rank() == root {
					for i := range b {
						b[i] = byte(input(root, it, i))
					}
				}
				must(t, mpi.Bcast(c, b, root))
				for i := range b {
					if b[i] != byte(input(root, it, i)) {
						t.Fatalf("Bcast of %d bytes from %d: byte %d is %d, want %d", n, root, i, b[i], byte(input(root, it, i)))
					}
				}
			}
		}
		if tab := collective.Table(core.World); !strings.Contains(tab, "read from the root's buffer "+state) {
			t.Errorf("after the Bcasts, the collective table does not say %q:\n%s", state, tab)
		}
		must(t, d.Free())
		must(t, mpi.Finalize())
	})
}

// TestNodeCollBcastStaged: on 8 ranks, and on 5 (a Split), the Bcasts beyond the
// ring's limit up to the region's bank (ranks x coll_shm_slot) are copied into the
// region whole by the root, and beyond the bank they take the other ways; from every
// root, with the ranks' buffers as long as the root's, longer or shorter
// (MPI_ERR_TRUNCATE, the bytes that fit), and with reductions on the same banks
// between them. The other 3 ranks of the Split, below coll_shm_bcast_stage_ranks' 4,
// do not stage; the collective table of the 8 names the range.
func TestNodeCollBcastStaged(t *testing.T) {
	set := map[string]string{"coll_shm_bcast_max": "4K", "coll_shm_slot": "4K", "coll_shm_split": "1K"}
	launchOK(t, 8, set, func(t *testing.T) {
		must(t, mpi.Init())
		w := mpi.World
		const staged = "and Bcast from 4097 to 32768 B copied whole into the region by the root"
		if tab := collective.Table(core.World); !strings.Contains(tab, staged) {
			t.Errorf("the collective table of 8 ranks does not name the staged range:\n%s", tab)
		}
		c, err := w.Split(w.Rank()/5, w.Rank())
		must(t, err)
		sizes := []int{0, 100, 4 << 10, 4<<10 + 1, 20000, 32 << 10, 32<<10 + 1, 100000}
		for it := 0; it < 3*len(sizes); it++ {
			for _, cc := range []*mpi.Comm{w, c} {
				stagedRound(t, cc, it, sizes[it%len(sizes)])
			}
		}
		nodeCollCheck(t, w, 20)
		must(t, c.Free())
		must(t, mpi.Finalize())
	})
}

// stagedRound is one Bcast of n bytes on c, from a root that moves with it; every third
// one a rank other than the root passes a buffer one byte short (MPI_ERR_TRUNCATE) or
// longer, and an Allreduce follows.
func stagedRound(t *testing.T, c *mpi.Comm, it, n int) {
	me, root := c.Rank(), (it*3)%c.Size()
	have := n
	switch {
	case me != root && n > 0 && it%3 == 1:
		have = n - 1
	case me != root && it%3 == 2:
		have = n + 7
	}
	b := make([]byte, have)
	if me == root {
		for i := range b {
			b[i] = byte(input(root, it, i))
		}
	}
	err := mpi.Bcast(c, b, root)
	if have < n {
		if !errors.Is(err, mpi.ErrTruncate) {
			t.Fatalf("Bcast of %d bytes from %d into %d: %v, want MPI_ERR_TRUNCATE", n, root, have, err)
		}
	} else {
		must(t, err)
	}
	for i := range b[:min(have, n)] {
		if b[i] != byte(input(root, it, i)) {
			t.Fatalf("Bcast of %d bytes from %d on %d ranks: byte %d is %d, want %d", n, root, c.Size(), i, b[i], byte(input(root, it, i)))
		}
	}
	x := make([]float64, 2000+it)
	for i := range x {
		x[i] = float64(me + i)
	}
	must(t, mpi.Allreduce(c, mpi.InPlace[float64](), x, mpi.Sum))
	k := c.Size()
	for i := range x {
		if want := float64(k*(k-1)/2 + k*i); x[i] != want {
			t.Fatalf("Allreduce after a Bcast of %d bytes: element %d is %v, want %v", n, i, x[i], want)
		}
	}
}

// TestNodeCollAllreduceDirect: split Allreduces that read the others' contributions
// from their buffers (in many pieces: tiny slots), in place or not, on 3, 4 and 5 ranks,
// against serial results, with the other node collectives in between.
func TestNodeCollAllreduceDirect(t *testing.T) {
	set := map[string]string{"coll_shm_allreduce_direct": "600"}
	for k, v := range nodeSettings {
		set[k] = v
	}
	launchOK(t, 5, set, func(t *testing.T) {
		must(t, mpi.Init())
		w := mpi.World
		if tab := collective.Table(core.World); !strings.Contains(tab, "split Allreduce from 600 B chooses by timing between the slots and reading") {
			t.Errorf("the collective table does not name the direct Allreduce:\n%s", tab)
		}
		for k := 3; k <= 5; k++ {
			color := 0
			if w.Rank() >= k {
				color = 1
			}
			c, err := w.Split(color, w.Rank())
			must(t, err)
			if color == 0 {
				nodeCollCheck(t, c, 60)
			}
			must(t, c.Free())
		}
		must(t, mpi.Finalize())
	})
}

// TestNodeCollWorld: the world communicator, with the default settings (the sizes
// choose between shared memory and messages), and with coll_check on.
func TestNodeCollWorld(t *testing.T) {
	for _, s := range []map[string]string{nil, {"coll_check": "true"}, {"coll_shm": "off"}} {
		t.Run(fmt.Sprint(s), func(t *testing.T) {
			launchOK(t, 4, s, func(t *testing.T) {
				must(t, mpi.Init())
				nodeCollCheck(t, mpi.World, 60)
				big := make([]float64, 300000) // above every default threshold
				out := make([]float64, len(big))
				for i := range big {
					big[i] = float64(mpi.World.Rank() + i)
				}
				must(t, mpi.Allreduce(mpi.World, big, out, mpi.Sum))
				must(t, mpi.Bcast(mpi.World, big, 3))
				for i := range big {
					if big[i] != float64(3+i) {
						t.Fatalf("Bcast of 2.4 MB: element %d is %v", i, big[i])
					}
				}
				must(t, mpi.Finalize())
			})
		})
	}
}

// regionMaps counts this process's mappings of node collective regions.
func regionMaps(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "mpigo-coll-")
}

// regionFds counts this process's open descriptors of node collective regions (other
// descriptors come and go: the shm transport opens a pidfd per peer it checks).
func regionFds(t *testing.T) int {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.Contains(l, "mpigo-coll-") {
			n++
		}
	}
	return n
}

// TestNodeCollFreeRemake: communicators made, used and freed over and over; each
// region is unmapped at Free (and its descriptor closed), and the world's at Finalize.
func TestNodeCollFreeRemake(t *testing.T) {
	launchOK(t, 3, nil, func(t *testing.T) {
		must(t, mpi.Init())
		must(t, mpi.World.Barrier())
		if n := regionMaps(t); n != 1 {
			t.Errorf("%d region mappings after the world's first Barrier, want 1", n)
		}
		if n := regionFds(t); n != 0 {
			t.Errorf("%d region descriptors open after the world's region was made, want 0", n)
		}
		for i := 0; i < 30; i++ {
			c, err := mpi.World.Dup()
			must(t, err)
			x := []int32{int32(c.Rank())}
			must(t, mpi.Allreduce(c, mpi.InPlace[int32](), x, mpi.Sum))
			if x[0] != 3 {
				t.Fatalf("round %d: Allreduce gave %d, want 3", i, x[0])
			}
			must(t, mpi.Bcast(c, x, i%3))
			if n := regionMaps(t); n != 2 {
				t.Errorf("round %d: %d region mappings with a second communicator, want 2", i, n)
			}
			must(t, c.Free())
			if err := c.Barrier(); err == nil {
				t.Fatal("Barrier on a freed communicator succeeded")
			}
		}
		if n := regionMaps(t); n != 1 {
			t.Errorf("%d region mappings after freeing the duplicates, want 1", n)
		}
		if n := regionFds(t); n != 0 {
			t.Errorf("%d region descriptors open after 30 communicators, want 0", n)
		}
		must(t, mpi.Finalize())
		if n := regionMaps(t); n != 0 {
			t.Errorf("%d region mappings after Finalize, want 0", n)
		}
	})
}

// TestNodeCollBadSetting: a bad coll_shm value is refused by the launcher, naming the
// setting, before any rank starts.
func TestNodeCollBadSetting(t *testing.T) {
	res := mpitest.Job(t, mpitest.Options{N: 2, Settings: map[string]string{"coll_shm": "maybe"}, Fail: true}, func(t *testing.T) {
		t.Error("a rank started with coll_shm=maybe")
	})
	if res.Code != 2 || !contains(res.Stderr, `coll_shm wants one of auto, off, not "maybe"`) {
		t.Errorf("exit %d, stderr %q; want exit 2 and a message naming coll_shm and its values", res.Code, res.Stderr)
	}
}

// TestNodeCollRankDies: a rank dies in the middle of a run of shared-memory Bcasts; the
// others do not hang, and the job ends with a message naming the rank.
func TestNodeCollRankDies(t *testing.T) {
	start := time.Now()
	res := mpitest.Job(t, mpitest.Options{N: 4, Fail: true}, func(t *testing.T) {
		must(t, mpi.Init())
		buf := make([]byte, 8)
		for i := 0; i < 100000; i++ {
			if i == 500 && mpi.World.Rank() == 2 {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
			if err := mpi.Bcast(mpi.World, buf, i%4); err != nil {
				os.Exit(3) // an error on a survivor is a correct ending too
			}
		}
		t.Error("100000 Bcasts completed although rank 2 died")
	})
	if res.Code == 0 || !contains(res.Stderr, "rank 2 (pid") || !contains(res.Stderr, "killed by signal 9") {
		t.Errorf("exit %d, stderr:\n%s", res.Code, res.Stderr)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v to end", took)
	}
	if left, _ := filepath.Glob("/dev/shm/*coll*"); len(left) > 0 {
		t.Errorf("files left in /dev/shm: %v", left)
	}
}

// TestNodeCollLongBcastNoAllocs: a node Bcast beyond the ring allocates nothing once
// warm: on 2 ranks its one message (no schedule), on 4 in the reads' range whichever
// way its root picks (the reads first, the schedules from the first probe, the 32nd
// call: shmcoll.Chooser.PickFirst).
func TestNodeCollLongBcastNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items, so allocations are not counted")
	}
	for _, c := range []struct{ ranks, size int }{{2, 64 << 10}, {4, 512 << 10}} {
		t.Run(fmt.Sprint(c.ranks), func(t *testing.T) {
			launchOK(t, c.ranks, nil, func(t *testing.T) {
				must(t, mpi.Init())
				buf := make([]byte, c.size)
				for i := 0; i < 40; i++ {
					must(t, mpi.Bcast(mpi.World, buf, 0))
				}
				a := testing.AllocsPerRun(100, func() {
					must(t, mpi.Bcast(mpi.World, buf, 0))
				})
				if a != 0 {
					t.Errorf("%v allocations per Bcast of %d bytes, want 0", a, c.size)
				}
				must(t, mpi.Finalize())
			})
		})
	}
}

// TestNodeCollNoAllocs: the shared-memory Barrier, Bcast, Allreduce and Reduce (in the
// cells, and through the slots with the root at the highest rank and at the lowest)
// allocate nothing.
func TestNodeCollNoAllocs(t *testing.T) {
	launchOK(t, 3, nil, func(t *testing.T) {
		must(t, mpi.Init())
		buf := make([]byte, 1000)
		x, y := make([]float64, 100), make([]float64, 100)
		lx, ly := make([]float64, 4096), make([]float64, 4096)
		must(t, mpi.World.Barrier()) // makes the region
		a := testing.AllocsPerRun(200, func() {
			must(t, mpi.World.Barrier())
			must(t, mpi.Bcast(mpi.World, buf, 1))
			must(t, mpi.Allreduce(mpi.World, x, y, mpi.Sum))
			must(t, mpi.Reduce(mpi.World, x, y, mpi.Max, 2))
			must(t, mpi.Reduce(mpi.World, lx, ly, mpi.Sum, 2))
			must(t, mpi.Reduce(mpi.World, lx, ly, mpi.Sum, 0))
		})
		if a != 0 {
			t.Errorf("%v allocations per Barrier+Bcast+Allreduce+Reduce+2 long Reduces, want 0", a)
		}
		must(t, mpi.Finalize())
	})
}

// TestNodeGatherNoAllocs: the shared-memory Gather, Gatherv (cells), Allgather,
// Allgatherv and Alltoall (inline lines and slots) allocate nothing.
func TestNodeGatherNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items, so allocations are not counted")
	}
	launchOK(t, 3, nil, func(t *testing.T) {
		must(t, mpi.Init())
		w := mpi.World
		small, big := make([]int32, 4), make([]int32, 200)
		recv := make([]int32, 3*200)
		counts, displs := []int{4, 4, 4}, []int{0, 10, 20}
		must(t, w.Barrier()) // makes the region
		a := testing.AllocsPerRun(200, func() {
			must(t, mpi.Gather(w, small, recv[:12], 1))
			must(t, mpi.Gatherv(w, small, recv, counts, displs, 2))
			must(t, mpi.Allgather(w, small, recv[:12]))
			must(t, mpi.Allgather(w, big, recv))
			must(t, mpi.Allgatherv(w, small, recv, counts, displs))
			must(t, mpi.Alltoall(w, recv[:12], recv[12:24]))
			must(t, mpi.Alltoall(w, big[:3*40], recv[:3*40]))
		})
		if a != 0 {
			t.Errorf("%v allocations per Gather+Gatherv+Allgather+Allgatherv+Alltoall, want 0", a)
		}
		must(t, mpi.Finalize())
	})
}

// TestNodeCollHierarchical: communicators spanning three (pretend) hosts, with ranks
// mapped round robin or in blocks, run Barrier, Bcast, Reduce and Allreduce
// hierarchically (shared memory on each host, one rank per host across); a
// non-commutative reduction does so only when the hosts hold blocks of ranks, and keeps
// the point-to-point algorithms otherwise. The job goes through mpigo's agents, started
// by a script standing in for ssh that runs them on this machine.
func TestNodeCollHierarchical(t *testing.T) {
	hierJob(t, hierOpts{set: nodeSettings, timeout: 2 * time.Minute}, func(t *testing.T) {
		must(t, mpi.Init())
		w := mpi.World
		nodeCollCheck(t, w, 60)
		for k := 2; k <= 3; k++ {
			c, err := w.Split(w.Rank()%k, w.Size()-w.Rank())
			must(t, err)
			nodeCollCheck(t, c, 30)
			must(t, c.Free())
		}
		must(t, mpi.Finalize())
	})
}

// hierOpts shape a job of hierJob: settings, extra environment for a mapping, and a
// timeout (a minute if zero).
type hierOpts struct {
	set     map[string]string
	env     func(byNode bool) []string
	timeout time.Duration
}

// pretendHosts are hierJob's three hosts, of 3, 3 and 1 slots.
var pretendHosts = []launch.Host{{Name: "alpha", Slots: 3}, {Name: "beta", Slots: 3}, {Name: "gamma", Slots: 1}}

// hierJob runs body on 7 ranks on three pretend hosts (3, 3 and 1 slots), mapped in
// blocks and round robin (subtests bynode=true and false), through mpigo's agents
// started by a script standing in for ssh.
func hierJob(t *testing.T, o hierOpts, body func(t *testing.T)) {
	if testing.Short() {
		t.Skip("builds cmd/mpigo")
	}
	if o.timeout == 0 {
		o.timeout = time.Minute
	}
	for _, byNode := range []bool{true, false} {
		t.Run(fmt.Sprintf("bynode=%v", byNode), func(t *testing.T) {
			var env []string
			if o.env != nil {
				env = o.env(byNode)
			}
			mpitest.Job(t, mpitest.Options{N: 7, Settings: o.set, Env: env, Timeout: o.timeout,
				Hosts: pretendHosts, ByNode: byNode}, body)
		})
	}
}

// TestNodeCollProgress: a rank waiting in a shared-memory Barrier still moves its
// pending point-to-point messages, which the other rank needs to reach the Barrier
// (MPI's progress rule).
func TestNodeCollProgress(t *testing.T) {
	launchOK(t, 2, nil, func(t *testing.T) {
		must(t, mpi.Init())
		big := make([]byte, 16<<20)
		must(t, mpi.World.Barrier())
		if mpi.World.Rank() == 0 {
			q, err := mpi.Isend(mpi.World, big, 1, 5)
			must(t, err)
			must(t, mpi.World.Barrier())
			_, err = q.Wait()
			must(t, err)
		} else {
			_, err := mpi.Recv(mpi.World, big, 0, 5)
			must(t, err)
			must(t, mpi.World.Barrier())
		}
		must(t, mpi.Finalize())
	})
}

// TestBcastTruncationEveryPath: a Bcast whose receiver's buffer is shorter than the
// root's message reports MPI_ERR_TRUNCATE (MPI 4.1 §6.4: the amount of data sent must
// equal the amount received; §3.2.4: a longer message is an overflow error) with the
// first values received, on the node shared-memory path as on the schedules and over
// TCP; the communicator stays in step for the next Bcast; a root's shorter or empty
// message leaves the rest of a longer buffer as it was.
func TestBcastTruncationEveryPath(t *testing.T) {
	paths := map[string]map[string]string{
		"shm":   {"coll_shm": "auto"},
		"sched": {"coll_shm": "off"},
		"tcp":   {"coll_shm": "off", "transports": "self,tcp"},
		// Read from the root's buffer from 1000 bytes: the 300- and 5000-int ones.
		"direct": {"coll_shm": "auto", "coll_shm_bcast_direct": "1000"},
	}
	for name, set := range paths {
		t.Run(name, func(t *testing.T) {
			body := func(t *testing.T) {
				must(t, mpi.Init())
				w, rank := mpi.World, mpi.World.Rank()
				for _, n := range []int{5, 300, 5000} {
					buf := make([]int32, n)
					if rank == 2 {
						buf = buf[:n/2]
					}
					if rank == 0 {
						for i := range buf {
							buf[i] = int32(i + 1)
						}
					}
					err := mpi.Bcast(w, buf, 0)
					switch {
					case rank == 2 && !errors.Is(err, mpi.ErrTruncate):
						t.Errorf("%d ints into %d: err %v, want ErrTruncate", n, len(buf), err)
					case rank != 2 && err != nil:
						t.Errorf("%d ints: %v", n, err)
					}
					for i, v := range buf {
						if v != int32(i+1) {
							t.Fatalf("%d ints: buf[%d] = %d, want %d", n, i, v, i+1)
						}
					}
					// In step: a Bcast of matching lengths works after it.
					next := []int64{int64(n * (rank + 1))}
					must(t, mpi.Bcast(w, next, 0))
					if next[0] != int64(n) {
						t.Fatalf("the Bcast after a truncated one got %d, want %d", next[0], n)
					}
				}
				// The root sends less than the others' buffers hold: they get what it
				// sent, and the rest stays.
				buf := []int32{-1, -1, -1, -1}
				if rank == 0 {
					buf = []int32{7, 8}
				}
				must(t, mpi.Bcast(w, buf, 0))
				if rank != 0 && (buf[0] != 7 || buf[1] != 8 || buf[2] != -1 || buf[3] != -1) {
					t.Errorf("a 2-int Bcast into 4 ints: %v, want [7 8 -1 -1]", buf)
				}
				empty := []int32{-1}
				if rank == 0 {
					empty = nil
				}
				must(t, mpi.Bcast(w, empty, 0))
				if rank != 0 && empty[0] != -1 {
					t.Errorf("an empty Bcast changed a receiver's buffer: %v", empty)
				}
				must(t, mpi.Finalize())
			}
			mpitest.Job(t, mpitest.Options{N: 3, Settings: set, Timeout: 20 * time.Second}, body)
		})
	}
}
