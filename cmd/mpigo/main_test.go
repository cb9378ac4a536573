package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/internal/topo"
	"github.com/mpigo/mpigo/mpi"
)

// TestMain runs the tests and removes the programs they built.
func TestMain(m *testing.M) { mpitest.Main(m) }

// mpigoBin is the mpigo command built from this checkout, once per test binary.
func mpigoBin(t testing.TB) string { return mpitest.Mpigo(t) }

// rankBin is testdata/rankprog built, once per test binary: a rank that does what its
// arguments say (exit, abort, block, print its environment, ...).
func rankBin(t testing.TB) string { return mpitest.Build(t, "./testdata/rankprog") }

type run struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// mpigo runs the mpigo command with a hard deadline, so a hang fails the test instead
// of stalling it.
func mpigo(t *testing.T, stdin string, args ...string) run {
	t.Helper()
	return mpigoEnv(t, nil, stdin, args...)
}

// mpigoEnv is mpigo with env added to the test's environment.
func mpigoEnv(t *testing.T, env []string, stdin string, args ...string) run {
	t.Helper()
	cmd := exec.Command(mpigoBin(t), args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	cmd.Wait()
	r := run{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() {
		t.Fatalf("mpigo %v was killed by %v (hung?)\nstdout:\n%s\nstderr:\n%s", args, ws.Signal(), r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "goroutine ") && !strings.Contains(r.stderr, "panic: deliberate") &&
		!strings.Contains(r.stderr, "fatal error: stack overflow") { // the ranks' own
		t.Errorf("mpigo %v printed a stack trace:\n%s", args, r.stderr)
	}
	return r
}

var pidLine = regexp.MustCompile(`pid (\d+) rank (\d+)`)

// pids returns the process ids the ranks printed.
func pids(out string) []int {
	var ps []int
	for _, m := range pidLine.FindAllStringSubmatch(out, -1) {
		p, _ := strconv.Atoi(m[1])
		ps = append(ps, p)
	}
	return ps
}

// assertGone checks that every pid has ended, waiting (bounded) on a pidfd: a process
// that is not our child may take a moment to be killed by its parent-death signal.
func assertGone(t *testing.T, ps []int) {
	t.Helper()
	for _, p := range ps {
		fd, err := unix.PidfdOpen(p, 0)
		if err != nil {
			continue // already reaped
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, _ := unix.Poll(fds, 5000)
		unix.Close(fd)
		if n != 1 {
			t.Errorf("process %d of the job is still running", p)
		}
	}
}

func TestHelloManyRanksOversubscribed(t *testing.T) {
	r := mpigo(t, "", "run", "-n", "12", "--oversubscribe", rankBin(t), "hello")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := len(pids(r.stdout)); got != 12 {
		t.Fatalf("%d ranks reported, want 12:\n%s", got, r.stdout)
	}
}

func TestOutputForwardingKeepsLinesWholeAndLosesNothing(t *testing.T) {
	const n, lines = 4, 20000
	r := mpigo(t, "", "run", "-n", strconv.Itoa(n), "--tag-output", rankBin(t), "lines", strconv.Itoa(lines))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	seen := make([]int, n)
	for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		var tag, rk, i int
		var rest string
		if _, err := fmt.Sscanf(l, "[%d] rank %d line %d %s", &tag, &rk, &i, &rest); err != nil || tag != rk ||
			rest != "abcdefghijklmnopqrstuvwxyz0123456789" {
			if !strings.Contains(l, "pid") {
				t.Fatalf("mangled line %q", l)
			}
			continue
		}
		if i != seen[rk] {
			t.Fatalf("rank %d: line %d after %d lines", rk, i, seen[rk])
		}
		seen[rk]++
	}
	for rk, c := range seen {
		if c != lines {
			t.Errorf("rank %d: %d lines forwarded, want %d", rk, c, lines)
		}
		if want := fmt.Sprintf("[%d] rank %d stderr done\n", rk, rk); !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q (a last line without newline):\n%s", want, r.stderr)
		}
	}
}

func TestNonMPIProgram(t *testing.T) {
	r := mpigo(t, "", "run", "-n", "3", "sh", "-c", "echo rank=$MPIGO_RANK size=$MPIGO_SIZE local=$MPIGO_LOCAL_RANK/$MPIGO_LOCAL_SIZE")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for i := 0; i < 3; i++ {
		if want := fmt.Sprintf("rank=%d size=3 local=%d/3", i, i); !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q in\n%s", want, r.stdout)
		}
	}
}

func TestEnvironmentForwarding(t *testing.T) {
	t.Setenv("MPIGO_TEST_FROM_LAUNCHER", "inherited")
	r := mpigo(t, "", "run", "-n", "2", "-x", "FOO=bar baz", "-x", "MPIGO_TEST_FROM_LAUNCHER", rankBin(t), "env",
		"FOO", "MPIGO_TEST_FROM_LAUNCHER", "MPIGO_RANK", "MPIGO_SIZE", "MPIGO_LOCAL_RANK", "MPIGO_LOCAL_SIZE")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for rk := 0; rk < 2; rk++ {
		for _, kv := range []string{"FOO=bar baz", "MPIGO_TEST_FROM_LAUNCHER=inherited",
			fmt.Sprintf("MPIGO_RANK=%d", rk), "MPIGO_SIZE=2", fmt.Sprintf("MPIGO_LOCAL_RANK=%d", rk), "MPIGO_LOCAL_SIZE=2"} {
			if want := fmt.Sprintf("rank %d %s\n", rk, kv); !strings.Contains(r.stdout, want) {
				t.Errorf("missing %q in\n%s", want, r.stdout)
			}
		}
	}
}

func TestStdinGoesToRankZero(t *testing.T) {
	r := mpigo(t, "one\ntwo\n", "run", "-n", "2", rankBin(t), "stdin")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "stdin: one\nstdin: two\n") || strings.Count(r.stdout, "stdin:") != 2 {
		t.Errorf("stdin not delivered once to rank 0:\n%s", r.stdout)
	}
}

func TestSingleton(t *testing.T) {
	out, err := exec.Command(rankBin(t), "hello").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "rank 0") {
		t.Errorf("singleton output %q", out)
	}
}

func TestGoPackagePath(t *testing.T) {
	r := mpigo(t, "", "run", "-n", "2", "../../examples/hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for i := 0; i < 2; i++ {
		if want := fmt.Sprintf("hello from rank %d of 2", i); !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q:\n%s", want, r.stdout)
		}
	}
}

// failure checks a job that must fail: exit code, a message naming the rank and the
// cause, no process left, in bounded time.
func failure(t *testing.T, wantCode int, wantMsg string, args ...string) run {
	t.Helper()
	r := mpigo(t, "", args...)
	if r.code != wantCode {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, wantCode, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, wantMsg) {
		t.Errorf("stderr lacks %q:\n%s", wantMsg, r.stderr)
	}
	if r.took > 2*time.Second {
		t.Errorf("the job took %v to end, want under 2s", r.took)
	}
	assertGone(t, pids(r.stdout))
	return r
}

func TestRankFailure(t *testing.T) {
	host, _ := os.Hostname()
	cases := []struct {
		name string
		code int
		msg  string
		args []string
	}{
		{"at start", 7, "rank 1 (pid ", []string{"exit-at-start", "1", "7"}},
		{"killed at start", 137, "was killed by signal 9", []string{"signal-at-start", "2"}},
		{"in the middle", 7, "exited with code 7", []string{"exit-mid", "2", "7"}},
		{"without finalize", 1, "without finalizing MPI (mpi.Finalize, MPI_Finalize)", []string{"no-finalize", "0"}},
		{"panic with deferred finalize", 2, "panicked: deliberate failure in rank 1", []string{"panic", "1"}},
		{"panic", 2, "host " + host + ") panicked: deliberate bare panic in rank 1 (exit code 2); stopping the job", []string{"panic-bare", "1"}},
		{"go fatal error", 2, "crashed: fatal error: stack overflow (exit code 2)", []string{"overflow-at-start", "2"}},
		{"abort", 5, "host " + host + ") called MPI_Abort with code 5; stopping the job\n", []string{"abort", "2", "5"}},
		// MPI_Abort's code is the job's exit status as exit(code) gives it, but 0.
		{"abort with code 0", 1, ") called MPI_Abort with code 0; stopping the job with exit status 1\n", []string{"abort", "2", "0"}},
		{"abort with code 300", 44, ") called MPI_Abort with code 300; stopping the job with exit status 44\n", []string{"abort", "2", "300"}},
		{"abort with code 256", 1, ") called MPI_Abort with code 256; stopping the job with exit status 1\n", []string{"abort", "2", "256"}},
		{"abort with code -1", 255, ") called MPI_Abort with code -1; stopping the job with exit status 255\n", []string{"abort", "2", "-1"}},
		// An error under MPI_ERRORS_ARE_FATAL is no call to MPI_Abort; the rank is
		// named once; the exit status is the error's class (MPI_ERR_RANK).
		{"fatal error", int(mpi.ClassOf(mpi.ErrRank)), "host " + host + "): mpi: Send: dest 99 out of range [0,3) for MPI_COMM_WORLD (in Send on communicator MPI_COMM_WORLD; errors are fatal); stopping the job\n", []string{"fatal", "1"}},
		{"after finalize", 3, "exited with code 3", []string{"exit-after-finalize", "1", "3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := failure(t, c.code, c.msg, append([]string{"run", "-n", "3", rankBin(t)}, c.args...)...)
			if !strings.Contains(r.stderr, "host "+host) {
				t.Errorf("the message does not name the host %s:\n%s", host, r.stderr)
			}
		})
	}
}

// TestRankFailureOthersKilled: a rank found killed by a signal the launcher did not
// send is named too, besides the failure that stopped the job (a rank killed by -9 and
// a survivor that saw it go reach the launcher in either order).
func TestRankFailureOthersKilled(t *testing.T) {
	r := failure(t, 7, "rank 1 (pid ", "run", "-n", "3", rankBin(t), "exit-mid-selfkill", "1", "7")
	for _, rank := range []string{"rank 0 (pid ", "rank 2 (pid "} {
		if !strings.Contains(r.stderr, rank) || strings.Count(r.stderr, "also was killed by signal 9") != 2 {
			t.Errorf("stderr does not name %s as also killed by signal 9:\n%s", rank, r.stderr)
		}
	}
}

// TestStartRefused: where the system refuses to start a rank, the launcher ends at
// once with the system's error and a non-zero code, and stops the ranks it started:
// no process and no file in /dev/shm is left. The launcher runs with few file
// descriptors (ulimit -n), so that starting a rank fails after a few, as a limit on
// processes makes it fail (EAGAIN) on a larger machine: the same start, refused. (A
// limit on processes, ulimit -u, does not bind root, which CI runs as.)
func TestStartRefused(t *testing.T) {
	mark := mpitest.JobMark()
	cmd := exec.Command("sh", "-c", `ulimit -n 64 && exec "$0" "$@"`, mpigoBin(t), "run", "-n", "200", rankBin(t), "block")
	cmd.Env = append(os.Environ(), mark)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mpitest.KillMarked(mark) })
	timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	cmd.Wait()
	timer.Stop()
	took := time.Since(start)
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() {
		t.Fatalf("the launcher hung and was killed after %v\n%s", took, errb.String())
	}
	code := cmd.ProcessState.ExitCode()
	msg := regexp.MustCompile(`mpigo: cannot start rank (\d+) of 200 \(\S+\): .*too many open files.*; stopping the (\d+) ranks started\n`)
	m := msg.FindStringSubmatch(errb.String())
	if code != 1 || m == nil || m[1] != m[2] || m[1] == "0" {
		t.Errorf("exit code %d, stderr:\n%s\nwant code 1 and a line matching %s, after a rank or more", code, errb.String(), msg)
	}
	if took > 2*time.Second {
		t.Errorf("the launcher took %v to end, want under 2s", took)
	}
	if left := mpitest.Marked(mark); len(left) > 0 {
		t.Errorf("processes of the job still running: %v", left)
	}
	if left, _ := filepath.Glob("/dev/shm/mpigo-" + strconv.FormatInt(int64(cmd.Process.Pid), 36) + "*"); len(left) > 0 {
		t.Errorf("the job left files in /dev/shm: %v", left)
	}
}

func TestTimeout(t *testing.T) {
	r := mpigo(t, "", "run", "-n", "2", "--timeout", "0.5", rankBin(t), "block")
	if r.code != 124 || !strings.Contains(r.stderr, "timed out") {
		t.Errorf("exit %d, stderr %q; want 124 and a timeout message", r.code, r.stderr)
	}
	assertGone(t, pids(r.stdout))
}

// lockedBuffer is written by a reader goroutine while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startJob starts mpigo in the background and waits until every rank printed "ready".
func startJob(t *testing.T, n int, mode string) (*exec.Cmd, *lockedBuffer, <-chan struct{}) {
	t.Helper()
	cmd, out, _, drained := startReady(t, n, "run", "-n", strconv.Itoa(n), rankBin(t), mode)
	return cmd, out, drained
}

// startReady runs mpigo with args in the background and waits until n ranks printed
// "ready"; it returns the command, its output and error so far, and a channel closed
// once the output has all been read.
func startReady(t *testing.T, n int, args ...string) (*exec.Cmd, *lockedBuffer, *lockedBuffer, <-chan struct{}) {
	t.Helper()
	cmd := exec.Command(mpigoBin(t), args...)
	pr, pw, _ := os.Pipe()
	out, errb := new(lockedBuffer), new(lockedBuffer)
	cmd.Stdout, cmd.Stderr = pw, errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	t.Cleanup(func() { cmd.Process.Kill() })
	ready := make(chan struct{})
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		buf := make([]byte, 4096)
		signalled := false
		for {
			k, err := pr.Read(buf)
			out.Write(buf[:k])
			if !signalled && strings.Count(out.String(), "ready ") >= n {
				close(ready)
				signalled = true
			}
			if err != nil {
				if !signalled {
					close(ready)
				}
				return
			}
		}
	}()
	t.Cleanup(func() { <-drained })
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatalf("the ranks never all said ready: %s %s", out.String(), errb.String())
	}
	return cmd, out, errb, drained
}

func TestSignalForwarding(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, out, drained := startJob(t, 3, "wait-signal")
			ps := pids(out.String())
			cmd.Process.Signal(sig)
			cmd.Wait()
			<-drained // every line the ranks wrote has been read
			if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
				t.Errorf("exit code %d, want %d", code, 128+int(sig))
			}
			for rk := 0; rk < 3; rk++ {
				if want := fmt.Sprintf("rank %d got %v", rk, sig); !strings.Contains(out.String(), want) {
					t.Errorf("rank %d did not receive %v:\n%s", rk, sig, out.String())
				}
			}
			assertGone(t, ps)
		})
	}
}

// TestSignalBeforeInit: SIGTERM to the launcher while its ranks have not yet called
// Init (Python ranks importing their modules) ends the job at once: the launcher does
// not wait for those ranks to say where they are, which nothing in them can answer
// (it waited 2 s, its bound for answers).
func TestSignalBeforeInit(t *testing.T) {
	cmd, out, _, drained := startReady(t, 3, "run", "-n", "3", rankBin(t), "ready-before-init")
	ps := pids(out.String())
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	took := time.Since(start)
	<-drained
	if code := cmd.ProcessState.ExitCode(); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit code %d, want %d", code, 128+int(syscall.SIGTERM))
	}
	if took > time.Second {
		t.Errorf("the launcher took %v to end after SIGTERM, want under 1s", took)
	}
	assertGone(t, ps)
}

// TestLauncherThreads: the launcher waits for its ranks without an OS thread each (a
// blocked wait for the process, a blocked read of its wire-up socket). Its threads
// count against the same limit on processes (ulimit -u) as the ranks, and where the Go
// runtime cannot make one it aborts: the job then ended with a runtime crash (exit
// code 2) instead of "cannot start rank", and no rank stopped by the launcher.
func TestLauncherThreads(t *testing.T) {
	const n = 48
	cmd, _, _, _ := startReady(t, n, "run", "-n", strconv.Itoa(n), rankBin(t), "ready-before-init")
	threads := threadsOf(t, cmd.Process.Pid)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if threads >= n {
		t.Errorf("the launcher of %d ranks runs %d threads, want fewer than one a rank", n, threads)
	}
}

// threadsOf is the number of threads process pid runs.
func threadsOf(t *testing.T, pid int) int {
	t.Helper()
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	m := regexp.MustCompile(`(?m)^Threads:\s+(\d+)$`).FindSubmatch(status)
	if m == nil {
		t.Fatalf("no Threads line in /proc/%d/status:\n%s", pid, status)
	}
	k, _ := strconv.Atoi(string(m[1]))
	return k
}

func TestLauncherKilledTakesRanksWithIt(t *testing.T) {
	cmd, out, _ := startJob(t, 3, "block")
	ps := pids(out.String())
	if len(ps) != 3 {
		t.Fatalf("pids %v from %q", ps, out.String())
	}
	cmd.Process.Kill()
	cmd.Wait()
	assertGone(t, ps)
}

func TestBadInput(t *testing.T) {
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"run", "--frobnicate", "-n", "2", "hostname"}, `unknown flag "--frobnicate"`},
		{[]string{"run", "-n", "0", "hostname"}, "-n 0: the number of ranks must be at least 1"},
		{[]string{"run", "-n", "-3", "hostname"}, "must be at least 1"},
		{[]string{"run", "hostname"}, "-n is required"},
		{[]string{"run", "-n", "2"}, "no program given"},
		{[]string{"run", "-n", "2", "./no/such/program"}, "no such file or directory"},
		{[]string{"run", "-n", "2", "no-such-command-mpigo"}, "not found in PATH"},
		{[]string{"run", "-n", "two", "hostname"}, "invalid value \"two\" for flag -n"},
		{[]string{"run", "-n", "2", "--set", "nonsense=1", "hostname"}, "--set \"nonsense=1\""},
		{[]string{"run", "-n", "2", "--set", "rank_timer_slack=1ms", "hostname"}, "rank_timer_slack wants an integer from 0 to 1000000, not \"1ms\""},
		{[]string{"run", "-n", "2", "--set", "coll_check=maybe", "hostname"}, "coll_check wants true or false, not \"maybe\""},
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"run", "-n", "1", "hostname", ":", "hostname"}, "part 1 after ':' (hostname): want -n N PROGRAM"},
		{[]string{"run", "-n", "1", "hostname", ":", "-n", "2", "hostname", ":"}, "part 2 after ':' (): want -n N PROGRAM"},
		{[]string{"run", "-n", "1", "hostname", ":", "-x", "A", "hostname"}, "part 1 after ':' (-x A hostname)"},
		{[]string{"run", "-n", "1", "hostname", ":", "-n", "1", "no-such-command-mpigo"}, "not found in PATH"},
		{[]string{"run", "-n", "1", "--universe-size", "-1", "hostname"}, "--universe-size -1: must not be negative"},
	}
	for _, c := range cases {
		r := mpigo(t, "", c.args...)
		if r.code == 0 {
			t.Errorf("mpigo %v: exit 0, want an error", c.args)
		}
		if !strings.Contains(r.stderr, c.msg) {
			t.Errorf("mpigo %v: stderr %q lacks %q", c.args, r.stderr, c.msg)
		}
	}
}

// TestMPMD: parts after ':' add programs to the job; their ranks follow, MPI_APPNUM
// is the part's index, and --universe-size sets MPI_UNIVERSE_SIZE.
func TestMPMD(t *testing.T) {
	prog := rankBin(t)
	r := mpigo(t, "", "run", "--universe-size", "7", "-n", "1", prog, "env", "MPIGO_APPNUM", "MPIGO_UNIVERSE_SIZE", "MPIGO_SIZE",
		":", "-n", "2", prog, "env", "MPIGO_APPNUM", "MPIGO_SIZE")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"rank 0 MPIGO_APPNUM=0", "rank 0 MPIGO_UNIVERSE_SIZE=7", "rank 0 MPIGO_SIZE=3",
		"rank 1 MPIGO_APPNUM=1", "rank 2 MPIGO_APPNUM=1", "rank 2 MPIGO_SIZE=3"} {
		if !strings.Contains(r.stdout, want+"\n") {
			t.Errorf("no %q in:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "rank 1 MPIGO_UNIVERSE_SIZE") {
		t.Errorf("rank 1 ran the first part's arguments:\n%s", r.stdout)
	}
}

// TestBadSettings: a setting value that breaks its rule, however it is given, stops
// the job before any rank starts, with one line naming the setting, the value and the
// rule. One or two bad values of each kind.
func TestBadSettings(t *testing.T) {
	cases := []struct{ set, msg string }{
		{"shm_ring_size=0", `shm_ring_size wants a byte count from 4 KiB to 1 GiB (written like 4096, 64k, 1MiB), not "0"`},
		{"tcp_max_payload=2g", `tcp_max_payload wants a byte count from 4 KiB to 64 MiB`},
		{"eager_limit=-1", `eager_limit wants a byte count (written like 4096, 64k, 1MiB), not "-1"`},
		{"eager_limit=99999999999g", `eager_limit wants a byte count`},
		{"coll_shm_chunks=0", `coll_shm_chunks wants an integer from 2 to 65536, not "0"`},
		{"p2p_spin=-5", `p2p_spin wants an integer of at least 0, not "-5"`},
		{"shm_ring_cells=many", `shm_ring_cells wants an integer from 4 to 1048576, not "many"`},
		{"p2p_sleep=-1ms", `p2p_sleep wants a duration from 1µs to 1s (written like 250us, 1ms, 2s), not "-1ms"`},
		{"p2p_sleep=5", `p2p_sleep wants a duration`},
		{"p2p_sleep=1h", `p2p_sleep wants a duration from 1µs to 1s`},
		{"transports=foo", `transports wants a comma-separated list of self, shm, tcp (at least one, each once), not "foo"`},
		{"transports=shm,shm", `transports wants a comma-separated list`},
		{"transports=", `transports wants a comma-separated list`},
		{"coll_shm=on", `coll_shm wants one of auto, off, not "on"`},
		{"p2p_protocol=Eager", `p2p_protocol wants one of auto, eager, pipeline, get, not "Eager"`},
		{"gomaxprocs=0", `gomaxprocs wants auto, keep or an integer from 1 to 65536, not "0"`},
		{"tcp_interfaces=10.0.0.0/99", `tcp_interfaces wants comma-separated interface names`},
		{"shm_cma=yes", `shm_cma wants true or false, not "yes"`},
	}
	for _, c := range cases {
		r := mpigo(t, "", "run", "-n", "2", "--set", c.set, rankBin(t), "hello")
		if r.code != 2 || r.stdout != "" {
			t.Errorf("--set %s: exit %d, output %q; want exit 2 and no rank started", c.set, r.code, r.stdout)
		}
		if !strings.Contains(r.stderr, "mpigo run: --set "+c.set+": "+c.msg) {
			t.Errorf("--set %s: stderr %q lacks %q", c.set, r.stderr, c.msg)
		}
	}
	// The same rules hold for a value from the environment, from -x and from the
	// config file; a --set overrides a bad value from the environment.
	cfg := filepath.Join(t.TempDir(), "config")
	os.WriteFile(cfg, []byte("shm_ring_cells = 2\n"), 0o644)
	others := []struct {
		env  []string
		args []string
		msg  string
	}{
		{[]string{"MPIGO_SHM_RING_SIZE=0"}, nil,
			`mpigo run: shm_ring_size wants a byte count from 4 KiB to 1 GiB (written like 4096, 64k, 1MiB), not "0" (from the environment, MPIGO_SHM_RING_SIZE)`},
		{nil, []string{"-x", "MPIGO_COLL_SHM_CHUNKS=1"}, `mpigo run: -x MPIGO_COLL_SHM_CHUNKS=1: coll_shm_chunks wants an integer from 2 to 65536, not "1"`},
		{[]string{"MPIGO_CONFIG=" + cfg}, nil,
			`mpigo run: shm_ring_cells wants an integer from 4 to 1048576, not "2" (from the config file ` + cfg + ")"},
	}
	for _, c := range others {
		r := mpigoEnv(t, c.env, "", append(append([]string{"run", "-n", "2"}, c.args...), rankBin(t), "hello")...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, c.msg) {
			t.Errorf("%v %v: exit %d, stdout %q, stderr %q; want exit 2, no output and %q", c.env, c.args, r.code, r.stdout, r.stderr, c.msg)
		}
	}
	r := mpigoEnv(t, []string{"MPIGO_TRANSPORTS=foo"}, "", "run", "-n", "2", "--set", "transports=self,shm", rankBin(t), "hello")
	if r.code != 0 || len(pids(r.stdout)) != 2 {
		t.Errorf("--set over a bad MPIGO_TRANSPORTS: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestInfoListsSettingsWithSources(t *testing.T) {
	cmd := exec.Command(mpigoBin(t), "info")
	cmd.Env = append(os.Environ(), "MPIGO_GROUP_STORAGE=dense")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !regexp.MustCompile(`(?m)^library\s+mpigo .*, MPI 4\.1$`).Match(out) {
		t.Errorf("info's library line does not say MPI 4.1:\n%s", out)
	}
	for _, want := range []string{"go1.", "cpus", "settings", "L1d", "transport shm", "rank 1 via shm",
		"eager", "group_storage", "dense", "environment", "p2p_protocol", "auto", "default", "VALID VALUES",
		"one of auto, eager, pipeline, get", "a byte count from 4 KiB to 1 GiB", "a duration from 1µs to 1s"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("info lacks %q:\n%s", want, out)
		}
	}
	// A setting from a config file says so.
	cfg := filepath.Join(t.TempDir(), "config")
	os.WriteFile(cfg, []byte("# mpigo settings\nshm_max_fragment = 32k\n"), 0o644)
	cmd = exec.Command(mpigoBin(t), "info")
	cmd.Env = append(os.Environ(), "MPIGO_CONFIG="+cfg)
	out, _ = cmd.CombinedOutput()
	if !regexp.MustCompile(`shm_max_fragment\s+32k\s+file`).Match(out) {
		t.Errorf("a setting from the config file is not reported as such:\n%s", out)
	}
}

// The ranks of a node with no more CPUs than ranks start with a 1 ms timer slack (see
// internal/launch's setRankSlack); other nodes' ranks, and any with the setting at 0,
// keep the launcher's.
func TestRankTimerSlack(t *testing.T) {
	own, err := os.ReadFile("/proc/self/timerslack_ns")
	if err != nil {
		t.Skip("no /proc/self/timerslack_ns:", err)
	}
	keep := strings.TrimSpace(string(own))
	full := runtime.NumCPU()
	cases := []rankSetting{
		{full, "", "1000000"},
		{full, "rank_timer_slack=250", "250000"},
		{full, "rank_timer_slack=0", keep},
	}
	if full > 1 {
		cases = append(cases, rankSetting{full - 1, "", keep})
	}
	for _, c := range cases {
		r, args := c.run(t, "echo slack=$(cat /proc/self/timerslack_ns)")
		if got := strings.Count(r.stdout, "slack="+c.want+"\n"); got != c.n {
			t.Errorf("%v: want %d ranks with slack %s ns, got output\n%s", args, c.n, c.want, r.stdout)
		}
	}
}

// rankSetting is a case of a setting the launcher applies to the ranks it starts: n
// ranks, a --set flag ("" for none), and the value each rank should show.
type rankSetting struct {
	n         int
	set, want string
}

// run runs the shell script on c's ranks; it fails the test if the job fails.
func (c rankSetting) run(t *testing.T, script string) (run, []string) {
	t.Helper()
	args := []string{"run", "-n", strconv.Itoa(c.n)}
	if c.set != "" {
		args = append(args, "--set", c.set)
	}
	r := mpigo(t, "", append(args, "sh", "-c", script)...)
	if r.code != 0 {
		t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
	}
	return r, args
}

// The ranks of a node with more ranks than CPUs ask for a 100 us scheduler slice (see
// idle.RankSchedSlice), so that a woken rank may preempt another process's task; a
// node with no more ranks than CPUs, and the setting at 0, keep the launcher's.
func TestRankSchedSlice(t *testing.T) {
	slice := func(sched string) string {
		for _, l := range strings.Split(sched, "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "se.slice" {
				return strings.TrimSpace(v)
			}
		}
		return ""
	}
	own, err := os.ReadFile("/proc/self/sched")
	keep := slice(string(own))
	if err != nil || keep == "" {
		t.Skip("no se.slice in /proc/self/sched:", err)
	}
	if keep == "100000" {
		t.Skip("this process runs with a 100 us slice already")
	}
	over := runtime.NumCPU() + 1
	cases := []rankSetting{
		{over, "", "100000"},
		{over, "rank_sched_slice=300", "300000"},
		{over, "rank_sched_slice=0", keep},
		{runtime.NumCPU(), "", keep},
	}
	for _, c := range cases {
		r, args := c.run(t, "grep '^se.slice ' /proc/self/sched")
		got := 0
		for _, l := range strings.Split(r.stdout, "\n") {
			if slice(l) == c.want {
				got++
			}
		}
		if got != c.n {
			if c.want == "100000" && !strings.Contains(r.stdout, "se.slice") {
				t.Skipf("the kernel shows no slice: %s", r.stdout)
			}
			t.Errorf("%v: want %d ranks with se.slice %s, got output\n%s", args, c.n, c.want, r.stdout)
		}
	}
}

// TestBindWatch: beside a process that keeps a CPU busy (this test's), the launcher
// tells the ranks that fill the node's CPUs that the node is shared (so that they wait
// as oversubscribed ones) and frees those that bound themselves to cores under
// bind_to=auto, within a second or so; with bind_watch=false they stay bound and are
// told nothing, and ranks that a wrapper (taskset) bound are told but left on their
// CPU. Fewer ranks than CPUs are told too, once the busy processes want more than the
// CPUs the ranks leave. (That it undoes both once the process stops is the watch's
// policy, tested in internal/launch.)
func TestBindWatch(t *testing.T) {
	m := topo.Machine()
	all, err := topo.Allowed()
	if err != nil || !all.Equal(m.CPUs) {
		t.Skipf("this process may not use every CPU of the machine (%v, %v): auto binding stands aside", all, err)
	}
	var stop atomic.Bool
	defer stop.Store(true)
	go func() {
		for !stop.Load() {
		}
	}()
	n := all.Count()
	t.Run("taskset", func(t *testing.T) {
		// A mask the ranks did not take from auto binding is not the watch's.
		taskset, err := exec.LookPath("taskset")
		if err != nil {
			t.Skip("no taskset")
		}
		last := all.List()[n-1]
		r := mpigo(t, "", "run", "-n", strconv.Itoa(n), taskset, "-c", strconv.Itoa(last), rankBin(t), "freed", "3s")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		for rk := range n {
			for _, line := range []string{fmt.Sprintf("rank %d cpus %d\n", rk, last), fmt.Sprintf("rank %d shared true\n", rk)} {
				if !strings.Contains(r.stdout, line) {
					t.Errorf("missing %q in\n%s", line, r.stdout)
				}
			}
		}
	})
	t.Run("fewer-ranks-than-cpus", func(t *testing.T) {
		// One rank short of the CPUs leaves one to the busy goroutine above; two
		// more busy ones want more than the CPUs left: the rank, never bound, is told.
		if n < 2 {
			t.Skip("one CPU: no job has fewer ranks than CPUs")
		}
		var more atomic.Bool
		defer more.Store(true)
		for range 2 {
			go func() {
				for !more.Load() {
				}
			}()
		}
		r := mpigo(t, "", "run", "-n", strconv.Itoa(n-1), rankBin(t), "freed", "60s")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		for rk := range n - 1 {
			for _, line := range []string{fmt.Sprintf("rank %d cpus %s\n", rk, all), fmt.Sprintf("rank %d shared true\n", rk)} {
				if !strings.Contains(r.stdout, line) {
					t.Errorf("missing %q in\n%s", line, r.stdout)
				}
			}
		}
	})
	for _, c := range []struct {
		watch string
		wait  string
		freed bool
	}{{"true", "60s", true}, {"false", "3s", false}} {
		t.Run("bind_watch="+c.watch, func(t *testing.T) {
			r := mpigo(t, "", "run", "-n", strconv.Itoa(n), "--set", "bind_watch="+c.watch, rankBin(t), "freed", c.wait)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			for rk := range n {
				want := m.CoreFor(rk)
				if c.freed {
					want = all
				}
				for _, line := range []string{fmt.Sprintf("rank %d cpus %s\n", rk, want), fmt.Sprintf("rank %d shared %v\n", rk, c.freed)} {
					if !strings.Contains(r.stdout, line) {
						t.Errorf("missing %q in\n%s", line, r.stdout)
					}
				}
			}
		})
	}
}

// TestBindAuto: by default a node with as many ranks as CPUs or more binds its ranks
// to cores round robin, one with fewer ranks than CPUs leaves them free, and
// --bind-to none leaves an oversubscribed node free too. (The watch that frees bound
// ranks beside a busy process is off here, so that other tests' load cannot free
// them: TestBindWatch is about it.)
func TestBindAuto(t *testing.T) {
	m := topo.Machine()
	all, err := topo.Allowed()
	if err != nil || !all.Equal(m.CPUs) {
		t.Skipf("this process may not use every CPU of the machine (%v, %v): auto binding stands aside", all, err)
	}
	over := all.Count() + 1
	cases := []struct {
		name  string
		n     int
		args  []string
		bound bool
	}{
		{"oversubscribed", over, nil, true},
		{"one-per-cpu", all.Count(), nil, true},
		{"fewer-than-cpus", all.Count() - 1, nil, false},
		{"oversubscribed-none", over, []string{"--bind-to", "none"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.n < 1 {
				t.Skip("one CPU: no job has fewer ranks")
			}
			args := append(append([]string{"run", "-n", strconv.Itoa(c.n), "--set", "bind_watch=false"}, c.args...), rankBin(t), "affinity")
			r := mpigo(t, "", args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			for rk := range c.n {
				want := all
				if c.bound {
					want = m.CoreFor(rk)
				}
				if line := fmt.Sprintf("rank %d cpus %s\n", rk, want); !strings.Contains(r.stdout, line) {
					t.Errorf("missing %q in\n%s", line, r.stdout)
				}
			}
		})
	}
}
