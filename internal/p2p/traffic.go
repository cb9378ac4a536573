package p2p

import (
	"sync/atomic"

	"github.com/mpigo/mpigo/internal/idle"
)

// traffic is what this rank sent to one peer on one parity of contexts.
type traffic struct{ bytes, msgs uint64 }

// count notes a message of n bytes to world rank dest on context ctx, as its send
// starts (one per message, whatever its protocol). The caller holds e.mu.
func (e *Engine) count(dest int, ctx uint32, n int64) {
	t := &e.sent[2*dest+int(ctx&1)]
	idle.Publish(&t.bytes, t.bytes+uint64(n))
	idle.Publish(&t.msgs, t.msgs+1)
}

// Traffic adds to bytes[d] and msgs[d] what this rank has sent to world rank d (every
// message the engine started, to itself too), and to oddBytes and oddMsgs the part
// of it on odd contexts. Each slice holds Size() entries or is nil. Any goroutine
// may call it at any time; a message being counted meanwhile may be missed.
func (e *Engine) Traffic(bytes, msgs, oddBytes, oddMsgs []uint64) {
	for d := 0; d < e.size; d++ {
		for odd := 0; odd < 2; odd++ {
			t := &e.sent[2*d+odd]
			b, m := atomic.LoadUint64(&t.bytes), atomic.LoadUint64(&t.msgs)
			if bytes != nil {
				bytes[d] += b
				msgs[d] += m
			}
			if odd == 1 && oddBytes != nil {
				oddBytes[d] += b
				oddMsgs[d] += m
			}
		}
	}
}
