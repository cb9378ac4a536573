package vtopo

import (
	"slices"
	"testing"
)

func TestCheckGraph(t *testing.T) {
	tests := []struct {
		index, edges []int
		size         int
		class        error
		msg          string
	}{
		{[]int{2, 3, 4, 6}, []int{1, 3, 0, 3, 0, 2}, 4, nil, ""},
		{[]int{2, 3, 3}, []int{0, 1, 0}, 5, nil, ""}, // a self-loop, a repeated edge, an isolated node
		{nil, nil, 3, nil, ""},                       // no nodes
		{[]int{1, 2, 3, 4}, []int{1, 2, 3, 0}, 3, ErrArg, "the graph has 4 nodes, more than the 3 ranks"},
		{[]int{2, 1, 3}, []int{1, 2, 0}, 3, ErrArg, "index[1] = 1 is less than 2"},
		{[]int{-1, 2, 3}, []int{1, 2, 0}, 3, ErrArg, "index[0] = -1 is less than 0"},
		{[]int{1, 2, 3}, []int{1, 2}, 3, ErrArg, "index ends at 3 but there are 2 edges"},
		{[]int{1, 2, 3}, []int{1, 3, 0}, 3, ErrRank, "edges[1] = 3 is not a node of the graph [0,3)"},
		{[]int{1, 2, 3}, []int{-1, 0, 0}, 3, ErrRank, "edges[0] = -1"},
		{[]int{1, 2}, []int{1, 2}, 3, ErrRank, "edges[1] = 2 is not a node of the graph [0,2)"},
	}
	for _, tc := range tests {
		err := CheckGraph(tc.index, tc.edges, tc.size)
		if tc.class == nil && err != nil || tc.class != nil && !wantErr(err, tc.class, tc.msg) {
			t.Errorf("CheckGraph(%v, %v, %d) = %v; want %v %q", tc.index, tc.edges, tc.size, err, tc.class, tc.msg)
		}
		for rank := range tc.size {
			r, member, err2 := GraphMap(tc.index, tc.edges, tc.size, rank)
			if (err2 == nil) != (err == nil) || err == nil && (member != (rank < len(tc.index)) || member && r != rank) {
				t.Errorf("GraphMap(%v, %v, %d, %d) = %d, %v, %v", tc.index, tc.edges, tc.size, rank, r, member, err2)
			}
		}
	}
}

func TestGraph(t *testing.T) {
	// The graph of the MPI standard's example: node 0's neighbours are 1 and 3, 1's
	// 0, 2's 3, 3's 0 and 2.
	index, edges := []int{2, 3, 4, 6}, []int{1, 3, 0, 3, 0, 2}
	neighbors := [][]int{{1, 3}, {0}, {3}, {0, 2}}
	for rank, want := range neighbors {
		g := NewGraph(index, edges, rank)
		if g.Kind() != Graph || g.Nnodes() != 4 || !slices.Equal(g.Index(), index) || !slices.Equal(g.Edges(), edges) {
			t.Fatalf("NewGraph: %v %d %v %v", g.Kind(), g.Nnodes(), g.Index(), g.Edges())
		}
		for r, w := range neighbors {
			if nb, err := g.GraphNeighbors(r); err != nil || !slices.Equal(nb, w) {
				t.Errorf("GraphNeighbors(%d) = %v, %v; want %v", r, nb, err, w)
			}
		}
		in, out, cart, ok := g.Neighbors()
		if !ok || cart || !slices.Equal(in, want) || !slices.Equal(out, want) {
			t.Errorf("rank %d: neighbours %v %v %v %v, want %v", rank, in, out, cart, ok, want)
		}
		// The views cannot grow into the next node's neighbours.
		if _ = append(in, 99); !slices.Equal(g.Edges(), edges) {
			t.Errorf("appending to rank %d's neighbours changed the edges: %v", rank, g.Edges())
		}
	}
	// NewGraph copies its arguments.
	ix, ed := slices.Clone(index), slices.Clone(edges)
	g := NewGraph(ix, ed, 0)
	ix[0], ed[0] = 7, 7
	if !slices.Equal(g.Index(), index) || !slices.Equal(g.Edges(), edges) {
		t.Errorf("NewGraph shares its arguments")
	}
	for _, r := range []int{4, -1} {
		if _, err := g.GraphNeighbors(r); !wantErr(err, ErrRank, "out of range [0,4)") {
			t.Errorf("GraphNeighbors(%d): %v", r, err)
		}
	}
}
