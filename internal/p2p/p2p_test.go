package p2p

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/transport"
)

// pattern fills a message that says which message it is.
func pattern(seq, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(seq*31 + i*7 + i>>8)
	}
	return b
}

func mustOK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// goSend sends from another goroutine; the test waits for the result.
func goSend(e *Engine, b Buf, dest, tag int) <-chan error {
	done := make(chan error, 1)
	go func() { done <- e.Send(b, dest, tag, 0, Standard) }()
	return done
}

func wantNil(t testing.TB, c <-chan error) {
	t.Helper()
	if err := <-c; err != nil {
		t.Error(err)
	}
}

var protocols = []string{"auto", "eager", "pipeline", "get"}

type netCfg struct {
	name       string
	mtu        int
	capacity   int
	blockEvery int
	noGet      bool
	noPut      bool
	serialized bool // Options.Serialized: the engines take no lock
}

var netCfgs = []netCfg{
	{name: "plain", mtu: 4096},
	{name: "tiny-blocking", mtu: 64, capacity: 4, blockEvery: 3},
	{name: "get-refused", mtu: 1024, noGet: true},
	{name: "put-refused", mtu: 4096, noPut: true},
	{name: "serialized", mtu: 4096, serialized: true},
}

func (c netCfg) net(n int) *memNet {
	m := newMemNet(n)
	m.mtu, m.capacity, m.blockEvery, m.noGet, m.noPut = c.mtu, c.capacity, c.blockEvery, c.noGet, c.noPut
	return m
}

// TestOrderMixedSizes: messages of mixed sizes between one pair, each protocol
// forced in turn, arrive in order whether the receive is posted before or after.
func TestOrderMixedSizes(t *testing.T) {
	sizes := []int{0, 1, 8, 100, 4000, 4096, 4097, 10000, 65536, 200000, 3, 150000, 7, 0, 70000, 5}
	modes := []Mode{Standard, Synchronous, Ready, Standard}
	for _, proto := range protocols {
		for _, cfg := range netCfgs {
			t.Run(proto+"/"+cfg.name, func(t *testing.T) {
				net := cfg.net(2)
				es := net.engines(t, Options{Protocol: proto, Serialized: cfg.serialized})
				recvs := make([]Request, len(sizes))
				bufs := make([][]byte, len(sizes))
				early := len(sizes) / 3
				post := func(i int) {
					bufs[i] = make([]byte, sizes[i])
					var err error
					recvs[i], err = es[1].Irecv(Bytes(bufs[i]), 0, 9, 3)
					mustOK(t, err)
				}
				for i := range early {
					post(i)
				}
				sends := make([]Request, len(sizes))
				for i, n := range sizes {
					var err error
					sends[i], err = es[0].Isend(Bytes(pattern(i, n)), 1, 9, 3, modes[i%len(modes)])
					mustOK(t, err)
				}
				for range 3 {
					es[0].Progress()
					es[1].Progress()
				}
				for i := early; i < len(sizes); i++ {
					post(i)
				}
				driveAll(t, es, sends, recvs)
				sts := make([]Status, len(sizes))
				mustOK(t, es[0].Waitall(sends, nil))
				mustOK(t, es[1].Waitall(recvs, sts))
				for i, n := range sizes {
					if sts[i].Source != 0 || sts[i].Tag != 9 || sts[i].Count != int64(n) {
						t.Errorf("message %d: status %+v, want source 0 tag 9 count %d", i, sts[i], n)
					}
					if !bytes.Equal(bufs[i], pattern(i, n)) {
						t.Errorf("message %d (%d bytes): wrong data (out of order?)", i, n)
					}
				}
			})
		}
	}
}

// TestWildcardManySenders: AnySource/AnyTag receives take every sender's messages,
// each sender's in its order.
func TestWildcardManySenders(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			const n, per = 5, 40
			net := newMemNet(n)
			es := net.engines(t, Options{Protocol: proto})
			var wg sync.WaitGroup
			for s := 1; s < n; s++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range per {
						size := []int{4, 5000, 16, 20000}[i%4]
						b := pattern(s*1000+i, size)
						b[0], b[1] = byte(s), byte(i)
						if err := es[s].Send(Bytes(b), 0, i%7, 1, Standard); err != nil {
							t.Error(err)
							return
						}
					}
				}()
			}
			next := make([]int, n)
			buf := make([]byte, 20000)
			for range (n - 1) * per {
				st, err := es[0].Recv(Bytes(buf), AnySource, AnyTag, 1)
				if err != nil {
					t.Fatal(err)
				}
				s, i := st.Source, next[st.Source]
				if int(buf[0]) != s || int(buf[1]) != i || st.Tag != i%7 {
					t.Fatalf("from %d: got message %d tag %d, want %d tag %d", s, buf[1], st.Tag, i, i%7)
				}
				next[s]++
			}
			wg.Wait()
		})
	}
}

func TestProbeThenRecv(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			net := newMemNet(2)
			es := net.engines(t, Options{Protocol: proto})
			if _, ok, err := es[1].Iprobe(0, AnyTag, 0); ok || err != nil {
				t.Fatalf("Iprobe on empty queues: ok %v err %v", ok, err)
			}
			msg := pattern(1, 12345)
			done := goSend(es[0], Bytes(msg), 1, 77)
			defer wantNil(t, done)
			st, err := es[1].Probe(AnySource, AnyTag, 0)
			mustOK(t, err)
			if st.Source != 0 || st.Tag != 77 || st.Count != int64(len(msg)) {
				t.Fatalf("Probe status %+v", st)
			}
			// Probing again sees the same message.
			st2, ok, err := es[1].Iprobe(0, 77, 0)
			if !ok || err != nil || st2 != st {
				t.Fatalf("second Iprobe: %+v %v %v", st2, ok, err)
			}
			buf := make([]byte, st.Count)
			_, err = es[1].Recv(Bytes(buf), st.Source, st.Tag, 0)
			mustOK(t, err)
			if !bytes.Equal(buf, msg) {
				t.Fatal("wrong data")
			}
		})
	}
}

func TestMprobeMrecv(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			net := newMemNet(2)
			es := net.engines(t, Options{Protocol: proto})
			a, b := pattern(1, 3000), pattern(2, 30)
			mustOK(t, es[0].Send(Bytes(a), 1, 5, 0, Buffered0(t, es[0])))
			done := make(chan error, 1)
			go func() {
				// Rank 0 must keep making progress for the buffered message (which may
				// travel by rendezvous): BufferDetach waits for it to leave.
				err := es[0].Send(Bytes(b), 1, 5, 0, Standard)
				if err == nil {
					_, err = es[0].BufferDetach()
				}
				done <- err
			}()
			defer wantNil(t, done)
			m, st, err := es[1].Mprobe(0, 5, 0)
			mustOK(t, err)
			if st.Count != int64(len(a)) {
				t.Fatalf("Mprobe count %d, want %d", st.Count, len(a))
			}
			// The message is no longer matchable: a plain receive gets the second one.
			buf := make([]byte, 100)
			st, err = es[1].Recv(Bytes(buf), 0, 5, 0)
			mustOK(t, err)
			if !bytes.Equal(buf[:st.Count], b) {
				t.Fatal("Recv after Mprobe took the probed message")
			}
			big := make([]byte, int(st.Count)+len(a))
			q, err := es[1].Imrecv(Bytes(big), &m)
			mustOK(t, err)
			st, err = es[1].Wait(&q)
			mustOK(t, err)
			if !bytes.Equal(big[:st.Count], a) {
				t.Fatal("Imrecv: wrong data")
			}
			if _, err := es[1].Mrecv(Bytes(big), &m); !errors.Is(err, ErrRequest) {
				t.Fatalf("Mrecv of a received message: %v, want ErrRequest", err)
			}
			// Improbe on empty queues; ProcNull gives the no-proc message.
			if _, _, ok, _ := es[1].Improbe(0, 5, 0); ok {
				t.Fatal("Improbe found a message")
			}
			m, st, err = es[1].Mprobe(ProcNull, 5, 0)
			mustOK(t, err)
			if st.Source != ProcNull {
				t.Fatalf("Mprobe ProcNull status %+v", st)
			}
			st, err = es[1].Mrecv(Bytes(big), &m)
			if err != nil || st.Source != ProcNull || st.Count != 0 {
				t.Fatalf("Mrecv no-proc: %+v %v", st, err)
			}
		})
	}
}

// Buffered0 attaches a buffer and returns Buffered: the first message of the Mprobe
// test must be sent without waiting for its receive (it is received last).
func Buffered0(t *testing.T, e *Engine) Mode {
	mustOK(t, e.BufferAttach(make([]byte, 1<<16)))
	return Buffered
}

func TestTruncate(t *testing.T) {
	for _, proto := range protocols {
		for _, n := range []int{100, 5000, 100000} {
			t.Run(fmt.Sprintf("%s/%d", proto, n), func(t *testing.T) {
				net := newMemNet(2)
				net.mtu = 1024
				es := net.engines(t, Options{Protocol: proto})
				msg := pattern(3, n)
				done := make(chan error, 1)
				go func() {
					err := es[0].Send(Bytes(msg), 1, 1, 0, Standard)
					if err == nil {
						err = es[0].Send(Bytes(msg[:10]), 1, 2, 0, Standard)
					}
					done <- err
				}()
				buf := make([]byte, n/3)
				st, err := es[1].Recv(Bytes(buf), 0, 1, 0)
				if !errors.Is(err, ErrTruncate) || !errors.Is(st.Err, ErrTruncate) {
					t.Fatalf("Recv of %d bytes into %d: err %v, want ErrTruncate", n, len(buf), err)
				}
				if st.Count != int64(len(buf)) || !bytes.Equal(buf, msg[:len(buf)]) {
					t.Fatalf("truncated receive: count %d, prefix wrong or missing", st.Count)
				}
				// The rest was discarded: the next message is intact.
				small := make([]byte, 10)
				st, err = es[1].Recv(Bytes(small), 0, 2, 0)
				mustOK(t, err)
				if !bytes.Equal(small, msg[:10]) {
					t.Fatal("message after a truncation is wrong")
				}
				if err := <-done; err != nil {
					t.Fatalf("sender of a truncated message: %v", err)
				}
			})
		}
	}
}

func TestSelf(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			net := newMemNet(1)
			e := net.engines(t, Options{Protocol: proto})[0]
			for i, n := range []int{0, 8, 4096, 70000, 1 << 20} {
				msg := pattern(i, n)
				q, err := e.Isend(Bytes(msg), 0, i, 4, Standard)
				mustOK(t, err)
				buf := make([]byte, n)
				st, err := e.Recv(Bytes(buf), 0, i, 4)
				mustOK(t, err)
				if st.Count != int64(n) || !bytes.Equal(buf, msg) {
					t.Fatalf("self message of %d bytes: status %+v", n, st)
				}
				_, err = e.Wait(&q)
				mustOK(t, err)
			}
			if proto == "pipeline" || proto == "get" {
				return // a standard send may wait for its receive: to self, forever
			}
			// Eager self sends complete without a receive.
			mustOK(t, e.Send(Bytes([]byte("x")), 0, 1, 5, Standard))
			buf := make([]byte, 1)
			_, err := e.Recv(Bytes(buf), AnySource, AnyTag, 5)
			mustOK(t, err)
		})
	}
}

func TestThousandsOutstanding(t *testing.T) {
	const n = 5000
	net := newMemNet(2)
	net.capacity = 64
	es := net.engines(t, Options{})
	recvs := make([]Request, n)
	sends := make([]Request, n)
	bufs := make([][]byte, n)
	for i := range n {
		bufs[i] = make([]byte, 8+i%300)
		var err error
		recvs[i], err = es[1].Irecv(Bytes(bufs[i]), 0, i%10, 0)
		mustOK(t, err)
	}
	for i := range n {
		var err error
		sends[i], err = es[0].Isend(Bytes(pattern(i, 8+i%300)), 1, i%10, 0, Standard)
		mustOK(t, err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); mustOK(t, es[0].Waitall(sends, nil)) }()
	sts := make([]Status, n)
	mustOK(t, es[1].Waitall(recvs, sts))
	wg.Wait()
	for i := range n {
		if !bytes.Equal(bufs[i], pattern(i, 8+i%300)) {
			t.Fatalf("request %d: wrong data", i)
		}
	}
}

// TestManyGoroutines: goroutines of two ranks send and receive at once (run with -race).
func TestManyGoroutines(t *testing.T) {
	for _, proto := range []string{"auto", "pipeline", "get"} {
		t.Run(proto, func(t *testing.T) {
			net := newMemNet(2)
			net.capacity = 16
			manyGoroutines(t, net.engines(t, Options{Protocol: proto}))
		})
	}
}

// manyGoroutines runs 8 ping-pong pairs at once between es[0] and es[1], each on its
// own tag, mixing blocking and nonblocking calls and message sizes.
func manyGoroutines(t *testing.T, es []*Engine) {
	const workers, rounds = 8, 50
	var wg sync.WaitGroup
	for w := range workers {
		for side := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e, other := es[side], 1-side
				size := []int{8, 3000, 9000, 100000}[w%4]
				out, in := pattern(w, size), make([]byte, size)
				for i := range rounds {
					if side == 0 {
						mustOK(t, e.Send(Bytes(out), other, w, 0, Standard))
						_, err := e.Recv(Bytes(in), other, w, 0)
						mustOK(t, err)
					} else {
						q, err := e.Irecv(Bytes(in), other, w, 0)
						mustOK(t, err)
						_, err = e.Wait(&q)
						mustOK(t, err)
						q, err = e.Isend(Bytes(out), other, w, 0, Standard)
						mustOK(t, err)
						_, err = e.Wait(&q)
						mustOK(t, err)
					}
					if !bytes.Equal(in, out) {
						t.Errorf("worker %d round %d: wrong data", w, i)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
}

func TestCancel(t *testing.T) {
	net := newMemNet(2)
	es := net.engines(t, Options{})
	buf := make([]byte, 8)
	q, err := es[1].Irecv(Bytes(buf), 0, 1, 0)
	mustOK(t, err)
	mustOK(t, es[1].Cancel(&q))
	st, err := es[1].Wait(&q)
	if err != nil || !st.Cancelled {
		t.Fatalf("cancelled receive: %+v %v", st, err)
	}
	// A cancelled receive matches nothing: the message waits for the next one.
	mustOK(t, es[0].Send(Bytes([]byte("abcdefgh")), 1, 1, 0, Standard))
	p, err := es[1].RecvInit(Bytes(buf), 0, 1, 0)
	mustOK(t, err)
	mustOK(t, es[1].Start(&p))
	st, err = es[1].Wait(&p)
	if err != nil || st.Cancelled || string(buf) != "abcdefgh" {
		t.Fatalf("persistent receive: %+v %v %q", st, err, buf)
	}
	// Cancel an unmatched persistent receive, then reuse it.
	mustOK(t, es[1].Start(&p))
	mustOK(t, es[1].Cancel(&p))
	if st, err = es[1].Wait(&p); err != nil || !st.Cancelled {
		t.Fatalf("cancelled persistent receive: %+v %v", st, err)
	}
	mustOK(t, es[1].Start(&p))
	mustOK(t, es[0].Send(Bytes([]byte("12345678")), 1, 1, 0, Standard))
	if st, err = es[1].Wait(&p); err != nil || st.Cancelled || string(buf) != "12345678" {
		t.Fatalf("restarted persistent receive: %+v %v %q", st, err, buf)
	}
	// Too late to cancel: matched receives complete normally.
	mustOK(t, es[0].Send(Bytes([]byte("zzzzzzzz")), 1, 1, 0, Standard))
	es[1].Progress()
	q, err = es[1].Irecv(Bytes(buf), 0, 1, 0)
	mustOK(t, err)
	mustOK(t, es[1].Cancel(&q))
	if st, err = es[1].Wait(&q); err != nil || st.Cancelled {
		t.Fatalf("matched receive after Cancel: %+v %v", st, err)
	}
	mustOK(t, es[1].Free(&p))
	if !p.IsNull() {
		t.Fatal("Free left the handle set")
	}
}

func TestPersistent(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			net := newMemNet(2)
			es := net.engines(t, Options{Protocol: proto})
			out, in := make([]byte, 6000), make([]byte, 6000)
			s, err := es[0].SendInit(Bytes(out), 1, 3, 0, Standard)
			mustOK(t, err)
			r, err := es[1].RecvInit(Bytes(in), 0, 3, 0)
			mustOK(t, err)
			for i := range 10 {
				copy(out, pattern(i, len(out)))
				mustOK(t, es[1].Start(&r))
				mustOK(t, es[0].Start(&s))
				if err := es[0].Start(&s); !errors.Is(err, ErrRequest) {
					t.Fatalf("Start of an active request: %v", err)
				}
				reqs := []Request{s, r}
				drive(t, es, func() bool { return s.r.done.Load() != 0 && r.r.done.Load() != 0 })
				mustOK(t, es[0].Waitall(reqs[:1], nil))
				mustOK(t, es[1].Waitall(reqs[1:], nil))
				if !bytes.Equal(in, out) {
					t.Fatalf("round %d: wrong data", i)
				}
				if reqs[0].IsNull() || reqs[1].IsNull() {
					t.Fatal("Waitall nulled a persistent request")
				}
			}
			// Wait on an inactive persistent request returns at once.
			if st, err := es[0].Wait(&s); err != nil || st.Source != AnySource {
				t.Fatalf("Wait on inactive: %+v %v", st, err)
			}
			mustOK(t, es[0].Free(&s))
			mustOK(t, es[1].Free(&r))
		})
	}
}

func TestWaitanyWaitsome(t *testing.T) {
	net := newMemNet(3)
	es := net.engines(t, Options{})
	bufs := make([][]byte, 4)
	qs := make([]Request, 4)
	for i := range qs {
		bufs[i] = make([]byte, 4)
		var err error
		qs[i], err = es[0].Irecv(Bytes(bufs[i]), 1+i%2, i, 0)
		mustOK(t, err)
	}
	mustOK(t, es[2].Send(Bytes([]byte("msg3")), 0, 3, 0, Standard))
	i, st, err := es[0].Waitany(qs)
	if err != nil || i != 3 || st.Source != 2 || string(bufs[3]) != "msg3" {
		t.Fatalf("Waitany: %d %+v %v", i, st, err)
	}
	if !qs[3].IsNull() {
		t.Fatal("Waitany left the request set")
	}
	mustOK(t, es[1].Send(Bytes([]byte("msg0")), 0, 0, 0, Standard))
	mustOK(t, es[1].Send(Bytes([]byte("msg2")), 0, 2, 0, Standard))
	idx, sts := make([]int, 4), make([]Status, 4)
	got := map[int]bool{}
	for len(got) < 2 {
		n, err := es[0].Waitsome(qs, idx, sts)
		mustOK(t, err)
		for k := range n {
			got[idx[k]] = true
		}
	}
	if !got[0] || !got[2] {
		t.Fatalf("Waitsome completed %v, want 0 and 2", got)
	}
	n, err := es[0].Testsome(qs, idx, sts)
	if n != 0 || err != nil {
		t.Fatalf("Testsome with nothing arrived: %d %v", n, err)
	}
	if _, _, ok, _ := es[0].Testany(qs); ok {
		t.Fatal("Testany: nothing should have completed")
	}
	if ok, _ := es[0].Testall(qs, nil); ok {
		t.Fatal("Testall: request 1 is pending")
	}
	mustOK(t, es[2].Send(Bytes([]byte("msg1")), 0, 1, 0, Standard))
	for {
		ok, err := es[0].Testall(qs, sts)
		mustOK(t, err)
		if ok {
			break
		}
	}
	if string(bufs[1]) != "msg1" || sts[1].Source != 2 {
		t.Fatalf("Testall: %q %+v", bufs[1], sts[1])
	}
	if i, _, _ := es[0].Waitany(qs); i != -1 {
		t.Fatalf("Waitany over null requests: %d, want -1", i)
	}
	if n, _ := es[0].Waitsome(qs, idx, sts); n != -1 {
		t.Fatalf("Waitsome over null requests: %d, want -1", n)
	}
}

func TestPeerGone(t *testing.T) {
	net := newMemNet(3)
	es := net.engines(t, Options{Sleep: time.Millisecond})
	buf := make([]byte, 8)
	specific, err := es[0].Irecv(Bytes(buf), 1, 0, 0)
	mustOK(t, err)
	wild, err := es[0].Irecv(Bytes(buf), AnySource, 0, 0)
	mustOK(t, err)
	other, err := es[0].Irecv(Bytes(buf), 2, 0, 0)
	mustOK(t, err)
	big, err := es[0].Isend(Bytes(make([]byte, 100000)), 1, 0, 0, Standard) // rendezvous: waits for 1
	mustOK(t, err)
	net.dead[1].Store(true)

	// The blocked receive notices by itself (the transport's CheckPeer after a sleep).
	_, err = es[0].Wait(&specific)
	if !errors.Is(err, transport.ErrPeerGone) || !strings.Contains(err.Error(), "rank 1") {
		t.Fatalf("receive from a dead peer: %v", err)
	}
	for _, q := range []*Request{&wild, &big} {
		if _, err := es[0].Wait(q); !errors.Is(err, transport.ErrPeerGone) {
			t.Fatalf("pending request after peer death: %v", err)
		}
	}
	if err := es[0].Send(Bytes(buf), 1, 0, 0, Standard); !errors.Is(err, transport.ErrPeerGone) {
		t.Fatalf("Send to a dead peer: %v", err)
	}
	// Rank 2 is fine.
	mustOK(t, es[2].Send(Bytes([]byte("alive!!!")), 0, 0, 0, Standard))
	if _, err := es[0].Wait(&other); err != nil || string(buf) != "alive!!!" {
		t.Fatalf("receive from a live peer: %v %q", err, buf)
	}
	if es[0].trs[1].(memTrSC).arms.Load() == 0 {
		t.Error("the engine slept without arming the transport")
	}
	// Engine.Fail aborts a waiting receive.
	q, err := es[2].Irecv(Bytes(buf), 0, 9, 0)
	mustOK(t, err)
	go es[2].Fail(errors.New("job aborted"))
	if _, err := es[2].Wait(&q); err == nil || err.Error() != "job aborted" {
		t.Fatalf("Wait after Fail: %v", err)
	}
}

func TestWaitCtx(t *testing.T) {
	net := newMemNet(2)
	es := net.engines(t, Options{})
	q, err := es[1].Irecv(Bytes(make([]byte, 1)), 0, 0, 0)
	mustOK(t, err)
	c, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	if _, err := es[1].WaitCtx(c, &q); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitCtx: %v", err)
	}
	// The request is still pending and completes later.
	mustOK(t, es[0].Send(Bytes([]byte{7}), 1, 0, 0, Standard))
	if st, err := es[1].Wait(&q); err != nil || st.Count != 1 {
		t.Fatalf("Wait after WaitCtx gave up: %+v %v", st, err)
	}
	if _, err := es[1].ProbeCtx(c, 0, 0, 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ProbeCtx: %v", err)
	}
}

func TestSynchronous(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			net := newMemNet(2)
			es := net.engines(t, Options{Protocol: proto})
			q, err := es[0].Isend(Bytes([]byte("sync")), 1, 0, 0, Synchronous)
			mustOK(t, err)
			for range 10 {
				es[0].Progress()
				es[1].Progress()
			}
			if _, ok, _ := es[0].Test(&q); ok {
				t.Fatal("synchronous send completed before a receive matched")
			}
			buf := make([]byte, 4)
			r, err := es[1].Irecv(Bytes(buf), 0, 0, 0)
			mustOK(t, err)
			drive(t, es, func() bool { return q.r.done.Load() != 0 && r.r.done.Load() != 0 })
			_, err = es[0].Wait(&q)
			mustOK(t, err)
			_, err = es[1].Wait(&r)
			mustOK(t, err)
		})
	}
}

func TestBuffered(t *testing.T) {
	net := newMemNet(2)
	es := net.engines(t, Options{})
	if err := es[0].Send(Bytes([]byte("x")), 1, 0, 0, Buffered); !errors.Is(err, ErrBuffer) {
		t.Fatalf("Bsend without a buffer: %v", err)
	}
	mustOK(t, es[0].BufferAttach(make([]byte, 4*(10000+2*BsendOverhead))))
	msgs := [][]byte{pattern(1, 10000), pattern(2, 100), pattern(3, 10000)}
	for _, m := range msgs {
		mustOK(t, es[0].Send(Bytes(m), 1, 0, 0, Buffered)) // no receive yet: returns anyway
	}
	if err := es[0].Send(Bytes(make([]byte, 30000)), 1, 0, 0, Buffered); !errors.Is(err, ErrBuffer) {
		t.Fatalf("Bsend beyond the buffer: %v", err)
	}
	q, err := es[0].Isend(Bytes(pattern(4, 50)), 1, 0, 0, Buffered)
	mustOK(t, err)
	if _, ok, err := es[0].Test(&q); !ok || err != nil {
		t.Fatal("Ibsend not complete at once")
	}
	msgs = append(msgs, pattern(4, 50))
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for _, m := range msgs {
			buf := make([]byte, len(m))
			if _, err := es[1].Recv(Bytes(buf), 0, 0, 0); err != nil || !bytes.Equal(buf, m) {
				t.Errorf("buffered message: %v", err)
			}
		}
	}()
	b, err := es[0].BufferDetach()
	mustOK(t, err)
	if len(b) != 4*(10000+2*BsendOverhead) {
		t.Fatal("BufferDetach returned another buffer")
	}
}

// strided is a test Layout: blocks of blk bytes every stride bytes of data.
type strided struct {
	data       []byte
	blk, nblk  int
	stride     int
	packs, ups int
}

func (s *strided) Len() int64 { return int64(s.blk * s.nblk) }

func (s *strided) PackAt(dst []byte, off int64) int {
	s.packs++
	for i := range dst {
		p := int(off) + i
		dst[i] = s.data[p/s.blk*s.stride+p%s.blk]
	}
	return len(dst)
}

func (s *strided) UnpackAt(src []byte, off int64) int {
	s.ups++
	for i := range src {
		p := int(off) + i
		s.data[p/s.blk*s.stride+p%s.blk] = src[i]
	}
	return len(src)
}

func TestLayout(t *testing.T) {
	for _, proto := range protocols {
		for _, nblk := range []int{3, 900} {
			t.Run(fmt.Sprintf("%s/%d", proto, nblk), func(t *testing.T) {
				net := newMemNet(2)
				net.mtu = 512
				es := net.engines(t, Options{Protocol: proto})
				src := &strided{data: pattern(5, 10*nblk), blk: 7, nblk: nblk, stride: 10}
				dst := &strided{data: make([]byte, 13*nblk), blk: 7, nblk: nblk, stride: 13}
				done := make(chan error, 1)
				go func() {
					err := es[0].Send(Packed(src), 1, 0, 0, Standard)
					if err == nil {
						// Then into a contiguous buffer.
						err = es[0].Send(Packed(src), 1, 1, 0, Standard)
					}
					done <- err
				}()
				defer wantNil(t, done)
				flat := make([]byte, 7*nblk)
				st, err := es[1].Recv(Packed(dst), 0, 0, 0)
				mustOK(t, err)
				_, err = es[1].Recv(Bytes(flat), 0, 1, 0)
				mustOK(t, err)
				if st.Count != int64(7*nblk) {
					t.Fatalf("count %d", st.Count)
				}
				for b := range nblk {
					want := src.data[b*10 : b*10+7]
					if !bytes.Equal(dst.data[b*13:b*13+7], want) || !bytes.Equal(flat[b*7:b*7+7], want) {
						t.Fatalf("block %d wrong", b)
					}
				}
			})
		}
	}
}

// synth is a Layout of n bytes that stores nothing: byte p is byte(p>>16 + seed).
// PackAt generates and UnpackAt checks, so a message beyond 2 GiB costs no memory.
type synth struct {
	n    int64
	seed byte
	bad  int64 // first wrong offset + 1
	got  int64
}

var synthPages = func() [256][1 << 16]byte {
	var p [256][1 << 16]byte
	for v := range p {
		for i := range p[v] {
			p[v][i] = byte(v)
		}
	}
	return p
}()

func (s *synth) Len() int64 { return s.n }

func (s *synth) PackAt(dst []byte, off int64) int {
	for done := 0; done < len(dst); {
		p := off + int64(done)
		n := copy(dst[done:], synthPages[byte(p>>16)+s.seed][p&(1<<16-1):])
		done += n
	}
	return len(dst)
}

func (s *synth) UnpackAt(src []byte, off int64) int {
	for done := 0; done < len(src); {
		p := off + int64(done)
		want := synthPages[byte(p>>16)+s.seed][p&(1<<16-1):]
		n := min(len(want), len(src)-done)
		if !bytes.Equal(src[done:done+n], want[:n]) && s.bad == 0 {
			s.bad = p + 1
		}
		done += n
	}
	s.got += int64(len(src))
	return len(src)
}

// TestHugeMessage sends a message beyond 2 GiB (int64 lengths and offsets).
func TestHugeMessage(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("moves 2.1 GiB: not in -short or -race runs")
	}
	const n = 1<<31 + 1<<20 + 12345
	net := newMemNet(2)
	net.mtu = 1 << 20
	es := net.engines(t, Options{Protocol: "pipeline"})
	src, dst := &synth{n: n, seed: 3}, &synth{n: n, seed: 3}
	done := goSend(es[0], Packed(src), 1, 0)
	defer wantNil(t, done)
	st, err := es[1].Recv(Packed(dst), 0, 0, 0)
	mustOK(t, err)
	if st.Count != n || dst.got != n || dst.bad != 0 {
		t.Fatalf("count %d, unpacked %d, first bad offset %d", st.Count, dst.got, dst.bad-1)
	}
}

func TestArgumentErrors(t *testing.T) {
	net := newMemNet(4)
	e := net.engines(t, Options{})[0]
	b := Bytes(nil)
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"dest", e.Send(b, 4, 0, 0, Standard), "Send: dest 4 out of range [0,4)"},
		{"tag", e.Send(b, 1, -1, 0, Standard), "Send: tag -1 out of range [0,2147483647]"},
		{"mode", e.Send(b, 1, 0, 0, Mode(9)), "Send: unknown send mode 9"},
		{"source", func() error { _, err := e.Recv(b, 7, 0, 0); return err }(), "Recv: source 7 out of range [0,4)"},
		{"recv tag", func() error { _, err := e.Irecv(b, 0, -5, 0); return err }(), "Irecv: tag -5 out of range"},
		{"detach", func() error { _, err := e.BufferDetach(); return err }(), "BufferDetach: no buffer attached"},
	}
	for _, tc := range tests {
		if tc.err == nil || !strings.HasPrefix(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want prefix %q", tc.name, tc.err, tc.want)
		}
	}
	if _, err := New(4, 4, nil, Options{}); err == nil {
		t.Error("New accepted self 4 of 4")
	}
	if _, err := New(0, 1, nil, Options{Protocol: "fast"}); err == nil {
		t.Error("New accepted protocol \"fast\"")
	}
	// ProcNull sends and receives complete at once.
	mustOK(t, e.Send(b, ProcNull, 0, 0, Standard))
	if st, err := e.Recv(b, ProcNull, 0, 0); err != nil || st.Source != ProcNull {
		t.Errorf("Recv from ProcNull: %+v %v", st, err)
	}
	// A stale handle is refused.
	q, _ := e.Isend(Bytes([]byte{1}), 0, 0, 0, Standard)
	stale := q
	_, _ = e.Recv(Bytes(make([]byte, 1)), 0, 0, 0)
	_, err := e.Wait(&q)
	mustOK(t, err)
	if _, err := e.Wait(&stale); !errors.Is(err, ErrRequest) {
		t.Errorf("Wait on a stale handle: %v", err)
	}
	// No transport reaches a rank.
	lone, err := New(0, 2, nil, Options{})
	mustOK(t, err)
	if err := lone.Send(b, 1, 0, 0, Standard); err == nil || !strings.Contains(err.Error(), "no transport reaches rank 1") {
		t.Errorf("Send without a route: %v", err)
	}
}

func TestSelect(t *testing.T) {
	M := func(p transport.Protocol, lo, hi int64, fixed time.Duration, bw float64) transport.Model {
		return transport.Model{Protocol: p, MinSize: lo, MaxSize: hi, Fixed: fixed, Bandwidth: bw}
	}
	type row struct {
		max   int64
		proto transport.Protocol
	}
	const top = math.MaxInt64
	tests := []struct {
		name   string
		models []transport.Model
		mtu    int
		sc     bool
		force  string
		limit  int64
		want   []row
	}{
		{"eager then get", []transport.Model{
			M(transport.Eager, 0, 0, 200, 5e9), M(transport.Get, 0, 0, 1200, 10e9)},
			1 << 20, true, "", 0,
			// 200 + n/5 = 1200 + n/10 at n = 10000
			[]row{{9999, transport.Eager}, {top, transport.Get}}},
		{"no single copy: pipeline", []transport.Model{
			M(transport.Eager, 0, 0, 200, 5e9), M(transport.Pipeline, 0, 0, 1000, 10e9), M(transport.Get, 0, 0, 10, 100e9)},
			1 << 20, false, "", 0,
			[]row{{7999, transport.Eager}, {top, transport.Pipeline}}},
		{"eager capped by max payload", []transport.Model{
			M(transport.Eager, 0, 0, 200, 5e9), M(transport.Pipeline, 0, 0, 1000, 10e9)},
			4096, false, "", 0,
			[]row{{4096, transport.Eager}, {top, transport.Pipeline}}},
		{"piecewise get", []transport.Model{
			M(transport.Eager, 0, 4096, 250, 6e9),
			M(transport.Pipeline, 0, 1<<20, 1000, 11e9), M(transport.Pipeline, 1<<20, 0, 1000, 14e9),
			M(transport.Get, 0, 1<<20, 1300, 18e9), M(transport.Get, 1<<20, 0, 1300, 10e9)},
			64 << 10, true, "", 0,
			// pipeline's smaller fixed cost wins until 1000+n/11 = 1300+n/18 at n = 8486
			[]row{{4096, transport.Eager}, {8485, transport.Pipeline}, {1 << 20, transport.Get}, {top, transport.Pipeline}}},
		{"eager limit overrides", []transport.Model{
			M(transport.Eager, 0, 0, 200, 5e9), M(transport.Get, 0, 0, 1200, 10e9)},
			1 << 20, true, "", 256,
			[]row{{256, transport.Eager}, {top, transport.Get}}},
		{"forced pipeline", nil, 4096, true, "pipeline", 0, []row{{top, transport.Pipeline}}},
		{"forced get without single copy", nil, 4096, false, "get", 0, []row{{top, transport.Pipeline}}},
		{"forced eager", nil, 4096, true, "eager", 0, []row{{4096, transport.Eager}, {top, transport.Pipeline}}},
		{"no models", nil, 4096, true, "", 0, []row{{top, transport.Pipeline}}},
	}
	for _, tc := range tests {
		tab := Select(tc.models, tc.mtu, tc.sc, tc.force, tc.limit)
		var got []row
		for _, r := range tab.Ranges {
			got = append(got, row{r.Max, r.Protocol})
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: got %v, want %v\n%s", tc.name, got, tc.want, tab)
		}
	}
}

func TestProtocolsInfo(t *testing.T) {
	net := newMemNet(2)
	var out bytes.Buffer
	es := net.engines(t, Options{ProtoInfo: &out})
	tab, err := es[0].Protocols(1)
	mustOK(t, err)
	if tab.Transport != "mem" || !strings.Contains(out.String(), "rank 1 via mem") || !strings.Contains(out.String(), "eager") ||
		!strings.Contains(out.String(), "in an exchange, rank 1 via mem") {
		t.Fatalf("protocol info:\n%s", out.String())
	}
	t.Logf("\n%s", out.String())
}

// TestMatchPostingOrder: a message takes the earliest posted receive that matches,
// whether that one names its source or is a wildcard.
func TestMatchPostingOrder(t *testing.T) {
	net := newMemNet(3)
	es := net.engines(t, Options{})
	type post struct{ src, tag int }
	tests := []struct {
		name  string
		posts []post
		want  int // index of the receive the message from rank 1, tag 5 must take
	}{
		{"wildcard first", []post{{AnySource, 5}, {1, 5}}, 0},
		{"specific first", []post{{1, 5}, {AnySource, 5}}, 0},
		{"any tag after other source", []post{{2, 5}, {1, AnyTag}, {AnySource, 5}}, 1},
		{"wrong tag skipped", []post{{1, 6}, {AnySource, 7}, {AnySource, AnyTag}, {1, 5}}, 2},
	}
	for _, tc := range tests {
		qs := make([]Request, len(tc.posts))
		for i, p := range tc.posts {
			var err error
			qs[i], err = es[0].Irecv(Bytes(make([]byte, 1)), p.src, p.tag, 7)
			mustOK(t, err)
		}
		mustOK(t, es[1].Send(Bytes([]byte{1}), 0, 5, 7, Standard))
		drive(t, es, func() bool {
			for i := range qs {
				if qs[i].r.done.Load() != 0 {
					return true
				}
			}
			return false
		})
		for i := range qs {
			done := qs[i].r.done.Load() != 0
			if done != (i == tc.want) {
				t.Errorf("%s: receive %d done %v", tc.name, i, done)
			}
			if !done {
				mustOK(t, es[0].Cancel(&qs[i]))
			}
		}
		mustOK(t, es[0].Waitall(qs, nil))
	}
}

// reentrantTr calls PeerFailed from inside Poll, as the TCP transport's PeerGone
// callback does: it must not deadlock on the engine's lock.
type reentrantTr struct {
	transport.Transport
	e     *Engine
	fired bool
}

func (t *reentrantTr) Poll(h transport.Handler) int {
	if !t.fired && t.e != nil {
		t.fired = true
		t.e.PeerFailed(1, fmt.Errorf("tcp: connection reset: %w", transport.ErrPeerGone))
	}
	return t.Transport.Poll(h)
}

func TestPeerFailedFromPoll(t *testing.T) {
	net := newMemNet(2)
	rt := &reentrantTr{Transport: net.transport(0)}
	e, err := New(0, 2, []transport.Transport{rt}, Options{Doorbell: net.bells[0], Spin: 10, Yield: 2})
	mustOK(t, err)
	q, err := e.Irecv(Bytes(nil), 1, 0, 0)
	mustOK(t, err)
	rt.e = e
	if _, err := e.Wait(&q); !errors.Is(err, transport.ErrPeerGone) || !strings.Contains(err.Error(), "rank 1") {
		t.Fatalf("Wait: %v", err)
	}
}

// checkPool verifies the request pool: every free request is unique and not in use.
func checkPool(t *testing.T, e *Engine) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	seen := map[*request]bool{}
	for _, r := range e.freeR {
		if seen[r] || r.inUse {
			t.Fatalf("request %d free twice or free while in use", r.idx)
		}
		seen[r] = true
	}
}

// TestFailureFreesOnce: requests the engine frees itself (buffered-send carriers,
// requests freed by the user while pending) are freed exactly once when their peer
// fails, whichever path notices the failure.
func TestFailureFreesOnce(t *testing.T) {
	for _, proto := range []string{"eager", "pipeline", "get"} {
		t.Run(proto, func(t *testing.T) {
			net := newMemNet(2)
			net.capacity = 2
			es := net.engines(t, Options{Protocol: proto})
			mustOK(t, es[0].BufferAttach(make([]byte, 1<<20)))
			for range 5 {
				mustOK(t, es[0].Send(Bytes(make([]byte, 3000)), 1, 0, 0, Buffered))
				q, err := es[0].Isend(Bytes(make([]byte, 3000)), 1, 0, 0, Standard)
				mustOK(t, err)
				mustOK(t, es[0].Free(&q))
			}
			net.dead[1].Store(true)
			es[0].Progress()
			_ = es[0].Send(Bytes(make([]byte, 10)), 1, 0, 0, Standard)
			es[0].PeerFailed(1, transport.ErrPeerGone)
			if _, err := es[0].BufferDetach(); err != nil {
				t.Fatal(err)
			}
			checkPool(t, es[0])
			for _, r := range es[0].reqs {
				if r.inUse {
					t.Fatalf("request %d still in use after its peer failed", r.idx)
				}
			}
		})
	}
}

// TestRandomTraffic: three ranks send each other messages of random sizes, tags,
// modes and buffer kinds, with random protocol and transport settings, stepped
// deterministically from one goroutine. Receives name (source, tag) or use
// wildcards; every (source, tag) stream must arrive complete and in order.
func TestRandomTraffic(t *testing.T) {
	for seed := range 12 {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(seed), 7))
			net := newMemNet(3)
			net.mtu = []int{64, 1024, 4096}[rng.IntN(3)]
			net.capacity = rng.IntN(4) * 3
			net.blockEvery = rng.IntN(3) * 5
			net.noGet = rng.IntN(4) == 0
			es := net.engines(t, Options{Protocol: protocols[rng.IntN(len(protocols))]})
			const per = 30
			type key struct{ src, dst, tag int }
			sentSeq := map[key]int{}
			var reqs []Request
			var owners []*Engine
			type recvd struct {
				buf []byte
				dst int
			}
			var recvs []recvd
			for range per * 6 {
				src, dst := rng.IntN(3), rng.IntN(3)
				tag := rng.IntN(3)
				k := key{src, dst, tag}
				seq := sentSeq[k]
				sentSeq[k]++
				n := []int{0, 5, 100, 3000, 20000}[rng.IntN(5)]
				msg := pattern(src*100+dst*10+tag+seq*1000, n)
				if len(msg) >= 4 {
					msg[0], msg[1], msg[2], msg[3] = byte(src), byte(tag), byte(seq), byte(seq>>8)
				}
				mode := []Mode{Standard, Synchronous, Ready}[rng.IntN(3)]
				q, err := es[src].Isend(Bytes(msg), dst, tag, 2, mode)
				mustOK(t, err)
				reqs, owners = append(reqs, q), append(owners, es[src])
				// The matching receive, by name: posted now or later, same order per stream.
				buf := make([]byte, n)
				r, err := es[dst].Irecv(Bytes(buf), src, tag, 2)
				mustOK(t, err)
				recvs = append(recvs, recvd{buf, dst})
				reqs, owners = append(reqs, r), append(owners, es[dst])
				for range rng.IntN(3) {
					es[rng.IntN(3)].Progress()
				}
			}
			drive(t, es, func() bool {
				for i := range reqs {
					if reqs[i].r.done.Load() == 0 {
						return false
					}
				}
				return true
			})
			for i := range reqs {
				if _, err := owners[i].Wait(&reqs[i]); err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
			}
			// Per stream, sequence numbers must come in order.
			next := map[[3]int]int{}
			for _, rv := range recvs {
				if len(rv.buf) < 4 {
					continue
				}
				s := [3]int{int(rv.buf[0]), int(rv.buf[1]), rv.dst}
				seq := int(rv.buf[2]) | int(rv.buf[3])<<8
				if seq < next[s] {
					t.Fatalf("stream %v: message %d after %d", s, seq, next[s])
				}
				next[s] = seq + 1
			}
			for _, e := range es {
				checkPool(t, e)
			}
		})
	}
}

// TestContexts: messages in different contexts never match each other, whether the
// context id is small (slice-indexed) or large (map).
func TestContexts(t *testing.T) {
	net := newMemNet(2)
	es := net.engines(t, Options{})
	ctxs := []uint32{0, 1, 70000, 1 << 31, math.MaxUint32}
	qs := make([]Request, len(ctxs))
	bufs := make([][]byte, len(ctxs))
	for i, c := range ctxs {
		bufs[i] = make([]byte, 1)
		var err error
		qs[i], err = es[1].RecvInit(Bytes(bufs[i]), 0, 0, c)
		mustOK(t, err)
	}
	mustOK(t, es[1].Startall(qs))
	for i := len(ctxs) - 1; i >= 0; i-- {
		mustOK(t, es[0].Send(Bytes([]byte{byte(i)}), 1, 0, ctxs[i], Standard))
	}
	mustOK(t, es[1].Waitall(qs, nil))
	for i := range ctxs {
		if bufs[i][0] != byte(i) {
			t.Errorf("context %d received message of context %d", ctxs[i], ctxs[bufs[i][0]])
		}
	}
	for i := range qs {
		mustOK(t, es[1].Free(&qs[i]))
	}
}

// TestSerialized: engines made with Options.Serialized take no lock: each is driven by
// one goroutine at a time (here one per engine, handing a request across goroutines
// through a channel, which orders the calls), a failure reported from another
// goroutine still reaches a waiter, and after Concurrent the engines take many
// goroutines at once (go test -race fails this if Concurrent leaves the lock off).
func TestSerialized(t *testing.T) {
	net := newMemNet(3)
	net.capacity = 16
	es := net.engines(t, Options{Serialized: true})
	for i, e := range es {
		if !e.Serialized() {
			t.Fatalf("engine %d: Serialized() false with Options.Serialized", i)
		}
	}
	var wg sync.WaitGroup
	for side := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, other := es[side], 1-side
			handoff := make(chan Request)
			for i, size := range []int{0, 8, 3000, 9000, 100000, 8} {
				out, in := pattern(i, size), make([]byte, size)
				q, err := e.Irecv(Bytes(in), other, i, 0)
				mustOK(t, err)
				go func() { handoff <- q }() // another goroutine started it; this one waits
				mustOK(t, e.Send(Bytes(out), other, i, 0, Standard))
				q = <-handoff
				st, err := e.Wait(&q)
				mustOK(t, err)
				if st.Count != int64(size) || !bytes.Equal(in, out) {
					t.Errorf("side %d message %d: %d bytes, want %d, or wrong data", side, i, st.Count, size)
				}
			}
		}()
	}
	wg.Wait()

	// Rank 2 never sends: its failure, reported from another goroutine, ends a wait.
	q, err := es[0].Irecv(Bytes(nil), 2, 0, 0)
	mustOK(t, err)
	go es[0].PeerFailed(2, transport.ErrPeerGone)
	if _, err := es[0].Wait(&q); !errors.Is(err, transport.ErrPeerGone) {
		t.Fatalf("Wait on a receive from a failed peer: %v, want ErrPeerGone", err)
	}
	if err := es[0].PeerErr(2); !errors.Is(err, transport.ErrPeerGone) {
		t.Fatalf("PeerErr of the failed peer: %v, want ErrPeerGone", err)
	}
	if err := es[0].PeerErr(1); err != nil {
		t.Fatalf("PeerErr of a live peer: %v", err)
	}

	for _, e := range es {
		e.Concurrent()
		if e.Serialized() {
			t.Fatal("Serialized() still true after Concurrent")
		}
	}
	manyGoroutines(t, es[:2])
}

// TestMprobeClaim: two goroutines share one stream, a claiming Mprobe and a drainer
// that takes messages with Improbe, each taking and handling a message under one
// mutex; every message is handled once and in the order sent. A claim that fails
// leaves the message for later.
func TestMprobeClaim(t *testing.T) {
	net := newMemNet(2)
	es := net.engines(t, Options{})
	for _, e := range es {
		e.Concurrent()
	}
	// A failing claim: the message stays; once the claim succeeds it is taken.
	mustOK(t, es[0].Send(Bytes([]byte{7}), 1, 3, 0, Standard))
	tries := 0
	m, st, err := es[1].MprobeClaim(nil, 0, 3, 0, func() bool { tries++; return tries > 3 })
	mustOK(t, err)
	if tries != 4 || st.Count != 1 {
		t.Fatalf("MprobeClaim after %d claims, count %d; want 4 claims, count 1", tries, st.Count)
	}
	var one [1]byte
	if _, err := es[1].Mrecv(Bytes(one[:]), &m); err != nil || one[0] != 7 {
		t.Fatalf("Mrecv: %v %d", err, one[0])
	}
	// With a context: it gives up when the context ends.
	c, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	_, _, err = es[1].MprobeClaim(c, 0, 3, 0, func() bool { return true })
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("MprobeClaim with nothing to take and a context that ends: %v", err)
	}

	const n = 2000
	go func() {
		for i := 0; i <= n; i++ {
			var b [4]byte
			binary.LittleEndian.PutUint32(b[:], uint32(i))
			es[0].Send(Bytes(b[:]), 1, 5, 0, Standard)
		}
		es[0].Send(Bytes(nil), 1, 6, 0, Standard) // the end, which only the claimer takes
	}()
	var mu sync.Mutex
	var got []uint32
	handle := func(m *Message) bool {
		var b [4]byte
		st, err := es[1].Mrecv(Bytes(b[:]), m)
		if err != nil {
			t.Error(err)
		}
		if st.Tag == 6 {
			return true
		}
		got = append(got, binary.LittleEndian.Uint32(b[:]))
		return false
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the drainer
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if !mu.TryLock() {
				continue
			}
			for {
				m, _, ok, err := es[1].Improbe(0, 5, 0)
				if err != nil || !ok {
					break
				}
				handle(&m)
			}
			mu.Unlock()
		}
	}()
	for {
		m, _, err := es[1].MprobeClaim(nil, 0, AnyTag, 0, mu.TryLock)
		mustOK(t, err)
		end := handle(&m)
		mu.Unlock()
		if end {
			break
		}
	}
	close(stop)
	wg.Wait()
	for i, v := range got {
		if v != uint32(i) {
			t.Fatalf("message %d handled as %d-th: out of order or lost (%d handled)", v, i, len(got))
		}
	}
	if len(got) != n+1 {
		t.Fatalf("%d messages handled, want %d", len(got), n+1)
	}
}

// TestSent: every message an engine starts counts once in Sent, whatever its protocol,
// by destination (itself too) and parity of context, with its bytes; a receiver
// counts nothing.
func TestSent(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			es := newMemNet(3).engines(t, Options{Protocol: proto})
			type msg struct {
				dest, n int
				ctx     uint32
			}
			msgs := []msg{{1, 8, 0}, {1, 5000, 0}, {1, 100000, 3}, {2, 0, 5}, {2, 70000, 2}, {0, 9, 1}, {1, 8, 0}}
			want := make([]prof.Link, 2*3)
			for i, m := range msgs {
				in := make([]byte, m.n)
				q, err := es[m.dest].Irecv(Bytes(in), 0, i, m.ctx)
				mustOK(t, err)
				s, err := es[0].Isend(Bytes(pattern(i, m.n)), m.dest, i, m.ctx, Standard)
				mustOK(t, err)
				driveAll(t, es, []Request{s, q})
				mustOK(t, es[0].Waitall([]Request{s}, nil))
				mustOK(t, es[m.dest].Waitall([]Request{q}, nil))
				w := &want[2*m.dest+int(m.ctx&1)]
				w.Bytes += uint64(m.n)
				w.Ops++
			}
			if got := es[0].Sent(); !slices.Equal(got, want) {
				t.Errorf("rank 0 sent %v, want %v", got, want)
			}
			for r := 1; r < 3; r++ {
				if got := es[r].Sent(); !slices.Equal(got, make([]prof.Link, 6)) {
					t.Errorf("rank %d, which only received, sent %v", r, got)
				}
			}
		})
	}
}

// TestMprobeClaimOnce: a waiter's claim succeeds once. MprobeClaim's claim takes a
// lock (the windows' progress goroutine's TryLock of the mutex its requests are
// applied under); a wait that found the message claimable as it was about to sleep
// asked again, could not take the lock it already held, and waited forever (500
// windows created and freed: one rank's Free never ended).
func TestMprobeClaimOnce(t *testing.T) {
	e := newMemNet(1).engines(t, Options{Spin: -1, Yield: -1})[0]
	mustOK(t, e.Send(Bytes([]byte{7}), 0, 5, 0, Standard))
	claimed, again := false, 0
	claim := func() bool {
		if claimed {
			again++
			return true // lets a faulty wait end, to be reported below
		}
		// Another goroutine holds the lock until this wait is about to sleep: its
		// last look before the sleep is the one that claims.
		if e.sleepers.Load() == 0 {
			return false
		}
		claimed = true
		return true
	}
	m, st, err := e.MprobeClaim(nil, 0, 5, 0, claim)
	mustOK(t, err)
	if again != 0 {
		t.Errorf("the claim was asked for %d times more after it succeeded", again)
	}
	var b [1]byte
	if _, err := e.Mrecv(Bytes(b[:]), &m); err != nil || b[0] != 7 || st.Tag != 5 {
		t.Errorf("Mrecv: %v, got %d with tag %d, want 7 with tag 5", err, b[0], st.Tag)
	}
}

// TestIsendQueuedMakesProgress: an Isend that its transport cannot take now (the link
// is full) makes progress before it returns, so what the peer sent meanwhile is taken
// in: a rank that only issues sends still drains the answers its peer waits to send.
func TestIsendQueuedMakesProgress(t *testing.T) {
	net := newMemNet(2)
	net.capacity = 4
	es := net.engines(t, Options{})
	ans, err := es[1].Isend(Bytes([]byte("answer")), 0, 7, 0, Standard)
	mustOK(t, err)
	var qs []Request
	for i := range 6 {
		q, err := es[0].Isend(Bytes([]byte{byte(i)}), 1, 1, 0, Standard)
		mustOK(t, err)
		qs = append(qs, q)
	}
	es[0].mu.Lock()
	taken := es[0].ctxq(0).unexp.head != nil
	es[0].mu.Unlock()
	if !taken {
		t.Fatal("six Isends into a link of four returned without taking in the peer's message")
	}
	rs := make([]Request, 6)
	bufs := make([][]byte, 6)
	for i := range rs {
		bufs[i] = make([]byte, 1)
		rs[i], err = es[1].Irecv(Bytes(bufs[i]), 0, 1, 0)
		mustOK(t, err)
	}
	got := make([]byte, 6)
	r, err := es[0].Irecv(Bytes(got), 1, 7, 0)
	mustOK(t, err)
	driveAll(t, es, qs, rs, []Request{ans, r})
	for i, b := range bufs {
		if b[0] != byte(i) {
			t.Fatalf("message %d holds %d", i, b[0])
		}
	}
	if string(got) != "answer" {
		t.Fatalf("the peer's message: %q", got)
	}
}
