// Pi computes π by integrating 4/(1+x²) over [0,1] with the midpoint rule: every rank
// sums its share of the intervals, the ranks pass their partial sums to rank 0 over
// point-to-point messages, and rank 0 prints the result and its error.
//
//	mpigo run -n 4 ./examples/pi [intervals]
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
	rank, size := mpi.World.Rank(), mpi.World.Size()

	n := 100_000_000
	if len(os.Args) > 1 {
		v, err := strconv.Atoi(os.Args[1])
		if err != nil || v <= 0 {
			log.Fatalf("intervals: %q is not a positive whole number", os.Args[1])
		}
		n = v
	}
	start := mpi.Wtime()
	h := 1.0 / float64(n)
	sum := 0.0
	for i := rank; i < n; i += size {
		x := h * (float64(i) + 0.5)
		sum += 4 / (1 + x*x)
	}
	part := []float64{sum * h}

	const tag = 7
	if rank != 0 {
		if err := mpi.Send(mpi.World, part, 0, tag); err != nil {
			log.Fatal(err)
		}
		return
	}
	pi := part[0]
	for i := 1; i < size; i++ {
		if _, err := mpi.Recv(mpi.World, part, mpi.AnySource, tag); err != nil {
			log.Fatal(err)
		}
		pi += part[0]
	}
	fmt.Printf("pi ≈ %.15f (error %.1e) from %d intervals on %d ranks in %.3f s\n",
		pi, math.Abs(pi-math.Pi), n, size, mpi.Wtime()-start)
}
