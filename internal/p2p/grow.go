package p2p

import (
	"fmt"
	"math"

	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/transport"
)

// Peers beyond the job. The device addresses processes of other jobs (spawned, or
// joined through a port) by indices that follow the job's ranks; it tells the engine
// with AddPeers, and hands it the transport that reaches them with AddTransport. Both
// take the engine's lock, so they may be called while other goroutines communicate;
// the per-message paths check a peer's index against one atomic word, as they checked
// it against the job's size before.

// AddTransport appends t to the engine's transports: a peer not yet connected is
// reached by the first transport that Reaches it, so t serves the peers that no earlier
// transport reaches. Peers already connected keep their transport.
func (e *Engine) AddTransport(t transport.Transport) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.trs = append(e.trs, t)
	if a, ok := t.(Armer); ok {
		e.armers = append(e.armers, a)
	}
	e.rdv = append(e.rdv, &rdvStats{})
	e.publishTools()
}

// AddPeers makes the engine address peers [0, n) from now on: sends to them and
// receives from them. (A packet that a transport hands over from a peer past Peers()
// grows the engine to it by itself, so the peers may be added to their transport
// first.) n below Peers() changes nothing; n below Size() is an error. What is sent to
// the new peers is counted for TransportStats, but not in Sent, which stays the job's.
func (e *Engine) AddPeers(n int) error {
	if n < e.size || n > math.MaxInt32 {
		return fmt.Errorf("AddPeers(%d): n must lie in [Size() = %d, %d]", n, e.size, math.MaxInt32)
	}
	e.mu.Lock()
	e.grow(n)
	e.mu.Unlock()
	return nil
}

// grow is AddPeers, for n in range. The caller holds e.mu.
func (e *Engine) grow(n int) {
	have := e.Peers()
	if n <= have {
		return
	}
	peers := make([]*peer, n)
	copy(peers, e.peers)
	old := e.far.Load()
	far := &farTraffic{routes: make([]uint32, n-e.size), sent: make([]*[2]prof.Link, n-e.size)}
	copy(far.routes, old.routes)
	copy(far.sent, old.sent)
	links := make([][2]prof.Link, n-have)
	for i := range links {
		far.sent[have-e.size+i] = &links[i]
	}
	e.peers = peers
	e.far.Store(far)
	// Last: a goroutine that finds a new peer in range outside the lock then takes
	// the lock, and so sees the tables that cover it.
	e.reach.Store(int64(n))
}
