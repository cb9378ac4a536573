package main

/*
#include <stdlib.h>
#include "winshort.h"
#include "tallies.h"
*/
import "C"

import (
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/window"
)

// The Go side of the window synchronisation calls' short ways in C (winshort.c): what
// they read beside a window's copy (short.go), where the device's own epoch words lie
// (window.Win.EpochState), and the groups of the last Start and Post as ranks; and the Go
// halves that go on with a wait. The state the calls change is the device's, in the
// node's region: nothing here copies it.

// newWinSync is winshort.c's part of a window of n ranks whose every target is direct
// and that no progress goroutine serves: its epoch words e and the idle policy of the
// device's waits.
func newWinSync(e window.Epoch, n int, spin, yield, handoffs int) *C.struct_mpigo_wsync {
	y := (*C.struct_mpigo_wsync)(C.calloc(1, C.size_t(unsafe.Sizeof(C.struct_mpigo_wsync{}))))
	y.pol.spin, y.pol.yield, y.pol.handoffs = C.int32_t(min(spin, 1<<28)), C.int32_t(min(yield, 1<<28)), C.int32_t(min(handoffs, 1<<28))
	y.access, y.exposure = (*C.int32_t)(e.Access), (*C.int32_t)(e.Exposure)
	y.start_seen, y.wait_seen = (*C.uint64_t)(e.StartSeen), (*C.uint64_t)(e.WaitSeen)
	y.post_sent, y.complete_sent = (*C.uint64_t)(e.PostSent), (*C.uint64_t)(e.CompleteSent)
	y.start.ranks = (*C.int32_t)(C.calloc(C.size_t(max(n, 1)), 4))
	y.post.ranks = (*C.int32_t)(C.calloc(C.size_t(max(n, 1)), 4))
	return y
}

// showGroup records group gh (g) as the last one Post (post) or Start of window w
// (mw) took, with its ranks in the window, for winshort.c's next call.
func (w *win) showGroup(post bool, gh uintptr, mw *mpir.Win, g *mpir.Group) {
	s := w.short
	if s == nil || s.d.sync == nil {
		return
	}
	c := &s.d.sync.start
	if post {
		c = &s.d.sync.post
	}
	// The handle goes first and comes back last, atomically, as winshort.c's group_of
	// reads it first: at MPI_THREAD_MULTIPLE the next Start or Post may be another
	// thread's.
	atomic.StoreUintptr((*uintptr)(unsafe.Pointer(&c.h)), 0)
	rs, err := mw.RanksOf("", g)
	if err != nil || len(rs) > len(s.locked) {
		return
	}
	ranks := unsafe.Slice((*int32)(unsafe.Pointer(c.ranks)), len(s.locked))
	for i, r := range rs {
		ranks[i] = int32(r)
	}
	c.n = C.int32_t(len(rs))
	c.frees = C.uint64_t(atomic.LoadUint64((*uint64)(unsafe.Pointer(&C.mpigo_group_frees))))
	atomic.StoreUintptr((*uintptr)(unsafe.Pointer(&c.h)), gh)
}

// groupFreed empties every window's groups (winshort.c compares the count): a freed
// group's handle may come back naming another group.
func groupFreed() { atomic.AddUint64((*uint64)(unsafe.Pointer(&C.mpigo_group_frees)), 1) }

// mpigo_win_fence_wait goes on with winshort.c's fence's wait for rank r of window wh
// to enter its v-th fence, by the device's idle policy; 0, or the error's code through
// the window's handler.
//
//export mpigo_win_fence_wait
func mpigo_win_fence_wait(wh uintptr, r int32, v uint64) int32 {
	const op = "Win_fence"
	return failWin(op, wh, winOf(wh).d.FenceWait(op, int(r), v))
}

// mpigo_win_await goes on with winshort.c's PSCW wait until the device's counter at p
// is at least v, by the device's idle policy.
//
//export mpigo_win_await
func mpigo_win_await(wh uintptr, p unsafe.Pointer, v uint64) int32 {
	winOf(wh).d.AwaitAbove((*uint64)(p), v-1)
	return 0
}

// mpigo_short_syncs is how many fence and PSCW calls winshort.c did itself, for C
// programs that check which way a call took (abi/testdata/winshort.c).
//
//export mpigo_short_syncs
func mpigo_short_syncs() int64 {
	return callsDone(func(b *C.mpigo_tallies) []C.mpigo_calls { return b.wsync[:] })
}

// winshort.h's epoch head is the device's, field for field.
func checkEpoch(e window.Epoch) bool { return e.HeadSize == int(unsafe.Sizeof(C.mpigo_epoch{})) }

func init() {
	watchTallies([]prof.Call{prof.Fence, prof.WinStart, prof.Complete, prof.Post, prof.WinWait, prof.Lock, prof.Unlock},
		func(b *C.mpigo_tallies) []C.mpigo_calls { return b.wsync[:] })
}

// winshort.h's lock constants are the device's.
var (
	_ [0]struct{} = [C.MPIGO_DEV_LOCK_EXCLUSIVE - window.LockExclusive]struct{}{}
	_ [0]struct{} = [window.LockExclusive - C.MPIGO_DEV_LOCK_EXCLUSIVE]struct{}{}
	_ [0]struct{} = [C.MPIGO_DEV_LOCK_SHARED - window.LockShared]struct{}{}
	_ [0]struct{} = [window.LockShared - C.MPIGO_DEV_LOCK_SHARED]struct{}{}
	_ [0]struct{} = [C.MPIGO_DEV_LOCK_NOCHECK - window.LockNoCheck]struct{}{}
	_ [0]struct{} = [window.LockNoCheck - C.MPIGO_DEV_LOCK_NOCHECK]struct{}{}
	_ [0]struct{} = [C.MPIGO_LOCK_EXCL_BIT - window.LockExclusiveBit]struct{}{}
	_ [0]struct{} = [window.LockExclusiveBit - C.MPIGO_LOCK_EXCL_BIT]struct{}{}
)
