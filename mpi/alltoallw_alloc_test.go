package mpi_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// TestAlltoallwNoAllocs: Alltoallw, Ialltoallw with its Wait and a persistent
// Alltoallw's Start and Wait allocate nothing per call once warm, without a view, on
// a contiguous datatype, on one with gaps (a vector, whose blocks are packed and
// unpacked through scratch) and on the two mixed (sent as a vector, received
// contiguous). On 2 and 3 ranks, over shared memory and forced TCP; each call's
// result is checked after the measured runs, on a receive buffer cleared to a
// marker that the gaps must keep.
func TestAlltoallwNoAllocs(t *testing.T) {
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) { alltoallwNoAllocs(t, n) })
	}
}

func alltoallwNoAllocs(t *testing.T, n int) {
	jobEach(t, n, func(t *testing.T, rank, size int) {
		w := mpi.World
		// An item of vec is 2 float64s 2 apart, 3 float64s of extent: block j of a
		// is a[3j] and a[3j+2], and a[3j+1] is a gap.
		vec := committed(mpi.TypeVector(2, 1, 2, mpi.Float64))(t)
		val := func(r, i int) float64 { return float64(100*(r+1) + i) } // rank r's a[i]
		a := make([]float64, 3*size)
		for i := range a {
			a[i] = val(rank, i)
		}
		const gap = -1.0
		g := make([]float64, 3*size)
		ones, twos := make([]int, size), make([]int, size)
		b8, b16, b24 := make([]int, size), make([]int, size), make([]int, size)
		f64s, vecs := make([]*mpi.Datatype, size), make([]*mpi.Datatype, size)
		for j := 0; j < size; j++ {
			ones[j], twos[j] = 1, 2
			b8[j], b16[j], b24[j] = 8*j, 16*j, 24*j
			f64s[j], vecs[j] = mpi.Float64, vec
		}
		// Contiguous: block j is a[j], received at g[i] from rank i.
		cont := slices.Repeat([]float64{gap}, 3*size)
		// On vec: block j is a[3j] and a[3j+2], received at g[3i] and g[3i+2].
		vw := slices.Clone(cont)
		// Vec to contiguous: the same block received at g[2i] and g[2i+1].
		mixed := slices.Clone(cont)
		for i := 0; i < size; i++ {
			cont[i] = val(i, rank)
			vw[3*i], vw[3*i+2] = val(i, 3*rank), val(i, 3*rank+2)
			mixed[2*i], mixed[2*i+1] = val(i, 3*rank), val(i, 3*rank+2)
		}
		type shape struct {
			name             string
			scounts, sdispls []int
			stypes           []*mpi.Datatype
			rcounts, rdispls []int
			rtypes           []*mpi.Datatype
			want             []float64
		}
		shapes := []shape{
			{"contiguous", ones, b8, f64s, ones, b8, f64s, cont},
			{"vec", ones, b24, vecs, ones, b24, vecs, vw},
			{"vec to contiguous", ones, b24, vecs, twos, b16, f64s, mixed},
		}
		wait := func(r mpi.Request, err error) error {
			if err != nil {
				return err
			}
			_, err = r.Wait()
			return err
		}
		for _, s := range shapes {
			pr, err := mpi.AlltoallwInit(w, a, s.scounts, s.sdispls, s.stypes, g, s.rcounts, s.rdispls, s.rtypes)
			must(t, err)
			calls := []struct {
				name string
				f    func() error
			}{
				{"Alltoallw", func() error {
					return mpi.Alltoallw(w, a, s.scounts, s.sdispls, s.stypes, g, s.rcounts, s.rdispls, s.rtypes)
				}},
				{"Ialltoallw", func() error {
					return wait(mpi.Ialltoallw(w, a, s.scounts, s.sdispls, s.stypes, g, s.rcounts, s.rdispls, s.rtypes))
				}},
				{"AlltoallwInit Start", func() error {
					if err := pr.Start(); err != nil {
						return err
					}
					return wait(pr, nil)
				}},
			}
			for _, c := range calls {
				// Every call must succeed: one refused early would allocate nothing.
				var failed error
				f := func() {
					if err := c.f(); err != nil && failed == nil {
						failed = err
					}
				}
				f() // the first call fills the pools
				if !raceEnabled {
					k := testing.AllocsPerRun(200, f)
					t.Logf("%s on %s: %.2f allocations per call", c.name, s.name, k)
					if k != 0 {
						t.Errorf("%s on %s: %.2f allocations per call, want 0", c.name, s.name, k)
					}
				}
				if failed != nil {
					t.Fatalf("%s on %s: %v", c.name, s.name, failed)
				}
				for i := range g {
					g[i] = gap
				}
				must(t, c.f())
				if !slices.Equal(g, s.want) {
					t.Errorf("%s on %s: got %v, want %v", c.name, s.name, g, s.want)
				}
			}
			must(t, pr.Free())
		}
	})
}
