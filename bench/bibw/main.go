// Bibw measures bidirectional streaming bandwidth between rank 0 and rank 1, OSU style:
// per iteration both ranks post a window of 64 Irecvs and 64 Isends and wait for them
// all; the figure counts the bytes moved in both directions. Sizes, iterations and
// output follow bench/bw.
//
//	mpigo run -n 2 ./bench/bibw [scale]
package main

import (
	"github.com/mpigo/mpigo/bench/osu"
	"github.com/mpigo/mpigo/mpi"
)

const window = 64

var sizes = []int{1024, 65536, 1048576, 4194304}

func main() {
	w := osu.Pair("bibw")
	defer mpi.Finalize()
	scale := osu.Scale()
	maxsz := sizes[len(sizes)-1]
	sbuf, rbuf := osu.Buffer(maxsz), osu.Buffer(maxsz)
	reqs := make([]mpi.Request, 2*window)
	peer := 1 - w.Rank()
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
			for k := 0; k < window; k++ {
				if reqs[k], err = mpi.Irecv(w, r, peer, 100); err != nil {
					osu.Die("%v", err)
				}
			}
			for k := 0; k < window; k++ {
				if reqs[window+k], err = mpi.Isend(w, s, peer, 100); err != nil {
					osu.Die("%v", err)
				}
			}
			if err := mpi.Waitall(reqs, nil); err != nil {
				osu.Die("size %d: %v", n, err)
			}
		}
		t1 := mpi.Wtime()
		if w.Rank() == 0 {
			osu.Result("bibandwidth", osu.Label(n), 2*float64(n)*window*float64(iters)/(t1-t0)/1e6, 1, "MB/s")
		}
	}
}
