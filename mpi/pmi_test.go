package mpi_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// underOtherLaunchers is the body the ranks run under MPICH's mpiexec and Slurm's srun:
// the world, a ring of messages, a communicator of its own.
func underOtherLaunchers(t *testing.T) {
	must(t, mpi.Init())
	w := mpi.World
	if w.Size() != 4 {
		t.Fatalf("size %d, want 4", w.Size())
	}
	got := []int{-1}
	_, err := mpi.Sendrecv(w, []int{w.Rank()}, (w.Rank()+1)%4, 0, got, (w.Rank()+3)%4, 0)
	must(t, err)
	if got[0] != (w.Rank()+3)%4 {
		t.Errorf("ring: got %d", got[0])
	}
	d, err := w.Dup()
	must(t, err)
	must(t, d.Barrier())
	must(t, mpi.Finalize())
}

// runUnder runs this test's body as 4 ranks started by another launcher.
func runUnder(t *testing.T, launcher ...string) {
	mpitest.Job(t, mpitest.Options{Launcher: launcher}, underOtherLaunchers)
}

func TestUnderMPICHHydra(t *testing.T) { runUnder(t, "mpiexec.mpich", "-n", "4") }

func TestUnderSlurmPMI2(t *testing.T) {
	if os.Getenv("MPIGO_TEST_SLURM") != "1" && !mpitest.IsRank(t) {
		t.Skip("set MPIGO_TEST_SLURM=1 with a running Slurm (internal/pm/pmi/testdata/slurm-setup.sh)")
	}
	runUnder(t, "srun", "--mpi=pmi2", "-n", "4")
}

// TestExamplesUnderOtherLaunchers runs examples/pi under MPICH's mpiexec (and under
// srun with MPIGO_TEST_SLURM=1) and checks its answer.
func TestExamplesUnderOtherLaunchers(t *testing.T) {
	if _, err := exec.LookPath("mpiexec.mpich"); err != nil {
		t.Skip("mpiexec.mpich is not installed")
	}
	pi := mpitest.Build(t, "../examples/pi")
	launchers := [][]string{{"mpiexec.mpich", "-n", "4"}}
	if os.Getenv("MPIGO_TEST_SLURM") == "1" {
		launchers = append(launchers, []string{"srun", "--mpi=pmi2", "-n", "4"})
	}
	for _, l := range launchers {
		res := mpitest.Foreign(t, 2*time.Minute, nil, append(l, pi, "1000000")...)
		if res.Code != 0 || !strings.Contains(res.Stdout, "error 1.1e-13") || !strings.Contains(res.Stdout, "on 4 ranks") {
			t.Errorf("%v pi: %v", l, res)
		}
	}
}
