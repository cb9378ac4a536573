package p2p

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/ntcopy"
)

// Layout is a non-contiguous buffer seen as a packed byte stream of Len bytes, packed
// and unpacked in resumable pieces at any byte offset: the datatype engine's cursor
// plugs in here. PackAt fills dst with stream bytes [off, off+len(dst)) and UnpackAt
// stores src as stream bytes [off, off+len(src)); both return the bytes handled.
type Layout interface {
	Len() int64
	PackAt(dst []byte, off int64) int
	UnpackAt(src []byte, off int64) int
}

// Buf is a send or receive buffer: plain bytes (the fast path: the engine copies
// straight from or into them, and a peer may read them in place) or a Layout.
//
// The bytes are kept as a pointer and a length, not a slice, so that a Buf is 32
// bytes: the compiler keeps structs of at most four fields and 32 bytes in registers,
// and copies larger ones through memory at every call, which on the path of a small
// message costs more than the engine's own work (see RecvInfo).
type Buf struct {
	p *byte
	n int
	l Layout
}

// Bytes makes a contiguous buffer.
func Bytes(b []byte) Buf { return Buf{p: unsafe.SliceData(b), n: len(b)} }

// BytesAt makes a contiguous buffer of the n bytes at p.
func BytesAt(p *byte, n int) Buf { return Buf{p: p, n: n} }

// Packed makes a non-contiguous buffer.
func Packed(l Layout) Buf { return Buf{l: l} }

// bytes is a contiguous buffer's bytes.
func (b Buf) bytes() []byte { return unsafe.Slice(b.p, b.n) }

// Len is the buffer's size in bytes.
func (b Buf) Len() int64 {
	if b.l != nil {
		return b.l.Len()
	}
	return int64(b.n)
}

// Memory is b's bytes when it is contiguous (ok): its first byte and its length.
func (b Buf) Memory() (p *byte, n int, ok bool) { return b.p, b.n, b.l == nil }

// PackTo copies b's message into dst, which holds Len bytes.
func (b Buf) PackTo(dst []byte) {
	if b.l != nil {
		b.l.PackAt(dst, 0)
		return
	}
	copy(dst, b.bytes())
}

// set stores b in r.
func (r *request) setBuf(b Buf) {
	r.buf, r.lay = b.bytes(), b.l
	r.size = b.Len()
}

// readAt copies message bytes [off, off+len(dst)) of a send buffer into dst, packing
// if needed, and returns the bytes to send: a subslice of the buffer itself when it is
// contiguous (no copy).
func (r *request) chunk(scratch []byte, off int64, n int) []byte {
	if r.lay == nil {
		return r.buf[off : off+int64(n)]
	}
	r.lay.PackAt(scratch[:n], off)
	return scratch[:n]
}

// store copies received bytes to message offset off of a receive buffer, clipping at
// the buffer's end.
func (r *request) store(src []byte, off int64) {
	if off >= r.size {
		return
	}
	if rest := r.size - off; int64(len(src)) > rest {
		src = src[:rest]
	}
	if r.lay == nil {
		ntcopy.Move(r.buf[off:], src)
		return
	}
	r.lay.UnpackAt(src, off)
}

// Slice is bytes [off, off+n) of b's message: the same memory, for sending or
// receiving part of a buffer on its own (a partition of a partitioned send).
func (b Buf) Slice(off, n int64) Buf {
	if b.l != nil {
		return Packed(subLayout{b.l, off, n})
	}
	return Bytes(b.bytes()[off : off+n])
}

// subLayout is bytes [off, off+n) of a layout's message.
type subLayout struct {
	l      Layout
	off, n int64
}

func (s subLayout) Len() int64                         { return s.n }
func (s subLayout) PackAt(dst []byte, off int64) int   { return s.l.PackAt(dst, s.off+off) }
func (s subLayout) UnpackAt(src []byte, off int64) int { return s.l.UnpackAt(src, s.off+off) }
