package mpi

import (
	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
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

// cvec is b as the device's collective buffer.
func (b Buf) cvec() (collective.Vec, error) {
	switch {
	case b.err != nil:
		return collective.Vec{}, b.err
	case b.count == -1 && b.dt == nil && b.mem == nil:
		return collective.Vec{InPlace: true}, nil
	case b.dt == nil:
		return collective.Vec{}, nil // the zero Buf: an argument this rank does not use
	}
	return collective.TypedVec(b.mem, int(b.count), b.dt), nil
}

// cvecs converts two Bufs.
func cvecs(a, b Buf) (collective.Vec, collective.Vec, error) {
	va, err := a.cvec()
	if err != nil {
		return va, va, err
	}
	vb, err := b.cvec()
	return va, vb, err
}

// BcastBuf is Bcast of a typed buffer: root's items reach every rank's buf.
func BcastBuf(c *Comm, buf Buf, root int) error {
	n := buf.size()
	t := c.enter(prof.Bcast, root, n)
	err := bcastBuf(c, &buf, root)
	exit(prof.Bcast, t, n)
	return err
}

func bcastBuf(c *Comm, buf *Buf, root int) error {
	if c.special() {
		b := *buf
		if done, err := c.aroundArgs("Bcast", &collArgs{bs: b, root: root}, aroundBcastBuf); done {
			return err
		}
	}
	if buf.err == nil && buf.dt != nil { // a typed buffer, which the device lays out
		v := collective.Vec{B: buf.mem, Count: int(buf.count), Type: buf.dt}
		return c.fail("Bcast", collective.Bcast(c.dev(), "Bcast", &v, root))
	}
	v, err := buf.cvec()
	if err != nil {
		return c.fail("Bcast", err)
	}
	return c.fail("Bcast", collective.Bcast(c.dev(), "Bcast", &v, root))
}

// IbcastBuf starts a BcastBuf.
func IbcastBuf(c *Comm, buf Buf, root int) (Request, error) {
	defer prof.Exit(prof.Ibcast, c.enter(prof.Ibcast, root, buf.size()), buf.size())
	v, err := buf.cvec()
	if err != nil {
		return Request{}, c.fail("Ibcast", err)
	}
	p, err := collective.Ibcast(c.dev(), "Ibcast", v, root)
	return c.start("Ibcast", p, err)
}

// GatherBuf is Gather of typed buffers: every rank's send items land in root's recv,
// rank i's at item i*(its count).
func GatherBuf(c *Comm, send, recv Buf, root int) error {
	defer prof.Exit(prof.Gather, c.enter(prof.Gather, root, collSize(send, recv)), collSize(send, recv))
	if c.special() {
		if done, err := c.aroundArgs("Gather", &collArgs{bs: send, br: recv, root: root}, aroundGatherBuf); done {
			return err
		}
	}
	_, err := gatherBuf("Gather", c, send, recv, nil, nil, root, false, false)
	return c.fail("Gather", err)
}

// IgatherBuf starts a GatherBuf.
func IgatherBuf(c *Comm, send, recv Buf, root int) (Request, error) {
	defer prof.Exit(prof.Igather, c.enter(prof.Igather, root, collSize(send, recv)), collSize(send, recv))
	p, err := gatherBuf("Igather", c, send, recv, nil, nil, root, false, true)
	return c.start("Igather", p, err)
}

// GathervBuf is Gatherv of typed buffers: rank i's items land in root's recv at item
// displs[i], counts[i] of them.
func GathervBuf(c *Comm, send, recv Buf, counts, displs []int, root int) error {
	defer prof.Exit(prof.Gatherv, c.enter(prof.Gatherv, root, collSize(send, recv)), collSize(send, recv))
	if c.special() {
		if done, err := c.aroundArgs("Gatherv", &collArgs{bs: send, br: recv, counts: counts, displs: displs, root: root}, aroundGathervBuf); done {
			return err
		}
	}
	_, err := gatherBuf("Gatherv", c, send, recv, counts, displs, root, true, false)
	return c.fail("Gatherv", err)
}

// IgathervBuf starts a GathervBuf.
func IgathervBuf(c *Comm, send, recv Buf, counts, displs []int, root int) (Request, error) {
	defer prof.Exit(prof.Igatherv, c.enter(prof.Igatherv, root, collSize(send, recv)), collSize(send, recv))
	p, err := gatherBuf("Igatherv", c, send, recv, counts, displs, root, true, true)
	return c.start("Igatherv", p, err)
}

func gatherBuf(op string, c *Comm, send, recv Buf, counts, displs []int, root int, v, nb bool) (*core.Pending, error) {
	s, r, err := cvecs(send, recv)
	if err != nil {
		return nil, err
	}
	if v {
		return collective.Gatherv(c.dev(), op, s, r, counts, displs, root, nb)
	}
	return collective.Gather(c.dev(), op, s, r, root, nb)
}

// ScatterBuf is Scatter of typed buffers: root's send, one block of the receivers'
// count per rank, is dealt out to every rank's recv.
func ScatterBuf(c *Comm, send, recv Buf, root int) error {
	defer prof.Exit(prof.Scatter, c.enter(prof.Scatter, root, collSize(send, recv)), collSize(send, recv))
	if c.special() {
		if done, err := c.aroundArgs("Scatter", &collArgs{bs: send, br: recv, root: root}, aroundScatterBuf); done {
			return err
		}
	}
	_, err := scatterBuf("Scatter", c, send, nil, nil, recv, root, false, false)
	return c.fail("Scatter", err)
}

// IscatterBuf starts a ScatterBuf.
func IscatterBuf(c *Comm, send, recv Buf, root int) (Request, error) {
	defer prof.Exit(prof.Iscatter, c.enter(prof.Iscatter, root, collSize(send, recv)), collSize(send, recv))
	p, err := scatterBuf("Iscatter", c, send, nil, nil, recv, root, false, true)
	return c.start("Iscatter", p, err)
}

// ScattervBuf is Scatterv of typed buffers: rank i gets counts[i] items of root's send
// from item displs[i].
func ScattervBuf(c *Comm, send Buf, counts, displs []int, recv Buf, root int) error {
	defer prof.Exit(prof.Scatterv, c.enter(prof.Scatterv, root, send.size()), send.size())
	if c.special() {
		if done, err := c.aroundArgs("Scatterv", &collArgs{bs: send, br: recv, counts: counts, displs: displs, root: root}, aroundScattervBuf); done {
			return err
		}
	}
	_, err := scatterBuf("Scatterv", c, send, counts, displs, recv, root, true, false)
	return c.fail("Scatterv", err)
}

// IscattervBuf starts a ScattervBuf.
func IscattervBuf(c *Comm, send Buf, counts, displs []int, recv Buf, root int) (Request, error) {
	defer prof.Exit(prof.Iscatterv, c.enter(prof.Iscatterv, root, send.size()), send.size())
	p, err := scatterBuf("Iscatterv", c, send, counts, displs, recv, root, true, true)
	return c.start("Iscatterv", p, err)
}

func scatterBuf(op string, c *Comm, send Buf, counts, displs []int, recv Buf, root int, v, nb bool) (*core.Pending, error) {
	s, r, err := cvecs(send, recv)
	if err != nil {
		return nil, err
	}
	if v {
		return collective.Scatterv(c.dev(), op, s, counts, displs, r, root, nb)
	}
	return collective.Scatter(c.dev(), op, s, r, root, nb)
}

// AllgatherBuf is Allgather of typed buffers.
func AllgatherBuf(c *Comm, send, recv Buf) error {
	defer prof.Exit(prof.Allgather, c.enter(prof.Allgather, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	if c.special() {
		if done, err := c.aroundArgs("Allgather", &collArgs{bs: send, br: recv}, aroundAllgatherBuf); done {
			return err
		}
	}
	_, err := allgatherBuf("Allgather", c, send, recv, nil, nil, false, false)
	return c.fail("Allgather", err)
}

// IallgatherBuf starts an AllgatherBuf.
func IallgatherBuf(c *Comm, send, recv Buf) (Request, error) {
	defer prof.Exit(prof.Iallgather, c.enter(prof.Iallgather, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	p, err := allgatherBuf("Iallgather", c, send, recv, nil, nil, false, true)
	return c.start("Iallgather", p, err)
}

// AllgathervBuf is Allgatherv of typed buffers.
func AllgathervBuf(c *Comm, send, recv Buf, counts, displs []int) error {
	defer prof.Exit(prof.Allgatherv, c.enter(prof.Allgatherv, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	if c.special() {
		if done, err := c.aroundArgs("Allgatherv", &collArgs{bs: send, br: recv, counts: counts, displs: displs}, aroundAllgathervBuf); done {
			return err
		}
	}
	_, err := allgatherBuf("Allgatherv", c, send, recv, counts, displs, true, false)
	return c.fail("Allgatherv", err)
}

// IallgathervBuf starts an AllgathervBuf.
func IallgathervBuf(c *Comm, send, recv Buf, counts, displs []int) (Request, error) {
	defer prof.Exit(prof.Iallgatherv, c.enter(prof.Iallgatherv, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	p, err := allgatherBuf("Iallgatherv", c, send, recv, counts, displs, true, true)
	return c.start("Iallgatherv", p, err)
}

func allgatherBuf(op string, c *Comm, send, recv Buf, counts, displs []int, v, nb bool) (*core.Pending, error) {
	s, r, err := cvecs(send, recv)
	if err != nil {
		return nil, err
	}
	if v {
		return collective.Allgatherv(c.dev(), op, s, r, counts, displs, nb)
	}
	return collective.Allgather(c.dev(), op, s, r, nb)
}

// AlltoallBuf is Alltoall of typed buffers.
func AlltoallBuf(c *Comm, send, recv Buf) error {
	defer prof.Exit(prof.Alltoall, c.enter(prof.Alltoall, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	if c.special() {
		if done, err := c.aroundArgs("Alltoall", &collArgs{bs: send, br: recv}, aroundAlltoallBuf); done {
			return err
		}
	}
	_, err := alltoallBuf("Alltoall", c, send, nil, nil, recv, nil, nil, false, false)
	return c.fail("Alltoall", err)
}

// IalltoallBuf starts an AlltoallBuf.
func IalltoallBuf(c *Comm, send, recv Buf) (Request, error) {
	defer prof.Exit(prof.Ialltoall, c.enter(prof.Ialltoall, prof.NoPeer, collSize(send, recv)), collSize(send, recv))
	p, err := alltoallBuf("Ialltoall", c, send, nil, nil, recv, nil, nil, false, true)
	return c.start("Ialltoall", p, err)
}

// AlltoallvBuf is Alltoallv of typed buffers.
func AlltoallvBuf(c *Comm, send Buf, scounts, sdispls []int, recv Buf, rcounts, rdispls []int) error {
	defer prof.Exit(prof.Alltoallv, c.enter(prof.Alltoallv, prof.NoPeer, send.size()), send.size())
	if c.special() {
		if done, err := c.aroundArgs("Alltoallv", &collArgs{bs: send, br: recv, counts: scounts, displs: sdispls, rcounts: rcounts, rdispls: rdispls}, aroundAlltoallvBuf); done {
			return err
		}
	}
	_, err := alltoallBuf("Alltoallv", c, send, scounts, sdispls, recv, rcounts, rdispls, true, false)
	return c.fail("Alltoallv", err)
}

// IalltoallvBuf starts an AlltoallvBuf.
func IalltoallvBuf(c *Comm, send Buf, scounts, sdispls []int, recv Buf, rcounts, rdispls []int) (Request, error) {
	defer prof.Exit(prof.Ialltoallv, c.enter(prof.Ialltoallv, prof.NoPeer, send.size()), send.size())
	p, err := alltoallBuf("Ialltoallv", c, send, scounts, sdispls, recv, rcounts, rdispls, true, true)
	return c.start("Ialltoallv", p, err)
}

func alltoallBuf(op string, c *Comm, send Buf, scounts, sdispls []int, recv Buf, rcounts, rdispls []int, v, nb bool) (*core.Pending, error) {
	s, r, err := cvecs(send, recv)
	if err != nil {
		return nil, err
	}
	if v {
		return collective.Alltoallv(c.dev(), op, s, scounts, sdispls, r, rcounts, rdispls, nb)
	}
	return collective.Alltoall(c.dev(), op, s, r, nb)
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
