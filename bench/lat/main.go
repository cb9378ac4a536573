// Lat measures ping-pong latency between rank 0 and rank 1 with Send and Recv, by the
// method of ../shared/anchors/lat.c (OSU style): for each size a barrier, warm-up round
// trips, then timed ones; one-way latency is the elapsed time over twice the round trips.
// The same send and receive buffers are reused throughout.
//
//	mpigo run -n 2 ./bench/lat [scale]
package main

import (
	"github.com/mpigo/mpigo/bench/osu"
	"github.com/mpigo/mpigo/mpi"
)

var sizes = []int{0, 1, 8, 64, 512, 4096, 32768, 262144, 1048576, 4194304}

func main() {
	w := osu.Pair("lat")
	defer mpi.Finalize()
	scale := osu.Scale()
	maxsz := sizes[len(sizes)-1]
	sbuf, rbuf := osu.Buffer(maxsz), osu.Buffer(maxsz)
	rank, peer := w.Rank(), 1-w.Rank()
	for _, n := range sizes {
		iters, skip := 100000, 10000
		if n > 262144 {
			iters, skip = 500, 50
		} else if n > 8192 {
			iters, skip = 5000, 500
		}
		iters, skip = osu.Scaled(iters, scale), osu.Scaled(skip, scale)
		s, r := sbuf[:n], rbuf[:n]
		if err := w.Barrier(); err != nil {
			osu.Die("%v", err)
		}
		var t0 float64
		for i := 0; i < iters+skip; i++ {
			if i == skip {
				t0 = mpi.Wtime()
			}
			var err error
			if rank == 0 {
				if err = mpi.Send(w, s, peer, 1); err == nil {
					_, err = mpi.Recv(w, r, peer, 1)
				}
			} else {
				if _, err = mpi.Recv(w, r, peer, 1); err == nil {
					err = mpi.Send(w, s, peer, 1)
				}
			}
			if err != nil {
				osu.Die("size %d: %v", n, err)
			}
		}
		t1 := mpi.Wtime()
		if rank == 0 {
			osu.Result("latency", osu.Label(n), (t1-t0)*1e6/(2*float64(iters)), 3, "us")
		}
	}
}
