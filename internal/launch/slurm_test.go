package launch

import (
	"fmt"
	"testing"
)

func TestExpandHostlist(t *testing.T) {
	cases := map[string]string{
		"node1":                 "[node1]",
		"node[01-03,07],login1": "[node01 node02 node03 node07 login1]",
		"a[1-2]b[3-4]":          "[a1b3 a1b4 a2b3 a2b4]",
		"rack[8-10]":            "[rack8 rack9 rack10]",
		"x[009-011],y":          "[x009 x010 x011 y]",
		"c[1,3],d[2-3],e":       "[c1 c3 d2 d3 e]",
	}
	for in, want := range cases {
		got, err := ExpandHostlist(in)
		if err != nil || fmt.Sprint(got) != want {
			t.Errorf("ExpandHostlist(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"n[1-", "n[3-1]", "n[a-b]", "a,,b"} {
		if _, err := ExpandHostlist(bad); err == nil {
			t.Errorf("ExpandHostlist(%q) accepted", bad)
		}
	}
}

func TestExpandTasksPerNode(t *testing.T) {
	got, err := ExpandTasksPerNode("2(x3),1,4(x1)")
	if err != nil || fmt.Sprint(got) != "[2 2 2 1 4]" {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"x", "2(x0)", "-1", "2(x"} {
		if _, err := ExpandTasksPerNode(bad); err == nil {
			t.Errorf("ExpandTasksPerNode(%q) accepted", bad)
		}
	}
}

func TestSlurmHostsFromEnvironment(t *testing.T) {
	t.Setenv("SLURM_JOB_ID", "42")
	t.Setenv("SLURM_JOB_NODELIST", "cn[1-2]")
	t.Setenv("SLURM_TASKS_PER_NODE", "3(x2)")
	hosts, agent, ok, err := SlurmHosts()
	if err != nil || !ok || fmt.Sprint(hosts) != "[{cn1 3} {cn2 3}]" || agent[0] != "srun" {
		t.Errorf("SlurmHosts = %v %v %v %v", hosts, agent, ok, err)
	}
	t.Setenv("SLURM_JOB_ID", "")
	if _, _, ok, _ := SlurmHosts(); ok {
		t.Error("outside an allocation, SlurmHosts said ok")
	}
}
