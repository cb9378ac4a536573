package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"cmp"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// Process topologies (MPI 4.1 chapter 8) on the C side: the topologies, their checks,
// queries and constructors are mpir's (shared with the Go library); these functions
// read C's arrays and handles, write C's results, and say what a NULL array or an
// MPI_UNWEIGHTED means. An argument a constructor cannot read (a NULL array where
// one is needed) is an error that mpir agrees on with the other ranks, so that every
// rank fails and none waits.

const (
	topoCart      = C.MPI_CART
	topoGraph     = C.MPI_GRAPH
	topoDistGraph = C.MPI_DIST_GRAPH
	undefined     = C.MPI_UNDEFINED
	cUnweighted   = 10 // MPI_UNWEIGHTED: ((int *)10) in mpi.h
	cWeightsEmpty = 11 // MPI_WEIGHTS_EMPTY: ((int *)11)
)

// argErr is an error in a C argument that only the binding can see.
func argErr(op, format string, a ...any) error { return core.Errorf(core.ClassArg, op, format, a...) }

// count is a C count argument what as a Go length, or an error when it is negative.
func count(op, what string, n int32) (int, error) {
	if n < 0 {
		return 0, argErr(op, "%s = %d must not be negative", what, n)
	}
	return int(n), nil
}

// intsIn is the n C ints at p (the argument what); NULL is an error unless n is 0.
func intsIn(op, what string, p unsafe.Pointer, n int) ([]int, error) {
	if p == nil && n > 0 {
		return nil, argErr(op, "%s is NULL", what)
	}
	return toInts(ints(p, n)), nil
}

// boolsIn is the n C logicals at p (the argument what); NULL is an error unless n is 0.
func boolsIn(op, what string, p unsafe.Pointer, n int) ([]bool, error) {
	v, err := intsIn(op, what, p, n)
	b := make([]bool, len(v))
	for i, x := range v {
		b[i] = x != 0
	}
	return b, err
}

// weightsIn reads the weights of n edges at p (the argument what): nil for
// MPI_UNWEIGHTED; empty for MPI_WEIGHTS_EMPTY, or any array, when n is 0.
func weightsIn(op, what string, p unsafe.Pointer, n int) ([]int, error) {
	switch {
	case uintptr(p) == cUnweighted:
		return nil, nil
	case n == 0:
		return []int{}, nil
	case uintptr(p) == cWeightsEmpty:
		return nil, argErr(op, "%s is MPI_WEIGHTS_EMPTY, for no edges, but there are %d", what, n)
	}
	return intsIn(op, what, p, n)
}

// adopt ends a topology constructor on c: the device's communicator nc (nil on a rank left
// out: MPI_COMM_NULL) with topology t in *out, or err.
func adopt(op string, c *comm, ch uintptr, nc *core.Comm, t *mpir.Topology, err error, out unsafe.Pointer) int32 {
	if err != nil {
		return fail(op, ch, err)
	}
	setHandle(out, newComm(nc, c, t, nil))
	return 0
}

// putInts writes v to the C ints at p, at most max of them.
func putInts(p unsafe.Pointer, v []int, max int32) {
	dst := ints(p, min(len(v), int(max)))
	for i := range dst {
		dst[i] = int32(v[i])
	}
}

//export PMPI_Dims_create
func PMPI_Dims_create(nnodes, ndims int32, dimsP unsafe.Pointer) int32 {
	const op = "Dims_create"
	n, err := count(op, "ndims", ndims)
	if err != nil {
		return fail(op, 0, err)
	}
	dims, err := intsIn(op, "dims", dimsP, n)
	if err != nil {
		return fail(op, 0, err)
	}
	if err := mpir.DimsCreate(op, int(nnodes), dims); err != nil {
		return fail(op, 0, err)
	}
	putInts(dimsP, dims, ndims)
	return 0
}

//export PMPI_Cart_create
func PMPI_Cart_create(ch uintptr, ndims int32, dimsP, periodsP unsafe.Pointer, reorder int32, out unsafe.Pointer) int32 {
	const op = "Cart_create"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.CartCreate, c.enterTimed(prof.CartCreate, prof.NoPeer, -1, 0), 0)
	n, e1 := count(op, "ndims", ndims)
	dims, e2 := intsIn(op, "dims", dimsP, n)
	periods, e3 := boolsIn(op, "periods", periodsP, n)
	bad := cmp.Or(e1, e2, e3, nullOut(op, "comm_cart", out))
	nc, t, err := mpir.CartCreate(op, c.c, bad, dims, periods, reorder != 0)
	return adopt(op, c, ch, nc, t, err, out)
}

//export PMPI_Cartdim_get
func PMPI_Cartdim_get(ch uintptr, ndims unsafe.Pointer) int32 {
	const op = "Cartdim_get"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	n, err := mpir.Cartdim(op, c.c, c.x.Topo())
	if err == nil {
		err = nullOut(op, "ndims", ndims)
	}
	if err != nil {
		return fail(op, ch, err)
	}
	setInt(ndims, n)
	return 0
}

//export PMPI_Cart_get
func PMPI_Cart_get(ch uintptr, maxdims int32, dimsP, periodsP, coordsP unsafe.Pointer) int32 {
	const op = "Cart_get"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	dims, periods, coords, err := mpir.CartGet(op, c.c, c.x.Topo())
	if err == nil && maxdims < 0 {
		err = argErr(op, "maxdims = %d must not be negative", maxdims)
	}
	if err == nil {
		n := min(len(dims), int(maxdims))
		err = cmp.Or(nullArray(op, "dims", dimsP, n), nullArray(op, "periods", periodsP, n), nullArray(op, "coords", coordsP, n))
	}
	if err != nil {
		return fail(op, ch, err)
	}
	p := make([]int, len(periods))
	for i, x := range periods {
		p[i] = boolInt(x)
	}
	putInts(dimsP, dims, maxdims)
	putInts(periodsP, p, maxdims)
	putInts(coordsP, coords, maxdims)
	return 0
}

//export PMPI_Cart_rank
func PMPI_Cart_rank(ch uintptr, coordsP, rank unsafe.Pointer) int32 {
	const op = "Cart_rank"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	n, err := mpir.Cartdim(op, c.c, c.x.Topo())
	if err != nil {
		return fail(op, ch, err)
	}
	coords, err := intsIn(op, "coords", coordsP, n)
	if err == nil {
		err = nullOut(op, "rank", rank)
	}
	if err != nil {
		return fail(op, ch, err)
	}
	rk, err := mpir.CartRank(op, c.c, c.x.Topo(), coords)
	if err != nil {
		return fail(op, ch, err)
	}
	setInt(rank, rk)
	return 0
}

//export PMPI_Cart_coords
func PMPI_Cart_coords(ch uintptr, rank, maxdims int32, coordsP unsafe.Pointer) int32 {
	const op = "Cart_coords"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	co, err := mpir.CartCoords(op, c.c, c.x.Topo(), int(rank))
	switch {
	case err != nil:
	case int(maxdims) < len(co):
		err = argErr(op, "maxdims = %d is less than the grid's %d dimensions", maxdims, len(co))
	case coordsP == nil && len(co) > 0:
		err = argErr(op, "coords is NULL")
	}
	if err != nil {
		return fail(op, ch, err)
	}
	putInts(coordsP, co, maxdims)
	return 0
}

//export PMPI_Cart_shift
func PMPI_Cart_shift(ch uintptr, dir, disp int32, src, dest unsafe.Pointer) int32 {
	const op = "Cart_shift"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	s, d, err := mpir.CartShift(op, c.c, c.x.Topo(), int(dir), int(disp))
	if err == nil {
		err = nullOut(op, "rank_source, rank_dest", src, dest)
	}
	if err != nil {
		return fail(op, ch, err)
	}
	setInt(src, int(rankOut(s)))
	setInt(dest, int(rankOut(d)))
	return 0
}

//export PMPI_Cart_sub
func PMPI_Cart_sub(ch uintptr, remainP, out unsafe.Pointer) int32 {
	const op = "Cart_sub"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.CartSub, c.enterTimed(prof.CartSub, prof.NoPeer, -1, 0), 0)
	// Every rank has the topology of comm, so a rank that has none fails with all.
	n, err := mpir.Cartdim(op, c.c, c.x.Topo())
	if err != nil {
		return fail(op, ch, err)
	}
	remain, err := boolsIn(op, "remain_dims", remainP, n)
	nc, t, err := mpir.CartSub(op, c.c, c.x.Topo(), cmp.Or(err, nullOut(op, "newcomm", out)), remain)
	return adopt(op, c, ch, nc, t, err, out)
}

//export PMPI_Cart_map
func PMPI_Cart_map(ch uintptr, ndims int32, dimsP, periodsP, newrank unsafe.Pointer) int32 {
	const op = "Cart_map"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	n, e1 := count(op, "ndims", ndims)
	dims, e2 := intsIn(op, "dims", dimsP, n)
	periods, e3 := boolsIn(op, "periods", periodsP, n)
	if err := cmp.Or(e1, e2, e3, nullOut(op, "newrank", newrank)); err != nil {
		return fail(op, ch, err)
	}
	rk, err := mpir.CartMap(op, c.c, dims, periods)
	if err != nil {
		return fail(op, ch, err)
	}
	setInt(newrank, rk)
	return 0
}

// graphIn reads a graph's nnodes, index and edges; it reads as many edges as index
// says only once index is whole.
func graphIn(op string, nnodes int32, indexP, edgesP unsafe.Pointer) (index, edges []int, err error) {
	n, err := count(op, "nnodes", nnodes)
	if err != nil {
		return nil, nil, err
	}
	if index, err = intsIn(op, "index", indexP, n); err != nil {
		return nil, nil, err
	}
	nedges, err := mpir.GraphIndex(op, index)
	if err != nil {
		return index, nil, err
	}
	edges, err = intsIn(op, "edges", edgesP, nedges)
	return index, edges, err
}

//export PMPI_Graph_create
func PMPI_Graph_create(ch uintptr, nnodes int32, indexP, edgesP unsafe.Pointer, reorder int32, out unsafe.Pointer) int32 {
	const op = "Graph_create"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.GraphCreate, c.enterTimed(prof.GraphCreate, prof.NoPeer, -1, 0), 0)
	index, edges, err := graphIn(op, nnodes, indexP, edgesP)
	nc, t, err := mpir.GraphCreate(op, c.c, cmp.Or(err, nullOut(op, "comm_graph", out)), index, edges, reorder != 0)
	return adopt(op, c, ch, nc, t, err, out)
}

//export PMPI_Graphdims_get
func PMPI_Graphdims_get(ch uintptr, nnodes, nedges unsafe.Pointer) int32 {
	const op = "Graphdims_get"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	nn, ne, err := mpir.Graphdims(op, c.c, c.x.Topo())
	if err == nil {
		err = nullOut(op, "nnodes, nedges", nnodes, nedges)
	}
	if err != nil {
		return fail(op, ch, err)
	}
	setInt(nnodes, nn)
	setInt(nedges, ne)
	return 0
}

//export PMPI_Graph_get
func PMPI_Graph_get(ch uintptr, maxindex, maxedges int32, indexP, edgesP unsafe.Pointer) int32 {
	const op = "Graph_get"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	index, edges, err := mpir.GraphGet(op, c.c, c.x.Topo())
	if err == nil {
		err = cmp.Or(nullArray(op, "index", indexP, min(len(index), int(maxindex))),
			nullArray(op, "edges", edgesP, min(len(edges), int(maxedges))))
	}
	if err != nil {
		return fail(op, ch, err)
	}
	putInts(indexP, index, maxindex)
	putInts(edgesP, edges, maxedges)
	return 0
}

//export PMPI_Graph_neighbors_count
func PMPI_Graph_neighbors_count(ch uintptr, rank int32, n unsafe.Pointer) int32 {
	const op = "Graph_neighbors_count"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	nb, err := mpir.GraphNeighbors(op, c.c, c.x.Topo(), int(rank))
	if err == nil {
		err = nullOut(op, "nneighbors", n)
	}
	if err != nil {
		return fail(op, ch, err)
	}
	setInt(n, len(nb))
	return 0
}

//export PMPI_Graph_neighbors
func PMPI_Graph_neighbors(ch uintptr, rank, maxn int32, nbrs unsafe.Pointer) int32 {
	const op = "Graph_neighbors"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	nb, err := mpir.GraphNeighbors(op, c.c, c.x.Topo(), int(rank))
	if err == nil {
		err = nullArray(op, "neighbors", nbrs, min(len(nb), int(maxn)))
	}
	if err != nil {
		return fail(op, ch, err)
	}
	putInts(nbrs, nb, maxn)
	return 0
}

//export PMPI_Graph_map
func PMPI_Graph_map(ch uintptr, nnodes int32, indexP, edgesP, newrank unsafe.Pointer) int32 {
	const op = "Graph_map"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	index, edges, err := graphIn(op, nnodes, indexP, edgesP)
	if err == nil {
		err = nullOut(op, "newrank", newrank)
	}
	if err != nil {
		return fail(op, ch, err)
	}
	rk, err := mpir.GraphMap(op, c.c, index, edges)
	if err != nil {
		return fail(op, ch, err)
	}
	setInt(newrank, rk)
	return 0
}

//export PMPI_Topo_test
func PMPI_Topo_test(ch uintptr, status unsafe.Pointer) int32 {
	c, r := needComm("Topo_test", ch)
	if c == nil {
		return r
	}
	if err := nullOut("Topo_test", "status", status); err != nil {
		return fail("Topo_test", ch, err)
	}
	kind := undefined
	switch c.x.Topo().Kind() {
	case mpir.TopoCart:
		kind = topoCart
	case mpir.TopoGraph:
		kind = topoGraph
	case mpir.TopoDistGraph:
		kind = topoDistGraph
	}
	setInt(status, kind)
	return 0
}

//export PMPI_Dist_graph_create_adjacent
func PMPI_Dist_graph_create_adjacent(ch uintptr, indeg int32, srcP, srcWP unsafe.Pointer, outdeg int32, dstP, dstWP unsafe.Pointer, info uintptr, reorder int32, out unsafe.Pointer) int32 {
	const op = "Dist_graph_create_adjacent"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.DistGraphCreateAdjacent, c.enterTimed(prof.DistGraphCreateAdjacent, prof.NoPeer, -1, 0), 0)
	in, e1 := count(op, "indegree", indeg)
	srcs, e2 := intsIn(op, "sources", srcP, in)
	srcW, e3 := weightsIn(op, "sourceweights", srcWP, in)
	outn, e4 := count(op, "outdegree", outdeg)
	dsts, e5 := intsIn(op, "destinations", dstP, outn)
	dstW, e6 := weightsIn(op, "destweights", dstWP, outn)
	bad := cmp.Or(e1, e2, e3, e4, e5, e6, nullOut(op, "comm_dist_graph", out))
	nc, t, err := mpir.DistGraphCreateAdjacent(op, c.c, bad, srcs, srcW, dsts, dstW, reorder != 0)
	return adopt(op, c, ch, nc, t, err, out)
}

//export PMPI_Dist_graph_create
func PMPI_Dist_graph_create(ch uintptr, n int32, srcP, degP, dstP, wP unsafe.Pointer, info uintptr, reorder int32, out unsafe.Pointer) int32 {
	const op = "Dist_graph_create"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.DistGraphCreate, c.enterTimed(prof.DistGraphCreate, prof.NoPeer, -1, 0), 0)
	srcs, degs, dsts, ws, err := distGraphIn(op, n, srcP, degP, dstP, wP)
	nc, t, err := mpir.DistGraphCreate(op, c.c, cmp.Or(err, nullOut(op, "comm_dist_graph", out)), srcs, degs, dsts, ws, reorder != 0)
	return adopt(op, c, ch, nc, t, err, out)
}

// distGraphIn reads MPI_Dist_graph_create's edges; it reads as many destinations and
// weights as the degrees say only once they are whole.
func distGraphIn(op string, n int32, srcP, degP, dstP, wP unsafe.Pointer) (srcs, degs, dsts, ws []int, err error) {
	k, err := count(op, "n", n)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if srcs, err = intsIn(op, "sources", srcP, k); err != nil {
		return nil, nil, nil, nil, err
	}
	if degs, err = intsIn(op, "degrees", degP, k); err != nil {
		return nil, nil, nil, nil, err
	}
	total, err := mpir.DistGraphDegrees(op, degs)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if dsts, err = intsIn(op, "destinations", dstP, total); err != nil {
		return nil, nil, nil, nil, err
	}
	ws, err = weightsIn(op, "weights", wP, total)
	return srcs, degs, dsts, ws, err
}

//export PMPI_Dist_graph_neighbors_count
func PMPI_Dist_graph_neighbors_count(ch uintptr, indeg, outdeg, weighted unsafe.Pointer) int32 {
	const op = "Dist_graph_neighbors_count"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	s, _, d, _, w, err := mpir.DistGraphNeighbors(op, c.c, c.x.Topo())
	if err == nil {
		err = nullOut(op, "indegree, outdegree, weighted", indeg, outdeg, weighted)
	}
	if err != nil {
		return fail(op, ch, err)
	}
	setInt(indeg, len(s))
	setInt(outdeg, len(d))
	setBool(weighted, w)
	return 0
}

//export PMPI_Dist_graph_neighbors
func PMPI_Dist_graph_neighbors(ch uintptr, maxin int32, srcP, srcWP unsafe.Pointer, maxout int32, dstP, dstWP unsafe.Pointer) int32 {
	const op = "Dist_graph_neighbors"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	s, sw, d, dw, w, err := mpir.DistGraphNeighbors(op, c.c, c.x.Topo())
	if err == nil {
		_, e1 := count(op, "maxindegree", maxin)
		_, e2 := count(op, "maxoutdegree", maxout)
		err = cmp.Or(e1, e2)
	}
	if err == nil {
		nin, nout := min(len(s), int(maxin)), min(len(d), int(maxout))
		err = cmp.Or(nullArray(op, "sources", srcP, nin), nullArray(op, "destinations", dstP, nout))
		if w && err == nil {
			// Only a weighted graph's weights are written, MPI_UNWEIGHTED's excepted.
			err = cmp.Or(nullArray(op, "sourceweights", srcWP, nin), nullArray(op, "destweights", dstWP, nout))
		}
	}
	if err != nil {
		return fail(op, ch, err)
	}
	// MPI returns the first maxindegree sources and maxoutdegree destinations.
	putInts(srcP, s, maxin)
	putInts(dstP, d, maxout)
	if w {
		// A program may pass MPI_UNWEIGHTED (or MPI_WEIGHTS_EMPTY) where it wants
		// no weights back.
		if p := uintptr(srcWP); p != cUnweighted && p != cWeightsEmpty {
			putInts(srcWP, sw, maxin)
		}
		if p := uintptr(dstWP); p != cUnweighted && p != cWeightsEmpty {
			putInts(dstWP, dw, maxout)
		}
	}
	return 0
}
