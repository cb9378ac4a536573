package mpitest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Module is the import path of the module whose commands Mpigo and Build build.
const Module = "github.com/mpigo/mpigo"

// builds are the programs the test binary built, in one directory Main removes.
var builds struct {
	sync.Mutex
	main  bool // Main runs the tests: it will remove dir
	dir   string
	progs map[string]*build
}

type build struct {
	once sync.Once
	path string
	err  error
}

// Main runs the package's tests, then removes what Build built and runs cleanups (for
// what else the tests made that outlives them); it does not return. A package whose
// tests build programs calls it from its TestMain:
//
//	func TestMain(m *testing.M) { mpitest.Main(m) }
func Main(m *testing.M, cleanups ...func()) {
	builds.Lock()
	builds.main = true
	builds.Unlock()
	code := m.Run()
	builds.Lock()
	if builds.dir != "" {
		os.RemoveAll(builds.dir)
	}
	builds.Unlock()
	for _, c := range cleanups {
		c()
	}
	os.Exit(code)
}

// Mpigo returns the path of the mpigo command built from this checkout, built once per
// test binary.
func Mpigo(t testing.TB) string {
	t.Helper()
	return Build(t, Module+"/cmd/mpigo")
}

// Build builds the main package pkg (an import path, or a directory relative to the
// test's) once per test binary and returns the program's path. Main removes it when
// the tests end; a test binary whose TestMain does not call Main fails t.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	builds.Lock()
	if !builds.main {
		builds.Unlock()
		t.Fatal("mpitest.Build: the package's TestMain must call mpitest.Main, which removes what was built")
	}
	if builds.progs == nil {
		builds.progs = map[string]*build{}
	}
	b := builds.progs[pkg]
	if b == nil {
		b = new(build)
		builds.progs[pkg] = b
	}
	n := len(builds.progs)
	builds.Unlock()
	b.once.Do(func() { b.path, b.err = goBuild(pkg, n) })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// goBuild builds pkg into the test binary's build directory, as its n-th program.
func goBuild(pkg string, n int) (string, error) {
	builds.Lock()
	if builds.dir == "" {
		dir, err := os.MkdirTemp("", "mpigo-test-build")
		if err != nil {
			builds.Unlock()
			return "", err
		}
		builds.dir = dir
	}
	dir := filepath.Join(builds.dir, fmt.Sprint(n))
	builds.Unlock()
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, filepath.Base(pkg))
	if out, err := exec.Command("go", "build", "-o", path, pkg).CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %v\n%s", pkg, err, out)
	}
	return path, nil
}

// Agent writes a launch agent standing in for ssh into a temporary directory of t's:
// it runs its command on this machine, as if on the host its first argument names,
// and records its pid (which exec keeps) in dir/agent-HOST.pid.
func Agent(t testing.TB) (agent, dir string) {
	t.Helper()
	dir = t.TempDir()
	agent = filepath.Join(dir, "fakessh")
	script := "#!/bin/sh\nhost=$1; shift\necho $$ > '" + dir + "'/agent-$host.pid\nexec \"$@\"\n"
	if err := os.WriteFile(agent, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return agent, dir
}
