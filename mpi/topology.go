package mpi

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
)

// Process topologies (MPI standard, chapter 8): a Cartesian grid, a graph, or a
// distributed graph attached to a new communicator. The topology and its rules are
// mpir's (and vtopo's, beneath it), shared with the C library; these methods convert
// arguments and results. Comm.topo is set before the communicator is handed out and
// never changed afterwards, so reading it needs no lock, and Dup may share it.

// TopoKind is the kind of topology attached to a communicator (the status of
// MPI_Topo_test).
type TopoKind int

const (
	TopoNone      TopoKind = iota // no topology (MPI_UNDEFINED)
	TopoCart                      // a Cartesian grid (MPI_CART)
	TopoGraph                     // a graph known to every rank (MPI_GRAPH)
	TopoDistGraph                 // a distributed graph (MPI_DIST_GRAPH)
)

func (k TopoKind) String() string { return mpir.TopoKind(k).String() } // the same values

// Topology reports the kind of topology attached to c, TopoNone for none or a nil
// communicator (MPI_Topo_test).
func (c *Comm) Topology() TopoKind {
	if c == nil {
		return TopoNone
	}
	return TopoKind(c.topo().Kind()) // the values are mpir's kinds
}

// neighbors returns the ranks a neighbourhood collective on c receives from (sources)
// and sends to (destinations), in the order MPI defines for each kind of topology
// (vtopo's Topology.Neighbors), and ok = false when c has none. The slices are the
// topology's and must not be modified.
func (c *Comm) neighbors() (sources, destinations []int, ok bool) {
	if c == nil {
		return nil, nil, false
	}
	sources, destinations, _, ok = c.topo().Neighbors()
	return sources, destinations, ok
}

// adopt is the end of a topology constructor on c: the device's communicator it made
// (nil for a rank left out), wrapped with topology t, or err through c's handler.
func (c *Comm) adopt(op string, nd *core.Comm, t *mpir.Topology, err error) (*Comm, error) {
	if err != nil {
		return nil, c.fail(op, err)
	}
	return newComm(c.obj().Derive(nd, t, nil)), nil
}

// topo is c's topology, nil for none (and a nil c).
func (c *Comm) topo() *mpir.Topology { return c.obj().Topo() }
