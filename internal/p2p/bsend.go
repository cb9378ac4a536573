package p2p

import (
	"fmt"
	"slices"
)

// BsendOverhead is what each buffered message costs in the attached buffer beyond its
// bytes (MPI_BSEND_OVERHEAD): the engine rounds every copy up to this alignment and
// reserves it, so users size buffers the way the standard tells them to.
const BsendOverhead = 64

// ProcessBuffer names the process's buffer (MPI_Buffer_attach) where a buffer call
// takes a context: a buffered send on a context with no buffer of its own uses it.
const ProcessBuffer = ^uint32(0)

// bsendState is an attached buffer and the regions of it still holding messages
// that are being sent, sorted by offset. An automatic one (MPI_BUFFER_AUTOMATIC) has
// no memory of its own: each message gets a copy the collector takes back once sent,
// and live counts those still under way.
type bsendState struct {
	buf  []byte
	used []bregion
	auto bool
	live int
}

type bregion struct{ off, n int }

func (s *bsendState) busy() bool { return len(s.used) > 0 || s.live > 0 }

// SessionBuffer is the key of session id's buffer (MPI_Session_attach_buffer): above
// every context, below ProcessBuffer. A context whose communicator derives from a
// session (SetBufferSession) uses it when it has no buffer of its own.
func SessionBuffer(id uint32) uint32 { return 1<<31 | id&(1<<30-1) }

func isSessionKey(key uint32) bool { return key != ProcessBuffer && key&(1<<31) != 0 }

// bufOp names a buffer call for its errors: the process's, a session's or a
// communicator's.
func bufOp(process string, key uint32) string {
	switch {
	case key == ProcessBuffer:
		return process
	case isSessionKey(key):
		return "session " + process
	}
	return "communicator " + process
}

// SetBufferSession makes the session buffer key the one buffered sends on ctx use when
// ctx has no buffer of its own (a communicator derived from that session).
func (e *Engine) SetBufferSession(ctx, key uint32) {
	e.mu.Lock()
	if e.bsess == nil {
		e.bsess = map[uint32]uint32{}
	}
	e.bsess[ctx] = key
	e.mu.Unlock()
}

// InheritBufferSession gives ctx the session buffer of from, if it has one (a
// communicator made from one derived from a session).
func (e *Engine) InheritBufferSession(ctx, from uint32) {
	e.mu.Lock()
	if k, ok := e.bsess[from]; ok {
		e.bsess[ctx] = k
	}
	e.mu.Unlock()
}

// bufFor is the buffer state a key names (ProcessBuffer, or a context); nil when
// that context has none. The caller holds e.mu.
func (e *Engine) bufFor(key uint32) *bsendState {
	if key == ProcessBuffer {
		return &e.bsend
	}
	return e.cbufs[key]
}

// attached reports whether s holds a buffer.
func (s *bsendState) attached() bool { return s != nil && (s.buf != nil || s.auto) }

// BufferAttach gives the engine b for buffered sends (MPI_Buffer_attach).
func (e *Engine) BufferAttach(b []byte) error { return e.AttachBuffer(ProcessBuffer, b, false) }

// AttachBuffer attaches b as the buffer of key (ProcessBuffer, or a context: that
// communicator's buffer, MPI_Comm_attach_buffer); auto attaches an automatic buffer
// instead, which grows as messages need.
func (e *Engine) AttachBuffer(key uint32, b []byte, auto bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if s := e.bufFor(key); s.attached() {
		return fmt.Errorf("%s: %w", bufOp("BufferAttach", key), ErrBufferAttached)
	}
	if key == ProcessBuffer {
		e.bsend = bsendState{buf: b, auto: auto, used: e.bsend.used[:0], live: e.bsend.live}
		return nil
	}
	if e.cbufs == nil {
		e.cbufs = map[uint32]*bsendState{}
	}
	e.cbufs[key] = &bsendState{buf: b, auto: auto}
	return nil
}

// BufferDetach waits until every buffered message has left the attached buffer, then
// detaches and returns it (MPI_Buffer_detach).
func (e *Engine) BufferDetach() ([]byte, error) {
	b, _, err := e.DetachBuffer(ProcessBuffer)
	return b, err
}

// DetachBuffer waits until every message in key's buffer has left it, then detaches
// it and returns it (auto: it was an automatic buffer).
func (e *Engine) DetachBuffer(key uint32) (b []byte, auto bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.bufFor(key)
	if !s.attached() {
		return nil, false, fmt.Errorf("%s: %w", bufOp("BufferDetach", key), ErrNoBuffer)
	}
	if err := e.drain(s); err != nil {
		return nil, false, err
	}
	b, auto = s.buf, s.auto
	if key == ProcessBuffer {
		e.bsend = bsendState{used: s.used[:0]}
	} else {
		delete(e.cbufs, key)
	}
	return b, auto, nil
}

// FlushBuffer waits until every message in key's buffer has left it
// (MPI_Buffer_flush, MPI_Comm_flush_buffer). With no buffer attached there is
// nothing to wait for.
func (e *Engine) FlushBuffer(key uint32) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.bufFor(key)
	if s == nil {
		return nil
	}
	return e.drain(s)
}

// FlushAllBuffers waits until every buffered message of the process has left, for
// MPI_Finalize, which delivers them whatever buffer holds them.
func (e *Engine) FlushAllBuffers() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	all := []*bsendState{&e.bsend}
	for _, s := range e.cbufs { // taken first: drain lets go of e.mu while it waits
		all = append(all, s)
	}
	for _, s := range all {
		if err := e.drain(s); err != nil {
			return err
		}
	}
	return nil
}

// DropBuffer forgets the buffer of a context being freed; its messages under way
// still complete (their carriers hold the state).
func (e *Engine) DropBuffer(ctx uint32) {
	e.mu.Lock()
	delete(e.cbufs, ctx)
	delete(e.bsess, ctx)
	e.mu.Unlock()
}

// drain waits, driving progress, until s holds no message. The caller holds e.mu.
func (e *Engine) drain(s *bsendState) error {
	return e.block(nil, nil, func() bool { return !s.busy() || e.failed != nil })
}

// bsendLocked copies b into the buffer its context uses (the context's own, else the
// process's) and sends the copy. The caller holds e.mu.
func (e *Engine) bsendLocked(b Buf, dest, tag int, ctx uint32) error {
	if e.failed != nil {
		return e.failed
	}
	s := e.cbufs[ctx]
	if s == nil {
		if k, ok := e.bsess[ctx]; ok {
			s = e.cbufs[k]
		}
	}
	if s == nil {
		s = &e.bsend
	}
	n := b.Len()
	dst, off, err := s.take(n)
	for err != nil && s.busy() && e.failed == nil && e.progressLocked() > 0 {
		// Earlier messages may have been delivered without this rank hearing of it
		// yet (no call of its own polled since): their room is free once they are,
		// so take in what has come while it keeps coming, and look again.
		dst, off, err = s.take(n)
	}
	if err != nil {
		return err
	}
	if b.l != nil {
		b.l.PackAt(dst, 0)
	} else {
		copy(dst, b.bytes())
	}
	r := e.newReq()
	r.kind, r.mode, r.ctx, r.peer, r.tag = sendReq, Standard, ctx, int32(dest), int32(tag)
	r.setBuf(Bytes(dst))
	r.internal, r.boff, r.bst = true, off, s
	e.startSend(r)
	return nil
}

// take reserves room for an n-byte message: a region of the attached memory, or a
// fresh copy of an automatic buffer's (off -1).
func (s *bsendState) take(n int64) ([]byte, int, error) {
	if s.auto {
		s.live++
		return make([]byte, n), -1, nil
	}
	need := int((n + 2*BsendOverhead - 1) / BsendOverhead * BsendOverhead)
	off, ok := s.alloc(need)
	if !ok {
		return nil, 0, fmt.Errorf("Bsend: %w: %d-byte message needs %d bytes, %d free of %d attached",
			ErrBuffer, n, need, s.free(), len(s.buf))
	}
	return s.buf[off : off+int(n)], off, nil
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
	s := r.bst
	if r.boff < 0 {
		s.live--
	} else if i, ok := slices.BinarySearchFunc(s.used, r.boff, func(u bregion, off int) int { return u.off - off }); ok {
		s.used = slices.Delete(s.used, i, i+1)
	}
	if !s.busy() && e.sleepers.Load() != 0 {
		e.db.Ring() // a detach or flush may be waiting
	}
}
