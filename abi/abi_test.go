package abi_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpigo/mpigo/abi"
)

// The C programs of testdata/, built with `mpigo cc` and run as jobs with `mpigo run`:
// what a C user of the MPI standard ABI does. They need a C compiler (Debian's gcc
// in CI); without one the tests skip.

var (
	setupOnce sync.Once
	mpigoBin  string
	setupErr  string
)

// setup builds the mpigo command once and points it at this checkout's source.
func setup(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the library is built as an ELF shared object with a soname: Linux only for now")
	}
	if _, err := exec.LookPath("cc"); err != nil {
		if _, err := exec.LookPath("gcc"); err != nil {
			t.Skip("no C compiler (cc or gcc) in PATH: the C ABI tests need one (apt-get install gcc)")
		}
		t.Setenv("MPIGO_CC", "gcc")
	}
	setupOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mpigo-abi-test")
		if err != nil {
			setupErr = err.Error()
			return
		}
		mpigoBin = filepath.Join(dir, "mpigo")
		out, err := exec.Command("go", "build", "-o", mpigoBin, "../cmd/mpigo").CombinedOutput()
		if err != nil {
			setupErr = "building mpigo: " + err.Error() + "\n" + string(out)
		}
	})
	if setupErr != "" {
		t.Fatal(setupErr)
	}
	src, _ := filepath.Abs("..")
	t.Setenv(abi.SourceVar, src)
	return mpigoBin
}

func run(t *testing.T, timeout time.Duration, name string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// cc builds a C program of testdata with `mpigo cc`.
func cc(t *testing.T, mpigo, src string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), ".c"))
	out, errs, err := run(t, 5*time.Minute, mpigo, "cc", "-O2", "-Wall", "-Werror", "-pthread", "-o", bin, src)
	if err != nil {
		t.Fatalf("mpigo cc %s: %v\n%s%s", src, err, out, errs)
	}
	return bin
}

// job runs a C program of testdata as n ranks (extra: mpigo run's flags) and checks
// that it ends well and prints "OK name".
func job(t *testing.T, prog string, n int, extra ...string) string {
	t.Helper()
	mpigo := setup(t)
	bin := cc(t, mpigo, filepath.Join("testdata", prog+".c"))
	args := append([]string{"run", "-n", itoa(n)}, extra...)
	args = append(args, bin)
	out, errs, err := run(t, 2*time.Minute, mpigo, args...)
	if err != nil || !strings.Contains(out, "OK "+prog) {
		t.Fatalf("%s on %d ranks: %v\n--- stdout\n%s--- stderr\n%s", prog, n, err, out, errs)
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestHandlesAndConstants(t *testing.T) { job(t, "constants", 1) }

func TestPointToPoint(t *testing.T) { job(t, "pt2pt", 2) }

func TestPointToPointTCP(t *testing.T) { job(t, "pt2pt", 2, "--set", "transports=self,tcp") }

func TestCollectivesInPlace(t *testing.T) { job(t, "coll", 3) }

func TestDatatypesBottomUserOp(t *testing.T) { job(t, "dtype", 2) }

func TestAttributeCallbacks(t *testing.T) {
	out := job(t, "attr", 2)
	if !strings.Contains(out, "self attribute deleted at finalize (MPI still running: yes)") {
		t.Errorf("MPI_COMM_SELF's delete callback did not run first in MPI_Finalize:\n%s", out)
	}
}

func TestErrorHandlersUnsupported(t *testing.T) {
	out := job(t, "errh", 2)
	if !strings.Contains(out, "MPI_ERR_UNSUPPORTED_OPERATION") {
		t.Errorf("the error string does not name the class:\n%s", out)
	}
}

func TestProfilingInterception(t *testing.T) { job(t, "pmpi", 3) }

func TestThreadMultiple(t *testing.T) { job(t, "threads", 2) }

// TestFatalByDefault: an error on MPI_COMM_WORLD, whose handler is
// MPI_ERRORS_ARE_FATAL, ends the job naming the call, the rank and the class.
func TestFatalByDefault(t *testing.T) {
	mpigo := setup(t)
	src := filepath.Join(t.TempDir(), "fatal.c")
	os.WriteFile(src, []byte(`#include <mpi.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int x = 0;
    MPI_Send(&x, 1, MPI_INT, 7, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
`), 0o644)
	bin := cc(t, mpigo, src)
	_, errs, err := run(t, time.Minute, mpigo, "run", "-n", "2", bin)
	if err == nil {
		t.Fatal("the job succeeded; want it ended by MPI_ERRORS_ARE_FATAL")
	}
	for _, want := range []string{"MPI_Send", "MPI_ERR_RANK"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}

// TestShowAndInstall: `mpigo cc -show` prints the command as mpicc does, and `mpigo
// abi install` lays out a prefix whose bin/mpicc builds a program that runs.
func TestShowAndInstall(t *testing.T) {
	mpigo := setup(t)
	out, _, err := run(t, time.Minute, mpigo, "cc", "-show", "-O2", "x.c")
	if err != nil || !strings.Contains(out, "-O2 x.c") || !strings.Contains(out, "-lmpi_abi") || !strings.Contains(out, "/include") {
		t.Fatalf("mpigo cc -show: %v: %q", err, out)
	}
	out, _, _ = run(t, time.Minute, mpigo, "cc", "-show", "-c", "x.c")
	if strings.Contains(out, "-lmpi_abi") {
		t.Errorf("-c should not link: %q", out)
	}
	prefix := t.TempDir()
	if out, errs, err := run(t, 5*time.Minute, mpigo, "abi", "install", "--prefix", prefix); err != nil {
		t.Fatalf("mpigo abi install: %v\n%s%s", err, out, errs)
	}
	for _, f := range []string{"include/mpi.h", "lib/libmpi_abi.so.1", "lib/libmpi_abi.so", "bin/mpicc", "bin/mpiexec"} {
		if _, err := os.Stat(filepath.Join(prefix, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	bin := filepath.Join(t.TempDir(), "pmpi")
	if out, errs, err := run(t, time.Minute, filepath.Join(prefix, "bin", "mpicc"), "-o", bin, "testdata/pmpi.c"); err != nil {
		t.Fatalf("installed mpicc: %v\n%s%s", err, out, errs)
	}
	out, errs, err := run(t, time.Minute, filepath.Join(prefix, "bin", "mpiexec"), "-n", "2", bin)
	if err != nil || !strings.Contains(out, "OK pmpi") {
		t.Fatalf("installed mpiexec: %v\n%s%s", err, out, errs)
	}
	info, _, _ := run(t, time.Minute, mpigo, "info")
	if !strings.Contains(info, "C ABI library  built: ") {
		t.Errorf("mpigo info does not say where the library is:\n%.400s", info)
	}
}

// TestAnchors builds the anchors' own C benchmarks with `mpigo cc`, unchanged, and
// runs each briefly (a small iteration scale) under `mpigo run`.
func TestAnchors(t *testing.T) {
	mpigo := setup(t)
	var dir string
	for _, d := range []string{"../../shared/anchors", "../../../shared/anchors", os.Getenv("MPIGO_ANCHORS")} {
		if _, err := os.Stat(filepath.Join(d, "lat.c")); d != "" && err == nil {
			dir = d
		}
	}
	if dir == "" {
		t.Skip("the anchors' C programs (../shared/anchors) are not here; MPIGO_ANCHORS names their directory")
	}
	for _, b := range []struct {
		name, scale string
		n           int
	}{{"lat", "0.01", 2}, {"bw", "0.05", 2}, {"coll", "0.01", 2}, {"dtype", "0.01", 1}} {
		t.Run(b.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), b.name)
			if out, errs, err := run(t, 5*time.Minute, mpigo, "cc", "-O2", "-w", "-o", bin, filepath.Join(dir, b.name+".c")); err != nil {
				t.Fatalf("mpigo cc %s.c: %v\n%s%s", b.name, err, out, errs)
			}
			out, errs, err := run(t, 3*time.Minute, mpigo, "run", "-n", itoa(b.n), bin, b.scale)
			if err != nil || !strings.Contains(out, "RESULT ") {
				t.Fatalf("%s: %v\n--- stdout\n%s--- stderr\n%s", b.name, err, out, errs)
			}
		})
	}
}
