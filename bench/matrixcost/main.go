// Command matrixcost runs an 8-byte one-sided or collective call in a loop, for
// counting its instructions per call with callgrind (bench/matrixcost.sh): the
// always-on cost of the communication matrix's counts (issue 23), which timings on a
// shared 2-core machine cannot resolve.
//
// usage: mpigo run -n 2 matrixcost ITERS MODE
//
//	put        rank 0: Put of one int64 into rank 1's allocated window and Flush,
//	           inside one lock epoch (the device's short way to node memory)
//	get, acc   the same with Get, and with Accumulate (Sum)
//	allreduce  Allreduce (Sum) of one int64 on the world (the node shared-memory path)
//	barrier    Barrier on the world (the node shared-memory path)
//	bcast      Bcast of one int64 from rank 0 on the world (the node shared-memory path)
//	pingpong   rank 0 sends one int64 to rank 1 and receives it back (Send, Recv)
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/mpigo/mpigo/mpi"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: matrixcost ITERS put|get|acc|allreduce|barrier|bcast|pingpong")
		os.Exit(2)
	}
	if _, err := mpi.InitThread(mpi.ThreadSingle); err != nil {
		panic(err)
	}
	defer mpi.Finalize()
	iters, err := strconv.Atoi(os.Args[1])
	if err != nil {
		panic(err)
	}
	w := mpi.World
	switch os.Args[2] {
	case "put", "get", "acc":
		win, _, err := mpi.WinAllocate(8, 8, nil, w)
		if err != nil {
			panic(err)
		}
		if w.Rank() == 0 {
			must(win.Lock(mpi.LockShared, 1, 0))
			v := []int64{1}
			for i := range iters {
				v[0] = int64(i)
				switch os.Args[2] {
				case "put":
					must(mpi.Put(win, v, 1, 0))
				case "get":
					must(mpi.Get(win, v, 1, 0))
				default:
					must(mpi.Accumulate(win, v, 1, 0, mpi.Sum))
				}
				must(win.Flush(1))
			}
			must(win.Unlock(1))
		}
		must(win.Free())
	case "allreduce":
		in, out := []int64{1}, []int64{0}
		for range iters {
			must(mpi.Allreduce(w, in, out, mpi.Sum))
		}
	case "barrier":
		for range iters {
			must(w.Barrier())
		}
	case "bcast":
		v := []int64{1}
		for range iters {
			must(mpi.Bcast(w, v, 0))
		}
	case "pingpong":
		v, peer := []int64{1}, 1-w.Rank()
		for range iters {
			if w.Rank() == 0 {
				must(mpi.Send(w, v, peer, 1))
				_, err = mpi.Recv(w, v, peer, 1)
			} else {
				_, err = mpi.Recv(w, v, peer, 1)
				must(err)
				err = mpi.Send(w, v, peer, 1)
			}
			must(err)
		}
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", os.Args[2])
		os.Exit(2)
	}
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
