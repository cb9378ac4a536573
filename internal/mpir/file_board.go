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
//   - Every member numbers the file's joined writes alike (seq). Member r > 0 writes
//     its record and header, then the header's sequence word; member 0 waits for
//     every header of the call, writes the records from the board itself (no copy),
//     and publishes the outcome, then its sequence word. Member r waits for that word
//     before it returns, so its area and header are member 0's until then, and
//     member 0's outcome line is read by every member before member 0 can write it
//     again (it first waits for their next headers).
//   - A wait spins, yields and sleeps by the device's idle policy (p2p_spin,
//     p2p_yield, p2p_sleep; little spin where ranks outnumber cores); a sleeper counts
//     itself in the board's sleeper word, which a publisher reads after its store,
//     and every millisecond or so a waiter asks the node's transport whether the
//     member it waits for still lives.
type board struct {
	w     *window.Win
	mem   []byte // member 0's segment, mapped here
	seq   uint64 // this member's joined writes on the board so far
	area  int64  // bytes of a member's record area
	size  int    // the file's members
	ad    idle.Adaptive
	check func(r int) error // nil: no transport to ask
}

// The board's lines (bytes).
const (
	bdLine  = 64
	bdOut   = 0          // the outcome: sequence word, then the joinOut fields
	bdSleep = bdLine     // the count of sleepers (an int32)
	bdHdr   = 2 * bdLine // member r's header at bdHdr + r*bdLine: sequence word, class, length
)

// boardFor is the file's board, made on the first call (collectively, in the lane),
// or nil where the joined write goes by messages.
func (f *File) boardFor(op string) *board {
	if f.bd != nil || f.bdOff {
		return f.bd
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
	f.bd = b
	return b
}

// closeBoard frees the board, if the file made one. Collective, in the close.
func (f *File) closeBoard(op string) error {
	b := f.bd
	f.bd = nil
	if b == nil {
		return nil
	}
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
