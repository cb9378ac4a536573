package mpi

import (
	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/mpir"
)

// The collectives on typed buffers (see Typed): each moves the items of a datatype
// (a struct, a column of a matrix, a subarray) as the slice-typed collective of the
// same name moves elements. The two sides of a transfer may describe it with
// different datatypes of the same type signature (the same sequence of basic
// elements). Counts and displacements of the v forms count items of the buffer's
// datatype, displacements in units of its extent, as MPI's do. A Buf an argument
// does not use on this rank (recv off the root, say) may be the zero Buf. In place:
// InPlaceBuf where the slice form takes InPlace.

// InPlaceBuf is the in-place marker (MPI_IN_PLACE) of the typed-buffer collectives.
var InPlaceBuf = Buf{count: -1}

// cvec is b as the device's collective buffer, or what is wrong with it, which mpir
// reports where the buffer is significant (what names it: "send", "recv", "buf").
func (b Buf) cvec(op, what string) (collective.Vec, error) {
	switch {
	case b.err != nil:
		return collective.Vec{}, b.err
	case b.isInPlace():
		return collective.Vec{InPlace: true, Esz: 1}, nil
	case b.dt == nil:
		return collective.Vec{}, errorf(ClassType, op, "%s has no datatype (make it with Typed)", what)
	}
	return collective.TypedVec(b.mem, int(b.count), b.dt), nil
}

// bufArgs are a collective's arguments of two Bufs.
func bufArgs(op string, send, recv Buf, root int) mpir.CollArgs {
	a := mpir.CollArgs{Root: root}
	a.Send, a.SendErr = send.cvec(op, "send")
	a.Recv, a.RecvErr = recv.cvec(op, "recv")
	return a
}

// vbufArgs are a v form's: send and recv, and one side's counts and displacements.
func vbufArgs(op string, send, recv Buf, counts, displs []int, root int) mpir.CollArgs {
	a := bufArgs(op, send, recv, root)
	a.Counts, a.Displs = counts, displs
	return a
}

// BcastBuf is Bcast of a typed buffer: root's items reach every rank's buf.
func BcastBuf(c *Comm, buf Buf, root int) error {
	if c.special() {
		if done, err := c.aroundArgs("Bcast", &collArgs{bs: buf, root: root}, aroundBcastBuf); done {
			return err
		}
	}
	v, err := buf.cvec("Bcast", "buf")
	return c.fail("Bcast", mpir.Bcast(pBcast, c.dev(), &v, err, root))
}

// IbcastBuf starts a BcastBuf.
func IbcastBuf(c *Comm, buf Buf, root int) (Request, error) {
	p := collOf(mpir.CollBcast, mpir.Nonblocking)
	a := mpir.CollArgs{Root: root}
	a.Send, a.SendErr = buf.cvec(p.Op, "buf")
	return c.icoll(p, &a)
}

// bufColl runs the blocking collective k of typed buffers on c, not a view (whose
// calls the exported functions make through aroundArgs).
func (c *Comm) bufColl(k mpir.CollKind, a *mpir.CollArgs) error {
	p := collOf(k, mpir.Blocking)
	_, err := mpir.Collective(p, c.dev(), a)
	return c.fail(p.Op, err)
}

// GatherBuf is Gather of typed buffers: every rank's send items land in root's recv,
// rank i's at item i*(its count).
func GatherBuf(c *Comm, send, recv Buf, root int) error {
	if c.special() {
		if done, err := c.aroundArgs("Gather", &collArgs{bs: send, br: recv, root: root}, aroundGatherBuf); done {
			return err
		}
	}
	a := bufArgs("Gather", send, recv, root)
	return c.bufColl(mpir.CollGather, &a)
}

// IgatherBuf starts a GatherBuf.
func IgatherBuf(c *Comm, send, recv Buf, root int) (Request, error) {
	a := bufArgs("Igather", send, recv, root)
	return c.icoll(collOf(mpir.CollGather, mpir.Nonblocking), &a)
}

// GathervBuf is Gatherv of typed buffers: rank i's items land in root's recv at item
// displs[i], counts[i] of them.
func GathervBuf(c *Comm, send, recv Buf, counts, displs []int, root int) error {
	if c.special() {
		if done, err := c.aroundArgs("Gatherv", &collArgs{bs: send, br: recv, counts: counts, displs: displs, root: root}, aroundGathervBuf); done {
			return err
		}
	}
	a := vbufArgs("Gatherv", send, recv, counts, displs, root)
	return c.bufColl(mpir.CollGatherv, &a)
}

// IgathervBuf starts a GathervBuf.
func IgathervBuf(c *Comm, send, recv Buf, counts, displs []int, root int) (Request, error) {
	a := vbufArgs("Igatherv", send, recv, counts, displs, root)
	return c.icoll(collOf(mpir.CollGatherv, mpir.Nonblocking), &a)
}

// ScatterBuf is Scatter of typed buffers: root's send, one block of the receivers'
// count per rank, is dealt out to every rank's recv.
func ScatterBuf(c *Comm, send, recv Buf, root int) error {
	if c.special() {
		if done, err := c.aroundArgs("Scatter", &collArgs{bs: send, br: recv, root: root}, aroundScatterBuf); done {
			return err
		}
	}
	a := bufArgs("Scatter", send, recv, root)
	return c.bufColl(mpir.CollScatter, &a)
}

// IscatterBuf starts a ScatterBuf.
func IscatterBuf(c *Comm, send, recv Buf, root int) (Request, error) {
	a := bufArgs("Iscatter", send, recv, root)
	return c.icoll(collOf(mpir.CollScatter, mpir.Nonblocking), &a)
}

// ScattervBuf is Scatterv of typed buffers: rank i gets counts[i] items of root's send
// from item displs[i].
func ScattervBuf(c *Comm, send Buf, counts, displs []int, recv Buf, root int) error {
	if c.special() {
		if done, err := c.aroundArgs("Scatterv", &collArgs{bs: send, br: recv, counts: counts, displs: displs, root: root}, aroundScattervBuf); done {
			return err
		}
	}
	a := vbufArgs("Scatterv", send, recv, counts, displs, root)
	return c.bufColl(mpir.CollScatterv, &a)
}

// IscattervBuf starts a ScattervBuf.
func IscattervBuf(c *Comm, send Buf, counts, displs []int, recv Buf, root int) (Request, error) {
	a := vbufArgs("Iscatterv", send, recv, counts, displs, root)
	return c.icoll(collOf(mpir.CollScatterv, mpir.Nonblocking), &a)
}

// AllgatherBuf is Allgather of typed buffers.
func AllgatherBuf(c *Comm, send, recv Buf) error {
	if c.special() {
		if done, err := c.aroundArgs("Allgather", &collArgs{bs: send, br: recv}, aroundAllgatherBuf); done {
			return err
		}
	}
	a := bufArgs("Allgather", send, recv, 0)
	return c.bufColl(mpir.CollAllgather, &a)
}

// IallgatherBuf starts an AllgatherBuf.
func IallgatherBuf(c *Comm, send, recv Buf) (Request, error) {
	a := bufArgs("Iallgather", send, recv, 0)
	return c.icoll(collOf(mpir.CollAllgather, mpir.Nonblocking), &a)
}

// AllgathervBuf is Allgatherv of typed buffers.
func AllgathervBuf(c *Comm, send, recv Buf, counts, displs []int) error {
	if c.special() {
		if done, err := c.aroundArgs("Allgatherv", &collArgs{bs: send, br: recv, counts: counts, displs: displs}, aroundAllgathervBuf); done {
			return err
		}
	}
	a := vbufArgs("Allgatherv", send, recv, counts, displs, 0)
	return c.bufColl(mpir.CollAllgatherv, &a)
}

// IallgathervBuf starts an AllgathervBuf.
func IallgathervBuf(c *Comm, send, recv Buf, counts, displs []int) (Request, error) {
	a := vbufArgs("Iallgatherv", send, recv, counts, displs, 0)
	return c.icoll(collOf(mpir.CollAllgatherv, mpir.Nonblocking), &a)
}

// AlltoallBuf is Alltoall of typed buffers.
func AlltoallBuf(c *Comm, send, recv Buf) error {
	if c.special() {
		if done, err := c.aroundArgs("Alltoall", &collArgs{bs: send, br: recv}, aroundAlltoallBuf); done {
			return err
		}
	}
	a := bufArgs("Alltoall", send, recv, 0)
	return c.bufColl(mpir.CollAlltoall, &a)
}

// IalltoallBuf starts an AlltoallBuf.
func IalltoallBuf(c *Comm, send, recv Buf) (Request, error) {
	a := bufArgs("Ialltoall", send, recv, 0)
	return c.icoll(collOf(mpir.CollAlltoall, mpir.Nonblocking), &a)
}

// alltoallvBufArgs are AlltoallvBuf's arguments.
func alltoallvBufArgs(op string, send Buf, scounts, sdispls []int, recv Buf, rcounts, rdispls []int) mpir.CollArgs {
	a := bufArgs(op, send, recv, 0)
	a.SCounts, a.SDispls, a.Counts, a.Displs = scounts, sdispls, rcounts, rdispls
	return a
}

// AlltoallvBuf is Alltoallv of typed buffers.
func AlltoallvBuf(c *Comm, send Buf, scounts, sdispls []int, recv Buf, rcounts, rdispls []int) error {
	if c.special() {
		a := collArgs{bs: send, br: recv, counts: scounts, displs: sdispls, rcounts: rcounts, rdispls: rdispls}
		if done, err := c.aroundArgs("Alltoallv", &a, aroundAlltoallvBuf); done {
			return err
		}
	}
	a := alltoallvBufArgs("Alltoallv", send, scounts, sdispls, recv, rcounts, rdispls)
	return c.bufColl(mpir.CollAlltoallv, &a)
}

// IalltoallvBuf starts an AlltoallvBuf.
func IalltoallvBuf(c *Comm, send Buf, scounts, sdispls []int, recv Buf, rcounts, rdispls []int) (Request, error) {
	a := alltoallvBufArgs("Ialltoallv", send, scounts, sdispls, recv, rcounts, rdispls)
	return c.icoll(collOf(mpir.CollAlltoallv, mpir.Nonblocking), &a)
}

// The Buf collectives' calls through a view (see Comm.aroundArgs): functions, so that
// a call allocates no closure.

func aroundBcastBuf(b *Comm, a *collArgs) error { return BcastBuf(b, a.bs, a.root) }

func aroundGatherBuf(b *Comm, a *collArgs) error { return GatherBuf(b, a.bs, a.br, a.root) }

func aroundGathervBuf(b *Comm, a *collArgs) error {
	return GathervBuf(b, a.bs, a.br, a.counts, a.displs, a.root)
}

func aroundScatterBuf(b *Comm, a *collArgs) error { return ScatterBuf(b, a.bs, a.br, a.root) }

func aroundScattervBuf(b *Comm, a *collArgs) error {
	return ScattervBuf(b, a.bs, a.counts, a.displs, a.br, a.root)
}

func aroundAllgatherBuf(b *Comm, a *collArgs) error { return AllgatherBuf(b, a.bs, a.br) }

func aroundAllgathervBuf(b *Comm, a *collArgs) error {
	return AllgathervBuf(b, a.bs, a.br, a.counts, a.displs)
}

func aroundAlltoallBuf(b *Comm, a *collArgs) error { return AlltoallBuf(b, a.bs, a.br) }

func aroundAlltoallvBuf(b *Comm, a *collArgs) error {
	return AlltoallvBuf(b, a.bs, a.counts, a.displs, a.br, a.rcounts, a.rdispls)
}
