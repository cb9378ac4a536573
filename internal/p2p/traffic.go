package p2p

import (
	"github.com/mpigo/mpigo/internal/idle"
	"github.com/mpigo/mpigo/internal/prof"
)

// count notes a message of n bytes to world rank dest on context ctx, as its send
// starts (one per message, whatever its protocol). The caller holds e.mu.
func (e *Engine) count(dest int, ctx uint32, n int64) {
	t := &e.sent[2*dest+int(ctx&1)]
	idle.Publish(&t.Bytes, t.Bytes+uint64(n))
	idle.Publish(&t.Ops, t.Ops+1)
}

// Sent is what this rank has sent to each world rank d (every message the engine
// started, to itself too): bytes and messages on even contexts at 2*d, on odd ones at
// 2*d+1. The engine writes them (under its lock, with idle.Publish) for as long as it
// runs; any goroutine may load them atomically at any time, and the record of calls
// does (internal/prof: core hands them down to it), a message being counted meanwhile
// may be missed.
func (e *Engine) Sent() []prof.Link { return e.sent }
