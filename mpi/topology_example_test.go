package mpi_test

import (
	"fmt"

	"github.com/mpigo/mpigo/mpi"
)

// DimsCreate picks a balanced grid for a number of ranks; zero entries are free,
// others fixed.
func ExampleDimsCreate() {
	dims := []int{0, 0, 0}
	if err := mpi.DimsCreate(24, dims); err != nil {
		fmt.Println(err)
	}
	fmt.Println(dims)

	dims = []int{0, 3, 0}
	fmt.Println(mpi.DimsCreate(6, dims), dims)

	// 7 ranks cannot fill a grid with a dimension of 3.
	fmt.Println(mpi.DimsCreate(7, []int{0, 3, 0}))
	// Output:
	// [4 3 2]
	// <nil> [2 3 1]
	// mpi: DimsCreate: nnodes = 7 is not a multiple of 3, the product of the fixed dims [0 3 0]
}

// A halo exchange on a grid: each rank sends to the neighbour CartShift names and
// receives from the other one; at the edges of a non-periodic grid the neighbour is
// ProcNull and the transfer does nothing, so the loop needs no special cases.
func ExampleComm_CartShift() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	dims := make([]int, 2)
	mpi.DimsCreate(mpi.World.Size(), dims)
	grid, err := mpi.World.CartCreate(dims, []bool{true, false}, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer grid.Free()
	halo := make([]float64, 4)
	mine := []float64{float64(grid.Rank())}
	for dir := range dims {
		for i, disp := range []int{1, -1} {
			src, dest, _ := grid.CartShift(dir, disp)
			mpi.Sendrecv(grid, mine, dest, 0, halo[2*dir+i:2*dir+i+1], src, 0)
		}
	}
}
