package p2p

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/mpigo/mpigo/internal/transport"
)

// progressUntil drives e until cond holds.
func progressUntil(e *Engine, cond func() bool) {
	for !cond() {
		e.Progress()
		runtime.Gosched()
	}
}

// Messages that arrive before their receive are counted, per context and in all,
// tracked by a watermark while one is tracked, and logged while wanted (the rest
// dropped and counted when the log is full); receiving them empties the queue and
// leaves the counts.
func TestUnexpectedCounts(t *testing.T) {
	net := newMemNet(2)
	log := NewEventLog(4)
	es := net.engines(t, Options{Events: log})
	var hwm atomic.Uint64
	untrack := es[0].TrackUnexpectedMax(&hwm)
	log.Want(EventUnexpected, true)
	sizes := []int{0, 10, 100, 1000, 200000} // the last goes by rendezvous: its request waits
	var reqs []Request
	total := 0
	for i, n := range sizes {
		total += n
		q, err := es[1].Isend(Bytes(make([]byte, n)), 0, i, 4, Standard)
		mustOK(t, err)
		reqs = append(reqs, q)
	}
	st, ctx := es[0].Stats(), es[0].ContextStats(4)
	progressUntil(es[0], func() bool { return atomic.LoadUint64(&st.Queued) == uint64(len(sizes)) })
	for _, s := range []*QueueStats{st, ctx} {
		if s.Unexpected != 5 || s.UnexpectedBytes != uint64(total) || s.Queued != 5 {
			t.Errorf("after 5 unexpected messages: %+v, want 5 of %d bytes queued", *s, total)
		}
	}
	if other := es[0].ContextStats(6); *other != (QueueStats{}) {
		t.Errorf("another context counts %+v", *other)
	}
	if hwm.Load() != 5 {
		t.Errorf("watermark %d, want 5", hwm.Load())
	}
	var got []Event
	dropped := log.Drain(func(ev Event) { got = append(got, ev) })
	if len(got) != 4 || dropped[EventUnexpected] != 1 {
		t.Fatalf("log: %d events, %d dropped; want 4 and 1 (a log of 4)", len(got), dropped[EventUnexpected])
	}
	for i, ev := range got {
		if ev.Kind != EventUnexpected || ev.Src != 1 || ev.Tag != int32(i) || ev.Ctx != 4 || ev.Len != int64(sizes[i]) {
			t.Errorf("event %d: %+v", i, ev)
		}
		if i > 0 && ev.Time < got[i-1].Time {
			t.Errorf("event %d is earlier than the one before", i)
		}
	}
	untrack()
	log.Want(EventUnexpected, false)
	for i, n := range sizes {
		if _, err := es[0].Recv(Bytes(make([]byte, n)), 1, i, 4); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range reqs {
		if _, err := es[1].Wait(&q); err != nil {
			t.Fatal(err)
		}
	}
	if st.Queued != 0 || ctx.Queued != 0 || st.Unexpected != 5 {
		t.Errorf("after the receives: %+v, %+v", *st, *ctx)
	}
	// Untracked and unwanted, a later unexpected message moves neither.
	mustOK(t, es[1].Send(Bytes(nil), 0, 9, 4, Standard))
	progressUntil(es[0], func() bool { return atomic.LoadUint64(&st.Queued) == 1 })
	if hwm.Load() != 5 || log.Drain(func(Event) { t.Error("an event logged while unwanted") })[EventUnexpected] != 0 {
		t.Errorf("watermark %d after untrack", hwm.Load())
	}
}

// What a rank sent is summed per transport, eager and rendezvous apart, each
// rendezvous by how it ended.
func TestTransportStats(t *testing.T) {
	for _, c := range []struct {
		proto string
		want  TransportStats // besides Messages and Bytes
	}{
		{"pipeline", TransportStats{Rendezvous: 4, Pipeline: 4}},
		{"get", TransportStats{Rendezvous: 4, Get: 4}},
		// Eager where the packet holds the message, else pipeline.
		{"eager", TransportStats{Eager: 2, Rendezvous: 2, Pipeline: 2}},
	} {
		proto := c.proto
		net := newMemNet(2)
		es := net.engines(t, Options{Protocol: proto})
		for _, n := range []int{8, 100, 5000, 70000} {
			done := goSend(es[0], Bytes(make([]byte, n)), 1, 0)
			if _, err := es[1].Recv(Bytes(make([]byte, n)), 0, 0, 0); err != nil {
				t.Fatal(err)
			}
			wantNil(t, done)
		}
		self, err := es[0].Isend(Bytes(make([]byte, 3)), 0, 0, 0, Standard) // to itself
		mustOK(t, err)
		if _, err := es[0].Recv(Bytes(make([]byte, 3)), 0, 0, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := es[0].Wait(&self); err != nil {
			t.Fatal(err)
		}
		s := es[0].TransportStats("mem")
		want := c.want
		want.Messages, want.Bytes = 4, 75108
		if s != want {
			t.Errorf("%s: mem: %+v, want %+v", proto, s, want)
		}
		if s := es[0].TransportStats("self"); s.Messages != 1 || s.Bytes != 3 || s.Eager+s.Rendezvous != 1 {
			t.Errorf("%s: self: %+v", proto, s)
		}
		if s := es[0].TransportStats("tcp"); s != (TransportStats{}) {
			t.Errorf("%s: a transport not in use: %+v", proto, s)
		}
	}
}

// The waits are timed while watched, and only then.
func TestWaitTime(t *testing.T) {
	net := newMemNet(2)
	es := net.engines(t, Options{})
	recvBlocked := func() {
		posted := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			// Send only once the receive is posted, so that its wait must block.
			<-posted
			progressUntil(es[1], func() bool {
				es[0].mu.Lock()
				defer es[0].mu.Unlock()
				q := es[0].ctxq(0)
				return len(q.bySrc) > 1 && q.bySrc[1].head != nil
			})
			done <- es[1].Send(Bytes([]byte{1}), 0, 0, 0, Standard)
		}()
		close(posted)
		if _, err := es[0].Recv(Bytes(make([]byte, 1)), 1, 0, 0); err != nil {
			t.Fatal(err)
		}
		wantNil(t, done)
	}
	recvBlocked()
	if es[0].WaitTime() != 0 {
		t.Fatalf("waits timed while nobody watched: %v", es[0].WaitTime())
	}
	es[0].WatchWaits(1)
	recvBlocked()
	es[0].WatchWaits(-1)
	if es[0].WaitTime() <= 0 {
		t.Fatalf("a blocked receive took no time while watched")
	}
}

// A peer's failure is logged while wanted.
func TestPeerFailedEvent(t *testing.T) {
	net := newMemNet(3)
	log := NewEventLog(8)
	es := net.engines(t, Options{Events: log})
	log.Want(EventPeerFailed, true)
	es[0].PeerFailed(2, transport.ErrPeerGone)
	es[0].Progress()
	var got []Event
	log.Drain(func(ev Event) { got = append(got, ev) })
	if len(got) != 1 || got[0].Kind != EventPeerFailed || got[0].Src != 2 {
		t.Fatalf("events %+v, want rank 2's failure", got)
	}
	select {
	case <-log.Ready():
	default:
		t.Error("the log did not say it had events")
	}
}

// Retune applies a written eager_limit and protocol to the peers already connected.
func TestRetune(t *testing.T) {
	net := newMemNet(2)
	es := net.engines(t, Options{})
	mustOK(t, es[0].Send(Bytes([]byte{1}), 1, 0, 0, Standard))
	before := es[0].peers[1].eagerMax
	limit, _ := setEagerLimit.Value()
	proto, _ := setProtocol.Value()
	t.Cleanup(func() {
		mustOK(t, setEagerLimit.Set(limit))
		mustOK(t, setProtocol.Set(proto))
		mustOK(t, es[0].Retune())
	})
	mustOK(t, setEagerLimit.Set("16"))
	mustOK(t, es[0].Retune())
	if got := es[0].peers[1].eagerMax; got != 16 || before <= 16 {
		t.Errorf("eager max %d after eager_limit=16 (was %d)", got, before)
	}
	mustOK(t, setProtocol.Set("pipeline"))
	mustOK(t, es[0].Retune())
	if got := es[0].peers[1].table.lookup(100000); got != transport.Pipeline {
		t.Errorf("after p2p_protocol=pipeline a large message goes by %v", got)
	}
}
