package p2p

import (
	"fmt"

	"github.com/mpigo/mpigo/internal/rawmem"
)

// Receives of any size. A receive whose caller cannot know the message's length (mpi's
// value messages, whose length travels with them) gets a buffer of exactly that length,
// allocated when the message matches: the eager payload is copied into it once, and a
// rendezvous reads or streams into it directly, as into any contiguous buffer, so a
// large message is never staged. It matches, orders and cancels as any receive does;
// Mprobe and Mrecv would give the same, with a second call and the window in which a
// probed message is held apart from the queues.

// IrecvAlloc starts a receive of a message of any length from src (or AnySource) with
// tag (or AnyTag) in context ctx. When it matches, the engine allocates the message's
// bytes and stores them in *dst, which the caller reads once the request completes
// (nil for a cancelled receive or one from ProcNull).
func (e *Engine) IrecvAlloc(dst *[]byte, src, tag int, ctx uint32) (Request, error) {
	return e.IrecvAllocFit(nil, dst, src, tag, ctx)
}

// IrecvAllocFit is IrecvAlloc into fit[:n] when the message's n bytes fit there (so a
// receiver that expects a length receives in place when the message has it, and still
// learns the length and gets every byte when it has not), else into new memory.
func (e *Engine) IrecvAllocFit(fit []byte, dst *[]byte, src, tag int, ctx uint32) (Request, error) {
	if dst == nil {
		return Request{}, fmt.Errorf("IrecvAlloc: %w: nil destination", ErrRequest)
	}
	if err := e.checkRecv("Irecv", src, tag); err != nil {
		return Request{}, err
	}
	*dst = nil
	e.mu.Lock()
	r := e.newReq()
	r.kind, r.ctx, r.peer, r.tag = recvReq, ctx, int32(src), int32(tag)
	r.buf, r.dst = fit, dst
	e.startRecv(r)
	e.flush()
	q := Request{r, r.gen}
	e.mu.Unlock()
	return q, nil
}

// alloc gives receive r a buffer of n bytes, now that its message has matched. The
// caller holds e.mu. The message overwrites it whole, so it is not zeroed (rawmem);
// a receive that fails part way leaves no buffer to its caller.
func (r *request) alloc(n int64) {
	var b []byte
	if n <= int64(len(r.buf)) {
		b = r.buf[:n:n] // the caller's buffer for a message that fits
	} else {
		b = rawmem.Bytes(int(n))
	}
	if r.dst != inBuf {
		*r.dst = b
	}
	r.buf, r.lay, r.size = b, nil, n
	r.dst = nil
}

// inBuf is the dst of a receive whose caller takes the message from the request itself
// (allocReq): r.buf once alloc gave it one, which it did unless r.dst is still set.
var inBuf = new([]byte)

// allocMsg is an allocReq's message: nil if the receive never matched (cancelled).
func (r *request) allocMsg() []byte {
	if r.dst != nil {
		return nil
	}
	return r.buf
}

// RecvAlloc is a blocking receive of a message of any length, as IrecvAlloc: into
// fit[:n] when the message's n bytes fit there (a caller's reusable buffer for small
// messages), else into new memory of exactly its length. It returns the message's
// bytes and its status.
func (e *Engine) RecvAlloc(fit []byte, src, tag int, ctx uint32) ([]byte, Status, error) {
	if err := e.checkRecv("Recv", src, tag); err != nil {
		return nil, Status{}, err
	}
	if src == ProcNull {
		return nil, Status{Source: ProcNull, Tag: AnyTag}, nil
	}
	var st Status
	msg := e.recvAlloc(fit, src, tag, ctx, &st)
	return msg, st, st.Err
}

// RecvAllocInfo is RecvAlloc answering field by field (as RecvInfo, and for the same
// reason), for src a rank (not ProcNull) or AnySource and tag a tag or AnyTag.
func (e *Engine) RecvAllocInfo(fit []byte, src, tag int, ctx uint32) (msg []byte, from, gotTag int, err error) {
	if (uint(src) >= uint(e.reach.Load()) && src != AnySource) || (uint(tag) > MaxTag && tag != AnyTag) {
		if err := e.checkRecv("Recv", src, tag); err != nil {
			return nil, 0, 0, err
		}
		return nil, ProcNull, AnyTag, nil
	}
	e.mu.Lock()
	r := e.allocReq(fit, src, tag, ctx)
	msg, from, gotTag, err = r.allocMsg(), r.st.Source, r.st.Tag, r.st.Err
	e.freeReq(r)
	e.mu.Unlock()
	return msg, from, gotTag, err
}

// recvAlloc is RecvAlloc's receive, its status stored in *st.
func (e *Engine) recvAlloc(fit []byte, src, tag int, ctx uint32, st *Status) []byte {
	e.mu.Lock()
	r := e.allocReq(fit, src, tag, ctx)
	msg := r.allocMsg()
	*st = r.st
	e.freeReq(r)
	e.mu.Unlock()
	return msg
}

// allocReq receives into fit or new memory and returns the completed request, to be
// freed (the caller holds e.mu).
func (e *Engine) allocReq(fit []byte, src, tag int, ctx uint32) *request {
	r := e.newReq()
	r.kind, r.ctx, r.peer, r.tag = recvReq, ctx, int32(src), int32(tag)
	r.private = true
	r.buf, r.dst = fit, inBuf
	e.startRecv(r)
	if !r.fin && src >= 0 {
		e.pollPeer(r, src, false)
	}
	if !r.fin {
		e.block(nil, r, nil)
	} else {
		e.flush()
	}
	return r
}
