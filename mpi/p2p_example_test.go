package mpi_test

import (
	"fmt"

	"github.com/mpigo/mpigo/mpi"
)

// Waitany handles requests in the order they complete: rank 0 collects a result from
// every rank, itself included, and uses each as soon as it arrives, whichever rank
// answers first. (TestExamplesInJobs runs this example as a job of 1 and of 3 ranks.)
func ExampleWaitany() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	rank, size := mpi.World.Rank(), mpi.World.Size()
	send, err := mpi.Isend(mpi.World, []int{rank * rank}, 0, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	if rank == 0 {
		results := make([]int, size)
		reqs := make([]mpi.Request, size)
		for r := range reqs {
			reqs[r], _ = mpi.Irecv(mpi.World, results[r:r+1], r, 0)
		}
		sum := 0
		for range reqs {
			// i is a request that has completed (its status, ignored here, says who
			// sent); reqs[i] is now the null request, which Waitany passes over.
			i, _, err := mpi.Waitany(reqs)
			if err != nil {
				fmt.Println(err)
				return
			}
			sum += results[i]
		}
		fmt.Println("sum of squares:", sum)
	}
	send.Wait()
}

// A persistent request is made once and started for every round of a loop that sends
// the same buffer to the same rank: here the ranks pass values round a ring until
// each has seen every rank's. (TestExamplesInJobs runs this example as a job of 1 and
// of 3 ranks.)
func ExampleSendInit() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	rank, size := mpi.World.Rank(), mpi.World.Size()
	next, prev := (rank+1)%size, (rank+size-1)%size
	out, in := []int{rank}, []int{0}
	send, err := mpi.SendInit(mpi.World, out, next, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	recv, err := mpi.RecvInit(mpi.World, in, prev, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	reqs := []mpi.Request{recv, send}
	sum := rank
	for step := 1; step < size; step++ {
		reqs[0].Start() // mpi.Startall(reqs) starts both at once
		reqs[1].Start()
		if err := mpi.Waitall(reqs, nil); err != nil { // they stay, inactive, for the next Start
			fmt.Println(err)
			return
		}
		sum += in[0]
		out[0] = in[0] // the buffer given to SendInit is what the next Start sends
	}
	reqs[0].Free()
	reqs[1].Free()
	if rank == 0 {
		fmt.Println("sum of ranks:", sum)
	}
}
