package mpi

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
)

// Contexts: one mechanism for every blocking call. c.WithContext(ctx) is a view of c
// whose blocking calls end when ctx ends, with an error that wraps ctx.Err()
// (errors.Is(err, context.Canceled) holds) and has class ErrOther.
//
// The waits stay the engine's (the one idle policy: spin, yield, sleep on the
// doorbell); the context is watched through the policy (idle.Watch): read where a
// wait would yield or sleep, never while it spins, and, once the wait sleeps, by a
// pooled watcher goroutine that rings the doorbell when it ends, so a sleeping wait
// wakes at once. A call that completes allocates nothing for its context. What
// ending means depends on the call:
//   - a receive (Recv, RecvValue, Sendrecv's receive, Mprobe's) is cancelled in the
//     engine (Request.Cancel), so no message is lost and c stays usable; one that had
//     already matched its message completes instead, and returns it;
//   - a send is cancelled if its message has not left; otherwise the message is
//     delivered when its receiver takes it, and buf must not change until then;
//   - Probe just stops waiting; Wait, Waitall, Waitany and Waitsome on requests started
//     through the view stop waiting and leave them pending (as Request.WaitContext does);
//   - a collective cannot be taken back once started (other ranks may be in it), so
//     the communicator (every view of it too) runs no more collectives: each returns
//     an error of class ErrComm that says so. Point-to-point on it still works.
//
// A view's blocking collective runs in a goroutine of its own (a pooled one), the
// caller waiting for it or the context (which turns the engine's lock on for good, as a nonblocking
// collective does); given up, it goes on in the background and completes if the
// other ranks come, so its buffers belong to MPI until then. The same holds for the
// buffer-and-datatype (Buf) collectives, the neighbourhood collectives, and every
// communicator and topology constructor (Dup, DupWithInfo, Split, SplitType,
// SplitTypeInfo, Create, CreateGroup, IntercommCreate (local's context),
// IntercommMerge, CartCreate, CartSub, GraphCreate, DistGraphCreate,
// DistGraphCreateAdjacent); a communicator made by a given-up call is never returned,
// and stays MPI's.

// WithContext returns a view of c whose blocking calls honour ctx (see above). The
// view is c with a context: it shares c's communication, name, error handler, hints
// and attributes, so that setting one through the view sets c's (the attributes'
// callbacks are given c). Requests started through the view honour ctx in Wait. Free
// frees c, through any view. A nil ctx is context.Background().
func (c *Comm) WithContext(ctx context.Context) *Comm {
	if c == nil {
		return nil
	}
	if ctx == nil {
		ctx = context.Background()
	}
	v := &Comm{x: c.x, d: c.d, ctx: ctx}
	v.plain = &Comm{x: c.x, d: c.d}
	return v
}

// Context is the context of a view made by WithContext; context.Background() for a
// communicator that is not one.
func (c *Comm) Context() context.Context {
	if c == nil || c.ctx == nil {
		return context.Background()
	}
	return c.ctx
}

// ctxErr is the error of call op whose context ended.
func ctxErr(op string, err error, format string, a ...any) error {
	return mpir.CtxErr(op, err, format, a...)
}

// isCtx reports whether err is ctx's own error (the wait gave up).
func isCtx(ctx context.Context, err error) bool { return mpir.IsCtx(ctx, err) }

// Collectives stopped by a context: a communicator whose collective's wait gave up
// cannot run another (its ranks no longer agree on what was run), on any view.
var stopped struct {
	any atomic.Bool
	m   sync.Map // *core.Comm -> string (what stopped it)
}

// collStopped is the error of collective op on a stopped communicator, or nil.
func (c *Comm) collStopped(op string) error {
	if !stopped.any.Load() || c.dev() == nil {
		return nil
	}
	if why, ok := stopped.m.Load(c.d); ok {
		return &Error{Class: ClassComm, Op: op, Msg: fmt.Sprintf("%s can run no more collectives: %s", c.Name(), why.(string))}
	}
	return nil
}

// special reports whether c's blocking collectives take the nonblocking path: c is a
// view, or some communicator's collectives were stopped (then c's may be).
func (c *Comm) special() bool { return c != nil && (c.ctx != nil || stopped.any.Load()) }

// collArgs are the arguments of a view's collective, which its runner carries (see
// runner), so that the call itself can be a function literal that captures nothing
// and needs no closure on the heap.
type collArgs struct {
	p                *mpir.Coll     // the collective
	ca               mpir.CollArgs  // its arguments (coll)
	s, r             collective.Vec // or the short collectives'
	red              collective.Red // and their operation,
	rerr             error          // its error
	root             int
	counts, displs   []int
	rcounts, rdispls []int
	bs, br           Buf                              // the Buf collectives' buffers
	sraw, rraw       rawSlice                         // the generic ones' slices
	stypes, rtypes   []*Datatype                      // and Alltoallw's datatypes
	gen              genCall                          // a generic call (callGen)
	op               Op                               // and their operation
	base             *Comm                            // aroundArgs': c without its context
	fn               func(b *Comm, a *collArgs) error // aroundArgs' call
	call             func(*Comm) error                // around's
}

// rawSlice is a slice of any element type, kept in a view's arguments (collArgs)
// without boxing it in an interface (an allocation) or a closure: its pointer, length
// and capacity, given back by sliceOf as the very slice (InPlace's marker too).
type rawSlice struct {
	p    unsafe.Pointer
	n, c int
}

func rawOf[T any](s []T) rawSlice {
	return rawSlice{p: unsafe.Pointer(unsafe.SliceData(s)), n: len(s), c: cap(s)}
}

func sliceOf[T any](r rawSlice) []T {
	if r.p == nil {
		return nil
	}
	return unsafe.Slice((*T)(r.p), r.c)[:r.n]
}

// genCall is a generic function's call through a view, on the slices in a's sraw
// and rraw. A value of a generic function is a closure over its instantiation's
// dictionary, which escaping into the runner's arguments would put on the heap at
// every call; a method of an empty generic type, held as an interface, allocates
// nothing.
type genCall interface {
	call(b *Comm, a *collArgs) error
}

// callGen runs a's generic call.
func callGen(b *Comm, a *collArgs) error { return a.gen.call(b, a) }

// collArgs runs blocking collective op, the call run(c, a) made of a's copy (a's
// owner's to reuse), on a view, or on a communicator whose collectives may have been
// stopped (see special). A view's call runs in a goroutine of its own while the
// caller waits for it or for the context, so that it is the very collective the
// other ranks run (blocking collectives do not match nonblocking ones, and the node's
// paths differ); given up, it goes on in the background, and completes if the others
// come.
func (c *Comm) collArgs(op string, a *collArgs, run func(c *Comm, a *collArgs) error) error {
	if err := c.collStopped(op); err != nil {
		return c.fail(op, err)
	}
	ctx := c.ctx
	if ctx == nil || ctx.Done() == nil {
		// Run here, on a runner's copy of a: a itself, which run could keep as far as
		// the compiler knows, then stays on its caller's stack.
		g := takeRunner()
		g.args = *a
		err := run(c, &g.args)
		g.put()
		return c.failOnce(op, err)
	}
	if err := ctx.Err(); err != nil { // nothing started: c stays usable
		return c.fail(op, ctxErr(op, err, "its context had ended; nothing was started"))
	}
	core.Concurrent() // the collective's goroutine calls the engine beside the caller's
	g := takeRunner()
	g.c, g.args = c, *a
	background.start()
	g.jobs <- run
	select {
	case <-g.fin:
	case <-ctx.Done():
		if g.state.CompareAndSwap(running, abandoned) { // it goes on; g is its own
			err := ctx.Err()
			c.stopColl(op, err)
			return c.fail(op, ctxErr(op, err, "given up when its context ended; the other ranks may still be in it, so %s can run no more collectives", c.Name()))
		}
		<-g.fin // it completed meanwhile
	}
	err := g.err
	g.put()
	return c.failOnce(op, err)
}

// A view's blocking collective runs in a pooled goroutine (a runner), so that a call
// that completes allocates no goroutine, channel or record: the runner and its
// channels serve one collective after another.
type runner struct {
	jobs  chan func(c *Comm, a *collArgs) error // the collective to run, on c and args
	c     *Comm
	args  collArgs
	fin   chan struct{} // buffered: the run has ended, for a caller still waiting
	err   error         // the run's error, read after fin
	gone  chan struct{} // closed when its goroutine ends
	state atomic.Int32  // running, or abandoned by its caller
}

const (
	running int32 = iota
	abandoned
	finished
)

// maxIdleRunners bounds the runners kept for reuse: as many as a process has views'
// collectives running at once.
const maxIdleRunners = 16

var runners struct {
	sync.Mutex
	free []*runner
}

// takeRunner takes an idle runner from the pool, or starts one.
func takeRunner() *runner {
	runners.Lock()
	if k := len(runners.free); k > 0 {
		g := runners.free[k-1]
		runners.free[k-1] = nil
		runners.free = runners.free[:k-1]
		runners.Unlock()
		g.state.Store(running)
		return g
	}
	runners.Unlock()
	g := &runner{jobs: make(chan func(*Comm, *collArgs) error, 1), fin: make(chan struct{}, 1), gone: make(chan struct{})}
	go g.loop()
	return g
}

// stopRunners ends the goroutines of the idle runners and waits until they have
// ended, when MPI stops (Finalize, the last SessionFinalize), so that nothing of
// MPI's is left running; a later view's collective starts a new runner.
func stopRunners() {
	runners.Lock()
	free := runners.free
	runners.free = nil
	runners.Unlock()
	for _, g := range free {
		close(g.jobs)
	}
	for _, g := range free {
		<-g.gone
	}
}

// put gives g back to the pool once its run has ended and been read.
func (g *runner) put() {
	g.c, g.args, g.err = nil, collArgs{}, nil
	runners.Lock()
	if len(runners.free) < maxIdleRunners {
		runners.free = append(runners.free, g)
		g = nil
	}
	runners.Unlock()
	if g != nil {
		close(g.jobs) // one too many: its goroutine ends
	}
}

func (g *runner) loop() {
	defer close(g.gone)
	for run := range g.jobs {
		err := run(g.c, &g.args)
		if g.state.CompareAndSwap(running, finished) {
			g.err = err
			background.end()
			g.fin <- struct{}{}
			continue
		}
		// Its caller gave up: nobody reads err. Back in the pool before Finalize's
		// wait for the background calls ends, so that Finalize stops it.
		g.put()
		background.end()
	}
}

// around runs a blocking collective op of c that has no device-level form of its own
// (the Buf, neighbourhood and communicator-making calls) as coll does, by calling the
// same function on c without its context (call, whose errors have been through the
// handler already); done is false when c is neither a view nor stopped, and the
// caller goes on as usual. Its closure costs an allocation per call: the collectives
// use aroundArgs instead, and only the constructors, which allocate a communicator
// anyway, use around.
func (c *Comm) around(op string, call func(b *Comm) error) (done bool, err error) {
	return c.aroundArgs(op, &collArgs{call: call}, callAround)
}

// callAround is around's call.
func callAround(b *Comm, a *collArgs) error { return a.call(b) }

// aroundArgs is around for a call fn(b, a) on a's copy (b: c without its context), so
// that fn can be a function that captures nothing, and a call that completes
// allocates nothing (see collArgs).
func (c *Comm) aroundArgs(op string, a *collArgs, fn func(b *Comm, a *collArgs) error) (done bool, err error) {
	if !c.special() {
		return false, nil
	}
	if err := c.collStopped(op); err != nil {
		return true, c.fail(op, err)
	}
	if c.ctx == nil || c.ctx.Done() == nil {
		return false, nil
	}
	a.base, a.fn = c.base(), fn
	return true, c.collArgs(op, a, runAround)
}

// runAround is around's call, on c without its context.
func runAround(_ *Comm, a *collArgs) error {
	if err := a.fn(a.base, a); err != nil {
		return raised{err}
	}
	return nil
}

// aroundNew is around for a constructor of communicators: call makes the new one on c
// without its context. done is false when c is neither a view nor stopped; then the
// caller goes on as usual.
func (c *Comm) aroundNew(op string, call func(b *Comm) (*Comm, error)) (nc *Comm, done bool, err error) {
	if !c.special() {
		return nil, false, nil
	}
	var made *Comm
	done, err = c.around(op, func(b *Comm) (err error) { made, err = call(b); return err })
	if !done {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err // made is not read: a given-up call may still set it
	}
	return made, true, nil
}

// raised marks an error that has been through the handler already, so coll does not
// pass it again.
type raised struct{ err error }

func (r raised) Error() string { return r.err.Error() }

// failOnce is fail for an error that may have been through the handler already.
func (c *Comm) failOnce(op string, err error) error {
	if r, ok := err.(raised); ok {
		return r.err
	}
	return c.fail(op, err)
}

// stopColl stops c's collectives: op's wait gave up with err.
func (c *Comm) stopColl(op string, err error) {
	stopped.m.LoadOrStore(c.d, fmt.Sprintf("a %s was given up when its context ended (%v)", op, err))
	stopped.any.Store(true)
}

// base is c without its context (c itself when it is not a view).
func (c *Comm) base() *Comm {
	if c == nil || c.ctx == nil {
		return c
	}
	if c.plain != nil {
		return c.plain
	}
	return &Comm{x: c.x, d: c.d}
}

// ctxOf is the context of the first request of rs started through a view, or nil.
func ctxOf(rs []Request) context.Context {
	for i := range rs {
		if c := rs[i].c; c != nil && c.ctx != nil {
			return c.ctx
		}
	}
	return nil
}

// background counts the views' collectives running in goroutines of their own. One
// given up goes on until the other ranks come; Finalize waits for them (an operation
// under way is the program's to complete before Finalize, and tearing the transports
// down beneath it would break it), which also orders their last use of the device
// before its teardown.
var background bgCalls

type bgCalls struct {
	mu   sync.Mutex
	cond sync.Cond
	n    int
}

func (b *bgCalls) start() {
	b.mu.Lock()
	b.n++
	b.mu.Unlock()
}

func (b *bgCalls) end() {
	b.mu.Lock()
	b.n--
	if b.cond.L != nil {
		b.cond.Broadcast()
	}
	b.mu.Unlock()
}

// wait returns once no view's collective runs in the background.
func (b *bgCalls) wait() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cond.L == nil {
		b.cond.L = &b.mu
	}
	for b.n > 0 {
		b.cond.Wait()
	}
}
