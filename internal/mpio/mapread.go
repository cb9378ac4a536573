package mpio

import (
	"os"
	"runtime/debug"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Large reads by copies from the file's shared mapping. A read of a file in memory
// or on a local disk whose pages are all in the page cache is a copy from those pages
// either way; pread makes it in the kernel (on this project's x86 machines by REP
// MOVSB, docs/BENCHMARKS.md), and Go's copy from a shared mapping of the same pages,
// kept from one read to the next as WriteMapped keeps it, by vector loads and, for
// large copies, stores that bypass the cache, which is faster by half again. The
// mapping is taken only where every page of the range is cached (mincore says so):
// a page the kernel would have to read from the device would stall the rank's thread
// in a fault the Go runtime does not know of, where pread tells the runtime. A copy
// that faults (the file cut short meanwhile) is made again by pread, which reports
// what the file then holds.

// mapReadMin is the shortest read taken from the mapping: below it the residency
// check and the fault guard cost a good part of the copy.
const mapReadMin = 1 << 20

// pageSize is the system's page, mincore's unit.
var pageSize = int64(os.Getpagesize())

// readMapped reads p at off from the mapping where it can (ok), the bytes up to the
// end of the file: n < len(p) only there.
func (f *File) readMapped(p []byte, off int64) (n int, ok bool) {
	if !f.readable || !f.local || unsafe.Sizeof(uintptr(0)) != 8 || off < 0 {
		return 0, false
	}
	size, err := f.Size()
	if err != nil || off >= size {
		return 0, false
	}
	n = int(min(int64(len(p)), size-off))
	b := f.m.hold(f.fd, off+int64(n), f.mapProt())
	if b == nil {
		return 0, false
	}
	defer f.m.mu.RUnlock()
	if !resident(b, off, int64(n)) || !copyGuarded(p[:n], b[off:off+int64(n)]) {
		return 0, false
	}
	f.m.read.Add(int64(n))
	return n, true
}

// readMappedRuns is Read of a view that is not contiguous by copies of its runs from
// the file's mapping, where they all lie inside the file and every page of their span
// is cached (ok): a sieve would copy the span into a buffer and the runs out of it,
// three times the bytes, or read run by run. A copy that faults leaves the read to
// the caller, which makes it again whole.
func readMappedRuns(f *File, v *View, pos int64, m Mem) (done int64, ok bool) {
	if !f.readable || !f.local || unsafe.Sizeof(uintptr(0)) != 8 {
		return 0, false
	}
	lo, hi := v.Span(pos, m.Len())
	size, err := f.Size()
	if err != nil || lo < 0 || hi > size {
		return 0, false
	}
	b := f.m.hold(f.fd, hi, f.mapProt())
	if b == nil {
		return 0, false
	}
	defer f.m.mu.RUnlock()
	if !resident(b, lo, hi-lo) {
		return 0, false
	}
	c := v.Cursor(pos, m.Len())
	faulted := false
	func() {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer caughtFault(&faulted)
		for r, more := c.Next(); more; r, more = c.Next() {
			m.UnpackAt(b[r.Off:r.End()], done)
			done += r.Len
		}
	}()
	if faulted {
		return 0, false
	}
	f.m.read.Add(done)
	return done, true
}

// resident reports whether every page of b's bytes [off, off+n) is in the page
// cache, asking mincore for 16 MiB at a time.
func resident(b []byte, off, n int64) bool {
	var vec [4096]byte
	lo, end := off&^(pageSize-1), off+n
	for lo < end {
		k := min(end-lo, int64(len(vec))*pageSize)
		_, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[lo])), uintptr(k),
			uintptr(unsafe.Pointer(&vec[0])))
		if e != 0 {
			return false
		}
		for _, v := range vec[:(k+pageSize-1)/pageSize] {
			if v&1 == 0 {
				return false
			}
		}
		lo += k
	}
	return true
}

// copyGuarded copies src to dst, false where the copy faulted (a page past the
// file's end since it was cut short).
func copyGuarded(dst, src []byte) bool {
	faulted := false
	func() {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer caughtFault(&faulted)
		copy(dst, src)
	}()
	return !faulted
}
