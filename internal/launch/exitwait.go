package launch

import (
	"os"
	"os/exec"

	"golang.org/x/sys/unix"
)

// A launcher goroutine that waits for a rank must hold no thread while it waits. A
// blocking wait (exec.Cmd.Wait's waitid) or a read of a blocking descriptor holds one
// for as long as the rank runs: the launcher then needs two threads a rank, which count
// against the same limit on processes (ulimit -u) as the ranks do, and where the Go
// runtime cannot make a thread it aborts, leaving no error of the launcher's and no
// ranks stopped. So a rank's end is awaited on the runtime's poller (a pidfd), and its
// wire-up socket is non-blocking, read on the poller too.

// waitRank reaps cmd's process once it has exited; a thread is held only for the
// reaping itself.
func waitRank(cmd *exec.Cmd) error {
	awaitExit(cmd.Process.Pid)
	return cmd.Wait()
}

// awaitExit returns once process pid, a child of this one, has exited, without
// reaping it. Where there is no pidfd (Linux before 5.3) or it cannot be polled, it
// returns at once, and the caller's wait blocks as before.
func awaitExit(pid int) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Read(func(fd uintptr) bool {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PIDFD, int(fd), &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
		// The kernel leaves info zero while the process runs.
		return err != nil || info.Signo != 0
	})
}
