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
// (context.DeadlineExceeded) or a context already noted.
func nextServed(e *Engine, claim func(uint32) bool) (uint32, error) {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	return e.NextServed(c, claim)
}

func claimAll(uint32) bool { return true }

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

// TestServedContexts: NextServed hands out the served contexts on which a message of
// their tag has arrived, in the order they first got one, each once however many
// came; other tags and contexts wake nothing; a context whose messages someone else
// took leaves the list; a refused claim keeps it there and lets the next one go first.
func TestServedContexts(t *testing.T) {
	es := newMemNet(2).engines(t, Options{})
	e := es[1]
	e.Concurrent()
	for _, c := range []uint32{10, 11, 12} {
		e.ServeContext(c, 1)
	}
	send := func(ctx uint32, tag int) {
		t.Helper()
		mustOK(t, es[0].Send(Bytes([]byte{byte(ctx)}), 1, tag, ctx, Standard))
	}
	send(12, 1)
	send(10, 2) // not the served tag
	send(13, 1) // not a served context
	send(11, 1)
	send(12, 1)  // 12 is noted already
	send(100, 1) // a context never made
	for _, want := range []uint32{12, 11} {
		got, err := nextServed(e, claimAll)
		if err != nil || got != want {
			t.Fatalf("NextServed = %d, %v; want %d", got, err, want)
		}
		takeAll(t, e, got, 1)
	}
	if got, err := nextServed(e, claimAll); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("NextServed with nothing of a served tag left = %d, %v; want the deadline", got, err)
	}

	// Taken by someone else: noted for nothing, dropped without a claim.
	send(10, 1)
	if _, err := nextServed(e, func(uint32) bool { return false }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("NextServed with its claim refused: %v, want the deadline", err)
	}
	takeAll(t, e, 10, 1)
	asked := 0
	if _, err := nextServed(e, func(uint32) bool { asked++; return true }); !errors.Is(err, context.DeadlineExceeded) || asked != 0 {
		t.Fatalf("NextServed after the message was taken: %v after %d claims; want the deadline, no claim", err, asked)
	}

	// A refused claim: the context stays, the next one goes first.
	send(10, 1)
	send(11, 1)
	got, err := nextServed(e, func(c uint32) bool { return c != 10 })
	if err != nil || got != 11 {
		t.Fatalf("NextServed refusing 10 = %d, %v; want 11", got, err)
	}
	takeAll(t, e, 11, 1)
	if got, err := nextServed(e, claimAll); err != nil || got != 10 {
		t.Fatalf("NextServed after the refusal = %d, %v; want 10", got, err)
	}
	takeAll(t, e, 10, 1)

	// Unserved: its messages note nothing, and a noted one leaves the list.
	send(12, 1)
	e.UnserveContext(12)
	send(12, 1)
	if got, err := nextServed(e, claimAll); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("NextServed after UnserveContext(12) = %d, %v; want the deadline", got, err)
	}
	// Served again, with its messages queued: noted at once.
	e.ServeContext(12, 1)
	if got, err := nextServed(e, claimAll); err != nil || got != 12 {
		t.Fatalf("NextServed after ServeContext(12) with messages queued = %d, %v; want 12", got, err)
	}
	if n := takeAll(t, e, 12, 1); n != 2 {
		t.Fatalf("%d messages queued on 12, want 2", n)
	}
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
	e.ServeContext(7, 1)
	type result struct {
		ctx uint32
		err error
	}
	wait := func() <-chan result {
		r := make(chan result, 1)
		go func() {
			ctx, err := e.NextServed(nil, claimAll)
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
	takeAll(t, e, 7, 1)
	r = wait()
	e.InterruptServed()
	if got := <-r; !errors.Is(got.err, ErrInterrupted) {
		t.Fatalf("NextServed interrupted = %d, %v; want ErrInterrupted", got.ctx, got.err)
	}
	if got, err := nextServed(e, claimAll); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("NextServed after the interrupt was taken = %d, %v; want the deadline", got, err)
	}
	e.Close()
	if _, err := e.NextServed(nil, claimAll); !errors.Is(err, ErrClosed) {
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
	apply := func(ctx uint32) { // mus[ctx] held
		for {
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
		e.ServeContext(c, 1)
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
	claim := func(c uint32) bool {
		claimed = c
		return mus[c].TryLock()
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
		ctx, err := nextServed(e, claim)
		if errors.Is(err, context.DeadlineExceeded) {
			continue
		}
		mustOK(t, err)
		if ctx != claimed {
			t.Fatalf("NextServed returned %d, claimed %d", ctx, claimed)
		}
		apply(ctx)
		mus[ctx].Unlock()
	}
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
	e.ServeContext(3, 1)
	var b [1]byte
	allocs := testing.AllocsPerRun(100, func() {
		mustOK(t, es[0].Send(Bytes(b[:]), 1, 1, 3, Standard))
		if _, err := e.NextServed(nil, claimAll); err != nil {
			t.Fatal(err)
		}
		m, _, ok, err := e.ImprobeQueued(AnySource, 1, 3)
		if !ok || err != nil {
			t.Fatal(ok, err)
		}
		e.Mrecv(Bytes(b[:]), &m)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per message served, want 0", allocs)
	}
}
