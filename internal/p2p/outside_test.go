package p2p

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mpigo/mpigo/internal/transport"
	"github.com/mpigo/mpigo/internal/transport/shm"
)

// outsideMin is the compact cell's payload that the C way writes.
func TestOutsideMinIsTheCompactCell(t *testing.T) {
	if outsideMin != shm.OutsideInline {
		t.Fatalf("outsideMin %d, shm's compact cell %d", outsideMin, shm.OutsideInline)
	}
}

// The words the C short way for small sends reads (outside.go): its ok word, and per
// world rank the ring it may write into, published exactly while nothing is queued
// to the peer, and the peer's eager limit; and the traffic counts in the same memory.
func TestOutsideWords(t *testing.T) {
	es := shmEngines(t, 2, Options{Serialized: true, Spin: 100, Yield: 10})
	e, r := es[0], es[1]
	if e.out.ok != 1 || e.out.self != 0 || e.out.size != 2 {
		t.Fatalf("a serialised engine's head: ok %d self %d size %d", e.out.ok, e.out.self, e.out.size)
	}
	if e.rings[1] != 0 {
		t.Fatalf("rank 1's ring published before the engine connected to it")
	}
	msg := []byte("12345678")
	if err := e.Send(Bytes(msg), 1, 3, 0, Standard); err != nil {
		t.Fatal(err)
	}
	ep := e.peers[1].ep.(transport.OutsideRing)
	if e.rings[1] == 0 || e.rings[1] != ep.OutsideRing() {
		t.Fatalf("connected: rank 1's ring %#x, the endpoint's %#x", e.rings[1], ep.OutsideRing())
	}
	if e.rings[0] != 0 {
		t.Errorf("this rank's own ring published: %#x (self is not shm)", e.rings[0])
	}
	if e.eager[1] != e.peers[1].eagerMax || e.eager[1] < outsideMin {
		t.Errorf("rank 1's eager limit for the short way %d, the peer's %d", e.eager[1], e.peers[1].eagerMax)
	}

	// Fill the ring with Isends until one waits in the engine: the ring is hidden
	// until the receiver has taken enough for every queued packet to go out.
	var qs []Request
	for len(qs) < 100000 && e.peers[1].sendq.head == nil {
		q, err := e.Isend(Bytes(msg), 1, 4, 0, Standard)
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, q)
	}
	if e.peers[1].sendq.head == nil {
		t.Fatalf("%d Isends never filled the ring", len(qs))
	}
	if e.rings[1] != 0 {
		t.Fatalf("a send waits in the engine, and rank 1's ring is still published")
	}
	buf := make([]byte, 8)
	if _, err := r.Recv(Bytes(buf), 0, 3, 0); err != nil {
		t.Fatal(err)
	}
	for i := range qs {
		if _, err := r.Recv(Bytes(buf), 0, 4, 0); err != nil {
			t.Fatal(err)
		}
		if i == 0 || i == len(qs)-1 {
			e.Progress() // pushes what waits as room comes
		}
	}
	for i := range qs {
		if _, err := e.Wait(&qs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if e.rings[1] != ep.OutsideRing() {
		t.Fatalf("nothing waits any more, and rank 1's ring is %#x, not %#x", e.rings[1], ep.OutsideRing())
	}
	if got, want := e.Sent()[2].Ops, uint64(1+len(qs)); got != want {
		t.Errorf("messages counted to rank 1: %d, want %d", got, want)
	}
	if got, want := e.Sent()[2].Bytes, uint64(8*(1+len(qs))); got != want {
		t.Errorf("bytes counted to rank 1: %d, want %d", got, want)
	}

	// A failed peer is hidden for good; the whole engine by Concurrent and by Fail.
	e.mu.Lock()
	e.failPeer(e.peers[1], errors.New("test"))
	e.mu.Unlock()
	if e.rings[1] != 0 {
		t.Errorf("a failed peer's ring is still published")
	}
	e.Concurrent()
	if e.out.ok != 0 {
		t.Errorf("ok %d after Concurrent", e.out.ok)
	}
	r.Fail(errors.New("test"))
	if r.out.ok != 0 {
		t.Errorf("ok %d after Fail", r.out.ok)
	}
}

// An engine that takes its lock, or whose eager limit is below a compact cell,
// publishes nothing for the short way.
func TestOutsideNotServed(t *testing.T) {
	es := shmEngines(t, 2, Options{Spin: 100, Yield: 10})
	if es[0].out.ok != 0 {
		t.Errorf("an engine with its lock: ok %d", es[0].out.ok)
	}
	es = shmEngines(t, 2, Options{Serialized: true, EagerLimit: outsideMin - 1, Spin: 100, Yield: 10})
	e := es[0]
	if _, err := e.Protocols(1); err != nil {
		t.Fatal(err)
	}
	if e.rings[1] != 0 {
		t.Errorf("eager limit %d: rank 1's ring published", outsideMin-1)
	}
}

// The words the C short way for small receives reads: per context the receives posted
// and the messages unexpected, kept exactly through posting, matching, cancelling,
// queueing and taking; the quiet word; and per world rank the inbound ring, shown once
// a receive from the peer found its poller and hidden when the peer fails.
func TestOutsideRecvWords(t *testing.T) {
	es := shmEngines(t, 2, Options{Serialized: true, Spin: 100, Yield: 10})
	s, r := es[0], es[1]
	const ctx = 6
	w := r.ctxq(ctx).ow
	check := func(what string, posted, queued uint64) {
		t.Helper()
		if w.posted != posted || w.queued != queued {
			t.Errorf("%s: posted %d, queued %d; want %d, %d", what, w.posted, w.queued, posted, queued)
		}
	}
	if addr := r.OutsideCtx(ctx); addr == 0 || r.ctxq(ctx).ow != w {
		t.Fatalf("context %d's words at %#x", ctx, addr)
	}
	buf := make([]byte, 8)
	q1, err := r.Irecv(Bytes(buf), 0, 1, ctx)
	if err != nil {
		t.Fatal(err)
	}
	q2, err := r.Irecv(Bytes(buf), AnySource, AnyTag, ctx)
	if err != nil {
		t.Fatal(err)
	}
	check("two receives posted", 2, 0)
	if err := r.Cancel(&q2); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Wait(&q2); err != nil {
		t.Fatal(err)
	}
	check("one cancelled", 1, 0)
	for tag := 1; tag <= 3; tag++ {
		if err := s.Send(Bytes([]byte("abcdefgh")), 1, tag, ctx, Standard); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Wait(&q1); err != nil {
		t.Fatal(err)
	}
	for r.ctxq(ctx).st.Queued < 2 {
		r.Progress()
	}
	check("one matched, two unexpected", 0, 2)
	for tag := 2; tag <= 3; tag++ {
		if _, err := r.Recv(Bytes(buf), 0, tag, ctx); err != nil {
			t.Fatal(err)
		}
	}
	check("both taken", 0, 0)
	// A receive that waits for rank 0 polls its ring alone (pollPeer): shown from then.
	if err := s.Send(Bytes([]byte("abcdefgh")), 1, 4, ctx, Standard); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Recv(Bytes(buf), 0, 4, ctx); err != nil {
		t.Fatal(err)
	}
	in, ok := r.peers[0].pp.(transport.OutsideInbound)
	if !ok || r.inrings[0] == 0 || r.inrings[0] != in.OutsideInbound() {
		t.Errorf("rank 0's inbound ring shown as %#x after a receive that polled it", r.inrings[0])
	}
	if r.out.quiet != 1 {
		t.Errorf("quiet %d with nothing queued", r.out.quiet)
	}
	r.mu.Lock()
	r.failPeer(r.peers[0], errors.New("test"))
	r.mu.Unlock()
	if r.inrings[0] != 0 {
		t.Errorf("a failed peer's inbound ring is still shown")
	}
}

// With Options.SharedLock the engine's lock is the outside word lockw, which code
// outside Go (the C short ways at MPI_THREAD_MULTIPLE) takes by a compare-and-swap:
// the locked word says so while the engine takes its lock and has not failed; Go's
// holders and an outside holder exclude one another; goroutines of both engines
// ping-pong meanwhile, every message right.
func TestSharedLock(t *testing.T) {
	es := shmEngines(t, 2, Options{SharedLock: true, Spin: 100, Yield: 10})
	for i, e := range es {
		if e.out.ok != 0 || e.out.locked != 1 || e.mu.w != &e.out.lockw {
			t.Fatalf("engine %d: ok %d locked %d, lock word %p (want %p)", i, e.out.ok, e.out.locked, e.mu.w, &e.out.lockw)
		}
	}
	const rounds, pingers = 2000, 3
	var wg sync.WaitGroup
	errs := make(chan error, 2*pingers)
	for g := range pingers {
		for i, e := range es {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b := make([]byte, 8)
				for k := range rounds {
					if i == 0 {
						binary.LittleEndian.PutUint64(b, uint64(g<<20|k))
						if err := e.Send(Bytes(b), 1, g, 0, Standard); err != nil {
							errs <- err
							return
						}
						continue
					}
					if _, err := e.Recv(Bytes(b), 0, g, 0); err != nil {
						errs <- err
						return
					}
					if v := binary.LittleEndian.Uint64(b); v != uint64(g<<20|k) {
						errs <- fmt.Errorf("pinger %d round %d: received %#x", g, k, v)
						return
					}
				}
			}()
		}
	}
	// Meanwhile two goroutines take Go's lock and one takes the word as code outside
	// Go does: none of them finds another inside.
	e := es[1]
	var inside, overlaps atomic.Int32
	enter := func() {
		if inside.Add(1) != 1 {
			overlaps.Add(1)
		}
		inside.Add(-1)
	}
	const holds = 20000
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range holds {
				e.mu.Lock()
				enter()
				e.mu.Unlock()
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := 0; k < holds; {
			if atomic.CompareAndSwapUint32(&e.out.lockw, 0, 1) {
				enter()
				k++
				atomic.StoreUint32(&e.out.lockw, 0)
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if k := overlaps.Load(); k != 0 {
		t.Errorf("%d of %d holds of the shared lock found another holder inside", k, 3*holds)
	}
	e.Fail(errors.New("test"))
	if e.out.locked != 0 || e.out.lockw != 0 {
		t.Errorf("a failed engine: locked %d, lock word %d", e.out.locked, e.out.lockw)
	}
}

// TestDeferredShared: receives held back outside Go (as the C library's pending
// receives are) in an engine whose lock is shared are posted by the deferred function
// under the engine's lock, through IrecvDeferred, which does not take it again: by a
// receive of another goroutine that runs meanwhile, and by PostDeferred. They are
// posted in the order they were held, ahead of every later receive.
func TestDeferredShared(t *testing.T) {
	es := shmEngines(t, 2, Options{SharedLock: true, Spin: 100, Yield: 10})
	e := es[1]
	type held struct{ b []byte }
	var (
		waiting []held    // held back, under the engine's lock
		posted  []Request // posted by the deferred function, in order
		bufs    [][]byte
	)
	e.SetDeferred(func() {
		for _, h := range waiting {
			q, err := e.IrecvDeferred(Bytes(h.b), 0, 7, 0)
			if err != nil {
				t.Errorf("IrecvDeferred: %v", err)
				continue
			}
			posted = append(posted, q)
			bufs = append(bufs, h.b)
		}
		waiting = waiting[:0]
		e.out.deferred = 0
	})
	const rounds = 500
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	wg.Add(2)
	go func() { // engine 0 sends tag 7 in order, and tag 9 for the other receiver
		defer wg.Done()
		b := make([]byte, 8)
		for k := range rounds {
			for _, tag := range []int{7, 9} {
				binary.LittleEndian.PutUint64(b, uint64(k))
				if err := es[0].Send(Bytes(b), 1, tag, 0, Standard); err != nil {
					errs <- err
					return
				}
			}
		}
	}()
	go func() { // another goroutine's receives post the held ones first
		defer wg.Done()
		b := make([]byte, 8)
		for k := range rounds {
			if _, err := e.Recv(Bytes(b), 0, 9, 0); err != nil {
				errs <- err
				return
			}
			if v := binary.LittleEndian.Uint64(b); v != uint64(k) {
				errs <- fmt.Errorf("tag 9 round %d: received %d", k, v)
				return
			}
		}
	}()
	for k := range rounds {
		e.mu.Lock()
		waiting = append(waiting, held{make([]byte, 8)})
		e.out.deferred = 1
		e.mu.Unlock()
		if k%10 == 9 {
			e.PostDeferred()
		}
	}
	e.PostDeferred()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	e.mu.Lock()
	n, left := len(posted), len(waiting)
	e.mu.Unlock()
	if n != rounds || left != 0 || e.out.deferred != 0 {
		t.Fatalf("%d of %d held receives posted, %d still held, deferred word %d", n, rounds, left, e.out.deferred)
	}
	for k := range posted {
		if _, err := e.Wait(&posted[k]); err != nil {
			t.Fatalf("held receive %d: %v", k, err)
		}
		if v := binary.LittleEndian.Uint64(bufs[k]); v != uint64(k) {
			t.Fatalf("held receive %d got message %d: not posted in order", k, v)
		}
	}
}
