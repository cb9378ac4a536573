package mpi

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/prof"
)

// isendrecv starts a receive and a send as one request (MPI_Isendrecv); fin, if not
// nil, runs once both have completed without error.
func isendrecv(op string, c *Comm, sb core.Buf, dest, sendtag int, rb core.Buf, src, recvtag int,
	fin func(st *core.Status)) (Request, error) {
	if err := c.check(op); err != nil {
		return Request{}, err
	}
	// The send's arguments first: a receive posted and then taken back could have
	// matched a message meanwhile.
	if _, err := c.d.Target(op, "dest", dest, sendtag, false); err != nil {
		return Request{}, c.fail(op, err)
	}
	rq, err := c.d.Irecv(op, rb, src, recvtag, false)
	if err != nil {
		return Request{}, c.fail(op, err)
	}
	sq, err := c.d.Isend(op, sb, dest, sendtag, core.ModeStandard, false)
	if err != nil {
		var ps core.Status
		core.Cancel(&rq)
		core.WaitInto(&rq, &ps)
		return Request{}, c.fail(op, err)
	}
	return Request{c: c, x: core.StartPair(op, sq, rq, fin)}, nil
}

// Isendrecv starts sending sendbuf to dest and receiving into recvbuf from src
// (MPI_Isendrecv): one request, complete once both are, whose status is the
// receive's. Neither buffer may be touched until then.
func Isendrecv[S, R Elem](c *Comm, sendbuf []S, dest, sendtag int, recvbuf []R, src, recvtag int) (Request, error) {
	defer prof.Exit(prof.Isendrecv, c.enterP2P(prof.Isendrecv, dest, sendtag, nbytes(sendbuf)), nbytes(sendbuf))
	return isendrecv("Isendrecv", c, core.Bytes(asBytes(sendbuf)), dest, sendtag, core.Bytes(asBytes(recvbuf)), src, recvtag, nil)
}

// IsendrecvReplace starts sending buf to dest and replacing its contents with a
// message from src (MPI_Isendrecv_replace): the message is received into a temporary
// of MPI's and copied into buf once both parts have completed. buf belongs to MPI
// until then.
func IsendrecvReplace[T Elem](c *Comm, buf []T, dest, sendtag, src, recvtag int) (Request, error) {
	defer prof.Exit(prof.IsendrecvReplace, c.enterP2P(prof.IsendrecvReplace, dest, sendtag, nbytes(buf)), nbytes(buf))
	b := asBytes(buf)
	tmp := make([]byte, len(b))
	return isendrecv("IsendrecvReplace", c, core.Bytes(b), dest, sendtag, core.Bytes(tmp), src, recvtag,
		func(st *core.Status) { copy(b, tmp[:st.Count]) })
}

// IsendrecvBuf is Isendrecv with typed buffers (see Typed).
func IsendrecvBuf(c *Comm, sendbuf Buf, dest, sendtag int, recvbuf Buf, src, recvtag int) (Request, error) {
	defer prof.Exit(prof.Isendrecv, c.enterP2P(prof.Isendrecv, dest, sendtag, sendbuf.size()), sendbuf.size())
	const op = "Isendrecv"
	sb, rb, err := bufPair(op, sendbuf, recvbuf)
	if err != nil {
		return Request{}, c.fail(op, err)
	}
	return isendrecv(op, c, sb, dest, sendtag, rb, src, recvtag, nil)
}

// IsendrecvReplaceBuf is IsendrecvReplace with a typed buffer.
func IsendrecvReplaceBuf(c *Comm, buf Buf, dest, sendtag, src, recvtag int) (Request, error) {
	defer prof.Exit(prof.IsendrecvReplace, c.enterP2P(prof.IsendrecvReplace, dest, sendtag, buf.size()), buf.size())
	return isendrecvReplaceBuf("IsendrecvReplace", c, buf, dest, sendtag, src, recvtag)
}

// isendrecvReplaceBuf is IsendrecvReplaceBuf unrecorded, its errors op's.
func isendrecvReplaceBuf(op string, c *Comm, buf Buf, dest, sendtag, src, recvtag int) (Request, error) {
	eb, err := buf.engineBuf(op)
	if err != nil {
		return Request{}, c.fail(op, err)
	}
	tmp := make([]byte, eb.Len())
	return isendrecv(op, c, eb, dest, sendtag, core.Bytes(tmp), src, recvtag,
		func(st *core.Status) { buf.unpackPrefix(tmp[:st.Count]) })
}

// SendrecvBuf is Sendrecv with typed buffers (see Typed).
func SendrecvBuf(c *Comm, sendbuf Buf, dest, sendtag int, recvbuf Buf, src, recvtag int) (Status, error) {
	defer prof.Exit(prof.Sendrecv, c.enterP2P(prof.Sendrecv, dest, sendtag, sendbuf.size()), sendbuf.size())
	const op = "Sendrecv"
	sb, rb, err := bufPair(op, sendbuf, recvbuf)
	if err != nil {
		return Status{}, c.fail(op, err)
	}
	q, err := isendrecv(op, c, sb, dest, sendtag, rb, src, recvtag, nil)
	if err != nil {
		return Status{}, err
	}
	return q.wait(op)
}

// SendrecvReplaceBuf is SendrecvReplace with a typed buffer.
func SendrecvReplaceBuf(c *Comm, buf Buf, dest, sendtag, src, recvtag int) (Status, error) {
	defer prof.Exit(prof.SendrecvReplace, c.enterP2P(prof.SendrecvReplace, dest, sendtag, buf.size()), buf.size())
	q, err := isendrecvReplaceBuf("SendrecvReplace", c, buf, dest, sendtag, src, recvtag)
	if err != nil {
		return Status{}, err
	}
	return q.wait("SendrecvReplace")
}

func bufPair(op string, s, r Buf) (core.Buf, core.Buf, error) {
	sb, err := s.engineBuf(op)
	if err != nil {
		return sb, core.Buf{}, err
	}
	rb, err := r.engineBuf(op)
	return sb, rb, err
}

// unpackPrefix lays the packed bytes src out in b from its start (a message may be
// shorter than b); b has passed engineBuf.
func (b Buf) unpackPrefix(src []byte) {
	if off, _, ok := b.dt.ContiguousSpan(b.count); ok {
		copy(b.mem[off:], src)
		return
	}
	l := datatype.LendLayout()
	if l.Init(b.dt, b.mem, b.count, 0) == nil {
		l.UnpackAt(src, 0)
	}
	l.Return()
}

// MrecvBuf receives the message m into a typed buffer (MPI_Mrecv with a datatype).
func MrecvBuf(b Buf, m *Message) (Status, error) {
	defer prof.Exit(prof.Mrecv, m.enter(prof.Mrecv, b.size()), b.size())
	const op = "Mrecv"
	if m == nil || m.c == nil {
		return Status{}, (*Comm)(nil).fail(op, errorf(ClassRequest, op, "m is no message (from Mprobe or Improbe)"))
	}
	eb, l, err := b.lentBuf(op)
	if err != nil {
		return Status{}, m.c.fail(op, err)
	}
	st, err := core.Mrecv(eb, &m.m)
	if err == nil {
		l.Return()
	}
	return m.c.status(st), m.c.fail(op, mapErr(op, err))
}

// ImrecvBuf starts receiving the message m into a typed buffer (MPI_Imrecv with a
// datatype).
func ImrecvBuf(b Buf, m *Message) (Request, error) {
	defer prof.Exit(prof.Imrecv, m.enter(prof.Imrecv, b.size()), b.size())
	const op = "Imrecv"
	if m == nil || m.c == nil {
		return Request{}, (*Comm)(nil).fail(op, errorf(ClassRequest, op, "m is no message (from Mprobe or Improbe)"))
	}
	eb, err := b.engineBuf(op)
	if err != nil {
		return Request{}, m.c.fail(op, err)
	}
	q, err := core.Imrecv(eb, &m.m)
	return Request{q: q, c: m.c}, m.c.fail(op, mapErr(op, err))
}
