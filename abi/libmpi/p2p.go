package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
)

// putStatus writes an engine status into a C MPI_Status (nothing for
// MPI_STATUS_IGNORE), the source translated to a rank of c. It leaves MPI_ERROR
// alone: MPI 4.1 sec. 3.2.5 lets only the calls that return several statuses set
// it, and only when they return MPI_ERR_IN_STATUS (reqSet.inStatus).
func putStatus(st unsafe.Pointer, c *comm, ps *core.Status) {
	if st == nil {
		return
	}
	s := (*cstatus)(st)
	s.source, s.tag = rankOut(mpir.SourceRank(c.dev(), ps.Source)), tagOut(ps.Tag)
	s.countLo, s.countHi = int32(uint32(ps.Count)), int32(ps.Count>>32)
	s.cancelled = 0
	if ps.Cancelled {
		s.cancelled = 1
	}
}

// emptyStatus is the status of a null or inactive request: MPI 4.1 sec. 3.7.3's
// empty status, whose error is MPI_SUCCESS.
func emptyStatus(st unsafe.Pointer) {
	putStatus(st, nil, &core.Status{Source: core.AnySource, Tag: core.AnyTag})
	if st != nil {
		(*cstatus)(st).err = 0
	}
}

// The point-to-point calls are mpir's (internal/mpir/p2p.go says what they check
// and how each is recorded): the functions here turn C's buffer, count and datatype
// into the device's buffer and the ABI's sentinels into the device's (rankIn,
// tagIn), and the answers into C's status, request and message handles, errors
// through the communicator's handler.

// dev is c's device communicator, nil for a nil c.
func (c *comm) dev() *core.Comm {
	if c == nil {
		return nil
	}
	return c.c
}

// send is the blocking send, as p.
func send(p *mpir.Proc, buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr) int32 {
	c := commOf(ch)
	if c == nil {
		_, r := needComm(p.Op, ch)
		return r
	}
	b, ok := bytesOf(buf, count, dh) // inline: lentBuf's common case
	var l *datatype.Layout
	if !ok {
		var err error
		if b, l, err = lentBuf(p.Op, buf, count, dh); err != nil {
			return fail(p.Op, ch, err)
		}
	}
	if err := mpir.Send(p, c.c, b, rankIn(dest), tagIn(tag)); err != nil {
		return fail(p.Op, ch, err) // the engine may still hold l: left to the collector
	}
	l.Return()
	return 0
}

func recv(op string, buf unsafe.Pointer, count int64, dh uintptr, src, tag int32, ch uintptr, st unsafe.Pointer) int32 {
	c := commOf(ch)
	if c == nil {
		_, r := needComm(op, ch)
		return r
	}
	b, ok := bytesOf(buf, count, dh)
	var l *datatype.Layout
	if !ok {
		var err error
		if b, l, err = lentBuf(op, buf, count, dh); err != nil {
			return fail(op, ch, err)
		}
	}
	from, t, n, err := mpir.Recv(op, c.c, b, rankIn(src), tagIn(tag))
	if st != nil {
		s := (*cstatus)(st)
		s.source, s.tag = rankOut(from), tagOut(t)
		s.countLo, s.countHi, s.cancelled = int32(uint32(n)), int32(n>>32), 0
	}
	if err != nil {
		return fail(op, ch, err) // the engine may still hold l: left to the collector
	}
	l.Return()
	return 0
}

// --- requests ---

// isend starts a send (persistent: makes an inactive persistent one), as p.
func isend(p *mpir.Proc, buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr, persistent bool, out unsafe.Pointer) int32 {
	op := p.Op
	c := commOf(ch)
	if c == nil {
		_, r := needComm(op, ch)
		return r
	}
	if out == nil {
		return fail(op, ch, errorf(errArg, op, "request is NULL"))
	}
	b, err := cbuf(op, buf, count, dh)
	if err != nil {
		return fail(op, ch, err)
	}
	var q core.Request
	if persistent {
		q, err = mpir.SendInit(p, c.c, b, rankIn(dest), tagIn(tag))
	} else {
		q, err = mpir.Isend(p, c.c, b, rankIn(dest), tagIn(tag))
	}
	if err != nil {
		return fail(op, ch, err)
	}
	addP2P(q, c, ch, persistent, out)
	return 0
}

// irecv starts a receive (persistent: makes an inactive persistent one).
func irecv(op string, buf unsafe.Pointer, count int64, dh uintptr, src, tag int32, ch uintptr, persistent bool, out unsafe.Pointer) int32 {
	c := commOf(ch)
	if c == nil {
		_, r := needComm(op, ch)
		return r
	}
	if out == nil {
		return fail(op, ch, errorf(errArg, op, "request is NULL"))
	}
	b, err := cbuf(op, buf, count, dh)
	if err != nil {
		return fail(op, ch, err)
	}
	var q core.Request
	if persistent {
		q, err = mpir.RecvInit(mpir.ProcRecvInit, c.c, b, rankIn(src), tagIn(tag))
	} else {
		q, err = mpir.Irecv(c.c, b, rankIn(src), tagIn(tag))
	}
	if err != nil {
		return fail(op, ch, err)
	}
	addP2P(q, c, ch, persistent, out)
	return 0
}

// --- probe ---

// --- combined ---

// --- buffered sends' buffer ---

// The ABI's wildcards and sentinels differ from the device's (MPI_ANY_TAG is -2 and
// MPI_PROC_NULL -3 in the ABI, -1 and -2 in the device): arguments are translated on
// the way in, statuses on the way out. A value that is a sentinel of the other kind
// (MPI_ANY_SOURCE as a tag, MPI_ANY_TAG as a rank) becomes one the device rejects,
// naming the argument.
const badSentinel = -1000

func rankIn(r int32) int {
	switch r {
	case C.MPI_PROC_NULL:
		return core.ProcNull
	case C.MPI_ROOT:
		return collective.Root
	case C.MPI_ANY_TAG:
		return badSentinel
	}
	return int(r)
}

func tagIn(t int32) int {
	switch t {
	case C.MPI_ANY_TAG:
		return core.AnyTag
	case C.MPI_ANY_SOURCE:
		return badSentinel
	}
	return int(t)
}

func rankOut(r int) int32 {
	switch r {
	case core.ProcNull:
		return C.MPI_PROC_NULL
	case collective.Root:
		return C.MPI_ROOT
	}
	return int32(r)
}

func tagOut(t int) int32 {
	if t == core.AnyTag {
		return C.MPI_ANY_TAG
	}
	return int32(t)
}
