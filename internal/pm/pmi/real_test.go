package pmi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/pm"
)

// The real process-manager tests start this test binary as the ranks of a job; with
// envChild set, TestMain runs child instead of the tests.
const (
	envChild      = "MPIGO_PMI_TEST_CHILD"
	envChildAbort = "MPIGO_PMI_TEST_ABORT"
)

func TestMain(m *testing.M) {
	if os.Getenv(envChild) == "1" {
		if err := child(); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL rank %s: %v\n", os.Getenv("PMI_RANK"), err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if err := becomeSubreaper(); err != nil {
		fmt.Fprintf(os.Stderr, "cannot adopt orphaned ranks: %v\n", err)
		os.Exit(1)
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
	if os.Getenv(envChildAbort) == "1" {
		// Rank 1 aborts while the others wait in a fence: the process manager must end
		// them all. A rank that comes back from the fence reports it.
		if c.Rank() == 1 {
			if err := c.Abort(7, "rank 1 aborts the test job"); err != nil {
				return err
			}
			// Not a fence: the others' fence must not complete before the kill comes.
			// The process manager kills this rank, or at least drops its connection
			// (Hydra 4.0 fails on PMI-2's abort and exits without killing it); either
			// ends the wait, so that the rank does not outlive its job.
			if closed := awaitClose(c, time.Minute); closed {
				fmt.Printf("NOT KILLED rank 1: the process manager closed the connection after its abort\n")
			} else {
				fmt.Printf("NOT KILLED rank 1 within a minute of its abort\n")
			}
			return fmt.Errorf("still running after an abort")
		}
		err := c.Fence()
		fmt.Printf("NOT KILLED rank %d: fence returned %v\n", c.Rank(), err)
		return fmt.Errorf("still running after an abort")
	}
	if err := exercise(c); err != nil {
		return err
	}
	fmt.Printf("OK rank %d/%d local %d/%d node %d/%d pmi-%d job %s\n",
		c.Rank(), c.Size(), c.LocalRank(), c.LocalSize(), c.NodeOf(c.Rank()), c.NumNodes(), c.Version(), c.JobID())
	return c.Finalize()
}

// awaitClose waits up to d for the process manager to close c's connection, and
// reports whether it did.
func awaitClose(c *Client, d time.Duration) bool {
	c.l.c.SetReadDeadline(time.Now().Add(d))
	b := make([]byte, 512)
	for {
		if _, err := c.l.c.Read(b); err != nil {
			return !errors.Is(err, os.ErrDeadlineExceeded)
		}
	}
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
	// Readers in parallel with the checks below: Get is safe for concurrent use.
	var wg sync.WaitGroup
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := n - 1; p >= 0; p-- {
				c.Get(pm.Proc, pm.KeyTopo, p)
				c.Get(pm.Node, pm.KeyNodeTopo, p)
			}
		}()
	}
	defer wg.Wait()
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

// jobCommand is the launcher command that runs this test binary as the ranks of a
// job, with env added. A rank that outlives the launcher while holding its output
// must not hold up the test: the output is given up endGrace after the launcher ends.
func jobCommand(ctx context.Context, env, launcher []string) *exec.Cmd {
	args := append(launcher[1:], os.Args[0], "-test.run=^$")
	cmd := exec.CommandContext(ctx, launcher[0], args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = endGrace
	return cmd
}

// runJob runs the test binary as n ranks on nodes nodes under a launcher command and
// checks each rank said OK and saw the nodes.
func runJob(t *testing.T, n, nodes int, env []string, launcher ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	mark := newJobMark()
	cmd := jobCommand(ctx, append([]string{envChild + "=1", mark}, env...), launcher)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	endJob(t, mark)
	if err != nil || strings.Count(out.String(), "OK rank") != n ||
		strings.Count(out.String(), fmt.Sprintf("/%d pmi-", nodes)) != n {
		t.Fatalf("%s: %v (want %d ranks on %d nodes)\nstdout:\n%s\nstderr:\n%s",
			strings.Join(launcher, " "), err, n, nodes, out.String(), errb.String())
	}
	t.Logf("%s\n%s", strings.Join(launcher, " "), out.String())
}

// TestHydra runs jobs under MPICH's mpiexec in each protocol and connection mode. Two
// "nodes" on one machine: Hydra starts a proxy per host name and takes both the
// machine's name and localhost as local, so the job spans two proxies (two node ids,
// separate node attributes) without ssh.
func TestHydra(t *testing.T) {
	if _, err := exec.LookPath("mpiexec.mpich"); err != nil {
		t.Skip("mpiexec.mpich (MPICH's Hydra) is not installed: apt-get install mpich")
	}
	host, _ := os.Hostname()
	twoNodes := host != "" && host != "localhost"
	for _, tc := range []struct {
		name  string
		env   []string
		args  []string
		nodes int
	}{
		{"pmi1-fd", nil, nil, 1},
		{"pmi1-port", nil, []string{"-pmi-port"}, 1},
		{"pmi2-fd", []string{EnvVersion + "=2"}, nil, 1},
		{"pmi2-port", []string{EnvVersion + "=2"}, []string{"-pmi-port"}, 1},
		{"pmi1-2nodes-block", nil, []string{"-hosts", host + ",localhost", "-ppn", "2"}, 2},
		{"pmi1-2nodes-cyclic", nil, []string{"-hosts", host + ":1,localhost:1"}, 2},
		{"pmi2-2nodes-block", []string{EnvVersion + "=2"}, []string{"-hosts", host + ",localhost", "-ppn", "2"}, 2},
		{"pmi2-2nodes-cyclic-port", []string{EnvVersion + "=2"}, []string{"-pmi-port", "-hosts", host + ":1,localhost:1"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.nodes > 1 && !twoNodes {
				t.Skipf("host name %q: cannot make two local host names", host)
			}
			runJob(t, 4, tc.nodes, tc.env, append(append([]string{"mpiexec.mpich"}, tc.args...), "-n", "4")...)
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
			runJob(t, 4, 1, tc.env, "srun", "--mpi=pmi2", "-n", "4", "--time=2")
		})
	}
}

// runAbort runs a job whose rank 1 aborts with code 7, and checks the launcher ends
// every rank and fails, with wantCode unless it is 0.
func runAbort(t *testing.T, wantCode int, env []string, launcher ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	mark := newJobMark()
	cmd := jobCommand(ctx, append([]string{envChild + "=1", envChildAbort + "=1", mark}, env...), launcher)
	out, err := cmd.CombinedOutput()
	endJob(t, mark)
	// A rank may print NOT KILLED: the others' fence can complete while the job is
	// torn down (Hydra 4.0 does not know PMI-2's abort command and fails, ending the
	// job with exit code 255). What matters is that the job ends, and fails.
	if err == nil || ctx.Err() != nil {
		t.Fatalf("%s: %v (context: %v); want the job ended by rank 1's abort\n%s", strings.Join(launcher, " "), err, ctx.Err(), out)
	}
	if ee, ok := err.(*exec.ExitError); wantCode != 0 && (!ok || ee.ExitCode() != wantCode) {
		t.Errorf("%s: %v; want exit code %d, rank 1's\n%s", strings.Join(launcher, " "), err, wantCode, out)
	}
	t.Logf("%s: %v\n%s", strings.Join(launcher, " "), err, out)
}

func TestHydraAbort(t *testing.T) {
	if _, err := exec.LookPath("mpiexec.mpich"); err != nil {
		t.Skip("mpiexec.mpich (MPICH's Hydra) is not installed: apt-get install mpich")
	}
	// PMI-1 (mpigo's default under Hydra) carries the rank's code to mpiexec; PMI-2's
	// abort has no code, and Hydra 4.0 does not know it (it ends the job with 255).
	t.Run("pmi1", func(t *testing.T) { runAbort(t, 7, []string{EnvVersion + "=1"}, "mpiexec.mpich", "-n", "3") })
	t.Run("pmi2", func(t *testing.T) { runAbort(t, 0, []string{EnvVersion + "=2"}, "mpiexec.mpich", "-n", "3") })
}

func TestSlurmAbort(t *testing.T) {
	if os.Getenv("MPIGO_TEST_SLURM") != "1" {
		t.Skip("set MPIGO_TEST_SLURM=1 to run under srun (after testdata/slurm-setup.sh)")
	}
	for _, v := range []string{"1", "2"} {
		t.Run("pmi"+v, func(t *testing.T) {
			runAbort(t, 0, []string{EnvVersion + "=" + v}, "srun", "--mpi=pmi2", "-n", "3", "--time=2")
		})
	}
}
