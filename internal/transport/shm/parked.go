package shm

import (
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// parked is a thread of this process that does not run while the transport is open,
// which peers' single-copy calls name (process_vm_readv and process_vm_writev take
// any thread of a process and use its memory). The kernel looks that task up and
// holds a reference to it for each call; named by the process id, it is the main
// thread's task, which in a C program is the one calling MPI and writes that task's
// lines on every system call of its own, so each peer's call waited for them to cross
// the cores. The thread is a goroutine's, locked to it and blocked until release, so
// the id stays valid while the transport is open.
type parked struct {
	tid        int
	stop, done chan struct{}
}

// park starts the parked thread. A goroutine that locks the main thread (Go's first
// thread may be free when it starts) keeps it until the next one has locked another,
// and then lets it go.
func park() *parked {
	pid := os.Getpid()
	tid := make(chan int)
	stop, done := make(chan struct{}), make(chan struct{})
	var held chan struct{}
	for {
		release := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			id := unix.Gettid()
			tid <- id
			if id == pid {
				<-release
				runtime.UnlockOSThread()
				return
			}
			<-stop
			runtime.UnlockOSThread()
			close(done)
		}()
		id := <-tid
		if held != nil {
			close(held)
		}
		if id != pid {
			return &parked{tid: id, stop: stop, done: done}
		}
		held = release
	}
}

// release ends the parked thread's goroutine and waits for it.
func (p *parked) release() {
	close(p.stop)
	<-p.done
}
