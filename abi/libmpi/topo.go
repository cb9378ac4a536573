package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"cmp"
	"encoding/binary"
	"maps"
	"slices"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/group"
	"github.com/mpigo/mpigo/internal/prof"
)

// Process topologies (MPI 4.1 chapter 8) on the C side: a topology is attached to a
// communicator when it is made and never changed, so reading it needs no lock and a
// duplicate shares it. Constructors keep each rank's rank (reorder is accepted and
// ignored) and agree before they create anything, so that a rank whose arguments are
// bad makes every rank fail instead of leaving the others waiting in the creation.
// The neighbour order of the neighbourhood collectives is worked out once, at
// creation.

const (
	topoCart      = 211 // MPI_CART
	topoGraph     = 212 // MPI_GRAPH
	topoDistGraph = 213 // MPI_DIST_GRAPH
	errDims       = 12
	undefined     = -32766
	cUnweighted   = 10 // MPI_UNWEIGHTED
	cWeightsEmpty = 11 // MPI_WEIGHTS_EMPTY
)

type topology struct {
	kind    int
	dims    []int // cart
	periods []bool
	index   []int // graph: running totals of the degrees
	edges   []int
	// dist graph: this rank's neighbours and their weights
	srcs, srcW, dsts, dstW []int
	weighted               bool
	// in, out: the neighbours the neighbourhood collectives receive from and send to.
	in, out []int
}

func (t *topology) coords(r int) []int {
	co := make([]int, len(t.dims))
	for i := len(t.dims) - 1; i >= 0; i-- {
		co[i] = r % t.dims[i]
		r /= t.dims[i]
	}
	return co
}

// rank is the rank at coords, wrapping periodic dimensions; ok false off the grid.
func (t *topology) rank(coords []int) (r int, ok bool) {
	for i, x := range coords {
		d := t.dims[i]
		if x < 0 || x >= d {
			if !t.periods[i] {
				return 0, false
			}
			x = ((x % d) + d) % d
		}
		r = r*d + x
	}
	return r, true
}

func (t *topology) shift(coords []int, dir, disp int) (src, dest int) {
	at := func(delta int) int {
		co := slices.Clone(coords)
		co[dir] += delta
		r, ok := t.rank(co)
		if !ok {
			return core.ProcNull
		}
		return r
	}
	return at(-disp), at(disp)
}

func (t *topology) graphNeighbors(r int) []int {
	lo := 0
	if r > 0 {
		lo = t.index[r-1]
	}
	return t.edges[lo:t.index[r]]
}

func newCart(dims []int, periods []bool, me int) *topology {
	t := &topology{kind: topoCart, dims: dims, periods: periods}
	co := t.coords(me)
	for d := range dims {
		s, e := t.shift(co, d, 1)
		t.in = append(t.in, s, e)
	}
	t.out = t.in
	return t
}

// agree makes a collective constructor fail on every rank or none: each rank's local
// error, and the lowest failing rank's class, are combined over c.
func agree(op string, c *comm, local error) error {
	const none = ^uint64(0)
	buf := make([]byte, 16)
	binary.LittleEndian.PutUint64(buf, none)
	if local != nil {
		binary.LittleEndian.PutUint64(buf, uint64(c.c.Rank()))
		binary.LittleEndian.PutUint64(buf[8:], uint64(codeOf(local)))
	}
	err := c.c.InternalAllreduce(op, buf, 16, func(acc, in []byte) {
		if binary.LittleEndian.Uint64(in) < binary.LittleEndian.Uint64(acc) {
			copy(acc, in)
		}
	}, core.TagTopoAgree)
	switch {
	case err != nil:
		return err
	case local != nil:
		return local
	case binary.LittleEndian.Uint64(buf) != none:
		return errorf(int32(binary.LittleEndian.Uint64(buf[8:])), op,
			"rank %d passed invalid arguments (its error says which); no rank created a communicator", binary.LittleEndian.Uint64(buf))
	}
	return nil
}

// topoComm checks a constructor's communicator: a live intracommunicator.
func topoComm(op string, h uintptr) (*comm, int32) {
	c, r := needComm(op, h)
	if c == nil {
		return nil, r
	}
	if c.c.IsInter() {
		return nil, fail(op, h, errorf(errComm, op, "comm is an intercommunicator; topologies need an intracommunicator"))
	}
	return c, 0
}

// createFirst makes the communicator of c's first n ranks with topology t (made by
// mk for the new rank), MPI_COMM_NULL on the others.
func createFirst(op string, c *comm, ch uintptr, n int, mk func(me int) *topology, out unsafe.Pointer) int32 {
	if out == nil {
		return fail(op, ch, errorf(errArg, op, "the new communicator's address is NULL"))
	}
	if n == 0 {
		setHandle(out, hCommNull)
		return 0
	}
	g := c.c.Group()
	if n < c.c.Size() {
		var err error
		if g, err = g.RangeIncl([]group.Range{{First: 0, Last: n - 1, Stride: 1}}); err != nil {
			return fail(op, ch, core.GroupErr(op, err))
		}
	}
	nc, err := c.c.Create(op, g)
	if err != nil {
		return fail(op, ch, err)
	}
	h := newComm(nc, c)
	if nc != nil {
		comms.get(h).topo = mk(nc.Rank())
	}
	setHandle(out, h)
	return 0
}

func checkCart(op string, dims []int32, periods []int32, size int) (int, error) {
	n := 1
	for i, d := range dims {
		if d <= 0 {
			return 0, errorf(errDims, op, "dims[%d] = %d must be positive", i, d)
		}
		if int(d) > size/n {
			return 0, errorf(errDims, op, "the grid %v has more points than the %d ranks of comm_old", dims, size)
		}
		n *= int(d)
	}
	return n, nil
}

//export PMPI_Cart_create
func PMPI_Cart_create(ch uintptr, ndims int32, dimsP, periodsP unsafe.Pointer, reorder int32, out unsafe.Pointer) int32 {
	const op = "Cart_create"
	c, r := topoComm(op, ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.CartCreate, c.enterTimed(prof.CartCreate, prof.NoPeer, -1, 0), 0)
	var err error
	if ndims < 0 {
		err = errorf(errArg, op, "ndims %d is negative", ndims)
	}
	dims, periods := ints(dimsP, int(ndims)), ints(periodsP, int(ndims))
	n := 1
	if err == nil {
		n, err = checkCart(op, dims, periods, c.c.Size())
	}
	if err := agree(op, c, err); err != nil {
		return fail(op, ch, err)
	}
	d, p := toInts(dims), make([]bool, ndims)
	for i := range p {
		p[i] = periods[i] != 0
	}
	return createFirst(op, c, ch, n, func(me int) *topology { return newCart(d, p, me) }, out)
}

// topoOf is communicator ch and its topology, which must be of kind.
func topoOf(op string, ch uintptr, kind int) (*comm, *topology, int32) {
	c, r := needComm(op, ch)
	if c == nil {
		return nil, nil, r
	}
	if c.topo == nil || c.topo.kind != kind {
		return nil, nil, fail(op, ch, errorf(errTopology, op, "comm has no %s topology", map[int]string{
			topoCart: "Cartesian", topoGraph: "graph", topoDistGraph: "distributed graph"}[kind]))
	}
	return c, c.topo, 0
}

//export PMPI_Cartdim_get
func PMPI_Cartdim_get(ch uintptr, ndims unsafe.Pointer) int32 {
	_, t, r := topoOf("Cartdim_get", ch, topoCart)
	if t == nil {
		return r
	}
	setInt(ndims, len(t.dims))
	return 0
}

//export PMPI_Cart_get
func PMPI_Cart_get(ch uintptr, maxdims int32, dimsP, periodsP, coordsP unsafe.Pointer) int32 {
	const op = "Cart_get"
	c, t, r := topoOf(op, ch, topoCart)
	if t == nil {
		return r
	}
	n := min(int(maxdims), len(t.dims))
	if maxdims < 0 {
		return fail(op, ch, errorf(errArg, op, "maxdims %d is negative", maxdims))
	}
	co := t.coords(c.c.Rank())
	d, p, k := ints(dimsP, n), ints(periodsP, n), ints(coordsP, n)
	for i := range n {
		if d != nil {
			d[i] = int32(t.dims[i])
		}
		if p != nil {
			p[i] = int32(boolInt(t.periods[i]))
		}
		if k != nil {
			k[i] = int32(co[i])
		}
	}
	return 0
}

//export PMPI_Cart_rank
func PMPI_Cart_rank(ch uintptr, coordsP, rank unsafe.Pointer) int32 {
	const op = "Cart_rank"
	_, t, r := topoOf(op, ch, topoCart)
	if t == nil {
		return r
	}
	co := toInts(ints(coordsP, len(t.dims)))
	if len(t.dims) > 0 && co == nil {
		return fail(op, ch, errorf(errArg, op, "coords is NULL"))
	}
	rk, ok := t.rank(co)
	if !ok {
		return fail(op, ch, errorf(errArg, op, "coords %v are off the grid %v in a non-periodic dimension", co, t.dims))
	}
	setInt(rank, rk)
	return 0
}

//export PMPI_Cart_coords
func PMPI_Cart_coords(ch uintptr, rank, maxdims int32, coordsP unsafe.Pointer) int32 {
	const op = "Cart_coords"
	c, t, r := topoOf(op, ch, topoCart)
	if t == nil {
		return r
	}
	if rank < 0 || int(rank) >= c.c.Size() {
		return fail(op, ch, errorf(errRank, op, "rank %d is not in [0,%d)", rank, c.c.Size()))
	}
	if int(maxdims) < len(t.dims) {
		return fail(op, ch, errorf(errArg, op, "maxdims %d is less than the grid's %d dimensions", maxdims, len(t.dims)))
	}
	k := ints(coordsP, len(t.dims))
	for i, x := range t.coords(int(rank)) {
		k[i] = int32(x)
	}
	return 0
}

//export PMPI_Cart_shift
func PMPI_Cart_shift(ch uintptr, dir, disp int32, src, dest unsafe.Pointer) int32 {
	const op = "Cart_shift"
	c, t, r := topoOf(op, ch, topoCart)
	if t == nil {
		return r
	}
	if dir < 0 || int(dir) >= len(t.dims) {
		return fail(op, ch, errorf(errArg, op, "direction %d is not a dimension of the grid [0,%d)", dir, len(t.dims)))
	}
	s, d := t.shift(t.coords(c.c.Rank()), int(dir), int(disp))
	setInt(src, int(rankOut(s)))
	setInt(dest, int(rankOut(d)))
	return 0
}

//export PMPI_Cart_sub
func PMPI_Cart_sub(ch uintptr, remainP, out unsafe.Pointer) int32 {
	const op = "Cart_sub"
	c, t, r := topoOf(op, ch, topoCart)
	if t == nil {
		return r
	}
	defer prof.Exit(prof.CartSub, c.enterTimed(prof.CartSub, prof.NoPeer, -1, 0), 0)
	remain := ints(remainP, len(t.dims))
	if len(t.dims) > 0 && remain == nil {
		return fail(op, ch, errorf(errArg, op, "remain_dims is NULL"))
	}
	// Colour by the dropped coordinates, key by the kept ones: row-major order of the
	// kept coordinates is the subgrid's rank order.
	co := t.coords(c.c.Rank())
	color, key := 0, 0
	var dims []int
	var periods []bool
	for i, keep := range remain {
		if keep != 0 {
			key = key*t.dims[i] + co[i]
			dims = append(dims, t.dims[i])
			periods = append(periods, t.periods[i])
		} else {
			color = color*t.dims[i] + co[i]
		}
	}
	nc, err := c.c.Split(op, color, key)
	if err != nil {
		return fail(op, ch, err)
	}
	if out == nil {
		return fail(op, ch, errorf(errArg, op, "newcomm is NULL"))
	}
	h := newComm(nc, c)
	comms.get(h).topo = newCart(dims, periods, nc.Rank())
	setHandle(out, h)
	return 0
}

//export PMPI_Cart_map
func PMPI_Cart_map(ch uintptr, ndims int32, dimsP, periodsP, newrank unsafe.Pointer) int32 {
	const op = "Cart_map"
	c, r := topoComm(op, ch)
	if c == nil {
		return r
	}
	n, err := checkCart(op, ints(dimsP, int(ndims)), ints(periodsP, int(ndims)), c.c.Size())
	if err != nil {
		return fail(op, ch, err)
	}
	if c.c.Rank() >= n {
		setInt(newrank, undefined)
	} else {
		setInt(newrank, c.c.Rank())
	}
	return 0
}

//export PMPI_Dims_create
func PMPI_Dims_create(nnodes, ndims int32, dimsP unsafe.Pointer) int32 {
	const op = "Dims_create"
	if nnodes < 1 || ndims < 0 {
		return fail(op, 0, errorf(errArg, op, "nnodes %d must be positive and ndims %d not negative", nnodes, ndims))
	}
	dims := ints(dimsP, int(ndims))
	fixed, free := 1, 0
	for i, d := range dims {
		switch {
		case d < 0:
			return fail(op, 0, errorf(errDims, op, "dims[%d] = %d is negative", i, d))
		case d == 0:
			free++
		default:
			if int(d) > int(nnodes)/fixed {
				return fail(op, 0, errorf(errDims, op, "the fixed dims multiply to more than nnodes %d", nnodes))
			}
			fixed *= int(d)
		}
	}
	if int(nnodes)%fixed != 0 || free == 0 && fixed != int(nnodes) {
		return fail(op, 0, errorf(errDims, op, "nnodes %d is not a multiple of %d, the product of the fixed dims", nnodes, fixed))
	}
	if free == 0 {
		return 0
	}
	f := balanced(int(nnodes)/fixed, free)
	k := 0
	for i := range dims {
		if dims[i] == 0 {
			dims[i] = int32(f[k])
			k++
		}
	}
	return 0
}

// balanced is the k factors of n, non-increasing, whose largest minus smallest is
// least (ties: the smaller largest): 16 in three dimensions is 4x2x2. It searches the
// non-increasing factorisations by divisors, which are few for a C int.
func balanced(n, k int) []int {
	var divs []int
	for d := 1; d*d <= n; d++ {
		if n%d == 0 {
			divs = append(divs, d)
			if d != n/d {
				divs = append(divs, n/d)
			}
		}
	}
	slices.Sort(divs)
	var best []int
	cur := make([]int, 0, k)
	var rec func(rest, maxF, left int)
	rec = func(rest, maxF, left int) {
		if left == 0 {
			if rest != 1 {
				return
			}
			if best == nil || better(cur, best) {
				best = slices.Clone(cur)
			}
			return
		}
		if best != nil && len(cur) > 0 && cur[0]-iroot(rest, left) > best[0]-best[len(best)-1] {
			return // even an even split of the rest cannot beat best
		}
		for i := len(divs) - 1; i >= 0; i-- {
			d := divs[i]
			if d > maxF || rest%d != 0 {
				continue
			}
			if ipow(d, left) < rest {
				break // the remaining factors could not reach rest
			}
			cur = append(cur, d)
			rec(rest/d, d, left-1)
			cur = cur[:len(cur)-1]
		}
	}
	rec(n, n, k)
	return best
}

func better(a, b []int) bool {
	da, db := a[0]-a[len(a)-1], b[0]-b[len(b)-1]
	return da < db || da == db && a[0] < b[0]
}

func ipow(d, m int) int {
	p := 1
	for range m {
		if p > 1<<31/max(d, 1) {
			return 1 << 32
		}
		p *= d
	}
	return p
}

func iroot(x, m int) int {
	r := 1
	for ipow(r+1, m) <= x {
		r++
	}
	return r
}

// --- graphs ---

func checkGraph(op string, index, edges []int, size int) error {
	if len(index) > size {
		return errorf(errArg, op, "the graph has %d nodes, more than the %d ranks of comm_old", len(index), size)
	}
	prev := 0
	for i, x := range index {
		if x < prev {
			return errorf(errArg, op, "index[%d] = %d is less than %d before it: index holds running totals of the degrees", i, x, prev)
		}
		prev = x
	}
	for i, e := range edges {
		if e < 0 || e >= len(index) {
			return errorf(errRank, op, "edges[%d] = %d is not a node of the graph [0,%d)", i, e, len(index))
		}
	}
	return nil
}

//export PMPI_Graph_create
func PMPI_Graph_create(ch uintptr, nnodes int32, indexP, edgesP unsafe.Pointer, reorder int32, out unsafe.Pointer) int32 {
	const op = "Graph_create"
	c, r := topoComm(op, ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.GraphCreate, c.enterTimed(prof.GraphCreate, prof.NoPeer, -1, 0), 0)
	var err error
	var index, edges []int
	if nnodes < 0 {
		err = errorf(errArg, op, "nnodes %d is negative", nnodes)
	} else {
		index = toInts(ints(indexP, int(nnodes)))
		if nnodes > 0 {
			edges = toInts(ints(edgesP, index[nnodes-1]))
		}
		err = checkGraph(op, index, edges, c.c.Size())
	}
	if err := agree(op, c, err); err != nil {
		return fail(op, ch, err)
	}
	return createFirst(op, c, ch, int(nnodes), func(me int) *topology {
		t := &topology{kind: topoGraph, index: index, edges: edges}
		t.in = t.graphNeighbors(me)
		t.out = t.in
		return t
	}, out)
}

//export PMPI_Graphdims_get
func PMPI_Graphdims_get(ch uintptr, nnodes, nedges unsafe.Pointer) int32 {
	_, t, r := topoOf("Graphdims_get", ch, topoGraph)
	if t == nil {
		return r
	}
	setInt(nnodes, len(t.index))
	setInt(nedges, len(t.edges))
	return 0
}

//export PMPI_Graph_get
func PMPI_Graph_get(ch uintptr, maxindex, maxedges int32, indexP, edgesP unsafe.Pointer) int32 {
	_, t, r := topoOf("Graph_get", ch, topoGraph)
	if t == nil {
		return r
	}
	ix, ex := ints(indexP, min(int(maxindex), len(t.index))), ints(edgesP, min(int(maxedges), len(t.edges)))
	for i := range ix {
		ix[i] = int32(t.index[i])
	}
	for i := range ex {
		ex[i] = int32(t.edges[i])
	}
	return 0
}

//export PMPI_Graph_neighbors_count
func PMPI_Graph_neighbors_count(ch uintptr, rank int32, n unsafe.Pointer) int32 {
	const op = "Graph_neighbors_count"
	_, t, r := topoOf(op, ch, topoGraph)
	if t == nil {
		return r
	}
	if rank < 0 || int(rank) >= len(t.index) {
		return fail(op, ch, errorf(errRank, op, "rank %d is not a node of the graph [0,%d)", rank, len(t.index)))
	}
	setInt(n, len(t.graphNeighbors(int(rank))))
	return 0
}

//export PMPI_Graph_neighbors
func PMPI_Graph_neighbors(ch uintptr, rank, maxn int32, nbrs unsafe.Pointer) int32 {
	const op = "Graph_neighbors"
	_, t, r := topoOf(op, ch, topoGraph)
	if t == nil {
		return r
	}
	if rank < 0 || int(rank) >= len(t.index) {
		return fail(op, ch, errorf(errRank, op, "rank %d is not a node of the graph [0,%d)", rank, len(t.index)))
	}
	nb := t.graphNeighbors(int(rank))
	dst := ints(nbrs, min(len(nb), int(maxn)))
	for i := range dst {
		dst[i] = int32(nb[i])
	}
	return 0
}

//export PMPI_Graph_map
func PMPI_Graph_map(ch uintptr, nnodes int32, indexP, edgesP, newrank unsafe.Pointer) int32 {
	const op = "Graph_map"
	c, r := topoComm(op, ch)
	if c == nil {
		return r
	}
	if nnodes < 1 || int(nnodes) > c.c.Size() {
		return fail(op, ch, errorf(errArg, op, "nnodes %d is not in [1,%d]", nnodes, c.c.Size()))
	}
	if c.c.Rank() >= int(nnodes) {
		setInt(newrank, undefined)
	} else {
		setInt(newrank, c.c.Rank())
	}
	return 0
}

//export PMPI_Topo_test
func PMPI_Topo_test(ch uintptr, status unsafe.Pointer) int32 {
	c, r := needComm("Topo_test", ch)
	if c == nil {
		return r
	}
	if c.topo == nil {
		setInt(status, undefined)
	} else {
		setInt(status, c.topo.kind)
	}
	return 0
}

// --- distributed graphs ---

// weightsIn reads a weights argument: nil for MPI_UNWEIGHTED, empty for
// MPI_WEIGHTS_EMPTY.
func weightsIn(p unsafe.Pointer, n int) (w []int, unweighted bool) {
	switch uintptr(p) {
	case cUnweighted:
		return nil, true
	case cWeightsEmpty:
		return []int{}, false
	}
	if n == 0 {
		return []int{}, false
	}
	return toInts(ints(p, n)), false
}

func checkRanks(op, what string, rs []int, size int) error {
	for i, r := range rs {
		if r < 0 || r >= size {
			return errorf(errRank, op, "%s[%d] = %d is not a rank of comm_old [0,%d)", what, i, r, size)
		}
	}
	return nil
}

//export PMPI_Dist_graph_create_adjacent
func PMPI_Dist_graph_create_adjacent(ch uintptr, indeg int32, srcP, srcWP unsafe.Pointer, outdeg int32, dstP, dstWP unsafe.Pointer, info uintptr, reorder int32, out unsafe.Pointer) int32 {
	const op = "Dist_graph_create_adjacent"
	c, r := topoComm(op, ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.DistGraphCreateAdjacent, c.enterTimed(prof.DistGraphCreateAdjacent, prof.NoPeer, -1, 0), 0)
	var err error
	if indeg < 0 || outdeg < 0 {
		err = errorf(errArg, op, "indegree %d and outdegree %d must not be negative", indeg, outdeg)
	}
	t := &topology{kind: topoDistGraph}
	if err == nil {
		t.srcs, t.dsts = toInts(ints(srcP, int(indeg))), toInts(ints(dstP, int(outdeg)))
		if t.srcs == nil {
			t.srcs = []int{}
		}
		if t.dsts == nil {
			t.dsts = []int{}
		}
		var u1, u2 bool
		t.srcW, u1 = weightsIn(srcWP, int(indeg))
		t.dstW, u2 = weightsIn(dstWP, int(outdeg))
		t.weighted = !(u1 || u2)
		if err = checkRanks(op, "sources", t.srcs, c.c.Size()); err == nil {
			err = checkRanks(op, "destinations", t.dsts, c.c.Size())
		}
	}
	if err := agree(op, c, err); err != nil {
		return fail(op, ch, err)
	}
	t.in, t.out = t.srcs, t.dsts
	return createFirst(op, c, ch, c.c.Size(), func(int) *topology { return t }, out)
}

//export PMPI_Dist_graph_create
func PMPI_Dist_graph_create(ch uintptr, n int32, srcP, degP, dstP, wP unsafe.Pointer, info uintptr, reorder int32, out unsafe.Pointer) int32 {
	const op = "Dist_graph_create"
	c, r := topoComm(op, ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.DistGraphCreate, c.enterTimed(prof.DistGraphCreate, prof.NoPeer, -1, 0), 0)
	var err error
	var srcs, degs, dsts, ws []int
	unweighted := false
	if n < 0 {
		err = errorf(errArg, op, "n %d is negative", n)
	} else {
		srcs, degs = toInts(ints(srcP, int(n))), toInts(ints(degP, int(n)))
		total := 0
		for i, d := range degs {
			if d < 0 {
				err = errorf(errArg, op, "degrees[%d] = %d is negative", i, d)
			}
			total += d
		}
		dsts = toInts(ints(dstP, total))
		ws, unweighted = weightsIn(wP, total)
		if err == nil {
			err = checkRanks(op, "sources", srcs, c.c.Size())
		}
		if err == nil {
			err = checkRanks(op, "destinations", dsts, c.c.Size())
		}
	}
	if err := agree(op, c, err); err != nil {
		return fail(op, ch, err)
	}
	if r := createFirst(op, c, ch, c.c.Size(), func(int) *topology { return nil }, out); r != 0 {
		return r
	}
	nh := *(*uintptr)(out)
	nc := comms.get(nh)
	t, err := exchangeEdges(op, nc.c, srcs, degs, dsts, ws)
	if err != nil {
		PMPI_Comm_free(out)
		return fail(op, ch, err)
	}
	t.weighted = !unweighted
	nc.topo = t
	return 0
}

// exchangeEdges sends each edge named here to both its ends and collects the edges
// that end here: first the ranks add up how many others will send to each, then each
// sends one message to each rank it has edges for and receives the counted number.
// Neighbours are listed by the rank that named the edge, then in its order.
func exchangeEdges(op string, nc *core.Comm, srcs, degs, dsts, ws []int) (*topology, error) {
	type rec struct{ out, peer, w, by, at int }
	me, n := nc.Rank(), nc.Size()
	outgoing := map[int][]byte{}
	var local []rec
	add := func(to int, e rec) {
		if to == me {
			local = append(local, e)
			return
		}
		for _, v := range []int{e.out, e.peer, e.w, e.by, e.at} {
			outgoing[to] = binary.LittleEndian.AppendUint64(outgoing[to], uint64(v))
		}
	}
	k := 0
	for i, s := range srcs {
		for range degs[i] {
			w := 0
			if len(ws) > k {
				w = ws[k]
			}
			add(s, rec{1, dsts[k], w, me, k})
			add(dsts[k], rec{0, s, w, me, k})
			k++
		}
	}
	counts := make([]byte, 8*n)
	for to := range outgoing {
		binary.LittleEndian.PutUint64(counts[8*to:], 1)
	}
	err := nc.InternalAllreduce(op, counts, 8, func(acc, in []byte) {
		for i := 0; i < len(acc); i += 8 {
			binary.LittleEndian.PutUint64(acc[i:], binary.LittleEndian.Uint64(acc[i:])+binary.LittleEndian.Uint64(in[i:]))
		}
	}, core.TagTopoCount)
	if err != nil {
		return nil, err
	}
	expect := int(binary.LittleEndian.Uint64(counts[8*me:]))
	var sends []core.Request
	for _, to := range slices.Sorted(maps.Keys(outgoing)) {
		q, err := nc.IsendInternal(outgoing[to], to, core.TagTopoEdges)
		if err != nil {
			core.Waitall(sends, nil)
			return nil, core.MapErr(op, err)
		}
		sends = append(sends, q)
	}
	recs := local
	for range expect {
		buf, err := nc.RecvAnyInternal(core.TagTopoEdges)
		if err != nil {
			core.Waitall(sends, nil)
			return nil, core.MapErr(op, err)
		}
		for off := 0; off+40 <= len(buf); off += 40 {
			g := func(i int) int { return int(binary.LittleEndian.Uint64(buf[off+8*i:])) }
			recs = append(recs, rec{g(0), g(1), g(2), g(3), g(4)})
		}
	}
	if err := core.Waitall(sends, nil); err != nil {
		return nil, core.MapErr(op, err)
	}
	slices.SortFunc(recs, func(a, b rec) int {
		return cmp.Or(cmp.Compare(a.by, b.by), cmp.Compare(a.at, b.at), cmp.Compare(a.out, b.out))
	})
	t := &topology{kind: topoDistGraph, srcs: []int{}, dsts: []int{}, srcW: []int{}, dstW: []int{}}
	for _, e := range recs {
		if e.out == 1 {
			t.dsts, t.dstW = append(t.dsts, e.peer), append(t.dstW, e.w)
		} else {
			t.srcs, t.srcW = append(t.srcs, e.peer), append(t.srcW, e.w)
		}
	}
	t.in, t.out = t.srcs, t.dsts
	return t, nil
}

//export PMPI_Dist_graph_neighbors_count
func PMPI_Dist_graph_neighbors_count(ch uintptr, indeg, outdeg, weighted unsafe.Pointer) int32 {
	c, r := needComm("Dist_graph_neighbors_count", ch)
	if c == nil {
		return r
	}
	t := c.topo
	if t == nil || t.kind == topoCart {
		return fail("Dist_graph_neighbors_count", ch, errorf(errTopology, "Dist_graph_neighbors_count", "comm has no distributed graph topology"))
	}
	if t.kind == topoGraph { // a graph answers as a distributed graph (MPI 4.1 8.5.5)
		setInt(indeg, len(t.in))
		setInt(outdeg, len(t.out))
		setInt(weighted, 0)
		return 0
	}
	setInt(indeg, len(t.srcs))
	setInt(outdeg, len(t.dsts))
	setBool(weighted, t.weighted)
	return 0
}

//export PMPI_Dist_graph_neighbors
func PMPI_Dist_graph_neighbors(ch uintptr, maxin int32, srcP, srcWP unsafe.Pointer, maxout int32, dstP, dstWP unsafe.Pointer) int32 {
	const op = "Dist_graph_neighbors"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	t := c.topo
	if t == nil || t.kind == topoCart {
		return fail(op, ch, errorf(errTopology, op, "comm has no distributed graph topology"))
	}
	put := func(p unsafe.Pointer, v []int, n int32) {
		if p == nil || uintptr(p) == cUnweighted || uintptr(p) == cWeightsEmpty {
			return
		}
		for i := range min(len(v), int(n)) {
			*(*int32)(unsafe.Add(p, 4*i)) = int32(v[i])
		}
	}
	put(srcP, t.in, maxin)
	put(dstP, t.out, maxout)
	if t.weighted {
		put(srcWP, t.srcW, maxin)
		put(dstWP, t.dstW, maxout)
	}
	return 0
}
