package mpi

import (
	"encoding/binary"
	"hash/fnv"
	"math"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/group"
)

// Process topologies (MPI standard, chapter 8): a Cartesian grid, a graph, or a
// distributed graph attached to a new communicator. The topology lives in Comm.topo as
// one of *cartTopo, *graphTopo or *distGraphTopo. It is set before the communicator is
// handed out and never changed afterwards, so reading it needs no lock, and Dup may
// share the pointer.

// TopoKind is the kind of topology attached to a communicator (the status of
// MPI_Topo_test).
type TopoKind int

const (
	TopoNone      TopoKind = iota // no topology (MPI_UNDEFINED)
	TopoCart                      // a Cartesian grid (MPI_CART)
	TopoGraph                     // a graph known to every rank (MPI_GRAPH)
	TopoDistGraph                 // a distributed graph (MPI_DIST_GRAPH)
)

func (k TopoKind) String() string {
	switch k {
	case TopoCart:
		return "MPI_CART"
	case TopoGraph:
		return "MPI_GRAPH"
	case TopoDistGraph:
		return "MPI_DIST_GRAPH"
	}
	return "MPI_UNDEFINED"
}

// Topology reports the kind of topology attached to c, TopoNone for none or a nil
// communicator (MPI_Topo_test).
func (c *Comm) Topology() TopoKind {
	if c == nil {
		return TopoNone
	}
	switch c.topo.(type) {
	case *cartTopo:
		return TopoCart
	case *graphTopo:
		return TopoGraph
	case *distGraphTopo:
		return TopoDistGraph
	}
	return TopoNone
}

// neighbors returns the ranks a neighbourhood collective on c receives from (sources)
// and sends to (destinations), in the order MPI defines for each kind of topology, and
// ok = false when c has none. It is for the neighbourhood collectives
// (MPI_Neighbor_allgather and its kin); the slices may be shared with the topology and
// must not be modified.
//
// Cartesian: for each dimension in order, the neighbour at displacement -1 then the
// one at +1, both lists alike (2*ndims entries, ProcNull off a non-periodic edge).
// Graph: the neighbours of this rank, both lists alike. Distributed graph: the
// sources and destinations as created.
func (c *Comm) neighbors() (sources, destinations []int, ok bool) {
	if c == nil {
		return nil, nil, false
	}
	switch t := c.topo.(type) {
	case *cartTopo:
		return t.nbrs, t.nbrs, true
	case *graphTopo:
		nb := t.neighbors(c.Rank())
		return nb, nb, true
	case *distGraphTopo:
		return t.sources, t.destinations, true
	}
	return nil, nil, false
}

// topoUsable checks that c can take a topology constructor: a live intracommunicator.
func (c *Comm) topoUsable(op string) error {
	if err := c.check(op); err != nil {
		return err
	}
	if c.IsInter() {
		return errorf(ClassComm, op, "communicator %q is an intercommunicator; topologies need an intracommunicator", c.Name())
	}
	return nil
}

// agree makes a topology constructor fail on every rank or on none. Each rank checks
// its own arguments (local); then all exchange whether they passed, a hash of the
// arguments that must be the same everywhere, and some flags. Without this a rank that
// rejected its arguments would return while the others waited for it in the creation
// of the new communicator: a hang instead of an error. It returns the OR of every
// rank's flags.
func (c *Comm) agree(op string, local error, sameHash, flags uint64) (uint64, error) {
	const none = math.MaxUint64
	buf := make([]byte, 8*5)
	put := func(i int, v uint64) { binary.LittleEndian.PutUint64(buf[8*i:], v) }
	get := func(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[8*i:]) }
	put(0, none) // the lowest rank whose arguments were bad
	if local != nil {
		put(0, uint64(c.Rank()))
		put(1, uint64(ClassOf(local)))
	}
	put(2, sameHash)
	put(3, 0) // 1: two ranks' hashes differ
	put(4, flags)
	err := c.d.InternalAllreduce(op, buf, len(buf), func(acc, in []byte) {
		if get(in, 0) < get(acc, 0) {
			binary.LittleEndian.PutUint64(acc, get(in, 0))
			binary.LittleEndian.PutUint64(acc[8:], get(in, 1))
		}
		// Every subtree compares its root's hash with each child subtree's, so
		// an unflagged result means every rank's hash matched.
		if get(in, 2) != get(acc, 2) || get(in, 3) != 0 {
			binary.LittleEndian.PutUint64(acc[24:], 1)
		}
		binary.LittleEndian.PutUint64(acc[32:], get(acc, 4)|get(in, 4))
	}, core.TagTopoAgree)
	switch {
	case err != nil:
		return 0, mapErr(op, err)
	case local != nil:
		return 0, local
	case get(buf, 0) != none:
		return 0, errorf(ErrorClass(get(buf, 1)), op,
			"rank %d of %q passed invalid arguments (its error says which); no rank created a communicator", get(buf, 0), c.Name())
	case get(buf, 3) != 0:
		return 0, errorf(ClassArg, op,
			"the ranks of %q passed different arguments; every rank must pass the same ones", c.Name())
	}
	return get(buf, 4), nil
}

// argHash hashes integers (and booleans as 0/1) for agree.
type argHash struct{ b []byte }

func (h *argHash) ints(v ...int) {
	h.b = binary.LittleEndian.AppendUint64(h.b, uint64(len(v)))
	for _, x := range v {
		h.b = binary.LittleEndian.AppendUint64(h.b, uint64(x))
	}
}

func (h *argHash) bools(v ...bool) {
	h.b = binary.LittleEndian.AppendUint64(h.b, uint64(len(v)))
	for _, x := range v {
		if x {
			h.b = append(h.b, 1)
		} else {
			h.b = append(h.b, 0)
		}
	}
}

func (h *argHash) sum() uint64 {
	f := fnv.New64a()
	f.Write(h.b)
	return f.Sum64()
}

// createFirst makes the communicator of c's first n ranks, collectively over all of c;
// the other ranks get nil. Topology constructors keep each rank's rank (reorder is
// accepted and ignored), so the new group is a prefix of the old one. The new
// communicator inherits c's error handler, as MPI asks of every constructor.
func (c *Comm) createFirst(op string, n int) (*Comm, error) {
	if n == 0 {
		// Every rank agreed on n, so every rank returns nil here and none waits.
		return nil, nil
	}
	g := c.d.Group()
	if n < c.Size() {
		var err error
		if g, err = g.RangeIncl([]group.Range{{First: 0, Last: n - 1, Stride: 1}}); err != nil {
			return nil, groupErr(op, err)
		}
	}
	nd, err := c.d.Create(op, g)
	if err != nil {
		return nil, err
	}
	return wrapComm(c, nd), nil
}

// noTopo is the error of a topology query on a communicator of another kind.
func noTopo(c *Comm, op string, want TopoKind) error {
	return errorf(ClassTopology, op, "communicator %q has topology %v, not %v", c.Name(), c.Topology(), want)
}
