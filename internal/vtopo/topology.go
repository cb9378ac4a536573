package vtopo

// Kind is the kind of a topology: the status MPI_Topo_test reports.
type Kind int

const (
	None      Kind = iota // no topology (MPI_UNDEFINED)
	Cart                  // a Cartesian grid (MPI_CART)
	Graph                 // a graph every member knows whole (MPI_GRAPH)
	DistGraph             // a distributed graph (MPI_DIST_GRAPH)
)

func (k Kind) String() string {
	switch k {
	case Cart:
		return "MPI_CART"
	case Graph:
		return "MPI_GRAPH"
	case DistGraph:
		return "MPI_DIST_GRAPH"
	}
	return "MPI_UNDEFINED"
}

// ProcNull is MPI_PROC_NULL, the neighbour beyond the edge of a non-periodic grid.
// It is the device's value, so that the neighbour lists go to it as they are.
const ProcNull = -2

// Topology is a process topology as one member of its communicator sees it: the
// whole grid or graph, or (a distributed graph) this member's edges, and this
// member's neighbours in the order of the neighbourhood collectives. A nil Topology
// is none.
type Topology struct {
	kind Kind

	// A grid: the extent of each dimension and whether it wraps around.
	dims    []int
	periods []bool

	// A graph, in MPI's compressed form: node i's neighbours are
	// edges[index[i-1]:index[i]] (index[-1] being 0).
	index, edges []int

	// A distributed graph: this member's in-edges (sources) and out-edges
	// (destinations) with their weights, nil when the graph has none.
	sources, sourceWeights           []int
	destinations, destinationWeights []int
	weighted                         bool

	// in and out are the neighbours the neighbourhood collectives receive from and
	// send to (MPI 4.1 section 8.6), worked out once since those ask on every call.
	in, out []int
}

// Kind is t's kind, None for a nil t.
func (t *Topology) Kind() Kind {
	if t == nil {
		return None
	}
	return t.kind
}

// Neighbors returns the ranks the neighbourhood collectives receive from (in) and
// send to (out), in the order MPI 4.1 section 8.6 defines, and whether t is a grid
// (whose -1 and +1 neighbours may be one rank, which the exchange must tell apart);
// ok is false for a nil t.
//
// A grid: for each dimension in order, the neighbour at -1 then the one at +1, both
// lists alike (2*ndims entries, ProcNull off a non-periodic edge). A graph: this
// member's neighbours as GraphNeighbors lists them, both lists alike. A distributed
// graph: its sources and destinations as DistNeighbors lists them.
func (t *Topology) Neighbors() (in, out []int, cart, ok bool) {
	if t == nil {
		return nil, nil, false, false
	}
	return t.in, t.out, t.kind == Cart, true
}
