package p2p

import (
	"context"
	"errors"

	"github.com/mpigo/mpigo/internal/idle"
)

// Served contexts: one goroutine serves requests that arrive on many contexts (the
// one-sided windows' progress: internal/window), and waits for all of them in one
// wait. A goroutine per context, each asleep in its own wait, costs the process a
// thread per context, and every packet, or every nap's end, wakes them all: with
// hundreds of windows alive the ranks' cores go to waiters that find nothing. Here
// the engine notes, as it queues a message nobody has received yet, the contexts whose
// served tag it carries, in the order they first got one, and NextServed waits (the
// engine's idle policy, as any wait) until a context of the list has such a message
// and the server's claim of it succeeds, and hands the message over (as Mprobe does).
// A message taken by someone else first (a window's own calls apply its requests
// while they wait, under the lock the claim takes) leaves a context noted for nothing,
// which costs one look.
//
// One goroutine serves the contexts of an engine at a time. Guarded by e.mu.
type served struct {
	ready []uint32 // contexts noted, in order, each once
	wake  bool     // Interrupt: NextServed returns ErrInterrupted
}

// ErrInterrupted is NextServed's error after InterruptServed.
var ErrInterrupted = errors.New("the wait for served contexts was interrupted")

// ServeContext has the engine note context ctx for NextServed each time a message of
// tag tag arrives on it that no posted receive takes, from now until UnserveContext; a
// message of that tag already queued notes it at once. owner is what NextServed hands
// its claim and returns with the context's messages (a window).
func (e *Engine) ServeContext(ctx uint32, tag int, owner any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	q := e.ctxq(ctx)
	q.serve, q.serveTag, q.noted, q.owner = true, int32(tag), false, owner
	for m := q.unexp.head; m != nil; m = m.next {
		if m.tag == q.serveTag {
			e.note(ctx, q)
			break
		}
	}
}

// UnserveContext ends ServeContext of ctx: NextServed no longer returns it.
func (e *Engine) UnserveContext(ctx uint32) {
	e.mu.Lock()
	defer e.mu.Unlock()
	q := e.ctxq(ctx)
	q.serve, q.owner = false, nil
	if q.noted {
		q.noted = false
		for i, c := range e.srv.ready {
			if c == ctx {
				e.srv.ready = append(e.srv.ready[:i], e.srv.ready[i+1:]...)
				break
			}
		}
	}
}

// note puts ctx on the served list (e.mu held; q is ctx's queues, served).
func (e *Engine) note(ctx uint32, q *ctxq) {
	if !q.noted {
		q.noted = true
		e.srv.ready = append(e.srv.ready, ctx)
	}
}

// NextServed waits until a message of its served tag is queued on a served context
// and claim, called with e.mu held, accepts that context's owner, then takes the first
// such message (as Mprobe does) and returns it with the owner. claim takes what the
// caller needs to apply the context's messages in order (a lock: TryLock); a context
// it refuses stays on the list and the wait goes on (the one holding that lock takes
// the messages, or leaves them to a later look). A context with more messages queued
// goes to the back of the list; one noted whose messages were taken meanwhile leaves
// it. The wait drives the engine's progress as any wait does and goes through its
// idle policy (a sleeping wait costs nothing until a packet rings). It returns c's
// error when c ends (c nil: never), ErrInterrupted after InterruptServed, and the
// engine's error once it has failed (Close).
func (e *Engine) NextServed(c context.Context, claim func(owner any) bool) (any, Message, Status, error) {
	var wv idle.Watch
	cw := e.watch(c, &wv)
	defer cw.Stop()
	e.mu.Lock()
	defer e.mu.Unlock()
	var owner any
	var m *umsg
	cond := func() bool {
		if e.srv.wake || e.failed != nil {
			return true
		}
		for i := 0; i < len(e.srv.ready); {
			c := e.srv.ready[i]
			q := e.ctxq(c)
			var first *umsg
			if q.unexp.head != nil {
				first = q.matchUnexp(AnySource, q.serveTag)
			}
			if first == nil {
				q.noted = false
				e.srv.ready = append(e.srv.ready[:i], e.srv.ready[i+1:]...)
				continue
			}
			if !claim(q.owner) {
				i++
				continue
			}
			e.take(q, first)
			e.srv.ready = append(e.srv.ready[:i], e.srv.ready[i+1:]...)
			if q.matchUnexp(AnySource, q.serveTag) != nil {
				e.srv.ready = append(e.srv.ready, c)
			} else {
				q.noted = false
			}
			owner, m = q.owner, first
			return true
		}
		return false
	}
	if !cond() {
		e.progressLocked()
		if !cond() {
			if err := e.block(cw, nil, cond); err != nil {
				return nil, Message{}, Status{}, err
			}
		}
	}
	switch {
	case m != nil:
		return owner, Message{m: m, gen: m.gen}, m.status(), nil
	case e.srv.wake:
		e.srv.wake = false
		return nil, Message{}, Status{}, ErrInterrupted
	}
	return nil, Message{}, Status{}, e.failed
}

// InterruptServed makes the NextServed under way, or else the next one, return
// ErrInterrupted.
func (e *Engine) InterruptServed() {
	e.mu.Lock()
	e.srv.wake = true
	e.mu.Unlock()
	e.db.Ring()
}
