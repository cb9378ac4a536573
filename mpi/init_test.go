package mpi_test

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestLifecycleSingleton runs in the test process itself: a program started without the
// launcher is a job of one rank, and the life-cycle calls refuse to run out of order.
func TestLifecycleSingleton(t *testing.T) {
	if mpitest.IsRank(t) {
		t.Skip()
	}
	if err := mpi.Finalize(); !errors.Is(err, mpi.ErrOther) {
		t.Errorf("Finalize before Init: %v, want an MPI_ERR_OTHER error", err)
	}
	if mpi.Initialized() {
		t.Fatal("Initialized before Init")
	}
	if err := mpi.Init(); err != nil {
		t.Fatal(err)
	}
	if !mpi.Initialized() || mpi.Finalized() {
		t.Error("state after Init")
	}
	if r, s := mpi.World.Rank(), mpi.World.Size(); r != 0 || s != 1 {
		t.Errorf("singleton world: rank %d size %d", r, s)
	}
	if err := mpi.Init(); err == nil {
		t.Error("a second Init succeeded")
	}
	t0 := mpi.Wtime()
	if t1 := mpi.Wtime(); t1 < t0 || mpi.Wtick() <= 0 || mpi.Wtick() > 1e-6 {
		t.Errorf("Wtime %v then %v, Wtick %v", t0, t1, mpi.Wtick())
	}
	if mpi.ProcessorName() == "" {
		t.Error("empty processor name")
	}
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
	if !mpi.Finalized() {
		t.Error("not Finalized after Finalize")
	}
	if err := mpi.Finalize(); err == nil {
		t.Error("a second Finalize succeeded")
	}
	if err := mpi.Init(); err == nil {
		t.Error("Init after Finalize succeeded")
	}
	// Finalize of the world model stopped MPI for good: no session can begin.
	if _, err := mpi.SessionInit(nil, nil); !errors.Is(err, mpi.ErrOther) {
		t.Errorf("SessionInit after Finalize: %v, want ErrOther", err)
	}
}

func TestWorld(t *testing.T) {
	for _, n := range []int{1, 2, 5} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			mpitest.Run(t, n, func(t *testing.T) {
				if err := mpi.Init(); err != nil {
					t.Fatal(err)
				}
				want, _ := strconv.Atoi(os.Getenv("MPIGO_RANK"))
				if mpi.World.Rank() != want || mpi.World.Size() != n {
					t.Errorf("rank %d of %d, want %d of %d", mpi.World.Rank(), mpi.World.Size(), want, n)
				}
				if mpi.Self.Rank() != 0 || mpi.Self.Size() != 1 {
					t.Errorf("Self: rank %d of %d", mpi.Self.Rank(), mpi.Self.Size())
				}
				if err := mpi.Finalize(); err != nil {
					t.Fatal(err)
				}
			})
		})
	}
}

func TestErrorClasses(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", &mpi.Error{Class: mpi.ClassTruncate, Op: "Recv", Msg: "message of 10 bytes, buffer of 4"})
	if !errors.Is(err, mpi.ErrTruncate) || errors.Is(err, mpi.ErrRank) {
		t.Errorf("errors.Is on %v", err)
	}
	if c := mpi.ClassOf(err); c != mpi.ClassTruncate || c.String() != "MPI_ERR_TRUNCATE" {
		t.Errorf("ClassOf = %v", c)
	}
	if mpi.ClassOf(nil) != mpi.ClassSuccess || mpi.ClassOf(errors.New("x")) != mpi.ClassOther {
		t.Error("ClassOf of nil or a foreign error")
	}
	if got := err.Error(); got != "wrapped: mpi: Recv: message of 10 bytes, buffer of 4" {
		t.Errorf("message %q", got)
	}
}

// TestInitThread: InitThread checks its level, provides the one asked for (QueryThread
// reports it), and a serialised program runs correctly: calls handed from goroutine to
// goroutine through a channel, every protocol's sizes, then one of the goroutines mpigo
// starts itself (a nonblocking collective's progress, Idup, a nonblocking
// neighbourhood collective) beside the caller's own calls, which turns the engine's
// lock back on: go test -race, which CI runs on this package, fails the case whose
// goroutine did not.
func TestInitThread(t *testing.T) {
	beside := map[string]func(w *mpi.Comm) (mpi.Request, func() error, error){
		"Iallreduce": func(w *mpi.Comm) (mpi.Request, func() error, error) {
			got := []int{0}
			q, err := mpi.Iallreduce(w, []int{w.Rank() + 1}, got, mpi.Sum)
			return q, func() error {
				if n := w.Size(); got[0] != n*(n+1)/2 {
					return fmt.Errorf("Iallreduce: %d, want %d", got[0], n*(n+1)/2)
				}
				return nil
			}, err
		},
		"Idup": func(w *mpi.Comm) (mpi.Request, func() error, error) {
			d, q, err := w.Idup()
			return q, func() error {
				sum := []int{0}
				if err := mpi.Allreduce(d, []int{1}, sum, mpi.Sum); err != nil || sum[0] != w.Size() {
					return fmt.Errorf("on the duplicate: sum %d, want %d (%v)", sum[0], w.Size(), err)
				}
				return nil
			}, err
		},
		"IneighborAllgather": func(w *mpi.Comm) (mpi.Request, func() error, error) {
			rank, size := w.Rank(), w.Size()
			prev, next := (rank+size-1)%size, (rank+1)%size
			ring, err := w.DistGraphCreateAdjacent([]int{prev}, mpi.Unweighted, []int{next}, mpi.Unweighted, false)
			if err != nil {
				return mpi.Request{}, nil, err
			}
			got := []int{-1}
			q, err := mpi.IneighborAllgather(ring, []int{rank}, got)
			return q, func() error {
				if got[0] != prev {
					return fmt.Errorf("neighbour allgather: %d, want %d", got[0], prev)
				}
				return nil
			}, err
		},
	}
	for name, start := range beside {
		t.Run(name, func(t *testing.T) {
			mpitest.Run(t, 3, func(t *testing.T) {
				if _, err := mpi.InitThread(mpi.ThreadLevel(4)); !errors.Is(err, mpi.ErrArg) || !strings.Contains(err.Error(), "required") {
					t.Fatalf("InitThread(4): %v, want an MPI_ERR_ARG error naming required", err)
				}
				if mpi.Initialized() {
					t.Fatal("a refused InitThread initialised MPI")
				}
				got, err := mpi.InitThread(mpi.ThreadSerialized)
				must(t, err)
				if got != mpi.ThreadSerialized || mpi.QueryThread() != mpi.ThreadSerialized {
					t.Fatalf("provided %v, QueryThread %v, want ThreadSerialized", got, mpi.QueryThread())
				}
				w := mpi.World
				rank, size := w.Rank(), w.Size()
				next, prev := (rank+1)%size, (rank+size-1)%size
				for i, n := range []int{0, 8, 4096, 100000, 1 << 20} {
					out, in := make([]byte, n), make([]byte, n)
					for j := range out {
						out[j] = byte(rank + i + j)
					}
					rq, err := mpi.Irecv(w, in, prev, i)
					must(t, err)
					handoff := make(chan mpi.Request)
					go func() { // starts the send; the test's goroutine waits for it
						sq, err := mpi.Isend(w, out, next, i)
						if err != nil {
							t.Error(err)
						}
						handoff <- sq
					}()
					sq := <-handoff
					must(t, mpi.Waitall([]mpi.Request{sq, rq}, nil))
					for j := range in {
						if in[j] != byte(prev+i+j) {
							t.Fatalf("%d bytes from rank %d: byte %d is %d, want %d", n, prev, j, in[j], byte(prev+i+j))
						}
					}
				}

				q, check, err := start(w)
				must(t, err)
				from := []int{-1}
				for k := range 20 { // the caller's own calls while mpigo's goroutine runs
					_, err = mpi.Sendrecv(w, []int{rank + k}, next, 7, from, prev, 7)
					must(t, err)
					if from[0] != prev+k {
						t.Fatalf("received %d, want %d", from[0], prev+k)
					}
				}
				_, err = q.Wait()
				must(t, err)
				must(t, check())
				must(t, mpi.Finalize())
			})
		})
	}
}
