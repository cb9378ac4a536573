package tcp

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/transport"
)

// openPair opens two transports in open mode, as two processes of different jobs
// would; nothing is added yet.
func openPair(t *testing.T, opts Options) (*Transport, *Transport) {
	t.Helper()
	if opts.HandshakeTimeout == 0 {
		opts.HandshakeTimeout = 5 * time.Second
	}
	var ts [2]*Transport
	for i := range ts {
		tr, err := Open(opts)
		if err != nil {
			t.Fatal(err)
		}
		ts[i] = tr
		t.Cleanup(func() { tr.Close() })
	}
	return ts[0], ts[1]
}

// pollUntil polls every transport (each with its handler) until cond holds.
func pollUntil(t *testing.T, cond func() bool, ts []*Transport, hs []transport.Handler) {
	t.Helper()
	more := deadline(t)
	for !cond() && more() {
		for i, tr := range ts {
			tr.Poll(hs[i])
		}
	}
}

// TestOpenExchange: two open transports that added each other (under indices beyond
// a job's ranks, different on each side) exchange packets both ways, small and of the
// largest size, and each receiver sees its own index of the sender as Src.
func TestOpenExchange(t *testing.T) {
	a, b := openPair(t, Options{MaxPayload: 64 << 10})
	const aOfB, bOfA = 4, 9 // a knows b as peer 4, b knows a as peer 9
	if err := a.Add(aOfB, b.Card()); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(bOfA, a.Card()); err != nil {
		t.Fatal(err)
	}
	if !a.Reaches(aOfB) || a.Reaches(bOfA) || a.Reaches(0) || !b.Reaches(bOfA) {
		t.Fatalf("Reaches: a(4)=%v a(9)=%v a(0)=%v b(9)=%v, want only the added peers",
			a.Reaches(aOfB), a.Reaches(bOfA), a.Reaches(0), b.Reaches(bOfA))
	}
	ts := []*Transport{a, b}
	ca, cb := &collector{}, &collector{}
	hs := []transport.Handler{ca, cb}
	ea, err := a.Endpoint(aOfB)
	if err != nil {
		t.Fatal(err)
	}
	eb, err := b.Endpoint(bOfA)
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int{0, 8, 4096, 64 << 10}
	for i, n := range sizes {
		// The senders write their own indices as Src; the receivers must not care.
		send(t, ea, &transport.Header{Kind: 1, Src: 1234, Tag: int32(i)}, pattern(i, n), ts, hs)
		send(t, eb, &transport.Header{Kind: 1, Src: 5678, Tag: int32(i)}, pattern(i+100, n), ts, hs)
	}
	pollUntil(t, func() bool { return len(cb.got[bOfA]) == len(sizes) && len(ca.got[aOfB]) == len(sizes) }, ts, hs)
	if len(cb.got) != 1 || len(ca.got) != 1 {
		t.Fatalf("packets came from sources %v and %v, want only 9 and 4", keys(cb.got), keys(ca.got))
	}
	for i, n := range sizes {
		if p := cb.got[bOfA][i]; p.h.Tag != int32(i) || !bytes.Equal(p.payload, pattern(i, n)) {
			t.Errorf("b's packet %d: tag %d, %d bytes, want tag %d, %d bytes of the pattern", i, p.h.Tag, len(p.payload), i, n)
		}
		if p := ca.got[aOfB][i]; p.h.Tag != int32(i) || !bytes.Equal(p.payload, pattern(i+100, n)) {
			t.Errorf("a's packet %d: tag %d, %d bytes, want tag %d, %d bytes of the pattern", i, p.h.Tag, len(p.payload), i, n)
		}
	}
}

func keys(m map[int32][]packet) []int32 {
	var ks []int32
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestOpenHeld: a process that learns of another earlier than that one learns of it
// dials and sends at once; its stream is held unread until the other adds it, and then
// every packet comes, in order.
func TestOpenHeld(t *testing.T) {
	a, b := openPair(t, Options{})
	if err := a.Add(5, b.Card()); err != nil {
		t.Fatal(err)
	}
	ea, err := a.Endpoint(5)
	if err != nil {
		t.Fatalf("Endpoint before the peer added us: %v", err)
	}
	cb := &collector{}
	const n = 10
	for i := range n {
		send(t, ea, &transport.Header{Tag: int32(i)}, pattern(i, 100), []*Transport{b}, []transport.Handler{cb})
	}
	for range 1000 {
		b.Poll(cb)
	}
	if len(cb.got) != 0 {
		t.Fatalf("b read %d streams' packets before adding their process", len(cb.got))
	}
	if err := b.Add(4, a.Card()); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, func() bool { return len(cb.got[4]) == n }, []*Transport{b}, []transport.Handler{cb})
	for i, p := range cb.got[4] {
		if p.h.Tag != int32(i) || !bytes.Equal(p.payload, pattern(i, 100)) {
			t.Errorf("packet %d: tag %d, want %d", i, p.h.Tag, i)
		}
	}
	if n, causes := b.Refused(); n != 0 {
		t.Errorf("b refused %d connections: %s", n, causes)
	}
}

// TestOpenHeldDropped: a stream whose process is never added is dropped after the
// handshake timeout, and its sender finds the peer gone.
func TestOpenHeldDropped(t *testing.T) {
	a, b := openPair(t, Options{HandshakeTimeout: 200 * time.Millisecond})
	if err := a.Add(5, b.Card()); err != nil {
		t.Fatal(err)
	}
	ea, err := a.Endpoint(5)
	if err != nil {
		t.Fatal(err)
	}
	more := deadline(t)
	for more() {
		if n, _ := b.Refused(); n > 0 {
			break
		}
		b.Poll(&counter{})
	}
	if _, causes := b.Refused(); !strings.Contains(causes, "not added") {
		t.Errorf("refusal: %q, want one saying the process was not added", causes)
	}
	// The dropped stream fails the sender's next sends (the first may still be taken
	// by the socket before the reset arrives).
	for more() {
		err := ea.Send(&transport.Header{}, nil)
		if errors.Is(err, transport.ErrPeerGone) {
			break
		}
		a.Poll(&counter{})
	}
}

// TestOpenWrongSecret: a card whose secret is not its process's is refused at the
// handshake (the dialer finds that the acceptor's proof does not match), and the
// acceptor goes on serving.
func TestOpenWrongSecret(t *testing.T) {
	a, b := openPair(t, Options{})
	c, err := parseCard(b.Card())
	if err != nil {
		t.Fatal(err)
	}
	c.secret[0] ^= 1
	if err := a.Add(5, c.encode()); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Endpoint(5); err == nil || !strings.Contains(err.Error(), "does not prove") {
		t.Errorf("Endpoint with a forged card: %v, want a refusal", err)
	}
	// The acceptor counts its refusal on its handshake goroutine, which may still be
	// at it when the dialer has given up.
	for more := deadline(t); more(); {
		if n, _ := b.Refused(); n > 0 {
			break
		}
		b.Poll(&counter{})
	}
	if n, _ := b.Refused(); n == 0 {
		t.Error("the acceptor refused nothing")
	}
	// The true card still works, under another index.
	a.Remove(5)
	if err := a.Add(6, b.Card()); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(8, a.Card()); err != nil {
		t.Fatal(err)
	}
	e, err := a.Endpoint(6)
	if err != nil {
		t.Fatal(err)
	}
	cb := &collector{}
	send(t, e, &transport.Header{Tag: 3}, []byte("ok"), []*Transport{a, b}, []transport.Handler{&counter{}, cb})
	pollUntil(t, func() bool { return len(cb.got[8]) == 1 }, []*Transport{b}, []transport.Handler{cb})
}

// TestOpenRemove: Remove ends both streams with the peer, which sees a deliberate end
// (no PeerGone) after every packet sent before; both then add each other again under
// new indices and talk.
func TestOpenRemove(t *testing.T) {
	var mu sync.Mutex
	var gone []int
	opts := Options{HandshakeTimeout: 5 * time.Second, PeerGone: func(p int, err error) {
		mu.Lock()
		gone = append(gone, p)
		mu.Unlock()
	}}
	a, b := openPair(t, opts)
	if err := a.Add(4, b.Card()); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(7, a.Card()); err != nil {
		t.Fatal(err)
	}
	ts := []*Transport{a, b}
	ca, cb := &collector{}, &collector{}
	hs := []transport.Handler{ca, cb}
	ea, _ := a.Endpoint(4)
	eb, _ := b.Endpoint(7)
	send(t, eb, &transport.Header{Tag: 1}, []byte("to a"), ts, hs)
	pollUntil(t, func() bool { return len(ca.got[4]) == 1 }, ts, hs)
	const n = 20
	for i := range n {
		send(t, ea, &transport.Header{Tag: int32(i)}, pattern(i, 3000), ts, []transport.Handler{ca, &counter{}})
	}
	a.Remove(4)
	if a.Reaches(4) {
		t.Error("a still reaches peer 4 after Remove")
	}
	if _, err := a.Endpoint(4); err == nil {
		t.Error("Endpoint of a removed peer succeeded")
	}
	if err := ea.Send(&transport.Header{}, nil); !errors.Is(err, transport.ErrPeerGone) {
		t.Errorf("Send on a removed peer's stream: %v, want ErrPeerGone", err)
	}
	// b reads what a sent before, then the end: its stream from a is gone.
	pollUntil(t, func() bool { return len(cb.got[7]) == n && b.link(7).recv.Load() == nil }, ts, hs)
	for i, p := range cb.got[7] {
		if p.h.Tag != int32(i) || !bytes.Equal(p.payload, pattern(i, 3000)) {
			t.Fatalf("packet %d: tag %d", i, p.h.Tag)
		}
	}
	b.Remove(7)
	for range 100 {
		a.Poll(ca)
		b.Poll(cb)
	}
	mu.Lock()
	if len(gone) != 0 {
		t.Errorf("PeerGone for %v after a Remove on both sides", gone)
	}
	mu.Unlock()
	if b.PeerErr(7) != nil {
		t.Errorf("b's PeerErr(7) = %v", b.PeerErr(7))
	}

	if err := a.Add(5, b.Card()); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(8, a.Card()); err != nil {
		t.Fatal(err)
	}
	ea, err := a.Endpoint(5)
	if err != nil {
		t.Fatal(err)
	}
	eb, err = b.Endpoint(8)
	if err != nil {
		t.Fatal(err)
	}
	ca.got, cb.got = nil, nil
	send(t, ea, &transport.Header{Tag: 5}, []byte("again"), ts, hs)
	send(t, eb, &transport.Header{Tag: 6}, []byte("again"), ts, hs)
	pollUntil(t, func() bool { return len(cb.got[8]) == 1 && len(ca.got[5]) == 1 }, ts, hs)
}

// TestOpenAddErrors: Add refuses what cannot be a card, a card added already, the
// process's own card and an index in use; a job's transport has no card and adds
// nobody.
func TestOpenAddErrors(t *testing.T) {
	a, b := openPair(t, Options{})
	good := b.Card()
	c, _ := parseCard(good)
	short := *c
	short.secret = short.secret[:8]
	none := *c
	none.addrs = nil
	for _, tc := range []struct {
		name string
		card []byte
		want string
	}{
		{"garbage", []byte("hello"), "not a card"},
		{"cut", good[:len(good)-3], "cut short"},
		{"long", append(append([]byte(nil), good...), 0), "too many"},
		{"secret", short.encode(), "fewer than 16"},
		{"addresses", none.encode(), "no address"},
		{"own", a.Card(), "own"},
	} {
		if err := a.Add(4, tc.card); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Add: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	if err := a.Add(-1, good); err == nil {
		t.Error("Add(-1) succeeded")
	}
	if err := a.Add(4, good); err != nil {
		t.Fatal(err)
	}
	if err := a.Add(4, good); err == nil || !strings.Contains(err.Error(), "added already") {
		t.Errorf("second Add of index 4: %v", err)
	}
	if err := a.Add(5, good); err == nil || !strings.Contains(err.Error(), "as peer 4") {
		t.Errorf("Add of the same card under 5: %v", err)
	}
	if _, err := a.Endpoint(3); err == nil {
		t.Error("Endpoint of a peer never added succeeded")
	}
	if err := a.Start(); err == nil {
		t.Error("Start of an open transport succeeded")
	}
	jt := job(t, 2, Options{})
	if jt[0].Card() != nil {
		t.Error("a job's transport has a card")
	}
	if err := jt[0].Add(2, good); err == nil {
		t.Error("a job's transport added a peer")
	}
	jt[0].Remove(1) // nothing
	if !jt[0].Reaches(1) {
		t.Error("Remove changed a job's transport")
	}
}

// TestDialOrder: loopback first on the card's own host, last on another.
func TestDialOrder(t *testing.T) {
	c := &card{host: "h1", addrs: []string{"127.0.0.1:5", "10.0.0.1:6", "[::1]:7", "10.0.1.1:8"}}
	if got := strings.Join(c.dialOrder("h1"), " "); got != "127.0.0.1:5 [::1]:7 10.0.0.1:6 10.0.1.1:8" {
		t.Errorf("same host: %s", got)
	}
	if got := strings.Join(c.dialOrder("h2"), " "); got != "10.0.0.1:6 10.0.1.1:8 127.0.0.1:5 [::1]:7" {
		t.Errorf("other host: %s", got)
	}
	if got := strings.Join(c.dialOrder(""), " "); got != "10.0.0.1:6 10.0.1.1:8 127.0.0.1:5 [::1]:7" {
		t.Errorf("unknown host: %s", got)
	}
	a, err := Open(Options{Interfaces: "127.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ac, _ := parseCard(a.Card())
	if len(ac.addrs) != 1 || !strings.HasPrefix(ac.addrs[0], "127.") {
		t.Errorf("with tcp_interfaces 127.0.0.0/8 the card lists %v", ac.addrs)
	}
}

// TestOpenZeroAllocs: open mode's Send and Poll allocate nothing per packet either.
func TestOpenZeroAllocs(t *testing.T) {
	a, b := openPair(t, Options{})
	a.Add(4, b.Card())
	b.Add(9, a.Card())
	e, err := a.Endpoint(4)
	if err != nil {
		t.Fatal(err)
	}
	c := &counter{}
	h := &transport.Header{Tag: 1}
	p := make([]byte, 64)
	e.Send(h, p)
	for c.n == 0 {
		b.Poll(c)
	}
	allocs := testing.AllocsPerRun(200, func() {
		want := c.n + 1
		for e.Send(h, p) != nil {
			b.Poll(c)
		}
		for c.n < want {
			b.Poll(c)
		}
	})
	if allocs != 0 {
		t.Errorf("Send+Poll in open mode: %v allocations per packet, want 0", allocs)
	}
}
