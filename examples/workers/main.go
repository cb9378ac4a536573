// Workers is the manager-worker pattern over MPI_Comm_spawn: the manager, started as
// a job of its own, starts its workers as a second job (copies of this program, which
// tell their role by CommGetParent), gives them the work over the intercommunicator
// between the two jobs, collects the result, and both sides disconnect. The work is
// examples/pi's: π as the integral of 4/(1+x²) over [0,1].
//
//	mpigo run -n 1 ./examples/workers [workers] [intervals]
package main

import (
	"fmt"
	"log"
	"math"
	"os"
	"strconv"

	"github.com/mpigo/mpigo/mpi"
)

func main() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	if parent := mpi.CommGetParent(); parent != nil {
		work(parent)
		return
	}
	workers, intervals := arg(1, 4), arg(2, 10_000_000)
	manage(workers, intervals)
}

// arg is the i'th argument as a positive whole number, def when there is none.
func arg(i, def int) int {
	if len(os.Args) <= i {
		return def
	}
	v, err := strconv.Atoi(os.Args[i])
	if err != nil || v <= 0 {
		log.Fatalf("argument %d: %q is not a positive whole number", i, os.Args[i])
	}
	return v
}

// manage starts the workers, sends them the number of intervals and receives their
// sum; rank 0 of the manager's job prints it.
func manage(workers, intervals int) {
	// The program, its arguments and the count matter at the root (rank 0) only.
	inter, errs, err := mpi.CommSpawn(os.Args[0], nil, workers, nil, 0, mpi.World)
	if err != nil {
		log.Fatalf("spawning %d workers: %v (per worker: %v)", workers, err, errs)
	}
	// On an intercommunicator the root of a rooted collective passes Root, the rest
	// of its group ProcNull; the other group passes the root's rank.
	root := mpi.ProcNull
	if mpi.World.Rank() == 0 {
		root = mpi.Root
	}
	if err := mpi.Bcast(inter, []int{intervals}, root); err != nil {
		log.Fatal(err)
	}
	pi := []float64{0}
	if err := mpi.Reduce(inter, nil, pi, mpi.Sum, root); err != nil {
		log.Fatal(err)
	}
	if root == mpi.Root {
		fmt.Printf("pi is %.12f from %d workers, error %.1e\n", pi[0], inter.RemoteSize(), math.Abs(pi[0]-math.Pi))
	}
	if err := inter.Disconnect(); err != nil {
		log.Fatal(err)
	}
}

// work receives the number of intervals from the manager's rank 0, sums this
// worker's share and reduces the shares to it.
func work(parent *mpi.Comm) {
	n := []int{0}
	if err := mpi.Bcast(parent, n, 0); err != nil {
		log.Fatal(err)
	}
	rank, size := mpi.World.Rank(), mpi.World.Size()
	h := 1.0 / float64(n[0])
	sum := 0.0
	for i := rank; i < n[0]; i += size {
		x := h * (float64(i) + 0.5)
		sum += 4 / (1 + x*x)
	}
	if err := mpi.Reduce(parent, []float64{sum * h}, nil, mpi.Sum, 0); err != nil {
		log.Fatal(err)
	}
	if err := parent.Disconnect(); err != nil {
		log.Fatal(err)
	}
}
