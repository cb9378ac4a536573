// Collmove measures the latency of the data-movement collectives (Scatter, Gather,
// Gatherv, Allgather, Allgatherv, Alltoall, Alltoallv: blocks of 8 B and 64 KiB per
// rank; the gathers go through the node region where there is one, the others run as
// schedules on every path), by coll's method: each operation timed alone and followed
// by an untimed Barrier, after warm-up operations. Rank 0 prints the mean over ranks
// ("collmove_n<np>") and the maximum ("collmove_n<np>_max"), in microseconds. It
// watches what checking every received block's length costs a correct call.
//
//	mpigo run -n 4 ./bench/collmove [scale]
package main

import (
	"fmt"

	"github.com/mpigo/mpigo/bench/osu"
	"github.com/mpigo/mpigo/mpi"
)

func must(err error) {
	if err != nil {
		osu.Die("%v", err)
	}
}

func main() {
	osu.Init()
	defer mpi.Finalize()
	w := mpi.World
	np := w.Size()
	scale := osu.Scale()
	for _, m := range []int{8, 65536} {
		iters, skip := osu.Scaled(20000, scale), osu.Scaled(2000, scale)
		if m > 8 {
			iters, skip = osu.Scaled(2000, scale), osu.Scaled(200, scale)
		}
		send, recv := osu.Buffer(np*m), osu.Buffer(np*m)
		counts, displs := make([]int, np), make([]int, np)
		for i := range counts {
			counts[i], displs[i] = m, i*m
		}
		ops := []struct {
			name string
			f    func() error
		}{
			{"scatter", func() error { return mpi.Scatter(w, send, recv[:m], 0) }},
			{"gather", func() error { return mpi.Gather(w, send[:m], recv, 0) }},
			{"gatherv", func() error { return mpi.Gatherv(w, send[:m], recv, counts, displs, 0) }},
			{"allgather", func() error { return mpi.Allgather(w, send[:m], recv) }},
			{"allgatherv", func() error { return mpi.Allgatherv(w, send[:m], recv, counts, displs) }},
			{"alltoall", func() error { return mpi.Alltoall(w, send, recv) }},
			{"alltoallv", func() error { return mpi.Alltoallv(w, send, counts, displs, recv, counts, displs) }},
		}
		for _, op := range ops {
			tot := 0.0
			must(w.Barrier())
			for i := 0; i < iters+skip; i++ {
				t0 := mpi.Wtime()
				must(op.f())
				t1 := mpi.Wtime()
				if i >= skip {
					tot += t1 - t0
				}
				must(w.Barrier())
			}
			osu.MeanMax(w, fmt.Sprintf("collmove_n%d", np), op.name+"_"+osu.Label(m), tot/float64(iters))
		}
	}
}
