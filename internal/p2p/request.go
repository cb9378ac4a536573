package p2p

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/transport"
)

// Status describes a completed receive (or send).
type Status struct {
	Source    int   // world rank of the sender (ProcNull, AnySource for an empty status)
	Tag       int   // the message's tag
	Count     int64 // bytes received
	Err       error // nil, or why the request failed (wraps ErrTruncate, transport.ErrPeerGone, ...)
	Cancelled bool  // the request was cancelled before it matched
}

var emptyStatus = Status{Source: AnySource, Tag: AnyTag}

// Request is a handle on a nonblocking operation. The zero value is the null request.
// Completing a request (Wait, or Test reporting true) frees it and sets the handle to
// null, except for persistent requests, which become inactive until Start or Free.
// Handles are values: a stale copy is detected (its generation no longer matches) and
// rejected with ErrRequest.
type Request struct {
	r   *request
	gen uint32
}

// IsNull reports whether q is the null request.
func (q Request) IsNull() bool { return q.r == nil }

// Stale reports whether q is a copy of a request that has been completed or freed
// through another copy: its record has been freed since, and may serve another
// operation, or it was freed while pending (orphan) and the engine frees it when it
// completes.
func (q Request) Stale() bool {
	return q.r != nil && (q.r.gen != q.gen || !q.r.inUse || q.r.orphan)
}

// usedUp is the error of call op given a stale handle (see Stale).
func usedUp(op string) error {
	return fmt.Errorf("%s: %w: the request is a copy of one already completed or freed through another copy: "+
		"that copy is the null request, and this one is used up (MPI deallocates a completed request)", op, ErrRequest)
}

// Active reports whether q is started and not yet reported: not null, not an
// inactive persistent request.
func (q Request) Active() bool { return q.active() }

// Handle is q as an opaque pointer and generation, for a layer that holds requests
// without knowing the engine's type (internal/coll's Req); RequestOf turns it back.
func (q Request) Handle() (unsafe.Pointer, uint32) { return unsafe.Pointer(q.r), q.gen }

// RequestOf is the request whose Handle gave p and gen.
func RequestOf(p unsafe.Pointer, gen uint32) Request { return Request{r: (*request)(p), gen: gen} }

type reqKind uint8

const (
	sendReq reqKind = iota + 1
	recvReq
)

// request is the engine's state of one operation. Requests are pooled: the index in
// Engine.reqs and the generation together form the cookie peers use to name it.
type request struct {
	done atomic.Uint32 // set last when the operation completes; waiters read it unlocked

	idx        uint32
	gen        uint32
	kind       reqKind
	mode       Mode
	proto      transport.Protocol
	inUse      bool // taken from the pool
	started    bool // an operation is under way or completed but not yet reported
	persistent bool
	internal   bool // a buffered send's carrier: the engine frees it on completion
	orphan     bool // freed by the user while pending: the engine frees it on completion
	matched    bool // receive: a message is matched to it
	adapt      bool // receive: a rendezvous whose protocol this rank chose by measurement
	stream     bool // receive: an adaptive one that joined a stream (adapt.go)
	exch       bool // receive: an adaptive one timed as an exchange (adapt.go)
	running    bool // receive: a streamed one started, not held
	private    bool // a blocking Send's or Recv's own request: no handle on it exists
	fin        bool // a private request completed (set and read under e.mu)
	putWait    bool // receive: the sender's part of a split get is not in place yet
	offered    bool // send: counted in its peer's offered
	cancelling bool // send: marked for cancellation, its cancel packet sent (cancel.go)

	ctx  uint32
	peer int32 // send: destination; receive: source filter
	tag  int32
	buf  []byte
	lay  Layout
	size int64 // bytes in the buffer
	// dst: a receive of any size allocates its buffer at match and stores it here
	// (alloc.go), unless the message fits buf, which until then holds the caller's
	// buffer for messages that fit.
	dst *[]byte

	sent, limit int64  // send: bytes streamed so far, and how many the receiver takes
	remote      uint64 // the peer's cookie for this message
	addr        uint64 // receive: sender's buffer address (Get); send: receiver's (put)
	putOff      int64  // send: the next byte, and the end, of its part of a split get
	putEnd      int64
	split       int64          // receive: where the sender's part of a split get begins (0: not split)
	pin         unsafe.Pointer // send: keeps the buffer alive while a peer reads it (Get)
	got, expect int64          // receive: bytes arrived, bytes to arrive
	seq         uint64         // receive: posting order in its context
	boff        int            // buffered send: offset of the copy in the attached buffer (-1: an automatic buffer's own copy)
	bst         *bsendState    // buffered send: the buffer holding the copy
	t0          int64          // adaptive receive: when its uncontended transfer began (sinceStart; 0: not timed)

	st Status

	list       *reqList
	next, prev *request
	ow         *ctxWords // a receive posted on a context: that context's words (match.go)
}

// pending reports whether r is an operation under way (not free, not complete). A
// request the engine frees on completion (internal, orphan) is not pending after it.
func (r *request) pending() bool { return r.inUse && r.started && !r.fin && r.done.Load() == 0 }

func (r *request) cookie() uint64 { return uint64(r.gen)<<32 | uint64(r.idx) }

// newReq takes a request from the pool. The caller holds e.mu.
func (e *Engine) newReq() *request {
	var r *request
	if n := len(e.freeR); n > 0 {
		r = e.freeR[n-1]
		e.freeR = e.freeR[:n-1]
	} else {
		r = &request{idx: uint32(len(e.reqs)), gen: 1}
		e.reqs = append(e.reqs, r)
	}
	// Cleared here rather than in freeReq: a blocking receive frees its request on the
	// way back to its caller, which is about to answer, and takes the next one while
	// its message travels.
	*r = request{idx: r.idx, gen: r.gen, inUse: true}
	return r
}

// freeReq returns r to the pool. The caller holds e.mu.
func (e *Engine) freeReq(r *request) {
	gen := r.gen + 1
	if gen == 0 {
		gen = 1
	}
	r.gen, r.inUse = gen, false
	// done without an atomic store (a locked exchange on amd64): only the holder of
	// the request's handle reads done without the lock, and it has let go. The
	// buffers are let go of for the collector; newReq clears the rest.
	*(*uint32)(unsafe.Pointer(&r.done)) = 0
	r.buf, r.lay, r.pin = nil, nil, nil
	// The pointers only some requests set are cleared only where set: a blocking
	// receive frees its request between its message's arrival and its caller's
	// answer.
	if r.bst != nil || r.dst != nil {
		r.bst, r.dst = nil, nil
	}
	e.freeR = append(e.freeR, r)
}

// lookup finds the live request a cookie names, or nil.
func (e *Engine) lookup(c uint64, kind reqKind) *request {
	idx := uint32(c)
	if uint64(idx) >= uint64(len(e.reqs)) {
		return nil
	}
	r := e.reqs[idx]
	if r.gen != uint32(c>>32) || !r.inUse || r.kind != kind || !r.started || r.fin || r.done.Load() != 0 {
		return nil
	}
	return r
}

// complete marks r complete and wakes sleepers. The caller holds e.mu and has taken
// r off every list.
func (e *Engine) complete(r *request) {
	if r.adapt {
		e.adaptDone(r)
	}
	if r.offered {
		r.offered = false
		if p := e.peers[r.peer]; p != nil {
			p.offered--
		}
	}
	if r.internal {
		e.bsendDone(r)
		e.freeReq(r)
		return
	}
	if r.orphan {
		e.freeReq(r)
		return
	}
	r.pin = nil
	if r.private {
		// Only its blocking caller waits for it, and looks under e.mu: a plain write
		// saves two locked exchanges (this one and freeReq's) per blocking call.
		r.fin = true
	} else {
		e.setDone(r)
	}
	if e.sleepers.Load() != 0 {
		e.db.Ring()
	}
}

// finish reports a completed request's status and frees it, or deactivates it if
// persistent. The caller holds e.mu.
func (e *Engine) finish(q *Request) Status {
	st := q.r.st
	e.release(q)
	return st
}

// release frees a completed request, or deactivates it if persistent. The caller
// holds e.mu.
func (e *Engine) release(q *Request) {
	r := q.r
	if r.persistent {
		r.started = false
		return
	}
	e.freeReq(r)
	*q = Request{}
}

// storeStatus copies r's status into *st one field at a time (see RecvInfo for why
// not as a whole).
func (r *request) storeStatus(st *Status) {
	st.Source, st.Tag, st.Count, st.Err, st.Cancelled = r.st.Source, r.st.Tag, r.st.Count, r.st.Err, r.st.Cancelled
}

// reqList is an intrusive doubly linked list; a request is on at most one at a time.
type reqList struct{ head, tail *request }

func (l *reqList) push(r *request) {
	r.list, r.next, r.prev = l, nil, l.tail
	if l.tail != nil {
		l.tail.next = r
	} else {
		l.head = r
	}
	l.tail = r
}

func (l *reqList) remove(r *request) {
	if r.ow != nil {
		r.ow.posted--
		r.ow = nil
	}
	if r.prev != nil {
		r.prev.next = r.next
	} else {
		l.head = r.next
	}
	if r.next != nil {
		r.next.prev = r.prev
	} else {
		l.tail = r.prev
	}
	r.list, r.next, r.prev = nil, nil, nil
}

// Target is q's peer (a world rank: a send's destination, a receive's source or
// AnySource) and tag, and whether it is a receive, for a record of what a wait waits
// for; -3 (no peer) and -1 for the null request or one already released.
func (q Request) Target() (peer, tag int, recv bool) {
	if q.r == nil || q.r.gen != q.gen {
		return -3, -1, false
	}
	return int(q.r.peer), int(q.r.tag), q.r.kind == recvReq
}
