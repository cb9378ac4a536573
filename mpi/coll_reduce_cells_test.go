package mpi_test

import (
	"fmt"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// rval is element i of rank r's contribution to reduction it.
func rval(r, it, i int) int64 { return int64((r*7+it*3+i*11)%97 - 40) }

// TestReduceCells: Reduce on every way it takes (on the node region a cell per rank
// up to 8368 bytes, the op way and the schedules beyond; the schedules; TCP), with
// roots rotating and Gathers between (the two share the cells' count): sums of
// float64 and int32 of 0 to 9600 bytes (a cell's head is 112 of them), Maxloc on
// (value, index) pairs and a non-commutative user op (MPI's rank order), in place at
// the root every third call, many more calls than a rank's 16 cells; and non-roots of
// ten Reduces that return before their root calls. At 2, 3 and 4 ranks; every
// result compared with a serial computation.
func TestReduceCells(t *testing.T) {
	for _, p := range pathsShmSchedTCP {
		for n := 2; n <= 4; n++ {
			t.Run(fmt.Sprintf("%s/%d", p.Name, n), func(t *testing.T) {
				jobWith(t, mpitest.Options{N: n, Transport: p}, func(t *testing.T, rank, size int) {
					w := mpi.World
					for it := 0; it < 80; it++ {
						reduceCellsRound(t, w, it, rank, size)
					}
					// Non-roots return before their root calls.
					tok := []int32{0}
					if rank != 0 {
						for it := 0; it < 10; it++ {
							must(t, mpi.Reduce(w, []int64{rval(rank, it, 0)}, nil, mpi.Sum, 0))
						}
						must(t, mpi.Send(w, tok, 0, 9))
						return
					}
					for j := 1; j < size; j++ {
						_, err := mpi.Recv(w, tok, mpi.AnySource, 9)
						must(t, err)
					}
					for it := 0; it < 10; it++ {
						got := []int64{0}
						must(t, mpi.Reduce(w, []int64{rval(rank, it, 0)}, got, mpi.Sum, 0))
						want := int64(0)
						for j := 0; j < size; j++ {
							want += rval(j, it, 0)
						}
						if got[0] != want {
							t.Fatalf("early Reduce %d: %d, want %d", it, got[0], want)
						}
					}
				})
			})
		}
	}
}

// reduceCellsRound is round it of TestReduceCells.
func reduceCellsRound(t *testing.T, w *mpi.Comm, it, rank, size int) {
	root, m := (it*5)%size, (it*41)%1201 // elements of 8 bytes: 0..9600 bytes
	inPlace := rank == root && it%3 == 0
	what := fmt.Sprintf("round %d (%d elements, root %d, in place %v)", it, m, root, inPlace)
	// Sum of float64 (exact: small integers).
	fs, fgot, fwant := make([]float64, m), make([]float64, m), make([]float64, m)
	for i := range fs {
		fs[i] = float64(rval(rank, it, i))
		for j := 0; j < size; j++ {
			fwant[i] += float64(rval(j, it, i))
		}
	}
	reduceTo(t, w, fs, fgot, mpi.Sum, root, inPlace)
	if rank == root {
		equal(t, what+": Sum of float64", fgot, fwant)
	}
	// A Gather between, on the same cells.
	g := make([]byte, size*3)
	must(t, mpi.Gather(w, gblock(rank, it, 3), g, (root+1)%size))
	if rank == (root+1)%size {
		for j := 0; j < size; j++ {
			checkGathered(t, what+": Gather", it, j, g[3*j:3*j+3])
		}
	}
	// Sum of int32, as many bytes.
	is, igot, iwant := make([]int32, 2*m), make([]int32, 2*m), make([]int32, 2*m)
	for i := range is {
		is[i] = int32(rval(rank, it, i))
		for j := 0; j < size; j++ {
			iwant[i] += int32(rval(j, it, i))
		}
	}
	must(t, mpi.Reduce(w, is, igot, mpi.Sum, root))
	if rank == root {
		equal(t, what+": Sum of int32", igot, iwant)
	}
	// Maxloc on (value, index) pairs of float64.
	mp := m / 2
	pairs, locs := make([]float64, 2*mp), make([]float64, 2*mp)
	for i := 0; i < mp; i++ {
		pairs[2*i], pairs[2*i+1] = float64(rval(rank, it, i)%5), float64(rank)
	}
	must(t, mpi.Reduce(w, pairs, locs, mpi.Maxloc, root))
	if rank == root {
		for i := 0; i < mp; i++ {
			best, at := float64(-1e9), float64(-1)
			for j := 0; j < size; j++ {
				if v := float64(rval(j, it, i) % 5); v > best {
					best, at = v, float64(j)
				}
			}
			if locs[2*i] != best || locs[2*i+1] != at {
				t.Fatalf("%s: Maxloc pair %d: (%v, %v), want (%v, %v)", what, i, locs[2*i], locs[2*i+1], best, at)
			}
		}
	}
	reduceCompose(t, w, what, it, m, root, rank, size, inPlace)
}
