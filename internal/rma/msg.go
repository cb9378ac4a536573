package rma

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"github.com/mpigo/mpigo/internal/datatype"
)

// The requests an origin ships to a target whose memory it cannot reach, applied by
// the target's progress goroutine in the order they were sent. A request is one
// message: a 32-byte header, the target pieces (16 bytes each, offsets from the
// window's base or, in a dynamic window, addresses) and the data. Requests that
// return something (and Flush, Lock, Unlock, whose return says the target has applied
// every earlier request from that origin) are answered by a reply tagged with the
// request's ID: a status byte (0: done; else the rest is an error message) and the
// data.

// Kind is what a request asks.
type Kind uint8

const (
	KPut      Kind = iota + 1 // pieces ← data
	KGet                      // reply: pieces
	KAcc                      // pieces ⊕= data
	KGetAcc                   // reply: pieces before; pieces ⊕= data
	KCas                      // data is compare then swap; reply: the element before
	KFlush                    // reply once every earlier request is applied
	KLock                     // Flags: Exclusive; reply (1) once granted: the target queues it
	KUnlock                   // Flags: Exclusive; reply once released
	KComplete                 // the sender completed an access epoch at the receiver
	_                         // unused (a window's own stop request, before one goroutine served them all)
	KGrant                    // a direct origin released the lock: grant queued requests
)

// Flags.
const (
	Exclusive = 1 // KLock, KUnlock: the exclusive lock
	// SplitData: the data travels in a message of its own (tag TagData from the origin
	// for KPut; the reply's tag, after the status, for KGet), so that the transport
	// moves it straight between the caller's buffer and the window. The request's
	// Data still says its length.
	SplitData = 2
	// Batched: the request came in a batch with others that expect a reply, and is
	// answered in the batch's one reply (tag ID, sent once the batch is applied): per
	// such request in order, a status byte, the length of what follows (2 bytes, little
	// endian), then the data, or the error's text.
	Batched = 4
)

// HeaderLen is the size of a request's header.
const HeaderLen = 32

// Header is a request's fixed part.
type Header struct {
	Kind   Kind
	Op     Op
	Elem   datatype.Kind
	Flags  uint8
	Pieces uint32 // number of pieces after the header
	ID     uint32 // the reply's tag
	Base   int64  // added to every piece's offset
	Data   int64  // bytes of data after the pieces
}

// Len is the length of the whole request.
func (h *Header) Len() int { return HeaderLen + 16*int(h.Pieces) + int(h.Data) }

// Encode writes h and the pieces at the start of b (at least Len bytes) and returns
// the room for the data.
func Encode(b []byte, h *Header, ps []Piece) []byte {
	o := EncodeHeader(b, h, ps)
	return b[o : o+int(h.Data)]
}

// EncodeHeader writes h and the pieces at the start of b (at least HeaderLen+16 per
// piece bytes) and returns where the data would start.
func EncodeHeader(b []byte, h *Header, ps []Piece) int {
	b[0], b[1], b[2], b[3] = byte(h.Kind), byte(h.Op), byte(h.Elem), h.Flags
	binary.LittleEndian.PutUint32(b[4:], h.Pieces)
	binary.LittleEndian.PutUint32(b[8:], h.ID)
	binary.LittleEndian.PutUint32(b[12:], 0)
	binary.LittleEndian.PutUint64(b[16:], uint64(h.Base))
	binary.LittleEndian.PutUint64(b[24:], uint64(h.Data))
	o := HeaderLen
	for _, p := range ps {
		binary.LittleEndian.PutUint64(b[o:], uint64(p.Off))
		binary.LittleEndian.PutUint64(b[o+8:], uint64(p.Len))
		o += 16
	}
	return o
}

var errShort = errors.New("request shorter than its header says")

// Split returns the first request of a batch (requests back to back, each padded to
// a multiple of 8 bytes) and the rest.
func Split(b []byte) (req, rest []byte, err error) {
	if len(b) < HeaderLen {
		return nil, nil, errShort
	}
	pieces, data := int64(binary.LittleEndian.Uint32(b[4:])), int64(binary.LittleEndian.Uint64(b[24:]))
	n := int64(HeaderLen) + 16*pieces
	if b[3]&SplitData == 0 {
		n += data
	}
	if data < 0 || n > int64(len(b)) {
		return nil, nil, errShort
	}
	pad := min((n+7)&^7, int64(len(b)))
	return b[:n], b[pad:], nil
}

// Decode reads a request: its header, its pieces (a view of b, which must be 8-byte
// aligned) and its data.
func Decode(b []byte) (h Header, ps []Piece, data []byte, err error) {
	if len(b) < HeaderLen {
		return h, nil, nil, errShort
	}
	h = Header{Kind: Kind(b[0]), Op: Op(b[1]), Elem: datatype.Kind(b[2]), Flags: b[3],
		Pieces: binary.LittleEndian.Uint32(b[4:]), ID: binary.LittleEndian.Uint32(b[8:]),
		Base: int64(binary.LittleEndian.Uint64(b[16:])), Data: int64(binary.LittleEndian.Uint64(b[24:]))}
	inline := h.Data
	if h.Flags&SplitData != 0 {
		inline = 0
	}
	if h.Data < 0 || int64(len(b)) != int64(HeaderLen)+16*int64(h.Pieces)+inline {
		return h, nil, nil, fmt.Errorf("request of %d bytes announces %d pieces and %d data bytes", len(b), h.Pieces, h.Data)
	}
	if h.Pieces > 0 {
		if uintptr(unsafe.Pointer(&b[HeaderLen]))%8 != 0 {
			return h, nil, nil, errors.New("request buffer is not 8-byte aligned")
		}
		ps = unsafe.Slice((*Piece)(unsafe.Pointer(&b[HeaderLen])), h.Pieces)
	}
	data = b[HeaderLen+16*int(h.Pieces):]
	return h, ps, data, nil
}
