package mpi_test

import (
	"os"
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
	res := launchFailing(t, 4, func(t *testing.T) {
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
	if mpitest.IsRank(t) {
		return
	}
	if res.Code == 0 || !contains(res.Stderr, "rank 2 (pid") || !contains(res.Stderr, "killed by signal 9") {
		t.Errorf("exit %d, stderr:\n%s", res.Code, res.Stderr)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v to end", took)
	}
}
