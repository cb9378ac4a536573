package mpi_test

import (
	"errors"
	"fmt"
	"os"
	"strconv"
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
