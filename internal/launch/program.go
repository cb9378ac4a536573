package launch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
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
	dir := CacheDir()
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
	pruneCache(dir, out)
	return out, nil
}

// CacheKeep is how many built programs the cache keeps: one is kept per package and
// directory it was built from, so without a bound it would only grow.
const CacheKeep = 64

// CacheDir is where mpigo run keeps the Go programs it builds.
func CacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "mpigo", "bin")
}

type cached struct {
	path string
	mod  time.Time
	size int64
}

func cacheEntries(dir string) ([]cached, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []cached
	for _, e := range ents {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			out = append(out, cached{filepath.Join(dir, e.Name()), info.ModTime(), info.Size()})
		}
	}
	return out, nil
}

// pruneCache removes all but the CacheKeep most recently built programs (never keep,
// the one about to run). A program another job runs at that moment keeps running:
// removing a file leaves its open copies alone.
func pruneCache(dir, keep string) {
	ents, err := cacheEntries(dir)
	if err != nil || len(ents) <= CacheKeep {
		return
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].mod.After(ents[j].mod) })
	for _, e := range ents[CacheKeep:] {
		if e.path != keep {
			os.Remove(e.path)
		}
	}
}

// CacheUsage returns how many programs the cache holds and their bytes.
func CacheUsage() (n int, size int64, err error) {
	ents, err := cacheEntries(CacheDir())
	for _, e := range ents {
		size += e.size
	}
	return len(ents), size, err
}

// CleanCache removes every program from the cache and returns how many there were.
func CleanCache() (int, error) {
	ents, err := cacheEntries(CacheDir())
	if err != nil {
		return 0, err
	}
	for _, e := range ents {
		if err := os.Remove(e.path); err != nil && !os.IsNotExist(err) {
			return 0, err
		}
	}
	return len(ents), nil
}
