package mpir

import (
	"math"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpio"
	"github.com/mpigo/mpigo/internal/prof"
)

// Data access (MPI 4.1 section 14.4): reads and writes at explicit offsets, through
// the individual file pointer and through the shared one (file_shared.go), blocking
// and nonblocking, independent and collective. Every one checks its arguments here, maps its memory (IOBuf) to
// mpio's stream and the view position to file runs (mpio.Read, mpio.Write), and
// reports in its status the bytes it moved: a read past the end of the file moves
// what there is, zero bytes at the end, and is no error.
//
// The individual file pointer moves when the access starts, by what it asks for:
// a nonblocking access's successor starts after it, as the standard says; a
// blocking read that the end of the file cut short then moves it back to just past
// what it read, if nothing moved it meanwhile.
//
// A collective access gathers every member's span and error first, and then goes
// through two-phase I/O or each member's own access (file_coll.go): every member
// calls, every member gets the error of any.

// IOBuf is the memory of an access: Count items of Type over Mem, whose byte Origin
// is the buffer's base address (0 but where the type reaches below it).
type IOBuf struct {
	Mem    []byte
	Origin int64
	Count  int64
	Type   *datatype.Type
	// Elem is, where Type is bytes of a slice of elements, the elements' type: the
	// file's data representation converts them (external32 swaps their bytes).
	Elem *datatype.Type
	// Obj is Type as the program passed it, where the face has it: what a user
	// data representation's conversion functions are given (else Type, wrapped).
	Obj *Datatype
}

// Access is what a data access call does.
type Access struct {
	Write    bool
	Explicit bool  // at Offset (etypes of the view), else at the individual file pointer
	Offset   int64 // Explicit's
	Coll     bool  // a collective call (the _all forms; with Shared, the _ordered ones)
	// Shared: at the shared file pointer (file_shared.go), the only one a file
	// opened MPI_MODE_SEQUENTIAL has; with Coll, in the members' order.
	Shared bool
	// Posted: an ordered write whose member (not member 0) already posted its header
	// and record on the file's board (the C face's short way, file_board.go), which
	// the call then does not post again.
	Posted bool
}

// plan is an access checked and placed: its view, position and memory stream.
type plan struct {
	v   *mpio.View
	pos int64
	mem mpio.Mem
	n   int64
	tun mpio.Tuning
	ind bool // it moved the individual file pointer from pos to pos+n
	// conv is the memory of an access in a representation other than memory's:
	// mem is then the file's bytes, which conv.finish converts once moved.
	conv *converted
}

// prepare checks an access's arguments and places it in p; an access through the
// individual file pointer moves it, as does an independent one through the shared
// pointer (an ordered one is placed in the lane: placeOrdered). p is left zero where
// the arguments are bad.
func (f *File) prepare(op string, a Access, b IOBuf, p *plan) error {
	if err := f.Check(op); err != nil {
		return err
	}
	switch {
	case a.Write && !f.amode.CanWrite():
		return core.Errorf(core.ClassReadOnly, op, "the file was opened with MPI_MODE_RDONLY")
	case !a.Write && !f.amode.CanRead():
		return core.Errorf(core.ClassAccess, op, "the file was opened with MPI_MODE_WRONLY")
	case f.amode&mpio.Sequential != 0 && !a.Shared:
		return core.Errorf(core.ClassUnsupportedOperation, op,
			"the file was opened with MPI_MODE_SEQUENTIAL: it is accessed through the shared file pointer only")
	}
	mem, n, err := ioMem(op, b)
	if err != nil {
		return err
	}
	f.mu.Lock()
	rep := f.datarep
	f.mu.Unlock()
	var conv *converted
	switch rep {
	case RepNative, RepInternal:
	case RepExternal32:
		if mem, n, conv, err = extMem(op, b, a.Write); err != nil {
			return err
		}
	default:
		if mem, n, conv, err = userMem(op, userRepOf(rep), b, mem, n, a.Write); err != nil {
			return err
		}
	}
	p.conv = conv
	if err := f.place(op, a, b, mem, n, p); err != nil {
		*p = plan{}
		return err
	}
	if a.Shared && !a.Coll {
		p.pos, err = f.takeShared(op, p.v, n)
	}
	return err
}

// place is prepare's part under the file's mutex: the view, the etypes, the
// individual file pointer. An access at the shared pointer is placed by the caller.
func (f *File) place(op string, a Access, b IOBuf, mem mpio.Mem, n int64, p *plan) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p.v, p.mem, p.n, p.tun = f.view, mem, n, f.tun // p.conv is prepare's
	if es := p.v.EtypeSize(); n%es != 0 {
		return core.Errorf(core.ClassType, op,
			"%d items of %s are %d bytes, not a whole number of the view's etypes %s (%d bytes each)",
			b.Count, b.Type.Name(), n, p.v.Etype().Name(), es)
	}
	var err error
	switch {
	case a.Shared:
	case a.Explicit:
		if p.pos, err = viewPos(op, p.v, a.Offset, n); err != nil {
			return err
		}
	default:
		if !p.v.Fits(f.fp, n) {
			return core.Errorf(core.ClassArg, op, "the access would pass the largest file offset")
		}
		p.pos, p.ind = f.fp, true
		f.fp += n
	}
	if a.Write && n > 0 && !a.Coll {
		f.wrote() // a collective access's writers mark themselves (run, the aggregators)
	}
	return nil
}

// settle makes what the hints and the atomicity say about data access, once for
// every access until they change (f.mu held): how independent accesses move data
// (romio_ds_read "enable" sieves every run a buffer holds, as does "automatic" on a
// file system that is neither in memory nor on a local disk, where a request may
// cost a round trip; "automatic" on a local one sieves the runs close together;
// romio_ds_write sieves with "enable" only), whether long writes start their
// writeback (mpigo_write_behind), the collective accesses' settings, and
// whether accessAt's short way applies (a view, an atomicity or a representation
// that it does not take sends every access the general way).
func (f *File) settle() {
	near := mpio.SieveAll
	if f.os.Local() {
		near = mpio.SieveNear
	}
	ds := func(key string, auto mpio.Sieve) mpio.Sieve {
		switch f.hints.Value(key) {
		case "enable":
			return mpio.SieveAll
		case "disable":
			return mpio.SieveOff
		}
		return auto
	}
	f.tun = mpio.Tuning{
		SieveRead:  ds("romio_ds_read", near),
		SieveWrite: ds("romio_ds_write", mpio.SieveOff),
		ReadBuf:    f.hints.Int("ind_rd_buffer_size"),
		WriteBuf:   f.hints.Int("ind_wr_buffer_size"),
		Atomic:     f.atomic,
	}
	f.plain = f.view.Contiguous() && !f.atomic && (f.datarep == RepNative || f.datarep == RepInternal)
	switch f.hints.Value("mpigo_write_behind") {
	case "enable":
		f.os.SetWriteBehind(true)
	case "disable":
		f.os.SetWriteBehind(false)
	default:
		f.os.SetWriteBehind(f.os.BehindByDefault())
	}
	f.cb = cbSettings{
		read:  cbMode(f.hints.Value("romio_cb_read")),
		write: cbMode(f.hints.Value("romio_cb_write")),
		nodes: f.hints.Int("cb_nodes"),
		buf:   f.hints.Int("cb_buffer_size"),
		align: f.hints.Int("striping_unit"),
	}
	f.settleQuick()
}

// ioMem is an access's memory as mpio's stream, and its length; the buffer's checks
// are the standard's: a committed type, a count not negative, the items within the
// memory.
func ioMem(op string, b IOBuf) (mpio.Mem, int64, error) {
	t := b.Type
	if t == datatype.Byte && b.Count >= 0 && b.Origin >= 0 && b.Count <= int64(len(b.Mem))-b.Origin {
		// A slice's bytes (every Go slice access, most C ones): the checks below
		// all hold, and the memory is the bytes themselves.
		return mpio.Bytes(b.Mem[b.Origin : b.Origin+b.Count]), b.Count, nil
	}
	if t == nil {
		var err error
		if t, err = NullFor(op, "datatype", b.Count); err != nil {
			return mpio.Mem{}, 0, err
		}
	}
	switch {
	case t.IsFreed():
		return mpio.Mem{}, 0, core.Errorf(core.ClassType, op, "datatype %s has been freed", t.Name())
	case !t.IsCommitted():
		return mpio.Mem{}, 0, NotCommitted(op, "datatype", t.Name())
	case b.Count < 0:
		return mpio.Mem{}, 0, core.Errorf(core.ClassCount, op, "count %d is negative", b.Count)
	}
	n, err := t.PackSize(b.Count)
	if err != nil {
		return mpio.Mem{}, 0, core.TypeErr(op, err)
	}
	if n == 0 {
		return mpio.Bytes(nil), 0, nil
	}
	lo, hi, err := t.Span(b.Count)
	if err != nil {
		return mpio.Mem{}, 0, core.TypeErr(op, err)
	}
	if lo+b.Origin < 0 || hi+b.Origin > int64(len(b.Mem)) {
		return mpio.Mem{}, 0, core.Errorf(core.ClassBuffer, op, "%d items of %s span bytes [%d,%d) of the buffer, which has %d",
			b.Count, t.Name(), lo+b.Origin, hi+b.Origin, len(b.Mem))
	}
	if off, k, ok := t.ContiguousSpan(b.Count); ok {
		return mpio.Bytes(b.Mem[b.Origin+off : b.Origin+off+k]), n, nil
	}
	l := new(datatype.Layout)
	if err := l.Init(t, b.Mem, b.Count, b.Origin); err != nil {
		return mpio.Mem{}, 0, core.TypeErr(op, err)
	}
	return mpio.Packed(l), n, nil
}

// run does a placed access and returns the bytes it moved.
func (f *File) run(op string, a Access, p *plan) (int64, error) {
	var n int64
	var err error
	if a.Write {
		if p.n > 0 {
			f.wrote()
		}
		n, err = mpio.Write(f.os, p.v, p.pos, p.mem, &p.tun)
	} else {
		n, err = mpio.Read(f.os, p.v, p.pos, p.mem, &p.tun)
	}
	return n, ioErr(op, err)
}

// AccessAt is the short way of an independent access of mem at offset etypes of
// the view (MPI_File_write_at and read_at of a Go slice or of MPI_BYTEs; Access takes
// it for those), where the view is contiguous, its representation native and atomic
// mode off: the file bytes are then one run at the view's displacement plus the
// offset, and the access is one system call on the program's memory. ok is false
// where any of that does not hold, or any check fails: the general way (Access) then
// does the access, or finds the error, as ever; nothing has changed, and nothing is
// recorded.
func (f *File) AccessAt(op string, write bool, offset int64, mem []byte) (n int64, ok bool, err error) {
	off, q := f.plainAt(write, offset, mem)
	if q == nil {
		return 0, false, nil
	}
	call, t := prof.FileReadAt, int64(0)
	if write {
		call = prof.FileWriteAt
	}
	shared := false // counted by prof's short path at ThreadMultiple
	if !prof.Try(call, q.pc, prof.NoPeer, -2, len(mem)) {
		if shared = prof.SharedUntimed(call); !shared {
			t = prof.Enter(call, q.pc, prof.NoPeer, -2, len(mem))
		}
	}
	var k int
	if write {
		k, err = f.writeAt(mem, off)
	} else {
		k, err = f.os.ReadAt(mem, off)
	}
	if err != nil {
		err = ioErr(op, err)
	}
	switch {
	case shared:
		prof.SharedCount(call, k)
	case !prof.TryExit(call, t, k):
		prof.Exit(call, t, k)
	}
	return int64(k), true, err
}

// plainAt checks an access of mem at offset etypes for the short way and returns
// the file offset it starts at and the record it was checked against (nil: the short
// way does not apply, or a check failed). It takes no lock: what it reads settle
// made when the view, hints or atomicity last changed.
func (f *File) plainAt(write bool, offset int64, mem []byte) (off int64, q *quickAt) {
	if f == nil {
		return 0, nil
	}
	q = f.quick.Load()
	if q == nil || f.closed.Load() || (write && !q.write) || (!write && !q.read) {
		return 0, nil
	}
	n := int64(len(mem))
	pos := offset
	if q.es != 1 {
		if n%q.es != 0 || offset < 0 || offset > math.MaxInt64/q.es {
			return 0, nil
		}
		pos = offset * q.es
	}
	if pos < 0 || n > q.end || pos > q.end-n { // View.Fits, as FitEnd gives it
		return 0, nil
	}
	if write && n > 0 {
		f.wrote()
	}
	return q.disp + pos, q
}

// quickAt is what plainAt needs of a file whose accesses at explicit offsets may
// take the short way (Plain's rule): the view's etype, the file byte of view byte 0,
// the largest end of an access in view bytes, and what the access mode allows.
type quickAt struct {
	es, disp, end int64
	read, write   bool
	joins         bool       // ordered writes may be joined: collective buffering is not forced (romio_cb_write)
	pc            *prof.Comm // the file's communicator as the record knows it
}

// settleQuick makes plainAt's record from the view, representation and atomicity
// (under mu, from settle).
func (f *File) settleQuick() {
	v := f.view
	if !f.plain || f.amode&mpio.Sequential != 0 || v.FitEnd() < 0 {
		f.quick.Store(nil)
		return
	}
	f.quick.Store(&quickAt{es: v.EtypeSize(), disp: v.FileOff(0), end: v.FitEnd(),
		read: f.amode.CanRead(), write: f.amode.CanWrite(), joins: f.cb.write != cbEnable, pc: f.profComm()})
}

// Plain is what AccessAt's short way needs to do an access outside Go: the C
// library's MPI_File_write_at and read_at of a contiguous predefined datatype
// (abi/libmpi/fileshort.c) make plainAt's checks on it and the system call
// themselves. An access of n bytes at offset etypes takes that way where Read (or
// Write) holds, n is a whole number of Etype, 0 <= offset <= MaxInt64/Etype and
// offset*Etype+n <= End; it is at file byte Disp + offset*Etype of descriptor Fd.
type Plain struct {
	Fd          int
	Read, Write bool  // the access mode allows reads, writes
	Etype       int64 // the view's etype, bytes
	Disp        int64 // the file byte of view byte 0
	End         int64 // the largest end of an access, in view bytes (View.Fits)
	Piece       int   // the longest write call to make, 0 for no bound (mpio.File.WritePiece)
	Behind      int   // the step of a write's writeback, 0 for none (mpio.File.WriteBehind)
	// Copies: Go writes to the file by copies into its mapping (a file in memory)
	// where the bytes land before Known, the file's size when Plain was made: such a
	// write is Go's to make (it costs less than pwrite, the crossing included).
	Copies bool
	Known  int64
}

// Plain reports what an access outside Go needs (Plain's doc) while the view, the
// atomicity and the representation stay what they are now; ok is false where
// AccessAt's short way does not apply to any access (a closed file, one opened
// MPI_MODE_SEQUENTIAL, a view that is not contiguous, atomic mode, a representation
// that converts). A face that keeps a copy must make it again after every call that
// may change them (SetView, SetAtomicity, SetInfo) and drop it before Close; an
// access it does itself that writes must be reported (Wrote).
func (f *File) Plain() (p Plain, ok bool) {
	if f == nil || f.closed.Load() {
		return p, false
	}
	q := f.quick.Load()
	if q == nil {
		return p, false
	}
	p = Plain{Fd: f.os.Fd(), Read: q.read, Write: q.write, Etype: q.es, Disp: q.disp, End: q.end,
		Piece: f.os.WritePiece(), Behind: f.os.WriteBehind()}
	if f.os.CanMap() {
		if n, err := f.os.Size(); err == nil {
			p.Copies, p.Known = true, n
		}
	}
	return p, true
}

// Wrote notes that an access outside Go wrote to the file (Plain): Close syncs it.
func (f *File) Wrote() { f.wrote() }

// wrote marks the file written since its last sync: a load where it is marked
// already, not a store to a line other members' calls read.
func (f *File) wrote() {
	if !f.dirty.Load() {
		f.dirty.Store(true)
	}
}

// writeAt writes mem at file byte off, outside atomic mode: on a file in memory by a
// copy into its mapping where it lands before the file's end (mpio.WriteAtMapped:
// no system call and no inode lock, which two ranks' small writes to one file on
// tmpfs would take in turn), else by pwrite.
func (f *File) writeAt(mem []byte, off int64) (int, error) {
	if f.os.CanMap() {
		return f.os.WriteAtMapped(mem, off)
	}
	return f.os.WriteAt(mem, off)
}

// moveAt is the system call of the short way and of Bytes: mem at file offset off.
func (f *File) moveAt(op string, write bool, off int64, mem []byte) (int64, error) {
	if len(mem) == 0 {
		return 0, nil
	}
	var k int
	var err error
	if write {
		k, err = f.writeAt(mem, off)
	} else {
		k, err = f.os.ReadAt(mem, off)
	}
	if err != nil {
		return int64(k), ioErr(op, err)
	}
	return int64(k), nil
}

// giveBack moves the individual file pointer back to just past what an access moved,
// where it moved less than it asked for and nothing has moved the pointer since.
func (f *File) giveBack(p *plan, moved int64) {
	if !p.ind || moved == p.n {
		return
	}
	f.mu.Lock()
	if f.fp == p.pos+p.n {
		f.fp = p.pos + moved
	}
	f.mu.Unlock()
}

// Access does a blocking access (MPI_File_read_at, write, read_all, ...) and returns
// its status: Count is the bytes moved. bad is an error the face met converting its
// arguments: it fails the call (every member's, for a collective one).
func (f *File) Access(op string, a Access, b IOBuf, bad error) (core.Status, error) {
	call, n, t := blockingCalls[accessKey(a)], ioBytes(&b), int64(0)
	if !prof.Try(call, f.profComm(), prof.NoPeer, -2, n) {
		t = prof.Enter(call, f.profComm(), prof.NoPeer, -2, n)
	}
	st, err := f.access(op, a, b, bad)
	if !prof.TryExit(call, t, int(st.Count)) {
		prof.Exit(call, t, int(st.Count))
	}
	return st, err
}

// access is Access unrecorded.
func (f *File) access(op string, a Access, b IOBuf, bad error) (core.Status, error) {
	st := core.Status{Source: core.AnySource, Tag: core.AnyTag}
	if a.Explicit && !a.Coll && bad == nil && b.Type == datatype.Byte && b.Count >= 0 && b.Origin >= 0 && b.Count <= int64(len(b.Mem))-b.Origin {
		mem := b.Mem[b.Origin : b.Origin+b.Count]
		if off, q := f.plainAt(a.Write, a.Offset, mem); q != nil {
			var err error
			st.Count, err = f.moveAt(op, a.Write, off, mem)
			return st, err
		}
	}
	if a.Coll {
		t := f.lane.take()
		f.lane.wait(t)
		defer f.lane.done()
		if a.Shared && a.Write && !a.Posted && bad == nil && b.Type == datatype.Byte && b.Count >= 0 && b.Origin >= 0 && b.Count <= int64(len(b.Mem))-b.Origin {
			if n, ok, err := f.orderedShort(b.Mem[b.Origin:b.Origin+b.Count], &a); ok {
				st.Count = n
				return st, err
			}
		}
	}
	var p plan
	err := bad
	if err == nil { // bad arguments move no pointer
		err = f.prepare(op, a, b, &p)
	}
	switch {
	case a.Coll:
		st.Count, err = f.coll(op, a, p, err)
	case err == nil:
		st.Count, err = f.run(op, a, &p)
	}
	f.giveBack(&p, st.Count)
	if err == nil {
		st.Count, err = p.conv.finish(op, st.Count)
	}
	return st, err
}

// coll does this member's part of a collective access (in the lane): an ordered one
// at the shared file pointer (file_shared.go).
func (f *File) coll(op string, a Access, p plan, local error) (int64, error) {
	if a.Shared {
		return f.ordered(op, a, p, local)
	}
	return f.collAccess(op, a, p, local)
}

// Start starts a nonblocking access (MPI_File_iread_at, iwrite, iread_all, ...) and
// returns its operation, whose status's Count is the bytes moved. A call whose
// arguments are bad (or bad, the face's error) returns the error and starts nothing;
// a collective one first takes its part in the agreement, so that the other members'
// operations complete, with the error.
func (f *File) Start(op string, a Access, b IOBuf, bad error) (*core.Pending, error) {
	call, n := startCalls[accessKey(a)], ioBytes(&b)
	defer prof.Exit(call, f.fileEnter(call, n), n)
	return f.startAccess(op, a, b, bad)
}

// startAccess is Start unrecorded.
func (f *File) startAccess(op string, a Access, b IOBuf, bad error) (*core.Pending, error) {
	var t uint64
	if a.Coll {
		t = f.lane.take()
	}
	var p plan
	err := bad
	if err == nil {
		err = f.prepare(op, a, b, &p)
	}
	if err != nil {
		if a.Coll {
			f.lane.wait(t)
			_, err = f.coll(op, a, p, err)
			f.lane.done()
		}
		return nil, err
	}
	f.ops.Add(1)
	return core.StartIO(f.Face, a.Coll, func(st *core.Status) error {
		defer f.ops.Done()
		var err error
		if a.Coll {
			f.lane.wait(t)
			defer f.lane.done()
			st.Count, err = f.coll(op, a, p, nil)
		} else {
			st.Count, err = f.run(op, a, &p)
		}
		if err == nil {
			st.Count, err = p.conv.finish(op, st.Count)
		}
		return err
	}), nil
}

// Bytes reads (or writes, write) p at byte off of the file, whatever the view: the
// faces' plain byte access (the Go package's io.ReaderAt and io.WriterAt). It is
// independent, takes the access mode's checks and, in atomic mode, the lock; a read
// returns fewer bytes than len(p) only at the end of the file.
func (f *File) Bytes(op string, p []byte, off int64, write bool) (int, error) {
	call, t := prof.FileReadAt, int64(0)
	if write {
		call = prof.FileWriteAt
	}
	if !prof.Try(call, f.profComm(), prof.NoPeer, -2, len(p)) {
		t = prof.Enter(call, f.profComm(), prof.NoPeer, -2, len(p))
	}
	n, err := f.bytes(op, p, off, write)
	if !prof.TryExit(call, t, n) {
		prof.Exit(call, t, n)
	}
	return n, err
}

// bytes is Bytes unrecorded.
func (f *File) bytes(op string, p []byte, off int64, write bool) (int, error) {
	if err := f.Check(op); err != nil {
		return 0, err
	}
	switch {
	case off < 0:
		return 0, core.Errorf(core.ClassArg, op, "offset %d is negative", off)
	case write && !f.amode.CanWrite():
		return 0, core.Errorf(core.ClassReadOnly, op, "the file was opened with MPI_MODE_RDONLY")
	case !write && !f.amode.CanRead():
		return 0, core.Errorf(core.ClassAccess, op, "the file was opened with MPI_MODE_WRONLY")
	}
	f.mu.Lock()
	atomic := f.atomic
	f.mu.Unlock()
	if write && len(p) > 0 {
		f.wrote()
	}
	if atomic && len(p) > 0 {
		if err := f.os.Lock(off, int64(len(p)), write); err != nil {
			return 0, ioErr(op, err)
		}
		defer f.os.Unlock(off, int64(len(p)))
	}
	n, err := f.moveAt(op, write, off, p)
	return int(n), err
}

// A split collective (MPI 4.1 section 14.4.5: MPI_File_read_all_begin and its _end,
// ...) is the nonblocking collective of the same access, started by the begin and
// completed by the end. A file has at most one at a time, as the standard requires;
// the end must be of the begin's kind.
type split struct {
	x    *core.Pending
	kind string // the begin's call without "_begin", for the end's check
}

// BeginSplit starts a split collective: kind names it (its call without "_begin",
// "File_read_all"), which the end must match. As Start, a rank whose arguments are
// bad takes its part in the agreement and returns the error, and there is then no
// split collective under way on any rank.
func (f *File) BeginSplit(op, kind string, a Access, b IOBuf, bad error) error {
	call, n := beginCalls[accessKey(a)], ioBytes(&b)
	defer fileExit(call, f.fileEnter(call, n), n)
	f.mu.Lock()
	busy := f.split
	f.mu.Unlock()
	if busy.x != nil && bad == nil {
		bad = core.Errorf(core.ClassIO, op, "a split collective (%s) is under way on the file: it must end before another begins", busy.kind)
	}
	x, err := f.startAccess(op, a, b, bad)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.split = split{x: x, kind: kind}
	f.mu.Unlock()
	return nil
}

// EndSplit completes the split collective kind began and returns its status.
func (f *File) EndSplit(op, kind string) (st core.Status, err error) {
	call := endCall(kind)
	t := f.fileEnter(call, 0)
	defer func() { fileExit(call, t, int(st.Count)) }()
	st = core.Status{Source: core.AnySource, Tag: core.AnyTag}
	if err := f.Check(op); err != nil {
		return st, err
	}
	f.mu.Lock()
	s := f.split
	if s.x != nil && s.kind == kind {
		f.split = split{}
	}
	f.mu.Unlock()
	switch {
	case s.x == nil:
		return st, core.Errorf(core.ClassIO, op, "no split collective is under way on the file (%s_begin did not start one)", kind)
	case s.kind != kind:
		return st, core.Errorf(core.ClassIO, op, "the split collective under way is %s, not %s", s.kind, kind)
	}
	err = s.x.Wait()
	if serr := s.x.StatusInto(&st); err == nil {
		err = serr
	}
	return st, err
}
