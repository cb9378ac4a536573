package mpio

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Writes through a shared mapping of a file in memory. A file system in memory
// (tmpfs) holds the inode's lock for the whole of each write(2), so the writes of
// processes that share one file run one after another however many cores they have,
// and a write of many small runs takes the lock once a run. The pages of a shared
// mapping of the file are the file's own pages, and copies into them take no lock of
// the file's: the processes' copies run at once, a run costs a copy and no system
// call, and every other process's reads and writes see them as they land (one page
// cache).
//
// The mapping is used only for the bytes before the file's end, as it was when the
// access began, whose pages the file has unless it has holes there: bytes past it
// (a write that extends the file) go through pwrite, which sets the size. A copy
// that faults (a hole the file system cannot fill: SIGBUS; a file cut short
// meanwhile) ends the copies: the run it faulted in and the rest go through pwrite,
// which reports the file system's error as ever. The mapping is kept from one access
// to the next, since a new one would fault on every page again, and grows with the
// file; Close unmaps it. A copy changes no time of the file's but by its first fault
// on a page, so an access that copied sets the file's modification time, as write
// does.

// mapping is a file's shared mapping, shared by the accesses under way: they hold mu
// for reading while they copy; growing the mapping holds it for writing.
type mapping struct {
	mu     sync.RWMutex
	b      []byte // from the file's byte 0; nil before the first use
	failed bool   // mmap refused the file: its writes go through pwrite
	copied atomic.Int64
	read   atomic.Int64 // bytes ReadAt copied from the mapping (mapread.go), for tests
	known  atomic.Int64 // WritePartsMapped's: a size the file has at least, as this process last learnt it
	late   lateTouch    // WritePartsMapped's modification time
}

// mapGrain is what a mapping's length is rounded up to: addresses, not memory (only
// the pages copied into are mapped in), so that a file growing by small steps is not
// mapped again at every step.
const mapGrain = 64 << 20

// CanMap reports whether WriteMapped may copy into f: a file in memory, opened for
// reading and writing (a shared writable mapping needs both), on a system of 64-bit
// addresses.
func (f *File) CanMap() bool {
	return f.memory && f.readable && f.writable && unsafe.Sizeof(uintptr(0)) == 8
}

// mapProt is the protection of f's mapping: writable where WriteMapped may copy into
// it, else only readable (ReadAt's copies from it, mapread.go).
func (f *File) mapProt() int {
	if f.CanMap() {
		return unix.PROT_READ | unix.PROT_WRITE
	}
	return unix.PROT_READ
}

// WriteMapped is Write by copies into the file's shared mapping (f.CanMap must hold),
// without sieving, which it does not need, and outside atomic mode, whose locks the
// copies would not take: it writes m to view bytes [pos, pos+m.Len()) of f and
// returns how many stream bytes it wrote.
func WriteMapped(f *File, v *View, pos int64, m Mem) (int64, error) {
	if m.Len() == 0 {
		return 0, nil
	}
	size, err := f.Size()
	if err != nil {
		return 0, err
	}
	return writeMapped(f, v, pos, m, size)
}

// writeMapped is WriteMapped where the file held size bytes when the access began.
func writeMapped(f *File, v *View, pos int64, m Mem, size int64) (int64, error) {
	w := mapWriter{mover: mover{f: f, m: m, bufSize: DefaultWriteBuf}, c: v.Cursor(pos, m.Len()), size: size}
	if b := f.m.hold(f.fd, size, f.mapProt()); b != nil {
		w.b = b
		faulted, err := w.pass()
		f.m.mu.RUnlock()
		if err != nil || !faulted {
			w.touch()
			return w.done, err
		}
		w.b = nil // the run it faulted in from its start, and the rest, by pwrite
	}
	_, err := w.pass()
	w.touch()
	return w.done, err
}

// hold returns the mapping of the file's bytes [0, size) and more, made with
// protection prot (the same at every call for a file: mapProt), with mu held for
// reading; nil (mu not held) where there is nothing to map or mmap refuses the file.
func (mp *mapping) hold(fd int, size int64, prot int) []byte {
	if size <= 0 {
		return nil
	}
	mp.mu.RLock()
	switch {
	case int64(len(mp.b)) >= size:
		return mp.b
	case mp.failed:
		mp.mu.RUnlock()
		return nil
	}
	mp.mu.RUnlock()
	mp.mu.Lock()
	if int64(len(mp.b)) < size && !mp.failed {
		n := (max(size, 2*int64(len(mp.b))) + mapGrain - 1) / mapGrain * mapGrain
		b, err := unix.Mmap(fd, 0, int(n), prot, unix.MAP_SHARED)
		if err != nil {
			mp.failed = true
		} else {
			mp.unmap()
			mp.b = b
		}
	}
	ok := int64(len(mp.b)) >= size
	mp.mu.Unlock()
	if !ok {
		return nil
	}
	mp.mu.RLock() // the mapping only grows until close, which no access overlaps
	return mp.b
}

// unmap drops the mapping (mu held for writing, or the file closing).
func (mp *mapping) unmap() {
	if mp.b != nil {
		unix.Munmap(mp.b)
		mp.b = nil
	}
}

// Copied is how many bytes WriteMapped copied into the file's mapping: tests check
// which writes took it.
func (f *File) Copied() int64 { return f.m.copied.Load() }

// mapWriter is a WriteMapped under way.
type mapWriter struct {
	mover
	c      Cursor
	b      []byte // the mapping, nil: every run by pwrite
	size   int64  // the bytes [0, size) are copied
	cur    Run    // the run under way, what of it is left
	copied int64  // the bytes copied
}

// pass writes the runs from cur on, copying what lies before size where b is set. A
// fault in a copy ends it with faulted set and cur the run it faulted in, whole.
func (w *mapWriter) pass() (faulted bool, err error) {
	if w.b != nil {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer caughtFault(&faulted)
	}
	for {
		if w.cur.Len == 0 {
			r, ok := w.c.Next()
			if !ok {
				return false, nil
			}
			w.cur = r
		}
		if w.b != nil && w.cur.Off < w.size {
			k := min(w.cur.End(), w.size) - w.cur.Off
			w.m.PackAt(w.b[w.cur.Off:w.cur.Off+k], w.done)
			w.copied += k
			w.done += k
			w.cur = Run{w.cur.Off + k, w.cur.Len - k}
			if w.cur.Len == 0 {
				continue
			}
		}
		if err := w.writeRun(w.cur); err != nil {
			return false, err
		}
		w.cur = Run{}
	}
}

// touch sets the file's modification time where bytes were copied, as a write sets
// it; a failure is not the access's (the data is written).
func (w *mapWriter) touch() {
	if w.copied == 0 {
		return
	}
	w.f.m.copied.Add(w.copied)
	touchFd(w.f.fd)
}

// WritePartsMapped is WriteParts by copies into the file's shared mapping (f.CanMap
// must hold; outside atomic mode, whose locks the copies would not take), for short
// writes where a system call is most of the cost: the parts go back to back from off.
// It asks the file's size only when the parts would straddle the size it last
// learnt (at Open, from Size, this process's writes, Truncate), so that a write
// inside the file makes no system call at all and one that starts past it (a file
// growing by such writes) no more than WriteParts; a write that passes the file's
// end goes through WriteParts whole, which sets the size. A copy that faults (a
// hole tmpfs cannot fill, a file cut short by another open of it past the page the
// copy starts in) is made again by WriteParts, which reports the file system's
// error. The modification time is set as a shared mapping's is (mmap(2): at some
// point before the next msync): by the first copy after a pause of touchEvery, else
// by a later copy, Sync or Close.
func (f *File) WritePartsMapped(parts [][]byte, off int64) (int64, error) {
	var total int64
	for _, p := range parts {
		total += int64(len(p))
	}
	end := off + total
	if total == 0 || off < 0 {
		return f.WriteParts(parts, off)
	}
	if known := f.m.known.Load(); off >= known {
		return f.WriteParts(parts, off)
	} else if end > known {
		if size, err := f.Size(); err != nil || end > size {
			return f.WriteParts(parts, off)
		}
	}
	b := f.m.hold(f.fd, end, f.mapProt())
	if b == nil {
		return f.WriteParts(parts, off)
	}
	faulted := copyParts(b[off:end], parts)
	f.m.mu.RUnlock()
	if faulted {
		return f.WriteParts(parts, off)
	}
	f.m.copied.Add(total)
	f.m.late.copied(f.fd)
	return total, nil
}

// WriteAtMapped is WriteAt by a copy into the file's mapping (f.CanMap must hold),
// as WritePartsMapped makes one: for p where it lands before the size the file is
// known to have, by pwrite elsewhere or where the copy faults.
func (f *File) WriteAtMapped(p []byte, off int64) (int, error) {
	parts := [1][]byte{p}
	n, err := f.WritePartsMapped(parts[:], off)
	return int(n), err
}

// learnAtLeast raises the size the file is known to have to n.
func (mp *mapping) learnAtLeast(n int64) {
	for {
		k := mp.known.Load()
		if k >= n || mp.known.CompareAndSwap(k, n) {
			return
		}
	}
}

// copyParts copies parts back to back into dst, the file's mapped bytes, reporting
// whether a copy faulted.
func copyParts(dst []byte, parts [][]byte) (faulted bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer caughtFault(&faulted)
	for _, p := range parts {
		dst = dst[copy(dst, p):]
	}
	return false
}

// caughtFault, deferred where SetPanicOnFault is set, ends the panic of a memory
// fault (a copy into the mapping) and sets *faulted; any other panic goes on.
func caughtFault(faulted *bool) {
	if e := recover(); e != nil {
		if _, fault := e.(interface{ Addr() uintptr }); !fault {
			panic(e)
		}
		*faulted = true
	}
}

// lateTouch is the modification time of WritePartsMapped's copies: setting it is a
// system call that costs as much as a short copy's write, so copies that follow one
// another within touchEvery leave it to the next copy past that, or to Sync or Close.
type lateTouch struct {
	at      atomic.Int64 // when it was last set (monoNow)
	pending atomic.Bool  // copies made since
}

// touchEvery is how long a file's modification time may lag its copies while they
// go on.
const touchEvery = int64(time.Millisecond)

// copied sets the modification time of the file fd after a copy, or leaves it to later.
func (lt *lateTouch) copied(fd int) {
	now := monoNow()
	if at := lt.at.Load(); at != 0 && now-at < touchEvery {
		lt.pending.Store(true)
		return
	}
	lt.at.Store(now)
	lt.pending.Store(false)
	touchFd(fd)
}

// settle sets the modification time where copies left it to later.
func (lt *lateTouch) settle(fd int) {
	if lt.pending.Swap(false) {
		lt.at.Store(monoNow())
		touchFd(fd)
	}
}

var mono0 = time.Now()

// monoNow is a monotonic clock in nanoseconds.
func monoNow() int64 { return int64(time.Since(mono0)) }

// touchFd sets the modification time of the file fd to now; a failure is not the
// access's (the data is written).
func touchFd(fd int) {
	ts := [2]unix.Timespec{{Nsec: unix.UTIME_OMIT}, {Nsec: unix.UTIME_NOW}}
	unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(fd), 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)
}
