package shm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"github.com/mpigo/mpigo/internal/pm"
	"golang.org/x/sys/unix"
)

// peerInfo is what ReadFrom needs about a peer.
type peerInfo struct {
	pid  int
	cma  bool      // single-copy reads from this peer are possible
	why  string    // and if not, why not
	live *liveness // made by CheckPeer when first needed
}

// probeCMA decides at Start whether this process can use process_vm_readv at all:
// Yama may forbid it (ptrace_scope 3), seccomp (some container runtimes) may refuse
// the system call. Permission towards a given peer is probed again when connecting.
// Like Open MPI, it lets any process of the same user read this one when Yama
// restricts ptrace to descendants (scope 1), since MPI peers are siblings.
func probeCMA() (bool, string) {
	if b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope"); err == nil {
		switch strings.TrimSpace(string(b)) {
		case "0":
		case "3":
			return false, "Yama ptrace_scope is 3: no process may read another's memory"
		default:
			if err := unix.Prctl(unix.PR_SET_PTRACER, unix.PR_SET_PTRACER_ANY, 0, 0, 0); err != nil {
				return false, fmt.Sprintf("prctl(PR_SET_PTRACER, ANY) failed under Yama: %v", err)
			}
		}
	}
	var probe, got uint64 = magic, 0
	if err := readv(os.Getpid(), unsafe.Slice((*byte)(unsafe.Pointer(&got)), 8),
		uint64(uintptr(unsafe.Pointer(&probe)))); err != nil || got != magic {
		return false, fmt.Sprintf("process_vm_readv on this process failed: %v", err)
	}
	return true, ""
}

// probePeer reads the first word of the peer's segment at the address the peer mapped
// it, which must be the magic number.
func probePeer(pid int, base uint64) bool {
	var got uint64
	err := readv(pid, unsafe.Slice((*byte)(unsafe.Pointer(&got)), 8), base)
	return err == nil && got == magic
}

// readv copies len(dst) bytes from addr in process pid, looping over partial reads (the
// kernel stops at a page it cannot get, or at MAX_RW_COUNT).
func readv(pid int, dst []byte, addr uint64) error {
	for len(dst) > 0 {
		local := [1]unix.Iovec{{Base: &dst[0]}}
		local[0].SetLen(len(dst))
		remote := [1]unix.RemoteIovec{{Base: uintptr(addr), Len: len(dst)}}
		n, err := unix.ProcessVMReadv(pid, local[:], remote[:], 0)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return err
		case n <= 0:
			return unix.EFAULT
		}
		dst = dst[n:]
		addr += uint64(n)
	}
	return nil
}

// writev copies src to addr in process pid, looping over partial writes.
func writev(pid int, src []byte, addr uint64) error {
	for len(src) > 0 {
		local := [1]unix.Iovec{{Base: &src[0]}}
		local[0].SetLen(len(src))
		remote := [1]unix.RemoteIovec{{Base: uintptr(addr), Len: len(src)}}
		n, err := unix.ProcessVMWritev(pid, local[:], remote[:], 0)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return err
		case n <= 0:
			return unix.EFAULT
		}
		src = src[n:]
		addr += uint64(n)
	}
	return nil
}

// WriteTo implements transport.SingleCopy: it copies src to addr in peer's address
// space, with one or more process_vm_writev calls.
func (t *Transport) WriteTo(peer int, src []byte, addr uint64) error {
	if len(src) == 0 {
		return nil
	}
	t.mu.Lock()
	p, err := t.peerLocked(peer)
	t.mu.Unlock()
	if err != nil {
		return err
	}
	if !p.cma {
		return fmt.Errorf("shm: WriteTo rank %d: single-copy writes are not available (%s)", peer, p.why)
	}
	if err := writev(p.pid, src, addr); err != nil {
		if errors.Is(err, unix.ESRCH) {
			return died(peer, p.pid)
		}
		return fmt.Errorf("shm: WriteTo rank %d: %d bytes at %#x: %w", peer, len(src), addr, err)
	}
	return nil
}

// ReadFrom implements transport.SingleCopy: it copies len(dst) bytes at addr in peer's
// address space into dst, with one or more process_vm_readv calls.
func (t *Transport) ReadFrom(peer int, dst []byte, addr uint64) error {
	if len(dst) == 0 {
		return nil
	}
	t.mu.Lock()
	p, err := t.peerLocked(peer)
	t.mu.Unlock()
	if err != nil {
		return err
	}
	if !p.cma {
		return fmt.Errorf("shm: ReadFrom rank %d: single-copy reads are not available (%s)", peer, p.why)
	}
	if err := readv(p.pid, dst, addr); err != nil {
		if errors.Is(err, unix.ESRCH) {
			return died(peer, p.pid)
		}
		return fmt.Errorf("shm: ReadFrom rank %d: %d bytes at %#x: %w", peer, len(dst), addr, err)
	}
	return nil
}

// peerLocked finds or makes what is known of peer; t.mu is held.
func (t *Transport) peerLocked(peer int) (*peerInfo, error) {
	if p, ok := t.peers[peer]; ok {
		return p, nil
	}
	switch {
	case !t.started:
		return nil, fmt.Errorf("shm: rank %d: used before Start", peer)
	case peer < 0 || peer >= t.c.Size() || t.c.NodeOf(peer) != t.node || peer == t.rank:
		return nil, fmt.Errorf("shm: rank %d: must be another rank on this node", peer)
	}
	raw, ok := t.c.Get(pm.Proc, pm.KeyPID, peer)
	if !ok || len(raw) < 4 {
		return nil, fmt.Errorf("shm: rank %d published no pid", peer)
	}
	p := &peerInfo{pid: int(binary.LittleEndian.Uint32(raw)), cma: t.cma, why: t.cmaWhy}
	t.peers[peer] = p
	return p, nil
}
