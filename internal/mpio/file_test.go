package mpio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "x")
	for _, c := range []struct {
		what   string
		path   string
		a      Amode
		create bool
		want   error
	}{
		{"a missing file", name, Rdonly, false, ErrNoSuchFile},
		{"a missing directory", filepath.Join(dir, "no", "x"), Rdwr | Create, true, ErrNoSuchFile},
		{"a directory", dir, Rdonly, false, ErrBadFile},
		{"a path through a file", filepath.Join(dir, "f", "x"), Rdwr | Create, true, ErrBadFile},
	} {
		if c.path == filepath.Join(dir, "f", "x") {
			os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
		}
		_, err := Open(c.path, c.a, c.create, 0o644)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.what, err, c.want)
		}
	}
	f, err := Open(name, Rdwr|Create|Excl, true, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Open(name, Rdwr|Create|Excl, true, 0o600); !errors.Is(err, ErrExists) {
		t.Errorf("Excl of a file that exists: %v, want ErrExists", err)
	}
	if st, _ := os.Stat(name); st.Mode().Perm() != 0o600 {
		t.Errorf("created with %v, want 0600", st.Mode().Perm())
	}
	if err := Delete(filepath.Join(dir, "none")); !errors.Is(err, ErrNoSuchFile) {
		t.Errorf("Delete of a missing file: %v, want ErrNoSuchFile", err)
	}
}

func TestSizeAllocateLock(t *testing.T) {
	f := openTemp(t)
	if err := f.Truncate(1000); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.Size(); n != 1000 {
		t.Errorf("Truncate(1000): size %d", n)
	}
	if err := f.Allocate(500); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.Size(); n != 1000 {
		t.Errorf("Allocate(500) of 1000 bytes: size %d, want 1000 still", n)
	}
	if err := f.Allocate(5000); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.Size(); n != 5000 {
		t.Errorf("Allocate(5000): size %d", n)
	}
	if err := f.Lock(0, 100, true); err != nil {
		t.Fatal(err)
	}
	if err := f.Unlock(0, 100); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if f.BlockSize() <= 0 {
		t.Errorf("BlockSize %d", f.BlockSize())
	}
}

// TestClassOf checks that each errno a file system call gives lands in the class
// whose MPI error class the standard names for it (MPI 4.1 section 14.7), with the
// errno kept in the chain.
func TestClassOf(t *testing.T) {
	for _, c := range []struct {
		errno unix.Errno
		want  error
	}{
		{unix.ENOENT, ErrNoSuchFile},
		{unix.EACCES, ErrAccess},
		{unix.EPERM, ErrAccess},
		{unix.ENOSPC, ErrNoSpace},
		{unix.EFBIG, ErrNoSpace},
		{unix.EROFS, ErrReadOnly},
		{unix.EEXIST, ErrExists},
		{unix.ETXTBSY, ErrInUse},
		{unix.EBUSY, ErrInUse},
		{unix.EISDIR, ErrBadFile},
		{unix.ENOTDIR, ErrBadFile},
		{unix.ENAMETOOLONG, ErrBadFile},
		{unix.ELOOP, ErrBadFile},
		{unix.EDQUOT, ErrQuota},
		{unix.EIO, ErrIO},
		{unix.EBADF, ErrIO},
	} {
		err := sysErr("pwrite", "/x", c.errno)
		if !errors.Is(err, c.want) || !errors.Is(err, c.errno) {
			t.Errorf("%v: %v, want class %v with the errno", c.errno, err, c.want)
		}
	}
	if err := sysErr("pwrite", "/x", errors.New("no errno")); !errors.Is(err, ErrIO) {
		t.Errorf("an error without an errno: %v, want ErrIO", err)
	}
	if sysErr("pwrite", "/x", nil) != nil {
		t.Error("sysErr of nil is not nil")
	}
}

// TestFullDevice writes to /dev/full, a device that is always out of space: the write
// fails with ErrNoSpace, having written nothing, and Sync and Close, which have
// nothing to write through, succeed.
func TestFullDevice(t *testing.T) {
	f, err := Open("/dev/full", Wronly, false, 0)
	if errors.Is(err, ErrNoSuchFile) {
		t.Skip("no /dev/full")
	}
	if err != nil {
		t.Fatal(err)
	}
	n, err := f.WriteAt([]byte{1, 2, 3}, 0)
	if n != 0 || !errors.Is(err, ErrNoSpace) || !errors.Is(err, unix.ENOSPC) {
		t.Errorf("WriteAt: %d, %v; want 0 and ErrNoSpace", n, err)
	}
	if err := f.Sync(); err != nil {
		t.Errorf("Sync: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestFileSystemKind: a file in /dev/shm is in memory and local; one in the test's
// temporary directory is local (ext4 or another local disk's file system here) and
// in memory where that is tmpfs; /proc's are neither (a file system of the
// kernel's, which stands in for one elsewhere).
func TestFileSystemKind(t *testing.T) {
	tmp := t.TempDir()
	var fs unix.Statfs_t
	if err := unix.Statfs(tmp, &fs); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		dir           string
		memory, local bool
	}{
		{"/dev/shm", true, true},
		{tmp, fs.Type == unix.TMPFS_MAGIC, true},
	}
	for _, c := range cases {
		if _, err := os.Stat(c.dir); err != nil {
			t.Logf("%s: %v", c.dir, err)
			continue
		}
		d, err := os.MkdirTemp(c.dir, "mpigo-mpio-")
		if err != nil {
			t.Fatal(err)
		}
		f, err := Open(filepath.Join(d, "f"), Rdwr|Create, true, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if f.InMemory() != c.memory || f.Local() != c.local {
			t.Errorf("%s: InMemory %v, Local %v; want %v, %v", c.dir, f.InMemory(), f.Local(), c.memory, c.local)
		}
		f.Close()
		os.RemoveAll(d)
	}
	f, err := Open("/proc/self/status", Rdonly, false, 0)
	if err != nil {
		t.Skip("no /proc:", err)
	}
	defer f.Close()
	if f.InMemory() || f.Local() {
		t.Errorf("/proc/self/status: InMemory %v, Local %v; want false, false", f.InMemory(), f.Local())
	}
}

// TestReadWriteAt: what WriteAt writes ReadAt reads back at the same offset; a read
// that crosses the end of the file reads what there is, with no error, and one at the
// end reads nothing. In the test's temporary directory and in /dev/shm, where small
// accesses are made without the Go runtime's system-call bookkeeping (File.call), as
// are accesses of every size up to rawMax and beyond it.
func TestReadWriteAt(t *testing.T) {
	for _, dir := range []string{"", "/dev/shm"} {
		name := "tempdir"
		if dir != "" {
			name = "devshm"
			if _, err := os.Stat(dir); err != nil {
				t.Log(dir, err)
				continue
			}
		}
		t.Run(name, func(t *testing.T) {
			d, err := os.MkdirTemp(dir, "mpigo-mpio-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(d)
			readWriteAt(t, filepath.Join(d, "x"))
			readWriteSizes(t, filepath.Join(d, "y"))
		})
	}
}

func readWriteAt(t *testing.T, name string) {
	f, err := Open(name, Rdwr|Create, true, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec := []byte("sixty-four bytes, or so: a record of write_small's kind, at 100")
	if n, err := f.WriteAt(rec, 100); n != len(rec) || err != nil {
		t.Fatalf("WriteAt: %d, %v", n, err)
	}
	got := make([]byte, len(rec))
	if n, err := f.ReadAt(got, 100); n != len(rec) || err != nil || string(got) != string(rec) {
		t.Fatalf("ReadAt: %d, %v, %q", n, err, got[:n])
	}
	if n, err := f.ReadAt(got, 110); n != len(rec)-10 || err != nil || string(got[:n]) != string(rec[10:]) {
		t.Errorf("ReadAt across the end: %d, %v, %q; want %d bytes", n, err, got[:n], len(rec)-10)
	}
	if n, err := f.ReadAt(got, 100+int64(len(rec))); n != 0 || err != nil {
		t.Errorf("ReadAt at the end: %d, %v; want 0 and no error", n, err)
	}
	if n, err := f.ReadAt(nil, 0); n != 0 || err != nil {
		t.Errorf("ReadAt of nothing: %d, %v", n, err)
	}
}

// readWriteSizes writes records of lengths about rawMax and writePiece back to back, with WriteAt
// and WriteParts, reads them back with ReadAt and the file with the os package, and
// checks that a write through a descriptor opened only for reading fails with the
// system's EBADF whatever its length.
func readWriteSizes(t *testing.T, name string) {
	f, err := Open(name, Rdwr|Create, true, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []byte
	for i, n := range []int{1, 64, rawMax - 1, rawMax, rawMax + 1, 3 * rawMax,
		writePiece - 1, writePiece, writePiece + 1, 3*writePiece + 5} {
		rec := bytes.Repeat([]byte{byte('a' + i)}, n)
		off := int64(len(want))
		if i%2 == 0 {
			if k, err := f.WriteAt(rec, off); k != n || err != nil {
				t.Fatalf("WriteAt of %d bytes: %d, %v", n, k, err)
			}
		} else if k, err := f.WriteParts([][]byte{rec[:n/2], nil, rec[n/2:]}, off); k != int64(n) || err != nil {
			t.Fatalf("WriteParts of %d bytes: %d, %v", n, k, err)
		}
		got := make([]byte, n)
		if k, err := f.ReadAt(got, off); k != n || err != nil || !bytes.Equal(got, rec) {
			t.Fatalf("ReadAt of %d bytes: %d, %v, equal %v", n, k, err, bytes.Equal(got, rec))
		}
		want = append(want, rec...)
	}
	if got, err := os.ReadFile(name); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the file read by the os package: %d bytes (%v), want %d as written", len(got), err, len(want))
	}
	ro, err := Open(name, Rdonly, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	for _, n := range []int{64, 2 * rawMax} {
		if _, err := ro.WriteAt(make([]byte, n), 0); !errors.Is(err, unix.EBADF) {
			t.Errorf("WriteAt of %d bytes to a file opened to read: %v, want EBADF", n, err)
		}
		if _, err := ro.WriteParts([][]byte{make([]byte, n)}, 0); !errors.Is(err, unix.EBADF) {
			t.Errorf("WriteParts of %d bytes to a file opened to read: %v, want EBADF", n, err)
		}
	}
}

// TestWriteUncachedBlock: on a local disk's file system, small writes (made without
// the runtime's bookkeeping, File.call) into pages the kernel has dropped from its
// cache, so that it must read each block before changing part of it, write what they
// were given and leave the rest of each block as it was.
func TestWriteUncachedBlock(t *testing.T) {
	f := openTemp(t)
	name := f.Path()
	if !f.Local() || f.InMemory() {
		t.Skipf("%s is not on a local disk's file system", name)
	}
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	if n, err := f.WriteAt(want, 0); n != len(want) || err != nil {
		t.Fatalf("WriteAt of the file: %d, %v", n, err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(f.Fd(), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	if cached := cachedPages(t, f.Fd(), len(want)); cached > 0 {
		t.Logf("%d of %d pages still cached after FADV_DONTNEED", cached, len(want)>>12)
	}
	rec := []byte("a record of 64 bytes, as write_small's, in a block not cached..")
	for i, off := range []int{7, 4096*3 + 4090, 4096*100 + 1, len(want) - len(rec)} {
		if i%2 == 0 {
			if n, err := f.WriteAt(rec, int64(off)); n != len(rec) || err != nil {
				t.Fatalf("WriteAt at %d: %d, %v", off, n, err)
			}
		} else if n, err := f.WriteParts([][]byte{rec[:10], rec[10:]}, int64(off)); n != int64(len(rec)) || err != nil {
			t.Fatalf("WriteParts at %d: %d, %v", off, n, err)
		}
		copy(want[off:], rec)
	}
	if got, err := os.ReadFile(name); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the file read by the os package: %d bytes (%v), equal to what was written: %v", len(got), err, bytes.Equal(got, want))
	}
}

// cachedPages counts the pages of the file's first n bytes in the page cache.
func cachedPages(t *testing.T, fd, n int) int {
	m, err := unix.Mmap(fd, 0, n, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	vec := make([]byte, (n+4095)>>12)
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(n),
		uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatal("mincore:", e)
	}
	c := 0
	for _, v := range vec {
		c += int(v & 1)
	}
	return c
}

// TestWriteFolioBound: on ext4 a file written in calls of 16 MiB (WriteAt, and
// WriteParts of parts of 4 MiB) is in the page cache in folios of at most
// writePiece bytes, over which later small writes stay cheap. It reads the folios'
// sizes from /proc/kpageflags, which only root may read.
func TestWriteFolioBound(t *testing.T) {
	f := openTemp(t)
	if f.WritePiece() == 0 {
		t.Skipf("%s is not on ext4: its writes are not bounded", f.Path())
	}
	block := bytes.Repeat([]byte{7}, 16<<20)
	if n, err := f.WriteAt(block, 0); n != len(block) || err != nil {
		t.Fatalf("WriteAt: %d, %v", n, err)
	}
	q := len(block) / 4
	if n, err := f.WriteParts([][]byte{block[:q], block[q : 2*q], block[2*q : 3*q], block[3*q:]}, int64(len(block))); n != int64(len(block)) || err != nil {
		t.Fatalf("WriteParts: %d, %v", n, err)
	}
	largest, ok := largestFolio(t, f.Fd(), 2*len(block))
	if !ok {
		t.Skip("the page flags (/proc/kpageflags) cannot be read here")
	}
	if largest > writePiece {
		t.Errorf("a folio of %d bytes in the page cache, more than the bound %d", largest, writePiece)
	}
	t.Logf("largest folio %d bytes", largest)
}

// largestFolio maps the file's first n bytes and reads, per page, whether it
// continues a folio (the compound tail flag), for the longest run.
func largestFolio(t *testing.T, fd, n int) (int, bool) {
	m, err := unix.Mmap(fd, 0, n, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return 0, false
	}
	defer pm.Close()
	kf, err := os.Open("/proc/kpageflags")
	if err != nil {
		return 0, false
	}
	defer kf.Close()
	var e [8]byte
	var sum byte
	largest, run := 0, 0
	for off := 0; off < n; off += 4096 {
		sum += m[off] // fault the page in
		addr := uintptr(unsafe.Pointer(&m[off]))
		if _, err := pm.ReadAt(e[:], int64(addr/4096)*8); err != nil {
			return 0, false
		}
		pfn := binary.LittleEndian.Uint64(e[:]) & (1<<55 - 1)
		if pfn == 0 {
			return 0, false
		}
		if _, err := kf.ReadAt(e[:], int64(pfn)*8); err != nil {
			return 0, false
		}
		if binary.LittleEndian.Uint64(e[:])&(1<<16) == 0 { // not a tail: a folio starts
			run = 0
		}
		run += 4096
		largest = max(largest, run)
	}
	if sum != byte(n/4096*7) {
		t.Errorf("the mapping read %d, not the pages' bytes", sum)
	}
	return largest, true
}

// TestWriteBehind: on a local disk a write of behindStep bytes or more leaves its
// bytes on their way to the device (none dirty in the page cache: cachestat), by
// WriteAt and WriteParts alike, and with write-behind off leaves them dirty for the
// next sync; a file in memory never takes it.
func TestWriteBehind(t *testing.T) {
	f := openTemp(t)
	if !f.BehindByDefault() {
		t.Skipf("%s is not on a local disk", f.Path())
	}
	if f.WriteBehind() != behindStep {
		t.Fatalf("WriteBehind %d on a local disk, want %d", f.WriteBehind(), behindStep)
	}
	block := bytes.Repeat([]byte{5}, 3*behindStep+4096)
	write := map[string]func(off int64) error{
		"WriteAt": func(off int64) error {
			n, err := f.WriteAt(block, off)
			if n != len(block) && err == nil {
				err = fmt.Errorf("wrote %d of %d", n, len(block))
			}
			return err
		},
		"WriteParts": func(off int64) error {
			q := len(block) / 3
			n, err := f.WriteParts([][]byte{block[:q], block[q : 2*q], block[2*q:]}, off)
			if n != int64(len(block)) && err == nil {
				err = fmt.Errorf("wrote %d of %d", n, len(block))
			}
			return err
		},
	}
	pages := uint64(len(block) / 4096)
	off := int64(0)
	for _, name := range []string{"WriteAt", "WriteParts"} {
		for _, on := range []bool{false, true} {
			f.SetWriteBehind(on)
			if err := write[name](off); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			dirty, ok := dirtyPages(f.Fd(), off, int64(len(block)))
			if !ok {
				t.Skip("cachestat(2) is not available")
			}
			switch {
			case on && dirty > pages/4:
				t.Errorf("%s with write-behind: %d of %d pages still dirty", name, dirty, pages)
			case !on && dirty < pages/2:
				t.Errorf("%s without write-behind: %d of %d pages dirty, want the most", name, dirty, pages)
			}
			off += int64(len(block))
		}
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}

	m := openShm(t, "behind")
	if m.SetWriteBehind(true); m.WriteBehind() != 0 || m.BehindByDefault() {
		t.Errorf("a file in memory takes write-behind")
	}
}

// dirtyPages is how many pages of the file's bytes [off, off+n) are dirty in the
// page cache; false where the system cannot say.
func dirtyPages(fd int, off, n int64) (uint64, bool) {
	var st unix.Cachestat_t
	r := unix.CachestatRange{Off: uint64(off), Len: uint64(n)}
	if err := unix.Cachestat(uint(fd), &r, &st, 0); err != nil {
		return 0, false
	}
	return st.Dirty, true
}
