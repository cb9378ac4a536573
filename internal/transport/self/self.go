// Package self is the transport a rank uses to send to itself: packets go through a
// queue in the rank's own memory, and large messages are read in place (a single
// memory copy), since "the peer's memory" is this process's.
//
// Concurrency: like every transport, it relies on the point-to-point engine to
// serialise Send and Poll (the engine calls transports under its lock).
package self

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/mpigo/mpigo/internal/transport"
)

// MaxPayload is the largest packet payload; larger messages go by Get.
const MaxPayload = 64 << 10

// Transport reaches exactly one rank: its own.
type Transport struct {
	rank int
	q    []packet
	head int
	free [][]byte
	hdr  transport.Header // handed to the Handler: a field, so no allocation per packet
	ep   endpoint
}

type packet struct {
	h transport.Header
	p []byte
}

type endpoint struct{ t *Transport }

// New makes the self transport of rank. It rings no doorbell: the sender is this
// rank, and the engine wakes its own sleepers when it sends to itself.
func New(rank int) *Transport {
	t := &Transport{rank: rank}
	t.ep.t = t
	return t
}

// Name implements transport.Transport.
func (t *Transport) Name() string { return "self" }

// Reaches implements transport.Transport.
func (t *Transport) Reaches(peer int) bool { return peer == t.rank }

// Endpoint implements transport.Transport.
func (t *Transport) Endpoint(peer int) (transport.Endpoint, error) {
	if peer != t.rank {
		return nil, fmt.Errorf("Endpoint: rank %d is not this rank (%d)", peer, t.rank)
	}
	return &t.ep, nil
}

// Poll implements transport.Transport.
func (t *Transport) Poll(h transport.Handler) int {
	n := 0
	for t.head < len(t.q) {
		pk := t.q[t.head]
		t.q[t.head] = packet{}
		t.head++
		t.hdr = pk.h
		h.Packet(&t.hdr, pk.p)
		if pk.p != nil {
			t.free = append(t.free, pk.p[:0])
		}
		n++
	}
	t.q, t.head = t.q[:0], 0
	return n
}

// Close implements transport.Transport.
func (t *Transport) Close() error {
	t.q, t.free = nil, nil
	return nil
}

// ReadFrom implements transport.SingleCopy: addr is an address in this process.
func (t *Transport) ReadFrom(peer int, dst []byte, addr uint64) error {
	if peer != t.rank {
		return fmt.Errorf("ReadFrom: rank %d is not this rank (%d)", peer, t.rank)
	}
	if len(dst) == 0 {
		return nil
	}
	// The sender keeps the buffer alive (the engine pins it in its request) until the
	// reader says it is done.
	src := unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&addr))), len(dst))
	copy(dst, src)
	return nil
}

// WriteTo implements transport.SingleCopy: addr is an address in this process.
func (t *Transport) WriteTo(peer int, src []byte, addr uint64) error {
	if peer != t.rank {
		return fmt.Errorf("WriteTo: rank %d is not this rank (%d)", peer, t.rank)
	}
	if len(src) == 0 {
		return nil
	}
	// The receiver keeps its buffer alive (in its request) until the writer says it
	// is done.
	copy(unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&addr))), len(src)), src)
	return nil
}

// Send implements transport.Endpoint. It never blocks: the queue grows.
func (e *endpoint) Send(h *transport.Header, payload []byte) error {
	t := e.t
	var b []byte
	if len(payload) > 0 {
		if len(payload) > MaxPayload {
			return fmt.Errorf("Send: %d-byte payload exceeds MaxPayload %d", len(payload), MaxPayload)
		}
		if n := len(t.free); n > 0 && cap(t.free[n-1]) >= len(payload) {
			b = t.free[n-1][:len(payload)]
			t.free = t.free[:n-1]
		} else {
			b = make([]byte, len(payload), max(len(payload), 256))
		}
		copy(b, payload)
	}
	t.q = append(t.q, packet{*h, b})
	return nil
}

// MaxPayload implements transport.Endpoint.
func (e *endpoint) MaxPayload() int { return MaxPayload }

// Models implements transport.Endpoint: a copy into the queue and one out for eager;
// one copy for get, after a request and its answer through the queue.
func (e *endpoint) Models() []transport.Model {
	return []transport.Model{
		{Protocol: transport.Eager, MinSize: 0, MaxSize: MaxPayload, Fixed: 60 * time.Nanosecond, Bandwidth: 5e9},
		{Protocol: transport.Get, MinSize: 0, Fixed: 150 * time.Nanosecond, Bandwidth: 10e9},
	}
}
