// Package osu holds what mpigo's OSU-style benchmark programs share with the C anchor
// programs in ../shared/anchors: the scale argument, buffers allocated and touched the
// same way, size labels, and the "RESULT <bench> <key> <value> <unit>" output lines.
package osu

import (
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/mpigo/mpigo/mpi"
)

// Init starts MPI as the C programs do: their MPI_Init provides MPI_THREAD_SINGLE,
// so this asks for ThreadSingle too, unless $BENCH_THREAD is "multiple" (mpi.Init's
// level: every call safe from any goroutine), to measure what that safety costs.
func Init() {
	level := mpi.ThreadSingle
	switch v := os.Getenv("BENCH_THREAD"); v {
	case "", "single":
	case "multiple":
		level = mpi.ThreadMultiple
	default:
		Die("BENCH_THREAD=%q: want single or multiple", v)
	}
	if _, err := mpi.InitThread(level); err != nil {
		Die("%v", err)
	}
}

// Pair starts MPI (Init) for a benchmark of exactly two ranks, as the C programs
// require, and returns the world; the caller defers mpi.Finalize.
func Pair(name string) *mpi.Comm {
	Init()
	w := mpi.World
	if w.Size() != 2 {
		if w.Rank() == 0 {
			fmt.Fprintf(os.Stderr, "%s needs exactly 2 ranks\n", name)
		}
		mpi.Abort(1)
	}
	return w
}

// BandwidthIters is the iteration count and warm-up of the bandwidth programs for a
// message size, as bw.c has them.
func BandwidthIters(n int, scale float64) (iters, skip int) {
	iters, skip = 20, 2
	switch {
	case n <= 1024:
		iters, skip = 5000, 500
	case n <= 65536:
		iters, skip = 500, 50
	case n <= 1048576:
		iters, skip = 60, 6
	}
	return Scaled(iters, scale), Scaled(skip, scale)
}

// Scale is the iteration scale: the first argument, else $ANCHOR_SCALE, else 1.
func Scale() float64 {
	s := os.Getenv("ANCHOR_SCALE")
	if len(os.Args) > 1 {
		s = os.Args[1]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 {
		return 1
	}
	return v
}

// Scaled is n*scale, at least 1.
func Scaled(n int, scale float64) int {
	v := int(float64(n) * scale)
	if v < 1 {
		return 1
	}
	return v
}

// Buffer returns n bytes, page aligned (Go's allocator aligns allocations this large),
// and touched, as the C programs' xalloc does, so no page fault lands in a timed loop.
func Buffer(n int) []byte {
	b := make([]byte, max(n, 4096))
	for i := range b {
		b[i] = 0x5a
	}
	return b[:n]
}

// Label writes a size as the C programs do: 4K, 1M, 512.
func Label(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dM", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dK", n>>10)
	}
	return strconv.Itoa(n)
}

// Result prints one result line.
func Result(bench, key string, value float64, prec int, unit string) {
	fmt.Printf("RESULT %s %s %.*f %s\n", bench, key, prec, value, unit)
}

// MeanMax prints, at rank 0 of w, the mean over w's ranks of each rank's time mean
// (seconds) as bench's key and their maximum as bench_max's, in microseconds: the
// collectives' report. Every rank of w must call it.
func MeanMax(w *mpi.Comm, bench, key string, mean float64) {
	np := w.Size()
	in := []float64{mean}
	sum, mx := []float64{0}, []float64{0}
	if err := mpi.Reduce(w, in, sum, mpi.Sum, 0); err != nil {
		Die("%v", err)
	}
	if err := mpi.Reduce(w, in, mx, mpi.Max, 0); err != nil {
		Die("%v", err)
	}
	if w.Rank() == 0 {
		Result(bench, key, sum[0]/float64(np)*1e6, 3, "us")
		Result(bench+"_max", key, mx[0]*1e6, 3, "us")
	}
}

// Die prints a message and exits non-zero.
func Die(format string, a ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", a...)
	os.Exit(1)
}

// Median is the median of v, as the anchors' programs take it (the mean of the middle
// two for an even count); v is left as it was.
func Median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
