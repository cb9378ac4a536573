package abi

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The header laid beside a library is the one of the sources it is built from, not
// the running mpigo's embedded copy, which may be older.
func TestHeaderOfSource(t *testing.T) {
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "abi", "include"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := []byte("/* the source's mpi.h */\n")
	if err := os.WriteFile(filepath.Join(src, "abi", "include", "mpi.h"), want, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := headerOf(src); !bytes.Equal(got, want) {
		t.Errorf("headerOf(source with its own mpi.h) = %q, want %q", got, want)
	}
	if got := headerOf(t.TempDir()); !bytes.Equal(got, Header) {
		t.Errorf("headerOf(source without mpi.h) is not the embedded Header")
	}
}

// The library's GODEBUG default (libGodebug, given to the linker) replaces the one
// the go command would give it: that one must be empty, or libGodebug must carry it.
func TestLibGodebugAlone(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.DefaultGODEBUG}}", "./libmpi").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if d := strings.TrimSpace(string(out)); d != "" {
		t.Fatalf("package libmpi's default GODEBUG is %q: libGodebug (%q) would drop it", d, libGodebug)
	}
}
