package core

import (
	"context"
	"sync/atomic"

	"github.com/mpigo/mpigo/internal/p2p"
	"github.com/mpigo/mpigo/internal/prof"
)

// Point-to-point on a communicator's user context. Buffers are the engine's p2p.Buf
// (bytes, or a datatype's packing layout); ranks are ranks of the communicator (of the
// remote group on an intercommunicator); statuses come back with world ranks, which
// CommRank translates. The Direct* forms are the small-message path: the facade asks
// DirectSend or DirectRecv (inlined) and, when it says yes, calls them with nothing
// left to check or translate.

// Wildcards, the null process and the tag bound.
const (
	AnySource = p2p.AnySource
	AnyTag    = p2p.AnyTag
	ProcNull  = p2p.ProcNull
	MaxTag    = p2p.MaxTag
)

// DirectSend reports whether a send on c to dest with tag can go to the engine as it
// is: MPI runs, c's ranks are world ranks (World and its duplicates, not freed), dest
// and tag are in range (no ProcNull).
func (c *Comm) DirectSend(dest, tag int) bool {
	return state.Load() == stateInit && c != nil && c.direct && uint(dest) < uint(c.size) && uint(tag) <= MaxTag
}

// DirectRecv is DirectSend for a receive, which may also name AnySource and AnyTag.
func (c *Comm) DirectRecv(src, tag int) bool {
	return state.Load() == stateInit && c != nil && c.direct && (uint(src) < uint(c.size) || src == AnySource) && (uint(tag) <= MaxTag || tag == AnyTag)
}

// SendDirect sends where DirectSend said yes.
func (c *Comm) SendDirect(b p2p.Buf, dest, tag int, mode p2p.Mode) error {
	return eng.Send(b, dest, tag, c.ctx, mode)
}

// SendNow is SendDirect's short path alone (p2p's SendNow): sent says that the message
// left (or failed: err); if not, nothing happened.
func (c *Comm) SendNow(b p2p.Buf, dest, tag int, mode p2p.Mode) (sent bool, err error) {
	return eng.SendNow(b, dest, tag, c.ctx, mode)
}

// IsendDirect starts a send where DirectSend said yes.
func (c *Comm) IsendDirect(b p2p.Buf, dest, tag int, mode p2p.Mode) (p2p.Request, error) {
	return eng.Isend(b, dest, tag, c.ctx, mode)
}

// IrecvDirect starts a receive where DirectRecv said yes.
func (c *Comm) IrecvDirect(b p2p.Buf, src, tag int) (p2p.Request, error) {
	return eng.Irecv(b, src, tag, c.ctx)
}

// IrecvPair starts the receive of a send-receive, checked and translated, whose send
// of n bytes to dest of c follows at once (p2p's IrecvPair).
func (c *Comm) IrecvPair(op string, b p2p.Buf, src, tag, dest int, n int64) (p2p.Request, error) {
	w, d := src, dest
	if !c.DirectRecv(src, tag) {
		var err error
		if w, err = c.Target(op, "source", src, tag, true); err != nil {
			return p2p.Request{}, err
		}
		d = ProcNull
		if uint(dest) < uint(c.Peers()) {
			d = c.WorldRank(dest)
		}
	}
	q, err := eng.IrecvPair(b, w, tag, c.ctx, d, n)
	return q, MapErr(op, err)
}

// RecvDirect receives where DirectRecv said yes, and answers field by field (a
// Status returned whole is copied through memory at each return).
func (c *Comm) RecvDirect(b p2p.Buf, src, tag int) (int, int, int64, error) {
	return eng.RecvCall(b, src, tag, c.ctx, prof.Stamping())
}

// Target checks c, a peer rank and a tag for op (wild: a receive, which may take
// AnySource and AnyTag) and returns the peer's world rank (ProcNull and AnySource as
// they are).
func (c *Comm) Target(op, what string, r, tag int, wild bool) (int, error) {
	if err := c.Check(op); err != nil {
		return 0, err
	}
	w := 0
	switch {
	case r == ProcNull:
		w = ProcNull
	case wild && r == AnySource:
		w = AnySource
	case r < 0 || r >= c.Peers():
		return 0, Errorf(ClassRank, op, "%s %d out of range [0,%d) for %s", what, r, c.Peers(), c.Name())
	default:
		w = c.WorldRank(r)
	}
	return w, CheckTag(op, tag, wild)
}

// CheckTag checks a tag (wild: AnyTag allowed).
func CheckTag(op string, tag int, wild bool) error {
	if (wild && tag == AnyTag) || (tag >= 0 && tag <= MaxTag) {
		return nil
	}
	return Errorf(ClassTag, op, "tag %d out of range [0,%d]", tag, MaxTag)
}

// Send sends b to dest with tag on c, checked and translated.
func (c *Comm) Send(op string, b p2p.Buf, dest, tag int, mode p2p.Mode) error {
	w, err := c.Target(op, "dest", dest, tag, false)
	if err != nil {
		return err
	}
	return MapErr(op, eng.Send(b, w, tag, c.ctx, mode))
}

// Isend starts a send (persistent: makes an inactive persistent request).
func (c *Comm) Isend(op string, b p2p.Buf, dest, tag int, mode p2p.Mode, persistent bool) (p2p.Request, error) {
	w, err := c.Target(op, "dest", dest, tag, false)
	if err != nil {
		return p2p.Request{}, err
	}
	var q p2p.Request
	if persistent {
		q, err = eng.SendInit(b, w, tag, c.ctx, mode)
	} else {
		q, err = eng.Isend(b, w, tag, c.ctx, mode)
	}
	return q, MapErr(op, err)
}

// Irecv starts a receive (persistent: makes an inactive persistent request).
func (c *Comm) Irecv(op string, b p2p.Buf, src, tag int, persistent bool) (p2p.Request, error) {
	w, err := c.Target(op, "source", src, tag, true)
	if err != nil {
		return p2p.Request{}, err
	}
	var q p2p.Request
	if persistent {
		q, err = eng.RecvInit(b, w, tag, c.ctx)
	} else {
		q, err = eng.Irecv(b, w, tag, c.ctx)
	}
	return q, MapErr(op, err)
}

// IrecvDeferred starts a receive, checked and translated, from the engine's deferred
// function (p2p.Engine.IrecvDeferred), which runs holding the engine's lock.
func (c *Comm) IrecvDeferred(op string, b p2p.Buf, src, tag int) (p2p.Request, error) {
	w, err := c.Target(op, "source", src, tag, true)
	if err != nil {
		return p2p.Request{}, err
	}
	q, err := eng.IrecvDeferred(b, w, tag, c.ctx)
	return q, MapErr(op, err)
}

// Recv receives into b, checked and translated; from is the sender's rank in c.
func (c *Comm) Recv(op string, b p2p.Buf, src, tag int) (from, gotTag int, n int64, err error) {
	w, err := c.Target(op, "source", src, tag, true)
	if err != nil {
		return 0, 0, 0, err
	}
	from, gotTag, n, err = eng.RecvCall(b, w, tag, c.ctx, prof.Stamping())
	if from >= 0 {
		from = c.CommRank(from)
	}
	return from, gotTag, n, MapErr(op, err)
}

// Probe waits for a matching message and describes it.
func (c *Comm) Probe(op string, src, tag int) (p2p.Status, error) {
	w, err := c.Target(op, "source", src, tag, true)
	if err != nil {
		return p2p.Status{}, err
	}
	st, err := eng.Probe(w, tag, c.ctx)
	return st, MapErr(op, err)
}

// Iprobe is Probe that does not wait.
func (c *Comm) Iprobe(op string, src, tag int) (p2p.Status, bool, error) {
	w, err := c.Target(op, "source", src, tag, true)
	if err != nil {
		return p2p.Status{}, false, err
	}
	st, ok, err := eng.Iprobe(w, tag, c.ctx)
	return st, ok, MapErr(op, err)
}

// Mprobe waits for a matching message and takes it off the queue for Mrecv.
func (c *Comm) Mprobe(op string, src, tag int) (p2p.Message, p2p.Status, error) {
	w, err := c.Target(op, "source", src, tag, true)
	if err != nil {
		return p2p.Message{}, p2p.Status{}, err
	}
	m, st, err := eng.Mprobe(w, tag, c.ctx)
	return m, st, MapErr(op, err)
}

// Improbe is Mprobe that does not wait.
func (c *Comm) Improbe(op string, src, tag int) (p2p.Message, p2p.Status, bool, error) {
	w, err := c.Target(op, "source", src, tag, true)
	if err != nil {
		return p2p.Message{}, p2p.Status{}, false, err
	}
	m, st, ok, err := eng.Improbe(w, tag, c.ctx)
	return m, st, ok, MapErr(op, err)
}

// The calls on requests and messages, which the engine owns; the communicator a
// request came from is the facade's to remember.

// Adopt makes a matched message of one the C library's MPI_Mprobe took off a ring
// itself (p2p.Engine.Adopt): n bytes from world rank src with tag on c's
// point-to-point context.
func (c *Comm) Adopt(src, tag, n int, fill func([]byte) bool) (p2p.Message, bool) {
	return eng.Adopt(c.ctx, src, tag, n, fill)
}

func Mrecv(b p2p.Buf, m *p2p.Message) (p2p.Status, error)   { return eng.Mrecv(b, m) }
func Imrecv(b p2p.Buf, m *p2p.Message) (p2p.Request, error) { return eng.Imrecv(b, m) }
func WaitInto(q *p2p.Request, st *p2p.Status) error         { return eng.WaitInto(q, st) }
func WaitCtx(ctx context.Context, q *p2p.Request) (p2p.Status, error) {
	return eng.WaitCtx(ctx, q)
}
func TestInto(q *p2p.Request, st *p2p.Status) (bool, error) { return eng.TestInto(q, st) }
func PeekInto(q *p2p.Request, st *p2p.Status) (bool, error) { return eng.PeekInto(q, st) }
func Cancel(q *p2p.Request) error                           { return eng.Cancel(q) }
func Withdraw(q *p2p.Request) error                         { return eng.Withdraw(q) }
func FreeRequest(q *p2p.Request) error                      { return eng.Free(q) }
func Start(q *p2p.Request) error                            { return eng.Start(q) }
func Waitall(qs []p2p.Request, sts []p2p.Status) error      { return eng.Waitall(qs, sts) }
func Testany(qs []p2p.Request) (int, p2p.Status, bool, error) {
	return eng.Testany(qs)
}
func Testall(qs []p2p.Request, sts []p2p.Status) (bool, error) { return eng.Testall(qs, sts) }
func Testsome(qs []p2p.Request, idx []int, sts []p2p.Status) (int, error) {
	return eng.Testsome(qs, idx, sts)
}

// AttachBuffer attaches b (auto: an automatic buffer, MPI_BUFFER_AUTOMATIC) as the
// process's buffer (c nil) or c's (MPI_Comm_attach_buffer): a buffered send on c uses
// c's buffer if it has one, else the process's.
func (c *Comm) AttachBuffer(op string, b []byte, auto bool) error {
	key, err := c.bufKey(op)
	if err != nil {
		return err
	}
	return MapErr(op, eng.AttachBuffer(key, b, auto))
}

// DetachBuffer waits until the messages in the buffer of c (the process's, for c nil)
// have left, detaches it and returns it (auto: it was automatic).
func (c *Comm) DetachBuffer(op string) ([]byte, bool, error) {
	key, err := c.bufKey(op)
	if err != nil {
		return nil, false, err
	}
	b, auto, err := eng.DetachBuffer(key)
	return b, auto, MapErr(op, err)
}

// FlushBuffer waits until the messages in the buffer of c (the process's, for c nil)
// have left.
func (c *Comm) FlushBuffer(op string) error {
	key, err := c.bufKey(op)
	if err != nil {
		return err
	}
	return MapErr(op, eng.FlushBuffer(key))
}

// IflushBuffer is FlushBuffer as a nonblocking operation.
func (c *Comm) IflushBuffer(op string) (*Pending, error) {
	key, err := c.bufKey(op)
	if err != nil {
		return nil, err
	}
	return Go(op, func() error { return MapErr(op, eng.FlushBuffer(key)) }), nil
}

// bufKey is the engine's name for the buffer of c: its context, or the process's
// buffer for c nil.
func (c *Comm) bufKey(op string) (uint32, error) {
	if c == nil {
		return p2p.ProcessBuffer, Ready(op)
	}
	if err := c.Check(op); err != nil {
		return 0, err
	}
	return c.ctx, nil
}

// Concurrent tells the engine that goroutines of the library's own (or the facade's)
// call it beside the user's: it takes its lock from now on.
func Concurrent() { eng.Concurrent() }

// ShareLock makes every engine started from now on take its lock as a word code
// outside Go takes too (p2p.Options.SharedLock): the C library calls it before MPI
// starts, for its short ways at MPI_THREAD_MULTIPLE.
func ShareLock() { sharedLock.Store(true) }

var sharedLock atomic.Bool

// SetDeferred gives the engine the function that posts the receives the C library
// holds back (p2p.Engine.SetDeferred). MPI runs.
func SetDeferred(fn func()) { eng.SetDeferred(fn) }

// PostDeferred has the engine post the receives the C library holds back now
// (p2p.Engine.PostDeferred). MPI runs.
func PostDeferred() { eng.PostDeferred() }

// ShortRecvs is how many blocking receives the engine's short way has done
// (p2p.Engine.ShortRecvs), for tests. MPI runs.
func ShortRecvs() uint64 { return eng.ShortRecvs() }

// Outside is the address of the engine's words for code outside Go
// (p2p.Engine.Outside): the C library's short way for small sends. MPI runs.
func Outside() uintptr { return eng.Outside() }

// OutsideCtx is the address of the matching words of c's point-to-point context for
// code outside Go (p2p.Engine.OutsideCtx), 0 if it has none.
func (c *Comm) OutsideCtx() uintptr { return eng.OutsideCtx(c.ctx) }

// The internal context's point-to-point, for the facade's value messages
// and topology constructors, with the tags of tags.go; ranks are ranks in c.

// IsendInternal starts a send of b to dest on c's internal context.
func (c *Comm) IsendInternal(b []byte, dest, tag int) (p2p.Request, error) {
	return eng.Isend(p2p.Bytes(b), c.WorldRank(dest), tag, c.ctx+1, p2p.Standard)
}

// IrecvInternal starts a receive from src on c's internal context.
func (c *Comm) IrecvInternal(b []byte, src, tag int) (p2p.Request, error) {
	return eng.Irecv(p2p.Bytes(b), c.WorldRank(src), tag, c.ctx+1)
}

// RecvAnyInternal receives the next message with tag from any rank on c's internal
// context, whatever its length.
func (c *Comm) RecvAnyInternal(tag int) ([]byte, error) {
	m, st, err := eng.Mprobe(AnySource, tag, c.ctx+1)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, st.Count)
	_, err = eng.Mrecv(p2p.Bytes(buf), &m)
	return buf, err
}
