package vtopo

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// Weights is what a member said about a distributed graph's weights. The members'
// are combined (by OR) and settle whether the graph has weights (Weighted): MPI asks
// every member to give weights or every one MPI_UNWEIGHTED, and a member without
// edges may give either without deciding.
type Weights uint64

const (
	WeightsGiven Weights = 1 << iota // weights for some edges
	WeightsNone                      // MPI_UNWEIGHTED for some edges
	WeightsEmpty                     // weights (MPI_WEIGHTS_EMPTY) where there are no edges
)

// Weighted settles, from the members' Weights combined, whether the graph has
// weights: yes if one gave weights for edges, or if none has edges and one gave
// empty weights (MPI_WEIGHTS_EMPTY: MPI_Dist_graph_neighbors_count then says true).
func (all Weights) Weighted() (bool, error) {
	if all&WeightsGiven != 0 && all&WeightsNone != 0 {
		return false, errorf(ErrArg, "some ranks gave weights and some ranks with edges gave MPI_UNWEIGHTED: give weights on all or on none")
	}
	return all&WeightsGiven != 0 || all&WeightsNone == 0 && all&WeightsEmpty != 0, nil
}

// weightsOf checks the weights w (nil for MPI_UNWEIGHTED) of n edges, the argument
// what.
func weightsOf(what string, w []int, n int) (Weights, error) {
	switch {
	case w == nil && n > 0:
		return WeightsNone, nil
	case w == nil:
		return 0, nil
	case len(w) != n:
		return 0, errorf(ErrArg, "len(%s) = %d, want %d, one per edge (or MPI_UNWEIGHTED)", what, len(w), n)
	case n == 0:
		return WeightsEmpty, nil
	}
	for i, x := range w {
		if x < 0 {
			return 0, errorf(ErrArg, "%s[%d] = %d must not be negative", what, i, x)
		}
	}
	return WeightsGiven, nil
}

// checkRanks checks that every entry of rs (the argument what) is a rank of a
// communicator of size members.
func checkRanks(what string, rs []int, size int) error {
	for i, r := range rs {
		if r < 0 || r >= size {
			return errorf(ErrRank, "%s[%d] = %d out of range [0,%d)", what, i, r, size)
		}
	}
	return nil
}

// CheckAdjacent checks one member's arguments to MPI_Dist_graph_create_adjacent for
// a communicator of size members (weights nil for MPI_UNWEIGHTED) and returns what
// they say about weights.
func CheckAdjacent(sources, sourceWeights, destinations, destWeights []int, size int) (Weights, error) {
	if err := checkRanks("sources", sources, size); err != nil {
		return 0, err
	}
	if err := checkRanks("destinations", destinations, size); err != nil {
		return 0, err
	}
	ws, err := weightsOf("sourceweights", sourceWeights, len(sources))
	if err != nil {
		return 0, err
	}
	wd, err := weightsOf("destweights", destWeights, len(destinations))
	if err != nil {
		return 0, err
	}
	if w := ws | wd; w&WeightsGiven != 0 && w&WeightsNone != 0 {
		return 0, errorf(ErrArg, "weights for one side's edges and MPI_UNWEIGHTED for the other's: give both or neither")
	}
	return ws | wd, nil
}

// NewAdjacent is the distributed graph of one member's own edges as it named them
// (MPI_Dist_graph_create_adjacent), which must have passed CheckAdjacent; weighted
// is what the members settled. It copies its arguments.
func NewAdjacent(sources, sourceWeights, destinations, destWeights []int, weighted bool) *Topology {
	t := &Topology{kind: DistGraph, weighted: weighted,
		sources: nonNil(slices.Clone(sources)), destinations: nonNil(slices.Clone(destinations))}
	if weighted {
		// A side without edges may have given MPI_UNWEIGHTED.
		t.sourceWeights = nonNil(slices.Clone(sourceWeights))
		t.destinationWeights = nonNil(slices.Clone(destWeights))
	}
	t.in, t.out = t.sources, t.destinations
	return t
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// CheckDistGraph checks one member's arguments to MPI_Dist_graph_create for a
// communicator of size members (weights nil for MPI_UNWEIGHTED) and returns what
// they say about weights: for each i, degrees[i] edges from sources[i] to the next
// degrees[i] entries of destinations, with one weight per destination entry.
func CheckDistGraph(sources, degrees, destinations, weights []int, size int) (Weights, error) {
	if len(degrees) != len(sources) {
		return 0, errorf(ErrArg, "len(degrees) = %d, want len(sources) = %d", len(degrees), len(sources))
	}
	if err := checkRanks("sources", sources, size); err != nil {
		return 0, err
	}
	total, err := CheckDegrees(degrees)
	if err != nil {
		return 0, err
	}
	if total != len(destinations) {
		return 0, errorf(ErrArg, "the degrees add up to %d, but there are %d destinations", total, len(destinations))
	}
	if err := checkRanks("destinations", destinations, size); err != nil {
		return 0, err
	}
	return weightsOf("weights", weights, len(destinations))
}

// CheckDegrees checks MPI_Dist_graph_create's degrees and returns their sum, the
// number of destinations (and weights): what a binding needs to know how many to read.
func CheckDegrees(degrees []int) (total int, err error) {
	for i, d := range degrees {
		if d < 0 {
			return 0, errorf(ErrArg, "degrees[%d] = %d must not be negative", i, d)
		}
		total += d
	}
	return total, nil
}

// Edge is an edge of a distributed graph as MPI_Dist_graph_create tells one of its
// ends about it. By and At (the member that named the edge, and where in its
// destinations) order each member's neighbours, so that they come out the same
// whatever order the edges arrive in.
type Edge struct {
	Out          bool // an out-edge of the member told (else an in-edge)
	Peer, Weight int  // the other end, and the weight (0 when unweighted)
	By, At       int
}

// EdgeBytes is the size of an Edge on the wire.
const EdgeBytes = 5 * 8

// AppendEdge appends e's wire form to b.
func AppendEdge(b []byte, e Edge) []byte {
	out := uint64(0)
	if e.Out {
		out = 1
	}
	for _, v := range [...]uint64{out, uint64(e.Peer), uint64(e.Weight), uint64(e.By), uint64(e.At)} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

// AppendEdges appends to edges the Edges of the wire form b, which must be whole.
func AppendEdges(edges []Edge, b []byte) ([]Edge, error) {
	if len(b)%EdgeBytes != 0 {
		return edges, errorf(ErrArg, "a list of edges of %d bytes is not a whole number of %d-byte edges", len(b), EdgeBytes)
	}
	for ; len(b) > 0; b = b[EdgeBytes:] {
		g := func(i int) int { return int(binary.LittleEndian.Uint64(b[8*i:])) }
		edges = append(edges, Edge{Out: g(0) == 1, Peer: g(1), Weight: g(2), By: g(3), At: g(4)})
	}
	return edges, nil
}

// RouteEdges is where the edges member me named (MPI_Dist_graph_create's arguments,
// checked by CheckDistGraph) must go: each to both its ends, those that end at me in
// local, the others in wire form by the member to send them to.
func RouteEdges(me int, sources, degrees, destinations, weights []int) (local []Edge, remote map[int][]byte) {
	remote = map[int][]byte{}
	add := func(to int, e Edge) {
		if to == me {
			local = append(local, e)
		} else {
			remote[to] = AppendEdge(remote[to], e)
		}
	}
	k := 0
	for i, s := range sources {
		for range degrees[i] {
			d, w := destinations[k], 0
			if weights != nil {
				w = weights[k]
			}
			add(s, Edge{Out: true, Peer: d, Weight: w, By: me, At: k})
			add(d, Edge{Out: false, Peer: s, Weight: w, By: me, At: k})
			k++
		}
	}
	return local, remote
}

// NewDistGraph is the distributed graph of the edges that end at one member
// (MPI_Dist_graph_create), listed by the member that named each edge and then in
// that member's order; weighted is what the members settled. It sorts edges.
func NewDistGraph(edges []Edge, weighted bool) *Topology {
	slices.SortFunc(edges, func(a, b Edge) int {
		return cmp.Or(cmp.Compare(a.By, b.By), cmp.Compare(a.At, b.At), cmp.Compare(boolInt(a.Out), boolInt(b.Out)))
	})
	t := &Topology{kind: DistGraph, weighted: weighted, sources: []int{}, destinations: []int{}}
	if weighted {
		t.sourceWeights, t.destinationWeights = []int{}, []int{}
	}
	for _, e := range edges {
		if e.Out {
			t.destinations = append(t.destinations, e.Peer)
			if weighted {
				t.destinationWeights = append(t.destinationWeights, e.Weight)
			}
		} else {
			t.sources = append(t.sources, e.Peer)
			if weighted {
				t.sourceWeights = append(t.sourceWeights, e.Weight)
			}
		}
	}
	t.in, t.out = t.sources, t.destinations
	return t
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Weighted reports whether distributed graph t has weights.
func (t *Topology) Weighted() bool { return t.weighted }

// DistNeighbors returns this member's neighbours in distributed graph t: the ranks
// its in-edges come from and its out-edges go to, with the edges' weights (nil when
// the graph has none) (MPI_Dist_graph_neighbors). For a graph made by
// NewAdjacent the order is the one given there.
func (t *Topology) DistNeighbors() (sources, sourceWeights, destinations, destWeights []int) {
	return t.sources, t.sourceWeights, t.destinations, t.destinationWeights
}
