package launch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Resolve turns what the user typed into an executable path. A name without a slash is
// looked up in PATH (mpigo run -n 2 hostname); an executable file is run as it is; a
// directory of Go files, or a Go package path, is built once into mpigo's cache and the
// binary run from there (Go's build cache keeps rebuilding an unchanged package cheap).
func Resolve(prog string) (string, error) {
	if prog == "" {
		return "", fmt.Errorf("no program given")
	}
	if st, err := os.Stat(prog); err == nil && st.Mode().IsRegular() {
		if st.Mode()&0o111 == 0 {
			return "", fmt.Errorf("program %q is not executable", prog)
		}
		return filepath.Abs(prog)
	} else if err == nil && st.IsDir() {
		return build(prog)
	}
	if !strings.Contains(prog, "/") {
		p, err := exec.LookPath(prog)
		if err != nil {
			return "", fmt.Errorf("program %q not found in PATH", prog)
		}
		return p, nil
	}
	if strings.HasPrefix(prog, ".") || strings.HasPrefix(prog, "/") {
		return "", fmt.Errorf("program %q: no such file or directory", prog)
	}
	return build(prog) // an import path
}

// build compiles a Go main package into the cache and returns the binary's path.
func build(pkg string) (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("%q is a Go package, but the go command is not in PATH to build it", pkg)
	}
	key, arg := pkg, pkg // an import path
	if st, err := os.Stat(pkg); err == nil && st.IsDir() {
		key, _ = filepath.Abs(pkg)
		arg = key // a directory: build it, not an import path of the same name
	}
	wd, _ := os.Getwd()
	sum := sha256.Sum256([]byte(key + "\x00" + wd))
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "mpigo", "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	out := filepath.Join(dir, filepath.Base(filepath.Clean(pkg))+"-"+hex.EncodeToString(sum[:8]))
	tmp := out + ".tmp" + fmt.Sprint(os.Getpid())
	cmd := exec.Command(goTool, "build", "-o", tmp, arg)
	cmd.Stderr = os.Stderr
	cmd.Stdout = os.Stderr
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("building Go package %q failed: %v", pkg, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return "", err
	}
	return out, nil
}
