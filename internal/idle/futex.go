package idle

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// FutexWait sleeps while the 32-bit word at addr holds val, until a FutexWake on it or
// for at most timeout; it returns at once if the word differs. It may also return
// early (a wake for an earlier value), so callers look again; a signal does not end
// it. Waits always carry a timeout: a peer can die without waking anyone.
//
// The futex is not process-private: the word may be in memory other processes map,
// the wakers.
func FutexWait(addr *uint32, val uint32, timeout time.Duration) {
	end := time.Now().Add(timeout)
	for {
		ts := unix.NsecToTimespec(int64(timeout))
		_, _, e := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitOp, uintptr(val),
			uintptr(unsafe.Pointer(&ts)), 0, 0)
		// A signal (Go's preemption, the profiler's) interrupts the sleep but is not
		// a wake: sleep out the rest.
		if e != unix.EINTR {
			return
		}
		if timeout = time.Until(end); timeout <= 0 {
			return
		}
	}
}

// FutexWake wakes every sleeper on the word at addr. The call never blocks, so it is
// made without the runtime's entry and exit (RawSyscall6), which cost more than the
// wake itself where nobody sleeps.
func FutexWake(addr *uint32) {
	unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWakeOp, 1<<30, 0, 0, 0)
}

// Futex operations (linux/futex.h; x/sys/unix does not export them), shared, not
// FUTEX_PRIVATE_FLAG: the words live in memory other processes map.
const (
	futexWaitOp = 0 // FUTEX_WAIT
	futexWakeOp = 1 // FUTEX_WAKE
)
