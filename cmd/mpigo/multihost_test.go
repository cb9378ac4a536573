package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
)

func TestMultiHostThroughAgents(t *testing.T) {
	agent, _ := mpitest.Agent(t)
	r := mpigo(t, "", "run", "--host", "alpha:2,beta:2,gamma:1", "--launch-agent", agent, "--tag-output",
		rankBin(t), "env", "MPIGO_RANK", "MPIGO_LOCAL_RANK", "MPIGO_LOCAL_SIZE", "MPIGO_NODEMAP", "MPIGO_HOSTS")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	want := []string{
		"[0] rank 0 MPIGO_LOCAL_RANK=0", "[1] rank 1 MPIGO_LOCAL_RANK=1", "[2] rank 2 MPIGO_LOCAL_RANK=0",
		"[3] rank 3 MPIGO_LOCAL_SIZE=2", "[4] rank 4 MPIGO_LOCAL_SIZE=1",
		"[4] rank 4 MPIGO_NODEMAP=0*2,1*2,2*1", "[0] rank 0 MPIGO_HOSTS=alpha,beta,gamma",
	}
	for _, w := range want {
		if !strings.Contains(r.stdout, w+"\n") {
			t.Errorf("missing %q in:\n%s", w, r.stdout)
		}
	}
	// Messages between ranks on different hosts, and the result.
	r = mpigo(t, "", "run", "--host", "alpha:2,beta:2", "--launch-agent", agent, "--map-by", "node",
		"../../examples/pi", "100000")
	if r.code != 0 || !strings.Contains(r.stdout, "on 4 ranks") || !strings.Contains(r.stdout, "error 8.3e-12") {
		t.Errorf("pi across hosts: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestMultiHostFailures(t *testing.T) {
	agent, _ := mpitest.Agent(t)
	cases := []struct {
		code int
		msg  string
		args []string
	}{
		{9, "rank 3 (pid ", []string{"exit-mid", "3", "9"}},
		{9, "host beta) exited with code 9", []string{"exit-mid", "3", "9"}},
		{4, "host beta) called MPI_Abort with code 4; stopping the job", []string{"abort", "2", "4"}},
		{137, "rank 1 (pid", []string{"signal-at-start", "1"}},
		{2, "host beta) panicked: deliberate bare panic in rank 3 (exit code 2)", []string{"panic-bare", "3"}},
	}
	for _, c := range cases {
		r := failure(t, c.code, c.msg, append([]string{"run", "--host", "alpha:2,beta:2", "--launch-agent", agent, rankBin(t)}, c.args...)...)
		if strings.Contains(r.stderr, "pid 0,") {
			t.Errorf("a message without the pid:\n%s", r.stderr)
		}
	}
}

// TestAgentKilledMidJob kills one host's agent while its ranks run: the job ends with a
// message naming the host, and no rank anywhere is left.
func TestAgentKilledMidJob(t *testing.T) {
	agent, dir := mpitest.Agent(t)
	cmd, out, errb, _ := startReady(t, 4, "run", "--host", "alpha:1,beta:2,gamma:1", "--launch-agent", agent, rankBin(t), "block")
	pidText, err := os.ReadFile(filepath.Join(dir, "agent-beta.pid"))
	if err != nil {
		t.Fatal(err)
	}
	agentPid, _ := strconv.Atoi(strings.TrimSpace(string(pidText)))
	ranks := pids(out.String())
	start := time.Now()
	syscall.Kill(agentPid, syscall.SIGKILL)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the job did not end after its agent was killed")
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %v to end the job", took)
	}
	if cmd.ProcessState.ExitCode() == 0 || !strings.Contains(errb.String(), "lost the agent on host beta") {
		t.Errorf("exit %d, stderr:\n%s", cmd.ProcessState.ExitCode(), errb.String())
	}
	assertGone(t, append(ranks, agentPid))
}

// TestLaunchTree starts 16 agents in a tree of fan-out 4 and reports the launch time.
func TestLaunchTree(t *testing.T) {
	agent, _ := mpitest.Agent(t)
	var hosts []string
	for i := 0; i < 16; i++ {
		hosts = append(hosts, fmt.Sprintf("h%02d", i))
	}
	r := mpigo(t, "", "run", "--host", strings.Join(hosts, ","), "--launch-agent", agent, "--fanout", "4", rankBin(t), "hello")
	if r.code != 0 || len(pids(r.stdout)) != 16 {
		t.Fatalf("exit %d, %d ranks:\n%s%s", r.code, len(pids(r.stdout)), r.stdout, r.stderr)
	}
	t.Logf("16 agents, fan-out 4, one rank each: %v from start to end", r.took)
}

func TestHostfileAndBadHosts(t *testing.T) {
	agent, dir := mpitest.Agent(t)
	hf := filepath.Join(dir, "hosts")
	os.WriteFile(hf, []byte("# two nodes\nn1 slots=2\nn2 slots=1\n"), 0o644)
	r := mpigo(t, "", "run", "--hostfile", hf, "--launch-agent", agent, rankBin(t), "hello")
	if r.code != 0 || len(pids(r.stdout)) != 3 {
		t.Errorf("hostfile run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"run", "--host", "a:1", "-n", "3", rankBin(t)}, "the hosts have 1 slots"},
		{[]string{"run", "--host", "a:x", rankBin(t)}, "slot count \"x\""},
		{[]string{"run", "--hostfile", "/no/such/file", rankBin(t)}, "no such file"},
		{[]string{"run", "--host", "a", "--hostfile", hf, rankBin(t)}, "one or the other"},
		{[]string{"run", "--host", "a", "--fanout", "0", rankBin(t)}, "--fanout 0"},
	} {
		r := mpigo(t, "", c.args...)
		if r.code == 0 || !strings.Contains(r.stderr, c.msg) {
			t.Errorf("mpigo %v: exit %d, stderr %q, want %q", c.args, r.code, r.stderr, c.msg)
		}
	}
	// A launch agent that cannot reach the host.
	r = mpigo(t, "", "run", "--host", "a,b", "--launch-agent", "false", rankBin(t), "hello")
	if r.code == 0 || !strings.Contains(r.stderr, "cannot reach host") && !strings.Contains(r.stderr, "lost the agent on host") {
		t.Errorf("unreachable host: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestInsideSlurmAllocation: in an allocation, mpigo run takes the hosts from Slurm and
// starts its agents with srun. Needs a running Slurm (MPIGO_TEST_SLURM=1; see
// internal/pm/pmi/testdata/slurm-setup.sh).
func TestInsideSlurmAllocation(t *testing.T) {
	if os.Getenv("MPIGO_TEST_SLURM") != "1" {
		t.Skip("set MPIGO_TEST_SLURM=1 with a running Slurm")
	}
	cmd := exec.Command("salloc", "-n", "4", mpigoBin(t), "run", "--tag-output", rankBin(t), "hello")
	out, err := cmd.CombinedOutput()
	if err != nil || len(pids(string(out))) != 4 {
		t.Fatalf("salloc -n 4 mpigo run: %v\n%s", err, out)
	}
}
