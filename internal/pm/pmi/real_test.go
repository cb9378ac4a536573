package pmi

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/pm"
)

// The real process-manager tests start this test binary as the ranks of a job; with
// envChild set, TestMain runs child instead of the tests.
const envChild = "MPIGO_PMI_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(envChild) == "1" {
		if err := child(); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL rank %s: %v\n", os.Getenv("PMI_RANK"), err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Values the child ranks publish: with spaces, ';', '=' and newlines, which no PMI
// server takes raw, and one long enough to be split into segments.
func procValue(r int) []byte { return []byte(fmt.Sprintf("rank %d; a=b\nc", r)) }
func longValue(r int) []byte {
	return bytes.Repeat([]byte(fmt.Sprintf("<%d>", r)), 1500) // 4.5-6 KB: several segments
}
func nodeValue(n int) []byte { return []byte(fmt.Sprintf("node %d data", n)) }

// child is one rank: it publishes values of every scope, fences, and checks that it
// reads every other rank's.
func child() error {
	c, err := FromEnvOptions(Options{Timeout: 30 * time.Second, FenceTimeout: time.Minute})
	if err != nil {
		return err
	}
	if c == nil {
		return fmt.Errorf("FromEnv found no PMI process manager")
	}
	if err := exercise(c); err != nil {
		return err
	}
	fmt.Printf("OK rank %d/%d local %d/%d node %d/%d pmi-%d job %s\n",
		c.Rank(), c.Size(), c.LocalRank(), c.LocalSize(), c.NodeOf(c.Rank()), c.NumNodes(), c.Version(), c.JobID())
	return c.Finalize()
}

// exercise publishes values of every scope, fences, and checks that every other
// rank's are read back; then a second round. The real and the fake servers' tests
// share it.
func exercise(c *Client) error {
	r, n := c.Rank(), c.Size()
	if err := c.Put(pm.Proc, pm.KeyTCP, procValue(r)); err != nil {
		return err
	}
	if err := c.Put(pm.Proc, pm.KeyTopo, longValue(r)); err != nil {
		return err
	}
	if c.LocalRank() == 0 {
		if err := c.Put(pm.Node, pm.KeyNodeTopo, nodeValue(c.NodeOf(r))); err != nil {
			return err
		}
	}
	if r == 0 {
		if err := c.Put(pm.Job, pm.KeySecret, []byte("secret")); err != nil {
			return err
		}
	}
	if err := c.Fence(); err != nil {
		return err
	}
	for p := 0; p < n; p++ {
		if v, ok := c.Get(pm.Proc, pm.KeyTCP, p); !ok || !bytes.Equal(v, procValue(p)) {
			return fmt.Errorf("Get(proc, tcp, %d) = %q, %v; want %q (err %v)", p, v, ok, procValue(p), c.Err())
		}
		if v, ok := c.Get(pm.Proc, pm.KeyTopo, p); !ok || !bytes.Equal(v, longValue(p)) {
			return fmt.Errorf("Get(proc, topo, %d) = %d bytes, %v; want %d bytes (err %v)", p, len(v), ok, len(longValue(p)), c.Err())
		}
		if v, ok := c.Get(pm.Node, pm.KeyNodeTopo, p); !ok || !bytes.Equal(v, nodeValue(c.NodeOf(p))) {
			return fmt.Errorf("Get(node, node-topo, %d) = %q, %v (err %v)", p, v, ok, c.Err())
		}
	}
	if v, ok := c.Get(pm.Job, pm.KeySecret, r); !ok || string(v) != "secret" {
		return fmt.Errorf("Get(job, secret) = %q, %v (err %v)", v, ok, c.Err())
	}
	if v, ok := c.Get(pm.Proc, pm.KeyBarrier, (r+1)%n); ok {
		return fmt.Errorf("Get(proc, barrier) of a key nobody put = %q, true", v)
	}
	// A second round: a value put again unchanged is accepted (and not resent); a
	// changed one is refused; a new key is visible after the next fence.
	if err := c.Put(pm.Proc, pm.KeyTCP, procValue(r)); err != nil {
		return fmt.Errorf("putting an unchanged value again: %v", err)
	}
	if err := c.Put(pm.Proc, pm.KeyTCP, []byte("changed")); err == nil {
		return fmt.Errorf("putting a changed value after a fence was accepted")
	}
	if err := c.Put(pm.Proc, pm.KeyPID, []byte(fmt.Sprint("pid ", r))); err != nil {
		return err
	}
	if err := c.Fence(); err != nil {
		return err
	}
	p := (r + 1) % n
	if v, ok := c.Get(pm.Proc, pm.KeyPID, p); !ok || string(v) != fmt.Sprint("pid ", p) {
		return fmt.Errorf("after the second fence Get(proc, pid, %d) = %q, %v (err %v)", p, v, ok, c.Err())
	}
	return c.Err()
}

// runJob runs the test binary as n ranks under a launcher command and checks each
// rank said OK.
func runJob(t *testing.T, n int, env []string, launcher ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append(launcher[1:], os.Args[0], "-test.run=^$")
	cmd := exec.CommandContext(ctx, launcher[0], args...)
	cmd.Env = append(append(os.Environ(), envChild+"=1"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil || strings.Count(out.String(), "OK rank") != n {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(launcher, " "), err, out.String(), errb.String())
	}
	t.Logf("%s\n%s", strings.Join(launcher, " "), out.String())
}

func TestHydra(t *testing.T) {
	if _, err := exec.LookPath("mpiexec.mpich"); err != nil {
		t.Skip("mpiexec.mpich (MPICH's Hydra) is not installed: apt-get install mpich")
	}
	for _, tc := range []struct {
		name string
		env  []string
		args []string
	}{
		{"pmi1-fd", nil, nil},
		{"pmi1-port", nil, []string{"-pmi-port"}},
		{"pmi2-fd", []string{EnvVersion + "=2"}, nil},
		{"pmi2-port", []string{EnvVersion + "=2"}, []string{"-pmi-port"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runJob(t, 4, tc.env, append(append([]string{"mpiexec.mpich"}, tc.args...), "-n", "4")...)
		})
	}
}

// TestSlurm needs a running Slurm cluster (testdata/slurm-setup.sh makes one on this
// machine) and MPIGO_TEST_SLURM=1.
func TestSlurm(t *testing.T) {
	if os.Getenv("MPIGO_TEST_SLURM") != "1" {
		t.Skip("set MPIGO_TEST_SLURM=1 to run under srun (after testdata/slurm-setup.sh)")
	}
	for _, tc := range []struct {
		name string
		env  []string
	}{
		{"pmi2", nil},
		{"pmi1", []string{EnvVersion + "=1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runJob(t, 4, tc.env, "srun", "--mpi=pmi2", "-n", "4", "--time=2")
		})
	}
}
