package mpi

import (
	"slices"

	"github.com/mpigo/mpigo/internal/prof"
)

// graphTopo is a graph every member knows whole, in MPI's compressed form: the
// neighbours of node i are edges[index[i-1]:index[i]] (index[-1] being 0).
type graphTopo struct {
	index, edges []int
}

func (t *graphTopo) neighbors(r int) []int {
	lo := 0
	if r > 0 {
		lo = t.index[r-1]
	}
	return t.edges[lo:t.index[r]]
}

// checkGraph validates a graph for a communicator of size ranks. Self-loops and
// repeated edges are allowed, as in MPI since version 2.2.
func checkGraph(op string, index, edges []int, size int) error {
	nnodes := len(index)
	if nnodes > size {
		return errorf(ClassArg, op, "the graph has %d nodes (len(index)), more than the %d ranks of the communicator", nnodes, size)
	}
	prev := 0
	for i, x := range index {
		if x < prev {
			return errorf(ClassArg, op, "index[%d] = %d is less than %d before it: index holds running totals of the degrees", i, x, prev)
		}
		prev = x
	}
	if prev != len(edges) {
		return errorf(ClassArg, op, "index ends at %d but there are %d edges: the last entry of index must be len(edges)", prev, len(edges))
	}
	for i, e := range edges {
		if e < 0 || e >= nnodes {
			return errorf(ClassRank, op, "edges[%d] = %d is not a node of the graph [0,%d)", i, e, nnodes)
		}
	}
	return nil
}

// GraphCreate makes a communicator with a graph attached (MPI_Graph_create). The graph
// has len(index) nodes; node i's neighbours are edges[index[i-1]:index[i]], with
// index[-1] taken as 0, so index holds the running totals of the degrees. It is
// collective over c and every rank must pass the same graph. Ranks beyond the graph's
// nodes get nil (with no nodes, every rank does). Ranks keep their rank in c; reorder
// is accepted, and mpigo does not reorder yet.
func (c *Comm) GraphCreate(index, edges []int, reorder bool) (*Comm, error) {
	defer prof.Exit(prof.GraphCreate, c.enterRare(prof.GraphCreate, prof.NoPeer, 0), 0)
	if nc, done, err := c.aroundNew("GraphCreate", func(b *Comm) (*Comm, error) { return b.GraphCreate(index, edges, reorder) }); done {
		return nc, err
	}
	const op = "GraphCreate"
	if err := c.topoUsable(op); err != nil {
		return nil, err
	}
	err := checkGraph(op, index, edges, c.Size())
	var h argHash
	h.ints(index...)
	h.ints(edges...)
	h.bools(reorder)
	if _, err := c.agree(op, err, h.sum(), 0); err != nil {
		return nil, c.fail(op, err)
	}
	nc, err := c.createFirst(op, len(index))
	if err != nil || nc == nil {
		return nil, c.fail(op, err)
	}
	nc.topo = &graphTopo{index: slices.Clone(index), edges: slices.Clone(edges)}
	return nc, nil
}

// graph returns c's graph, or an error naming op when c has none.
func (c *Comm) graph(op string) (*graphTopo, error) {
	if err := c.check(op); err != nil {
		return nil, err
	}
	t, ok := c.topo.(*graphTopo)
	if !ok {
		return nil, c.fail(op, noTopo(c, op, TopoGraph))
	}
	return t, nil
}

// Graphdims returns the number of nodes and of edges of c's graph (MPI_Graphdims_get).
func (c *Comm) Graphdims() (nnodes, nedges int, err error) {
	t, err := c.graph("Graphdims")
	if err != nil {
		return 0, 0, err
	}
	return len(t.index), len(t.edges), nil
}

// GraphGet returns c's graph as GraphCreate took it (MPI_Graph_get). The slices are
// the caller's.
func (c *Comm) GraphGet() (index, edges []int, err error) {
	t, err := c.graph("GraphGet")
	if err != nil {
		return nil, nil, err
	}
	return slices.Clone(t.index), slices.Clone(t.edges), nil
}

// GraphNeighborsCount returns the number of neighbours of rank in c's graph
// (MPI_Graph_neighbors_count).
func (c *Comm) GraphNeighborsCount(rank int) (int, error) {
	nb, err := c.graphNeighbors("GraphNeighborsCount", rank)
	return len(nb), err
}

// GraphNeighbors returns the neighbours of rank in c's graph, in the order given to
// GraphCreate (MPI_Graph_neighbors). The slice is the caller's.
func (c *Comm) GraphNeighbors(rank int) ([]int, error) {
	nb, err := c.graphNeighbors("GraphNeighbors", rank)
	return slices.Clone(nb), err
}

func (c *Comm) graphNeighbors(op string, rank int) ([]int, error) {
	t, err := c.graph(op)
	if err != nil {
		return nil, err
	}
	if rank < 0 || rank >= len(t.index) {
		return nil, c.fail(op, errorf(ClassRank, op, "rank %d out of range [0,%d)", rank, len(t.index)))
	}
	return t.neighbors(rank), nil
}

// GraphMap returns the rank this process would have in GraphCreate(index, edges,
// true) on c, or Undefined if it would not be a node (MPI_Graph_map). It is local.
func (c *Comm) GraphMap(index, edges []int) (int, error) {
	const op = "GraphMap"
	if err := c.topoUsable(op); err != nil {
		return 0, err
	}
	if err := checkGraph(op, index, edges, c.Size()); err != nil {
		return 0, c.fail(op, err)
	}
	if c.Rank() >= len(index) {
		return Undefined, nil
	}
	return c.Rank(), nil
}
