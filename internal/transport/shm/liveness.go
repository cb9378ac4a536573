package shm

import (
	"errors"
	"strconv"

	"github.com/mpigo/mpigo/internal/transport"
	"golang.org/x/sys/unix"
)

// liveness tells whether a peer process still runs. A pidfd is immune to pid reuse and
// turns readable when the process exits (a zombie counts as exited, which matters when
// the peer is our own child, as in tests); without pidfd_open (Linux < 5.3) we fall
// back to kill(pid, 0).
type liveness struct {
	pid   int
	pidfd int
}

func newLiveness(pid int) liveness {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			return liveness{pid: pid, pidfd: -2} // already gone
		}
		fd = -1
	}
	return liveness{pid: pid, pidfd: fd}
}

// alive costs one system call; callers use it on slow paths only.
func (l *liveness) alive() bool {
	switch {
	case l.pidfd == -2:
		return false
	case l.pidfd >= 0:
		fds := [1]unix.PollFd{{Fd: int32(l.pidfd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(fds[:], 0)
			if err == unix.EINTR {
				continue
			}
			return err != nil || n == 0
		}
	default:
		return unix.Kill(l.pid, 0) != unix.ESRCH
	}
}

func (l *liveness) close() {
	if l.pidfd >= 0 {
		unix.Close(l.pidfd)
		l.pidfd = -1
	}
}

// PeerGoneError says which peer is gone and why; it wraps transport.ErrPeerGone.
type PeerGoneError struct {
	Rank int
	Why  string // "died (pid 123)", "closed its transport", ...
}

func (e *PeerGoneError) Error() string {
	return "rank " + strconv.Itoa(e.Rank) + " " + e.Why + ": " + transport.ErrPeerGone.Error()
}

// Unwrap makes errors.Is(err, transport.ErrPeerGone) hold.
func (e *PeerGoneError) Unwrap() error { return transport.ErrPeerGone }

// Peer is the rank that is gone (the point-to-point engine fails only its requests).
func (e *PeerGoneError) Peer() int { return e.Rank }

func died(rank, pid int) error {
	return &PeerGoneError{Rank: rank, Why: "died (pid " + strconv.Itoa(pid) + ")"}
}

func closedBy(rank int) error { return &PeerGoneError{Rank: rank, Why: "closed its transport"} }
