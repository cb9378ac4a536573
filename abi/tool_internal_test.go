package abi

import (
	"bytes"
	"os"
	"path/filepath"
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
