package mpi_test

import (
	"fmt"

	"github.com/mpigo/mpigo/mpi"
)

// A generalized request makes work of the program's own a request like any other:
// here a goroutine sums a slice, and Wait returns when it has, with the status its
// query function fills. (TestExamplesInJobs runs this example as a job of 1 rank.)
func ExampleGrequestStart() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	type job struct {
		data []float64
		sum  float64
	}
	query := func(j *job, st *mpi.Status) error {
		return st.SetElements(mpi.Float64, len(j.data)) // how much the work covered
	}
	j := &job{data: []float64{1, 2, 3, 4}}
	req, err := mpi.GrequestStart(query, nil, nil, j)
	if err != nil {
		fmt.Println(err)
		return
	}
	worker := req // the worker's own copy of the handle
	go func() {
		for _, x := range j.data {
			j.sum += x
		}
		worker.GrequestComplete()
	}()
	st, err := req.Wait()
	if err != nil {
		fmt.Println(err)
		return
	}
	if mpi.World.Rank() == 0 {
		fmt.Println("sum", j.sum, "of", mpi.GetCount[float64](st), "values")
	}
}

// Isendrecv shifts values round a ring with one request per rank, which completes
// when both the send and the receive have. (TestExamplesInJobs runs this example as
// a job of 1 and of 3 ranks.)
func ExampleIsendrecv() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	rank, size := mpi.World.Rank(), mpi.World.Size()
	right, left := (rank+1)%size, (rank+size-1)%size
	got := []int{-1}
	req, err := mpi.Isendrecv(mpi.World, []int{rank}, right, 0, got, left, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	// ... other work here, while the exchange runs ...
	st, err := req.Wait()
	if err != nil {
		fmt.Println(err)
		return
	}
	if rank == 0 {
		fmt.Println("rank 0 got", got[0], "from rank", st.Source)
	}
}
