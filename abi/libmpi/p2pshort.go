package main

/*
#include <stdlib.h>
#include "p2pshort.h"
*/
import "C"

import (
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// The Go side of MPI_Send's short way in C (p2pshort.c): where it finds the engine's
// words and the record's gate, which MPI_Init gives it once the world exists and
// MPI_Finalize takes back first, and per communicator a copy of what a send on it
// needs (its context, its ranks' world ranks), made with the communicator and freed
// with it. The engine's words themselves the engine and the shm transport keep
// (internal/p2p/outside.go); nothing here copies them.

// The engine's lock is one p2pshort.c can take (p2p.Options.SharedLock), so that its
// short ways run where the engine takes its lock: at MPI_THREAD_MULTIPLE, and once a
// goroutine of mpigo's calls the engine beside the program.
func init() { core.ShareLock() }

// showP2P gives p2pshort.c the world's engine: MPI_Init succeeded.
func showP2P() {
	if C.mpigo_p2p.world == nil {
		C.mpigo_p2p.world = newShortComm(hCommWorld, core.World)
	}
	C.mpigo_p2p.gate = C.uintptr_t(prof.Gate())
	C.mpigo_p2p.conc = 0
	if prof.SharedOutside() {
		C.mpigo_p2p.conc = 1
	}
	core.SetDeferred(flushPending)
	atomic.StoreUintptr((*uintptr)(unsafe.Pointer(&C.mpigo_p2p.eng)), core.Outside())
}

// hideP2P sends every MPI_Send through Go, its pending receives posted first:
// MPI_Finalize begins.
func hideP2P() {
	postPending()
	atomic.StoreUintptr((*uintptr)(unsafe.Pointer(&C.mpigo_p2p.eng)), 0)
}

// flushPending posts p2pshort.c's pending receives to the engine, oldest first, each
// record then following its Go request: the engine calls it (p2p.Engine.SetDeferred)
// before it matches or moves a packet while any is pending, and p2pshort.c through
// the engine (mpigo_pend_flush) where it leaves them to Go; either way it runs holding
// the engine's lock (or with the lock off), the only place the pending queue is
// changed at MPI_THREAD_MULTIPLE. The receives were counted when they were made;
// posting them records nothing.
func flushPending() {
	for {
		p := C.mpigo_pend_pop()
		if p == nil {
			return
		}
		C.mpigo_pend_posted(C.int(postCounted(p.buf, int64(p.count), uintptr(p.dt), int32(p.src), int32(p.tag), uintptr(p.comm), unsafe.Pointer(&p.gh))))
	}
}

// postCounted is irecv (p2p.go) of a receive p2pshort.c counted when it was made:
// unrecorded, under the engine's lock (mpir.IrecvDeferred). Its arguments were
// checked then (a plain predefined datatype, a rank and tag of the communicator's).
func postCounted(buf unsafe.Pointer, count int64, dh uintptr, src, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	const op = "Irecv"
	c := commOf(ch)
	if c == nil {
		_, r := needComm(op, ch)
		return r
	}
	b, err := cbuf(op, buf, count, dh)
	if err != nil {
		return fail(op, ch, err)
	}
	q, err := mpir.IrecvDeferred(c.c, b, rankIn(src), tagIn(tag))
	if err != nil {
		return fail(op, ch, err)
	}
	addP2P(q, c, ch, false, out)
	return 0
}

// postPending posts p2pshort.c's pending receives before a communicator is freed or
// disconnected: a pending receive names its communicator's handle, and goes on after
// the communicator's free as any posted receive does.
func postPending() {
	if C.mpigo_p2p.eng != 0 {
		core.PostDeferred()
	}
}

// mpigo_pend_flush posts p2pshort.c's pending receives (flushPending) through the
// engine, which keeps them from being posted twice over.
//
//export mpigo_pend_flush
func mpigo_pend_flush() { core.PostDeferred() }

// newShortComm is p2pshort.c's copy of communicator c under handle h, or nil where
// every send on c takes the Go way: an intercommunicator (its ranks name the remote
// group, which the copy would have to tell apart), a communicator of one rank (its
// only peer is this rank), one in a slot p2pshort.c has no room for. The choice is
// made once, here, when c is made; what a send then checks per call (the peer's
// ring, the engine's state) the engine keeps in its own words.
func newShortComm(h uintptr, c *core.Comm) *C.mpigo_comm {
	n := c.Size()
	if c.IsInter() || n < 2 || (h != hCommWorld && slotOf(h) >= C.MPIGO_SHORT_COMMS) {
		return nil
	}
	d := (*C.mpigo_comm)(C.calloc(1, C.size_t(unsafe.Sizeof(C.mpigo_comm{})+uintptr(n)*4)))
	w := unsafe.Slice((*int32)(unsafe.Add(unsafe.Pointer(d), unsafe.Sizeof(C.mpigo_comm{}))), n)
	for r := range w {
		w[r] = int32(c.LocalWorldRank(r))
	}
	d.h, d.ctx, d.size, d.rank = C.uintptr_t(h), C.uint32_t(c.Ctx()), C.int32_t(n), C.int32_t(c.Rank())
	d.world = (*C.int32_t)(unsafe.Pointer(unsafe.SliceData(w)))
	*(*uintptr)(unsafe.Pointer(&d.ctxw)) = c.OutsideCtx() // outside Go's heap (p2p's ctxWords)
	return d
}

// addComm registers communicator x (comms.add) with its copy for p2pshort.c.
func addComm(x *mpir.Comm) uintptr {
	o := &comm{x: x, c: x.Dev()}
	h := comms.add(o)
	if d := newShortComm(h, o.c); d != nil {
		o.short = unsafe.Pointer(d)
		C.mpigo_comm_set(C.uintptr_t(h), d)
	}
	return h
}

// removeComm takes communicator h's handle (comms.remove) and its copy away; the copy
// is hidden before it is freed.
func removeComm(h uintptr) {
	o := comms.get(h)
	if o != nil && o.short != nil {
		C.mpigo_comm_set(C.uintptr_t(h), nil)
	}
	comms.remove(h)
	if o != nil && o.short != nil {
		C.free(o.short)
		o.short = nil
	}
}

// What p2pshort.h says of Go's memory holds.
var (
	_ [0]struct{} = [unsafe.Sizeof(C.mpigo_link{}) - unsafe.Sizeof(prof.Link{})]struct{}{}
	_ [0]struct{} = [C.MPIGO_GATE_INCALL - prof.GateInCall]struct{}{}
	_ [0]struct{} = [prof.GateInCall - C.MPIGO_GATE_INCALL]struct{}{}
	_ [0]struct{} = [C.MPIGO_SAMPLE_EVERY - prof.SampleEvery]struct{}{}
	_ [0]struct{} = [prof.SampleEvery - C.MPIGO_SAMPLE_EVERY]struct{}{}
	_ [0]struct{} = [unsafe.Sizeof(C.mpigo_ring{}) - 192]struct{}{}
	_ [0]struct{} = [unsafe.Sizeof(C.mpigo_eng{}) - 88]struct{}{}
	_ [0]struct{} = [unsafe.Sizeof(C.mpigo_inring{}) - 192]struct{}{}
)

// cellConsts are p2pshort.h's compact cell constants, which a test compares with the
// shm transport's (this package may not import it).
func cellConsts() (inline, compact int) { return C.MPIGO_INLINE, C.MPIGO_COMPACT }

// mpigo_short_recvs is how many receives p2pshort.c did itself (MPI_Recv's short
// way), and mpigo_short_sendrecvs how many MPI_Sendrecv and MPI_Sendrecv_replace
// calls, for C programs that check which way a call took (abi/testdata/p2precv.c).
//
//export mpigo_short_recvs
func mpigo_short_recvs() int64 { return shortCount(C.MPIGO_C_RECV) }

// mpigo_short_mprobes and mpigo_short_mrecvs count the MPI_Mprobe and MPI_Mrecv calls
// p2pshort.c did itself (abi/testdata/mprobe.c).
//
//export mpigo_short_mprobes
func mpigo_short_mprobes() int64 { return shortCount(C.MPIGO_C_MPROBE) }

// mpigo_short_improbes counts the MPI_Improbe calls p2pshort.c answered itself ("no",
// or the message taken), for abi/testdata/mprobe.c.
//
//export mpigo_short_improbes
func mpigo_short_improbes() int64 { return shortCount(C.MPIGO_C_IMPROBE) }

//export mpigo_short_mrecvs
func mpigo_short_mrecvs() int64 { return shortCount(C.MPIGO_C_MRECV) }

//export mpigo_short_sendrecvs
func mpigo_short_sendrecvs() int64 {
	return shortCount(C.MPIGO_C_SENDRECV) + shortCount(C.MPIGO_C_SENDRECV_REPLACE)
}

func shortCount(call int) int64 {
	return callsDone(func(b *C.mpigo_tallies) []C.mpigo_calls { return b.p2p[call : call+1] })
}

// mpigo_short_sends is how many sends p2pshort.c did itself, for C programs that
// check which way a send took (abi/testdata/p2pshort.c).
//
//export mpigo_short_sends
func mpigo_short_sends() int64 { return shortCount(C.MPIGO_C_SEND) }

// creqsMT makes p2pshort.c's table of complete requests take its lock from now on:
// MPI_THREAD_MULTIPLE is provided (reqsMT).
func creqsMT() { atomic.StoreInt32((*int32)(unsafe.Pointer(&C.mpigo_creq_mt)), 1) }

// cReqLive says whether h is a request p2pshort.c completed and still holds.
func cReqLive(h uintptr) bool { return C.mpigo_creq_live(C.uintptr_t(h)) != 0 }

// mpigo_record_call records a completion call p2pshort.c did on its own requests
// where the record would time it (a sampled call, a timeline, a call inside another,
// MPI_THREAD_MULTIPLE): call is its MPIGO_C_* number.
//
//export mpigo_record_call
func mpigo_record_call(call int32, n int64) {
	c := shortCalls[call]
	prof.Exit(c, prof.EnterWait(c, nil, prof.NoPeer, -2, false), int(n))
}

// setOps are the calls on many requests, as mpigo_set_test takes them: [some][how].
var setOps = [2][3]struct {
	op   string
	call prof.Call
}{
	{{"Waitany", prof.Waitany}, {"Testany", prof.Testany}, {"Request_get_status_any", prof.RequestGetStatusAny}},
	{{"Waitsome", prof.Waitsome}, {"Testsome", prof.Testsome}, {"Request_get_status_some", prof.RequestGetStatusSome}},
}

// mpigo_set_test is the Go part of a call on many requests that p2pshort.c completes
// some of (its own, shown here as MPI_REQUEST_NULL): some 0, Waitany, Testany or
// Request_get_status_any (how 0, 1, 2) on the n handles at p, a the index and b the
// flag; some 1, Waitsome, Testsome or Request_get_status_some, a the count and b the
// indices. It does not wait (p2pshort.c's requests have completed): Waitany and
// Waitsome do Testany's and Testsome's work, recorded as themselves.
//
//export mpigo_set_test
func mpigo_set_test(some1, how1, n int32, p, a, b, c unsafe.Pointer) int32 {
	o := setOps[some1&1][how1%3]
	hs := handles(p, int(n))
	h := setTest
	if how1 == 2 {
		h = setPeek
	}
	defer prof.Exit(o.call, enterAll(o.call, hs), 0)
	if some1 == 0 {
		return anyOf(o.op, hs, nil, a, b, c, h)
	}
	return some(o.op, hs, nil, a, b, c, h)
}

// mpigo_short_isends, mpigo_short_irecvs and mpigo_short_completions count the calls
// p2pshort.c did itself: MPI_Isend, MPI_Irecv, and the completion calls on its own
// requests alone (Wait, Test, Waitall, ... Request_free, Cancel), for
// abi/testdata/p2preq.c.
//
//export mpigo_short_isends
func mpigo_short_isends() int64 { return shortCount(C.MPIGO_C_ISEND) }

//export mpigo_short_irecvs
func mpigo_short_irecvs() int64 { return shortCount(C.MPIGO_C_IRECV) }

//export mpigo_short_completions
func mpigo_short_completions() int64 {
	n := int64(0)
	for c := C.MPIGO_C_WAIT; c <= C.MPIGO_C_CANCEL; c++ {
		n += shortCount(c)
	}
	return n
}
