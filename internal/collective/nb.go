package collective

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/idle"
	"github.com/mpigo/mpigo/internal/p2p"
	"github.com/mpigo/mpigo/internal/yield"
)

// Nonblocking operations of more than one message: collectives (a schedule driven step
// by step) and operations that run in a goroutine of their own. A collective's call
// posts the first round and returns. Every outstanding collective's pending messages
// are waited on at once (the engine's Waitany, so the wait sleeps through the engine's
// idle policy rather than spinning) by one driver at a time, which then advances each
// schedule as its messages complete: the progress goroutine, alive while any nonblocking
// collective is outstanding, or a Wait on one of them. So a collective completes while
// its caller computes, or blocks in some other call, and ranks that wait on their
// requests in different orders cannot deadlock. A Wait drives the schedules itself
// (taking them from the progress goroutine, which gives them back at once and sleeps
// until no Wait is left), so that the completion it waits for reaches it with no
// handoff between goroutines. Test advances the schedules not borrowed, so a request
// found complete is reported at once.

// collOp is a nonblocking collective: until it is done, its buffers belong to MPI.
// Records are pooled (see Pending); every field but gen and box is guarded by
// nbColl.mu, and gen is written under it too.
type collOp struct {
	s    schedule
	name string
	done bool
	err  error
	out  bool // its pending requests are lent to the progress goroutine
	// ch is closed once done; made (under nbColl.mu) only for a waiter that needs a
	// channel (Ref.doneCh), so that Wait and WaitContext, which sleep on nbColl.wake
	// instead, cost no allocation.
	ch chan struct{}
	// st is the staging of typed buffers (typed.go) when staging is set, and then a
	// Finisher the facade attached (ThenFinish): both run at the end, on success
	// and failure, before the record reports its completion. They ride in the
	// record so that a nonblocking collective on a datatype allocates nothing.
	st      staged
	staging bool
	then    core.Finisher
	freed   bool // its owner freed it: back to the pool once done
	gen     atomic.Uint32
	box     core.Pending // bound to the record itself, for good (BindPooled)
}

// maxFreeColl bounds the pool of collective records: enough for the collectives a
// program keeps outstanding at once.
const maxFreeColl = 256

var nbColl struct {
	mu      sync.Mutex
	ops     []*collOp
	free    []*collOp // records to reuse
	running bool      // the progress goroutine is alive
	// driver is who has borrowed the outstanding collectives' pending requests and
	// waits on them in the engine: nobody, the progress goroutine, or a Wait. steal
	// asks the progress goroutine's wait to end (a Wait wants to drive).
	driver driverKind
	steal  atomic.Bool
	// wake is broadcast when a collective completes, or the driving is given up,
	// while someone sleeps on it (wakeSleepers): the Waits asleep on nbColl.mu, each
	// of which then looks at its own record again, and the progress goroutine while
	// it leaves the driving to them.
	wake     sync.Cond
	sleepers int  // asleep on wake, the progress goroutine included
	waiters  int  // Waits on a collective not yet done
	loopIdle bool // the progress goroutine sleeps on wake until waiters is 0
	// The driver's lists, kept from one drive to the next.
	loop struct {
		qs    []p2p.Request
		backs []lent
		mine  []*collOp
	}
}

func init() { nbColl.wake.L = &nbColl.mu }

// A collective's record is a pooled one: its handles name its generation.
var _ core.PooledOp = (*collOp)(nil)

// eng is the runtime's engine, which the progress goroutine waits in.
func eng() *p2p.Engine { return core.Engine() }

// schedule is what a collective's record drives: a coll.Sched, a neighbourhood
// exchange (neighbor.go) or an Alltoallw (alltoallw.go), whose Progress does what must
// follow the messages (unpacking) before it reports done. Progress advances it without waiting; Pending is the
// requests it waits for, which the progress goroutine borrows and stores back
// (completed ones null); Free releases it once done.
type schedule interface {
	Progress() (bool, error)
	Pending() []coll.Req
	Free()
}

// startSched starts s as the nonblocking collective op.
func startSched(op string, s schedule) *core.Pending {
	nbColl.mu.Lock()
	x := newCollOp()
	x.s, x.name = s, op
	nbColl.ops = append(nbColl.ops, x)
	progressColl()
	if !x.done && !nbColl.running {
		nbColl.running = true
		eng().Concurrent() // the loop calls the engine beside the caller
		go progressLoop()
	}
	nbColl.mu.Unlock()
	return &x.box
}

// newCollOp takes a record from the pool, or makes one (nbColl.mu held).
func newCollOp() *collOp {
	if k := len(nbColl.free); k > 0 {
		x := nbColl.free[k-1]
		nbColl.free[k-1] = nil
		nbColl.free = nbColl.free[:k-1]
		return x
	}
	x := &collOp{}
	x.box.BindPooled(x)
	x.gen.Store(1)
	return x
}

// recycle puts x, done, back in the pool under its next generation (nbColl.mu held):
// every handle of the generation it served is stale from now on.
func (x *collOp) recycle() {
	g := x.gen.Load() + 1
	if g == 0 {
		g = 1
	}
	x.s, x.name, x.done, x.err, x.out, x.ch, x.freed = nil, "", false, nil, false, nil, false
	x.st, x.staging, x.then = staged{}, false, nil
	x.gen.Store(g)
	if len(nbColl.free) < maxFreeColl {
		nbColl.free = append(nbColl.free, x)
	}
}

// progressColl advances every schedule not lent out; finished ones leave the list
// (and go back to the pool if their owner has freed them). The caller holds
// nbColl.mu.
func progressColl() {
	ops := nbColl.ops[:0]
	for _, x := range nbColl.ops {
		if !x.out {
			if done, err := x.s.Progress(); done {
				x.done, x.err = true, x.end(err)
				x.s.Free()
				x.s = nil
				if x.ch != nil {
					close(x.ch)
				}
				wakeSleepers()
				core.NoteDone()
				if x.freed {
					x.recycle()
				}
				continue
			}
		}
		ops = append(ops, x)
	}
	clear(nbColl.ops[len(ops):])
	nbColl.ops = ops
}

// end runs x's staging and attached Finisher, if any, on the schedule's result err
// (nbColl.mu held), once: each is dropped after it ran.
func (x *collOp) end(err error) error {
	if x.staging {
		err = x.st.done(err)
		x.st, x.staging = staged{}, false
	}
	if f := x.then; f != nil {
		x.then = nil
		err = f.Finish(err)
	}
	return err
}

// attach gives x, just started and not yet handed to its owner, its staging (st,
// if not nil) or a Finisher (f, if not nil). A schedule may have completed inside
// startSched already: then they run here, and x reports their result.
func (x *collOp) attach(st *staged, f core.Finisher) {
	nbColl.mu.Lock()
	if st != nil {
		x.st, x.staging = *st, true
	}
	x.then = f
	if x.done {
		x.err = x.end(x.err)
	}
	nbColl.mu.Unlock()
}

type lent struct {
	x *collOp
	i int
}

// driverKind says who drives the outstanding collectives.
type driverKind uint8

const (
	noDriver driverKind = iota
	loopDriver
	waitDriver
)

// progressLoop is the progress goroutine: it drives the outstanding collectives,
// leaving the driving to the Waits while there are any, until none is left.
func progressLoop() {
	for progressTurn() {
	}
}

// progressTurn is one step of the progress goroutine's life: it advances the
// schedules and, unless a Wait drives them, waits on their messages once. It reports
// false, the life over, when no collective is outstanding.
func progressTurn() bool {
	nbColl.mu.Lock()
	defer nbColl.mu.Unlock()
	progressColl()
	switch {
	case len(nbColl.ops) == 0:
		nbColl.running = false
		return false
	case nbColl.driver != noDriver || nbColl.waiters > 0:
		nbColl.loopIdle = true
		nbColl.sleepers++
		nbColl.wake.Wait()
		nbColl.sleepers--
		nbColl.loopIdle = false
	default:
		drive(loopDriver, nil)
	}
	return true
}

// drive borrows the pending requests of every outstanding schedule, waits (nbColl.mu
// released) until one completes, gives them back and advances the schedules; nbColl.mu
// is held, and no one else drives. The progress goroutine's wait ends early when a Wait
// asks to steal it; a Wait's, when its context c ends (then it returns c's error).
func drive(who driverKind, c context.Context) error {
	nbColl.driver = who
	l := &nbColl.loop
	qs, backs, mine := l.qs[:0], l.backs[:0], l.mine[:0]
	for _, y := range nbColl.ops {
		y.out = true
		mine = append(mine, y)
		for i, q := range y.s.Pending() {
			qs = append(qs, core.EngineReq(q))
			backs = append(backs, lent{y, i})
		}
	}
	nbColl.mu.Unlock()
	done, st, err := -1, p2p.Status{}, error(nil)
	var stop *atomic.Bool
	if who == loopDriver {
		stop = &nbColl.steal
	}
	switch {
	case len(qs) > 0:
		done, st, err = eng().WaitanyUntil(c, stop, qs)
	default:
		yield.Gosched()
	}
	nbColl.mu.Lock()
	for k, b := range backs {
		// Completed here: the schedule's Test finds it null, or marked when it
		// failed or its receive was truncated or short (core.GiveBack).
		core.GiveBack(&b.x.s.Pending()[b.i], qs[k], k == done, st, err)
	}
	for _, y := range mine {
		y.out = false
	}
	clear(mine)
	l.qs, l.backs, l.mine = qs[:0], backs[:0], mine[:0]
	nbColl.driver = noDriver
	nbColl.steal.Store(false)
	progressColl()
	wakeSleepers() // the next driver, if any, takes over
	if done < 0 && err != nil && c != nil && c.Err() != nil {
		return c.Err()
	}
	return nil
}

// wakeSleepers wakes those asleep on nbColl.wake (nbColl.mu held): every Wait, and the
// progress goroutine only once no Wait is left to drive, so that a Wait that drives
// does not wake it for nothing.
func wakeSleepers() {
	n := nbColl.sleepers
	if nbColl.loopIdle {
		n--
	}
	if n > 0 || (nbColl.loopIdle && nbColl.waiters == 0) {
		nbColl.wake.Broadcast()
	}
}

func (x *collOp) Test() (bool, error) { return x.TestGen(x.gen.Load()) }

func (x *collOp) TestGen(gen uint32) (bool, error) {
	nbColl.mu.Lock()
	if x.gen.Load() != gen {
		nbColl.mu.Unlock()
		return true, nil // a stale handle: the null request
	}
	progressColl()
	done, name, err := x.done, x.name, x.err
	nbColl.mu.Unlock()
	if !done {
		return false, nil
	}
	return true, core.MapErr(name, err)
}

func (x *collOp) DoneCh() <-chan struct{} {
	nbColl.mu.Lock()
	defer nbColl.mu.Unlock()
	return x.waitCh()
}

// collOf is p's collective record, nil if p is of another kind.
func collOf(p *core.Pending) *collOp {
	x, _ := p.Pooled().(*collOp)
	return x
}

// Gen is x's current generation.
func (x *collOp) Gen() uint32 { return x.gen.Load() }

// DoneChGen is closed once x at generation gen is done (at once for a stale one).
func (x *collOp) DoneChGen(gen uint32) <-chan struct{} {
	nbColl.mu.Lock()
	defer nbColl.mu.Unlock()
	if x.gen.Load() != gen {
		return core.Closed()
	}
	return x.waitCh()
}

// Attach gives x, just started, a Finisher the facade attached (ThenFinish).
func (x *collOp) Attach(f core.Finisher) { x.attach(nil, f) }

// waitCh is the channel closed once x is done (nbColl.mu held).
func (x *collOp) waitCh() <-chan struct{} {
	if x.done {
		return core.Closed()
	}
	if x.ch == nil {
		x.ch = make(chan struct{})
	}
	return x.ch
}

func (x *collOp) Wait() error { return x.WaitGen(nil, x.gen.Load()) }

// WaitGen waits for x at generation gen (a stale handle's wait returns at once, as
// for the null request), or until ctx, if not nil, is done. It sleeps on nbColl.wake
// either way; a context's end wakes it through an idle.Watch (collBell), so a wait
// with a context allocates nothing either.
func (x *collOp) WaitGen(ctx context.Context, gen uint32) error {
	nbColl.mu.Lock()
	if x.gen.Load() != gen {
		nbColl.mu.Unlock()
		return nil
	}
	progressColl()
	w := idle.NewWatch(ctx, collBell{})
	if err := waitDone(x, gen, &w, ctx); err != nil {
		nbColl.mu.Unlock()
		w.Stop()
		return err
	}
	var name string
	var err error
	if x.gen.Load() == gen { // else another copy of the handle reported it meanwhile
		name, err = x.name, x.err
	}
	nbColl.mu.Unlock()
	w.Stop() // not under nbColl.mu, which collBell.Ring takes
	return core.MapErr(name, err)
}

// waitDone waits until x, at generation gen, is done (nbColl.mu held), driving the
// schedules whenever no one else does, or until w's context ends (its error).
func waitDone(x *collOp, gen uint32, w *idle.Watch, ctx context.Context) error {
	if x.done {
		return nil
	}
	nbColl.waiters++
	defer func() {
		nbColl.waiters--
		wakeSleepers()
	}()
	for !x.done && x.gen.Load() == gen {
		// Armed and looked at under nbColl.mu, which collBell.Ring takes: a
		// context that ends after the look wakes the Wait below.
		w.Arm()
		if w.Ended() {
			return ctx.Err()
		}
		switch nbColl.driver {
		case noDriver:
			if err := drive(waitDriver, ctx); err != nil {
				return err
			}
			continue
		case loopDriver:
			if !nbColl.steal.Load() {
				nbColl.steal.Store(true) // the loop gives the driving up at once
				eng().Doorbell().Ring()
			}
		}
		nbColl.sleepers++
		nbColl.wake.Wait()
		nbColl.sleepers--
	}
	return nil
}

// collBell wakes the waits asleep on nbColl.wake: a context's end rings it.
type collBell struct{}

func (collBell) Ring() {
	nbColl.mu.Lock()
	nbColl.wake.Broadcast()
	nbColl.mu.Unlock()
}

// ReleaseGen puts x back in the pool once its owner has reported it.
func (x *collOp) ReleaseGen(gen uint32) {
	nbColl.mu.Lock()
	if x.gen.Load() == gen && x.done {
		x.recycle()
	}
	nbColl.mu.Unlock()
}

// FreeGen: x completes unobserved and then goes back to the pool.
func (x *collOp) FreeGen(gen uint32) {
	nbColl.mu.Lock()
	if x.gen.Load() == gen {
		if x.done {
			x.recycle()
		} else {
			x.freed = true
		}
	}
	nbColl.mu.Unlock()
}
