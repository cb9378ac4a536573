package core

import (
	"context"
	"sync"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/p2p"
	"github.com/mpigo/mpigo/internal/yield"
)

// Nonblocking operations of more than one message: collectives (a schedule driven step
// by step) and operations that run in a goroutine of their own. A collective's call
// posts the first round and returns. A progress goroutine, alive while any nonblocking
// collective is outstanding, waits on all their pending messages at once (the engine's
// Waitany, so it sleeps through the engine's idle policy rather than spinning) and
// advances each schedule as its messages complete. So a collective completes while its
// caller computes, or blocks in some other call, and ranks that wait on their requests
// in different orders cannot deadlock. Test and Wait advance the schedules too, so a
// request found complete is reported at once.

// Pending is a nonblocking operation of more than one message. Its zero value and nil
// are complete.
type Pending struct {
	op pendingOp
}

type pendingOp interface {
	test() (bool, error)
	wait() error
	doneCh() <-chan struct{}
}

// Test reports whether p has completed, and its error if so.
func (p *Pending) Test() (bool, error) {
	if p == nil || p.op == nil {
		return true, nil
	}
	return p.op.test()
}

// WaitContext is Wait that gives up when ctx is done, with ctx's error; p stays
// pending then.
func (p *Pending) WaitContext(ctx context.Context) error {
	if p == nil || p.op == nil {
		return nil
	}
	if w, ok := p.op.(waitCtxOp); ok {
		return w.waitCtx(ctx)
	}
	if ok, err := p.op.test(); ok {
		return err
	}
	select {
	case <-p.op.doneCh():
		return p.op.wait()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Wait waits for p to complete and returns its error.
func (p *Pending) Wait() error {
	if p == nil || p.op == nil {
		return nil
	}
	return p.op.wait()
}

// collOp is a nonblocking collective: until it is done, its buffers belong to MPI.
type collOp struct {
	s    *coll.Sched
	name string
	done bool
	err  error
	out  bool // its pending requests are lent to the progress goroutine
	// ch is closed once done; made (under nbColl.mu) only when a waiter must block,
	// so that a collective that completes before anyone waits costs no channel.
	ch  chan struct{}
	box Pending
	// fin, if set, runs once the schedule has succeeded, before its scratch buffers
	// go back (Alltoallw unpacks what it received there into the user's layout).
	fin func() error
}

var nbColl struct {
	mu      sync.Mutex
	ops     []*collOp
	running bool // the progress goroutine is alive
}

// StartColl starts the schedule s of the nonblocking collective op (err: building it
// failed, which Start returns); fin, if not nil, runs once s has succeeded.
func StartColl(op string, s *coll.Sched, fin func() error, err error) (*Pending, error) {
	if err != nil {
		return nil, err
	}
	x := &collOp{s: s, name: op, fin: fin}
	nbColl.mu.Lock()
	nbColl.ops = append(nbColl.ops, x)
	progressColl()
	if !x.done && !nbColl.running {
		nbColl.running = true
		eng.Concurrent() // the loop calls the engine beside the caller
		go progressLoop()
	}
	nbColl.mu.Unlock()
	x.box.op = x
	return &x.box, nil
}

// progressColl advances every schedule not lent out; finished ones leave the list.
// The caller holds nbColl.mu.
func progressColl() {
	ops := nbColl.ops[:0]
	for _, x := range nbColl.ops {
		if !x.out {
			if done, err := x.s.Progress(); done {
				if err == nil && x.fin != nil {
					err = x.fin()
				}
				x.done, x.err = true, err
				x.s.Free()
				x.s = nil
				if x.ch != nil {
					close(x.ch)
				}
				noteDone()
				continue
			}
		}
		ops = append(ops, x)
	}
	clear(nbColl.ops[len(ops):])
	nbColl.ops = ops
}

type lent struct {
	x *collOp
	i int
}

// progressLoop is the progress goroutine: it borrows the pending requests of every
// outstanding schedule, waits until one completes, gives them back and advances the
// schedules, until none is left.
func progressLoop() {
	var (
		qs    []p2p.Request
		backs []lent
		mine  []*collOp
	)
	for {
		nbColl.mu.Lock()
		progressColl()
		if len(nbColl.ops) == 0 {
			nbColl.running = false
			nbColl.mu.Unlock()
			return
		}
		qs, backs, mine = qs[:0], backs[:0], mine[:0]
		for _, y := range nbColl.ops {
			y.out = true
			mine = append(mine, y)
			for i, q := range y.s.Pending() {
				qs = append(qs, engReq(q))
				backs = append(backs, lent{y, i})
			}
		}
		nbColl.mu.Unlock()
		if len(qs) > 0 {
			eng.Waitany(qs)
		} else {
			yield.Gosched()
		}
		nbColl.mu.Lock()
		for k, b := range backs {
			b.x.s.Pending()[b.i] = collReq(qs[k])
		}
		for _, y := range mine {
			y.out = false
		}
		nbColl.mu.Unlock()
	}
}

func (x *collOp) test() (bool, error) {
	nbColl.mu.Lock()
	progressColl()
	done := x.done
	nbColl.mu.Unlock()
	if !done {
		return false, nil
	}
	return true, MapErr(x.name, x.err)
}

func (x *collOp) doneCh() <-chan struct{} {
	nbColl.mu.Lock()
	defer nbColl.mu.Unlock()
	return x.waitCh()
}

// waitCh is the channel closed once x is done (nbColl.mu held).
func (x *collOp) waitCh() <-chan struct{} {
	if x.done {
		return closed
	}
	if x.ch == nil {
		x.ch = make(chan struct{})
	}
	return x.ch
}

func (x *collOp) wait() error {
	nbColl.mu.Lock()
	progressColl()
	ch := x.waitCh()
	nbColl.mu.Unlock()
	<-ch
	return MapErr(x.name, x.err)
}

// Go runs f in a goroutine of its own as a nonblocking operation (Idup, the
// nonblocking neighbourhood collectives): the engine takes its lock from now on, since
// f calls it beside the caller.
func Go(op string, f func() error) *Pending {
	o := &bgOp{ch: make(chan struct{})}
	eng.Concurrent()
	go func() {
		o.err = f()
		close(o.ch)
		noteDone()
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

func (o *bgOp) test() (bool, error) {
	select {
	case <-o.ch:
		return true, o.err
	default:
		return false, nil
	}
}

func (o *bgOp) doneCh() <-chan struct{} { return o.ch }

func (o *bgOp) wait() error {
	<-o.ch
	return o.err
}
