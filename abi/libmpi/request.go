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

// Requests and their completion: the handle table, MPI_Start, the Wait and Test
// families, MPI_Request_get_status, cancellation and the status setters.

// request is a nonblocking operation: a point-to-point request of the engine, or an
// operation of many messages (a collective, Comm_idup, a generalized request).
type request struct {
	q          core.Request
	x          *core.Pending
	xg         uint32 // x's generation when the handle was made (a collective's record is reused)
	c          *comm
	ch         uintptr
	persistent bool
	h          uintptr // its handle while live, 0 once freed
	keep       any     // what a nonblocking collective's C arrays became, kept until it completes
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
// other threads add requests. A freed slot is reused first (its request is likely in
// the cache), under its handle's next generation (handle.go): a completion call sets
// the program's request to MPI_REQUEST_NULL, so stale copies are rarer than of other
// kinds, and the ping-pong of nonblocking calls keeps touching one slot.
const reqChunk = 1024

var reqs struct {
	sync.Mutex
	chunks [][]request
	free   []uintptr // the handles of freed slots
	n      int
}

func newRequest() (uintptr, *request) {
	reqs.Lock()
	var h uintptr
	if k := len(reqs.free); k > 0 {
		h = nextGen(reqs.free[k-1])
		reqs.free = reqs.free[:k-1]
	} else {
		i := reqs.n
		if i == maxSlots {
			tableFull(kRequest)
		}
		reqs.n++
		if i/reqChunk >= len(reqs.chunks) {
			reqs.chunks = append(reqs.chunks, make([]request, reqChunk))
		}
		h = newHandle(kRequest, i)
	}
	i := slotOf(h)
	r := &reqs.chunks[i/reqChunk][i%reqChunk]
	reqs.Unlock()
	*r = request{h: h}
	return h, r
}

func reqOf(h uintptr) *request {
	i := slotOf(h)
	reqs.Lock()
	var r *request
	if i < reqs.n {
		r = &reqs.chunks[i/reqChunk][i%reqChunk]
		if r.h != h {
			r = nil
		}
	}
	reqs.Unlock()
	return r
}

// reqMade says whether request handle h's slot has held a request.
func reqMade(h uintptr) bool {
	reqs.Lock()
	defer reqs.Unlock()
	return kindOf(h) == kRequest && slotOf(h) < reqs.n
}

func freeRequest(h uintptr, r *request) {
	*r = request{}
	reqs.Lock()
	reqs.free = append(reqs.free, h)
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
	if r == nil {
		return fail("Start", 0, badHandle("Start", "request", h, kRequest))
	}
	if !r.persistent {
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
		return false, 0, badHandle(op, "request", h, kRequest)
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
				return fail(op, 0, &core.Error{Class: errInStatus, Op: op, Msg: "a request failed", Err: err})
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
		return fail(op, fch, &core.Error{Class: errInStatus, Op: op, Msg: "a request failed", Err: first})
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
				return fail(op, 0, &core.Error{Class: errInStatus, Op: op, Msg: "a request failed", Err: first})
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
		return fail(op, 0, badHandle(op, "request", h, kRequest))
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
		return fail(op, 0, badHandle(op, "request", h, kRequest))
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
