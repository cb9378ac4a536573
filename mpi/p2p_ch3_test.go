package mpi_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// TestIsendrecv: neighbours in a ring exchange with one request each; the status is
// the receive's.
func TestIsendrecv(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		right, left := (rank+1)%size, (rank+size-1)%size
		out := []int64{int64(rank), int64(rank * 10)}
		in := make([]int64, 2)
		q, err := mpi.Isendrecv(mpi.World, out, right, 5, in, left, 5)
		must(t, err)
		st, err := q.Wait()
		must(t, err)
		if in[0] != int64(left) || in[1] != int64(left*10) || st.Source != left || st.Tag != 5 || mpi.GetCount[int64](st) != 2 {
			t.Fatalf("got %v, status %+v", in, st)
		}
		if !q.IsNull() {
			t.Error("request not null after Wait")
		}

		buf := []int32{int32(rank), 7}
		q, err = mpi.IsendrecvReplace(mpi.World, buf, right, 6, left, 6)
		must(t, err)
		for {
			st, ok, err := q.Test()
			must(t, err)
			if ok {
				if st.Source != left || st.Tag != 6 {
					t.Errorf("status %+v", st)
				}
				break
			}
		}
		if buf[0] != int32(left) || buf[1] != 7 {
			t.Errorf("replace gave %v", buf)
		}

		// ProcNull on both sides completes at once with the ProcNull status.
		q, err = mpi.Isendrecv(mpi.World, out, mpi.ProcNull, 0, in, mpi.ProcNull, 0)
		must(t, err)
		st, err = q.WaitContext(context.Background())
		must(t, err)
		if st.Source != mpi.ProcNull || st.Bytes() != 0 {
			t.Errorf("ProcNull status %+v", st)
		}
		if _, err := mpi.Isendrecv(mpi.World, out, size, 0, in, left, 0); !errors.Is(err, mpi.ErrRank) {
			t.Errorf("dest out of range: %v", err)
		}
		if _, err := mpi.Isendrecv[int64, int64](nil, out, 0, 0, in, 0, 0); !errors.Is(err, mpi.ErrComm) {
			t.Errorf("nil comm: %v", err)
		}
	})
}

// TestSendrecvTyped: the datatype forms of Sendrecv, SendrecvReplace, their
// nonblocking forms, and Mrecv and Imrecv, with a strided (non-contiguous) type.
func TestSendrecvTyped(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		peer := 1 - rank
		every2, err := mpi.TypeVector(3, 1, 2, mpi.Int32)
		must(t, err)
		must(t, every2.Commit())
		fill := func(base int32) []int32 { return []int32{base, -1, base + 1, -1, base + 2, -1} }
		want := func(got []int32, base int32, what string) {
			t.Helper()
			if got[0] != base || got[2] != base+1 || got[4] != base+2 || got[1] != -1 || got[3] != -1 {
				t.Errorf("%s: got %v, want base %d at even places", what, got, base)
			}
		}
		me, them := int32(100*rank), int32(100*peer)

		in := fill(-9)
		st, err := mpi.SendrecvBuf(mpi.World, mpi.Typed(fill(me), 1, every2), peer, 1, mpi.Typed(in, 1, every2), peer, 1)
		must(t, err)
		want(in, them, "SendrecvBuf")
		if n, err := st.GetCount(every2); err != nil || n != 1 || st.Source != peer {
			t.Errorf("SendrecvBuf status %+v", st)
		}

		buf := fill(me)
		_, err = mpi.SendrecvReplaceBuf(mpi.World, mpi.Typed(buf, 1, every2), peer, 2, peer, 2)
		must(t, err)
		want(buf, them, "SendrecvReplaceBuf")

		in = fill(-9)
		q, err := mpi.IsendrecvBuf(mpi.World, mpi.Typed(fill(me), 1, every2), peer, 3, mpi.Typed(in, 1, every2), peer, 3)
		must(t, err)
		_, err = q.Wait()
		must(t, err)
		want(in, them, "IsendrecvBuf")

		buf = fill(me)
		q, err = mpi.IsendrecvReplaceBuf(mpi.World, mpi.Typed(buf, 1, every2), peer, 4, peer, 4)
		must(t, err)
		_, err = q.Wait()
		must(t, err)
		want(buf, them, "IsendrecvReplaceBuf")

		// Matched probes into the typed layout.
		must(t, mpi.SendBuf(mpi.World, mpi.Typed(fill(me), 1, every2), peer, 5))
		must(t, mpi.SendBuf(mpi.World, mpi.Typed(fill(me+1), 1, every2), peer, 6))
		m, _, err := mpi.World.Mprobe(peer, 5)
		must(t, err)
		in = fill(-9)
		_, err = mpi.MrecvBuf(mpi.Typed(in, 1, every2), &m)
		must(t, err)
		want(in, them, "MrecvBuf")
		m, _, err = mpi.World.Mprobe(peer, 6)
		must(t, err)
		in = fill(-9)
		q, err = mpi.ImrecvBuf(mpi.Typed(in, 1, every2), &m)
		must(t, err)
		_, err = q.Wait()
		must(t, err)
		want(in, them+1, "ImrecvBuf")
		if _, err := mpi.MrecvBuf(mpi.Typed(in, 1, every2), nil); !errors.Is(err, mpi.ErrRequest) {
			t.Errorf("MrecvBuf(nil): %v", err)
		}
		if _, err := mpi.ImrecvBuf(mpi.Typed(in, 1, every2), nil); !errors.Is(err, mpi.ErrRequest) {
			t.Errorf("ImrecvBuf(nil): %v", err)
		}
		// A receive layout that overruns its slice is refused before anything moves.
		if _, err := mpi.SendrecvBuf(mpi.World, mpi.Typed(in, 1, every2), peer, 7, mpi.Typed(in[:3], 1, every2), peer, 7); !errors.Is(err, mpi.ErrBuffer) {
			t.Errorf("short receive buffer: %v", err)
		}
		must(t, every2.Free())
	})
}

// TestGrequest: a generalized request completed by another goroutine; the query
// fills the status, free runs once after it, cancel is told whether it was complete.
func TestGrequest(t *testing.T) {
	job(t, 1, func(t *testing.T, rank, size int) {
		type state struct {
			queries, frees atomic.Int32
			cancelled      atomic.Int32 // 1: cancelled before complete, 2: after
		}
		query := func(s *state, st *mpi.Status) error {
			s.queries.Add(1)
			st.Source, st.Tag = 3, 9
			st.SetCancelled(s.cancelled.Load() != 0)
			return st.SetElements(mpi.Float64, 4)
		}
		free := func(s *state) error { s.frees.Add(1); return nil }
		cancel := func(s *state, complete bool) error {
			if complete {
				s.cancelled.Store(2)
			} else {
				s.cancelled.Store(1)
			}
			return nil
		}
		s := new(state)
		q, err := mpi.GrequestStart(query, free, cancel, s)
		must(t, err)
		if _, ok, err := q.Test(); ok || err != nil {
			t.Fatalf("Test before complete: ok %v, err %v", ok, err)
		}
		if _, ok, _ := q.GetStatus(); ok || s.queries.Load() != 0 {
			t.Fatal("GetStatus before complete")
		}
		worker := q // the code doing the work keeps its own copy
		go func() { must(t, worker.GrequestComplete()) }()
		st, err := q.Wait()
		must(t, err)
		if st.Source != 3 || st.Tag != 9 || st.Bytes() != 32 || mpi.GetCount[float64](st) != 4 || st.Cancelled() {
			t.Errorf("status %+v", st)
		}
		if s.queries.Load() != 1 || s.frees.Load() != 1 {
			t.Errorf("query ran %d times, free %d", s.queries.Load(), s.frees.Load())
		}
		if err := worker.GrequestComplete(); !errors.Is(err, mpi.ErrRequest) {
			t.Errorf("second complete: %v", err)
		}

		// Cancel before completion; GetStatus queries without freeing.
		s = new(state)
		q, err = mpi.GrequestStart(query, free, cancel, s)
		must(t, err)
		must(t, q.Cancel())
		must(t, q.GrequestComplete())
		st, ok, err := q.GetStatus()
		must(t, err)
		if !ok || !st.Cancelled() || s.cancelled.Load() != 1 || s.frees.Load() != 0 {
			t.Errorf("GetStatus after cancel: ok %v, %+v, cancel %d, frees %d", ok, st, s.cancelled.Load(), s.frees.Load())
		}
		_, ok, err = q.Test()
		must(t, err)
		if !ok || !q.IsNull() || s.frees.Load() != 1 || s.queries.Load() != 2 {
			t.Errorf("Test: ok %v, null %v, frees %d, queries %d", ok, q.IsNull(), s.frees.Load(), s.queries.Load())
		}

		// Freed before completion: free runs at GrequestComplete, not before.
		s = new(state)
		q, err = mpi.GrequestStart(query, free, cancel, s)
		must(t, err)
		worker = q
		must(t, q.Free())
		if s.frees.Load() != 0 {
			t.Error("free ran before complete")
		}
		must(t, worker.GrequestComplete())
		if s.frees.Load() != 1 || s.queries.Load() != 0 {
			t.Errorf("after complete: frees %d, queries %d", s.frees.Load(), s.queries.Load())
		}

		// The query's error is Wait's; nil functions are allowed.
		boom := errors.New("boom")
		q, err = mpi.GrequestStart(func(_ int, st *mpi.Status) error { return boom }, nil, nil, 0)
		must(t, err)
		must(t, q.GrequestComplete())
		if _, err := q.Wait(); !errors.Is(err, boom) {
			t.Errorf("query error: %v", err)
		}
		q, err = mpi.GrequestStart[any](nil, nil, nil, nil)
		must(t, err)
		must(t, q.GrequestComplete())
		st, err = q.Wait()
		must(t, err)
		if st.Source != mpi.AnySource || st.Tag != mpi.AnyTag || st.Bytes() != 0 {
			t.Errorf("nil query status %+v", st)
		}

		var plain mpi.Request
		if err := plain.GrequestComplete(); !errors.Is(err, mpi.ErrRequest) {
			t.Errorf("complete of a non-generalized request: %v", err)
		}
		var st0 mpi.Status
		if err := st0.SetElements(nil, 1); !errors.Is(err, mpi.ErrType) {
			t.Errorf("SetElements(nil): %v", err)
		}
		if err := st0.SetElements(mpi.Int32, -1); !errors.Is(err, mpi.ErrCount) {
			t.Errorf("SetElements(-1): %v", err)
		}
	})
}

// TestGrequestMixed: sets mixing generalized, point-to-point and collective requests
// complete through every completion call.
func TestGrequestMixed(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		peer := 1 - rank
		start := func() (mpi.Request, *atomic.Int32) {
			n := new(atomic.Int32)
			q, err := mpi.GrequestStart(func(n *atomic.Int32, st *mpi.Status) error {
				st.Tag = 42
				return nil
			}, func(n *atomic.Int32) error { n.Add(1); return nil }, nil, n)
			must(t, err)
			return q, n
		}
		mixed := func() ([]mpi.Request, []*atomic.Int32, []int) {
			g1, n1 := start()
			g2, n2 := start()
			in := make([]int, 1)
			r, err := mpi.Irecv(mpi.World, in, peer, 1)
			must(t, err)
			s, err := mpi.Isend(mpi.World, []int{rank}, peer, 1)
			must(t, err)
			b, err := mpi.World.Ibarrier()
			must(t, err)
			return []mpi.Request{g1, r, s, b, g2}, []*atomic.Int32{n1, n2}, in
		}
		completeLater := func(rs []mpi.Request) {
			a, b := rs[0], rs[4]
			go func() { must(t, a.GrequestComplete()); must(t, b.GrequestComplete()) }()
		}
		check := func(what string, ns []*atomic.Int32) {
			t.Helper()
			for i, n := range ns {
				if n.Load() != 1 {
					t.Errorf("%s: grequest %d freed %d times", what, i, n.Load())
				}
			}
		}

		rs, ns, in := mixed()
		completeLater(rs)
		sts := make([]mpi.Status, len(rs))
		must(t, mpi.Waitall(rs, sts))
		if sts[0].Tag != 42 || sts[4].Tag != 42 || sts[1].Source != peer || in[0] != peer {
			t.Errorf("Waitall statuses %+v, got %v", sts, in)
		}
		check("Waitall", ns)

		rs, ns, _ = mixed()
		completeLater(rs)
		for done := 0; done < len(rs); {
			i, st, err := mpi.Waitany(rs)
			must(t, err)
			if (i == 0 || i == 4) && st.Tag != 42 {
				t.Errorf("Waitany %d status %+v", i, st)
			}
			done++
		}
		check("Waitany", ns)

		rs, ns, _ = mixed()
		completeLater(rs)
		for n := 0; n < len(rs); {
			idx, _, err := mpi.Waitsome(rs)
			must(t, err)
			n += len(idx)
		}
		check("Waitsome", ns)

		rs, ns, _ = mixed()
		completeLater(rs)
		for {
			ok, err := mpi.Testall(rs, nil)
			must(t, err)
			if ok {
				break
			}
		}
		check("Testall", ns)

		rs, ns, _ = mixed()
		completeLater(rs)
		for n := 0; n < len(rs); {
			idx, _, err := mpi.Testsome(rs)
			must(t, err)
			n += len(idx)
		}
		check("Testsome", ns)

		rs, ns, _ = mixed()
		completeLater(rs)
		for n := 0; n < len(rs); {
			i, _, ok, err := mpi.Testany(rs)
			must(t, err)
			if ok && i != mpi.Undefined {
				n++
			}
		}
		check("Testany", ns)
	})
}

// TestRequestGetStatusMany: the status queries over sets leave every request to be
// completed, and a persistent one active.
func TestRequestGetStatusMany(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		peer := 1 - rank
		in := make([]int, 1)
		pr, err := mpi.RecvInit(mpi.World, in, peer, 2)
		must(t, err)
		must(t, pr.Start())
		g, err := mpi.GrequestStart[any](nil, nil, nil, nil)
		must(t, err)
		var null mpi.Request
		rs := []mpi.Request{null, pr, g}

		if i, _, ok, err := mpi.RequestGetStatusAny([]mpi.Request{null}); i != mpi.Undefined || !ok || err != nil {
			t.Errorf("Any over null: %d %v %v", i, ok, err)
		}
		if idx, _, err := mpi.RequestGetStatusSome([]mpi.Request{null}); idx != nil || err != nil {
			t.Errorf("Some over null: %v %v", idx, err)
		}
		if ok, err := mpi.RequestGetStatusAll(rs, nil); ok || err != nil {
			t.Errorf("All before anything completed: %v %v", ok, err)
		}
		must(t, g.GrequestComplete())
		i, _, ok, err := mpi.RequestGetStatusAny(rs)
		must(t, err)
		if !ok || (i != 2 && i != 1) { // the peer's message may be in already
			t.Errorf("Any: %d %v, want a completed request", i, ok)
		}
		must(t, mpi.Send(mpi.World, []int{rank + 1}, peer, 2))
		sts := make([]mpi.Status, len(rs))
		for {
			ok, err := mpi.RequestGetStatusAll(rs, sts)
			must(t, err)
			if ok {
				break
			}
		}
		if sts[1].Source != peer || sts[1].Tag != 2 || sts[0].Source != mpi.AnySource {
			t.Errorf("All statuses %+v", sts)
		}
		idx, ssts, err := mpi.RequestGetStatusSome(rs)
		must(t, err)
		if len(idx) != 2 || idx[0] != 1 || idx[1] != 2 || ssts[0].Source != peer {
			t.Errorf("Some: %v %+v", idx, ssts)
		}
		// Still there to complete: the persistent one is active until Wait.
		if pr.IsNull() || g.IsNull() {
			t.Fatal("a status query used a request up")
		}
		must(t, mpi.Waitall(rs, nil))
		if in[0] != peer+1 || !rs[2].IsNull() {
			t.Errorf("got %v", in)
		}
		// Inactive now: Any sees no active request.
		if i, _, ok, _ := mpi.RequestGetStatusAny(rs); i != mpi.Undefined || !ok {
			t.Errorf("Any over inactive: %d %v", i, ok)
		}
		must(t, pr.Free())
		if _, err := mpi.RequestGetStatusAll(rs, make([]mpi.Status, 1)); !errors.Is(err, mpi.ErrArg) {
			t.Errorf("short statuses: %v", err)
		}
	})
}

// TestCommBuffer: a communicator's own buffer is the one its buffered sends use; the
// process's serves the others; flushes wait for the messages; automatic buffers grow.
func TestCommBuffer(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		peer := 1 - rank
		const big = 1 << 20
		c, err := mpi.World.Dup()
		must(t, err)
		if rank == 0 {
			cbuf := make([]byte, big+mpi.BsendOverhead) // room for one message
			must(t, c.AttachBuffer(cbuf))
			if err := c.AttachBuffer(cbuf); !errors.Is(err, mpi.ErrBuffer) {
				t.Errorf("second attach: %v", err)
			}
			// No process buffer: a Bsend on World fails, one on c goes.
			if err := mpi.Bsend(mpi.World, []byte{1}, peer, 1); !errors.Is(err, mpi.ErrBuffer) {
				t.Errorf("Bsend on World without a buffer: %v", err)
			}
			must(t, mpi.Bsend(c, make([]byte, big), peer, 1)) // a rendezvous: under way until the receiver comes
			if err := mpi.Bsend(c, []byte{1}, peer, 1); !errors.Is(err, mpi.ErrBuffer) {
				t.Errorf("Bsend past c's buffer: %v", err)
			}
			must(t, mpi.BufferAttach(mpi.BufferAutomatic))
			for i := 0; i < 8; i++ {
				must(t, mpi.Bsend(mpi.World, make([]byte, 100_000), peer, 2))
			}
			q, err := mpi.BufferIflush()
			must(t, err)
			must(t, mpi.World.Barrier()) // the receiver starts now
			_, err = q.Wait()
			must(t, err)
			must(t, mpi.BufferFlush())
			must(t, c.FlushBuffer())
			q, err = c.IflushBuffer()
			must(t, err)
			_, err = q.Wait()
			must(t, err)
			got, err := c.DetachBuffer()
			must(t, err)
			if len(got) != len(cbuf) || &got[0] != &cbuf[0] {
				t.Error("DetachBuffer did not return the buffer attached")
			}
			if _, err := c.DetachBuffer(); !errors.Is(err, mpi.ErrBuffer) {
				t.Errorf("detach with none: %v", err)
			}
			pb, err := mpi.BufferDetach()
			must(t, err)
			if cap(pb) == 0 || &pb[:1][0] != &mpi.BufferAutomatic[:1][0] {
				t.Error("BufferDetach of an automatic buffer did not return BufferAutomatic")
			}
			// With no process buffer now, c's automatic one still serves c.
			must(t, c.AttachBuffer(mpi.BufferAutomatic))
			must(t, mpi.Bsend(c, []int{7}, peer, 3))
			must(t, c.Free()) // the message still goes
			if err := mpi.BufferAttach(nil); !errors.Is(err, mpi.ErrBuffer) {
				t.Errorf("empty attach: %v", err)
			}
			if err := mpi.BufferFlush(); err != nil {
				t.Errorf("flush with no buffer: %v", err)
			}
			return
		}
		must(t, mpi.World.Barrier())
		_, err = mpi.Recv(c, make([]byte, big), peer, 1)
		must(t, err)
		for i := 0; i < 8; i++ {
			_, err = mpi.Recv(mpi.World, make([]byte, 100_000), peer, 2)
			must(t, err)
		}
		x := []int{0}
		_, err = mpi.Recv(c, x, peer, 3)
		must(t, err)
		if x[0] != 7 {
			t.Errorf("got %d", x[0])
		}
		must(t, c.Free())
		var nilc *mpi.Comm
		if err := nilc.AttachBuffer(make([]byte, 10)); !errors.Is(err, mpi.ErrComm) {
			t.Errorf("nil comm attach: %v", err)
		}
		if _, err := nilc.DetachBuffer(); !errors.Is(err, mpi.ErrComm) {
			t.Errorf("nil comm detach: %v", err)
		}
		if err := nilc.FlushBuffer(); !errors.Is(err, mpi.ErrComm) {
			t.Errorf("nil comm flush: %v", err)
		}
		if _, err := nilc.IflushBuffer(); !errors.Is(err, mpi.ErrComm) {
			t.Errorf("nil comm iflush: %v", err)
		}
	})
}

// TestIsendrecvEdges: a truncated receive fails the request with ErrTruncate; a
// cancelled one says so in its status; a freed one still delivers its send.
func TestIsendrecvEdges(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		peer := 1 - rank
		small := make([]int, 1)
		q, err := mpi.Isendrecv(mpi.World, []int{1, 2}, peer, 1, small, peer, 1)
		must(t, err)
		st, err := q.Wait()
		if !errors.Is(err, mpi.ErrTruncate) || !errors.Is(st.Err, mpi.ErrTruncate) {
			t.Errorf("truncated: err %v, status err %v", err, st.Err)
		}

		q, err = mpi.Isendrecv(mpi.World, []int{}, mpi.ProcNull, 0, small, peer, 99) // nothing comes
		must(t, err)
		must(t, q.Cancel())
		st, err = q.Wait()
		must(t, err)
		if !st.Cancelled() {
			t.Errorf("cancelled request's status %+v", st)
		}

		q, err = mpi.Isendrecv(mpi.World, []int{rank + 5}, peer, 2, make([]int, 1), mpi.ProcNull, 0)
		must(t, err)
		must(t, q.Free())
		got := []int{0}
		_, err = mpi.Recv(mpi.World, got, peer, 2)
		must(t, err)
		if got[0] != peer+5 {
			t.Errorf("freed request's send delivered %d", got[0])
		}
	})
}
