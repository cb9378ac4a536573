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
