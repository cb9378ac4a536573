package p2p

import (
	"sync"
	"sync/atomic"
	"unsafe"
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
type engineLock struct {
	mu  sync.Mutex
	off atomic.Bool
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
func (l *engineLock) lock() { l.mu.Lock() }

//go:noinline
func (l *engineLock) unlock() { l.mu.Unlock() }

func (l *engineLock) tryLock() bool { return l.mu.TryLock() }

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
	atomic.StoreUint32(&e.out.ok, 0) // the short way outside Go takes no lock
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
