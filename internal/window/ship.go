package window

import (
	"context"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/p2p"
	"github.com/mpigo/mpigo/internal/rma"
)

// Shipped operations: the origin's side (ship, call) and the target's progress
// goroutine (serve). See win.go for when a target is shipped to.

// shipOp is a shipped operation the origin has not seen complete: the send of its
// request (or of a batch of requests) and, for an operation that returns data, the
// receive of the reply.
type shipOp struct {
	mu      sync.Mutex
	w       *Win
	send    p2p.Request
	recv    p2p.Request
	recv2   p2p.Request // a split reply's data
	hasRecv bool
	split   bool
	sink    replySink
	into    []byte       // a split reply's data, received apart from sink
	fin     func([]byte) // stores a reply's data in the caller's buffer
	batch   []byte       // a sent batch, back to the window's free list once sent
	sinks   []batchSink  // the batch's requests' replies, in order, from rbuf
	rbuf    []byte
	out     sendLayout
	head    [rma.HeaderLen + 16]byte // the header and one piece, sent from here
	keep    bool                     // handed out as a request: never reused
	done    bool
	err     error
	box     core.Pending
}

// complete waits for x and returns its error; any number of callers may.
func (x *shipOp) complete() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.done {
		return x.err
	}
	var st p2p.Status
	err := eng().WaitInto(&x.send, &st)
	if x.hasRecv {
		if rerr := eng().WaitInto(&x.recv, &st); err == nil {
			err = rerr
		}
		if x.split {
			if rerr := eng().WaitInto(&x.recv2, &st); err == nil {
				err = rerr
			}
		}
	}
	x.finish(err)
	return x.err
}

// finish records x's outcome; x.mu is held.
func (x *shipOp) finish(err error) {
	if err == nil && x.sinks != nil {
		err = x.scatter()
	} else if err == nil && x.hasRecv {
		if x.sink.status != 0 {
			err = core.Errorf(core.ClassRMARange, "", "%s", x.sink.msg)
		} else if x.fin != nil {
			data := x.sink.data
			if x.split {
				data = x.into // the sink held only the reply's header
			}
			x.fin(data)
		}
	}
	if err != nil {
		err = core.MapErr("RMA", err)
	}
	if x.batch != nil || x.rbuf != nil {
		x.w.recycle(x.batch, x.rbuf)
	}
	clear(x.sinks)
	x.done, x.err, x.fin, x.batch, x.sink.data, x.into, x.out = true, err, nil, nil, nil, nil, sendLayout{}
	x.sinks, x.rbuf = x.sinks[:0], nil
}

// batchSink is where the reply to a request of a batch goes: into, then to fin if not
// nil (ship's into and fin).
type batchSink struct {
	into []byte
	fin  func([]byte)
}

// batchErrRoom is the most bytes of an error's text a batched reply carries.
const batchErrRoom = 128

// replyBound is the most bytes the batched reply to a request whose data has n bytes
// takes.
func replyBound(n int) int { return 3 + max(n, batchErrRoom) }

// scatter hands each request of a batch its part of the batch's reply (x.mu held);
// it returns the first error a request met.
func (x *shipOp) scatter() error {
	b := x.rbuf
	var first error
	for _, s := range x.sinks {
		n := -1
		if len(b) >= 3 {
			n = int(b[1]) | int(b[2])<<8
		}
		if n < 0 || len(b) < 3+n {
			return core.Errorf(core.ClassIntern, "", "a batch's reply is short: %d requests, %d bytes", len(x.sinks), len(x.rbuf))
		}
		data := b[3 : 3+n]
		switch {
		case b[0] != 0:
			if first == nil {
				first = core.Errorf(core.ClassRMARange, "", "%s", data)
			}
		case s.fin != nil:
			s.fin(data)
		default:
			copy(s.into, data)
		}
		b = b[3+n:]
	}
	return first
}

// testSend is test for a batch's send with w.mu held: the batch's buffer goes back
// to the free list directly.
func (x *shipOp) testSend() (bool, error) {
	if !x.mu.TryLock() {
		return false, nil
	}
	defer x.mu.Unlock()
	if x.done {
		return true, x.err
	}
	var st p2p.Status
	ok, err := eng().TestInto(&x.send, &st)
	if !ok && err == nil {
		return false, nil
	}
	if err != nil {
		err = core.MapErr("RMA", err)
	}
	w := x.w
	if len(w.free) < 4 {
		w.free = append(w.free, x.batch[:0])
	}
	x.done, x.err, x.batch = true, err, nil
	return true, err
}

func (x *shipOp) Test() (bool, error) {
	if !x.mu.TryLock() {
		return false, nil
	}
	defer x.mu.Unlock()
	if x.done {
		return true, x.err
	}
	var st p2p.Status
	ok, err := eng().TestInto(&x.send, &st)
	if err == nil && ok && x.hasRecv {
		ok, err = eng().TestInto(&x.recv, &st)
		if err == nil && ok && x.split {
			ok, err = eng().TestInto(&x.recv2, &st)
		}
	}
	if err != nil || ok {
		x.finish(err)
		return true, x.err
	}
	return false, nil
}

func (x *shipOp) Wait() error             { return x.complete() }
func (x *shipOp) DoneCh() <-chan struct{} { return nil }

// WaitContext waits for x through the idle policy (core.AwaitCtx: spin, yield, then sleep on
// the doorbell of completions, which the context's watch rings when ctx ends), so a
// wait for a target that does not answer costs no core; x stays pending if ctx ends.
func (x *shipOp) WaitContext(ctx context.Context) error {
	var done <-chan struct{}
	if ctx != nil {
		done = ctx.Done()
	}
	var err error
	core.AwaitCtx(ctx, func() bool {
		var ok bool
		if ok, err = x.Test(); ok {
			return true
		}
		select {
		case <-done:
			err = ctx.Err()
			return true
		default:
		}
		eng().Progress()
		return false
	})
	return err
}

func (x *shipOp) pending() *core.Pending {
	if x == nil {
		return core.Completed()
	}
	x.box.Bind(x)
	return &x.box
}

// replySink receives a reply (p2p.Layout): the status byte, then the data straight
// into data (the caller's own bytes when its buffer is contiguous: no copy), or, when
// the status says the target failed, the error's text into msg.
type replySink struct {
	status byte
	data   []byte
	msg    []byte
}

// replyRoom is the least room a reply gets, for an error's text.
const replyRoom = 256

func (r *replySink) Len() int64                       { return 1 + int64(max(len(r.data), replyRoom)) }
func (r *replySink) PackAt(dst []byte, off int64) int { return 0 }
func (r *replySink) UnpackAt(src []byte, off int64) int {
	n := len(src)
	if off == 0 && n > 0 {
		r.status, src, off = src[0], src[1:], 1
	}
	if r.status != 0 {
		r.msg = append(r.msg, src...)
	} else if off-1 < int64(len(r.data)) {
		copy(r.data[off-1:], src)
	}
	return n
}

// sendLayout is a request sent without copying its data (p2p.Layout): the header and
// pieces, then the caller's bytes, which MPI leaves untouched until the operation
// completes at the origin.
type sendLayout struct {
	head, data []byte
}

func (s *sendLayout) Len() int64 { return int64(len(s.head) + len(s.data)) }
func (s *sendLayout) PackAt(dst []byte, off int64) int {
	n := 0
	if off < int64(len(s.head)) {
		n = copy(dst, s.head[off:])
		dst, off = dst[n:], int64(len(s.head))
	}
	return n + copy(dst, s.data[off-int64(len(s.head)):])
}
func (s *sendLayout) UnpackAt(src []byte, off int64) int { return 0 }

// Batches: requests without a reply (Put, Accumulate, Complete) are not sent
// one by one but gathered per target, back to back and each padded to 8 bytes, and
// sent as one message when the batch is full or before anything that must reach the
// target (a request with a reply of its own, Flush, Unlock, Complete): one
// system call per batch, not per operation, and no allocation (the batches' buffers
// are reused). An operation in a batch is complete at the origin when its call
// returns, since its data was copied.
//
// Short requests with a reply (Get, Get_accumulate, Fetch_and_op, Compare_and_swap)
// that complete at a Flush rather than by a request of their own join the batch too,
// after the first since the target's last completion (run), which goes at once; the
// target answers all of a batch's in one reply (rma.Batched), which the batch's send
// waits for and scatters to their buffers (scatter). A run of them then costs the
// target one message in and one out, not one each.
const (
	batchMax   = 64 << 10 // bytes of one batch
	batchAlone = 16 << 10 // a request larger than this goes alone, its data not copied
)

// batched says whether a request without a reply, of data bytes in pieces pieces,
// joins the target's batch when shipped (at most batchAlone in all).
func batched(data int64, pieces int) bool {
	h := rma.Header{Pieces: uint32(pieces), Data: data}
	return h.Len() <= batchAlone
}

// ship sends a request to target t: header h (its ID and sizes are filled here), the
// pieces, data. With reply, the reply's data goes to into (which the caller must not
// touch until the operation completes), then to fin if not nil. A request without a
// reply and at most batchAlone long joins t's batch and ship returns nil (complete).
func (w *Win) ship(t int, h *rma.Header, base int64, ps []rma.Piece, data []byte, reply, keep bool, into []byte, fin func([]byte)) *shipOp {
	h.Base, h.Pieces, h.Data = base, uint32(len(ps)), int64(len(data))
	n := h.Len()
	w.mu.Lock()
	if len(w.gets[t]) > 0 {
		w.mu.Unlock()
		w.readGets(t) // they come first
		w.mu.Lock()
	}
	if !reply && batched(h.Data, len(ps)) {
		b := w.batch[t]
		if len(b)+n > batchMax {
			w.sendBatchLocked(t)
			b = w.batch[t]
		}
		at := len(b)
		b = append(b, make([]byte, (n+7)&^7)...)
		copy(rma.Encode(b[at:], h, ps), data)
		w.batch[t] = b
		if h.Kind == rma.KPut && w.peers[t].single.Load() {
			w.undirty[t] = true // marked if the batch ships (sendBatchLocked)
		} else {
			w.dirty[t] = true
		}
		w.mu.Unlock()
		return nil
	}
	if reply && !keep && n <= batchAlone && batchable(h.Kind) && len(into) <= batchReplyMax && w.run[t].Swap(true) {
		// The request joins the batch, and its reply the batch's one reply; the first
		// since the target's last completion goes at once (below), so that one
		// followed by its Flush is under way while the Flush is called.
		m := replyBound(len(into))
		if len(w.batch[t])+n > batchMax || w.brepLen[t]+m > batchMax {
			w.sendBatchLocked(t)
		}
		if w.brepID[t] == 0 {
			w.brepID[t] = w.idLocked()
		}
		h.ID = w.brepID[t]
		h.Flags |= rma.Batched
		b := w.batch[t]
		at := len(b)
		b = append(b, make([]byte, (n+7)&^7)...)
		copy(rma.Encode(b[at:], h, ps), data)
		w.batch[t] = b
		w.breps[t] = append(w.breps[t], batchSink{into: into, fin: fin})
		w.brepLen[t] += m
		w.mu.Unlock()
		return nil
	}
	if h.Kind == rma.KPut && !reply {
		// A large Put: its header joins the batch, which goes now, and its data
		// follows as a message of its own, sent from the caller's buffer and
		// received by the target straight into its window.
		h.Flags |= rma.SplitData
		b := w.batch[t]
		at := len(b)
		hn := rma.HeaderLen + 16*len(ps)
		w.batch[t] = append(b, make([]byte, (hn+7)&^7)...)
		rma.EncodeHeader(w.batch[t][at:], h, ps)
		w.dirty[t] = true
		w.sendBatchLocked(t)
		x := w.newOp(keep)
		q, err := eng().Isend(p2p.Bytes(data), w.worldOf(t), tagData, w.comm.Ctx(), p2p.Standard)
		if err != nil {
			x.done, x.err = true, core.MapErr("RMA", err)
		}
		x.send = q
		w.out[t] = append(w.out[t], x)
		w.mu.Unlock()
		return x
	}
	w.sendBatchLocked(t) // the order of requests is the order of the calls
	x := w.newOp(keep)
	w.mu.Unlock()
	dest := w.worldOf(t)
	if reply {
		h.ID = w.id()
		x.sink.data = into
		x.fin = fin
		q, err := eng().Irecv(p2p.Packed(&x.sink), dest, int(h.ID), w.comm.Ctx())
		if err != nil {
			x.done, x.err = true, core.MapErr("RMA", err)
			return x
		}
		x.recv, x.hasRecv = q, true
		if h.Kind == rma.KGet && len(into) > batchAlone {
			// The data comes in a message of its own, straight into into.
			h.Flags |= rma.SplitData
			x.sink.data, x.into = nil, into
			q2, err := eng().Irecv(p2p.Bytes(into), dest, int(h.ID), w.comm.Ctx())
			if err != nil {
				x.done, x.err = true, core.MapErr("RMA", err)
				return x
			}
			x.recv2, x.split = q2, true
		}
	}
	head := x.head[:]
	if len(ps) > 1 {
		head = make([]byte, rma.HeaderLen+16*len(ps))
	}
	head = head[:rma.EncodeHeader(head, h, ps)]
	x.out = sendLayout{head: head, data: data}
	q, err := eng().Isend(p2p.Packed(&x.out), dest, tagRMA, w.comm.Ctx(), p2p.Standard)
	if err != nil {
		x.done, x.err = true, core.MapErr("RMA", err)
		return x
	}
	x.send = q
	w.mu.Lock()
	w.out[t] = append(w.out[t], x)
	if !reply {
		w.dirty[t] = true
	}
	w.mu.Unlock()
	return x
}

// sendBatchLocked sends t's batch, if any (w.mu held).
func (w *Win) sendBatchLocked(t int) {
	b := w.batch[t]
	if len(b) == 0 {
		return
	}
	if w.undirty[t] {
		w.undirty[t] = false
		if w.peers[t].single.Load() && w.writeBatchLocked(t, b) {
			w.batch[t] = b[:0]
			return
		}
		w.dirty[t] = true // shipped after all: the next Flush asks the target
	}
	w.reapLocked(t)
	x := w.newOp(false)
	x.batch = b
	if len(w.breps[t]) > 0 {
		w.expectReplyLocked(t, x)
	}
	q, err := eng().Isend(p2p.Bytes(b), w.worldOf(t), tagRMA, w.comm.Ctx(), p2p.Standard)
	if err != nil {
		x.done, x.err = true, core.MapErr("RMA", err)
	}
	x.send = q
	w.out[t] = append(w.out[t], x)
	if k := len(w.free); k > 0 {
		w.batch[t], w.free = w.free[k-1][:0], w.free[:k-1]
	} else {
		w.batch[t] = make([]byte, 0, batchMax)
	}
}

// batchReplyMax is the longest reply of a request that joins a batch (ship): a
// Get, Get_accumulate, Fetch_and_op or Compare_and_swap of this many bytes or fewer.
const batchReplyMax = 1024

// batchable says whether a request of kind k may join a batch with its reply.
func batchable(k rma.Kind) bool { return k == rma.KGet || k == rma.KGetAcc || k == rma.KCas }

// expectReplyLocked makes x, the send of t's batch, wait for the batch's one reply
// too, which scatters into the requests' sinks (w.mu held).
func (w *Win) expectReplyLocked(t int, x *shipOp) {
	x.sinks = append(x.sinks, w.breps[t]...)
	clear(w.breps[t])
	w.breps[t] = w.breps[t][:0]
	n := w.brepLen[t]
	if k := len(w.rfree); k > 0 && cap(w.rfree[k-1]) >= n {
		x.rbuf, w.rfree = w.rfree[k-1][:n], w.rfree[:k-1]
	} else {
		x.rbuf = make([]byte, n)
	}
	q, err := eng().Irecv(p2p.Bytes(x.rbuf), w.worldOf(t), int(w.brepID[t]), w.comm.Ctx())
	w.brepID[t], w.brepLen[t] = 0, 0
	if err != nil {
		x.done, x.err = true, core.MapErr("RMA", err)
		return
	}
	x.recv, x.hasRecv = q, true
}

// newOp returns a shipOp from the window's free list (w.mu held). keep marks one
// handed out as a request, which is never reused.
func (w *Win) newOp(keep bool) *shipOp {
	if keep {
		return &shipOp{w: w, keep: true}
	}
	if k := len(w.xfree); k > 0 {
		x := w.xfree[k-1]
		w.xfree = w.xfree[:k-1]
		return x
	}
	return &shipOp{w: w}
}

// reuse takes back a completed shipOp nobody else holds.
func (w *Win) reuse(x *shipOp) {
	w.mu.Lock()
	w.reuseLocked(x)
	w.mu.Unlock()
}

func (w *Win) reuseLocked(x *shipOp) {
	if x.keep {
		return
	}
	*x = shipOp{w: w}
	if len(w.xfree) < 64 {
		w.xfree = append(w.xfree, x)
	}
}

// reapLocked forgets the batch sends to t that have completed, up to the first that
// has not, past up to reapPast requests that await a reply (w.mu held), so that a
// rank that only posts or completes epochs at t, and never flushes it, does not pile
// up requests and batch buffers. A failed send stays for completeOut to report.
func (w *Win) reapLocked(t int) {
	out := w.out[t]
	n, i, kept := 0, 0, 0
	for ; i < len(out) && kept <= reapPast; i++ {
		x := out[i]
		if x.batch != nil && !x.hasRecv {
			ok, _ := x.testSend()
			if !ok {
				break // the later sends to t are not done either
			}
			if x.err == nil {
				w.reuseLocked(x)
				continue
			}
		}
		out[n] = x // a request awaiting its reply, or a failed send for completeOut
		n++
		kept++
	}
	n += copy(out[n:], out[i:])
	clear(out[n:])
	w.out[t] = out[:n]
}

// reapPast is how many requests awaiting their reply reapLocked looks past: enough
// for the answered first operation of a run, and a bound on its cost where many such
// requests are outstanding.
const reapPast = 8

// recycle takes back a sent batch's buffer and its reply's (each may be nil).
func (w *Win) recycle(b, r []byte) {
	w.mu.Lock()
	if b != nil && len(w.free) < 4 {
		w.free = append(w.free, b[:0])
	}
	if r != nil && len(w.rfree) < 4 {
		w.rfree = append(w.rfree, r[:0])
	}
	w.mu.Unlock()
}

// call sends a request with no pieces or data to t and returns its reply's first
// data byte (0 if none), once t has applied every earlier request from this rank.
func (w *Win) call(op string, t int, h *rma.Header) (byte, error) {
	h.ID = w.id()
	dest := w.worldOf(t)
	var r replySink
	var one [1]byte
	r.data = one[:]
	q, err := eng().Irecv(p2p.Packed(&r), dest, int(h.ID), w.comm.Ctx())
	if err != nil {
		return 0, core.MapErr(op, err)
	}
	w.readGets(t) // they come first
	w.mu.Lock()
	if len(w.batch[t]) > 0 {
		// The request ends the batch: one message, one wake-up of the target.
		b := w.batch[t]
		at := len(b)
		w.batch[t] = append(b, make([]byte, rma.HeaderLen)...)
		rma.Encode(w.batch[t][at:], h, nil)
		w.sendBatchLocked(t)
		w.mu.Unlock()
	} else {
		w.mu.Unlock()
		var msg [rma.HeaderLen]byte
		rma.Encode(msg[:], h, nil)
		if err := eng().Send(p2p.Bytes(msg[:]), dest, tagRMA, w.comm.Ctx(), p2p.Standard); err != nil {
			eng().Cancel(&q)
			eng().Wait(&q)
			return 0, core.MapErr(op, err)
		}
	}
	var st p2p.Status
	if err := w.waitReq(&q, &st); err != nil {
		return 0, core.MapErr(op, err)
	}
	switch r.status {
	case 0:
	case statusProcFailed:
		return 0, core.Errorf(core.ClassProcFailed, op, "at rank %d: %s", t, r.msg)
	default:
		return 0, core.Errorf(core.ClassRMARange, op, "at rank %d: %s", t, r.msg)
	}
	return one[0], nil
}

// completeOut waits for the shipped operations to t and forgets them.
func (w *Win) completeOut(op string, t int) error { return w.finishOut(op, t, true) }

// finishOut is completeOut; without send, t's batch stays to be sent later (its
// operations are complete at this rank: their data was copied into it).
//
// Completions of t's operations by several threads at once (MPI_THREAD_MULTIPLE) take
// turns (outMu): each must return only once every operation this rank started before
// it is complete, and one that found the others' list already taken would return
// while the thread that took it still waits, its own Get's data or Fetch_and_op's
// result not yet written, later into a buffer it may have freed or a stack gone.
func (w *Win) finishOut(op string, t int, send bool) error {
	w.outMu[t].Lock()
	defer w.outMu[t].Unlock()
	return w.finishOutTurn(op, t, send)
}

// finishOutTurn is finishOut in t's turn (outMu[t] held).
func (w *Win) finishOutTurn(op string, t int, send bool) error {
	if send {
		// A completion at the target: the next short operation with an answer goes
		// at once (run). A local one leaves the run going.
		w.run[t].Store(false)
	}
	w.mu.Lock()
	if failed := w.readGetsLocked(t); failed != nil {
		w.mu.Unlock()
		w.shipGets(t, failed)
		w.mu.Lock()
	}
	if send || len(w.breps[t]) > 0 { // a reply a local completion needs must come
		w.sendBatchLocked(t)
	}
	out := w.out[t]
	w.out[t] = nil
	w.mu.Unlock()
	var first error
	for _, x := range out {
		if err := w.waitOp(x); err != nil && first == nil {
			first = err
		}
		w.reuse(x)
	}
	return first
}

// flushShipped completes every operation shipped to t: at the target too. It takes
// t's turn (finishOut) for its flush request as well: a flush that found dirty
// cleared by another thread's must not return before that one's reply says the
// target has applied what came before it.
func (w *Win) flushShipped(op string, t int) error {
	w.outMu[t].Lock()
	defer w.outMu[t].Unlock()
	w.mu.Lock()
	if w.peers[t].single.Load() && !w.dirty[t] {
		// Puts alone are written here, and need no request; a batch with shipped
		// requests rides with the flush request below, one message.
		w.sendBatchLocked(t)
	}
	dirty := w.dirty[t]
	w.dirty[t] = false
	w.mu.Unlock()
	var err error
	if dirty {
		// The flush request travels with the batch; its reply says the target has
		// applied everything before it.
		_, err = w.call(op, t, &rma.Header{Kind: rma.KFlush})
	}
	if cerr := w.finishOutTurn(op, t, true); err == nil {
		err = cerr
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

// apply receives the message m (its status st) of requests and applies them, holding
// applyMu.
func (w *Win) apply(m *p2p.Message, st *p2p.Status) {
	w.published.Load() // see observe
	origin := w.comm.CommRank(st.Source)
	if need := int((st.Count + 7) / 8); need > len(w.rbuf) {
		w.rbuf = make([]uint64, need) // 8-byte aligned, for the pieces; kept
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w.rbuf))), len(w.rbuf)*8)[:st.Count]
	if _, err := eng().Mrecv(p2p.Bytes(b), m); err != nil {
		return
	}
	defer w.applied.Add(1) // publishes the writes to the window (see observe)
	w.bout, w.boutID = w.bout[:0], 0
	for len(b) > 0 {
		req, rest, err := rma.Split(b)
		if err != nil {
			w.noteErr(origin, err.Error())
			break
		}
		w.handle(origin, st.Source, req)
		b = rest
	}
	if w.boutID != 0 {
		eng().Send(p2p.Bytes(w.bout), st.Source, int(w.boutID), w.comm.Ctx(), p2p.Standard)
	}
}

// answer replies to request h of world rank src: status (0: done), then payload (or
// an error's text); a batched request's answer joins the batch's reply (apply).
func (w *Win) answer(src int, h *rma.Header, status byte, payload []byte) {
	if h.Flags&rma.Batched == 0 {
		w.reply(src, h.ID, status, payload)
		return
	}
	if status != 0 && len(payload) > batchErrRoom {
		payload = payload[:batchErrRoom]
	}
	n := len(payload)
	w.bout = append(append(w.bout, status, byte(n), byte(n>>8)), payload...)
	w.boutID = h.ID
}

// recvData receives the data of a split Put from world rank src: straight into the
// window when it is one run, else through the scratch buffer; with mem nil (a Put
// refused) it is received and dropped.
func (w *Win) recvData(src int, mem []byte, ps []rma.Piece, n int64) {
	if mem != nil && len(ps) == 1 && ps[0].Len == n {
		eng().Recv(p2p.Bytes(mem[ps[0].Off:ps[0].Off+n]), src, tagData, w.comm.Ctx())
		return
	}
	if int64(cap(w.scratch)) < n {
		w.scratch = make([]byte, n)
	}
	buf := w.scratch[:n]
	eng().Recv(p2p.Bytes(buf), src, tagData, w.comm.Ctx())
	if mem != nil {
		rma.Put(mem, ps, buf)
	}
}

// reply answers request id of world rank src: status (0: done), then payload (or an
// error's text), from the progress goroutine's scratch buffer: no allocation.
func (w *Win) reply(src int, id uint32, status byte, payload []byte) {
	if cap(w.scratch) < 1+len(payload) {
		w.scratch = make([]byte, 1+len(payload))
	}
	out := w.scratch[:1+len(payload)]
	out[0] = status
	copy(out[1:], payload)
	eng().Send(p2p.Bytes(out), src, int(id), w.comm.Ctx(), p2p.Standard)
}

// answerGet adds a batched Get's data, pieces ps of mem, to the batch's reply.
func (w *Win) answerGet(src int, h *rma.Header, mem []byte, ps []rma.Piece) {
	n := sum(ps)
	w.bout = append(w.bout, 0, byte(n), byte(n>>8))
	at := len(w.bout)
	w.bout = append(w.bout, make([]byte, n)...)
	rma.Get(w.bout[at:], mem, ps)
	w.boutID = h.ID
}

// handle applies one request from origin (rank in the window; world rank src).
func (w *Win) handle(origin, src int, b []byte) {
	// Publish the earlier requests' writes before this one's reply can tell an origin
	// they are complete: a rank that then reads its own window through the short way
	// loads the count (see observe).
	w.applied.Add(1)
	h, ps, data, err := rma.Decode(b)
	if err != nil {
		w.noteErr(origin, err.Error())
		return
	}
	var mem []byte
	var runs []run // a dynamic window's request across attachments (dynamic.go)
	switch h.Kind {
	case rma.KPut, rma.KGet, rma.KAcc, rma.KGetAcc, rma.KCas:
		var why string
		mem, ps, runs, why = w.resolve(h.Base, ps)
		if why != "" {
			if h.ID != 0 {
				w.answer(src, &h, 1, []byte(why))
			} else {
				w.noteErr(origin, why)
			}
			if h.Flags&rma.SplitData != 0 {
				// The data message still comes (Put), or is still awaited (Get).
				if h.Kind == rma.KPut {
					w.recvData(src, nil, nil, h.Data)
				} else {
					eng().Send(p2p.Bytes(nil), src, int(h.ID), w.comm.Ctx(), p2p.Standard)
				}
			}
			return
		}
	}
	switch h.Kind {
	case rma.KPut:
		if h.Flags&rma.SplitData != 0 {
			w.recvData(src, mem, ps, h.Data)
			break
		}
		rma.Put(mem, ps, data)
	case rma.KGet:
		if h.Flags&rma.SplitData != 0 && len(ps) == 1 {
			// Status, then the data straight from the window.
			var ok [1]byte
			eng().Send(p2p.Bytes(ok[:]), src, int(h.ID), w.comm.Ctx(), p2p.Standard)
			eng().Send(p2p.Bytes(mem[ps[0].Off:ps[0].Off+ps[0].Len]), src, int(h.ID), w.comm.Ctx(), p2p.Standard)
			break
		}
		if h.Flags&rma.SplitData != 0 {
			n := sum(ps)
			if cap(w.scratch) < n {
				w.scratch = make([]byte, n)
			}
			out := w.scratch[:n]
			rma.Get(out, mem, ps)
			var ok [1]byte
			eng().Send(p2p.Bytes(ok[:]), src, int(h.ID), w.comm.Ctx(), p2p.Standard)
			eng().Send(p2p.Bytes(out), src, int(h.ID), w.comm.Ctx(), p2p.Standard)
			break
		}
		if h.Flags&rma.Batched != 0 {
			w.answerGet(src, &h, mem, ps)
			break
		}
		if len(ps) == 1 {
			// Straight from the window: no copy here.
			var ok [1]byte
			l := sendLayout{head: ok[:], data: mem[ps[0].Off : ps[0].Off+ps[0].Len]}
			eng().Send(p2p.Packed(&l), src, int(h.ID), w.comm.Ctx(), p2p.Standard)
			break
		}
		n := 1 + sum(ps)
		if cap(w.scratch) < n {
			w.scratch = make([]byte, n)
		}
		out := w.scratch[:n]
		out[0] = 0
		rma.Get(out[1:], mem, ps)
		eng().Send(p2p.Bytes(out), src, int(h.ID), w.comm.Ctx(), p2p.Standard)
	case rma.KAcc, rma.KGetAcc:
		var old []byte
		if h.Kind == rma.KGetAcc {
			if cap(w.scratch) < 1+len(data) {
				w.scratch = make([]byte, 1+len(data))
			}
			old = w.scratch[1 : 1+len(data)]
		}
		if err := rma.Acc(mem, ps, data, old, h.Op, h.Elem, w.ctrl.acc(), nil); err != nil {
			if h.ID != 0 {
				w.answer(src, &h, 1, []byte(err.Error()))
			} else {
				w.noteErr(origin, err.Error())
			}
			return
		}
		if old == nil && h.ID != 0 {
			w.answer(src, &h, 0, nil) // an Accumulate that asked to be answered (acc)
		} else if old != nil && h.Flags&rma.Batched != 0 {
			w.answer(src, &h, 0, old)
		} else if old != nil {
			out := w.scratch[:1+len(data)]
			out[0] = 0
			eng().Send(p2p.Bytes(out), src, int(h.ID), w.comm.Ctx(), p2p.Standard)
		}
	case rma.KCas:
		n := len(data) / 2
		var old [16]byte
		rma.CompareSwap(mem, ps[0].Off, data[:n], data[n:], old[:n], h.Elem, w.ctrl.acc())
		w.answer(src, &h, 0, old[:n])
	case rma.KFlush:
		w.replyErrs(origin, src, h.ID)
	case rma.KLock:
		w.lockQ = append(w.lockQ, lockWaiter{origin: origin, src: src, id: h.ID, excl: h.Flags&rma.Exclusive != 0})
		atomic.AddUint64(w.ctrl.queued(), 1)
		queuedLocks.Add(1)
		w.grant()
	case rma.KUnlock:
		atomic.StoreUint64(w.ctrl.held(origin, w.size), 0)
		rma.Release(w.ctrl.lock(), h.Flags&rma.Exclusive != 0)
		w.replyErrs(origin, src, h.ID)
		w.grant()
	case rma.KGrant:
		w.grant()
	case rma.KComplete:
		atomic.AddUint64(w.ctrl.complete(origin, w.size), 1)
	default:
		if h.ID != 0 {
			w.reply(src, h.ID, 1, []byte("unknown request"))
		} else {
			w.noteErr(origin, "unknown request")
		}
	}
	if runs != nil && h.Kind != rma.KGet {
		store(runs, mem) // before the next request, which a reply may have allowed
	}
}

// failQueuedLocks answers the queued lock requests with ErrProcFailed when a holder
// of the lock has died (applyMu held): the lock will never be free, and a waiter
// told so can end (or its error handler end the job) naming the dead rank, as a
// direct waiter does (holderGone).
func (w *Win) failQueuedLocks() {
	if len(w.lockQ) == 0 {
		return
	}
	o, err := w.deadHolder(w.ctrl)
	if err == nil {
		return
	}
	msg := []byte(holderGoneMsg(o, w.rank) + ": " + err.Error())
	for _, q := range w.lockQ {
		w.reply(q.src, q.id, statusProcFailed, msg)
		atomic.AddUint64(w.ctrl.queued(), ^uint64(0))
		queuedLocks.Add(-1)
	}
	w.lockQ = w.lockQ[:0]
}

// Reply statuses: 0 done; statusFailed: the request failed (an error's text follows);
// statusProcFailed: it cannot be done because a process died (the text names it).
const (
	statusFailed     = 1
	statusProcFailed = 2
)

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
		queuedLocks.Add(-1)
		granted := [2]byte{0, 1}
		eng().Send(p2p.Bytes(granted[:]), q.src, int(q.id), w.comm.Ctx(), p2p.Standard)
	}
}

// send sends a request without pieces, data or reply to t.
func (w *Win) send(t int, h *rma.Header) {
	var msg [rma.HeaderLen]byte
	rma.Encode(msg[:], h, nil)
	eng().Send(p2p.Bytes(msg[:]), w.worldOf(t), tagRMA, w.comm.Ctx(), p2p.Standard)
}

func sum(ps []rma.Piece) int {
	n := int64(0)
	for _, p := range ps {
		n += p.Len
	}
	return int(n)
}

func (w *Win) noteErr(origin int, msg string) {
	w.mu.Lock()
	if _, ok := w.errs[origin]; !ok {
		w.errs[origin] = msg
	}
	w.mu.Unlock()
}

func (w *Win) replyErrs(origin, src int, id uint32) {
	w.mu.Lock()
	msg, bad := w.errs[origin]
	delete(w.errs, origin)
	w.mu.Unlock()
	if bad {
		w.reply(src, id, 1, []byte(msg))
	} else {
		w.reply(src, id, 0, nil)
	}
}

// A shipped operation waits without a done channel (core's Pending calls WaitContext).
var _ interface{ WaitContext(context.Context) error } = (*shipOp)(nil)
