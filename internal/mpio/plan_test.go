package mpio

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/internal/datatype"
)

func TestAggregators(t *testing.T) {
	for _, c := range []struct {
		nodes []int
		n     int
		want  []int
	}{
		{[]int{0, 0, 0, 0}, 1, []int{0}},
		{[]int{0, 0, 1, 1}, 2, []int{0, 2}},
		{[]int{0, 1, 0, 1}, 2, []int{0, 1}},
		{[]int{0, 0, 1, 1}, 3, []int{0, 1, 2}},
		{[]int{0, 0, 1, 1}, 9, []int{0, 1, 2, 3}},
		{[]int{3, 3, 1, 1, 2}, 3, []int{0, 2, 4}},
		{[]int{0}, 0, []int{0}},
	} {
		if got := Aggregators(c.nodes, c.n); !slices.Equal(got, c.want) {
			t.Errorf("Aggregators(%v, %d) = %v, want %v", c.nodes, c.n, got, c.want)
		}
	}
}

func TestDomains(t *testing.T) {
	for _, c := range []struct {
		lo, hi int64
		n      int
		align  int64
	}{
		{0, 1000, 3, 1}, {0, 1000, 3, 64}, {10, 1 << 20, 4, 4096}, {0, 5, 8, 4096}, {7, 7, 2, 1},
	} {
		doms := Domains(c.lo, c.hi, c.n, c.align)
		if len(doms) != c.n {
			t.Fatalf("%v: %d domains", c, len(doms))
		}
		at := c.lo
		for i, d := range doms {
			if d.Len > 0 && d.Off != at || d.Len < 0 {
				t.Errorf("%v: domain %d is %v, after %d", c, i, d, at)
			}
			if i < c.n-1 && d.Len > 0 && d.End() != c.hi && d.End()%c.align != 0 {
				t.Errorf("%v: domain %d ends at %d, not on a multiple of %d", c, i, d.End(), c.align)
			}
			at += d.Len
		}
		if c.hi > c.lo && at != c.hi {
			t.Errorf("%v: the domains cover up to %d", c, at)
		}
	}
}

// TestTwoPhase runs the plan of collective writes and reads in memory, for ranks
// whose views interleave, and compares the file and the data read back with what
// independent accesses give.
func TestTwoPhase(t *testing.T) {
	const ranks = 5
	rng := rand.New(rand.NewPCG(3, 4))
	vec, err := datatype.Vector(6, 3, 3*ranks, datatype.Int32)
	vec = committed(t, vec, err)
	strided, err := datatype.Resized(vec, 0, 6*3*ranks*4)
	strided = committed(t, strided, err)
	for _, c := range []struct {
		name       string
		view       func(r int) *View
		n          int64 // stream bytes per rank
		nodes      []int
		cb         int
		buf, align int64
	}{
		{"strided", func(r int) *View { v, _ := NewView(int64(r*12), datatype.Int32, strided); return v }, 720, []int{0, 0, 0, 1, 1}, 2, 100, 16},
		{"strided one aggregator", func(r int) *View { v, _ := NewView(int64(r*12), datatype.Int32, strided); return v }, 720, []int{0, 0, 0, 0, 0}, 1, 64, 1},
		{"blocks", func(r int) *View { v, _ := NewView(int64(r*1000+37), datatype.Byte, datatype.Byte); return v }, 1000, []int{0, 1, 2, 3, 4}, 5, 333, 512},
		{"sparse", func(r int) *View { v, _ := NewView(int64(r*5000), datatype.Byte, datatype.Byte); return v }, 100, []int{0, 0, 1, 1, 1}, 3, 1 << 10, 4096},
	} {
		t.Run(c.name, func(t *testing.T) {
			streams := make([][]byte, ranks)
			runs := make([][]Run, ranks)
			ref := make([]byte, 0)
			lo, hi := int64(-1), int64(0)
			for r := range ranks {
				streams[r] = make([]byte, c.n)
				for i := range streams[r] {
					streams[r][i] = byte(rng.IntN(255) + 1)
				}
				cur := c.view(r).Cursor(0, c.n)
				var at int64
				for run, ok := cur.Next(); ok; run, ok = cur.Next() {
					runs[r] = append(runs[r], run)
					if run.End() > int64(len(ref)) {
						ref = append(ref, make([]byte, run.End()-int64(len(ref)))...)
					}
					copy(ref[run.Off:run.End()], streams[r][at:])
					at += run.Len
					if lo < 0 || run.Off < lo {
						lo = run.Off
					}
					hi = max(hi, run.End())
				}
			}
			aggs := Aggregators(c.nodes, c.cb)
			doms := Domains(lo, hi, len(aggs), c.align)
			split := make([][][]Piece, ranks)
			for r := range ranks {
				split[r] = Split(runs[r], doms)
			}
			// Writes: every window of every domain, gathered from the ranks.
			file := make([]byte, len(ref))
			moved := int64(0)
			for k := range Rounds(doms, c.buf) {
				for a, d := range doms {
					win := make([]byte, c.buf)
					wlo := d.Off + int64(k)*c.buf
					var got [][]Piece
					for r := range ranks {
						w := Window(split[r][a], d, c.buf, k)
						for _, p := range w {
							copy(win[p.Off-wlo:p.End()-wlo], streams[r][p.Stream:p.Stream+p.Len])
							moved += p.Len
						}
						got = append(got, w)
					}
					for _, run := range Cover(got) {
						if run.Off < wlo || run.End() > min(wlo+c.buf, d.End()) {
							t.Fatalf("round %d domain %d: cover %v outside the window at %d", k, a, run, wlo)
						}
						copy(file[run.Off:run.End()], win[run.Off-wlo:])
					}
				}
			}
			if moved != ranks*c.n {
				t.Errorf("the windows moved %d bytes, the ranks have %d", moved, ranks*c.n)
			}
			if !bytes.Equal(file, ref) {
				t.Errorf("the two-phase write differs from the independent writes")
			}
			// Reads: the same windows, scattered back to the ranks.
			back := make([][]byte, ranks)
			for r := range back {
				back[r] = make([]byte, c.n)
			}
			for k := range Rounds(doms, c.buf) {
				for a, d := range doms {
					wlo := d.Off + int64(k)*c.buf
					for r := range ranks {
						for _, p := range Window(split[r][a], d, c.buf, k) {
							copy(back[r][p.Stream:p.Stream+p.Len], ref[p.Off:p.End()])
						}
					}
					_ = wlo
				}
			}
			for r := range ranks {
				if !bytes.Equal(back[r], streams[r]) {
					t.Errorf("rank %d read back other data", r)
				}
			}
		})
	}
}
