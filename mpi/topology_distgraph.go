package mpi

import (
	"slices"

	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// Unweighted, passed for the weights of DistGraphCreateAdjacent or DistGraphCreate,
// says the graph's edges have no weights (MPI_UNWEIGHTED). It is nil. To give weights
// where a rank has no edges (MPI_WEIGHTS_EMPTY), pass an empty, non-nil slice or
// Unweighted: a rank without edges does not decide whether the graph is weighted,
// unless no rank has edges, when empty slices make it weighted.
var Unweighted []int

// DistGraphCreateAdjacent makes a communicator with a distributed graph attached, each
// rank naming its own neighbours: the ranks it receives from (sources) and sends to
// (destinations), with their weights or Unweighted (MPI_Dist_graph_create_adjacent).
// Weights are non-negative. The graph must be consistent (j among i's destinations
// exactly when i is among j's sources); that is not checked. It is collective over c
// and every rank of c is in the new communicator, with its rank in c; reorder is
// accepted, and mpigo does not reorder yet.
func (c *Comm) DistGraphCreateAdjacent(sources, sourceWeights, destinations, destWeights []int, reorder bool) (*Comm, error) {
	defer prof.Exit(prof.DistGraphCreateAdjacent, c.enterRare(prof.DistGraphCreateAdjacent, prof.NoPeer, 0), 0)
	if nc, done, err := c.aroundNew("DistGraphCreateAdjacent", func(b *Comm) (*Comm, error) {
		return b.DistGraphCreateAdjacent(sources, sourceWeights, destinations, destWeights, reorder)
	}); done {
		return nc, err
	}
	const op = "DistGraphCreateAdjacent"
	if err := c.check(op); err != nil {
		return nil, err
	}
	nd, t, err := mpir.DistGraphCreateAdjacent(op, c.d, nil, sources, sourceWeights, destinations, destWeights, reorder)
	return c.adopt(op, nd, t, err)
}

// DistGraphCreate makes a communicator with a distributed graph attached, where each
// rank may name any edges of the graph, not only its own (MPI_Dist_graph_create): for
// each i, degrees[i] edges from sources[i] to the next degrees[i] entries of
// destinations, with weights (one per destination entry) or Unweighted. The ranks then
// exchange the edges so that each learns its own in- and out-neighbours. It is
// collective over c and every rank of c is in the new communicator, with its rank in
// c; reorder is accepted, and mpigo does not reorder yet.
//
// Each rank's neighbours are listed by the rank that named the edge, then in that
// rank's order, so repeated calls with the same arguments give the same lists.
func (c *Comm) DistGraphCreate(sources, degrees, destinations, weights []int, reorder bool) (*Comm, error) {
	defer prof.Exit(prof.DistGraphCreate, c.enterRare(prof.DistGraphCreate, prof.NoPeer, 0), 0)
	if nc, done, err := c.aroundNew("DistGraphCreate", func(b *Comm) (*Comm, error) {
		return b.DistGraphCreate(sources, degrees, destinations, weights, reorder)
	}); done {
		return nc, err
	}
	const op = "DistGraphCreate"
	if err := c.check(op); err != nil {
		return nil, err
	}
	nd, t, err := mpir.DistGraphCreate(op, c.d, nil, sources, degrees, destinations, weights, reorder)
	return c.adopt(op, nd, t, err)
}

// DistGraphNeighborsCount returns how many edges come in to this rank and go out of
// it in c's distributed graph, and whether the graph has weights
// (MPI_Dist_graph_neighbors_count).
func (c *Comm) DistGraphNeighborsCount() (indegree, outdegree int, weighted bool, err error) {
	const op = "DistGraphNeighborsCount"
	if err := c.check(op); err != nil {
		return 0, 0, false, err
	}
	s, _, d, _, weighted, err := mpir.DistGraphNeighbors(op, c.d, c.topo())
	return len(s), len(d), weighted, c.fail(op, err)
}

// DistGraphNeighbors returns this rank's neighbours in c's distributed graph: the
// ranks its in-edges come from and its out-edges go to, with the edges' weights (nil
// when the graph has none) (MPI_Dist_graph_neighbors). For a graph made by
// DistGraphCreateAdjacent the order is the one given there. The slices are the
// caller's.
func (c *Comm) DistGraphNeighbors() (sources, sourceWeights, destinations, destWeights []int, err error) {
	const op = "DistGraphNeighbors"
	if err := c.check(op); err != nil {
		return nil, nil, nil, nil, err
	}
	s, sw, d, dw, _, err := mpir.DistGraphNeighbors(op, c.d, c.topo())
	if err != nil {
		return nil, nil, nil, nil, c.fail(op, err)
	}
	return slices.Clone(s), slices.Clone(sw), slices.Clone(d), slices.Clone(dw), nil
}
