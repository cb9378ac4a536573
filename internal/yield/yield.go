// Package yield is how a waiting rank gives way: to the other goroutines of its
// process (Gosched) and to the other processes on its core (Core, OS).
//
// A goroutine locked to its thread (runtime.LockOSThread, as programs written for a C
// MPI's MPI_THREAD_FUNNELED often are) pays for a runtime.Gosched with two thread
// hand-offs (docs/BENCHMARKS.md, yielding from a locked thread), which made a 2-rank
// Barrier far slower. Gosched notices such
// a caller (its thread is switched out inside runtime.Gosched) and then gives way
// only once per skip+1 calls, until a call is cheap again.
package yield

import (
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// skip is how many Gosched calls are skipped per call that runs while the callers
// seem locked to their threads.
const skip = 63

// slowNanos: a runtime.Gosched longer than this either ran other goroutines or
// handed a locked caller's thread off; a cheap one did neither.
const slowNanos = 2000

// switchNanos: a sched_yield longer than this let another process run on the core.
const switchNanos = 2000

var (
	skipping atomic.Bool   // the last costly Gosched handed its caller's thread off
	calls    atomic.Uint32 // Gosched calls while skipping
	quiet    atomic.Int32  // costly Gosched calls to go before the next probe
)

// probeEvery is how many costly Gosched calls go unprobed after a probe.
const probeEvery = 64

var clock0 = time.Now()

// nanotime is a monotonic clock in nanoseconds.
func nanotime() int64 { return int64(time.Since(clock0)) }

// Gosched lets the process's other goroutines run (runtime.Gosched), except that
// while its callers seem locked to their threads it does so only once per skip+1
// calls (see the package comment). Safe for concurrent use.
func Gosched() {
	if skipping.Load() && calls.Add(1)%(skip+1) != 0 {
		return
	}
	t0 := nanotime()
	runtime.Gosched()
	if nanotime()-t0 < slowNanos {
		skipping.Store(false)
		return
	}
	// Costly: ask why, but only one costly call in probeEvery+1 (the probe costs two
	// more Goscheds and five system calls), so that neither unlocked goroutines that
	// keep each other busy nor a locked caller pay for it often. A caller taken for
	// locked by mistake gets every Gosched again at its next cheap one, or probe.
	if quiet.Add(-1) < 0 {
		skipping.Store(handsOff())
		quiet.Store(probeEvery)
	}
}

// handsOff reports whether a runtime.Gosched switches the calling thread out, as it
// does every time when the calling goroutine is locked to it: the thread sleeps until
// the P comes back, or the thread it wakes preempts it first. An unlocked goroutine's
// thread runs the other goroutines itself, or the goroutine moves to another thread:
// two tries, each of which must end on the same thread after a switch, keep a thread
// that happened to park or be preempted meanwhile from passing for a locked one.
func handsOff() bool {
	for try := 0; try < 2; try++ {
		tid := unix.Gettid()
		var a, b unix.Rusage
		if unix.Getrusage(unix.RUSAGE_THREAD, &a) != nil {
			return false
		}
		runtime.Gosched()
		if unix.Getrusage(unix.RUSAGE_THREAD, &b) != nil || unix.Gettid() != tid ||
			b.Nvcsw+b.Nivcsw == a.Nvcsw+a.Nivcsw {
			return false
		}
	}
	return true
}

// Skipping reports whether Gosched is currently skipping calls.
func Skipping() bool { return skipping.Load() }

// Core gives the CPU to another process that waits for it, if any (sched_yield,
// which the Go runtime does not see: the goroutine keeps its P).
func Core() { unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }

// OS lets other goroutines, then other processes, run, and reports whether another
// process took the core meanwhile (the yield took long).
func OS() bool {
	Gosched()
	return Switch()
}

// Switch gives the CPU to another process, as Core, and reports whether one took the
// core meanwhile (the yield took long); unlike OS it lets no other goroutine run first.
func Switch() bool {
	t0 := nanotime()
	Core()
	return nanotime()-t0 > switchNanos
}
