// Bcastcost runs ITERS Bcasts of BYTES bytes from rank 0 on World, for counting
// instructions per call with callgrind (bench/bcastcost.sh).
//
//	mpigo run -n 2 ./bench/bcastcost ITERS BYTES
package main

import (
	"os"
	"strconv"

	"github.com/mpigo/mpigo/bench/osu"
	"github.com/mpigo/mpigo/mpi"
)

func main() {
	if len(os.Args) != 3 {
		osu.Die("usage: bcastcost ITERS BYTES")
	}
	iters, err1 := strconv.Atoi(os.Args[1])
	n, err2 := strconv.Atoi(os.Args[2])
	if err1 != nil || err2 != nil {
		osu.Die("usage: bcastcost ITERS BYTES")
	}
	if err := mpi.Init(); err != nil {
		osu.Die("%v", err)
	}
	buf := make([]byte, n)
	for i := 0; i < iters; i++ {
		if err := mpi.Bcast(mpi.World, buf, 0); err != nil {
			osu.Die("%v", err)
		}
	}
	if err := mpi.Finalize(); err != nil {
		osu.Die("%v", err)
	}
}
