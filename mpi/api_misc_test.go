package mpi_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestAbort: Abort, and Comm.Abort even on a communicator of the calling rank alone,
// end every rank of the job (the others are blocked in a receive that nothing will
// match), and the job exits with the code given; an error handler that is fatal,
// invoked by CallErrHandler, ends the job with the error's class as its code.
func TestAbort(t *testing.T) {
	cases := []struct {
		name  string
		abort func()
		code  int
		diag  string
	}{
		{"Abort", func() { mpi.Abort(7) }, 7, ") called MPI_Abort with code 7; stopping the job"},
		{"CommAbort", func() { mpi.Self.Abort(9) }, 9, ") called MPI_Abort with code 9; stopping the job"},
		{"CallErrHandlerFatal", func() {
			mpi.World.SetErrHandler(mpi.ErrorsAreFatal)
			mpi.World.CallErrHandler(&mpi.Error{Class: mpi.ClassArg, Op: "Mine", Msg: "a bad argument"})
		}, int(mpi.ClassArg), "): mpi: Mine: a bad argument (in CallErrHandler"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := mpitest.Job(t, mpitest.Options{N: 3, Fail: true}, func(t *testing.T) {
				must(t, mpi.Init())
				if mpi.World.Rank() == 1 {
					c.abort()
					t.Errorf("%s returned", c.name)
					return
				}
				_, err := mpi.Recv(mpi.World, make([]int, 1), 1, 0)
				t.Errorf("a receive from the aborting rank returned: %v", err)
			})
			if res.Code != c.code || !fatalLine(res.Stderr, 1, c.diag) {
				t.Errorf("exit %d, want %d; stderr (want %q in it):\n%s", res.Code, c.code, c.diag, res.Stderr)
			}
		})
	}
}

// TestCommNamesAttributesAndHandlers: SetName names a communicator in error messages;
// DeleteAttr removes an attribute and runs its delete function, whose error it returns,
// keeping the attribute, as Free then keeps the communicator (MPI 4.1 section 7.7.2:
// "the call will fail"; MPICH's attrerrcomm.c); CallErrHandler runs the communicator's
// handler.
func TestCommNamesAttributesAndHandlers(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		if mpi.World.Name() != "MPI_COMM_WORLD" || mpi.Self.Name() != "MPI_COMM_SELF" {
			t.Errorf("names %q and %q", mpi.World.Name(), mpi.Self.Name())
		}
		d, err := mpi.World.Dup()
		must(t, err)
		d.SetName("halo")
		if d.Name() != "halo" {
			t.Errorf("Name() = %q after SetName(\"halo\")", d.Name())
		}
		if err := mpi.Send(d, []int{1}, 5, 0); err == nil || !strings.HasSuffix(err.Error(), "for halo") {
			t.Errorf("an error on the named communicator: %v", err)
		}

		var deleted []any
		k := mpi.NewKeyval(nil, func(c *mpi.Comm, k *mpi.Keyval, v any) error {
			if c != d {
				t.Errorf("delete function called with %v, want the communicator", c.Name())
			}
			deleted = append(deleted, v)
			return nil
		})
		must(t, d.SetAttr(k, "v1"))
		must(t, d.DeleteAttr(k))
		if _, ok := d.Attr(k); ok || len(deleted) != 1 || deleted[0] != "v1" {
			t.Errorf("after DeleteAttr: still set %v, delete calls %v", ok, deleted)
		}
		must(t, d.DeleteAttr(k)) // nothing set: nothing to delete
		if len(deleted) != 1 {
			t.Errorf("DeleteAttr of an attribute not set called the delete function: %v", deleted)
		}
		refused := errors.New("refused")
		refuse := true
		k2 := mpi.NewKeyval(nil, func(*mpi.Comm, *mpi.Keyval, any) error {
			if refuse {
				return refused
			}
			return nil
		})
		must(t, d.SetAttr(k2, 1))
		if err := d.DeleteAttr(k2); !errors.Is(err, refused) {
			t.Errorf("DeleteAttr with a failing delete function: %v, want its error", err)
		}
		if v, ok := d.Attr(k2); !ok || v != 1 {
			t.Errorf("after a failed DeleteAttr the attribute is %v (set %v), want it kept", v, ok)
		}
		if err := d.Free(); !errors.Is(err, refused) {
			t.Errorf("Free with a failing delete function: %v, want its error", err)
		}
		if d.Rank() != rank {
			t.Errorf("the communicator a failed Free kept is not usable: rank %d", d.Rank())
		}
		refuse = false
		if err := d.DeleteAttr(mpi.KeyTagUB); !errors.Is(err, mpi.ErrKeyval) {
			t.Errorf("DeleteAttr of a predefined attribute: %v, want class ErrKeyval", err)
		}

		mine := errors.New("mine")
		if err := d.CallErrHandler(mine); err != mine {
			t.Errorf("CallErrHandler with ErrorsReturn: %v, want the error itself", err)
		}
		var calls []error
		var on *mpi.Comm
		d.SetErrHandler(mpi.NewErrHandler(func(c *mpi.Comm, err error) { on, calls = c, append(calls, err) }))
		if err := d.CallErrHandler(mine); err != mine || len(calls) != 1 || calls[0] != mine || on != d {
			t.Errorf("CallErrHandler: returned %v; handler calls %v on %v", err, calls, on)
		}
		if err := d.CallErrHandler(nil); err != nil || len(calls) != 1 {
			t.Errorf("CallErrHandler(nil): %v; handler calls %v", err, calls)
		}
		must(t, d.Free())
	})
}

// TestOpsTopologyKindsAndErrors: the names ops, topology kinds and errors give
// themselves; a freed op is no op; an Error's class, cause and message.
func TestOpsTopologyKindsAndErrors(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		maxAbs := mpi.OpCreate(func(inout, in []int32) {
			for i := range inout {
				inout[i] = max(inout[i], in[i], -inout[i], -in[i])
			}
		}, true)
		if maxAbs.String() != "user op on int32" || mpi.Sum.String() != "Sum" || mpi.Maxloc.String() != "Maxloc" {
			t.Errorf("op names %q %q %q", maxAbs.String(), mpi.Sum.String(), mpi.Maxloc.String())
		}
		got := make([]int32, 1)
		must(t, mpi.Allreduce(w, []int32{int32(-5 * rank)}, got, maxAbs))
		if got[0] != 5 {
			t.Errorf("Allreduce with the user op: %d, want 5", got[0])
		}
		maxAbs.Free()
		if err := mpi.Allreduce(w, []int32{1}, got, maxAbs); !errors.Is(err, mpi.ErrOp) {
			t.Errorf("Allreduce with a freed op: %v, want class ErrOp", err)
		}

		cart, err := w.CartCreate([]int{size}, []bool{true}, false)
		must(t, err)
		graph, err := w.GraphCreate([]int{1, 2}, []int{1, 0}, false)
		must(t, err)
		dist, err := w.DistGraphCreateAdjacent([]int{1 - rank}, mpi.Unweighted, []int{1 - rank}, mpi.Unweighted, false)
		must(t, err)
		for c, want := range map[*mpi.Comm]string{w: "MPI_UNDEFINED", cart: "MPI_CART", graph: "MPI_GRAPH", dist: "MPI_DIST_GRAPH"} {
			if got := c.Topology().String(); got != want {
				t.Errorf("Topology().String() = %q, want %q", got, want)
			}
		}

		err = mpi.Send(w, []int{1}, 9, 0)
		var e *mpi.Error
		if !errors.As(err, &e) {
			t.Fatalf("Send to rank 9: %v, not an *mpi.Error", err)
		}
		if e.Class != mpi.ClassRank || e.Error() != "mpi: Send: dest 9 out of range [0,2) for MPI_COMM_WORLD" || e.Unwrap() != nil {
			t.Errorf("Send to rank 9: class %v, %q, cause %v", e.Class, e.Error(), e.Unwrap())
		}
		if !e.Is(mpi.ErrRank) || e.Is(mpi.ErrTag) || e.Is(e) {
			t.Errorf("Is: ErrRank %v, ErrTag %v, itself %v; want true, false, false", e.Is(mpi.ErrRank), e.Is(mpi.ErrTag), e.Is(e))
		}

		r, err := mpi.Irecv(w, got, 1-rank, 50) // nothing is sent with tag 50
		must(t, err)
		done, cancel := context.WithCancel(context.Background())
		cancel()
		_, err = r.WaitContext(done)
		if !errors.As(err, &e) || !errors.Is(e.Unwrap(), context.Canceled) {
			t.Errorf("WaitContext with a cancelled context: %v, want an *mpi.Error caused by context.Canceled", err)
		}
		must(t, r.Cancel())
		st, err := r.Wait()
		must(t, err)
		if !st.Cancelled() {
			t.Errorf("a receive of a message never sent, cancelled: status %+v", st)
		}
	})
}

// handlerCase is a call on a communicator that fails, and the class it fails with.
type handlerCase struct {
	name string
	want error
	call func(c *mpi.Comm) error
}

// wait2 completes a nonblocking call: its own error, or else its request's.
func wait2(r mpi.Request, err error) error {
	if err != nil {
		return err
	}
	_, err = r.Wait()
	return err
}

// checkHandlerSees runs each case on a duplicate of World with a handler that records
// what it is given: MPI invokes a communicator's error handler on every error of a
// call on it, and the call returns the error too.
func checkHandlerSees(t *testing.T, cases []handlerCase) {
	job(t, 2, func(t *testing.T, rank, size int) {
		d, err := mpi.World.Dup()
		must(t, err)
		for _, c := range cases {
			var seen []error
			d.SetErrHandler(mpi.NewErrHandler(func(_ *mpi.Comm, err error) { seen = append(seen, err) }))
			err := c.call(d)
			if !errors.Is(err, c.want) || len(seen) != 1 || seen[0] != err {
				t.Errorf("%s: returned %v (want class %v); the handler saw %v", c.name, err, mpi.ClassOf(c.want), seen)
			}
		}
		d.SetErrHandler(nil)
		must(t, d.Free())
	})
}

// TestErrorHandlerSeesPointToPointErrors: the sends, persistent requests,
// SendrecvReplace, SsendBuf and NeighborAllgatherv pass their errors to the handler.
func TestErrorHandlerSeesPointToPointErrors(t *testing.T) {
	x := []int{1}
	checkHandlerSees(t, []handlerCase{
		{"Ssend", mpi.ErrRank, func(c *mpi.Comm) error { return mpi.Ssend(c, x, 5, 0) }},
		{"Rsend", mpi.ErrRank, func(c *mpi.Comm) error { return mpi.Rsend(c, x, 5, 0) }},
		{"Issend", mpi.ErrRank, func(c *mpi.Comm) error { return wait2(mpi.Issend(c, x, 5, 0)) }},
		{"Irsend", mpi.ErrRank, func(c *mpi.Comm) error { return wait2(mpi.Irsend(c, x, 5, 0)) }},
		{"Ibsend", mpi.ErrRank, func(c *mpi.Comm) error { return wait2(mpi.Ibsend(c, x, 5, 0)) }},
		{"SendInit", mpi.ErrRank, func(c *mpi.Comm) error { return wait2(mpi.SendInit(c, x, 5, 0)) }},
		{"SsendInit", mpi.ErrTag, func(c *mpi.Comm) error { return wait2(mpi.SsendInit(c, x, 0, -3)) }},
		{"RsendInit", mpi.ErrRank, func(c *mpi.Comm) error { return wait2(mpi.RsendInit(c, x, 5, 0)) }},
		{"BsendInit", mpi.ErrRank, func(c *mpi.Comm) error { return wait2(mpi.BsendInit(c, x, 5, 0)) }},
		{"RecvInit", mpi.ErrRank, func(c *mpi.Comm) error { return wait2(mpi.RecvInit(c, x, 5, 0)) }},
		{"SendrecvReplace", mpi.ErrRank, func(c *mpi.Comm) error { _, err := mpi.SendrecvReplace(c, x, 5, 0, 0, 0); return err }},
		{"SsendBuf", mpi.ErrRank, func(c *mpi.Comm) error { return mpi.SsendBuf(c, mpi.Typed(x, 1, mpi.Int), 5, 0) }},
		{"NeighborAllgatherv", mpi.ErrTopology, func(c *mpi.Comm) error {
			return mpi.NeighborAllgatherv(c, x, x, []int{1}, []int{0})
		}},
	})
}

// TestErrorHandlerSeesNonblockingNeighborErrorsOnce: a nonblocking neighbourhood
// collective's error reaches the handler once, as any other call's.
func TestErrorHandlerSeesNonblockingNeighborErrorsOnce(t *testing.T) {
	x := []int{1}
	checkHandlerSees(t, []handlerCase{
		{"IneighborAllgatherv", mpi.ErrTopology, func(c *mpi.Comm) error {
			return wait2(mpi.IneighborAllgatherv(c, x, x, []int{1}, []int{0}))
		}},
		{"IneighborAlltoall", mpi.ErrTopology, func(c *mpi.Comm) error { return wait2(mpi.IneighborAlltoall(c, x, x)) }},
		{"IneighborAlltoallv", mpi.ErrTopology, func(c *mpi.Comm) error {
			return wait2(mpi.IneighborAlltoallv(c, x, []int{1}, []int{0}, x, []int{1}, []int{0}))
		}},
	})
}

// TestErrorHandlerSeesTypedBufferAndProbeErrors: the typed-buffer receives and
// nonblocking send, and the probes but Probe, pass their errors to the handler too.
func TestErrorHandlerSeesTypedBufferAndProbeErrors(t *testing.T) {
	x := []int{1}
	checkHandlerSees(t, []handlerCase{
		{"IsendBuf", mpi.ErrRank, func(c *mpi.Comm) error { return wait2(mpi.IsendBuf(c, mpi.Typed(x, 1, mpi.Int), 5, 0)) }},
		{"IrecvBuf", mpi.ErrRank, func(c *mpi.Comm) error { return wait2(mpi.IrecvBuf(c, mpi.Typed(x, 1, mpi.Int), 5, 0)) }},
		{"RecvBuf", mpi.ErrRank, func(c *mpi.Comm) error { _, err := mpi.RecvBuf(c, mpi.Typed(x, 1, mpi.Int), 5, 0); return err }},
		{"Iprobe", mpi.ErrRank, func(c *mpi.Comm) error { _, _, err := c.Iprobe(5, 0); return err }},
		{"Mprobe", mpi.ErrRank, func(c *mpi.Comm) error { _, _, err := c.Mprobe(5, 0); return err }},
		{"Improbe", mpi.ErrRank, func(c *mpi.Comm) error { _, _, _, err := c.Improbe(5, 0); return err }},
	})
}

// TestErrorMessagesSayItOnce: an error that wraps a cause from inside the library
// states that cause once (the datatype, group and message engines' errors, wrapped by
// a constructor, a group operation and a receive), in the words a user reads (without
// the internal package's name the cause begins with: its last part, once).
func TestErrorMessagesSayItOnce(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		_, typeErr := mpi.TypeIndexed([]int{1, 2}, []int{0}, mpi.Int32)
		_, groupErr := mpi.GroupUnion(mpi.World.Group(), nil)
		var recvErr error
		if rank == 0 {
			must(t, mpi.Send(mpi.World, []int{1, 2, 3}, 1, 0))
		} else {
			_, recvErr = mpi.Recv(mpi.World, make([]int, 2), 0, 0)
		}
		for _, err := range []error{typeErr, groupErr, recvErr} {
			if err == nil {
				continue // rank 0 receives nothing
			}
			var e *mpi.Error
			if !errors.As(err, &e) || e.Unwrap() == nil {
				t.Errorf("%v: not an *mpi.Error with a cause", err)
				continue
			}
			if n := strings.Count(err.Error(), lastPart(e.Unwrap().Error())); n != 1 {
				t.Errorf("%q states its cause %d times", err.Error(), n)
			}
		}
	})
}

// lastPart is the last of the ": "-separated parts of an error's text: what went wrong
// in the end, which a wrapping error says in its own text once.
func lastPart(s string) string { return s[strings.LastIndex(s, ": ")+2:] }
