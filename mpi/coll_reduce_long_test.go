package mpi_test

import (
	"fmt"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestReduceLong: Reduces beyond the cells (8368 bytes), through the node region's
// slots up to its limits (1 MiB: the root combines its own part from its buffer, and
// starts from it before the others arrive where the order allows), in pieces of a
// 64 KiB slot, and by the schedules and TCP: float64 sums of 9 KiB to 1.5 MiB with
// the root at every rank, in place every other call, and a non-commutative op, which
// keeps MPI's rank order whichever rank is the root; the sums again as Allreduces
// (on two ranks through the region up to 128 KiB). On the region, a sum of values that
// round differently in another order must come out with the bits of
// x[0] + (x[1] + (... + x[n-1])), the order every rank's Reduce and Allreduce there
// use (on two ranks every way gives those bits: x[0] + x[1] is x[1] + x[0]).
func TestReduceLong(t *testing.T) {
	pieces := mpitest.Transport{Name: "shm-pieces", Settings: map[string]string{"transports": "self,shm,tcp", "coll_shm_slot": "65536"}}
	for _, p := range append(pathsShmSchedTCP, pieces) {
		for n := 2; n <= 4; n++ {
			t.Run(fmt.Sprintf("%s/%d", p.Name, n), func(t *testing.T) {
				jobWith(t, mpitest.Options{N: n, Transport: p}, func(t *testing.T, rank, size int) {
					w := mpi.World
					for it, m := range []int{1100, 2100, 8192, 40000, 131072, 196608} {
						region := p.Name != "sched" && p.Name != "tcp" && m*8 <= 1<<20
						for root := 0; root < size; root++ {
							reduceLongRound(t, w, it*size+root, m, root, rank, size, region)
						}
					}
				})
			})
		}
	}
}

// reduceLongRound is one round of TestReduceLong: m elements to root.
func reduceLongRound(t *testing.T, w *mpi.Comm, it, m, root, rank, size int, exact bool) {
	inPlace := rank == root && it%2 == 1
	what := fmt.Sprintf("round %d (%d elements, root %d, in place %v)", it, m, root, inPlace)
	// Values whose sum rounds by the order of its additions.
	val := func(r, i int) float64 {
		return (1 + float64((r*13+i*7+it)%31)) / float64(3+r) * 1e-3 * float64(1+(i*r)%1000)
	}
	fs, fgot, fwant, fint := make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
	for i := range fs {
		fs[i] = val(rank, i)
		acc := val(size-1, i)
		for j := size - 2; j >= 0; j-- {
			acc = val(j, i) + acc
		}
		fwant[i] = acc
	}
	reduceTo(t, w, fs, fgot, mpi.Sum, root, inPlace)
	if rank == root {
		sameSums(t, what+": Sum", fgot, fwant, exact)
	}
	// The same as an Allreduce, in place every other call, at every rank.
	agot := make([]float64, m)
	if it%2 == 0 {
		copy(agot, fs)
		must(t, mpi.Allreduce(w, mpi.InPlace[float64](), agot, mpi.Sum))
	} else {
		must(t, mpi.Allreduce(w, fs, agot, mpi.Sum))
	}
	sameSums(t, what+": Allreduce's Sum", agot, fwant, exact)
	// Small integers, exact in every order, the other way round in place.
	for i := range fint {
		fint[i] = float64(rval(rank, it, i))
	}
	want := make([]float64, m)
	for i := range want {
		for j := 0; j < size; j++ {
			want[i] += float64(rval(j, it, i))
		}
	}
	got := make([]float64, m)
	if rank == root && !inPlace {
		copy(got, fint)
		must(t, mpi.Reduce(w, mpi.InPlace[float64](), got, mpi.Sum, root))
	} else {
		must(t, mpi.Reduce(w, fint, got, mpi.Sum, root))
	}
	if rank == root {
		equal(t, what+": Sum of small integers", got, want)
	}
	reduceCompose(t, w, what, it, m, root, rank, size, inPlace)
}

// reduceCompose reduces m elements of a non-commutative op (composeOp) to root and
// checks MPI's rank order at the root.
func reduceCompose(t *testing.T, w *mpi.Comm, what string, it, m, root, rank, size int, inPlace bool) {
	us, ugot, uwant := make([]uint64, m), make([]uint64, m), make([]uint64, m)
	for i := range us {
		us[i] = affine(rank, it, i)
		uwant[i] = affine(size-1, it, i)
		for j := size - 2; j >= 0; j-- {
			uwant[i] = compose(affine(j, it, i), uwant[i])
		}
	}
	reduceTo(t, w, us, ugot, composeOp, root, inPlace)
	if rank == root {
		equal(t, what+": a non-commutative op", ugot, uwant)
	}
}

// reduceTo reduces send into got at root with op, in place at the root (got holding
// its contribution) if inPlace.
func reduceTo[T mpi.Elem](t *testing.T, w *mpi.Comm, send, got []T, op mpi.Op, root int, inPlace bool) {
	t.Helper()
	if inPlace {
		copy(got, send)
		must(t, mpi.Reduce(w, mpi.InPlace[T](), got, op, root))
	} else {
		must(t, mpi.Reduce(w, send, got, op, root))
	}
}

// sameSums fails t unless got is want, bit for bit if exact, else to a relative 1e-12.
func sameSums(t *testing.T, what string, got, want []float64, exact bool) {
	t.Helper()
	for i := range got {
		if exact && got[i] != want[i] || !exact && !near(got[i], want[i]) {
			t.Fatalf("%s: element %d: %v, want %v", what, i, got[i], want[i])
		}
	}
}

// near reports a and b equal to a relative 1e-12.
func near(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= 1e-12*max(a, -a, b, -b)
}
