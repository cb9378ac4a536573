package abi_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mpigo/mpigo/abi"
)

// install lays out the ABI under a new prefix with `mpigo abi install`.
func install(t *testing.T, mpigo string) string {
	t.Helper()
	prefix := t.TempDir()
	if out, errs, err := run(t, 5*time.Minute, mpigo, "abi", "install", "--prefix", prefix); err != nil {
		t.Fatalf("mpigo abi install: %v\n%s%s", err, out, errs)
	}
	return prefix
}

// wrapperRun runs argv in dir with env added, bounded: a wrapper that called itself
// would pile up arguments until killed. Everything it started goes with it.
func wrapperRun(t *testing.T, dir string, env []string, argv ...string) (code int, out string) {
	t.Helper()
	code, out, err := runBounded(2*time.Minute, dir, env, argv...)
	if err != nil {
		t.Fatalf("%v (env %v): %v\n%.2000s", argv, env, err, out)
	}
	return code, out
}

// runBounded runs argv in dir with env added for at most d, killing everything it
// started after that, and returns its exit code and output; err says why it has
// none. Unlike wrapperRun it may run on any goroutine.
func runBounded(d time.Duration, dir string, env []string, argv ...string) (code int, out string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return -1, b.String(), fmt.Errorf("did not end in %v: a wrapper calling itself?", d)
	case err != nil && cmd.ProcessState == nil:
		return -1, b.String(), err
	}
	return cmd.ProcessState.ExitCode(), b.String(), nil
}

const wrapC = `#include <mpi.h>
#include <stdio.h>
int twice_size(void);
int main(int argc, char **argv) {
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	printf("rank %d twice the size %d\n", rank, twice_size());
	MPI_Finalize();
	return 0;
}
`

const wrapCXX = `#include <mpi.h>
#include <vector>
extern "C" int twice_size(void) {
	int n;
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	std::vector<int> v(n, 2);
	int s = 0;
	for (int x : v) s += x;
	return s;
}
`

// TestWrappersMakeCC: a build that names the installed wrappers by CC and CXX, as
// `make CC=mpicc CXX=mpicxx` does (make puts them in every command's environment),
// of a program in C and C++, builds it, and it runs; the wrappers never take $CC or
// $CXX for the real compiler, so they never call themselves. `CC="mpigo cc" mpigo
// cc -c` compiles too.
func TestWrappersMakeCC(t *testing.T) {
	mpigo := setup(t)
	if _, err := exec.LookPath("c++"); err != nil {
		t.Skip("no C++ compiler (c++) in PATH: apt-get install g++")
	}
	prefix := install(t, mpigo)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.c"), []byte(wrapC), 0o644)
	os.WriteFile(filepath.Join(dir, "size.cc"), []byte(wrapCXX), 0o644)
	mpicc, mpicxx := filepath.Join(prefix, "bin", "mpicc"), filepath.Join(prefix, "bin", "mpicxx")
	env := []string{"CC=" + mpicc, "CXX=" + mpicxx}
	argv := []string{"sh", "-c", `$CC -O2 -c main.c && $CXX -O2 -c size.cc && $CXX -o prog main.o size.o`}
	if _, err := exec.LookPath("make"); err == nil {
		os.WriteFile(filepath.Join(dir, "Makefile"), []byte("prog: main.o size.o\n\t$(CXX) -o $@ main.o size.o\n"), 0o644)
		argv = []string{"make", "CC=" + mpicc, "CXX=" + mpicxx}
	}
	if code, out := wrapperRun(t, dir, env, argv...); code != 0 {
		t.Fatalf("%v with %v: exit %d\n%s", argv, env, code, out)
	}
	out, errs, err := run(t, time.Minute, filepath.Join(prefix, "bin", "mpiexec"), "-n", "2", filepath.Join(dir, "prog"))
	if err != nil || !strings.Contains(out, "rank 0 twice the size 4") || !strings.Contains(out, "rank 1 twice the size 4") {
		t.Fatalf("the program built: %v\n%s%s", err, out, errs)
	}

	os.Remove(filepath.Join(dir, "main.o"))
	if code, out := wrapperRun(t, dir, []string{"CC=" + mpigo + " cc"}, mpigo, "cc", "-c", "main.c"); code != 0 {
		t.Fatalf(`CC="mpigo cc" mpigo cc -c main.c: exit %d\n%s`, code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "main.o")); err != nil {
		t.Errorf(`CC="mpigo cc" mpigo cc -c main.c made no main.o: %v`, err)
	}
}

// TestWrapperBuildsLibraryUnderCC: `CC="mpigo cc" mpigo cc -c` where the library is
// not yet built (a new cache) builds it and compiles. The library's go build runs
// cgo with $CC, which named the wrapper: each wrapper built the library again, by a
// wrapper, without end. Three such compilations at once, as make -j starts them,
// build the library once, and each compiles.
func TestWrapperBuildsLibraryUnderCC(t *testing.T) {
	mpigo := setup(t)
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOCACHE: %v", err)
	}
	env := []string{"CC=" + mpigo + " cc", "XDG_CACHE_HOME=" + t.TempDir(), "GOCACHE=" + strings.TrimSpace(string(gocache))}
	const n = 3
	dirs := make([]string, n)
	codes, outs := make([]int, n), make([]string, n)
	for i := range dirs {
		dirs[i] = t.TempDir()
		os.WriteFile(filepath.Join(dirs[i], "main.c"), []byte(wrapC), 0o644)
	}
	var wg sync.WaitGroup
	for i := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			codes[i], outs[i], err = runBounded(3*time.Minute, dirs[i], env, mpigo, "cc", "-c", "main.c")
			if err != nil {
				outs[i] += err.Error()
			}
		}()
	}
	wg.Wait()
	builds := 0
	for i, dir := range dirs {
		builds += strings.Count(outs[i], "building "+abi.LibName)
		if codes[i] != 0 {
			t.Errorf(`CC="mpigo cc" mpigo cc -c main.c, the library not built: exit %d\n%s`, codes[i], outs[i])
		} else if _, err := os.Stat(filepath.Join(dir, "main.o")); err != nil {
			t.Errorf(`CC="mpigo cc" mpigo cc -c main.c made no main.o: %v`, err)
		}
	}
	if builds != 1 {
		t.Errorf("%d compilations at once built the library %d times, want once:\n%s", n, builds, strings.Join(outs, "\n"))
	}
}

// TestWrappersRefuseThemselves: MPIGO_CC or MPIGO_CXX naming a wrapper (an installed
// one, a link to it, mpigo itself, or one reached through another program) is
// refused at once with a message that says so and names the variable, and nothing
// is compiled.
func TestWrappersRefuseThemselves(t *testing.T) {
	mpigo := setup(t)
	prefix := install(t, mpigo)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.c"), []byte(wrapC), 0o644)
	mpicc, mpicxx := filepath.Join(prefix, "bin", "mpicc"), filepath.Join(prefix, "bin", "mpicxx")
	link := filepath.Join(dir, "gcc")
	if err := os.Symlink(mpicc, link); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		env  string
		argv []string
		msg  string
	}{
		{"MPIGO_CC=" + mpicc, []string{mpicc, "-c", "main.c"}, "would call itself: set MPIGO_CC"},
		{"MPIGO_CC=" + link, []string{mpicc, "-c", "main.c"}, "(" + mpicc + "), an mpigo compiler wrapper"},
		{"MPIGO_CXX=" + mpicc, []string{mpicxx, "-c", "main.c"}, "would call itself: set MPIGO_CXX"},
		{"MPIGO_CC=" + mpigo + " cc", []string{mpigo, "cc", "-c", "main.c"}, "would call itself"},
		{"MPIGO_CC=" + mpigo + " cxx", []string{mpicc, "-c", "main.c"}, "would call itself"},
		{"MPIGO_CC=env " + mpicc, []string{mpicc, "-c", "main.c"}, "started by the compiler that mpicc (MPIGO_CC=env "},
	}
	for _, c := range cases {
		code, out := wrapperRun(t, dir, []string{c.env}, c.argv...)
		if code == 0 || !strings.Contains(out, c.msg) || strings.Count(out, "\n") != 1 {
			t.Errorf("%s %v: exit %d, output %q; want an error, one line, with %q", c.env, c.argv, code, out, c.msg)
		}
		if _, err := os.Stat(filepath.Join(dir, "main.o")); err == nil {
			t.Errorf("%s %v compiled main.c", c.env, c.argv)
			os.Remove(filepath.Join(dir, "main.o"))
		}
	}
}

// TestWrapperShowForms: -show, -compile_info and -link_info print the command line
// (the compiler, then flags), -show-compile-info and -show-link-info (Open MPI's
// -showme:compile and -showme:link) the flags alone, as MPICH's wrappers print them;
// MPICH's own mpicc, where installed, is held to the same forms.
func TestWrapperShowForms(t *testing.T) {
	mpigo := setup(t)
	prefix := install(t, mpigo)
	t.Setenv("MPIGO_CC", "gcc")
	t.Setenv("MPIGO_CXX", "g++")
	inc, lib := `-I\S+`, `-L\S+\s.*-lmpi\w*$`
	forms := []struct {
		args []string
		want string // a regular expression over the one line printed
	}{
		{[]string{"-show"}, `^gcc\s.*` + inc + `.*\s` + lib},
		{[]string{"-compile_info"}, `^gcc\s.*` + inc + `.*\s` + lib},
		{[]string{"-link_info"}, `^gcc\s.*` + inc + `.*\s` + lib},
		{[]string{"-show", "-c", "x.c"}, `^gcc\s.*-c x\.c.*$`},
		{[]string{"-show-compile-info"}, `^(-\S+\s)*` + inc + `(\s-\S+)*$`},
		{[]string{"-show-link-info"}, `^(-\S+\s)*` + lib},
	}
	wrappers := map[string][]string{
		"mpigo cc": {mpigo, "cc"},
		"mpicc":    {filepath.Join(prefix, "bin", "mpicc")},
	}
	if p, err := exec.LookPath("mpicc.mpich"); err == nil {
		wrappers["MPICH's mpicc"] = []string{p}
	}
	for name, argv := range wrappers {
		for _, f := range forms {
			code, out := wrapperRun(t, t.TempDir(), nil, append(argv, f.args...)...)
			line := strings.TrimSuffix(out, "\n")
			if code != 0 || strings.Contains(line, "\n") || !regexp.MustCompile(f.want).MatchString(line) {
				t.Errorf("%s %v: exit %d, printed %q; want one line matching %s", name, f.args, code, out, f.want)
			}
			if strings.Contains(f.args[0], "-info") && strings.Contains(line, "-c x.c") {
				t.Errorf("%s %v printed the arguments it was not given", name, f.args)
			}
		}
		if code, out := wrapperRun(t, t.TempDir(), nil, append(argv, "-show", "-c", "x.c")...); code != 0 || strings.Contains(out, "-lmpi") {
			t.Errorf("%s -show -c x.c: exit %d, %q: compiling only must not link", name, code, out)
		}
	}
	// Open MPI's names for the same, and the C++ wrapper's compiler.
	mpicxx := filepath.Join(prefix, "bin", "mpicxx")
	same := [][2][]string{
		{{mpicxx, "-showme:compile"}, {mpicxx, "-show-compile-info"}},
		{{mpicxx, "-showme:link"}, {mpicxx, "-show-link-info"}},
	}
	for _, s := range same {
		_, a := wrapperRun(t, t.TempDir(), nil, s[0]...)
		_, b := wrapperRun(t, t.TempDir(), nil, s[1]...)
		if a != b || a == "" {
			t.Errorf("%v printed %q, %v %q: want the same", s[0], a, s[1], b)
		}
	}
	if _, out := wrapperRun(t, t.TempDir(), nil, mpicxx, "-showme:command"); out != "g++\n" {
		t.Errorf("mpicxx -showme:command with MPIGO_CXX=g++ printed %q", out)
	}
	if _, out := wrapperRun(t, t.TempDir(), []string{"CXX=" + mpicxx}, mpicxx, "-show", "-cxx=clang++", "y.cc"); !strings.HasPrefix(out, "clang++ ") {
		t.Errorf("mpicxx -show -cxx=clang++ printed %q; want clang++ as the compiler", out)
	}
}
