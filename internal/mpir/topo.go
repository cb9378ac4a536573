package mpir

import (
	"cmp"
	"encoding/binary"
	"errors"
	"hash/fnv"
	"math"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/group"
	"github.com/mpigo/mpigo/internal/vtopo"
)

// Process topologies (MPI 4.1 chapter 8) over a communicator. The topology itself is
// vtopo's, a value the face keeps beside its communicator: set once, when the
// communicator is made, never changed (so read without a lock), and shared by a
// duplicate, which keeps each member's rank. The constructors here do what needs the
// communicator:
//
//   - Agreement. Each member checks its own arguments; then all exchange whether they
//     passed, a hash of what must be the same everywhere and what they said about
//     weights (agree). A constructor fails on every member or on none: without this a
//     member that rejected its arguments would return while the others waited for it
//     in the creation of the new communicator, a hang instead of an error.
//   - Reorder. It is accepted, and every member keeps its rank, as MPI allows (so
//     CartMap and GraphMap answer with the caller's rank). A grid or graph of fewer
//     points than the communicator has members leaves the others out: they get no
//     communicator (MPI_COMM_NULL) and no error.
//   - The new communicator inherits nothing here: the face wraps the device's
//     communicator in its own object (with the parent's error handler, as MPI asks
//     of every constructor) and attaches the topology.
//
// The queries check the communicator's kind of topology and give vtopo's errors
// their MPI classes, so both faces say the same, with the same class.

// The topology types, as the faces name them.
type (
	Topology = vtopo.Topology
	TopoKind = vtopo.Kind
)

const (
	TopoNone      = vtopo.None
	TopoCart      = vtopo.Cart
	TopoGraph     = vtopo.Graph
	TopoDistGraph = vtopo.DistGraph
)

// vtopo writes MPI_PROC_NULL into the neighbour lists the device reads: the two must
// be one value (these constants do not compile otherwise).
const (
	_ uint = vtopo.ProcNull - core.ProcNull
	_ uint = core.ProcNull - vtopo.ProcNull
)

// topoErr gives a vtopo error its MPI class, for the call op.
func topoErr(op string, err error) error {
	if err == nil {
		return nil
	}
	class := core.ClassArg
	switch {
	case errors.Is(err, vtopo.ErrDims):
		class = core.ClassDims
	case errors.Is(err, vtopo.ErrRank):
		class = core.ClassRank
	case errors.Is(err, vtopo.ErrTopology):
		class = core.ClassTopology
	}
	return core.Wrap(class, op, "", err)
}

// DimsCreate fills the zero entries of dims with a balanced grid of nnodes points
// (MPI_Dims_create; vtopo.DimsCreate says how). It is local and needs no Init.
func DimsCreate(op string, nnodes int, dims []int) error {
	return topoErr(op, vtopo.DimsCreate(nnodes, dims))
}

// intra checks that c can take a topology: an intracommunicator. The face has
// checked c is a live communicator.
func intra(op string, c *core.Comm) error {
	if c.IsInter() {
		return core.Errorf(core.ClassComm, op, "communicator %q is an intercommunicator; topologies need an intracommunicator", c.Name())
	}
	return nil
}

// needKind checks that t, c's topology, is of kind want.
func needKind(op string, c *core.Comm, t *Topology, want TopoKind) error {
	if t.Kind() != want {
		return core.Errorf(core.ClassTopology, op, "communicator %q has topology %v, not %v", c.Name(), t.Kind(), want)
	}
	return nil
}

// agree makes a constructor fail on every member of c or on none. local is this
// member's error (nil if its arguments passed); same hashes the arguments that must
// be the same everywhere; flags are ORed over the members and returned. The error is
// local itself where it failed, and elsewhere one naming the lowest member that
// failed, with its class.
func agree(op string, c *core.Comm, local error, same, flags uint64) (uint64, error) {
	const none = math.MaxUint64
	buf := make([]byte, 8*5)
	put := func(i int, v uint64) { binary.LittleEndian.PutUint64(buf[8*i:], v) }
	get := func(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[8*i:]) }
	put(0, none) // the lowest rank whose arguments were bad
	if local != nil {
		put(0, uint64(c.Rank()))
		put(1, uint64(core.ClassOf(local)))
	}
	put(2, same)
	put(3, 0) // 1: two members' hashes differ
	put(4, flags)
	err := c.InternalAllreduce(op, buf, len(buf), func(acc, in []byte) {
		if get(in, 0) < get(acc, 0) {
			copy(acc[:16], in[:16])
		}
		// Every subtree compares its root's hash with each child subtree's, so an
		// unflagged result means every member's hash matched.
		if get(in, 2) != get(acc, 2) || get(in, 3) != 0 {
			binary.LittleEndian.PutUint64(acc[24:], 1)
		}
		binary.LittleEndian.PutUint64(acc[32:], get(acc, 4)|get(in, 4))
	}, core.TagTopoAgree)
	switch {
	case err != nil:
		return 0, core.MapErr(op, err)
	case local != nil:
		return 0, local
	case get(buf, 0) != none:
		return 0, core.Errorf(core.ErrorClass(get(buf, 1)), op,
			"rank %d of %q passed invalid arguments (its error says which); no rank created a communicator", get(buf, 0), c.Name())
	case get(buf, 3) != 0:
		return 0, core.Errorf(core.ClassArg, op,
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

// createFirst makes the communicator of c's first n members, collectively over all
// of c (which agreed on n); the others get nil.
func createFirst(op string, c *core.Comm, n int) (*core.Comm, error) {
	if n == 0 {
		return nil, nil // every member agreed on n, so none waits
	}
	g := c.Group()
	if n < c.Size() {
		var err error
		if g, err = g.RangeIncl([]group.Range{{First: 0, Last: n - 1, Stride: 1}}); err != nil {
			return nil, core.GroupErr(op, err)
		}
	}
	return collective.Create(c, op, g, nil)
}

// CartCreate makes the communicator of MPI_Cart_create over c, a live communicator:
// the grid dims, periodic where periods says, on c's first members (nil on the others,
// with no error). bad is an error the face met converting its arguments (a NULL
// array), nil if none: it fails every member, as the checks here do. Every member
// must pass the same dims, periods and reorder.
func CartCreate(op string, c *core.Comm, bad error, dims []int, periods []bool, reorder bool) (*core.Comm, *Topology, error) {
	if err := intra(op, c); err != nil {
		return nil, nil, err
	}
	n, err := vtopo.CheckCart(dims, periods, c.Size())
	var h argHash
	h.ints(dims...)
	h.bools(periods...)
	h.bools(reorder)
	if _, err := agree(op, c, cmp.Or(bad, topoErr(op, err)), h.sum(), 0); err != nil {
		return nil, nil, err
	}
	nc, err := createFirst(op, c, n)
	if err != nil || nc == nil {
		return nil, nil, err
	}
	return nc, vtopo.NewCart(dims, periods, nc.Rank()), nil
}

// CartSub makes the communicator of MPI_Cart_sub over c, whose topology is t: the
// subgrid of the dimensions where remain is true that holds this member. bad is as
// for CartCreate. Every member must pass the same remain.
func CartSub(op string, c *core.Comm, t *Topology, bad error, remain []bool) (*core.Comm, *Topology, error) {
	if err := needKind(op, c, t, TopoCart); err != nil {
		return nil, nil, err
	}
	color, key, dims, periods, err := t.Sub(remain, c.Rank())
	var h argHash
	h.bools(remain...)
	if _, err := agree(op, c, cmp.Or(bad, topoErr(op, err)), h.sum(), 0); err != nil {
		return nil, nil, err
	}
	nc, err := collective.Split(c, op, color, key, nil)
	if err != nil {
		return nil, nil, err
	}
	return nc, vtopo.NewCart(dims, periods, nc.Rank()), nil
}

// CartMap is MPI_Cart_map on c: the rank this member would have in CartCreate of the
// grid with reorder, core.Undefined if it would be outside it. It is local.
func CartMap(op string, c *core.Comm, dims []int, periods []bool) (int, error) {
	if err := intra(op, c); err != nil {
		return 0, err
	}
	r, member, err := vtopo.CartMap(dims, periods, c.Size(), c.Rank())
	if err != nil || !member {
		return core.Undefined, topoErr(op, err)
	}
	return r, nil
}

// GraphCreate makes the communicator of MPI_Graph_create over c: the graph of index
// and edges on c's first len(index) members (nil on the others, with no error). bad
// is as for CartCreate. Every member must pass the same graph and reorder.
func GraphCreate(op string, c *core.Comm, bad error, index, edges []int, reorder bool) (*core.Comm, *Topology, error) {
	if err := intra(op, c); err != nil {
		return nil, nil, err
	}
	err := vtopo.CheckGraph(index, edges, c.Size())
	var h argHash
	h.ints(index...)
	h.ints(edges...)
	h.bools(reorder)
	if _, err := agree(op, c, cmp.Or(bad, topoErr(op, err)), h.sum(), 0); err != nil {
		return nil, nil, err
	}
	nc, err := createFirst(op, c, len(index))
	if err != nil || nc == nil {
		return nil, nil, err
	}
	return nc, vtopo.NewGraph(index, edges, nc.Rank()), nil
}

// GraphIndex checks a graph's index (the running totals of the degrees) and returns
// its number of edges, for a binding that must know how many to read.
func GraphIndex(op string, index []int) (nedges int, err error) {
	nedges, err = vtopo.CheckIndex(index)
	return nedges, topoErr(op, err)
}

// GraphMap is MPI_Graph_map on c: the rank this member would have in GraphCreate of
// the graph with reorder, core.Undefined if it would not be a node. It is local.
func GraphMap(op string, c *core.Comm, index, edges []int) (int, error) {
	if err := intra(op, c); err != nil {
		return 0, err
	}
	r, member, err := vtopo.GraphMap(index, edges, c.Size(), c.Rank())
	if err != nil || !member {
		return core.Undefined, topoErr(op, err)
	}
	return r, nil
}

// Cartdim is the number of dimensions of c's grid t (MPI_Cartdim_get).
func Cartdim(op string, c *core.Comm, t *Topology) (int, error) {
	if err := needKind(op, c, t, TopoCart); err != nil {
		return 0, err
	}
	return t.Ndims(), nil
}

// CartGet is c's grid t and this member's coordinates in it (MPI_Cart_get). dims and
// periods are t's, to be read only; coords is the caller's.
func CartGet(op string, c *core.Comm, t *Topology) (dims []int, periods []bool, coords []int, err error) {
	if err := needKind(op, c, t, TopoCart); err != nil {
		return nil, nil, nil, err
	}
	coords, err = t.Coords(c.Rank())
	return t.Dims(), t.Periods(), coords, topoErr(op, err)
}

// CartRank is the rank at coords in c's grid t (MPI_Cart_rank).
func CartRank(op string, c *core.Comm, t *Topology, coords []int) (int, error) {
	if err := needKind(op, c, t, TopoCart); err != nil {
		return 0, err
	}
	r, err := t.CartRank(coords)
	return r, topoErr(op, err)
}

// CartCoords is the coordinates of rank in c's grid t (MPI_Cart_coords), the
// caller's.
func CartCoords(op string, c *core.Comm, t *Topology, rank int) ([]int, error) {
	if err := needKind(op, c, t, TopoCart); err != nil {
		return nil, err
	}
	co, err := t.Coords(rank)
	return co, topoErr(op, err)
}

// CartShift is the ranks this member exchanges with in a shift by disp along
// dimension direction of c's grid t (MPI_Cart_shift).
func CartShift(op string, c *core.Comm, t *Topology, direction, disp int) (src, dest int, err error) {
	if err := needKind(op, c, t, TopoCart); err != nil {
		return 0, 0, err
	}
	src, dest, err = t.Shift(c.Rank(), direction, disp)
	return src, dest, topoErr(op, err)
}

// Graphdims is the number of nodes and of edges of c's graph t (MPI_Graphdims_get).
func Graphdims(op string, c *core.Comm, t *Topology) (nnodes, nedges int, err error) {
	if err := needKind(op, c, t, TopoGraph); err != nil {
		return 0, 0, err
	}
	return t.Nnodes(), len(t.Edges()), nil
}

// GraphGet is c's graph t as MPI_Graph_create took it (MPI_Graph_get), t's slices,
// to be read only.
func GraphGet(op string, c *core.Comm, t *Topology) (index, edges []int, err error) {
	if err := needKind(op, c, t, TopoGraph); err != nil {
		return nil, nil, err
	}
	return t.Index(), t.Edges(), nil
}

// GraphNeighbors is the neighbours of node rank of c's graph t, in the order given
// to MPI_Graph_create (MPI_Graph_neighbors; its length is MPI_Graph_neighbors_count),
// t's slice, to be read only.
func GraphNeighbors(op string, c *core.Comm, t *Topology, rank int) ([]int, error) {
	if err := needKind(op, c, t, TopoGraph); err != nil {
		return nil, err
	}
	nb, err := t.GraphNeighbors(rank)
	return nb, topoErr(op, err)
}

// DistGraphNeighbors is this member's neighbours in c's distributed graph t, with
// the edges' weights, nil when the graph has none (MPI_Dist_graph_neighbors; their
// lengths and t.Weighted() are MPI_Dist_graph_neighbors_count's answer): t's slices,
// to be read only. Another kind of topology is an error: MPI defines these queries
// on distributed graphs only.
func DistGraphNeighbors(op string, c *core.Comm, t *Topology) (sources, sourceWeights, destinations, destWeights []int, weighted bool, err error) {
	if err := needKind(op, c, t, TopoDistGraph); err != nil {
		return nil, nil, nil, nil, false, err
	}
	sources, sourceWeights, destinations, destWeights = t.DistNeighbors()
	return sources, sourceWeights, destinations, destWeights, t.Weighted(), nil
}

// Neighbors is what a neighbourhood collective on c, whose topology is t, exchanges
// along (vtopo's Topology.Neighbors): it fails when c has no topology. It allocates
// nothing.
func Neighbors(op string, c *core.Comm, t *Topology) (in, out []int, cart bool, err error) {
	in, out, cart, ok := t.Neighbors()
	if !ok {
		return nil, nil, false, core.Errorf(core.ClassTopology, op,
			"communicator %q has no process topology; the neighbourhood collectives need a Cartesian, graph or distributed graph one", c.Name())
	}
	return in, out, cart, nil
}
