package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"cmp"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
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
// other threads add requests, and a lookup (every completion call's) takes no lock:
// the chunks' pointers are set once, and a slot's handle is stored last (as the
// tables of handle.go do). A freed slot is reused first (its request is likely in
// the cache), under its handle's next generation (handle.go): a completion call sets
// the program's request to MPI_REQUEST_NULL, so stale copies are rarer than of other
// kinds, and the ping-pong of nonblocking calls keeps touching one slot. Below
// MPI_THREAD_MULTIPLE the program makes one call at a time, so making and freeing a
// request take no lock either (every nonblocking call does both): the mutex is taken
// once a session or MPI_Init_thread provides MPI_THREAD_MULTIPLE (reqsMT), which
// happens inside a call, when no other thread can be in one.
const reqChunk = 1024

var reqs struct {
	mu     sync.Mutex
	mt     atomic.Bool // mu guards free and n
	chunks [maxSlots / reqChunk]atomic.Pointer[[reqChunk]request]
	free   []uintptr // the handles of freed slots
	n      int
}

// reqsMT makes the request table take its mutex from now on.
func reqsMT() {
	reqs.mt.Store(true)
	creqsMT()
}

// lockReqs and unlockReqs test mt inline and take the mutex out of line, as the
// engine's lock does (internal/p2p/lock.go): inlined whole they would be calls.
func lockReqs() {
	if reqs.mt.Load() {
		lockReqsMT()
	}
}

func unlockReqs() {
	if reqs.mt.Load() {
		unlockReqsMT()
	}
}

//go:noinline
func lockReqsMT() { reqs.mu.Lock() }

//go:noinline
func unlockReqsMT() { reqs.mu.Unlock() }

func newRequest() (uintptr, *request) {
	lockReqs()
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
		if i%reqChunk == 0 {
			reqs.chunks[i/reqChunk].Store(new([reqChunk]request))
		}
		h = newHandle(kRequest, i)
	}
	i := slotOf(h)
	r := &reqs.chunks[i/reqChunk].Load()[i%reqChunk]
	unlockReqs()
	*r = request{}
	atomic.StoreUintptr(&r.h, h)
	return h, r
}

func reqOf(h uintptr) *request {
	i := slotOf(h)
	c := reqs.chunks[i/reqChunk].Load()
	if c == nil {
		return nil
	}
	if r := &c[i%reqChunk]; atomic.LoadUintptr(&r.h) == h {
		return r
	}
	return nil
}

// reqMade says whether request handle h's slot has held a request.
func reqMade(h uintptr) bool {
	lockReqs()
	defer unlockReqs()
	return kindOf(h) == kRequest && slotOf(h) < reqs.n
}

func freeRequest(h uintptr, r *request) {
	*r = request{}
	lockReqs()
	reqs.free = append(reqs.free, h)
	unlockReqs()
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

// started hands a nonblocking call's pending operation to its request (or reports
// its error).
func started(op string, c *comm, ch uintptr, req unsafe.Pointer, p *core.Pending, err error) int32 {
	if err != nil {
		return fail(op, ch, err)
	}
	addPending(p, c, ch, nil, req)
	return 0
}

// addStartable makes the handle of an inactive persistent operation x: a persistent
// collective's (mpir made it) or a partitioned operation's.
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
	hs, err := requests("Startall", p, n)
	if err != nil {
		return fail("Startall", 0, err)
	}
	for _, h := range hs {
		if r := startReq(h, reqOf(h)); r != 0 {
			return r
		}
	}
	return 0
}

// requests is the array of count request handles at p of a call op on many: a
// negative count or a NULL array that should hold some is refused.
func requests(op string, p unsafe.Pointer, count int32) ([]uintptr, error) {
	if count < 0 {
		return nil, errorf(errCount, op, "count %d is negative", count)
	}
	if err := nullArray(op, "array_of_requests", p, int(count)); err != nil {
		return nil, err
	}
	return handles(p, int(count)), nil
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
		err = core.RecvErr(op, mpir.SourceRank(r.c.dev(), ps.Source), core.MapErr(op, err))
		code = codeOf(err)
	}
	putStatus(st, r.c, &ps)
	if release && !r.persistent {
		freeRequest(h, r)
		*(*uintptr)(p) = hRequestNull
	}
	return true, code, err
}

//export goPMPI_Wait
func goPMPI_Wait(p unsafe.Pointer, st unsafe.Pointer) int32 {
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

//export goPMPI_Test
func goPMPI_Test(p unsafe.Pointer, flag, st unsafe.Pointer) int32 {
	if err := nullOut("Test", "request, flag", p, flag); err != nil {
		return fail("Test", 0, err)
	}
	r := reqOf(*(*uintptr)(p))
	ch := r.handle() // before complete releases r
	t := enterReq(prof.Test, r)
	ok, _, err := complete("Test", p, st, false, true)
	prof.Exit(prof.Test, t, 0)
	setBool(flag, ok)
	return fail("Test", ch, err)
}

//export goPMPI_Request_get_status
func goPMPI_Request_get_status(h uintptr, flag, st unsafe.Pointer) int32 {
	if err := nullOut("Request_get_status", "flag", flag); err != nil {
		return fail("Request_get_status", reqComm(h), err)
	}
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

// Calls on sets of requests: the set goes to internal/mpir as the device knows it
// (the engine requests, copied out of the handles' entries, and the operations of
// many messages), which waits, completes and reports; here the engine requests are
// written back, the statuses converted, the handles of completed requests made
// MPI_REQUEST_NULL (a persistent one stays, inactive), and the error raised on the
// communicator of the request that failed.

// smallSet is the most requests a call keeps on its stack (OSU's window is 64).
const smallSet = 64

// reqSet is a call's requests: their handles, entries (nil for MPI_REQUEST_NULL)
// and the set mpir takes.
type reqSet struct {
	hs  []uintptr
	rs  []*request
	set mpir.Set
}

// gatherSet makes the set of the requests hs for op, in qs and rs (as long as hs); an
// unknown handle is op's error (MPI_ERR_REQUEST).
func gatherSet(op string, hs []uintptr, qs []core.Request, rs []*request) (reqSet, error) {
	qs, rs = qs[:len(hs)], rs[:len(hs)]
	t := reqSet{hs: hs, rs: rs, set: mpir.Set{Qs: qs}}
	for i, h := range hs {
		if h == hRequestNull {
			qs[i], rs[i] = core.Request{}, nil
			continue
		}
		r := reqOf(h)
		if r == nil {
			return t, errorf(errRequest, op, "array_of_requests[%d] = %#x is not a request", i, h)
		}
		rs[i], qs[i] = r, r.q
		if r.x != nil {
			if t.set.Ops == nil {
				t.set.Ops = make([]mpir.Op, len(hs))
			}
			t.set.Ops[i] = mpir.Op{X: r.x, Gen: r.xg}
		}
	}
	return t, nil
}

// newSet is gatherSet into buffers of its own: the caller's stack for a small set.
func newSet(op string, hs []uintptr, qb *[smallSet]core.Request, rb *[smallSet]*request) (reqSet, error) {
	if len(hs) <= smallSet {
		return gatherSet(op, hs, qb[:len(hs)], rb[:len(hs)])
	}
	return gatherSet(op, hs, make([]core.Request, len(hs)), make([]*request, len(hs)))
}

// statuses is room for the device's statuses of n requests (nil if C ignores them).
func statuses(sts unsafe.Pointer, n int, sb *[smallSet]core.Status) []core.Status {
	switch {
	case sts == nil:
		return nil
	case n <= smallSet:
		return sb[:n]
	}
	return make([]core.Status, n)
}

// put writes request i's status ps into C's st.
func (t *reqSet) put(st unsafe.Pointer, i int, ps *core.Status) {
	if r := t.rs[i]; r != nil {
		putStatus(st, r.c, ps)
	} else {
		emptyStatus(st)
	}
}

// done settles request i, which a call completed (mpir changes no other's engine
// request): its handle becomes MPI_REQUEST_NULL and its entry goes, or, persistent,
// it keeps its entry, inactive, with the engine request written back.
func (t *reqSet) done(i int) {
	r := t.rs[i]
	switch {
	case r == nil:
	case r.persistent:
		r.q = t.set.Qs[i]
	default:
		freeRequest(t.hs[i], r)
		t.hs[i] = hRequestNull
		t.rs[i] = nil
	}
}

// doneAll is done of every request (Waitall's, Testall's), in one loop.
func (t *reqSet) doneAll() {
	hs, rs, qs := t.hs, t.rs[:len(t.hs)], t.set.Qs[:len(t.hs)]
	for i, r := range rs {
		switch {
		case r == nil:
		case r.persistent:
			r.q = qs[i]
		default:
			freeRequest(hs[i], r)
			hs[i] = hRequestNull
		}
	}
}

// comm is the handle of request i's communicator (0 for none).
func (t *reqSet) comm(i int) uintptr {
	if i >= 0 && i < len(t.rs) && t.rs[i] != nil {
		return t.rs[i].ch
	}
	return 0
}

// dev is request i's communicator in the device (nil for none), for
// mpir.SendersNamed.
func (t *reqSet) dev(i int) *core.Comm {
	if i >= 0 && i < len(t.rs) && t.rs[i] != nil {
		return t.rs[i].c.dev()
	}
	return nil
}

// inStatus raises err of op, MPI_ERR_IN_STATUS, on the communicator of the request
// that failed, after giving each failed status (of sts, n of them; at[k] is status
// k's request) its error code and the others MPI_SUCCESS.
func (t *reqSet) inStatus(op string, err error, sts unsafe.Pointer, ps []core.Status, at func(k int) int) int32 {
	failed := -1
	for k := range ps {
		code := int32(0)
		if ps[k].Err != nil {
			code = cerror(op, core.MapErr(op, ps[k].Err)).code
			if failed < 0 {
				failed = at(k)
			}
		}
		if sts != nil {
			(*cstatus)(statusAt(sts, k)).err = code
		}
	}
	if failed < 0 {
		failed = mpir.Failed(err)
	}
	return fail(op, t.comm(failed), err)
}

func same(k int) int { return k }

// how is how a call on a set completes its requests: waiting (MPI_Waitall and
// kin), testing (MPI_Testall and kin), or looking and leaving them
// (MPI_Request_get_status_all and kin).
type how int

const (
	setWait how = iota
	setTest
	setPeek
)

//export goPMPI_Waitall
func goPMPI_Waitall(n int32, p unsafe.Pointer, sts unsafe.Pointer) int32 {
	hs, bad := requests("Waitall", p, n)
	defer prof.Exit(prof.Waitall, enterAll(prof.Waitall, hs), 0)
	return all("Waitall", hs, bad, nil, sts, setWait)
}

//export goPMPI_Testall
func goPMPI_Testall(n int32, p unsafe.Pointer, flag, sts unsafe.Pointer) int32 {
	hs, bad := requests("Testall", p, n)
	defer prof.Exit(prof.Testall, enterAll(prof.Testall, hs), 0)
	return all("Testall", hs, bad, flag, sts, setTest)
}

//export goPMPI_Request_get_status_all
func goPMPI_Request_get_status_all(n int32, p unsafe.Pointer, flag, sts unsafe.Pointer) int32 {
	hs, bad := requests("Request_get_status_all", p, n)
	defer prof.Exit(prof.RequestGetStatusAll, enterAll(prof.RequestGetStatusAll, hs), 0)
	return all("Request_get_status_all", hs, bad, flag, sts, setPeek)
}

// all is MPI_Waitall, MPI_Testall and MPI_Request_get_status_all, unrecorded.
func all(op string, hs []uintptr, bad error, flag, sts unsafe.Pointer, h how) int32 {
	if bad == nil && h != setWait {
		bad = nullOut(op, "flag", flag)
	}
	if bad != nil {
		return fail(op, 0, bad)
	}
	var qb [smallSet]core.Request
	var rb [smallSet]*request
	var sb [smallSet]core.Status
	t, err := newSet(op, hs, &qb, &rb)
	if err != nil {
		return fail(op, 0, err)
	}
	ps := statuses(sts, len(hs), &sb)
	done := true
	switch h {
	case setWait:
		err = mpir.Waitall(nil, op, t.set, ps)
	case setTest:
		done, err = mpir.Testall(op, t.set, ps)
	default:
		done, err = mpir.GetStatusAll(op, t.set, ps)
	}
	if flag != nil {
		setBool(flag, done)
	}
	if !done {
		return 0
	}
	if err != nil {
		err = mpir.SendersNamed(op, err, ps, same, t.dev)
	}
	for i := range ps {
		t.put(statusAt(sts, i), i, &ps[i])
	}
	var r int32
	if err != nil {
		r = t.inStatus(op, err, sts, ps, same)
	}
	if h != setPeek {
		t.doneAll()
	}
	return r
}

//export goPMPI_Waitany
func goPMPI_Waitany(n int32, p unsafe.Pointer, idx, st unsafe.Pointer) int32 {
	hs, bad := requests("Waitany", p, n)
	defer prof.Exit(prof.Waitany, enterAll(prof.Waitany, hs), 0)
	return anyOf("Waitany", hs, bad, idx, nil, st, setWait)
}

//export goPMPI_Testany
func goPMPI_Testany(n int32, p unsafe.Pointer, idx, flag, st unsafe.Pointer) int32 {
	hs, bad := requests("Testany", p, n)
	defer prof.Exit(prof.Testany, enterAll(prof.Testany, hs), 0)
	return anyOf("Testany", hs, bad, idx, flag, st, setTest)
}

//export goPMPI_Request_get_status_any
func goPMPI_Request_get_status_any(n int32, p unsafe.Pointer, idx, flag, st unsafe.Pointer) int32 {
	hs, bad := requests("Request_get_status_any", p, n)
	defer prof.Exit(prof.RequestGetStatusAny, enterAll(prof.RequestGetStatusAny, hs), 0)
	return anyOf("Request_get_status_any", hs, bad, idx, flag, st, setPeek)
}

// anyOf is MPI_Waitany, MPI_Testany and MPI_Request_get_status_any, unrecorded.
func anyOf(op string, hs []uintptr, bad error, idx, flag, st unsafe.Pointer, h how) int32 {
	if bad == nil {
		bad = nullOut(op, "index", idx)
	}
	if bad == nil && h != setWait {
		bad = nullOut(op, "flag", flag)
	}
	if bad != nil {
		return fail(op, 0, bad)
	}
	var qb [smallSet]core.Request
	var rb [smallSet]*request
	t, err := newSet(op, hs, &qb, &rb)
	if err != nil {
		return fail(op, 0, err)
	}
	var ps core.Status
	i, ok := -1, true
	switch h {
	case setWait:
		i, err = mpir.Waitany(nil, op, t.set, &ps)
	case setTest:
		i, ok, err = mpir.Testany(op, t.set, &ps)
	default:
		i, ok, err = mpir.GetStatusAny(op, t.set, &ps)
	}
	setBool(flag, ok)
	switch {
	case !ok:
		setInt(idx, undefined)
		return 0
	case i < 0:
		setInt(idx, undefined)
		emptyStatus(st)
		return 0
	}
	setInt(idx, i)
	if err != nil {
		err, ps.Err = core.TruncFrom(op, t.dev(i), err), core.TruncFrom(op, t.dev(i), ps.Err)
	}
	t.put(st, i, &ps)
	ch := t.comm(i)
	if h != setPeek {
		t.done(i)
	}
	return fail(op, ch, err)
}

//export goPMPI_Waitsome
func goPMPI_Waitsome(n int32, p unsafe.Pointer, outcount, idx, sts unsafe.Pointer) int32 {
	hs, bad := requests("Waitsome", p, n)
	defer prof.Exit(prof.Waitsome, enterAll(prof.Waitsome, hs), 0)
	return some("Waitsome", hs, bad, outcount, idx, sts, setWait)
}

//export goPMPI_Testsome
func goPMPI_Testsome(n int32, p unsafe.Pointer, outcount, idx, sts unsafe.Pointer) int32 {
	hs, bad := requests("Testsome", p, n)
	defer prof.Exit(prof.Testsome, enterAll(prof.Testsome, hs), 0)
	return some("Testsome", hs, bad, outcount, idx, sts, setTest)
}

//export goPMPI_Request_get_status_some
func goPMPI_Request_get_status_some(n int32, p unsafe.Pointer, outcount, idx, sts unsafe.Pointer) int32 {
	hs, bad := requests("Request_get_status_some", p, n)
	defer prof.Exit(prof.RequestGetStatusSome, enterAll(prof.RequestGetStatusSome, hs), 0)
	return some("Request_get_status_some", hs, bad, outcount, idx, sts, setPeek)
}

// some is MPI_Waitsome, MPI_Testsome and MPI_Request_get_status_some, unrecorded.
func some(op string, hs []uintptr, bad error, outcount, idx, sts unsafe.Pointer, h how) int32 {
	bad = cmp.Or(bad, nullOut(op, "outcount", outcount), nullArray(op, "array_of_indices", idx, len(hs)))
	if bad != nil {
		return fail(op, 0, bad)
	}
	var qb [smallSet]core.Request
	var rb [smallSet]*request
	var sb [smallSet]core.Status
	var ib [smallSet]int
	t, err := newSet(op, hs, &qb, &rb)
	if err != nil {
		return fail(op, 0, err)
	}
	ps := statuses(sts, len(hs), &sb)
	ix := ib[:0]
	if len(hs) <= smallSet {
		ix = ib[:len(hs)]
	} else {
		ix = make([]int, len(hs))
	}
	var n int
	switch h {
	case setWait:
		n, err = mpir.Waitsome(nil, op, t.set, ix, ps)
	case setTest:
		n, err = mpir.Testsome(op, t.set, ix, ps)
	default:
		n, err = mpir.GetStatusSome(op, t.set, ix, ps)
	}
	if n < 0 {
		setInt(outcount, undefined)
		return 0
	}
	if err != nil && n > 0 {
		err = mpir.SendersNamed(op, err, ps[:min(n, len(ps))], func(k int) int { return ix[k] }, t.dev)
	}
	setInt(outcount, n)
	out := ints(idx, n)
	for k := 0; k < n; k++ {
		out[k] = int32(ix[k])
		if ps != nil {
			t.put(statusAt(sts, k), ix[k], &ps[k])
		}
	}
	var r int32
	if err != nil {
		r = t.inStatus(op, err, sts, ps[:min(n, len(ps))], func(k int) int { return ix[k] })
	}
	if h != setPeek {
		for _, i := range ix[:n] {
			t.done(i)
		}
	}
	return r
}

//export goPMPI_Request_free
func goPMPI_Request_free(p unsafe.Pointer) int32 {
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

//export goPMPI_Cancel
func goPMPI_Cancel(p unsafe.Pointer) int32 { return cancelReq(p, true) }

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
	if err := nullOut("Test_cancelled", "status, flag", st, flag); err != nil {
		return fail("Test_cancelled", 0, err)
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

// The Go halves of the status accessors of handles.c, which come here only with a
// NULL status or output.

//export goPMPI_Status_get_source
func goPMPI_Status_get_source(st, v unsafe.Pointer) int32 {
	if err := nullOut("Status_get_source", "status, source", st, v); err != nil {
		return fail("Status_get_source", 0, err)
	}
	*(*int32)(v) = (*cstatus)(st).source
	return 0
}

//export goPMPI_Status_get_tag
func goPMPI_Status_get_tag(st, v unsafe.Pointer) int32 {
	if err := nullOut("Status_get_tag", "status, tag", st, v); err != nil {
		return fail("Status_get_tag", 0, err)
	}
	*(*int32)(v) = (*cstatus)(st).tag
	return 0
}

//export goPMPI_Status_get_error
func goPMPI_Status_get_error(st, v unsafe.Pointer) int32 {
	if err := nullOut("Status_get_error", "status, error", st, v); err != nil {
		return fail("Status_get_error", 0, err)
	}
	*(*int32)(v) = (*cstatus)(st).err
	return 0
}

//export goPMPI_Status_set_source
func goPMPI_Status_set_source(st unsafe.Pointer, v int32) int32 {
	if err := nullOut("Status_set_source", "status", st); err != nil {
		return fail("Status_set_source", 0, err)
	}
	(*cstatus)(st).source = v
	return 0
}

//export goPMPI_Status_set_tag
func goPMPI_Status_set_tag(st unsafe.Pointer, v int32) int32 {
	if err := nullOut("Status_set_tag", "status", st); err != nil {
		return fail("Status_set_tag", 0, err)
	}
	(*cstatus)(st).tag = v
	return 0
}

//export goPMPI_Status_set_error
func goPMPI_Status_set_error(st unsafe.Pointer, v int32) int32 {
	if err := nullOut("Status_set_error", "status", st); err != nil {
		return fail("Status_set_error", 0, err)
	}
	(*cstatus)(st).err = v
	return 0
}

//export PMPI_Status_set_elements
func PMPI_Status_set_elements(st unsafe.Pointer, dh uintptr, count int32) int32 {
	return PMPI_Status_set_elements_c(st, dh, int64(count))
}

//export PMPI_Status_set_elements_c
func PMPI_Status_set_elements_c(st unsafe.Pointer, dh uintptr, count int64) int32 {
	return statusSetElements("Status_set_elements_c", st, dh, count)
}

// statusSetElements is MPI_Status_set_elements's MPI_Count forms, named op.
func statusSetElements(op string, st unsafe.Pointer, dh uintptr, count int64) int32 {
	if st == nil {
		return fail(op, 0, errorf(errArg, op, "status is NULL"))
	}
	t, r := needType(op, dh)
	if t == nil {
		return r
	}
	n, err := mpir.StatusElements(op, t, count)
	if err != nil {
		return fail(op, 0, err)
	}
	s := (*cstatus)(st)
	s.countLo, s.countHi = int32(uint32(n)), int32(n>>32)
	return 0
}

//export PMPI_Status_set_elements_x
func PMPI_Status_set_elements_x(st unsafe.Pointer, dh uintptr, count int64) int32 {
	return statusSetElements("Status_set_elements_x", st, dh, count)
}
