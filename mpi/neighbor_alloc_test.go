package mpi_test

import (
	"slices"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// TestNeighborNoAllocs: every neighbourhood collective, blocking and nonblocking
// (with its Wait), slice, Buf and w forms, on a contiguous datatype and on one with
// gaps, allocates nothing per call once warm, without a view. On a periodic ring of 2
// ranks (both neighbours are the other rank, so each block must still land in its own
// slot); each call's result is checked after the measured runs, on a receive buffer
// cleared to a marker that the gaps must keep. Over shared memory and forced TCP.
func TestNeighborNoAllocs(t *testing.T) {
	jobEach(t, 2, func(t *testing.T, rank, size int) {
		ring, err := mpi.World.CartCreate([]int{size}, []bool{true}, false)
		must(t, err)
		// An item of vec is 2 float64s 2 apart, 3 float64s of extent: item k of a is
		// a[3k] and a[3k+2], and a[3k+1] is a gap.
		vec := committed(mpi.TypeVector(2, 1, 2, mpi.Float64))(t)
		a := make([]float64, 6)
		for i := range a {
			a[i] = float64(100*(rank+1) + i)
		}
		o := func(i int) float64 { return float64(100*(size-rank) + i) } // the other rank's a[i]
		const gap = -1.0
		g := make([]float64, 6)
		one, at := []int{1, 1}, []int{0, 1}
		f64, vecs := []*mpi.Datatype{mpi.Float64, mpi.Float64}, []*mpi.Datatype{vec, vec}
		b8, b24 := []int{0, 8}, []int{0, 24}
		// Contiguous: block k is a[k]. Allgather: both slots get the other's a[0];
		// alltoall: slot 0 (from the -1 neighbour) gets its block for its +1 neighbour.
		gath := []float64{o(0), o(0), gap, gap, gap, gap}
		a2a := []float64{o(1), o(0), gap, gap, gap, gap}
		// On vec: block k is item k.
		vgath := []float64{o(0), gap, o(2), o(0), gap, o(2)}
		va2a := []float64{o(3), gap, o(5), o(0), gap, o(2)}
		type call struct {
			name string
			f    func(c *mpi.Comm) error
			want []float64
		}
		calls := []call{
			{"Allgather", func(c *mpi.Comm) error { return mpi.NeighborAllgather(c, a[:1], g[:2]) }, gath},
			{"Allgatherv", func(c *mpi.Comm) error { return mpi.NeighborAllgatherv(c, a[:1], g[:2], one, at) }, gath},
			{"Alltoall", func(c *mpi.Comm) error { return mpi.NeighborAlltoall(c, a[:2], g[:2]) }, a2a},
			{"Alltoallv", func(c *mpi.Comm) error { return mpi.NeighborAlltoallv(c, a[:2], one, at, g[:2], one, at) }, a2a},
			{"Alltoallw", func(c *mpi.Comm) error { return mpi.NeighborAlltoallw(c, a, one, b8, f64, g, one, b8, f64) }, a2a},
			{"AllgatherBuf", func(c *mpi.Comm) error {
				return mpi.NeighborAllgatherBuf(c, mpi.Typed(a, 1, mpi.Float64), mpi.Typed(g, 2, mpi.Float64))
			}, gath},
			{"AllgathervBuf", func(c *mpi.Comm) error {
				return mpi.NeighborAllgathervBuf(c, mpi.Typed(a, 1, mpi.Float64), mpi.Typed(g, 2, mpi.Float64), one, at)
			}, gath},
			{"AlltoallBuf", func(c *mpi.Comm) error {
				return mpi.NeighborAlltoallBuf(c, mpi.Typed(a, 2, mpi.Float64), mpi.Typed(g, 2, mpi.Float64))
			}, a2a},
			{"AlltoallvBuf", func(c *mpi.Comm) error {
				return mpi.NeighborAlltoallvBuf(c, mpi.Typed(a, 2, mpi.Float64), one, at, mpi.Typed(g, 2, mpi.Float64), one, at)
			}, a2a},
			{"Alltoallw on vec", func(c *mpi.Comm) error { return mpi.NeighborAlltoallw(c, a, one, b24, vecs, g, one, b24, vecs) }, va2a},
			{"AllgatherBuf on vec", func(c *mpi.Comm) error {
				return mpi.NeighborAllgatherBuf(c, mpi.Typed(a, 1, vec), mpi.Typed(g, 2, vec))
			}, vgath},
			{"AllgathervBuf on vec", func(c *mpi.Comm) error {
				return mpi.NeighborAllgathervBuf(c, mpi.Typed(a, 1, vec), mpi.Typed(g, 2, vec), one, at)
			}, vgath},
			{"AlltoallBuf on vec", func(c *mpi.Comm) error {
				return mpi.NeighborAlltoallBuf(c, mpi.Typed(a, 2, vec), mpi.Typed(g, 2, vec))
			}, va2a},
			{"AlltoallvBuf on vec", func(c *mpi.Comm) error {
				return mpi.NeighborAlltoallvBuf(c, mpi.Typed(a, 2, vec), one, at, mpi.Typed(g, 2, vec), one, at)
			}, va2a},
		}
		wait := func(r mpi.Request, err error) error {
			if err != nil {
				return err
			}
			_, err = r.Wait()
			return err
		}
		icalls := []call{
			{"Iallgather", func(c *mpi.Comm) error { return wait(mpi.IneighborAllgather(c, a[:1], g[:2])) }, gath},
			{"Iallgatherv", func(c *mpi.Comm) error { return wait(mpi.IneighborAllgatherv(c, a[:1], g[:2], one, at)) }, gath},
			{"Ialltoall", func(c *mpi.Comm) error { return wait(mpi.IneighborAlltoall(c, a[:2], g[:2])) }, a2a},
			{"Ialltoallv", func(c *mpi.Comm) error { return wait(mpi.IneighborAlltoallv(c, a[:2], one, at, g[:2], one, at)) }, a2a},
			{"Ialltoallw", func(c *mpi.Comm) error {
				return wait(mpi.IneighborAlltoallw(c, a, one, b8, f64, g, one, b8, f64))
			}, a2a},
			{"IallgatherBuf", func(c *mpi.Comm) error {
				return wait(mpi.IneighborAllgatherBuf(c, mpi.Typed(a, 1, mpi.Float64), mpi.Typed(g, 2, mpi.Float64)))
			}, gath},
			{"IalltoallvBuf", func(c *mpi.Comm) error {
				return wait(mpi.IneighborAlltoallvBuf(c, mpi.Typed(a, 2, mpi.Float64), one, at, mpi.Typed(g, 2, mpi.Float64), one, at))
			}, a2a},
			{"Ialltoallw on vec", func(c *mpi.Comm) error {
				return wait(mpi.IneighborAlltoallw(c, a, one, b24, vecs, g, one, b24, vecs))
			}, va2a},
			{"IallgatherBuf on vec", func(c *mpi.Comm) error {
				return wait(mpi.IneighborAllgatherBuf(c, mpi.Typed(a, 1, vec), mpi.Typed(g, 2, vec)))
			}, vgath},
			{"IallgathervBuf on vec", func(c *mpi.Comm) error {
				return wait(mpi.IneighborAllgathervBuf(c, mpi.Typed(a, 1, vec), mpi.Typed(g, 2, vec), one, at))
			}, vgath},
			{"IalltoallBuf on vec", func(c *mpi.Comm) error {
				return wait(mpi.IneighborAlltoallBuf(c, mpi.Typed(a, 2, vec), mpi.Typed(g, 2, vec)))
			}, va2a},
			{"IalltoallvBuf on vec", func(c *mpi.Comm) error {
				return wait(mpi.IneighborAlltoallvBuf(c, mpi.Typed(a, 2, vec), one, at, mpi.Typed(g, 2, vec), one, at))
			}, va2a},
		}
		for _, c := range append(calls, icalls...) {
			// Every call must succeed: one refused early would allocate nothing.
			var failed error
			f := func() {
				if err := c.f(ring); err != nil && failed == nil {
					failed = err
				}
			}
			f() // the first call fills the pools
			if !raceEnabled {
				n := testing.AllocsPerRun(100, f)
				t.Logf("Neighbor%s: %.2f allocations per call", c.name, n)
				if n != 0 {
					t.Errorf("Neighbor%s: %.2f allocations per call, want 0", c.name, n)
				}
			}
			if failed != nil {
				t.Fatalf("Neighbor%s: %v", c.name, failed)
			}
			for i := range g {
				g[i] = gap
			}
			must(t, c.f(ring))
			if !slices.Equal(g, c.want) {
				t.Errorf("Neighbor%s: got %v, want %v", c.name, g, c.want)
			}
		}
		// A nonblocking one's request follows every collective's rules: a copy used
		// up by another's Wait fails with ErrRequest, and one freed while active
		// completes in the background beside the next.
		r, err := mpi.IneighborAlltoall(ring, a[:2], g[:2])
		must(t, err)
		cp := r
		_, err = r.Wait()
		must(t, err)
		_, err = cp.Wait()
		wantUsedUp(t, "Wait of a copy of an IneighborAlltoall's request", err)
		g2 := make([]float64, 6)
		for k := 0; k < 20; k++ {
			f, err := mpi.IneighborAlltoallw(ring, a, one, b24, vecs, g2, one, b24, vecs)
			must(t, err)
			must(t, f.Free())
			for i := range g {
				g[i] = gap
			}
			must(t, wait(mpi.IneighborAllgatherBuf(ring, mpi.Typed(a, 1, vec), mpi.Typed(g, 2, vec))))
			if !slices.Equal(g, vgath) {
				t.Fatalf("IneighborAllgatherBuf beside a freed one: got %v, want %v", g, vgath)
			}
		}
		must(t, mpi.World.Barrier())
		must(t, ring.Free())
	})
}
