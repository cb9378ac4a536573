package p2p

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/mpigo/mpigo/internal/transport"
)

func (e *Engine) checkSend(op string, dest, tag int, mode Mode) error {
	if n := e.Peers(); dest != ProcNull && (dest < 0 || dest >= n) {
		return fmt.Errorf("%s: dest %d out of range [0,%d)", op, dest, n)
	}
	if tag < 0 || tag > MaxTag {
		return fmt.Errorf("%s: tag %d out of range [0,%d]", op, tag, MaxTag)
	}
	if mode > Buffered {
		return fmt.Errorf("%s: unknown send mode %d", op, mode)
	}
	return nil
}

func isGone(err error) bool { return errors.Is(err, transport.ErrPeerGone) }

// Send sends b to world rank dest with tag in context ctx, and returns when b may be
// reused. An eager message that the transport takes at once involves no request, no
// goroutine and no allocation.
func (e *Engine) Send(b Buf, dest, tag int, ctx uint32, mode Mode) error {
	if sent, err := e.SendNow(b, dest, tag, ctx, mode); sent {
		return err
	}
	return e.send(b, dest, tag, ctx, mode)
}

// SendNow is Send's short path alone: a message in Standard or Ready mode, to a
// connected peer with nothing queued to it, that fits an eager packet which the
// transport takes at once. sent says that it was sent (or failed: err); if not,
// nothing happened, and Send does the rest. A caller that records its calls asks
// SendNow first and records the call after it (prof.Count): nothing of the record
// then lies between a ping-pong's arrival and its answer.
func (e *Engine) SendNow(b Buf, dest, tag int, ctx uint32, mode Mode) (sent bool, err error) {
	if uint(dest) >= uint(e.reach.Load()) || uint(tag) > MaxTag || (mode != Standard && mode != Ready) {
		return false, nil
	}
	e.mu.Lock()
	p := e.peers[dest]
	n := b.Len()
	if e.failed != nil || p == nil || p.ep == nil || p.sendq.head != nil || p.err != nil || n > p.eagerMax {
		e.mu.Unlock()
		return false, nil
	}
	var payload []byte
	if b.l == nil {
		payload = b.bytes()
	} else {
		payload = e.pack[:n]
		b.l.PackAt(payload, 0)
	}
	if err = e.sendEager(p, ctx, int32(tag), payload); err == nil {
		e.count(p, ctx, int64(n))
		e.wakeSelf(p)
		e.mu.Unlock()
		return true, nil
	}
	if err == transport.ErrWouldBlock || errors.Is(err, transport.ErrWouldBlock) {
		e.mu.Unlock()
		return false, nil
	}
	e.failPeer(p, err)
	err = p.err
	e.mu.Unlock()
	return true, err
}

// sendEager writes a standard eager message's packet of payload to p: where p's
// transport can, a compact one without a Header (transport.CompactSender).
func (e *Engine) sendEager(p *peer, ctx uint32, tag int32, payload []byte) error {
	if int64(len(payload)) <= p.csMax {
		return p.cs.SendCompact(kindEager, e.self32, ctx, tag, payload)
	}
	h := &e.hdr
	setHeader(h, kindEager, 0, e.self32, ctx, tag, uint64(len(payload)), 0)
	return p.ep.Send(h, payload)
}

// send is Send past its short path (SendNow said no): the checks, buffered and
// synchronous sends, rendezvous, a full transport, a peer not yet connected.
func (e *Engine) send(b Buf, dest, tag int, ctx uint32, mode Mode) error {
	if uint(dest) >= uint(e.reach.Load()) || uint(tag) > MaxTag || mode > Buffered {
		if err := e.checkSend("Send", dest, tag, mode); err != nil {
			return err
		}
		return nil // ProcNull
	}
	if mode == Buffered {
		e.mu.Lock()
		err := e.bsendLocked(b, dest, tag, ctx)
		e.mu.Unlock()
		return err
	}
	e.mu.Lock()
	if e.failed != nil {
		err := e.failed
		e.mu.Unlock()
		return err
	}
	r := e.newReq()
	r.kind, r.mode, r.ctx, r.peer, r.tag = sendReq, mode, ctx, int32(dest), int32(tag)
	r.private = true
	r.setBuf(b)
	e.startSend(r)
	err := e.block(nil, r, nil)
	if err == nil {
		err = r.st.Err
	}
	e.freeReq(r)
	e.mu.Unlock()
	return err
}

// Isend starts a send and returns its request. An eager message that the transport
// takes at once completes the request before Isend returns, by the same short path as
// Send's, kept apart from the general one (isend) so that it carries none of its
// frame: every store a small send makes waits in the store buffer behind the previous
// message's ring lines.
func (e *Engine) Isend(b Buf, dest, tag int, ctx uint32, mode Mode) (Request, error) {
	if uint(dest) < uint(e.reach.Load()) && uint(tag) <= MaxTag && (mode == Standard || mode == Ready) && b.l == nil {
		if q := e.isendEager(b, dest, tag, ctx, mode); q.r != nil {
			return q, nil
		}
	}
	return e.isend(b, dest, tag, ctx, mode)
}

// isendEager sends b eagerly if the peer is connected, nothing is queued to it and the
// transport takes the packet now, and returns the completed request; else the null one.
func (e *Engine) isendEager(b Buf, dest, tag int, ctx uint32, mode Mode) Request {
	e.mu.Lock()
	p := e.peers[dest]
	if p == nil || p.ep == nil || p.sendq.head != nil || p.err != nil || e.failed != nil || int64(b.n) > p.eagerMax {
		e.mu.Unlock()
		return Request{}
	}
	if err := e.sendEager(p, ctx, int32(tag), b.bytes()); err != nil {
		if err != transport.ErrWouldBlock && !errors.Is(err, transport.ErrWouldBlock) {
			e.failPeer(p, err) // isend fails the request
		}
		e.mu.Unlock()
		return Request{}
	}
	e.count(p, ctx, int64(b.n))
	e.wakeSelf(p)
	r := e.newReq()
	r.kind, r.mode, r.ctx, r.peer, r.tag = sendReq, mode, ctx, int32(dest), int32(tag)
	r.size, r.started = int64(b.n), true
	r.st = Status{Source: dest, Tag: tag, Count: int64(b.n)}
	e.setDone(r)
	q := Request{r, r.gen}
	e.mu.Unlock()
	return q
}

func (e *Engine) isend(b Buf, dest, tag int, ctx uint32, mode Mode) (Request, error) {
	if err := e.checkSend("Isend", dest, tag, mode); err != nil {
		return Request{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.newReq()
	r.kind, r.mode, r.ctx, r.peer, r.tag = sendReq, mode, ctx, int32(dest), int32(tag)
	r.setBuf(b)
	if mode == Buffered && dest != ProcNull {
		if err := e.bsendLocked(b, dest, tag, ctx); err != nil {
			e.freeReq(r)
			return Request{}, err
		}
		r.started = true
		r.st = Status{Source: dest, Tag: tag, Count: r.size}
		e.complete(r)
		return Request{r, r.gen}, nil
	}
	e.startSend(r)
	if r.list != nil {
		// Queued behind a full transport: make progress, as a blocked send would,
		// so that a rank issuing many sends still drains what its peer sends back
		// (the peer may be waiting on room for its answers).
		e.progressLocked()
	}
	return Request{r, r.gen}, nil
}

// SendInit makes a persistent send request; Start starts it.
func (e *Engine) SendInit(b Buf, dest, tag int, ctx uint32, mode Mode) (Request, error) {
	if err := e.checkSend("SendInit", dest, tag, mode); err != nil {
		return Request{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.newReq()
	r.kind, r.mode, r.ctx, r.peer, r.tag = sendReq, mode, ctx, int32(dest), int32(tag)
	r.setBuf(b)
	r.persistent = true
	return Request{r, r.gen}, nil
}

// startSend starts send r: chooses its protocol and sends its first packet, or queues
// it behind earlier sends to the same peer. The caller holds e.mu.
func (e *Engine) startSend(r *request) {
	r.started = true
	if r.done.Load() != 0 {
		r.done.Store(0)
	}
	r.sent, r.limit, r.remote, r.cancelling = 0, 0, 0, false
	if r.peer == ProcNull {
		r.st = Status{Source: ProcNull, Tag: AnyTag}
		e.complete(r)
		return
	}
	r.st = Status{Source: int(r.peer), Tag: int(r.tag), Count: r.size}
	if e.failed != nil {
		e.fail(r, e.failed)
		return
	}
	if r.mode == Buffered {
		// Counted as bsendLocked starts its copy's send.
		// A persistent buffered send: copy now, complete now.
		if err := e.bsendLocked(Buf{p: unsafe.SliceData(r.buf), n: len(r.buf), l: r.lay}, int(r.peer), int(r.tag), r.ctx); err != nil {
			r.st.Err = err
		}
		e.complete(r)
		return
	}
	p := e.peerState(int(r.peer))
	e.count(p, r.ctx, r.size)
	if err := e.connect(p); err != nil {
		if r.pending() { // failing the peer may have failed r already
			e.fail(r, err)
		}
		return
	}
	r.proto = transport.Eager
	if r.size > p.eagerMax && (r.size > p.table.Exchange || !e.awaits(r.ctx, r.peer)) {
		r.proto = p.table.lookup(r.size)
		if r.proto == transport.Eager { // eager_limit or MaxPayload said no
			r.proto = transport.Pipeline
		}
		if r.proto == transport.Get && (r.lay != nil || p.sc == nil) {
			r.proto = transport.Pipeline
		}
		if r.size >= adaptMin && e.adaptive && r.lay == nil && p.sc != nil || r.proto != transport.Get && e.mappedSource(p, r) {
			// Offer both protocols: the receiver chooses (adapt.go, startRndv).
			r.proto = transport.Get
		}
		e.countRendezvous(p, r.proto, true)
	}
	if p.sendq.head == nil && e.sendFirst(p, r) {
		return
	}
	p.sendq.push(r)
	e.markBusy(p)
}

// mappedSource reports whether send r, to p, may be read by its receiver through a
// mapping of its buffer (memory of MPI_Alloc_mem's that the node's ranks map): a get
// is offered then whatever the cost models say, since such a read is one memmove.
func (e *Engine) mappedSource(p *peer, r *request) bool {
	return e.force == "auto" && p.mapper != nil && r.lay == nil && r.size > 0 &&
		p.mapper.Shares(uint64(uintptr(unsafe.Pointer(unsafe.SliceData(r.buf)))), int(r.size))
}

// setHeader fills *h field by field, and clears RecvID, Addr and Offset. Assigned a
// composite literal, *h is built in a stack temporary and copied 16 bytes at a time,
// and a 16-byte load of fields just stored one by one cannot be forwarded from the
// store buffer: it waits until every earlier store has reached the cache. On the send
// path those include the previous message's ring lines, each a transfer from the
// receiver's core, so in a stream of small sends (bench/bw at 1 KiB) the wait was most
// of a message's cost. Transports read the header field by field too (shm's Send).
func setHeader(h *transport.Header, kind, flags uint8, src int32, ctx uint32, tag int32, n, sendID uint64) {
	h.Kind, h.Flags, h.Src, h.Context, h.Tag = kind, flags, src, ctx, tag
	h.Len, h.SendID, h.RecvID, h.Addr, h.Offset = n, sendID, 0, 0, 0
}

// sendFirst sends r's first packet (eager or request to send). It reports false when
// the transport would block (r stays queued).
func (e *Engine) sendFirst(p *peer, r *request) bool {
	h := &e.hdr
	setHeader(h, 0, 0, e.self32, r.ctx, r.tag, uint64(r.size), 0)
	var payload []byte
	switch r.proto {
	case transport.Eager:
		h.Kind = kindEager
		if r.mode == Synchronous {
			h.Flags, h.SendID = flagSync, r.cookie()
		}
		payload = r.chunk(e.pack, 0, int(r.size))
	case transport.Get:
		h.Kind, h.Flags, h.SendID = kindRTS, uint8(transport.Get), r.cookie()
		if r.size > 0 {
			r.pin = unsafe.Pointer(unsafe.SliceData(r.buf))
			h.Addr = uint64(uintptr(r.pin))
		}
	default:
		h.Kind, h.Flags, h.SendID = kindRTS, uint8(transport.Pipeline), r.cookie()
	}
	err := p.ep.Send(h, payload)
	if err == transport.ErrWouldBlock || (err != nil && errors.Is(err, transport.ErrWouldBlock)) {
		return false
	}
	if r.list != nil {
		r.list.remove(r)
	}
	if err == nil && r.proto == transport.Get && r.size >= splitMin {
		r.offered = true
		p.offered++
	}
	if err != nil {
		e.failPeer(p, err)
		if r.pending() {
			e.fail(r, p.err)
		}
		return true
	}
	e.wakeSelf(p)
	if r.proto == transport.Eager && r.mode != Synchronous {
		e.complete(r)
	}
	return true
}

// wakeSelf rings this rank's doorbell after a packet to itself, if anyone sleeps:
// transports ring the receiver's doorbell, and here the receiver is us.
func (e *Engine) wakeSelf(p *peer) {
	if p.rank == e.self && e.sleepers.Load() != 0 {
		e.db.Ring()
	}
}

// maxFragsPerPush bounds the pipeline fragments one progress step sends to a peer.
const maxFragsPerPush = 64

// pushPeer sends what waits for p: answers, then first packets in order, then
// pipeline fragments. It returns the number of packets sent.
func (e *Engine) pushPeer(p *peer) (n int) {
	if p.err != nil {
		return 0
	}
	if p.ep == nil {
		if e.connect(p) != nil {
			return 0
		}
	}
	if p.rank == e.self {
		defer e.wakeSelf(p)
	}
	for p.ctrlHead < len(p.ctrl) {
		err := p.ep.Send(&p.ctrl[p.ctrlHead], nil)
		if err != nil {
			if errors.Is(err, transport.ErrWouldBlock) {
				return n
			}
			e.failPeer(p, err)
			return n
		}
		p.ctrlHead++
		n++
	}
	p.ctrl, p.ctrlHead = p.ctrl[:0], 0
	for r := p.sendq.head; r != nil; r = p.sendq.head {
		if !e.sendFirst(p, r) {
			return n
		}
		n++
		if p.err != nil {
			return n
		}
	}
	frags := 0
	for r := p.streams.head; r != nil; r = p.streams.head {
		h := &e.hdr
		for r.sent < r.limit {
			if frags == maxFragsPerPush {
				return n // other peers' turn; and a transport that never blocks (self) is not flooded
			}
			frags++
			c := int(min(r.limit-r.sent, int64(p.maxPayload)))
			setHeader(h, kindData, 0, e.self32, 0, 0, 0, 0)
			h.RecvID, h.Offset = r.remote, uint64(r.sent)
			err := p.ep.Send(h, r.chunk(e.pack, r.sent, c))
			if err != nil {
				if errors.Is(err, transport.ErrWouldBlock) {
					return n
				}
				e.failPeer(p, err)
				return n
			}
			r.sent += int64(c)
			n++
		}
		p.streams.remove(r)
		e.complete(r)
	}
	return n
}

// Progress polls every transport once and pushes queued sends; it returns how many
// packets moved. Waiting calls drive progress themselves; Progress is for callers
// that poll (a progress goroutine, a test stepping engines in turn).
func (e *Engine) Progress() int {
	e.mu.Lock()
	n := e.progressLocked()
	e.mu.Unlock()
	return n
}

func (e *Engine) progressLocked() int {
	if e.out.deferred != 0 {
		e.postDeferred() // before a packet they match could move
	}
	n := 0
	for _, t := range e.trs {
		n += t.Poll(e.h)
	}
	if e.failNew.Load() {
		e.applyFailures()
		n++
	}
	if len(e.busy) > 0 || e.gets.head != nil {
		n += e.push()
	}
	return n
}

// flush sends what handling packets or matching queued (answers such as a get's FIN
// or a synchronous send's ack), so a peer is not left waiting until this rank's next
// call. The caller holds e.mu.
func (e *Engine) flush() {
	if len(e.busy) > 0 || e.gets.head != nil {
		e.push()
	}
}

func (e *Engine) push() int {
	n := 0
	if e.putAsked {
		// A split get's request to the sender goes out before this rank starts its
		// own part, or the two halves would be copied one after the other.
		e.putAsked = false
		n += e.pushBusy()
	}
	// Reads first: they queue FINs the loop below then sends.
	for k := 0; k < 64 && e.gets.head != nil; k++ {
		r := e.gets.head
		e.gets.remove(r)
		more := false
		if r.kind == sendReq {
			more = e.doPut(r)
		} else {
			more = e.doGet(r)
		}
		if more {
			e.gets.push(r) // more to read: round robin with other gets
		}
		n++
	}
	return n + e.pushBusy()
}

// pushBusy sends what the busy peers have queued.
func (e *Engine) pushBusy() int {
	n := 0
	for i := 0; i < len(e.busy); {
		p := e.busy[i]
		n += e.pushPeer(p)
		if p.idle() || p.err != nil {
			p.inBusy = false
			e.showRing(p)
			last := len(e.busy) - 1
			e.busy[i] = e.busy[last]
			e.busy[last] = nil
			e.busy = e.busy[:last]
			continue
		}
		i++
	}
	e.noteQuiet()
	return n
}
