package mpi

import (
	"context"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// Elem is the set of Go element types that travel as MPI's predefined datatypes.
type Elem interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint | ~uintptr |
		~float32 | ~float64 | ~complex64 | ~complex128 | ~bool
}

// Wildcards and the null process.
const (
	AnySource = core.AnySource // receive from any rank
	AnyTag    = core.AnyTag    // receive with any tag
	ProcNull  = core.ProcNull  // a send to it or a receive from it completes at once, moving nothing
	Undefined = core.Undefined // MPI_UNDEFINED: GetCount of a count that is not whole
	TagUB     = core.MaxTag    // the largest tag
)

// asBytes views a slice of elements as its bytes, without copying.
func asBytes[T Elem](b []T) []byte {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), len(b)*int(unsafe.Sizeof(b[0])))
}

// Status describes a received message (or a completed request).
type Status struct {
	Source int   // the sender's rank in the communicator
	Tag    int   // the message's tag
	Err    error // the request's own error, for Waitall and its kin
	bytes  int64
	cancel bool
}

// Bytes is the number of bytes received.
func (s Status) Bytes() int64 { return s.bytes }

// Cancelled reports whether the request was cancelled (MPI_Test_cancelled).
func (s Status) Cancelled() bool { return s.cancel }

// GetCount is the number of whole elements of type T received, or Undefined when the
// message was not a whole number of them (MPI_Get_count).
func GetCount[T Elem](s Status) int {
	var z T
	n := int64(unsafe.Sizeof(z))
	if s.bytes%n != 0 {
		return Undefined
	}
	return int(s.bytes / n)
}

// storeStatus translates an engine status into *s one field at a time: a copy of a
// whole Status, which does not fit in registers, costs a small message's call more
// than the rest of its work (see Recv).
func (c *Comm) storeStatus(s *Status, st *core.Status) {
	s.Source, s.Tag, s.bytes, s.cancel = mpir.SourceRank(c.dev(), st.Source), st.Tag, st.Count, st.Cancelled
	if st.Err != nil {
		s.Err = mapErr("", st.Err)
	}
}

// status is storeStatus returning the Status, for the calls off the small-message path.
func (c *Comm) status(st core.Status) (s Status) {
	c.storeStatus(&s, &st)
	return s
}

// view is the context of c if it is a view (WithContext), else nil: the calls that
// block take it to mpir, which gives up when it ends.
func (c *Comm) view() context.Context {
	if c == nil {
		return nil
	}
	return c.ctx
}

// bufOf is b's memory as the device's buffer, in place.
func bufOf[T Elem](b []T) core.Buf {
	var z T
	return bytesAt((*byte)(unsafe.Pointer(unsafe.SliceData(b))), len(b)*int(unsafe.Sizeof(z)))
}

// bytesAt is core.BytesAt. A generic body instantiated in the user's package inlines
// the calls to this package's small functions but not a call to core.BytesAt itself,
// whose body the export data then does not carry: without this the small-message
// path pays a call for its buffer.
func bytesAt(p *byte, n int) core.Buf { return core.BytesAt(p, n) }

// The point-to-point calls are mpir's (internal/mpir/p2p.go says what they check and
// how each is recorded): the calls here turn Go slices and Typed buffers into the
// device's buffers, and the answers into Status and Request, their errors through
// the handler of c. The hot calls (Send, Recv and their kin) call mpir themselves
// rather than through a helper of this package, so that a small message makes no
// call more than it must; a view (WithContext) takes mpir's View forms.

// The procedures this package names otherwise than the standard.
var (
	procSendInit  = mpir.ProcSendInit.As("SendInit")
	procSsendInit = mpir.ProcSsendInit.As("SsendInit")
	procRsendInit = mpir.ProcRsendInit.As("RsendInit")
	procBsendInit = mpir.ProcBsendInit.As("BsendInit")
	procRecvInit  = mpir.ProcRecvInit.As("RecvInit")
)

// send is the blocking send of b on c (a Typed buffer's, a value's), as p.
func send(p *mpir.Proc, c *Comm, b core.Buf, dest, tag int) error {
	var d *core.Comm
	if c != nil {
		if c.ctx != nil {
			return c.fail(p.Op, mpir.SendView(p, c.d, c.ctx, b, dest, tag))
		}
		d = c.d
	}
	return c.fail(p.Op, mpir.Send(p, d, b, dest, tag))
}

// Send sends buf to rank dest of c with tag, and returns when buf may be reused.
func Send[T Elem](c *Comm, buf []T, dest, tag int) error {
	var d *core.Comm
	if c != nil {
		if c.ctx != nil {
			return send(mpir.ProcSend, c, bufOf(buf), dest, tag)
		}
		d = c.d
	}
	return c.fail("Send", mpir.Send(mpir.ProcSend, d, bufOf(buf), dest, tag))
}

// Ssend is Send that returns only once the receiver has matched the message.
func Ssend[T Elem](c *Comm, buf []T, dest, tag int) error {
	var d *core.Comm
	if c != nil {
		if c.ctx != nil {
			return send(mpir.ProcSsend, c, bufOf(buf), dest, tag)
		}
		d = c.d
	}
	return c.fail("Ssend", mpir.Send(mpir.ProcSsend, d, bufOf(buf), dest, tag))
}

// Rsend is Send for when the matching receive is known to be posted already.
func Rsend[T Elem](c *Comm, buf []T, dest, tag int) error {
	var d *core.Comm
	if c != nil {
		if c.ctx != nil {
			return send(mpir.ProcRsend, c, bufOf(buf), dest, tag)
		}
		d = c.d
	}
	return c.fail("Rsend", mpir.Send(mpir.ProcRsend, d, bufOf(buf), dest, tag))
}

// Bsend copies buf into an attached buffer and returns at once: c's own (see
// (*Comm).AttachBuffer), else the process's (BufferAttach). With neither, or too
// little room left, it fails with ErrBuffer.
func Bsend[T Elem](c *Comm, buf []T, dest, tag int) error {
	var d *core.Comm
	if c != nil {
		if c.ctx != nil {
			return send(mpir.ProcBsend, c, bufOf(buf), dest, tag)
		}
		d = c.d
	}
	return c.fail("Bsend", mpir.Send(mpir.ProcBsend, d, bufOf(buf), dest, tag))
}

func ready(op string) error { return core.Ready(op) }

// Recv receives into buf a message from rank src of c (or AnySource) with tag (or
// AnyTag). A longer message fills buf and returns an error of class ErrTruncate.
func Recv[T Elem](c *Comm, buf []T, src, tag int) (st Status, err error) {
	// st is filled field by field, from mpir's field-by-field answer: a Status (48
	// bytes) passed or returned by value through a few calls is copied through
	// memory each time, and each copy of one just written stalls on store
	// forwarding, which cost as much as the rest of the call's own work.
	var d *core.Comm
	if c != nil {
		if c.ctx != nil {
			st, err = recvView(c, bufOf(buf), src, tag)
			return st, err
		}
		d = c.d
	}
	st.Source, st.Tag, st.bytes, err = mpir.Recv("Recv", d, bufOf(buf), src, tag)
	if err != nil {
		st.Err, err = err, c.fail("Recv", err)
	}
	return st, err
}

// recvView is the blocking receive of b through the view c.
func recvView(c *Comm, b core.Buf, src, tag int) (Status, error) {
	ps, err := mpir.RecvView(c.d, c.ctx, b, src, tag)
	st := c.status(ps)
	if err != nil {
		st.Err = err
	}
	return st, c.fail("Recv", err)
}

// Sendrecv sends sendbuf to dest and receives into recvbuf from src, at once, so that
// pairs of ranks exchanging do not deadlock. The two buffers must not overlap
// (SendrecvReplace sends and receives in one).
func Sendrecv[S, R Elem](c *Comm, sendbuf []S, dest, sendtag int, recvbuf []R, src, recvtag int) (Status, error) {
	st, err := mpir.Sendrecv("Sendrecv", c.dev(), c.view(), bufOf(sendbuf), dest, sendtag, bufOf(recvbuf), src, recvtag)
	return c.status(st), c.fail("Sendrecv", err)
}

// SendrecvReplace sends buf to dest and replaces its contents with a message from src.
func SendrecvReplace[T Elem](c *Comm, buf []T, dest, sendtag, src, recvtag int) (Status, error) {
	st, err := mpir.SendrecvReplace("SendrecvReplace", c.dev(), c.view(), bufOf(buf), dest, sendtag, src, recvtag)
	return c.status(st), c.fail("SendrecvReplace", err)
}

// Request is a nonblocking operation under way. Complete it with Wait or Test (or the
// Waitall family); until then the buffer given to it belongs to MPI. A completed request
// becomes the null request; a persistent one becomes inactive until Start.
//
// A Request is a value, and copies of it name the same operation. A completion call
// (Wait, Test and their kin) or Free makes the Request it was given the null request,
// as MPI sets the handle to MPI_REQUEST_NULL; every other copy is then used up: MPI
// deallocates the request, and a handle to a deallocated object is not a valid
// argument (the null request is the one exception it makes). So every call given a
// used-up copy (Wait, WaitContext, Test, GetStatus, Cancel, Free, Start, and the
// calls on many requests, which name its index) returns an error of class
// ErrRequest, and touches nothing: not the operation's result, already reported,
// nor a later operation that may reuse its record. IsNull is false for it. This is
// one rule for point-to-point, collective and generalized requests alike. Copies of a
// persistent request stay valid while it is inactive (Start through any copy starts
// it) and are used up once it is freed.
//
// A Request is four words (a struct of at most four fields and 32 bytes is kept in
// registers by the compiler; a larger one is copied through memory at every call and
// return, and Isend and Irecv return one per message).
type Request struct {
	q core.Request
	c *Comm
	x *core.Pending // an operation that is not one message (a collective, Idup); nil for point-to-point
}

// A nonblocking collective's record is reused once a completion call has reported it
// (core.Pending), so a Request with x also holds the generation x had when the
// request was made: in q, whose engine request is null then and whose generation
// word is otherwise unused (a fifth field would take the Request out of registers).
// A copy of a request that another copy has completed (or freed) names an older
// generation: it is used up (see Request), and never sees the operation that reuses
// the record.

// opReq is the Request of the operation of many messages p.
func opReq(c *Comm, p *core.Pending) Request {
	return Request{q: core.RequestOf(nil, p.Gen()), c: c, x: p}
}

// ref is r's operation of many messages at r's generation.
func (r *Request) ref() core.Ref {
	_, gen := r.q.Handle()
	return core.RefOf(r.x, gen)
}

// usedUp is the error of call op given r, if r is a used-up copy (see Request).
func (r *Request) usedUp(op string) error {
	if r.x != nil && !r.ref().Stale() || r.x == nil && !r.q.Stale() {
		return nil
	}
	return errorf(ClassRequest, op, "the request is a copy of one already completed or freed through another copy: "+
		"that copy is the null request, and this one is used up (MPI deallocates a completed request)")
}

// usedUpIn is the error of call op if a request of rs is a used-up copy, naming it,
// through the error handler of its communicator.
func usedUpIn(op string, rs []Request) error {
	for i := range rs {
		if rs[i].usedUp(op) != nil {
			return rs[i].c.fail(op, errorf(ClassRequest, op, "requests[%d] is a copy of a request already completed or freed "+
				"through another copy: that copy is the null request, and this one is used up (MPI deallocates a completed request)", i))
		}
	}
	return nil
}

// IsNull reports whether r is the null request (completed, or never started); a
// used-up copy (see Request) is not.
func (r *Request) IsNull() bool { return r.q.IsNull() && r.x == nil }

// p2pReq is the Request of a point-to-point operation on c started by mpir (q, err),
// its error through c's handler. (Isend and Irecv, on the small-message path, say
// the same themselves: the inliner refuses this.)
func p2pReq(op string, c *Comm, q core.Request, err error) (Request, error) {
	if err != nil {
		return Request{}, c.fail(op, err)
	}
	return Request{q: q, c: c}, nil
}

// Isend starts sending buf to dest; buf must not change until the request completes.
func Isend[T Elem](c *Comm, buf []T, dest, tag int) (Request, error) {
	q, err := mpir.Isend(mpir.ProcIsend, c.dev(), bufOf(buf), dest, tag)
	if err != nil {
		return Request{}, c.fail("Isend", err)
	}
	return Request{q: q, c: c}, nil
}

// Issend is Isend that completes only once the receiver has matched the message.
func Issend[T Elem](c *Comm, buf []T, dest, tag int) (Request, error) {
	q, err := mpir.Isend(mpir.ProcIssend, c.dev(), bufOf(buf), dest, tag)
	return p2pReq("Issend", c, q, err)
}

// Irsend is Isend for when the matching receive is known to be posted.
func Irsend[T Elem](c *Comm, buf []T, dest, tag int) (Request, error) {
	q, err := mpir.Isend(mpir.ProcIrsend, c.dev(), bufOf(buf), dest, tag)
	return p2pReq("Irsend", c, q, err)
}

// Ibsend copies buf into an attached buffer, as Bsend; the request is complete at once.
func Ibsend[T Elem](c *Comm, buf []T, dest, tag int) (Request, error) {
	q, err := mpir.Isend(mpir.ProcIbsend, c.dev(), bufOf(buf), dest, tag)
	return p2pReq("Ibsend", c, q, err)
}

// Irecv starts receiving into buf; read buf only after the request completes.
func Irecv[T Elem](c *Comm, buf []T, src, tag int) (Request, error) {
	q, err := mpir.Irecv(c.dev(), bufOf(buf), src, tag)
	if err != nil {
		return Request{}, c.fail("Irecv", err)
	}
	return Request{q: q, c: c}, nil
}

// SendInit makes a persistent send request: Start runs it, as often as wanted.
func SendInit[T Elem](c *Comm, buf []T, dest, tag int) (Request, error) {
	q, err := mpir.SendInit(procSendInit, c.dev(), bufOf(buf), dest, tag)
	return p2pReq("SendInit", c, q, err)
}

// SsendInit makes a persistent synchronous send request.
func SsendInit[T Elem](c *Comm, buf []T, dest, tag int) (Request, error) {
	q, err := mpir.SendInit(procSsendInit, c.dev(), bufOf(buf), dest, tag)
	return p2pReq("SsendInit", c, q, err)
}

// RsendInit makes a persistent ready send request.
func RsendInit[T Elem](c *Comm, buf []T, dest, tag int) (Request, error) {
	q, err := mpir.SendInit(procRsendInit, c.dev(), bufOf(buf), dest, tag)
	return p2pReq("RsendInit", c, q, err)
}

// BsendInit makes a persistent buffered send request.
func BsendInit[T Elem](c *Comm, buf []T, dest, tag int) (Request, error) {
	q, err := mpir.SendInit(procBsendInit, c.dev(), bufOf(buf), dest, tag)
	return p2pReq("BsendInit", c, q, err)
}

// RecvInit makes a persistent receive request.
func RecvInit[T Elem](c *Comm, buf []T, src, tag int) (Request, error) {
	q, err := mpir.RecvInit(procRecvInit, c.dev(), bufOf(buf), src, tag)
	return p2pReq("RecvInit", c, q, err)
}

// Wait waits for r to complete and returns its status.
func (r *Request) Wait() (st Status, err error) {
	defer prof.Exit(prof.Wait, r.enterWait(prof.Wait), 0)
	return r.wait("Wait")
}

// wait is Wait unrecorded, its errors said to be op's: Wait's body, and the wait
// of a call made of a request and its wait (Sendrecv), which reports itself once.
func (r *Request) wait(op string) (st Status, err error) {
	if r.x != nil {
		to := r.seam()
		if err := r.usedUp(op); err != nil {
			return Status{}, to.fail(op, err)
		}
		if r.c != nil && r.c.ctx != nil {
			return r.WaitContext(r.c.ctx)
		}
		err = r.ref().Wait()
		if xerr := r.xReport(&st, true); err == nil {
			err = xerr
		}
		return st, to.fail(op, err)
	}
	if r.c != nil && r.c.ctx != nil {
		return r.WaitContext(r.c.ctx)
	}
	var ps core.Status
	err = core.WaitInto(&r.q, &ps)
	r.c.storeStatus(&st, &ps)
	if err != nil {
		return st, r.c.fail(op, core.RecvErr(op, st.Source, mapErr(op, err)))
	}
	return st, nil
}

// emptyStatus is the status of a request that received nothing (MPI's empty status).
var emptyStatus = Status{Source: AnySource, Tag: AnyTag}

// WaitContext is Wait that gives up when ctx is done; r stays pending then. A nil ctx
// is context.Background().
func (r *Request) WaitContext(ctx context.Context) (Status, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if r.x != nil {
		to := r.seam()
		if err := r.usedUp("Wait"); err != nil {
			return Status{}, to.fail("Wait", err)
		}
		err := r.ref().WaitContext(ctx)
		if err == ctx.Err() && err != nil {
			return Status{}, to.fail("Wait", err) // still pending
		}
		var st Status
		if xerr := r.xReport(&st, true); err == nil {
			err = xerr
		}
		return st, to.fail("Wait", err)
	}
	st, err := core.WaitCtx(ctx, &r.q)
	return r.c.status(st), r.c.fail("Wait", mapErr("Wait", err))
}

// Test reports whether r has completed, and its status if so.
func (r *Request) Test() (st Status, ok bool, err error) {
	defer prof.Exit(prof.Test, r.enterWait(prof.Test), 0)
	return r.test("Test", true)
}

// GetStatus is Test that leaves r as it is (MPI_Request_get_status): it reports
// whether r has completed, and its status if so, and r stays to be waited on, tested
// or freed; a persistent request stays active.
func (r *Request) GetStatus() (st Status, ok bool, err error) {
	defer prof.Exit(prof.RequestGetStatus, r.enterWait(prof.RequestGetStatus), 0)
	return r.test("GetStatus", false)
}

// test is Test (release: a completed request is used up) and GetStatus.
func (r *Request) test(op string, release bool) (st Status, ok bool, err error) {
	if r.x != nil {
		to := r.seam()
		if err := r.usedUp(op); err != nil {
			return Status{}, false, to.fail(op, err)
		}
		ok, err = r.ref().Test()
		if ok {
			if xerr := r.xReport(&st, release); err == nil {
				err = xerr
			}
		}
		return st, ok, to.fail(op, err)
	}
	var ps core.Status
	if release {
		ok, err = core.TestInto(&r.q, &ps)
	} else {
		ok, err = core.PeekInto(&r.q, &ps)
	}
	if ok {
		r.c.storeStatus(&st, &ps)
	}
	return st, ok, r.c.fail(op, mapErr(op, err))
}

// Cancel asks that a pending receive or send be cancelled; Wait then completes it,
// and its status says whether the cancel took effect (Status.Cancelled). A receive
// that has not matched is cancelled at once. A send is cancelled if its message has
// not matched at the destination, which the destination's mpigo answers when it next
// makes progress (any MPI call there); a standard send of a short message has
// completed when it left, and is not cancelled. A cancelled send's message is never
// received: the receive that would have matched it takes the next one.
func (r *Request) Cancel() error {
	defer prof.Exit(prof.Cancel, r.enterWait(prof.Cancel), 0)
	return r.cancel()
}

// cancel is Cancel unrecorded, for the calls made of others (Sendrecv).
func (r *Request) cancel() error {
	if r.x != nil {
		to := r.seam()
		if err := r.usedUp("Cancel"); err != nil {
			return to.fail("Cancel", err)
		}
		if !r.x.Cancelable() {
			return to.fail("Cancel", errorf(ClassRequest, "Cancel", "a collective or communicator operation cannot be cancelled"))
		}
		return to.fail("Cancel", mapErr("Cancel", r.x.Cancel()))
	}
	return r.c.fail("Cancel", mapErr("Cancel", core.Cancel(&r.q)))
}

// Free releases r; a pending operation still completes, unobserved.
func (r *Request) Free() error {
	defer prof.Exit(prof.RequestFree, r.enterWait(prof.RequestFree), 0)
	if r.x != nil {
		to := r.seam()
		if err := r.usedUp("Free"); err != nil {
			return to.fail("Free", err)
		}
		err := r.ref().Free() // it completes in the background
		r.x, r.q = nil, core.Request{}
		return to.fail("Free", mapErr("Free", err))
	}
	return r.c.fail("Free", mapErr("Free", core.FreeRequest(&r.q)))
}

// Start starts an inactive persistent request (a persistent send or receive, or a
// persistent collective).
func (r *Request) Start() error {
	defer prof.Exit(prof.ReqStart, r.enterWait(prof.ReqStart), 0)
	if r.x != nil {
		if err := r.usedUp("Start"); err != nil {
			return r.c.fail("Start", err)
		}
		// A persistent collective: an error of its run went through the handler as
		// the run began.
		if err := r.x.Start("Start"); err != nil {
			return r.c.fail("Start", err)
		}
		return nil
	}
	return r.c.fail("Start", mapErr("Start", core.Start(&r.q)))
}

// Startall starts every request of rs.
func Startall(rs []Request) error {
	defer prof.Exit(prof.Startall, prof.EnterWait(prof.Startall, nil, prof.NoPeer, -2, false), 0)
	if err := usedUpIn("Startall", rs); err != nil {
		return err
	}
	// In the order given, as MPI_Startall does: persistent collectives must start in
	// the same order on every member.
	for i := range rs {
		if err := rs[i].Start(); err != nil {
			return err
		}
	}
	return nil
}

// Probe waits for a message from src (or AnySource) with tag (or AnyTag) and describes
// it, without receiving it.
func (c *Comm) Probe(src, tag int) (Status, error) {
	st, err := mpir.Probe("Probe", c.dev(), c.view(), src, tag)
	return c.status(st), c.fail("Probe", err)
}

// Iprobe is Probe that does not wait: ok says whether a message was there.
func (c *Comm) Iprobe(src, tag int) (Status, bool, error) {
	st, ok, err := mpir.Iprobe("Iprobe", c.dev(), src, tag)
	return c.status(st), ok, c.fail("Iprobe", err)
}

// Message is a message taken off the queue by Mprobe or Improbe: only Mrecv or Imrecv
// with it can receive it, so no other receive can steal it in between.
type Message struct {
	m core.Message
	c *Comm
}

// Mprobe waits for a matching message and takes it for Mrecv.
func (c *Comm) Mprobe(src, tag int) (Message, Status, error) {
	m, st, err := mpir.Mprobe("Mprobe", c.dev(), c.view(), src, tag)
	return Message{m, c}, c.status(st), c.fail("Mprobe", err)
}

// Improbe is Mprobe that does not wait.
func (c *Comm) Improbe(src, tag int) (Message, Status, bool, error) {
	m, st, ok, err := mpir.Improbe("Improbe", c.dev(), src, tag)
	return Message{m, c}, c.status(st), ok, c.fail("Improbe", err)
}

// of is m's device message and communicator: the null message (which mpir rejects)
// for a nil m, whose errors go to the handler of Self.
func (m *Message) of() (*core.Message, *Comm) {
	if m == nil {
		return new(core.Message), nil
	}
	return &m.m, m.c
}

// Mrecv receives the message m into buf.
func Mrecv[T Elem](buf []T, m *Message) (Status, error) {
	mm, c := m.of()
	st, err := mpir.Mrecv("Mrecv", c.dev(), bufOf(buf), mm)
	return c.status(st), c.fail("Mrecv", err)
}

// Imrecv starts receiving the message m into buf.
func Imrecv[T Elem](buf []T, m *Message) (Request, error) {
	mm, c := m.of()
	q, err := mpir.Imrecv("Imrecv", c.dev(), bufOf(buf), mm)
	return p2pReq("Imrecv", c, q, err)
}
