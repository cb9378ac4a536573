package mpir

import (
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/idle"
	"github.com/mpigo/mpigo/internal/window"
)

// The board: where a joined ordered write (file_ordered.go) on a file whose members
// share one node passes its headers, records and outcome, instead of messages to
// member 0 and a broadcast back.
//
// Contracts:
//   - It is a window of node shared memory (MPI_Win_allocate_shared's kind) over the
//     file's communicator, held by member 0, made by the first joined ordered write
//     on a file of two or more members on one node (a collective call, so every
//     member makes it in the same call) and freed by the close. Where it cannot be
//     made (no node memory), the messages stay.
//   - Its lines: member 0's outcome (a sequence word, then joinOutFields words), a
//     count of the members asleep on a word of the board, and a header line per
//     member (a sequence word, its class, its record's length); then a record area
//     of joinMax(size) bytes per member but member 0.
//   - Every member numbers the file's joined writes alike: its own line's sequence
//     word (member 0's outcome, another member's header) holds its last, so that Go
//     and the C face's short way count the same calls. Member r > 0 writes its
//     record and header, then the header's sequence word; member 0 waits for
//     every header of the call, writes the records from the board itself (into
//     the file, or its mapping: putJoined, with no copy of its own between),
//     and publishes the outcome, then its sequence word. Member r waits for that word
//     before it returns, so its area and header are member 0's until then, and
//     member 0's outcome line is read by every member before member 0 can write it
//     again (it first waits for their next headers).
//   - On a file in memory, member 0 of the short way (orderedShort) does not copy the
//     others' records: once every header is in, it moves the pointer, writes into
//     each member's header line the file offset of its record, publishes the
//     outcome joinPlace and copies its own record; each member then copies its own
//     record into the file's mapping from its program's memory (placeOwn). A member
//     reads only its own line's offset: another member, done with the call, may
//     post its next header before this one reads.
//   - A member's header line also mirrors its lane (words 3 and 4: the next ticket,
//     the ticket served), so that the C face's short way (fileshort.c), which runs
//     outside the lane, runs only when no collective of the file is under way.
//   - A wait spins, yields and sleeps by the device's idle policy (p2p_spin,
//     p2p_yield, p2p_sleep; little spin where ranks outnumber cores); a sleeper counts
//     itself in the board's sleeper word, which a publisher reads after its store,
//     and every millisecond or so a waiter asks the node's transport whether the
//     member it waits for still lives.
type board struct {
	w     *window.Win
	mem   []byte // member 0's segment, mapped here
	area  int64  // bytes of a member's record area
	size  int    // the file's members
	ad    idle.Adaptive
	check func(r int) error // nil: no transport to ask
	ptr   *uint64           // member 0: the shared pointer's word, mapped here (nil: not)
}

// The board's lines (bytes).
const (
	bdLine  = 64
	bdOut   = 0          // the outcome: sequence word, then the joinOut fields
	bdSleep = bdLine     // the count of sleepers (an int32)
	bdHdr   = 2 * bdLine // member r's header at bdHdr + r*bdLine: sequence word, class, length, lane
	bdLane  = 24         // in a member's header line: its lane's next ticket, then the one served
	bdPlace = 40         // in a member's header line: the file offset of its record (joinPlace)
)

// boardFor is the file's board, made on the first call (collectively, in the lane),
// or nil where the joined write goes by messages.
func (f *File) boardFor(op string) *board {
	if b := f.bd.Load(); b != nil || f.bdOff {
		return b
	}
	f.bdOff = true
	size := f.comm.Size()
	if size < 2 || f.nodes != 1 {
		return nil
	}
	area := (joinMax(size) + bdLine - 1) &^ (bdLine - 1)
	var n int64
	if f.comm.Rank() == spOwner {
		n = bdHdr + int64(size)*bdLine + int64(size-1)*area
	}
	w, err := window.Create(f.comm, op, window.Args{Flavor: window.FlavorShared, Size: n, DispUnit: 1})
	if err != nil {
		return nil // the window's setup failed on every member alike: the messages stay
	}
	mem, _, _, mapped := w.Segment(spOwner)
	if !mapped || int64(len(mem)) < bdHdr+int64(size)*bdLine+int64(size-1)*area {
		w.Free(op)
		return nil
	}
	p := core.AwaitPolicy()
	if core.LocalSize() > runtime.NumCPU() {
		p = p.Oversubscribed()
	}
	b := &board{w: w, mem: mem, area: area, size: size, ad: idle.NewAdaptive(p, 2)}
	if sh := core.NodeTransport(); sh != nil {
		c := f.comm
		b.check = func(r int) error { return sh.CheckPeer(c.LocalWorldRank(r)) }
	}
	if f.comm.Rank() == spOwner {
		mem, _, unit, mapped := f.sp.Segment(spOwner)
		if off := f.spDisp * int64(unit); mapped && off >= 0 && off+8 <= int64(len(mem)) && off%8 == 0 {
			b.ptr = (*uint64)(unsafe.Pointer(&mem[off]))
		}
	}
	f.bd.Store(b)
	f.lane.mirrorTo((*[2]uint64)(unsafe.Pointer(b.word(hdrOff(f.comm.Rank()) + bdLane))))
	return b
}

// next is the number of this member's next call on the board: one past its last, or,
// posted, the one the C face posted already.
func (b *board) next(rank int, posted bool) uint64 {
	if rank == spOwner {
		return atomic.LoadUint64(b.word(bdOut)) + 1
	}
	s := atomic.LoadUint64(b.word(hdrOff(rank)))
	if posted {
		return s
	}
	return s + 1
}

// closeBoard frees the board, if the file made one. Collective, in the close.
func (f *File) closeBoard(op string) error {
	b := f.bd.Swap(nil)
	if b == nil {
		return nil
	}
	f.lane.mirrorTo(nil)
	return b.w.Free(op)
}

// word is the 8-byte word at byte off of the board.
func (b *board) word(off int64) *uint64 {
	return (*uint64)(unsafe.Pointer(unsafe.SliceData(b.mem[off:])))
}

// record is n bytes of member r's record area (r > 0, n at most b.area).
func (b *board) record(r int, n int64) []byte {
	off := bdHdr + int64(b.size)*bdLine + int64(r-1)*b.area
	return b.mem[off : off+n : off+n]
}

// hdr is the byte offset of member r's header line.
func hdrOff(r int) int64 { return bdHdr + int64(r)*bdLine }

// publish stores v in the sequence word at off and wakes its sleepers.
func (b *board) publish(off int64, v uint64) {
	p := b.word(off)
	atomic.StoreUint64(p, v)
	if atomic.LoadInt32(b.sleepers()) != 0 {
		idle.FutexWake((*uint32)(unsafe.Pointer(p)))
	}
}

func (b *board) sleepers() *int32 {
	return (*int32)(unsafe.Pointer(unsafe.SliceData(b.mem[bdSleep:])))
}

// wait returns once the sequence word at off, which member r publishes, is at least
// v, or with the transport's error when r died.
func (b *board) wait(r int, off int64, v uint64) error {
	p := b.word(off)
	if atomic.LoadUint64(p) >= v {
		return nil
	}
	return b.waitSlow(r, p, v)
}

// boardGoEvery: as shmcoll's waiters, only every boardGoEvery-th yield drives the
// engine's progress and lets the process's other goroutines run; the others yield
// the core alone.
const boardGoEvery = 8

func (b *board) waitSlow(r int, p *uint64, v uint64) error {
	w := b.ad.Begin()
	var next time.Time
	yields := 0
	for {
		if atomic.LoadUint64(p) >= v {
			w.End()
			return nil
		}
		if w.Next(1) {
			idle.Pause()
			w.Gosched()
			continue
		}
		if w.Yielding() {
			if yields++; yields%boardGoEvery != 0 {
				w.YieldOS()
				continue
			}
			core.Engine().Progress()
			w.Yield()
		} else {
			core.Engine().Progress()
			sl := b.sleepers()
			atomic.AddInt32(sl, 1)
			if cur := atomic.LoadUint64(p); cur < v {
				w.Sleep((*uint32)(unsafe.Pointer(p)), uint32(cur))
			}
			atomic.AddInt32(sl, -1)
		}
		now := time.Now()
		switch {
		case next.IsZero():
			next = now.Add(time.Millisecond)
		case now.After(next):
			next = now.Add(time.Millisecond)
			if b.check == nil {
				continue
			}
			if err := b.check(r); err != nil {
				if atomic.LoadUint64(p) >= v {
					return nil // it finished its part before it went
				}
				return err
			}
		}
	}
}

// Ordered is what the C face's short way of an ordered write (fileshort.c) needs of a
// file with a board, beside Plain's record: the board (member 0's part, mapped here),
// a member's record area, the members and this one's rank, member 0's pointer word
// and the board waits' idle policy; and, for member 0, whether its records go by
// copies into the file's mapping where they land before the file's end (putJoined),
// and the file's size now, from which it may tell.
type Ordered struct {
	Board, Ptr            unsafe.Pointer // Ptr: member 0's only
	Area                  int64
	Size, Rank            int
	Spin, Yield, Handoffs int
	Copies                bool
	FileSize              int64 // with Copies
}

// Ordered reports whether an ordered write of the file may take the C face's short
// way, and what it needs: the file has a board, Plain's short way applies (a
// contiguous view, nothing converted, no atomic mode, not MPI_MODE_SEQUENTIAL) with
// writes allowed, collective buffering is not forced (romio_cb_write "enable"), and
// member 0 maps the pointer's word. A face that keeps a copy makes it again when
// Plain's changes, and after the ordered write that made the board.
func (f *File) Ordered() (o Ordered, ok bool) {
	if f == nil || f.closed.Load() {
		return o, false
	}
	b := f.bd.Load()
	if b == nil {
		return o, false
	}
	if q := f.quick.Load(); q == nil || !q.write || !q.joins {
		return o, false
	}
	p := b.ad.Policy()
	o = Ordered{Board: unsafe.Pointer(unsafe.SliceData(b.mem)), Area: b.area, Size: b.size, Rank: f.comm.Rank(),
		Spin: p.Spin, Yield: p.Yield, Handoffs: p.Handoffs, Ptr: unsafe.Pointer(b.ptr)}
	if o.Rank == spOwner && f.os.CanMap() {
		if n, err := f.os.Size(); err == nil {
			o.Copies, o.FileSize = true, n
		}
	}
	return o, o.Rank != spOwner || b.ptr != nil
}

// HasBoard reports whether the file made its board.
func (f *File) HasBoard() bool { return f != nil && f.bd.Load() != nil }

// orderedShort is an ordered write of mem (a slice's bytes) by the board's protocol
// alone, where every member's part is plain, as the C face's short way
// (fileshort.c) does it: without the plan, the general way's placing and the
// joined way's checks, in the lane. It reports whether it did the call; if not,
// the caller goes on by ordered's way, with a.Posted set where this member's header
// is on the board already. Member 0 gives up before it publishes anything (a
// member's failure or general way, a write past the largest offset, a failed write,
// which ordered's way makes again and reports); another member after its header
// when the outcome is neither a success nor joinPlace. Under joinPlace each member's
// own write comes after the outcome: a member whose write fails returns its error
// (the others, whose records are written, succeed), as where each member writes
// its own part of a collective write.
func (f *File) orderedShort(mem []byte, a *Access) (int64, bool, error) {
	b := f.bd.Load()
	q := f.quick.Load()
	n := int64(len(mem))
	if b == nil || q == nil || !q.write || !q.joins || n > b.area || (q.es != 1 && n%q.es != 0) {
		return 0, false, nil
	}
	rank := f.comm.Rank()
	if rank != spOwner {
		seq := b.next(rank, false)
		copy(b.record(rank, n), mem)
		h := hdrOff(rank)
		*b.word(h + 8) = 0
		*b.word(h + 16) = uint64(n)
		b.publish(h, seq)
		a.Posted = true
		if b.wait(spOwner, bdOut, seq) != nil {
			return 0, false, nil
		}
		switch atomic.LoadUint64(b.word(bdOut + 8)) {
		case joinDone:
			return n, true, nil
		case joinPlace:
			return f.placeOwn("File_write_ordered", b, mem)
		}
		return 0, false, nil
	}
	if b.ptr == nil {
		return 0, false, nil
	}
	seq := b.next(rank, false)
	parts := f.jparts[:0]
	defer func() {
		clear(parts)
		f.jparts = parts[:0]
	}()
	if n > 0 {
		parts = append(parts, mem)
	}
	total := n
	for r := 1; r < b.size; r++ {
		h := hdrOff(r)
		if b.wait(r, h, seq) != nil {
			return 0, false, nil
		}
		c, k := *b.word(h + 8), int64(*b.word(h + 16))
		if c != 0 || k < 0 || k > b.area {
			return 0, false, nil
		}
		if k > 0 {
			parts = append(parts, b.record(r, k))
		}
		total += k
	}
	if total > 0 {
		base := int64(atomic.LoadUint64(b.ptr))
		if base < 0 || base > q.end-total {
			return 0, false, nil
		}
		if f.os.CanMap() && total > n {
			// Each member places its own record (joinPlace).
			at := q.disp + base + n
			for r := 1; r < b.size; r++ {
				h := hdrOff(r)
				*b.word(h + bdPlace) = uint64(at)
				at += int64(*b.word(h + 16))
			}
			atomic.StoreUint64(b.ptr, uint64(base+total))
			clear(b.mem[bdOut+8 : bdOut+8*(1+joinOutFields)])
			*b.word(bdOut + 8) = joinPlace
			b.publish(bdOut, seq)
			if n > 0 {
				f.wrote()
				if _, err := f.putJoined([][]byte{mem}, q.disp+base); err != nil {
					return 0, true, ioErr("File_write_ordered", err)
				}
			}
			return n, true, nil
		}
		if _, err := f.putJoined(parts, q.disp+base); err != nil {
			return 0, false, nil
		}
		f.wrote()
		atomic.StoreUint64(b.ptr, uint64(base+total))
	}
	clear(b.mem[bdOut+8 : bdOut+8*(1+joinOutFields)])
	b.publish(bdOut, seq)
	return n, true, nil
}

// placeOwn is a member's part of a joined write whose outcome is joinPlace: it
// writes its record rec at the offset member 0 left in its header line, and returns
// the write's error, its own alone (the call is done either way).
func (f *File) placeOwn(op string, b *board, rec []byte) (int64, bool, error) {
	off := int64(atomic.LoadUint64(b.word(hdrOff(f.comm.Rank()) + bdPlace)))
	if len(rec) > 0 {
		f.wrote()
		if _, err := f.putJoined([][]byte{rec}, off); err != nil {
			return 0, true, ioErr(op, err)
		}
	}
	return int64(len(rec)), true, nil
}
