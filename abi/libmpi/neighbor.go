package main

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/prof"
)

// Neighbourhood collectives (MPI 4.1 section 7.6): every rank sends to its
// topology's destinations and receives from its sources, in the topology's neighbour
// order. All five forms become the w form (a count, a datatype and a byte
// displacement per neighbour) and one exchange: a receive per source and a send per
// destination on the communicator's internal context. Blocks of contiguous layout
// move straight from and to C memory; others are packed and unpacked around the
// exchange. A nonblocking (or persistent) one runs the exchange in a goroutine of its
// own, as the Go library's do.

// nbrArgs is a neighbourhood collective, checked.
type nbrArgs struct {
	c      *comm
	cart   bool
	in     []int
	out    []int
	ws, wr core.WSide
}

func neighborComm(op string, ch uintptr, req unsafe.Pointer, m mode) (*comm, int32) {
	c, r := commArg(op, ch, req, m)
	if c == nil {
		return nil, r
	}
	if c.topo == nil {
		return nil, fail(op, ch, errorf(errTopology, op, "comm has no process topology (make one with MPI_Cart_create, MPI_Graph_create or MPI_Dist_graph_create)"))
	}
	return c, 0
}

// nbrSide makes one side's WSide from per-neighbour counts, byte displacements and
// types.
func nbrSide(op, w string, p unsafe.Pointer, counts, displs []int, ts []*datatype.Type) (core.WSide, error) {
	mem, ds, err := wmem(p, counts, displs, ts)
	if err != nil {
		return core.WSide{}, core.TypeErr(op, err)
	}
	return core.CheckW(op, w, len(counts), mem, counts, ds, ts)
}

// uniform is n blocks of count items of type dh at byte steps of step (0: all at p).
func uniform(op string, n int, count int64, dh uintptr, step bool) ([]int, []int, []*datatype.Type, error) {
	t, err := typeOf(op, dh)
	if err != nil {
		return nil, nil, nil, err
	}
	cs, ds, ts := make([]int, n), make([]int, n), make([]*datatype.Type, n)
	for j := range n {
		cs[j], ts[j] = int(count), t
		if step {
			ds[j] = j * int(count) * int(t.Extent())
		}
	}
	return cs, ds, ts, nil
}

// vblocks is the v form's blocks: counts[j] items of dh at displs[j] extents.
func vblocks(op string, n int, counts, displs []int, dh uintptr) ([]int, []int, []*datatype.Type, error) {
	t, err := typeOf(op, dh)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(counts) < n || len(displs) < n {
		return nil, nil, nil, errorf(errArg, op, "counts or displacements are NULL")
	}
	ds, ts := make([]int, n), make([]*datatype.Type, n)
	for j := range n {
		ds[j], ts[j] = displs[j]*int(t.Extent()), t
	}
	return counts[:n], ds, ts, nil
}

func nbrRun(op string, c *comm, ch uintptr, req unsafe.Pointer, m mode, sbuf unsafe.Pointer, sc, sd []int, st []*datatype.Type, rbuf unsafe.Pointer, rc, rd []int, rt []*datatype.Type) int32 {
	ws, err := nbrSide(op, "s", sbuf, sc, sd, st)
	if err != nil {
		return fail(op, ch, err)
	}
	wr, err := nbrSide(op, "r", rbuf, rc, rd, rt)
	if err != nil {
		return fail(op, ch, err)
	}
	a := &nbrArgs{c: c, cart: c.topo.kind == topoCart, in: c.topo.in, out: c.topo.out, ws: ws, wr: wr}
	switch m {
	case mBlock:
		return fail(op, ch, a.exchange(op))
	case mNB:
		addPending(core.Go(op, func() error { return a.exchange(op) }), c, ch, nil, req)
		return 0
	}
	addPersistent(c, ch, func() (*core.Pending, error) { return core.Go(op, func() error { return a.exchange(op) }), nil }, req)
	return 0
}

// exchange posts a receive per source and a send per destination and waits for
// them. On a Cartesian grid each message's tag names the receiver's slot, so that in
// a dimension of size 1 or 2 (where the -1 and +1 neighbours are one rank) each block
// lands in its place.
func (a *nbrArgs) exchange(op string) error {
	scratch := func(n int) []byte { return make([]byte, n) }
	reqs := make([]core.Request, 0, len(a.in)+len(a.out))
	abort := func(err error) error {
		for i := range reqs {
			core.Cancel(&reqs[i])
		}
		core.Waitall(reqs, nil)
		return core.MapErr(op, err)
	}
	recvs := make([][]byte, len(a.in))
	unpack := make([]bool, len(a.in))
	for i, s := range a.in {
		if s == core.ProcNull {
			continue
		}
		recvs[i], unpack[i] = a.wr.Block(scratch, i, true)
		tag := core.TagNeighbor
		if a.cart {
			tag += i
		}
		q, err := a.c.c.IrecvInternal(recvs[i], s, tag)
		if err != nil {
			return abort(err)
		}
		reqs = append(reqs, q)
	}
	for j, d := range a.out {
		if d == core.ProcNull {
			continue
		}
		b, packed := a.ws.Block(scratch, j, true)
		if packed {
			if err := a.ws.Pack(op, j, b); err != nil {
				return abort(err)
			}
		}
		tag := core.TagNeighbor
		if a.cart {
			tag += j ^ 1 // our +1 neighbour receives us as its -1 neighbour, and back
		}
		q, err := a.c.c.IsendInternal(b, d, tag)
		if err != nil {
			return abort(err)
		}
		reqs = append(reqs, q)
	}
	if err := core.Waitall(reqs, nil); err != nil {
		return core.MapErr(op, err)
	}
	for i, s := range a.in {
		if unpack[i] && s != core.ProcNull {
			if err := a.wr.Unpack(op, i, recvs[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

func neighborAllgather(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := neighborComm(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := typeBytes(scount, sdt)
	defer exit(neighborAllgatherCalls[m], c.enter(neighborAllgatherCalls[m], prof.NoPeer, -1, pn), pn)
	sc, sd, st, err := uniform(op, len(c.topo.out), scount, sdt, false)
	if err != nil {
		return fail(op, ch, err)
	}
	rc, rd, rt, err := uniform(op, len(c.topo.in), rcount, rdt, true)
	if err != nil {
		return fail(op, ch, err)
	}
	return nbrRun(op, c, ch, req, m, sbuf, sc, sd, st, rbuf, rc, rd, rt)
}

func neighborAllgatherv(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcounts, displs unsafe.Pointer, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := neighborComm(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := typeBytes(scount, sdt)
	defer exit(neighborAllgathervCalls[m], c.enter(neighborAllgathervCalls[m], prof.NoPeer, -1, pn), pn)
	sc, sd, st, err := uniform(op, len(c.topo.out), scount, sdt, false)
	if err != nil {
		return fail(op, ch, err)
	}
	n := len(c.topo.in)
	rc, rd, rt, err := vblocks(op, n, carr(rcounts, n, big), carr(displs, n, big), rdt)
	if err != nil {
		return fail(op, ch, err)
	}
	return nbrRun(op, c, ch, req, m, sbuf, sc, sd, st, rbuf, rc, rd, rt)
}

func neighborAlltoall(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := neighborComm(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := typeBytes(scount*int64(len(c.topo.out)), sdt)
	defer exit(neighborAlltoallCalls[m], c.enter(neighborAlltoallCalls[m], prof.NoPeer, -1, pn), pn)
	sc, sd, st, err := uniform(op, len(c.topo.out), scount, sdt, true)
	if err != nil {
		return fail(op, ch, err)
	}
	rc, rd, rt, err := uniform(op, len(c.topo.in), rcount, rdt, true)
	if err != nil {
		return fail(op, ch, err)
	}
	return nbrRun(op, c, ch, req, m, sbuf, sc, sd, st, rbuf, rc, rd, rt)
}

func neighborAlltoallv(op string, sbuf unsafe.Pointer, scounts, sdispls unsafe.Pointer, sdt uintptr, rbuf unsafe.Pointer, rcounts, rdispls unsafe.Pointer, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := neighborComm(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := vBytes(scounts, len(c.topo.out), big, sdt)
	defer exit(neighborAlltoallvCalls[m], c.enter(neighborAlltoallvCalls[m], prof.NoPeer, -1, pn), pn)
	no, ni := len(c.topo.out), len(c.topo.in)
	sc, sd, st, err := vblocks(op, no, carr(scounts, no, big), carr(sdispls, no, big), sdt)
	if err != nil {
		return fail(op, ch, err)
	}
	rc, rd, rt, err := vblocks(op, ni, carr(rcounts, ni, big), carr(rdispls, ni, big), rdt)
	if err != nil {
		return fail(op, ch, err)
	}
	return nbrRun(op, c, ch, req, m, sbuf, sc, sd, st, rbuf, rc, rd, rt)
}

func neighborAlltoallw(op string, sbuf unsafe.Pointer, scounts, sdispls, stypes unsafe.Pointer, rbuf unsafe.Pointer, rcounts, rdispls, rtypes unsafe.Pointer, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := neighborComm(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := wBytes(scounts, stypes, len(c.topo.out), big)
	defer exit(neighborAlltoallwCalls[m], c.enter(neighborAlltoallwCalls[m], prof.NoPeer, -1, pn), pn)
	no, ni := len(c.topo.out), len(c.topo.in)
	// The displacements are MPI_Aint in both the int and the large-count form.
	st, err := wtypes(op, "sendtypes", stypes, no)
	if err != nil {
		return fail(op, ch, err)
	}
	rt, err := wtypes(op, "recvtypes", rtypes, ni)
	if err != nil {
		return fail(op, ch, err)
	}
	sc, sd, rc, rd := carr(scounts, no, big), carr(sdispls, no, true), carr(rcounts, ni, big), carr(rdispls, ni, true)
	if len(sc) < no || len(sd) < no || len(rc) < ni || len(rd) < ni {
		return fail(op, ch, errorf(errArg, op, "counts or displacements are NULL"))
	}
	return nbrRun(op, c, ch, req, m, sbuf, sc, sd, st, rbuf, rc, rd, rt)
}
