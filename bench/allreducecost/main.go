// Allreducecost runs ITERS Allreduces (float64 Sum) of BYTES bytes on World, for counting
// instructions per call with callgrind (bench/allreducecost.sh).
//
//	mpigo run -n 2 ./bench/allreducecost ITERS BYTES
package main

import (
	"os"
	"strconv"

	"github.com/mpigo/mpigo/bench/osu"
	"github.com/mpigo/mpigo/mpi"
)

func main() {
	if len(os.Args) != 3 {
		osu.Die("usage: allreducecost ITERS BYTES")
	}
	iters, err1 := strconv.Atoi(os.Args[1])
	n, err2 := strconv.Atoi(os.Args[2])
	if err1 != nil || err2 != nil {
		osu.Die("usage: allreducecost ITERS BYTES")
	}
	if err := mpi.Init(); err != nil {
		osu.Die("%v", err)
	}
	send, recv := make([]float64, n/8), make([]float64, n/8)
	for i := 0; i < iters; i++ {
		if err := mpi.Allreduce(mpi.World, send, recv, mpi.Sum); err != nil {
			osu.Die("%v", err)
		}
	}
	if err := mpi.Finalize(); err != nil {
		osu.Die("%v", err)
	}
}
