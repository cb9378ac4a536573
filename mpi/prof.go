package mpi

import (
	"github.com/mpigo/mpigo/internal/p2p"
	"github.com/mpigo/mpigo/internal/prof"
)

// The facade's entry and exit as the recorder (internal/prof) sees them: each public
// call reports itself once, at its entry point, through these. A call the facade
// makes inside another (Sendrecv's Wait) is not counted again.

func (c *Comm) enter(call prof.Call, peer, n int) int64 { return c.dev().ProfEnter(call, peer, -1, n) }

// nbytes is the length of b in bytes.
func nbytes[T Elem](b []T) int { return len(b) * esize[T]() }

// collBytes is a collective's bytes on this rank: its input, or recv in place.
func collBytes[T Elem](send, recv []T) int {
	if isInPlace(send) {
		return nbytes(recv)
	}
	return nbytes(send)
}

func psend(call prof.Call, op string, c *Comm, b []byte, dest, tag int, mode p2p.Mode) error {
	t := c.dev().ProfEnter(call, dest, tag, len(b))
	err := send(op, c, b, dest, tag, mode)
	c.dev().ProfExitSend(call, t, len(b), dest)
	return err
}

func precv(st *Status, c *Comm, b []byte, src, tag int) error {
	t := c.dev().ProfEnter(prof.Recv, src, tag, len(b))
	err := recvInto(st, "Recv", c, b, src, tag)
	prof.Exit(prof.Recv, t, int(st.bytes))
	return err
}

func pisend(op string, c *Comm, b []byte, dest, tag int, mode p2p.Mode) (Request, error) {
	t := c.dev().ProfEnter(prof.Isend, dest, tag, len(b))
	q, err := isend(op, c, b, dest, tag, mode, false)
	c.dev().ProfExitSend(prof.Isend, t, len(b), dest)
	return q, err
}

func pirecv(c *Comm, b []byte, src, tag int) (Request, error) {
	t := c.dev().ProfEnter(prof.Irecv, src, tag, len(b))
	q, err := irecv("Irecv", c, b, src, tag, false)
	prof.Exit(prof.Irecv, t, len(b))
	return q, err
}
