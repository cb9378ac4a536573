package p2p

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/mpigo/mpigo/internal/transport"
	"github.com/mpigo/mpigo/internal/transport/self"
)

// memNet is a deterministic in-memory network for tests: n ranks in one process, one
// FIFO of copied packets per ordered pair. Packets between a pair never reorder;
// Poll visits senders in a rotating order, so streams from different peers interleave.
type memNet struct {
	n          int
	mtu        int  // MaxPayload
	capacity   int  // packets a link holds before Send would block (0: unbounded)
	blockEvery int  // every k-th Send on a link returns ErrWouldBlock (0: never)
	noGet      bool // ReadFrom fails (not gone): exercises the pipeline fallback
	noPut      bool // WriteTo fails (not gone): exercises the split get's fallback
	noSC       bool // the transport does not implement SingleCopy
	models     []transport.Model
	links      []*memLink // links[src*n+dst]
	bells      []transport.Doorbell
	dead       []atomic.Bool
	kinds      [16]atomic.Int64 // packets sent, by kind
}

type memLink struct {
	n     atomic.Int32 // packets queued: Poll skips empty links without the lock
	mu    sync.Mutex
	q     []memPkt
	head  int
	free  [][]byte
	sends int
}

type memPkt struct {
	h transport.Header
	p []byte
}

func newMemNet(n int) *memNet {
	m := &memNet{n: n, mtu: 4096, dead: make([]atomic.Bool, n)}
	m.links = make([]*memLink, n*n)
	for i := range m.links {
		m.links[i] = new(memLink)
	}
	for range n {
		m.bells = append(m.bells, transport.NewLocalDoorbell())
	}
	m.models = []transport.Model{
		{Protocol: transport.Eager, MinSize: 0, MaxSize: 0, Fixed: 200 * time.Nanosecond, Bandwidth: 5e9},
		{Protocol: transport.Pipeline, MinSize: 0, Fixed: 800 * time.Nanosecond, Bandwidth: 8e9},
		{Protocol: transport.Get, MinSize: 0, Fixed: 1200 * time.Nanosecond, Bandwidth: 12e9},
	}
	return m
}

// memTr is rank's view of the net.
type memTr struct {
	arms atomic.Int64 // Arm calls: the engine arms before it sleeps
	net  *memNet
	rank int
	eps  []*memEP
	rr   int
	hdr  transport.Header
}

type memTrSC struct{ *memTr }

type memEP struct {
	t    *memTr
	peer int
	link *memLink
}

func (m *memNet) transport(rank int) transport.Transport {
	t := &memTr{net: m, rank: rank, eps: make([]*memEP, m.n)}
	for p := range m.n {
		t.eps[p] = &memEP{t: t, peer: p, link: m.links[rank*m.n+p]}
	}
	if m.noSC {
		return t
	}
	return memTrSC{t}
}

func (t *memTr) Name() string { return "mem" }

func (t *memTr) Reaches(peer int) bool { return peer != t.rank && peer >= 0 && peer < t.net.n }

func (t *memTr) Endpoint(peer int) (transport.Endpoint, error) {
	if !t.Reaches(peer) {
		return nil, fmt.Errorf("mem: rank %d unreachable", peer)
	}
	return t.eps[peer], nil
}

func (t *memTr) Poll(h transport.Handler) int {
	net, cnt := t.net, 0
	for k := range net.n {
		src := (t.rr + k) % net.n
		l := net.links[src*net.n+t.rank]
		for l.n.Load() != 0 {
			l.mu.Lock()
			if l.head == len(l.q) {
				l.q, l.head = l.q[:0], 0
				l.mu.Unlock()
				break
			}
			pk := l.q[l.head]
			l.q[l.head] = memPkt{}
			l.head++
			l.n.Add(-1)
			l.mu.Unlock()
			t.hdr = pk.h
			h.Packet(&t.hdr, pk.p)
			if pk.p != nil {
				l.mu.Lock()
				l.free = append(l.free, pk.p[:0])
				l.mu.Unlock()
			}
			cnt++
		}
	}
	t.rr++
	return cnt
}

func (t *memTr) Close() error { return nil }

// Arm implements Armer.
func (t *memTr) Arm() { t.arms.Add(1) }

// CheckPeer implements PeerChecker.
func (t *memTr) CheckPeer(peer int) error {
	if t.net.dead[peer].Load() {
		return fmt.Errorf("mem: rank %d: %w", peer, transport.ErrPeerGone)
	}
	return nil
}

func (t memTrSC) ReadFrom(peer int, dst []byte, addr uint64) error {
	if t.net.dead[peer].Load() {
		return fmt.Errorf("mem: ReadFrom rank %d: %w", peer, transport.ErrPeerGone)
	}
	if t.net.noGet {
		return errors.New("mem: ReadFrom: not permitted")
	}
	if len(dst) > 0 {
		copy(dst, unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&addr))), len(dst)))
	}
	return nil
}

func (t memTrSC) WriteTo(peer int, src []byte, addr uint64) error {
	if t.net.dead[peer].Load() {
		return fmt.Errorf("mem: WriteTo rank %d: %w", peer, transport.ErrPeerGone)
	}
	if t.net.noGet || t.net.noPut {
		return errors.New("mem: WriteTo: not permitted")
	}
	if len(src) > 0 {
		copy(unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&addr))), len(src)), src)
	}
	return nil
}

func (ep *memEP) Send(h *transport.Header, payload []byte) error {
	net := ep.t.net
	if net.dead[ep.peer].Load() {
		return fmt.Errorf("mem: rank %d: %w", ep.peer, transport.ErrPeerGone)
	}
	if len(payload) > net.mtu {
		return fmt.Errorf("mem: %d-byte payload over MaxPayload %d", len(payload), net.mtu)
	}
	l := ep.link
	l.mu.Lock()
	l.sends++
	if (net.blockEvery > 0 && l.sends%net.blockEvery == 0) || (net.capacity > 0 && len(l.q)-l.head >= net.capacity) {
		l.mu.Unlock()
		return transport.ErrWouldBlock
	}
	net.kinds[h.Kind&15].Add(1)
	var b []byte
	if len(payload) > 0 {
		if n := len(l.free); n > 0 && cap(l.free[n-1]) >= len(payload) {
			b = l.free[n-1][:len(payload)]
			l.free = l.free[:n-1]
		} else {
			b = make([]byte, len(payload), max(len(payload), 256))
		}
		copy(b, payload)
	}
	l.q = append(l.q, memPkt{*h, b})
	l.n.Add(1)
	l.mu.Unlock()
	net.bells[ep.peer].Ring()
	return nil
}

func (ep *memEP) MaxPayload() int { return ep.t.net.mtu }

func (ep *memEP) Models() []transport.Model { return ep.t.net.models }

// engines makes one engine per rank of m, each with the self transport and m.
func (m *memNet) engines(t testing.TB, opts Options) []*Engine {
	t.Helper()
	es := make([]*Engine, m.n)
	for i := range m.n {
		o := opts
		o.Doorbell = m.bells[i]
		if o.Spin == 0 { // tests: short spins, so many engines share two cores well
			o.Spin = 64
		}
		if o.Yield == 0 {
			o.Yield = 16
		}
		e, err := New(i, m.n, []transport.Transport{self.New(i), m.transport(i)}, o)
		if err != nil {
			t.Fatal(err)
		}
		es[i] = e
	}
	t.Cleanup(func() {
		for _, e := range es {
			e.Close()
		}
	})
	return es
}

// driveAll drives es until every request of the lists is complete (or null).
func driveAll(t testing.TB, es []*Engine, lists ...[]Request) {
	t.Helper()
	drive(t, es, func() bool {
		for _, l := range lists {
			for i := range l {
				if !l[i].IsNull() && l[i].r.done.Load() == 0 {
					return false
				}
			}
		}
		return true
	})
}

// drive steps engines in turn, from one goroutine, until done reports true: the
// deterministic way to run a scenario.
func drive(t testing.TB, es []*Engine, done func() bool) {
	t.Helper()
	for i := 0; ; i++ {
		if done() {
			return
		}
		for _, e := range es {
			e.Progress()
		}
		if i > 1_000_000 {
			t.Fatalf("no completion after %d rounds", i)
		}
	}
}
