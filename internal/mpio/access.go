package mpio

// Moving data between memory and a view of a file. The memory side is a stream of
// packed bytes (Mem): the bytes of a contiguous buffer, or a datatype's layout over
// one, which packs and unpacks at any offset. The file side is the runs of the view's
// positions [pos, pos+Len) (View.Cursor). The stream's byte k goes to (or comes from)
// the view's byte pos+k.
//
// Independent access does one system call per run, but for two cases:
//   - Contiguous memory reads and writes the user's bytes in place, with no copy.
//   - Data sieving (Tuning): runs close together in the file are read as one span
//     into a buffer and picked out of it (a read), or the span is read, patched and
//     written back under a write lock of the span (a write), so that a
//     noncontiguous access of small pieces costs a few large calls. SieveNear joins
//     a run to the span only where the run and the hole before it are shorter than
//     sieveJoin: reading a hole (and copying the run out of the buffer) costs more
//     than a system call of its own beyond that; SieveAll joins every run a buffer
//     holds, as ROMIO does.
//
// A read stops at the end of the file: it returns how many stream bytes it filled,
// those of the runs that precede the first one the file does not wholly hold (a
// read past the end is not an error).

// Stream is a memory stream of Len packed bytes that packs and unpacks at any
// offset; datatype.Layout is one.
type Stream interface {
	Len() int64
	// PackAt packs the stream's bytes from off into dst, as many as fit; it says
	// how many.
	PackAt(dst []byte, off int64) int
	// UnpackAt unpacks src into the stream's bytes from off; it says how many it took.
	UnpackAt(src []byte, off int64) int
}

// Mem is the memory side of an access: a contiguous buffer (Bytes), moved in place,
// or a Stream (Packed). It is a value, not an interface, so that a contiguous
// buffer's access makes nothing on the heap.
type Mem struct {
	b []byte
	s Stream // nil: b
}

// Bytes is a contiguous buffer as a Mem: its bytes in order.
func Bytes(b []byte) Mem { return Mem{b: b} }

// Packed is a stream as a Mem.
func Packed(s Stream) Mem { return Mem{s: s} }

// Len is the stream's length in bytes.
func (m Mem) Len() int64 {
	if m.s != nil {
		return m.s.Len()
	}
	return int64(len(m.b))
}

// Contig is the memory's bytes where it is a contiguous buffer (Bytes).
func (m Mem) Contig() ([]byte, bool) { return m.b, m.s == nil }

// PackAt packs the stream's bytes from off into dst, as many as fit, and says how
// many.
func (m Mem) PackAt(dst []byte, off int64) int {
	if m.s != nil {
		return m.s.PackAt(dst, off)
	}
	return copy(dst, m.b[off:])
}

// UnpackAt unpacks src into the stream's bytes from off and says how many it took.
func (m Mem) UnpackAt(src []byte, off int64) int {
	if m.s != nil {
		return m.s.UnpackAt(src, off)
	}
	return copy(m.b[off:], src)
}

// Sieve says which runs data sieving reads (or writes) as one span.
type Sieve uint8

const (
	SieveOff  Sieve = iota // a system call per run
	SieveNear              // runs close together: each run and the hole before it under sieveJoin bytes
	SieveAll               // every run a buffer's span holds
)

// sieveJoin is SieveNear's bound on a run and the hole before it. Measured on
// /dev/shm (docs/BENCHMARKS.md, I/O): 512-byte runs 512 bytes apart read fastest
// sieved, 4 KiB runs 1 KiB apart one call each.
const sieveJoin = 2048

// Tuning says how independent accesses move their data.
type Tuning struct {
	// SieveRead and SieveWrite say where reads and writes sieve. A write sieves
	// only where the file can be read.
	SieveRead, SieveWrite Sieve
	// ReadBuf and WriteBuf are the sieving buffers' sizes, and of the staging of a
	// noncontiguous memory stream (ind_rd_buffer_size, ind_wr_buffer_size).
	ReadBuf, WriteBuf int64
	// Atomic locks the whole span of each access (shared for a read, exclusive for
	// a write) for its duration: MPI's atomic mode.
	Atomic bool
}

// Default buffer sizes, ROMIO's.
const (
	DefaultReadBuf  = 4 << 20
	DefaultWriteBuf = 512 << 10
)

// Read fills m from view bytes [pos, pos+m.Len()) of f and returns how many stream
// bytes it filled (fewer at the end of the file).
func Read(f *File, v *View, pos int64, m Mem, t *Tuning) (int64, error) {
	n := m.Len()
	if n == 0 {
		return 0, nil
	}
	if t.Atomic {
		lo, hi := v.Span(pos, n)
		if err := f.Lock(lo, hi-lo, false); err != nil {
			return 0, err
		}
		defer f.Unlock(lo, hi-lo)
	}
	if !v.contig && n >= mapReadMin {
		if got, ok := readMappedRuns(f, v, pos, m); ok {
			return got, nil
		}
	}
	x := mover{f: f, m: m, bufSize: max(t.ReadBuf, 1), sieve: t.SieveRead}
	c := v.Cursor(pos, n)
	if t.SieveRead != SieveOff && !v.contig {
		return x.sieveRead(&c)
	}
	for r, ok := c.Next(); ok; r, ok = c.Next() {
		if got, err := x.readRun(r); err != nil || got < r.Len {
			return x.done, err
		}
	}
	return x.done, nil
}

// Write writes m to view bytes [pos, pos+m.Len()) of f and returns how many stream
// bytes it wrote.
func Write(f *File, v *View, pos int64, m Mem, t *Tuning) (int64, error) {
	n := m.Len()
	if n == 0 {
		return 0, nil
	}
	lockedAll := false
	if t.Atomic {
		lo, hi := v.Span(pos, n)
		if err := f.Lock(lo, hi-lo, true); err != nil {
			return 0, err
		}
		defer f.Unlock(lo, hi-lo)
		lockedAll = true
	}
	x := mover{f: f, m: m, bufSize: max(t.WriteBuf, 1), sieve: t.SieveWrite}
	c := v.Cursor(pos, n)
	if t.SieveWrite != SieveOff && f.readable && !v.contig {
		return x.sieveWrite(&c, lockedAll)
	}
	for r, ok := c.Next(); ok; r, ok = c.Next() {
		if err := x.writeRun(r); err != nil {
			return x.done, err
		}
	}
	return x.done, nil
}

// mover is one access under way: done stream bytes moved so far.
type mover struct {
	f       *File
	m       Mem
	done    int64
	bufSize int64
	sieve   Sieve
	buf     []byte // staging and sieving, made at first need
}

func (x *mover) scratch(n int64) []byte {
	n = min(n, x.bufSize)
	if int64(len(x.buf)) < n {
		x.buf = make([]byte, n)
	}
	return x.buf[:n]
}

// readRun reads run r into the stream at done, and says how much of it the file held.
func (x *mover) readRun(r Run) (int64, error) {
	if x.m.s == nil {
		k, err := x.f.ReadAt(x.m.b[x.done:x.done+r.Len], r.Off)
		x.done += int64(k)
		return int64(k), err
	}
	var got int64
	for got < r.Len {
		buf := x.scratch(r.Len - got)
		k, err := x.f.ReadAt(buf, r.Off+got)
		x.m.UnpackAt(buf[:k], x.done)
		x.done += int64(k)
		got += int64(k)
		if err != nil || k < len(buf) {
			return got, err
		}
	}
	return got, nil
}

// writeRun writes run r from the stream at done.
func (x *mover) writeRun(r Run) error {
	if x.m.s == nil {
		k, err := x.f.WriteAt(x.m.b[x.done:x.done+r.Len], r.Off)
		x.done += int64(k)
		return err
	}
	for put := int64(0); put < r.Len; {
		buf := x.scratch(r.Len - put)
		x.m.PackAt(buf, x.done)
		k, err := x.f.WriteAt(buf, r.Off+put)
		x.done += int64(k)
		put += int64(k)
		if err != nil {
			return err
		}
	}
	return nil
}

// batch gathers the runs of c that fit one sieving buffer with the first (with
// SieveNear, those close to the one before): it returns them in runs (reused) and
// the span they cover; a run longer than the buffer comes alone.
func (x *mover) batch(c *Cursor, pending *Run, runs []Run) ([]Run, Run) {
	runs = runs[:0]
	var span Run
	for {
		r := *pending
		if r.Len == 0 {
			var ok bool
			if r, ok = c.Next(); !ok {
				break
			}
		}
		if len(runs) == 0 {
			span = r
		} else if lo, hi := min(span.Off, r.Off), max(span.End(), r.End()); hi-lo > x.bufSize || !x.near(runs[len(runs)-1], r) {
			*pending = r // the next batch's first
			return runs, span
		} else {
			span = Run{lo, hi - lo}
		}
		*pending = Run{}
		runs = append(runs, r)
		if span.Len > x.bufSize {
			break
		}
	}
	return runs, span
}

// near reports whether run r joins a sieved span after run last: always with
// SieveAll; with SieveNear where both runs and the hole between them are short.
func (x *mover) near(last, r Run) bool {
	if x.sieve == SieveAll {
		return true
	}
	gap := max(r.Off-last.End(), last.Off-r.End(), 0)
	return last.Len < sieveJoin && gap+r.Len < sieveJoin
}

// sieveRead reads the runs of c a buffer's span at a time.
func (x *mover) sieveRead(c *Cursor) (int64, error) {
	var pending Run
	var runs []Run
	for {
		var span Run
		runs, span = x.batch(c, &pending, runs)
		if len(runs) == 0 {
			return x.done, nil
		}
		if len(runs) == 1 {
			if got, err := x.readRun(runs[0]); err != nil || got < runs[0].Len {
				return x.done, err
			}
			continue
		}
		buf := x.scratch(span.Len)
		k, err := x.f.ReadAt(buf, span.Off)
		if err != nil {
			return x.done, err
		}
		have := span.Off + int64(k) // the file ends here if k is short
		for _, r := range runs {
			n := min(r.End(), have) - r.Off
			if n > 0 {
				x.m.UnpackAt(buf[r.Off-span.Off:r.Off-span.Off+n], x.done)
				x.done += n
			}
			if n < r.Len {
				return x.done, nil
			}
		}
	}
}

// sieveWrite writes the runs of c a buffer's span at a time: each span is locked,
// read, patched and written back, so that the holes it rewrites keep what other
// processes write there meanwhile (they wait for the lock if they sieve too).
// lockedAll: the whole access is locked already (atomic mode).
func (x *mover) sieveWrite(c *Cursor, lockedAll bool) (int64, error) {
	var pending Run
	var runs []Run
	for {
		var span Run
		runs, span = x.batch(c, &pending, runs)
		if len(runs) == 0 {
			return x.done, nil
		}
		if len(runs) == 1 {
			if err := x.writeRun(runs[0]); err != nil {
				return x.done, err
			}
			continue
		}
		if err := x.patch(runs, span, lockedAll); err != nil {
			return x.done, err
		}
	}
}

func (x *mover) patch(runs []Run, span Run, lockedAll bool) error {
	if !lockedAll {
		if err := x.f.Lock(span.Off, span.Len, true); err != nil {
			return err
		}
		defer x.f.Unlock(span.Off, span.Len)
	}
	buf := x.scratch(span.Len)
	k, err := x.f.ReadAt(buf, span.Off)
	if err != nil {
		return err
	}
	clear(buf[k:]) // past the end of the file: the holes read as zeros
	moved := int64(0)
	for _, r := range runs {
		x.m.PackAt(buf[r.Off-span.Off:r.End()-span.Off], x.done+moved)
		moved += r.Len
	}
	if _, err := x.f.WriteAt(buf, span.Off); err != nil {
		return err // how much of the batch landed is unknown: none counts
	}
	x.done += moved
	return nil
}
