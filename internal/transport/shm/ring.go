package shm

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/idle"
	"github.com/mpigo/mpigo/internal/ntcopy"
	"github.com/mpigo/mpigo/internal/transport"
)

// The ring of one sender→receiver pair. It is two single-producer single-consumer
// rings that advance together:
//
//   - cells: fixed 128-byte slots. Every packet takes exactly one cell. The cell's first
//     word is its stamp, written last with an atomic store (release) and polled by the
//     consumer with an atomic load (acquire): low 32 bits = the cell's absolute index + 1
//     (mod 2^32), high 32 bits = payload length | compactBit. Every lap rewrites every
//     cell's stamp, so a stale stamp is always the previous lap's value and can never
//     be mistaken for the expected one, whatever bytes the payloads contained.
//   - data: a byte ring for payloads that do not fit in the cell. Positions are
//     absolute byte counts; a payload never wraps (if it does not fit before the end it
//     starts at the beginning of the next lap), and both sides compute the same
//     placement from the sequence of lengths, so the cell need not carry an offset.
//
// A compact cell carries a whole small message: the first 16 bytes of the Header
// (kind, flags, source, context, tag), SendID, and up to 96 payload bytes, used when
// Len equals the payload length and RecvID, Addr and Offset are zero (an eager
// message). Other packets store the 56-byte Header verbatim in the cell's first line.
// A cell is two cache lines, 128-byte aligned: up to 32 payload bytes the message is
// one line; up to 96 its payload is in the line next to the stamp's, which the
// receiver takes at less cost than a line of the data ring, whose place moves on with
// every message (docs/BENCHMARKS.md, "Copies on AMD": a 64-byte ping-pong 0.34 us
// against 0.40-0.49).
//
// The consumer publishes how far it has consumed (cells and data bytes) in its own
// cache line, which the producer reads only when its cached copy says the ring is full;
// in steady state a packet moves one cache line for the cell plus the payload's lines.

const (
	offCompactSendID = 24 // in a compact cell: SendID; the payload follows at 32
	offInline        = 32
)

// outbound is the producer side of one pair: this rank sending to peer.
type outbound struct {
	t        *Transport
	peer     int
	seg      *segment
	cells    unsafe.Pointer
	data     unsafe.Pointer
	cons     *[2]uint64 // consumer's positions (shared)
	closed   *uint32    // receiver's closed flag
	block    *uint32    // our "blocked" flag in the receiver's slot
	door     transport.Doorbell
	cellMask uint64
	nCells   uint64
	dataMask uint64
	dataSize uint64

	// pos is the producer's positions, in this rank's records outside Go's heap
	// (cring.go), where a C caller's short way advances the same ring.
	pos     *ringPos
	outside []byte // the page of pos (outside.go)
	full    uint32 // consecutive ErrWouldBlock returns, for liveness checks

	maxPayload int
	models     []transport.Model
	live       liveness
	err        error       // sticky: the peer is gone
	cc         copyChooser // how payloads are copied (streamcopy.go)
}

func (e *outbound) MaxPayload() int           { return e.maxPayload }
func (e *outbound) Models() []transport.Model { return e.models }

// Send implements transport.Endpoint. It is not safe for concurrent use on one
// endpoint: the engine serialises the sends to a peer.
func (e *outbound) Send(h *transport.Header, payload []byte) error {
	n := len(payload)
	if e.err != nil {
		return e.err
	}
	if n > e.maxPayload {
		return fmt.Errorf("shared memory: Send to rank %d: payload of %d bytes exceeds MaxPayload %d; split it into fragments",
			e.peer, n, e.maxPayload)
	}
	if atomic.LoadUint32(e.closed) != 0 {
		e.err = closedBy(e.peer)
		return e.err
	}
	pos := e.pos
	if pos.cellPos-pos.consCell >= e.nCells {
		pos.consCell = atomic.LoadUint64(&e.cons[0])
		if pos.cellPos-pos.consCell >= e.nCells {
			return e.blocked()
		}
	}
	compact := n <= inlineMax && h.Len == uint64(n) && h.RecvID == 0 && h.Addr == 0 && h.Offset == 0
	start, end := pos.dataPos, pos.dataPos
	if !compact && n > 0 {
		need := (uint64(n) + lineSize - 1) &^ (lineSize - 1)
		if off := start & e.dataMask; off+need > e.dataSize {
			start += e.dataSize - off
		}
		end = start + need
		if end-pos.consData > e.dataSize {
			pos.consData = atomic.LoadUint64(&e.cons[1])
			if end-pos.consData > e.dataSize {
				return e.blocked()
			}
		}
	}
	e.full = 0
	cell := unsafe.Add(e.cells, (pos.cellPos&e.cellMask)*cellSize)
	meta := uint64(n)
	if compact {
		// The payload first, as SendCompact does.
		copy(unsafe.Slice((*byte)(unsafe.Add(cell, offInline)), inlineMax), payload)
		putHeadWords(cell, h)
		*(*uint64)(unsafe.Add(cell, offCompactSendID)) = h.SendID
		meta |= compactBit
	} else {
		// The payload first, then the cell's words and at once its stamp: the receiver
		// polls this cell, and takes its line back whenever it can, so the cell's
		// stores are kept together to need the line once.
		if dst := unsafe.Add(e.data, start&e.dataMask); n >= e.cc.min && n <= e.cc.max {
			e.cc.copy(dst, payload)
		} else if n > 0 {
			ntcopy.Move(unsafe.Slice((*byte)(dst), n), payload)
		}
		putHeadWords(cell, h)
		w := (*[5]uint64)(unsafe.Add(cell, 24))
		w[0], w[1], w[2], w[3], w[4] = h.Len, h.SendID, h.RecvID, h.Addr, h.Offset
	}
	// The stamp releases the cell's contents to the reader.
	idle.Publish((*uint64)(cell), uint64(uint32(pos.cellPos+1))|meta<<32)
	pos.cellPos++
	pos.dataPos = end
	// The receiver's engine announces itself on the doorbell before its last look
	// (Prepare), so when nobody sleeps a packet costs one load here, not an atomic add
	// on a line the receiver may be reading. (With idle.Publish's plain store, the
	// load may pass the stamp: see Doorbell.WakeSleepers for why that is tolerable.)
	e.door.WakeSleepers()
	return nil
}

var _ transport.CompactSender = (*outbound)(nil)

// CompactMax implements transport.CompactSender.
func (e *outbound) CompactMax() int { return min(inlineMax, e.maxPayload) }

// SendCompact implements transport.CompactSender: Send's compact cell, its header
// words made from the fields rather than read back from a Header.
func (e *outbound) SendCompact(kind uint8, src int32, ctx uint32, tag int32, payload []byte) error {
	if e.err != nil {
		return e.err
	}
	if atomic.LoadUint32(e.closed) != 0 {
		e.err = closedBy(e.peer)
		return e.err
	}
	pos := e.pos
	if pos.cellPos-pos.consCell >= e.nCells {
		pos.consCell = atomic.LoadUint64(&e.cons[0])
		if pos.cellPos-pos.consCell >= e.nCells {
			return e.blocked()
		}
	}
	e.full = 0
	cell := unsafe.Add(e.cells, (pos.cellPos&e.cellMask)*cellSize)
	// The payload first, then the header's words and at once the stamp: the receiver
	// polls the stamp's line and takes it back whenever it can, and a payload past 32
	// bytes reaches into the cell's second line, whose store waits for that line;
	// header words stored before it would take the stamp's line only to lose it again
	// meanwhile (docs/BENCHMARKS.md, "Compact cells: the payload first").
	n := copy(unsafe.Slice((*byte)(unsafe.Add(cell, offInline)), inlineMax), payload)
	w := (*[3]uint64)(unsafe.Add(cell, 8))
	w[0] = uint64(kind) | uint64(uint32(src))<<32
	w[1] = uint64(ctx) | uint64(uint32(tag))<<32
	w[2] = 0 // SendID
	idle.Publish((*uint64)(cell), uint64(uint32(pos.cellPos+1))|(uint64(n)|compactBit)<<32)
	pos.cellPos++
	e.door.WakeSleepers()
	return nil
}

// putHeadWords stores the Header's first 16 bytes (Kind, Flags, Src, Context, Tag) at
// cell+8, in two words built from the fields. The caller has just stored the fields
// one by one, and a wider load of them (copying *h) cannot be forwarded from the store
// buffer: it would wait for every earlier store to reach the cache, the previous
// message's ring lines included (see p2p's setHeader).
func putHeadWords(cell unsafe.Pointer, h *transport.Header) {
	w := (*[2]uint64)(unsafe.Add(cell, 8))
	w[0] = uint64(h.Kind) | uint64(h.Flags)<<8 | uint64(uint32(h.Src))<<32
	w[1] = uint64(h.Context) | uint64(uint32(h.Tag))<<32
}

// blocked is the full-ring path. Every so often it checks that the receiver still
// lives, so that a sender retrying against a dead peer gets ErrPeerGone, not a hang.
func (e *outbound) blocked() error {
	// Ask the receiver to ring our doorbell once it has made room, in case the engine
	// goes to sleep before it retries. The engine retries after the flag is up, so
	// either the receiver sees the flag or the retry sees the room.
	if atomic.LoadUint32(e.block) == 0 {
		atomic.StoreUint32(e.block, 1)
		// The receiver may be asleep with our ring's space consumed but not yet given
		// back (it publishes small packets' space lazily): wake it to look.
		e.door.WakeSleepers()
	}
	e.full++
	if e.full%1024 == 0 && !e.live.alive() {
		e.err = died(e.peer, e.live.pid)
		return e.err
	}
	return transport.ErrWouldBlock
}

// inbound is the consumer side of one pair: a sender writing into this rank's segment.
type inbound struct {
	src      int // sender's world rank
	cells    unsafe.Pointer
	data     unsafe.Pointer
	cons     *[2]uint64
	cellMask uint64
	dataMask uint64
	dataSize uint64
	// rp is the consumer's positions, in a record outside Go's heap (outside.go),
	// where a C caller's short way for receives advances the same ring.
	rp        *inPos
	outside   []byte // the page of rp; nil if it could not be mapped (rp is local then)
	local     inPos
	lazyCells uint64
	lazyData  uint64
	hdr       transport.Header // reused: handed to the handler, valid during the call
	live      liveness
	block     *uint32 // the sender's "blocked" flag
	t         *Transport
	door      transport.Doorbell // the sender's, attached when first needed
	doorSeg   *segment
}

// drain hands the packets present to h, at most max of them.
func (in *inbound) drain(h transport.Handler, max int) int {
	n := 0
	for n < max {
		rp := in.rp
		cell := unsafe.Add(in.cells, (rp.pos&in.cellMask)*cellSize)
		w := atomic.LoadUint64((*uint64)(cell))
		if uint32(w) != uint32(rp.pos+1) {
			break
		}
		meta := uint32(w >> 32)
		plen := uint64(meta &^ compactBit)
		var payload []byte
		end := rp.dataPos
		if meta&compactBit != 0 {
			in.hdr = transport.Header{}
			*(*[16]byte)(unsafe.Pointer(&in.hdr)) = *(*[16]byte)(unsafe.Add(cell, 8))
			in.hdr.Len = plen
			in.hdr.SendID = *(*uint64)(unsafe.Add(cell, offCompactSendID))
			payload = unsafe.Slice((*byte)(unsafe.Add(cell, offInline)), plen)
		} else {
			in.hdr = *(*transport.Header)(unsafe.Add(cell, 8))
			if plen > 0 {
				var start uint64
				start, end = in.place(plen)
				payload = unsafe.Slice((*byte)(unsafe.Add(in.data, start&in.dataMask)), plen)
			}
		}
		h.Packet(&in.hdr, payload)
		in.consumed(plen, end)
		n++
	}
	if atomic.LoadUint32(in.block) != 0 {
		in.unblock()
	}
	return n
}

// place is where a payload of plen bytes after the packets consumed lies in the data
// ring, [start, end) in absolute positions: whole lines, from the ring's start if they
// would wrap, as the sender placed it.
func (in *inbound) place(plen uint64) (start, end uint64) {
	start = in.rp.dataPos
	need := (plen + lineSize - 1) &^ (lineSize - 1)
	if off := start & in.dataMask; off+need > in.dataSize {
		start += in.dataSize - off
	}
	return start, start + need
}

// consumed moves past the packet at the head, whose payload of plen bytes ended at
// end in the data ring, once its payload has been read.
func (in *inbound) consumed(plen, end uint64) {
	rp := in.rp
	rp.pos++
	rp.dataPos = end
	// A fragment's space goes back at once, so that a pipelining sender can refill; a
	// small packet's lazily, a quarter of the ring at a time: every publication is a
	// locked exchange on the path of each message, and the sender looks at the
	// positions only when its cached copy says the ring is full. A sender that finds
	// it full raises its blocked flag, and the consumer then publishes everything
	// (unblock).
	if plen > lazyPayload || rp.pos-rp.published >= in.lazyCells || rp.dataPos-rp.publishedData >= in.lazyData {
		in.publish()
	}
}

// unblock answers a sender that met a full ring (its blocked flag is up): everything
// consumed is published and its doorbell rung.
func (in *inbound) unblock() {
	in.publish()
	atomic.StoreUint32(in.block, 0)
	in.wakeSender()
}

var _ transport.HeadTaker = (*inbound)(nil)

// Take implements transport.HeadTaker: drain's work for the one packet at the head,
// its payload copied into buf rather than handed to a handler. It takes the packet
// the C library's short way for receives takes (abi/libmpi/p2pshort.c, in_take), the
// same way.
func (in *inbound) Take(kind uint8, src int32, ctx uint32, tag int32, anyTag bool, buf []byte) (int, int32, int) {
	if in.t.done.Load() {
		return 0, 0, -1 // closed: the segment is unmapped
	}
	rp := in.rp
	cell := unsafe.Add(in.cells, (rp.pos&in.cellMask)*cellSize)
	w := atomic.LoadUint64((*uint64)(cell))
	if uint32(w) != uint32(rp.pos+1) {
		return 0, 0, 0
	}
	meta := uint32(w >> 32)
	plen := uint64(meta &^ compactBit)
	hw := (*[3]uint64)(unsafe.Add(cell, 8)) // putHeadWords' two words, then Len unless compact
	gotTag := int32(hw[1] >> 32)
	if hw[0] != uint64(kind)|uint64(uint32(src))<<32 || uint32(hw[1]) != ctx || (gotTag != tag && !anyTag) || plen > uint64(len(buf)) {
		return 0, 0, -1
	}
	end := rp.dataPos
	if meta&compactBit != 0 {
		copy(buf, unsafe.Slice((*byte)(unsafe.Add(cell, offInline)), plen))
	} else {
		if hw[2] != plen {
			return 0, 0, -1 // a fragment of a longer message
		}
		if plen > 0 {
			var start uint64
			start, end = in.place(plen)
			ntcopy.Move(buf, unsafe.Slice((*byte)(unsafe.Add(in.data, start&in.dataMask)), plen))
		}
	}
	in.consumed(plen, end)
	if atomic.LoadUint32(in.block) != 0 {
		in.unblock()
	}
	return int(plen), gotTag, 1
}

// Poll hands over this sender's packets alone, at most max (transport.PeerPoll).
func (in *inbound) Poll(h transport.Handler, max int) int {
	if in.t.done.Load() {
		return 0 // closed: the segment is unmapped
	}
	return in.drain(h, max)
}

// lazyPayload is the largest payload whose ring space is given back lazily.
const lazyPayload = 4096

// publish gives the sender back the space of every packet consumed.
func (in *inbound) publish() {
	rp := in.rp
	if rp.published != rp.pos {
		rp.published = rp.pos
		atomic.StoreUint64(&in.cons[0], rp.pos)
	}
	if rp.publishedData != rp.dataPos {
		rp.publishedData = rp.dataPos
		atomic.StoreUint64(&in.cons[1], rp.dataPos)
	}
}

// wakeSender rings the doorbell of a sender that met a full ring. The receiver maps
// the sender's segment for that, the first time only; if it cannot, the sender wakes
// by its own timeout.
func (in *inbound) wakeSender() {
	if in.doorSeg == nil {
		seg, err := in.t.openPeer(in.src)
		if err != nil {
			return
		}
		in.doorSeg = seg
		in.door = transport.NewDoorbell(seg.u32(offDoorbell), seg.u32(offDoorbell+4))
		in.noteDoor(seg.u32(offDoorbell), seg.u32(offDoorbell+4))
	}
	in.door.Ring()
}

// Arrived implements transport.HeadTaker.
func (in *inbound) Arrived() bool { return !in.t.done.Load() && in.pending() }

// pending reports whether a packet is waiting, without consuming it.
func (in *inbound) pending() bool {
	pos := in.rp.pos
	cell := unsafe.Add(in.cells, (pos&in.cellMask)*cellSize)
	return uint32(atomic.LoadUint64((*uint64)(cell))) == uint32(pos+1)
}
