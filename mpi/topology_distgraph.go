package mpi

import (
	"cmp"
	"encoding/binary"
	"maps"
	"slices"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// Unweighted, passed for the weights of DistGraphCreateAdjacent or DistGraphCreate,
// says the graph's edges have no weights (MPI_UNWEIGHTED). It is nil. To give weights
// where a rank has no edges (MPI_WEIGHTS_EMPTY), pass an empty, non-nil slice or
// Unweighted: a rank without edges does not decide whether the graph is weighted.
var Unweighted []int

// distGraphTopo is a distributed graph as one rank sees it: the ranks it receives
// from (its in-edges) and sends to (its out-edges), with weights when the graph has
// them. Unlike the other topologies it differs from rank to rank.
type distGraphTopo struct {
	sources, sourceWeights           []int
	destinations, destinationWeights []int
	weighted                         bool
}

// Flags the distributed-graph constructors agree on.
const (
	flagWeights    = 1 << 0 // some rank gave weights
	flagUnweighted = 1 << 1 // some rank with edges gave none
)

// checkWeights validates the weights of n edges and returns this rank's flags.
func checkWeights(op, what string, w []int, n int) (uint64, error) {
	switch {
	case w == nil && n > 0:
		return flagUnweighted, nil
	case w == nil:
		return 0, nil
	}
	if len(w) != n {
		return 0, errorf(ClassArg, op, "len(%s) = %d, want %d, one per edge (or Unweighted)", what, len(w), n)
	}
	if n == 0 {
		return 0, nil // weights for no edges say nothing about the graph
	}
	for i, x := range w {
		if x < 0 {
			return 0, errorf(ClassArg, op, "%s[%d] = %d must not be negative", what, i, x)
		}
	}
	return flagWeights, nil
}

// checkRanks checks that every entry of rs is a rank of a communicator of size ranks.
func checkRanks(op, what string, rs []int, size int) error {
	for i, r := range rs {
		if r < 0 || r >= size {
			return errorf(ClassRank, op, "%s[%d] = %d out of range [0,%d)", what, i, r, size)
		}
	}
	return nil
}

// weighted settles, from every rank's flags, whether the graph has weights: all ranks
// with edges must agree.
func weighted(op string, flags, mine uint64) (bool, error) {
	if flags&flagWeights != 0 && flags&flagUnweighted != 0 {
		if mine&(flagWeights|flagUnweighted) == flagWeights|flagUnweighted {
			return false, errorf(ClassArg, op, "this rank gave weights for some edges and Unweighted for others")
		}
		return false, errorf(ClassArg, op, "some ranks gave weights and some ranks with edges gave Unweighted: give weights on all or on none")
	}
	return flags&flagWeights != 0, nil
}

// DistGraphCreateAdjacent makes a communicator with a distributed graph attached, each
// rank naming its own neighbours: the ranks it receives from (sources) and sends to
// (destinations), with their weights or Unweighted (MPI_Dist_graph_create_adjacent).
// The graph must be consistent (j among i's destinations exactly when i is among j's
// sources); that is not checked. It is collective over c and every rank of c is in
// the new communicator, with its rank in c; reorder is accepted, and mpigo does not
// reorder yet.
func (c *Comm) DistGraphCreateAdjacent(sources, sourceWeights, destinations, destWeights []int, reorder bool) (*Comm, error) {
	defer prof.Exit(prof.DistGraphCreateAdjacent, c.enterRare(prof.DistGraphCreateAdjacent, prof.NoPeer, 0), 0)
	if nc, done, err := c.aroundNew("DistGraphCreateAdjacent", func(b *Comm) (*Comm, error) {
		return b.DistGraphCreateAdjacent(sources, sourceWeights, destinations, destWeights, reorder)
	}); done {
		return nc, err
	}
	const op = "DistGraphCreateAdjacent"
	if err := c.topoUsable(op); err != nil {
		return nil, err
	}
	var mine uint64
	err := checkRanks(op, "sources", sources, c.Size())
	if err == nil {
		err = checkRanks(op, "destinations", destinations, c.Size())
	}
	if err == nil {
		var f uint64
		f, err = checkWeights(op, "sourceWeights", sourceWeights, len(sources))
		mine |= f
	}
	if err == nil {
		var f uint64
		f, err = checkWeights(op, "destWeights", destWeights, len(destinations))
		mine |= f
	}
	var h argHash
	h.bools(reorder)
	flags, err := c.agree(op, err, h.sum(), mine)
	if err != nil {
		return nil, c.fail(op, err)
	}
	w, err := weighted(op, flags, mine)
	if err != nil {
		return nil, c.fail(op, err)
	}
	nc, err := c.createFirst(op, c.Size())
	if err != nil {
		return nil, c.fail(op, err)
	}
	t := &distGraphTopo{sources: slices.Clone(sources), destinations: slices.Clone(destinations), weighted: w}
	if w {
		t.sourceWeights = weightsOrZeros(sourceWeights, len(sources))
		t.destinationWeights = weightsOrZeros(destWeights, len(destinations))
	}
	nc.topo = t
	return nc, nil
}

// weightsOrZeros copies w; a rank without edges may have passed nil.
func weightsOrZeros(w []int, n int) []int {
	if w == nil {
		return make([]int, n)
	}
	return slices.Clone(w)
}

// edgeRec is an edge as DistGraphCreate sends it to one of its ends. by and at (the
// rank that named the edge and where in its list) order the neighbour lists, so that
// they come out the same whatever order the messages arrive in.
type edgeRec struct {
	out     bool // an out-edge of the receiver (else an in-edge)
	peer, w int
	by, at  int
}

const edgeRecBytes = 5 * 8

func (e edgeRec) append(b []byte) []byte {
	kind := uint64(0)
	if e.out {
		kind = 1
	}
	for _, v := range []uint64{kind, uint64(e.peer), uint64(e.w), uint64(e.by), uint64(e.at)} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

func decodeEdge(b []byte) edgeRec {
	g := func(i int) int { return int(binary.LittleEndian.Uint64(b[8*i:])) }
	return edgeRec{out: g(0) == 1, peer: g(1), w: g(2), by: g(3), at: g(4)}
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
	if err := c.topoUsable(op); err != nil {
		return nil, err
	}
	var mine uint64
	err := func() error {
		if len(degrees) != len(sources) {
			return errorf(ClassArg, op, "len(degrees) = %d, want len(sources) = %d", len(degrees), len(sources))
		}
		if err := checkRanks(op, "sources", sources, c.Size()); err != nil {
			return err
		}
		total := 0
		for i, d := range degrees {
			if d < 0 {
				return errorf(ClassArg, op, "degrees[%d] = %d must not be negative", i, d)
			}
			total += d
		}
		if total != len(destinations) {
			return errorf(ClassArg, op, "the degrees add up to %d, but there are %d destinations", total, len(destinations))
		}
		if err := checkRanks(op, "destinations", destinations, c.Size()); err != nil {
			return err
		}
		f, err := checkWeights(op, "weights", weights, len(destinations))
		mine = f
		return err
	}()
	var h argHash
	h.bools(reorder)
	flags, err := c.agree(op, err, h.sum(), mine)
	if err != nil {
		return nil, c.fail(op, err)
	}
	w, err := weighted(op, flags, mine)
	if err != nil {
		return nil, c.fail(op, err)
	}
	nc, err := c.createFirst(op, c.Size())
	if err != nil {
		return nil, c.fail(op, err)
	}
	t, err := nc.exchangeEdges(op, sources, degrees, destinations, weights)
	if err != nil {
		nc.Free()
		return nil, c.fail(op, err)
	}
	t.weighted = w
	if !w {
		t.sourceWeights, t.destinationWeights = nil, nil
	}
	nc.topo = t
	return nc, nil
}

// exchangeEdges sends each edge named here to both its ends and collects the edges
// that end here, on nc's collective context. First the ranks add up, for every rank,
// how many others will send to it; then each sends one message to each rank it has
// edges for (nonblocking, so that no two ranks wait on each other's sends) and
// receives the counted number, of whatever length, by matched probe.
func (nc *Comm) exchangeEdges(op string, sources, degrees, destinations, weights []int) (*distGraphTopo, error) {
	me, n := nc.Rank(), nc.Size()
	outgoing := map[int][]byte{}
	var local []edgeRec
	add := func(to int, e edgeRec) {
		if to == me {
			local = append(local, e)
			return
		}
		outgoing[to] = e.append(outgoing[to])
	}
	k := 0
	for i, s := range sources {
		for range degrees[i] {
			d, wt := destinations[k], 0
			if weights != nil {
				wt = weights[k]
			}
			add(s, edgeRec{out: true, peer: d, w: wt, by: me, at: k})
			add(d, edgeRec{out: false, peer: s, w: wt, by: me, at: k})
			k++
		}
	}

	counts := make([]byte, 8*n)
	for to := range outgoing {
		binary.LittleEndian.PutUint64(counts[8*to:], 1)
	}
	err := nc.d.InternalAllreduce(op, counts, 8, func(acc, in []byte) {
		for i := 0; i < len(acc); i += 8 {
			binary.LittleEndian.PutUint64(acc[i:], binary.LittleEndian.Uint64(acc[i:])+binary.LittleEndian.Uint64(in[i:]))
		}
	}, core.TagTopoCount)
	if err != nil {
		return nil, mapErr(op, err)
	}
	expect := int(binary.LittleEndian.Uint64(counts[8*me:]))

	var sends []core.Request
	defer func() {
		// On an early return, the sends still belong to the engine until they end.
		core.Waitall(sends, nil)
	}()
	for _, to := range slices.Sorted(maps.Keys(outgoing)) {
		q, err := nc.d.IsendInternal(outgoing[to], to, core.TagTopoEdges)
		if err != nil {
			return nil, mapErr(op, err)
		}
		sends = append(sends, q)
	}
	recs := local
	for range expect {
		buf, err := nc.d.RecvAnyInternal(core.TagTopoEdges)
		if err != nil {
			return nil, mapErr(op, err)
		}
		for off := 0; off+edgeRecBytes <= len(buf); off += edgeRecBytes {
			recs = append(recs, decodeEdge(buf[off:]))
		}
	}
	if err := core.Waitall(sends, nil); err != nil {
		sends = nil
		return nil, mapErr(op, err)
	}
	sends = nil

	slices.SortFunc(recs, func(a, b edgeRec) int {
		return cmp.Or(cmp.Compare(a.by, b.by), cmp.Compare(a.at, b.at), cmp.Compare(boolInt(a.out), boolInt(b.out)))
	})
	t := &distGraphTopo{sources: []int{}, destinations: []int{}, sourceWeights: []int{}, destinationWeights: []int{}}
	for _, e := range recs {
		if e.out {
			t.destinations = append(t.destinations, e.peer)
			t.destinationWeights = append(t.destinationWeights, e.w)
		} else {
			t.sources = append(t.sources, e.peer)
			t.sourceWeights = append(t.sourceWeights, e.w)
		}
	}
	return t, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// distGraph returns c's distributed graph, or an error naming op when c has none.
func (c *Comm) distGraph(op string) (*distGraphTopo, error) {
	if err := c.check(op); err != nil {
		return nil, err
	}
	t, ok := c.topo.(*distGraphTopo)
	if !ok {
		return nil, c.fail(op, noTopo(c, op, TopoDistGraph))
	}
	return t, nil
}

// DistGraphNeighborsCount returns how many edges come in to this rank and go out of
// it in c's distributed graph, and whether the graph has weights
// (MPI_Dist_graph_neighbors_count).
func (c *Comm) DistGraphNeighborsCount() (indegree, outdegree int, weighted bool, err error) {
	t, err := c.distGraph("DistGraphNeighborsCount")
	if err != nil {
		return 0, 0, false, err
	}
	return len(t.sources), len(t.destinations), t.weighted, nil
}

// DistGraphNeighbors returns this rank's neighbours in c's distributed graph: the
// ranks its in-edges come from and its out-edges go to, with the edges' weights (nil
// when the graph has none) (MPI_Dist_graph_neighbors). For a graph made by
// DistGraphCreateAdjacent the order is the one given there. The slices are the
// caller's.
func (c *Comm) DistGraphNeighbors() (sources, sourceWeights, destinations, destWeights []int, err error) {
	t, err := c.distGraph("DistGraphNeighbors")
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return slices.Clone(t.sources), slices.Clone(t.sourceWeights), slices.Clone(t.destinations), slices.Clone(t.destinationWeights), nil
}
