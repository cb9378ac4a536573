package shm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"
	"sync"
	"unsafe"

	"github.com/mpigo/mpigo/internal/pm"
	"github.com/mpigo/mpigo/internal/transport"
	"golang.org/x/sys/unix"
)

// peerInfo is what ReadFrom needs about a peer.
type peerInfo struct {
	pid  int
	task int       // the thread its single-copy calls name (its parked thread)
	cma  bool      // single-copy reads from this peer are possible
	why  string    // and if not, why not
	live *liveness // made by CheckPeer when first needed
	mem  *peerMem  // its memory table (memory.go), or nil
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

// readv copies len(dst) bytes from addr in process pid.
func readv(pid int, dst []byte, addr uint64) error { return cma(pid, dst, addr, false) }

// cma copies between buf and addr in process pid: from there into buf, or with write
// from buf to there. It loops over partial transfers (the kernel stops at a page it
// cannot get, or at MAX_RW_COUNT), and cuts a long copy into calls of rawCMA bytes.
func cma(pid int, buf []byte, addr uint64, write bool) error {
	for len(buf) > 0 {
		k := min(len(buf), rawCMA)
		local := [1]unix.Iovec{{Base: &buf[0]}}
		local[0].SetLen(k)
		remote := [1]unix.RemoteIovec{{Base: uintptr(addr), Len: k}}
		n, err := cmaCall(pid, local[:], remote[:], write, true)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return err
		case n <= 0:
			return unix.EFAULT
		}
		buf = buf[n:]
		addr += uint64(n)
	}
	return nil
}

// rawCMA is the most one single-copy call moves without telling the runtime: some
// tens of microseconds of copying, which delays at most the runtime's stops of the
// world and the rank's other goroutines by as much. Told (Syscall6), the runtime's
// monitor takes the processor from a thread it finds in a system call for 20 µs or
// more and, where the rank has one processor (GOMAXPROCS 1), wakes another thread to
// run it: that thread finds nothing to do but takes the core from the copying one,
// and the copier must get a processor back when its call returns. A copy of a few
// hundred KiB, an exchange's, lasts just that long.
const rawCMA = 1 << 20

// cmaCall is one process_vm_readv, or with write process_vm_writev, of pid's memory;
// raw makes it without the runtime's entry and exit (rawCMA says why).
func cmaCall(pid int, local []unix.Iovec, remote []unix.RemoteIovec, write, raw bool) (int, error) {
	trap := uintptr(unix.SYS_PROCESS_VM_READV)
	if write {
		trap = unix.SYS_PROCESS_VM_WRITEV
	}
	// The pointers are converted in the calls' argument lists, where the compiler
	// keeps what they point at alive and in place until the call returns.
	var n uintptr
	var e unix.Errno
	if raw {
		n, _, e = unix.RawSyscall6(trap, uintptr(pid), uintptr(unsafe.Pointer(&local[0])), uintptr(len(local)),
			uintptr(unsafe.Pointer(&remote[0])), uintptr(len(remote)), 0)
	} else {
		n, _, e = unix.Syscall6(trap, uintptr(pid), uintptr(unsafe.Pointer(&local[0])), uintptr(len(local)),
			uintptr(unsafe.Pointer(&remote[0])), uintptr(len(remote)), 0)
	}
	if e != 0 {
		return int(n), e
	}
	return int(n), nil
}

// ReadFrom implements transport.SingleCopy: it copies len(dst) bytes at addr in peer's
// address space into dst, with one or more process_vm_readv calls.
func (t *Transport) ReadFrom(peer int, dst []byte, addr uint64) error {
	return t.single(peer, dst, addr, false)
}

// WriteTo implements transport.SingleCopy: it copies src to addr in peer's address
// space, with one or more process_vm_writev calls.
func (t *Transport) WriteTo(peer int, src []byte, addr uint64) error {
	return t.single(peer, src, addr, true)
}

// single is ReadFrom, or with write WriteTo.
func (t *Transport) single(peer int, buf []byte, addr uint64, write bool) error {
	if len(buf) == 0 {
		return nil
	}
	op, p, err := t.cmaPeerFor(peer, write, "ReadFrom", "WriteTo")
	if err != nil {
		return err
	}
	if p.mem != nil && p.mem.copy(buf, addr, write) {
		return nil
	}
	if err := cma(p.task, buf, addr, write); err != nil {
		if errors.Is(err, unix.ESRCH) {
			return died(peer, p.pid)
		}
		return fmt.Errorf("shared memory: %s rank %d: %d bytes at %#x: %w", op, peer, len(buf), addr, err)
	}
	return nil
}

var _ transport.NodeCopier = (*Transport)(nil)

// cmaPeerFor is cmaPeer for a call named read, or with write named wr; it returns
// the call's name too.
func (t *Transport) cmaPeerFor(peer int, write bool, read, wr string) (string, *peerInfo, error) {
	op, what := read, "reads"
	if write {
		op, what = wr, "writes"
	}
	p, err := t.cmaPeer(peer, op, what)
	return op, p, err
}

// cmaPeer is what is known of peer, when single-copy calls (op, making what) to it
// are possible.
func (t *Transport) cmaPeer(peer int, op, what string) (*peerInfo, error) {
	if m := t.ready.Load(); m != nil {
		if p := (*m)[peer]; p != nil {
			return p, nil
		}
	}
	t.mu.Lock()
	p, err := t.peerLocked(peer)
	t.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if !p.cma {
		return nil, fmt.Errorf("shared memory: %s rank %d: single-copy %s are not available (%s)", op, peer, what, p.why)
	}
	return p, nil
}

// markReady adds p, peer's, to t.ready; t.mu is held.
func (t *Transport) markReady(peer int, p *peerInfo) {
	old := t.ready.Load()
	m := make(map[int]*peerInfo, 1)
	if old != nil {
		maps.Copy(m, *old)
	}
	m[peer] = p
	t.ready.Store(&m)
}

// peerLocked finds or makes what is known of peer; t.mu is held.
func (t *Transport) peerLocked(peer int) (*peerInfo, error) {
	if p, ok := t.peers[peer]; ok {
		return p, nil
	}
	switch {
	case !t.started:
		return nil, fmt.Errorf("shared memory: rank %d: used before Start", peer)
	case peer < 0 || peer >= t.c.Size() || t.c.NodeOf(peer) != t.node || peer == t.rank:
		return nil, fmt.Errorf("shared memory: rank %d: must be another rank on this node", peer)
	}
	raw, ok := t.c.Get(pm.Proc, pm.KeyPID, peer)
	if !ok || len(raw) < 4 {
		return nil, fmt.Errorf("shared memory: rank %d published no pid", peer)
	}
	return t.newPeer(peer, int(binary.LittleEndian.Uint32(raw))), nil
}

// newPeer is what is known of peer, whose process is pid, and is kept in t.peers;
// t.mu is held.
func (t *Transport) newPeer(peer, pid int) *peerInfo {
	p := &peerInfo{pid: pid, task: t.cmaTask(peer, pid), cma: t.cma, why: t.cmaWhy}
	if raw, ok := t.c.Get(pm.Proc, pm.KeyPID, peer); ok && len(raw) >= 12 && t.cma {
		p.mem = openPeerMem(pid, int(binary.LittleEndian.Uint32(raw[8:])))
	}
	t.peers[peer] = p
	return p
}

// cmaTask is the thread of peer, whose process is pid, that single-copy calls name:
// its parked thread, published beside the pid (pm.KeyPID), or the process itself.
func (t *Transport) cmaTask(peer, pid int) int {
	if raw, ok := t.c.Get(pm.Proc, pm.KeyPID, peer); ok && len(raw) >= 8 {
		if tid := int(binary.LittleEndian.Uint32(raw[4:])); tid > 0 {
			return tid
		}
	}
	return pid
}

var _ transport.Mapper = (*Transport)(nil)

// Mapped implements transport.Mapper: [addr, addr+n) lies in one allocation peer
// lists, mapped here (mapping it now if it is not yet).
func (t *Transport) Mapped(peer int, addr uint64, n int) bool {
	p, err := t.cmaPeer(peer, "Mapped", "reads")
	return err == nil && p.mem != nil && p.mem.mapped(addr, uint64(n))
}

// Map implements transport.Mapper: [addr, addr+n) in peer's memory, which must lie in
// one allocation the peer lists, through this process's mapping of it (the copies'),
// kept mapped until the call it returns, whatever the peer frees meanwhile.
func (t *Transport) Map(peer int, addr uint64, n int) ([]byte, func()) {
	p, err := t.cmaPeer(peer, "Map", "reads")
	if err != nil || p.mem == nil || n <= 0 {
		return nil, nil
	}
	part, ino := p.mem.pin(addr, uint64(n))
	if part == nil {
		return nil, nil
	}
	return part, func() { p.mem.unpin(ino) }
}

// Shares implements transport.Mapper: [addr, addr+n) lies in one allocation this
// process lists.
func (t *Transport) Shares(addr uint64, n int) bool {
	return Listed(addr, n)
}

// WriteVec writes srcs[i] to addrs[i] in peer's address space, many in one
// process_vm_writev (up to IOV_MAX at a time): a batch of small writes at the cost of
// one system call. A transfer the kernel cuts short is an error (the caller writes
// it another way).
func (t *Transport) WriteVec(peer int, srcs [][]byte, addrs []uint64) error {
	return t.vec(peer, srcs, addrs, true)
}

// ReadVec reads into dsts[i] from addrs[i] in peer's address space, many in one
// process_vm_readv, as WriteVec writes.
func (t *Transport) ReadVec(peer int, dsts [][]byte, addrs []uint64) error {
	return t.vec(peer, dsts, addrs, false)
}

// vec is ReadVec, or with write WriteVec.
func (t *Transport) vec(peer int, bufs [][]byte, addrs []uint64, write bool) error {
	if len(bufs) == 1 {
		return t.single(peer, bufs[0], addrs[0], write)
	}
	op, p, err := t.cmaPeerFor(peer, write, "ReadVec", "WriteVec")
	if err != nil {
		return err
	}
	if p.mem != nil && p.mem.copyVec(bufs, addrs, write) {
		return nil
	}
	v := iovPool.Get().(*iovecs)
	used := 0
	defer func() {
		clear(v.local[:used]) // keep no pointer to the caller's memory
		iovPool.Put(v)
	}()
	local, remote := &v.local, &v.remote
	for len(bufs) > 0 {
		k := min(len(bufs), iovMax)
		want := 0
		for i := range k {
			local[i] = unix.Iovec{Base: unsafe.SliceData(bufs[i])}
			local[i].SetLen(len(bufs[i]))
			remote[i] = unix.RemoteIovec{Base: uintptr(addrs[i]), Len: len(bufs[i])}
			want += len(bufs[i])
		}
		used = max(used, k)
		var n int
		n, err = cmaCall(p.task, local[:k], remote[:k], write, want <= rawCMA)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			if errors.Is(err, unix.ESRCH) {
				return died(peer, p.pid)
			}
			return fmt.Errorf("shared memory: %s rank %d: %d pieces: %w", op, peer, k, err)
		}
		if n != want {
			return fmt.Errorf("shared memory: %s rank %d: %d of %d bytes copied", op, peer, n, want)
		}
		bufs, addrs = bufs[k:], addrs[k:]
	}
	return nil
}

// iovecs is room for one vectored call's iovecs; a pool keeps them, since a call's
// own would be 32 KiB of stack to clear each time.
type iovecs struct {
	local  [iovMax]unix.Iovec
	remote [iovMax]unix.RemoteIovec
}

var iovPool = sync.Pool{New: func() any { return new(iovecs) }}

// iovMax is the most iovecs one process_vm_readv or process_vm_writev takes (Linux's UIO_MAXIOV).
const iovMax = 1024
