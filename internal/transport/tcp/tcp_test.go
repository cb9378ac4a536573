package tcp

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/pm"
	"github.com/mpigo/mpigo/internal/transport"
)

// job starts n transports sharing one in-memory wire-up.
func job(t testing.TB, n int, opts Options) []*Transport {
	t.Helper()
	if opts.HandshakeTimeout == 0 {
		opts.HandshakeTimeout = 5 * time.Second
	}
	s := newStore(n)
	ts := make([]*Transport, n)
	for i := range ts {
		tr, err := New(&fakeClient{s: s, rank: i}, opts)
		if err != nil {
			t.Fatal(err)
		}
		ts[i] = tr
		t.Cleanup(func() { tr.Close() })
	}
	for _, tr := range ts {
		if err := tr.Start(); err != nil {
			t.Fatal(err)
		}
	}
	return ts
}

// collector keeps copies of the packets it is handed, by source.
type collector struct {
	got map[int32][]packet
}

type packet struct {
	h       transport.Header
	payload []byte
}

func (c *collector) Packet(h *transport.Header, p []byte) {
	if c.got == nil {
		c.got = map[int32][]packet{}
	}
	c.got[h.Src] = append(c.got[h.Src], packet{*h, append([]byte(nil), p...)})
}

// deadline bounds a test's waiting loops; they wait on a condition, never on a clock.
func deadline(t testing.TB) func() bool {
	end := time.Now().Add(10 * time.Second)
	return func() bool {
		if time.Now().After(end) {
			t.Fatal("condition not reached in 10 s")
		}
		return true
	}
}

// send retries on ErrWouldBlock, polling every transport meanwhile (one process plays
// all ranks, so a full socket drains only if the receiver polls).
func send(t testing.TB, e transport.Endpoint, h *transport.Header, p []byte, ts []*Transport, hs []transport.Handler) {
	t.Helper()
	more := deadline(t)
	for more() {
		err := e.Send(h, p)
		if err == nil {
			return
		}
		if !errors.Is(err, transport.ErrWouldBlock) {
			t.Fatalf("Send: %v", err)
		}
		for i, tr := range ts {
			tr.Poll(hs[i])
		}
	}
}

func pattern(seq, n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(seq*7 + i*13)
	}
	return p
}

func TestOrderAndSizes(t *testing.T) {
	const n, per = 4, 120 // 3 incoming streams a rank: Poll takes its epoll path
	ts := job(t, n, Options{MaxPayload: 64 << 10})
	cs := make([]*collector, n)
	hs := make([]transport.Handler, n)
	for i := range cs {
		cs[i] = &collector{}
		hs[i] = cs[i]
	}
	sizes := []int{0, 1, 8, 63, 64, 1000, 4096, 65535, 65536}
	for seq := range per {
		for src := range n {
			for dst := range n {
				if src == dst {
					continue
				}
				e, err := ts[src].Endpoint(dst)
				if err != nil {
					t.Fatal(err)
				}
				size := sizes[(seq+src+dst)%len(sizes)]
				h := transport.Header{Kind: 1, Src: int32(src), Context: 7, Tag: int32(dst), Len: uint64(size), SendID: uint64(seq), Offset: uint64(seq) << 32}
				send(t, e, &h, pattern(seq, size), ts, hs)
			}
		}
	}
	more := deadline(t)
	for done := false; !done && more(); {
		done = true
		for i, tr := range ts {
			tr.Poll(hs[i])
			for src := range n {
				if src != i && len(cs[i].got[int32(src)]) < per {
					done = false
				}
			}
		}
	}
	for dst := range n {
		for src := range n {
			if src == dst {
				continue
			}
			for seq, p := range cs[dst].got[int32(src)] {
				size := sizes[(seq+src+dst)%len(sizes)]
				want := transport.Header{Kind: 1, Src: int32(src), Context: 7, Tag: int32(dst), Len: uint64(size), SendID: uint64(seq), Offset: uint64(seq) << 32}
				if p.h != want || !bytes.Equal(p.payload, pattern(seq, size)) {
					t.Fatalf("%d->%d packet %d: header %+v (want %+v), payload ok %v", src, dst, seq, p.h, want, bytes.Equal(p.payload, pattern(seq, size)))
				}
			}
		}
	}
}

// TestBigMessages streams many full-size packets, so that sockets fill, Send returns
// ErrWouldBlock and packets are written in part (the check for room, which avoids
// that, is off).
func TestBigMessages(t *testing.T) {
	ts := job(t, 2, Options{})
	c := &collector{}
	hs := []transport.Handler{c, c}
	e, err := ts[0].Endpoint(1)
	if err != nil {
		t.Fatal(err)
	}
	e.(*endpoint).room = -1
	max := e.MaxPayload()
	const count = 48
	for seq := range count {
		h := transport.Header{Src: 0, Offset: uint64(seq)}
		send(t, e, &h, pattern(seq, max-seq), ts, hs)
	}
	more := deadline(t)
	for len(c.got[0]) < count && more() {
		ts[0].Poll(hs[0])
		ts[1].Poll(hs[1])
	}
	for seq, p := range c.got[0] {
		if p.h.Offset != uint64(seq) || !bytes.Equal(p.payload, pattern(seq, max-seq)) {
			t.Fatalf("packet %d: offset %d, %d bytes, content ok %v", seq, p.h.Offset, len(p.payload), bytes.Equal(p.payload, pattern(seq, max-seq)))
		}
	}
	if err := e.Send(&transport.Header{}, make([]byte, max+1)); err == nil || !strings.Contains(err.Error(), "MaxPayload") {
		t.Errorf("oversized Send: %v", err)
	}
}

func TestWrongSecretRefused(t *testing.T) {
	ts := job(t, 2, Options{})
	// An impostor: rank 1 of the same job by address, but with another secret.
	s := newStore(2)
	s.put(pm.Proc, pm.KeyTCP, 0, []byte(ts[0].Addrs()[0]))
	s.put(pm.Job, pm.KeySecret, 0, bytes.Repeat([]byte{1}, 32))
	bad, err := New(&fakeClient{s: s, rank: 1}, Options{HandshakeTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if err := bad.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Endpoint(0); err == nil || !strings.Contains(err.Error(), "secret") {
		t.Fatalf("connection with a wrong secret: %v", err)
	}
	checkStillServes(t, ts)
}

// checkStillServes shows the listener of rank 0 still takes a legitimate connection.
func checkStillServes(t *testing.T, ts []*Transport) {
	t.Helper()
	e, err := ts[1].Endpoint(0)
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	send(t, e, &transport.Header{Src: 1, Tag: 42}, []byte("hello"), ts, []transport.Handler{c, c})
	more := deadline(t)
	for len(c.got[1]) == 0 && more() {
		ts[0].Poll(c)
	}
	if p := c.got[1][0]; p.h.Tag != 42 || string(p.payload) != "hello" {
		t.Fatalf("got %+v", p)
	}
}

// refusedAfter reads conn until the acceptor closes it and returns what it read.
func refusedAfter(t *testing.T, c net.Conn) []byte {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := io.ReadAll(c)
	if err != nil && !errors.Is(err, net.ErrClosed) && !strings.Contains(err.Error(), "reset") {
		t.Fatalf("acceptor did not close the connection: %v", err)
	}
	return b
}

func TestGarbageRefused(t *testing.T) {
	ts := job(t, 2, Options{})
	for _, junk := range [][]byte{
		bytes.Repeat([]byte("GET / HTTP/1.1\r\n"), 8),
		append([]byte(helloMagic), bytes.Repeat([]byte{0xff}, helloSize(jobVersion))...), // bad version and ranks
	} {
		c, err := net.Dial("tcp", ts[0].Addrs()[0])
		if err != nil {
			t.Fatal(err)
		}
		c.Write(junk)
		if got := refusedAfter(t, c); len(got) != 0 {
			t.Errorf("acceptor answered garbage with %d bytes", len(got))
		}
		c.Close()
	}
	if n, causes := ts[0].Refused(); n != 2 {
		t.Errorf("refused %d connections, want 2: %s", n, causes)
	}
	checkStillServes(t, ts)
}

// recorder keeps what a connection writes.
type recorder struct {
	net.Conn
	w bytes.Buffer
}

func (r *recorder) Write(b []byte) (int, error) { r.w.Write(b); return r.Conn.Write(b) }

func TestReplayedHandshakeRefused(t *testing.T) {
	ts := job(t, 3, Options{})
	// Rank 2 connects to rank 0 legitimately while we record its side.
	c, err := net.Dial("tcp", ts[0].Addrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{Conn: c}
	if err := ts[2].dialHandshake(rec, ts[2].jobHello(0), ts[2].secret, 0); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Replaying rank 2's bytes on a new connection must fail at the proof.
	c2, err := net.Dial("tcp", ts[0].Addrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	c2.Write(rec.w.Bytes())
	if got := refusedAfter(t, c2); len(got) != nonceSize+sha256.Size {
		t.Errorf("replay got %d bytes back, want the challenge only (%d)", len(got), nonceSize+sha256.Size)
	}
	if n, causes := ts[0].Refused(); n != 1 || !strings.Contains(causes, "proof does not match") {
		t.Errorf("refusals %d: %s", n, causes)
	}
	checkStillServes(t, ts)
}

func TestPeerGone(t *testing.T) {
	var gone []int
	s := newStore(2)
	t0, err := New(&fakeClient{s: s, rank: 0}, Options{PeerGone: func(p int, err error) {
		if !errors.Is(err, transport.ErrPeerGone) {
			t.Errorf("PeerGone(%d, %v)", p, err)
		}
		gone = append(gone, p)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer t0.Close()
	t1, err := New(&fakeClient{s: s, rank: 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0.Start()
	t1.Start()
	e01, err := t0.Endpoint(1)
	if err != nil {
		t.Fatal(err)
	}
	e10, err := t1.Endpoint(0)
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	if err := e10.Send(&transport.Header{Src: 1}, []byte("last words")); err != nil {
		t.Fatal(err)
	}
	t1.Close()
	more := deadline(t)
	for t0.PeerErr(1) == nil && more() {
		t0.Poll(c)
	}
	if len(c.got[1]) != 1 {
		t.Errorf("packets sent before the close: got %d, want 1", len(c.got[1]))
	}
	err = e01.Send(&transport.Header{}, nil)
	if !errors.Is(err, transport.ErrPeerGone) || !strings.Contains(err.Error(), "rank 1") {
		t.Errorf("Send to a closed peer: %v", err)
	}
	t0.Poll(c)
	if len(gone) != 1 || gone[0] != 1 {
		t.Errorf("PeerGone calls %v, want [1]", gone)
	}
	if _, err := t0.Endpoint(1); err == nil {
		t.Error("Endpoint to a gone peer succeeded")
	}
}

func TestSetupErrors(t *testing.T) {
	s := newStore(2)
	if _, err := New(&fakeClient{s: s, rank: 0}, Options{MaxPayload: 10}); err == nil {
		t.Error("MaxPayload 10 accepted")
	}
	if _, err := New(&fakeClient{s: s, rank: 5}, Options{}); err == nil {
		t.Error("rank 5 of 2 accepted")
	}
	t1, err := New(&fakeClient{s: newStore(2), rank: 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer t1.Close()
	if _, err := t1.Endpoint(0); err == nil {
		t.Error("Endpoint before Start succeeded")
	}
	if err := t1.Start(); err == nil || !strings.Contains(err.Error(), "secret") {
		t.Errorf("Start without a secret: %v", err)
	}
	if _, err := t1.Endpoint(1); err == nil {
		t.Error("Endpoint to self succeeded")
	}
	if _, err := New(&fakeClient{s: newStore(2), rank: 0}, Options{Interfaces: "no-such-if0"}); err == nil {
		t.Error("unknown interface accepted")
	}
	if hosts, err := listenHosts("lo", false); err != nil || len(hosts) == 0 {
		t.Errorf("listenHosts(lo) = %v, %v", hosts, err)
	}
	if hosts, err := listenHosts("127.0.0.0/8", true); err != nil || hosts[0] != "127.0.0.1" {
		t.Errorf("listenHosts(127.0.0.0/8) = %v, %v", hosts, err)
	}
}

// TestDoorbell shows a sleeping engine is woken: armed, the watcher rings when a
// packet arrives.
func TestDoorbell(t *testing.T) {
	bell := transport.NewLocalDoorbell()
	s := newStore(2)
	t0, err := New(&fakeClient{s: s, rank: 0}, Options{Doorbell: bell})
	if err != nil {
		t.Fatal(err)
	}
	defer t0.Close()
	t1, err := New(&fakeClient{s: s, rank: 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer t1.Close()
	t0.Start()
	t1.Start()
	e, err := t1.Endpoint(0)
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	seq := bell.Seq()
	if t0.Poll(c) != 0 {
		t.Fatal("packet from nowhere")
	}
	t0.Arm()
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Wait's timeout is only a safety net here: the ring ends it.
		for bell.Seq() == seq {
			bell.Wait(seq, 10*time.Second)
		}
	}()
	if err := e.Send(&transport.Header{Src: 1}, []byte("wake")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the doorbell did not ring")
	}
	more := deadline(t)
	for len(c.got[1]) == 0 && more() {
		t0.Poll(c)
	}
}

// counter is a handler that keeps nothing, for allocation counts.
type counter struct{ n, bytes int }

func (c *counter) Packet(h *transport.Header, p []byte) { c.n++; c.bytes += len(p) }

func TestZeroAllocs(t *testing.T) {
	ts := job(t, 2, Options{})
	e, err := ts[0].Endpoint(1)
	if err != nil {
		t.Fatal(err)
	}
	c := &counter{}
	h := &transport.Header{Src: 0, Tag: 1}
	for _, size := range []int{8, 4096, 200 << 10} {
		p := make([]byte, size)
		// Warm up: first packet connects nothing (already done) but fills buffers.
		e.Send(h, p)
		for c.n == 0 {
			ts[1].Poll(c)
		}
		allocs := testing.AllocsPerRun(200, func() {
			want := c.n + 1
			for {
				err := e.Send(h, p)
				if err == nil {
					break
				}
				if !errors.Is(err, transport.ErrWouldBlock) {
					t.Fatal(err)
				}
				ts[1].Poll(c)
			}
			for c.n < want {
				ts[1].Poll(c)
				ts[0].Poll(c) // flushes a partly written packet
			}
		})
		if allocs != 0 {
			t.Errorf("%d-byte Send+Poll: %v allocations per packet, want 0", size, allocs)
		}
		c.n = 0
	}
}

func TestIPv6Loopback(t *testing.T) {
	if _, err := net.Listen("tcp", "[::1]:0"); err != nil {
		t.Skip("no IPv6 loopback here:", err)
	}
	ts := job(t, 2, Options{Interfaces: "::1/128"})
	if a := ts[0].Addrs()[0]; !strings.HasPrefix(a, "[::1]:") {
		t.Fatalf("listening on %s, want [::1]", a)
	}
	checkStillServes(t, ts)
}

func TestModels(t *testing.T) {
	ts := job(t, 2, Options{})
	e, err := ts[0].Endpoint(1)
	if err != nil {
		t.Fatal(err)
	}
	var eager, pipe bool
	for _, m := range e.Models() {
		switch m.Protocol {
		case transport.Eager:
			eager = m.MaxSize > 0 && m.MaxSize <= int64(e.MaxPayload())
		case transport.Pipeline:
			pipe = m.MaxSize == 0
		case transport.Get:
			t.Error("TCP offers Get")
		}
		if m.Fixed <= 0 || m.Bandwidth <= 0 {
			t.Errorf("model %+v has no cost", m)
		}
	}
	if !eager || !pipe {
		t.Errorf("models %+v: want a bounded eager and an unbounded pipeline", e.Models())
	}
}

// TestSendToClosedPeer: with no stream from the peer to notice its end, the failure
// comes from the send side (EPIPE or ECONNRESET), and must still be ErrPeerGone.
func TestSendToClosedPeer(t *testing.T) {
	ts := job(t, 2, Options{})
	e, err := ts[0].Endpoint(1)
	if err != nil {
		t.Fatal(err)
	}
	c := &counter{}
	if err := e.Send(&transport.Header{}, []byte("x")); err != nil {
		t.Fatal(err)
	}
	for c.n == 0 {
		ts[1].Poll(c)
	}
	ts[1].Close()
	more := deadline(t)
	for more() {
		err = e.Send(&transport.Header{}, []byte("anyone?"))
		if err != nil && !errors.Is(err, transport.ErrWouldBlock) {
			break
		}
	}
	if !errors.Is(err, transport.ErrPeerGone) || !strings.Contains(err.Error(), "rank 1") {
		t.Fatalf("Send to a closed peer: %v", err)
	}
	if ts[0].PeerErr(1) == nil {
		t.Error("PeerErr(1) is nil after a failed send")
	}
}
