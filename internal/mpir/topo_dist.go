package mpir

import (
	"cmp"
	"encoding/binary"
	"maps"
	"slices"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/vtopo"
)

// Distributed graphs: each member names edges (its own, or any for
// MPI_Dist_graph_create); the members agree on whether the graph has weights, and
// the non-adjacent constructor sends each edge to both its ends.

// DistGraphCreateAdjacent makes the communicator of MPI_Dist_graph_create_adjacent
// over c, every member in it with its rank: this member receives from sources and
// sends to destinations, with weights (nil for MPI_UNWEIGHTED, an empty slice for
// MPI_WEIGHTS_EMPTY). bad is as for CartCreate. The graph must be consistent (j
// among i's destinations exactly when i is among j's sources); that is not checked.
func DistGraphCreateAdjacent(op string, c *core.Comm, bad error, sources, sourceWeights, destinations, destWeights []int, reorder bool) (*core.Comm, *Topology, error) {
	w, err := vtopo.CheckAdjacent(sources, sourceWeights, destinations, destWeights, c.Size())
	nc, weighted, err := distGraphComm(op, c, cmp.Or(bad, topoErr(op, err)), w, reorder)
	if err != nil {
		return nil, nil, err
	}
	return nc, vtopo.NewAdjacent(sources, sourceWeights, destinations, destWeights, weighted), nil
}

// DistGraphCreate makes the communicator of MPI_Dist_graph_create over c, every
// member in it with its rank: this member names, for each i, degrees[i] edges from
// sources[i] to the next degrees[i] entries of destinations, with weights as for
// DistGraphCreateAdjacent. bad is as for CartCreate. Each member's neighbours are
// listed by the member that named the edge, then in that member's order, so the same
// arguments give the same lists.
func DistGraphCreate(op string, c *core.Comm, bad error, sources, degrees, destinations, weights []int, reorder bool) (*core.Comm, *Topology, error) {
	w, err := vtopo.CheckDistGraph(sources, degrees, destinations, weights, c.Size())
	nc, weighted, err := distGraphComm(op, c, cmp.Or(bad, topoErr(op, err)), w, reorder)
	if err != nil {
		return nil, nil, err
	}
	t, err := exchangeEdges(op, nc, sources, degrees, destinations, weights, weighted)
	if err != nil {
		collective.Free(nc, op)
		return nil, nil, err
	}
	return nc, t, nil
}

// DistGraphDegrees checks MPI_Dist_graph_create's degrees and returns their sum, for
// a binding that must know how many destinations and weights to read.
func DistGraphDegrees(op string, degrees []int) (total int, err error) {
	total, err = vtopo.CheckDegrees(degrees)
	return total, topoErr(op, err)
}

// distGraphComm is the communicator of a distributed graph's constructor on c, once
// the members agree (local is this member's error, w what it said of weights), and
// whether the graph has weights.
func distGraphComm(op string, c *core.Comm, local error, w vtopo.Weights, reorder bool) (*core.Comm, bool, error) {
	if err := intra(op, c); err != nil {
		return nil, false, err
	}
	var h argHash
	h.bools(reorder)
	all, err := agree(op, c, local, h.sum(), uint64(w))
	if err != nil {
		return nil, false, err
	}
	weighted, err := vtopo.Weights(all).Weighted()
	if err != nil {
		return nil, false, topoErr(op, err)
	}
	nc, err := createFirst(op, c, c.Size())
	return nc, weighted, err
}

// exchangeEdges sends each edge named here to both its ends and collects the edges
// that end here, on nc's collective context. First the members add up, for every
// member, how many others will send to it; then each sends one message to each
// member it has edges for (nonblocking, so that no two wait on each other's sends)
// and receives the counted number, of whatever length, by matched probe.
func exchangeEdges(op string, nc *core.Comm, sources, degrees, destinations, weights []int, weighted bool) (*Topology, error) {
	me, n := nc.Rank(), nc.Size()
	edges, remote := vtopo.RouteEdges(me, sources, degrees, destinations, weights)

	counts := make([]byte, 8*n)
	for to := range remote {
		binary.LittleEndian.PutUint64(counts[8*to:], 1)
	}
	err := nc.InternalAllreduce(op, counts, 8, func(acc, in []byte) {
		for i := 0; i < len(acc); i += 8 {
			binary.LittleEndian.PutUint64(acc[i:], binary.LittleEndian.Uint64(acc[i:])+binary.LittleEndian.Uint64(in[i:]))
		}
	}, core.TagTopoCount)
	if err != nil {
		return nil, core.MapErr(op, err)
	}
	expect := int(binary.LittleEndian.Uint64(counts[8*me:]))

	var sends []core.Request
	defer func() {
		// On an early return, the sends still belong to the engine until they end.
		core.Waitall(sends, nil)
	}()
	for _, to := range slices.Sorted(maps.Keys(remote)) {
		q, err := nc.IsendInternal(remote[to], to, core.TagTopoEdges)
		if err != nil {
			return nil, core.MapErr(op, err)
		}
		sends = append(sends, q)
	}
	for range expect {
		b, err := nc.RecvAnyInternal(core.TagTopoEdges)
		if err != nil {
			return nil, core.MapErr(op, err)
		}
		if edges, err = vtopo.AppendEdges(edges, b); err != nil {
			return nil, topoErr(op, err)
		}
	}
	err = core.Waitall(sends, nil)
	sends = nil
	if err != nil {
		return nil, core.MapErr(op, err)
	}
	return vtopo.NewDistGraph(edges, weighted), nil
}
