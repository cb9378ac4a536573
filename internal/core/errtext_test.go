package core

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// userText drops the parts of a cause that name an internal package or the call
// again, and nothing else.
func TestUserText(t *testing.T) {
	cases := []struct{ op, in, want string }{
		{"Recv", "p2p: message truncated: 128-byte message, 64-byte receive buffer", "message truncated: 128-byte message, 64-byte receive buffer"},
		{"Bsend", "p2p: Bsend: p2p: attached buffer too small: 4096-byte message", "attached buffer too small: 4096-byte message"},
		{"GroupIncl", "group: Incl: ranks[1] = 5 out of range [0,2)", "ranks[1] = 5 out of range [0,2)"},
		{"Send", "shm: rank 1 exited: transport: peer gone", "rank 1 exited: peer gone"},
		{"Send", "a reason: with a colon: kept", "a reason: with a colon: kept"},
		{"Send", "no colon at all", "no colon at all"},
		{"Send", "Send", "Send"},
		{"Split", "coll: Split: Split: colour 3", "colour 3"},
		{"Bcast", "p2p: message truncated: Tags: 5", "message truncated: Tags: 5"},
	}
	for _, c := range cases {
		if got := userText(c.op, c.in); got != c.want {
			t.Errorf("userText(%q, %q) = %q, want %q", c.op, c.in, got, c.want)
		}
	}
}

// internalPkgs names every package under internal/ (the packages' own names, which
// their errors begin with).
func TestInternalPkgsComplete(t *testing.T) {
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == ".." || strings.Contains(p, "testdata") {
			return err
		}
		if matches, _ := filepath.Glob(filepath.Join(p, "*.go")); len(matches) > 0 && !internalPkgs[d.Name()] {
			t.Errorf("internal package %s (%s) is not in internalPkgs", d.Name(), p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
