package p2p

import (
	"fmt"
	"math/bits"
)

// ctxq holds the matching queues of one context. Receives posted and not yet
// matched wait on the list of their source, or on the wildcard list, stamped with
// their posting order; messages arrived and not yet matched wait on one list in
// arrival order and on the list of their source. An arriving message looks at its
// source's receives and the wildcard ones and takes the earlier posted; a receive
// looks at its source's messages, or all of them for AnySource. Arrival order is
// per-peer transport order, so matching at the first packet of every message (eager
// or request-to-send) keeps MPI's non-overtaking rule whatever protocol each message
// uses.
type ctxq struct {
	seq   uint64     // posting stamp of the next receive
	wild  reqList    // AnySource receives
	bySrc []reqList  // other receives by source, grown on demand
	unexp umsgList   // every arrived message (links next, prev)
	uSrc  []umsgList // arrived messages by source (links snext, sprev)
	st    QueueStats // the context's counts, for the tool interface (tools.go)
	// ow is what the receive's short way outside Go reads of these queues (ctxWords),
	// in outside memory when owOut.
	ow    *ctxWords
	owOut bool
	// Served (served.go): arrivals of serveTag note the context for NextServed.
	serve    bool
	noted    bool // on the engine's served list
	serveTag int32
	owner    any // ServeContext's
}

// ctxq returns the queues of context id c. Context ids are small and dense in practice
// (the mpi layer allocates them), so they index a slice; others go to a map.
func (e *Engine) ctxq(c uint32) *ctxq {
	if c < uint32(len(e.ctxs)) && e.ctxs[c] != nil { // small enough to inline
		return e.ctxs[c]
	}
	return e.ctxqSlow(c)
}

const denseContexts = 1 << 16

func (e *Engine) ctxqSlow(c uint32) *ctxq {
	if c < denseContexts {
		if c >= uint32(len(e.ctxs)) {
			n := max(int(c)+1, 2*len(e.ctxs), 16)
			e.ctxs = append(e.ctxs, make([]*ctxq, n-len(e.ctxs))...)
		}
		q := newCtxq()
		e.ctxs[c] = q
		return q
	}
	if e.ctxm == nil {
		e.ctxm = map[uint32]*ctxq{}
	}
	q := e.ctxm[c]
	if q == nil {
		q = newCtxq()
		e.ctxm[c] = q
	}
	return q
}

func tagMatch(want, tag int32) bool { return want == tag || want == AnyTag }

// awaits reports whether a receive posted on context ctx and not yet matched awaits
// a message from src: a send to src then is half of an exchange (exchEager).
func (e *Engine) awaits(ctx uint32, src int32) bool {
	var q *ctxq
	if ctx < uint32(len(e.ctxs)) {
		q = e.ctxs[ctx]
	} else {
		q = e.ctxm[ctx]
	}
	return q != nil && int(src) < len(q.bySrc) && q.bySrc[src].head != nil
}

// matchPosted finds the earliest posted receive that takes a message (src, tag).
func (q *ctxq) matchPosted(src, tag int32) *request {
	var best *request
	if int(src) < len(q.bySrc) {
		for r := q.bySrc[src].head; r != nil; r = r.next {
			if tagMatch(r.tag, tag) {
				best = r
				break
			}
		}
	}
	for r := q.wild.head; r != nil; r = r.next {
		if tagMatch(r.tag, tag) {
			if best == nil || r.seq < best.seq {
				best = r
			}
			break
		}
	}
	return best
}

// firstPosted is matchPosted's common case, small enough to inline: no wildcard
// receive, and the first receive posted for src takes the message. Otherwise nil
// (ask matchPosted).
func (q *ctxq) firstPosted(src, tag int32) *request {
	if q.wild.head == nil && int(src) < len(q.bySrc) {
		if r := q.bySrc[src].head; r != nil && (r.tag == tag || r.tag == AnyTag) {
			return r
		}
	}
	return nil
}

// anyPosted says whether a message from src could match at all (the fast path).
func (q *ctxq) anyPosted(src int32) bool {
	return q.wild.head != nil || (int(src) < len(q.bySrc) && q.bySrc[src].head != nil)
}

// post queues receive r.
func (q *ctxq) post(r *request) {
	r.seq = q.seq
	q.seq++
	r.ow = q.ow // leaving the list, it counts itself out (reqList.remove)
	q.ow.posted++
	if r.peer == AnySource {
		q.wild.push(r)
		return
	}
	if int(r.peer) >= len(q.bySrc) {
		q.bySrc = append(q.bySrc, make([]reqList, max(int(r.peer)+1, 2*len(q.bySrc), 8)-len(q.bySrc))...)
		for i := range q.bySrc { // the lists moved: fix the back pointers
			for x := q.bySrc[i].head; x != nil; x = x.next {
				x.list = &q.bySrc[i]
			}
		}
	}
	q.bySrc[r.peer].push(r)
}

// matchUnexp finds the first arrived message a receive (src, tag) takes.
func (q *ctxq) matchUnexp(src, tag int32) *umsg {
	if src == AnySource {
		for m := q.unexp.head; m != nil; m = m.next {
			if tagMatch(tag, m.tag) {
				return m
			}
		}
		return nil
	}
	if int(src) >= len(q.uSrc) {
		return nil
	}
	for m := q.uSrc[src].head; m != nil; m = m.snext {
		if tagMatch(tag, m.tag) {
			return m
		}
	}
	return nil
}

// arrive queues an unmatched message.
func (q *ctxq) arrive(m *umsg) {
	q.unexp.push(m)
	if int(m.src) >= len(q.uSrc) {
		q.uSrc = append(q.uSrc, make([]umsgList, max(int(m.src)+1, 2*len(q.uSrc), 8)-len(q.uSrc))...)
	}
	l := &q.uSrc[m.src]
	m.snext, m.sprev = nil, l.tail
	if l.tail != nil {
		l.tail.snext = m
	} else {
		l.head = m
	}
	l.tail = m
}

// take removes a matched message from the queues.
func (q *ctxq) take(m *umsg) {
	q.unexp.remove(m)
	l := &q.uSrc[m.src]
	if m.sprev != nil {
		m.sprev.snext = m.snext
	} else {
		l.head = m.snext
	}
	if m.snext != nil {
		m.snext.sprev = m.sprev
	} else {
		l.tail = m.sprev
	}
	m.snext, m.sprev = nil, nil
}

// umsg is a message that arrived before its receive: an eager message with its data
// (in a pooled buffer), or a request-to-send.
type umsg struct {
	next, prev   *umsg // all arrived messages of the context
	snext, sprev *umsg // those from the same source
	gen          uint32
	kind         uint8
	flags        uint8
	ctx          uint32
	src          int32
	tag          int32
	len          int64
	sendID       uint64
	addr         uint64
	data         []byte
}

type umsgList struct{ head, tail *umsg }

func (l *umsgList) push(m *umsg) {
	m.next, m.prev = nil, l.tail
	if l.tail != nil {
		l.tail.next = m
	} else {
		l.head = m
	}
	l.tail = m
}

func (l *umsgList) remove(m *umsg) {
	if m.prev != nil {
		m.prev.next = m.next
	} else {
		l.head = m.next
	}
	if m.next != nil {
		m.next.prev = m.prev
	} else {
		l.tail = m.prev
	}
	m.next, m.prev = nil, nil
}

func (e *Engine) newUmsg() *umsg {
	if n := len(e.freeU); n > 0 {
		m := e.freeU[n-1]
		e.freeU = e.freeU[:n-1]
		return m
	}
	return &umsg{gen: 1}
}

// umsgKeep bounds the records of unexpected messages kept for reuse, as bufPool bounds
// their buffers: a flood of unexpected messages needs a record each at once, and what
// a steady stream needs is far less.
const umsgKeep = 4096

func (e *Engine) freeUmsg(m *umsg) {
	if m.data != nil {
		e.pool.put(m.data)
	}
	gen := m.gen + 1
	if gen == 0 {
		gen = 1
	}
	*m = umsg{gen: gen}
	if len(e.freeU) < umsgKeep {
		e.freeU = append(e.freeU, m)
	}
}

func (m *umsg) status() Status {
	return Status{Source: int(m.src), Tag: int(m.tag), Count: m.len}
}

// bufPool keeps buffers for unexpected eager data in power-of-two size classes, so a
// steady stream of unexpected messages allocates nothing. Each class keeps at most
// poolClassBytes: unexpected messages all wait in memory at once, so a flood of them
// (a receiver that falls behind, a rank that posts its receives late) takes many
// buffers, which would otherwise stay in the pool for the life of the rank. The rest
// go back to the Go heap. A steady stream needs as many buffers as messages wait at
// once, which the bound leaves room for at the eager sizes (256 of 4 KiB, 16 of
// 64 KiB).
type bufPool struct {
	free [poolClasses][][]byte
}

const (
	poolMinShift   = 6  // 64 bytes
	poolClasses    = 15 // up to 1 MiB; larger buffers are not kept
	poolClassBytes = 1 << 20
)

func poolClass(n int) int {
	if n <= 1<<poolMinShift {
		return 0
	}
	return bits.Len(uint(n-1)) - poolMinShift
}

// poolKeep is how many buffers class c keeps: poolClassBytes of them.
func poolKeep(c int) int { return poolClassBytes >> (c + poolMinShift) }

func (p *bufPool) get(n int) []byte {
	c := poolClass(n)
	if c >= poolClasses {
		return make([]byte, n)
	}
	if l := len(p.free[c]); l > 0 {
		b := p.free[c][l-1]
		p.free[c][l-1] = nil
		p.free[c] = p.free[c][:l-1]
		return b[:n]
	}
	return make([]byte, n, 1<<(c+poolMinShift))
}

func (p *bufPool) put(b []byte) {
	c := poolClass(cap(b))
	if c >= poolClasses || cap(b) != 1<<(c+poolMinShift) || len(p.free[c]) >= poolKeep(c) {
		return
	}
	p.free[c] = append(p.free[c], b[:0])
}

// kept is the bytes the pool holds.
func (p *bufPool) kept() int {
	n := 0
	for c := range p.free {
		n += len(p.free[c]) << (c + poolMinShift)
	}
	return n
}

// TruncError is the error of a receive whose buffer is smaller than the message. It
// keeps the sender (a world rank), so that a call that reports the error apart from
// the status (Waitall's first failure, with no statuses asked for) can name it.
type TruncError struct {
	Src      int   // the sender's world rank
	Msg, Buf int64 // the message's bytes and the receive buffer's
}

func (e *TruncError) Error() string {
	return fmt.Sprintf("%v: %d-byte message, %d-byte receive buffer", ErrTruncate, e.Msg, e.Buf)
}

func (e *TruncError) Unwrap() error { return ErrTruncate }

// truncErr is the error of a receive from src whose buffer is smaller than the message.
func truncErr(src int32, msg, buf int64) error {
	return &TruncError{Src: int(src), Msg: msg, Buf: buf}
}
