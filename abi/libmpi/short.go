package main

/*
#include <stdlib.h>
#include "short.h"
#include "tallies.h"
#include "winshort.h"
*/
import "C"

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/window"
)

// The Go side of the one-sided calls' short ways in C (short.c): the copy of the
// device's state they read, in C memory (short.h). The rules are the device's
// (internal/window/fast.go); this file only keeps the copy true:
//
//   - the predefined datatypes, once, from this package's table;
//   - per window, when it is made: each target's memory when it is mapped here (node
//     shared memory, or this rank's own C memory), its displacement unit and size,
//     its accumulate lock word when that lies in shared memory;
//   - per target, after every synchronisation call (winSync): what its epoch allows,
//     from the device (window.Win.ShortState), and whether MPI_Win_flush_all has
//     anything to do;
//   - before MPI_Win_free and MPI_Finalize: nothing, so the calls take the Go way
//     and report what is wrong.
//
// The C side reads the words that change with atomic loads, so it is right under
// MPI_THREAD_MULTIPLE; a program that frees a window or ends an epoch while another
// thread still operates on it is erroneous in MPI too.

// shortKinds are the element kinds short.c's kernels add.
var shortKinds = map[datatype.Kind]C.uint8_t{
	datatype.KindInt8: C.MPIGO_K_I8, datatype.KindUint8: C.MPIGO_K_I8,
	datatype.KindInt16: C.MPIGO_K_I16, datatype.KindUint16: C.MPIGO_K_I16,
	datatype.KindInt32: C.MPIGO_K_I32, datatype.KindUint32: C.MPIGO_K_I32,
	datatype.KindInt64: C.MPIGO_K_I64, datatype.KindUint64: C.MPIGO_K_I64,
	datatype.KindInt: C.MPIGO_K_I64, datatype.KindUint: C.MPIGO_K_I64,
	datatype.KindFloat32: C.MPIGO_K_F32, datatype.KindFloat64: C.MPIGO_K_F64,
}

func init() {
	for i := range predefT {
		shortDatatype(i)
	}
	collOps() // MPI_Reduce_local's C half needs no communicator
	C.mpigo_copy_rep = C.int64_t(window.CopyREP())
	lo, hi := window.CopyVec()
	C.mpigo_copy_vec_min, C.mpigo_copy_vec_max = C.int64_t(lo), C.int64_t(hi)
	core.OnSharedWaits(sharedWaits)
}

// sharedWaits caps the C ways' waits as Go's are capped while the node is shared.
func sharedWaits(spin, handoffs int) {
	atomic.StoreInt32((*int32)(unsafe.Pointer(&C.mpigo_shared_handoffs)), int32(handoffs))
	atomic.StoreInt32((*int32)(unsafe.Pointer(&C.mpigo_shared_spin)), int32(spin))
	if spin > 0 {
		sharedTimes.Add(1)
	}
}

// sharedTimes is how many times the C ways' waits were capped.
var sharedTimes atomic.Int64

// mpigo_waits_shared is twice the number of times the launcher has said the node is
// shared, plus 1 while it is: two equal even readings mean the C ways' waits were
// never capped between them. A program that checks that some waits ended in C
// (abi/testdata/p2precv.c) can then tell a rank that left the core to the others, as
// it must on a shared node, from one that missed its message.
//
//export mpigo_waits_shared
func mpigo_waits_shared() int64 {
	n := 2 * sharedTimes.Load()
	if atomic.LoadInt32((*int32)(unsafe.Pointer(&C.mpigo_shared_spin))) > 0 {
		n++
	}
	return n
}

// shortDatatype writes short.c's entry for the predefined datatype of handle
// 0x200+i from this package's table (an empty entry, the Go way, if it has none).
func shortDatatype(i int) {
	e := &C.mpigo_short_dts[i]
	*e = C.mpigo_dt{}
	d := predefT[i]
	if d == nil {
		return
	}
	t := d.t
	if !t.IsContiguous() || t.LB() != 0 || t.Size() <= 0 || t.Size() != t.Extent() || t.Size() > 1<<16 {
		return
	}
	e.size = C.int32_t(t.Size())
	k := t.Kind()
	if k == datatype.KindNone {
		return
	}
	if _, ok := shortAccOp(opReplace, uintptr(0x200+i)); ok {
		e.replace = 1
	}
	if ck, ok := shortKinds[k]; ok {
		e.kind = ck
		if _, ok := shortAccOp(opSum, uintptr(0x200+i)); ok {
			e.sum = 1
		}
	}
	if window.RMAAtomic(k) && t.Size() == 8 {
		e.atomic = 1
	}
}

// bytesOf is the buffer of count items of the predefined datatype dh at p when they
// are plain bytes from p on (short.c's table of them, which applyFortran keeps true)
// and count is positive, small enough that their bytes fit an int: the common case of
// every buffer of the C face, built inline, where cbufIn would call out twice (the
// type's contiguity, its size) and check what is known here. ok false: cbufIn checks
// and builds it.
func bytesOf(p unsafe.Pointer, count int64, dh uintptr) (b core.Buf, ok bool) {
	i := dh - 0x200
	if i >= uintptr(len(C.mpigo_short_dts)) || uint64(count-1) >= 1<<31-1 || p == nil {
		return b, false
	}
	n := int64(C.mpigo_short_dts[i].size) * count // sizes are at most 64 KiB: no overflow
	return core.BytesAt((*byte)(p), int(n)), n > 0
}

// shortWin is a window's copy for short.c and what keeps it.
type shortWin struct {
	mu     sync.Mutex
	d      *C.mpigo_win
	locked []bool     // per target: this rank holds a lock on it
	nLock  int        // targets locked
	nShip  int        // targets locked that are not direct
	taps   *prof.Taps // the targets' links (in C memory), handed down to the record
}

// newShort makes w's copy and publishes it under handle h.
func newShort(w *win, h uintptr) {
	if slotOf(h) >= C.MPIGO_SHORT_WINS {
		return // short.c has no slot for it: every call takes the Go way
	}
	cw := w.d
	n := cw.Size()
	d := (*C.mpigo_win)(C.calloc(1, C.size_t(unsafe.Sizeof(C.mpigo_win{}))))
	d.t = (*C.mpigo_target)(C.calloc(C.size_t(max(n, 1)), C.size_t(unsafe.Sizeof(C.mpigo_target{}))))
	d.n, d.rank, d.h = C.int32_t(n), C.int32_t(cw.Rank()), C.uintptr_t(h)
	if cw.Served() {
		d.served = 1
	}
	ts := unsafe.Slice(d.t, n)
	for r := range ts {
		mem, unit, acc, ok := cw.DirectTarget(r)
		if !ok {
			continue
		}
		t := &ts[r]
		if len(mem) > 0 {
			t.mem = (*C.char)(unsafe.Pointer(unsafe.SliceData(mem)))
		}
		t.size, t.unit, t.maxdisp = C.int64_t(len(mem)), C.int64_t(unit), C.int64_t(int64(len(mem))/int64(unit))
		t.acc = (*C.uint32_t)(unsafe.Pointer(acc))
	}
	if e, ok := cw.EpochState(); ok && checkEpoch(e) {
		d.ep, d.locks, d.access_to = (*C.mpigo_epoch)(e.Head), (*C.int32_t)(e.Locks), (*C.int32_t)(e.AccessTo)
		all := !cw.Served()
		for r := range ts {
			t := &ts[r]
			if e.PostOut[r] == nil {
				all = false
				continue
			}
			t.direct = 1
			t.post_out, t.post_in = (*C.uint64_t)(e.PostOut[r]), (*C.uint64_t)(e.PostIn[r])
			t.complete_out, t.complete_in = (*C.uint64_t)(e.CompleteOut[r]), (*C.uint64_t)(e.CompleteIn[r])
			t.lock, t.held, t.queued = (*C.uint64_t)(e.LockWord[r]), (*C.uint64_t)(e.Held[r]), (*C.uint64_t)(e.Queued[r])
			t.fence = (*C.uint64_t)(e.Fence[r])
		}
		if all {
			sp, yi, ho := cw.WaitPolicy()
			d.sync = newWinSync(e, n, sp, yi, ho)
		}
	}
	sw := &shortWin{d: d, locked: make([]bool, n)}
	sw.watch(ts, cw.TargetWorld)
	w.short = sw
	w.refreshShort()
	C.mpigo_short_set(C.uintptr_t(h), d)
}

// refreshShort copies what every target's epoch allows now. Threads may synchronise
// with different targets at once (MPI_THREAD_MULTIPLE): each refresh reads the
// device's state afresh under s.mu, so the last one leaves it true.
func (w *win) refreshShort() {
	s := w.short
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ts := unsafe.Slice(s.d.t, len(s.locked))
	for r := range ts {
		st := int32(w.d.ShortState(r))
		atomic.StoreInt32((*int32)(unsafe.Pointer(&ts[r].state)), st)
		if l := w.d.Locked(r); l != s.locked[r] {
			s.locked[r] = l
			d := 1
			if !l {
				d = -1
			}
			s.nLock += d
			if _, _, _, direct := w.d.DirectTarget(r); !direct {
				s.nShip += d
			}
		}
	}
	all := int32(0)
	if s.nLock > 0 && s.nShip == 0 {
		all = 1
	}
	atomic.StoreInt32((*int32)(unsafe.Pointer(&s.d.flushall)), all)
}

// hideShort takes w's copy away from short.c: every call takes the Go way.
func hideShort(h uintptr) { C.mpigo_short_set(C.uintptr_t(h), nil) }

// showShort publishes w's copy again (MPI_Win_free failed).
func (w *win) showShort(h uintptr) {
	if s := w.short; s != nil {
		C.mpigo_short_set(C.uintptr_t(h), s.d)
	}
}

// freeShort frees w's copy once it is hidden.
func (w *win) freeShort() {
	if s := w.short; s != nil {
		s.taps.Retire() // before the memory goes
		if y := s.d.sync; y != nil {
			C.free(unsafe.Pointer(y.start.ranks))
			C.free(unsafe.Pointer(y.post.ranks))
			C.free(unsafe.Pointer(y))
		}
		C.free(unsafe.Pointer(s.d.t))
		C.free(unsafe.Pointer(s.d))
		w.short = nil
	}
}

// streamed notes that Go copied n bytes to or from a direct target: from 1 MiB on, the
// device counts them towards its cache model until the next MPI_Win_flush, which
// short.c then leaves to the Go half.
func (w *win) streamed(n int) {
	if s := w.short; s != nil && n >= 1<<20 {
		atomic.StoreInt32((*int32)(unsafe.Pointer(&s.d.stream)), 1)
	}
}

// flushed notes that the device's Flush reset that count.
func (w *win) flushed() {
	if s := w.short; s != nil {
		atomic.StoreInt32((*int32)(unsafe.Pointer(&s.d.stream)), 0)
	}
}

// goHalves counts the calls short.c handed to their Go halves (the goPMPI_x exports of
// win.go), so that a test can tell that the short way was taken.
var goHalves atomic.Int64

// mpigo_short_fallbacks is goHalves for C programs (abi/testdata/rmashort.c).
//
//export mpigo_short_fallbacks
func mpigo_short_fallbacks() int64 { return goHalves.Load() }

// mpigo_mallocs is the Go heap's count of allocations so far, for C tests that check
// a call allocates nothing per use (abi/testdata/noalloc.c). It stops the world:
// a test's probe, not a call for a program's loop.
//
//export mpigo_mallocs
func mpigo_mallocs() int64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.Mallocs)
}

// shortMT makes the profile's counts atomic for good: a session asked for
// MPI_THREAD_MULTIPLE.
func shortMT() { atomic.StoreInt32((*int32)(unsafe.Pointer(&C.mpigo_short_mt)), 1) }

// setShortLive says whether MPI runs, which short.c checks first; at the first start,
// whether the profile's counts must be atomic.
func setShortLive(live bool) {
	v := int32(0)
	if live {
		v = 1
		if core.ThreadLevel() == core.ThreadMultiple {
			atomic.StoreInt32((*int32)(unsafe.Pointer(&C.mpigo_short_mt)), 1)
		}
	}
	atomic.StoreInt32((*int32)(unsafe.Pointer(&C.mpigo_short_live)), v)
}

// shortCalls are the calls short.c counts (MPIGO_C_*), as the record names them.
var shortCalls = [C.MPIGO_C_N]prof.Call{
	C.MPIGO_C_PUT: prof.Put, C.MPIGO_C_GET: prof.Get, C.MPIGO_C_ACC: prof.Accumulate,
	C.MPIGO_C_FOP: prof.FetchAndOp, C.MPIGO_C_CAS: prof.CompareAndSwap, C.MPIGO_C_FLUSH: prof.WinFlush,
	C.MPIGO_C_FLUSH_LOCAL: prof.FlushLocal, C.MPIGO_C_FLUSH_ALL: prof.FlushAll,
	C.MPIGO_C_FLUSH_LOCAL_ALL: prof.FlushLocalAll, C.MPIGO_C_SEND: prof.Send,
	C.MPIGO_C_RECV: prof.Recv, C.MPIGO_C_SENDRECV: prof.Sendrecv, C.MPIGO_C_SENDRECV_REPLACE: prof.SendrecvReplace,
	C.MPIGO_C_WIN_SYNC: prof.Sync,
	C.MPIGO_C_ISEND:    prof.Isend, C.MPIGO_C_IRECV: prof.Irecv, C.MPIGO_C_WAIT: prof.Wait, C.MPIGO_C_TEST: prof.Test,
	C.MPIGO_C_GET_STATUS: prof.RequestGetStatus, C.MPIGO_C_WAITALL: prof.Waitall, C.MPIGO_C_TESTALL: prof.Testall,
	C.MPIGO_C_GET_STATUS_ALL: prof.RequestGetStatusAll, C.MPIGO_C_WAITANY: prof.Waitany,
	C.MPIGO_C_TESTANY: prof.Testany, C.MPIGO_C_GET_STATUS_ANY: prof.RequestGetStatusAny,
	C.MPIGO_C_WAITSOME: prof.Waitsome, C.MPIGO_C_TESTSOME: prof.Testsome,
	C.MPIGO_C_GET_STATUS_SOME: prof.RequestGetStatusSome, C.MPIGO_C_REQUEST_FREE: prof.RequestFree,
	C.MPIGO_C_CANCEL: prof.Cancel, C.MPIGO_C_IPROBE: prof.Iprobe, C.MPIGO_C_MPROBE: prof.Mprobe,
	C.MPIGO_C_MRECV: prof.Mrecv, C.MPIGO_C_IMPROBE: prof.Improbe, C.MPIGO_C_GETACC: prof.GetAccumulate,
}

// short.c's counts are the record's Tally and Link, field for field (short.h).
var (
	_ [0]struct{} = [unsafe.Sizeof(C.mpigo_calls{}) - unsafe.Sizeof(prof.Tally{})]struct{}{}
	_ [0]struct{} = [unsafe.Sizeof(prof.Tally{}) - unsafe.Sizeof(C.mpigo_calls{})]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(C.mpigo_target{}.from_bytes) - unsafe.Offsetof(C.mpigo_target{}.to_bytes) - unsafe.Sizeof(prof.Link{})]struct{}{}
)

// The calls' counts, process-wide in static C memory, go down to the record once:
// its snapshots read them where short.c counts them, so the C short ways never cross
// into Go to count, and the record never calls up to read them.
func init() {
	watchTallies(shortCalls[:], func(b *C.mpigo_tallies) []C.mpigo_calls { return b.p2p[:] })
}

// tallyBlocks are tallies.h's block of counts and the threads' copies of it: every
// count of a C short way is in one of them.
func tallyBlocks() []*C.mpigo_tallies {
	bs := []*C.mpigo_tallies{&C.mpigo_tally}
	for k := range C.MPIGO_TSLOTS {
		bs = append(bs, &C.mpigo_tally_slots[k])
	}
	return bs
}

// watchTallies hands the record the tallies of calls in every block, where family
// finds them.
func watchTallies(calls []prof.Call, family func(*C.mpigo_tallies) []C.mpigo_calls) {
	for _, b := range tallyBlocks() {
		cs := family(b)
		prof.WatchTallies(calls, unsafe.Slice((*prof.Tally)(unsafe.Pointer(&cs[0])), len(cs)))
	}
}

// callsDone is how many calls a C way's counts (family: which of a block's) hold in
// every block: the sum of their size histograms, read atomically as the record's
// snapshot reads them.
func callsDone(family func(*C.mpigo_tallies) []C.mpigo_calls) int64 {
	n := uint64(0)
	for _, b := range tallyBlocks() {
		cs := family(b)
		for k := range cs {
			for i := range cs[k].hist {
				n += atomic.LoadUint64((*uint64)(unsafe.Pointer(&cs[k].hist[i])))
			}
		}
	}
	return int64(n)
}

// watch hands the links of s's targets ts (in C memory: what short.c moved to and
// from each) down to the record, by the targets' world ranks (world; -1: none); Free
// retires them before the memory goes (freeShort).
func (s *shortWin) watch(ts []C.mpigo_target, world func(int) int) {
	taps := make([]prof.Tap, 0, 2*len(ts))
	for r := range ts {
		t := &ts[r]
		taps = append(taps, prof.Tap{Link: (*prof.Link)(unsafe.Pointer(&t.to_bytes)), World: world(r), Cols: prof.RMATo},
			prof.Tap{Link: (*prof.Link)(unsafe.Pointer(&t.from_bytes)), World: world(r), Cols: prof.RMAFrom})
	}
	s.taps = prof.Watch(taps)
}
