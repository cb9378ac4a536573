package pmi

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mpigo/mpigo/internal/mpitest"
)

// A launcher such as Hydra puts each rank in a process group of its own, and its
// proxies may exit before their ranks (Hydra 4.0 does, failing on PMI-2's abort), so
// ranks can outlive the launcher the test waited for, reparented to init. The test
// process is therefore a child subreaper: such ranks become its children, and
// endJob reaps them, kills those that do not end, and checks that nothing of the job
// is left.

// becomeSubreaper makes this process adopt its orphaned descendants.
func becomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// newJobMark returns the NAME=VALUE that marks a new job's processes.
func newJobMark() string { return mpitest.JobMark() }

// endGrace is how long a rank left behind by its launcher may take to end by itself
// (a rank whose process manager is gone notices it at once) before it is killed.
const endGrace = 5 * time.Second

// endJob runs once the job's launcher has been waited for: it waits for the orphaned
// processes adopted meanwhile, kills those still running after endGrace, and fails
// the test if any process carrying the job's mark remains. Tests that start jobs do
// not run in parallel, so every child of this process is then part of the job.
func endJob(t *testing.T, mark string) {
	t.Helper()
	killed := reapOrphans(endGrace)
	if len(killed) > 0 {
		t.Logf("the process manager left %d process(es) of the job running; killed %v", len(killed), killed)
	}
	if left := mpitest.Marked(mark); len(left) > 0 {
		t.Errorf("processes of the job still exist after it ended: %v", left)
	}
}

// reapOrphans waits for every child of this process, killing all of them once grace
// has passed, and again after each death then (a killed process's own children are
// adopted in turn). It returns the pids it killed.
func reapOrphans(grace time.Duration) []int {
	var (
		mu      sync.Mutex
		killing bool
		killed  []int
	)
	killAll := func() {
		mu.Lock()
		defer mu.Unlock()
		killing = true
		for _, p := range children() {
			if unix.Kill(p, unix.SIGKILL) == nil {
				killed = append(killed, p)
			}
		}
	}
	timer := time.AfterFunc(grace, killAll)
	defer timer.Stop()
	for {
		var ws unix.WaitStatus
		_, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil { // ECHILD: none left
			break
		}
		mu.Lock()
		again := killing
		mu.Unlock()
		if again {
			killAll()
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return killed
}

// children lists this process's children, zombies included.
func children() []int {
	self := os.Getpid()
	var out []int
	for _, p := range procs() {
		if ppid, ok := parentOf(p); ok && ppid == self {
			out = append(out, p)
		}
	}
	return out
}

func procs() []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		if p, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// parentOf reads a process's parent from /proc/PID/stat, whose second field (the
// command in parentheses) may itself hold spaces and parentheses.
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}
