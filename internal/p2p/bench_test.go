package p2p

import (
	"fmt"
	"sync"
	"testing"

	"github.com/mpigo/mpigo/internal/transport"
)

// echo runs rank 1 of a ping-pong: it sends back whatever arrives on tag 0 until a
// message on tag 1.
func echo(e *Engine, size int, wg *sync.WaitGroup) {
	defer wg.Done()
	buf := make([]byte, size)
	for {
		st, err := e.Recv(Bytes(buf), 0, AnyTag, 0)
		if err != nil || st.Tag == 1 {
			return
		}
		if e.Send(Bytes(buf[:st.Count]), 0, 0, 0, Standard) != nil {
			return
		}
	}
}

// pingPong returns a round trip through rank 1 with the blocking or nonblocking calls.
func pingPong(tb testing.TB, size int, nonblocking bool, opts Options) (func(), func()) {
	net := newMemNet(2)
	net.mtu = 64 << 10
	es := net.engines(tb, opts)
	var wg sync.WaitGroup
	wg.Add(1)
	go echo(es[1], size, &wg)
	out, in := make([]byte, size), make([]byte, size)
	round := func() {
		if nonblocking {
			r, _ := es[0].Irecv(Bytes(in), 1, 0, 0)
			s, _ := es[0].Isend(Bytes(out), 1, 0, 0, Standard)
			es[0].Wait(&s)
			es[0].Wait(&r)
			return
		}
		es[0].Send(Bytes(out), 1, 0, 0, Standard)
		es[0].Recv(Bytes(in), 1, 0, 0)
	}
	stop := func() {
		es[0].Send(Bytes(nil), 1, 1, 0, Standard)
		wg.Wait()
	}
	return round, stop
}

// selfRound is a message to self: Isend, Recv, Wait. It measures the engine alone,
// without a second goroutine's wake-up latency.
func selfRound(tb testing.TB, size int) func() {
	net := newMemNet(1)
	e := net.engines(tb, Options{})[0]
	out, in := make([]byte, size), make([]byte, size)
	return func() {
		q, _ := e.Isend(Bytes(out), 0, 0, 0, Standard)
		e.Recv(Bytes(in), 0, 0, 0)
		e.Wait(&q)
	}
}

func TestZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, tc := range []struct {
		name        string
		nonblocking bool
	}{{"Send/Recv", false}, {"Isend/Irecv/Wait", true}} {
		round, stop := pingPong(t, 8, tc.nonblocking, Options{})
		round() // warm the pools
		if a := testing.AllocsPerRun(2000, round); a != 0 {
			t.Errorf("%s 8-byte ping-pong: %.2f allocations per round trip, want 0", tc.name, a)
		}
		stop()
	}
	self := selfRound(t, 8)
	self()
	if a := testing.AllocsPerRun(2000, self); a != 0 {
		t.Errorf("self message: %.2f allocations, want 0", a)
	}
	// Unexpected eager messages come from pooled buffers.
	net := newMemNet(2)
	es := net.engines(t, Options{})
	buf := make([]byte, 1000)
	unexp := func() {
		for range 4 {
			es[0].Send(Bytes(buf), 1, 0, 0, Standard)
		}
		es[1].Progress()
		for range 4 {
			es[1].Recv(Bytes(buf), 0, 0, 0)
		}
	}
	unexp()
	if a := testing.AllocsPerRun(1000, unexp); a != 0 {
		t.Errorf("unexpected messages: %.2f allocations, want 0", a)
	}
}

// BenchmarkPingPong: a round trip between two engines (two goroutines) through the
// in-memory transport; one-way-ns is half of it.
func BenchmarkPingPong(b *testing.B) {
	for _, size := range []int{8, 1024, 64 << 10, 1 << 20} {
		for _, nb := range []bool{false, true} {
			name := fmt.Sprintf("%d/blocking", size)
			if nb {
				name = fmt.Sprintf("%d/nonblocking", size)
			}
			b.Run(name, func(b *testing.B) {
				round, stop := pingPong(b, size, nb, Options{Spin: 100000, Yield: 100})
				b.ReportAllocs()
				b.SetBytes(int64(2 * size))
				b.ResetTimer()
				var best bestChunk
				for i := range b.N {
					round()
					best.tick(i)
				}
				b.StopTimer()
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2, "one-way-ns")
				best.report(b)
				stop()
			})
		}
	}
}

// BenchmarkSelf: one message to self per op (Isend + Recv + Wait): the engine's cost
// per message with the cheapest transport and no cross-thread wake-up.
func BenchmarkSelf(b *testing.B) {
	for _, size := range []int{8, 4096} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			round := selfRound(b, size)
			b.ReportAllocs()
			for range b.N {
				round()
			}
		})
	}
}

// BenchmarkEagerSend: a blocking eager Send to a peer that never receives
// (unexpected side not involved): the sender's cost alone.
func BenchmarkEagerSend(b *testing.B) {
	net := newMemNet(2)
	es := net.engines(b, Options{})
	buf := make([]byte, 8)
	b.ReportAllocs()
	for i := range b.N {
		es[0].Send(Bytes(buf), 1, 0, 0, Standard)
		if i%1024 == 1023 {
			b.StopTimer()
			for range 1024 {
				es[1].Recv(Bytes(buf), 0, 0, 0)
			}
			b.StartTimer()
		}
	}
}

// loopTr reaches rank 1 and hands every packet straight back as if rank 1 had sent
// it: no locks, no atomics, one copy. With it, Send then Recv runs the engine's whole
// sender path and whole receiver path in one goroutine, so the time is the engine's.
type loopTr struct {
	hdr  transport.Header
	buf  []byte
	full bool
}

func (t *loopTr) Name() string                                  { return "loop" }
func (t *loopTr) Reaches(peer int) bool                         { return peer == 1 }
func (t *loopTr) Endpoint(peer int) (transport.Endpoint, error) { return t, nil }
func (t *loopTr) Close() error                                  { return nil }
func (t *loopTr) MaxPayload() int                               { return 4096 }
func (t *loopTr) Models() []transport.Model {
	return []transport.Model{{Protocol: transport.Eager, Fixed: 1, Bandwidth: 1e9}}
}

func (t *loopTr) Send(h *transport.Header, p []byte) error {
	if t.full {
		return transport.ErrWouldBlock
	}
	t.hdr, t.full = *h, true
	t.hdr.Src = 1
	t.buf = append(t.buf[:0], p...)
	return nil
}

func (t *loopTr) Poll(h transport.Handler) int {
	if !t.full {
		return 0
	}
	t.full = false
	h.Packet(&t.hdr, t.buf)
	return 1
}

// BenchmarkEngine: one eager message through the engine's sender and receiver paths
// (blocking Send, then blocking Recv), with a transport that costs next to nothing;
// with the engine's lock (MPI_THREAD_MULTIPLE) and without (serialized, the level of
// the benchmarks against the C MPIs).
func BenchmarkEngine(b *testing.B) {
	for _, tc := range []struct {
		name     string
		preRecv  bool // Irecv posted before the message arrives (the expected path)
		nonblock bool
		serial   bool
	}{
		{"Send+Recv", false, false, false}, {"Irecv+Send+Wait", true, false, false}, {"Isend+Irecv+Wait+Wait", true, true, false},
		{"serialized/Send+Recv", false, false, true}, {"serialized/Irecv+Send+Wait", true, false, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			e, err := New(0, 2, []transport.Transport{&loopTr{}}, Options{Serialized: tc.serial})
			if err != nil {
				b.Fatal(err)
			}
			out, in := make([]byte, 8), make([]byte, 8)
			b.ReportAllocs()
			for range b.N {
				switch {
				case tc.nonblock:
					s, _ := e.Isend(Bytes(out), 1, 0, 0, Standard)
					r, _ := e.Irecv(Bytes(in), 1, 0, 0)
					e.Wait(&s)
					e.Wait(&r)
				case tc.preRecv:
					r, _ := e.Irecv(Bytes(in), 1, 0, 0)
					e.Send(Bytes(out), 1, 0, 0, Standard)
					e.Wait(&r)
				default:
					e.Send(Bytes(out), 1, 0, 0, Standard)
					e.Recv(Bytes(in), 1, 0, 0)
				}
			}
		})
	}
}
