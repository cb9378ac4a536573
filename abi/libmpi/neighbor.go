package main

import (
	"strings"
	"sync"
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// Neighbourhood collectives (MPI 4.1 section 7.6): every rank sends to its
// topology's destinations and receives from its sources, in the topology's neighbour
// order. All five forms become the w form (a count, a datatype and a byte
// displacement per neighbour) and the device's exchange (core.Neighbor), the Go
// library's: a receive per source and a send per destination on the communicator's
// internal context, blocks of contiguous layout straight from and to C memory, the
// others packed and unpacked around it; the nonblocking one progresses as the other
// nonblocking collectives do.

func neighborComm(op string, ch uintptr, req unsafe.Pointer, m mode) (*comm, int32) {
	c, r := commArg(op, ch, req, m)
	if c == nil {
		return nil, r
	}
	if _, _, _, err := mpir.Neighbors(op, c.c, c.topo); err != nil {
		return nil, fail(op, ch, err)
	}
	return c, 0
}

// nbrs is the ranks a neighbourhood collective on c receives from and sends to
// (neighborComm has checked c has a topology).
func (c *comm) nbrs() (in, out []int) {
	in, out, _, _ = c.topo.Neighbors()
	return in, out
}

// nbrLists holds the lists a call converts from C's (counts, displacements, types):
// pooled, given back once the device has read them, unless a persistent request
// keeps them.
type nbrLists struct {
	ints  [4]*[]int
	types [2]*[]*datatype.Type
	ni    int
	nt    int
	keep  bool
}

// counts is n C counts or displacements at p (ints, or MPI_Count/MPI_Aint when big);
// nil for a NULL array.
func (l *nbrLists) counts(p unsafe.Pointer, n int, big bool) []int {
	h := intLists.Get().(*[]int)
	*h = carrInto((*h)[:0], p, n, big)
	l.ints[l.ni] = h
	l.ni++
	return *h
}

// typeList is the n datatypes of the handles at p (what: the argument's name).
func (l *nbrLists) typeList(op, what string, p unsafe.Pointer, n int) ([]*datatype.Type, error) {
	hs := handles(p, n)
	if hs == nil && n > 0 {
		return nil, errorf(errArg, op, "%s is NULL", what)
	}
	h := typeLists.Get().(*[]*datatype.Type)
	l.types[l.nt] = h
	l.nt++
	out := (*h)[:0]
	if out == nil {
		out = []*datatype.Type{} // never nil: a side with types
	}
	for j, dh := range hs {
		t, err := typeOf(op, dh)
		if err != nil {
			return nil, errorf(errType, op, "%s[%d]: %s", what, j, strings.TrimPrefix(err.Error(), "MPI_"+op+": "))
		}
		out = append(out, t)
	}
	*h = out
	return out, nil
}

func (l *nbrLists) release() {
	if l.keep {
		return
	}
	for _, h := range l.ints[:l.ni] {
		intLists.Put(h)
	}
	for _, h := range l.types[:l.nt] {
		clear(*h)
		typeLists.Put(h)
	}
}

var typeLists = sync.Pool{New: func() any { return new([]*datatype.Type) }}

// uniform is one side of n blocks of count items of type dh, at steps of a block
// (step) or all at p.
func uniform(op string, count int64, dh uintptr, step bool) (collective.NSide, error) {
	t, err := typeOf(op, dh)
	if err != nil {
		return collective.NSide{}, err
	}
	s := collective.NSide{Count: int(count), Unit: int(t.Extent()), Type: t}
	if step {
		s.Stride = int(count)
	}
	return s, nil
}

// vblocks is one side of the v form: counts[j] items of dh at displs[j] extents.
func vblocks(op string, n int, counts, displs []int, dh uintptr) (collective.NSide, error) {
	t, err := typeOf(op, dh)
	if err != nil {
		return collective.NSide{}, err
	}
	if len(counts) < n || len(displs) < n {
		return collective.NSide{}, errorf(errArg, op, "counts or displacements are NULL")
	}
	return collective.NSide{Counts: counts[:n], Displs: displs[:n], Unit: int(t.Extent()), Type: t}, nil
}

// place lays side s's n blocks over the C memory from p: its Mem spans every block
// (p may be MPI_BOTTOM with absolute displacements), its Origin is p's place in it.
func place(op string, s *collective.NSide, p unsafe.Pointer, n int) error {
	lo, hi, err := mpir.SideSpan(s, n)
	if err != nil {
		return core.TypeErr(op, err)
	}
	s.Origin = int(-lo)
	if hi > lo {
		s.Mem = unsafe.Slice((*byte)(unsafe.Add(p, lo)), hi-lo)
	}
	return nil
}

func nbrRun(op string, c *comm, ch uintptr, req unsafe.Pointer, m mode, sbuf unsafe.Pointer, ws collective.NSide, rbuf unsafe.Pointer, wr collective.NSide) int32 {
	in, out, cart, _ := c.topo.Neighbors()
	if err := place(op, &ws, sbuf, len(out)); err != nil {
		return fail(op, ch, err)
	}
	if err := place(op, &wr, rbuf, len(in)); err != nil {
		return fail(op, ch, err)
	}
	switch m {
	case mBlock:
		_, err := collective.Neighbor(c.c, op, in, out, cart, &ws, &wr, false)
		return fail(op, ch, err)
	case mNB:
		p, err := collective.Neighbor(c.c, op, in, out, cart, &ws, &wr, true)
		return started(op, c, ch, req, p, err)
	}
	return launch(op, c, ch, req, m, nbrStart(op, c, in, out, cart, ws, wr))
}

// nbrStart is a persistent exchange's start, on its own copies of the sides: a
// closure in nbrRun would move the blocking path's to the heap on every call.
func nbrStart(op string, c *comm, in, out []int, cart bool, ws, wr collective.NSide) func(bool) (*core.Pending, error) {
	return func(bool) (*core.Pending, error) { return collective.Neighbor(c.c, op, in, out, cart, &ws, &wr, true) }
}

func neighborAllgather(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := neighborComm(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := typeBytes(scount, sdt)
	defer exit(neighborAllgatherCalls[m], c.enter(neighborAllgatherCalls[m], prof.NoPeer, -1, pn), pn)
	ws, err := uniform(op, scount, sdt, false)
	if err != nil {
		return fail(op, ch, err)
	}
	wr, err := uniform(op, rcount, rdt, true)
	if err != nil {
		return fail(op, ch, err)
	}
	return nbrRun(op, c, ch, req, m, sbuf, ws, rbuf, wr)
}

func neighborAllgatherv(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcounts, displs unsafe.Pointer, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := neighborComm(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := typeBytes(scount, sdt)
	defer exit(neighborAllgathervCalls[m], c.enter(neighborAllgathervCalls[m], prof.NoPeer, -1, pn), pn)
	ws, err := uniform(op, scount, sdt, false)
	if err != nil {
		return fail(op, ch, err)
	}
	l := nbrLists{keep: m == mPersist}
	defer l.release()
	in, _ := c.nbrs()
	n := len(in)
	wr, err := vblocks(op, n, l.counts(rcounts, n, big), l.counts(displs, n, big), rdt)
	if err != nil {
		return fail(op, ch, err)
	}
	return nbrRun(op, c, ch, req, m, sbuf, ws, rbuf, wr)
}

func neighborAlltoall(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := neighborComm(op, ch, req, m)
	if c == nil {
		return r
	}
	_, out := c.nbrs()
	pn := typeBytes(scount*int64(len(out)), sdt)
	defer exit(neighborAlltoallCalls[m], c.enter(neighborAlltoallCalls[m], prof.NoPeer, -1, pn), pn)
	ws, err := uniform(op, scount, sdt, true)
	if err != nil {
		return fail(op, ch, err)
	}
	wr, err := uniform(op, rcount, rdt, true)
	if err != nil {
		return fail(op, ch, err)
	}
	return nbrRun(op, c, ch, req, m, sbuf, ws, rbuf, wr)
}

func neighborAlltoallv(op string, sbuf unsafe.Pointer, scounts, sdispls unsafe.Pointer, sdt uintptr, rbuf unsafe.Pointer, rcounts, rdispls unsafe.Pointer, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := neighborComm(op, ch, req, m)
	if c == nil {
		return r
	}
	in, out := c.nbrs()
	no, ni := len(out), len(in)
	pn := vBytes(scounts, no, big, sdt)
	defer exit(neighborAlltoallvCalls[m], c.enter(neighborAlltoallvCalls[m], prof.NoPeer, -1, pn), pn)
	l := nbrLists{keep: m == mPersist}
	defer l.release()
	ws, err := vblocks(op, no, l.counts(scounts, no, big), l.counts(sdispls, no, big), sdt)
	if err != nil {
		return fail(op, ch, err)
	}
	wr, err := vblocks(op, ni, l.counts(rcounts, ni, big), l.counts(rdispls, ni, big), rdt)
	if err != nil {
		return fail(op, ch, err)
	}
	return nbrRun(op, c, ch, req, m, sbuf, ws, rbuf, wr)
}

func neighborAlltoallw(op string, sbuf unsafe.Pointer, scounts, sdispls, stypes unsafe.Pointer, rbuf unsafe.Pointer, rcounts, rdispls, rtypes unsafe.Pointer, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := neighborComm(op, ch, req, m)
	if c == nil {
		return r
	}
	in, out := c.nbrs()
	no, ni := len(out), len(in)
	pn := wBytes(scounts, stypes, no, big)
	defer exit(neighborAlltoallwCalls[m], c.enter(neighborAlltoallwCalls[m], prof.NoPeer, -1, pn), pn)
	l := nbrLists{keep: m == mPersist}
	defer l.release()
	st, err := l.typeList(op, "sendtypes", stypes, no)
	if err != nil {
		return fail(op, ch, err)
	}
	rt, err := l.typeList(op, "recvtypes", rtypes, ni)
	if err != nil {
		return fail(op, ch, err)
	}
	// The displacements are MPI_Aint in both the int and the large-count form.
	sc, sd, rc, rd := l.counts(scounts, no, big), l.counts(sdispls, no, true), l.counts(rcounts, ni, big), l.counts(rdispls, ni, true)
	if len(sc) < no || len(sd) < no || len(rc) < ni || len(rd) < ni {
		return fail(op, ch, errorf(errArg, op, "counts or displacements are NULL"))
	}
	ws := collective.NSide{Counts: sc, Displs: sd, Unit: 1, Types: st}
	wr := collective.NSide{Counts: rc, Displs: rd, Unit: 1, Types: rt}
	return nbrRun(op, c, ch, req, m, sbuf, ws, rbuf, wr)
}
