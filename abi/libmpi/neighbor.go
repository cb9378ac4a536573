package main

import (
	"sync"
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
)

// Neighbourhood collectives (MPI 4.1 section 8.6): the semantics are mpir's
// (mpir.Neighbor); this file turns each form's C arguments into the device's sides
// (collective.NSide: a count, a displacement and a datatype per neighbour) over the C
// memory they reach. The lists read from C (counts, displacements, types) are
// pooled, given back once the call has started, unless a persistent request keeps
// them.

// nbrLists holds the lists a call converts from C's.
type nbrLists struct {
	ints  [4]*[]int
	types [2]*[]*datatype.Type
	ni    int
	nt    int
	keep  bool
}

// counts is n C counts or displacements at p (ints, or MPI_Count/MPI_Aint when big);
// an empty list for a NULL array, which the checks name.
func (l *nbrLists) counts(p unsafe.Pointer, n int, big bool) []int {
	h := intLists.Get().(*[]int)
	*h = carrInto((*h)[:0], p, n, big)
	l.ints[l.ni] = h
	l.ni++
	if *h == nil {
		return []int{}
	}
	return *h
}

// typeList is the datatypes of the handles at p of the n blocks whose counts are
// counts (mpir.WTypes: those of data only), what naming the argument; an empty list
// for a NULL array.
func (l *nbrLists) typeList(op, what string, p unsafe.Pointer, n int, counts []int) ([]*datatype.Type, error) {
	hs := handles(p, n)
	h := typeLists.Get().(*[]*datatype.Type)
	l.types[l.nt] = h
	l.nt++
	out := (*h)[:0]
	if out == nil {
		out = []*datatype.Type{} // never nil: a side with types
	}
	if hs == nil {
		return out, nil
	}
	out, err := mpir.WTypes(op, what, n, counts, func(j int) (*datatype.Type, error) { return typeOf(op, hs[j]) }, out)
	*h = out
	return out, err
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
// (step) or all at the same place.
func uniform(op string, count int64, dh uintptr, step bool) (collective.NSide, error) {
	t, err := typeFor(op, dh, count)
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
func vblocks(op string, counts, displs []int, dh uintptr) (collective.NSide, error) {
	t, err := typeFor(op, dh, items(counts))
	if err != nil {
		return collective.NSide{}, err
	}
	return collective.NSide{Counts: counts, Displs: displs, Unit: int(t.Extent()), Type: t}, nil
}

// items is the items of the blocks of counts (those not negative, which mpir refuses).
func items(counts []int) int64 {
	n := int64(0)
	for _, k := range counts {
		n += int64(max(k, 0))
	}
	return n
}

// place lays side s's n blocks over the C memory from p (argument what): its Mem spans every block
// (p may be MPI_BOTTOM with absolute displacements), its Origin is p's place in it.
// Nothing for a side its conversion refused, or MPI_IN_PLACE.
func place(op, what string, s *collective.NSide, err *error, p unsafe.Pointer, n int) {
	if *err != nil || uintptr(p) == inPlaceAddr {
		return
	}
	lo, hi, e := mpir.SideSpan(s, n)
	if e != nil {
		*err = core.TypeErr(op, e)
		return
	}
	s.Origin = int(-lo)
	if hi > lo {
		s.Mem, *err = cmem(op, what, p, int64(lo), int64(hi))
	}
}

// nbrRun lays both sides over C memory and runs the neighbourhood collective k.
func nbrRun(op string, k mpir.CollKind, c *comm, ch uintptr, req unsafe.Pointer, m mode, sbuf, rbuf unsafe.Pointer, a *mpir.NArgs) int32 {
	in, out, _, _ := c.x.Topo().Neighbors()
	place(op, "sendbuf", &a.Send, &a.SendErr, sbuf, len(out))
	place(op, "recvbuf", &a.Recv, &a.RecvErr, rbuf, len(in))
	a.SendInPlace, a.RecvInPlace = uintptr(sbuf) == inPlaceAddr, uintptr(rbuf) == inPlaceAddr
	a.Err, a.Info = reqInfo(op, req, m)
	p, err := mpir.Neighbor(collProc(op, k, m.m), c.c, c.x.Topo(), a)
	return given(op, c, ch, req, m, p, err)
}

// degree is the in- and out-degree of c's topology (none without one, which
// mpir.Neighbor refuses).
func (c *comm) degree() (in, out int) {
	srcs, dsts, _, _ := c.x.Topo().Neighbors()
	return len(srcs), len(dsts)
}

func neighborAllgather(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	var a mpir.NArgs
	a.Send, a.SendErr = uniform(op, scount, sdt, false)
	a.Recv, a.RecvErr = uniform(op, rcount, rdt, true)
	return nbrRun(op, mpir.CollNeighborAllgather, c, ch, req, m, sbuf, rbuf, &a)
}

func neighborAllgatherv(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcounts, displs unsafe.Pointer, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	l := nbrLists{keep: m.m == mpir.Persistent}
	defer l.release()
	n, _ := c.degree()
	var a mpir.NArgs
	a.Send, a.SendErr = uniform(op, scount, sdt, false)
	if a.RecvErr = nullArrays(op, n, "recvcounts, displs", rcounts, displs); a.RecvErr == nil {
		a.Recv, a.RecvErr = vblocks(op, l.counts(rcounts, n, big), l.counts(displs, n, big), rdt)
	}
	return nbrRun(op, mpir.CollNeighborAllgatherv, c, ch, req, m, sbuf, rbuf, &a)
}

func neighborAlltoall(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	var a mpir.NArgs
	a.Send, a.SendErr = uniform(op, scount, sdt, true)
	a.Recv, a.RecvErr = uniform(op, rcount, rdt, true)
	return nbrRun(op, mpir.CollNeighborAlltoall, c, ch, req, m, sbuf, rbuf, &a)
}

func neighborAlltoallv(op string, sbuf unsafe.Pointer, scounts, sdispls unsafe.Pointer, sdt uintptr, rbuf unsafe.Pointer, rcounts, rdispls unsafe.Pointer, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	l := nbrLists{keep: m.m == mpir.Persistent}
	defer l.release()
	ni, no := c.degree()
	var a mpir.NArgs
	// A NULL array is a side's error; MPI_IN_PLACE is left to mpir's refusal of it.
	if uintptr(sbuf) != inPlaceAddr {
		a.SendErr = nullArrays(op, no, "sendcounts, sdispls", scounts, sdispls)
	}
	if a.SendErr == nil {
		a.Send, a.SendErr = vblocks(op, l.counts(scounts, no, big), l.counts(sdispls, no, big), sdt)
	}
	if a.RecvErr = nullArrays(op, ni, "recvcounts, rdispls", rcounts, rdispls); a.RecvErr == nil {
		a.Recv, a.RecvErr = vblocks(op, l.counts(rcounts, ni, big), l.counts(rdispls, ni, big), rdt)
	}
	return nbrRun(op, mpir.CollNeighborAlltoallv, c, ch, req, m, sbuf, rbuf, &a)
}

func neighborAlltoallw(op string, sbuf unsafe.Pointer, scounts, sdispls, stypes unsafe.Pointer, rbuf unsafe.Pointer, rcounts, rdispls, rtypes unsafe.Pointer, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	l := nbrLists{keep: m.m == mpir.Persistent}
	defer l.release()
	ni, no := c.degree()
	// The displacements are MPI_Aint in both the int and the large-count form.
	var a mpir.NArgs
	a.Send = collective.NSide{Counts: l.counts(scounts, no, big), Displs: l.counts(sdispls, no, true), Unit: 1}
	a.Recv = collective.NSide{Counts: l.counts(rcounts, ni, big), Displs: l.counts(rdispls, ni, true), Unit: 1}
	a.Send.Types, a.SendErr = l.typeList(op, "sendtypes", stypes, no, a.Send.Counts)
	a.Recv.Types, a.RecvErr = l.typeList(op, "recvtypes", rtypes, ni, a.Recv.Counts)
	// A NULL array is a side's error; MPI_IN_PLACE is left to mpir's refusal of it.
	if err := nullArrays(op, no, "sendcounts, sdispls, sendtypes", scounts, sdispls, stypes); err != nil && uintptr(sbuf) != inPlaceAddr {
		a.SendErr = err
	}
	if err := nullArrays(op, ni, "recvcounts, rdispls, recvtypes", rcounts, rdispls, rtypes); err != nil {
		a.RecvErr = err
	}
	return nbrRun(op, mpir.CollNeighborAlltoallw, c, ch, req, m, sbuf, rbuf, &a)
}
