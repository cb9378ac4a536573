package tcp

import (
	"bytes"
	"errors"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/mpigo/mpigo/internal/transport"
)

// kindPlaced marks the test packets a placer puts straight into its buffer.
const kindPlaced = 9

// placer is a handler that places the payloads of kindPlaced packets at their Offset in
// dst, as the engine places pipeline fragments in a receive buffer, and keeps copies of
// the other packets.
type placer struct {
	collector
	dst    []byte
	asked  int // Place calls
	placed int // packets handed over in dst itself
}

func (p *placer) Place(h *transport.Header, n int) []byte {
	p.asked++
	if h.Kind != kindPlaced || h.Offset+uint64(n) > uint64(len(p.dst)) {
		return nil
	}
	return p.dst[h.Offset : h.Offset+uint64(n)]
}

func (p *placer) Packet(h *transport.Header, b []byte) {
	if h.Kind == kindPlaced {
		// A packet that had arrived whole when Poll saw it is handed over from the
		// stream's buffer, as a handler that cannot place it would get it.
		if len(b) > 0 && unsafe.SliceData(b) == &p.dst[h.Offset] {
			p.placed++
		} else {
			copy(p.dst[h.Offset:], b)
		}
	}
	p.collector.Packet(h, b)
}

var _ Placer = (*placer)(nil)

// TestPlacedPayloads sends large packets that the handler places, interleaved with
// large ones it does not place (they are staged) and small ones, and checks that every
// packet arrives in order and whole, placed ones in their destination.
func TestPlacedPayloads(t *testing.T) {
	ts := job(t, 2, Options{MaxPayload: 256 << 10})
	e, err := ts[0].Endpoint(1)
	if err != nil {
		t.Fatal(err)
	}
	const chunk = 200 << 10
	const count = 24
	msg := pattern(3, chunk*count)
	p := &placer{dst: make([]byte, len(msg))}
	hs := []transport.Handler{&collector{}, p}
	for seq := range count {
		off := seq * chunk
		h := transport.Header{Kind: kindPlaced, Src: 0, Offset: uint64(off)}
		send(t, e, &h, msg[off:off+chunk], ts, hs)
		// Packets in between: a large unplaced one (staged) and a small one.
		h = transport.Header{Kind: 1, Src: 0, Tag: int32(seq)}
		send(t, e, &h, pattern(seq, 100<<10+seq), ts, hs)
		h = transport.Header{Kind: 2, Src: 0, Tag: int32(seq)}
		send(t, e, &h, nil, ts, hs)
	}
	more := deadline(t)
	for len(p.got[0]) < 3*count && more() {
		ts[1].Poll(p)
	}
	// The first is placed for sure (the stream's buffer starts smaller than it); the
	// rest may have arrived whole first, depending on when Poll ran.
	if p.placed == 0 {
		t.Errorf("no packet placed (Place asked %d times)", p.asked)
	}
	if !bytes.Equal(p.dst, msg) {
		t.Errorf("placed payloads differ from what was sent")
	}
	for i, pk := range p.got[0] {
		seq, kind := i/3, uint8([]int{kindPlaced, 1, 2}[i%3])
		if pk.h.Kind != kind {
			t.Fatalf("packet %d: kind %d, want %d", i, pk.h.Kind, kind)
		}
		switch kind {
		case kindPlaced:
			if pk.h.Offset != uint64(seq*chunk) || len(pk.payload) != chunk {
				t.Fatalf("packet %d: offset %d, %d bytes", i, pk.h.Offset, len(pk.payload))
			}
		case 1:
			if pk.h.Tag != int32(seq) || !bytes.Equal(pk.payload, pattern(seq, 100<<10+seq)) {
				t.Fatalf("packet %d (staged, tag %d): wrong tag or payload", i, pk.h.Tag)
			}
		case 2:
			if pk.h.Tag != int32(seq) || len(pk.payload) != 0 {
				t.Fatalf("packet %d (empty, tag %d): %d bytes", i, pk.h.Tag, len(pk.payload))
			}
		}
	}
}

// placeCounter places everything and keeps nothing, for allocation counts.
type placeCounter struct {
	dst       []byte
	n, placed int
}

func (c *placeCounter) Place(h *transport.Header, n int) []byte { return c.dst[:n] }

func (c *placeCounter) Packet(h *transport.Header, p []byte) {
	c.n++
	if len(p) > 0 && unsafe.SliceData(p) == unsafe.SliceData(c.dst) {
		c.placed++
	}
}

func TestPlacedZeroAllocs(t *testing.T) {
	ts := job(t, 2, Options{})
	e, err := ts[0].Endpoint(1)
	if err != nil {
		t.Fatal(err)
	}
	c := &placeCounter{dst: make([]byte, e.MaxPayload())}
	h := &transport.Header{Src: 0, Tag: 1}
	p := make([]byte, e.MaxPayload())
	allocs := testing.AllocsPerRun(100, func() {
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
		}
	})
	if c.placed == 0 {
		t.Errorf("none of %d packets placed", c.n)
	}
	if allocs != 0 {
		t.Errorf("placed %d-byte Send+Poll: %v allocations per packet, want 0", len(p), allocs)
	}
}

// TestWholePackets fills a socket with large packets while the receiver does not read:
// Send must refuse (ErrWouldBlock) rather than let the kernel take part of a packet,
// whose tail it would have to copy aside.
func TestWholePackets(t *testing.T) {
	ts := job(t, 2, Options{})
	c := &collector{}
	ep, err := ts[0].Endpoint(1)
	if err != nil {
		t.Fatal(err)
	}
	e := ep.(*endpoint)
	max := e.MaxPayload()
	src := pattern(0, max+64)
	payload := func(seq int) []byte { return src[seq%64 : seq%64+max-seq%7] }
	sent := 0
	for round := range 3 {
		for {
			h := transport.Header{Src: 0, Offset: uint64(sent)}
			err := e.Send(&h, payload(sent))
			if errors.Is(err, transport.ErrWouldBlock) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			sent++
			if sent > 10000 {
				t.Fatal("the socket never filled")
			}
		}
		if e.pendBuf != nil {
			t.Fatalf("round %d: a packet was written in part (%d sent)", round, sent)
		}
		// Drain part of it, so that the next round starts from a partly full socket.
		more := deadline(t)
		for len(c.got[0]) < sent-round*3 && more() {
			ts[1].Poll(c)
		}
	}
	more := deadline(t)
	for len(c.got[0]) < sent && more() {
		ts[1].Poll(c)
	}
	for seq, p := range c.got[0] {
		if p.h.Offset != uint64(seq) || !bytes.Equal(p.payload, payload(seq)) {
			t.Fatalf("packet %d: offset %d, %d bytes", seq, p.h.Offset, len(p.payload))
		}
	}
}

// TestDoorbellWhenDrained shows a sender that sleeps because its socket is full is
// woken when the receiver drains it: armed, the watcher rings on EPOLLOUT.
func TestDoorbellWhenDrained(t *testing.T) {
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
	e, err := t0.Endpoint(1)
	if err != nil {
		t.Fatal(err)
	}
	p := make([]byte, e.MaxPayload())
	sent := 0
	for {
		err := e.Send(&transport.Header{Src: 0}, p)
		if errors.Is(err, transport.ErrWouldBlock) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if sent++; sent > 10000 {
			t.Fatal("the socket never filled")
		}
	}
	seq := bell.Seq()
	t0.Arm()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for bell.Seq() == seq { // the timeout is only a safety net: the ring ends it
			bell.Wait(seq, 10*time.Second)
		}
	}()
	c := &counter{}
	more := deadline(t)
	for c.n < sent && more() {
		t1.Poll(c)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the doorbell did not ring when the socket drained")
	}
	if err := e.Send(&transport.Header{Src: 0}, p); err != nil {
		t.Fatalf("Send after the socket drained: %v", err)
	}
	// Arm again: the one-shot was used, so it must be re-armed (nothing is blocked
	// now, so nothing is).
	t0.Arm()
	if e.(*endpoint).outArmed.Load() {
		t.Error("a socket that is not blocked is watched")
	}
}

// TestPlacedPeerGone: once a peer is known gone (here, as if a send to it had failed),
// the rest of a payload being placed must not land in the destination, which the
// engine is about to give back to the user with an error.
func TestPlacedPeerGone(t *testing.T) {
	ts := job(t, 2, Options{})
	ep, err := ts[0].Endpoint(1)
	if err != nil {
		t.Fatal(err)
	}
	e := ep.(*endpoint)
	const plen, first = 200 << 10, 50 << 10
	// Write a frame by hand, header and the first part of the payload only.
	var frame [frameSize]byte
	putFrame(&frame, &transport.Header{Kind: kindPlaced, Src: 0}, plen)
	part := append(frame[:], pattern(1, first)...)
	if n, err := unix.Write(e.fd, part); err != nil || n != len(part) {
		t.Fatalf("write: %d, %v", n, err)
	}
	p := &placer{dst: make([]byte, plen)}
	more := deadline(t)
	for p.asked == 0 && more() {
		ts[1].Poll(p)
	}
	rc := ts[1].link(0).recv.Load()
	for rc.dstGot < first && more() {
		ts[1].Poll(p)
	}
	ts[1].markGone(ts[1].link(0), errors.New("test: send failed"))
	rest := pattern(2, plen-first)
	if n, err := unix.Write(e.fd, rest); err != nil || n != len(rest) {
		t.Fatalf("write: %d, %v", n, err)
	}
	ts[1].Poll(p)
	if len(p.got[0]) != 0 {
		t.Fatal("the packet was handed over")
	}
	if !bytes.Equal(p.dst[:first], pattern(1, first)) {
		t.Error("the first part is not in place")
	}
	if !bytes.Equal(p.dst[first:], make([]byte, plen-first)) {
		t.Error("bytes landed in the destination after the peer was gone")
	}
	if ts[1].link(0).recv.Load() != nil {
		t.Error("the stream from the gone peer is still read")
	}
}

// copier is a handler that copies each payload into dst, as the engine does with a
// fragment it was not asked to place.
type copier struct {
	dst []byte
	n   int
}

func (c *copier) Packet(h *transport.Header, p []byte) { copy(c.dst, p); c.n++ }

// BenchmarkSendPollPlaced is BenchmarkSendPoll for a large fragment bound for a buffer:
// staged (read into the stream's buffer, then copied) against placed (read straight
// into the buffer). One goroutine does both sides, so scheduling stays out of it.
func BenchmarkSendPollPlaced(b *testing.B) {
	for _, placed := range []bool{false, true} {
		name := "staged"
		if placed {
			name = "placed"
		}
		b.Run(name, func(b *testing.B) {
			ts := job(b, 2, Options{})
			e, err := ts[0].Endpoint(1)
			if err != nil {
				b.Fatal(err)
			}
			size := e.MaxPayload()
			var h transport.Handler
			var count *int
			if placed {
				c := &placeCounter{dst: make([]byte, size)}
				h, count = c, &c.n
			} else {
				c := &copier{dst: make([]byte, size)}
				h, count = c, &c.n
			}
			hdr := &transport.Header{}
			p := make([]byte, size)
			b.ReportAllocs()
			b.SetBytes(int64(size))
			b.ResetTimer()
			for i := range b.N {
				for {
					err := e.Send(hdr, p)
					if err == nil {
						break
					}
					if !errors.Is(err, transport.ErrWouldBlock) {
						b.Fatal(err)
					}
					ts[1].Poll(h)
				}
				for *count <= i {
					ts[1].Poll(h)
				}
			}
		})
	}
}
