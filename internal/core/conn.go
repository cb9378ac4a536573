package core

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/group"
	"github.com/mpigo/mpigo/internal/p2p"
)

// Conn is the one coll.Conn: point-to-point among a list of processes on a context no
// user message can match. Member i is rank i of a, then rank i-len(a) of b: a
// communicator's group (an intracommunicator's collectives), its local then remote
// group (an intercommunicator's, which address the other side as size+j), or two
// groups in an order every member lists alike (creation over both sides of an
// intercommunicator). direct says member i is world rank i.
type Conn struct {
	ctx    uint32
	me, n  int
	a, b   *group.Group
	na     int // members in a
	size   int // Size(): the local group's (na) for an intercommunicator's collectives, else n
	direct bool
}

// setConns makes c's conns once its groups are set: its local group, and an
// intercommunicator's both groups.
func (c *Comm) setConns() {
	c.lconn = c.localConn()
	if c.remote != nil {
		c.iconn = c.interConn()
	}
}

// localConn is c's intracommunicator conn (its local group) on c's internal context.
func (c *Comm) localConn() Conn {
	return Conn{ctx: c.ctx + 1, me: c.rank, n: c.size, a: c.group, na: c.size, size: c.size, direct: c.direct || c.group == World.group}
}

// interConn addresses both groups of an intercommunicator: local ranks first, then the
// remote group (internal/coll/inter.go's convention).
func (c *Comm) interConn() Conn {
	return Conn{ctx: c.ctx + 1, me: c.rank, n: c.size + c.remote.Size(), a: c.group, b: c.remote, na: c.size, size: c.size}
}

// unionConn lists a then b on context ctx (this process is in one of them).
func unionConn(a, b *group.Group, ctx uint32) Conn {
	na := a.Size()
	me := a.Rank(int32(World.rank))
	if me == group.Undefined {
		me = na + b.Rank(int32(World.rank))
	}
	return Conn{ctx: ctx, me: me, n: na + b.Size(), a: a, b: b, na: na, size: na + b.Size()}
}

// groupConn is the members of g on context ctx (this process is one of them).
func groupConn(g *group.Group, ctx uint32) Conn {
	return Conn{ctx: ctx, me: g.Rank(int32(World.rank)), n: g.Size(), a: g, na: g.Size(), size: g.Size()}
}

func (k *Conn) world(i int) int {
	switch {
	case k.direct:
		return i
	case i < k.na:
		return int(k.a.WorldRank(i))
	}
	return int(k.b.WorldRank(i - k.na))
}

func (k *Conn) Rank() int { return k.me }
func (k *Conn) Size() int { return k.size }

func (k *Conn) Isend(b []byte, dest, tag int) (coll.Req, error) {
	q, err := eng.Isend(p2p.Bytes(b), k.world(dest), tag, k.ctx, p2p.Standard)
	return collReq(q), err
}

func (k *Conn) Send(b []byte, dest, tag int) error {
	return eng.Send(p2p.Bytes(b), k.world(dest), tag, k.ctx, p2p.Standard)
}

func (k *Conn) Recv(b []byte, src, tag int) error {
	st, err := eng.Recv(p2p.Bytes(b), k.world(src), tag, k.ctx)
	if err == nil && st.Count >= int64(len(b)) {
		return nil
	}
	return k.exact(st, err, len(b))
}

// A receive's Req carries its buffer's length above the engine's generation (when it
// is below 2 GiB), so that its completion can tell a short message (exact).
func (k *Conn) Irecv(b []byte, src, tag int) (coll.Req, error) {
	q, err := eng.Irecv(p2p.Bytes(b), k.world(src), tag, k.ctx)
	cq := collReq(q)
	if len(b) < 1<<31 {
		cq.N |= uint64(len(b)) << 32
	}
	return cq, err
}

// IrecvFit and RecvFit make conn a coll.FitConn: receives of a message whose length
// the receiver does not know for sure (p2p's receives into a fitting buffer or new
// memory).
func (k *Conn) IrecvFit(fit []byte, dst *[]byte, src, tag int) (coll.Req, error) {
	q, err := eng.IrecvAllocFit(fit, dst, k.source(src), tag, k.ctx)
	return collReq(q), err
}

func (k *Conn) RecvFit(fit []byte, src, tag int) ([]byte, error) {
	msg, _, _, err := eng.RecvAllocInfo(fit, k.source(src), tag, k.ctx)
	return msg, err
}

// source is world's for a receive's source, which may be coll.AnySource.
func (k *Conn) source(i int) int {
	if i == coll.AnySource {
		return p2p.AnySource
	}
	return k.world(i)
}

// A receive that the nonblocking collectives' loop completed (Waitany) and found
// failed, truncated or short comes back to its schedule as a marked Req (markBit in N, the
// receive's length above the generation's bits as ever) whose Ref holds what Waitany
// said (a failure too): the schedule's Test then reports it as the receive's own Wait would have.
const markBit = 1 << 63

type doneRecv struct {
	st  p2p.Status
	err error
}

func markReq(st p2p.Status, err error, n uint64) coll.Req {
	return coll.Req{Ref: unsafe.Pointer(&doneRecv{st, err}), N: markBit | n&^(1<<32-1)}
}

func (k *Conn) Wait(q *coll.Req) error {
	if q.N&markBit != 0 {
		d, want := (*doneRecv)(q.Ref), int(q.N>>32&^(markBit>>32))
		*q = coll.Req{}
		return k.exact(d.st, d.err, want)
	}
	r := engReq(*q)
	st, err := eng.Wait(&r)
	want := int(q.N >> 32)
	*q = collReq(r)
	if err == nil && st.Count >= int64(want) {
		return nil
	}
	return k.exact(st, err, want)
}

func (k *Conn) Test(q *coll.Req) (bool, error) {
	if q.N&markBit != 0 {
		return true, k.Wait(q)
	}
	r := engReq(*q)
	st, ok, err := eng.Test(&r)
	if !ok {
		return ok, err // q stays as it is, the receive's length too
	}
	want := int(q.N >> 32)
	*q = collReq(r)
	if err == nil && st.Count >= int64(want) {
		return true, nil
	}
	return ok, k.exact(st, err, want)
}

// exact is a collective receive's error: a truncated message is a coll.Mismatch and
// a short one coll.ErrShort, which a schedule that checks its receives (the
// reductions, the gathers, scatters and all-to-alls) takes for ranks that passed
// different counts (erroneous), naming the sender.
func (k *Conn) exact(st p2p.Status, err error, want int) error {
	switch {
	case err != nil:
		if errors.Is(err, p2p.ErrTruncate) {
			return coll.Mismatch(fmt.Errorf("%w, from %s (MPI requires the type signatures of the two sides to match)", err, k.who(st.Source)))
		}
		return err
	case st.Count < int64(want):
		return fmt.Errorf("%w: %s sent %d bytes where this rank expected %d (MPI requires the type signatures of the two sides to match)",
			coll.ErrShort, k.who(st.Source), st.Count, want)
	}
	return nil
}

// incomplete reports whether a receive's status and error make it an error for a
// collective (failed, truncated or short).
func incomplete(st p2p.Status, err error, want int) bool {
	return err != nil || st.Count < int64(want)
}

// who names world rank w by its rank in k: "rank i" in the local group, "remote rank
// j" in an intercommunicator's remote group.
func (k *Conn) who(w int) string {
	if k.direct {
		return fmt.Sprintf("rank %d", w)
	}
	if i := k.a.Rank(int32(w)); i >= 0 {
		return fmt.Sprintf("rank %d", i)
	}
	if k.b != nil {
		if j := k.b.Rank(int32(w)); j >= 0 {
			if k.size == k.na {
				return fmt.Sprintf("remote rank %d", j)
			}
			return fmt.Sprintf("rank %d", k.na+j)
		}
	}
	return fmt.Sprintf("world rank %d", w)
}

// EagerMax is the largest message a blocking send of which returns before its
// receiver comes: SmallSend, unless a rendezvous protocol is forced for every size.
func (k *Conn) EagerMax() int { return int(eagerMax.Load()) }

// eagerMax is EagerMax's answer, set at Init from the engine's protocols and again
// when a tool changes them (Retune).
var eagerMax atomic.Int64

// collReq and engReq carry an engine request through coll's opaque Req.
func collReq(q p2p.Request) coll.Req {
	p, gen := q.Handle()
	return coll.Req{Ref: p, N: uint64(gen)}
}

// A marked Req (markBit) is no engine request: the null one, so that whoever holds
// it as one (the nonblocking loop's Waitany, a neighbourhood exchange) sees it done.
func engReq(q coll.Req) p2p.Request {
	if q.N&markBit != 0 {
		return p2p.Request{}
	}
	return p2p.RequestOf(q.Ref, uint32(q.N))
}

// All is the conn over every member of k (both groups), for creation's agreements.
func (k Conn) All() *Conn {
	k.size = k.n
	return &k
}

// Cancel cancels q, a request of k's Isend or Irecv, and waits for it to end; q
// becomes null. A send whose message has left is not taken back (Engine.Withdraw):
// it completes when its receiver takes it.
func (k *Conn) Cancel(q *coll.Req) {
	r := engReq(*q)
	eng.Withdraw(&r)
	eng.Wait(&r)
	*q = coll.Req{}
}

// EngineReq is the engine's request that q, a request of a schedule over a Conn,
// carries (the null one for a marked q: see GiveBack), for a wait on the requests of
// many schedules at once (the engine's Waitany).
func EngineReq(q coll.Req) p2p.Request { return engReq(q) }

// GiveBack stores e, the engine's request borrowed from *q (EngineReq), back into *q
// after a wait on it: done says that the wait completed e, with status st and error
// err. A completed receive comes back null, or marked when it failed or its message
// was truncated or short, so that the schedule's Test reports it as the receive's own
// Wait would have (exact); one still pending keeps its length.
func GiveBack(q *coll.Req, e p2p.Request, done bool, st p2p.Status, err error) {
	n := collReq(e)
	switch {
	case done:
		if incomplete(st, err, int(q.N>>32)) {
			n = markReq(st, err, q.N)
		}
	case !e.IsNull():
		n.N |= q.N &^ (1<<32 - 1) // the receive's length (Irecv)
	case q.N&markBit != 0:
		n = *q // marked by an earlier turn, not yet tested
	}
	*q = n
}

// Run builds a schedule over every member of k with tag and element size esize, runs
// it and releases it: the collectives of communicator management.
func (k Conn) Run(tag, esize int, build func(s *coll.Sched)) error {
	s := coll.New(k.All(), tag, esize)
	build(s)
	err := s.Run()
	s.Free()
	return err
}

// Sendrecv exchanges out and in with member peer, on k's context.
func (k *Conn) Sendrecv(out, in []byte, peer, tag int) error {
	q, err := eng.Irecv(p2p.Bytes(in), k.world(peer), tag, k.ctx)
	if err != nil {
		return err
	}
	if err := eng.Send(p2p.Bytes(out), k.world(peer), tag, k.ctx, p2p.Standard); err != nil {
		eng.Cancel(&q)
		eng.Wait(&q)
		return err
	}
	_, err = eng.Wait(&q)
	return err
}

// InternalAllreduce combines every local member's buf with fn (a commutative
// reduction over esz-byte elements, inout = in ⊕ inout) and leaves the result in
// every member's buf, on c's internal context with tag (a tag of tags.go): the
// agreements of the facade's topology constructors.
func (c *Comm) InternalAllreduce(op string, buf []byte, esz int, fn func(inout, in []byte), tag int) error {
	if err := c.Check(op); err != nil {
		return err
	}
	return MapErr(op, c.lconn.Run(tag, esz, func(s *coll.Sched) { s.Allreduce(buf, buf, coll.Op{Fn: fn, Commute: true}) }))
}
