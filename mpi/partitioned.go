package mpi

// Partitioned point-to-point communication (MPI 4.1 chapter 4): a persistent send
// whose buffer is cut into partitions that the program, often from several goroutines,
// marks ready one by one, and a persistent receive whose partitions can be looked at
// as they arrive. Start begins a round; a completion call (Wait, Test and their kin)
// ends it, leaving the request inactive for the next Start; Free releases it. The
// two sides may cut the same message into different partitions, but the message's
// length must be the same. A send and a receive on one communicator with one (peer,
// tag) match in the order of their Init calls.

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// MaxPartitions is the most partitions a partitioned send or receive may have.
const MaxPartitions = core.MaxPartitions

// PsendInit makes a partitioned send of buf, cut into partitions partitions of
// len(buf)/partitions elements, to dest with tag (MPI_Psend_init). Start it, mark its
// partitions ready with Pready (each leaves at once), and complete it with Wait.
func PsendInit[T Elem](c *Comm, buf []T, partitions, dest, tag int) (Request, error) {
	defer prof.Exit(prof.PsendInit, c.enterP2P(prof.PsendInit, dest, tag, nbytes(buf)), nbytes(buf))
	return partInit("PsendInit", c, true, asBytes(buf), esize[T](), partitions, dest, tag)
}

// PrecvInit makes a partitioned receive into buf, cut into partitions partitions,
// from source with tag (MPI_Precv_init; neither AnySource nor AnyTag). Start it; a
// partition may be read once Parrived says it has arrived, the whole buffer once Wait
// returns.
func PrecvInit[T Elem](c *Comm, buf []T, partitions, source, tag int) (Request, error) {
	defer prof.Exit(prof.PrecvInit, c.enterP2P(prof.PrecvInit, source, tag, nbytes(buf)), nbytes(buf))
	return partInit("PrecvInit", c, false, asBytes(buf), esize[T](), partitions, source, tag)
}

// PsendInitBuf is PsendInit on a typed buffer (see Typed): partition i is items
// i*count to (i+1)*count-1 of b's datatype, count being b's count / partitions.
func PsendInitBuf(c *Comm, b Buf, partitions, dest, tag int) (Request, error) {
	defer prof.Exit(prof.PsendInit, c.enterP2P(prof.PsendInit, dest, tag, b.size()), b.size())
	return partInitBuf("PsendInit", c, true, b, partitions, dest, tag)
}

// PrecvInitBuf is PrecvInit on a typed buffer (see Typed).
func PrecvInitBuf(c *Comm, b Buf, partitions, source, tag int) (Request, error) {
	defer prof.Exit(prof.PrecvInit, c.enterP2P(prof.PrecvInit, source, tag, b.size()), b.size())
	return partInitBuf("PrecvInit", c, false, b, partitions, source, tag)
}

func partInitBuf(op string, c *Comm, send bool, b Buf, parts, peer, tag int) (Request, error) {
	if b.err == nil && parts >= 1 && b.count%int64(parts) != 0 {
		return Request{}, c.fail(op, errorf(ClassCount, op, "the buffer's %d items do not cut into %d equal partitions", b.count, parts))
	}
	eb, err := b.engineBuf(op)
	if err != nil {
		return Request{}, c.fail(op, err)
	}
	return partStart(op, c, send, eb, parts, peer, tag)
}

func partInit(op string, c *Comm, send bool, mem []byte, esz, parts, peer, tag int) (Request, error) {
	if parts >= 1 && len(mem)/esz%parts != 0 {
		return Request{}, c.fail(op, errorf(ClassCount, op, "len(buf) %d does not cut into %d equal partitions", len(mem)/esz, parts))
	}
	return partStart(op, c, send, core.Bytes(mem), parts, peer, tag)
}

func partStart(op string, c *Comm, send bool, b core.Buf, parts, peer, tag int) (Request, error) {
	p, err := c.dev().PartInit(op, send, b, parts, peer, tag)
	if err != nil {
		return Request{}, c.fail(op, err)
	}
	return opReq(c, p), nil
}

// Pready marks partition i of the partitioned send r ready: it may be sent at once,
// and the program must not change it until r completes (MPI_Pready).
func (r *Request) Pready(i int) error {
	defer prof.Exit(prof.Pready, r.enterWait(prof.Pready), 0)
	return r.pready("Pready", i, i+1)
}

// PreadyRange marks partitions lo to hi, both included, ready (MPI_Pready_range).
func (r *Request) PreadyRange(lo, hi int) error {
	defer prof.Exit(prof.PreadyRange, r.enterWait(prof.PreadyRange), 0)
	return r.pready("PreadyRange", lo, hi+1)
}

// PreadyList marks the partitions listed ready (MPI_Pready_list).
func (r *Request) PreadyList(partitions []int) error {
	defer prof.Exit(prof.PreadyList, r.enterWait(prof.PreadyList), 0)
	for _, i := range partitions {
		if err := r.pready("PreadyList", i, i+1); err != nil {
			return err
		}
	}
	return nil
}

func (r *Request) pready(op string, lo, hi int) error {
	if r == nil {
		return (*Comm)(nil).fail(op, errorf(ClassRequest, op, "nil request"))
	}
	return r.c.fail(op, r.x.Pready(op, lo, hi))
}

// Parrived reports whether partition i of the partitioned receive r has arrived, so
// that it may be read (MPI_Parrived). On an inactive request it is true.
func (r *Request) Parrived(i int) (bool, error) {
	defer prof.Exit(prof.Parrived, r.enterWait(prof.Parrived), 0)
	if r == nil {
		return false, (*Comm)(nil).fail("Parrived", errorf(ClassRequest, "Parrived", "nil request"))
	}
	ok, err := r.x.Parrived("Parrived", i)
	return ok, r.c.fail("Parrived", err)
}
