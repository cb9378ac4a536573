package mpi_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// A program with sessions only: no Init, no World. The session gives the group of
// every process (the process set "mpi://WORLD"), and a communicator is made from it.
// Run it in a job; rank 0 prints.
func ExampleSessionInit() {
	s, err := mpi.SessionInit(nil, mpi.ErrorsAreFatal)
	if err != nil {
		panic(err)
	}
	defer s.Finalize()
	g, err := s.GroupFromPset("mpi://WORLD")
	if err != nil {
		panic(err)
	}
	c, err := mpi.CommCreateFromGroup(g, "example.org/sum", nil, mpi.ErrorsAreFatal)
	if err != nil {
		panic(err)
	}
	defer c.Free()
	sum := []int{0}
	mpi.Allreduce(c, []int{c.Rank()}, sum, mpi.Sum)
	if c.Rank() == 0 {
		fmt.Println("sum of ranks:", sum[0])
	}
}

// A library that wants a communicator of its own, whether or not the program
// called Init, starts a session of its own and lists the process sets it offers.
func ExampleSession_NthPset() {
	s, err := mpi.SessionInit(nil, nil)
	if err != nil {
		panic(err)
	}
	defer s.Finalize()
	n, _ := s.NumPsets(nil)
	for i := 0; i < n; i++ {
		name, _ := s.NthPset(nil, i)
		info, _ := s.PsetInfo(name)
		size, _, _ := info.Get("mpi_size")
		if os.Getenv("MPIGO_RANK") == "0" {
			fmt.Println(name, "has", size, "processes")
		}
	}
}

// TestSessionExamplesInJobs runs the session Examples as real jobs and checks what
// rank 0 prints.
func TestSessionExamplesInJobs(t *testing.T) {
	cases := []struct {
		name    string
		n       int
		example func()
		want    string
	}{
		{"SessionInit/1", 1, ExampleSessionInit, "sum of ranks: 0\n"},
		{"SessionInit/3", 3, ExampleSessionInit, "sum of ranks: 3\n"},
		{"NthPset/2", 2, ExampleSession_NthPset, "mpi://WORLD has 2 processes\nmpi://SELF has 1 processes\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mpitest.Run(t, c.n, func(t *testing.T) {
				out := stdoutOf(t, c.example)
				want := c.want
				if os.Getenv("MPIGO_RANK") != "0" {
					want = ""
				}
				if out != want || mpi.Initialized() {
					t.Errorf("rank %s printed %q, want %q (world model initialized: %v)", os.Getenv("MPIGO_RANK"), out, want, mpi.Initialized())
				}
			})
		})
	}
}
