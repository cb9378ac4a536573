package group

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// shapes are the groups the benchmarks measure, each built from a world of n ranks
// under a storage policy.
var shapes = []struct {
	name string
	make func(w *Group) *Group
}{
	{"every-other", func(w *Group) *Group {
		return must(w.RangeIncl([]Range{{0, w.Size() - 1, 2}}))
	}},
	{"first-half", func(w *Group) *Group {
		return must(w.RangeIncl([]Range{{0, w.Size()/2 - 1, 1}}))
	}},
	{"random-10pct", func(w *Group) *Group {
		return must(w.Incl(randomPart(w.Size(), 10, true)))
	}},
	{"random-10pct-unordered", func(w *Group) *Group {
		return must(w.Incl(randomPart(w.Size(), 10, false)))
	}},
	{"union-strided", func(w *Group) *Group {
		a := must(w.RangeIncl([]Range{{0, w.Size() - 1, 2}}))
		b := must(w.RangeIncl([]Range{{0, w.Size() - 1, 3}}))
		return must(Union(a, b))
	}},
	{"derived-3x", func(w *Group) *Group {
		// Every other rank; then without a random 1% of those; then reversed.
		g1 := must(w.RangeIncl([]Range{{0, w.Size() - 1, 2}}))
		g2 := must(g1.Excl(randomPart(g1.Size(), 100, false)))
		return must(g2.RangeIncl([]Range{{g2.Size() - 1, 0, -1}}))
	}},
}

var (
	partsMu sync.Mutex
	parts   = map[[3]int][]int{}
)

// randomPart returns (once per argument set, so that benchmarks time the group and
// not the input) a random 1/frac of the ranks [0,n), sorted or not.
func randomPart(n, frac int, sorted bool) []int {
	partsMu.Lock()
	defer partsMu.Unlock()
	key := [3]int{n, frac, 0}
	if sorted {
		key[2] = 1
	}
	if r, ok := parts[key]; ok {
		return r
	}
	rng := rand.New(rand.NewPCG(uint64(n), uint64(frac)))
	r := rng.Perm(n)[:n/frac]
	if sorted {
		slices.Sort(r)
	}
	parts[key] = r
	return r
}

func must(g *Group, err error) *Group {
	if err != nil {
		panic(err)
	}
	return g
}

const benchWorld = 1 << 20

var (
	benchMu     sync.Mutex
	benchGroups = map[string]*Group{}
)

// benchGroup builds (once) the shape under a policy over a world of 2^20.
func benchGroup(shape int, p Storage) *Group {
	benchMu.Lock()
	defer benchMu.Unlock()
	key := fmt.Sprint(shape, p)
	if g, ok := benchGroups[key]; ok {
		return g
	}
	w, _ := NewWorld(benchWorld, p)
	g := shapes[shape].make(w)
	benchGroups[key] = g
	return g
}

// heapPerGroup builds k copies of a shape, keeps them alive, and returns the live
// heap growth per copy: what the groups really cost, size classes included.
func heapPerGroup(k int, build func() *Group) float64 {
	keep := make([]*Group, k)
	var m0, m1 runtime.MemStats
	// Two cycles: sync.Pool caches survive one collection as victims and would be
	// freed during the measurement.
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m0)
	for i := range keep {
		keep[i] = build()
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	runtime.KeepAlive(keep)
	runtime.KeepAlive(build) // and the world it holds, else freed during the measurement
	return float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)) / float64(k)
}

// copies is how many groups to build for a stable heap measurement: many when they
// are small, few when they are big or slow to build (at most about 100 ms).
func copies(build func() *Group) int {
	t := time.Now()
	b := build().Bytes()
	took := max(time.Since(t), time.Microsecond)
	return max(8, min(20000, (8<<20)/b, int(100*time.Millisecond/took)))
}

// TestBytesMatchHeap cross-checks Bytes against the live heap. Slices are allocated
// to their size class's full capacity (see sized) and Bytes counts capacity, so the
// two agree within noise.
func TestBytesMatchHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds many groups")
	}
	w, _ := NewWorld(1<<16, Sparse)
	for _, s := range shapes {
		for _, p := range []Storage{Sparse, Dense} {
			// The world is shared; intermediate groups and temporaries are garbage
			// by the time the heap is read.
			wp := w.WithStorage(p)
			src := s.make(wp)
			build := func() *Group { return s.make(wp) }
			want := src.Bytes()
			k := copies(build)
			got := heapPerGroup(k, build)
			t.Logf("%-24s %-6v %-30v Bytes %8d  heap %10.1f", s.name, p, src, want, got)
			// The slack: 8 bytes a group, and 4 KiB over the whole measurement for
			// what the runtime allocates meanwhile (a busy machine makes slow builds,
			// so few copies, over which one stray allocation weighs much per group).
			slack := 8 + 4096/float64(k)
			if got < float64(want)*0.98-slack || got > float64(want)*1.02+slack {
				t.Errorf("%s/%v: Bytes() = %d but the heap grew %.1f per group", s.name, p, want, got)
			}
		}
	}
}

// BenchmarkLookup measures WorldRank, the lookup point-to-point makes per message,
// at random ranks of each shape over a world of 2^20 ranks, and reports the group's
// size.
func BenchmarkLookup(b *testing.B) {
	for si, s := range shapes {
		for _, p := range []Storage{Sparse, Dense} {
			b.Run(s.name+"/"+p.String(), func(b *testing.B) {
				g := benchGroup(si, p)
				idx := randomIndices(g.Size())
				b.ReportAllocs()
				b.ResetTimer()
				var sink int32
				for i := 0; i < b.N; i++ {
					sink += g.WorldRank(int(idx[i&(len(idx)-1)]))
				}
				b.StopTimer()
				if sink == 42 {
					b.Log(sink)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/lookup")
				b.ReportMetric(float64(g.Bytes()), "B/group")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// BenchmarkRank measures the reverse lookup, world rank to group rank, at random
// members.
func BenchmarkRank(b *testing.B) {
	for si, s := range shapes {
		for _, p := range []Storage{Sparse, Dense} {
			b.Run(s.name+"/"+p.String(), func(b *testing.B) {
				g := benchGroup(si, p)
				idx := randomIndices(g.Size())
				ws := make([]int32, len(idx))
				for i, r := range idx {
					ws[i] = g.WorldRank(int(r))
				}
				g.Rank(ws[0]) // build a lazy index outside the timing
				b.ReportAllocs()
				b.ResetTimer()
				sink := 0
				for i := 0; i < b.N; i++ {
					sink += g.Rank(ws[i&(len(ws)-1)])
				}
				b.StopTimer()
				if sink == 42 {
					b.Log(sink)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/rank")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// BenchmarkBuild measures building each shape from the world (ns/op; B/op and
// allocs/op count temporaries too), and reports the live heap per group, measured
// once with runtime.MemStats over many copies, beside Bytes().
func BenchmarkBuild(b *testing.B) {
	for si, s := range shapes {
		for _, p := range []Storage{Sparse, Dense} {
			b.Run(s.name+"/"+p.String(), func(b *testing.B) {
				w, _ := NewWorld(benchWorld, p)
				build := func() *Group { return s.make(w) }
				src := benchGroup(si, p)
				heap := heapPerGroup(copies(build), build)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					build()
				}
				b.ReportMetric(float64(src.Bytes()), "B/group")
				b.ReportMetric(heap, "heapB/group")
			})
		}
	}
}

// BenchmarkRangeIncl is the anchor benchmark (shared/anchors/groups.c): create the
// every-other-rank group of the world.
func BenchmarkRangeIncl(b *testing.B) {
	for _, n := range []int{2, 64, benchWorld} {
		for _, p := range []Storage{Sparse, Dense} {
			b.Run(fmt.Sprintf("n=%d/%v", n, p), func(b *testing.B) {
				w, _ := NewWorld(n, p)
				r := []Range{{0, n - 1, 2}}
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := w.RangeIncl(r); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// randomIndices returns 2^16 random ranks in [0,n).
func randomIndices(n int) []int32 {
	rng := rand.New(rand.NewPCG(7, 7))
	idx := make([]int32, 1<<16)
	for i := range idx {
		idx[i] = int32(rng.IntN(n))
	}
	return idx
}
