package group

import (
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"testing"
)

// The reference model: a group is a plain []int32 of world ranks, and every
// operation is written straight from the MPI standard's definition, independently
// of the package's code.

func refWorld(n int) []int32 {
	r := make([]int32, n)
	for i := range r {
		r[i] = int32(i)
	}
	return r
}

func refIndex(g []int32, w int32) int {
	for i, x := range g {
		if x == w {
			return i
		}
	}
	return Undefined
}

func refIncl(g []int32, ranks []int) []int32 {
	out := []int32{}
	for _, r := range ranks {
		out = append(out, g[r])
	}
	return out
}

func refExcl(g []int32, ranks []int) []int32 {
	out := []int32{}
	for i, w := range g {
		if !slices.Contains(ranks, i) {
			out = append(out, w)
		}
	}
	return out
}

// refExpand lists the ranks of triplets, or ok=false when MPI forbids them.
func refExpand(ranges []Range, n int) (ranks []int, ok bool) {
	seen := map[int]bool{}
	for _, t := range ranges {
		if t.Stride == 0 || t.First < 0 || t.First >= n {
			return nil, false
		}
		if (t.Stride > 0 && t.First > t.Last) || (t.Stride < 0 && t.First < t.Last) {
			return nil, false
		}
		for r := t.First; (t.Stride > 0 && r <= t.Last) || (t.Stride < 0 && r >= t.Last); r += t.Stride {
			if r < 0 || r >= n || seen[r] {
				return nil, false
			}
			seen[r] = true
			ranks = append(ranks, r)
			if len(ranks) > n {
				return nil, false
			}
		}
	}
	return ranks, true
}

func refUnion(a, b []int32) []int32 {
	out := slices.Clone(a)
	for _, w := range b {
		if !slices.Contains(a, w) {
			out = append(out, w)
		}
	}
	return out
}

func refIntersection(a, b []int32) []int32 {
	out := []int32{}
	for _, w := range a {
		if slices.Contains(b, w) {
			out = append(out, w)
		}
	}
	return out
}

func refDifference(a, b []int32) []int32 {
	out := []int32{}
	for _, w := range a {
		if !slices.Contains(b, w) {
			out = append(out, w)
		}
	}
	return out
}

func refCompare(a, b []int32) Comparison {
	if slices.Equal(a, b) {
		return Ident
	}
	if len(a) != len(b) {
		return Unequal
	}
	for _, w := range a {
		if !slices.Contains(b, w) {
			return Unequal
		}
	}
	return Similar
}

// check compares g with its reference in every lookup.
func check(t *testing.T, what string, g *Group, want []int32, world int) {
	t.Helper()
	if g.Size() != len(want) {
		t.Fatalf("%s: %v: Size() = %d, want %d", what, g, g.Size(), len(want))
	}
	for i, w := range want {
		if got := g.WorldRank(i); got != w {
			t.Fatalf("%s: %v: WorldRank(%d) = %d, want %d (members %v)", what, g, i, got, w, want)
		}
	}
	for _, i := range []int{-1, len(want), len(want) + 5} {
		if got := g.WorldRank(i); got != Undefined {
			t.Fatalf("%s: %v: WorldRank(%d) = %d, want Undefined", what, g, i, got)
		}
	}
	var seen []int32
	for i, w := range g.All() {
		if i != len(seen) {
			t.Fatalf("%s: All yields rank %d at position %d", what, i, len(seen))
		}
		seen = append(seen, w)
	}
	if !slices.Equal(seen, want) && (len(seen) != 0 || len(want) != 0) {
		t.Fatalf("%s: %v: All() = %v, want %v", what, g, seen, want)
	}
	for w := int32(-2); w <= int32(world)+2; w++ {
		if got, exp := g.Rank(w), refIndex(want, w); got != exp {
			t.Fatalf("%s: %v: Rank(%d) = %d, want %d (members %v)", what, g, w, got, exp, want)
		}
	}
	if g.Bytes() < 32 {
		t.Fatalf("%s: Bytes() = %d, less than the struct", what, g.Bytes())
	}
}

var policies = []Storage{Sparse, Dense, PreferStride, PreferRange, PreferBitmap}

// randomRanks picks k distinct ranks of [0,n) in one of several orders that the
// forms care about: sorted, shuffled, reversed, or in blocks.
func randomRanks(rng *rand.Rand, n int) []int {
	k := rng.IntN(n + 1)
	all := rng.Perm(n)[:k]
	if n == 0 {
		return all
	}
	switch rng.IntN(5) {
	case 0:
		slices.Sort(all)
	case 1:
		slices.Sort(all)
		slices.Reverse(all)
	case 2: // an arithmetic progression, maybe blocked
		all = all[:0]
		first, step := rng.IntN(n), 1+rng.IntN(4)
		block := 1 + rng.IntN(3)
		if block > step {
			step = block
		}
		for b := first; b < n; b += step {
			for j := b; j < b+block && j < n; j++ {
				all = append(all, j)
			}
		}
	case 3: // sorted with long runs
		slices.Sort(all)
		all = all[:min(len(all), 1+rng.IntN(4))]
		var out []int
		for _, a := range all {
			for j := a; j < min(n, a+1+rng.IntN(8)); j++ {
				if !slices.Contains(out, j) {
					out = append(out, j)
				}
			}
		}
		all = out
	}
	return all
}

// randomRanges builds valid triplets over [0,n) by keeping those that repeat no rank.
func randomRanges(rng *rand.Rand, n int) []Range {
	var out []Range
	used := map[int]bool{}
	for range rng.IntN(4) {
		f := rng.IntN(n)
		s := 1 + rng.IntN(4)
		if rng.IntN(2) == 0 {
			s = -s
		}
		l := rng.IntN(n)
		if (s > 0) != (l >= f) {
			f, l = l, f
		}
		if f == l && rng.IntN(2) == 0 {
			s = -s
		}
		t := Range{f, l, s}
		ranks, ok := refExpand([]Range{t}, n)
		if !ok {
			continue
		}
		clash := false
		for _, r := range ranks {
			clash = clash || used[r]
		}
		if clash {
			continue
		}
		for _, r := range ranks {
			used[r] = true
		}
		out = append(out, t)
	}
	return out
}

type pair struct {
	g   *Group
	ref []int32
}

// runRandom applies a random sequence of operations, checking each result against
// the reference. It returns the kinds it saw, so tests can insist that every form
// was exercised.
func runRandom(t *testing.T, seed uint64, steps int) map[string]bool {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	world := 1 + rng.IntN(200)
	p := policies[rng.IntN(len(policies))]
	w, err := NewWorld(world, p)
	if err != nil {
		t.Fatal(err)
	}
	pool := []pair{{w, refWorld(world)}}
	kinds := map[string]bool{}
	for step := range steps {
		a := pool[rng.IntN(len(pool))]
		b := pool[rng.IntN(len(pool))]
		var g *Group
		var want []int32
		var what string
		switch op := rng.IntN(9); op {
		case 0, 1:
			ranks := randomRanks(rng, a.g.Size())
			what = "Incl"
			g, err = a.g.Incl(ranks)
			want = refIncl(a.ref, ranks)
		case 2:
			ranks := randomRanks(rng, a.g.Size())
			what = "Excl"
			g, err = a.g.Excl(ranks)
			want = refExcl(a.ref, ranks)
		case 3:
			if a.g.Size() == 0 {
				continue
			}
			r := randomRanges(rng, a.g.Size())
			what = "RangeIncl"
			g, err = a.g.RangeIncl(r)
			ranks, _ := refExpand(r, a.g.Size())
			want = refIncl(a.ref, ranks)
		case 4:
			if a.g.Size() == 0 {
				continue
			}
			r := randomRanges(rng, a.g.Size())
			what = "RangeExcl"
			g, err = a.g.RangeExcl(r)
			ranks, _ := refExpand(r, a.g.Size())
			want = refExcl(a.ref, ranks)
		case 5:
			what = "Union"
			g, err = Union(a.g, b.g)
			want = refUnion(a.ref, b.ref)
		case 6:
			what = "Intersection"
			g, err = Intersection(a.g, b.g)
			want = refIntersection(a.ref, b.ref)
		case 7:
			what = "Difference"
			g, err = Difference(a.g, b.g)
			want = refDifference(a.ref, b.ref)
		case 8:
			what = "WithStorage"
			g = a.g.WithStorage(policies[rng.IntN(len(policies))])
			want = a.ref
		}
		if err != nil {
			t.Fatalf("seed %d step %d: %s: %v", seed, step, what, err)
		}
		check(t, what, g, want, world)
		kinds[g.Kind().String()] = true
		if g.Block() > 1 {
			kinds["blocked"] = true
		}
		if rs, ok := g.ext.(*runStore); ok {
			if rs.mode == modeScan {
				kinds["range-scan"] = true
			}
			if rs.mode == modeOrdered {
				kinds["range-order"] = true
			}
			if rs.w == 3 {
				kinds["range-strided"] = true
			}
			if rs.shift != 0 {
				kinds["range-jump"] = true
			}
			if rs.rshift != 0 {
				kinds["range-rjump"] = true
			}
		}

		c, err := Compare(a.g, b.g)
		if err != nil || c != refCompare(a.ref, b.ref) {
			t.Fatalf("seed %d: Compare(%v, %v) = %v, %v; want %v", seed, a.ref, b.ref, c, err, refCompare(a.ref, b.ref))
		}
		ranks := rng.Perm(a.g.Size())
		if len(ranks) > 0 {
			ranks[0] = ProcNull
		}
		tr, err := TranslateRanks(a.g, ranks, b.g)
		if err != nil {
			t.Fatalf("TranslateRanks: %v", err)
		}
		for i, r := range ranks {
			exp := ProcNull
			if r != ProcNull {
				exp = refIndex(b.ref, a.ref[r])
			}
			if tr[i] != exp {
				t.Fatalf("TranslateRanks(%v, %d, %v) = %d, want %d", a.ref, r, b.ref, tr[i], exp)
			}
		}
		pool = append(pool, pair{g, want})
		if len(pool) > 12 {
			pool = slices.Delete(pool, 1, 2) // keep the world
		}
	}
	return kinds
}

func TestRandomOperations(t *testing.T) {
	seen := map[string]bool{}
	for seed := range uint64(300) {
		for k := range runRandom(t, seed, 30) {
			seen[k] = true
		}
	}
	for _, k := range []string{"stride", "range", "bitmap", "dense", "blocked", "range-scan", "range-order", "range-strided", "range-jump", "range-rjump"} {
		if !seen[k] {
			t.Errorf("no random sequence produced a %s group; the test lost coverage", k)
		}
	}
}

func FuzzOperations(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed, uint8(20))
	}
	f.Fuzz(func(t *testing.T, seed uint64, steps uint8) {
		runRandom(t, seed, int(steps%64))
	})
}

// FuzzRangeIncl feeds arbitrary triplets: the package must agree with the reference
// on validity and on the result, and never panic.
func FuzzRangeIncl(f *testing.F) {
	f.Add(0, 15, 2, 3, 1, -1, uint8(16))
	f.Add(5, 2, 1, 0, 0, 1, uint8(16))
	f.Add(0, 1<<62, 1<<61, -5, 9223372036854775807, -9223372036854775808, uint8(7))
	f.Fuzz(func(t *testing.T, f1, l1, s1, f2, l2, s2 int, n uint8) {
		g, _ := NewWorld(int(n), Sparse)
		r := []Range{{f1, l1, s1}, {f2, l2, s2}}
		// The reference walks every rank: keep it to ranges it can walk.
		for _, x := range r {
			if x.Stride != 0 && (x.Last-x.First)/x.Stride > 1000 && x.First >= 0 && x.First < int(n) {
				t.Skip()
			}
		}
		ranks, ok := refExpand(r, int(n))
		got, err := g.RangeIncl(r)
		if ok != (err == nil) {
			t.Fatalf("RangeIncl(%v) over %d: err = %v, reference valid = %v", r, n, err, ok)
		}
		if ok {
			check(t, "RangeIncl", got, refIncl(refWorld(int(n)), ranks), int(n))
		}
		ex, err := g.RangeExcl(r)
		if ok != (err == nil) {
			t.Fatalf("RangeExcl(%v) over %d: err = %v, reference valid = %v", r, n, err, ok)
		}
		if ok {
			check(t, "RangeExcl", ex, refExcl(refWorld(int(n)), ranks), int(n))
		}
	})
}

// TestRangeExamples follows MPI's definition of range inclusion: the triplets
// (first, last, stride) expand to first, first+stride, ..., first +
// floor((last-first)/stride)*stride; first > last is allowed with a negative stride;
// Incl(ranks) equals RangeIncl with each rank i written (i,i,1); RangeExcl equals Excl
// of the expansion.
func TestRangeExamples(t *testing.T) {
	world := refWorld(16)
	tests := []struct {
		name   string
		ranges []Range
		incl   []int32 // expected RangeIncl over a world of 16
	}{
		{"every other", []Range{{0, 15, 2}}, []int32{0, 2, 4, 6, 8, 10, 12, 14}},
		{"last not reached", []Range{{1, 14, 4}}, []int32{1, 5, 9, 13}},
		{"two triplets", []Range{{1, 9, 2}, {10, 15, 3}}, []int32{1, 3, 5, 7, 9, 10, 13}},
		{"descending", []Range{{15, 0, -4}}, []int32{15, 11, 7, 3}},
		{"first > last negative stride", []Range{{6, 3, -1}, {0, 2, 1}}, []int32{6, 5, 4, 3, 0, 1, 2}},
		{"single", []Range{{7, 7, 1}}, []int32{7}},
		{"single negative", []Range{{7, 7, -3}}, []int32{7}},
		{"huge stride", []Range{{3, 15, 100}}, []int32{3}},
		{"interleaved", []Range{{0, 14, 2}, {1, 15, 2}}, []int32{0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15}},
		{"none", nil, []int32{}},
		{"whole reversed", []Range{{15, 0, -1}}, []int32{15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
	}
	for _, p := range policies {
		w, _ := NewWorld(16, p)
		for _, tt := range tests {
			t.Run(p.String()+"/"+tt.name, func(t *testing.T) {
				g, err := w.RangeIncl(tt.ranges)
				if err != nil {
					t.Fatal(err)
				}
				check(t, "RangeIncl", g, tt.incl, 16)
				var ranks []int
				for _, x := range tt.incl {
					ranks = append(ranks, int(x))
				}
				ex, err := w.RangeExcl(tt.ranges)
				if err != nil {
					t.Fatal(err)
				}
				check(t, "RangeExcl", ex, refExcl(world, ranks), 16)
				viaExcl, err := w.Excl(ranks)
				if err != nil {
					t.Fatal(err)
				}
				if c, _ := Compare(ex, viaExcl); c != Ident {
					t.Errorf("RangeExcl and Excl of the expansion differ: %v", c)
				}
				var asRanges []Range
				for _, r := range ranks {
					asRanges = append(asRanges, Range{r, r, 1})
				}
				viaIncl, err := w.Incl(ranks)
				if err != nil {
					t.Fatal(err)
				}
				viaRange, err := w.RangeIncl(asRanges)
				if err != nil {
					t.Fatal(err)
				}
				if c, _ := Compare(viaIncl, viaRange); c != Ident {
					t.Errorf("Incl(ranks) and RangeIncl of (i,i,1) differ: %v", c)
				}
			})
		}
	}
}

func TestErrors(t *testing.T) {
	w, _ := NewWorld(16, Sparse)
	var null *Group
	tests := []struct {
		name  string
		call  func() error
		class error
		msg   string
	}{
		{"incl out of range", func() error { _, err := w.Incl([]int{1, 2, 3, 17}); return err },
			ErrRank, "Incl: ranks[3] = 17 out of range [0,16)"},
		{"incl negative", func() error { _, err := w.Incl([]int{-1}); return err },
			ErrRank, "Incl: ranks[0] = -1 out of range [0,16)"},
		{"incl duplicate", func() error { _, err := w.Incl([]int{4, 1, 5, 9, 1}); return err },
			ErrRank, "Incl: ranks[4] = 1 repeats ranks[1]"},
		{"excl duplicate", func() error { _, err := w.Excl([]int{3, 3}); return err },
			ErrRank, "Excl: ranks[1] = 3 repeats ranks[0]"},
		{"excl out of range", func() error { _, err := w.Excl([]int{16}); return err },
			ErrRank, "Excl: ranks[0] = 16 out of range [0,16)"},
		{"range first", func() error { _, err := w.RangeIncl([]Range{{0, 3, 1}, {20, 30, 1}}); return err },
			ErrRank, "RangeIncl: ranges[1].First = 20 out of range [0,16)"},
		{"range zero stride", func() error { _, err := w.RangeIncl([]Range{{0, 3, 0}}); return err },
			ErrArg, "RangeIncl: ranges[0] = {0,3,0}: Stride is zero"},
		{"range direction", func() error { _, err := w.RangeExcl([]Range{{5, 2, 1}}); return err },
			ErrArg, "RangeExcl: ranges[0] = {5,2,1}: First > Last needs a negative Stride"},
		{"range direction negative", func() error { _, err := w.RangeIncl([]Range{{2, 5, -1}}); return err },
			ErrArg, "RangeIncl: ranges[0] = {2,5,-1}: First < Last needs a positive Stride"},
		{"range computed rank high", func() error { _, err := w.RangeIncl([]Range{{0, 20, 4}}); return err },
			ErrRank, "RangeIncl: ranges[0] = {0,20,4}: computed rank 16 out of range [0,16)"},
		{"range computed rank low", func() error { _, err := w.RangeIncl([]Range{{5, -3, -2}}); return err },
			ErrRank, "RangeIncl: ranges[0] = {5,-3,-2}: computed rank -1 out of range [0,16)"},
		{"range duplicate", func() error { _, err := w.RangeIncl([]Range{{0, 8, 4}, {1, 2, 1}, {12, 0, -3}}); return err },
			ErrRank, "RangeIncl: ranges[2] = {12,0,-3}: computed rank 0 also comes from ranges[0] = {0,8,4}"},
		{"range huge last", func() error { _, err := w.RangeIncl([]Range{{1, 1 << 62, 3}}); return err },
			ErrRank, "RangeIncl: ranges[0] = {1,4611686018427387904,3}: computed rank 16 out of range [0,16)"},
		{"translate", func() error { _, err := TranslateRanks(w, []int{0, ProcNull, 16}, w); return err },
			ErrRank, "TranslateRanks: ranks[2] = 16 out of range [0,16)"},
		{"world size", func() error { _, err := NewWorld(-1, Sparse); return err },
			ErrArg, "World: n = -1 out of range [0,2147483647]"},
		{"null incl", func() error { _, err := null.Incl(nil); return err },
			ErrGroup, "Incl: group is nil (MPI_GROUP_NULL)"},
		{"null union", func() error { _, err := Union(w, nil); return err },
			ErrGroup, "Union: g2 is nil (MPI_GROUP_NULL)"},
		{"null compare", func() error { _, err := Compare(nil, w); return err },
			ErrGroup, "Compare: g1 is nil (MPI_GROUP_NULL)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil {
				t.Fatalf("no error, want %q", tt.msg)
			}
			if err.Error() != tt.msg {
				t.Errorf("error %q, want %q", err, tt.msg)
			}
			if !errors.Is(err, tt.class) {
				t.Errorf("error %q is not %v", err, tt.class)
			}
		})
	}
}

// TestForms checks the form chosen for common shapes over a world of 2^20 and that
// regular shapes cost the same whatever the job size.
func TestForms(t *testing.T) {
	const n = 1 << 20
	w, _ := NewWorld(n, Sparse)
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name     string
		make     func() (*Group, error)
		kind     Kind
		maxBytes int
	}{
		{"world", func() (*Group, error) { return w, nil }, KindStride, 32},
		{"every other", func() (*Group, error) { return w.RangeIncl([]Range{{0, n - 1, 2}}) }, KindStride, 32},
		{"every other via Incl", func() (*Group, error) {
			var r []int
			for i := 0; i < n; i += 2 {
				r = append(r, i)
			}
			return w.Incl(r)
		}, KindStride, 32},
		{"first half", func() (*Group, error) { return w.RangeIncl([]Range{{0, n/2 - 1, 1}}) }, KindStride, 32},
		{"reversed", func() (*Group, error) { return w.RangeIncl([]Range{{n - 1, 0, -1}}) }, KindStride, 32},
		{"stride of a stride of a stride", func() (*Group, error) {
			g, _ := w.RangeIncl([]Range{{0, n - 1, 2}})
			g, _ = g.RangeIncl([]Range{{1, g.Size() - 1, 3}})
			r := make([]int, g.Size()) // reversed through Incl, the general path
			for i := range r {
				r[i] = g.Size() - 1 - i
			}
			return g.Incl(r)
		}, KindStride, 32},
		{"first 4 of every 64", func() (*Group, error) {
			var r []Range
			for b := 0; b < n; b += 64 {
				r = append(r, Range{b, b + 3, 1})
			}
			return w.RangeIncl(r)
		}, KindStride, 40},
		{"odd multiples of 3 after evens", func() (*Group, error) {
			a, _ := w.RangeIncl([]Range{{0, n - 1, 2}})
			b, _ := w.RangeIncl([]Range{{0, n - 1, 3}})
			return Union(a, b)
		}, KindRange, 32 + 32 + 24},
		{"two blocks", func() (*Group, error) { return w.RangeIncl([]Range{{10, 99, 1}, {5000, 7000, 1}}) }, KindRange, 32 + 32 + 16},
		{"random 10%", func() (*Group, error) {
			var r []int
			for i := range n {
				if rng.IntN(10) == 0 {
					r = append(r, i)
				}
			}
			return w.Incl(r)
		}, KindBitmap, 32 + 80 + n/8 + n/128 + n/8/4 + 256},
		{"shuffled 1000", func() (*Group, error) { return w.Incl(rng.Perm(n)[:1000]) }, KindDense, 32 + 32 + 4096 + 64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := tt.make()
			if err != nil {
				t.Fatal(err)
			}
			if g.Kind() != tt.kind || g.Bytes() > tt.maxBytes {
				t.Errorf("%v: kind %v, %d bytes; want %v in at most %d bytes", g, g.Kind(), g.Bytes(), tt.kind, tt.maxBytes)
			}
			d := g.WithStorage(Dense)
			if d.Kind() != KindDense || d.Bytes() < 4*g.Size() {
				t.Errorf("dense copy: %v, %d bytes", d, d.Bytes())
			}
			if c, _ := Compare(g, d); c != Ident {
				t.Errorf("dense copy compares %v", c)
			}
			for _, i := range []int{0, g.Size() / 3, g.Size() - 1} {
				if x := g.WorldRank(i); g.Rank(x) != i || d.WorldRank(i) != x || d.Rank(x) != i {
					t.Errorf("rank %d: world %d, back %d; dense %d, back %d", i, x, g.Rank(x), d.WorldRank(i), d.Rank(x))
				}
			}
		})
	}
}

func TestCompareAndTranslate(t *testing.T) {
	w, _ := NewWorld(10, Sparse)
	rev, _ := w.RangeIncl([]Range{{9, 0, -1}})
	evens, _ := w.RangeIncl([]Range{{0, 9, 2}})
	odds, _ := w.RangeIncl([]Range{{1, 9, 2}})
	dense := w.WithStorage(Dense)
	tests := []struct {
		a, b *Group
		want Comparison
	}{
		{w, w, Ident}, {w, dense, Ident}, {w, rev, Similar}, {rev, dense, Similar},
		{evens, odds, Unequal}, {evens, w, Unequal}, {Empty(), Empty(), Ident},
		{Empty(), evens, Unequal},
	}
	for _, tt := range tests {
		if got, err := Compare(tt.a, tt.b); err != nil || got != tt.want {
			t.Errorf("Compare(%v, %v) = %v, %v; want %v", tt.a, tt.b, got, err, tt.want)
		}
	}
	got, err := TranslateRanks(evens, []int{0, 1, ProcNull, 4}, rev)
	if want := []int{9, 7, ProcNull, 1}; err != nil || !slices.Equal(got, want) {
		t.Errorf("TranslateRanks(evens, rev) = %v, %v; want %v", got, err, want)
	}
	got, _ = TranslateRanks(evens, []int{0, 1}, odds)
	if want := []int{Undefined, Undefined}; !slices.Equal(got, want) {
		t.Errorf("TranslateRanks(evens, odds) = %v; want %v", got, want)
	}
}

func TestDefaultStorage(t *testing.T) {
	if storage.EnvName() != "MPIGO_GROUP_STORAGE" {
		t.Errorf("setting variable %s, want MPIGO_GROUP_STORAGE", storage.EnvName())
	}
	tests := []struct {
		value string
		want  Storage
		err   string
	}{
		{"sparse", Sparse, ""},
		{"", Sparse, ""},
		{"dense", Dense, ""},
		{" Dense ", Dense, ""},
		{"bitmap", Sparse, `setting group_storage = "bitmap", want sparse or dense`},
	}
	for _, tt := range tests {
		got, err := parseStorage(tt.value)
		if got != tt.want || (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
			t.Errorf("parseStorage(%q) = %v, %v; want %v, %q", tt.value, got, err, tt.want, tt.err)
		}
	}
	w, err := World(5)
	if err != nil || w.Size() != 5 {
		t.Fatalf("World(5) = %v, %v", w, err)
	}
	if Empty().Size() != 0 || Empty().WorldRank(0) != Undefined || Empty().Rank(0) != Undefined {
		t.Error("Empty group has members")
	}
}

// TestConcurrentReverseIndex builds a dense group's lazy index from many goroutines
// at once (run with -race).
func TestConcurrentReverseIndex(t *testing.T) {
	w, _ := NewWorld(1000, Sparse)
	g, _ := w.Incl(rand.New(rand.NewPCG(3, 4)).Perm(1000)[:500])
	if g.Kind() != KindDense {
		t.Fatalf("want a dense group, got %v", g)
	}
	done := make(chan bool)
	for range 8 {
		go func() {
			ok := true
			for i := range g.Size() {
				ok = ok && g.Rank(g.WorldRank(i)) == i
			}
			done <- ok
		}()
	}
	for range 8 {
		if !<-done {
			t.Error("reverse lookup disagreed under concurrency")
		}
	}
}

// TestBitmapSparseRegions builds bitmaps whose density varies, so that member lookups
// take both the forward scan from a sample and the path through the block counts.
func TestBitmapSparseRegions(t *testing.T) {
	const n = 1 << 16
	w, _ := NewWorld(n, PreferBitmap)
	tests := []struct {
		name  string
		ranks func() []int
	}{
		{"dense head, sparse tail", func() []int {
			var r []int
			for i := range 3000 {
				r = append(r, i)
			}
			for i := 3000; i < n; i += 997 {
				r = append(r, i)
			}
			return r
		}},
		{"clusters", func() []int {
			var r []int
			for c := 0; c < n; c += 9000 {
				for i := c; i < c+300 && i < n; i += 1 + c%3 {
					r = append(r, i)
				}
			}
			return r
		}},
		{"single", func() []int { return []int{40000} }},
		{"two far apart", func() []int { return []int{3, n - 1} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ranks := tt.ranks()
			g, err := w.Incl(ranks)
			if err != nil {
				t.Fatal(err)
			}
			if g.Kind() != KindBitmap {
				t.Fatalf("%v: want a bitmap", g)
			}
			want := refIncl(refWorld(n), ranks)
			for i, x := range want {
				if got := g.WorldRank(i); got != x {
					t.Fatalf("WorldRank(%d) = %d, want %d", i, got, x)
				}
				if got := g.Rank(x); got != i {
					t.Fatalf("Rank(%d) = %d, want %d", x, got, i)
				}
			}
			for x := int32(0); x < n; x += 7 {
				if got, exp := g.Rank(x), refIndex(want, x); got != exp {
					t.Fatalf("Rank(%d) = %d, want %d", x, got, exp)
				}
			}
		})
	}
}

// TestNilGroup: a nil *Group (MPI_GROUP_NULL) answers queries without panicking.
func TestNilGroup(t *testing.T) {
	var g *Group
	if g.Size() != 0 || g.WorldRank(0) != Undefined || g.Rank(0) != Undefined || g.Bytes() != 0 ||
		g.Block() != 0 || g.WithStorage(Dense) != nil || g.String() != "group(null)" {
		t.Error("nil group answered like a group")
	}
	for range g.All() {
		t.Error("nil group has members")
	}
	g.Free()
	w, _ := NewWorld(4, Sparse)
	for name, f := range map[string]func() error{
		"Excl":         func() error { _, err := g.Excl(nil); return err },
		"RangeIncl":    func() error { _, err := g.RangeIncl(nil); return err },
		"RangeExcl":    func() error { _, err := g.RangeExcl(nil); return err },
		"Intersection": func() error { _, err := Intersection(w, g); return err },
		"Difference":   func() error { _, err := Difference(g, w); return err },
		"Translate":    func() error { _, err := TranslateRanks(w, nil, g); return err },
	} {
		if err := f(); !errors.Is(err, ErrGroup) {
			t.Errorf("%s on a nil group: %v, want ErrGroup", name, err)
		}
	}
}

// TestWorldFollowsSetting checks MPIGO_GROUP_STORAGE=dense end to end, in a child
// process, because a setting is read once per process.
func TestWorldFollowsSetting(t *testing.T) {
	v := os.Getenv("MPIGO_GROUP_STORAGE")
	w, err := World(1000)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := w.RangeIncl([]Range{{0, 999, 2}})
	want := KindStride
	if v == "dense" {
		want = KindDense
	}
	if w.Kind() != want || g.Kind() != want {
		t.Fatalf("MPIGO_GROUP_STORAGE=%q: world %v, derived %v; want %v", v, w, g, want)
	}
	if v != "" {
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorldFollowsSetting$", "-test.count=1")
	cmd.Env = append(os.Environ(), "MPIGO_GROUP_STORAGE=dense")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child with MPIGO_GROUP_STORAGE=dense: %v\n%s", err, out)
	}
}
