package mpi_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestFreedCommRefusesEveryCall: after Free, every call on the communicator returns
// ErrComm and moves nothing; in particular a send on it is not delivered on the next
// communicator Dup makes (which may reuse its context id). Over shared memory and TCP.
func TestFreedCommRefusesEveryCall(t *testing.T) {
	for _, tr := range mpitest.Transports {
		t.Run(tr.Name, func(t *testing.T) {
			mpitest.Job(t, mpitest.Options{N: 4, Transport: tr}, func(t *testing.T) {
				must(t, mpi.Init())
				rank, size := mpi.World.Rank(), mpi.World.Size()
				peer := (rank + 1) % size
				for round := 0; round < 3; round++ {
					d, err := mpi.World.Dup()
					must(t, err)
					must(t, d.Free())
					calls := map[string]error{}
					calls["Send"] = mpi.Send(d, []int{rank}, peer, 1)
					_, calls["Isend"] = mpi.Isend(d, []int{rank}, peer, 1)
					_, calls["Irecv"] = mpi.Irecv(d, make([]int, 1), mpi.AnySource, 1)
					_, _, calls["Iprobe"] = d.Iprobe(mpi.AnySource, mpi.AnyTag)
					calls["Barrier"] = d.Barrier()
					calls["Bcast"] = mpi.Bcast(d, []int{1}, 0)
					calls["Allreduce"] = mpi.Allreduce(d, []int{1}, make([]int, 1), mpi.Sum)
					calls["Gather"] = mpi.Gather(d, []int{1}, make([]int, size), 0)
					_, calls["Ibarrier"] = d.Ibarrier()
					_, calls["Dup"] = d.Dup()
					_, calls["Split"] = d.Split(0, 0)
					calls["Free"] = d.Free()
					calls["SetName"] = d.SetName("x")
					calls["SetAttr"] = d.SetAttr(mpi.NewKeyval(nil, nil), 1)
					for name, err := range calls {
						if !errors.Is(err, mpi.ErrComm) {
							t.Errorf("round %d: %s on a freed communicator: %v, want ErrComm", round, name, err)
						}
					}
					// The next Dup takes a context; nothing sent above may arrive on it.
					e, err := mpi.World.Dup()
					must(t, err)
					must(t, e.Barrier())
					if _, ok, err := e.Iprobe(mpi.AnySource, mpi.AnyTag); err != nil || ok {
						t.Errorf("round %d: a message arrived on the new communicator (ok %v, err %v)", round, ok, err)
					}
					must(t, e.Barrier())
					must(t, e.Free())
				}
				must(t, mpi.Finalize())
			})
		})
	}
}

// TestNilCommRefusesEveryCall: the nil communicator (MPI_COMM_NULL, what Split gives
// a rank that passes Undefined) makes every call return ErrComm; none panics.
func TestNilCommRefusesEveryCall(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		c, err := mpi.World.Split(mpi.Undefined, 0)
		if err != nil || c != nil {
			t.Fatalf("Split(Undefined) = %v, %v; want nil, nil", c, err)
		}
		calls := map[string]error{}
		calls["Send"] = mpi.Send(c, []int{1}, 0, 0)
		_, calls["Isend"] = mpi.Isend(c, []int{1}, 0, 0)
		_, calls["Irecv"] = mpi.Irecv(c, make([]int, 1), 0, 0)
		_, calls["Recv"] = mpi.Recv(c, make([]int, 1), 0, 0)
		_, _, calls["Iprobe"] = c.Iprobe(0, 0)
		_, calls["Probe"] = c.Probe(0, 0)
		calls["Barrier"] = c.Barrier()
		calls["Bcast"] = mpi.Bcast(c, []int{1}, 0)
		calls["Reduce"] = mpi.Reduce(c, []int{1}, make([]int, 1), mpi.Sum, 0)
		calls["Allgather"] = mpi.Allgather(c, []int{1}, make([]int, 2))
		_, calls["Iallreduce"] = mpi.Iallreduce(c, []int{1}, make([]int, 1), mpi.Sum)
		_, calls["Dup"] = c.Dup()
		_, calls["Split"] = c.Split(0, 0)
		calls["Free"] = c.Free()
		calls["SetName"] = c.SetName("x")
		calls["SetErrHandler"] = c.SetErrHandler(mpi.ErrorsAreFatal)
		for name, err := range calls {
			if !errors.Is(err, mpi.ErrComm) {
				t.Errorf("%s on the nil communicator: %v, want ErrComm", name, err)
			}
		}
		if c.Name() != "MPI_COMM_NULL" || c.Size() != 0 || c.Rank() != mpi.Undefined || c.IsInter() {
			t.Errorf("nil communicator: name %q size %d rank %d inter %v", c.Name(), c.Size(), c.Rank(), c.IsInter())
		}
	})
}

// handled records what a user error handler saw.
type handled struct {
	comm *mpi.Comm
	err  error
	n    int
}

// TestErrHandlerEveryFamily: a user handler on a communicator is called, with that
// communicator and the error the call returns, by a failing call of every family:
// point-to-point, every collective, communicator creation, topology, datatype.
func TestErrHandlerEveryFamily(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		c, err := mpi.World.Dup()
		must(t, err)
		var h handled
		must(t, c.SetErrHandler(mpi.NewErrHandler(func(cc *mpi.Comm, err error) { h.comm, h.err, h.n = cc, err, h.n+1 })))
		bad := size + 3 // a rank out of range
		nt, err := mpi.TypeVector(2, 1, 2, mpi.Int32)
		must(t, err) // not committed: a datatype error
		calls := []struct {
			name string
			f    func() error
		}{
			{"Send", func() error { return mpi.Send(c, []int{1}, bad, 0) }},
			{"Recv", func() error { _, err := mpi.Recv(c, []int{1}, bad, 0); return err }},
			{"Isend", func() error { _, err := mpi.Isend(c, []int{1}, 0, -5); return err }},
			{"Probe", func() error { _, err := c.Probe(bad, 0); return err }},
			{"Bcast", func() error { return mpi.Bcast(c, []int{1}, bad) }},
			{"Reduce", func() error { return mpi.Reduce(c, []int{1}, make([]int, 1), mpi.Sum, bad) }},
			{"Allreduce", func() error { return mpi.Allreduce(c, []int{1, 2}, make([]int, 1), mpi.Sum) }},
			{"Allreduce op", func() error { return mpi.Allreduce(c, []float64{1}, make([]float64, 1), mpi.Band) }},
			{"Gather", func() error { return mpi.Gather(c, []int{1}, make([]int, 1), bad) }},
			{"Gatherv", func() error { return mpi.Gatherv(c, []int{1}, nil, nil, nil, bad) }},
			{"Scatter", func() error { return mpi.Scatter(c, []int{1}, make([]int, 1), bad) }},
			{"Scatterv", func() error { return mpi.Scatterv(c, nil, nil, nil, []int{1}, bad) }},
			{"Allgather", func() error { return mpi.Allgather(c, []int{1}, make([]int, 1)) }},
			{"Allgatherv", func() error { return mpi.Allgatherv(c, []int{1}, make([]int, 1), []int{1}, []int{0}) }},
			{"Alltoall", func() error { return mpi.Alltoall(c, []int{1}, make([]int, 3)) }},
			{"Alltoallv", func() error { return mpi.Alltoallv(c, []int{1}, nil, nil, []int{1}, nil, nil) }},
			{"Alltoallw", func() error {
				return mpi.Alltoallw(c, []int32{1}, nil, nil, nil, []int32{1}, nil, nil, nil)
			}},
			{"ReduceScatterBlock", func() error { return mpi.ReduceScatterBlock(c, []int{1}, make([]int, 1), mpi.Sum) }},
			{"ReduceScatter", func() error { return mpi.ReduceScatter(c, []int{1}, make([]int, 1), []int{1}, mpi.Sum) }},
			{"Scan", func() error { return mpi.Scan(c, []int{1}, make([]int, 2), mpi.Sum) }},
			{"Exscan", func() error { return mpi.Exscan(c, []int{1}, make([]int, 2), mpi.Sum) }},
			{"Ibcast", func() error { _, err := mpi.Ibcast(c, []int{1}, bad); return err }},
			{"Iallreduce", func() error { _, err := mpi.Iallreduce(c, []int{1}, make([]int, 2), mpi.Sum); return err }},
			{"Split", func() error { _, err := c.Split(-7, 0); return err }},
			{"Create", func() error { _, err := c.Create(nil); return err }},
			{"CreateGroup", func() error { _, err := c.CreateGroup(mpi.World.Group(), -1); return err }},
			{"CartCreate", func() error { _, err := c.CartCreate([]int{size + 1}, []bool{false}, false); return err }},
			{"CartCoords", func() error { _, err := c.CartCoords(0); return err }},
			{"SendBuf", func() error { return mpi.SendBuf(c, mpi.Typed(make([]int32, 4), 1, nt), 0, 0) }},
			{"ReduceBuf", func() error {
				return mpi.ReduceBuf(c, mpi.Typed(make([]int32, 4), 1, nt), mpi.Typed(make([]int32, 4), 1, nt), mpi.Sum, 0)
			}},
		}
		for _, cl := range calls {
			h = handled{}
			err := cl.f()
			if err == nil {
				t.Errorf("%s: no error", cl.name)
				continue
			}
			if h.n != 1 || h.comm != c || h.err != err {
				t.Errorf("%s: handler called %d times with (%v, %v); the call returned %v", cl.name, h.n, h.comm, h.err, err)
			}
		}
		// Calls that answer a value rather than an error report through the handler
		// too (MPI 4.1 §7.4.1, §7.6.2, §7.7.2): what they return alone cannot tell a
		// bad handle from an empty answer.
		queries := []struct {
			name  string
			class mpi.ErrorClass
			f     func() bool // whether the answer is the empty one
		}{
			{"RemoteSize", mpi.ClassComm, func() bool { return c.RemoteSize() == 0 }},
			{"RemoteGroup", mpi.ClassComm, func() bool { return c.RemoteGroup() == nil }},
			{"Attr", mpi.ClassKeyval, func() bool { v, ok := c.Attr(nil); return v == nil && !ok }},
		}
		for _, q := range queries {
			h = handled{}
			if !q.f() {
				t.Errorf("%s on an intracommunicator / with a nil keyval: not the empty answer", q.name)
			}
			if h.n != 1 || h.comm != c || mpi.ClassOf(h.err) != q.class {
				t.Errorf("%s: handler called %d times with (%v, %v), want once with class %v", q.name, h.n, h.comm, h.err, q.class)
			}
		}

		// The handler is inherited by the communicators c makes.
		d, err := c.Dup()
		must(t, err)
		h = handled{}
		if err := mpi.Send(d, []int{1}, bad, 0); err == nil || h.n != 1 || h.comm != d {
			t.Errorf("a duplicate's handler: called %d times with %v for %v", h.n, h.comm, err)
		}
		must(t, d.Free())
		must(t, c.Free())
	})
}

// TestErrorsAreFatalInCollectives: with ErrorsAreFatal on World, a failing collective
// ends the job with a message that names the rank and the call.
func TestErrorsAreFatalInCollectives(t *testing.T) {
	for _, call := range []string{"Bcast", "Allreduce", "Barrier"} {
		t.Run(call, func(t *testing.T) {
			res := mpitest.Job(t, mpitest.Options{N: 2, Fail: true}, func(t *testing.T) {
				must(t, mpi.Init())
				must(t, mpi.World.SetErrHandler(mpi.ErrorsAreFatal))
				d, err := mpi.World.Dup() // inherits ErrorsAreFatal
				must(t, err)
				must(t, d.Free())
				if mpi.World.Rank() == 1 {
					switch call {
					case "Bcast":
						mpi.Bcast(mpi.World, []int{1}, 7)
					case "Allreduce":
						mpi.Allreduce(mpi.World, []int{1}, make([]int, 2), mpi.Sum)
					case "Barrier":
						d.Barrier()
					}
				}
				mpi.World.Barrier()
				mpi.Finalize()
			})
			want := fmt.Sprintf("): mpi: %s:", call)
			if res.Code == 0 || !fatalLine(res.Stderr, 1, want) || !contains(res.Stderr, "in "+call) {
				t.Errorf("exit %d, want a message with %q; stderr:\n%s", res.Code, want, res.Stderr)
			}
		})
	}
}

// TestWrappedErrorSaysItsCauseOnce: an error from below (a truncated receive) says its
// cause once (its last part: the cause's internal package name is not said).
func TestWrappedErrorSaysItsCauseOnce(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		if rank == 0 {
			must(t, mpi.Send(mpi.World, []int{1, 2, 3}, 1, 0))
			return
		}
		_, err := mpi.Recv(mpi.World, make([]int, 1), 0, 0)
		if !errors.Is(err, mpi.ErrTruncate) {
			t.Fatalf("got %v, want ErrTruncate", err)
		}
		cause := errors.Unwrap(err)
		if cause == nil {
			t.Fatalf("%v wraps no cause", err)
		}
		if n := strings.Count(err.Error(), lastPart(cause.Error())); n != 1 {
			t.Errorf("%q says its cause %q %d times", err, cause, n)
		}
	})
}

// TestIntercommSplitAndCreate: Split and Create on an intercommunicator (MPI 4.1
// 7.4.2) give intercommunicators joining each side's part.
func TestIntercommSplitAndCreate(t *testing.T) {
	job(t, 4, func(t *testing.T, rank, size int) {
		side := rank % 2 // side 0: world ranks 0 and 2; side 1: 1 and 3
		local, err := mpi.World.Split(side, rank)
		must(t, err)
		ic, err := mpi.IntercommCreate(local, 0, mpi.World, 1-side, 7)
		must(t, err)
		// Split by local rank: two intercommunicators of one process per side.
		color := local.Rank()
		sc, err := ic.Split(color, 0)
		must(t, err)
		if !sc.IsInter() || sc.Size() != 1 || sc.RemoteSize() != 1 {
			t.Fatalf("split intercommunicator: inter %v size %d remote %d", sc.IsInter(), sc.Size(), sc.RemoteSize())
		}
		got := []int{-1}
		_, err = mpi.Sendrecv(sc, []int{rank}, 0, 3, got, 0, 3)
		must(t, err)
		// The partner is the other side's process with the same local rank.
		if want := 2*color + (1 - side); got[0] != want {
			t.Errorf("rank %d: partner %d, want %d", rank, got[0], want)
		}
		// A color only one side uses gives nil on that side.
		col := mpi.Undefined
		if side == 0 {
			col = 5
		}
		if n, err := ic.Split(col, 0); err != nil || n != nil {
			t.Errorf("one-sided color: %v, %v; want nil", n, err)
		}
		// Create with each side's first process.
		g, err := local.Group().Incl([]int{0})
		must(t, err)
		cc, err := ic.Create(g)
		must(t, err)
		if local.Rank() == 0 {
			if cc == nil || !cc.IsInter() || cc.Size() != 1 || cc.RemoteSize() != 1 {
				t.Fatalf("created intercommunicator: %v", cc)
			}
			_, err = mpi.Sendrecv(cc, []int{rank}, 0, 4, got, 0, 4)
			must(t, err)
			if got[0] != 1-side {
				t.Errorf("rank %d: created partner %d", rank, got[0])
			}
			must(t, cc.Free())
		} else if cc != nil {
			t.Errorf("rank %d outside the group got a communicator", rank)
		}
		must(t, sc.Free())
		must(t, ic.Free())
		must(t, local.Free())
	})
}

// TestCollCheckComparesTheOp: with coll_check on, a reduction whose ranks pass
// different operations (Sum on some, Max on one) is an error of class ErrOp on every
// rank (MPI 4.1 §6.9.1: all processes provide the same op), on the node path, the
// schedules and a nonblocking form alike.
func TestCollCheckComparesTheOp(t *testing.T) {
	for _, shm := range []string{"auto", "off"} {
		t.Run("coll_shm_"+shm, func(t *testing.T) {
			opts := mpitest.Options{N: 3, Settings: map[string]string{"coll_check": "true", "coll_shm": shm}}
			mpitest.Job(t, opts, func(t *testing.T) {
				must(t, mpi.Init())
				op := mpi.Sum
				if mpi.World.Rank() == 1 {
					op = mpi.Max
				}
				recv := make([]int, 1)
				if err := mpi.Allreduce(mpi.World, []int{1}, recv, op); !errors.Is(err, mpi.ErrOp) {
					t.Errorf("Allreduce with Max on rank 1: %v, want ErrOp", err)
				}
				if err := mpi.Reduce(mpi.World, []int{1}, recv, op, 0); !errors.Is(err, mpi.ErrOp) {
					t.Errorf("Reduce with Max on rank 1: %v, want ErrOp", err)
				}
				r, err := mpi.Iallreduce(mpi.World, []int{1}, recv, op)
				if err == nil {
					_, err = r.Wait()
				}
				if !errors.Is(err, mpi.ErrOp) {
					t.Errorf("Iallreduce with Max on rank 1: %v, want ErrOp", err)
				}
				// The same op everywhere still works.
				must(t, mpi.Allreduce(mpi.World, []int{1}, recv, mpi.Sum))
				if recv[0] != 3 {
					t.Errorf("Allreduce after the mismatches: %d, want 3", recv[0])
				}
				must(t, mpi.Finalize())
			})
		})
	}
}
