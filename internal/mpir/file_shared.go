package mpir

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpio"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/window"
)

// The shared file pointer (MPI 4.1 section 14.4.4): one per file, a view position
// in bytes (whole etypes), moved by every member's accesses through it.
//
// Contracts:
//   - No server process: the pointer is an 8-byte word held by member 0, in the
//     slot window of the communicator the file was opened on (file_slots.go). Members
//     move it by MPI_Fetch_and_op's atomic fetch-and-add, inside a passive-target
//     epoch kept open while the window is; on one node the window lies in node shared
//     memory and the add is one atomic instruction, across nodes member 0's window
//     progress applies it without member 0 calling MPI (internal/window).
//   - An independent access (read_shared, iwrite_shared, ...) takes its place by
//     one fetch-and-add of the bytes it asks for, when it starts: concurrent
//     accesses get disjoint places, in the order their adds reached the word. A read
//     cut short by the end of the file gives nothing back (another member may have
//     moved the pointer since), as ROMIO does.
//   - An ordered access (read_ordered, write_ordered, and their split forms) needs no
//     contended counter: the members gather their sizes, each reads the pointer once
//     every member is in the call, and each member's place is that plus the sizes
//     of the members before it (the exclusive prefix sum; placeOrdered); after the
//     access's agreement every member compares and swaps the pointer past the total
//     (advanceOrdered), the first one moving it. A short ordered write in a
//     contiguous view is instead one write by member 0, which holds the pointer
//     (file_ordered.go).
//   - Collective changes of the pointer (seek_shared, set_view's reset) happen after
//     every member has entered the call and before any leaves it, so that no
//     member's access before the call or after it sees the pointer half changed.
//   - The standard requires every member to use the same view with the shared
//     pointer; positions are taken in the calling member's view.

// spOwner is the member whose window holds the pointer.
const spOwner = 0

// openShared gives the file its shared pointer, at initial (the file's end with
// MPI_MODE_APPEND, else 0): slot of the communicator's slot window (member 0's choice,
// from the open's agreement, zeroed), or its own window when slot is -1 (every slot
// taken). Collective.
func (f *File) openShared(op string, slots *spSlots, slot int, initial int64) error {
	if slot >= 0 {
		f.sp, f.slots, f.slot, f.spDisp = slots.w, slots, slot, slotDisp(slot)
		slots.opened()
	} else if err := f.ownShared(op); err != nil {
		return err
	}
	if initial == 0 {
		return nil
	}
	var err error
	if f.comm.Rank() == spOwner {
		_, err = f.spOp(op, initial, OpReplace)
	}
	return f.agree(op, err, 0, "place the shared file pointer")
}

// ownShared makes the file a window of its own for the pointer, zeroed, locked while
// the file is open. Collective.
func (f *File) ownShared(op string) error {
	var size int64
	if f.comm.Rank() == spOwner {
		size = 8
	}
	w, err := window.Create(f.comm, op, window.Args{Flavor: window.FlavorAllocate, Size: size, DispUnit: 8})
	if err != nil {
		return err
	}
	if err := w.Lock(op, window.LockShared, spOwner, window.ModeNoCheck); err != nil {
		w.Free(op)
		return err
	}
	f.sp = w
	return nil
}

// closeShared gives back the pointer's slot, or ends its own window's epoch and
// frees it. Collective, once every member has entered the close.
func (f *File) closeShared(op string) error {
	if f.sp == nil {
		return nil
	}
	var err error
	if f.slots != nil {
		err = f.slots.closed(op, f.comm.Rank(), f.slot)
	} else {
		err = f.sp.Unlock(op, spOwner)
		if ferr := f.sp.Free(op); err == nil {
			err = ferr
		}
	}
	f.sp, f.slots = nil, nil
	return err
}

// spOp applies rop with v to the pointer and returns its value before.
func (f *File) spOp(op string, v int64, rop window.RMAOp) (int64, error) {
	return spWord(op, f.sp, f.spDisp, v, rop)
}

// spWord applies rop with v to the word at disp of member 0's part of w and returns
// its value before.
func spWord(op string, w *window.Win, disp, v int64, rop window.RMAOp) (int64, error) {
	if old, ok := w.FetchWord(spOwner, disp, uint64(v), rop, prof.None); ok {
		return int64(old), nil
	}
	var o, r [8]byte
	binary.LittleEndian.PutUint64(o[:], uint64(v))
	err := w.FetchAndOp(op, o[:], r[:], datatype.Int64, spOwner, disp, rop, true)
	return int64(binary.LittleEndian.Uint64(r[:])), err
}

// takeShared places an independent access of n bytes at the shared pointer, which
// it moves past them.
func (f *File) takeShared(op string, v *mpio.View, n int64) (int64, error) {
	pos, err := f.spOp(op, n, OpSum)
	if err != nil {
		return 0, err
	}
	if !v.Fits(pos, n) {
		return 0, core.Errorf(core.ClassArg, op, "the access at the shared file pointer (%d bytes of the view) would pass the largest file offset", pos)
	}
	return pos, nil
}

// ordered does this member's part of an ordered access placed as p (local: the error
// of its arguments), in the lane, and returns the bytes it moved.
func (f *File) ordered(op string, a Access, p plan, local error) (int64, error) {
	if a.Write {
		if n, done, err := f.joinOrdered(op, p, local, a.Posted); done {
			return n, err
		}
	}
	o, err := f.placeOrdered(op, a, &p, local)
	if err != nil {
		return 0, err
	}
	var n int64
	if o.agg {
		n, err = f.collAccess(op, a, p, nil)
	} else {
		if p.n > 0 {
			n, err = f.run(op, a, &p)
		}
		err = f.agree(op, err, 0, "access the file")
	}
	if aerr := f.advanceOrdered(op, o); err == nil {
		err = aerr
	}
	return n, err
}

// The fields of a member's record in an ordered access's gather.
const (
	ordClass = iota
	ordLen   // the bytes it accesses
	ordAgg   // member 0's: collective buffering forced on (romio_cb_read/write "enable")
	ordFields
)

// ordPlace is where an ordered access found the shared file pointer (base, read once
// every member had entered the call), the bytes every member accesses (total), and
// whether it goes through the aggregators.
type ordPlace struct {
	base, total int64
	agg         bool
}

// placeOrdered places this member's part of an ordered access (p, of p.n bytes;
// local is the error of its arguments). The members gather their sizes and errors
// (the call's agreement on its arguments); once the gather is over every member is
// in the call, so the independent accesses each made before it have moved the
// pointer, and no member can move it until the call ends (advanceOrdered). Each
// member then reads the pointer itself, finds it where the others find it, and
// places its part after the sizes of the members before it. (Each member adding its
// own size before the gather would save reading it, but a member entering early
// would then add before another member's independent access that comes before the
// call in that member's order.) Members' accesses in rank order never interleave in
// the file (a view's displacements do not decrease), so the aggregators are used
// only where the hint forces them.
func (f *File) placeOrdered(op string, a Access, p *plan, local error) (ordPlace, error) {
	var rec [ordFields]int64
	if local != nil {
		rec[ordClass] = int64(core.ClassOf(local))
	} else {
		rec[ordLen] = p.n
	}
	f.mu.Lock()
	mode := f.cb.read
	if a.Write {
		mode = f.cb.write
	}
	f.mu.Unlock()
	if mode == cbEnable {
		rec[ordAgg] = 1
	}
	all, err := f.gatherInts(op, rec[:])
	if err != nil {
		return ordPlace{}, err
	}
	var o ordPlace
	var before int64
	for r := range f.comm.Size() {
		m := all[r*ordFields:]
		if c := m[ordClass]; c != 0 && local == nil {
			local = core.Errorf(core.ErrorClass(c), op,
				"rank %d of the file's group could not access the file (its error says why), so the call failed on every rank", r)
		}
		if r < f.comm.Rank() {
			before += m[ordLen]
		}
		o.total = min(o.total+m[ordLen], math.MaxInt64/2) // each below 2^62: no overflow
	}
	if local != nil {
		return ordPlace{}, local
	}
	o.agg = all[ordAgg] != 0
	if o.base, err = f.spOp(op, 0, OpNoOp); err != nil {
		return ordPlace{}, err
	}
	if !p.v.Fits(o.base, o.total) {
		// Every member sees the same pointer and total, so every member fails here.
		return ordPlace{}, core.Errorf(core.ClassArg, op, "the ordered access at the shared file pointer (%d bytes of the view) would pass the largest file offset", o.base)
	}
	p.pos = o.base + before
	return o, nil
}

// advanceOrdered moves the pointer past an ordered access placed at o, once the
// access's agreement has seen every member read the pointer: every member compares
// and swaps it from o.base to o.base+o.total, so that the first one moves it and
// the others find it moved, and none returns before it has moved. Nothing but a
// later collective call (which this member has not entered yet) can bring the
// pointer back to o.base, since accesses only move it forward.
func (f *File) advanceOrdered(op string, o ordPlace) error {
	if o.total == 0 {
		return nil
	}
	if _, ok := f.sp.CasWord(spOwner, f.spDisp, uint64(o.base), uint64(o.base+o.total), prof.None); ok {
		return nil
	}
	var n, c, r [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(o.base+o.total))
	binary.LittleEndian.PutUint64(c[:], uint64(o.base))
	return f.sp.CompareAndSwap(op, n[:], c[:], r[:], datatype.Int64, spOwner, f.spDisp, true)
}

// gatherInts is every member's record of int64s, member r's at [r*len(rec):], in a
// buffer of the file's that the next call in the lane reuses. Where the records are
// small it is an allreduce of every member's record in its own place, zeros
// elsewhere, summed: on one node the device's allreduce of a few hundred bytes
// takes half the time of its allgather (docs/BENCHMARKS.md, I/O).
func (f *File) gatherInts(op string, rec []int64) ([]int64, error) {
	k, size, me := len(rec), f.comm.Size(), f.comm.Rank()
	if cap(f.gbuf) < 8*k*size {
		f.gbuf = make([]byte, 8*k*size)
		f.gints = make([]int64, k*size)
	}
	all, out := f.gbuf[:8*k*size], f.gints[:k*size]
	if k*size <= gatherByReduce {
		clear(all)
	}
	mine := all[8*k*me : 8*k*(me+1)]
	for i, v := range rec {
		binary.LittleEndian.PutUint64(mine[8*i:], uint64(v))
	}
	var err error
	if k*size <= gatherByReduce {
		err = f.comm.InternalAllreduce(op, all, 8, sumWords, core.TagFileAgree)
	} else {
		send := slices.Clone(mine) // not in place: the schedule may write recv first
		_, err = collective.Allgather(f.comm, op, collective.Vec{B: send, Esz: 8}, collective.Vec{B: all, Esz: 8}, false)
		err = core.MapErr(op, err)
	}
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(all[8*i:]))
	}
	return out, nil
}

// gatherByReduce is the most words gatherInts gathers by an allreduce.
const gatherByReduce = 512

// sumWords adds in's 8-byte words to acc's.
func sumWords(acc, in []byte) {
	for i := 0; i+8 <= len(acc); i += 8 {
		binary.LittleEndian.PutUint64(acc[i:], binary.LittleEndian.Uint64(acc[i:])+binary.LittleEndian.Uint64(in[i:]))
	}
}

// SeekShared moves the shared file pointer, every member at once with the same
// offset and whence (MPI_File_seek_shared; else MPI_ERR_NOT_SAME): to offset etypes
// of the view from the view's start, the pointer, or the end of the file. A position
// before the view's start is refused (MPI_ERR_ARG) on every member. It returns the
// new position in etypes. bad is the face's error converting its arguments.
func (f *File) SeekShared(op string, offset int64, whence int, bad error) (int64, error) {
	defer fileExit(prof.FileSeekShared, f.fileEnter(prof.FileSeekShared, 0), 0)
	if err := f.Check(op); err != nil {
		return 0, err
	}
	t := f.lane.take()
	f.lane.wait(t)
	defer f.lane.done()
	local := bad
	if local == nil && whence != SeekSet && whence != SeekCur && whence != SeekEnd {
		local = core.Errorf(core.ClassArg, op, "whence %d is none of MPI_SEEK_SET, MPI_SEEK_CUR, MPI_SEEK_END", whence)
	}
	var h argHash
	h.ints(int(offset), whence)
	if err := f.agree(op, local, h.sum(), "seek the shared file pointer"); err != nil {
		return 0, err
	}
	// Every member has entered: their accesses before the call have moved the
	// pointer. Member 0 moves it and sends the new position (or its error's class),
	// so that no member leaves before the pointer has moved.
	var out [16]byte
	var own error
	if f.comm.Rank() == spOwner {
		var pos int64
		pos, own = f.seekShared(op, offset, whence)
		if own != nil {
			binary.LittleEndian.PutUint64(out[:], uint64(core.ClassOf(own)))
		}
		binary.LittleEndian.PutUint64(out[8:], uint64(pos))
	}
	if err := collective.Bcast(f.comm, op, &collective.Vec{B: out[:], Esz: 8}, spOwner); err != nil {
		return 0, core.MapErr(op, err)
	}
	if own != nil {
		return 0, own
	}
	if c := binary.LittleEndian.Uint64(out[:]); c != 0 {
		return 0, core.Errorf(core.ErrorClass(c), op, "rank %d of the file's group could not move the shared file pointer (its error says why)", spOwner)
	}
	return int64(binary.LittleEndian.Uint64(out[8:])), nil
}

// seekShared is member 0's part of SeekShared: it returns the new position in
// etypes.
func (f *File) seekShared(op string, offset int64, whence int) (int64, error) {
	f.mu.Lock()
	v := f.view
	f.mu.Unlock()
	es := v.EtypeSize()
	var base int64
	switch whence {
	case SeekCur:
		cur, err := f.spOp(op, 0, OpNoOp)
		if err != nil {
			return 0, err
		}
		base = cur / es
	case SeekEnd:
		size, err := f.Size(op)
		if err != nil {
			return 0, err
		}
		base = v.EOF(size) / es
	}
	if offset > 0 && base > math.MaxInt64-offset {
		return 0, core.Errorf(core.ClassArg, op, "offset %d from %d etypes overflows", offset, base)
	}
	pos, err := viewPos(op, v, base+offset, 0)
	if err != nil {
		return 0, core.Errorf(core.ClassArg, op, "seeking the shared file pointer to etype %d of the view: a position must be nonnegative and within the largest file offset", base+offset)
	}
	_, err = f.spOp(op, pos, OpReplace)
	return base + offset, err
}

// PositionShared is the shared file pointer, in etypes of the view
// (MPI_File_get_position_shared).
func (f *File) PositionShared(op string) (int64, error) {
	if err := f.Check(op); err != nil {
		return 0, err
	}
	pos, err := f.spOp(op, 0, OpNoOp)
	if err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return pos / f.view.EtypeSize(), nil
}

// resetShared sets the pointer to pos (set_view: the new view's start), every
// member at once, once every member has entered the call; it returns once every
// member may use the pointer again.
func (f *File) resetShared(op string, pos int64) error {
	var err error
	if f.comm.Rank() == spOwner {
		_, err = f.spOp(op, pos, OpReplace)
	}
	return f.agree(op, err, 0, "reset the shared file pointer")
}

// sharedNow is the pointer's view position (set_view's MPI_DISPLACEMENT_CURRENT),
// read once every member has entered the call.
func (f *File) sharedNow(op string) (int64, error) {
	if err := f.agree(op, nil, 0, "read the shared file pointer"); err != nil {
		return 0, err
	}
	return f.spOp(op, 0, OpNoOp)
}
