package mpi

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/prof"
)

// Neighbourhood collectives exchange data along the edges of a communicator's process
// topology (MPI standard 7.6): every rank sends to its destinations and receives from
// its sources, in the topology's neighbour order. For a Cartesian grid that order is, for
// each dimension, the -1 then the +1 neighbour; a ProcNull neighbour (a non-periodic
// edge) sends nothing and leaves its receive block untouched.

// neighborExchange posts a receive per source and a send per destination on c's
// collective context and waits for them all. On a Cartesian grid each message's tag
// names the receiver's slot, so that in a dimension of size 1 or 2 (where the -1 and +1
// neighbours are the same rank) each block lands in its place.
func (c *Comm) neighborExchange(op string, sendBlock, recvBlock func(i int) []byte) error {
	if err := c.d.DryStop(); err != nil {
		return err // a persistent Init's check of its arguments passed
	}
	srcs, dsts, _ := c.neighbors()
	_, cart := c.topo.(*cartTopo)
	reqs := make([]core.Request, 0, len(srcs)+len(dsts))
	fail := func(err error) error {
		for i := range reqs {
			core.Cancel(&reqs[i])
		}
		core.Waitall(reqs, nil)
		return c.fail(op, mapErr(op, err))
	}
	for i, s := range srcs {
		if s == ProcNull {
			continue
		}
		tag := core.TagNeighbor
		if cart {
			tag += i
		}
		q, err := c.d.IrecvInternal(recvBlock(i), s, tag)
		if err != nil {
			return fail(err)
		}
		reqs = append(reqs, q)
	}
	for j, d := range dsts {
		if d == ProcNull {
			continue
		}
		tag := core.TagNeighbor
		if cart {
			tag += j ^ 1 // our +1 neighbour receives us as its -1 neighbour, and back
		}
		q, err := c.d.IsendInternal(sendBlock(j), d, tag)
		if err != nil {
			return fail(err)
		}
		reqs = append(reqs, q)
	}
	if err := core.Waitall(reqs, nil); err != nil {
		return c.fail(op, mapErr(op, err))
	}
	return nil
}

// neighborShape checks c has a topology and returns its in- and out-degree.
func (c *Comm) neighborShape(op string) (in, out int, err error) {
	if err := c.check(op); err != nil {
		return 0, 0, err
	}
	srcs, dsts, ok := c.neighbors()
	if !ok {
		return 0, 0, c.fail(op, errorf(ClassTopology, op,
			"communicator %q has no process topology (make one with CartCreate, GraphCreate or DistGraphCreate)", c.Name()))
	}
	return len(srcs), len(dsts), nil
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
	const op = "NeighborAllgather"
	in, _, err := c.neighborShape(op)
	if err != nil {
		return err
	}
	n := len(send)
	if len(recv) < n*in {
		return c.fail(op, errorf(ClassCount, op, "recv holds %d elements, need %d (%d sources of %d)", len(recv), n*in, in, n))
	}
	sb, rb := asBytes(send), asBytes(recv)
	bs := n * esize[T]()
	return c.neighborExchange(op, func(int) []byte { return sb }, func(i int) []byte { return rb[i*bs : (i+1)*bs] })
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
	const op = "NeighborAllgatherv"
	in, _, err := c.neighborShape(op)
	if err != nil {
		return err
	}
	if err := checkBlocks(op, "recv", counts, displs, in, len(recv)); err != nil {
		return c.fail(op, err)
	}
	sb, rb, es := asBytes(send), asBytes(recv), esize[T]()
	return c.neighborExchange(op, func(int) []byte { return sb },
		func(i int) []byte { return rb[displs[i]*es : (displs[i]+counts[i])*es] })
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
	const op = "NeighborAlltoall"
	in, out, err := c.neighborShape(op)
	if err != nil {
		return err
	}
	if out == 0 {
		return c.neighborExchange(op, nil, func(int) []byte { return nil })
	}
	if len(send)%out != 0 {
		return c.fail(op, errorf(ClassCount, op, "send holds %d elements, not a whole block for each of %d destinations", len(send), out))
	}
	n := len(send) / out
	if len(recv) < n*in {
		return c.fail(op, errorf(ClassCount, op, "recv holds %d elements, need %d (%d sources of %d)", len(recv), n*in, in, n))
	}
	sb, rb := asBytes(send), asBytes(recv)
	bs := n * esize[T]()
	return c.neighborExchange(op, func(j int) []byte { return sb[j*bs : (j+1)*bs] },
		func(i int) []byte { return rb[i*bs : (i+1)*bs] })
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
	const op = "NeighborAlltoallv"
	in, out, err := c.neighborShape(op)
	if err != nil {
		return err
	}
	if err := checkBlocks(op, "send", scounts, sdispls, out, len(send)); err != nil {
		return c.fail(op, err)
	}
	if err := checkBlocks(op, "recv", rcounts, rdispls, in, len(recv)); err != nil {
		return c.fail(op, err)
	}
	sb, rb, es := asBytes(send), asBytes(recv), esize[T]()
	return c.neighborExchange(op, func(j int) []byte { return sb[sdispls[j]*es : (sdispls[j]+scounts[j])*es] },
		func(i int) []byte { return rb[rdispls[i]*es : (rdispls[i]+rcounts[i])*es] })
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
	const op = "NeighborAlltoallw"
	smem, err := rawBytes(op, "send", send)
	if err != nil {
		return c.fail(op, err)
	}
	rmem, err := rawBytes(op, "recv", recv)
	if err != nil {
		return c.fail(op, err)
	}
	return c.neighborW(op, smem, scounts, sdispls, types(stypes), rmem, rcounts, rdispls, types(rtypes))
}

// neighborW is the neighbourhood exchange of typed blocks: scounts[j] items of
// stypes[j] from byte sdispls[j] of smem to destination j, rcounts[i] items of
// rtypes[i] from source i into byte rdispls[i] of rmem.
func (c *Comm) neighborW(op string, smem []byte, scounts, sdispls []int, stypes []*datatype.Type, rmem []byte, rcounts, rdispls []int, rtypes []*datatype.Type) error {
	in, out, err := c.neighborShape(op)
	if err != nil {
		return err
	}
	ws, err := core.CheckW(op, "s", out, smem, scounts, sdispls, stypes)
	if err != nil {
		return c.fail(op, err)
	}
	wr, err := core.CheckW(op, "r", in, rmem, rcounts, rdispls, rtypes)
	if err != nil {
		return c.fail(op, err)
	}
	if err := c.d.DryStop(); err != nil {
		return err
	}
	scratch := func(n int) []byte { return make([]byte, n) }
	sends, recvs := make([][]byte, out), make([][]byte, in)
	unpack := make([]bool, in)
	for j := range sends {
		b, packed := ws.Block(scratch, j, true)
		if packed {
			if err := ws.Pack(op, j, b); err != nil {
				return c.fail(op, err)
			}
		}
		sends[j] = b
	}
	for i := range recvs {
		recvs[i], unpack[i] = wr.Block(scratch, i, true)
	}
	if err := c.neighborExchange(op, func(j int) []byte { return sends[j] }, func(i int) []byte { return recvs[i] }); err != nil {
		return err
	}
	srcs, _, _ := c.neighbors()
	for i, s := range srcs {
		if unpack[i] && s != ProcNull {
			if err := wr.Unpack(op, i, recvs[i]); err != nil {
				return c.fail(op, err)
			}
		}
	}
	return nil
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
	const op = "NeighborAllgather"
	in, out, err := c.neighborShape(op)
	if err != nil {
		return err
	}
	if recv.dt == nil || in > 0 && int(recv.count)%in != 0 {
		return c.fail(op, errorf(ClassCount, op, "recv's %d items are not a whole block for each of %d sources", recv.count, in))
	}
	per := 0
	if in > 0 {
		per = int(recv.count) / in
	}
	return c.neighborBuf(op, send, recv, repeat(out, int(send.count)), repeat(out, 0), repeat(in, per), steps(in, per))
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
	const op = "NeighborAllgatherv"
	_, out, err := c.neighborShape(op)
	if err != nil {
		return err
	}
	return c.neighborBuf(op, send, recv, repeat(out, int(send.count)), repeat(out, 0), counts, displs)
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
	const op = "NeighborAlltoall"
	in, out, err := c.neighborShape(op)
	if err != nil {
		return err
	}
	if send.dt == nil || recv.dt == nil || out > 0 && int(send.count)%out != 0 || in > 0 && int(recv.count)%in != 0 {
		return c.fail(op, errorf(ClassCount, op, "send's %d items must be a whole block for each of %d destinations and recv's %d for each of %d sources",
			send.count, out, recv.count, in))
	}
	sp, rp := 0, 0
	if out > 0 {
		sp = int(send.count) / out
	}
	if in > 0 {
		rp = int(recv.count) / in
	}
	return c.neighborBuf(op, send, recv, repeat(out, sp), steps(out, sp), repeat(in, rp), steps(in, rp))
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
	return c.neighborBuf("NeighborAlltoallv", send, recv, scounts, sdispls, rcounts, rdispls)
}

// neighborBuf is a neighbourhood exchange of typed buffers with counts and
// displacements in items, as neighborW's typed blocks.
func (c *Comm) neighborBuf(op string, send, recv Buf, scounts, sdispls, rcounts, rdispls []int) error {
	if err := c.check(op); err != nil {
		return err
	}
	for _, b := range []Buf{send, recv} {
		if b.err != nil {
			return c.fail(op, b.err)
		}
		if b.dt == nil {
			return c.fail(op, errorf(ClassType, op, "a buffer has no datatype (make it with Typed)"))
		}
	}
	return c.neighborW(op, send.mem, scounts, byExtent(sdispls, send.dt), same(len(scounts), send.dt),
		recv.mem, rcounts, byExtent(rdispls, recv.dt), same(len(rcounts), recv.dt))
}

// repeat is n copies of v; steps is 0, v, 2v, ... (n of them).
func repeat(n, v int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func steps(n, v int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i * v
	}
	return out
}

// byExtent is displacements in items of dt as bytes.
func byExtent(displs []int, dt *datatype.Type) []int {
	out := make([]int, len(displs))
	for i, d := range displs {
		out[i] = d * int(dt.Extent())
	}
	return out
}

// same is n copies of dt.
func same(n int, dt *datatype.Type) []*datatype.Type {
	out := make([]*datatype.Type, n)
	for i := range out {
		out[i] = dt
	}
	return out
}

// background runs a blocking neighbourhood collective in a goroutine of its own, as
// the nonblocking form's request. f runs on a view of c without its error handler:
// the error reaches c's handler once, when the request is waited for or tested.
func (c *Comm) background(op string, f func(c *Comm) error) (Request, error) {
	if err := c.check(op); err != nil {
		return Request{}, err
	}
	quiet := &Comm{d: c.d, topo: c.topo, s: c.s}
	return Request{c: c, x: core.Go(op, func() error { return f(quiet) })}, nil
}

// IneighborAllgather is the nonblocking NeighborAllgather.
func IneighborAllgather[T Elem](c *Comm, send, recv []T) (Request, error) {
	defer prof.Exit(prof.IneighborAllgather, c.enter(prof.IneighborAllgather, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	return c.background("IneighborAllgather", func(c *Comm) error { return NeighborAllgather(c, send, recv) })
}

// IneighborAllgatherv is the nonblocking NeighborAllgatherv.
func IneighborAllgatherv[T Elem](c *Comm, send, recv []T, counts, displs []int) (Request, error) {
	defer prof.Exit(prof.IneighborAllgatherv, c.enter(prof.IneighborAllgatherv, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	return c.background("IneighborAllgatherv", func(c *Comm) error { return NeighborAllgatherv(c, send, recv, counts, displs) })
}

// IneighborAlltoall is the nonblocking NeighborAlltoall.
func IneighborAlltoall[T Elem](c *Comm, send, recv []T) (Request, error) {
	defer prof.Exit(prof.IneighborAlltoall, c.enter(prof.IneighborAlltoall, prof.NoPeer, collBytes(send, recv)), collBytes(send, recv))
	return c.background("IneighborAlltoall", func(c *Comm) error { return NeighborAlltoall(c, send, recv) })
}

// IneighborAlltoallv is the nonblocking NeighborAlltoallv.
func IneighborAlltoallv[T Elem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (Request, error) {
	defer prof.Exit(prof.IneighborAlltoallv, c.enter(prof.IneighborAlltoallv, prof.NoPeer, nbytes(send)), nbytes(send))
	return c.background("IneighborAlltoallv", func(c *Comm) error {
		return NeighborAlltoallv(c, send, scounts, sdispls, recv, rcounts, rdispls)
	})
}

// IneighborAllgatherBuf is the nonblocking NeighborAllgatherBuf.
func IneighborAllgatherBuf(c *Comm, send, recv Buf) (Request, error) {
	defer prof.Exit(prof.IneighborAllgather, c.enter(prof.IneighborAllgather, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	return c.background("IneighborAllgather", func(c *Comm) error { return NeighborAllgatherBuf(c, send, recv) })
}

// IneighborAllgathervBuf is the nonblocking NeighborAllgathervBuf.
func IneighborAllgathervBuf(c *Comm, send, recv Buf, counts, displs []int) (Request, error) {
	defer prof.Exit(prof.IneighborAllgatherv, c.enter(prof.IneighborAllgatherv, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	return c.background("IneighborAllgatherv", func(c *Comm) error { return NeighborAllgathervBuf(c, send, recv, counts, displs) })
}

// IneighborAlltoallBuf is the nonblocking NeighborAlltoallBuf.
func IneighborAlltoallBuf(c *Comm, send, recv Buf) (Request, error) {
	defer prof.Exit(prof.IneighborAlltoall, c.enter(prof.IneighborAlltoall, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	return c.background("IneighborAlltoall", func(c *Comm) error { return NeighborAlltoallBuf(c, send, recv) })
}

// IneighborAlltoallvBuf is the nonblocking NeighborAlltoallvBuf.
func IneighborAlltoallvBuf(c *Comm, send Buf, scounts, sdispls []int, recv Buf, rcounts, rdispls []int) (Request, error) {
	defer prof.Exit(prof.IneighborAlltoallv, c.enter(prof.IneighborAlltoallv, prof.NoPeer, send.size()), send.size())
	return c.background("IneighborAlltoallv", func(c *Comm) error {
		return NeighborAlltoallvBuf(c, send, scounts, sdispls, recv, rcounts, rdispls)
	})
}

// IneighborAlltoallw is the nonblocking NeighborAlltoallw. Until the request
// completes, send and recv belong to MPI.
func IneighborAlltoallw[S, R any](c *Comm, send []S, scounts, sdispls []int, stypes []*Datatype, recv []R, rcounts, rdispls []int, rtypes []*Datatype) (Request, error) {
	defer prof.Exit(prof.IneighborAlltoallw, c.enter(prof.IneighborAlltoallw, prof.NoPeer, wBytes(scounts, stypes)), wBytes(scounts, stypes))
	return c.background("IneighborAlltoallw", func(c *Comm) error {
		return NeighborAlltoallw(c, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	})
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
