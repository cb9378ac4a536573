package launch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A name whose launcher is gone is stale: a lookup does not find it and removes it,
// and it does not stop a publish of the same name.
func TestNamesStale(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvNamesDir, dir)
	// A process that has ended: its pid names nobody (or someone else, whose start
	// time differs).
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := strconv.Itoa(cmd.Process.Pid) + "@1"
	n := newNames()
	path, err := n.path("gone")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, entry{"tcp://old", dead, "j0"}.encode(), 0o600)
	if _, err := n.lookup("gone"); err == nil || !strings.Contains(err.Error(), "no job has published") {
		t.Errorf("lookup of a stale name: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the stale file is still there: %v", err)
	}
	os.WriteFile(path, entry{"tcp://old", dead, "j0"}.encode(), 0o600)
	if err := n.publish("gone", "tcp://new", "j1"); err != nil {
		t.Errorf("publish over a stale name: %v", err)
	}
	if p, err := n.lookup("gone"); err != nil || p != "tcp://new" {
		t.Errorf("lookup = %q, %v", p, err)
	}
	n.removeAll()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		left, _ := filepath.Glob(filepath.Join(dir, "*"))
		t.Errorf("the directory is left after removeAll, with %v", left)
	}
	// Made again by the next publish.
	if err := n.publish("again", "p", "j"); err != nil {
		t.Errorf("publish after the directory was removed: %v", err)
	}
	n.removeAll()
}

// Bad names are refused with the rule they break; a service name of any bytes ('/'
// and '..' included) is a file of the directory.
func TestNamesBadInput(t *testing.T) {
	t.Setenv(EnvNamesDir, t.TempDir())
	n := newNames()
	for _, c := range []struct{ service, port, want string }{
		{"", "p", "the service name is empty"},
		{strings.Repeat("x", maxServiceLen+1), "p", "at most"},
		{"s", "", "the port name is empty"},
	} {
		if err := n.publish(c.service, c.port, "j"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("publish(%.20q, %q) = %v; want %q", c.service, c.port, err, c.want)
		}
	}
	for _, s := range []string{"../x", "a/b", ".."} {
		if err := n.publish(s, "p", "j"); err != nil {
			t.Errorf("publish(%q) = %v", s, err)
		}
		if p, err := n.lookup(s); err != nil || p != "p" {
			t.Errorf("lookup(%q) = %q, %v", s, p, err)
		}
	}
	n.removeAll()
	d := t.TempDir()
	os.Chmod(d, 0o777)
	t.Setenv(EnvNamesDir, d)
	if err := newNames().publish("s", "p", "j"); err == nil || !strings.Contains(err.Error(), "only it may write") {
		t.Errorf("a directory others may write was used: %v", err)
	}
}
