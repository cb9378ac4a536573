package launch

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestParseHostsAndHostfile(t *testing.T) {
	hs, err := ParseHosts("a,b:4,a:2")
	if err != nil || fmt.Sprint(hs) != "[{a 3} {b 4}]" {
		t.Errorf("ParseHosts = %v, %v", hs, err)
	}
	for _, bad := range []string{"", "a:0", "a:x", ","} {
		if _, err := ParseHosts(bad); err == nil {
			t.Errorf("ParseHosts(%q) accepted", bad)
		}
	}
	p := filepath.Join(t.TempDir(), "hosts")
	os.WriteFile(p, []byte("# cluster\nnode1 slots=2\nnode2 slots=3 max_slots=8\n\nnode3  # one slot\n"), 0o644)
	hs, err = ReadHostfile(p)
	if err != nil || fmt.Sprint(hs) != "[{node1 2} {node2 3} {node3 1}]" {
		t.Errorf("ReadHostfile = %v, %v", hs, err)
	}
	os.WriteFile(p, []byte("node1 slots=two\n"), 0o644)
	if _, err := ReadHostfile(p); err == nil || err.Error() != p+":1: slots=two must be a positive whole number" {
		t.Errorf("bad hostfile: %v", err)
	}
}

func TestMap(t *testing.T) {
	hosts := []Host{{"a", 2}, {"b", 3}}
	cases := []struct {
		n    int
		m    Mapping
		want string
		bad  bool
	}{
		{5, Mapping{}, "[0 0 1 1 1]", false},
		{3, Mapping{}, "[0 0 1]", false},
		{5, Mapping{ByNode: true}, "[0 1 0 1 1]", false},
		{4, Mapping{PerNode: 2}, "[0 0 1 1]", false},
		{6, Mapping{}, "", true},
		{7, Mapping{Oversubscribe: true}, "[0 0 1 1 1 0 1]", false},
		{7, Mapping{ByNode: true, Oversubscribe: true}, "[0 1 0 1 1 0 1]", false},
	}
	for _, c := range cases {
		got, err := Map(c.n, hosts, c.m)
		if c.bad != (err != nil) || !c.bad && fmt.Sprint(got) != c.want {
			t.Errorf("Map(%d, %+v) = %v, %v; want %s", c.n, c.m, got, err, c.want)
		}
	}
}
