package vtopo

import "slices"

// CheckGraph checks a graph for a communicator of size members (MPI_Graph_create's
// and MPI_Graph_map's index and edges): len(index) nodes, node i's neighbours being
// edges[index[i-1]:index[i]] with index[-1] taken as 0. Self-loops and repeated
// edges are allowed, as in MPI since version 2.2.
func CheckGraph(index, edges []int, size int) error {
	nnodes := len(index)
	if nnodes > size {
		return errorf(ErrArg, "the graph has %d nodes, more than the %d ranks of the communicator", nnodes, size)
	}
	nedges, err := CheckIndex(index)
	if err != nil {
		return err
	}
	if nedges != len(edges) {
		return errorf(ErrArg, "index ends at %d but there are %d edges: the last entry of index must be the number of edges", nedges, len(edges))
	}
	for i, e := range edges {
		if e < 0 || e >= nnodes {
			return errorf(ErrRank, "edges[%d] = %d is not a node of the graph [0,%d)", i, e, nnodes)
		}
	}
	return nil
}

// CheckIndex checks a graph's index, the running totals of its nodes' degrees, and
// returns its number of edges: what a binding needs to know how many edges to read.
func CheckIndex(index []int) (nedges int, err error) {
	for i, x := range index {
		if x < nedges {
			return 0, errorf(ErrArg, "index[%d] = %d is less than %d before it: index holds running totals of the degrees", i, x, nedges)
		}
		nedges = x
	}
	return nedges, nil
}

// NewGraph is the graph of index and edges as the member of rank rank (a node of
// it) sees it. The arguments must have passed CheckGraph; NewGraph copies them.
func NewGraph(index, edges []int, rank int) *Topology {
	t := &Topology{kind: Graph, index: slices.Clone(index), edges: slices.Clone(edges)}
	if t.edges == nil {
		t.edges = []int{}
	}
	t.in = t.neighbors(rank)
	t.out = t.in
	return t
}

// GraphMap is the rank MPI_Graph_map gives the member of rank rank of a communicator
// of size members for the graph of index and edges: its own, since ranks are kept,
// and member false when the graph has fewer nodes than rank.
func GraphMap(index, edges []int, size, rank int) (newRank int, member bool, err error) {
	if err := CheckGraph(index, edges, size); err != nil || rank >= len(index) {
		return 0, false, err
	}
	return rank, true, nil
}

// Nnodes is the number of nodes of graph t.
func (t *Topology) Nnodes() int { return len(t.index) }

// Index is graph t's running totals of the degrees, as MPI_Graph_create took them.
func (t *Topology) Index() []int { return t.index }

// Edges is graph t's neighbours of every node, one node after another.
func (t *Topology) Edges() []int { return t.edges }

// GraphNeighbors returns the neighbours of node rank of graph t, in the order given
// to MPI_Graph_create (MPI_Graph_neighbors).
func (t *Topology) GraphNeighbors(rank int) ([]int, error) {
	if rank < 0 || rank >= len(t.index) {
		return nil, errorf(ErrRank, "rank %d out of range [0,%d)", rank, len(t.index))
	}
	return t.neighbors(rank), nil
}

func (t *Topology) neighbors(r int) []int {
	lo := 0
	if r > 0 {
		lo = t.index[r-1]
	}
	return t.edges[lo:t.index[r]:t.index[r]]
}
