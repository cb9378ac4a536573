package mpi_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// BenchmarkTypedVsPacked holds issue 20's bar: a collective on a derived datatype is
// as fast as packing by hand, running the collective on the packed data and
// unpacking. It runs as a job of 2 ranks of this test binary, each rank timing every
// case the same fixed number of times (MPIGO_BENCH_ITERS, default 150) so that the
// ranks stay in step, in 9 rounds that alternate the hand-packed and the typed form
// (a busy machine then slows both alike). It reports, per case, typed/hand: the
// typed form's best round over the hand-packed one's (the rounds least disturbed by
// other work), and logs the per-round ratios' median and range (rank 0's lines too,
// with -v). Cases: AllreduceBuf of a strided column of float64 against a Go loop
// packing it into a []float64, Allreduce and a loop unpacking; BcastBuf of
// []Particle (padded records) against Pack, Bcast of the bytes and Unpack.
//
//	go test ./mpi -run XXX -bench TypedVsPacked
func BenchmarkTypedVsPacked(b *testing.B) {
	if mpitest.IsRank(b) {
		typedVsPackedRank(b)
		return
	}
	if b.N == 1 || lastBench == "" { // later calls (b.N > 1) report the same job
		lastBench = mpitest.Bench(b, 2, benchIters()+"x").Stdout
	}
	ns := map[string][]float64{}
	var names, lines []string
	for _, line := range strings.Split(lastBench, "\n") {
		name, v, ok := benchLine(line)
		if !ok {
			continue
		}
		lines = append(lines, strings.TrimPrefix(line, "[0] "))
		if ns[name] == nil {
			names = append(names, name)
		}
		ns[name] = append(ns[name], v)
	}
	var sum []string
	for _, name := range names {
		base, ok := strings.CutSuffix(name, "/typed")
		if !ok || len(ns[base+"/hand"]) != len(ns[name]) {
			continue
		}
		best := slices.Min(ns[name]) / slices.Min(ns[base+"/hand"])
		ratios := make([]float64, len(ns[name]))
		for i, typed := range ns[name] {
			ratios[i] = typed / ns[base+"/hand"][i]
		}
		slices.Sort(ratios)
		sum = append(sum, fmt.Sprintf("%s typed/hand: %.2f best to best; by round: median %.2f, range %.2f-%.2f",
			base, best, ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1]))
		b.ReportMetric(best, "typed/hand:"+strings.ReplaceAll(base, "/", "-"))
	}
	b.Log(strings.Join(sum, "\n"))
	if testing.Verbose() {
		b.Log("rank 0:\n" + strings.Join(lines, "\n"))
	}
}

const benchRounds = 9

var lastBench string

// benchIters is how many times each rank times every case: MPIGO_BENCH_ITERS, or 150.
func benchIters() string {
	if iters := os.Getenv("MPIGO_BENCH_ITERS"); iters != "" {
		return iters
	}
	return "150"
}

// benchLine parses rank 0's result line of a sub-benchmark: its name below the top
// level (without the GOMAXPROCS suffix and the round's #NN), and its ns/op.
func benchLine(line string) (string, float64, bool) {
	f := strings.Fields(strings.TrimPrefix(line, "[0] "))
	if !strings.HasPrefix(line, "[0] Benchmark") || len(f) < 4 || f[3] != "ns/op" {
		return "", 0, false
	}
	name := f[0]
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		name = name[:i]
	}
	name, _, _ = strings.Cut(name, "#")
	_, name, _ = strings.Cut(name, "/")
	v, err := strconv.ParseFloat(f[2], 64)
	return name, v, err == nil
}

// typedVsPackedRank is one rank's part of BenchmarkTypedVsPacked.
func typedVsPackedRank(b *testing.B) {
	if err := mpi.Init(); err != nil {
		b.Fatal(err)
	}
	defer mpi.Finalize()
	for _, n := range []int{1 << 8, 1 << 12, 1 << 16} {
		allreduceColumn(b, n)
	}
	for _, n := range []int{1 << 6, 1 << 10, 1 << 14} {
		bcastRecords(b, n)
	}
}

// allreduceColumn sums column 1 of an n×4 matrix of float64 into column 1 of another.
func allreduceColumn(b *testing.B, n int) {
	const cols = 4
	a, res := make([]float64, cols*n), make([]float64, cols*n)
	for i := range a {
		a[i] = float64(i)
	}
	col, err := mpi.TypeVector(n, 1, cols, mpi.Float64)
	if err == nil {
		err = col.Commit()
	}
	if err != nil {
		b.Fatal(err)
	}
	typed := func() error {
		return mpi.AllreduceBuf(mpi.World, mpi.Typed(a[1:], 1, col), mpi.Typed(res[1:], 1, col), mpi.Sum)
	}
	packed, out := make([]float64, n), make([]float64, n)
	hand := func() error {
		for i := range packed {
			packed[i] = a[cols*i+1]
		}
		if err := mpi.Allreduce(mpi.World, packed, out, mpi.Sum); err != nil {
			return err
		}
		for i, v := range out {
			res[cols*i+1] = v
		}
		return nil
	}
	pairOfRuns(b, fmt.Sprintf("AllreduceColumn/%d", n), int64(8*n), typed, hand)
}

// pairOfRuns times typed and hand as sub-benchmarks name/typed and name/hand, in
// rounds, after running both alike untimed, so that neither pays for the first
// calls' set-up.
func pairOfRuns(b *testing.B, name string, bytes int64, typed, hand func() error) {
	for range 50 {
		if err := typed(); err != nil {
			b.Fatal(err)
		}
		if err := hand(); err != nil {
			b.Fatal(err)
		}
	}
	for r := range benchRounds {
		first, second := "hand", "typed"
		if r%2 == 1 {
			first, second = second, first
		}
		for _, form := range []string{first, second} {
			f := map[string]func() error{"hand": hand, "typed": typed}[form]
			b.Run(name+"/"+form, func(b *testing.B) {
				b.SetBytes(bytes)
				for range b.N {
					if err := f(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// bcastRecords broadcasts n Particles (21 bytes of data in 24) from rank 0.
func bcastRecords(b *testing.B, n int) {
	pt, err := mpi.TypeOf[Particle]()
	if err != nil {
		b.Fatal(err)
	}
	ps := make([]Particle, n)
	for i := range ps {
		ps[i] = particleOf(mpi.World.Rank(), i)
	}
	typed := func() error { return mpi.BcastBuf(mpi.World, mpi.Typed(ps, n, pt), 0) }
	buf := make([]byte, 21*n)
	root := mpi.World.Rank() == 0
	hand := func() error {
		pos := 0
		if root {
			if err := mpi.Pack(mpi.Typed(ps, n, pt), buf, &pos); err != nil {
				return err
			}
		}
		if err := mpi.Bcast(mpi.World, buf, 0); err != nil {
			return err
		}
		if !root {
			return mpi.Unpack(buf, &pos, mpi.Typed(ps, n, pt))
		}
		return nil
	}
	pairOfRuns(b, fmt.Sprintf("BcastRecords/%d", n), int64(21*n), typed, hand)
}
