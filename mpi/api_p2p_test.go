package mpi_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mpigo/mpigo/mpi"
)

// The tests of this file call every point-to-point function of the API in a real job
// and check what a user would: the data, the status, and the guarantee the call's
// mode makes (a synchronous send waits for the match, a buffered one does not, a
// persistent request runs again). None of them sleeps: ranks order themselves by
// messages, and a loop that polls (Test, Testany, Improbe) gives up after a bound.

// Tags of the protocols below.
const (
	tagData    = 1
	tagArrived = 2 // the receiver has seen the data message arrive, unmatched
	tagGo      = 3 // the receiver may now post its receive (or the sender send)
	tagPosted  = 4 // the receiver has posted its receive
)

// poll calls done until it reports true, failing t if that takes longer than a bound
// far beyond any healthy run.
func poll(t *testing.T, what string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not done after 30s", what)
		}
	}
}

func signal(t *testing.T, to, tag int) {
	t.Helper()
	must(t, mpi.Send(mpi.World, []int32{0}, to, tag))
}

func await(t *testing.T, from, tag int) {
	t.Helper()
	var x [1]int32
	_, err := mpi.Recv(mpi.World, x[:], from, tag)
	must(t, err)
}

// checkSynchronous checks a synchronous send from rank 0 to rank 1. On rank 0, start
// starts sending three int32 to rank 1 with tagData; it returns done, which reports
// without waiting whether the send has completed, and wait, which waits for it.
// Rank 1 first sees the message arrive (Probe, which does not match it) and says so;
// rank 0 then checks that the send is still not complete, and only after that lets
// rank 1 receive. The message is small, so a send that did not wait for the match
// (an eager standard send) would be complete by then.
func checkSynchronous(t *testing.T, rank int, name string, want []int32, start func() (done func() bool, wait func())) {
	t.Helper()
	w := mpi.World
	switch rank {
	case 0:
		done, wait := start()
		await(t, 1, tagArrived)
		if done() {
			t.Errorf("%s completed before the receiver matched the message", name)
		}
		signal(t, 1, tagGo)
		wait()
	case 1:
		st, err := w.Probe(0, tagData)
		must(t, err)
		if st.Source != 0 || st.Tag != tagData || mpi.GetCount[int32](st) != len(want) {
			t.Errorf("%s: Probe says %+v (%d int32), want source 0, tag %d, %d int32", name, st, mpi.GetCount[int32](st), tagData, len(want))
		}
		signal(t, 0, tagArrived)
		await(t, 0, tagGo)
		got := make([]int32, len(want))
		st, err = mpi.Recv(w, got, 0, tagData)
		must(t, err)
		if !slices.Equal(got, want) || st.Source != 0 || st.Tag != tagData {
			t.Errorf("%s: received %v with status %+v, want %v from 0 with tag %d", name, got, st, want, tagData)
		}
	}
}

// blocking runs a blocking send in a goroutine, as start for checkSynchronous.
func blocking(t *testing.T, send func() error) (func() bool, func()) {
	var returned atomic.Bool
	errc := make(chan error, 1)
	go func() {
		err := send()
		returned.Store(true)
		errc <- err
	}()
	return returned.Load, func() { must(t, <-errc) }
}

// nonblocking is start for checkSynchronous for a request: done is Test.
func nonblocking(t *testing.T, r *mpi.Request) (func() bool, func()) {
	return func() bool {
			_, ok, err := r.Test()
			must(t, err)
			return ok
		}, func() {
			_, err := r.Wait()
			must(t, err)
		}
}

// TestSynchronousSends: Ssend, Issend, SsendInit (started twice) and SsendBuf do not
// complete before the receiver has matched the message.
func TestSynchronousSends(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		want := []int32{7, -8, 9}
		checkSynchronous(t, rank, "Ssend", want, func() (func() bool, func()) {
			return blocking(t, func() error { return mpi.Ssend(w, []int32{7, -8, 9}, 1, tagData) })
		})
		checkSynchronous(t, rank, "Issend", want, func() (func() bool, func()) {
			r, err := mpi.Issend(w, []int32{7, -8, 9}, 1, tagData)
			must(t, err)
			return nonblocking(t, &r)
		})

		buf := make([]int32, 3)
		var p mpi.Request
		if rank == 0 {
			var err error
			p, err = mpi.SsendInit(w, buf, 1, tagData)
			must(t, err)
		}
		for round := int32(0); round < 2; round++ {
			checkSynchronous(t, rank, fmt.Sprintf("SsendInit round %d", round), []int32{round, round + 1, round + 2}, func() (func() bool, func()) {
				copy(buf, []int32{round, round + 1, round + 2})
				must(t, p.Start())
				return nonblocking(t, &p)
			})
		}
		if rank == 0 {
			must(t, p.Free())
		}

		// A typed buffer: every other element of five.
		every2, err := mpi.TypeVector(3, 1, 2, mpi.Int32)
		must(t, err)
		must(t, every2.Commit())
		checkSynchronous(t, rank, "SsendBuf", []int32{10, 11, 12}, func() (func() bool, func()) {
			src := []int32{10, -1, 11, -1, 12}
			return blocking(t, func() error { return mpi.SsendBuf(w, mpi.Typed(src, 1, every2), 1, tagData) })
		})
	})
}

// checkReady runs a ready-mode send: rank 1 posts its receive and says so, and only
// then does rank 0 call send; rank 1 checks what arrived.
func checkReady(t *testing.T, rank int, name string, want []float64, send func()) {
	t.Helper()
	switch rank {
	case 0:
		await(t, 1, tagPosted)
		send()
	case 1:
		got := make([]float64, len(want)+1)
		r, err := mpi.Irecv(mpi.World, got, 0, tagData)
		must(t, err)
		signal(t, 0, tagPosted)
		st, err := r.Wait()
		must(t, err)
		if !slices.Equal(got[:len(want)], want) || got[len(want)] != 0 {
			t.Errorf("%s: received %v, want %v then an untouched 0", name, got, want)
		}
		if st.Source != 0 || st.Tag != tagData || mpi.GetCount[float64](st) != len(want) {
			t.Errorf("%s: status %+v (%d float64), want source 0, tag %d, %d elements", name, st, mpi.GetCount[float64](st), tagData, len(want))
		}
	}
}

// TestReadySends: Rsend, Irsend and RsendInit deliver to a receive already posted.
func TestReadySends(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		checkReady(t, rank, "Rsend", []float64{1.5, -2}, func() {
			must(t, mpi.Rsend(w, []float64{1.5, -2}, 1, tagData))
		})
		checkReady(t, rank, "Irsend", []float64{3, 4, 5}, func() {
			r, err := mpi.Irsend(w, []float64{3, 4, 5}, 1, tagData)
			must(t, err)
			st, err := r.Wait()
			must(t, err)
			if !r.IsNull() {
				t.Errorf("Irsend: the request is not null after Wait (status %+v)", st)
			}
		})
		buf := []float64{0, 0}
		var p mpi.Request
		if rank == 0 {
			var err error
			p, err = mpi.RsendInit(w, buf, 1, tagData)
			must(t, err)
		}
		for round := 0; round < 3; round++ {
			checkReady(t, rank, "RsendInit", []float64{float64(round), -float64(round)}, func() {
				buf[0], buf[1] = float64(round), -float64(round)
				must(t, p.Start())
				_, err := p.Wait()
				must(t, err)
			})
		}
		if rank == 0 {
			must(t, p.Free())
		}
	})
}

// TestBufferedSends: Ibsend and BsendInit complete before any receive is posted,
// having copied the data (the sender overwrites its buffer before the receiver
// receives); BufferDetach returns the buffer attached, after which a buffered send
// has no buffer; BufferDetach waits for a large buffered message to leave.
func TestBufferedSends(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		if rank == 1 {
			got := make([]float64, 2)
			for i, want := range [][]float64{{1.5, 2.5}, {0, -0.5}, {1, 0.5}, {2, 1.5}} {
				await(t, 0, tagGo)
				st, err := mpi.Recv(w, got, 0, tagData)
				must(t, err)
				if !slices.Equal(got, want) || st.Source != 0 || st.Tag != tagData {
					t.Errorf("buffered message %d: %v with status %+v, want %v", i, got, st, want)
				}
			}
			big := make([]byte, 3<<20)
			_, err := mpi.Recv(w, big, 0, 9)
			must(t, err)
			for i := range big {
				if big[i] != byte(i%253) {
					t.Fatalf("large buffered message: byte %d is %d, want %d", i, big[i], byte(i%253))
				}
			}
			return
		}
		attached := make([]byte, 4096)
		must(t, mpi.BufferAttach(attached))

		buf := []float64{1.5, 2.5}
		r, err := mpi.Ibsend(w, buf, 1, tagData)
		must(t, err)
		// Rank 1 has posted nothing yet (it waits for tagGo): the request is complete.
		_, ok, err := r.Test()
		must(t, err)
		if !ok {
			t.Errorf("Ibsend: not complete before the receive was posted")
			_, err = r.Wait()
			must(t, err)
		}
		buf[0], buf[1] = -1, -1 // the attached buffer holds the copy
		signal(t, 1, tagGo)

		p, err := mpi.BsendInit(w, buf, 1, tagData)
		must(t, err)
		for round := 0; round < 3; round++ {
			buf[0], buf[1] = float64(round), float64(round)-0.5
			must(t, p.Start())
			_, ok, err := p.Test()
			must(t, err)
			if !ok {
				t.Errorf("BsendInit round %d: not complete before the receive was posted", round)
				_, err = p.Wait()
				must(t, err)
			}
			buf[0], buf[1] = -1, -1
			signal(t, 1, tagGo)
		}
		must(t, p.Free())

		detached, err := mpi.BufferDetach()
		must(t, err)
		if len(detached) != len(attached) || &detached[0] != &attached[0] {
			t.Errorf("BufferDetach returned %d bytes at %p, want the %d attached at %p", len(detached), &detached[0], len(attached), &attached[0])
		}
		if _, err := mpi.Ibsend(w, buf, 1, tagData); !errors.Is(err, mpi.ErrBuffer) {
			t.Errorf("Ibsend with no buffer attached: %v, want class ErrBuffer", err)
		}
		if _, err := mpi.BufferDetach(); err == nil {
			t.Errorf("BufferDetach with no buffer attached: no error")
		}

		// A message too large to go eagerly leaves the buffer only as the receiver
		// takes it: BufferDetach must wait for that, and the buffer is ours again
		// once it returns.
		big := make([]byte, 3<<20)
		for i := range big {
			big[i] = byte(i % 253)
		}
		attached = make([]byte, len(big)+4096)
		must(t, mpi.BufferAttach(attached))
		must(t, mpi.Bsend(w, big, 1, 9))
		detached, err = mpi.BufferDetach()
		must(t, err)
		clear(detached) // would corrupt the message if it were still being sent
	})
}

// TestPersistentRequests: SendInit and RecvInit around a ring, run by Start and by
// Startall for several rounds, each round's data and statuses checked; an inactive
// persistent request is not null and cannot be started twice.
func TestPersistentRequests(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		w := mpi.World
		next, prev := (rank+1)%size, (rank+size-1)%size
		sbuf, rbuf := make([]float64, 2), make([]float64, 2)
		s, err := mpi.SendInit(w, sbuf, next, 5)
		must(t, err)
		r, err := mpi.RecvInit(w, rbuf, prev, 5)
		must(t, err)
		reqs := []mpi.Request{r, s}
		sts := make([]mpi.Status, 2)
		for round := 0; round < 4; round++ {
			sbuf[0], sbuf[1] = float64(rank*10+round), float64(round)/2
			rbuf[0], rbuf[1] = -1, -1
			if round%2 == 0 {
				must(t, reqs[0].Start())
				must(t, reqs[1].Start())
			} else {
				must(t, mpi.Startall(reqs))
			}
			if round == 0 {
				if err := reqs[0].Start(); !errors.Is(err, mpi.ErrRequest) {
					t.Errorf("Start of an active request: %v, want class ErrRequest", err)
				}
			}
			must(t, mpi.Waitall(reqs, sts))
			if want := []float64{float64(prev*10 + round), float64(round) / 2}; !slices.Equal(rbuf, want) {
				t.Errorf("round %d: received %v, want %v", round, rbuf, want)
			}
			if sts[0].Source != prev || sts[0].Tag != 5 || mpi.GetCount[float64](sts[0]) != 2 {
				t.Errorf("round %d: receive status %+v, want source %d, tag 5, 2 float64", round, sts[0], prev)
			}
			if reqs[0].IsNull() || reqs[1].IsNull() {
				t.Errorf("round %d: a completed persistent request is null, want inactive", round)
			}
		}
		must(t, reqs[0].Free())
		must(t, reqs[1].Free())
	})
}

// completion is the harness of the Waitany family's tests: rank 0 posts one receive
// per slot, slot i from rank 1+i%2 with tag 10+i, and releases the slots one at a
// time by asking their rank to send; ranks 1 and 2 serve those requests.
type completion struct {
	t    *testing.T
	bufs [][]int
	reqs []mpi.Request
}

const slots = 4

func owner(i int) int { return 1 + i%2 }

func post(t *testing.T) *completion {
	c := &completion{t: t, bufs: make([][]int, slots), reqs: make([]mpi.Request, slots)}
	for i := range c.reqs {
		c.bufs[i] = []int{-1}
		var err error
		c.reqs[i], err = mpi.Irecv(mpi.World, c.bufs[i], owner(i), 10+i)
		must(t, err)
	}
	return c
}

// release has slot i's rank send its message, and waits for word that it has.
func (c *completion) release(i int) {
	must(c.t, mpi.Send(mpi.World, []int32{int32(i)}, owner(i), tagGo))
	await(c.t, owner(i), tagArrived)
}

// check checks that slot i completed with the right data and status.
func (c *completion) check(call string, i int, st mpi.Status) {
	c.t.Helper()
	if i < 0 || i >= slots {
		c.t.Fatalf("%s: index %d", call, i)
	}
	if c.bufs[i][0] != 100+i || st.Source != owner(i) || st.Tag != 10+i || mpi.GetCount[int](st) != 1 {
		c.t.Errorf("%s: slot %d holds %v, status %+v; want %d from rank %d with tag %d", call, i, c.bufs[i], st, 100+i, owner(i), 10+i)
	}
	if !c.reqs[i].IsNull() {
		c.t.Errorf("%s: slot %d completed but its request is not null", call, i)
	}
}

// serve is ranks 1 and 2: send slot i's message when asked, until asked for -1.
func serve(t *testing.T) {
	for {
		var i [1]int32
		_, err := mpi.Recv(mpi.World, i[:], 0, tagGo)
		must(t, err)
		if i[0] < 0 {
			return
		}
		must(t, mpi.Send(mpi.World, []int{100 + int(i[0])}, 0, 10+int(i[0])))
		signal(t, 0, tagArrived)
	}
}

// TestWaitanyFamily: Waitany, Testany, Testall, Waitsome and Testsome report the
// requests that completed, by index, with their statuses; none reports one whose
// message was not sent; on a set of null requests each says so.
func TestWaitanyFamily(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		if rank != 0 {
			serve(t)
			return
		}
		defer func() {
			for r := 1; r < size; r++ {
				must(t, mpi.Send(mpi.World, []int32{-1}, r, tagGo))
			}
		}()

		// Waitany: one slot released at a time, in an order of our choosing.
		c := post(t)
		for _, i := range []int{2, 0, 3, 1} {
			c.release(i)
			got, st, err := mpi.Waitany(c.reqs)
			must(t, err)
			if got != i {
				t.Fatalf("Waitany returned index %d, but only slot %d's message was sent", got, i)
			}
			c.check("Waitany", got, st)
		}
		i, st, err := mpi.Waitany(c.reqs)
		if i != mpi.Undefined || err != nil || st.Source != mpi.AnySource || st.Tag != mpi.AnyTag {
			t.Errorf("Waitany on null requests: %d %+v %v, want Undefined, an empty status", i, st, err)
		}

		// Testany: nothing before a release, then exactly the slot released.
		c = post(t)
		if i, _, ok, err := mpi.Testany(c.reqs); ok || err != nil || i != mpi.Undefined {
			t.Errorf("Testany before any message was sent: index %d, ok %v, %v", i, ok, err)
		}
		for _, i := range []int{1, 3, 0, 2} {
			c.release(i)
			var got int
			var st mpi.Status
			poll(t, "Testany", func() bool {
				var ok bool
				var err error
				got, st, ok, err = mpi.Testany(c.reqs)
				must(t, err)
				return ok
			})
			if got != i {
				t.Fatalf("Testany returned index %d, but only slot %d's message was sent", got, i)
			}
			c.check("Testany", got, st)
		}
		if i, _, ok, err := mpi.Testany(c.reqs); !ok || err != nil || i != mpi.Undefined {
			t.Errorf("Testany on null requests: index %d, ok %v, %v; want Undefined, true", i, ok, err)
		}

		// Testall: false while one message is missing (and nothing is used up), true
		// once both have come.
		c = post(t)
		pair := c.reqs[1:3]
		sts := make([]mpi.Status, 2)
		c.release(1)
		if ok, err := mpi.Testall(pair, sts); ok || err != nil {
			t.Errorf("Testall with slot 2's message unsent: %v, %v", ok, err)
		}
		if pair[0].IsNull() {
			t.Errorf("Testall returned false but used up a request")
		}
		c.release(2)
		poll(t, "Testall", func() bool {
			ok, err := mpi.Testall(pair, sts)
			must(t, err)
			return ok
		})
		c.check("Testall", 1, sts[0])
		c.check("Testall", 2, sts[1])

		// Waitsome and Testsome: what they report is what was released, each slot once.
		seen := map[int]bool{}
		report := func(call string, idx []int, sts []mpi.Status, allowed ...int) {
			t.Helper()
			if len(idx) != len(sts) {
				t.Fatalf("%s: %d indices and %d statuses", call, len(idx), len(sts))
			}
			for k, i := range idx {
				if !slices.Contains(allowed, i) || seen[i] {
					t.Fatalf("%s reported slot %d (seen before: %v); released: %v", call, i, seen[i], allowed)
				}
				seen[i] = true
				c.check(call, i, sts[k])
			}
		}
		// Slots 1 and 2 are null now; 0 and 3 are pending.
		if idx, sts, err := mpi.Testsome(c.reqs); idx == nil || len(idx) != 0 || len(sts) != 0 || err != nil {
			t.Errorf("Testsome before any message was sent: %#v %v %v, want an empty, non-nil slice (outcount 0)", idx, sts, err)
		}
		c.release(3)
		for !seen[3] {
			idx, sts, err := mpi.Waitsome(c.reqs)
			must(t, err)
			if len(idx) == 0 {
				t.Fatalf("Waitsome returned no index with a request pending and its message sent")
			}
			report("Waitsome", idx, sts, 3)
		}
		c.release(0)
		poll(t, "Testsome", func() bool {
			idx, sts, err := mpi.Testsome(c.reqs)
			must(t, err)
			report("Testsome", idx, sts, 0)
			return seen[0]
		})
		if idx, _, err := mpi.Waitsome(c.reqs); idx != nil || err != nil {
			t.Errorf("Waitsome on null requests: %v %v, want nil", idx, err)
		}
		if idx, _, err := mpi.Testsome(c.reqs); idx != nil || err != nil {
			t.Errorf("Testsome on null requests: %v %v, want nil", idx, err)
		}

		// All four released before Waitsome is called: between them, the calls report
		// each slot once.
		c = post(t)
		seen = map[int]bool{}
		c.release(0)
		c.release(1)
		c.release(2)
		c.release(3)
		for len(seen) < slots {
			idx, sts, err := mpi.Waitsome(c.reqs)
			must(t, err)
			report("Waitsome", idx, sts, 0, 1, 2, 3)
		}
	})
}

// TestWaitanyMixedSets: Waitany and Waitsome over sets that mix a message with
// operations of many messages (a nonblocking barrier, a generalized request completed
// by another goroutine) report each as it completes, and a generalized request's
// completion wakes a waiter asleep in the idle policy's last phase.
func TestWaitanyMixedSets(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		buf := []int{-1}
		peer := 1 - rank
		if rank == 1 {
			// The message rank 0 waits for is sent only once rank 0 has seen the
			// barrier complete, so the barrier must be the first of its set to.
			bq, err := w.Ibarrier()
			must(t, err)
			_, err = bq.Wait()
			must(t, err)
			await(t, 0, tagGo)
			must(t, mpi.Send(w, []int{11}, 0, 7))
		} else {
			rq, err := mpi.Irecv(w, buf, 1, 7)
			must(t, err)
			bq, err := w.Ibarrier()
			must(t, err)
			rs := []mpi.Request{rq, bq}
			i, _, err := mpi.Waitany(rs)
			must(t, err)
			if i != 1 {
				t.Fatalf("Waitany over {Irecv, Ibarrier}: index %d, want 1 (the barrier; no message is sent yet)", i)
			}
			signal(t, 1, tagGo)
			i, st, err := mpi.Waitany(rs)
			must(t, err)
			if i != 0 || buf[0] != 11 || st.Source != 1 || st.Tag != 7 {
				t.Fatalf("Waitany: index %d, buf %v, status %+v; want 0, [11], from 1 tag 7", i, buf, st)
			}
		}

		// A generalized request completed after a delay the waiter cannot know: the
		// completion, not a timeout, ends the wait.
		if rank == 1 {
			await(t, 0, tagGo)
			must(t, mpi.Send(w, []int{21}, 0, 8))
			return
		}
		gq, err := mpi.GrequestStart[int](nil, nil, nil, 0)
		must(t, err)
		done := make(chan struct{})
		go func() {
			<-done
			if err := gq.GrequestComplete(); err != nil {
				t.Errorf("GrequestComplete: %v", err)
			}
		}()
		other, err := mpi.Irecv(w, buf, peer, 8)
		must(t, err)
		set := []mpi.Request{other, gq}
		if idx, _, err := mpi.Testsome(set); err != nil || idx == nil || len(idx) != 0 {
			t.Fatalf("Testsome before anything completed: %#v, %v; want an empty slice", idx, err)
		}
		close(done)
		idx, _, err := mpi.Waitsome(set)
		must(t, err)
		if len(idx) != 1 || idx[0] != 1 {
			t.Fatalf("Waitsome: %v, want [1] (only the generalized request completed)", idx)
		}
		signal(t, 1, tagGo)
		idx, _, err = mpi.Waitsome(set)
		must(t, err)
		if len(idx) != 1 || idx[0] != 0 || buf[0] != 21 {
			t.Fatalf("Waitsome: %v, buf %v; want [0], [21]", idx, buf)
		}
		if idx, _, err := mpi.Waitsome(set); idx != nil || err != nil {
			t.Fatalf("Waitsome on null requests: %v %v, want nil", idx, err)
		}
	})
}

// TestMatchedProbeThenImrecv: Improbe finds nothing before the message is sent, then
// takes it off the queue, so that a wildcard receive gets the next message instead;
// Imrecv receives the taken message; a message from ProcNull is received as nothing.
func TestMatchedProbeThenImrecv(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		if rank == 1 {
			await(t, 0, tagGo)
			must(t, mpi.Send(w, []int{1, 2, 3}, 0, 5))
			must(t, mpi.Send(w, []int{4}, 0, 6))
			return
		}
		if _, _, ok, err := w.Improbe(1, 5); ok || err != nil {
			t.Fatalf("Improbe before the message was sent: ok %v, %v", ok, err)
		}
		signal(t, 1, tagGo)
		var m mpi.Message
		var st mpi.Status
		poll(t, "Improbe", func() bool {
			var ok bool
			var err error
			m, st, ok, err = w.Improbe(mpi.AnySource, 5)
			must(t, err)
			return ok
		})
		if st.Source != 1 || st.Tag != 5 || mpi.GetCount[int](st) != 3 {
			t.Errorf("Improbe status %+v, want source 1, tag 5, 3 ints", st)
		}
		next := []int{0}
		st, err := mpi.Recv(w, next, mpi.AnySource, mpi.AnyTag)
		must(t, err)
		if st.Tag != 6 || next[0] != 4 {
			t.Errorf("a wildcard receive after Improbe got tag %d (%v), want the next message, tag 6", st.Tag, next)
		}
		got := make([]int, 4)
		r, err := mpi.Imrecv(got, &m)
		must(t, err)
		st, err = r.Wait()
		must(t, err)
		if !slices.Equal(got, []int{1, 2, 3, 0}) || st.Source != 1 || st.Tag != 5 || mpi.GetCount[int](st) != 3 {
			t.Errorf("Imrecv got %v with status %+v", got, st)
		}
		if _, err := mpi.Imrecv(got, &m); !errors.Is(err, mpi.ErrRequest) {
			t.Errorf("Imrecv of a message already received: %v, want class ErrRequest", err)
		}
		var none mpi.Message
		if _, err := mpi.Imrecv(got, &none); !errors.Is(err, mpi.ErrRequest) {
			t.Errorf("Imrecv of no message: %v, want class ErrRequest", err)
		}

		m, st, ok, err := w.Improbe(mpi.ProcNull, 0)
		if !ok || err != nil || st.Source != mpi.ProcNull {
			t.Fatalf("Improbe(ProcNull): ok %v, status %+v, %v", ok, st, err)
		}
		got[0] = 42
		r, err = mpi.Imrecv(got, &m)
		must(t, err)
		st, err = r.Wait()
		must(t, err)
		if got[0] != 42 || st.Source != mpi.ProcNull || st.Bytes() != 0 {
			t.Errorf("Imrecv of the ProcNull message: %v, status %+v", got, st)
		}
	})
}

// TestSendrecvReplace: around a ring every rank's buffer ends up holding its
// predecessor's data, with wildcards too; with ProcNull on both sides it is unchanged.
func TestSendrecvReplace(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		w := mpi.World
		next, prev := (rank+1)%size, (rank+size-1)%size
		buf := []int64{int64(rank), int64(rank) * 2, int64(rank) * 3}
		st, err := mpi.SendrecvReplace(w, buf, next, 7, prev, 7)
		must(t, err)
		want := []int64{int64(prev), int64(prev) * 2, int64(prev) * 3}
		if !slices.Equal(buf, want) || st.Source != prev || st.Tag != 7 || mpi.GetCount[int64](st) != 3 {
			t.Errorf("SendrecvReplace: %v with status %+v, want %v from %d, tag 7", buf, st, want, prev)
		}
		// Once more, receiving with wildcards: the data moves one further.
		st, err = mpi.SendrecvReplace(w, buf, next, 8, mpi.AnySource, mpi.AnyTag)
		must(t, err)
		pp := (prev + size - 1) % size
		want = []int64{int64(pp), int64(pp) * 2, int64(pp) * 3}
		if !slices.Equal(buf, want) || st.Source != prev || st.Tag != 8 {
			t.Errorf("SendrecvReplace with wildcards: %v with status %+v, want %v from %d, tag 8", buf, st, want, prev)
		}
		st, err = mpi.SendrecvReplace(w, buf, mpi.ProcNull, 0, mpi.ProcNull, 0)
		must(t, err)
		if !slices.Equal(buf, want) || st.Source != mpi.ProcNull {
			t.Errorf("SendrecvReplace with ProcNull: %v with status %+v, want %v unchanged", buf, st, want)
		}
	})
}

// TestCancelAndWaitContext: a cancelled receive completes with Cancelled set and
// its buffer untouched; WaitContext gives up on a done context and leaves the request
// pending, then completes it; a completed receive is not Cancelled.
func TestCancelAndWaitContext(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		if rank == 1 {
			await(t, 0, tagGo)
			must(t, mpi.Send(w, []int{5, 6}, 0, 20))
			return
		}
		buf := []int{-1, -1}
		r, err := mpi.Irecv(w, buf, 1, 99) // never sent
		must(t, err)
		must(t, r.Cancel())
		st, err := r.Wait()
		must(t, err)
		if !st.Cancelled() || buf[0] != -1 {
			t.Errorf("a cancelled receive: Cancelled() = %v, buffer %v", st.Cancelled(), buf)
		}

		r, err = mpi.Irecv(w, buf, 1, 20)
		must(t, err)
		done, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := r.WaitContext(done); !errors.Is(err, context.Canceled) {
			t.Errorf("WaitContext with a cancelled context, nothing sent: %v, want context.Canceled", err)
		}
		if r.IsNull() {
			t.Fatalf("WaitContext gave up but the request is null")
		}
		signal(t, 1, tagGo)
		st, err = r.WaitContext(context.Background())
		must(t, err)
		if !slices.Equal(buf, []int{5, 6}) || st.Source != 1 || st.Tag != 20 || st.Cancelled() {
			t.Errorf("WaitContext: %v with status %+v (cancelled %v)", buf, st, st.Cancelled())
		}
	})
}

// TestCancelSend: sends whose message has left but not matched (a synchronous one,
// and one long enough for a rendezvous) are cancelled, their Wait returns, and the
// receives that would have matched them take the messages sent next; a send already
// matched completes normally, its data received.
func TestCancelSend(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		long := 1 << 20
		if rank == 1 {
			await(t, 0, tagGo) // the cancelled messages have arrived, unmatched
			small, big := []int{0}, make([]byte, long)
			_, err := mpi.Recv(w, small, 0, 30)
			must(t, err)
			_, err = mpi.Recv(w, big, 0, 31)
			must(t, err)
			if small[0] != 2 || big[0] != 2 {
				t.Errorf("after the cancelled sends: received %d and %d, want the second messages (2)", small[0], big[0])
			}
			r, err := mpi.Irecv(w, big, 0, 32)
			must(t, err)
			signal(t, 0, tagPosted)
			_, err = r.Wait()
			must(t, err)
			if big[0] != 3 {
				t.Errorf("a send matched before its cancel: received %d, want 3", big[0])
			}
			return
		}
		big := make([]byte, long)
		big[0] = 1
		s1, err := mpi.Issend(w, []int{1}, 1, 30)
		must(t, err)
		s2, err := mpi.Isend(w, big, 1, 31)
		must(t, err)
		must(t, s1.Cancel())
		must(t, s2.Cancel())
		for _, s := range []*mpi.Request{&s1, &s2} {
			st, err := s.Wait()
			must(t, err)
			if !st.Cancelled() {
				t.Errorf("an unmatched send: Cancelled() = false")
			}
		}
		big2 := make([]byte, long)
		big2[0] = 2
		must(t, mpi.Send(w, []int{2}, 1, 30))
		s3, err := mpi.Isend(w, big2, 1, 31)
		must(t, err)
		signal(t, 1, tagGo)
		_, err = s3.Wait()
		must(t, err)
		big[0] = 3
		await(t, 1, tagPosted)
		s4, err := mpi.Issend(w, big, 1, 32) // matches on arrival
		must(t, err)
		must(t, s4.Cancel())
		st, err := s4.Wait()
		must(t, err)
		if st.Cancelled() {
			t.Errorf("a matched send: Cancelled() = true")
		}
	})
}

// TestWaitContextOnCollective: WaitContext on a nonblocking collective's request gives
// up, as on a message's, while the collective cannot complete.
func TestWaitContextOnCollective(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		if rank == 1 {
			await(t, 0, tagGo)     // enters the barrier only when rank 0 has looked
			r, err := w.Ibarrier() // a nonblocking collective matches only its own kind
			must(t, err)
			_, err = r.Wait()
			must(t, err)
			return
		}
		r, err := w.Ibarrier()
		must(t, err)
		done, cancel := context.WithCancel(context.Background())
		cancel()
		_, err = r.WaitContext(done)
		signal(t, 1, tagGo)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("WaitContext on an Ibarrier rank 1 has not entered: %v, want context.Canceled", err)
		}
		_, err = r.Wait()
		must(t, err)
	})
}
