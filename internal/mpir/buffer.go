package mpir

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// Buffers for buffered sends (MPI 4.1 section 3.6): the process's
// (MPI_Buffer_attach), a communicator's (MPI_Comm_attach_buffer) and a session's
// (MPI_Session_attach_buffer). A buffered send on a communicator uses the
// communicator's buffer if it has one, else its session's, else the process's; the
// device keeps them. Here the rules common to the three:
//
//   - A buffer is given, or is automatic (MPI_BUFFER_AUTOMATIC: MPI takes the memory
//     the messages under way need). A buffer of no bytes is a buffer (the standard's
//     size is a non-negative integer): every buffered send that needs it then fails
//     for want of room, as with none. Memory that is not there (C's NULL, Go's nil
//     slice) is an error of class ClassBuffer.
//   - One buffer at a time per owner: an attach while one is attached, and a detach
//     with none, are errors of class ClassBuffer.
//   - Detach and flush wait until the messages in the buffer have left; detach
//     returns the buffer (or says it was automatic). A flush with no buffer returns
//     at once.

// BufferOwner is what a buffer is attached to: a communicator (*core.Comm; a nil one
// is the process) or a session (*core.Session).
type BufferOwner interface {
	AttachBuffer(op string, b []byte, auto bool) error
	DetachBuffer(op string) ([]byte, bool, error)
	FlushBuffer(op string) error
	IflushBuffer(op string) (*core.Pending, error)
}

// AttachBuffer attaches b, or an automatic buffer (auto; b is then ignored), to o.
func AttachBuffer(op string, o BufferOwner, b []byte, auto bool) error {
	if !auto && b == nil {
		return core.Errorf(core.ClassBuffer, op, "the buffer is NULL (nil); an automatic buffer is MPI_BUFFER_AUTOMATIC")
	}
	if auto {
		b = nil
	}
	return o.AttachBuffer(op, b, auto)
}

// DetachBuffer waits until the messages in o's buffer have left, detaches it and
// returns it; auto says it was automatic.
func DetachBuffer(op string, o BufferOwner) (b []byte, auto bool, err error) {
	return o.DetachBuffer(op)
}

// FlushBuffer waits until the messages in o's buffer have left, recorded as call
// (prof.None: not recorded) on c (nil: no communicator).
func FlushBuffer(call prof.Call, op string, o BufferOwner, c *core.Comm) error {
	if call != prof.None {
		defer prof.Exit(call, prof.EnterTimed(call, c.Prof(), prof.NoPeer, -1, 0), 0)
	}
	return o.FlushBuffer(op)
}

// IflushBuffer is FlushBuffer as a nonblocking operation.
func IflushBuffer(call prof.Call, op string, o BufferOwner, c *core.Comm) (*core.Pending, error) {
	if call != prof.None {
		defer prof.Exit(call, prof.EnterTimed(call, c.Prof(), prof.NoPeer, -1, 0), 0)
	}
	return o.IflushBuffer(op)
}
