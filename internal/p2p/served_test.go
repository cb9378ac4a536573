package p2p

import (
	"context"
	"encoding/binary"
	"errors"
	"sync"
	"testing"
	"time"
)

// nextServed is NextServed with a short deadline, for a test that expects nothing
// (context.DeadlineExceeded) or a message already queued, which it receives: it
// returns the context and the message's first byte.
func nextServed(t *testing.T, e *Engine, claim func(any) bool) (uint32, byte, error) {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	o, m, st, err := e.NextServed(c, claim)
	if err != nil {
		return 0, 0, err
	}
	ctx := o.(uint32)
	var b [8]byte
	if _, err := e.Mrecv(Bytes(b[:]), &m); err != nil {
		t.Fatal(err)
	}
	if st.Count != 1 {
		t.Fatalf("NextServed's status: count %d, want 1", st.Count)
	}
	return ctx, b[0], nil
}

func claimAll(any) bool { return true }

// takeAll receives every queued message of tag on ctx.
func takeAll(t *testing.T, e *Engine, ctx uint32, tag int) int {
	t.Helper()
	n := 0
	for {
		m, _, ok, err := e.ImprobeQueued(AnySource, tag, ctx)
		mustOK(t, err)
		if !ok {
			return n
		}
		var b [8]byte
		if _, err := e.Mrecv(Bytes(b[:]), &m); err != nil {
			t.Fatal(err)
		}
		n++
	}
}

// TestServedContexts: NextServed hands out the messages of the served tag on the
// served contexts, a context at a time in the order they first got one (a context
// with more goes to the back); other tags and contexts wake nothing; a context whose
// messages someone else took leaves the list; a refused claim keeps it there and
// lets the next one go first.
func TestServedContexts(t *testing.T) {
	es := newMemNet(2).engines(t, Options{})
	e := es[1]
	e.Concurrent()
	for _, c := range []uint32{10, 11, 12} {
		e.ServeContext(c, 1, c)
	}
	seq := byte(0)
	send := func(ctx uint32, tag int) {
		t.Helper()
		seq++
		mustOK(t, es[0].Send(Bytes([]byte{seq}), 1, tag, ctx, Standard))
	}
	want := func(claim func(any) bool, ctx uint32, b byte) {
		t.Helper()
		got, gb, err := nextServed(t, e, claim)
		if err != nil || got != ctx || gb != b {
			t.Fatalf("NextServed = context %d message %d, %v; want context %d message %d", got, gb, err, ctx, b)
		}
	}
	none := func(claim func(any) bool) {
		t.Helper()
		if got, b, err := nextServed(t, e, claim); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("NextServed = context %d message %d, %v; want the deadline", got, b, err)
		}
	}
	send(12, 1)  // 1
	send(10, 2)  // 2: not the served tag
	send(13, 1)  // 3: not a served context
	send(11, 1)  // 4
	send(12, 1)  // 5: 12 is noted already
	send(100, 1) // 6: a context never made
	want(claimAll, 12, 1)
	want(claimAll, 11, 4)
	want(claimAll, 12, 5)
	none(claimAll)

	// Taken by someone else: noted for nothing, dropped without a claim.
	send(10, 1)
	none(func(any) bool { return false })
	if n := takeAll(t, e, 10, 1); n != 1 {
		t.Fatalf("%d messages of tag 1 queued on 10, want 1", n)
	}
	asked := 0
	none(func(any) bool { asked++; return true })
	if asked != 0 {
		t.Fatalf("%d claims of a context whose messages were taken, want none", asked)
	}

	// A refused claim: the context stays, the next one goes first.
	send(10, 1) // 8
	send(11, 1) // 9
	want(func(o any) bool { return o.(uint32) != 10 }, 11, 9)
	want(claimAll, 10, 8)

	// Unserved: its messages note nothing, and a noted one leaves the list.
	send(12, 1) // 10
	e.UnserveContext(12)
	send(12, 1) // 11
	none(claimAll)
	// Served again, with its messages queued: noted at once.
	e.ServeContext(12, 1, uint32(12))
	want(claimAll, 12, 10)
	want(claimAll, 12, 11)
	none(claimAll)
	// The unserved tag's message stays for its receiver.
	if n := takeAll(t, e, 10, 2); n != 1 {
		t.Fatalf("%d messages of tag 2 on 10, want 1", n)
	}
}

// TestServedWakes: a NextServed asleep wakes for a message of a served context and
// for InterruptServed, which a later NextServed does not see again.
func TestServedWakes(t *testing.T) {
	es := newMemNet(2).engines(t, Options{Spin: -1, Yield: -1})
	e := es[1]
	e.Concurrent()
	e.ServeContext(7, 1, uint32(7))
	type result struct {
		ctx uint32
		err error
	}
	wait := func() <-chan result {
		r := make(chan result, 1)
		go func() {
			o, m, _, err := e.NextServed(nil, claimAll)
			var ctx uint32
			if err == nil {
				ctx = o.(uint32)
				var b [1]byte
				_, err = e.Mrecv(Bytes(b[:]), &m)
			}
			r <- result{ctx, err}
		}()
		// Until it sleeps: the wake must come from the doorbell.
		for e.sleepers.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		return r
	}
	r := wait()
	mustOK(t, es[0].Send(Bytes([]byte{1}), 1, 1, 7, Standard))
	if got := <-r; got.err != nil || got.ctx != 7 {
		t.Fatalf("NextServed woken by a message = %d, %v; want 7", got.ctx, got.err)
	}
	r = wait()
	e.InterruptServed()
	if got := <-r; !errors.Is(got.err, ErrInterrupted) {
		t.Fatalf("NextServed interrupted = %d, %v; want ErrInterrupted", got.ctx, got.err)
	}
	if got, _, err := nextServed(t, e, claimAll); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("NextServed after the interrupt was taken = %d, %v; want the deadline", got, err)
	}
	e.Close()
	if _, _, _, err := e.NextServed(nil, claimAll); !errors.Is(err, ErrClosed) {
		t.Fatalf("NextServed of a closed engine: %v, want ErrClosed", err)
	}
}

// TestServedOrder: one server for many contexts and, per context, a drainer that
// takes the same context's messages under the same lock (a window's call that serves
// while it waits) apply every message exactly once and in the order sent.
func TestServedOrder(t *testing.T) {
	const nctx, n = 8, 400
	es := newMemNet(2).engines(t, Options{})
	e := es[1]
	e.Concurrent()
	es[0].Concurrent()
	var mus [nctx]sync.Mutex
	var got [nctx][]uint32
	apply := func(ctx uint32) { // mus[ctx] held; a few at a time, so the server takes some
		for range 4 {
			m, _, ok, err := e.ImprobeQueued(AnySource, 1, ctx)
			if err != nil || !ok {
				return
			}
			var b [4]byte
			if _, err := e.Mrecv(Bytes(b[:]), &m); err != nil {
				t.Error(err)
				return
			}
			got[ctx] = append(got[ctx], binary.LittleEndian.Uint32(b[:]))
		}
	}
	for c := range uint32(nctx) {
		e.ServeContext(c, 1, c)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range n {
			for c := range uint32(nctx) {
				var b [4]byte
				binary.LittleEndian.PutUint32(b[:], uint32(i))
				if err := es[0].Send(Bytes(b[:]), 1, 1, c, Standard); err != nil {
					t.Error(err)
					return
				}
			}
		}
	}()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range uint32(nctx) {
		wg.Add(1)
		go func() { // the drainers
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				e.Progress()
				if mus[c].TryLock() {
					apply(c)
					mus[c].Unlock()
				}
				time.Sleep(10 * time.Microsecond)
			}
		}()
	}
	var claimed uint32
	served := 0
	claim := func(o any) bool {
		claimed = o.(uint32)
		return mus[claimed].TryLock()
	}
	total := func() int {
		s := 0
		for c := range nctx {
			mus[c].Lock()
			s += len(got[c])
			mus[c].Unlock()
		}
		return s
	}
	for total() < nctx*n {
		c, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		o, m, _, err := e.NextServed(c, claim)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			continue
		}
		mustOK(t, err)
		ctx := o.(uint32)
		if ctx != claimed {
			t.Fatalf("NextServed returned %d, claimed %d", ctx, claimed)
		}
		var b [4]byte
		if _, err := e.Mrecv(Bytes(b[:]), &m); err != nil {
			t.Fatal(err)
		}
		got[ctx] = append(got[ctx], binary.LittleEndian.Uint32(b[:]))
		served++
		mus[ctx].Unlock()
	}
	t.Logf("%d messages taken by the server, %d by the drainers", served, nctx*n-served)
	close(stop)
	wg.Wait()
	<-done
	for c := range nctx {
		for i, v := range got[c] {
			if v != uint32(i) {
				t.Fatalf("context %d: message %d applied %d-th", c, v, i)
			}
		}
		if len(got[c]) != n {
			t.Fatalf("context %d: %d messages applied, want %d", c, len(got[c]), n)
		}
	}
}

// TestServedNoAlloc: handing out a context allocates nothing.
func TestServedNoAlloc(t *testing.T) {
	es := newMemNet(2).engines(t, Options{})
	e := es[1]
	e.ServeContext(3, 1, uint32(3))
	var b [1]byte
	allocs := testing.AllocsPerRun(100, func() {
		mustOK(t, es[0].Send(Bytes(b[:]), 1, 1, 3, Standard))
		_, m, _, err := e.NextServed(nil, claimAll)
		if err != nil {
			t.Fatal(err)
		}
		e.Mrecv(Bytes(b[:]), &m)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per message served, want 0", allocs)
	}
}
