package mpio

import (
	"errors"
	"slices"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// File is an open file of the operating system, as one process of an MPI file holds
// it: a descriptor and the calls MPI-IO needs, each returning the errors of this
// package's classes.
type File struct {
	fd       int
	path     string
	readable bool // opened for reading (a write-only file where the permissions allowed it)
	writable bool
	memory   bool        // on a file system in memory (tmpfs)
	local    bool        // on a file system of this machine's (memory or a local disk's)
	rawRead  int         // the longest read made without the runtime (call), 0 for none
	rawWrite int         // the same for writes
	piece    int         // the longest write call, 0 for no bound (writePiece)
	behind   atomic.Bool // long writes start their writeback (SetWriteBehind)
	syncs    atomic.Int64
	m        mapping // WriteMapped's (mapped.go)
}

// Open opens path with the access mode a (checked by the caller), creating it when
// create is set and a has Create (Excl: failing if it exists), with permissions perm
// (before the umask). A write-only file is opened for reading too where the
// permissions allow. A directory is refused with ErrBadFile.
func Open(path string, a Amode, create bool, perm uint32) (*File, error) {
	flags := a.flags(create)
	fd, err := openRetry(path, flags, perm)
	readable := true
	if err != nil && a&Wronly != 0 && errors.Is(err, unix.EACCES) {
		fd, err = openRetry(path, flags&^unix.O_RDWR|unix.O_WRONLY, perm)
		readable = false
	}
	if err != nil {
		return nil, sysErr("open", path, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, sysErr("fstat", path, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		unix.Close(fd)
		return nil, errorf(ErrBadFile, "%s is a directory", path)
	}
	var fs unix.Statfs_t
	typ := int64(-1)
	if unix.Fstatfs(fd, &fs) == nil {
		typ = int64(fs.Type)
	}
	memory := typ == unix.TMPFS_MAGIC || typ == unix.RAMFS_MAGIC
	f := &File{fd: fd, path: path, readable: readable, writable: a.CanWrite(), memory: memory,
		local: memory || slices.Contains(localFS, typ)}
	f.rawRead, f.rawWrite = rawLimits(memory, f.local)
	f.m.known.Store(st.Size)
	if typ == unix.EXT4_SUPER_MAGIC {
		f.piece = writePiece
	}
	f.behind.Store(f.BehindByDefault())
	return f, nil
}

// writePiece bounds the bytes of one write call to a file on ext4. The kernel gives
// the pages a write brings into its cache folios as large as the call (up to 2 MiB),
// and they stay so while cached. ext4 keeps a buffer head per block of a folio, and
// a later write of a few bytes into the folio walks all of them, and its sync writes
// the folio back: over a file written in one call of 16 MiB a write of 64 bytes
// costs several times what it costs over one written in pieces of 256 KiB, where a
// large write loses nothing measurable (docs/BENCHMARKS.md).
const writePiece = 256 << 10

// WritePiece is the longest write call a writer of the file should make, 0 for no
// bound: for code outside Go that writes to the descriptor (Fd).
func (f *File) WritePiece() int { return f.piece }

// rawLimits gives the longest read and write of a file that call makes without the
// Go runtime's bookkeeping. In memory both are copies. On a local disk a small write
// is a copy into the page cache too; it waits on the device only where the kernel
// must first read a partial block it has not cached or throttles a process that
// dirtied too much, and such a wait holds the rank's processor as it holds a C
// process's thread, for no longer than the kernel takes and never on this process.
// A read there waits on the device whenever its pages are not cached, so reads tell
// the runtime, as every call to a file elsewhere does.
func rawLimits(memory, local bool) (read, write int) {
	switch {
	case memory:
		return rawMax, rawMax
	case local:
		return 0, rawMax
	}
	return 0, 0
}

// localFS are the file systems of local disks whose reads come from the page cache
// at the cost of a copy; a file elsewhere (NFS, a parallel file system) may cost a
// round trip per request.
var localFS = []int64{unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC,
	unix.F2FS_SUPER_MAGIC, unix.OVERLAYFS_SUPER_MAGIC}

func openRetry(path string, flags int, perm uint32) (int, error) {
	for {
		fd, err := unix.Open(path, flags, perm)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// Path is the name the file was opened by.
func (f *File) Path() string { return f.path }

// Fd is the file's descriptor, -1 once closed: for code outside Go that makes the
// system calls of the explicit-offset accesses' short way itself (the C library's,
// abi/libmpi/fileshort.c), on a file its caller keeps open meanwhile.
func (f *File) Fd() int { return f.fd }

// Readable reports whether the descriptor may be read (a write-only file may be).
func (f *File) Readable() bool { return f.readable }

// InMemory reports whether the file lies on a file system in memory (tmpfs, as
// /dev/shm), where small writes of many processes cost what copies cost.
func (f *File) InMemory() bool { return f.memory }

// Local reports whether the file lies in memory or on a local disk's file system
// (ext4, xfs, btrfs, f2fs, overlayfs), where a request costs a system call, not a
// round trip to a server.
func (f *File) Local() bool { return f.local }

// ReadAt reads len(p) bytes at off, fewer only at the end of the file: n < len(p)
// with a nil error means the file ended.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if len(p) >= mapReadMin {
		if n, ok := f.readMapped(p, off); ok {
			return n, nil
		}
	}
	// The common case, a small access's, first: one system call made directly,
	// without x/sys's wrapper and its error value. A short count goes on in the loop
	// from there; an error takes the loop from the start, which makes the call again
	// to retry it (EINTR) or report it.
	if len(p) > 0 {
		k, e := f.call(unix.SYS_PREAD64, p, off, len(p) <= f.rawRead)
		switch {
		case e == 0 && (int(k) == len(p) || k == 0): // all of it, or the end of the file
			return int(k), nil
		case e == 0 && int(k) < len(p):
			return f.readFrom(p, off, int(k))
		}
	}
	return f.readFrom(p, off, 0)
}

// call makes the positioned system call trap (pread64 or pwrite64) for p at off,
// once. A raw call (rawLimits says which) is made without telling the runtime
// (RawSyscall6). That saves the runtime's entry and exit, a tenth of a small call's
// cost, and more: in a rank of one processor (GOMAXPROCS 1), the runtime's monitor
// takes the processor from a thread it finds in a system call and wakes another
// thread for it, which then competes for the rank's core. Any other call may wait on
// a device or a server, and tells the runtime, so that the process's other goroutines
// go on meanwhile.
func (f *File) call(trap uintptr, p []byte, off int64, raw bool) (uintptr, syscall.Errno) {
	ptr, n := uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p))
	if raw {
		k, _, e := syscall.RawSyscall6(trap, uintptr(f.fd), ptr, n, uintptr(off), 0, 0)
		return k, e
	}
	k, _, e := syscall.Syscall6(trap, uintptr(f.fd), ptr, n, uintptr(off), 0, 0)
	return k, e
}

// rawMax is the longest access call makes without the runtime: a copy of 64 KiB
// takes a few microseconds, well within the time after which the runtime would hand
// the caller's processor to another thread (20 µs at least).
const rawMax = 64 << 10

// readFrom is ReadAt's loop, from byte n of p on.
func (f *File) readFrom(p []byte, off int64, n int) (int, error) {
	for n < len(p) {
		k, err := unix.Pread(f.fd, p[n:], off+int64(n))
		if err == nil && k > 0 { // the common case first: no error's comparisons
			n += k
			continue
		}
		switch {
		case err == unix.EINTR || err == unix.EAGAIN:
			continue
		case err != nil:
			return n, sysErr("read", f.path, err)
		case k == 0:
			return n, nil
		}
		n += k
	}
	return n, nil
}

// WriteAt writes p at off, all of it or an error.
func (f *File) WriteAt(p []byte, off int64) (int, error) {
	// As ReadAt: one direct system call, else the loop.
	if len(p) > 0 && (f.piece == 0 || len(p) <= f.piece) {
		k, e := f.call(unix.SYS_PWRITE64, p, off, len(p) <= f.rawWrite)
		if e == 0 && int(k) == len(p) {
			f.m.learnAtLeast(off + int64(k))
			if len(p) >= behindStep && f.behind.Load() {
				f.startWriteback(off, int64(k))
			}
			return len(p), nil
		}
		if e == 0 && int(k) > 0 && int(k) < len(p) {
			return f.writeFrom(p, off, int(k))
		}
	}
	return f.writeFrom(p, off, 0)
}

// writeFrom is WriteAt's loop, from byte n of p on.
func (f *File) writeFrom(p []byte, off int64, n int) (int, error) {
	wb := behindFrom(len(p) >= behindStep && f.behind.Load(), off+int64(n))
	for n < len(p) {
		q := p[n:]
		if f.piece > 0 && len(q) > f.piece {
			q = q[:f.piece]
		}
		k, err := unix.Pwrite(f.fd, q, off+int64(n))
		if err == nil && k > 0 {
			n += k
			wb.wrote(f, off+int64(n), n == len(p))
			continue
		}
		switch {
		case err == unix.EINTR || err == unix.EAGAIN:
			continue
		case err != nil:
			return n, sysErr("write", f.path, err)
		case k == 0:
			return n, errorf(ErrIO, "write %s: the system wrote nothing at %d", f.path, off+int64(n))
		}
		n += k
	}
	f.m.learnAtLeast(off + int64(n))
	return n, nil
}

// WriteParts writes parts back to back from off, all of them or an error, by
// pwritev: one system call for up to iovMax parts (more where the kernel writes
// fewer bytes than asked), so that a file system that locks the file for a write
// (tmpfs, ext4: the inode's lock) takes its lock once for all of them. It returns
// the bytes written.
func (f *File) WriteParts(parts [][]byte, off int64) (int64, error) {
	var small [16]unix.Iovec
	iov := small[:0]
	total := 0
	for _, p := range parts {
		if len(p) > 0 {
			v := unix.Iovec{Base: &p[0]}
			v.SetLen(len(p))
			iov = append(iov, v)
			total += len(p)
		}
	}
	sys := syscall.Syscall6
	if total <= f.rawWrite { // as call's
		sys = syscall.RawSyscall6
	}
	var done int64
	wb := behindFrom(total >= behindStep && f.behind.Load(), off)
	for len(iov) > 0 {
		at := off + done
		cnt, first := f.batch(iov)
		whole := iov[0].Len
		iov[0].Len = first
		k, _, e := sys(unix.SYS_PWRITEV, uintptr(f.fd), uintptr(unsafe.Pointer(&iov[0])),
			uintptr(cnt), uintptr(at), uintptr(uint64(at)>>32), 0)
		iov[0].Len = whole
		switch {
		case e == unix.EINTR || e == unix.EAGAIN:
			continue
		case e != 0:
			return done, sysErr("write", f.path, e)
		case k == 0:
			return done, errorf(ErrIO, "write %s: the system wrote nothing at %d", f.path, at)
		}
		done += int64(k)
		wb.wrote(f, off+done, done == int64(total))
		for n := uint64(k); n > 0; {
			if l := iov[0].Len; l <= n {
				n -= l
				iov = iov[1:]
				continue
			}
			iov[0].Base = (*byte)(unsafe.Add(unsafe.Pointer(iov[0].Base), n))
			iov[0].Len -= n
			n = 0
		}
	}
	f.m.learnAtLeast(off + done)
	return done, nil
}

// batch is how many of iov's parts one pwritev takes, at most iovMax and, where the
// file bounds its write calls (writePiece), no more bytes than that in all; of the
// first part it takes first bytes, fewer than all where the part alone is longer.
func (f *File) batch(iov []unix.Iovec) (n int, first uint64) {
	n = min(len(iov), iovMax)
	if f.piece == 0 {
		return n, iov[0].Len
	}
	room := uint64(f.piece)
	if iov[0].Len >= room {
		return 1, room
	}
	for i := range n {
		if iov[i].Len > room {
			return i, iov[0].Len
		}
		room -= iov[i].Len
	}
	return n, iov[0].Len
}

// behindStep is how many bytes of a long write go to the page cache before the
// kernel is told to start writing them to the device, and the shortest write that
// does so. Every byte a process writes reaches the device before its Close returns
// (MPI_File_close syncs), so the writeback is work the file owes: started while the
// rest of the write is still being copied, the disk works meanwhile and the sync
// finds less to wait for. A short write is left to the page cache, where later
// writes may still change it at no cost.
const behindStep = 2 << 20

// SetWriteBehind says whether writes of behindStep bytes or more start the writeback
// of what they wrote. It has no effect on a file in memory, which has no device.
func (f *File) SetWriteBehind(on bool) { f.behind.Store(on && !f.memory) }

// BehindByDefault reports whether the file's long writes start their writeback
// unless told otherwise: on a local disk, where the kernel's writeback costs the
// writer only the submission. A file elsewhere (NFS, a parallel file system) may
// do its own write-behind.
func (f *File) BehindByDefault() bool { return f.local && !f.memory }

// WriteBehind is the step in bytes of a long write after which code outside Go that
// writes to the descriptor (Fd) starts the writeback of what it wrote, 0 for none.
func (f *File) WriteBehind() int {
	if f.behind.Load() {
		return behindStep
	}
	return 0
}

// writeback is one long write's progress towards starting its writeback: the file
// offset up to which it was started, or -1 for a write that does not.
type writeback int64

func behindFrom(on bool, off int64) writeback {
	if !on {
		return -1
	}
	return writeback(off)
}

// wrote notes that the write reached end, the last call of it where last is set,
// and starts the writeback of what is behind it once that is behindStep or the end.
func (b *writeback) wrote(f *File, end int64, last bool) {
	from := int64(*b)
	if from < 0 || (end-from < behindStep && !last) || end <= from {
		return
	}
	f.startWriteback(from, end-from)
	*b = writeback(end)
}

// startWriteback asks the kernel to begin writing n bytes from off to the device and
// does not wait for it. An error of the device is the next sync's to report.
func (f *File) startWriteback(off, n int64) {
	unix.SyncFileRange(f.fd, off, n, unix.SYNC_FILE_RANGE_WRITE)
}

// iovMax is the most parts one pwritev takes (Linux's IOV_MAX).
const iovMax = 1024

// Size is the file's size in bytes.
func (f *File) Size() (int64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(f.fd, &st); err != nil {
		return 0, sysErr("fstat", f.path, err)
	}
	f.m.known.Store(st.Size)
	return st.Size, nil
}

// BlockSize is the file system's preferred block for the file (st_blksize): what
// file domains are aligned to unless the program says otherwise.
func (f *File) BlockSize() int64 {
	var st unix.Stat_t
	if unix.Fstat(f.fd, &st) != nil || st.Blksize <= 0 {
		return 4096
	}
	return int64(st.Blksize)
}

// Truncate sets the file's size to n: shorter cuts, longer adds a hole that reads as
// zeros.
func (f *File) Truncate(n int64) error {
	for {
		err := unix.Ftruncate(f.fd, n)
		if err == nil {
			f.m.known.Store(n)
		}
		if err != unix.EINTR {
			return sysErr("ftruncate", f.path, err)
		}
	}
}

// Allocate makes the file's first n bytes take storage, growing the file to n if
// it is shorter; a longer file keeps its size. Where the file system cannot allocate
// (fallocate unsupported) the bytes past the end are written as zeros, which
// allocates them as well.
func (f *File) Allocate(n int64) error {
	size, err := f.Size()
	if err != nil {
		return err
	}
	for {
		err = unix.Fallocate(f.fd, 0, 0, n)
		if err != unix.EINTR {
			break
		}
	}
	switch {
	case err == nil:
		return nil
	case err != unix.EOPNOTSUPP && err != unix.ENOSYS:
		return sysErr("fallocate", f.path, err)
	}
	zeros := make([]byte, min(max(n-size, 0), 1<<20))
	for off := size; off < n; {
		k := min(int64(len(zeros)), n-off)
		if _, err := f.WriteAt(zeros[:k], off); err != nil {
			return err
		}
		off += k
	}
	return nil
}

// Sync writes what the process wrote through to the storage device (fsync). A
// special file that has no storage to synchronise (a character device such as
// /dev/full, a pipe) has nothing to write through: fsync's EINVAL and EROFS say so
// (fsync(2)), and Sync succeeds, so that closing such a file does not fail. It sets
// the modification time WritePartsMapped left to later, as msync does a mapping's.
func (f *File) Sync() error {
	f.syncs.Add(1)
	f.m.late.settle(f.fd)
	for {
		err := unix.Fsync(f.fd)
		switch err {
		case unix.EINTR:
			continue
		case unix.EINVAL, unix.EROFS:
			return nil
		}
		return sysErr("fsync", f.path, err)
	}
}

// Syncs is how many times Sync was called: which processes' syncs reach the device
// is part of what a collective sync costs, and tests check it.
func (f *File) Syncs() int64 { return f.syncs.Load() }

// Close closes the descriptor, after setting the modification time
// WritePartsMapped left to later.
func (f *File) Close() error {
	f.m.late.settle(f.fd)
	f.m.unmap()
	err := unix.Close(f.fd)
	f.fd = -1
	return sysErr("close", f.path, err)
}

// Lock locks the bytes [off, off+n) of the file, for writing (exclusive) or reading
// (shared), waiting for other holders; Unlock releases them. The locks are the open
// file description's (OFD locks), so they exclude other opens of the file in this
// process too, and closing another descriptor of the file does not drop them; where
// the system has none, they are the process's (fcntl's classic locks). n == 0 locks
// nothing.
func (f *File) Lock(off, n int64, write bool) error {
	typ := int16(unix.F_RDLCK)
	if write {
		typ = unix.F_WRLCK
	}
	return f.lock(off, n, typ)
}

// Unlock releases a lock Lock took on the same bytes.
func (f *File) Unlock(off, n int64) error { return f.lock(off, n, unix.F_UNLCK) }

func (f *File) lock(off, n int64, typ int16) error {
	if n <= 0 {
		return nil
	}
	lk := unix.Flock_t{Type: typ, Whence: 0, Start: off, Len: n}
	cmd := unix.F_OFD_SETLKW
	for {
		err := unix.FcntlFlock(uintptr(f.fd), cmd, &lk)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EINVAL && cmd == unix.F_OFD_SETLKW:
			cmd = unix.F_SETLKW // a kernel older than OFD locks
			continue
		}
		return sysErr("fcntl lock", f.path, err)
	}
}

// Delete removes the file path (MPI_File_delete): ErrNoSuchFile if there is none.
func Delete(path string) error {
	for {
		err := unix.Unlink(path)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EISDIR || err == unix.EPERM && isDir(path):
			return errorf(ErrBadFile, "%s is a directory", path)
		}
		return sysErr("unlink", path, err)
	}
}

func isDir(path string) bool {
	var st unix.Stat_t
	return unix.Stat(path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
}
