package mpi

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// BsendOverhead is what each buffered message takes of an attached buffer beyond its
// bytes (MPI_BSEND_OVERHEAD): size a buffer as the messages' bytes plus this much for
// each message that may be under way at once.
const BsendOverhead = core.BsendOverhead

// BufferAutomatic, given to BufferAttach or (*Comm).AttachBuffer, attaches an
// automatic buffer (MPI_BUFFER_AUTOMATIC): MPI takes as much memory as the buffered
// messages under way need, so a buffered send never fails for want of room. A detach
// of an automatic buffer returns BufferAutomatic.
var BufferAutomatic = make([]byte, 0, 1)

// isAutomatic reports whether b is BufferAutomatic (by its memory, as C compares the
// address).
func isAutomatic(b []byte) bool {
	return cap(b) > 0 && unsafe.SliceData(b) == unsafe.SliceData(BufferAutomatic)
}

// attachBuffer attaches buf to o (a nil *core.Comm: the process's buffer), its error
// through c's handler.
func attachBuffer(op string, c *Comm, o mpir.BufferOwner, buf []byte) error {
	return c.fail(op, mpir.AttachBuffer(op, o, buf, isAutomatic(buf)))
}

func detachBuffer(op string, c *Comm, o mpir.BufferOwner) ([]byte, error) {
	b, auto, err := mpir.DetachBuffer(op, o)
	if auto {
		b = BufferAutomatic
	}
	return b, c.fail(op, err)
}

// BufferAttach gives MPI a buffer for buffered sends (MPI_Buffer_attach): Bsend,
// Ibsend and BsendInit's requests on a communicator with no buffer of its own copy
// their messages into it. buf may be BufferAutomatic. Only one buffer is attached to
// the process at a time; an attach while one is attached fails with ErrBuffer.
func BufferAttach(buf []byte) error { return attachBuffer("BufferAttach", nil, (*core.Comm)(nil), buf) }

// BufferDetach waits until every message in the process's buffer has been sent,
// detaches the buffer and returns it (MPI_Buffer_detach); BufferAutomatic for an
// automatic one. With no buffer attached it fails with ErrBuffer.
func BufferDetach() ([]byte, error) { return detachBuffer("BufferDetach", nil, (*core.Comm)(nil)) }

// BufferFlush waits until every message in the process's buffer has been sent,
// leaving the buffer attached (MPI_Buffer_flush). With none attached it returns at
// once.
func BufferFlush() error {
	return (*Comm)(nil).fail("BufferFlush", mpir.FlushBuffer(prof.BufferFlush, "BufferFlush", (*core.Comm)(nil), nil))
}

// BufferIflush is BufferFlush as a request, complete once the messages in the
// process's buffer have been sent (MPI_Buffer_iflush).
func BufferIflush() (Request, error) {
	x, err := mpir.IflushBuffer(prof.BufferIflush, "BufferIflush", (*core.Comm)(nil), nil)
	return pairReq("BufferIflush", nil, x, err)
}

// AttachBuffer gives c a buffer of its own for buffered sends
// (MPI_Comm_attach_buffer): a buffered send on c uses it rather than the process's.
// buf may be BufferAutomatic. Only one buffer is attached to a communicator at a
// time; duplicates of c do not share it. Freeing c lets its buffer go, and the
// messages in it are still sent.
func (c *Comm) AttachBuffer(buf []byte) error {
	if err := c.check("AttachBuffer"); err != nil {
		return err
	}
	return attachBuffer("AttachBuffer", c, c.d, buf)
}

// DetachBuffer waits until every message in c's buffer has been sent, detaches it
// and returns it (MPI_Comm_detach_buffer); BufferAutomatic for an automatic one.
func (c *Comm) DetachBuffer() ([]byte, error) {
	if err := c.check("DetachBuffer"); err != nil {
		return nil, err
	}
	return detachBuffer("DetachBuffer", c, c.d)
}

// FlushBuffer waits until every message in c's buffer has been sent, leaving it
// attached (MPI_Comm_flush_buffer). With none attached it returns at once.
func (c *Comm) FlushBuffer() error {
	if err := c.check("FlushBuffer"); err != nil {
		return err
	}
	return c.fail("FlushBuffer", mpir.FlushBuffer(prof.CommFlushBuffer, "FlushBuffer", c.d, c.d))
}

// IflushBuffer is FlushBuffer as a request (MPI_Comm_iflush_buffer).
func (c *Comm) IflushBuffer() (Request, error) {
	if err := c.check("IflushBuffer"); err != nil {
		return Request{}, err
	}
	x, err := mpir.IflushBuffer(prof.CommIflushBuffer, "IflushBuffer", c.d, c.d)
	return pairReq("IflushBuffer", c, x, err)
}
