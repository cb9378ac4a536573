package tcp

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/mpigo/mpigo/internal/transport"
)

// side is one rank of a benchmark: it counts whole messages received (a fragment ends
// a message when its offset plus its length reach the message length).
type side struct {
	t    *Transport
	e    transport.Endpoint
	buf  []byte
	msgs int
	hdr  transport.Header
	// stopped is set by a packet of kind stopKind (the two-process tests' end).
	stopped bool
}

func (s *side) Packet(h *transport.Header, p []byte) {
	if h.Kind == stopKind {
		s.stopped = true
		return
	}
	if h.Offset+uint64(len(p)) == h.Len {
		s.msgs++
	}
}

// sendMsg sends size bytes as MaxPayload fragments, polling while the socket is full.
func (s *side) sendMsg(size int) error {
	max := s.e.MaxPayload()
	s.hdr.Len = uint64(size)
	for off := 0; ; off += max {
		end := min(off+max, size)
		s.hdr.Offset = uint64(off)
		for {
			err := s.e.Send(&s.hdr, s.buf[off:end])
			if err == nil {
				break
			}
			if !errors.Is(err, transport.ErrWouldBlock) {
				return err
			}
			s.t.Poll(s)
		}
		if end == size {
			return nil
		}
	}
}

// waitMsgs polls until n messages have arrived, or stop is set.
func (s *side) waitMsgs(n int, stop *atomic.Bool) bool {
	for s.msgs < n {
		if s.t.Poll(s) == 0 && stop != nil && stop.Load() {
			return false
		}
	}
	s.msgs -= n
	return true
}

func pair(b *testing.B, size int) (*side, *side) {
	ts := job(b, 2, Options{})
	var ss [2]*side
	for i := range ss {
		e, err := ts[i].Endpoint(1 - i)
		if err != nil {
			b.Fatal(err)
		}
		ss[i] = &side{t: ts[i], e: e, buf: make([]byte, size), hdr: transport.Header{Src: int32(i)}}
	}
	return ss[0], ss[1]
}

var sizes = []int{8, 4 << 10, 64 << 10, 1 << 20}

func sizeName(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// BenchmarkPingPong: ns/op is one round trip (half of it is the one-way latency that
// lat.c reports); rank 1 echoes in its own goroutine, as another process would.
func BenchmarkPingPong(b *testing.B) {
	for _, size := range sizes {
		b.Run(sizeName(size), func(b *testing.B) {
			a, z := pair(b, size)
			var stop atomic.Bool
			done := make(chan error, 1)
			go func() {
				for z.waitMsgs(1, &stop) {
					if err := z.sendMsg(size); err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
			b.ReportAllocs()
			b.SetBytes(int64(2 * size))
			b.ResetTimer()
			for range b.N {
				if err := a.sendMsg(size); err != nil {
					b.Fatal(err)
				}
				a.waitMsgs(1, nil)
			}
			b.StopTimer()
			stop.Store(true)
			if err := <-done; err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2/1e3, "us/one-way")
		})
	}
}

// BenchmarkStream is bw.c's pattern: a window of 64 messages, then a 4-byte ack.
func BenchmarkStream(b *testing.B) {
	const window = 64
	for _, size := range sizes[1:] {
		b.Run(sizeName(size), func(b *testing.B) {
			a, z := pair(b, size)
			var stop atomic.Bool
			done := make(chan error, 1)
			go func() {
				for z.waitMsgs(window, &stop) {
					if err := z.sendMsg(4); err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
			b.ReportAllocs()
			b.SetBytes(int64(window * size))
			b.ResetTimer()
			for range b.N {
				for range window {
					if err := a.sendMsg(size); err != nil {
						b.Fatal(err)
					}
				}
				a.waitMsgs(1, nil)
			}
			b.StopTimer()
			stop.Store(true)
			if err := <-done; err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkSendPoll is the CPU cost of one packet with no scheduling in the way: one
// goroutine sends and then polls the receiving transport until the packet is in.
func BenchmarkSendPoll(b *testing.B) {
	for _, size := range []int{8, 4 << 10, 256 << 10} {
		b.Run(sizeName(size), func(b *testing.B) {
			ts := job(b, 2, Options{})
			e, err := ts[0].Endpoint(1)
			if err != nil {
				b.Fatal(err)
			}
			c := &counter{}
			h := &transport.Header{}
			p := make([]byte, size)
			b.ReportAllocs()
			b.SetBytes(int64(size))
			b.ResetTimer()
			for i := range b.N {
				for {
					err := e.Send(h, p)
					if err == nil {
						break
					}
					if !errors.Is(err, transport.ErrWouldBlock) {
						b.Fatal(err)
					}
					ts[1].Poll(c)
				}
				for c.n <= i {
					ts[1].Poll(c)
					ts[0].Poll(c)
				}
			}
		})
	}
}
