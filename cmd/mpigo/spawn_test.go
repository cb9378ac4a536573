package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestSpawnJobs runs MPI_Comm_spawn through the launcher: children that talk to their
// parents and to each other, two programs in one spawn with their own arguments and
// MPI_APPNUM, and a child whose failure ends the run with its code and a line naming
// it.
func TestSpawnJobs(t *testing.T) {
	r := mpigo(t, "", "run", "-n", "2", rankBin(t), "spawn", "3")
	if r.code != 0 || strings.Count(r.stdout, "spawn ok parent") != 2 || strings.Count(r.stdout, "spawn ok child") != 3 {
		t.Fatalf("2 parents, 3 children: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = mpigo(t, "", "run", "-n", "1", rankBin(t), "spawn-multi")
	for _, want := range []string{`child 0 appnum 0 true args ["a b" "c"]`, `child 1 appnum 0 true args ["a b" "c"]`, `child 2 appnum 1 true args ["d"]`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("spawn_multiple: no line %q: exit %d\n%s%s", want, r.code, r.stdout, r.stderr)
		}
	}
	r = mpigo(t, "", "run", "-n", "2", rankBin(t), "spawn-fail", "1", "3")
	if r.code != 3 || !strings.Contains(r.stderr, "rank 1 of spawned job 1") || !strings.Contains(r.stderr, "exited with code 3") {
		t.Errorf("a failing child: exit %d, want 3 and a line naming it\n%s", r.code, r.stderr)
	}
}

// TestSpawnHangExplained: a run that times out with a parent waiting on its children
// explains the children too: each spawned job's ranks, where they wait, and which
// member of their parent communicator never came; a process of the other job is named
// by its job and rank there, with what it is doing.
func TestSpawnHangExplained(t *testing.T) {
	r := mpigo(t, "", "run", "-n", "1", "--timeout", "3", rankBin(t), "spawn-hang")
	if r.code != 124 {
		t.Fatalf("exit %d, want 124; stderr:\n%s", r.code, r.stderr)
	}
	for _, re := range []string{
		`the job timed out after 3s; what each rank is doing:`,
		`mpigo:\s+0\s+Recv\s+ctx\d+\(world; remote spawned job 1 ranks 0-1\)\s+rank 0 of spawned job 1\s+4\s+1\s`,
		`rank 0 waits in Recv for a message from rank 0 of spawned job 1 \(tag 4\) that never came: rank 0 of spawned job 1 is in Barrier`,
		`spawned job 1 \(\S+\), what each rank is doing:`,
		`mpigo:\s+0\s+Barrier\s+MPI_COMM_PARENT\s`,
		`mpigo:\s+1\s+Barrier\s+MPI_COMM_PARENT\s`,
		`2 of 3 ranks of MPI_COMM_PARENT are in Barrier \(ranks 0,1\); never entered it: rank 0 of the first job is in Recv \(peer 0, tag 4\)`,
	} {
		if !regexp.MustCompile(re).MatchString(r.stderr) {
			t.Errorf("stderr does not match %q:\n%s", re, r.stderr)
		}
	}
}

// TestSpawnAcrossNamespaceHosts spawns children on hosts that share no network but a
// bridge: 4 parents (2 on each host) spawn 4 children on the same hosts, and parents
// and children meet over their own addresses.
func TestSpawnAcrossNamespaceHosts(t *testing.T) {
	hosts := netnsHosts(t, 2)
	r := mpigo(t, "", "run", "--host", strings.Join(hosts, ":2,")+":2", "--launch-agent", "ip netns exec",
		"--map-by", "node", rankBin(t), "spawn", "4")
	if r.code != 0 || strings.Count(r.stdout, "spawn ok parent") != 4 || strings.Count(r.stdout, "spawn ok child") != 4 {
		t.Fatalf("spawn across 2 namespace hosts: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
