package p2p

import (
	"github.com/mpigo/mpigo/internal/idle"
	"github.com/mpigo/mpigo/internal/prof"
)

// count notes a message of n bytes to world rank dest on context ctx, as its send
// starts (one per message, whatever its protocol). The caller holds e.mu.
func (e *Engine) count(dest int, ctx uint32, n int64) {
	i := 2*dest + int(ctx&1)
	if uint(i) >= uint(len(e.sent)) {
		e.countFar(i-len(e.sent), n)
		return
	}
	t := &e.sent[i]
	idle.Publish(&t.Bytes, t.Bytes+uint64(n))
	idle.Publish(&t.Ops, t.Ops+1)
}

// farTraffic is what the engine counts for peers beyond the job (AddPeers): their
// routes (as Engine.routes) and what was sent to them (as Engine.sent), peer
// Size()+d at routes[d] and sent[2*d:2*d+2]. It is replaced whole, under e.mu, when
// peers are added, so that TransportStats reads it without the lock.
type farTraffic struct {
	routes []uint32
	sent   []prof.Link
}

// countFar is count for a peer beyond the job: i indexes far.sent.
func (e *Engine) countFar(i int, n int64) {
	t := &e.far.Load().sent[i]
	idle.Publish(&t.Bytes, t.Bytes+uint64(n))
	idle.Publish(&t.Ops, t.Ops+1)
}

// Sent is what this rank has sent to each world rank d (every message the engine
// started, to itself too): bytes and messages on even contexts at 2*d, on odd ones at
// 2*d+1. Its length is twice the job's size, for good: messages to peers beyond the
// job (AddPeers) are not in it (TransportStats counts them). The engine writes them (under its lock, with idle.Publish) for as long as it
// runs; any goroutine may load them atomically at any time, and the record of calls
// does (internal/prof: core hands them down to it), a message being counted meanwhile
// may be missed.
func (e *Engine) Sent() []prof.Link { return e.sent }
