package abi

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// Module is the import path of the module whose source the library is built from.
const Module = "github.com/mpigo/mpigo"

// SourceVar names the environment variable that says where the module's source is.
const SourceVar = "MPIGO_SOURCE"

// LibName is the library's file name (its soname).
const LibName = "libmpi_abi.so.1"

// Source finds the module's source directory: $MPIGO_SOURCE; the directory this
// file was compiled from (a checkout, or the module cache for `go install
// github.com/mpigo/mpigo/cmd/mpigo@version` without -trimpath); the module cache entry
// of the running binary's version; the module `go list` sees from the current
// directory.
func Source() (string, error) {
	if d := os.Getenv(SourceVar); d != "" {
		if isModule(d) {
			return d, nil
		}
		return "", fmt.Errorf("%s=%s is not the source of %s (no go.mod naming it)", SourceVar, d, Module)
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		if d := filepath.Dir(filepath.Dir(file)); isModule(d) {
			return d, nil
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path == Module && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
			d := filepath.Join(strings.TrimSpace(string(out)), Module+"@"+bi.Main.Version)
			if isModule(d) {
				return d, nil
			}
		}
	}
	if out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", Module).Output(); err == nil {
		if d := strings.TrimSpace(string(out)); isModule(d) {
			return d, nil
		}
	}
	return "", fmt.Errorf("cannot find the source of %s to build %s: set %s to a checkout", Module, LibName, SourceVar)
}

func isModule(d string) bool {
	f, err := os.Open(filepath.Join(d, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "module ") {
			return strings.TrimSpace(strings.TrimPrefix(line, "module ")) == Module
		}
	}
	return false
}

// stamp identifies the library's sources as they are now: the source directory, the
// go version, and every Go, C and header file outside tests with its size and
// modification time. A library built from other sources is rebuilt.
func stamp(src string) (string, error) {
	h := sha256.New()
	fmt.Fprintln(h, src, runtime.Version())
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != src && (strings.HasPrefix(name, ".") || name == "testdata" || name == "docs" || name == "bench" || name == "examples") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, "_test.go") || !(strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".c") ||
			strings.HasSuffix(name, ".h") || name == "go.mod" || name == "go.sum") {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintln(h, p, info.Size(), info.ModTime().UnixNano())
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)[:8]), err
}

// CacheDir is where mpigo keeps what it builds for the C ABI.
func CacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "mpigo", "abi")
}

// Built reports where the library built from the current sources is, and whether it
// is there yet.
func Built() (dir string, ok bool, err error) {
	src, err := Source()
	if err != nil {
		return "", false, err
	}
	key, err := stamp(src)
	if err != nil {
		return "", false, err
	}
	dir = filepath.Join(CacheDir(), key)
	_, err = os.Stat(filepath.Join(dir, "lib", LibName))
	return dir, err == nil, nil
}

// Ensure builds the library into the cache if it is not there and returns the
// directory that holds include/mpi.h and lib/libmpi_abi.so.1 (with the libmpi_abi.so
// link the linker looks for).
func Ensure(log func(string)) (string, error) {
	dir, ok, err := Built()
	if err != nil {
		return "", err
	}
	if ok {
		return dir, nil
	}
	src, _ := Source()
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", errors.New("the go command is not in PATH: it is needed once, to build " + LibName)
	}
	lib := filepath.Join(dir, "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		return "", err
	}
	if err := writeHeader(filepath.Join(dir, "include"), headerOf(src)); err != nil {
		return "", err
	}
	if log != nil {
		log("mpigo: building " + LibName + " (once) into " + lib)
	}
	tmp := filepath.Join(lib, fmt.Sprintf(".%s.%d", LibName, os.Getpid()))
	cmd := exec.Command(goTool, "build", "-buildmode=c-shared", "-ldflags=-extldflags=-Wl,-soname,"+LibName, "-o", tmp, "./abi/libmpi")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		os.Remove(strings.TrimSuffix(tmp, ".1") + ".h")
		return "", fmt.Errorf("building %s failed (it needs a C compiler): %v", LibName, err)
	}
	os.Remove(strings.TrimSuffix(tmp, filepath.Ext(tmp)) + ".h") // cgo's header of the Go exports: not for users
	if err := os.Rename(tmp, filepath.Join(lib, LibName)); err != nil {
		return "", err
	}
	link := filepath.Join(lib, "libmpi_abi.so")
	os.Remove(link)
	if err := os.Symlink(LibName, link); err != nil && !os.IsExist(err) {
		return "", err
	}
	return dir, nil
}

// headerOf is the mpi.h of the source src the library is built from: the one that
// matches the library, which the running mpigo's embedded Header need not be (an
// mpigo older than a checkout MPIGO_SOURCE names would otherwise lay an old header
// beside a new library, in the cache directory keyed by the new sources).
func headerOf(src string) []byte {
	if h, err := os.ReadFile(filepath.Join(src, "abi", "include", "mpi.h")); err == nil {
		return h
	}
	return Header
}

func writeHeader(dir string, h []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "mpi.h"), h, 0o644)
}

// compileOnly reports whether args ask the compiler not to link.
func compileOnly(args []string) bool {
	for _, a := range args {
		switch a {
		case "-c", "-E", "-S", "-M", "-MM":
			return true
		}
	}
	return false
}

// Command is the compiler command line of `mpigo cc` (cxx: `mpigo cxx`) for args,
// against the library and header in dir: as mpicc, the compiler with the include
// directory first, then the user's arguments, then the library (unless only
// compiling).
func Command(dir string, cxx bool, args []string) []string {
	cc := firstEnv("MPIGO_CC", "CC", "cc")
	if cxx {
		cc = firstEnv("MPIGO_CXX", "CXX", "c++")
	}
	cmd := append(strings.Fields(cc), "-I"+filepath.Join(dir, "include"))
	cmd = append(cmd, args...)
	if !compileOnly(args) {
		lib := filepath.Join(dir, "lib")
		cmd = append(cmd, "-L"+lib, "-Wl,-rpath,"+lib, "-lmpi_abi")
	}
	return cmd
}

func firstEnv(names ...string) string {
	for _, n := range names[:len(names)-1] {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return names[len(names)-1]
}

const ccUsage = `usage: mpigo cc [-show] [compiler arguments...]
       mpigo cxx [-show] [compiler arguments...]

Compile and link a C (cc) or C++ (cxx) MPI program against mpigo's implementation of
the MPI 5.0 standard ABI: mpi.h and libmpi_abi.so.1, which is built once (with go and
a C compiler) into %s. The arguments are the compiler's, as for mpicc:

  mpigo cc -O2 -o ring ring.c
  mpigo run -n 4 ./ring

  -show    print the compiler command line instead of running it
           (-showme, -compile-info and -link-info work as with other MPIs)

The compiler is $MPIGO_CC, else $CC, else cc ($MPIGO_CXX, $CXX, c++ for cxx). The
source of the library is found next to mpigo or in the module cache; set %s
to a checkout of %s to use another.
`

// CC runs `mpigo cc` (cxx: `mpigo cxx`) and returns the exit code.
func CC(args []string, cxx bool) int {
	show := false
	var rest []string
	for _, a := range args {
		switch a {
		case "-show", "--show", "-showme", "--showme", "-compile-info", "-link-info":
			show = true
		case "-h", "-help", "--help":
			fmt.Printf(ccUsage, CacheDir(), SourceVar, Module)
			return 0
		default:
			rest = append(rest, a)
		}
	}
	var dir string
	var err error
	if show {
		dir, _, err = Built() // -show only says; it does not build
	} else {
		dir, err = Ensure(func(s string) { fmt.Fprintln(os.Stderr, s) })
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mpigo cc:", err)
		return 1
	}
	cmd := Command(dir, cxx, rest)
	if show {
		fmt.Println(strings.Join(cmd, " "))
		return 0
	}
	c := exec.Command(cmd[0], cmd[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := c.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		fmt.Fprintln(os.Stderr, "mpigo cc:", err)
		return 1
	}
	return 0
}

// Install lays the C ABI out under prefix as MPI installations are laid out, so that
// CMake's FindMPI, autotools and Meson find it: include/mpi.h, lib/libmpi_abi.so.1
// with the links libmpi_abi.so and libmpi.so, and bin/mpicc, bin/mpicxx (compiler
// wrappers that understand -show) and bin/mpiexec (mpigo run).
func Install(prefix, mpigo string) error {
	dir, err := Ensure(func(s string) { fmt.Fprintln(os.Stderr, s) })
	if err != nil {
		return err
	}
	inc, lib, bin := filepath.Join(prefix, "include"), filepath.Join(prefix, "lib"), filepath.Join(prefix, "bin")
	for _, d := range []string{inc, lib, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	h, err := os.ReadFile(filepath.Join(dir, "include", "mpi.h")) // the library's own
	if err != nil {
		h = Header
	}
	if err := writeHeader(inc, h); err != nil {
		return err
	}
	so, err := os.ReadFile(filepath.Join(dir, "lib", LibName))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(lib, LibName), so, 0o755); err != nil {
		return err
	}
	for _, l := range []string{"libmpi_abi.so", "libmpi.so"} {
		os.Remove(filepath.Join(lib, l))
		if err := os.Symlink(LibName, filepath.Join(lib, l)); err != nil {
			return err
		}
	}
	abs, _ := filepath.Abs(prefix)
	for name, cc := range map[string]string{"mpicc": "${MPIGO_CC:-${CC:-cc}}", "mpicxx": "${MPIGO_CXX:-${CXX:-c++}}"} {
		script := fmt.Sprintf(`#!/bin/sh
# %s: compile and link against mpigo's MPI standard ABI (written by mpigo abi install).
prefix=%q
cc="%s"
link="-L$prefix/lib -Wl,-rpath,$prefix/lib -lmpi_abi"
show=
for a in "$@"; do
  case "$a" in
    -c|-E|-S|-M|-MM) link= ;;
  esac
done
case "$1" in
  -show|-showme|--showme) shift; echo "$cc -I$prefix/include $* $link"; exit 0 ;;
  -compile-info|-showme:compile) echo "$cc -I$prefix/include"; exit 0 ;;
  -link-info|-showme:link) echo "$cc -L$prefix/lib -Wl,-rpath,$prefix/lib -lmpi_abi"; exit 0 ;;
esac
exec $cc -I"$prefix/include" "$@" $link
`, name, abs, cc)
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			return err
		}
	}
	exe := fmt.Sprintf("#!/bin/sh\n# mpiexec: mpigo run (written by mpigo abi install).\nexec %q run \"$@\"\n", mpigo)
	return os.WriteFile(filepath.Join(bin, "mpiexec"), []byte(exe), 0o755)
}
