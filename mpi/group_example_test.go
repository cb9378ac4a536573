package mpi_test

import (
	"fmt"

	"github.com/mpigo/mpigo/mpi"
)

// Groups are computed by each rank on its own, with no communication; a communicator
// of the result is then made collectively. Here: the even ranks and the last one.
// (TestExamplesInJobs runs this example as a job of 4 ranks.)
func ExampleGroupUnion() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	world := mpi.World.Group()
	size := world.Size()
	evens, err := world.RangeIncl([]mpi.Range{{First: 0, Last: size - 1, Stride: 2}})
	if err != nil {
		fmt.Println(err)
		return
	}
	last, err := world.Incl([]int{size - 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The members of evens, then those of last not in evens.
	u, err := mpi.GroupUnion(evens, last)
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := mpi.World.Create(u) // every rank of World calls it; those outside u get nil
	if err != nil {
		fmt.Println(err)
		return
	}
	if mpi.World.Rank() == 0 {
		ranks := make([]int, u.Size())
		for i := range ranks {
			ranks[i] = i
		}
		inWorld, _ := mpi.TranslateRanks(u, ranks, world)
		fmt.Println("world ranks", inWorld, "make a communicator of", c.Size())
	}
}
