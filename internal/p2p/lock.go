package p2p

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/mpigo/mpigo/internal/idle"
)

// engineLock is the engine's mutex, or no lock at all while the program has promised
// that its goroutines call the engine one at a time (MPI_THREAD_SERIALIZED and the
// levels below it) and mpigo itself runs no goroutine that calls it.
//
// Why it matters: on x86 every locked instruction waits until the stores before it
// have left the store buffer. A small send copies its payload into the receiver's
// ring, whose cache lines the receiver holds, so the unlock after it waits for a
// cross-core transfer of every line: at 1 KiB that stall is most of a message's
// cost in a stream. Without the lock, the copies of successive messages overlap.
//
// The lock goes from off to on once (Concurrent) and never back. The switch is made
// by the program's goroutine between engine calls, before mpigo starts a goroutine of
// its own, so no critical section straddles it.
//
// With Options.SharedLock the lock is a word in the engine's outside memory (w, 0
// free, 1 held), which code outside Go takes too: the C library's short ways at
// MPI_THREAD_MULTIPLE (abi/libmpi/p2pshort.c) try it once and take the Go way if it
// is held, so they never wait for it and hold it only for a bounded piece of work.
// Go takes it with one compare-and-swap; a goroutine that finds it held waits for it
// under mu, so that one Go waiter spins at a time and the others park.
type engineLock struct {
	mu  sync.Mutex
	off atomic.Bool
	w   *uint32
	rmu sync.Mutex // held with w in race builds (raceLock)
}

// Lock, Unlock and TryLock test off inline and call the mutex out of line: inlined
// whole, the mutex's own fast path would make them too big to inline, and a serialised
// program would pay a call for nothing several times per message.
func (l *engineLock) Lock() {
	if !l.off.Load() {
		l.lock()
	}
}

func (l *engineLock) Unlock() {
	if !l.off.Load() {
		l.unlock()
	}
}

func (l *engineLock) TryLock() bool {
	return l.off.Load() || l.tryLock()
}

//go:noinline
func (l *engineLock) lock() {
	if l.w == nil {
		l.mu.Lock()
		return
	}
	if !atomic.CompareAndSwapUint32(l.w, 0, 1) {
		l.lockShared()
	}
	if raceLock {
		l.rmu.Lock()
	}
}

//go:noinline
func (l *engineLock) unlock() {
	if l.w == nil {
		l.mu.Unlock()
		return
	}
	if raceLock {
		l.rmu.Unlock()
	}
	atomic.StoreUint32(l.w, 0)
}

func (l *engineLock) tryLock() bool {
	if l.w == nil {
		return l.mu.TryLock()
	}
	if !atomic.CompareAndSwapUint32(l.w, 0, 1) {
		return false
	}
	if raceLock {
		l.rmu.Lock()
	}
	return true
}

// lockShared waits for the shared word. Its holder is another goroutine or a C short
// way, which holds it for a bounded piece of work, or a goroutine in a system call
// under the lock (a large single-copy read): so spin a little, then let other
// goroutines run, then sleep in short naps rather than keep a core from a rank that
// has work.
func (l *engineLock) lockShared() {
	l.mu.Lock()
	for i := 0; !atomic.CompareAndSwapUint32(l.w, 0, 1); i++ {
		switch {
		case i < sharedSpins:
			idle.Pause()
		case i < sharedSpins+sharedYields:
			runtime.Gosched()
		default:
			time.Sleep(sharedNap)
		}
	}
	l.mu.Unlock()
}

// How lockShared waits: polls with a pause, then yields, then naps.
const (
	sharedSpins  = 100
	sharedYields = 100
	sharedNap    = 20 * time.Microsecond
)

// shareLock makes the engine's lock the outside word (Options.SharedLock). New calls
// it before the engine is used.
func (e *Engine) shareLock() {
	e.mu.w = &e.out.lockw
}

// Serialized reports whether the engine runs without its lock (see Options.Serialized).
func (e *Engine) Serialized() bool { return e.mu.off.Load() }

// Concurrent makes the engine take its lock from now on, for good: call it before
// starting a goroutine that will call the engine while the caller goes on calling it
// too (mpi does, for Idup and the nonblocking neighbourhood collectives). It must
// not be called from inside an engine call. Without Options.Serialized it does nothing.
func (e *Engine) Concurrent() {
	if e.out.deferred != 0 && e.mu.off.Load() {
		e.postDeferred() // while the engine's calls take no lock
	}
	e.mu.off.Store(false)
	e.mu.Lock()
	e.outsideOK() // the short way outside Go now takes the lock, if it is shared
	e.mu.Unlock()
}

// setDone marks r complete for its waiters: an atomic store (a locked exchange on
// amd64) when other goroutines may be watching, a plain one when calls are serialised.
func (e *Engine) setDone(r *request) {
	if e.mu.off.Load() {
		*(*uint32)(unsafe.Pointer(&r.done)) = 1
		return
	}
	r.done.Store(1)
}
