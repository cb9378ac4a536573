package mpi_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mpigo/mpigo/mpi"
)

// deadline is a context that ends soon, for calls that would wait forever.
func deadline(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	t.Cleanup(cancel)
	return ctx
}

func wantCtxErr(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, mpi.ErrOther) {
		t.Fatalf("%s: %v, want an MPI error wrapping context.DeadlineExceeded", what, err)
	}
}

// TestContextPointToPoint: a blocked receive, value receive, probe, wait and waitall
// through a view end when its context does; the receives are really cancelled (the
// messages sent afterwards go to later receives) and the communicator stays usable.
func TestContextPointToPoint(t *testing.T) {
	jobEach(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		if rank == 0 {
			buf := make([]int, 1)
			_, err := mpi.Recv(w.WithContext(deadline(t)), buf, 1, 1)
			wantCtxErr(t, "Recv", err)
			_, _, err = mpi.RecvValue[string](w.WithContext(deadline(t)), 1, 2)
			wantCtxErr(t, "RecvValue", err)
			_, err = w.WithContext(deadline(t)).Probe(1, 3)
			wantCtxErr(t, "Probe", err)
			_, _, err = w.WithContext(deadline(t)).Mprobe(1, 3)
			wantCtxErr(t, "Mprobe", err)
			pend := make([]int, 1)
			r, err := mpi.Irecv(w.WithContext(deadline(t)), pend, 1, 4)
			must(t, err)
			_, err = r.Wait()
			wantCtxErr(t, "Wait", err)
			v := w.WithContext(deadline(t))
			rs := make([]mpi.Request, 2)
			rs[0], err = mpi.Irecv(v, make([]int, 1), 1, 5)
			must(t, err)
			rs[1], err = mpi.Irecv(v, make([]int, 1), 1, 5)
			must(t, err)
			wantCtxErr(t, "Waitall", mpi.Waitall(rs, nil))
			// Now let rank 1 send one message of each tag: the cancelled receives
			// took none of them.
			must(t, mpi.Send(w, []int{0}, 1, 9))
			_, err = mpi.Recv(w, buf, 1, 1)
			must(t, err)
			if buf[0] != 11 {
				t.Fatalf("Recv after a cancelled one: %d", buf[0])
			}
			s, _, err := mpi.RecvValue[string](w, 1, 2)
			must(t, err)
			if s != "two" {
				t.Fatalf("RecvValue after a cancelled one: %q", s)
			}
			if _, err := w.Probe(1, 3); err != nil {
				t.Fatal(err)
			}
			_, err = mpi.Recv(w, buf, 1, 3)
			must(t, err)
			// The requests whose wait gave up are still pending, and complete.
			if _, err := r.WaitContext(context.Background()); err != nil || pend[0] != 44 {
				t.Fatalf("pending Irecv: %v, got %d, want 44", err, pend[0])
			}
			for i := range rs {
				if _, err := rs[i].WaitContext(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
		} else {
			_, err := mpi.Recv(w, make([]int, 1), 0, 9)
			must(t, err)
			must(t, mpi.Send(w, []int{11}, 0, 1))
			must(t, mpi.SendValue(w, "two", 0, 2))
			must(t, mpi.Send(w, []int{3}, 0, 3))
			must(t, mpi.Send(w, []int{44}, 0, 4))
			must(t, mpi.Send(w, []int{5}, 0, 5))
			must(t, mpi.Send(w, []int{5}, 0, 5))
		}
		must(t, w.Barrier())
	})
}

// TestContextCollective: a collective through a view ends with its context; the
// communicator then refuses collectives, saying why, on every view and on itself,
// while point-to-point on it still works. The rank that never entered in time joins
// the given-up collective later, which completes in the background.
func TestContextCollective(t *testing.T) {
	jobEach(t, 2, func(t *testing.T, rank, size int) {
		c, err := mpi.World.Dup()
		must(t, err)
		if rank == 0 {
			err := c.WithContext(deadline(t)).Barrier()
			wantCtxErr(t, "Barrier", err)
			if !strings.Contains(err.Error(), "no more collectives") {
				t.Fatalf("Barrier's error does not say what follows: %v", err)
			}
			for _, f := range []func() error{
				c.Barrier,
				func() error { return mpi.Bcast(c, []int{1}, 0) },
				func() error { _, err := mpi.AllgatherValues(c, 1); return err },
				func() error { return c.WithContext(context.Background()).Barrier() },
			} {
				if err := f(); !errors.Is(err, mpi.ErrComm) || !strings.Contains(err.Error(), "no more collectives") {
					t.Fatalf("collective after a given-up one: %v", err)
				}
			}
			must(t, mpi.SendValue(c, "still works", 1, 0))
		} else {
			s, _, err := mpi.RecvValue[string](c, 0, 0)
			must(t, err)
			if s != "still works" {
				t.Fatalf("got %q", s)
			}
			must(t, c.Barrier()) // meets rank 0's given-up barrier
		}
		// A value collective through a view ends with its context too.
		add := func(a, b int) int { return a + b }
		c2, err := mpi.World.Dup()
		must(t, err)
		if rank == 0 {
			_, err := mpi.ReduceValue(c2.WithContext(deadline(t)), 1, add, 0)
			wantCtxErr(t, "ReduceValue", err)
			if _, err := mpi.AllreduceValue(c2, 1, add); !errors.Is(err, mpi.ErrComm) {
				t.Fatalf("AllreduceValue after a given-up ReduceValue: %v", err)
			}
			must(t, mpi.Send(mpi.World, []int{1}, 1, 7))
		} else {
			_, err := mpi.Recv(mpi.World, make([]int, 1), 0, 7)
			must(t, err)
			_, err = mpi.ReduceValue(c2, 1, add, 0) // its part goes, unreceived
			must(t, err)
		}
		must(t, mpi.World.Barrier())
	})
}

// TestContextOtherCollectives: a typed-buffer collective, a neighbourhood collective
// and Dup through a view complete as usual; a Dup that one rank never enters in time
// ends with its context and stops the communicator's collectives.
func TestContextOtherCollectives(t *testing.T) {
	jobEach(t, 2, func(t *testing.T, rank, size int) {
		c, err := mpi.World.Dup()
		must(t, err)
		v := c.WithContext(context.Background())
		buf := []int32{int32(rank), 7}
		must(t, mpi.BcastBuf(v, mpi.Typed(buf, 2, mpi.Int32), 1))
		if buf[0] != 1 {
			t.Fatalf("BcastBuf through a view: %v", buf)
		}
		d, err := v.Dup()
		must(t, err)
		must(t, d.Free())
		if rank == 0 {
			_, err := c.WithContext(deadline(t)).Dup()
			wantCtxErr(t, "Dup", err)
			if err := mpi.BcastBuf(c, mpi.Typed(buf, 2, mpi.Int32), 0); !errors.Is(err, mpi.ErrComm) {
				t.Fatalf("BcastBuf after a given-up Dup: %v", err)
			}
			must(t, mpi.Send(mpi.World, []int{1}, 1, 0))
		} else {
			_, err := mpi.Recv(mpi.World, make([]int, 1), 0, 0)
			must(t, err)
			late, err := c.Dup() // meets rank 0's given-up Dup
			must(t, err)
			must(t, late.Free())
		}
		must(t, mpi.World.Barrier())
	})
}

// TestContextWaitanySend: Waitany and Waitsome on requests of a view end with its
// context; a blocking send through a view whose message has left ends with it too,
// and the message is still delivered.
func TestContextWaitanySend(t *testing.T) {
	jobEach(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		big := make([]byte, 4<<20) // a rendezvous: it waits for its receiver
		for i := range big {
			big[i] = byte(i)
		}
		if rank == 0 {
			v := w.WithContext(deadline(t))
			rs := make([]mpi.Request, 2)
			var err error
			rs[0], err = mpi.Irecv(v, make([]int, 1), 1, 1)
			must(t, err)
			rs[1], err = mpi.Irecv(v, make([]int, 1), 1, 2)
			must(t, err)
			_, _, err = mpi.Waitany(rs)
			wantCtxErr(t, "Waitany", err)
			_, _, err = mpi.Waitsome(rs)
			wantCtxErr(t, "Waitsome", err)
			err = mpi.Send(w.WithContext(deadline(t)), big, 1, 3)
			wantCtxErr(t, "Send", err)
			if !strings.Contains(err.Error(), "delivered when the receiver takes it") {
				t.Fatalf("Send's error does not say the message is still on its way: %v", err)
			}
			must(t, mpi.Send(w, []int{1}, 1, 9))
			for i := range rs {
				_, err := rs[i].WaitContext(context.Background())
				must(t, err)
			}
		} else {
			_, err := mpi.Recv(w, make([]int, 1), 0, 9)
			must(t, err)
			must(t, mpi.Send(w, []int{1}, 0, 1))
			must(t, mpi.Send(w, []int{2}, 0, 2))
			in := make([]byte, len(big))
			_, err = mpi.Recv(w, in, 0, 3)
			must(t, err)
			for i := range in {
				if in[i] != big[i] {
					t.Fatalf("byte %d of the send given up: %d, want %d", i, in[i], big[i])
				}
			}
		}
		must(t, w.Barrier())
	})
}

// TestContextConstructors: every communicator and topology constructor through a view
// works while its context lasts, and one given up (its context ended, the other rank
// not there yet) returns the context's error, stops the communicator's collectives,
// and is met by the other rank's late call.
func TestContextConstructors(t *testing.T) {
	jobEach(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		v := w.WithContext(context.Background())
		made := func(what string, c *mpi.Comm, err error) *mpi.Comm {
			t.Helper()
			must(t, err)
			if c == nil {
				t.Fatalf("%s through a view: no communicator", what)
			}
			return c
		}
		free := func(c *mpi.Comm) { t.Helper(); must(t, c.Free()) }
		c, err := v.DupWithInfo(nil)
		free(made("DupWithInfo", c, err))
		c, err = v.SplitType(mpi.SplitTypeShared, rank)
		free(made("SplitType", c, err))
		c, err = v.SplitTypeInfo(mpi.SplitTypeShared, rank, nil)
		free(made("SplitTypeInfo", c, err))
		c, err = v.CreateGroup(w.Group(), 3)
		free(made("CreateGroup", c, err))
		cart, err := v.CartCreate([]int{2}, []bool{true}, false)
		made("CartCreate", cart, err)
		c, err = cart.WithContext(context.Background()).CartSub([]bool{true})
		free(made("CartSub", c, err))
		free(cart)
		c, err = v.GraphCreate([]int{1, 2}, []int{1, 0}, false)
		free(made("GraphCreate", c, err))
		c, err = v.DistGraphCreateAdjacent([]int{1 - rank}, mpi.Unweighted, []int{1 - rank}, mpi.Unweighted, false)
		free(made("DistGraphCreateAdjacent", c, err))
		c, err = v.DistGraphCreate([]int{rank}, []int{1}, []int{1 - rank}, mpi.Unweighted, false)
		free(made("DistGraphCreate", c, err))
		local, err := w.Split(rank, 0)
		must(t, err)
		ic, err := mpi.IntercommCreate(local.WithContext(context.Background()), 0, w, 1-rank, 5)
		made("IntercommCreate", ic, err)
		m, err := ic.WithContext(context.Background()).IntercommMerge(rank == 1)
		free(made("IntercommMerge", m, err))
		if m.Size() != 2 {
			t.Fatalf("IntercommMerge: size %d", m.Size())
		}
		free(ic)
		free(local)

		// Given up: rank 0's calls end with their contexts; rank 1 comes late, once
		// told, and its calls meet them.
		calls := []struct {
			name string
			call func(c *mpi.Comm) (*mpi.Comm, error)
		}{
			{"SplitType", func(c *mpi.Comm) (*mpi.Comm, error) { return c.SplitType(mpi.SplitTypeShared, 0) }},
			{"CartCreate", func(c *mpi.Comm) (*mpi.Comm, error) { return c.CartCreate([]int{2}, []bool{false}, false) }},
			{"DupWithInfo", func(c *mpi.Comm) (*mpi.Comm, error) { return c.DupWithInfo(nil) }},
		}
		for i, k := range calls {
			c, err := w.Dup()
			must(t, err)
			if rank == 0 {
				_, err := k.call(c.WithContext(deadline(t)))
				wantCtxErr(t, k.name, err)
				if err := c.Barrier(); !errors.Is(err, mpi.ErrComm) {
					t.Fatalf("Barrier after a given-up %s: %v, want ErrComm", k.name, err)
				}
				must(t, mpi.Send(w, []int{i}, 1, 20))
			} else {
				_, err := mpi.Recv(w, make([]int, 1), 0, 20)
				must(t, err)
				late, err := k.call(c) // meets rank 0's given-up call
				free(made(k.name+" (late)", late, err))
			}
			must(t, w.Barrier())
		}
	})
}
