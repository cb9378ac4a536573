package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

var netnsSeq atomic.Int32

// netnsHosts makes n test hosts: network namespaces joined by a bridge, each with its own
// address on 10.77.<k>.0/24, a network that exists only inside this test. It needs root
// and iproute2; the test is skipped without them. Everything is removed at the end.
func netnsHosts(t *testing.T, n int) []string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip command (iproute2)")
	}
	// Names unique to this call: two tests of one process must not meet each other's
	// namespaces while the kernel is still tearing the first ones down.
	id := os.Getpid()%1000*10 + int(netnsSeq.Add(1)%10)
	br := fmt.Sprintf("mpgbr%d", id)
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	if err := exec.Command("ip", "link", "add", br, "type", "bridge").Run(); err != nil {
		t.Skipf("cannot make a bridge here: %v", err)
	}
	t.Cleanup(func() { exec.Command("ip", "link", "del", br).Run() })
	run("link", "set", br, "up")
	var hosts []string
	for i := 0; i < n; i++ {
		ns := fmt.Sprintf("mpg%d-h%d", id, i)
		veth := fmt.Sprintf("mpg%dv%d", id, i)
		run("netns", "add", ns)
		t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
		run("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
		run("link", "set", veth, "master", br, "up")
		run("netns", "exec", ns, "ip", "addr", "add", fmt.Sprintf("10.77.%d.%d/24", id%250, 10+i), "dev", "eth0")
		run("netns", "exec", ns, "ip", "link", "set", "eth0", "up")
		run("netns", "exec", ns, "ip", "link", "set", "lo", "up")
		hosts = append(hosts, ns)
	}
	return hosts
}

// TestNetworkNamespaceHosts runs jobs across hosts that share no network but a bridge:
// the ranks of different hosts talk over TCP between their own addresses.
func TestNetworkNamespaceHosts(t *testing.T) {
	hosts := netnsHosts(t, 3)
	hostList := strings.Join(hosts, ":2,") + ":2"
	r := mpigo(t, "", "run", "--host", hostList, "--launch-agent", "ip netns exec", "--map-by", "node",
		"../../examples/pi", "300000")
	if r.code != 0 || !strings.Contains(r.stdout, "on 6 ranks") {
		t.Fatalf("pi on 3 namespace hosts: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = mpigo(t, "", "run", "--host", hostList, "--launch-agent", "ip netns exec", rankBin(t), "coll")
	if r.code != 0 || strings.Count(r.stdout, "coll ok") != 6 {
		t.Fatalf("collectives on 3 namespace hosts: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = mpigo(t, "", "run", "--host", hostList, "--launch-agent", "ip netns exec", rankBin(t), "rma")
	if r.code != 0 || strings.Count(r.stdout, "rma ok") != 6 {
		t.Fatalf("one-sided operations on 3 namespace hosts: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = mpigo(t, "", "run", "--host", hostList, "--launch-agent", "ip netns exec", rankBin(t), "exit-mid", "4", "3")
	if r.code != 3 || !strings.Contains(r.stderr, "host "+hosts[2]+") exited with code 3") {
		t.Errorf("failure on a namespace host: exit %d\n%s", r.code, r.stderr)
	}
}

// TestNamespaceHostAgentKilled kills one namespace host's agent mid-job: the job ends,
// naming the host, and no rank is left on any host.
func TestNamespaceHostAgentKilled(t *testing.T) {
	hosts := netnsHosts(t, 3)
	cmd, out, errb, _ := startReady(t, 3, "run", "--host", strings.Join(hosts, ","), "--launch-agent", "ip netns exec", rankBin(t), "block")
	ranks := pids(out.String())
	// The agent of the second host runs inside its namespace: find it by its netns.
	agents, _ := exec.Command("ip", "netns", "pids", hosts[1]).Output()
	var agentPid int
	for _, f := range strings.Fields(string(agents)) {
		pid, _ := strconv.Atoi(f)
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if strings.Contains(string(cmdline), "agent") {
			agentPid = pid
		}
	}
	if agentPid == 0 {
		t.Fatalf("no agent found in namespace %s (pids %q)", hosts[1], agents)
	}
	syscall.Kill(agentPid, syscall.SIGKILL)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the job did not end after a host's agent was killed")
	}
	if cmd.ProcessState.ExitCode() == 0 || !strings.Contains(errb.String(), "lost the agent on host "+hosts[1]) {
		t.Errorf("exit %d, stderr:\n%s", cmd.ProcessState.ExitCode(), errb.String())
	}
	assertGone(t, append(ranks, agentPid))
}
