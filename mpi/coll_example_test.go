package mpi_test

import (
	"fmt"

	"github.com/mpigo/mpigo/mpi"
)

// A user op is a Go function over one element type; a non-commutative one is applied
// in rank order.
func ExampleOpCreate() {
	concat := mpi.OpCreate(func(inout, in []int32) {
		for i := range inout {
			inout[i] = in[i]*10 + inout[i] // "in" holds the lower ranks' digits
		}
	}, false)
	in, inout := []int32{1}, []int32{2}
	if err := mpi.ReduceLocal(in, inout, concat); err != nil {
		panic(err)
	}
	fmt.Println(inout[0], concat.Commutative())
	// Output: 12 false
}

// An op over a Go struct reduces typed buffers of it: here each rank's best particle,
// the heaviest, with the lowest rank's on ties (rank order, as the op does not
// commute). Run it in a job; rank 0 prints the result.
func ExampleOpCreate_struct() {
	type best struct {
		Mass float64
		Rank int32
	}
	heaviest := mpi.OpCreate(func(inout, in []best) {
		for i := range inout {
			if in[i].Mass >= inout[i].Mass { // in: the lower ranks' side
				inout[i] = in[i]
			}
		}
	}, false)
	if err := mpi.Init(); err != nil {
		panic(err)
	}
	defer mpi.Finalize()
	bt, err := mpi.TypeOf[best]()
	if err != nil {
		panic(err)
	}
	rank := mpi.World.Rank()
	mine := []best{{Mass: float64(rank % 2), Rank: int32(rank)}}
	out := make([]best, 1)
	if err := mpi.AllreduceBuf(mpi.World, mpi.Typed(mine, 1, bt), mpi.Typed(out, 1, bt), heaviest); err != nil {
		panic(err)
	}
	if rank == 0 {
		fmt.Printf("mass %v from rank %d\n", out[0].Mass, out[0].Rank)
	}
}
