package p2p

import (
	"github.com/mpigo/mpigo/internal/idle"
	"github.com/mpigo/mpigo/internal/prof"
)

// count notes a message of n bytes to peer p on context ctx, as its send starts (one
// per message, whatever its protocol). The caller holds e.mu.
func (e *Engine) count(p *peer, ctx uint32, n int64) {
	t := &p.sent[ctx&1]
	idle.Publish(&t.Bytes, t.Bytes+uint64(n))
	idle.Publish(&t.Ops, t.Ops+1)
}

// sentTo is where what is sent to rank is counted: its pair in Sent for a rank of the
// job, its own pair (in far) for a peer beyond it.
func (e *Engine) sentTo(rank int) *[2]prof.Link {
	if rank < e.size {
		return (*[2]prof.Link)(e.sent[2*rank:])
	}
	return e.far.Load().sent[rank-e.size]
}

// farTraffic is what the engine counts for peers beyond the job (AddPeers): their
// routes (as Engine.routes) and what was sent to them (as Engine.sent), peer Size()+d
// at routes[d] and sent[d]. It is replaced whole, under e.mu, when peers are added
// (the counts stay where they are), so that TransportStats reads it without the lock.
type farTraffic struct {
	routes []uint32
	sent   []*[2]prof.Link
}

// Sent is what this rank has sent to each world rank d (every message the engine
// started, to itself too): bytes and messages on even contexts at 2*d, on odd ones at
// 2*d+1. Its length is twice the job's size, for good: messages to peers beyond the
// job (AddPeers) are not in it (TransportStats counts them). The engine writes them (under its lock, with idle.Publish) for as long as it
// runs; any goroutine may load them atomically at any time, and the record of calls
// does (internal/prof: core hands them down to it), a message being counted meanwhile
// may be missed.
func (e *Engine) Sent() []prof.Link { return e.sent }
