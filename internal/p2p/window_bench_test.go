package p2p

import (
	"fmt"
	"testing"

	"github.com/mpigo/mpigo/internal/transport"
)

// ringTr reaches rank 1 and hands every packet back as if rank 1 had sent it, like
// loopTr, but holds up to a window of packets, so that a stream of nonblocking sends
// runs as it does against a real peer that keeps up.
type ringTr struct {
	hdr        []transport.Header
	buf        [][]byte
	head, tail int
}

func newRingTr(n, size int) *ringTr {
	t := &ringTr{hdr: make([]transport.Header, n), buf: make([][]byte, n)}
	for i := range t.buf {
		t.buf[i] = make([]byte, size)
	}
	return t
}

func (t *ringTr) Name() string                                  { return "ring" }
func (t *ringTr) Reaches(peer int) bool                         { return peer == 1 }
func (t *ringTr) Endpoint(peer int) (transport.Endpoint, error) { return t, nil }
func (t *ringTr) Close() error                                  { return nil }
func (t *ringTr) MaxPayload() int                               { return len(t.buf[0]) }
func (t *ringTr) Models() []transport.Model {
	return []transport.Model{{Protocol: transport.Eager, Fixed: 1, Bandwidth: 1e9}}
}

func (t *ringTr) Send(h *transport.Header, p []byte) error {
	if t.tail-t.head == len(t.hdr) {
		return transport.ErrWouldBlock
	}
	i := t.tail % len(t.hdr)
	t.hdr[i] = *h
	t.hdr[i].Src = 1
	t.buf[i] = t.buf[i][:copy(t.buf[i][:cap(t.buf[i])], p)]
	t.tail++
	return nil
}

func (t *ringTr) Poll(h transport.Handler) int {
	n := 0
	for ; t.head < t.tail; t.head++ {
		i := t.head % len(t.hdr)
		h.Packet(&t.hdr[i], t.buf[i])
		n++
	}
	return n
}

// BenchmarkWindow: bench/bw's pattern through the engine with a transport that costs
// one copy: a window of 64 receives posted, 64 nonblocking sends, Waitall on each.
// ns/msg is the engine's cost for one message on both sides together.
func BenchmarkWindow(b *testing.B) {
	const window = 64
	for _, size := range []int{0, 1024} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			e, err := New(0, 2, []transport.Transport{newRingTr(window, 4096)}, Options{Serialized: true})
			if err != nil {
				b.Fatal(err)
			}
			out, in := make([]byte, size), make([]byte, size)
			sq, rq := make([]Request, window), make([]Request, window)
			b.ReportAllocs()
			for range b.N {
				for k := range rq {
					rq[k], _ = e.Irecv(Bytes(in), 1, 0, 0)
				}
				for k := range sq {
					sq[k], _ = e.Isend(Bytes(out), 1, 0, 0, Standard)
				}
				if err := e.Waitall(sq, nil); err != nil {
					b.Fatal(err)
				}
				if err := e.Waitall(rq, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*window), "ns/msg")
		})
	}
}
