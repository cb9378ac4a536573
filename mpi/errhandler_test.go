package mpi_test

import (
	"errors"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestErrorsAbort: with ErrorsAbort (MPI_ERRORS_ABORT), a bad call ends the whole job
// with one message naming the rank, the call, the object and the error, and the
// error's class as the exit code, as MPI_Abort on the communicator would.
func TestErrorsAbort(t *testing.T) {
	res := mpitest.Job(t, mpitest.Options{N: 2, Fail: true}, func(t *testing.T) {
		must(t, mpi.Init())
		d, err := mpi.World.Dup()
		must(t, err)
		must(t, d.SetName("halo"))
		must(t, d.SetErrHandler(mpi.ErrorsAbort))
		if d.ErrHandler() != mpi.ErrorsAbort {
			t.Errorf("ErrHandler after SetErrHandler(ErrorsAbort) is another")
		}
		if mpi.World.Rank() == 1 {
			mpi.Send(d, []int{1}, 5, 0)
			t.Errorf("Send returned under ErrorsAbort")
		}
		mpi.World.Barrier()
		mpi.Finalize()
	})
	if res.Code != int(mpi.ClassRank) || !fatalLine(res.Stderr, 1, "): mpi: Send: dest 5 out of range") ||
		!contains(res.Stderr, "in Send on communicator halo; MPI_ERRORS_ABORT") {
		t.Errorf("exit %d (want the class, %d), stderr:\n%s", res.Code, int(mpi.ClassRank), res.Stderr)
	}
}

// TestNoObjectErrorsInitialHandler: an error of a call with no valid object goes to
// Self's handler while the world model runs, and to the initial handler (Go's
// ErrorsReturn) before Init and after Finalize, whatever Self's was (MPI 4.1 section
// 9.3).
func TestNoObjectErrorsInitialHandler(t *testing.T) {
	mpitest.Run(t, 2, func(t *testing.T) {
		notACode := mpi.LastErrorCode + 12345
		var seen []error
		h := mpi.NewErrHandler(func(c *mpi.Comm, err error) {
			if c != mpi.Self {
				t.Errorf("Self's handler was given %v, not Self", c)
			}
			seen = append(seen, err)
		})
		if err := mpi.AddErrorString(notACode, "x"); !errors.Is(err, mpi.ErrArg) {
			t.Errorf("before Init: %v, want ErrArg", err)
		}
		must(t, mpi.Init())
		must(t, mpi.Self.SetErrHandler(h))
		err := mpi.AddErrorString(notACode, "x")
		if !errors.Is(err, mpi.ErrArg) || len(seen) != 1 || seen[0] != err {
			t.Errorf("with MPI running: %v; Self's handler saw %v", err, seen)
		}
		var nilComm *mpi.Comm
		err = mpi.Send(nilComm, []int{1}, 0, 0)
		if !errors.Is(err, mpi.ErrComm) || len(seen) != 2 || seen[1] != err {
			t.Errorf("a call on a nil communicator: %v; Self's handler saw %v", err, seen)
		}
		must(t, mpi.Self.SetErrHandler(mpi.ErrorsAreFatal))
		must(t, mpi.Finalize())
		if err := mpi.AddErrorString(notACode, "x"); !errors.Is(err, mpi.ErrArg) {
			t.Errorf("after Finalize, with Self's handler ErrorsAreFatal: %v, want ErrArg returned", err)
		}
	})
}

// TestErrHandlerFreeAndKinds: a freed handler keeps serving the objects it is set on
// and can be set on no other; freeing it again, or nil, or a handler made for
// another kind of object, is an error of class ErrErrhandler; freeing a predefined
// handler does nothing.
func TestErrHandlerFreeAndKinds(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		var calls int
		h := mpi.NewErrHandler(func(*mpi.Comm, error) { calls++ })
		d, err := mpi.World.Dup()
		must(t, err)
		must(t, d.SetErrHandler(h))
		must(t, h.Free())
		if err := mpi.Send(d, []int{1}, size, 0); !errors.Is(err, mpi.ErrRank) || calls != 1 {
			t.Errorf("an error on a communicator whose handler was freed: %v, %d calls", err, calls)
		}
		if d.ErrHandler() != h {
			t.Errorf("ErrHandler after Free is another")
		}
		// A communicator made from d inherits the freed handler, and it works there.
		e, err := d.Dup()
		must(t, err)
		if e.ErrHandler() != h {
			t.Errorf("a duplicate did not inherit its parent's handler")
		}
		mpi.Send(e, []int{1}, size, 0)
		if calls != 2 {
			t.Errorf("the inherited handler ran %d times, want 2 in all", calls)
		}
		for name, err := range map[string]error{
			"setting a freed handler":              mpi.World.SetErrHandler(h),
			"freeing it again":                     h.Free(),
			"freeing nil":                          (*mpi.ErrHandler)(nil).Free(),
			"a window's handler on a comm":         d.SetErrHandler(mpi.NewWinErrHandler(func(*mpi.Win, error) {})),
			"a session's handler on a comm":        d.SetErrHandler(mpi.NewSessionErrHandler(func(*mpi.Session, error) {})),
			"a handler mpigo did not make":         d.SetErrHandler(&mpi.ErrHandler{}),
			"freeing a handler mpigo did not make": (&mpi.ErrHandler{}).Free(),
		} {
			if !errors.Is(err, mpi.ErrErrhandler) {
				t.Errorf("%s: %v, want ErrErrhandler", name, err)
			}
		}
		for _, p := range []*mpi.ErrHandler{mpi.ErrorsReturn, mpi.ErrorsAreFatal, mpi.ErrorsAbort} {
			must(t, p.Free())
			must(t, p.Free())
		}
		if mpi.World.ErrHandler() != mpi.ErrorsReturn {
			t.Errorf("World's handler is not ErrorsReturn: a refused set changed it")
		}
		must(t, e.Free())
		must(t, d.Free())
	})
}

// TestRequestSetErrorsGoToTheHandler: a request's failure in a call on many requests
// goes to the handler of the request's communicator, as the C library's does: the
// request's own error for Waitany, ErrInStatus for Waitall and Waitsome, each status
// holding its own error.
func TestRequestSetErrorsGoToTheHandler(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		peer := 1 - rank
		var seen []error
		d, err := mpi.World.Dup()
		must(t, err)
		must(t, d.SetErrHandler(mpi.NewErrHandler(func(c *mpi.Comm, err error) {
			if c != d {
				t.Errorf("the handler was given %v, not the request's communicator", c)
			}
			seen = append(seen, err)
		})))
		big := []int32{1, 2, 3, 4}
		r, err := mpi.Irecv(d, make([]int32, 1), peer, 1) // truncated: 4 come
		must(t, err)
		must(t, mpi.Send(d, big, peer, 1))
		i, _, err := mpi.Waitany([]mpi.Request{r})
		if i != 0 || !errors.Is(err, mpi.ErrTruncate) || len(seen) != 1 || seen[0] != err {
			t.Errorf("Waitany of a truncated receive: %d, %v; the handler saw %v", i, err, seen)
		}

		must(t, d.Barrier())
		ok, err := mpi.Irecv(d, make([]int32, 4), peer, 2)
		must(t, err)
		bad, err := mpi.Irecv(d, make([]int32, 1), peer, 3)
		must(t, err)
		must(t, mpi.Send(d, big, peer, 2))
		must(t, mpi.Send(d, big, peer, 3))
		rs := []mpi.Request{ok, bad}
		sts := make([]mpi.Status, 2)
		err = mpi.Waitall(rs, sts)
		if !errors.Is(err, mpi.ErrInStatus) || sts[0].Err != nil || !errors.Is(sts[1].Err, mpi.ErrTruncate) ||
			len(seen) != 2 || seen[1] != err || !rs[0].IsNull() || !rs[1].IsNull() {
			t.Errorf("Waitall with a truncated receive: %v, statuses %v %v; the handler saw %v", err, sts[0].Err, sts[1].Err, seen)
		}

		must(t, d.Barrier())
		bad, err = mpi.Irecv(d, make([]int32, 1), peer, 4)
		must(t, err)
		must(t, mpi.Send(d, big, peer, 4))
		idx, ssts, err := mpi.Waitsome([]mpi.Request{bad})
		if len(idx) != 1 || !errors.Is(err, mpi.ErrInStatus) || !errors.Is(ssts[0].Err, mpi.ErrTruncate) || len(seen) != 3 {
			t.Errorf("Waitsome with a truncated receive: %v, %v; the handler saw %v", idx, err, seen)
		}
		must(t, d.Free())
	})
}
