// Collcost runs ITERS calls of a collective on BYTES bytes on World, for counting
// instructions per call with callgrind (bench/collcost.sh): OP is bcast (from rank 0),
// allreduce (float64 Sum) or barrier (BYTES ignored).
//
//	mpigo run -n 2 ./bench/collcost OP ITERS BYTES
package main

import (
	"os"
	"strconv"

	"github.com/mpigo/mpigo/bench/osu"
	"github.com/mpigo/mpigo/mpi"
)

func main() {
	const usage = "usage: collcost bcast|allreduce|barrier ITERS BYTES"
	if len(os.Args) != 4 {
		osu.Die(usage)
	}
	iters, err1 := strconv.Atoi(os.Args[2])
	n, err2 := strconv.Atoi(os.Args[3])
	if err1 != nil || err2 != nil {
		osu.Die(usage)
	}
	var call func() error
	switch os.Args[1] {
	case "bcast":
		buf := make([]byte, n)
		call = func() error { return mpi.Bcast(mpi.World, buf, 0) }
	case "allreduce":
		send, recv := make([]float64, n/8), make([]float64, n/8)
		call = func() error { return mpi.Allreduce(mpi.World, send, recv, mpi.Sum) }
	case "barrier":
		call = func() error { return mpi.World.Barrier() }
	default:
		osu.Die(usage)
	}
	if err := mpi.Init(); err != nil {
		osu.Die("%v", err)
	}
	for i := 0; i < iters; i++ {
		if err := call(); err != nil {
			osu.Die("%v", err)
		}
	}
	if err := mpi.Finalize(); err != nil {
		osu.Die("%v", err)
	}
}
