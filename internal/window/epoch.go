package window

import (
	"sync/atomic"
	"unsafe"
)

// A rank's epochs on a window live in words at the end of its control block: in
// memory the node's ranks map when the window is shared (its region, or a created
// window's arena blocks: mapCreated), outside Go's heap, where the C face's short
// ways may read and write them: abi/libmpi/winshort.c runs fence and PSCW there on a
// window whose every target is direct; else in this process's Go memory. Only this
// rank reads and writes its own; the program serialises a window's epoch calls (MPI's
// rule for threads), and the flags are atomic because the operations that check them
// may run on other threads.
//
// Layout, in 8-byte words from the block's word 4+3n (n ranks): the head (epochHead,
// 4 words), then per target the lock (int32: 0, LockShared or LockExclusive, with
// lockNoCheck), whether it is in the open access epoch (int32), the access epoch's
// targets and the exposure epoch's origins (int32 each, the head's counts say how
// many), then per target the PSCW counters Start and Wait have seen and the counts
// Post and Complete have raised at it (uint64 each): the writer of a peer's counter
// keeps its value here, so that raising it needs no load of the peer's line.

// epochHead is a rank's epoch flags and counts (abi/libmpi/short.h's mpigo_epoch).
type epochHead struct {
	fence     atomic.Int32 // 1 while a fence epoch is open
	accessing atomic.Int32 // 1 while Start's access epoch is open
	exposed   atomic.Int32 // 1 while Post's exposure epoch is open
	lockAll   atomic.Int32 // 1 while this rank holds LockAll
	nlocked   atomic.Int32 // targets locked by Lock (not LockAll)
	nAccess   int32        // targets of the open access epoch (accessL)
	nExposure int32        // origins of the open exposure epoch (exposureL)
	_         int32
}

const epochHeadWords = int(unsafe.Sizeof(epochHead{}) / 8)

// epochWords is the words of the epoch state of a window of n ranks.
func epochWords(n int) int { return epochHeadWords + 4*((n+1)/2) + 4*n }

// epochIn lays w's epoch state out at the end of its control block c.
func (w *Win) epochIn(c ctrlBlock) {
	n := w.size
	e := c[4+3*n:][:epochWords(n)]
	half := (n + 1) / 2
	i32 := func(at int) unsafe.Pointer { return unsafe.Pointer(&e[epochHeadWords+at*half]) }
	w.ep = (*epochHead)(unsafe.Pointer(&e[0]))
	w.locks = unsafe.Slice((*atomic.Int32)(i32(0)), n)
	w.accessTo = unsafe.Slice((*atomic.Int32)(i32(1)), n)
	w.accessL = unsafe.Slice((*int32)(i32(2)), n)
	w.exposureL = unsafe.Slice((*int32)(i32(3)), n)
	w.startSeen = e[epochHeadWords+4*half:][:n:n]
	w.waitSeen = e[epochHeadWords+4*half+n:][:n:n]
	w.postSent = e[epochHeadWords+4*half+2*n:][:n:n]
	w.completeSent = e[epochHeadWords+4*half+3*n:][:n:n]
}

func flag(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// access is the targets of the open access epoch.
func (w *Win) access() []int32 { return w.accessL[:w.ep.nAccess] }

// exposure is the origins of the open exposure epoch.
func (w *Win) exposure() []int32 { return w.exposureL[:w.ep.nExposure] }

// Epoch is where w's epoch state lies, for the C face's short ways, which read and
// write it as the calls above do: each a pointer to its first word, the per-target
// ones of Size entries. ok is false where it lies in Go's memory (a window that is
// not shared), which C must not hold.
type Epoch struct {
	Head                    unsafe.Pointer // epochHead
	Locks, AccessTo         unsafe.Pointer // int32s
	Access, Exposure        unsafe.Pointer // int32s
	StartSeen, WaitSeen     unsafe.Pointer // uint64s
	PostSent, CompleteSent  unsafe.Pointer // uint64s: the values of PostOut and CompleteOut
	PostOut, PostIn         []*uint64      // per rank: the counters Post raises at it, Start waits on
	CompleteOut, CompleteIn []*uint64      // per rank: the counters Complete raises at it, Wait waits on
	LockWord, Held, Queued  []*uint64      // per rank: its passive-target lock, this rank's holder word there, its queue count
	Fence                   []*uint64      // per rank: its count of fences entered (fenceBarrier), which only it raises
	HeadSize                int            // bytes of the head, for the C side's check of its layout
}

// EpochState reports w's Epoch when its words and its direct targets' PSCW counters
// lie in memory the node's ranks map (nil counters for targets that are not direct).
func (w *Win) EpochState() (Epoch, bool) {
	if !w.shared || w.freed.Load() {
		return Epoch{}, false
	}
	n := w.size
	e := Epoch{Head: unsafe.Pointer(w.ep), Locks: unsafe.Pointer(&w.locks[0]), AccessTo: unsafe.Pointer(&w.accessTo[0]),
		Access: unsafe.Pointer(&w.accessL[0]), Exposure: unsafe.Pointer(&w.exposureL[0]),
		StartSeen: unsafe.Pointer(&w.startSeen[0]), WaitSeen: unsafe.Pointer(&w.waitSeen[0]),
		PostSent: unsafe.Pointer(&w.postSent[0]), CompleteSent: unsafe.Pointer(&w.completeSent[0]),
		PostOut: make([]*uint64, n), PostIn: make([]*uint64, n), CompleteOut: make([]*uint64, n), CompleteIn: make([]*uint64, n),
		LockWord: make([]*uint64, n), Held: make([]*uint64, n), Queued: make([]*uint64, n), Fence: make([]*uint64, n),
		HeadSize: int(unsafe.Sizeof(epochHead{}))}
	for t := range n {
		p := &w.peers[t]
		if !p.direct {
			continue
		}
		e.PostOut[t], e.PostIn[t] = p.ctrl.post(w.rank), w.ctrl.post(t)
		e.CompleteOut[t], e.CompleteIn[t] = p.ctrl.complete(w.rank, n), w.ctrl.complete(t, n)
		e.LockWord[t], e.Held[t], e.Queued[t] = p.ctrl.lock(), p.ctrl.held(w.rank, n), p.ctrl.queued()
		e.Fence[t] = p.ctrl.fence()
	}
	return e, true
}

// AwaitAbove waits until the word at p (one of EpochState's counters) is above v, by
// the window's idle policy: a C short way's wait that outlasted its spin goes on here.
func (w *Win) AwaitAbove(p *uint64, v uint64) {
	w.await(func() bool { return atomic.LoadUint64(p) > v })
}

// WaitPolicy is the idle policy of the window's waits (spin and yield polls, and the
// handoffs that end the yields early), for the C face's, which spin and yield as
// these do before they hand the wait to AwaitAbove.
func (w *Win) WaitPolicy() (spin, yield, handoffs int) {
	p := servePolicy()
	return p.Spin, p.Yield, p.Handoffs
}

// LockNoCheck is the bit a lock taken with ModeNoCheck carries in the epoch state's
// per-target lock (the C face stores it too).
const LockNoCheck = lockNoCheck

// LockExclusiveBit is the bit an exclusive holder sets in a target's lock word
// (internal/rma's protocol, which the C face follows on the same word).
const LockExclusiveBit = uint64(1) << 63
