package mpi

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// The point-to-point calls on typed buffers (see Typed) that SendBuf, RecvBuf,
// IsendBuf and IrecvBuf do not cover: the other send modes and the persistent
// requests. A non-contiguous datatype is packed into the transport as the message
// goes, and unpacked from it as it arrives.

// BsendBuf is Bsend of a typed buffer: it is copied into the attached buffer.
func BsendBuf(c *Comm, b Buf, dest, tag int) error {
	defer prof.Exit(prof.Bsend, c.enterP2P(prof.Bsend, dest, tag, b.size()), b.size())
	return sendBuf("Bsend", c, b, dest, tag, core.ModeBuffered)
}

// RsendBuf is Rsend of a typed buffer: the matching receive must be posted already.
func RsendBuf(c *Comm, b Buf, dest, tag int) error {
	defer prof.Exit(prof.Rsend, c.enterP2P(prof.Rsend, dest, tag, b.size()), b.size())
	return sendBuf("Rsend", c, b, dest, tag, core.ModeReady)
}

// IssendBuf starts a synchronous send of a typed buffer.
func IssendBuf(c *Comm, b Buf, dest, tag int) (Request, error) {
	defer prof.Exit(prof.Issend, c.enterP2P(prof.Issend, dest, tag, b.size()), b.size())
	return isendBuf("Issend", c, b, dest, tag, core.ModeSynchronous, false)
}

// IrsendBuf starts a ready send of a typed buffer.
func IrsendBuf(c *Comm, b Buf, dest, tag int) (Request, error) {
	defer prof.Exit(prof.Irsend, c.enterP2P(prof.Irsend, dest, tag, b.size()), b.size())
	return isendBuf("Irsend", c, b, dest, tag, core.ModeReady, false)
}

// IbsendBuf starts a buffered send of a typed buffer (complete at once).
func IbsendBuf(c *Comm, b Buf, dest, tag int) (Request, error) {
	defer prof.Exit(prof.Ibsend, c.enterP2P(prof.Ibsend, dest, tag, b.size()), b.size())
	return isendBuf("Ibsend", c, b, dest, tag, core.ModeBuffered, false)
}

// SendInitBuf makes a persistent send request of a typed buffer.
func SendInitBuf(c *Comm, b Buf, dest, tag int) (Request, error) {
	defer prof.Exit(prof.SendInit, c.enterP2P(prof.SendInit, dest, tag, b.size()), b.size())
	return isendBuf("SendInit", c, b, dest, tag, core.ModeStandard, true)
}

// SsendInitBuf makes a persistent synchronous send request of a typed buffer.
func SsendInitBuf(c *Comm, b Buf, dest, tag int) (Request, error) {
	defer prof.Exit(prof.SsendInit, c.enterP2P(prof.SsendInit, dest, tag, b.size()), b.size())
	return isendBuf("SsendInit", c, b, dest, tag, core.ModeSynchronous, true)
}

// RsendInitBuf makes a persistent ready send request of a typed buffer.
func RsendInitBuf(c *Comm, b Buf, dest, tag int) (Request, error) {
	defer prof.Exit(prof.RsendInit, c.enterP2P(prof.RsendInit, dest, tag, b.size()), b.size())
	return isendBuf("RsendInit", c, b, dest, tag, core.ModeReady, true)
}

// BsendInitBuf makes a persistent buffered send request of a typed buffer.
func BsendInitBuf(c *Comm, b Buf, dest, tag int) (Request, error) {
	defer prof.Exit(prof.BsendInit, c.enterP2P(prof.BsendInit, dest, tag, b.size()), b.size())
	return isendBuf("BsendInit", c, b, dest, tag, core.ModeBuffered, true)
}

// RecvInitBuf makes a persistent receive request into a typed buffer.
func RecvInitBuf(c *Comm, b Buf, src, tag int) (Request, error) {
	defer prof.Exit(prof.RecvInit, c.enterP2P(prof.RecvInit, src, tag, b.size()), b.size())
	eb, err := b.engineBuf("RecvInit")
	if err != nil {
		return Request{}, c.fail("RecvInit", err)
	}
	q, err := c.dev().Irecv("RecvInit", eb, src, tag, true)
	if err != nil {
		return Request{}, c.fail("RecvInit", err)
	}
	return Request{q: q, c: c}, nil
}

func isendBuf(op string, c *Comm, b Buf, dest, tag int, mode core.Mode, persistent bool) (Request, error) {
	eb, err := b.engineBuf(op)
	if err != nil {
		return Request{}, c.fail(op, err)
	}
	q, err := c.dev().Isend(op, eb, dest, tag, mode, persistent)
	if err != nil {
		return Request{}, c.fail(op, err)
	}
	return Request{q: q, c: c}, nil
}
