package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
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
	src := ps.Source
	if src >= 0 && c != nil {
		src = c.c.CommRank(src)
	}
	s.source, s.tag = rankOut(src), tagOut(ps.Tag)
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

// send is the blocking send, recorded as call (prof.None: not recorded, a part of
// another call).
func send(call prof.Call, op string, buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr, mode core.Mode) int32 {
	c := commOf(ch)
	if c == nil {
		_, r := needComm(op, ch)
		return r
	}
	b, l, err := lentBuf(op, buf, count, dh)
	if err != nil {
		return fail(op, ch, err)
	}
	d, tg := rankIn(dest), tagIn(tag)
	// The recorder's short path inlined, as the facade's send.
	n, pc, rec := int(b.Len()), c.c.Prof(), call != prof.None
	direct := c.c.DirectSend(d, tg)
	if direct {
		// An eager message that leaves at once is recorded once it has left.
		if how := prof.Later(call, n); how != prof.LaterNot {
			if sent, err := c.c.SendNow(b, d, tg, mode); sent {
				if how == prof.LaterCount {
					prof.Count(call, n)
				} else {
					prof.SentEvent(call, pc, d, tg, n)
				}
				if err != nil {
					return fail(op, ch, core.MapErr(op, err))
				}
				l.Return()
				return 0
			}
		}
	}
	var t int64
	if rec && !prof.Try(call, pc, d, tg, n) {
		if t = prof.TryDeferred(call, pc, d, tg, n); t == 0 {
			t = prof.Enter(call, pc, d, tg, n)
		}
	}
	if direct {
		err = core.MapErr(op, c.c.SendDirect(b, d, tg, mode))
	} else {
		err = c.c.Send(op, b, d, tg, mode)
	}
	if rec && !prof.TryExit(call, t, n) {
		prof.Exit(call, t, n)
	}
	if err != nil {
		return fail(op, ch, err) // the engine may still hold l: left to the collector
	}
	l.Return()
	return 0
}

//export PMPI_Send
func PMPI_Send(buf unsafe.Pointer, count int32, dh uintptr, dest, tag int32, ch uintptr) int32 {
	return send(prof.Send, "Send", buf, int64(count), dh, dest, tag, ch, core.ModeStandard)
}

//export PMPI_Send_c
func PMPI_Send_c(buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr) int32 {
	return send(prof.Send, "Send", buf, count, dh, dest, tag, ch, core.ModeStandard)
}

//export PMPI_Ssend
func PMPI_Ssend(buf unsafe.Pointer, count int32, dh uintptr, dest, tag int32, ch uintptr) int32 {
	return send(prof.Ssend, "Ssend", buf, int64(count), dh, dest, tag, ch, core.ModeSynchronous)
}

//export PMPI_Ssend_c
func PMPI_Ssend_c(buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr) int32 {
	return send(prof.Ssend, "Ssend", buf, count, dh, dest, tag, ch, core.ModeSynchronous)
}

//export PMPI_Rsend
func PMPI_Rsend(buf unsafe.Pointer, count int32, dh uintptr, dest, tag int32, ch uintptr) int32 {
	return send(prof.Rsend, "Rsend", buf, int64(count), dh, dest, tag, ch, core.ModeReady)
}

//export PMPI_Rsend_c
func PMPI_Rsend_c(buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr) int32 {
	return send(prof.Rsend, "Rsend", buf, count, dh, dest, tag, ch, core.ModeReady)
}

//export PMPI_Bsend
func PMPI_Bsend(buf unsafe.Pointer, count int32, dh uintptr, dest, tag int32, ch uintptr) int32 {
	return send(prof.Bsend, "Bsend", buf, int64(count), dh, dest, tag, ch, core.ModeBuffered)
}

//export PMPI_Bsend_c
func PMPI_Bsend_c(buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr) int32 {
	return send(prof.Bsend, "Bsend", buf, count, dh, dest, tag, ch, core.ModeBuffered)
}

func recv(op string, buf unsafe.Pointer, count int64, dh uintptr, src, tag int32, ch uintptr, st unsafe.Pointer) int32 {
	c := commOf(ch)
	if c == nil {
		_, r := needComm(op, ch)
		return r
	}
	b, l, err := lentBuf(op, buf, count, dh)
	if err != nil {
		return fail(op, ch, err)
	}
	var (
		from, t int
		n       int64
	)
	sr, tg := rankIn(src), tagIn(tag)
	pc := c.c.Prof()
	var pt int64
	if !prof.Try(prof.Recv, pc, sr, tg, int(b.Len())) {
		if pt = prof.TryDeferred(prof.Recv, pc, sr, tg, int(b.Len())); pt == 0 {
			pt = prof.Enter(prof.Recv, pc, sr, tg, int(b.Len()))
		}
	}
	if c.c.DirectRecv(sr, tg) {
		from, t, n, err = c.c.RecvDirect(b, sr, tg)
		if err != nil {
			err = core.MapErr(op, err)
		}
	} else {
		from, t, n, err = c.c.Recv(op, b, sr, tg)
	}
	if !prof.TryExit(prof.Recv, pt, int(n)) && !prof.TryExitRecv(pt, int(n)) {
		prof.Exit(prof.Recv, pt, int(n))
	}
	if err == nil {
		l.Return() // after an error the engine may still hold it: left to the collector
	}
	if st != nil {
		s := (*cstatus)(st)
		s.source, s.tag = rankOut(from), tagOut(t)
		s.countLo, s.countHi, s.cancelled = int32(uint32(n)), int32(n>>32), 0
	}
	if err != nil {
		return fail(op, ch, err)
	}
	return 0
}

//export PMPI_Recv
func PMPI_Recv(buf unsafe.Pointer, count int32, dh uintptr, src, tag int32, ch uintptr, st unsafe.Pointer) int32 {
	return recv("Recv", buf, int64(count), dh, src, tag, ch, st)
}

//export PMPI_Recv_c
func PMPI_Recv_c(buf unsafe.Pointer, count int64, dh uintptr, src, tag int32, ch uintptr, st unsafe.Pointer) int32 {
	return recv("Recv", buf, count, dh, src, tag, ch, st)
}

// --- requests ---

// isend starts a send (persistent: makes an inactive persistent one, recorded as
// the facade's SendInit is), recorded as call.
func isend(call prof.Call, op string, buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr, mode core.Mode, persistent bool, out unsafe.Pointer) int32 {
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
	d, tg := rankIn(dest), tagIn(tag)
	if !persistent && c.c.DirectSend(d, tg) {
		n, pc := int(b.Len()), c.c.Prof()
		var t int64
		if !prof.Try(call, pc, d, tg, n) {
			t = prof.Enter(call, pc, d, tg, n)
		}
		q, err = c.c.IsendDirect(b, d, tg, mode)
		if !prof.TryExit(call, t, n) {
			prof.Exit(call, t, n)
		}
		if err != nil {
			err = core.MapErr(op, err)
		}
	} else if !persistent {
		n := int(b.Len())
		t := c.enter(call, d, tg, n)
		q, err = c.c.Isend(op, b, d, tg, mode, false)
		exit(call, t, n)
	} else {
		n := int(b.Len())
		t := c.enterTimed(call, d, tg, n)
		q, err = c.c.Isend(op, b, d, tg, mode, true)
		exit(call, t, n)
	}
	if err != nil {
		return fail(op, ch, err)
	}
	addP2P(q, c, ch, persistent, out)
	return 0
}

// irecv starts a receive (persistent: makes an inactive persistent one, recorded as
// the facade's RecvInit is), recorded as call: Irecv, Recv_init, or prof.None for
// the receive of a Sendrecv, which records itself.
func irecv(call prof.Call, op string, buf unsafe.Pointer, count int64, dh uintptr, src, tag int32, ch uintptr, persistent bool, out unsafe.Pointer) int32 {
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
	sr, tg := rankIn(src), tagIn(tag)
	if !persistent && c.c.DirectRecv(sr, tg) {
		n, pc, rec := int(b.Len()), c.c.Prof(), call != prof.None
		var t int64
		if rec && !prof.Try(call, pc, sr, tg, n) {
			t = prof.Enter(call, pc, sr, tg, n)
		}
		q, err = c.c.IrecvDirect(b, sr, tg)
		if rec && !prof.TryExit(call, t, n) {
			prof.Exit(call, t, n)
		}
		if err != nil {
			err = core.MapErr(op, err)
		}
	} else if !persistent && call != prof.None {
		n := int(b.Len())
		t := c.enter(call, sr, tg, n)
		q, err = c.c.Irecv(op, b, sr, tg, false)
		exit(call, t, n)
	} else if !persistent {
		q, err = c.c.Irecv(op, b, sr, tg, false)
	} else {
		n := int(b.Len())
		t := c.enterTimed(call, sr, tg, n)
		q, err = c.c.Irecv(op, b, sr, tg, true)
		exit(call, t, n)
	}
	if err != nil {
		return fail(op, ch, err)
	}
	addP2P(q, c, ch, persistent, out)
	return 0
}

//export PMPI_Isend
func PMPI_Isend(buf unsafe.Pointer, count int32, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.Isend, "Isend", buf, int64(count), dh, dest, tag, ch, core.ModeStandard, false, out)
}

//export PMPI_Isend_c
func PMPI_Isend_c(buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.Isend, "Isend", buf, count, dh, dest, tag, ch, core.ModeStandard, false, out)
}

//export PMPI_Issend
func PMPI_Issend(buf unsafe.Pointer, count int32, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.Issend, "Issend", buf, int64(count), dh, dest, tag, ch, core.ModeSynchronous, false, out)
}

//export PMPI_Issend_c
func PMPI_Issend_c(buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.Issend, "Issend", buf, count, dh, dest, tag, ch, core.ModeSynchronous, false, out)
}

//export PMPI_Irsend
func PMPI_Irsend(buf unsafe.Pointer, count int32, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.Irsend, "Irsend", buf, int64(count), dh, dest, tag, ch, core.ModeReady, false, out)
}

//export PMPI_Irsend_c
func PMPI_Irsend_c(buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.Irsend, "Irsend", buf, count, dh, dest, tag, ch, core.ModeReady, false, out)
}

//export PMPI_Ibsend
func PMPI_Ibsend(buf unsafe.Pointer, count int32, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.Ibsend, "Ibsend", buf, int64(count), dh, dest, tag, ch, core.ModeBuffered, false, out)
}

//export PMPI_Ibsend_c
func PMPI_Ibsend_c(buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.Ibsend, "Ibsend", buf, count, dh, dest, tag, ch, core.ModeBuffered, false, out)
}

//export PMPI_Irecv
func PMPI_Irecv(buf unsafe.Pointer, count int32, dh uintptr, src, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return irecv(prof.Irecv, "Irecv", buf, int64(count), dh, src, tag, ch, false, out)
}

//export PMPI_Irecv_c
func PMPI_Irecv_c(buf unsafe.Pointer, count int64, dh uintptr, src, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return irecv(prof.Irecv, "Irecv", buf, count, dh, src, tag, ch, false, out)
}

//export PMPI_Send_init
func PMPI_Send_init(buf unsafe.Pointer, count int32, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.SendInit, "Send_init", buf, int64(count), dh, dest, tag, ch, core.ModeStandard, true, out)
}

//export PMPI_Ssend_init
func PMPI_Ssend_init(buf unsafe.Pointer, count int32, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.SsendInit, "Ssend_init", buf, int64(count), dh, dest, tag, ch, core.ModeSynchronous, true, out)
}

//export PMPI_Rsend_init
func PMPI_Rsend_init(buf unsafe.Pointer, count int32, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.RsendInit, "Rsend_init", buf, int64(count), dh, dest, tag, ch, core.ModeReady, true, out)
}

//export PMPI_Bsend_init
func PMPI_Bsend_init(buf unsafe.Pointer, count int32, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.BsendInit, "Bsend_init", buf, int64(count), dh, dest, tag, ch, core.ModeBuffered, true, out)
}

//export PMPI_Recv_init
func PMPI_Recv_init(buf unsafe.Pointer, count int32, dh uintptr, src, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return irecv(prof.RecvInit, "Recv_init", buf, int64(count), dh, src, tag, ch, true, out)
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

//export PMPI_Send_init_c
func PMPI_Send_init_c(buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.SendInit, "Send_init", buf, count, dh, dest, tag, ch, core.ModeStandard, true, out)
}

//export PMPI_Ssend_init_c
func PMPI_Ssend_init_c(buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.SsendInit, "Ssend_init", buf, count, dh, dest, tag, ch, core.ModeSynchronous, true, out)
}

//export PMPI_Rsend_init_c
func PMPI_Rsend_init_c(buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.RsendInit, "Rsend_init", buf, count, dh, dest, tag, ch, core.ModeReady, true, out)
}

//export PMPI_Bsend_init_c
func PMPI_Bsend_init_c(buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.BsendInit, "Bsend_init", buf, count, dh, dest, tag, ch, core.ModeBuffered, true, out)
}

//export PMPI_Recv_init_c
func PMPI_Recv_init_c(buf unsafe.Pointer, count int64, dh uintptr, src, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return irecv(prof.RecvInit, "Recv_init", buf, count, dh, src, tag, ch, true, out)
}
