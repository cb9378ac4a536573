package p2p

import (
	"github.com/mpigo/mpigo/internal/transport"
)

// Packet kinds (transport.Header.Kind) and how each uses the header. Every packet
// carries Src, the sender's world rank.
//
//	eager  Context, Tag, Len (= payload length); Flags&flagSync: answer ack(SendID)
//	       at match. The payload is the whole message.
//	rts    request to send: Context, Tag, Len (message length), SendID, Flags = the
//	       protocol (pipeline or get); get also carries Addr, the sender's buffer.
//	cts    clear to send, receiver to sender: SendID, RecvID, and the bytes wanted:
//	       [Offset, Len). Len is less than the message when the receive truncates; the
//	       sender streams just that, so the rest is never sent. Also the receiver's
//	       fallback when a get's single-copy read fails.
//	data   a pipeline fragment: RecvID, Offset; the payload is the bytes.
//	fin    get done, receiver to sender: SendID. The sender's buffer is free.
//	ack    a synchronous eager message matched: SendID.
const (
	kindEager uint8 = iota + 1
	kindRTS
	kindCTS
	kindData
	kindFin
	kindAck
)

const flagSync uint8 = 1

// handler is the engine seen as a transport.Handler (a distinct type keeps Packet out
// of Engine's method set).
type handler Engine

// Packet handles one packet; it runs inside a transport's Poll with e.mu held.
func (h *handler) Packet(hd *transport.Header, payload []byte) {
	e := (*Engine)(h)
	if hd.Src < 0 || int(hd.Src) >= e.size {
		return // not from this job: drop
	}
	switch hd.Kind {
	case kindEager:
		e.onEager(hd, payload)
	case kindRTS:
		e.onRTS(hd)
	case kindCTS:
		e.onCTS(hd)
	case kindData:
		e.onData(hd, payload)
	case kindFin, kindAck:
		if r := e.lookup(hd.SendID, sendReq); r != nil {
			if r.list != nil {
				r.list.remove(r)
			}
			e.complete(r)
		}
	}
}

// Place tells a transport that can read a payload straight into its destination (the
// TCP transport's Placer) where a pipeline fragment belongs: the part of a contiguous
// receive buffer it fills. The transport then hands the fragment to Packet with that
// slice as the payload, and onData's copy is a copy onto itself, which copy skips.
// Anything else is staged as usual (nil).
func (h *handler) Place(hd *transport.Header, n int) []byte {
	e := (*Engine)(h)
	if hd.Kind != kindData {
		return nil
	}
	r := e.lookup(hd.RecvID, recvReq)
	if r == nil || r.lay != nil || hd.Offset > uint64(len(r.buf)) || uint64(n) > uint64(len(r.buf))-hd.Offset {
		return nil
	}
	return r.buf[hd.Offset : hd.Offset+uint64(n) : hd.Offset+uint64(n)]
}

func (e *Engine) onEager(hd *transport.Header, payload []byte) {
	q := e.ctxq(hd.Context)
	if q.anyPosted(hd.Src) {
		if r := q.matchPosted(hd.Src, hd.Tag); r != nil {
			r.list.remove(r)
			e.deliverEager(r, hd.Src, hd.Tag, payload)
			if hd.Flags&flagSync != 0 {
				e.queueCtrl(hd.Src, kindAck, hd.SendID, 0, 0, 0)
			}
			return
		}
	}
	m := e.newUmsg()
	m.kind, m.flags, m.ctx, m.src, m.tag = kindEager, hd.Flags, hd.Context, hd.Src, hd.Tag
	m.len, m.sendID = int64(len(payload)), hd.SendID
	m.data = e.pool.get(len(payload))
	copy(m.data, payload)
	q.arrive(m)
}

// deliverEager completes receive r with an eager message's data.
func (e *Engine) deliverEager(r *request, src, tag int32, data []byte) {
	r.matched = true
	r.store(data, 0)
	n := min(int64(len(data)), r.size)
	r.st = Status{Source: int(src), Tag: int(tag), Count: n}
	if int64(len(data)) > r.size {
		r.st.Err = truncErr(int64(len(data)), r.size)
	}
	e.complete(r)
}

func (e *Engine) onRTS(hd *transport.Header) {
	q := e.ctxq(hd.Context)
	if q.anyPosted(hd.Src) {
		if r := q.matchPosted(hd.Src, hd.Tag); r != nil {
			r.list.remove(r)
			e.startRndv(r, hd.Src, hd.Tag, int64(hd.Len), hd.SendID, hd.Addr, transport.Protocol(hd.Flags))
			return
		}
	}
	m := e.newUmsg()
	m.kind, m.flags, m.ctx, m.src, m.tag = kindRTS, hd.Flags, hd.Context, hd.Src, hd.Tag
	m.len, m.sendID, m.addr = int64(hd.Len), hd.SendID, hd.Addr
	q.arrive(m)
}

// startRndv begins the receiver's side of a rendezvous matched to r: read the sender's
// memory (get) or ask it to stream (cts). A truncating receive takes only its prefix.
func (e *Engine) startRndv(r *request, src, tag int32, msgLen int64, sendID, addr uint64, proto transport.Protocol) {
	r.matched = true
	r.expect = min(msgLen, r.size)
	r.st = Status{Source: int(src), Tag: int(tag), Count: r.expect}
	if msgLen > r.size {
		r.st.Err = truncErr(msgLen, r.size)
	}
	r.remote, r.got = sendID, 0
	if proto == transport.Get {
		if r.expect == 0 {
			e.queueCtrl(src, kindFin, sendID, 0, 0, 0)
			e.complete(r)
			return
		}
		if e.adaptive && r.expect >= adaptMin {
			// The sender offers both: read its memory, or ask it to stream (adapt.go).
			if p := e.peers[src]; p != nil && p.ep != nil && p.sc != nil {
				proto, hold := e.chooseRndv(p, r, p.table.lookup(r.expect))
				r.proto, r.addr = proto, addr
				switch {
				case hold:
					p.adapt.held.push(r) // started by releaseHeld
				case proto == transport.Pipeline:
					e.queueCtrl(src, kindCTS, sendID, r.cookie(), 0, r.expect)
				default:
					e.gets.push(r)
				}
				return
			}
		}
		// Read in the progress loop, outside the transport's Poll.
		r.proto, r.addr = transport.Get, addr
		e.gets.push(r)
		return
	}
	r.proto = transport.Pipeline
	e.queueCtrl(src, kindCTS, sendID, r.cookie(), 0, r.expect)
	if r.expect == 0 {
		e.complete(r)
	}
}

func (e *Engine) onCTS(hd *transport.Header) {
	r := e.lookup(hd.SendID, sendReq)
	if r == nil {
		return
	}
	r.remote = hd.RecvID
	r.sent, r.limit = int64(hd.Offset), min(int64(hd.Len), r.size)
	if r.sent >= r.limit {
		e.complete(r)
		return
	}
	p := e.peerState(int(hd.Src))
	p.streams.push(r)
	e.markBusy(p)
}

func (e *Engine) onData(hd *transport.Header, payload []byte) {
	r := e.lookup(hd.RecvID, recvReq)
	if r == nil {
		return
	}
	r.store(payload, int64(hd.Offset))
	r.got += int64(len(payload))
	if r.got >= r.expect {
		e.complete(r)
	}
}

// getChunk bounds one single-copy read, so other traffic progresses between pieces of
// a huge message.
const getChunk = 8 << 20

// doGet reads the next chunk of a get receive r (taken off e.gets by the caller) and
// reports whether r is still in flight.
func (e *Engine) doGet(r *request) bool {
	src := r.st.Source
	p := e.peerState(src)
	if p.ep == nil && e.connect(p) != nil {
		if r.pending() {
			e.fail(r, p.err)
		}
		return false
	}
	if p.sc == nil {
		// This rank's route to the sender has no single copy: ask for a stream.
		r.proto = transport.Pipeline
		e.queueCtrl(int32(src), kindCTS, r.remote, r.cookie(), r.got, r.expect)
		return false
	}
	n := min(r.expect-r.got, getChunk)
	var dst []byte
	if r.lay == nil {
		dst = r.buf[r.got : r.got+n]
	} else {
		n = min(n, int64(len(e.pack)))
		dst = e.pack[:n]
	}
	if err := p.sc.ReadFrom(src, dst, r.addr+uint64(r.got)); err != nil {
		if isGone(err) {
			e.failPeer(p, err)
			if r.pending() {
				e.fail(r, p.err)
			}
			return false
		}
		// Single copy refused (permissions, seccomp): let the sender stream the rest.
		r.proto = transport.Pipeline
		e.queueCtrl(int32(src), kindCTS, r.remote, r.cookie(), r.got, r.expect)
		return false
	}
	if r.lay != nil {
		r.lay.UnpackAt(dst, r.got)
	}
	r.got += n
	if r.got < r.expect {
		return true
	}
	e.queueCtrl(int32(src), kindFin, r.remote, 0, 0, 0)
	e.complete(r)
	return false
}
