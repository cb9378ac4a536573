package mpi

import (
	"slices"

	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// GraphCreate makes a communicator with a graph attached (MPI_Graph_create). The graph
// has len(index) nodes; node i's neighbours are edges[index[i-1]:index[i]], with
// index[-1] taken as 0, so index holds the running totals of the degrees. It is
// collective over c and every rank must pass the same graph. Ranks beyond the graph's
// nodes get nil (with no nodes, every rank does). Ranks keep their rank in c; reorder
// is accepted, and mpigo does not reorder yet. Self-loops and repeated edges are
// allowed, as in MPI since version 2.2.
func (c *Comm) GraphCreate(index, edges []int, reorder bool) (*Comm, error) {
	defer prof.Exit(prof.GraphCreate, c.enterRare(prof.GraphCreate, prof.NoPeer, 0), 0)
	if nc, done, err := c.aroundNew("GraphCreate", func(b *Comm) (*Comm, error) { return b.GraphCreate(index, edges, reorder) }); done {
		return nc, err
	}
	const op = "GraphCreate"
	if err := c.check(op); err != nil {
		return nil, err
	}
	nd, t, err := mpir.GraphCreate(op, c.d, nil, index, edges, reorder)
	return c.adopt(op, nd, t, err)
}

// Graphdims returns the number of nodes and of edges of c's graph (MPI_Graphdims_get).
func (c *Comm) Graphdims() (nnodes, nedges int, err error) {
	const op = "Graphdims"
	if err := c.check(op); err != nil {
		return 0, 0, err
	}
	nnodes, nedges, err = mpir.Graphdims(op, c.d, c.topo())
	return nnodes, nedges, c.fail(op, err)
}

// GraphGet returns c's graph as GraphCreate took it (MPI_Graph_get). The slices are
// the caller's.
func (c *Comm) GraphGet() (index, edges []int, err error) {
	const op = "GraphGet"
	if err := c.check(op); err != nil {
		return nil, nil, err
	}
	index, edges, err = mpir.GraphGet(op, c.d, c.topo())
	if err != nil {
		return nil, nil, c.fail(op, err)
	}
	return slices.Clone(index), slices.Clone(edges), nil
}

// GraphNeighborsCount returns the number of neighbours of rank in c's graph
// (MPI_Graph_neighbors_count).
func (c *Comm) GraphNeighborsCount(rank int) (int, error) {
	const op = "GraphNeighborsCount"
	if err := c.check(op); err != nil {
		return 0, err
	}
	nb, err := mpir.GraphNeighbors(op, c.d, c.topo(), rank)
	return len(nb), c.fail(op, err)
}

// GraphNeighbors returns the neighbours of rank in c's graph, in the order given to
// GraphCreate (MPI_Graph_neighbors). The slice is the caller's.
func (c *Comm) GraphNeighbors(rank int) ([]int, error) {
	const op = "GraphNeighbors"
	if err := c.check(op); err != nil {
		return nil, err
	}
	nb, err := mpir.GraphNeighbors(op, c.d, c.topo(), rank)
	if err != nil {
		return nil, c.fail(op, err)
	}
	return slices.Clone(nb), nil
}

// GraphMap returns the rank this process would have in GraphCreate(index, edges,
// true) on c, or Undefined if it would not be a node (MPI_Graph_map). It is local.
func (c *Comm) GraphMap(index, edges []int) (int, error) {
	const op = "GraphMap"
	if err := c.check(op); err != nil {
		return 0, err
	}
	r, err := mpir.GraphMap(op, c.d, index, edges)
	if err != nil {
		return 0, c.fail(op, err)
	}
	return r, nil
}
