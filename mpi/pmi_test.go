package mpi_test

import (
	"context"
	"fmt"
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
	if mpitest.IsRank(t) {
		underOtherLaunchers(t)
		return
	}
	if _, err := exec.LookPath(launcher[0]); err != nil {
		t.Skipf("%s is not installed", launcher[0])
	}
	args := append(launcher[1:], os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
	out, err := runLauncher(t, launcher[0], args, "MPIGO_TEST_CHILD="+t.Name())
	if err != nil {
		t.Fatalf("%v: %v\n%s", launcher, err, out)
	}
}

// runLauncher runs another MPI's launcher in bounded time and leaves nothing behind:
// its ranks carry a mark, and any that outlive it (Hydra may exit before its ranks)
// are killed and reported.
func runLauncher(t *testing.T, name string, args []string, env ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	mark := mpitest.JobMark()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(append(os.Environ(), mark), env...)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("%s did not end within 2 minutes: %v", name, err)
	}
	if left := mpitest.KillMarked(mark); len(left) > 0 {
		t.Errorf("%s left processes of the job running; killed %v", name, left)
	}
	return out, err
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
	pi := t.TempDir() + "/pi"
	if out, err := exec.Command("go", "build", "-o", pi, "../examples/pi").CombinedOutput(); err != nil {
		t.Fatalf("building examples/pi: %v\n%s", err, out)
	}
	launchers := [][]string{{"mpiexec.mpich", "-n", "4"}}
	if os.Getenv("MPIGO_TEST_SLURM") == "1" {
		launchers = append(launchers, []string{"srun", "--mpi=pmi2", "-n", "4"})
	}
	for _, l := range launchers {
		out, err := runLauncher(t, l[0], append(l[1:], pi, "1000000"))
		if err != nil || !strings.Contains(string(out), "error 1.1e-13") || !strings.Contains(string(out), "on 4 ranks") {
			t.Errorf("%v pi: %v\n%s", l, err, out)
		}
	}
}
