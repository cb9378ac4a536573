package core

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/mpigo/mpigo/internal/p2p"
)

// Pending is a nonblocking operation of more than one message. Its zero value and nil
// are complete.
//
// A nonblocking collective's Pending is a pooled record: once its owner has reported
// it (Release, after Test or Wait said it is complete) or freed it (Free; then once it
// completes), it goes back to a pool and serves a later collective. Each reuse bumps
// the record's generation, and a handle holds the generation it was made at (a Ref),
// so a stale copy of a request is seen as one (Ref.Stale) and never sees another
// operation's state. Every other kind of Pending is not reused: its generation is
// always 0, and used marks it reported (a persistent one: freed) instead.
type Pending struct {
	op     PendingOp
	pooled PooledOp // op, when it is a pooled record (BindPooled); nil for the other kinds
	used   atomic.Bool
}

// PendingOp is an operation a Pending stands for. core's own kinds implement it, and
// so do the packages beside core for theirs (a window's shipped request): Test
// reports completion without waiting, Wait waits for it, DoneCh is a channel closed
// once it is done. An operation that has no such channel returns nil and implements
// WaitContext(ctx context.Context) error instead, which Pending.WaitContext then
// calls. Test and Wait may be called any number of times, from any goroutine, and
// give the same error once the operation is done.
type PendingOp interface {
	Test() (bool, error)
	Wait() error
	DoneCh() <-chan struct{}
}

// Bind makes p stand for op. p is typically a field of op's own record, so that
// handing out the request allocates nothing; p must not be in use by another
// operation.
func (p *Pending) Bind(op PendingOp) { p.op = op }

// PooledOp is a PendingOp whose record is reused for later operations: a
// nonblocking collective's (internal/collective). Each reuse bumps the record's
// generation (never 0), and every call through a handle names the generation the
// handle was made at, so that a stale handle never sees the operation that reuses
// the record: its test reports a complete null request, its wait returns at once,
// its channel is closed, and its release and free do nothing.
type PooledOp interface {
	PendingOp
	Gen() uint32 // the record's current generation
	TestGen(gen uint32) (bool, error)
	WaitGen(ctx context.Context, gen uint32) error // ctx nil: no context
	DoneChGen(gen uint32) <-chan struct{}
	ReleaseGen(gen uint32) // its owner has reported it: back to the pool
	FreeGen(gen uint32)    // its owner freed it: back to the pool once it completes
	Attach(f Finisher)     // f runs on the result at completion (ThenFinish)
}

// BindPooled makes p, a field of op's record, stand for op for good.
func (p *Pending) BindPooled(op PooledOp) { p.op, p.pooled = op, op }

// Pooled is p's pooled record (BindPooled), nil for nil and for the other kinds.
func (p *Pending) Pooled() PooledOp {
	if p == nil {
		return nil
	}
	return p.pooled
}

// Completed is the Pending shared by every operation complete when its call
// returned; it is never used up.
func Completed() *Pending { return donePending }

// doneOp is an operation complete when its call returned (a direct one-sided
// operation's request).
type doneOp struct{}

func (doneOp) Test() (bool, error) { return true, nil }

func (doneOp) Wait() error { return nil }

func (doneOp) DoneCh() <-chan struct{} { return closed }

var donePending = &Pending{op: doneOp{}}

// Ref is a Pending at one generation: what a request handle holds (see Pending).
type Ref struct {
	p   *Pending
	gen uint32
}

// RefOf is the Ref of p at generation gen (a handle's: p and p.Gen() when it was made).
func RefOf(p *Pending, gen uint32) Ref { return Ref{p: p, gen: gen} }

// Ref is p at its current generation, for its owner.
func (p *Pending) Ref() Ref { return Ref{p: p, gen: p.Gen()} }

// Gen is p's current generation (0 for the kinds that are not reused).
func (p *Pending) Gen() uint32 {
	if p != nil && p.pooled != nil {
		return p.pooled.Gen()
	}
	return 0
}

// pool is h's pooled record, nil if it is of another kind.
func (h Ref) pool() PooledOp {
	if h.p == nil {
		return nil
	}
	return h.p.pooled
}

// Stale reports whether h is used up: the handle it came from is a copy of a request
// already reported by a completion call or freed (through another copy), whose record
// may since serve another operation. A persistent request is used up once freed only.
func (h Ref) Stale() bool {
	if x := h.pool(); x != nil {
		return x.Gen() != h.gen
	}
	return h.p != nil && h.p.used.Load()
}

// useUp marks p, of a kind that is not pooled, used up (see Stale). The shared
// record of operations complete at once (donePending) is never used up.
func (p *Pending) useUp() {
	if p != nil && p != donePending {
		p.used.Store(true)
	}
}

// Test reports whether p has completed, and its error if so.
func (p *Pending) Test() (bool, error) { return p.Ref().Test() }

// Test reports whether h has completed, and its error if so.
func (h Ref) Test() (bool, error) {
	if x := h.pool(); x != nil {
		return x.TestGen(h.gen)
	}
	if h.p == nil || h.p.op == nil {
		return true, nil
	}
	return h.p.op.Test()
}

// WaitContext is Wait that gives up when ctx is done, with ctx's error; p stays
// pending then.
func (p *Pending) WaitContext(ctx context.Context) error { return p.Ref().WaitContext(ctx) }

// WaitContext is Wait that gives up when ctx is done, with ctx's error; h stays
// pending then.
func (h Ref) WaitContext(ctx context.Context) error {
	if x := h.pool(); x != nil {
		return x.WaitGen(ctx, h.gen)
	}
	p := h.p
	if p == nil || p.op == nil {
		return nil
	}
	if w, ok := p.op.(waitCtxOp); ok {
		return w.WaitContext(ctx)
	}
	if ok, err := p.op.Test(); ok {
		return err
	}
	select {
	case <-p.op.DoneCh():
		return p.op.Wait()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Wait waits for p to complete and returns its error.
func (p *Pending) Wait() error { return p.Ref().Wait() }

// Wait waits for h to complete and returns its error.
func (h Ref) Wait() error {
	if x := h.pool(); x != nil {
		return x.WaitGen(nil, h.gen)
	}
	if h.p == nil || h.p.op == nil {
		return nil
	}
	return h.p.op.Wait()
}

// DoneCh is closed once h is done (at once for a stale h).
func (h Ref) DoneCh() <-chan struct{} {
	if x := h.pool(); x != nil {
		return x.DoneChGen(h.gen)
	}
	if h.p == nil || h.p.op == nil {
		return closed
	}
	return h.p.op.DoneCh()
}

// Active reports whether h is under way (see Pending.Active); a stale h is not.
func (h Ref) Active() bool {
	if x := h.pool(); x != nil {
		return x.Gen() == h.gen
	}
	return h.p.Active()
}

// StatusInto is Pending.StatusInto (a collective's status is the empty one, stale or
// not).
func (h Ref) StatusInto(st *p2p.Status) error { return h.p.StatusInto(st) }

// Release is Pending.Release: a collective's record goes back to the pool (a stale h
// does nothing).
func (h Ref) Release() error {
	if x := h.pool(); x != nil {
		x.ReleaseGen(h.gen)
		return nil
	}
	if !h.p.IsPersistent() { // a persistent one becomes inactive instead
		h.p.useUp()
	}
	return h.p.Release()
}

// Free is Pending.Free: a collective's record goes back to the pool once it has
// completed (a stale h does nothing).
func (h Ref) Free() error {
	if x := h.pool(); x != nil {
		x.FreeGen(h.gen)
		return nil
	}
	h.p.useUp()
	return h.p.Free()
}

// Finisher is work a nonblocking operation does once it has completed, whether it
// succeeded (err nil) or failed: the facade's unpacking of typed results into the
// user's layout, and the release of its scratch. Finish returns the operation's
// result.
type Finisher interface {
	Finish(err error) error
}

// ThenFinish returns a Pending that completes when p, just started, does, after f
// has run on p's result, by whichever of Test and Wait sees the completion first.
// A collective's record carries f itself, so that the call allocates nothing;
// other kinds are wrapped. f must release whatever it holds on failure too, but not
// read buffers that messages in flight may still target.
func ThenFinish(p *Pending, f Finisher) *Pending {
	if x := p.Ref().pool(); x != nil {
		x.Attach(f)
		return p
	}
	return &Pending{op: &thenOp{p: p.Ref(), end: f.Finish}}
}

// Go runs f in a goroutine of its own as a nonblocking operation (Idup, the buffer
// iflushes): the engine takes its lock from now on, since f calls it beside the
// caller.
func Go(op string, f func() error) *Pending {
	o := &bgOp{ch: make(chan struct{})}
	eng.Concurrent()
	go func() {
		o.err = f()
		close(o.ch)
		NoteDone()
	}()
	o.box.op = o
	return &o.box
}

// bgOp is an operation running in a goroutine of its own.
type bgOp struct {
	ch  chan struct{}
	err error
	box Pending
}

func (o *bgOp) Test() (bool, error) {
	select {
	case <-o.ch:
		return true, o.err
	default:
		return false, nil
	}
}

func (o *bgOp) DoneCh() <-chan struct{} { return o.ch }

func (o *bgOp) Wait() error {
	<-o.ch
	return o.err
}

// thenOp is a nonblocking operation with work to do once it completes (unpacking
// typed outputs), done once, by whichever of Test and Wait sees the completion first.
type thenOp struct {
	p    Ref
	end  func(error) error
	once sync.Once
	err  error
}

func (o *thenOp) finish(err error) error {
	o.once.Do(func() { o.err = o.end(err) })
	return o.err
}

func (o *thenOp) Test() (bool, error) {
	ok, err := o.p.Test()
	if !ok {
		return false, nil
	}
	return true, o.finish(err)
}

func (o *thenOp) Wait() error { return o.finish(o.p.Wait()) }

func (o *thenOp) DoneCh() <-chan struct{} { return o.p.DoneCh() }

// release and free pass the user's report or free on to the operation inside, which
// may be a pooled record.
func (o *thenOp) Release() error { return o.p.Release() }

func (o *thenOp) Free() error { return o.p.Free() }

// closed is the done channel of an operation that was complete from the start.
var closed = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

// Closed is a channel closed from the start: the done channel of an operation that is
// complete.
func Closed() <-chan struct{} { return closed }

// startOp is an operation that is started anew for each round: a persistent
// collective, a partitioned send or receive.
type startOp interface {
	Start(op string) error
	IsActive() bool
}

// IsPersistent reports whether p is a persistent operation (Persistent, PartInit).
func (p *Pending) IsPersistent() bool {
	if p == nil {
		return false
	}
	_, ok := p.op.(startOp)
	return ok
}

// Active reports whether p is under way: false for nil and for an inactive persistent
// operation, which completion calls treat as a null request.
func (p *Pending) Active() bool {
	if p == nil || p.op == nil {
		return false
	}
	if o, ok := p.op.(startOp); ok {
		return o.IsActive()
	}
	return true
}

// Start starts a run of the persistent operation p (MPI_Start); starting one that is
// active, or an operation that is not persistent, is an error of class ErrRequest.
func (p *Pending) Start(op string) error {
	o, ok := startOp(nil), false
	if p != nil {
		o, ok = p.op.(startOp)
	}
	if !ok {
		return Errorf(ClassRequest, op, "not a persistent request")
	}
	return o.Start(op)
}
