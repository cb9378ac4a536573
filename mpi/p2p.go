package mpi

import (
	"context"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
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
// than the rest of its work (see recvInto).
func (c *Comm) storeStatus(s *Status, st *core.Status) {
	s.Source, s.Tag, s.bytes, s.cancel = st.Source, st.Tag, st.Count, st.Cancelled
	if st.Source >= 0 && c.dev() != nil {
		s.Source = c.d.CommRank(st.Source)
	}
	if st.Err != nil {
		s.Err = mapErr("", st.Err)
	}
}

// status is storeStatus returning the Status, for the calls off the small-message path.
func (c *Comm) status(st core.Status) (s Status) {
	c.storeStatus(&s, &st)
	return s
}

// send is the blocking send, recorded as call, a send that may start deferred
// (prof.TryDeferred; see prof.go for the recorder's lines); prof.None records
// nothing: the send of a call made of one (Sendrecv), which reports itself once.
func send(call prof.Call, op string, c *Comm, b []byte, dest, tag int, mode core.Mode) (err error) {
	d := c.dev()
	direct := d.DirectSend(dest, tag) && c.ctx == nil
	if direct {
		// An eager message that leaves at once is recorded once it has left.
		if how := prof.Later(call, len(b)); how != prof.LaterNot {
			if sent, err := d.SendNow(core.Bytes(b), dest, tag, mode); sent {
				if how == prof.LaterCount {
					prof.Count(call, len(b))
				} else {
					prof.SentEvent(call, d.Prof(), dest, tag, len(b))
				}
				if err != nil {
					return c.fail(op, mapErr(op, err))
				}
				return nil
			}
		}
	}
	var t int64
	if call != prof.None && !prof.Try(call, d.Prof(), dest, tag, len(b)) {
		if t = prof.TryDeferred(call, d.Prof(), dest, tag, len(b)); t == 0 {
			t = prof.Enter(call, d.Prof(), dest, tag, len(b))
		}
	}
	switch {
	case direct:
		// The common case in one call: no rank to translate, nothing to check further.
		if err = d.SendDirect(core.Bytes(b), dest, tag, mode); err != nil {
			err = c.fail(op, mapErr(op, err))
		}
	case c != nil && c.ctx != nil:
		err = sendCtx(op, c, core.Bytes(b), dest, tag, mode)
	default:
		err = c.fail(op, d.Send(op, core.Bytes(b), dest, tag, mode))
	}
	if call != prof.None && !prof.TryExit(call, t, len(b)) {
		prof.Exit(call, t, len(b))
	}
	return err
}

// Send sends buf to rank dest of c with tag, and returns when buf may be reused.
func Send[T Elem](c *Comm, buf []T, dest, tag int) error {
	return send(prof.Send, "Send", c, asBytes(buf), dest, tag, core.ModeStandard)
}

// Ssend is Send that returns only once the receiver has matched the message.
func Ssend[T Elem](c *Comm, buf []T, dest, tag int) error {
	return send(prof.Ssend, "Ssend", c, asBytes(buf), dest, tag, core.ModeSynchronous)
}

// Rsend is Send for when the matching receive is known to be posted already.
func Rsend[T Elem](c *Comm, buf []T, dest, tag int) error {
	return send(prof.Rsend, "Rsend", c, asBytes(buf), dest, tag, core.ModeReady)
}

// Bsend copies buf into an attached buffer and returns at once: c's own (see
// (*Comm).AttachBuffer), else the process's (BufferAttach). With neither, or too
// little room left, it fails with ErrBuffer.
func Bsend[T Elem](c *Comm, buf []T, dest, tag int) error {
	return send(prof.Bsend, "Bsend", c, asBytes(buf), dest, tag, core.ModeBuffered)
}

func ready(op string) error { return core.Ready(op) }

// Recv receives into buf a message from rank src of c (or AnySource) with tag (or
// AnyTag). A longer message fills buf and returns an error of class ErrTruncate.
func Recv[T Elem](c *Comm, buf []T, src, tag int) (st Status, err error) {
	err = recvInto(&st, "Recv", c, asBytes(buf), src, tag)
	return st, err
}

// recvInto is the blocking receive. It fills *st field by field, from the engine's
// field-by-field answer: a Status (48 bytes) passed or returned by value through a few
// calls is copied through memory each time, and each copy of one just written stalls
// on store forwarding, which cost as much as the rest of the call's own work.
// It is recorded as Recv.
func recvInto(st *Status, op string, c *Comm, b []byte, src, tag int) error {
	d := c.dev()
	var pt int64
	if !prof.Try(prof.Recv, d.Prof(), src, tag, len(b)) {
		if pt = prof.TryDeferred(prof.Recv, d.Prof(), src, tag, len(b)); pt == 0 {
			pt = prof.Enter(prof.Recv, d.Prof(), src, tag, len(b))
		}
	}
	// The common case goes straight to the engine (see send): ranks are world ranks.
	var (
		from, t int
		n       int64
		err     error
	)
	if d.DirectRecv(src, tag) && c.ctx == nil {
		from, t, n, err = d.RecvDirect(core.Bytes(b), src, tag)
	} else if c != nil && c.ctx != nil {
		err = recvCtx(st, op, c, core.Bytes(b), src, tag)
		if !prof.TryExit(prof.Recv, pt, int(st.bytes)) {
			prof.Exit(prof.Recv, pt, int(st.bytes))
		}
		return err
	} else {
		from, t, n, err = d.Recv(op, core.Bytes(b), src, tag)
	}
	st.Source, st.Tag, st.bytes = from, t, n
	if !prof.TryExit(prof.Recv, pt, int(n)) && !prof.TryExitRecv(pt, int(n)) {
		prof.Exit(prof.Recv, pt, int(n))
	}
	if err != nil {
		err = mapErr(op, err)
		st.Err = err
		return c.fail(op, err)
	}
	return nil
}

// Sendrecv sends sendbuf to dest and receives into recvbuf from src, at once, so that
// pairs of ranks exchanging do not deadlock.
func Sendrecv[S, R Elem](c *Comm, sendbuf []S, dest, sendtag int, recvbuf []R, src, recvtag int) (Status, error) {
	n := nbytes(sendbuf)
	defer prof.Exit(prof.Sendrecv, c.enterP2P(prof.Sendrecv, dest, sendtag, n), n)
	return sendrecv(c, asBytes(sendbuf), dest, sendtag, asBytes(recvbuf), src, recvtag)
}

// sendrecv is Sendrecv unrecorded: its parts (the receive, the send, the wait) are
// not counted as calls of their own, at every thread level, where the recorder's
// check of nesting cannot tell one goroutine's calls from another's.
func sendrecv(c *Comm, sendbuf []byte, dest, sendtag int, recvbuf []byte, src, recvtag int) (Status, error) {
	q, err := irecv("Sendrecv", c, recvbuf, src, recvtag, false)
	if err != nil {
		return Status{}, err
	}
	if err := send(prof.None, "Sendrecv", c, sendbuf, dest, sendtag, core.ModeStandard); err != nil {
		q.cancel()
		q.c = c.base()
		q.wait("Sendrecv")
		return Status{}, err
	}
	if c.ctx != nil {
		var ps core.Status
		err := c.endRecv("Sendrecv", &q.q, &ps)
		return c.status(ps), c.fail("Sendrecv", err)
	}
	return q.wait("Sendrecv")
}

// SendrecvReplace sends buf to dest and replaces its contents with a message from src.
func SendrecvReplace[T Elem](c *Comm, buf []T, dest, sendtag, src, recvtag int) (Status, error) {
	defer prof.Exit(prof.SendrecvReplace, c.enterP2P(prof.SendrecvReplace, dest, sendtag, nbytes(buf)), nbytes(buf))
	b := asBytes(buf)
	tmp := make([]byte, len(b))
	st, err := sendrecv(c, b, dest, sendtag, tmp, src, recvtag)
	copy(b, tmp[:st.bytes])
	return st, err
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

func isend(op string, c *Comm, b []byte, dest, tag int, mode core.Mode, persistent bool) (Request, error) {
	if d := c.dev(); !persistent && d.DirectSend(dest, tag) {
		// The common case in one call, as in send.
		q, err := d.IsendDirect(core.Bytes(b), dest, tag, mode)
		if err != nil {
			return Request{}, c.fail(op, mapErr(op, err))
		}
		return Request{q: q, c: c}, nil
	}
	q, err := c.dev().Isend(op, core.Bytes(b), dest, tag, mode, persistent)
	if err != nil {
		return Request{}, c.fail(op, err)
	}
	return Request{q: q, c: c}, nil
}

func irecv(op string, c *Comm, b []byte, src, tag int, persistent bool) (Request, error) {
	if d := c.dev(); !persistent && d.DirectRecv(src, tag) {
		q, err := d.IrecvDirect(core.Bytes(b), src, tag)
		if err != nil {
			return Request{}, c.fail(op, mapErr(op, err))
		}
		return Request{q: q, c: c}, nil
	}
	q, err := c.dev().Irecv(op, core.Bytes(b), src, tag, persistent)
	if err != nil {
		return Request{}, c.fail(op, err)
	}
	return Request{q: q, c: c}, nil
}

// Isend starts sending buf to dest; buf must not change until the request completes.
func Isend[T Elem](c *Comm, buf []T, dest, tag int) (Request, error) {
	return pisend(prof.Isend, "Isend", c, asBytes(buf), dest, tag, core.ModeStandard)
}

// Issend is Isend that completes only once the receiver has matched the message.
func Issend[T Elem](c *Comm, buf []T, dest, tag int) (Request, error) {
	return pisend(prof.Issend, "Issend", c, asBytes(buf), dest, tag, core.ModeSynchronous)
}

// Irsend is Isend for when the matching receive is known to be posted.
func Irsend[T Elem](c *Comm, buf []T, dest, tag int) (Request, error) {
	return pisend(prof.Irsend, "Irsend", c, asBytes(buf), dest, tag, core.ModeReady)
}

// Ibsend copies buf into an attached buffer, as Bsend; the request is complete at once.
func Ibsend[T Elem](c *Comm, buf []T, dest, tag int) (Request, error) {
	return pisend(prof.Ibsend, "Ibsend", c, asBytes(buf), dest, tag, core.ModeBuffered)
}

// Irecv starts receiving into buf; read buf only after the request completes.
func Irecv[T Elem](c *Comm, buf []T, src, tag int) (Request, error) {
	return pirecv(c, asBytes(buf), src, tag)
}

// SendInit makes a persistent send request: Start runs it, as often as wanted.
func SendInit[T Elem](c *Comm, buf []T, dest, tag int) (Request, error) {
	defer prof.Exit(prof.SendInit, c.enterP2P(prof.SendInit, dest, tag, nbytes(buf)), nbytes(buf))
	return isend("SendInit", c, asBytes(buf), dest, tag, core.ModeStandard, true)
}

// SsendInit makes a persistent synchronous send request.
func SsendInit[T Elem](c *Comm, buf []T, dest, tag int) (Request, error) {
	defer prof.Exit(prof.SsendInit, c.enterP2P(prof.SsendInit, dest, tag, nbytes(buf)), nbytes(buf))
	return isend("SsendInit", c, asBytes(buf), dest, tag, core.ModeSynchronous, true)
}

// RsendInit makes a persistent ready send request.
func RsendInit[T Elem](c *Comm, buf []T, dest, tag int) (Request, error) {
	defer prof.Exit(prof.RsendInit, c.enterP2P(prof.RsendInit, dest, tag, nbytes(buf)), nbytes(buf))
	return isend("RsendInit", c, asBytes(buf), dest, tag, core.ModeReady, true)
}

// BsendInit makes a persistent buffered send request.
func BsendInit[T Elem](c *Comm, buf []T, dest, tag int) (Request, error) {
	defer prof.Exit(prof.BsendInit, c.enterP2P(prof.BsendInit, dest, tag, nbytes(buf)), nbytes(buf))
	return isend("BsendInit", c, asBytes(buf), dest, tag, core.ModeBuffered, true)
}

// RecvInit makes a persistent receive request.
func RecvInit[T Elem](c *Comm, buf []T, src, tag int) (Request, error) {
	defer prof.Exit(prof.RecvInit, c.enterP2P(prof.RecvInit, src, tag, nbytes(buf)), nbytes(buf))
	return irecv("RecvInit", c, asBytes(buf), src, tag, true)
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
		if err := r.usedUp(op); err != nil {
			return Status{}, r.c.fail(op, err)
		}
		if r.c != nil && r.c.ctx != nil {
			return r.WaitContext(r.c.ctx)
		}
		err = r.ref().Wait()
		if xerr := r.xReport(&st, true); err == nil {
			err = xerr
		}
		return st, r.c.fail(op, err)
	}
	if r.c != nil && r.c.ctx != nil {
		return r.WaitContext(r.c.ctx)
	}
	var ps core.Status
	err = core.WaitInto(&r.q, &ps)
	r.c.storeStatus(&st, &ps)
	if err != nil {
		return st, r.c.fail(op, mapErr(op, err))
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
		if err := r.usedUp("Wait"); err != nil {
			return Status{}, r.c.fail("Wait", err)
		}
		err := r.ref().WaitContext(ctx)
		if err == ctx.Err() && err != nil {
			return Status{}, r.c.fail("Wait", err) // still pending
		}
		var st Status
		if xerr := r.xReport(&st, true); err == nil {
			err = xerr
		}
		return st, r.c.fail("Wait", err)
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
		if err := r.usedUp(op); err != nil {
			return Status{}, false, r.c.fail(op, err)
		}
		ok, err = r.ref().Test()
		if ok {
			if xerr := r.xReport(&st, release); err == nil {
				err = xerr
			}
		}
		return st, ok, r.c.fail(op, err)
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

// Cancel asks that a pending receive be cancelled; Wait then completes it, and its
// status says whether the cancel took effect.
func (r *Request) Cancel() error {
	defer prof.Exit(prof.Cancel, r.enterWait(prof.Cancel), 0)
	return r.cancel()
}

// cancel is Cancel unrecorded, for the calls made of others (Sendrecv).
func (r *Request) cancel() error {
	if r.x != nil {
		if err := r.usedUp("Cancel"); err != nil {
			return r.c.fail("Cancel", err)
		}
		if !r.x.Cancelable() {
			return r.c.fail("Cancel", errorf(ClassRequest, "Cancel", "a collective or communicator operation cannot be cancelled"))
		}
		return r.c.fail("Cancel", mapErr("Cancel", r.x.Cancel()))
	}
	return r.c.fail("Cancel", mapErr("Cancel", core.Cancel(&r.q)))
}

// Free releases r; a pending operation still completes, unobserved.
func (r *Request) Free() error {
	defer prof.Exit(prof.RequestFree, r.enterWait(prof.RequestFree), 0)
	if r.x != nil {
		if err := r.usedUp("Free"); err != nil {
			return r.c.fail("Free", err)
		}
		err := r.ref().Free() // it completes in the background
		r.x, r.q = nil, core.Request{}
		return r.c.fail("Free", mapErr("Free", err))
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
	defer prof.Exit(prof.Probe, c.enterP2P(prof.Probe, src, tag, 0), 0)
	if c != nil && c.ctx != nil {
		st, err := c.dev().ProbeCtx(c.ctx, "Probe", src, tag)
		if isCtx(c.ctx, err) {
			err = ctxErr("Probe", err, "gave up when its context ended")
		}
		return c.status(st), c.fail("Probe", err)
	}
	st, err := c.dev().Probe("Probe", src, tag)
	return c.status(st), c.fail("Probe", err)
}

// Iprobe is Probe that does not wait: ok says whether a message was there.
func (c *Comm) Iprobe(src, tag int) (Status, bool, error) {
	defer prof.Exit(prof.Iprobe, c.enterP2P(prof.Iprobe, src, tag, 0), 0)
	st, ok, err := c.dev().Iprobe("Iprobe", src, tag)
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
	defer prof.Exit(prof.Mprobe, c.enterP2P(prof.Mprobe, src, tag, 0), 0)
	for c != nil && c.ctx != nil {
		// Probe under the context, then take the message; another goroutine may take
		// it first, and then the probe starts again.
		if _, err := c.Probe(src, tag); err != nil {
			return Message{}, Status{}, err
		}
		if m, st, ok, err := c.Improbe(src, tag); ok || err != nil {
			return m, st, err
		}
	}
	m, st, err := c.dev().Mprobe("Mprobe", src, tag)
	return Message{m, c}, c.status(st), c.fail("Mprobe", err)
}

// Improbe is Mprobe that does not wait.
func (c *Comm) Improbe(src, tag int) (Message, Status, bool, error) {
	defer prof.Exit(prof.Improbe, c.enterP2P(prof.Improbe, src, tag, 0), 0)
	m, st, ok, err := c.dev().Improbe("Improbe", src, tag)
	return Message{m, c}, c.status(st), ok, c.fail("Improbe", err)
}

// Mrecv receives the message m into buf.
func Mrecv[T Elem](buf []T, m *Message) (Status, error) {
	defer prof.Exit(prof.Mrecv, m.enter(prof.Mrecv, nbytes(buf)), nbytes(buf))
	if m == nil || m.c == nil {
		return Status{}, errorf(ClassRequest, "Mrecv", "no message (from Mprobe or Improbe)")
	}
	st, err := core.Mrecv(core.Bytes(asBytes(buf)), &m.m)
	return m.c.status(st), m.c.fail("Mrecv", mapErr("Mrecv", err))
}

// Imrecv starts receiving the message m into buf.
func Imrecv[T Elem](buf []T, m *Message) (Request, error) {
	defer prof.Exit(prof.Imrecv, m.enter(prof.Imrecv, nbytes(buf)), nbytes(buf))
	if m == nil || m.c == nil {
		return Request{}, errorf(ClassRequest, "Imrecv", "no message (from Mprobe or Improbe)")
	}
	q, err := core.Imrecv(core.Bytes(asBytes(buf)), &m.m)
	return Request{q: q, c: m.c}, m.c.fail("Imrecv", mapErr("Imrecv", err))
}
