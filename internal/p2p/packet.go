package p2p

import (
	"errors"
	"fmt"
	"unsafe"

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
//	put    a split get, receiver to sender: SendID, RecvID, Addr (the receiver's
//	       buffer) and the sender's part of the message, [Offset, Len): the sender
//	       writes it there by single copy while the receiver reads the rest, and
//	       answers putdone.
//	putdone the sender's part is in place, sender to receiver: RecvID. With
//	       Flags&flagRefused the write failed and the receiver reads that part itself.
//	cancel sender to receiver: Context, SendID of a synchronous eager message or a
//	       request to send, whose send was cancelled (MPI_Cancel). Answered by
//	       cancelled.
//	cancelled receiver to sender: SendID. With Flags&flagCancelled the message was
//	       unmatched and is gone (no ack, cts or fin follows); without, it had matched
//	       (or was never there) and the send completes as it would have.
const (
	kindEager uint8 = iota + 1
	kindRTS
	kindCTS
	kindData
	kindFin
	kindAck
	kindPut
	kindPutDone
	kindCancel
	kindCancelled
)

const (
	flagSync      uint8 = 1 // eager
	flagRefused   uint8 = 1 // putdone
	flagCancelled uint8 = 1 // cancelled
)

// handler is the engine seen as a transport.Handler (a distinct type keeps Packet out
// of Engine's method set).
type handler Engine

// Packet handles one packet; it runs inside a transport's Poll with e.mu held.
func (h *handler) Packet(hd *transport.Header, payload []byte) {
	e := (*Engine)(h)
	if uint32(hd.Src) >= uint32(e.reach.Load()) {
		if hd.Src < 0 {
			return
		}
		// A transport hands over only its peers' packets: this one's peer was added
		// to the transport but not yet to the engine (AddPeers).
		e.grow(int(hd.Src) + 1)
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
	case kindPut:
		e.onPut(hd)
	case kindPutDone:
		e.onPutDone(hd)
	case kindCancel:
		e.onCancel(hd)
	case kindCancelled:
		e.onCancelled(hd)
	case kindFin, kindAck:
		if r := e.lookup(hd.SendID, sendReq); r != nil {
			if hd.Kind == kindFin && r.proto == transport.Get {
				e.countRendezvous(e.peerState(int(hd.Src)), transport.Get, false)
			}
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
		r := q.firstPosted(hd.Src, hd.Tag)
		if r == nil {
			r = q.matchPosted(hd.Src, hd.Tag)
		}
		if r != nil {
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
	e.unexpected(q, m)
}

// deliverEager completes receive r with an eager message's data.
func (e *Engine) deliverEager(r *request, src, tag int32, data []byte) {
	r.matched = true
	if r.dst != nil {
		r.alloc(int64(len(data)))
	}
	r.store(data, 0)
	n := min(int64(len(data)), r.size)
	r.st = Status{Source: int(src), Tag: int(tag), Count: n}
	if int64(len(data)) > r.size {
		r.st.Err = truncErr(src, int64(len(data)), r.size)
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
	e.unexpected(q, m)
}

// startRndv begins the receiver's side of a rendezvous matched to r: read the sender's
// memory (get) or ask it to stream (cts). A truncating receive takes only its prefix.
func (e *Engine) startRndv(r *request, src, tag int32, msgLen int64, sendID, addr uint64, proto transport.Protocol) {
	r.matched = true
	if r.dst != nil {
		r.alloc(msgLen)
	}
	r.expect = min(msgLen, r.size)
	r.st = Status{Source: int(src), Tag: int(tag), Count: r.expect}
	if msgLen > r.size {
		r.st.Err = truncErr(src, msgLen, r.size)
	}
	r.remote, r.got = sendID, 0
	r.split, r.putWait = 0, false
	if proto == transport.Get {
		if r.expect == 0 {
			e.queueCtrl(src, kindFin, sendID, 0, 0, 0)
			e.complete(r)
			return
		}
		if p := e.peers[src]; p != nil && p.mapper != nil && e.force == "auto" && p.mapper.Mapped(int(src), addr, int(r.expect)) {
			// The sender's memory is mapped here: one memmove, which neither a
			// pipeline's two copies nor a system call's pinning beats.
			r.proto, r.addr = transport.Get, addr
			e.startGet(p, r)
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
					e.startGet(p, r)
				}
				return
			}
		}
		r.proto, r.addr = transport.Get, addr
		e.startGet(e.peers[src], r)
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
	e.countRendezvous(e.peerState(int(hd.Src)), transport.Pipeline, false)
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

// getChunk bounds one single-copy read or write, so other traffic progresses between
// pieces of a huge message.
const getChunk = 8 << 20

// splitMin is the smallest get that is split between the two ranks (p2p_split).
const splitMin = 32 << 10

// exchangeSplitMin is the smallest get that is split while the receiver's own large
// sends to the same peer are under way (an exchange): from 1 MiB the split still
// paid there (docs/BENCHMARKS.md, the quiet-host runs on an Intel host).
const exchangeSplitMin = 1 << 20

// startGet queues get receive r, to be read in the progress loop, outside the
// transport's Poll. A large one is split when p2p_split allows and a read from the
// peer has worked before: the receiver reads the first half and asks the sender to
// write the second, so that both cores copy: one process_vm_readv spends most of its
// time pinning pages, and two in parallel move nearly twice the bytes
// (docs/BENCHMARKS.md, shared memory: rendezvous). Below exchangeSplitMin, not while
// this rank has large sends of its own offered to the peer (exchanging): in an
// exchange (Sendrecv) both cores copy already, each reading the other's message, and
// a split would make each write too and wait on the other's control packets
// (docs/BENCHMARKS.md, the quiet-host runs on an Intel host).
func (e *Engine) startGet(p *peer, r *request) {
	if e.split && p != nil && p.getOK && (!e.exchanging(p) || r.expect >= exchangeSplitMin) && r.lay == nil && r.expect >= splitMin {
		half := (r.expect/2 + 4095) &^ 4095
		r.split, r.putWait = half, true
		e.putAsked = true
		e.queueCtrlHdr(int32(r.st.Source), transport.Header{Kind: kindPut, SendID: r.remote, RecvID: r.cookie(),
			Addr: uint64(uintptr(unsafe.Pointer(unsafe.SliceData(r.buf)))), Offset: uint64(half), Len: uint64(r.expect)})
	}
	e.gets.push(r)
	e.out.quiet = 0
}

// onPut: the receiver of a get offered by send r asks r to write a part itself.
func (e *Engine) onPut(hd *transport.Header) {
	r := e.lookup(hd.SendID, sendReq)
	if r == nil || r.proto != transport.Get || r.lay != nil {
		// Not a get this rank offered: refuse, so the receiver reads the part itself.
		e.queueCtrlHdr(hd.Src, transport.Header{Kind: kindPutDone, Flags: flagRefused, RecvID: hd.RecvID})
		return
	}
	r.remote, r.addr = hd.RecvID, hd.Addr
	r.putOff, r.putEnd = min(int64(hd.Offset), r.size), min(int64(hd.Len), r.size)
	e.gets.push(r) // written in the progress loop, like a get's reads
	e.out.quiet = 0
}

// doPut writes the next chunk of send r's part of a split get and reports whether
// more remains.
func (e *Engine) doPut(r *request) bool {
	p := e.peerState(int(r.peer))
	n := min(r.putEnd-r.putOff, getChunk)
	var err error
	if p.sc == nil {
		err = errors.New("no single copy")
	} else if n > 0 {
		err = p.sc.WriteTo(int(r.peer), r.buf[r.putOff:r.putOff+n], r.addr+uint64(r.putOff))
	}
	if err != nil {
		if isGone(err) {
			e.failPeer(p, err)
			if r.pending() {
				e.fail(r, p.err)
			}
			return false
		}
		// Not permitted after all: the receiver reads this part too.
		e.queueCtrlHdr(r.peer, transport.Header{Kind: kindPutDone, Flags: flagRefused, RecvID: r.remote})
		return false
	}
	r.putOff += n
	if r.putOff < r.putEnd {
		return true
	}
	e.queueCtrlHdr(r.peer, transport.Header{Kind: kindPutDone, RecvID: r.remote})
	return false
}

// onPutDone: the sender's part of split get r is in place, or refused.
func (e *Engine) onPutDone(hd *transport.Header) {
	r := e.lookup(hd.RecvID, recvReq)
	if r == nil || !r.putWait {
		return
	}
	r.putWait = false
	reading := r.list != nil // still on e.gets, reading its own part
	if hd.Flags&flagRefused != 0 {
		r.split = 0 // read it all
		if !reading {
			e.gets.push(r)
			e.out.quiet = 0
		}
		return
	}
	if !reading {
		e.getDone(r)
	}
}

// getDone completes get receive r once its own reads are done; a split one waits for
// the sender's putdone (onPutDone then calls it). r is on no list.
func (e *Engine) getDone(r *request) {
	if r.putWait {
		return
	}
	r.split, r.got = 0, r.expect
	e.queueCtrl(int32(r.st.Source), kindFin, r.remote, 0, 0, 0)
	e.complete(r)
}

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
	end := r.expect
	if r.split > 0 {
		end = r.split // the sender writes the rest
	}
	n := min(end-r.got, getChunk)
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
		if r.split > 0 {
			// The sender is writing its part into r's buffer: report the failure only
			// once it is done.
			r.st.Err = fmt.Errorf("single-copy read from rank %d: %w", src, err)
			r.got = end
			e.getDone(r)
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
	p.getOK = true
	r.got += n
	if r.got < end {
		return true
	}
	e.getDone(r)
	return false
}
