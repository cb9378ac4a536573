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

	"golang.org/x/sys/unix"
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
	// Builds started at once (make -j's first compilations) build it once: the
	// others wait for the lock, then find it built.
	unlock, err := lockDir(dir)
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, ok, err = Built(); err != nil || ok {
		return dir, err
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
	cmd := exec.Command(goTool, "build", "-buildmode=c-shared", "-ldflags="+libLdflags, "-o", tmp, "./abi/libmpi")
	cmd.Dir = src
	cmd.Env = append(libBuildEnv(os.Environ()), "CGO_ENABLED=1")
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
	if err := replaceLink(LibName, filepath.Join(lib, "libmpi_abi.so")); err != nil {
		return "", err
	}
	return dir, nil
}

// Clean removes from the cache every library but the one built from the current
// sources (built or not yet), with its lock file, and returns the directories it
// removed and their bytes. Each build from other sources (a checkout's edit, another
// release) leaves a library of its own there, which nothing removes otherwise; a
// program linked by mpigo cc against a removed one must be linked again. An entry
// another mpigo is building (its lock held) is left alone, and so is every entry when
// the current sources cannot be found.
func Clean() (removed []string, bytes int64, err error) {
	dir, _, err := Built()
	if err != nil {
		return nil, 0, fmt.Errorf("left the C ABI libraries alone: which one the current sources build is unknown (%v)", err)
	}
	return clean(CacheDir(), filepath.Base(dir))
}

// CacheUsage counts the libraries in the cache, those built from other sources than
// the current ones (what Clean removes), and their bytes.
func CacheUsage() (libs, others int, bytes int64, err error) {
	keep := ""
	if dir, _, err := Built(); err == nil {
		keep = filepath.Base(dir)
	}
	entries, err := os.ReadDir(CacheDir())
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, 0, nil
	}
	for _, e := range entries {
		if e.IsDir() && isKey(e.Name()) {
			libs++
			if e.Name() != keep {
				others++
			}
			bytes += treeBytes(filepath.Join(CacheDir(), e.Name()))
		}
	}
	return libs, others, bytes, err
}

// clean is Clean on cache directory dir, keeping the entry named keep ("" for none).
func clean(dir, keep string) (removed []string, bytes int64, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == keep || !isKey(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		unlock, ok := tryLockDir(p)
		if !ok {
			continue
		}
		n := treeBytes(p)
		rerr := os.RemoveAll(p)
		os.Remove(p + ".lock")
		unlock()
		if rerr != nil {
			return removed, bytes, rerr
		}
		removed = append(removed, p)
		bytes += n
	}
	return removed, bytes, nil
}

// isKey says whether name is a cache entry's: stamp's 16 lowercase hex digits.
func isKey(name string) bool {
	if len(name) != 16 {
		return false
	}
	for _, c := range name {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// treeBytes is the size of the regular files under dir.
func treeBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// tryLockDir takes lockDir's lock on dir if nobody holds it.
func tryLockDir(dir string) (unlock func(), ok bool) {
	f, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, false
	}
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}

// libLdflags are the linker's flags for the library: its soname, and the GODEBUG
// default of its Go runtime (libGodebug).
const libLdflags = "-extldflags=-Wl,-soname," + LibName + " -X=runtime.godebugDefault=" + libGodebug

// libGodebug turns off the Go runtime's asynchronous preemption in the library. It
// preempts a goroutine that runs long by a signal (SIGURG) to its thread, and a
// signal's handler runs on the thread's alternate signal stack; on a thread of the
// host program that stack is the host's to take away, and Python's faulthandler (on
// under -X dev, PYTHONFAULTHANDLER, pytest) takes it away at exit, before mpi4py's
// MPI_Finalize: the next preemption then aborts the process ("non-Go code disabled
// sigaltstack"). Without the signal a goroutine yields at its next function call,
// which every wait of the library reaches. The package main's default GODEBUG is
// empty (TestLibGodebugAlone), so this replaces nothing.
const libGodebug = "asyncpreemptoff=1"

// lockDir holds an exclusive lock on the cache directory dir (a file beside it)
// until unlock is called.
func lockDir(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %v", f.Name(), err)
	}
	return func() { f.Close() }, nil
}

// replaceLink makes path a symbolic link to target, in one step for a reader of
// path: a compiler or linker running meanwhile sees the old link or the new one.
func replaceLink(target, path string) error {
	tmp := fmt.Sprintf("%s.%d", path, os.Getpid())
	os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
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

// writeHeader writes dir/mpi.h in one step for a reader: a compiler running
// meanwhile reads the old header or the new one, never a part.
func writeHeader(dir string, h []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(dir, fmt.Sprintf(".mpi.h.%d", os.Getpid()))
	if err := os.WriteFile(tmp, h, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, "mpi.h")); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// Install lays the C ABI out under prefix as MPI installations are laid out, so that
// CMake's FindMPI, autotools, Meson and a make CC=mpicc find it: include/mpi.h,
// lib/libmpi_abi.so.1 with the links libmpi_abi.so and libmpi.so, bin/mpigo (a copy of
// the mpigo command at path mpigo, so that the prefix keeps the launcher that speaks
// its library's wire-up, whatever becomes of the one that installed it), and the
// scripts bin/mpicc, bin/mpicxx (compiler wrappers: `mpigo abi mpicc PREFIX`) and
// bin/mpiexec, bin/mpirun (`mpigo run`).
func Install(prefix, mpigo string) error {
	dir, err := Ensure(func(s string) { fmt.Fprintln(os.Stderr, s) })
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(prefix)
	if err != nil {
		return err
	}
	inc, lib, bin := filepath.Join(abs, "include"), filepath.Join(abs, "lib"), filepath.Join(abs, "bin")
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
	if err := copyFile(filepath.Join(dir, "lib", LibName), filepath.Join(lib, LibName)); err != nil {
		return err
	}
	for _, l := range []string{"libmpi_abi.so", "libmpi.so"} {
		os.Remove(filepath.Join(lib, l))
		if err := os.Symlink(LibName, filepath.Join(lib, l)); err != nil {
			return err
		}
	}
	self := filepath.Join(bin, "mpigo")
	if err := copyFile(mpigo, self); err != nil {
		return err
	}
	scripts := map[string]string{
		"mpicc":   fmt.Sprintf("# mpicc: compile and link C against mpigo's MPI standard ABI %s.\nexec %s abi mpicc %s \"$@\"\n", wrapperMark, shellJoin([]string{self}), shellJoin([]string{abs})),
		"mpicxx":  fmt.Sprintf("# mpicxx: compile and link C++ against mpigo's MPI standard ABI %s.\nexec %s abi mpicxx %s \"$@\"\n", wrapperMark, shellJoin([]string{self}), shellJoin([]string{abs})),
		"mpiexec": fmt.Sprintf("# mpiexec: mpigo run %s.\nexec %s run \"$@\"\n", wrapperMark, shellJoin([]string{self})),
	}
	scripts["mpirun"] = strings.Replace(scripts["mpiexec"], "# mpiexec", "# mpirun", 1)
	for name, body := range scripts {
		if err := writeAtomic(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// copyFile copies src to dst (unless they are the same file: an install over the
// prefix whose mpigo runs it).
func copyFile(src, dst string) error {
	a, err := os.Stat(src)
	if err != nil {
		return err
	}
	if b, err := os.Stat(dst); err == nil && os.SameFile(a, b) {
		return nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return writeAtomic(dst, data, 0o755)
}

// writeAtomic writes data to path through a new file renamed over it, so that a
// program running from path (an mpigo, a library in use) keeps its own.
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return err
	}
	if err := os.Chmod(tmp, mode); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// libBuildEnv is env for the go build of the library. cgo compiles with $CC and $CXX,
// which a build that uses mpigo's wrappers may have set to one (CC="mpigo cc", make
// CC=mpicc); that wrapper needs the library, so it would build it again, and so on
// without end. Such a CC or CXX gives way to MPIGO_CC or MPIGO_CXX, the wrappers' own
// real compiler, or else to the go command's default. The build also runs as the
// compiler a wrapper ran does (wrapperVar), so that a wrapper reached another way
// (CC="ccache mpicc") stops at once with a message.
func libBuildEnv(env []string) []string {
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		if (name == "CC" || name == "CXX") && namesWrapper(val) {
			continue
		}
		out = append(out, kv)
	}
	for _, v := range [][2]string{{"CC", os.Getenv("MPIGO_CC")}, {"CXX", os.Getenv("MPIGO_CXX")}} {
		if v[1] != "" && !namesWrapper(v[1]) && namesWrapper(os.Getenv(v[0])) {
			out = append(out, v[0]+"="+v[1])
		}
	}
	return append(out, wrapperVar+"=mpigo (building "+LibName+")")
}

// namesWrapper reports whether the command line cmd starts with an mpigo compiler
// wrapper.
func namesWrapper(cmd string) bool {
	words := strings.Fields(cmd)
	if len(words) == 0 {
		return false
	}
	path, err := exec.LookPath(words[0])
	if err != nil {
		return false
	}
	_, ok := mpigoWrapper(path)
	return ok
}
