package mpi

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
)

// The send-receives on typed buffers and the nonblocking send-receives: mpir's
// (internal/mpir/sendrecv.go), each one request for a send and a receive.

// pairReq is the Request of a send-receive on c that mpir started (x, err), its error
// through c's handler.
func pairReq(op string, c *Comm, x *core.Pending, err error) (Request, error) {
	if err != nil {
		return Request{}, c.fail(op, err)
	}
	return opReq(c, x), nil
}

// Isendrecv starts sending sendbuf to dest and receiving into recvbuf from src
// (MPI_Isendrecv): one request, complete once both are, whose status is the
// receive's. Neither buffer may be touched until then, and they must not overlap.
func Isendrecv[S, R Elem](c *Comm, sendbuf []S, dest, sendtag int, recvbuf []R, src, recvtag int) (Request, error) {
	x, err := mpir.Isendrecv("Isendrecv", c.dev(), bufOf(sendbuf), dest, sendtag, bufOf(recvbuf), src, recvtag)
	return pairReq("Isendrecv", c, x, err)
}

// IsendrecvReplace starts sending buf to dest and replacing its contents with a
// message from src (MPI_Isendrecv_replace): a packed copy of buf is sent, and the
// message is received into buf, which belongs to MPI until the request completes.
func IsendrecvReplace[T Elem](c *Comm, buf []T, dest, sendtag, src, recvtag int) (Request, error) {
	x, err := mpir.IsendrecvReplace("IsendrecvReplace", c.dev(), bufOf(buf), dest, sendtag, src, recvtag)
	return pairReq("IsendrecvReplace", c, x, err)
}

// IsendrecvBuf is Isendrecv with typed buffers (see Typed).
func IsendrecvBuf(c *Comm, sendbuf Buf, dest, sendtag int, recvbuf Buf, src, recvtag int) (Request, error) {
	const op = "Isendrecv"
	sb, rb, err := bufPair(op, sendbuf, recvbuf)
	if err != nil {
		return Request{}, c.fail(op, err)
	}
	x, err := mpir.Isendrecv(op, c.dev(), sb, dest, sendtag, rb, src, recvtag)
	return pairReq(op, c, x, err)
}

// IsendrecvReplaceBuf is IsendrecvReplace with a typed buffer.
func IsendrecvReplaceBuf(c *Comm, buf Buf, dest, sendtag, src, recvtag int) (Request, error) {
	const op = "IsendrecvReplace"
	eb, err := buf.engineBuf(op)
	if err != nil {
		return Request{}, c.fail(op, err)
	}
	x, err := mpir.IsendrecvReplace(op, c.dev(), eb, dest, sendtag, src, recvtag)
	return pairReq(op, c, x, err)
}

// SendrecvBuf is Sendrecv with typed buffers (see Typed).
func SendrecvBuf(c *Comm, sendbuf Buf, dest, sendtag int, recvbuf Buf, src, recvtag int) (Status, error) {
	const op = "Sendrecv"
	sb, rb, err := bufPair(op, sendbuf, recvbuf)
	if err != nil {
		return Status{}, c.fail(op, err)
	}
	st, err := mpir.Sendrecv(op, c.dev(), c.view(), sb, dest, sendtag, rb, src, recvtag)
	return c.status(st), c.fail(op, err)
}

// SendrecvReplaceBuf is SendrecvReplace with a typed buffer.
func SendrecvReplaceBuf(c *Comm, buf Buf, dest, sendtag, src, recvtag int) (Status, error) {
	const op = "SendrecvReplace"
	eb, l, err := buf.lentBuf(op)
	if err != nil {
		return Status{}, c.fail(op, err)
	}
	st, err := mpir.SendrecvReplace(op, c.dev(), c.view(), eb, dest, sendtag, src, recvtag)
	if err == nil {
		l.Return() // after an error the engine may still hold it: left to the collector
	}
	return c.status(st), c.fail(op, err)
}

func bufPair(op string, s, r Buf) (core.Buf, core.Buf, error) {
	sb, err := s.engineBuf(op)
	if err != nil {
		return sb, core.Buf{}, err
	}
	rb, err := r.engineBuf(op)
	return sb, rb, err
}

// MrecvBuf receives the message m into a typed buffer (MPI_Mrecv with a datatype).
func MrecvBuf(b Buf, m *Message) (Status, error) {
	const op = "Mrecv"
	mm, c := m.of()
	eb, l, err := b.lentBuf(op)
	if err != nil {
		return Status{}, c.fail(op, err)
	}
	st, err := mpir.Mrecv(op, c.dev(), eb, mm)
	if err == nil {
		l.Return()
	}
	return c.status(st), c.fail(op, err)
}

// ImrecvBuf starts receiving the message m into a typed buffer (MPI_Imrecv with a
// datatype).
func ImrecvBuf(b Buf, m *Message) (Request, error) {
	const op = "Imrecv"
	mm, c := m.of()
	eb, err := b.engineBuf(op)
	if err != nil {
		return Request{}, c.fail(op, err)
	}
	q, err := mpir.Imrecv(op, c.dev(), eb, mm)
	return p2pReq(op, c, q, err)
}
