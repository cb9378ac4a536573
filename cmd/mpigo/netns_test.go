package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

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
	id := os.Getpid() % 10000
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
	r = mpigo(t, "", "run", "--host", hostList, "--launch-agent", "ip netns exec", rankBin, "coll")
	if r.code != 0 || strings.Count(r.stdout, "coll ok") != 6 {
		t.Fatalf("collectives on 3 namespace hosts: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = mpigo(t, "", "run", "--host", hostList, "--launch-agent", "ip netns exec", rankBin, "exit-mid", "4", "3")
	if r.code != 3 || !strings.Contains(r.stderr, "host "+hosts[2]+") exited with code 3") {
		t.Errorf("failure on a namespace host: exit %d\n%s", r.code, r.stderr)
	}
}
