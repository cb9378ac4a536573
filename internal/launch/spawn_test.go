package launch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The soft key's counts: the largest allowed that fits, or an error naming the key.
func TestSoftCount(t *testing.T) {
	cases := []struct {
		soft           string
		maxprocs, free int
		want           int // -1: an error
	}{
		{"1:4,8", 8, 100, 8},
		{"1:4,8", 8, 6, 4},
		{"1:4,8", 3, 100, 3},
		{"2:8:2", 8, 7, 6},
		{"8:2:-3", 8, 7, 5},
		{"8:2:-3", 8, 1, 2}, // none fits in 1 free slot: the smallest allowed
		{"1:4", 4, 0, 1},    // a pool spawning again before its old workers exited
		{"0:1", 1, 0, 1},    // mpi4py's test_init_kwargs: not 0, which starts nothing
		{"9:12", 8, 100, -1},
		{"0,4", 4, 2, 4}, // 0 fits but starts nothing: the smallest count above it
		{"5", 4, 10, -1},
		{"-3:2", 4, 10, 2},
		{"0:2000000000", 16, 1 << 30, 16},
		{"1:x", 4, 4, -1},
		{"1:2:3:4", 4, 4, -1},
		{"4:1", 4, 4, -1},
		{"1:4:0", 4, 4, -1},
	}
	for _, c := range cases {
		got, err := softCount(c.soft, c.maxprocs, c.free)
		if c.want < 0 {
			if err == nil || !strings.Contains(err.Error(), "soft") {
				t.Errorf("softCount(%q, %d, %d) = %d, %v; want an error naming soft", c.soft, c.maxprocs, c.free, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("softCount(%q, %d, %d) = %d, %v; want %d", c.soft, c.maxprocs, c.free, got, err, c.want)
		}
	}
}

// A spawned program is found from wdir, in the path key's directories, then PATH; a
// missing or unexecutable one is an error naming it.
func TestResolveSpawned(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "bin", "tool")
	os.MkdirAll(filepath.Dir(prog), 0o755)
	os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "data"), nil, 0o644)
	for _, c := range []struct{ prog, dir, path, want, err string }{
		{"tool", "", filepath.Join(dir, "bin"), prog, ""},
		{"tool", dir, "bin", prog, ""},
		{"./bin/tool", dir, "", prog, ""},
		{prog, "", "", prog, ""},
		{"sh", "", "", "/sh", ""},
		{"no-such-tool-mpigo", "", dir, "", "not found in the path info key's directories"},
		{"./data", dir, "", "", "not executable"},
		{"./bin", dir, "", "", "is a directory"},
		{"", "", "", "", "no program"},
	} {
		got, err := resolveSpawned(c.prog, c.dir, c.path)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("resolveSpawned(%q, %q, %q) = %q, %v; want an error saying %q", c.prog, c.dir, c.path, got, err, c.err)
			}
			continue
		}
		if err != nil || !strings.HasSuffix(got, c.want) {
			t.Errorf("resolveSpawned(%q, %q, %q) = %q, %v; want %q", c.prog, c.dir, c.path, got, err, c.want)
		}
	}
}

// The file key adds KEY=VALUE lines the info does not give itself.
func TestReadInfoFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "info")
	os.WriteFile(f, []byte("# more info\nwdir = /tmp\n\nsoft=1:2\nfile=/nested\n"), 0o644)
	info := map[string]string{"soft": "4"}
	if err := readInfoFile(f, info); err != nil {
		t.Fatal(err)
	}
	if info["wdir"] != "/tmp" || info["soft"] != "4" || info["file"] != "" {
		t.Errorf("info after the file: %v", info)
	}
	os.WriteFile(f, []byte("wdir\n"), 0o644)
	if err := readInfoFile(f, map[string]string{}); err == nil || !strings.Contains(err.Error(), ":1:") {
		t.Errorf("a line without '=' gave %v", err)
	}
	if err := readInfoFile(f+"-missing", map[string]string{}); err == nil || !strings.Contains(err.Error(), "file info key") {
		t.Errorf("a missing file gave %v", err)
	}
}
