package p2p

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/transport"
	"github.com/mpigo/mpigo/internal/transport/self"
	"github.com/mpigo/mpigo/internal/transport/tcp"
)

// Two jobs in one process, as dynamic processes join them: job A has two ranks (the
// in-memory network), job B one. Each process adds a TCP transport in open mode and
// addresses the other job's processes by indices past its own job's ranks: A's ranks
// know B's process as peer 2; B knows A's ranks as peers 1 and 2.

// openFor gives e an open TCP transport (rung on e's doorbell, reporting failures to
// e) and makes it address n peers.
func openFor(t testing.TB, e *Engine, n int) *tcp.Transport {
	t.Helper()
	tr, err := tcp.Open(tcp.Options{Doorbell: e.Doorbell(), HandshakeTimeout: 10 * time.Second,
		PeerGone: func(p int, err error) { e.PeerFailed(p, err) }})
	mustOK(t, err)
	t.Cleanup(func() { tr.Close() })
	e.AddTransport(tr)
	mustOK(t, e.AddPeers(n))
	return tr
}

// twoJobs makes job A (2 ranks), job B (1 rank), and joins them as above. While A's
// engines are being grown, A's ranks exchange messages among themselves (ctx 1), so
// that the growing runs against a busy engine; twoJobs returns once that traffic is
// through.
func twoJobs(t testing.TB, opts Options) (a []*Engine, b *Engine) {
	t.Helper()
	a = newMemNet(2).engines(t, opts)
	o := opts
	o.Spin, o.Yield = 64, 16
	b, err := New(0, 1, []transport.Transport{self.New(0)}, o)
	mustOK(t, err)
	t.Cleanup(func() { b.Close() })

	var busy sync.WaitGroup
	for r := range 2 {
		busy.Add(1)
		go func() {
			defer busy.Done()
			for i := range 200 {
				out, in := pattern(i, 100*(i%5)), make([]byte, 100*(i%5))
				q, err := a[r].Irecv(Bytes(in), 1-r, i, 1)
				noErr(t, err)
				noErr(t, a[r].Send(Bytes(out), 1-r, i, 1, Standard))
				_, err = a[r].Wait(&q)
				noErr(t, err)
				if !bytes.Equal(in, out) {
					t.Errorf("job A's message %d corrupted while the engine grew", i)
				}
			}
		}()
	}
	ta := []*tcp.Transport{openFor(t, a[0], 3), openFor(t, a[1], 3)}
	tb := openFor(t, b, 3)
	// The engine addresses the peers before the transport can deliver their packets.
	for r := range 2 {
		mustOK(t, ta[r].Add(2, tb.Card()))
		mustOK(t, tb.Add(1+r, ta[r].Card()))
	}
	busy.Wait()
	return a, b
}

// TestAddPeersExchange: after AddTransport and AddPeers, both jobs' processes exchange
// messages of every size, eager and pipelined, each protocol forced in turn, from
// goroutines of their own (the engines lock); receives name the sender by the
// receiver's index; wildcards match them.
func TestAddPeersExchange(t *testing.T) {
	sizes := []int{0, 8, 4000, 70000, 600000}
	for _, proto := range []string{"auto", "eager", "pipeline"} {
		t.Run(proto, func(t *testing.T) {
			a, b := twoJobs(t, Options{Protocol: proto})
			var wg sync.WaitGroup
			run := func(f func()) {
				wg.Add(1)
				go func() { defer wg.Done(); f() }()
			}
			check := func(who string, st Status, err error, from, tag int, got, want []byte) {
				t.Helper()
				if err != nil || st.Source != from || st.Tag != tag || !bytes.Equal(got, want) {
					t.Errorf("%s: message %d: status %+v, err %v, %d bytes; want source %d, %d bytes of the pattern",
						who, tag, st, err, len(got), from, len(want))
				}
			}
			// A0 -> B; B -> A1; A1 -> B by wildcard; A0 and A1 talk meanwhile.
			run(func() {
				for i, n := range sizes {
					noErr(t, a[0].Send(Bytes(pattern(i, n)), 2, i, 4, Standard))
				}
			})
			run(func() {
				for i, n := range sizes {
					in := make([]byte, n)
					st, err := b.Recv(Bytes(in), 1, i, 4)
					check("B from A0", st, err, 1, i, in, pattern(i, n))
				}
				for i, n := range sizes {
					noErr(t, b.Send(Bytes(pattern(i+10, n)), 2, i, 4, Synchronous))
				}
				for range sizes {
					in := make([]byte, sizes[len(sizes)-1])
					st, err := b.Recv(Bytes(in), AnySource, AnyTag, 6)
					check("B by wildcard", st, err, 2, st.Tag, in[:st.Count], pattern(st.Tag+20, sizes[st.Tag]))
				}
			})
			run(func() {
				for i, n := range sizes {
					in := make([]byte, n)
					st, err := a[1].Recv(Bytes(in), 2, i, 4)
					check("A1 from B", st, err, 2, i, in, pattern(i+10, n))
				}
				reqs := make([]Request, len(sizes))
				for i, n := range sizes {
					var err error
					reqs[i], err = a[1].Isend(Bytes(pattern(i+20, n)), 2, i, 6, Standard)
					noErr(t, err)
				}
				noErr(t, a[1].Waitall(reqs, nil))
			})
			wg.Wait()

			// What went to peers beyond the job is counted for the transport, and the
			// job's table (what the record of calls reads) is untouched by it.
			var bytes0 uint64
			for _, n := range sizes {
				bytes0 += uint64(n)
			}
			if s := a[0].TransportStats("tcp"); s.Messages != uint64(len(sizes)) || s.Bytes != bytes0 {
				t.Errorf("A0's tcp stats %+v, want %d messages of %d bytes", s, len(sizes), bytes0)
			}
			if got := a[0].Sent(); len(got) != 4 || got[3] != (prof.Link{Bytes: sumSizes(200), Ops: 200}) {
				t.Errorf("A0's Sent %v: want 4 links, 200 messages to rank 1 on context 1", got)
			}
			if got := b.Sent(); !slices.Equal(got, make([]prof.Link, 2)) {
				t.Errorf("B sent only to other jobs, but its Sent is %v", got)
			}
		})
	}
}

// noErr reports err from a goroutine other than the test's (t.Fatal may not be
// called there).
func noErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Error(err)
	}
}

// sumSizes is the bytes of twoJobs' n messages within job A.
func sumSizes(n int) uint64 {
	var s uint64
	for i := range n {
		s += uint64(100 * (i % 5))
	}
	return s
}

// TestAddPeersFailed: a peer beyond the job fails as a rank does: receives from it and
// wildcard receives complete with the failure, PeerErr says so, sends to it fail.
func TestAddPeersFailed(t *testing.T) {
	a, b := twoJobs(t, Options{})
	in := make([]byte, 8)
	q1, err := b.Irecv(Bytes(in), 2, 0, 0)
	mustOK(t, err)
	q2, err := b.Irecv(Bytes(in), AnySource, 0, 0)
	mustOK(t, err)
	q3, err := b.Irecv(Bytes(in), 1, 0, 0)
	mustOK(t, err)
	cause := errors.New("test: process ended")
	b.PeerFailed(2, cause)
	for i, q := range []*Request{&q1, &q2} {
		if _, err := b.Wait(q); !errors.Is(err, cause) {
			t.Errorf("receive %d: %v, want the failure", i, err)
		}
	}
	if err := b.PeerErr(2); !errors.Is(err, cause) {
		t.Errorf("PeerErr(2) = %v", err)
	}
	if err := b.Send(Bytes(in), 2, 0, 0, Standard); !errors.Is(err, cause) {
		t.Errorf("Send to the failed peer: %v", err)
	}
	// Peer 1 lives: its message still comes.
	mustOK(t, a[0].Send(Bytes(pattern(1, 8)), 2, 0, 0, Standard))
	if st, err := b.Wait(&q3); err != nil || st.Source != 1 {
		t.Errorf("receive from the live peer: %+v %v", st, err)
	}
}

// TestAddPeersWhileBusy: the engine grows (AddPeers) and a tool reads its counts
// while its goroutines send to a peer of another job; nothing is lost (run with -race).
func TestAddPeersWhileBusy(t *testing.T) {
	a, b := twoJobs(t, Options{})
	const n = 300
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range n {
			noErr(t, a[0].Send(Bytes(pattern(i, 64)), 2, i, 0, Standard))
		}
	}()
	go func() {
		defer wg.Done()
		for i := range 100 {
			noErr(t, a[0].AddPeers(4+i))
			a[0].TransportStats("tcp")
		}
	}()
	in := make([]byte, 64)
	for i := range n {
		st, err := b.Recv(Bytes(in), 1, i, 0)
		if err != nil || !bytes.Equal(in, pattern(i, 64)) {
			t.Fatalf("message %d: %+v %v", i, st, err)
		}
	}
	wg.Wait()
	if a[0].Peers() != 103 {
		t.Errorf("Peers() = %d after AddPeers(103)", a[0].Peers())
	}
	if s := a[0].TransportStats("tcp"); s.Messages != n {
		t.Errorf("tcp stats %+v, want %d messages", s, n)
	}
}

// TestAddPeersLate: a process added to the open transport before the engine addresses
// it (AddPeers) may already have sent: its message is not lost, the engine grows to
// it when the packet comes.
func TestAddPeersLate(t *testing.T) {
	ea, err := New(0, 1, []transport.Transport{self.New(0)}, Options{})
	mustOK(t, err)
	eb, err := New(0, 1, []transport.Transport{self.New(0)}, Options{})
	mustOK(t, err)
	t.Cleanup(func() { ea.Close(); eb.Close() })
	ta := openFor(t, ea, 2)
	tb, err := tcp.Open(tcp.Options{Doorbell: eb.Doorbell()})
	mustOK(t, err)
	t.Cleanup(func() { tb.Close() })
	eb.AddTransport(tb)
	mustOK(t, tb.Add(1, ta.Card())) // and not AddPeers yet
	mustOK(t, ta.Add(1, tb.Card()))
	mustOK(t, ea.Send(Bytes([]byte("early")), 1, 3, 0, Standard))
	end := time.Now().Add(10 * time.Second)
	for eb.Peers() < 2 && time.Now().Before(end) {
		eb.Progress()
	}
	mustOK(t, eb.AddPeers(2))
	in := make([]byte, 8)
	q, err := eb.Irecv(Bytes(in), 1, 3, 0)
	mustOK(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := eb.WaitCtx(ctx, &q)
	if err != nil || st.Source != 1 || string(in[:st.Count]) != "early" {
		t.Fatalf("the early message: %+v %v %q", st, err, in[:st.Count])
	}
}

// TestAddPeersErrors: peers past Peers() are out of range until added; AddPeers
// refuses fewer than the job's ranks and never shrinks.
func TestAddPeersErrors(t *testing.T) {
	es := newMemNet(2).engines(t, Options{})
	e := es[0]
	if err := e.Send(Bytes(nil), 2, 0, 0, Standard); err == nil || !strings.Contains(err.Error(), "out of range [0,2)") {
		t.Errorf("Send to peer 2 of 2: %v", err)
	}
	if _, err := e.Irecv(Bytes(nil), 3, 0, 0); err == nil {
		t.Error("Irecv from peer 3 of 2 accepted")
	}
	if err := e.AddPeers(1); err == nil {
		t.Error("AddPeers(1) below the job's 2 ranks accepted")
	}
	mustOK(t, e.AddPeers(5))
	mustOK(t, e.AddPeers(3))
	if e.Peers() != 5 || e.Size() != 2 {
		t.Errorf("Peers %d, Size %d after AddPeers(5), AddPeers(3): want 5 and 2", e.Peers(), e.Size())
	}
	// In range now, but no transport reaches peer 4.
	if err := e.Send(Bytes([]byte("x")), 4, 0, 0, Standard); err == nil || !strings.Contains(err.Error(), "no transport reaches") {
		t.Errorf("Send to peer 4 with no transport: %v", err)
	}
	if _, err := e.Protocols(4); err == nil {
		t.Error("Protocols(4) with no transport succeeded")
	}
	e.PeerFailed(7, errors.New("out of range")) // ignored, no panic
	if err := e.PeerErr(7); err != nil {
		t.Errorf("PeerErr(7) = %v", err)
	}
}

// TestAddPeersZeroAllocs: an eager message to a peer of another job, and its receive,
// allocate nothing.
func TestAddPeersZeroAllocs(t *testing.T) {
	a, b := twoJobs(t, Options{})
	out, in := []byte("12345678"), make([]byte, 8)
	mustOK(t, a[0].Send(Bytes(out), 2, 1, 0, Standard))
	_, err := b.Recv(Bytes(in), 1, 1, 0)
	mustOK(t, err)
	allocs := testing.AllocsPerRun(200, func() {
		a[0].Send(Bytes(out), 2, 1, 0, Standard)
		b.RecvInfo(Bytes(in), 1, 1, 0)
	})
	if allocs != 0 {
		t.Errorf("eager send and receive across jobs: %v allocations, want 0", allocs)
	}
}

func ExampleEngine_AddPeers() {
	// Job A's rank 0 of 1 and job B's rank 0 of 1, in one process for the example.
	ea, _ := New(0, 1, []transport.Transport{self.New(0)}, Options{})
	eb, _ := New(0, 1, []transport.Transport{self.New(0)}, Options{})
	ta, _ := tcp.Open(tcp.Options{Doorbell: ea.Doorbell()})
	tb, _ := tcp.Open(tcp.Options{Doorbell: eb.Doorbell()})
	defer ta.Close()
	defer tb.Close()
	// Each knows the other as peer 1, the first index past its job.
	ea.AddTransport(ta)
	eb.AddTransport(tb)
	ea.AddPeers(2)
	eb.AddPeers(2)
	ta.Add(1, tb.Card())
	tb.Add(1, ta.Card())

	go ea.Send(Bytes([]byte("hello, other job")), 1, 0, 0, Standard)
	buf := make([]byte, 32)
	st, err := eb.Recv(Bytes(buf), 1, 0, 0)
	fmt.Println(string(buf[:st.Count]), st.Source, err)
	// Output: hello, other job 1 <nil>
}
