package core

import (
	"context"
	"sync"

	"github.com/mpigo/mpigo/internal/p2p"
)

// Requests that are neither one message nor a collective: a send and a receive
// completing as one (MPI_Isendrecv), and generalized requests (MPI_Grequest_start),
// which the user completes. Both have a status of their own, which a request of a
// collective has not; a generalized request also has the user's free and cancel
// functions. The optional interfaces below say which an operation has.

// statusOp is an operation whose completion has a status (the receive's, or the
// generalized request's query).
type statusOp interface{ Status() (p2p.Status, error) }

// releaseOp is an operation that does work when a completion call reports it.
type releaseOp interface{ Release() error }

// freeOp is an operation that does work when the user frees it.
type freeOp interface{ Free() error }

// cancelOp is an operation that can be cancelled.
type cancelOp interface{ Cancel() error }

// waitCtxOp is an operation whose WaitContext does not use its done channel.
type waitCtxOp interface {
	WaitContext(ctx context.Context) error
}

// Which kinds have which of the optional methods, checked by the compiler: the
// interfaces are only asserted at run time, where a method that fell out of one
// (renamed, or its signature changed) would silently change what a call does.
var (
	_ = []waitCtxOp{(*pairOp)(nil), (*partOp)(nil)}
	_ = []statusOp{(*pairOp)(nil), (*genOp)(nil), (*partOp)(nil)}
	_ = []releaseOp{(*genOp)(nil), (*partOp)(nil), (*thenOp)(nil)}
	_ = []freeOp{(*pairOp)(nil), (*genOp)(nil), (*partOp)(nil), (*thenOp)(nil)}
	_ = []cancelOp{(*pairOp)(nil), (*genOp)(nil)}
	_ = []startOp{(*partOp)(nil)}
)

// StatusInto fills *st with the status of p, which has completed (Test or Wait said
// so): the receive's for a send and receive, the query function's for a generalized
// request, the empty status for the rest. The error is the query's.
func (p *Pending) StatusInto(st *p2p.Status) error {
	if p != nil {
		if s, ok := p.op.(statusOp); ok {
			// By value: a pointer passed through the interface would move every
			// caller's status to the heap.
			var err error
			*st, err = s.Status()
			return err
		}
	}
	*st = p2p.Status{Source: AnySource, Tag: AnyTag}
	return nil
}

// Release is called once a completion call has reported p (after StatusInto): a
// generalized request's free function runs then.
func (p *Pending) Release() error {
	if p != nil {
		if r, ok := p.op.(releaseOp); ok {
			return r.Release()
		}
	}
	return nil
}

// Free is the user's free of p (MPI_Request_free): p completes unobserved.
func (p *Pending) Free() error {
	if p != nil {
		if f, ok := p.op.(freeOp); ok {
			return f.Free()
		}
	}
	return nil
}

// Cancelable reports whether Cancel applies to p.
func (p *Pending) Cancelable() bool {
	if p == nil {
		return false
	}
	_, ok := p.op.(cancelOp)
	return ok
}

// Cancel asks that p be cancelled (MPI_Cancel); p must still be completed.
func (p *Pending) Cancel() error {
	if p == nil {
		return nil
	}
	if c, ok := p.op.(cancelOp); ok {
		return c.Cancel()
	}
	return nil
}

// pairOp is a send and a receive that complete as one request (MPI_Isendrecv): its
// status is the receive's. fin, if set, runs once both are done (the replace form
// copies the received message into the user's buffer then).
type pairOp struct {
	mu         sync.Mutex
	send, recv p2p.Request
	sdone      bool
	rdone      bool
	st         p2p.Status
	err        error
	fin        func(st *p2p.Status)
	box        Pending
}

// StartPair makes one request of a started send and receive.
func StartPair(op string, send, recv p2p.Request, fin func(st *p2p.Status)) *Pending {
	x := &pairOp{send: send, recv: recv, fin: fin}
	x.sdone, x.rdone = send.IsNull(), recv.IsNull()
	if x.rdone {
		x.st = p2p.Status{Source: ProcNull, Tag: AnyTag}
	}
	x.box.op = x
	return &x.box
}

func (x *pairOp) Test() (bool, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.rdone {
		ok, err := eng.TestInto(&x.recv, &x.st)
		x.note(err)
		x.rdone = ok || err != nil
	}
	if !x.sdone {
		var st p2p.Status
		ok, err := eng.TestInto(&x.send, &st)
		x.note(err)
		x.sdone = ok || err != nil
	}
	return x.finish()
}

func (x *pairOp) Wait() error { return x.WaitContext(nil) }

func (x *pairOp) WaitContext(ctx context.Context) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.rdone {
		st, err := eng.WaitCtx(ctx, &x.recv)
		if ctx != nil && err == ctx.Err() && err != nil {
			return err
		}
		x.st = st
		x.note(err)
		x.rdone = true
	}
	if !x.sdone {
		_, err := eng.WaitCtx(ctx, &x.send)
		if ctx != nil && err == ctx.Err() && err != nil {
			return err
		}
		x.note(err)
		x.sdone = true
	}
	_, err := x.finish()
	return err
}

func (x *pairOp) note(err error) {
	if err != nil && x.err == nil {
		x.err = err
	}
}

// finish reports completion once both parts are done, running fin once.
func (x *pairOp) finish() (bool, error) {
	if !x.rdone || !x.sdone {
		return false, nil
	}
	if x.fin != nil {
		if x.err == nil {
			x.fin(&x.st)
		}
		x.fin = nil
	}
	return true, x.err
}

func (x *pairOp) DoneCh() <-chan struct{} { return nil } // WaitContext serves the waits

func (x *pairOp) Status() (p2p.Status, error) {
	x.mu.Lock()
	st := x.st
	x.mu.Unlock()
	return st, nil
}

// cancel cancels both parts; the status says whether the receive's cancel took
// effect.
func (x *pairOp) Cancel() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.rdone {
		if err := eng.Cancel(&x.recv); err != nil {
			return err
		}
	}
	if !x.sdone {
		return eng.Cancel(&x.send)
	}
	return nil
}

func (x *pairOp) Free() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.fin = nil // nobody will look at the buffer
	err := eng.Free(&x.recv)
	if serr := eng.Free(&x.send); err == nil {
		err = serr
	}
	return err
}

// Grequest is what a generalized request runs of the user's: Query fills the status
// once the request is complete, Free releases the user's state, Cancel is told
// whether the request was complete when it was cancelled. Each may be nil (nothing to
// do; an empty status).
type Grequest struct {
	Query  func(st *p2p.Status) error
	Free   func() error
	Cancel func(complete bool) error
}

// genOp is a generalized request: a channel its Complete closes.
type genOp struct {
	fns      Grequest
	ch       chan struct{}
	mu       sync.Mutex
	complete bool // Complete was called
	freed    bool // the user freed it, or a completion call reported it
	box      Pending
}

// StartGrequest starts a generalized request (MPI_Grequest_start).
func StartGrequest(fns Grequest) *Pending {
	x := &genOp{fns: fns, ch: make(chan struct{})}
	x.box.op = x
	return &x.box
}

// GrequestComplete tells p's waiters that the generalized request p is complete
// (MPI_Grequest_complete); a request the user has freed already is released now.
func (p *Pending) GrequestComplete(op string) error {
	var x *genOp
	ok := false
	if p != nil {
		x, ok = p.op.(*genOp)
	}
	if !ok {
		return Errorf(ClassRequest, op, "not a generalized request (from GrequestStart)")
	}
	x.mu.Lock()
	if x.complete {
		x.mu.Unlock()
		return Errorf(ClassRequest, op, "the generalized request is complete already")
	}
	x.complete = true
	freed := x.freed
	close(x.ch)
	x.mu.Unlock()
	NoteDone()
	if freed {
		return x.callFree()
	}
	return nil
}

// IsGrequest reports whether p is a generalized request.
func (p *Pending) IsGrequest() bool {
	if p == nil {
		return false
	}
	_, ok := p.op.(*genOp)
	return ok
}

func (x *genOp) Test() (bool, error) {
	select {
	case <-x.ch:
		return true, nil
	default:
		return false, nil
	}
}

func (x *genOp) Wait() error {
	<-x.ch
	return nil
}

func (x *genOp) DoneCh() <-chan struct{} { return x.ch }

func (x *genOp) Status() (p2p.Status, error) {
	st := p2p.Status{Source: AnySource, Tag: AnyTag}
	if x.fns.Query == nil {
		return st, nil
	}
	err := x.fns.Query(&st)
	return st, err
}

func (x *genOp) Release() error {
	x.mu.Lock()
	x.freed = true
	x.mu.Unlock()
	return x.callFree()
}

// free runs the free function now if the request is complete, else from Complete.
func (x *genOp) Free() error {
	x.mu.Lock()
	x.freed = true
	complete := x.complete
	x.mu.Unlock()
	if complete {
		return x.callFree()
	}
	return nil
}

func (x *genOp) callFree() error {
	if x.fns.Free == nil {
		return nil
	}
	return x.fns.Free()
}

func (x *genOp) Cancel() error {
	if x.fns.Cancel == nil {
		return nil
	}
	x.mu.Lock()
	complete := x.complete
	x.mu.Unlock()
	return x.fns.Cancel(complete)
}
