package p2p

import (
	"os"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mpigo/mpigo/internal/idle"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/transport"
)

// What the engine shows the tool information interface (MPI_T, internal/mpir): counts
// of its own that it keeps in memory the tools read where it is, and events it logs.
// The rule is that none of it costs anything while no tool looks:
//
//   - counts kept anyway (what was sent to each world rank, Sent) are read as they
//     are, and what a tool derives from them (bytes and messages per transport) is
//     derived when it reads;
//   - counts kept for the tools alone lie on paths that are slow already: a message
//     queued unexpected (QueueStats), a rendezvous (TransportStats);
//   - what would cost on a fast path is done only while a tool watches: the time of
//     the engine's waits (WatchWaits), the longest the unexpected queue grew
//     (TrackUnexpectedMax), the events (EventLog.Want). Each is one atomic load where
//     the engine would do it.
//
// Counts are written under the engine's lock (or by its one caller, serialised) with
// idle.Publish and read with atomic loads from any goroutine.

// QueueStats are the counts of messages that arrived before a receive matched them:
// an engine's in all, or one context's.
type QueueStats struct {
	Unexpected      uint64 // messages queued unexpected
	UnexpectedBytes uint64 // their lengths (a rendezvous message's whole length)
	Queued          uint64 // messages in the queue now
}

// Stats returns the engine's queue counts (every context).
func (e *Engine) Stats() *QueueStats { return &e.qst }

// ContextStats returns the queue counts of context ctx, making its queues if need be.
// It takes the engine's lock.
func (e *Engine) ContextStats(ctx uint32) *QueueStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return &e.ctxq(ctx).st
}

// unexpected queues m, which no posted receive of q took: counted, watched and logged.
func (e *Engine) unexpected(q *ctxq, m *umsg) {
	q.arrive(m)
	q.ow.queued++
	if q.serve && m.tag == q.serveTag {
		e.note(m.ctx, q)
	}
	n := uint64(m.len)
	q.st.add(n)
	e.qst.add(n)
	if cells := e.hwm.Load(); cells != nil {
		raise(*cells, e.qst.Queued)
	}
	if e.log != nil && e.log.wants(EventUnexpected) {
		e.log.add(Event{Kind: EventUnexpected, Ctx: m.ctx, Src: m.src, Tag: m.tag, Len: m.len})
	}
}

// take removes m from q's queues: a receive or a matched probe took it.
func (e *Engine) take(q *ctxq, m *umsg) {
	q.take(m)
	q.ow.queued--
	idle.Publish(&q.st.Queued, q.st.Queued-1)
	idle.Publish(&e.qst.Queued, e.qst.Queued-1)
}

func (s *QueueStats) add(n uint64) {
	idle.Publish(&s.Unexpected, s.Unexpected+1)
	idle.Publish(&s.UnexpectedBytes, s.UnexpectedBytes+n)
	idle.Publish(&s.Queued, s.Queued+1)
}

// raise lifts each cell to at least v.
func raise(cells []*atomic.Uint64, v uint64) {
	for _, c := range cells {
		if c.Load() < v {
			c.Store(v)
		}
	}
}

// TrackUnexpectedMax has the engine keep cell at least as high as the number of
// messages in its unexpected queues, from now until untrack is called: a watermark a
// tool started. Any goroutine.
func (e *Engine) TrackUnexpectedMax(cell *atomic.Uint64) (untrack func()) {
	e.hwmMu.Lock()
	defer e.hwmMu.Unlock()
	old := e.hwm.Load()
	var cells []*atomic.Uint64
	if old != nil {
		cells = append(cells, *old...)
	}
	cells = append(cells, cell)
	e.hwm.Store(&cells)
	return func() {
		e.hwmMu.Lock()
		defer e.hwmMu.Unlock()
		var rest []*atomic.Uint64
		for _, c := range *e.hwm.Load() {
			if c != cell {
				rest = append(rest, c)
			}
		}
		if len(rest) == 0 {
			e.hwm.Store(nil)
			return
		}
		e.hwm.Store(&rest)
	}
}

// WatchWaits starts (delta 1) or stops (delta -1) one tool's watch of the time the
// engine's waits take: while any watches, each blocking wait is timed into WaitTime.
func (e *Engine) WatchWaits(delta int) { e.waitWatch.Add(int32(delta)) }

// WaitTime is the time the engine's blocking waits took while watched.
func (e *Engine) WaitTime() time.Duration { return time.Duration(e.waitNanos.Load()) }

// waited ends a wait begun at t0 (waitClock's reading, 0 while nobody watched) with
// err: its time goes into the waits' time. Small enough to inline at block's returns.
func (e *Engine) waited(t0 int64, err error) error {
	if t0 != 0 {
		e.addWait(t0)
	}
	return err
}

// addWait adds the time since t0 to the waits' time. It stays out of line so that
// waited, which every return of block inlines, stays small.
//
//go:noinline
func (e *Engine) addWait(t0 int64) { e.waitNanos.Add(uint64(waitClock() - t0)) }

// waitClock is a monotonic clock in nanoseconds, never 0.
func waitClock() int64 { return int64(time.Since(clockEpoch)) + 1 }

var clockEpoch = time.Now()

// TransportStats is what this rank sent over one transport: every message the engine
// started to a peer that the transport reaches, and of them the ones that took a
// rendezvous protocol (the others went eagerly, their data in the first packet), and
// how each rendezvous ended, by the receiver streaming it (pipeline) or reading the
// sender's memory (get).
type TransportStats struct {
	Messages, Bytes   uint64
	Eager, Rendezvous uint64
	Pipeline, Get     uint64
}

// rdvStats are the rendezvous counts of one transport.
type rdvStats struct{ Rendezvous, Pipeline, Get uint64 }

// TransportStats sums the counts of the transport named name ("self", "shm", "tcp"):
// all zero for one the engine does not use. Any goroutine; it takes no lock.
func (e *Engine) TransportStats(name string) TransportStats {
	var s TransportStats
	tv := e.tv.Load()
	for ti, t := range tv.trs {
		if t.Name() != name {
			continue
		}
		for d := range e.routes {
			if atomic.LoadUint32(&e.routes[d]) == uint32(ti+1) {
				s.add((*[2]prof.Link)(e.sent[2*d:]))
			}
		}
		far := e.far.Load()
		for d := range far.routes {
			if atomic.LoadUint32(&far.routes[d]) == uint32(ti+1) {
				s.add(far.sent[d])
			}
		}
		r := tv.rdv[ti]
		s.Rendezvous += atomic.LoadUint64(&r.Rendezvous)
		s.Pipeline += atomic.LoadUint64(&r.Pipeline)
		s.Get += atomic.LoadUint64(&r.Get)
	}
	s.Eager = s.Messages - min(s.Rendezvous, s.Messages)
	return s
}

// add adds one peer's counts to s.
func (s *TransportStats) add(sent *[2]prof.Link) {
	for i := range sent {
		s.Messages += atomic.LoadUint64(&sent[i].Ops)
		s.Bytes += atomic.LoadUint64(&sent[i].Bytes)
	}
}

// toolView is the engine's transports and their rendezvous counts as TransportStats
// reads them, without the lock: replaced whole when a transport is added.
type toolView struct {
	trs []transport.Transport
	rdv []*rdvStats
}

// publishTools publishes the transports for TransportStats. The caller holds e.mu (or
// is New).
func (e *Engine) publishTools() {
	e.tv.Store(&toolView{trs: slices.Clone(e.trs), rdv: slices.Clone(e.rdv)})
}

// route records that p is reached through its transport, for TransportStats.
func (e *Engine) route(p *peer) {
	for i, t := range e.trs {
		if t == p.tr {
			p.ti = i
			if p.rank < len(e.routes) {
				atomic.StoreUint32(&e.routes[p.rank], uint32(i+1))
			} else {
				atomic.StoreUint32(&e.far.Load().routes[p.rank-len(e.routes)], uint32(i+1))
			}
		}
	}
}

// countRendezvous counts a send to p that took a rendezvous protocol (at its start),
// or how one ended (proto: Pipeline when its receiver asked to stream, Get when it read).
func (e *Engine) countRendezvous(p *peer, proto transport.Protocol, start bool) {
	if p.tr == nil {
		return
	}
	r := e.rdv[p.ti]
	switch {
	case start:
		idle.Publish(&r.Rendezvous, r.Rendezvous+1)
	case proto == transport.Get:
		idle.Publish(&r.Get, r.Get+1)
	default:
		idle.Publish(&r.Pipeline, r.Pipeline+1)
	}
}

// Retune reads the engine's Live settings again (p2p_protocol, eager_limit,
// p2p_peer_polls, p2p_adapt, p2p_split, proto_info) and rebuilds the protocol table of
// every connected peer from them: a program wrote one (the tool interface). Messages
// already started keep their protocol.
func (e *Engine) Retune() error {
	force := setProtocol.Get()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.forced == "" {
		e.force = force
	}
	if e.capped == 0 {
		e.eagerCap = setEagerLimit.Get()
	}
	e.peerPolls = max(int(setPeerPolls.Get()), 0)
	e.out.polls = int64(min(e.peerPolls, e.idle.Spin()))
	e.adaptive = e.force == "auto" && setAdapt.Get()
	e.split = setSplit.Get()
	if e.infoOpt == nil {
		e.info = nil
		if setProtoInfo.Get() {
			e.info = os.Stderr
		}
	}
	for _, p := range e.peers {
		if p == nil || p.ep == nil || p.err != nil {
			continue
		}
		e.selectTables(p)
		e.outsideRing(p)
	}
	return nil
}

// The kinds of the engine's events.
const (
	EventUnexpected = iota // a message queued unexpected: Ctx, Src (world rank), Tag, Len
	EventPeerFailed        // a peer failed: Src (world rank)
	numEvents
)

// Event is one thing that happened in the engine, as it logs it.
type Event struct {
	Kind uint8
	Time int64 // nanoseconds since the log began (EventLog.Now)
	Ctx  uint32
	Src  int32
	Tag  int32
	Len  int64
}

// EventLog is a bounded queue of the engine's events, from the engine (which adds to
// it while a kind is wanted) to one reader (Drain), with a channel that says when
// there is something to read. An event that finds the log full is dropped and counted.
// The engine adds under its lock (or serialised), so there is one writer at a time;
// head and tail are atomic, so the reader takes no lock.
type EventLog struct {
	want    atomic.Uint32 // a bit per kind
	epoch   time.Time
	ring    []Event
	head    atomic.Uint64 // next to read
	tail    atomic.Uint64 // next to write
	dropped [numEvents]atomic.Uint64
	ready   chan struct{}
}

// NewEventLog makes a log of n events.
func NewEventLog(n int) *EventLog {
	return &EventLog{epoch: time.Now(), ring: make([]Event, n), ready: make(chan struct{}, 1)}
}

// Want turns the logging of kind on or off.
func (l *EventLog) Want(kind int, on bool) {
	for {
		old := l.want.Load()
		w := old &^ (1 << kind)
		if on {
			w |= 1 << kind
		}
		if l.want.CompareAndSwap(old, w) {
			return
		}
	}
}

func (l *EventLog) wants(kind int) bool { return l.want.Load()&(1<<kind) != 0 }

// Now is the log's clock: nanoseconds since it was made (monotonic).
func (l *EventLog) Now() int64 { return int64(time.Since(l.epoch)) }

// Ready is signalled when events were added since the reader last drained.
func (l *EventLog) Ready() <-chan struct{} { return l.ready }

func (l *EventLog) add(ev Event) {
	t := l.tail.Load()
	if t-l.head.Load() >= uint64(len(l.ring)) {
		l.dropped[ev.Kind].Add(1)
		return
	}
	ev.Time = l.Now()
	l.ring[t%uint64(len(l.ring))] = ev
	l.tail.Store(t + 1)
	select {
	case l.ready <- struct{}{}:
	default:
	}
}

// Drain passes each event logged since the last Drain to fn, in order, and returns
// the number of events of each kind dropped since then. One goroutine drains.
func (l *EventLog) Drain(fn func(Event)) (dropped [numEvents]uint64) {
	for h := l.head.Load(); h < l.tail.Load(); h++ {
		fn(l.ring[h%uint64(len(l.ring))])
		l.head.Store(h + 1)
	}
	for k := range l.dropped {
		dropped[k] = l.dropped[k].Swap(0)
	}
	return dropped
}

// logFailure logs p's failure.
func (e *Engine) logFailure(p *peer) {
	if e.log != nil && e.log.wants(EventPeerFailed) {
		e.log.add(Event{Kind: EventPeerFailed, Src: int32(p.rank)})
	}
}
