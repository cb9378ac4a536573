package mpi_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestContextRMAWait: a WaitContext on a shipped Rget whose target cannot answer (the
// target process is stopped) ends when its context does, promptly, without spinning
// the CPU meanwhile (it sleeps through the idle policy, woken by the context's watch),
// and leaves the request pending and the window usable: once the target runs again
// the request completes with the target's data, and later operations work. Shipped
// over shared memory (rma_shm=off) and over forced TCP.
func TestContextRMAWait(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  map[string]string
	}{
		// The default idle policy: after each nap a sleeping wait polls once and
		// sleeps again, a few percent of a core; one that polls and yields again
		// after every nap (as it once did) used a third over TCP, a polling one a core.
		{"shm", map[string]string{"rma_shm": "off"}},
		{"tcp", mpitest.TCP.Settings},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mpitest.Job(t, mpitest.Options{N: 2, Settings: tc.set}, func(t *testing.T) {
				must(t, mpi.Init())
				rmaCtxWait(t, mpi.World.Rank())
				must(t, mpi.Finalize())
			})
		})
	}
}

func rmaCtxWait(t *testing.T, rank int) {
	w := mpi.World
	win, mem, err := mpi.WinAllocate(8*16, 8, nil, w)
	must(t, err)
	for i := 0; i < 16; i++ {
		mem[8*i] = byte(10 + i) // little-endian int64 10+i
	}
	must(t, w.Barrier())
	if rank == 0 { // the target
		must(t, mpi.SendValue(w, os.Getpid(), 1, 1))
		must(t, w.Barrier())
		must(t, win.Free())
		return
	}
	pid, _, err := mpi.RecvValue[int](w, 0, 1)
	must(t, err)
	must(t, win.Lock(mpi.LockShared, 0, 0))
	must(t, syscall.Kill(pid, syscall.SIGSTOP))
	stopped := true
	waitStopped(t, pid) // the signal is delivered asynchronously
	cont := func() {
		if stopped {
			stopped = false
			must(t, syscall.Kill(pid, syscall.SIGCONT))
		}
	}
	defer cont()
	got := make([]int64, 2)
	r, err := mpi.Rget(win, got, 0, 3)
	must(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	cpu0, t0 := cpuTime(t), time.Now()
	_, err = r.WaitContext(ctx)
	cpu, wall := cpuTime(t)-cpu0, time.Since(t0)
	wantCtxErr(t, "WaitContext of an Rget to a stopped target", err)
	if wall > 3*time.Second {
		t.Errorf("WaitContext returned %v after its context's deadline of 300ms", wall)
	}
	// A wait that sleeps uses a little CPU (its spin and yield phases, then a poll
	// per nap); one that polls uses a core for the whole wait, one that yields after
	// every nap much of one over TCP (docs/BENCHMARKS.md, idle waits).
	if cpu > wall/5 {
		t.Errorf("WaitContext used %v of CPU in %v: it polls rather than sleeps", cpu, wall)
	}
	t.Logf("blocked WaitContext: %v wall, %v CPU", wall, cpu)
	if r.IsNull() {
		t.Fatal("the request is null after its wait was given up")
	}
	cont()
	_, err = r.Wait()
	must(t, err)
	if got[0] != 13 || got[1] != 14 {
		t.Fatalf("Rget after the cancelled wait got %v, want [13 14]", got)
	}
	one := make([]int64, 1)
	must(t, mpi.Get(win, one, 0, 7))
	must(t, win.Unlock(0))
	if one[0] != 17 {
		t.Fatalf("Get after the cancelled wait got %v, want 17", one[0])
	}
	must(t, w.Barrier())
	must(t, win.Free())
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	must(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// waitStopped waits until process pid is stopped (its state in /proc is T).
func waitStopped(t *testing.T, pid int) {
	path := fmt.Sprintf("/proc/%d/stat", pid)
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); runtime.Gosched() {
		b, err := os.ReadFile(path)
		must(t, err)
		// pid (comm) state ...: comm may hold spaces, so look after the last ')'.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'T' {
			return
		}
	}
	t.Fatalf("process %d did not stop within 10s of SIGSTOP", pid)
}
