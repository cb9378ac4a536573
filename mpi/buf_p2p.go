package mpi

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
)

// The point-to-point calls on typed buffers (see Typed): mpir's, as the calls on
// slices. A non-contiguous datatype is packed into the transport as the message goes,
// and unpacked from it as it arrives.

// sendBuf is the blocking send of a typed buffer, as p.
func sendBuf(p *mpir.Proc, c *Comm, b Buf, dest, tag int) error {
	eb, l, err := b.lentBuf(p.Op)
	if err != nil {
		return c.fail(p.Op, err)
	}
	if err = send(p, c, eb, dest, tag); err == nil {
		l.Return() // after an error the engine may still hold it: left to the collector
	}
	return err
}

// SendBuf sends a typed buffer (see Typed) to dest.
func SendBuf(c *Comm, b Buf, dest, tag int) error { return sendBuf(mpir.ProcSend, c, b, dest, tag) }

// SsendBuf is SendBuf that returns once the receiver has matched the message.
func SsendBuf(c *Comm, b Buf, dest, tag int) error { return sendBuf(mpir.ProcSsend, c, b, dest, tag) }

// BsendBuf is Bsend of a typed buffer: it is copied into the attached buffer.
func BsendBuf(c *Comm, b Buf, dest, tag int) error { return sendBuf(mpir.ProcBsend, c, b, dest, tag) }

// RsendBuf is Rsend of a typed buffer: the matching receive must be posted already.
func RsendBuf(c *Comm, b Buf, dest, tag int) error { return sendBuf(mpir.ProcRsend, c, b, dest, tag) }

// RecvBuf receives into a typed buffer.
func RecvBuf(c *Comm, b Buf, src, tag int) (Status, error) {
	const op = "Recv"
	eb, l, err := b.lentBuf(op)
	if err != nil {
		return Status{}, c.fail(op, err)
	}
	var st Status
	if c != nil && c.ctx != nil {
		st, err = recvView(c, eb, src, tag)
	} else if st.Source, st.Tag, st.bytes, err = mpir.Recv("Recv", c.dev(), eb, src, tag); err != nil {
		st.Err, err = err, c.fail(op, err)
	}
	if err == nil {
		l.Return() // after an error the engine may still hold it: left to the collector
	}
	return st, err
}

// startBuf starts a send of a typed buffer by start (mpir.Isend, mpir.SendInit), as p.
func startBuf(start func(*mpir.Proc, *core.Comm, core.Buf, int, int) (core.Request, error),
	p *mpir.Proc, c *Comm, b Buf, dest, tag int) (Request, error) {
	eb, err := b.engineBuf(p.Op)
	if err != nil {
		return Request{}, c.fail(p.Op, err)
	}
	q, err := start(p, c.dev(), eb, dest, tag)
	return p2pReq(p.Op, c, q, err)
}

// isendBuf starts a send of a typed buffer, as p.
func isendBuf(p *mpir.Proc, c *Comm, b Buf, dest, tag int) (Request, error) {
	return startBuf(mpir.Isend, p, c, b, dest, tag)
}

// IsendBuf starts sending a typed buffer.
func IsendBuf(c *Comm, b Buf, dest, tag int) (Request, error) {
	return isendBuf(mpir.ProcIsend, c, b, dest, tag)
}

// IssendBuf starts a synchronous send of a typed buffer.
func IssendBuf(c *Comm, b Buf, dest, tag int) (Request, error) {
	return isendBuf(mpir.ProcIssend, c, b, dest, tag)
}

// IrsendBuf starts a ready send of a typed buffer.
func IrsendBuf(c *Comm, b Buf, dest, tag int) (Request, error) {
	return isendBuf(mpir.ProcIrsend, c, b, dest, tag)
}

// IbsendBuf starts a buffered send of a typed buffer (complete at once).
func IbsendBuf(c *Comm, b Buf, dest, tag int) (Request, error) {
	return isendBuf(mpir.ProcIbsend, c, b, dest, tag)
}

// IrecvBuf starts receiving into a typed buffer.
func IrecvBuf(c *Comm, b Buf, src, tag int) (Request, error) {
	eb, err := b.engineBuf("Irecv")
	if err != nil {
		return Request{}, c.fail("Irecv", err)
	}
	q, err := mpir.Irecv(c.dev(), eb, src, tag)
	return p2pReq("Irecv", c, q, err)
}

// sendInitBuf makes a persistent send request of a typed buffer, as p.
func sendInitBuf(p *mpir.Proc, c *Comm, b Buf, dest, tag int) (Request, error) {
	return startBuf(mpir.SendInit, p, c, b, dest, tag)
}

// SendInitBuf makes a persistent send request of a typed buffer.
func SendInitBuf(c *Comm, b Buf, dest, tag int) (Request, error) {
	return sendInitBuf(procSendInit, c, b, dest, tag)
}

// SsendInitBuf makes a persistent synchronous send request of a typed buffer.
func SsendInitBuf(c *Comm, b Buf, dest, tag int) (Request, error) {
	return sendInitBuf(procSsendInit, c, b, dest, tag)
}

// RsendInitBuf makes a persistent ready send request of a typed buffer.
func RsendInitBuf(c *Comm, b Buf, dest, tag int) (Request, error) {
	return sendInitBuf(procRsendInit, c, b, dest, tag)
}

// BsendInitBuf makes a persistent buffered send request of a typed buffer.
func BsendInitBuf(c *Comm, b Buf, dest, tag int) (Request, error) {
	return sendInitBuf(procBsendInit, c, b, dest, tag)
}

// RecvInitBuf makes a persistent receive request into a typed buffer.
func RecvInitBuf(c *Comm, b Buf, src, tag int) (Request, error) {
	eb, err := b.engineBuf("RecvInit")
	if err != nil {
		return Request{}, c.fail("RecvInit", err)
	}
	q, err := mpir.RecvInit(procRecvInit, c.dev(), eb, src, tag)
	return p2pReq("RecvInit", c, q, err)
}
