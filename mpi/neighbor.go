package mpi

import (
	"sync"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// Neighbourhood collectives exchange data along the edges of a communicator's process
// topology (MPI standard 7.6): every rank sends to its destinations and receives from
// its sources, in the topology's neighbour order. For a Cartesian grid that order is, for
// each dimension, the -1 then the +1 neighbour; a ProcNull neighbour (a non-periodic
// edge) sends nothing and leaves its receive block untouched.

// neighborRun runs the exchange of send's and recv's blocks along c's topology (the
// device's Neighbor), or with nb starts it.
func (c *Comm) neighborRun(op string, send, recv *collective.NSide, nb bool) (*core.Pending, error) {
	srcs, dsts, cart, _ := c.topo.Neighbors()
	return collective.Neighbor(c.d, op, srcs, dsts, cart, send, recv, nb)
}

// neighborShape checks c has a topology and returns its in- and out-degree. Its
// error has not been through the handler.
func (c *Comm) neighborShape(op string) (in, out int, err error) {
	if err := c.dev().Check(op); err != nil {
		return 0, 0, err
	}
	srcs, dsts, _, err := mpir.Neighbors(op, c.d, c.topo)
	return len(srcs), len(dsts), err
}

func checkBlocks(op, what string, counts, displs []int, n, size int) error {
	if len(counts) < n || len(displs) < n {
		return errorf(ClassArg, op, "%s: %d counts and %d displacements for %d neighbours", what, len(counts), len(displs), n)
	}
	for i := 0; i < n; i++ {
		if counts[i] < 0 || displs[i] < 0 || displs[i]+counts[i] > size {
			return errorf(ClassArg, op, "%s block %d: count %d at displacement %d outside the buffer of %d elements",
				what, i, counts[i], displs[i], size)
		}
	}
	return nil
}

// NeighborAllgather sends send to every destination and receives one block of
// len(send) elements from each source into recv, in neighbour order
// (MPI_Neighbor_allgather).
func NeighborAllgather[T Elem](c *Comm, send, recv []T) error {
	defer prof.Exit(prof.NeighborAllgather, c.enter(prof.NeighborAllgather, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	if c.special() {
		if done, err := c.aroundArgs("NeighborAllgather", &collArgs{sraw: rawOf(send), rraw: rawOf(recv), gen: aroundNeighborAllgather[T]{}}, callGen); done {
			return err
		}
	}
	_, err := neighborAllgather("NeighborAllgather", c, send, recv, false)
	return c.fail("NeighborAllgather", err)
}

func neighborAllgather[T Elem](op string, c *Comm, send, recv []T, nb bool) (*core.Pending, error) {
	in, _, err := c.neighborShape(op)
	if err != nil {
		return nil, err
	}
	n := len(send)
	if len(recv) < n*in {
		return nil, errorf(ClassCount, op, "recv holds %d elements, need %d (%d sources of %d)", len(recv), n*in, in, n)
	}
	es := esize[T]()
	return c.neighborRun(op, &collective.NSide{Mem: asBytes(send), Count: n, Unit: es},
		&collective.NSide{Mem: asBytes(recv), Count: n, Stride: n, Unit: es}, nb)
}

// NeighborAllgatherv is NeighborAllgather with the block from source i received as
// counts[i] elements at displs[i] of recv (MPI_Neighbor_allgatherv).
func NeighborAllgatherv[T Elem](c *Comm, send, recv []T, counts, displs []int) error {
	defer prof.Exit(prof.NeighborAllgatherv, c.enter(prof.NeighborAllgatherv, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	if c.special() {
		if done, err := c.aroundArgs("NeighborAllgatherv", &collArgs{sraw: rawOf(send), rraw: rawOf(recv), counts: counts, displs: displs, gen: aroundNeighborAllgatherv[T]{}}, callGen); done {
			return err
		}
	}
	_, err := neighborAllgatherv("NeighborAllgatherv", c, send, recv, counts, displs, false)
	return c.fail("NeighborAllgatherv", err)
}

func neighborAllgatherv[T Elem](op string, c *Comm, send, recv []T, counts, displs []int, nb bool) (*core.Pending, error) {
	in, _, err := c.neighborShape(op)
	if err != nil {
		return nil, err
	}
	if err := checkBlocks(op, "recv", counts, displs, in, len(recv)); err != nil {
		return nil, err
	}
	es := esize[T]()
	return c.neighborRun(op, &collective.NSide{Mem: asBytes(send), Count: len(send), Unit: es},
		&collective.NSide{Mem: asBytes(recv), Counts: counts, Displs: displs, Unit: es}, nb)
}

// NeighborAlltoall sends block j of send to destination j and receives block i of recv
// from source i, every block len(send)/outdegree elements (MPI_Neighbor_alltoall).
func NeighborAlltoall[T Elem](c *Comm, send, recv []T) error {
	defer prof.Exit(prof.NeighborAlltoall, c.enter(prof.NeighborAlltoall, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	if c.special() {
		if done, err := c.aroundArgs("NeighborAlltoall", &collArgs{sraw: rawOf(send), rraw: rawOf(recv), gen: aroundNeighborAlltoall[T]{}}, callGen); done {
			return err
		}
	}
	_, err := neighborAlltoall("NeighborAlltoall", c, send, recv, false)
	return c.fail("NeighborAlltoall", err)
}

func neighborAlltoall[T Elem](op string, c *Comm, send, recv []T, nb bool) (*core.Pending, error) {
	in, out, err := c.neighborShape(op)
	if err != nil {
		return nil, err
	}
	n := 0 // with no destination, every source's block is empty
	if out > 0 {
		if len(send)%out != 0 {
			return nil, errorf(ClassCount, op, "send holds %d elements, not a whole block for each of %d destinations", len(send), out)
		}
		n = len(send) / out
	}
	if len(recv) < n*in {
		return nil, errorf(ClassCount, op, "recv holds %d elements, need %d (%d sources of %d)", len(recv), n*in, in, n)
	}
	es := esize[T]()
	return c.neighborRun(op, &collective.NSide{Mem: asBytes(send), Count: n, Stride: n, Unit: es},
		&collective.NSide{Mem: asBytes(recv), Count: n, Stride: n, Unit: es}, nb)
}

// NeighborAlltoallv is NeighborAlltoall with blocks of their own sizes and places
// (MPI_Neighbor_alltoallv).
func NeighborAlltoallv[T Elem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) error {
	defer prof.Exit(prof.NeighborAlltoallv, c.enter(prof.NeighborAlltoallv, prof.NoPeer, nbytes(send)), nbytes(send))
	if c.special() {
		a := collArgs{sraw: rawOf(send), rraw: rawOf(recv), counts: scounts, displs: sdispls, rcounts: rcounts, rdispls: rdispls, gen: aroundNeighborAlltoallv[T]{}}
		if done, err := c.aroundArgs("NeighborAlltoallv", &a, callGen); done {
			return err
		}
	}
	_, err := neighborAlltoallv("NeighborAlltoallv", c, send, scounts, sdispls, recv, rcounts, rdispls, false)
	return c.fail("NeighborAlltoallv", err)
}

func neighborAlltoallv[T Elem](op string, c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int, nb bool) (*core.Pending, error) {
	in, out, err := c.neighborShape(op)
	if err != nil {
		return nil, err
	}
	if err := checkBlocks(op, "send", scounts, sdispls, out, len(send)); err != nil {
		return nil, err
	}
	if err := checkBlocks(op, "recv", rcounts, rdispls, in, len(recv)); err != nil {
		return nil, err
	}
	es := esize[T]()
	return c.neighborRun(op, &collective.NSide{Mem: asBytes(send), Counts: scounts, Displs: sdispls, Unit: es},
		&collective.NSide{Mem: asBytes(recv), Counts: rcounts, Displs: rdispls, Unit: es}, nb)
}

// NeighborAlltoallw is NeighborAlltoallv with a datatype per neighbour and
// displacements in bytes (MPI_Neighbor_alltoallw): scounts[j] items of stypes[j], laid
// out from byte sdispls[j] of send, go to destination j, and rcounts[i] items of
// rtypes[i] are received from source i, laid out from byte rdispls[i] of recv. The
// send slices have one entry per destination, the receive slices one per source; the
// rules on element types, datatypes and blocks are Alltoallw's, and a ProcNull
// neighbour's block is neither sent nor touched.
func NeighborAlltoallw[S, R any](c *Comm, send []S, scounts, sdispls []int, stypes []*Datatype, recv []R, rcounts, rdispls []int, rtypes []*Datatype) error {
	defer prof.Exit(prof.NeighborAlltoallw, c.enter(prof.NeighborAlltoallw, prof.NoPeer, wBytes(scounts, stypes)), wBytes(scounts, stypes))
	if c.special() {
		a := collArgs{sraw: rawOf(send), rraw: rawOf(recv), counts: scounts, displs: sdispls, stypes: stypes, rcounts: rcounts, rdispls: rdispls, rtypes: rtypes, gen: aroundNeighborAlltoallw[S, R]{}}
		if done, err := c.aroundArgs("NeighborAlltoallw", &a, callGen); done {
			return err
		}
	}
	_, err := neighborAlltoallw("NeighborAlltoallw", c, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, false)
	return c.fail("NeighborAlltoallw", err)
}

func neighborAlltoallw[S, R any](op string, c *Comm, send []S, scounts, sdispls []int, stypes []*Datatype, recv []R, rcounts, rdispls []int, rtypes []*Datatype, nb bool) (*core.Pending, error) {
	smem, err := rawBytes(op, "send", send)
	if err != nil {
		return nil, err
	}
	rmem, err := rawBytes(op, "recv", recv)
	if err != nil {
		return nil, err
	}
	if _, _, err := c.neighborShape(op); err != nil {
		return nil, err
	}
	// The device's types, in pooled lists: the device reads them only during the call.
	sl, rl := typeLists.Get().(*[]*datatype.Type), typeLists.Get().(*[]*datatype.Type)
	*sl, *rl = typesInto((*sl)[:0], stypes), typesInto((*rl)[:0], rtypes)
	p, err := c.neighborRun(op, &collective.NSide{Mem: smem, Counts: orEmpty(scounts), Displs: orEmpty(sdispls), Unit: 1, Types: *sl},
		&collective.NSide{Mem: rmem, Counts: orEmpty(rcounts), Displs: orEmpty(rdispls), Unit: 1, Types: *rl}, nb)
	clear(*sl)
	clear(*rl)
	typeLists.Put(sl)
	typeLists.Put(rl)
	return p, err
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
// are empty ones, which the device checks against the degree.
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
	defer prof.Exit(prof.NeighborAllgather, c.enter(prof.NeighborAllgather, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	if c.special() {
		if done, err := c.aroundArgs("NeighborAllgather", &collArgs{bs: send, br: recv}, aroundNeighborAllgatherBuf); done {
			return err
		}
	}
	_, err := neighborAllgatherBuf("NeighborAllgather", c, send, recv, false)
	return c.fail("NeighborAllgather", err)
}

func neighborAllgatherBuf(op string, c *Comm, send, recv Buf, nb bool) (*core.Pending, error) {
	in, _, err := c.neighborShape(op)
	if err != nil {
		return nil, err
	}
	if recv.dt == nil || in > 0 && int(recv.count)%in != 0 {
		return nil, errorf(ClassCount, op, "recv's %d items are not a whole block for each of %d sources", recv.count, in)
	}
	per := 0
	if in > 0 {
		per = int(recv.count) / in
	}
	return neighborBuf(op, c, send, recv, collective.NSide{Count: int(send.count)}, collective.NSide{Count: per, Stride: per}, nb)
}

// NeighborAllgathervBuf is NeighborAllgatherBuf with the block from source i received
// as counts[i] items at item displs[i] of recv.
func NeighborAllgathervBuf(c *Comm, send, recv Buf, counts, displs []int) error {
	defer prof.Exit(prof.NeighborAllgatherv, c.enter(prof.NeighborAllgatherv, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	if c.special() {
		if done, err := c.aroundArgs("NeighborAllgatherv", &collArgs{bs: send, br: recv, counts: counts, displs: displs}, aroundNeighborAllgathervBuf); done {
			return err
		}
	}
	_, err := neighborAllgathervBuf("NeighborAllgatherv", c, send, recv, counts, displs, false)
	return c.fail("NeighborAllgatherv", err)
}

func neighborAllgathervBuf(op string, c *Comm, send, recv Buf, counts, displs []int, nb bool) (*core.Pending, error) {
	if _, _, err := c.neighborShape(op); err != nil {
		return nil, err
	}
	return neighborBuf(op, c, send, recv, collective.NSide{Count: int(send.count)}, collective.NSide{Counts: orEmpty(counts), Displs: orEmpty(displs)}, nb)
}

// NeighborAlltoallBuf sends block j of send to destination j and receives block i of
// recv from source i; each buffer's items are divided evenly among its neighbours.
func NeighborAlltoallBuf(c *Comm, send, recv Buf) error {
	defer prof.Exit(prof.NeighborAlltoall, c.enter(prof.NeighborAlltoall, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	if c.special() {
		if done, err := c.aroundArgs("NeighborAlltoall", &collArgs{bs: send, br: recv}, aroundNeighborAlltoallBuf); done {
			return err
		}
	}
	_, err := neighborAlltoallBuf("NeighborAlltoall", c, send, recv, false)
	return c.fail("NeighborAlltoall", err)
}

func neighborAlltoallBuf(op string, c *Comm, send, recv Buf, nb bool) (*core.Pending, error) {
	in, out, err := c.neighborShape(op)
	if err != nil {
		return nil, err
	}
	if send.dt == nil || recv.dt == nil || out > 0 && int(send.count)%out != 0 || in > 0 && int(recv.count)%in != 0 {
		return nil, errorf(ClassCount, op, "send's %d items must be a whole block for each of %d destinations and recv's %d for each of %d sources",
			send.count, out, recv.count, in)
	}
	sp, rp := 0, 0
	if out > 0 {
		sp = int(send.count) / out
	}
	if in > 0 {
		rp = int(recv.count) / in
	}
	return neighborBuf(op, c, send, recv, collective.NSide{Count: sp, Stride: sp}, collective.NSide{Count: rp, Stride: rp}, nb)
}

// NeighborAlltoallvBuf is NeighborAlltoallBuf with blocks of their own counts and
// places (in items).
func NeighborAlltoallvBuf(c *Comm, send Buf, scounts, sdispls []int, recv Buf, rcounts, rdispls []int) error {
	defer prof.Exit(prof.NeighborAlltoallv, c.enter(prof.NeighborAlltoallv, prof.NoPeer, send.size()), send.size())
	if c.special() {
		a := collArgs{bs: send, br: recv, counts: scounts, displs: sdispls, rcounts: rcounts, rdispls: rdispls}
		if done, err := c.aroundArgs("NeighborAlltoallv", &a, aroundNeighborAlltoallvBuf); done {
			return err
		}
	}
	_, err := neighborAlltoallvBuf("NeighborAlltoallv", c, send, scounts, sdispls, recv, rcounts, rdispls, false)
	return c.fail("NeighborAlltoallv", err)
}

func neighborAlltoallvBuf(op string, c *Comm, send Buf, scounts, sdispls []int, recv Buf, rcounts, rdispls []int, nb bool) (*core.Pending, error) {
	if _, _, err := c.neighborShape(op); err != nil {
		return nil, err
	}
	return neighborBuf(op, c, send, recv, collective.NSide{Counts: orEmpty(scounts), Displs: orEmpty(sdispls)},
		collective.NSide{Counts: orEmpty(rcounts), Displs: orEmpty(rdispls)}, nb)
}

// neighborBuf is a neighbourhood exchange of typed buffers, the blocks of each side
// (s and r: their counts and displacements in items) completed with the buffer's
// memory and datatype, displacements in units of its extent.
func neighborBuf(op string, c *Comm, send, recv Buf, s, r collective.NSide, nb bool) (*core.Pending, error) {
	for _, b := range [2]*Buf{&send, &recv} {
		if b.err != nil {
			return nil, b.err
		}
		if b.dt == nil {
			return nil, errorf(ClassType, op, "a buffer has no datatype (make it with Typed)")
		}
	}
	s.Mem, s.Type, s.Unit = send.mem, send.dt, int(send.dt.Extent())
	r.Mem, r.Type, r.Unit = recv.mem, recv.dt, int(recv.dt.Extent())
	return c.neighborRun(op, &s, &r, nb)
}

// IneighborAllgather is the nonblocking NeighborAllgather.
func IneighborAllgather[T Elem](c *Comm, send, recv []T) (Request, error) {
	defer prof.Exit(prof.IneighborAllgather, c.enter(prof.IneighborAllgather, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	p, err := neighborAllgather("IneighborAllgather", c, send, recv, true)
	return c.start("IneighborAllgather", p, err)
}

// IneighborAllgatherv is the nonblocking NeighborAllgatherv.
func IneighborAllgatherv[T Elem](c *Comm, send, recv []T, counts, displs []int) (Request, error) {
	defer prof.Exit(prof.IneighborAllgatherv, c.enter(prof.IneighborAllgatherv, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	p, err := neighborAllgatherv("IneighborAllgatherv", c, send, recv, counts, displs, true)
	return c.start("IneighborAllgatherv", p, err)
}

// IneighborAlltoall is the nonblocking NeighborAlltoall.
func IneighborAlltoall[T Elem](c *Comm, send, recv []T) (Request, error) {
	defer prof.Exit(prof.IneighborAlltoall, c.enter(prof.IneighborAlltoall, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	p, err := neighborAlltoall("IneighborAlltoall", c, send, recv, true)
	return c.start("IneighborAlltoall", p, err)
}

// IneighborAlltoallv is the nonblocking NeighborAlltoallv.
func IneighborAlltoallv[T Elem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (Request, error) {
	defer prof.Exit(prof.IneighborAlltoallv, c.enter(prof.IneighborAlltoallv, prof.NoPeer, nbytes(send)), nbytes(send))
	p, err := neighborAlltoallv("IneighborAlltoallv", c, send, scounts, sdispls, recv, rcounts, rdispls, true)
	return c.start("IneighborAlltoallv", p, err)
}

// IneighborAllgatherBuf is the nonblocking NeighborAllgatherBuf.
func IneighborAllgatherBuf(c *Comm, send, recv Buf) (Request, error) {
	defer prof.Exit(prof.IneighborAllgather, c.enter(prof.IneighborAllgather, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	p, err := neighborAllgatherBuf("IneighborAllgather", c, send, recv, true)
	return c.start("IneighborAllgather", p, err)
}

// IneighborAllgathervBuf is the nonblocking NeighborAllgathervBuf.
func IneighborAllgathervBuf(c *Comm, send, recv Buf, counts, displs []int) (Request, error) {
	defer prof.Exit(prof.IneighborAllgatherv, c.enter(prof.IneighborAllgatherv, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	p, err := neighborAllgathervBuf("IneighborAllgatherv", c, send, recv, counts, displs, true)
	return c.start("IneighborAllgatherv", p, err)
}

// IneighborAlltoallBuf is the nonblocking NeighborAlltoallBuf.
func IneighborAlltoallBuf(c *Comm, send, recv Buf) (Request, error) {
	defer prof.Exit(prof.IneighborAlltoall, c.enter(prof.IneighborAlltoall, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	p, err := neighborAlltoallBuf("IneighborAlltoall", c, send, recv, true)
	return c.start("IneighborAlltoall", p, err)
}

// IneighborAlltoallvBuf is the nonblocking NeighborAlltoallvBuf.
func IneighborAlltoallvBuf(c *Comm, send Buf, scounts, sdispls []int, recv Buf, rcounts, rdispls []int) (Request, error) {
	defer prof.Exit(prof.IneighborAlltoallv, c.enter(prof.IneighborAlltoallv, prof.NoPeer, send.size()), send.size())
	p, err := neighborAlltoallvBuf("IneighborAlltoallv", c, send, scounts, sdispls, recv, rcounts, rdispls, true)
	return c.start("IneighborAlltoallv", p, err)
}

// IneighborAlltoallw is the nonblocking NeighborAlltoallw. Until the request
// completes, send and recv belong to MPI.
func IneighborAlltoallw[S, R any](c *Comm, send []S, scounts, sdispls []int, stypes []*Datatype, recv []R, rcounts, rdispls []int, rtypes []*Datatype) (Request, error) {
	defer prof.Exit(prof.IneighborAlltoallw, c.enter(prof.IneighborAlltoallw, prof.NoPeer, wBytes(scounts, stypes)), wBytes(scounts, stypes))
	p, err := neighborAlltoallw("IneighborAlltoallw", c, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, true)
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
