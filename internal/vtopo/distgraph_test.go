package vtopo

import (
	"slices"
	"testing"
)

func TestCheckAdjacent(t *testing.T) {
	tests := []struct {
		name                   string
		src, srcW, dest, destW []int
		want                   Weights
		class                  error
		msg                    string
	}{
		{"weighted", []int{1, 2}, []int{5, 6}, []int{0}, []int{7}, WeightsGiven, nil, ""},
		{"unweighted", []int{1, 2}, nil, []int{0}, nil, WeightsNone, nil, ""},
		{"no edges, MPI_UNWEIGHTED", nil, nil, nil, nil, 0, nil, ""},
		{"no edges, MPI_WEIGHTS_EMPTY", nil, []int{}, []int{}, []int{}, WeightsEmpty, nil, ""},
		{"no in-edges, weights out", nil, nil, []int{1}, []int{0}, WeightsGiven, nil, ""},
		{"no in-edges, empty weights, unweighted out", nil, []int{}, []int{1}, nil, WeightsEmpty | WeightsNone, nil, ""},
		{"source out of range", []int{3}, nil, nil, nil, 0, ErrRank, "sources[0] = 3 out of range [0,3)"},
		{"destination out of range", nil, nil, []int{0, -1}, nil, 0, ErrRank, "destinations[1] = -1"},
		{"weights short", []int{1, 2}, []int{5}, nil, nil, 0, ErrArg, "len(sourceweights) = 1, want 2"},
		{"weights for no edges", nil, nil, nil, []int{4}, 0, ErrArg, "len(destweights) = 1, want 0"},
		{"negative weight", nil, nil, []int{1}, []int{-5}, 0, ErrArg, "destweights[0] = -5 must not be negative"},
		{"weights on one side only", []int{1}, []int{1}, []int{1}, nil, 0, ErrArg, "weights for one side's edges and MPI_UNWEIGHTED for the other's"},
	}
	for _, tc := range tests {
		w, err := CheckAdjacent(tc.src, tc.srcW, tc.dest, tc.destW, 3)
		if tc.class == nil && (err != nil || w != tc.want) || tc.class != nil && !wantErr(err, tc.class, tc.msg) {
			t.Errorf("%s: %v, %v; want %v, %v %q", tc.name, w, err, tc.want, tc.class, tc.msg)
		}
	}
}

func TestWeighted(t *testing.T) {
	tests := []struct {
		all  Weights
		want bool
		fail bool
	}{
		{0, false, false},                          // no edges anywhere, MPI_UNWEIGHTED
		{WeightsEmpty, true, false},                // no edges anywhere, MPI_WEIGHTS_EMPTY
		{WeightsGiven, true, false},                //
		{WeightsNone, false, false},                //
		{WeightsGiven | WeightsEmpty, true, false}, // a member without edges gave empty weights
		{WeightsNone | WeightsEmpty, false, false}, // a member without edges does not decide
		{WeightsGiven | WeightsNone, false, true},  // MPI says all or none
		{WeightsGiven | WeightsNone | WeightsEmpty, false, true},
	}
	for _, tc := range tests {
		w, err := tc.all.Weighted()
		if w != tc.want || (err != nil) != tc.fail || tc.fail && !wantErr(err, ErrArg, "some ranks gave weights and some ranks with edges gave MPI_UNWEIGHTED") {
			t.Errorf("Weights(%b).Weighted() = %v, %v; want %v, failing %v", tc.all, w, err, tc.want, tc.fail)
		}
	}
}

func TestCheckDistGraph(t *testing.T) {
	tests := []struct {
		name                           string
		sources, degrees, destinations []int
		weights                        []int
		want                           Weights
		class                          error
		msg                            string
	}{
		{"weighted", []int{0, 1}, []int{2, 0}, []int{1, 2}, []int{3, 4}, WeightsGiven, nil, ""},
		{"unweighted", []int{0, 1}, []int{2, 0}, []int{1, 2}, nil, WeightsNone, nil, ""},
		{"nothing, MPI_WEIGHTS_EMPTY", nil, nil, nil, []int{}, WeightsEmpty, nil, ""},
		{"degrees short", []int{0, 1}, []int{1}, []int{1}, nil, 0, ErrArg, "len(degrees) = 1, want len(sources) = 2"},
		{"source out of range", []int{3}, []int{1}, []int{1}, nil, 0, ErrRank, "sources[0] = 3 out of range [0,3)"},
		{"destination out of range", []int{0}, []int{2}, []int{1, -1}, nil, 0, ErrRank, "destinations[1] = -1"},
		{"negative degree", []int{0, 1}, []int{-1, 2}, []int{1}, nil, 0, ErrArg, "degrees[0] = -1 must not be negative"},
		{"degrees do not add up", []int{0}, []int{2}, []int{1}, nil, 0, ErrArg, "the degrees add up to 2, but there are 1 destinations"},
		{"weights short", []int{0}, []int{2}, []int{1, 2}, []int{5}, 0, ErrArg, "len(weights) = 1, want 2"},
		{"negative weight", []int{0}, []int{1}, []int{1}, []int{-5}, 0, ErrArg, "weights[0] = -5 must not be negative"},
	}
	for _, tc := range tests {
		w, err := CheckDistGraph(tc.sources, tc.degrees, tc.destinations, tc.weights, 3)
		if tc.class == nil && (err != nil || w != tc.want) || tc.class != nil && !wantErr(err, tc.class, tc.msg) {
			t.Errorf("%s: %v, %v; want %v, %v %q", tc.name, w, err, tc.want, tc.class, tc.msg)
		}
	}
}

func TestNewAdjacent(t *testing.T) {
	src, srcW, dst, dstW := []int{1, 2}, []int{5, 6}, []int{0}, []int{7}
	g := NewAdjacent(src, srcW, dst, dstW, true)
	s, sw, d, dw := g.DistNeighbors()
	in, out, cart, ok := g.Neighbors()
	if g.Kind() != DistGraph || !g.Weighted() || !slices.Equal(s, src) || !slices.Equal(sw, srcW) || !slices.Equal(d, dst) ||
		!slices.Equal(dw, dstW) || !ok || cart || !slices.Equal(in, src) || !slices.Equal(out, dst) {
		t.Errorf("weighted: %v %v -> %v %v, neighbours %v %v", s, sw, d, dw, in, out)
	}
	src[0] = 9
	if s, _, _, _ := g.DistNeighbors(); s[0] != 1 {
		t.Errorf("NewAdjacent shares its arguments")
	}
	// Unweighted: no weights back. A weighted graph whose member has no in-edges and
	// gave MPI_UNWEIGHTED for them has empty weights there.
	if _, sw, _, dw := NewAdjacent([]int{1}, nil, []int{2}, nil, false).DistNeighbors(); sw != nil || dw != nil {
		t.Errorf("unweighted: weights %v %v", sw, dw)
	}
	s, sw, d, dw = NewAdjacent(nil, nil, []int{2}, []int{3}, true).DistNeighbors()
	if s == nil || sw == nil || len(s) != 0 || len(sw) != 0 || !slices.Equal(d, []int{2}) || !slices.Equal(dw, []int{3}) {
		t.Errorf("weighted, no in-edges: %v %v -> %v %v", s, sw, d, dw)
	}
}

// TestRouteEdges runs MPI_Dist_graph_create's exchange in one process: each of five
// members names some edges (not only its own, a self-loop, a source of degree 0),
// routes them, and each builds its graph from what reaches it, delivered in an order
// unlike the one sent.
func TestRouteEdges(t *testing.T) {
	const n = 5
	type spec struct{ sources, degrees, destinations []int }
	named := []spec{
		{[]int{3, 0, 1}, []int{1, 2, 1}, []int{4, 2, 3, 0}},
		{[]int{4}, []int{2}, []int{0, 4}},
		{[]int{0, 2}, []int{1, 0}, []int{1}},
		{[]int{1}, []int{1}, []int{2}},
		{},
	}
	weight := func(s, d int) int { return 10*s + d }
	for _, weighted := range []bool{true, false} {
		inbox := make([][]Edge, n)
		for by := n - 1; by >= 0; by-- {
			sp := named[by]
			var w []int
			if weighted {
				w = []int{}
				k := 0
				for i, s := range sp.sources {
					for range sp.degrees[i] {
						w = append(w, weight(s, sp.destinations[k]))
						k++
					}
				}
			}
			if _, err := CheckDistGraph(sp.sources, sp.degrees, sp.destinations, w, n); err != nil {
				t.Fatalf("member %d: %v", by, err)
			}
			local, remote := RouteEdges(by, sp.sources, sp.degrees, sp.destinations, w)
			inbox[by] = append(inbox[by], local...)
			for to, b := range remote {
				var err error
				if inbox[to], err = AppendEdges(inbox[to], b); err != nil {
					t.Fatal(err)
				}
			}
		}
		for me := range n {
			// What me should learn: by the member that named the edge, then in its order.
			var src, srcW, dst, dstW []int
			for _, sp := range named {
				k := 0
				for i, s := range sp.sources {
					for range sp.degrees[i] {
						d := sp.destinations[k]
						if s == me {
							dst, dstW = append(dst, d), append(dstW, weight(s, d))
						}
						if d == me {
							src, srcW = append(src, s), append(srcW, weight(s, d))
						}
						k++
					}
				}
			}
			if !weighted {
				srcW, dstW = nil, nil
			}
			g := NewDistGraph(inbox[me], weighted)
			s, sw, d, dw := g.DistNeighbors()
			if !slices.Equal(s, src) || !slices.Equal(d, dst) || !slices.Equal(sw, srcW) || !slices.Equal(dw, dstW) ||
				(sw == nil) != !weighted || g.Weighted() != weighted {
				t.Errorf("weighted %v, member %d: %v %v -> %v %v; want %v %v -> %v %v", weighted, me, s, sw, d, dw, src, srcW, dst, dstW)
			}
		}
	}
	if _, err := AppendEdges(nil, make([]byte, EdgeBytes+3)); !wantErr(err, ErrArg, "not a whole number") {
		t.Errorf("a torn list of edges: %v", err)
	}
}
