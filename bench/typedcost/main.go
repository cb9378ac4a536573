// Command typedcost runs one form of a collective on a derived datatype in a loop,
// for counting its instructions per call with callgrind (bench/typedcost.sh), which
// the machine's load does not disturb as it does timings. It holds issue 20's bar
// (BenchmarkTypedVsPacked times the same cases): a collective on a derived datatype
// costs no more than packing by hand, the collective on the packed data and
// unpacking.
//
// usage: mpigo run -n 2 typedcost ITERS MODE
//
//	column-typed   AllreduceBuf (Sum) of column 1 of a 256×4 matrix of float64,
//	               described by TypeVector(256, 1, 4, Float64)
//	column-hand    the same by a Go loop packing the column into a []float64,
//	               Allreduce and a loop unpacking it
//	records-typed  BcastBuf from rank 0 of 64 Particles (TypeOf: 21 bytes of
//	               data in 24)
//	records-hand   the same by mpi.Pack at the root, Bcast of the bytes and
//	               mpi.Unpack elsewhere
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/mpigo/mpigo/mpi"
)

// Particle is a Go record with padding after Alive.
type Particle struct {
	X, Y  float64
	ID    int32
	Alive bool
}

const (
	cols    = 4
	rows    = 256
	records = 64
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: typedcost ITERS column-typed|column-hand|records-typed|records-hand")
		os.Exit(2)
	}
	if _, err := mpi.InitThread(mpi.ThreadSingle); err != nil {
		panic(err)
	}
	defer mpi.Finalize()
	iters, err := strconv.Atoi(os.Args[1])
	if err != nil {
		panic(err)
	}
	run, err := form(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for range iters {
		if err := run(); err != nil {
			panic(err)
		}
	}
}

// form returns the loop body of mode.
func form(mode string) (func() error, error) {
	a, res := make([]float64, cols*rows), make([]float64, cols*rows)
	for i := range a {
		a[i] = float64(i)
	}
	col, err := mpi.TypeVector(rows, 1, cols, mpi.Float64)
	if err == nil {
		err = col.Commit()
	}
	pt, err2 := mpi.TypeOf[Particle]()
	if err != nil || err2 != nil {
		return nil, fmt.Errorf("types: %v, %v", err, err2)
	}
	ps := make([]Particle, records)
	root := mpi.World.Rank() == 0
	switch mode {
	case "column-typed":
		return func() error {
			return mpi.AllreduceBuf(mpi.World, mpi.Typed(a[1:], 1, col), mpi.Typed(res[1:], 1, col), mpi.Sum)
		}, nil
	case "column-hand":
		packed, out := make([]float64, rows), make([]float64, rows)
		return func() error {
			packColumn(packed, a[1:])
			if err := mpi.Allreduce(mpi.World, packed, out, mpi.Sum); err != nil {
				return err
			}
			unpackColumn(res[1:], out)
			return nil
		}, nil
	case "records-typed":
		return func() error { return mpi.BcastBuf(mpi.World, mpi.Typed(ps, records, pt), 0) }, nil
	case "records-hand":
		buf := make([]byte, 21*records)
		return func() error {
			pos := 0
			if root {
				if err := mpi.Pack(mpi.Typed(ps, records, pt), buf, &pos); err != nil {
					return err
				}
			}
			if err := mpi.Bcast(mpi.World, buf, 0); err != nil {
				return err
			}
			if !root {
				return mpi.Unpack(buf, &pos, mpi.Typed(ps, records, pt))
			}
			return nil
		}, nil
	}
	return nil, fmt.Errorf("unknown mode %q", mode)
}

// packColumn copies every cols-th element of a from a[0] into packed, and
// unpackColumn back: the hand loops, written so that the compiler drops their
// bounds checks (the tightest baseline).
func packColumn(packed, a []float64) {
	for i, j := 0, 0; i < len(packed) && j < len(a); i, j = i+1, j+cols {
		packed[i] = a[j]
	}
}

func unpackColumn(a, packed []float64) {
	for i, j := 0, 0; i < len(packed) && j < len(a); i, j = i+1, j+cols {
		a[j] = packed[i]
	}
}
