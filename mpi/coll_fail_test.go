package mpi_test

import (
	"errors"
	"fmt"
	"os"
	ossignal "os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestRankDiesDuringCollective: one rank dies in the middle of a run of Allreduces; the
// others must not hang, and the job ends with a message naming the rank.
func TestRankDiesDuringCollective(t *testing.T) {
	start := time.Now()
	res := mpitest.Job(t, mpitest.Options{N: 4, Fail: true}, func(t *testing.T) {
		must(t, mpi.Init())
		buf := make([]float64, 1<<16)
		out := make([]float64, 1<<16)
		for i := 0; i < 1000; i++ {
			if i == 50 && mpi.World.Rank() == 2 {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
			if err := mpi.Allreduce(mpi.World, buf, out, mpi.Sum); err != nil {
				os.Exit(3) // an error on a survivor is a correct ending too
			}
		}
		t.Error("1000 allreduces completed although rank 2 died")
	})
	if res.Code == 0 || !contains(res.Stderr, "rank 2 (pid") || !contains(res.Stderr, "killed by signal 9") {
		t.Errorf("exit %d, stderr:\n%s", res.Code, res.Stderr)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v to end", took)
	}
}

// TestIcollRankDies: rank 2 dies while ranks 0 and 1 are in nonblocking collectives
// with it (over TCP, run by the progress goroutine's Waitany); their Waits return an
// error naming the failure (ErrProcFailed) by themselves, not only by the launcher
// stopping the job: the survivors ignore its SIGTERM. Before, the progress goroutine
// took a failed receive for a completed one, and the collective went on without it.
func TestIcollRankDies(t *testing.T) {
	start := time.Now()
	set := map[string]string{"coll_shm": "off"}
	res := mpitest.Job(t, mpitest.Options{N: 3, Transport: mpitest.TCP, Settings: set, Fail: true}, func(t *testing.T) {
		must(t, mpi.Init())
		w := mpi.World
		rank := w.Rank()
		if rank != 2 {
			ossignal.Ignore(syscall.SIGTERM)
		}
		w.SetErrHandler(mpi.ErrorsReturn)
		must(t, w.Barrier())
		if rank == 2 {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
		in, out := make([]float64, 1<<14), make([]float64, 1<<14)
		r1, err := mpi.Iallreduce(w, in, out, mpi.Sum)
		must(t, err)
		r2, err := w.Ibarrier()
		must(t, err)
		for i, r := range []mpi.Request{r1, r2} {
			_, err := r.Wait()
			fmt.Fprintf(os.Stderr, "rank %d: Wait %d: %v\n", rank, i, err)
			if !errors.Is(err, mpi.ErrProcFailed) {
				os.Exit(4)
			}
		}
		os.Exit(3)
	})
	for _, want := range []string{"rank 0: Wait 0:", "rank 0: Wait 1:", "rank 1: Wait 0:", "rank 1: Wait 1:"} {
		if !contains(res.Stderr, want) {
			t.Errorf("no line %q: exit %d, stderr:\n%s", want, res.Code, res.Stderr)
		}
	}
	if res.Code == 4 || contains(res.Stderr, "<nil>") {
		t.Errorf("a survivor's Wait did not fail with ErrProcFailed: exit %d, stderr:\n%s", res.Code, res.Stderr)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v to end", took)
	}
}
