package p2p

import (
	"context"
	"fmt"

	"github.com/mpigo/mpigo/internal/idle"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/transport"
)

func (e *Engine) checkRecv(op string, src, tag int) error {
	if n := e.Peers(); src != ProcNull && src != AnySource && (src < 0 || src >= n) {
		return fmt.Errorf("%s: source %d out of range [0,%d) (nor AnySource or ProcNull)", op, src, n)
	}
	if tag != AnyTag && (tag < 0 || tag > MaxTag) {
		return fmt.Errorf("%s: tag %d out of range [0,%d] (nor AnyTag)", op, tag, MaxTag)
	}
	return nil
}

var procNullStatus = Status{Source: ProcNull, Tag: AnyTag}

// RecvInfo is Recv returning the status's fields one by one: Status does not fit the
// compiler's registers-only treatment of structs (at most four fields and 32 bytes), so
// every copy of one goes through memory, and a copy that reads a struct just written
// field by field stalls on store forwarding (docs/BENCHMARKS.md, point-to-point
// engine). The blocking receive of the mpi package, the path of every small message,
// uses this form. cancelled is never true for a blocking receive.
func (e *Engine) RecvInfo(b Buf, src, tag int, ctx uint32) (from, gotTag int, n int64, err error) {
	return e.RecvCall(b, src, tag, ctx, false)
}

// RecvCall is RecvInfo for a program's own blocking receive, made on its calling
// goroutine; stamp (prof.Stamping: the profile's timeline is on) says that its wait
// is where the last call's event goes into the ring, and that its end is read before
// some of its polls (prof.Waiting, prof.Stamp), off the path of the message it waits
// for.
func (e *Engine) RecvCall(b Buf, src, tag int, ctx uint32, stamp bool) (from, gotTag int, n int64, err error) {
	if (uint(src) >= uint(e.reach.Load()) && src != AnySource) || (uint(tag) > MaxTag && tag != AnyTag) { // checked inline first
		if err := e.checkRecv("Recv", src, tag); err != nil {
			return 0, 0, 0, err
		}
		return ProcNull, AnyTag, 0, nil
	}
	polled := false
	if (src >= 0 || src == AnySource) && !stamp && b.l == nil && e.out.quiet != 0 && e.out.deferred == 0 && e.mu.off.Load() && e.failed == nil {
		switch from, got, gt, k := e.recvNow(b, src, tag, ctx); k {
		case 1:
			return from, int(gt), int64(got), nil
		case 0:
			polled = true // pollPeer's polls are made
		}
	}
	e.mu.Lock()
	r := e.newReq()
	r.kind, r.ctx, r.peer, r.tag = recvReq, ctx, int32(src), int32(tag)
	r.private = true
	r.setBuf(b)
	e.startRecv(r)
	if !r.fin && stamp {
		prof.Waiting()
	}
	if !r.fin && src >= 0 {
		if !polled {
			e.pollPeer(r, src, stamp)
		}
	} else if !r.fin && src == AnySource && (e.out.ok != 0 || e.out.locked != 0) && e.size <= anyLookups {
		e.findPollers()
	}
	if !r.fin {
		if stamp {
			prof.Unstamp() // a wait past the peer's polls ends when block returns
		}
		e.block(nil, r, nil)
	} else {
		e.flush()
	}
	from, gotTag, n, err = r.st.Source, r.st.Tag, r.st.Count, r.st.Err
	e.freeReq(r)
	e.mu.Unlock()
	return from, gotTag, n, err
}

// recvNow is a blocking receive's short way, for a receive into plain bytes from peer
// src, in a serialised engine with nothing queued to any peer (pollPeer's condition)
// and no receive held back outside Go: where nothing is posted and nothing waits
// unexpected on context ctx, the packet at the head of src's ring is the message the
// engine would give this receive, if it is an eager message of ctx with a tag the
// receive takes, not synchronous (its ack is the engine's), no longer than b (a
// truncation is the engine's error). Then the transport copies it into b and
// consumes it (transport.HeadTaker), and the receive is done: 1, with the message's
// length and tag; the status's source is src. It waits for it as pollPeer does, as
// many polls, polling that ring alone: 0 if none came, -1 if another packet is at the
// head or the short way does not apply; either way nothing happened, and the engine
// does the receive. from is the sender, src or, for AnySource, the peer whose packet
// it took (recvAnyNow). The C library's short way for receives
// (abi/libmpi/p2pshort.c) takes the same packets the same way, from the same rings.
func (e *Engine) recvNow(b Buf, src, tag int, ctx uint32) (from, n int, gotTag int32, k int) {
	if q := e.ctxq(ctx); q.ow.posted != 0 || q.ow.queued != 0 {
		return 0, 0, 0, -1
	}
	if src == AnySource {
		return e.recvAnyNow(b, tag, ctx)
	}
	p := e.peers[src]
	if p == nil || p.take == nil || p.err != nil {
		return 0, 0, 0, -1
	}
	t, buf := p.take, b.bytes()
	n, gotTag, k = t.Take(kindEager, int32(src), ctx, int32(tag), tag == AnyTag, buf)
	if k == 0 && pollHead(t, min(e.peerPolls, e.idle.Spin())) {
		n, gotTag, k = t.Take(kindEager, int32(src), ctx, int32(tag), tag == AnyTag, buf)
	}
	if k > 0 {
		e.shortRecvs++
	}
	return src, n, gotTag, k
}

// recvAnyNow is recvNow for AnySource, in a job of at most anyLookups peers whose
// every other rank's ring is shown to it (lookPoller: a peer that has sent here on
// the node; a peer over TCP has none, and its messages would wait behind the rings'
// while they have packets): it looks at the head of each, one after the other, and takes
// the first packet the receive takes, as the engine could give the receive a message
// of any of them (MPI orders messages per sender only). Any other packet at a head
// (another context's, a rendezvous, a synchronous send, one too long) leaves the
// receive to the engine (-1), which handles that packet first, so that no sender's
// packets wait behind another's stream; and the look starts after the peer it last
// took from, so that one sender's stream does not keep the others' messages waiting
// either. Nothing there: it polls the heads as recvNow polls one (0 if none came).
func (e *Engine) recvAnyNow(b Buf, tag int, ctx uint32) (from, n int, gotTag int32, k int) {
	np := len(e.peers)
	if np > anyLookups {
		return 0, 0, 0, -1
	}
	if e.takers < np-1 {
		e.findPollers()
		if e.takers < np-1 {
			return 0, 0, 0, -1
		}
	}
	buf := b.bytes()
	for round := 0; round < 2; round++ {
		if round == 1 && !e.pollHeads(min(e.peerPolls, e.idle.Spin())) {
			return 0, 0, 0, 0
		}
		for i := range np {
			s := (e.anyNext + i) % np
			p := e.peers[s]
			if p == nil || p.take == nil || p.err != nil {
				continue
			}
			switch n, gotTag, k = p.take.Take(kindEager, int32(s), ctx, int32(tag), tag == AnyTag, buf); k {
			case 1:
				e.anyNext = (s + 1) % np
				e.shortRecvs++
				return s, n, gotTag, 1
			case -1:
				return 0, 0, 0, -1
			}
		}
	}
	return 0, 0, 0, 0
}

// pollHeads waits up to polls polls for a packet at the head of any ring shown to the
// short way: true if one came. (The wait, for bench/matrixcost.sh, as pollHead.)
//
//go:noinline
func (e *Engine) pollHeads(polls int) bool {
	for ; polls > 0; polls-- {
		for _, p := range e.peers {
			if p != nil && p.take != nil && p.take.Arrived() {
				return true
			}
		}
		idle.Pause()
	}
	return false
}

// pollHead waits up to polls polls for a packet at t's head: true if one came. (The
// wait, apart from recvNow's work, for bench/matrixcost.sh.)
//
//go:noinline
func pollHead(t transport.HeadTaker, polls int) bool {
	for ; polls > 0; polls-- {
		if t.Arrived() {
			return true
		}
		idle.Pause()
	}
	return false
}

// ShortRecvs is how many blocking receives recvNow has done.
func (e *Engine) ShortRecvs() uint64 { return e.shortRecvs }

// pollPeer is where a wait for a receive from one peer begins: it polls that peer's
// packets alone (where its transport can: shm) for up to e.peerPolls polls. A packet
// there is handled as Poll would handle it, so matching and order are the same; what
// is saved is the rest of a progress round (the other transports, the other senders'
// rings), which lies between a message's arrival and the answer a ping-pong sends
// back: a poll of one ring costs a fraction of a progress round (docs/BENCHMARKS.md,
// point-to-point engine). Packets of other peers wait those few microseconds at most;
// block then makes full progress.
// It polls only in a serialised engine (a locked one releases its lock between polls,
// in block) and only while this rank has nothing to send. The caller holds e.mu.
//
// In a locked engine whose lock code outside Go shares, it polls nothing but finds
// the peer's poller, so that the receive's short way there, which polls without the
// lock, sees the peer's ring.
func (e *Engine) pollPeer(r *request, src int, stamp bool) {
	if len(e.busy) > 0 || e.gets.head != nil {
		return
	}
	if !e.mu.off.Load() {
		if e.mu.w != nil {
			if p := e.peerState(src); p.pp != nil || e.findPoller(p) {
				e.out.polls = int64(min(e.peerPolls, e.idle.Spin()))
			}
		}
		return
	}
	p := e.peerState(src)
	if p.pp == nil && !e.findPoller(p) {
		return
	}
	n := min(e.peerPolls, e.idle.Spin())
	e.out.polls = int64(n)
	for i := n; i > 0; i-- {
		if stamp && i&stampMask == 0 {
			prof.Stamp()
		}
		if p.pp.Poll(e.h, 1) > 0 && (r.fin || r.done.Load() != 0 || len(e.busy) > 0 || e.gets.head != nil) {
			if stamp {
				prof.Polled((-i) & stampMask) // the polls since the stamp before this one
			}
			return
		}
		idle.Pause()
	}
}

// findPoller looks for p's poller (p has none yet), and shows its ring to the
// receive's short way outside Go (showInbound) once found. It reports whether p has
// one now.
func (e *Engine) findPoller(p *peer) bool {
	if p.ppTries >= maxPPTries || p.rank == e.self {
		return false
	}
	p.ppTries++
	return e.lookPoller(p)
}

// lookPoller is findPoller's lookup, which Irecv makes too while the short way outside
// Go may receive (ok): a nonblocking receive's code there keeps receives pending on a
// ring it reads only once shown, and a program whose receives are all nonblocking
// never makes pollPeer's lookups. Not counted against pollPeer's: a peer that has not
// sent yet is looked up again at the next receive from it, at the cost of a lookup.
func (e *Engine) lookPoller(p *peer) bool {
	if p.rank == e.self || p.err != nil {
		return false
	}
	for _, t := range e.trs {
		if t.Reaches(p.rank) {
			if pp, ok := t.(transport.PeerPoller); ok {
				p.pp = pp.PeerPoll(p.rank)
				p.take, _ = p.pp.(transport.HeadTaker)
				if p.take != nil {
					e.takers++
				}
			}
			break
		}
	}
	if p.pp == nil {
		return false
	}
	e.showInbound(p)
	return true
}

// findPollers is findPoller for every peer of the job that has none yet, for a
// receive from AnySource, which pollPeer does not see: the short way outside Go then
// finds the rings of the peers that have sent here.
func (e *Engine) findPollers() {
	if e.ppAll {
		return
	}
	all := true
	for d := range e.size {
		if p := e.peerState(d); d != e.self && p.pp == nil && p.err == nil && !e.findPoller(p) && p.ppTries < maxPPTries {
			all = false
		}
	}
	e.ppAll = all
}

// showPollers shows the short way outside Go the rings a probe from src waits on
// (its matched form, the C library's MPI_Mprobe, takes messages from them), with
// pollPeer's polls, where that way may receive: a program whose receives are all
// matched probes makes no receive's lookups.
func (e *Engine) showPollers(src int) {
	if e.out.ok == 0 && e.out.locked == 0 {
		return
	}
	switch {
	case src >= 0:
		if p := e.peerState(src); p.pp == nil && !e.lookPoller(p) {
			return
		}
	case src == AnySource && e.size <= anyLookups:
		e.findPollers()
	default:
		return
	}
	e.out.polls = int64(min(e.peerPolls, e.idle.Spin()))
}

// maxPPTries bounds the lookups of a peer's poller that find none (the peer has not
// sent here yet) before pollPeer leaves that peer to block.
const maxPPTries = 64

// anyLookups: a receive from AnySource looks up the pollers of every peer it has none
// of (findPollers) in jobs of at most this many ranks; in larger ones the short way
// takes AnySource receives only from peers a receive named before.
const anyLookups = 64

// Recv receives into b a message from world rank src (or AnySource) with tag (or
// AnyTag) in context ctx. A longer message fills b and returns an error wrapping
// ErrTruncate; the rest of it is discarded.
func (e *Engine) Recv(b Buf, src, tag int, ctx uint32) (Status, error) {
	from, t, n, err := e.RecvInfo(b, src, tag, ctx)
	return Status{Source: from, Tag: t, Count: n, Err: err}, err
}

// Irecv starts a receive and returns its request.
func (e *Engine) Irecv(b Buf, src, tag int, ctx uint32) (Request, error) {
	return e.irecv(b, src, tag, ctx, false)
}

// IrecvPair is Irecv for the receive of a send-receive whose send of n bytes to world
// rank dest follows at once: Sendrecv posts its receive first, so that the send finds
// it awaited (exchEager). Where dest is src and n is a large message, its send will
// be under way to the peer that sends this receive's message, so a large message
// matched now is one of an exchange (exchanging), as it would be once the send is
// offered, though the peer's offer may be here before this rank's has left. And
// nothing is read before the send has started: the progress that reads it is the
// send's, so the peer does not wait for this rank's offer while this rank reads its.
func (e *Engine) IrecvPair(b Buf, src, tag int, ctx uint32, dest int, n int64) (Request, error) {
	pair := dest == src && n >= pairMin && uint(src) < uint(e.reach.Load())
	return e.irecv(b, src, tag, ctx, pair)
}

// IrecvDeferred is Irecv for the engine's deferred function (SetDeferred), which the
// engine calls holding its lock, or with the lock off: it does not take the lock.
func (e *Engine) IrecvDeferred(b Buf, src, tag int, ctx uint32) (Request, error) {
	if err := e.checkRecv("Irecv", src, tag); err != nil {
		return Request{}, err
	}
	return e.irecvHeld(b, src, tag, ctx, false), nil
}

// irecv is Irecv, or with pair IrecvPair's receive of an exchange with src.
func (e *Engine) irecv(b Buf, src, tag int, ctx uint32, pair bool) (Request, error) {
	if err := e.checkRecv("Irecv", src, tag); err != nil {
		return Request{}, err
	}
	e.mu.Lock()
	q := e.irecvHeld(b, src, tag, ctx, pair)
	e.mu.Unlock()
	return q, nil
}

// irecvHeld is irecv's work. The caller holds e.mu.
func (e *Engine) irecvHeld(b Buf, src, tag int, ctx uint32, pair bool) Request {
	r := e.newReq()
	r.kind, r.ctx, r.peer, r.tag = recvReq, ctx, int32(src), int32(tag)
	r.setBuf(b)
	if pair {
		e.pairing = e.peerState(src)
	}
	e.startRecv(r)
	e.pairing = nil
	if src >= 0 && e.out.ok != 0 {
		if p := e.peerState(src); p.pp == nil {
			e.lookPoller(p)
		}
	}
	if !pair {
		e.flush()
	}
	return Request{r, r.gen}
}

// pairMin is the smallest send for which IrecvPair takes its receive as an exchange's.
const pairMin = 128 << 10

// RecvInit makes a persistent receive request; Start starts it.
func (e *Engine) RecvInit(b Buf, src, tag int, ctx uint32) (Request, error) {
	if err := e.checkRecv("RecvInit", src, tag); err != nil {
		return Request{}, err
	}
	e.mu.Lock()
	r := e.newReq()
	r.kind, r.ctx, r.peer, r.tag = recvReq, ctx, int32(src), int32(tag)
	r.setBuf(b)
	r.persistent = true
	q := Request{r, r.gen}
	e.mu.Unlock()
	return q, nil
}

// startRecv matches r against the messages already arrived, or posts it. The caller
// holds e.mu.
func (e *Engine) startRecv(r *request) {
	if e.out.deferred != 0 {
		e.postDeferred() // earlier receives first
	}
	r.started, r.matched = true, false
	if r.done.Load() != 0 {
		r.done.Store(0)
	}
	r.got, r.expect = 0, 0
	if r.peer == ProcNull {
		r.st = procNullStatus
		e.complete(r)
		return
	}
	r.st = Status{}
	q := e.ctxq(r.ctx)
	if q.unexp.head != nil {
		if m := q.matchUnexp(r.peer, r.tag); m != nil {
			e.take(q, m)
			e.takeUnexp(r, m)
			return
		}
	}
	if e.failed != nil {
		e.fail(r, e.failed)
		return
	}
	if r.peer >= 0 {
		if p := e.peerState(int(r.peer)); p.err != nil {
			e.fail(r, p.err)
			return
		}
	}
	q.post(r)
}

// takeUnexp delivers arrived message m to receive r and recycles m.
func (e *Engine) takeUnexp(r *request, m *umsg) {
	if m.kind == kindEager {
		e.deliverEager(r, m.src, m.tag, m.data)
		if m.flags&flagSync != 0 {
			e.queueCtrl(m.src, kindAck, m.sendID, 0, 0, 0)
		}
	} else {
		e.startRndv(r, m.src, m.tag, m.len, m.sendID, m.addr, protoOf(m.flags))
	}
	e.freeUmsg(m)
}

// Start starts an inactive persistent request.
func (e *Engine) Start(q *Request) error {
	r := q.r
	if q.Stale() {
		return usedUp("Start")
	}
	if r == nil || !r.persistent {
		return fmt.Errorf("Start: %w: not a persistent request", ErrRequest)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if r.started {
		return fmt.Errorf("Start: %w: request already active", ErrRequest)
	}
	if r.kind == sendReq {
		e.startSend(r)
	} else {
		e.startRecv(r)
	}
	return nil
}

// Startall starts every request of qs.
func (e *Engine) Startall(qs []Request) error {
	for i := range qs {
		if err := e.Start(&qs[i]); err != nil {
			return fmt.Errorf("Startall: request %d: %w", i, err)
		}
	}
	return nil
}

// Free releases a request. One still pending completes in the background (its
// buffer must not be touched until the operation is known to be done).
func (e *Engine) Free(q *Request) error {
	r := q.r
	if r == nil {
		return nil
	}
	if q.Stale() {
		return usedUp("Free")
	}
	e.mu.Lock()
	if r.started && r.done.Load() == 0 {
		r.orphan = true
	} else {
		e.freeReq(r)
	}
	e.mu.Unlock()
	*q = Request{}
	return nil
}

// Message is a message taken off the matching queues by Mprobe or Improbe, to be
// received by Mrecv or Imrecv. The zero value is no message.
type Message struct {
	m      *umsg
	gen    uint32
	noProc bool
}

// IsNull reports whether m holds no message.
func (m Message) IsNull() bool { return m.m == nil && !m.noProc }

// NoProc is the message from no process (MPI_MESSAGE_NO_PROC) that a matching probe
// from ProcNull gives: receiving it completes at once, as a receive from ProcNull.
func NoProc() Message { return Message{noProc: true} }

// IsNoProc reports whether m is NoProc's.
func (m Message) IsNoProc() bool { return m.noProc }

// Iprobe reports whether a message matching (src, tag, ctx) has arrived, without
// receiving it.
func (e *Engine) Iprobe(src, tag int, ctx uint32) (Status, bool, error) {
	st, _, ok, err := e.probe("Iprobe", nil, src, tag, ctx, false, false, nil, false)
	return st, ok, err
}

// Probe waits for a message matching (src, tag, ctx), without receiving it.
func (e *Engine) Probe(src, tag int, ctx uint32) (Status, error) {
	st, _, _, err := e.probe("Probe", nil, src, tag, ctx, true, false, nil, false)
	return st, err
}

// ProbeCtx is Probe that gives up when c is done.
func (e *Engine) ProbeCtx(c context.Context, src, tag int, ctx uint32) (Status, error) {
	var wv idle.Watch
	cw := e.watch(c, &wv)
	st, _, _, err := e.probe("Probe", cw, src, tag, ctx, true, false, nil, false)
	cw.Stop()
	return st, err
}

// Improbe is Iprobe that also takes the message off the queues: only Mrecv or Imrecv
// with the returned Message can receive it.
func (e *Engine) Improbe(src, tag int, ctx uint32) (Message, Status, bool, error) {
	st, m, ok, err := e.probe("Improbe", nil, src, tag, ctx, false, true, nil, false)
	return m, st, ok, err
}

// Mprobe is Probe that takes the message, as Improbe does.
func (e *Engine) Mprobe(src, tag int, ctx uint32) (Message, Status, error) {
	st, m, _, err := e.probe("Mprobe", nil, src, tag, ctx, true, true, nil, false)
	return m, st, err
}

// MprobeClaim is Mprobe for a consumer that shares a stream of messages with other
// goroutines and must take and handle each one under a lock of its own, so that the
// messages are handled one at a time in the order taken: when a matching message is
// there, claim is called (with the engine's lock held, so it must not call the
// engine; a TryLock), and the message is taken only if it returns true, the caller
// then holding its lock; while it returns false, MprobeClaim waits as if none had come.
// With c not nil, it gives up when c is done, returning c.Err().
func (e *Engine) MprobeClaim(c context.Context, src, tag int, ctx uint32, claim func() bool) (Message, Status, error) {
	var wv idle.Watch
	cw := e.watch(c, &wv)
	st, m, _, err := e.probe("Mprobe", cw, src, tag, ctx, true, true, claim, false)
	cw.Stop()
	return m, st, err
}

// ImprobeQueued is Improbe that only looks at the messages that have arrived, without
// driving progress: for a caller that drives it otherwise and polls queues often.
func (e *Engine) ImprobeQueued(src, tag int, ctx uint32) (Message, Status, bool, error) {
	st, m, ok, err := e.probe("Improbe", nil, src, tag, ctx, false, true, nil, true)
	return m, st, ok, err
}

func (e *Engine) probe(op string, c *idle.Watch, src, tag int, ctx uint32, wait, take bool, claim func() bool, noPoll bool) (Status, Message, bool, error) {
	if err := e.checkRecv(op, src, tag); err != nil {
		return Status{}, Message{}, false, err
	}
	if src == ProcNull {
		return procNullStatus, NoProc(), true, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	q := e.ctxq(ctx)
	var m *umsg
	var err error
	look := func() bool {
		if q.unexp.head != nil {
			m = q.matchUnexp(int32(src), int32(tag))
		}
		if m != nil {
			if claim != nil && !claim() {
				m = nil
				return false
			}
			return true
		}
		if e.failed != nil {
			err = e.failed
			return true
		}
		if src >= 0 {
			if p := e.peers[src]; p != nil && p.err != nil {
				err = p.err
				return true
			}
		}
		return false
	}
	if !look() && !noPoll {
		e.showPollers(src)
		e.progressLocked()
		if !look() && wait {
			if werr := e.block(c, nil, look); werr != nil {
				return Status{}, Message{}, false, werr
			}
		}
	}
	if m == nil {
		return Status{}, Message{}, false, err
	}
	st := m.status()
	if !take {
		return st, Message{}, true, nil
	}
	e.take(q, m)
	return st, Message{m: m, gen: m.gen}, true, nil
}

// Adopt makes a matched message, as Mprobe's, of an eager message of n bytes from
// world rank src with tag on context ctx that code outside Go took off its ring itself
// (the C library's MPI_Mprobe: abi/libmpi/p2pshort.c): fill copies its bytes into the
// slice it is given, under the engine's lock, which guards that code's record of it,
// and reports whether it had them. Mrecv and Imrecv then receive it as any matched
// message. ok is false, and the message null, where fill had none.
func (e *Engine) Adopt(ctx uint32, src, tag, n int, fill func([]byte) bool) (msg Message, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	m := e.newUmsg()
	m.kind, m.ctx, m.src, m.tag, m.len = kindEager, ctx, int32(src), int32(tag), int64(n)
	m.data = e.pool.get(n)
	if !fill(m.data[:n]) {
		e.freeUmsg(m)
		return Message{}, false
	}
	return Message{m: m, gen: m.gen}, true
}

// Mrecv receives the message m (from Mprobe or Improbe) into b.
func (e *Engine) Mrecv(b Buf, m *Message) (Status, error) {
	q, err := e.imrecv("Mrecv", b, m)
	if err != nil {
		return Status{}, err
	}
	return e.Wait(&q)
}

// Imrecv starts receiving the message m into b.
func (e *Engine) Imrecv(b Buf, m *Message) (Request, error) {
	return e.imrecv("Imrecv", b, m)
}

func (e *Engine) imrecv(op string, b Buf, msg *Message) (Request, error) {
	if msg.noProc {
		*msg = Message{}
		e.mu.Lock()
		r := e.newReq()
		r.kind, r.peer = recvReq, ProcNull
		e.startRecv(r)
		q := Request{r, r.gen}
		e.mu.Unlock()
		return q, nil
	}
	m := msg.m
	if m == nil || m.gen != msg.gen {
		return Request{}, fmt.Errorf("%s: %w: no message (null or already received)", op, ErrRequest)
	}
	*msg = Message{}
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.newReq()
	r.kind, r.ctx, r.peer, r.tag = recvReq, m.ctx, m.src, m.tag
	r.setBuf(b)
	r.started = true
	e.takeUnexp(r, m)
	e.flush()
	return Request{r, r.gen}, nil
}

// stampMask: a profiled receive's wait reads the clock before one poll in
// prof.StampEvery; the polls between are counted instead (prof.Polled). A clock read
// costs as much as a poll or more, and a message that arrives during one is found
// that much later.
const stampMask = prof.StampEvery - 1
