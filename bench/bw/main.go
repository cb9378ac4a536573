// Bw measures uni-directional streaming bandwidth from rank 0 to rank 1 by the method
// of ../shared/anchors/bw.c (OSU style): per iteration the sender posts a window of 64
// Isends and waits for them all and for a 4-byte acknowledgement; the receiver posts 64
// Irecvs, waits, and acknowledges. One send and one receive buffer serve every message.
//
//	mpigo run -n 2 ./bench/bw [scale]
package main

import (
	"github.com/mpigo/mpigo/bench/osu"
	"github.com/mpigo/mpigo/mpi"
)

const window = 64

var sizes = []int{1024, 65536, 1048576, 4194304}

func main() {
	w := osu.Pair("bw")
	defer mpi.Finalize()
	scale := osu.Scale()
	maxsz := sizes[len(sizes)-1]
	sbuf, rbuf := osu.Buffer(maxsz), osu.Buffer(maxsz)
	ack := make([]byte, 4)
	reqs := make([]mpi.Request, window)
	rank := w.Rank()
	for _, n := range sizes {
		iters, skip := osu.BandwidthIters(n, scale)
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
				for k := range reqs {
					if reqs[k], err = mpi.Isend(w, s, 1, 100); err != nil {
						osu.Die("%v", err)
					}
				}
				if err = mpi.Waitall(reqs, nil); err == nil {
					_, err = mpi.Recv(w, ack, 1, 101)
				}
			} else {
				for k := range reqs {
					if reqs[k], err = mpi.Irecv(w, r, 0, 100); err != nil {
						osu.Die("%v", err)
					}
				}
				if err = mpi.Waitall(reqs, nil); err == nil {
					err = mpi.Send(w, ack, 0, 101)
				}
			}
			if err != nil {
				osu.Die("size %d: %v", n, err)
			}
		}
		t1 := mpi.Wtime()
		if rank == 0 {
			osu.Result("bandwidth", osu.Label(n), float64(n)*window*float64(iters)/(t1-t0)/1e6, 1, "MB/s")
		}
	}
}
