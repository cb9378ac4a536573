package deps

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoBuildOutputsTracked fails when git tracks a build output: a file in an object
// format (ELF, Mach-O, PE, an ar archive) or an executable that is not a script. A
// `go build` without -o writes its command into the current directory, where
// `git add -A` picks it up; .gitignore names those, and this test catches the rest.
func TestNoBuildOutputsTracked(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not a git checkout (a module cache's copy): nothing is tracked")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git in PATH")
	}
	cmd := exec.Command("git", "ls-files", "--stage", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	n := 0
	for _, entry := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		meta, path, ok := strings.Cut(entry, "\t")
		if !ok {
			t.Fatalf("git ls-files gave %q", entry)
		}
		mode := strings.Fields(meta)[0]
		if mode == "160000" || mode == "120000" { // a submodule, a symbolic link
			continue
		}
		head := make([]byte, 512)
		f, err := os.Open(filepath.Join(root, path))
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			t.Fatal(err)
		}
		k, _ := f.Read(head)
		f.Close()
		n++
		if kind := objectFormat(head[:k]); kind != "" {
			t.Errorf("git tracks %s, an %s file: a build output; git rm it (and add it to .gitignore if a build writes it there)", path, kind)
		} else if mode == "100755" && !bytes.HasPrefix(head, []byte("#!")) {
			t.Errorf("git tracks %s as executable, and it is no script (no #!): git rm it, or git update-index --chmod=-x if it is a source", path)
		}
	}
	if n < 100 {
		t.Fatalf("git ls-files listed only %d files", n)
	}
}

// objectFormat names the object format head starts with, or returns "".
func objectFormat(head []byte) string {
	for _, m := range []struct{ magic, kind string }{
		{"\x7fELF", "ELF"},
		{"\xfe\xed\xfa\xce", "Mach-O"}, {"\xfe\xed\xfa\xcf", "Mach-O"},
		{"\xce\xfa\xed\xfe", "Mach-O"}, {"\xcf\xfa\xed\xfe", "Mach-O"},
		{"!<arch>\n", "ar archive"},
		{"go object ", "Go object"},
	} {
		if bytes.HasPrefix(head, []byte(m.magic)) {
			return m.kind
		}
	}
	if len(head) >= 64 && bytes.HasPrefix(head, []byte("MZ")) {
		if off := int(head[60]) | int(head[61])<<8; off+4 <= len(head) && string(head[off:off+4]) == "PE\x00\x00" {
			return "PE"
		}
	}
	return ""
}

// TestObjectFormat checks the recognition of object files on the test binary itself
// and on a text file.
func TestObjectFormat(t *testing.T) {
	self, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		t.Skip("no /proc/self/exe")
	}
	if got := objectFormat(self[:512]); got != "ELF" {
		t.Errorf("objectFormat(the test binary) = %q, want ELF", got)
	}
	src, err := os.ReadFile("tracked_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if got := objectFormat(src); got != "" {
		t.Errorf("objectFormat(a Go source) = %q", got)
	}
}
