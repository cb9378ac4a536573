package mpio

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "x")
	for _, c := range []struct {
		what   string
		path   string
		a      Amode
		create bool
		want   error
	}{
		{"a missing file", name, Rdonly, false, ErrNoSuchFile},
		{"a missing directory", filepath.Join(dir, "no", "x"), Rdwr | Create, true, ErrNoSuchFile},
		{"a directory", dir, Rdonly, false, ErrBadFile},
		{"a path through a file", filepath.Join(dir, "f", "x"), Rdwr | Create, true, ErrBadFile},
	} {
		if c.path == filepath.Join(dir, "f", "x") {
			os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
		}
		_, err := Open(c.path, c.a, c.create, 0o644)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.what, err, c.want)
		}
	}
	f, err := Open(name, Rdwr|Create|Excl, true, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Open(name, Rdwr|Create|Excl, true, 0o600); !errors.Is(err, ErrExists) {
		t.Errorf("Excl of a file that exists: %v, want ErrExists", err)
	}
	if st, _ := os.Stat(name); st.Mode().Perm() != 0o600 {
		t.Errorf("created with %v, want 0600", st.Mode().Perm())
	}
	if err := Delete(filepath.Join(dir, "none")); !errors.Is(err, ErrNoSuchFile) {
		t.Errorf("Delete of a missing file: %v, want ErrNoSuchFile", err)
	}
}

func TestSizeAllocateLock(t *testing.T) {
	f := openTemp(t)
	if err := f.Truncate(1000); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.Size(); n != 1000 {
		t.Errorf("Truncate(1000): size %d", n)
	}
	if err := f.Allocate(500); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.Size(); n != 1000 {
		t.Errorf("Allocate(500) of 1000 bytes: size %d, want 1000 still", n)
	}
	if err := f.Allocate(5000); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.Size(); n != 5000 {
		t.Errorf("Allocate(5000): size %d", n)
	}
	if err := f.Lock(0, 100, true); err != nil {
		t.Fatal(err)
	}
	if err := f.Unlock(0, 100); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if f.BlockSize() <= 0 {
		t.Errorf("BlockSize %d", f.BlockSize())
	}
}
