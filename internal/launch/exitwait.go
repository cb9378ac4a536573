package launch

import (
	"os"
	"os/exec"
	"sync"

	"golang.org/x/sys/unix"
)

// A launcher goroutine that waits for a rank must hold no thread while it waits. A
// blocking wait (exec.Cmd.Wait's waitid) or a read of a blocking descriptor holds one
// for as long as the rank runs: the launcher then needs two threads a rank, which count
// against the same limit on processes (ulimit -u) as the ranks do, and where the Go
// runtime cannot make a thread it aborts, leaving no error of the launcher's and no
// ranks stopped. So a rank's end is awaited on the runtime's poller (a pidfd), and its
// wire-up socket is non-blocking, read on the poller too.
//
// Which rank ended first decides the run's exit code, since a rank that sees a peer
// die usually fails too, a moment later. The goroutines that wait for two ranks may
// run in either order on a loaded machine, so the order is taken from the kernel:
// every rank's pidfd is watched by one epoll instance, whose ready list keeps the
// order in which the processes ended, and one reader numbers the ends in that order.

// exitWatch is the watch on one rank's process, set as soon as it starts.
type exitWatch struct {
	pid  int
	done chan uint64 // the end's number, once the process has ended
}

// watchExit starts watching process pid, a child of this one. Where there is no
// pidfd (Linux before 5.3) or no epoll for it, the watch is numbered when the
// caller's wait returns instead.
func watchExit(pid int) *exitWatch {
	w := &exitWatch{pid: pid}
	if ends.ready() {
		if fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK); err == nil {
			w.done = make(chan uint64, 1)
			if !ends.add(fd, w.done) {
				unix.Close(fd)
				w.done = nil
			}
		}
	}
	return w
}

// waitRank reaps cmd's process once it has exited, and returns the number of its end
// in the order of all ranks' ends; a thread is held only for the reaping itself.
func (w *exitWatch) waitRank(cmd *exec.Cmd) uint64 {
	var n uint64
	if w.done != nil {
		n = <-w.done
	}
	cmd.Wait()
	if n == 0 {
		n = ends.next()
	}
	return n
}

// exitOrder numbers processes' ends in the order the kernel saw them.
type exitOrder struct {
	once sync.Once
	ep   *os.File // the epoll instance, itself read on the poller; nil if none
	mu   sync.Mutex
	seq  uint64
	wait map[int32]chan uint64 // by pidfd, the watches not yet ended
	dead bool                  // the reader stopped
}

var ends exitOrder

func (o *exitOrder) ready() bool {
	o.once.Do(o.start)
	return o.ep != nil
}

func (o *exitOrder) start() {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return
	}
	o.ep = os.NewFile(uintptr(fd), "exit-epoll")
	o.wait = map[int32]chan uint64{}
	rc, err := o.ep.SyscallConn()
	if err != nil {
		o.ep = nil
		return
	}
	go o.read(rc)
}

// add watches pidfd fd; its number goes to done when the process ends.
func (o *exitOrder) add(fd int, done chan uint64) bool {
	o.mu.Lock()
	if o.dead {
		o.mu.Unlock()
		return false
	}
	o.wait[int32(fd)] = done
	o.mu.Unlock()
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLONESHOT, Fd: int32(fd)}
	var err error
	if rc, e := o.ep.SyscallConn(); e == nil {
		rc.Control(func(ep uintptr) { err = unix.EpollCtl(int(ep), unix.EPOLL_CTL_ADD, fd, &ev) })
	} else {
		err = e
	}
	if err != nil {
		o.mu.Lock()
		_, mine := o.wait[int32(fd)]
		delete(o.wait, int32(fd))
		o.mu.Unlock()
		return !mine
	}
	return true
}

// next is the next number, for an end seen by other means.
func (o *exitOrder) next() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seq++
	return o.seq
}

// read numbers the ends as the epoll instance gives them, for as long as the
// process runs (one goroutine, parked on the poller between ends).
func (o *exitOrder) read(rc interface {
	Read(func(uintptr) bool) error
}) {
	evs := make([]unix.EpollEvent, 64)
	broken := false
	for !broken {
		err := rc.Read(func(ep uintptr) bool {
			n, err := unix.EpollWait(int(ep), evs, 0)
			if n <= 0 {
				broken = err != nil && err != unix.EINTR
				return broken
			}
			o.mu.Lock()
			for _, ev := range evs[:n] {
				o.seq++
				if done, ok := o.wait[ev.Fd]; ok {
					delete(o.wait, ev.Fd)
					done <- o.seq
				}
				unix.Close(int(ev.Fd))
			}
			o.mu.Unlock()
			return true
		})
		broken = broken || err != nil
	}
	// Without the reader no end would be numbered: the watches left, and any later
	// one, are numbered when their waits return.
	o.mu.Lock()
	o.dead = true
	for fd, done := range o.wait {
		done <- 0
		unix.Close(int(fd))
	}
	clear(o.wait)
	o.mu.Unlock()
}
