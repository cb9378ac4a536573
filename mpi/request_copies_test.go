package mpi_test

import (
	"strings"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// TestRequestCopiesUsedUp: one rule for copies of every kind of request (see
// mpi.Request): once a copy has been completed or freed, every other copy is used up
// and every call given one fails with ErrRequest, touching nothing, over shared
// memory and forced TCP. Kinds: a receive and a send (whose engine records the later
// Irecv and Isend reuse while the used-up copies are tried), a collective, Isendrecv,
// Idup, a generalized request, a persistent receive (its copies valid while it is inactive,
// used up once freed) and a persistent collective. The calls on many requests name
// the used-up one's index.
func TestRequestCopiesUsedUp(t *testing.T) {
	jobEach(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		peer := 1 - rank
		var used []mpi.Request // a used-up copy of each kind
		kinds := []string{}
		add := func(kind string, r mpi.Request) {
			used, kinds = append(used, r), append(kinds, kind)
		}

		// Point to point.
		in, out := make([]int, 1), []int{rank + 1}
		rr, err := mpi.Irecv(w, in, peer, 1)
		must(t, err)
		sr, err := mpi.Isend(w, out, peer, 1)
		must(t, err)
		rc, sc := rr, sr
		must(t, mpi.Waitall([]mpi.Request{rr, sr}, nil)) // completes the slice's copies
		_, err = rr.Wait()                               // rr is a copy of those too
		wantUsedUp(t, "Wait of a receive whose copy Waitall completed", err)
		add("Irecv", rc)
		add("Isend", sc)
		if in[0] != peer+1 {
			t.Fatalf("Irecv got %d, want %d", in[0], peer+1)
		}

		// A collective.
		cr, err := w.Ibarrier()
		must(t, err)
		ccopy := cr
		_, err = cr.Wait()
		must(t, err)
		add("Ibarrier", ccopy)

		// A send and receive as one request, and a communicator duplicated in the
		// background (operations of a goroutine of their own).
		sri := make([]int, 1)
		sx, err := mpi.Isendrecv(w, []int{rank}, peer, 4, sri, peer, 4)
		must(t, err)
		sxcopy := sx
		_, err = sx.Wait()
		must(t, err)
		add("Isendrecv", sxcopy)
		dup, dr, err := w.Idup()
		must(t, err)
		drcopy := dr
		_, err = dr.Wait()
		must(t, err)
		must(t, dup.Free())
		add("Idup", drcopy)

		// A generalized request.
		frees := 0
		g, err := mpi.GrequestStart(nil, func(struct{}) error { frees++; return nil }, nil, struct{}{})
		must(t, err)
		gcopy := g
		must(t, gcopy.GrequestComplete()) // the copy kept by the worker: valid until completion
		_, err = g.Wait()
		must(t, err)
		add("Grequest", gcopy)

		// A persistent receive: copies stay valid while it is inactive.
		pin := make([]int, 1)
		pr, err := mpi.RecvInit(w, pin, peer, 2)
		must(t, err)
		pcopy := pr
		must(t, pcopy.Start()) // started through the copy
		must(t, mpi.Send(w, []int{7 + rank}, peer, 2))
		_, err = pr.Wait() // completed through the original
		must(t, err)
		if pin[0] != 7+peer {
			t.Fatalf("persistent receive got %d", pin[0])
		}
		if pcopy.IsNull() {
			t.Fatal("a copy of an inactive persistent request says it is null")
		}
		must(t, pr.Free())
		add("RecvInit", pcopy)

		// A persistent collective.
		pb, err := w.BarrierInit()
		must(t, err)
		pbcopy := pb
		must(t, pbcopy.Start())
		_, err = pb.Wait()
		must(t, err)
		must(t, pb.Free())
		add("BarrierInit", pbcopy)

		if frees != 1 {
			t.Fatalf("the generalized request's free function ran %d times, want 1", frees)
		}

		// Later operations that may take the records the used-up copies named.
		later := make([]int, 1)
		lr, err := mpi.Irecv(w, later, peer, 3)
		must(t, err)
		lb, err := w.Ibarrier()
		must(t, err)

		for i := range used {
			u := used[i]
			k := kinds[i]
			if u.IsNull() {
				t.Errorf("%s: a used-up copy says it is the null request", k)
			}
			_, err := u.Wait()
			wantUsedUp(t, k+": Wait", err)
			_, ok, err := u.Test()
			wantUsedUp(t, k+": Test", err)
			if ok {
				t.Errorf("%s: Test of a used-up copy reports it complete", k)
			}
			_, _, err = u.GetStatus()
			wantUsedUp(t, k+": GetStatus", err)
			wantUsedUp(t, k+": Cancel", u.Cancel())
			wantUsedUp(t, k+": Start", u.Start())
			wantUsedUp(t, k+": Free", u.Free())
			// Among valid requests: the calls on many name it, and leave the rest.
			for _, c := range []struct {
				name string
				call func(rs []mpi.Request) error
			}{
				{"Waitall", func(rs []mpi.Request) error { return mpi.Waitall(rs, nil) }},
				{"Testall", func(rs []mpi.Request) error { _, err := mpi.Testall(rs, nil); return err }},
				{"Waitany", func(rs []mpi.Request) error { _, _, err := mpi.Waitany(rs); return err }},
				{"Testany", func(rs []mpi.Request) error { _, _, _, err := mpi.Testany(rs); return err }},
				{"Waitsome", func(rs []mpi.Request) error { _, _, err := mpi.Waitsome(rs); return err }},
				{"Testsome", func(rs []mpi.Request) error { _, _, err := mpi.Testsome(rs); return err }},
				{"Startall", mpi.Startall},
				{"RequestGetStatusAll", func(rs []mpi.Request) error { _, err := mpi.RequestGetStatusAll(rs, nil); return err }},
				{"RequestGetStatusAny", func(rs []mpi.Request) error { _, _, _, err := mpi.RequestGetStatusAny(rs); return err }},
				{"RequestGetStatusSome", func(rs []mpi.Request) error { _, _, err := mpi.RequestGetStatusSome(rs); return err }},
			} {
				rs := []mpi.Request{lr, u, lb}
				err := c.call(rs)
				wantUsedUp(t, k+": "+c.name, err)
				if err != nil && !strings.Contains(err.Error(), "requests[1]") {
					t.Errorf("%s: %s's error does not name requests[1]: %v", k, c.name, err)
				}
				if rs[0] != lr || rs[2] != lb {
					t.Errorf("%s: %s changed the valid requests beside a used-up one", k, c.name)
				}
			}
		}
		must(t, mpi.Send(w, []int{100 + rank}, peer, 3))
		must(t, mpi.Waitall([]mpi.Request{lr, lb}, nil))
		if later[0] != 100+peer {
			t.Fatalf("the later Irecv got %d, want %d", later[0], 100+peer)
		}
	})
}

// A pending receive freed through one copy (it completes in the background) leaves
// the others used up at once: a Wait, Test, Cancel or Free of a copy fails with
// ErrRequest and does not touch the record the engine frees when the message comes,
// and the receives that follow get their messages.
func TestRequestCopyOfFreedPending(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		peer := 1 - rank
		if rank == 0 {
			in := make([]int, 1)
			r, err := mpi.Irecv(w, in, peer, 7)
			must(t, err)
			c := r
			must(t, r.Free())
			_, err = c.Wait()
			wantUsedUp(t, "Wait of a copy of a freed pending receive", err)
			_, _, err = c.Test()
			wantUsedUp(t, "Test of a copy of a freed pending receive", err)
			wantUsedUp(t, "Cancel of a copy of a freed pending receive", c.Cancel())
			wantUsedUp(t, "Free of a copy of a freed pending receive", c.Free())
		}
		must(t, w.Barrier())
		if rank == 1 {
			must(t, mpi.Send(w, []int{41}, peer, 7)) // completes the freed receive
			must(t, mpi.Send(w, []int{42}, peer, 8))
			return
		}
		for i := 0; i < 3; i++ { // records freed and reused: none serves two receives
			got := make([]int, 1)
			if i == 0 {
				if _, err := mpi.Recv(w, got, peer, 8); err != nil || got[0] != 42 {
					t.Fatalf("Recv after the freed receive: %v, %v; want 42", got, err)
				}
				continue
			}
			r, err := mpi.Irecv(w, got, peer, 9+i)
			must(t, err)
			must(t, r.Cancel())
			st, err := r.Wait()
			must(t, err)
			if !st.Cancelled() {
				t.Errorf("receive %d: not cancelled", i)
			}
		}
	})
}
