package coll

import (
	"fmt"
	"sync"
)

// memNet is an in-memory network for testing schedules: every send is buffered at
// once (eager), receives match by (source, tag) in arrival order, and a message whose
// length differs from the receive buffer's is an error (ErrShort or a Mismatch, as the
// core's Conn reports them), so that a schedule whose two sides disagree on a block's
// size fails loudly.
type memNet struct {
	mu     sync.Mutex
	cond   *sync.Cond
	unexp  [][]*memMsg // by destination
	posted [][]*memReq // by destination
}

type memMsg struct {
	src, tag int
	data     []byte
}

type memReq struct {
	src, tag int
	buf      []byte
	dst      *[]byte // a FitConn receive's: the message, in buf or new memory
	done     bool
	err      error
}

func newMemNet(n int) *memNet {
	m := &memNet{unexp: make([][]*memMsg, n), posted: make([][]*memReq, n)}
	m.cond = sync.NewCond(&m.mu)
	return m
}

type memConn struct {
	net        *memNet
	rank, size int
	reqs       []*memReq // Req.N-1 indexes it
	mu         sync.Mutex
}

func (m *memNet) conn(rank int) *memConn {
	return &memConn{net: m, rank: rank, size: len(m.unexp)}
}

func (c *memConn) EagerMax() int { return SmallSend }
func (c *memConn) Rank() int     { return c.rank }
func (c *memConn) Size() int     { return c.size }

func (c *memConn) add(r *memReq) Req {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reqs = append(c.reqs, r)
	return Req{N: uint64(len(c.reqs))}
}

func (c *memConn) get(q *Req) *memReq {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reqs[q.N-1]
}

func deliver(r *memReq, src int, data []byte) {
	if r.dst != nil {
		if len(data) <= len(r.buf) {
			*r.dst = r.buf[:copy(r.buf, data)]
		} else {
			*r.dst = append([]byte(nil), data...)
		}
		r.done = true
		return
	}
	// As the core's Conn: a short message is ErrShort, a long one a Mismatch, which
	// the schedules that check their receives take for a mismatch and the others
	// (a short one) or every schedule (a long one) for a failure.
	switch {
	case len(data) < len(r.buf):
		r.err = fmt.Errorf("%w: message of %d bytes from %d tag %d into a buffer of %d", ErrShort, len(data), src, r.tag, len(r.buf))
	case len(data) > len(r.buf):
		r.err = Mismatch(fmt.Errorf("message of %d bytes from %d tag %d into a buffer of %d", len(data), src, r.tag, len(r.buf)))
	}
	copy(r.buf, data)
	r.done = true
}

func (c *memConn) Isend(b []byte, dest, tag int) (Req, error) {
	if dest < 0 || dest >= c.size || dest == c.rank {
		return Req{}, fmt.Errorf("rank %d: send to %d", c.rank, dest)
	}
	m := c.net
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, r := range m.posted[dest] {
		if (r.src == c.rank || r.src == AnySource) && r.tag == tag {
			m.posted[dest] = append(m.posted[dest][:i], m.posted[dest][i+1:]...)
			deliver(r, c.rank, b)
			m.cond.Broadcast()
			return c.add(&memReq{done: true}), nil
		}
	}
	m.unexp[dest] = append(m.unexp[dest], &memMsg{src: c.rank, tag: tag, data: append([]byte(nil), b...)})
	return c.add(&memReq{done: true}), nil
}

func (c *memConn) Send(b []byte, dest, tag int) error {
	_, err := c.Isend(b, dest, tag)
	return err
}

func (c *memConn) Recv(b []byte, src, tag int) error {
	q, err := c.Irecv(b, src, tag)
	if err != nil {
		return err
	}
	return c.Wait(&q)
}

func (c *memConn) Irecv(b []byte, src, tag int) (Req, error) {
	return c.irecv(b, nil, src, tag)
}

// IrecvFit and RecvFit make memConn a FitConn.
func (c *memConn) IrecvFit(fit []byte, dst *[]byte, src, tag int) (Req, error) {
	return c.irecv(fit, dst, src, tag)
}

func (c *memConn) RecvFit(fit []byte, src, tag int) ([]byte, error) {
	var msg []byte
	q, err := c.irecv(fit, &msg, src, tag)
	if err == nil {
		err = c.Wait(&q)
	}
	return msg, err
}

func (c *memConn) irecv(b []byte, dst *[]byte, src, tag int) (Req, error) {
	if (src < 0 && (src != AnySource || dst == nil)) || src >= c.size || src == c.rank {
		return Req{}, fmt.Errorf("rank %d: receive from %d", c.rank, src)
	}
	m := c.net
	m.mu.Lock()
	defer m.mu.Unlock()
	r := &memReq{src: src, tag: tag, buf: b, dst: dst}
	for i, u := range m.unexp[c.rank] {
		if (u.src == src || src == AnySource) && u.tag == tag {
			m.unexp[c.rank] = append(m.unexp[c.rank][:i], m.unexp[c.rank][i+1:]...)
			deliver(r, src, u.data)
			return c.add(r), nil
		}
	}
	m.posted[c.rank] = append(m.posted[c.rank], r)
	return c.add(r), nil
}

func (c *memConn) Wait(q *Req) error {
	if q.N == 0 {
		return nil
	}
	r := c.get(q)
	m := c.net
	m.mu.Lock()
	for !r.done {
		m.cond.Wait()
	}
	err := r.err
	m.mu.Unlock()
	*q = Req{}
	return err
}

func (c *memConn) Test(q *Req) (bool, error) {
	if q.N == 0 {
		return true, nil
	}
	r := c.get(q)
	m := c.net
	m.mu.Lock()
	done, err := r.done, r.err
	m.mu.Unlock()
	if done {
		*q = Req{}
	}
	return done, err
}

// pending reports messages nobody received, after a test.
func (m *memNet) pending() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := 0
	for i := range m.unexp {
		k += len(m.unexp[i]) + len(m.posted[i])
	}
	return k
}
