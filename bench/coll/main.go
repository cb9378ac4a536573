// Coll measures collective latency by the method of ../shared/anchors/coll.c (OSU
// style): Barrier timed as a loop; Bcast (root 0, bytes) and Allreduce (float64 Sum,
// separate send and receive buffers) at 8 B, 64 KiB and 1 MiB, each operation timed
// alone and followed by an untimed Barrier, after warm-up operations. Each rank
// computes its mean time per operation; rank 0 prints the mean over ranks
// ("coll_n<np>") and the maximum ("coll_n<np>_max"), in microseconds.
//
//	mpigo run -n 4 ./bench/coll [scale]
package main

import (
	"fmt"

	"github.com/mpigo/mpigo/bench/osu"
	"github.com/mpigo/mpigo/mpi"
)

var sizes = []int{8, 65536, 1048576}

func itersFor(n int, scale float64) (iters, skip int) {
	switch {
	case n <= 8192:
		iters, skip = 20000, 2000
	case n <= 65536:
		iters, skip = 4000, 400
	default:
		iters, skip = 600, 60
	}
	return osu.Scaled(iters, scale), osu.Scaled(skip, scale)
}

func must(err error) {
	if err != nil {
		osu.Die("%v", err)
	}
}

func report(w *mpi.Comm, op, lab string, mean float64) {
	key := op
	if lab != "" {
		key += "_" + lab
	}
	osu.MeanMax(w, fmt.Sprintf("coll_n%d", w.Size()), key, mean)
}

func main() {
	osu.Init()
	defer mpi.Finalize()
	w := mpi.World
	np := w.Size()
	scale := osu.Scale()
	maxsz := sizes[len(sizes)-1]
	bbuf := osu.Buffer(maxsz)
	sbuf, rbuf := make([]float64, maxsz/8), make([]float64, maxsz/8)
	for i := range sbuf {
		sbuf[i] = 1 + float64(i%7)
	}

	iters, skip := itersFor(0, scale)
	for i := 0; i < skip; i++ {
		must(w.Barrier())
	}
	t0 := mpi.Wtime()
	for i := 0; i < iters; i++ {
		must(w.Barrier())
	}
	report(w, "barrier", "", (mpi.Wtime()-t0)/float64(iters))

	for _, n := range sizes {
		iters, skip := itersFor(n, scale)
		tot := 0.0
		must(w.Barrier())
		for i := 0; i < iters+skip; i++ {
			t0 := mpi.Wtime()
			must(mpi.Bcast(w, bbuf[:n], 0))
			t1 := mpi.Wtime()
			if i >= skip {
				tot += t1 - t0
			}
			must(w.Barrier())
		}
		report(w, "bcast", osu.Label(n), tot/float64(iters))
	}

	for _, n := range sizes {
		count := n / 8
		iters, skip := itersFor(n, scale)
		tot := 0.0
		must(w.Barrier())
		for i := 0; i < iters+skip; i++ {
			t0 := mpi.Wtime()
			must(mpi.Allreduce(w, sbuf[:count], rbuf[:count], mpi.Sum))
			t1 := mpi.Wtime()
			if i >= skip {
				tot += t1 - t0
			}
			must(w.Barrier())
		}
		for i := 0; i < count; i++ {
			if rbuf[i] != float64(np)*sbuf[i] {
				osu.Die("rank %d: allreduce mismatch at %d: %v, want %v", w.Rank(), i, rbuf[i], float64(np)*sbuf[i])
			}
		}
		report(w, "allreduce", osu.Label(n), tot/float64(iters))
	}
}
