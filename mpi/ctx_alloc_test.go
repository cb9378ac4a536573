package mpi_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestContextWaitNoAllocation: the context forms of the blocking calls allocate
// nothing per call in steady state, in a real 2-rank job, for calls that really
// block (rank 0's wait is posted before rank 1 sends its reply): Recv, Probe and
// Waitall through a view, Request.WaitContext on a receive and on a nonblocking
// collective, and a blocking collective through a view. Run with the default idle
// policy, and with one whose waits sleep after two polls, so that every wait goes to
// sleep and the context is watched while it sleeps.
func TestContextWaitNoAllocation(t *testing.T) {
	for _, pol := range []struct {
		name string
		set  map[string]string
	}{
		{"default", nil},
		{"sleepy", map[string]string{"p2p_spin": "1", "p2p_yield": "1"}},
		{"tcp", mpitest.TCP.Settings},
	} {
		t.Run(pol.name, func(t *testing.T) {
			jobWith(t, mpitest.Options{N: 2, Settings: pol.set}, func(t *testing.T, rank, size int) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				w := mpi.World
				v := w.WithContext(ctx)
				vbg := w.WithContext(context.Background()) // its calls run in the caller
				peer := 1 - rank
				buf := make([]float64, 4)
				rs := make([]mpi.Request, 1)
				bb := mpi.Typed(buf, 4, mpi.Float64)
				b1, b2, b2r := mpi.Typed(buf[:1], 1, mpi.Float64), mpi.Typed(buf[2:4], 2, mpi.Float64), mpi.Typed(make([]float64, 2), 2, mpi.Float64)
				b1r := mpi.Typed(make([]float64, 1), 1, mpi.Float64)
				// Every call must succeed (a call refused early would allocate nothing
				// and prove nothing): the first error is kept, and checked per case.
				var failed error
				ok := func(err error) {
					if err != nil && failed == nil {
						failed = err
					}
				}
				// reply: rank 0 pings, then waits through wait for rank 1's reply.
				reply := func(wait func()) func() {
					return func() {
						if rank == 0 {
							ok(mpi.Send(w, buf, peer, 1))
							wait()
						} else {
							_, err := mpi.Recv(w, buf, peer, 1)
							ok(err)
							ok(mpi.Send(w, buf, peer, 2))
						}
					}
				}
				cases := []struct {
					name string
					f    func()
				}{
					{"Recv", reply(func() { _, err := mpi.Recv(v, buf, peer, 2); ok(err) })},
					{"Probe", reply(func() {
						_, err := v.Probe(peer, 2)
						ok(err)
						_, err = mpi.Recv(w, buf, peer, 2)
						ok(err)
					})},
					{"Request.WaitContext", reply(func() {
						r, err := mpi.Irecv(w, buf, peer, 2)
						ok(err)
						_, err = r.WaitContext(ctx)
						ok(err)
					})},
					{"Waitall", reply(func() {
						var err error
						rs[0], err = mpi.Irecv(v, buf, peer, 2)
						ok(err)
						ok(mpi.Waitall(rs, nil))
					})},
					// The collectives from here on (firstColl).
					{"Ibarrier.WaitContext", func() {
						r, err := w.Ibarrier()
						ok(err)
						_, err = r.WaitContext(ctx)
						ok(err)
					}},
					{"Barrier", func() { ok(v.Barrier()) }},
					{"Allreduce (a view of context.Background)", func() { ok(mpi.Allreduce(vbg, buf[:1], buf[1:2], mpi.Sum)) }},
					{"Allreduce", func() { ok(mpi.Allreduce(v, buf[:1], buf[1:2], mpi.Sum)) }},
					{"Bcast", func() { ok(mpi.Bcast(v, buf, 0)) }},
					{"Gather", func() { ok(mpi.Gather(v, buf[:1], buf[2:4], 0)) }},
					{"Allgather", func() { ok(mpi.Allgather(v, buf[:1], buf[2:4])) }},
					{"Alltoall", func() { ok(mpi.Alltoall(v, buf[:2], buf[2:4])) }},
					{"ReduceScatterBlock", func() { ok(mpi.ReduceScatterBlock(v, buf[:2], buf[2:3], mpi.Sum)) }},
					{"Scan", func() { ok(mpi.Scan(v, buf[:1], buf[1:2], mpi.Sum)) }},
					{"Exscan", func() { ok(mpi.Exscan(v, buf[:1], buf[1:2], mpi.Sum)) }},
					{"BcastBuf", func() { ok(mpi.BcastBuf(v, bb, 0)) }},
					{"AllgatherBuf", func() { ok(mpi.AllgatherBuf(v, b1, b2)) }},
					{"AlltoallBuf", func() { ok(mpi.AlltoallBuf(v, b2, b2r)) }},
					{"AllreduceBuf", func() { ok(mpi.AllreduceBuf(v, b1, b1r, mpi.Sum)) }},
				}
				firstColl := 0
				for firstColl < len(cases) && cases[firstColl].name != "Ibarrier.WaitContext" {
					firstColl++
				}
				for k, c := range cases {
					f := c.f
					if k >= firstColl {
						// Bcast, Gather, Scan and the like let one rank run ahead (its part
						// goes eager, not received yet): a barrier after each call keeps the
						// ranks in step, else the queue of unexpected messages grows while
						// the allocations are counted.
						f = func() { c.f(); ok(w.Barrier()) }
					}
					f() // warm up: pools, the context's Done channel
					// (The race detector empties sync.Pools at random: counts mean nothing then.)
					if a := testing.AllocsPerRun(500, f); a != 0 && !raceEnabled {
						t.Errorf("%s: %.2f allocations per call", c.name, a)
					}
					if failed != nil {
						t.Fatalf("%s: %v", c.name, failed)
					}
				}
			})
		})
	}
}

// TestContextWakesSleepingWait: a wait asleep when its context ends wakes at once,
// not at its next nap's end: with naps of a second (p2p_sleep=1s), a blocked Recv
// and Probe through a view, Request.WaitContext on a receive, on a nonblocking
// collective and on a persistent one, Waitany and Waitsome on collectives' requests
// of a view, and a Barrier through a view, whose contexts end after 100 ms, return
// well before a nap would have ended (a collective's wait has
// no nap at all: without the context's wake-up it would wait for the other rank).
// The requests stay pending and complete once rank 1 comes.
func TestContextWakesSleepingWait(t *testing.T) {
	eachTransport(t, wakesSleepingWait)
}

func wakesSleepingWait(t *testing.T, tr mpitest.Transport) {
	set := map[string]string{"p2p_sleep": "1s"}
	jobWith(t, mpitest.Options{N: 2, Transport: tr, Settings: set}, func(t *testing.T, rank, size int) {
		w := mpi.World
		c, err := w.Dup()
		must(t, err)
		buf := make([]int, 1)
		if rank == 0 {
			soon := func(what string, call func(ctx context.Context) error) {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
				defer cancel()
				start := time.Now()
				err := call(ctx)
				took := time.Since(start)
				wantCtxErr(t, what, err)
				if took > 800*time.Millisecond {
					t.Errorf("%s: its context ended after 100ms, the call returned after %v", what, took)
				}
			}
			soon("Recv", func(ctx context.Context) error {
				_, err := mpi.Recv(w.WithContext(ctx), buf, 1, 1)
				return err
			})
			soon("Probe", func(ctx context.Context) error {
				_, err := w.WithContext(ctx).Probe(1, 1)
				return err
			})
			r, err := mpi.Irecv(w, buf, 1, 1)
			must(t, err)
			soon("Request.WaitContext (Irecv)", func(ctx context.Context) error {
				_, err := r.WaitContext(ctx)
				return err
			})
			ib, err := c.Ibarrier()
			must(t, err)
			soon("Request.WaitContext (Ibarrier)", func(ctx context.Context) error {
				_, err := ib.WaitContext(ctx)
				return err
			})
			// Waitany and Waitsome on a collective's request started through a view
			// poll the set and sleep between polls.
			var vb mpi.Request
			soon("Waitany (Ibarrier through a view)", func(ctx context.Context) error {
				var err error
				vb, err = c.WithContext(ctx).Ibarrier()
				must(t, err)
				_, _, err = mpi.Waitany([]mpi.Request{vb})
				return err
			})
			var vb2 mpi.Request
			soon("Waitsome (Ibarrier through a view)", func(ctx context.Context) error {
				var err error
				vb2, err = c.WithContext(ctx).Ibarrier()
				must(t, err)
				_, _, err = mpi.Waitsome([]mpi.Request{vb2})
				return err
			})
			pb, err := c.BarrierInit()
			must(t, err)
			must(t, pb.Start())
			soon("Request.WaitContext (BarrierInit)", func(ctx context.Context) error {
				_, err := pb.WaitContext(ctx)
				return err
			})
			// Last, as it stops c's collectives.
			soon("Barrier", func(ctx context.Context) error { return c.WithContext(ctx).Barrier() })
			must(t, mpi.Send(w, []int{0}, 1, 9))
			for _, q := range []*mpi.Request{&r, &ib, &vb, &vb2, &pb} {
				// (Wait on vb and vb2, of views whose contexts have ended, would give up.)
				if _, err := q.WaitContext(context.Background()); err != nil {
					t.Fatalf("a request whose wait gave up: %v", err)
				}
			}
			if buf[0] != 7 {
				t.Fatalf("the Irecv whose wait gave up got %d, want 7", buf[0])
			}
			must(t, pb.Free())
		} else {
			_, err := mpi.Recv(w, buf, 0, 9)
			must(t, err)
			must(t, mpi.Send(w, []int{7}, 0, 1))
			ib, err := c.Ibarrier()
			must(t, err)
			var none context.Context // a nil context is context.Background()
			_, err = ib.WaitContext(none)
			must(t, err)
			for range 2 { // rank 0's Waitany's and Waitsome's
				ib, err = c.Ibarrier()
				must(t, err)
				_, err = ib.Wait()
				must(t, err)
			}
			pb, err := c.BarrierInit()
			must(t, err)
			must(t, pb.Start())
			_, err = pb.Wait()
			must(t, err)
			must(t, pb.Free())
			must(t, c.Barrier()) // the given-up Barrier
		}
		must(t, w.Barrier())
	})
}

// TestContextViewHandlerLater: an error handler set on a view after it was made
// handles the errors of the view's collectives that run on the view without its
// context (the Buf ones), once each, as on the view itself; it is the base's handler
// too, the view being the base with a context.
func TestContextViewHandlerLater(t *testing.T) {
	job(t, 1, func(t *testing.T, rank, size int) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		v := mpi.World.WithContext(ctx)
		calls := 0
		h := mpi.NewErrHandler(func(c *mpi.Comm, err error) { calls++ })
		must(t, v.SetErrHandler(h))
		defer mpi.World.SetErrHandler(nil)
		if got := mpi.World.ErrHandler(); got != h {
			t.Errorf("World's handler after setting its view's is %v, want the view's", got)
		}
		buf := make([]float64, 1)
		err := mpi.BcastBuf(v, mpi.Typed(buf, 1, mpi.Float64), 5) // no rank 5
		if !errors.Is(err, mpi.ErrRoot) {
			t.Fatalf("BcastBuf to root 5 of 1 rank: %v, want ErrRoot", err)
		}
		if calls != 1 {
			t.Fatalf("the view's handler, set after the view was made, ran %d times, want 1", calls)
		}
	})
}

// TestContextViewShares: a view is its base with a context: an attribute, a name or
// hints set through it are the base's, and a Dup of the view copies them as a Dup
// of the base does.
func TestContextViewShares(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		c, err := mpi.World.Dup()
		must(t, err)
		v := c.WithContext(context.Background())
		k := mpi.NewKeyval(func(_ *mpi.Comm, _ *mpi.Keyval, v any) (any, bool, error) { return v, true, nil }, nil)
		defer mpi.CommFreeKeyval(k)
		must(t, v.SetAttr(k, "through the view"))
		if val, ok := c.Attr(k); !ok || val != "through the view" {
			t.Errorf("base's attribute after setting the view's: %v %v", val, ok)
		}
		must(t, v.SetName("shared"))
		if c.Name() != "shared" {
			t.Errorf("base's name after naming the view: %q", c.Name())
		}
		in := mpi.InfoCreate()
		must(t, in.Set("mpi_assert_no_any_tag", "true"))
		must(t, v.SetInfo(in))
		d, err := v.Dup()
		must(t, err)
		if val, ok := d.Attr(k); !ok || val != "through the view" {
			t.Errorf("a Dup of the view: attribute %v %v, want the base's copied", val, ok)
		}
		got, err := d.Info()
		must(t, err)
		if s, _, _ := got.Get("mpi_assert_no_any_tag"); s != "true" {
			t.Errorf("a Dup of the view: mpi_assert_no_any_tag %q, want the base's \"true\"", s)
		}
		must(t, d.Free())
		must(t, c.Free())
	})
}
