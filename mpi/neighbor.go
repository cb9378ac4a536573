package mpi

import (
	"sync"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
)

// Neighbourhood collectives exchange data along the edges of a communicator's process
// topology (MPI standard 7.6): every rank sends to its destinations and receives from
// its sources, in the topology's neighbour order. For a Cartesian grid that order is, for
// each dimension, the -1 then the +1 neighbour; a ProcNull neighbour (a non-periodic
// edge) sends nothing and leaves its receive block untouched.

// neighborRun runs neighbourhood collective k in mode m on c with sides a (mpir
// checks them against c's topology).
func (c *Comm) neighborRun(k mpir.CollKind, m mpir.Mode, a *mpir.NArgs) (*core.Pending, error) {
	return mpir.Neighbor(collOf(k, m), c.dev(), c.topo(), a)
}

// degree is the in- and out-degree of c's topology (none without one, which mpir
// refuses).
func (c *Comm) degree() (in, out int) {
	if c == nil {
		return 0, 0
	}
	srcs, dsts, _, _ := c.topo().Neighbors()
	return len(srcs), len(dsts)
}

// nside is a side of blocks of T's elements in b.
func nside[T Elem](b []T) collective.NSide {
	return collective.NSide{Mem: asBytes(b), Unit: esize[T]()}
}

// NeighborAllgather sends send to every destination and receives one block of
// len(send) elements from each source into recv, in neighbour order
// (MPI_Neighbor_allgather).
func NeighborAllgather[T Elem](c *Comm, send, recv []T) error {
	if c.special() {
		if done, err := c.aroundArgs("NeighborAllgather", &collArgs{sraw: rawOf(send), rraw: rawOf(recv), gen: aroundNeighborAllgather[T]{}}, callGen); done {
			return err
		}
	}
	_, err := neighborAllgather(mpir.Blocking, c, send, recv)
	return c.fail("NeighborAllgather", err)
}

func neighborAllgather[T Elem](m mpir.Mode, c *Comm, send, recv []T) (*core.Pending, error) {
	a := mpir.NArgs{Send: nside(send), Recv: nside(recv), SendInPlace: isInPlace(send), RecvInPlace: isInPlace(recv)}
	a.Send.Count = len(send)
	a.Recv.Count, a.Recv.Stride = len(send), len(send)
	return c.neighborRun(mpir.CollNeighborAllgather, m, &a)
}

// NeighborAllgatherv is NeighborAllgather with the block from source i received as
// counts[i] elements at displs[i] of recv (MPI_Neighbor_allgatherv).
func NeighborAllgatherv[T Elem](c *Comm, send, recv []T, counts, displs []int) error {
	if c.special() {
		if done, err := c.aroundArgs("NeighborAllgatherv", &collArgs{sraw: rawOf(send), rraw: rawOf(recv), counts: counts, displs: displs, gen: aroundNeighborAllgatherv[T]{}}, callGen); done {
			return err
		}
	}
	_, err := neighborAllgatherv(mpir.Blocking, c, send, recv, counts, displs)
	return c.fail("NeighborAllgatherv", err)
}

func neighborAllgatherv[T Elem](m mpir.Mode, c *Comm, send, recv []T, counts, displs []int) (*core.Pending, error) {
	a := mpir.NArgs{Send: nside(send), Recv: nside(recv), SendInPlace: isInPlace(send), RecvInPlace: isInPlace(recv)}
	a.Send.Count = len(send)
	a.Recv.Counts, a.Recv.Displs = orEmpty(counts), orEmpty(displs)
	return c.neighborRun(mpir.CollNeighborAllgatherv, m, &a)
}

// NeighborAlltoall sends block j of send to destination j and receives block i of recv
// from source i, every block len(send)/outdegree elements (MPI_Neighbor_alltoall).
func NeighborAlltoall[T Elem](c *Comm, send, recv []T) error {
	if c.special() {
		if done, err := c.aroundArgs("NeighborAlltoall", &collArgs{sraw: rawOf(send), rraw: rawOf(recv), gen: aroundNeighborAlltoall[T]{}}, callGen); done {
			return err
		}
	}
	_, err := neighborAlltoall(mpir.Blocking, c, send, recv)
	return c.fail("NeighborAlltoall", err)
}

func neighborAlltoall[T Elem](m mpir.Mode, c *Comm, send, recv []T) (*core.Pending, error) {
	p := collOf(mpir.CollNeighborAlltoall, m)
	a := mpir.NArgs{Send: nside(send), Recv: nside(recv), SendInPlace: isInPlace(send), RecvInPlace: isInPlace(recv)}
	// Every block is len(send)/outdegree elements; with no destination, every
	// source's block is empty.
	n := 0
	if _, out := c.degree(); out > 0 {
		if len(send)%out != 0 {
			a.SendErr = errorf(ClassCount, p.Op, "send holds %d elements, not a whole block for each of %d destinations", len(send), out)
		}
		n = len(send) / out
	}
	a.Send.Count, a.Send.Stride = n, n
	a.Recv.Count, a.Recv.Stride = n, n
	return mpir.Neighbor(p, c.dev(), c.topo(), &a)
}

// NeighborAlltoallv is NeighborAlltoall with blocks of their own sizes and places
// (MPI_Neighbor_alltoallv).
func NeighborAlltoallv[T Elem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) error {
	if c.special() {
		a := collArgs{sraw: rawOf(send), rraw: rawOf(recv), counts: scounts, displs: sdispls, rcounts: rcounts, rdispls: rdispls, gen: aroundNeighborAlltoallv[T]{}}
		if done, err := c.aroundArgs("NeighborAlltoallv", &a, callGen); done {
			return err
		}
	}
	_, err := neighborAlltoallv(mpir.Blocking, c, send, scounts, sdispls, recv, rcounts, rdispls)
	return c.fail("NeighborAlltoallv", err)
}

func neighborAlltoallv[T Elem](m mpir.Mode, c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (*core.Pending, error) {
	a := mpir.NArgs{Send: nside(send), Recv: nside(recv), SendInPlace: isInPlace(send), RecvInPlace: isInPlace(recv)}
	a.Send.Counts, a.Send.Displs = orEmpty(scounts), orEmpty(sdispls)
	a.Recv.Counts, a.Recv.Displs = orEmpty(rcounts), orEmpty(rdispls)
	return c.neighborRun(mpir.CollNeighborAlltoallv, m, &a)
}

// NeighborAlltoallw is NeighborAlltoallv with a datatype per neighbour and
// displacements in bytes (MPI_Neighbor_alltoallw): scounts[j] items of stypes[j], laid
// out from byte sdispls[j] of send, go to destination j, and rcounts[i] items of
// rtypes[i] are received from source i, laid out from byte rdispls[i] of recv. The
// send slices have one entry per destination, the receive slices one per source; the
// rules on element types, datatypes and blocks are Alltoallw's, and a ProcNull
// neighbour's block is neither sent nor touched.
func NeighborAlltoallw[S, R any](c *Comm, send []S, scounts, sdispls []int, stypes []*Datatype, recv []R, rcounts, rdispls []int, rtypes []*Datatype) error {
	if c.special() {
		a := collArgs{sraw: rawOf(send), rraw: rawOf(recv), counts: scounts, displs: sdispls, stypes: stypes, rcounts: rcounts, rdispls: rdispls, rtypes: rtypes, gen: aroundNeighborAlltoallw[S, R]{}}
		if done, err := c.aroundArgs("NeighborAlltoallw", &a, callGen); done {
			return err
		}
	}
	_, err := neighborAlltoallw(mpir.Blocking, c, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	return c.fail("NeighborAlltoallw", err)
}

func neighborAlltoallw[S, R any](m mpir.Mode, c *Comm, send []S, scounts, sdispls []int, stypes []*Datatype, recv []R, rcounts, rdispls []int, rtypes []*Datatype) (*core.Pending, error) {
	p := collOf(mpir.CollNeighborAlltoallw, m)
	var a mpir.NArgs
	a.SendInPlace, a.RecvInPlace = isInPlaceAny(send), isInPlaceAny(recv)
	a.Send.Mem, a.SendErr = rawBytes(p.Op, "send", send)
	a.Recv.Mem, a.RecvErr = rawBytes(p.Op, "recv", recv)
	a.Send.Counts, a.Send.Displs, a.Send.Unit = orEmpty(scounts), orEmpty(sdispls), 1
	a.Recv.Counts, a.Recv.Displs, a.Recv.Unit = orEmpty(rcounts), orEmpty(rdispls), 1
	if m == mpir.Persistent { // the request keeps its types
		a.Send.Types, a.Recv.Types = typesInto(nil, stypes), typesInto(nil, rtypes)
		return mpir.Neighbor(p, c.dev(), c.topo(), &a)
	}
	// The device's types, in pooled lists: the device reads them only during the call.
	sl, rl := typeLists.Get().(*[]*datatype.Type), typeLists.Get().(*[]*datatype.Type)
	a.Send.Types, a.Recv.Types = typesInto((*sl)[:0], stypes), typesInto((*rl)[:0], rtypes)
	pd, err := mpir.Neighbor(p, c.dev(), c.topo(), &a)
	*sl, *rl = a.Send.Types[:0], a.Recv.Types[:0]
	clear((*sl)[:cap(*sl)])
	clear((*rl)[:cap(*rl)])
	typeLists.Put(sl)
	typeLists.Put(rl)
	return pd, err
}

// typeLists holds lists of device types for the w form's calls.
var typeLists = sync.Pool{New: func() any { return new([]*datatype.Type) }}

// typesInto appends the device's type of each of ds to out (nil for a nil one); the
// result is never nil, for a nil list is a side without types.
func typesInto(out []*datatype.Type, ds []*Datatype) []*datatype.Type {
	if out == nil {
		out = []*datatype.Type{}
	}
	for _, d := range ds {
		var t *datatype.Type
		if d != nil {
			t = d.t
		}
		out = append(out, t)
	}
	return out
}

// orEmpty is v, or an empty slice for nil: a side's per-neighbour slices given as nil
// are empty ones, which mpir checks against the degree.
func orEmpty(v []int) []int {
	if v == nil {
		return []int{}
	}
	return v
}

// The neighbourhood collectives on typed buffers (see Typed and the collectives'
// Buf forms): blocks are items of the buffer's datatype, displacements in units of
// its extent.

// NeighborAllgatherBuf sends send's items to every destination and receives from each
// source a block of recv's items (its count divided among the sources), in neighbour
// order.
func NeighborAllgatherBuf(c *Comm, send, recv Buf) error {
	if c.special() {
		if done, err := c.aroundArgs("NeighborAllgather", &collArgs{bs: send, br: recv}, aroundNeighborAllgatherBuf); done {
			return err
		}
	}
	_, err := neighborAllgatherBuf(mpir.Blocking, c, send, recv)
	return c.fail("NeighborAllgather", err)
}

func neighborAllgatherBuf(m mpir.Mode, c *Comm, send, recv Buf) (*core.Pending, error) {
	p := collOf(mpir.CollNeighborAllgather, m)
	per := 0
	var bad error
	if in, _ := c.degree(); in > 0 {
		if int(recv.count)%in != 0 {
			bad = errorf(ClassCount, p.Op, "recv's %d items are not a whole block for each of %d sources", recv.count, in)
		}
		per = int(recv.count) / in
	}
	a := neighborBuf(p.Op, send, recv, collective.NSide{Count: int(send.count)}, collective.NSide{Count: per, Stride: per})
	if a.RecvErr == nil {
		a.RecvErr = bad
	}
	return mpir.Neighbor(p, c.dev(), c.topo(), &a)
}

// NeighborAllgathervBuf is NeighborAllgatherBuf with the block from source i received
// as counts[i] items at item displs[i] of recv.
func NeighborAllgathervBuf(c *Comm, send, recv Buf, counts, displs []int) error {
	if c.special() {
		if done, err := c.aroundArgs("NeighborAllgatherv", &collArgs{bs: send, br: recv, counts: counts, displs: displs}, aroundNeighborAllgathervBuf); done {
			return err
		}
	}
	_, err := neighborAllgathervBuf(mpir.Blocking, c, send, recv, counts, displs)
	return c.fail("NeighborAllgatherv", err)
}

func neighborAllgathervBuf(m mpir.Mode, c *Comm, send, recv Buf, counts, displs []int) (*core.Pending, error) {
	p := collOf(mpir.CollNeighborAllgatherv, m)
	a := neighborBuf(p.Op, send, recv, collective.NSide{Count: int(send.count)}, collective.NSide{Counts: orEmpty(counts), Displs: orEmpty(displs)})
	return mpir.Neighbor(p, c.dev(), c.topo(), &a)
}

// NeighborAlltoallBuf sends block j of send to destination j and receives block i of
// recv from source i; each buffer's items are divided evenly among its neighbours.
func NeighborAlltoallBuf(c *Comm, send, recv Buf) error {
	if c.special() {
		if done, err := c.aroundArgs("NeighborAlltoall", &collArgs{bs: send, br: recv}, aroundNeighborAlltoallBuf); done {
			return err
		}
	}
	_, err := neighborAlltoallBuf(mpir.Blocking, c, send, recv)
	return c.fail("NeighborAlltoall", err)
}

func neighborAlltoallBuf(m mpir.Mode, c *Comm, send, recv Buf) (*core.Pending, error) {
	p := collOf(mpir.CollNeighborAlltoall, m)
	in, out := c.degree()
	var bad error
	if out > 0 && int(send.count)%out != 0 || in > 0 && int(recv.count)%in != 0 {
		bad = errorf(ClassCount, p.Op, "send's %d items must be a whole block for each of %d destinations and recv's %d for each of %d sources",
			send.count, out, recv.count, in)
	}
	sp, rp := 0, 0
	if out > 0 {
		sp = int(send.count) / out
	}
	if in > 0 {
		rp = int(recv.count) / in
	}
	a := neighborBuf(p.Op, send, recv, collective.NSide{Count: sp, Stride: sp}, collective.NSide{Count: rp, Stride: rp})
	if a.SendErr == nil {
		a.SendErr = bad
	}
	return mpir.Neighbor(p, c.dev(), c.topo(), &a)
}

// NeighborAlltoallvBuf is NeighborAlltoallBuf with blocks of their own counts and
// places (in items).
func NeighborAlltoallvBuf(c *Comm, send Buf, scounts, sdispls []int, recv Buf, rcounts, rdispls []int) error {
	if c.special() {
		a := collArgs{bs: send, br: recv, counts: scounts, displs: sdispls, rcounts: rcounts, rdispls: rdispls}
		if done, err := c.aroundArgs("NeighborAlltoallv", &a, aroundNeighborAlltoallvBuf); done {
			return err
		}
	}
	_, err := neighborAlltoallvBuf(mpir.Blocking, c, send, scounts, sdispls, recv, rcounts, rdispls)
	return c.fail("NeighborAlltoallv", err)
}

func neighborAlltoallvBuf(m mpir.Mode, c *Comm, send Buf, scounts, sdispls []int, recv Buf, rcounts, rdispls []int) (*core.Pending, error) {
	p := collOf(mpir.CollNeighborAlltoallv, m)
	a := neighborBuf(p.Op, send, recv, collective.NSide{Counts: orEmpty(scounts), Displs: orEmpty(sdispls)},
		collective.NSide{Counts: orEmpty(rcounts), Displs: orEmpty(rdispls)})
	return mpir.Neighbor(p, c.dev(), c.topo(), &a)
}

// neighborBuf is a neighbourhood collective's sides of typed buffers, the blocks of
// each (s and r: their counts and displacements in items) completed with the buffer's
// memory and datatype, displacements in units of its extent.
func neighborBuf(op string, send, recv Buf, s, r collective.NSide) mpir.NArgs {
	a := mpir.NArgs{SendInPlace: send.isInPlace(), RecvInPlace: recv.isInPlace()}
	a.SendErr = bufSide(op, "send", &send, &s)
	a.RecvErr = bufSide(op, "recv", &recv, &r)
	a.Send, a.Recv = s, r
	return a
}

// bufSide completes side s with b's memory and datatype, or says what is wrong with b.
func bufSide(op, what string, b *Buf, s *collective.NSide) error {
	switch {
	case b.err != nil:
		return b.err
	case b.isInPlace():
		return nil
	case b.dt == nil:
		return errorf(ClassType, op, "%s has no datatype (make it with Typed)", what)
	}
	s.Mem, s.Type, s.Unit = b.mem, b.dt, int(b.dt.Extent())
	return nil
}

// IneighborAllgather is the nonblocking NeighborAllgather.
func IneighborAllgather[T Elem](c *Comm, send, recv []T) (Request, error) {
	p, err := neighborAllgather(mpir.Nonblocking, c, send, recv)
	return c.start("IneighborAllgather", p, err)
}

// IneighborAllgatherv is the nonblocking NeighborAllgatherv.
func IneighborAllgatherv[T Elem](c *Comm, send, recv []T, counts, displs []int) (Request, error) {
	p, err := neighborAllgatherv(mpir.Nonblocking, c, send, recv, counts, displs)
	return c.start("IneighborAllgatherv", p, err)
}

// IneighborAlltoall is the nonblocking NeighborAlltoall.
func IneighborAlltoall[T Elem](c *Comm, send, recv []T) (Request, error) {
	p, err := neighborAlltoall(mpir.Nonblocking, c, send, recv)
	return c.start("IneighborAlltoall", p, err)
}

// IneighborAlltoallv is the nonblocking NeighborAlltoallv.
func IneighborAlltoallv[T Elem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (Request, error) {
	p, err := neighborAlltoallv(mpir.Nonblocking, c, send, scounts, sdispls, recv, rcounts, rdispls)
	return c.start("IneighborAlltoallv", p, err)
}

// IneighborAllgatherBuf is the nonblocking NeighborAllgatherBuf.
func IneighborAllgatherBuf(c *Comm, send, recv Buf) (Request, error) {
	p, err := neighborAllgatherBuf(mpir.Nonblocking, c, send, recv)
	return c.start("IneighborAllgather", p, err)
}

// IneighborAllgathervBuf is the nonblocking NeighborAllgathervBuf.
func IneighborAllgathervBuf(c *Comm, send, recv Buf, counts, displs []int) (Request, error) {
	p, err := neighborAllgathervBuf(mpir.Nonblocking, c, send, recv, counts, displs)
	return c.start("IneighborAllgatherv", p, err)
}

// IneighborAlltoallBuf is the nonblocking NeighborAlltoallBuf.
func IneighborAlltoallBuf(c *Comm, send, recv Buf) (Request, error) {
	p, err := neighborAlltoallBuf(mpir.Nonblocking, c, send, recv)
	return c.start("IneighborAlltoall", p, err)
}

// IneighborAlltoallvBuf is the nonblocking NeighborAlltoallvBuf.
func IneighborAlltoallvBuf(c *Comm, send Buf, scounts, sdispls []int, recv Buf, rcounts, rdispls []int) (Request, error) {
	p, err := neighborAlltoallvBuf(mpir.Nonblocking, c, send, scounts, sdispls, recv, rcounts, rdispls)
	return c.start("IneighborAlltoallv", p, err)
}

// IneighborAlltoallw is the nonblocking NeighborAlltoallw. Until the request
// completes, send and recv belong to MPI.
func IneighborAlltoallw[S, R any](c *Comm, send []S, scounts, sdispls []int, stypes []*Datatype, recv []R, rcounts, rdispls []int, rtypes []*Datatype) (Request, error) {
	p, err := neighborAlltoallw(mpir.Nonblocking, c, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	return c.start("IneighborAlltoallw", p, err)
}

// The neighbourhood collectives' calls through a view (see aroundArgs): functions
// that capture nothing, on the arguments the view's runner carries.

type aroundNeighborAllgather[T Elem] struct{}

func (aroundNeighborAllgather[T]) call(b *Comm, a *collArgs) error {
	return NeighborAllgather(b, sliceOf[T](a.sraw), sliceOf[T](a.rraw))
}

type aroundNeighborAllgatherv[T Elem] struct{}

func (aroundNeighborAllgatherv[T]) call(b *Comm, a *collArgs) error {
	return NeighborAllgatherv(b, sliceOf[T](a.sraw), sliceOf[T](a.rraw), a.counts, a.displs)
}

type aroundNeighborAlltoall[T Elem] struct{}

func (aroundNeighborAlltoall[T]) call(b *Comm, a *collArgs) error {
	return NeighborAlltoall(b, sliceOf[T](a.sraw), sliceOf[T](a.rraw))
}

type aroundNeighborAlltoallv[T Elem] struct{}

func (aroundNeighborAlltoallv[T]) call(b *Comm, a *collArgs) error {
	return NeighborAlltoallv(b, sliceOf[T](a.sraw), a.counts, a.displs, sliceOf[T](a.rraw), a.rcounts, a.rdispls)
}

type aroundNeighborAlltoallw[S, R any] struct{}

func (aroundNeighborAlltoallw[S, R]) call(b *Comm, a *collArgs) error {
	return NeighborAlltoallw(b, sliceOf[S](a.sraw), a.counts, a.displs, a.stypes, sliceOf[R](a.rraw), a.rcounts, a.rdispls, a.rtypes)
}

func aroundNeighborAllgatherBuf(b *Comm, a *collArgs) error {
	return NeighborAllgatherBuf(b, a.bs, a.br)
}

func aroundNeighborAllgathervBuf(b *Comm, a *collArgs) error {
	return NeighborAllgathervBuf(b, a.bs, a.br, a.counts, a.displs)
}

func aroundNeighborAlltoallBuf(b *Comm, a *collArgs) error {
	return NeighborAlltoallBuf(b, a.bs, a.br)
}

func aroundNeighborAlltoallvBuf(b *Comm, a *collArgs) error {
	return NeighborAlltoallvBuf(b, a.bs, a.counts, a.displs, a.br, a.rcounts, a.rdispls)
}
