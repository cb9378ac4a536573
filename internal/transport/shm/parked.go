package shm

import (
	"os"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// parkedTID is the thread id of a thread of this process that never runs, which
// peers' single-copy calls name (process_vm_readv and process_vm_writev take any
// thread of a process and use its memory). The kernel looks that task up and holds a
// reference to it for each call; named by the process id, it is the main thread's
// task, which in a C program is the one calling MPI and writes that task's lines on
// every system call of its own, so each peer's call waited for them to cross the
// cores. The thread is a goroutine's, locked to it and blocked for the life of the
// process, so the id stays valid as long as the process. A goroutine that locks the
// main thread (Go's first thread may be free when it starts) keeps it until the next
// one has locked another, and then lets it go.
var parkedTID = sync.OnceValue(func() int {
	pid := os.Getpid()
	tid := make(chan int)
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
			select {}
		}()
		id := <-tid
		if held != nil {
			close(held)
		}
		if id != pid {
			return id
		}
		held = release
	}
})
