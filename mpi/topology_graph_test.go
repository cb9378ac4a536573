package mpi_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// exchangeWithNeighbors sends this rank's rank in c to every destination and receives
// one value from every source, in order, and returns what came.
func exchangeWithNeighbors(t *testing.T, c *mpi.Comm, sources, destinations []int) []int {
	t.Helper()
	got := make([]int, len(sources))
	var reqs []mpi.Request
	for i, s := range sources {
		r, err := mpi.Irecv(c, got[i:i+1], s, 42)
		must(t, err)
		reqs = append(reqs, r)
	}
	me := []int{c.Rank()}
	for _, d := range destinations {
		r, err := mpi.Isend(c, me, d, 42)
		must(t, err)
		reqs = append(reqs, r)
	}
	must(t, mpi.Waitall(reqs, nil))
	return got
}

func TestGraph(t *testing.T) {
	// The graph of the MPI standard's example:  node  neighbours
	//                                            0     1, 3
	//                                            1     0
	//                                            2     3
	//                                            3     0, 2
	index := []int{2, 3, 4, 6}
	edges := []int{1, 3, 0, 3, 0, 2}
	neighbors := [][]int{{1, 3}, {0}, {3}, {0, 2}}
	job(t, 5, func(t *testing.T, rank, size int) {
		g, err := mpi.World.GraphCreate(index, edges, false)
		must(t, err)
		if rank == 4 {
			if g != nil {
				t.Fatalf("rank 4 is no node of the 4-node graph but got a communicator")
			}
		} else {
			if g.Topology() != mpi.TopoGraph || g.Size() != 4 || g.Rank() != rank {
				t.Fatalf("rank %d of %d, topology %v", g.Rank(), g.Size(), g.Topology())
			}
			nn, ne, err := g.Graphdims()
			must(t, err)
			gi, ge, err := g.GraphGet()
			must(t, err)
			if nn != 4 || ne != 6 || !slices.Equal(gi, index) || !slices.Equal(ge, edges) {
				t.Errorf("Graphdims %d %d, GraphGet %v %v", nn, ne, gi, ge)
			}
			for r, want := range neighbors {
				n, err := g.GraphNeighborsCount(r)
				must(t, err)
				nb, err := g.GraphNeighbors(r)
				must(t, err)
				if n != len(want) || !slices.Equal(nb, want) {
					t.Errorf("node %d: %d neighbours %v, want %v", r, n, nb, want)
				}
			}
			srcs, dests, ok := mpi.Neighbors(g)
			if !ok || !slices.Equal(srcs, neighbors[rank]) || !slices.Equal(dests, neighbors[rank]) {
				t.Errorf("neighbors = %v %v %v", srcs, dests, ok)
			}
			// The graph is symmetric, so a value to each neighbour meets a receive.
			if got := exchangeWithNeighbors(t, g, neighbors[rank], neighbors[rank]); !slices.Equal(got, neighbors[rank]) {
				t.Errorf("received %v, want %v", got, neighbors[rank])
			}
			errs := []struct {
				err   error
				class mpi.ErrorClass
				msg   string
			}{
				{second(g.GraphNeighbors(4)), mpi.ClassRank, "rank 4 out of range [0,4)"},
				{second(g.GraphNeighborsCount(-1)), mpi.ClassRank, "rank -1"},
				{second(g.CartCoords(0)), mpi.ClassTopology, "has topology MPI_GRAPH, not MPI_CART"},
				{fourth(g.DistGraphNeighborsCount()), mpi.ClassTopology, "not MPI_DIST_GRAPH"},
			}
			for _, e := range errs {
				if mpi.ClassOf(e.err) != e.class || !strings.Contains(e.err.Error(), e.msg) {
					t.Errorf("%v; want a %v error saying %q", e.err, e.class, e.msg)
				}
			}
			d, err := g.Dup()
			must(t, err)
			if _, de, err := d.GraphGet(); err != nil || !slices.Equal(de, edges) {
				t.Errorf("Dup lost the graph: %v %v", de, err)
			}
			must(t, d.Free())
			must(t, g.Free())
		}
		m, err := mpi.World.GraphMap(index, edges)
		must(t, err)
		if want := map[bool]int{true: mpi.Undefined, false: rank}[rank == 4]; m != want {
			t.Errorf("GraphMap = %d, want %d", m, want)
		}
		// A graph of no nodes leaves every rank out.
		if e, err := mpi.World.GraphCreate(nil, nil, false); e != nil || err != nil {
			t.Errorf("empty graph: %v, %v", e, err)
		}
	})
}

func TestGraphErrors(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		tests := []struct {
			index, edges []int
			class        mpi.ErrorClass
			msg          string
		}{
			{[]int{1, 2, 3, 4}, []int{1, 2, 3, 0}, mpi.ClassArg, "the graph has 4 nodes, more than the 3 ranks"},
			{[]int{2, 1, 3}, []int{1, 2, 0}, mpi.ClassArg, "index[1] = 1 is less than 2"},
			{[]int{1, 2, 3}, []int{1, 2}, mpi.ClassArg, "index ends at 3 but there are 2 edges"},
			{[]int{1, 2, 3}, []int{1, 3, 0}, mpi.ClassRank, "edges[1] = 3 is not a node of the graph [0,3)"},
			{[]int{1, 2, 3}, []int{-1, 0, 0}, mpi.ClassRank, "edges[0] = -1"},
		}
		for _, tc := range tests {
			g, err := mpi.World.GraphCreate(tc.index, tc.edges, false)
			if g != nil || mpi.ClassOf(err) != tc.class || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("GraphCreate(%v, %v) = %v, %v; want a %v error saying %q", tc.index, tc.edges, g, err, tc.class, tc.msg)
			}
			if _, err := mpi.World.GraphMap(tc.index, tc.edges); mpi.ClassOf(err) != tc.class {
				t.Errorf("GraphMap(%v, %v): %v", tc.index, tc.edges, err)
			}
		}
		// Self-loops and repeated edges are allowed.
		g, err := mpi.World.GraphCreate([]int{2, 3, 3}, []int{0, 1, 0}, true)
		must(t, err)
		if nb, err := g.GraphNeighbors(0); err != nil || !slices.Equal(nb, []int{0, 1}) {
			t.Errorf("self-loop: %v %v", nb, err)
		}
		if nb, err := g.GraphNeighbors(2); err != nil || len(nb) != 0 {
			t.Errorf("isolated node: %v %v", nb, err)
		}
		must(t, g.Free())
		if _, _, err := mpi.World.GraphGet(); !errors.Is(err, mpi.ErrTopology) {
			t.Errorf("GraphGet on World: %v", err)
		}
	})
}

// distEdge is an edge of a distributed graph, and who named it.
type distEdge struct{ by, src, dst, w int }

// distSpec is what rank b of 5 passes to DistGraphCreate: each rank names the ring
// edge two places behind it, (b+3) -> (b+4), so no rank names its own; rank 0 also names
// i -> i+2 for i < 4, rank 1 a self-loop on 4 in the same run as 4's ring edge, and
// rank 2 a source of degree zero.
func distSpec(b int) (sources, degrees, destinations []int) {
	s, d := (b+3)%5, (b+4)%5
	switch b {
	case 0:
		return []int{s, 0, 1, 2, 3}, []int{1, 1, 1, 1, 1}, []int{d, 2, 3, 4, 0}
	case 1:
		return []int{s}, []int{2}, []int{d, 4}
	case 2:
		return []int{s, 2}, []int{1, 0}, []int{d}
	}
	return []int{s}, []int{1}, []int{d}
}

func weightOf(src, dst int) int { return 100*src + dst }

func distEdges() []distEdge {
	var all []distEdge
	for b := 0; b < 5; b++ {
		sources, degrees, destinations := distSpec(b)
		k := 0
		for i, s := range sources {
			for range degrees[i] {
				all = append(all, distEdge{b, s, destinations[k], weightOf(s, destinations[k])})
				k++
			}
		}
	}
	return all
}

func TestDistGraphCreate(t *testing.T) {
	job(t, 5, func(t *testing.T, rank, size int) {
		// What this rank should learn, in the documented order: by the rank that
		// named the edge, then that rank's order.
		var wantSrc, wantSrcW, wantDst, wantDstW []int
		for _, e := range distEdges() {
			if e.dst == rank {
				wantSrc, wantSrcW = append(wantSrc, e.src), append(wantSrcW, e.w)
			}
			if e.src == rank {
				wantDst, wantDstW = append(wantDst, e.dst), append(wantDstW, e.w)
			}
		}
		sources, degrees, destinations := distSpec(rank)
		var weights []int
		for k, d := range destinations {
			// The source of destinations[k]: walk the degrees.
			i, n := 0, degrees[0]
			for k >= n {
				i++
				n += degrees[i]
			}
			weights = append(weights, weightOf(sources[i], d))
		}
		for _, weighted := range []bool{true, false} {
			w := weights
			if !weighted {
				w = mpi.Unweighted
			}
			g, err := mpi.World.DistGraphCreate(sources, degrees, destinations, w, false)
			must(t, err)
			if g.Topology() != mpi.TopoDistGraph || g.Size() != size || g.Rank() != rank {
				t.Fatalf("rank %d of %d, topology %v", g.Rank(), g.Size(), g.Topology())
			}
			in, out, isW, err := g.DistGraphNeighborsCount()
			must(t, err)
			if in != len(wantSrc) || out != len(wantDst) || isW != weighted {
				t.Errorf("weighted %v: DistGraphNeighborsCount = %d, %d, %v; want %d, %d", weighted, in, out, isW, len(wantSrc), len(wantDst))
			}
			src, srcW, dst, dstW, err := g.DistGraphNeighbors()
			must(t, err)
			ws, wd := wantSrcW, wantDstW
			if !weighted {
				ws, wd = nil, nil
			}
			if !slices.Equal(src, wantSrc) || !slices.Equal(dst, wantDst) || !slices.Equal(srcW, ws) || !slices.Equal(dstW, wd) ||
				(srcW == nil) != (ws == nil) || (dstW == nil) != (wd == nil) {
				t.Errorf("weighted %v: DistGraphNeighbors = %v %v -> %v %v; want %v %v -> %v %v",
					weighted, src, srcW, dst, dstW, wantSrc, ws, wantDst, wd)
			}
			ns, nd, ok := mpi.Neighbors(g)
			if !ok || !slices.Equal(ns, wantSrc) || !slices.Equal(nd, wantDst) {
				t.Errorf("neighbors = %v %v %v", ns, nd, ok)
			}
			if got := exchangeWithNeighbors(t, g, src, dst); !slices.Equal(got, src) {
				t.Errorf("received %v from sources %v", got, src)
			}
			must(t, g.Free())
		}
	})
}

func TestDistGraphCreateAdjacent(t *testing.T) {
	job(t, 5, func(t *testing.T, rank, size int) {
		at := func(k int) int { return (rank + k + size) % size }
		sources := []int{at(-1), at(-2)}
		destinations := []int{at(1), at(2)}
		sw := []int{weightOf(at(-1), rank), weightOf(at(-2), rank)}
		dw := []int{weightOf(rank, at(1)), weightOf(rank, at(2))}
		g, err := mpi.World.DistGraphCreateAdjacent(sources, sw, destinations, dw, true)
		must(t, err)
		in, out, w, err := g.DistGraphNeighborsCount()
		must(t, err)
		s, gsw, d, gdw, err := g.DistGraphNeighbors()
		must(t, err)
		if in != 2 || out != 2 || !w || !slices.Equal(s, sources) || !slices.Equal(d, destinations) ||
			!slices.Equal(gsw, sw) || !slices.Equal(gdw, dw) {
			t.Errorf("got %d %d %v: %v %v -> %v %v", in, out, w, s, gsw, d, gdw)
		}
		if got := exchangeWithNeighbors(t, g, s, d); !slices.Equal(got, sources) {
			t.Errorf("received %v from %v", got, sources)
		}
		must(t, g.Free())

		// Unweighted; rank 0 has no edges at all and says nothing about weights.
		sources, destinations = []int{at(-1)}, []int{at(1)}
		switch rank {
		case 0:
			sources, destinations = nil, nil
		case 1:
			sources = nil
		case size - 1:
			destinations = nil
		}
		zeroW := mpi.Unweighted
		if rank == 0 {
			zeroW = []int{} // MPI_WEIGHTS_EMPTY
		}
		g, err = mpi.World.DistGraphCreateAdjacent(sources, zeroW, destinations, mpi.Unweighted, false)
		must(t, err)
		in, out, w, err = g.DistGraphNeighborsCount()
		must(t, err)
		s, gsw, d, gdw, err = g.DistGraphNeighbors()
		must(t, err)
		if in != len(sources) || out != len(destinations) || w || gsw != nil || gdw != nil ||
			!slices.Equal(s, sources) || !slices.Equal(d, destinations) {
			t.Errorf("unweighted: %d %d %v: %v %v -> %v %v", in, out, w, s, gsw, d, gdw)
		}
		must(t, g.Free())
	})
}

func TestDistGraphErrors(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		tests := []struct {
			name                                string
			sources, degrees, destinations, wts []int
			class                               mpi.ErrorClass
			msg                                 string
		}{
			{"degrees short", []int{0, 1}, []int{1}, []int{1}, nil, mpi.ClassArg, "len(degrees) = 1, want len(sources) = 2"},
			{"source out of range", []int{3}, []int{1}, []int{1}, nil, mpi.ClassRank, "sources[0] = 3 out of range [0,3)"},
			{"destination out of range", []int{0}, []int{2}, []int{1, -1}, nil, mpi.ClassRank, "destinations[1] = -1"},
			{"negative degree", []int{0, 1}, []int{-1, 2}, []int{1}, nil, mpi.ClassArg, "degrees[0] = -1 must not be negative"},
			{"degrees do not add up", []int{0}, []int{2}, []int{1}, nil, mpi.ClassArg, "the degrees add up to 2, but there are 1 destinations"},
			{"weights short", []int{0}, []int{2}, []int{1, 2}, []int{5}, mpi.ClassArg, "len(weights) = 1, want 2"},
			{"negative weight", []int{0}, []int{1}, []int{1}, []int{-5}, mpi.ClassArg, "weights[0] = -5 must not be negative"},
		}
		for _, tc := range tests {
			g, err := mpi.World.DistGraphCreate(tc.sources, tc.degrees, tc.destinations, tc.wts, false)
			if g != nil || mpi.ClassOf(err) != tc.class || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%s: %v, %v; want a %v error saying %q", tc.name, g, err, tc.class, tc.msg)
			}
		}
		// Only rank 2 names a bad edge: it is told why, the others who.
		dst := []int{(rank + 1) % size}
		if rank == 2 {
			dst = []int{7}
		}
		g, err := mpi.World.DistGraphCreate([]int{rank}, []int{1}, dst, nil, false)
		want := "rank 2 of"
		if rank == 2 {
			want = "destinations[0] = 7"
		}
		if g != nil || !errors.Is(err, mpi.ErrRank) || !strings.Contains(err.Error(), want) {
			t.Errorf("rank %d: one bad rank: %v, %v; want an MPI_ERR_RANK error saying %q", rank, g, err, want)
		}
		// Weights on some ranks and Unweighted on others.
		var w []int
		if rank == 0 {
			w = []int{1}
		}
		g, err = mpi.World.DistGraphCreateAdjacent([]int{(rank + size - 1) % size}, w, []int{(rank + 1) % size}, w, false)
		if g != nil || !errors.Is(err, mpi.ErrArg) || !strings.Contains(err.Error(), "some ranks gave weights") {
			t.Errorf("rank %d: mixed weights: %v, %v", rank, g, err)
		}
		g, err = mpi.World.DistGraphCreateAdjacent([]int{0}, []int{1}, []int{0}, nil, false)
		if g != nil || !errors.Is(err, mpi.ErrArg) {
			t.Errorf("rank %d: weights for sources only: %v, %v", rank, g, err)
		}
		if _, _, _, _, err := mpi.World.DistGraphNeighbors(); !errors.Is(err, mpi.ErrTopology) {
			t.Errorf("DistGraphNeighbors on World: %v", err)
		}
	})
}

// TestDistGraphWeightsEmpty: a graph in which no rank has edges is weighted when the
// ranks give empty weights (MPI_WEIGHTS_EMPTY) and not when they give Unweighted:
// MPI_Dist_graph_neighbors_count says false only for MPI_UNWEIGHTED. (The Go face
// said false for both; the C library said true. abi/testdata/topo.c checks C.)
func TestDistGraphWeightsEmpty(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		for _, tc := range []struct {
			name    string
			weights []int
			want    bool
		}{{"empty weights", []int{}, true}, {"Unweighted", mpi.Unweighted, false}} {
			g, err := mpi.World.DistGraphCreateAdjacent(nil, tc.weights, nil, tc.weights, false)
			must(t, err)
			in, out, w, err := g.DistGraphNeighborsCount()
			must(t, err)
			if in != 0 || out != 0 || w != tc.want {
				t.Errorf("adjacent, %s: %d, %d, weighted %v; want 0, 0, %v", tc.name, in, out, w, tc.want)
			}
			s, sw, d, dw, err := g.DistGraphNeighbors()
			must(t, err)
			if len(s) != 0 || len(d) != 0 || (sw != nil) != tc.want || (dw != nil) != tc.want {
				t.Errorf("adjacent, %s: neighbours %v %v -> %v %v", tc.name, s, sw, d, dw)
			}
			must(t, g.Free())
			g, err = mpi.World.DistGraphCreate(nil, nil, nil, tc.weights, false)
			must(t, err)
			if _, _, w, err := g.DistGraphNeighborsCount(); err != nil || w != tc.want {
				t.Errorf("DistGraphCreate, %s: weighted %v, %v; want %v", tc.name, w, err, tc.want)
			}
			must(t, g.Free())
		}
		// A rank without edges that gives Unweighted while the others give weights
		// does not decide: the graph is weighted on every rank.
		var sw, dw []int
		src, dst := []int{(rank + size - 1) % size}, []int{(rank + 1) % size}
		if rank == 0 {
			src, dst = nil, nil
		} else {
			sw, dw = []int{1}, []int{1}
			if rank == 1 {
				src, sw = nil, []int{}
			}
			if rank == size-1 {
				dst, dw = nil, []int{}
			}
		}
		g, err := mpi.World.DistGraphCreateAdjacent(src, sw, dst, dw, false)
		must(t, err)
		if _, _, w, err := g.DistGraphNeighborsCount(); err != nil || !w {
			t.Errorf("rank %d: weighted %v, %v; want true", rank, w, err)
		}
		must(t, g.Free())
	})
}

// TestDistGraphCreateLarge has rank 0 name every edge of a dense multigraph, so the
// edge lists it sends are far past the eager limit and travel by rendezvous.
func TestDistGraphCreateLarge(t *testing.T) {
	const copies = 1000 // parallel edges between each ordered pair
	job(t, 4, func(t *testing.T, rank, size int) {
		var sources, degrees, destinations, weights []int
		if rank == 0 {
			for s := 0; s < size; s++ {
				sources = append(sources, s)
				degrees = append(degrees, (size-1)*copies)
				for k := 0; k < copies; k++ {
					for d := 0; d < size; d++ {
						if d != s {
							destinations = append(destinations, d)
							weights = append(weights, weightOf(s, d)+k)
						}
					}
				}
			}
		}
		g, err := mpi.World.DistGraphCreate(sources, degrees, destinations, weights, false)
		must(t, err)
		src, srcW, dst, dstW, err := g.DistGraphNeighbors()
		must(t, err)
		// In rank 0's order: source by source, copy by copy, destination by destination.
		var wantSrc, wantSrcW, wantDst, wantDstW []int
		for s := 0; s < size; s++ {
			for k := 0; k < copies; k++ {
				for d := 0; d < size; d++ {
					if d == s {
						continue
					}
					if d == rank {
						wantSrc, wantSrcW = append(wantSrc, s), append(wantSrcW, weightOf(s, d)+k)
					}
					if s == rank {
						wantDst, wantDstW = append(wantDst, d), append(wantDstW, weightOf(s, d)+k)
					}
				}
			}
		}
		if !slices.Equal(src, wantSrc) || !slices.Equal(srcW, wantSrcW) || !slices.Equal(dst, wantDst) || !slices.Equal(dstW, wantDstW) {
			t.Errorf("rank %d: %d sources, %d destinations; want %d, %d (or the order or weights differ)",
				rank, len(src), len(dst), len(wantSrc), len(wantDst))
		}
		must(t, g.Free())
	})
}

// TestTopologyConcurrent builds topologies on two communicators at once from two
// goroutines, started in opposite orders on alternate ranks.
func TestTopologyConcurrent(t *testing.T) {
	job(t, 4, func(t *testing.T, rank, size int) {
		d1, err := mpi.World.Dup()
		must(t, err)
		d2, err := mpi.World.Dup()
		must(t, err)
		var cart, dist *mpi.Comm
		var errCart, errDist error
		mkCart := func() { cart, errCart = d1.CartCreate([]int{2, 2}, []bool{true, true}, false) }
		mkDist := func() {
			dist, errDist = d2.DistGraphCreate([]int{rank}, []int{1}, []int{(rank + 1) % size}, nil, false)
		}
		first, second := mkCart, mkDist
		if rank%2 == 1 {
			first, second = mkDist, mkCart
		}
		done := make(chan struct{})
		go func() { first(); close(done) }()
		second()
		<-done
		must(t, errCart)
		must(t, errDist)
		if src, dst, ok := mpi.Neighbors(dist); !ok || !slices.Equal(src, []int{(rank + size - 1) % size}) || !slices.Equal(dst, []int{(rank + 1) % size}) {
			t.Errorf("ring neighbours %v %v", src, dst)
		}
		if _, _, co, err := cart.CartGet(); err != nil || !slices.Equal(co, []int{rank / 2, rank % 2}) {
			t.Errorf("grid coordinates %v, %v", co, err)
		}
		for _, c := range []*mpi.Comm{cart, dist, d1, d2} {
			must(t, c.Free())
		}
	})
}
