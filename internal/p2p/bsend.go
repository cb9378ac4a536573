package p2p

import (
	"fmt"
	"slices"
)

// BsendOverhead is what each buffered message costs in the attached buffer beyond its
// bytes (MPI_BSEND_OVERHEAD): the engine rounds every copy up to this alignment and
// reserves it, so users size buffers the way the standard tells them to.
const BsendOverhead = 64

// bsendState is the attached buffer and the regions of it still holding messages
// that are being sent, sorted by offset.
type bsendState struct {
	buf  []byte
	used []bregion
}

type bregion struct{ off, n int }

// BufferAttach gives the engine b for buffered sends (MPI_Buffer_attach).
func (e *Engine) BufferAttach(b []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.bsend.buf != nil {
		return fmt.Errorf("p2p: BufferAttach: a %d-byte buffer is already attached", len(e.bsend.buf))
	}
	if len(b) == 0 {
		return fmt.Errorf("p2p: BufferAttach: empty buffer")
	}
	e.bsend.buf = b
	return nil
}

// BufferDetach waits until every buffered message has left the attached buffer, then
// detaches and returns it (MPI_Buffer_detach).
func (e *Engine) BufferDetach() ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.bsend.buf == nil {
		return nil, fmt.Errorf("p2p: BufferDetach: no buffer attached")
	}
	if err := e.block(nil, nil, func() bool { return len(e.bsend.used) == 0 || e.failed != nil }); err != nil {
		return nil, err
	}
	b := e.bsend.buf
	e.bsend = bsendState{used: e.bsend.used[:0]}
	return b, nil
}

// bsendLocked copies b into the attached buffer and sends the copy. The caller holds
// e.mu.
func (e *Engine) bsendLocked(b Buf, dest, tag int, ctx uint32) error {
	if e.failed != nil {
		return e.failed
	}
	n := b.Len()
	need := int((n + 2*BsendOverhead - 1) / BsendOverhead * BsendOverhead)
	off, ok := e.bsend.alloc(need)
	if !ok {
		return fmt.Errorf("p2p: Bsend: %w: %d-byte message needs %d bytes, %d free of %d attached",
			ErrBuffer, n, need, e.bsend.free(), len(e.bsend.buf))
	}
	dst := e.bsend.buf[off : off+int(n)]
	if b.l != nil {
		b.l.PackAt(dst, 0)
	} else {
		copy(dst, b.bytes())
	}
	r := e.newReq()
	r.kind, r.mode, r.ctx, r.peer, r.tag = sendReq, Standard, ctx, int32(dest), int32(tag)
	r.setBuf(Bytes(dst))
	r.internal, r.boff = true, off
	e.startSend(r)
	return nil
}

// alloc finds the first gap of n bytes.
func (s *bsendState) alloc(n int) (int, bool) {
	prev := 0
	for i, u := range s.used {
		if u.off-prev >= n {
			s.used = slices.Insert(s.used, i, bregion{prev, n})
			return prev, true
		}
		prev = u.off + u.n
	}
	if len(s.buf)-prev >= n {
		s.used = append(s.used, bregion{prev, n})
		return prev, true
	}
	return 0, false
}

func (s *bsendState) free() int {
	f := len(s.buf)
	for _, u := range s.used {
		f -= u.n
	}
	return f
}

// bsendDone releases the region of a buffered send's carrier request.
func (e *Engine) bsendDone(r *request) {
	i, ok := slices.BinarySearchFunc(e.bsend.used, r.boff, func(u bregion, off int) int { return u.off - off })
	if ok {
		e.bsend.used = slices.Delete(e.bsend.used, i, i+1)
	}
	if len(e.bsend.used) == 0 && e.sleepers.Load() != 0 {
		e.db.Ring() // a BufferDetach may be waiting
	}
}
