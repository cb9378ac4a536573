package window

import (
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/ntcopy"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/rma"
)

// The short way of direct operations: contiguous bytes to or from a target whose
// memory this rank maps, inside a passive-target or fence epoch, inside the target's
// window. Each entry checks exactly that with plain loads (no function values, no
// datatype engine, no allocation) and reports false for anything else: the caller
// then takes the general path, which does the same operation or names what is wrong.
// So the short way changes no outcome, only its cost: an 8-byte Put plus Flush is
// the checks, one store and a return.

// directPeer returns target t when an operation on it may take the short way: InEpoch
// without its mutex (LockAll sets every target's lock word, so it needs no check of
// its own).
func (w *Win) directPeer(t int) *winPeer {
	if uint(t) < uint(len(w.peers)) && core.Live() && !w.freed.Load() {
		if p := &w.peers[t]; p.direct && (w.locks[t].Load() != 0 || w.ep.fence.Load() != 0 || w.accessTo[t].Load() != 0) {
			if t == w.rank && w.served {
				w.applied.Load() // what the progress goroutine applied here (see observe)
			}
			return p
		}
	}
	return nil
}

// at returns the byte offset of disp (units) in p's memory when n bytes from there
// lie in its window.
func (p *winPeer) at(disp int64, n int) (int64, bool) {
	if disp < 0 || disp > p.maxDisp {
		return 0, false
	}
	off := disp * int64(p.dispUnit) // <= size: no overflow
	return off, int64(n) <= p.size-off
}

// The short ways below count the MPI call they complete (Put, Get, Accumulate,
// FetchAndOp, CompareAndSwap, Flush) for both faces, through the inlined
// prof.TryDone, else prof.Done; FetchWord and CasWord name theirs, since the shared
// file pointer uses them inside a file call.

// PutBytes stores src at disp of target t's window when the short way applies, and
// counts the Put.
func (w *Win) PutBytes(t int, disp int64, src []byte) bool {
	p := w.directPeer(t)
	if p == nil {
		return false
	}
	off, ok := p.at(disp, len(src))
	if !ok {
		return false
	}
	if len(src) == 8 {
		// One store: memmove's size dispatch costs more than the copy.
		*(*uint64)(unsafe.Pointer(unsafe.SliceData(p.mem[off:]))) = *(*uint64)(unsafe.Pointer(unsafe.SliceData(src)))
	} else {
		w.copyDirect(p.mem[off:off+int64(len(src))], src)
	}
	p.done(prof.Put, len(src), prof.DirTo)
	return true
}

// GetBytes loads len(dst) bytes from disp of target t's window when the short way
// applies, and counts the Get.
func (w *Win) GetBytes(t int, disp int64, dst []byte) bool {
	p := w.directPeer(t)
	if p == nil {
		return false
	}
	off, ok := p.at(disp, len(dst))
	if !ok {
		return false
	}
	if len(dst) == 8 {
		*(*uint64)(unsafe.Pointer(unsafe.SliceData(dst))) = *(*uint64)(unsafe.Pointer(unsafe.SliceData(p.mem[off:])))
	} else {
		w.copyDirect(dst, p.mem[off:off+int64(len(dst))])
	}
	p.done(prof.Get, len(dst), prof.DirFrom)
	return true
}

// Large copies and the cache. A copy the origin (for Get) or the target (for Put)
// reads next from its cache should stay there; a stream larger than the cache would
// evict itself anyway, and its stores cost less sent to memory past the caches
// (non-temporal), which spares the read of every destination line before it is
// written. Go's memmove does the latter from 1 MiB only where it copies with AVX;
// on an Intel CPU with fast REP MOVSB it never does, and REP MOVSB on AMD's CPUs
// (ntcopy.Move) keeps ordinary stores at every size. The cost model: bytes this rank
// copied to or from direct targets since its last Flush of a direct target
// (Win.streamed) beyond streamBytes, about a core's L2, are a stream and take
// non-temporal stores on every CPU that has them; below it, copies go in chunks under
// 1 MiB, which stay in cache (docs/BENCHMARKS.md, "Streams on AMD").
const (
	streamBytes = 2 << 20
	copyChunk   = 512 << 10
)

// CopyREP is the size from which copyDirect's copies below 1 MiB take REP MOVSB on this
// CPU (ntcopy.Move), 0 where they never do: the C face's short ways copy the same way.
func CopyREP() int { return ntcopy.MoveREP() }

// CopyVec is the range of sizes that copyDirect copies with a vector loop on this CPU
// (ntcopy.MoveCached), 0, 0 where it never does: the C face's short ways copy the same
// way.
func CopyVec() (lo, hi int) { return ntcopy.MoveVec() }

// copyDirect is copy(dst, src) (equal lengths) into or out of a direct target.
func (w *Win) copyDirect(dst, src []byte) {
	if len(src) < 1<<20 {
		ntcopy.MoveCached(dst, src)
		return
	}
	if w.streamed.Add(int64(len(src))) > streamBytes {
		streamCopy(dst, src)
		return
	}
	for len(src) > 0 {
		n := ntcopy.Move(dst[:min(len(dst), copyChunk)], src)
		dst, src = dst[n:], src[n:]
	}
}

// streamCopy is copy(dst, src) (equal lengths, at least a few lines) with
// non-temporal stores where the platform has them: the head up to dst's next cache
// line and the tail past its last whole line are ordinary copies. Overlapping slices
// (a rank's own window as both origin and target) take copy, which copies them as if
// through a buffer.
func streamCopy(dst, src []byte) {
	d, s, n := uintptr(unsafe.Pointer(unsafe.SliceData(dst))), uintptr(unsafe.Pointer(unsafe.SliceData(src))), uintptr(len(dst))
	if !ntcopy.Have || (d < s+n && s < d+n) {
		copy(dst, src)
		return
	}
	head := int(-uintptr(unsafe.Pointer(unsafe.SliceData(dst))) & 63)
	copy(dst[:head], src)
	lines := (len(dst) - head) / 64
	ntcopy.Copy(unsafe.Pointer(&dst[head]), unsafe.Pointer(&src[head]), uintptr(lines))
	tail := head + 64*lines
	copy(dst[tail:], src[tail:])
}

// AccBytes combines origin (elements of kind k) into disp of target t's window with
// op when the short way applies: 8-byte integers with the CPU's atomics, other kinds
// under the target's accumulate lock with rma's kernels. It counts the Accumulate.
func (w *Win) AccBytes(t int, disp int64, origin []byte, op rma.Op, k datatype.Kind) bool {
	p := w.directPeer(t)
	if p == nil {
		return false
	}
	off, ok := p.at(disp, len(origin))
	if !ok {
		return false
	}
	if !rma.AccContig(p.mem[off:off+int64(len(origin))], origin, op, k, p.ctrl.acc()) {
		return false
	}
	p.done(prof.Accumulate, len(origin), prof.DirTo)
	return true
}

// FetchWord is FetchAndOp on an 8-byte integer at disp of target t's window when the
// short way applies and op is one instruction: Sum (LOCK XADD), Replace (XCHG) or
// NoOp (a load). It counts call (prof.None: none).
func (w *Win) FetchWord(t int, disp int64, v uint64, op rma.Op, call prof.Call) (uint64, bool) {
	p := w.directPeer(t)
	if p == nil {
		return 0, false
	}
	off, ok := p.at(disp, 8)
	if !ok || off&7 != 0 {
		return 0, false
	}
	a := (*uint64)(unsafe.Pointer(unsafe.SliceData(p.mem[off:])))
	var old uint64
	switch op {
	case rma.OpSum:
		old = atomic.AddUint64(a, v) - v
	case rma.OpReplace:
		old = atomic.SwapUint64(a, v)
	case rma.OpNoOp:
		old = atomic.LoadUint64(a)
	default:
		return 0, false
	}
	d := prof.DirTo | prof.DirFrom // the operand goes there, the old value comes back
	if op == rma.OpNoOp {
		d = prof.DirFrom // a read: nothing goes to the target
	}
	p.done(call, 8, d)
	return old, true
}

// done counts call (prof.None: none), an operation of n bytes on p done directly,
// and its transfer in p's links of d.
func (p *winPeer) done(call prof.Call, n int, d prof.Dir) {
	prof.DoneDirect(call, n, &p.to, &p.from, p.world, d)
}

// CasWord is CompareAndSwap on an 8-byte integer at disp of target t's window when
// the short way applies. It counts call (prof.None: none).
func (w *Win) CasWord(t int, disp int64, cmp, swap uint64, call prof.Call) (uint64, bool) {
	p := w.directPeer(t)
	if p == nil {
		return 0, false
	}
	off, ok := p.at(disp, 8)
	if !ok || off&7 != 0 {
		return 0, false
	}
	old := rma.CasWord((*uint64)(unsafe.Pointer(unsafe.SliceData(p.mem[off:]))), cmp, swap)
	p.done(call, 8, prof.DirTo|prof.DirFrom)
	return old, true
}

// FlushDirect reports whether Flush of target t has nothing to do: t is direct and
// locked by this rank, so its operations completed in their calls. It then counts
// the Flush.
func (w *Win) FlushDirect(t int) bool {
	if uint(t) < uint(len(w.peers)) && core.Live() && !w.freed.Load() &&
		w.peers[t].direct && w.locks[t].Load() != 0 {
		if w.streamed.Load() != 0 {
			w.streamed.Store(0)
		}
		if w.served {
			w.published.Store(1) // see observe
		}
		if !prof.TryDone(prof.WinFlush, 0) {
			prof.Done(prof.WinFlush, 0)
		}
		return true
	}
	return false
}

// The short ways taken outside the device: the C ABI does the operations above in C,
// without crossing into Go, from a copy of what they check that it refreshes after
// every call that changes it (window creation, the synchronisation calls, Free).
// These report that state; the rules stay the ones above.

// DirectTarget returns target t's memory, mapped here, and displacement unit when t is
// direct, and its accumulate lock word when the control block lies in node shared
// memory (nil where it is this process's Go memory, a window that is not shared).
func (w *Win) DirectTarget(t int) (mem []byte, dispUnit int, acc *uint32, ok bool) {
	if uint(t) >= uint(len(w.peers)) || w.freed.Load() || !w.peers[t].direct {
		return nil, 0, nil, false
	}
	p := &w.peers[t]
	if w.shared {
		acc = p.ctrl.acc()
	}
	return p.mem, p.dispUnit, acc, true
}

// TargetWorld is target t's world rank (-1: not a rank of the window), where the
// profile's matrix counts what moves to and from it.
func (w *Win) TargetWorld(t int) int {
	if uint(t) >= uint(len(w.peers)) {
		return -1
	}
	return w.peers[t].world
}

// Short states of a target (ShortState).
const (
	ShortNone  = 0 // no epoch gives access to the target here
	ShortOps   = 1 // operations may take the short way (a fence or PSCW access epoch)
	ShortFlush = 2 // and Flush has nothing to do: this rank holds a lock on it
)

// ShortState says what the short ways may do at direct target t now: what directPeer
// and FlushDirect check, less what holds for the window's whole life.
func (w *Win) ShortState(t int) int {
	if uint(t) >= uint(len(w.peers)) || !core.Live() || w.freed.Load() || !w.peers[t].direct {
		return ShortNone
	}
	switch {
	case w.locks[t].Load() != 0:
		return ShortFlush
	case w.ep.fence.Load() != 0 || w.accessTo[t].Load() != 0:
		return ShortOps
	}
	return ShortNone
}

// Served reports whether a progress goroutine applies other ranks' requests to this
// rank's memory: then an operation on this rank's own memory and Flush synchronise
// with it (observe), which only the device's own short ways do.
func (w *Win) Served() bool { return w.served }

// Locked reports whether this rank holds a passive-target lock on t (Lock or LockAll).
func (w *Win) Locked(t int) bool {
	return uint(t) < uint(len(w.locks)) && !w.freed.Load() && w.locks[t].Load() != 0
}

// Size is the number of ranks of the window.
func (w *Win) Size() int { return w.size }

// Rank is this rank's rank in the window.
func (w *Win) Rank() int { return w.rank }
