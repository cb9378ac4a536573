package core

import (
	"context"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/p2p"
	"github.com/mpigo/mpigo/internal/rma"
)

// Shipped operations: the origin's side (ship, call) and the target's progress
// goroutine (serve). See win.go for when a target is shipped to.

// shipOp is a shipped operation the origin has not seen complete: its request's send
// and, for an operation that returns data, the receive of the reply.
type shipOp struct {
	mu      sync.Mutex
	send    p2p.Request
	recv    p2p.Request
	hasRecv bool
	reply   []byte
	fin     func([]byte) // stores a reply's data in the caller's buffer
	done    bool
	err     error
	box     Pending
}

// complete waits for x and returns its error; any number of callers may.
func (x *shipOp) complete() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.done {
		return x.err
	}
	var st p2p.Status
	err := eng.WaitInto(&x.send, &st)
	if x.hasRecv {
		if rerr := eng.WaitInto(&x.recv, &st); err == nil {
			err = rerr
		}
	}
	x.finish(err)
	return x.err
}

// finish records x's outcome; x.mu is held.
func (x *shipOp) finish(err error) {
	if err == nil && x.hasRecv {
		if x.reply[0] != 0 {
			err = Errorf(ClassRMARange, "", "%s", x.reply[1:])
		} else if x.fin != nil {
			x.fin(x.reply[1:])
		}
	}
	if err != nil {
		err = MapErr("RMA", err)
	}
	x.done, x.err, x.reply, x.fin = true, err, nil, nil
}

func (x *shipOp) test() (bool, error) {
	if !x.mu.TryLock() {
		return false, nil
	}
	defer x.mu.Unlock()
	if x.done {
		return true, x.err
	}
	var st p2p.Status
	ok, err := eng.TestInto(&x.send, &st)
	if err == nil && ok && x.hasRecv {
		ok, err = eng.TestInto(&x.recv, &st)
	}
	if err != nil || ok {
		x.finish(err)
		return true, x.err
	}
	return false, nil
}

func (x *shipOp) wait() error             { return x.complete() }
func (x *shipOp) doneCh() <-chan struct{} { return nil }
func (x *shipOp) waitCtx(ctx context.Context) error {
	for {
		if ok, err := x.test(); ok {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		eng.Progress()
		awaitYield()
	}
}

func (x *shipOp) pending() *Pending {
	if x == nil {
		return donePending
	}
	x.box.op = x
	return &x.box
}

// ship sends a request to target t: header h (its ID and sizes are filled here), the
// pieces, data; reply, if not nil, receives the reply (status byte, then data for
// fin).
func (w *Win) ship(t int, h *rma.Header, base int64, ps []rma.Piece, data, reply []byte, fin func([]byte)) *shipOp {
	h.Base, h.Pieces, h.Data = base, uint32(len(ps)), int64(len(data))
	x := &shipOp{reply: reply, fin: fin}
	dest := w.worldOf(t)
	if reply != nil {
		h.ID = w.id()
		q, err := eng.Irecv(p2p.Bytes(reply), dest, int(h.ID), w.comm.ctx)
		if err != nil {
			x.done, x.err = true, MapErr("RMA", err)
			return x
		}
		x.recv, x.hasRecv = q, true
	}
	msg := make([]byte, h.Len())
	copy(rma.Encode(msg, h, ps), data)
	q, err := eng.Isend(p2p.Bytes(msg), dest, tagRMA, w.comm.ctx, p2p.Standard)
	if err != nil {
		x.done, x.err = true, MapErr("RMA", err)
		return x
	}
	x.send = q
	w.mu.Lock()
	w.out[t] = append(w.out[t], x)
	if reply == nil {
		w.dirty[t] = true
	}
	w.mu.Unlock()
	return x
}

// call sends a request with no pieces or data to t and returns its reply's data,
// once t has applied every earlier request from this rank.
func (w *Win) call(op string, t int, h *rma.Header) ([]byte, error) {
	h.ID = w.id()
	dest := w.worldOf(t)
	var msg [rma.HeaderLen]byte
	rma.Encode(msg[:], h, nil)
	if err := eng.Send(p2p.Bytes(msg[:]), dest, tagRMA, w.comm.ctx, p2p.Standard); err != nil {
		return nil, MapErr(op, err)
	}
	m, st, err := eng.Mprobe(dest, int(h.ID), w.comm.ctx)
	if err != nil {
		return nil, MapErr(op, err)
	}
	b := make([]byte, st.Count)
	if _, err := eng.Mrecv(p2p.Bytes(b), &m); err != nil {
		return nil, MapErr(op, err)
	}
	if len(b) == 0 {
		return nil, Errorf(ClassIntern, op, "empty reply from rank %d", t)
	}
	if b[0] != 0 {
		return nil, Errorf(ClassRMARange, op, "at rank %d: %s", t, b[1:])
	}
	return b[1:], nil
}

// completeOut waits for the shipped operations to t and forgets them.
func (w *Win) completeOut(op string, t int) error {
	w.mu.Lock()
	out := w.out[t]
	w.out[t] = nil
	w.mu.Unlock()
	var first error
	for _, x := range out {
		if err := x.complete(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// flushShipped completes every operation shipped to t: at the target too.
func (w *Win) flushShipped(op string, t int) error {
	err := w.completeOut(op, t)
	w.mu.Lock()
	dirty := w.dirty[t]
	w.dirty[t] = false
	w.mu.Unlock()
	if dirty {
		if _, ferr := w.call(op, t, &rma.Header{Kind: rma.KFlush}); err == nil {
			err = ferr
		}
	}
	return err
}

// flushAll completes every shipped operation of this rank.
func (w *Win) flushAll(op string) error {
	if !w.ships {
		return nil
	}
	var first error
	for t := range w.peers {
		if !w.peers[t].direct {
			if err := w.flushShipped(op, t); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// serve is the target's progress goroutine: it receives requests in order and
// applies them, until Free's stop request.
func (w *Win) serve() {
	defer close(w.serveEnd)
	ctx := w.comm.ctx
	for {
		m, st, err := eng.Mprobe(AnySource, tagRMA, ctx)
		if err != nil {
			// A dead peer ends the job through the launcher; a request that cannot be
			// received leaves the window's origins to report their own failures.
			continue
		}
		buf := make([]uint64, (st.Count+7)/8) // 8-byte aligned, for the pieces
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(buf))), len(buf)*8)[:st.Count]
		if _, err := eng.Mrecv(p2p.Bytes(b), &m); err != nil {
			continue
		}
		if !w.handle(w.comm.CommRank(st.Source), st.Source, b) {
			return
		}
	}
}

// handle applies one request from origin (rank in the window; world rank src); it
// returns false for the stop request.
func (w *Win) handle(origin, src int, b []byte) bool {
	h, ps, data, err := rma.Decode(b)
	if err != nil {
		w.noteErr(origin, err.Error())
		return true
	}
	reply := func(status byte, payload []byte) {
		out := make([]byte, 1+len(payload))
		out[0] = status
		copy(out[1:], payload)
		eng.Send(p2p.Bytes(out), src, int(h.ID), w.comm.ctx, p2p.Standard)
	}
	fail := func(msg string) {
		if h.ID != 0 {
			reply(1, []byte(msg))
		} else {
			w.noteErr(origin, msg)
		}
	}
	var mem []byte
	switch h.Kind {
	case rma.KPut, rma.KGet, rma.KAcc, rma.KGetAcc, rma.KCas:
		var why string
		mem, why = w.resolve(h.Base, ps)
		if why != "" {
			fail(why)
			return true
		}
	}
	switch h.Kind {
	case rma.KPut:
		rma.Put(mem, ps, data)
	case rma.KGet:
		out := make([]byte, 1+sum(ps))
		rma.Get(out[1:], mem, ps)
		eng.Send(p2p.Bytes(out), src, int(h.ID), w.comm.ctx, p2p.Standard)
	case rma.KAcc, rma.KGetAcc:
		var old []byte
		if h.Kind == rma.KGetAcc {
			old = make([]byte, 1+len(data))
		}
		var ob []byte
		if old != nil {
			ob = old[1:]
		}
		if err := rma.Acc(mem, ps, data, ob, h.Op, h.Elem, w.ctrl.acc(), nil); err != nil {
			fail(err.Error())
			return true
		}
		if old != nil {
			eng.Send(p2p.Bytes(old), src, int(h.ID), w.comm.ctx, p2p.Standard)
		}
	case rma.KCas:
		n := len(data) / 2
		old := make([]byte, n)
		rma.CompareSwap(mem, ps[0].Off, data[:n], data[n:], old, h.Elem, w.ctrl.acc())
		reply(0, old)
	case rma.KFlush:
		w.replyErrs(origin, reply)
	case rma.KLock:
		w.lockQ = append(w.lockQ, lockWaiter{origin: origin, src: src, id: h.ID, excl: h.Flags&rma.Exclusive != 0})
		atomic.AddUint64(w.ctrl.queued(), 1)
		w.grant()
	case rma.KUnlock:
		atomic.StoreUint64(w.ctrl.held(origin, w.size), 0)
		rma.Release(w.ctrl.lock(), h.Flags&rma.Exclusive != 0)
		w.replyErrs(origin, reply)
		w.grant()
	case rma.KGrant:
		w.grant()
	case rma.KPost:
		atomic.AddUint64(w.ctrl.post(origin), 1)
	case rma.KComplete:
		atomic.AddUint64(w.ctrl.complete(origin, w.size), 1)
	case rma.KStop:
		return false
	default:
		fail("unknown request")
	}
	return true
}

// lockWaiter is a remote lock request queued at its target.
type lockWaiter struct {
	origin, src int // window rank, world rank
	id          uint32
	excl        bool
}

// grant gives the lock to queued requests, in the order they came, while it can
// (the progress goroutine only). The queued count in the control block tells a direct
// origin that releases the lock to send KGrant: the count goes up before the first
// try and a releaser reads it after its release, so either the try sees the lock free
// or the releaser sees the count.
func (w *Win) grant() {
	for len(w.lockQ) > 0 {
		q := w.lockQ[0]
		try, typ := rma.TryShared, uint64(LockShared)
		if q.excl {
			try, typ = rma.TryExclusive, LockExclusive
		}
		if !try(w.ctrl.lock()) {
			return
		}
		atomic.StoreUint64(w.ctrl.held(q.origin, w.size), typ)
		w.lockQ = append(w.lockQ[:0], w.lockQ[1:]...)
		atomic.AddUint64(w.ctrl.queued(), ^uint64(0))
		granted := [2]byte{0, 1}
		eng.Send(p2p.Bytes(granted[:]), q.src, int(q.id), w.comm.ctx, p2p.Standard)
	}
}

// send sends a request without pieces, data or reply to t.
func (w *Win) send(t int, h *rma.Header) {
	var msg [rma.HeaderLen]byte
	rma.Encode(msg[:], h, nil)
	eng.Send(p2p.Bytes(msg[:]), w.worldOf(t), tagRMA, w.comm.ctx, p2p.Standard)
}

func sum(ps []rma.Piece) int {
	n := int64(0)
	for _, p := range ps {
		n += p.Len
	}
	return int(n)
}

// resolve finds the memory a request's pieces address and makes them offsets into
// it (in place), or says why they are not inside the window.
func (w *Win) resolve(base int64, ps []rma.Piece) ([]byte, string) {
	mem := w.mem
	if w.flavor == FlavorDynamic {
		lo, hi := rma.Span(ps)
		m, start, ok := w.dynamicMem(base+lo, hi-lo)
		if !ok {
			return nil, "the access reaches memory not attached to the dynamic window"
		}
		mem, base = m, start-lo
	}
	for i := range ps {
		ps[i].Off += base
	}
	if err := rma.Check(ps, int64(len(mem))); err != nil {
		return nil, err.Error()
	}
	return mem, ""
}

func (w *Win) noteErr(origin int, msg string) {
	w.mu.Lock()
	if _, ok := w.errs[origin]; !ok {
		w.errs[origin] = msg
	}
	w.mu.Unlock()
}

func (w *Win) replyErrs(origin int, reply func(byte, []byte)) {
	w.mu.Lock()
	msg, bad := w.errs[origin]
	delete(w.errs, origin)
	w.mu.Unlock()
	if bad {
		reply(1, []byte(msg))
	} else {
		reply(0, nil)
	}
}
