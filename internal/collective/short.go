package collective

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/shmcoll"
)

// The short collectives of code outside Go: the C library runs a small blocking
// Barrier, Bcast or Allreduce of a C program itself (abi/libmpi/collshort.c), on the
// communicator's node region, by shmcoll's protocol and on its counts (shmcoll.Own),
// so that a call crosses into Go only where it must wait long or meets what only Go
// does (an error, a message of another length). Short says where; the Short*
// functions are the Go halves those calls hand over to, each going on from where the
// C code stopped.

// Geometry and Own are the node region's layout and a rank's own line in it, as the
// faces see them: the C short collectives read the region where shmcoll keeps its
// words, and check these against their own constants.
type (
	Geometry = shmcoll.Geometry
	Own      = shmcoll.Own
)

// Short is what the C short collectives need of a communicator (ShortOf).
type Short struct {
	Base unsafe.Pointer // the region, mapped until the communicator is freed or Finalize
	Own  *shmcoll.Own   // this rank's own line in it
	Geo  shmcoll.Geometry
	Rank int
	Size int
	// Bcast is the largest Bcast (bytes) the root sends through the ring in one chunk,
	// with ordinary stores: beyond it (non-temporal stores, pieces, other ways) Go
	// runs it. Reduce is the largest Allreduce that goes through the inline lines.
	Bcast, Reduce int
	// Gather is the longest block of an Allgather that goes through the region (its
	// inline lines and slots; a Gather's blocks go through the cells up to
	// Geo.GatherInline). Scatter is the longest root's buffer of a Scatter that does,
	// Alltoall the longest send buffer of an Alltoall (and block of an Alltoallv).
	Gather, Scatter, Alltoall int
}

// ShortOf reports cc's Short once its node region is in use, and false while it is
// not (not made yet, off, failed, hierarchical, or coll_check on, which compares every
// call in Go).
func ShortOf(cc *core.Comm) (Short, bool) {
	c := of(cc)
	if c == nil || c.path != PathNode || c.check || c.size < 2 {
		return Short{}, false
	}
	n := c.node
	if n == nil || n.state != nodeOn || n.err != nil || n.g.Err() != nil {
		return Short{}, false
	}
	g := n.g
	geo := g.Geometry()
	b := int(min(n.lim.bcast, int64(geo.Chunk)))
	if nt := g.NT(); nt > 0 {
		b = min(b, nt-1)
	}
	r := int(min(n.lim.reduce, int64(geo.ReduceInline)))
	a := int(min(n.lim.gather, int64(geo.Slot)))
	return Short{Base: g.Base(), Own: g.Own(), Geo: geo, Rank: c.rank, Size: c.size, Bcast: b, Reduce: r, Gather: a,
		Scatter: min(a, int(scatterMax())), Alltoall: min(a, int(alltoallMax()))}, true
}

// node is cc's group, for the Short* halves: the C code took the op on it, so it is on.
func node(cc *core.Comm) *shmcoll.Group { return of(cc).node.g }

// ShortWait is a wait of a C short collective that spun spun polls and goes on in Go:
// until the region's word p, which rank r writes, is at least v, or the word q (nil:
// none) at least qv, with the group's idle policy and its check that r lives.
func ShortWait(cc *core.Comm, op string, spun, r int, p *uint64, v uint64, q *uint64, qv uint64) error {
	return core.MapErr(op, node(cc).WaitLong(spun, r, p, v, q, qv))
}

// ShortBcastResume is a C short Bcast's reader that found, in the first chunk's line,
// a message it does not take (another length than buf's, or another way): the rest
// of nodeBcast's reader.
func ShortBcastResume(cc *core.Comm, op string, buf *Vec, root int) error {
	c := of(cc)
	return shortBcastRest(c, op, buf, root, c.node.g.BcastResume(buf.B, root))
}

// ShortBcastBegun is a C short Bcast's reader whose buffer is empty, which took its op
// while it owed lines and found its root begun on a long one (shmcoll's Owing): the
// rest of nodeBcast's reader.
func ShortBcastBegun(cc *core.Comm, op string, buf *Vec, root int) error {
	c := of(cc)
	return shortBcastRest(c, op, buf, root, c.node.g.BcastBegun(root))
}

// shortBcastRest is a C short Bcast's reader after Go went on with its op in the
// region, which ended with err: a message sent by the schedules instead is received
// by them.
func shortBcastRest(c *comm, op string, buf *Vec, root int, err error) error {
	if err == shmcoll.ErrElsewhere {
		return nodeBcastLong(c, op, buf, root, c.node.g.Announced())
	}
	return core.MapErr(op, err)
}

// ShortReduceMismatch is a C short Allreduce of total bytes of esz-byte elements
// whose combine found rank r's contribution of another length: the error every
// combining rank reports (nodeCountErr).
func ShortReduceMismatch(cc *core.Comm, op string, r, total, esz int) error {
	c := of(cc)
	g := c.node.g
	return nodeCountErr(c, g, op, g.ReduceMismatch(r, total), esz, &Red{})
}

// ShortGatherFar is a Gather root's receive, for code outside Go that runs the
// root's part (the C library's short Gather), of rank j's block of n bytes, which its
// cell says went as a message, into dst (what fits; the length's error is the
// caller's, ShortBlockErr).
func ShortGatherFar(cc *core.Comm, op string, dst []byte, n, j int) error {
	return core.MapErr(op, recvOne(of(cc), dst, n, j))
}

// ShortJoin says that code outside Go (the C library's Allgather, Scatter or
// Alltoall(v)) took this rank's op of the call and found a rank that took the schedules'
// way: the call's Go half, which it calls next, runs the schedules without taking an
// op.
func ShortJoin(cc *core.Comm) { of(cc).node.joined = true }

// ShortBlockErr is the error of a gather whose rank j sent a block of n bytes where
// the collector's block has want, as the Go way reports it.
func ShortBlockErr(op string, j, n, want int) error { return blockErr(op, j, n, want) }

// ShortReduceCountErr is the error of a Reduce whose root (code outside Go: the C
// library's short Reduce) found rank j's contribution of n bytes where its own has
// want, of esz-byte elements, as the Go way reports it (nodeCountErr).
func ShortReduceCountErr(op string, j, n, want, esz int) error {
	return countErr(op, &shmcoll.CountError{Rank: j, Len: n, Want: want}, esz)
}
