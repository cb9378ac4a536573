package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// putStatus writes an engine status into a C MPI_Status (nothing for
// MPI_STATUS_IGNORE), the source translated to a rank of c. It leaves MPI_ERROR
// alone: MPI 4.1 sec. 3.2.5 lets only the calls that return several statuses set
// it, and only when they return MPI_ERR_IN_STATUS (statusErrs).
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

// statusErrs fills MPI_ERROR in the first n statuses of sts when a call that
// returns several returns MPI_ERR_IN_STATUS: each failed one's code (failed holds
// index and code pairs), MPI_SUCCESS in the others.
func statusErrs(sts unsafe.Pointer, n int, failed []int32) {
	if sts == nil {
		return
	}
	for i := 0; i < n; i++ {
		(*cstatus)(statusAt(sts, i)).err = 0
	}
	for j := 0; j+1 < len(failed); j += 2 {
		(*cstatus)(statusAt(sts, int(failed[j]))).err = failed[j+1]
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
	n, pc, rec := int(b.Len()), c.c.ProfComm(), call != prof.None
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
	pc := c.c.ProfComm()
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

// request is a nonblocking operation: a point-to-point request of the engine, or an
// operation of many messages (a collective, Comm_idup, a generalized request).
type request struct {
	q          core.Request
	x          *core.Pending
	xg         uint32 // x's generation when the handle was made (a collective's record is reused)
	c          *comm
	ch         uintptr
	persistent bool
	live       bool
	keep       any // what a nonblocking collective's C arrays became, kept until it completes
}

// inactive reports whether r is a persistent request not started (completion calls
// treat it as a null request).
func (r *request) inactive() bool {
	if !r.persistent {
		return false
	}
	if r.x != nil {
		return !r.ref().Active()
	}
	return !r.q.Active()
}

// ref is r's operation of many messages at r's generation.
func (r *request) ref() core.Ref { return core.RefOf(r.x, r.xg) }

// requests are kept in chunks that never move, so that a *request stays valid while
// other threads add requests.
const reqChunk = 1024

var reqs struct {
	sync.Mutex
	chunks [][]request
	free   []int
	n      int
}

func newRequest() (uintptr, *request) {
	reqs.Lock()
	var i int
	if k := len(reqs.free); k > 0 {
		i = reqs.free[k-1]
		reqs.free = reqs.free[:k-1]
	} else {
		i = reqs.n
		reqs.n++
		if i/reqChunk >= len(reqs.chunks) {
			reqs.chunks = append(reqs.chunks, make([]request, reqChunk))
		}
	}
	r := &reqs.chunks[i/reqChunk][i%reqChunk]
	reqs.Unlock()
	*r = request{live: true}
	return uintptr(i + handleBase), r
}

func reqOf(h uintptr) *request {
	i := int(h) - handleBase
	if i < 0 {
		return nil
	}
	reqs.Lock()
	var r *request
	if i < reqs.n {
		r = &reqs.chunks[i/reqChunk][i%reqChunk]
		if !r.live {
			r = nil
		}
	}
	reqs.Unlock()
	return r
}

func freeRequest(h uintptr, r *request) {
	*r = request{}
	reqs.Lock()
	reqs.free = append(reqs.free, int(h)-handleBase)
	reqs.Unlock()
}

// addP2P makes the handle of an engine request.
func addP2P(q core.Request, c *comm, ch uintptr, persistent bool, out unsafe.Pointer) {
	h, r := newRequest()
	r.q, r.c, r.ch, r.persistent = q, c, ch, persistent
	*(*uintptr)(out) = h
}

// addPending makes the handle of an operation of many messages.
func addPending(x *core.Pending, c *comm, ch uintptr, keep any, out unsafe.Pointer) {
	h, r := newRequest()
	r.x, r.xg, r.c, r.ch, r.keep = x, x.Gen(), c, ch, keep
	*(*uintptr)(out) = h
}

// addPersistent makes the handle of an inactive persistent collective (or of a
// partitioned operation, start nil: x is one already).
func addPersistent(c *comm, ch uintptr, start func() (*core.Pending, error), out unsafe.Pointer) {
	addStartable(c, ch, core.Persistent(start), out)
}

func addStartable(c *comm, ch uintptr, x *core.Pending, out unsafe.Pointer) {
	h, r := newRequest()
	r.c, r.ch, r.persistent, r.x, r.xg = c, ch, true, x, x.Gen()
	*(*uintptr)(out) = h
}

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
		n, pc := int(b.Len()), c.c.ProfComm()
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
		n, pc, rec := int(b.Len()), c.c.ProfComm(), call != prof.None
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

//export PMPI_Start
func PMPI_Start(p unsafe.Pointer) int32 {
	if p == nil {
		return fail("Start", 0, errorf(errArg, "Start", "request is NULL"))
	}
	h := *(*uintptr)(p)
	r := reqOf(h)
	defer prof.Exit(prof.ReqStart, enterReq(prof.ReqStart, r), 0)
	return startReq(h, r)
}

// startReq is MPI_Start of r (handle h), unrecorded (Startall's).
func startReq(h uintptr, r *request) int32 {
	if r == nil || !r.persistent {
		return fail("Start", 0, errorf(errRequest, "Start", "request %#x is not a persistent request", h))
	}
	if r.x != nil {
		return fail("Start", r.ch, r.x.Start("Start"))
	}
	return fail("Start", r.ch, core.MapErr("Start", core.Start(&r.q)))
}

//export PMPI_Startall
func PMPI_Startall(n int32, p unsafe.Pointer) int32 {
	defer prof.Exit(prof.Startall, prof.EnterWait(prof.Startall, nil, prof.NoPeer, -2, false), 0)
	for _, h := range handles(p, int(n)) {
		if r := startReq(h, reqOf(h)); r != 0 {
			return r
		}
	}
	return 0
}

func handles(p unsafe.Pointer, n int) []uintptr {
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice((*uintptr)(p), n)
}

// complete reports request h (at *p) complete, filling st, and releases it: a
// non-persistent request becomes MPI_REQUEST_NULL. wait: block until it completes.
// It returns whether it completed and the error code of the operation (not raised).
func complete(op string, p unsafe.Pointer, st unsafe.Pointer, wait, release bool) (bool, int32, error) {
	h := *(*uintptr)(p)
	if h == hRequestNull {
		emptyStatus(st)
		return true, 0, nil
	}
	r := reqOf(h)
	if r == nil {
		return false, 0, errorf(errRequest, op, "request %#x is not a request", h)
	}
	var ps core.Status
	var err error
	if r.inactive() {
		emptyStatus(st)
		return true, 0, nil
	}
	if r.x != nil {
		x := r.ref()
		if wait {
			err = x.Wait()
		} else {
			var ok bool
			ok, err = x.Test()
			if !ok {
				return false, 0, nil
			}
		}
		if serr := x.StatusInto(&ps); err == nil {
			err = serr
		}
		if release {
			if ferr := x.Release(); err == nil {
				err = ferr
			}
		}
	} else {
		switch {
		case wait:
			err = core.WaitInto(&r.q, &ps)
		case release:
			var ok bool
			ok, err = core.TestInto(&r.q, &ps)
			if !ok && err == nil {
				return false, 0, nil
			}
		default:
			var ok bool
			ok, err = core.PeekInto(&r.q, &ps)
			if !ok && err == nil {
				return false, 0, nil
			}
		}
	}
	var code int32
	if err != nil {
		err = core.MapErr(op, err)
		code = codeOf(err)
	}
	putStatus(st, r.c, &ps)
	if release && !r.persistent {
		freeRequest(h, r)
		*(*uintptr)(p) = hRequestNull
	}
	return true, code, err
}

//export PMPI_Wait
func PMPI_Wait(p unsafe.Pointer, st unsafe.Pointer) int32 {
	if p == nil {
		return fail("Wait", 0, errorf(errArg, "Wait", "request is NULL"))
	}
	r := reqOf(*(*uintptr)(p))
	ch := r.handle() // before complete releases r
	t := enterReq(prof.Wait, r)
	_, _, err := complete("Wait", p, st, true, true)
	prof.Exit(prof.Wait, t, 0)
	return fail("Wait", ch, err)
}

//export PMPI_Test
func PMPI_Test(p unsafe.Pointer, flag, st unsafe.Pointer) int32 {
	if p == nil || flag == nil {
		return fail("Test", 0, errorf(errArg, "Test", "request or flag is NULL"))
	}
	r := reqOf(*(*uintptr)(p))
	ch := r.handle() // before complete releases r
	t := enterReq(prof.Test, r)
	ok, _, err := complete("Test", p, st, false, true)
	prof.Exit(prof.Test, t, 0)
	setBool(flag, ok)
	return fail("Test", ch, err)
}

//export PMPI_Request_get_status
func PMPI_Request_get_status(h uintptr, flag, st unsafe.Pointer) int32 {
	defer prof.Exit(prof.RequestGetStatus, enterReq(prof.RequestGetStatus, reqOf(h)), 0)
	ok, _, err := complete("Request_get_status", unsafe.Pointer(&h), st, false, false)
	setBool(flag, ok)
	return fail("Request_get_status", reqComm(h), err)
}

func reqComm(h uintptr) uintptr { return reqOf(h).handle() }

// handle is r's communicator's handle (0 for a nil r).
func (r *request) handle() uintptr {
	if r != nil {
		return r.ch
	}
	return 0
}

func statusAt(sts unsafe.Pointer, i int) unsafe.Pointer {
	if sts == nil {
		return nil
	}
	return unsafe.Add(sts, i*int(unsafe.Sizeof(cstatus{})))
}

//export PMPI_Waitall
func PMPI_Waitall(n int32, p unsafe.Pointer, sts unsafe.Pointer) int32 {
	hs := handles(p, int(n))
	defer prof.Exit(prof.Waitall, enterAll(prof.Waitall, hs), 0)
	return waitall(hs, sts)
}

// waitall is MPI_Waitall, unrecorded (Testall's).
func waitall(hs []uintptr, sts unsafe.Pointer) int32 {
	const op = "Waitall"
	// All point-to-point and no statuses wanted (OSU's window): one engine call,
	// with the requests on the stack.
	if sts == nil && len(hs) <= 64 {
		var stack [64]core.Request
		var rs [64]*request
		simple := true
		for i, h := range hs {
			if h == hRequestNull {
				continue
			}
			r := reqOf(h)
			if r == nil || r.x != nil || r.persistent {
				simple = false
				break
			}
			stack[i], rs[i] = r.q, r
		}
		if simple {
			err := core.Waitall(stack[:len(hs)], nil)
			for i, h := range hs {
				if rs[i] != nil {
					freeRequest(h, rs[i])
					hs[i] = hRequestNull
				}
			}
			if err != nil {
				return fail(op, 0, &abiError{class: errInStatus, msg: "MPI_Waitall: a request failed: " + err.Error()})
			}
			return 0
		}
	}
	var first error
	var fch uintptr
	var failed []int32
	for i := range hs {
		ch := reqComm(hs[i])
		_, code, err := complete(op, unsafe.Pointer(&hs[i]), statusAt(sts, i), true, true)
		if err != nil {
			failed = append(failed, int32(i), code)
			if first == nil {
				first, fch = err, ch
			}
		}
	}
	if first != nil {
		statusErrs(sts, len(hs), failed)
		return fail(op, fch, &abiError{class: errInStatus, msg: "MPI_Waitall: a request failed: " + first.Error()})
	}
	return 0
}

//export PMPI_Testall
func PMPI_Testall(n int32, p unsafe.Pointer, flag, sts unsafe.Pointer) int32 {
	const op = "Testall"
	hs := handles(p, int(n))
	defer prof.Exit(prof.Testall, enterAll(prof.Testall, hs), 0)
	for _, h := range hs { // all or nothing: peek first
		if h == hRequestNull {
			continue
		}
		hh := h
		ok, _, err := complete(op, unsafe.Pointer(&hh), nil, false, false)
		if err == nil && !ok {
			setBool(flag, false)
			return 0
		}
	}
	setBool(flag, true)
	return waitall(hs, sts)
}

// anyIndex waits for (or tests) one of the active requests; -32766 (MPI_UNDEFINED)
// when none is active.
func anyIndex(op string, hs []uintptr, st unsafe.Pointer, wait bool) (int, bool, error) {
	for {
		live := false
		for i := range hs {
			if hs[i] == hRequestNull {
				continue
			}
			if r := reqOf(hs[i]); r != nil && r.inactive() {
				continue
			}
			live = true
			ok, _, err := complete(op, unsafe.Pointer(&hs[i]), st, false, true)
			if ok || err != nil {
				return i, true, err
			}
		}
		if !live {
			emptyStatus(st)
			return -32766, true, nil
		}
		if !wait {
			return -32766, false, nil
		}
		runtime.Gosched()
	}
}

//export PMPI_Waitany
func PMPI_Waitany(n int32, p unsafe.Pointer, idx, st unsafe.Pointer) int32 {
	hs := handles(p, int(n))
	defer prof.Exit(prof.Waitany, enterAll(prof.Waitany, hs), 0)
	i, _, err := anyIndex("Waitany", hs, st, true)
	setInt(idx, i)
	return fail("Waitany", 0, err)
}

//export PMPI_Testany
func PMPI_Testany(n int32, p unsafe.Pointer, idx, flag, st unsafe.Pointer) int32 {
	hs := handles(p, int(n))
	defer prof.Exit(prof.Testany, enterAll(prof.Testany, hs), 0)
	i, ok, err := anyIndex("Testany", hs, st, false)
	setInt(idx, i)
	setBool(flag, ok)
	return fail("Testany", 0, err)
}

func some(op string, hs []uintptr, outcount, idx, sts unsafe.Pointer, wait bool) int32 {
	ix := ints(idx, len(hs))
	for {
		live, k := false, 0
		var first error
		var failed []int32
		for i := range hs {
			if hs[i] == hRequestNull {
				continue
			}
			if r := reqOf(hs[i]); r != nil && r.inactive() {
				continue
			}
			live = true
			ok, code, err := complete(op, unsafe.Pointer(&hs[i]), statusAt(sts, k), false, true)
			if ok || err != nil {
				if err != nil {
					failed = append(failed, int32(k), code)
					if first == nil {
						first = err
					}
				}
				ix[k] = int32(i)
				k++
			}
		}
		if !live {
			setInt(outcount, -32766)
			return 0
		}
		if k > 0 || !wait {
			setInt(outcount, k)
			if first != nil {
				statusErrs(sts, k, failed)
				return fail(op, 0, &abiError{class: errInStatus, msg: "MPI_" + op + ": a request failed: " + first.Error()})
			}
			return 0
		}
		runtime.Gosched()
	}
}

//export PMPI_Waitsome
func PMPI_Waitsome(n int32, p unsafe.Pointer, outcount, idx, sts unsafe.Pointer) int32 {
	hs := handles(p, int(n))
	defer prof.Exit(prof.Waitsome, enterAll(prof.Waitsome, hs), 0)
	return some("Waitsome", hs, outcount, idx, sts, true)
}

//export PMPI_Testsome
func PMPI_Testsome(n int32, p unsafe.Pointer, outcount, idx, sts unsafe.Pointer) int32 {
	hs := handles(p, int(n))
	defer prof.Exit(prof.Testsome, enterAll(prof.Testsome, hs), 0)
	return some("Testsome", hs, outcount, idx, sts, false)
}

//export PMPI_Request_free
func PMPI_Request_free(p unsafe.Pointer) int32 {
	const op = "Request_free"
	if p == nil {
		return fail(op, 0, errorf(errArg, op, "request is NULL"))
	}
	h := *(*uintptr)(p)
	r := reqOf(h)
	if r == nil {
		return fail(op, 0, errorf(errRequest, op, "request %#x is not a request", h))
	}
	defer prof.Exit(prof.RequestFree, enterReq(prof.RequestFree, r), 0)
	var err error
	if r.x != nil {
		err = r.ref().Free()
	} else {
		err = core.FreeRequest(&r.q)
	}
	ch := r.ch
	freeRequest(h, r)
	*(*uintptr)(p) = hRequestNull
	return fail(op, ch, core.MapErr(op, err))
}

//export PMPI_Cancel
func PMPI_Cancel(p unsafe.Pointer) int32 { return cancelReq(p, true) }

// cancelReq is MPI_Cancel, recorded if rec (not when a call made of others, the
// send-receives, cancels its receive).
func cancelReq(p unsafe.Pointer, rec bool) int32 {
	const op = "Cancel"
	if p == nil {
		return fail(op, 0, errorf(errArg, op, "request is NULL"))
	}
	h := *(*uintptr)(p)
	r := reqOf(h)
	if r == nil {
		return fail(op, 0, errorf(errRequest, op, "request %#x is not a request", h))
	}
	if rec {
		defer prof.Exit(prof.Cancel, enterReq(prof.Cancel, r), 0)
	}
	if r.x != nil {
		if !r.x.Cancelable() {
			return fail(op, r.ch, errorf(errRequest, op, "a collective or communicator operation cannot be cancelled"))
		}
		return fail(op, r.ch, core.MapErr(op, r.x.Cancel()))
	}
	return fail(op, r.ch, core.MapErr(op, core.Cancel(&r.q)))
}

//export PMPI_Test_cancelled
func PMPI_Test_cancelled(st unsafe.Pointer, flag unsafe.Pointer) int32 {
	if st == nil {
		return fail("Test_cancelled", 0, errorf(errArg, "Test_cancelled", "status is NULL"))
	}
	setBool(flag, (*cstatus)(st).cancelled != 0)
	return 0
}

//export PMPI_Status_set_cancelled
func PMPI_Status_set_cancelled(st unsafe.Pointer, flag int32) int32 {
	if st == nil {
		return fail("Status_set_cancelled", 0, errorf(errArg, "Status_set_cancelled", "status is NULL"))
	}
	(*cstatus)(st).cancelled = 0
	if flag != 0 {
		(*cstatus)(st).cancelled = 1
	}
	return 0
}

//export PMPI_Status_set_elements
func PMPI_Status_set_elements(st unsafe.Pointer, dh uintptr, count int32) int32 {
	return PMPI_Status_set_elements_c(st, dh, int64(count))
}

//export PMPI_Status_set_elements_c
func PMPI_Status_set_elements_c(st unsafe.Pointer, dh uintptr, count int64) int32 {
	const op = "Status_set_elements"
	t, err := typeOf(op, dh)
	if err != nil {
		return fail(op, 0, err)
	}
	if st == nil || count < 0 {
		return fail(op, 0, errorf(errArg, op, "status is NULL or count negative"))
	}
	// Whole items take their size; the elements of a partial item are counted as
	// basic elements of the size of the type's first (predefined types: the count).
	n := count * t.Size()
	if e := t.Elements(); e > 1 {
		n = (count / e * t.Size()) + (count%e)*(t.Size()/e)
	}
	s := (*cstatus)(st)
	s.countLo, s.countHi = int32(uint32(n)), int32(n>>32)
	return 0
}

//export PMPI_Status_set_elements_x
func PMPI_Status_set_elements_x(st unsafe.Pointer, dh uintptr, count int64) int32 {
	return PMPI_Status_set_elements_c(st, dh, count)
}

// --- probe ---

func probeStatus(st unsafe.Pointer, c *comm, ps *core.Status) { putStatus(st, c, ps) }

//export PMPI_Probe
func PMPI_Probe(src, tag int32, ch uintptr, st unsafe.Pointer) int32 {
	c, r := needComm("Probe", ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.Probe, c.enterTimed(prof.Probe, rankIn(src), tagIn(tag), 0), 0)
	ps, err := c.c.Probe("Probe", rankIn(src), tagIn(tag))
	if err != nil {
		return fail("Probe", ch, err)
	}
	probeStatus(st, c, &ps)
	return 0
}

//export PMPI_Iprobe
func PMPI_Iprobe(src, tag int32, ch uintptr, flag, st unsafe.Pointer) int32 {
	c, r := needComm("Iprobe", ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.Iprobe, c.enterTimed(prof.Iprobe, rankIn(src), tagIn(tag), 0), 0)
	ps, ok, err := c.c.Iprobe("Iprobe", rankIn(src), tagIn(tag))
	if err != nil {
		return fail("Iprobe", ch, err)
	}
	setBool(flag, ok)
	if ok {
		probeStatus(st, c, &ps)
	}
	return 0
}

// messages are the matched messages of Mprobe, until Mrecv takes them.
type message struct {
	m  core.Message
	c  *comm
	ch uintptr
}

var messages table[message]

func addMessage(m core.Message, c *comm, ch uintptr, ps *core.Status, out unsafe.Pointer) {
	if ps.Source == core.ProcNull {
		setHandle(out, hMessageNoProc)
		return
	}
	setHandle(out, messages.add(&message{m: m, c: c, ch: ch}))
}

//export PMPI_Mprobe
func PMPI_Mprobe(src, tag int32, ch uintptr, out, st unsafe.Pointer) int32 {
	c, r := needComm("Mprobe", ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.Mprobe, c.enterTimed(prof.Mprobe, rankIn(src), tagIn(tag), 0), 0)
	m, ps, err := c.c.Mprobe("Mprobe", rankIn(src), tagIn(tag))
	if err != nil {
		return fail("Mprobe", ch, err)
	}
	addMessage(m, c, ch, &ps, out)
	probeStatus(st, c, &ps)
	return 0
}

//export PMPI_Improbe
func PMPI_Improbe(src, tag int32, ch uintptr, flag, out, st unsafe.Pointer) int32 {
	c, r := needComm("Improbe", ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.Improbe, c.enterTimed(prof.Improbe, rankIn(src), tagIn(tag), 0), 0)
	m, ps, ok, err := c.c.Improbe("Improbe", rankIn(src), tagIn(tag))
	if err != nil {
		return fail("Improbe", ch, err)
	}
	setBool(flag, ok)
	if ok {
		addMessage(m, c, ch, &ps, out)
		probeStatus(st, c, &ps)
	}
	return 0
}

//export PMPI_Mrecv
func PMPI_Mrecv(buf unsafe.Pointer, count int32, dh uintptr, mp unsafe.Pointer, st unsafe.Pointer) int32 {
	return mrecv(buf, int64(count), dh, mp, st)
}

//export PMPI_Mrecv_c
func PMPI_Mrecv_c(buf unsafe.Pointer, count int64, dh uintptr, mp unsafe.Pointer, st unsafe.Pointer) int32 {
	return mrecv(buf, count, dh, mp, st)
}

func mrecv(buf unsafe.Pointer, count int64, dh uintptr, mp unsafe.Pointer, st unsafe.Pointer) int32 {
	const op = "Mrecv"
	if mp == nil {
		return fail(op, 0, errorf(errArg, op, "message is NULL"))
	}
	h := *(*uintptr)(mp)
	if h == hMessageNoProc {
		putStatus(st, nil, &core.Status{Source: core.ProcNull, Tag: core.AnyTag})
		*(*uintptr)(mp) = hMessageNull
		return 0
	}
	m := messages.get(h)
	if m == nil {
		return fail(op, 0, errorf(errRequest, op, "message %#x is not a message from MPI_Mprobe", h))
	}
	b, err := cbuf(op, buf, count, dh)
	if err != nil {
		return fail(op, m.ch, err)
	}
	n := int(b.Len())
	t := m.c.enterTimed(prof.Mrecv, prof.NoPeer, -2, n)
	ps, err := core.Mrecv(b, &m.m)
	prof.Exit(prof.Mrecv, t, n)
	messages.remove(h)
	*(*uintptr)(mp) = hMessageNull
	if err != nil {
		err = core.MapErr(op, err)
		putStatus(st, m.c, &ps)
		return fail(op, m.ch, err)
	}
	putStatus(st, m.c, &ps)
	return 0
}

// --- combined ---

//export PMPI_Sendrecv
func PMPI_Sendrecv(sbuf unsafe.Pointer, scount int32, sdt uintptr, dest, stag int32,
	rbuf unsafe.Pointer, rcount int32, rdt uintptr, src, rtag int32, ch uintptr, st unsafe.Pointer) int32 {
	return sendrecv(sbuf, int64(scount), sdt, dest, stag, rbuf, int64(rcount), rdt, src, rtag, ch, st)
}

//export PMPI_Sendrecv_c
func PMPI_Sendrecv_c(sbuf unsafe.Pointer, scount int64, sdt uintptr, dest, stag int32,
	rbuf unsafe.Pointer, rcount int64, rdt uintptr, src, rtag int32, ch uintptr, st unsafe.Pointer) int32 {
	return sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, src, rtag, ch, st)
}

func sendrecv(sbuf unsafe.Pointer, scount int64, sdt uintptr, dest, stag int32,
	rbuf unsafe.Pointer, rcount int64, rdt uintptr, src, rtag int32, ch uintptr, st unsafe.Pointer) int32 {
	const op = "Sendrecv"
	n := typeBytes(scount, sdt)
	defer prof.Exit(prof.Sendrecv, commOf(ch).enterTimed(prof.Sendrecv, rankIn(dest), tagIn(stag), n), n)
	var rq uintptr
	if r := irecv(prof.None, op, rbuf, rcount, rdt, src, rtag, ch, false, unsafe.Pointer(&rq)); r != 0 {
		return r
	}
	if r := send(prof.None, op, sbuf, scount, sdt, dest, stag, ch, core.ModeStandard); r != 0 {
		cancelReq(unsafe.Pointer(&rq), false)
		complete(op, unsafe.Pointer(&rq), nil, true, true)
		return r
	}
	_, _, err := complete(op, unsafe.Pointer(&rq), st, true, true)
	return fail(op, ch, err)
}

//export PMPI_Sendrecv_replace
func PMPI_Sendrecv_replace(buf unsafe.Pointer, count int32, dh uintptr, dest, stag, src, rtag int32, ch uintptr, st unsafe.Pointer) int32 {
	return sendrecvReplace(buf, int64(count), dh, dest, stag, src, rtag, ch, st)
}

//export PMPI_Sendrecv_replace_c
func PMPI_Sendrecv_replace_c(buf unsafe.Pointer, count int64, dh uintptr, dest, stag, src, rtag int32, ch uintptr, st unsafe.Pointer) int32 {
	return sendrecvReplace(buf, count, dh, dest, stag, src, rtag, ch, st)
}

// packed copies count items of dh at buf into a new contiguous buffer.
func packed(op string, buf unsafe.Pointer, count int64, dh uintptr, ch uintptr) ([]byte, int32) {
	t, err := typeOf(op, dh)
	if err != nil {
		return nil, fail(op, ch, err)
	}
	n, err := t.PackSize(count)
	if err != nil {
		return nil, fail(op, ch, core.TypeErr(op, err))
	}
	tmp := make([]byte, n)
	var pos int64
	if n > 0 {
		if r := PMPI_Pack_c(buf, count, dh, unsafe.Pointer(&tmp[0]), n, unsafe.Pointer(&pos), ch); r != 0 {
			return nil, r
		}
	}
	return tmp, 0
}

func sendrecvReplace(buf unsafe.Pointer, count int64, dh uintptr, dest, stag, src, rtag int32, ch uintptr, st unsafe.Pointer) int32 {
	const op = "Sendrecv_replace"
	n := typeBytes(count, dh)
	defer prof.Exit(prof.SendrecvReplace, commOf(ch).enterTimed(prof.SendrecvReplace, rankIn(dest), tagIn(stag), n), n)
	if commOf(ch) == nil {
		_, r := needComm(op, ch)
		return r
	}
	tmp, r := packed(op, buf, count, dh, ch)
	if r != 0 {
		return r
	}
	var err error
	var rq uintptr
	if r := irecv(prof.None, op, buf, count, dh, src, rtag, ch, false, unsafe.Pointer(&rq)); r != 0 {
		return r
	}
	c := commOf(ch)
	if err := c.c.Send(op, core.Bytes(tmp), rankIn(dest), tagIn(stag), core.ModeStandard); err != nil {
		cancelReq(unsafe.Pointer(&rq), false)
		complete(op, unsafe.Pointer(&rq), nil, true, true)
		return fail(op, ch, err)
	}
	_, _, err = complete(op, unsafe.Pointer(&rq), st, true, true)
	return fail(op, ch, err)
}

// --- buffered sends' buffer ---

//export PMPI_Buffer_attach
func PMPI_Buffer_attach(p unsafe.Pointer, size int32) int32 {
	return PMPI_Buffer_attach_c(p, int64(size))
}

//export PMPI_Buffer_attach_c
func PMPI_Buffer_attach_c(p unsafe.Pointer, size int64) int32 {
	return attachBuffer("Buffer_attach", nil, 0, p, size)
}

// attachBuffer attaches C memory as the buffer of c (the process's for nil).
func attachBuffer(op string, c *core.Comm, ch uintptr, p unsafe.Pointer, size int64) int32 {
	if uintptr(p) == 2 { // MPI_BUFFER_AUTOMATIC
		return fail(op, ch, c.AttachBuffer(op, nil, true))
	}
	if p == nil || size < 0 {
		return fail(op, ch, errorf(errBuffer, op, "buffer is NULL or size %d negative", size))
	}
	return fail(op, ch, c.AttachBuffer(op, unsafe.Slice((*byte)(p), size), false))
}

//export PMPI_Buffer_detach
func PMPI_Buffer_detach(addr unsafe.Pointer, size unsafe.Pointer) int32 {
	var n int64
	r := PMPI_Buffer_detach_c(addr, unsafe.Pointer(&n))
	if r == 0 {
		setInt(size, int(n))
	}
	return r
}

//export PMPI_Buffer_detach_c
func PMPI_Buffer_detach_c(addr unsafe.Pointer, size unsafe.Pointer) int32 {
	return detachBuffer("Buffer_detach", nil, 0, addr, size)
}

func detachBuffer(op string, c *core.Comm, ch uintptr, addr unsafe.Pointer, size unsafe.Pointer) int32 {
	if addr == nil || size == nil {
		return fail(op, ch, errorf(errArg, op, "buffer_addr or size is NULL"))
	}
	b, auto, err := c.DetachBuffer(op)
	if err != nil {
		return fail(op, ch, err)
	}
	switch {
	case auto:
		*(*uintptr)(addr) = 2
		*(*int64)(size) = 0
	case len(b) == 0:
		*(*uintptr)(addr) = 0
		*(*int64)(size) = 0
	default:
		*(*uintptr)(addr) = uintptr(unsafe.Pointer(&b[0]))
		*(*int64)(size) = int64(len(b))
	}
	return 0
}

//export PMPI_Buffer_flush
func PMPI_Buffer_flush() int32 {
	defer prof.Exit(prof.BufferFlush, prof.EnterTimed(prof.BufferFlush, nil, prof.NoPeer, -1, 0), 0)
	return fail("Buffer_flush", 0, (*core.Comm)(nil).FlushBuffer("Buffer_flush"))
}

//export PMPI_Buffer_iflush
func PMPI_Buffer_iflush(req unsafe.Pointer) int32 {
	defer prof.Exit(prof.BufferIflush, prof.EnterTimed(prof.BufferIflush, nil, prof.NoPeer, -1, 0), 0)
	return iflushBuffer("Buffer_iflush", nil, 0, req)
}

func iflushBuffer(op string, c *comm, ch uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return fail(op, ch, errorf(errArg, op, "request is NULL"))
	}
	var cc *core.Comm
	if c != nil {
		cc = c.c
	}
	p, err := cc.IflushBuffer(op)
	if err != nil {
		return fail(op, ch, err)
	}
	addPending(p, c, ch, nil, req)
	return 0
}

//export PMPI_Comm_attach_buffer
func PMPI_Comm_attach_buffer(ch uintptr, p unsafe.Pointer, size int32) int32 {
	return PMPI_Comm_attach_buffer_c(ch, p, int64(size))
}

//export PMPI_Comm_attach_buffer_c
func PMPI_Comm_attach_buffer_c(ch uintptr, p unsafe.Pointer, size int64) int32 {
	c, r := needComm("Comm_attach_buffer", ch)
	if c == nil {
		return r
	}
	return attachBuffer("Comm_attach_buffer", c.c, ch, p, size)
}

//export PMPI_Comm_detach_buffer
func PMPI_Comm_detach_buffer(ch uintptr, addr, size unsafe.Pointer) int32 {
	var n int64
	r := PMPI_Comm_detach_buffer_c(ch, addr, unsafe.Pointer(&n))
	if r == 0 {
		setInt(size, int(n))
	}
	return r
}

//export PMPI_Comm_detach_buffer_c
func PMPI_Comm_detach_buffer_c(ch uintptr, addr, size unsafe.Pointer) int32 {
	c, r := needComm("Comm_detach_buffer", ch)
	if c == nil {
		return r
	}
	return detachBuffer("Comm_detach_buffer", c.c, ch, addr, size)
}

//export PMPI_Comm_flush_buffer
func PMPI_Comm_flush_buffer(ch uintptr) int32 {
	c, r := needComm("Comm_flush_buffer", ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.CommFlushBuffer, c.enterTimed(prof.CommFlushBuffer, prof.NoPeer, -1, 0), 0)
	return fail("Comm_flush_buffer", ch, c.c.FlushBuffer("Comm_flush_buffer"))
}

//export PMPI_Comm_iflush_buffer
func PMPI_Comm_iflush_buffer(ch uintptr, req unsafe.Pointer) int32 {
	c, r := needComm("Comm_iflush_buffer", ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.CommIflushBuffer, c.enterTimed(prof.CommIflushBuffer, prof.NoPeer, -1, 0), 0)
	return iflushBuffer("Comm_iflush_buffer", c, ch, req)
}

// The ABI's wildcards and sentinels differ from the device's (MPI_ANY_TAG is -2 and
// MPI_PROC_NULL -3 in the ABI, -1 and -2 in the device): arguments are translated on
// the way in, statuses on the way out. A value that is a sentinel of the other kind
// (-1 as a tag, -2 as a rank) becomes one the device rejects, naming the argument.
const badSentinel = -1000

func rankIn(r int32) int {
	switch r {
	case -3:
		return core.ProcNull
	case -4:
		return core.Root
	case -2:
		return badSentinel
	}
	return int(r)
}

func tagIn(t int32) int {
	switch t {
	case -2:
		return core.AnyTag
	case -1:
		return badSentinel
	}
	return int(t)
}

func rankOut(r int) int32 {
	switch r {
	case core.ProcNull:
		return -3
	case core.Root:
		return -4
	}
	return int32(r)
}

func tagOut(t int) int32 {
	if t == core.AnyTag {
		return -2
	}
	return int32(t)
}
