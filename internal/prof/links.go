package prof

import "sync/atomic"

// The matrix's entries that are not the engine's messages. The engine counts what it
// sends (Sources.Traffic); data that moves between ranks through node shared memory
// without a message is counted where it moves, as the data it moves between two ranks
// (the logical flow, not the cache lines that carry it):
//
//   - the node shared-memory collectives (internal/core, node*.go), which the layer
//     below counts itself and adds through Sources.Traffic, into the collective
//     column;
//   - one-sided operations done directly on node memory (the device's short and
//     general ways to a direct target; the C ABI's short ways through Foreign): Put
//     and Accumulate move their bytes from the origin to the target, Get from the
//     target to the origin, FetchAndOp, CompareAndSwap and GetAccumulate both ways
//     (with NoOp only back);
//     one operation each way it moves data. They are counted at the origin, in the
//     window's state per target (AddLink), which the layer below lends the record
//     (Sources.RMA) and hands over when the window is freed (Retire).
//
// Counting is two adds into memory the counting rank owns (plain below ThreadMultiple,
// as every counter), nothing per element.

// Link is what moved between this rank and one world rank.
type Link struct{ Bytes, Ops uint64 }

// rmaTo and rmaFrom are the one-sided counts of windows freed (Retire), by world
// rank; those of live windows come from Sources.RMA.
var rmaTo, rmaFrom []Link

// Retire keeps the one-sided counts of a window being freed, to and from world rank
// w (any goroutine; rare).
func Retire(w int, to, from Link) {
	if uint(w) < uint(len(rmaTo)) {
		atomic.AddUint64(&rmaTo[w].Bytes, to.Bytes)
		atomic.AddUint64(&rmaTo[w].Ops, to.Ops)
		atomic.AddUint64(&rmaFrom[w].Bytes, from.Bytes)
		atomic.AddUint64(&rmaFrom[w].Ops, from.Ops)
	}
}

// AddLink counts one transfer of n bytes in l, a count that only the calling
// goroutine writes below ThreadMultiple (this package's, or a layer below's own):
// plain adds there, atomic at ThreadMultiple and under the race detector. Readers
// load it atomically.
func AddLink(l *Link, n int) {
	if concurrent {
		atomic.AddUint64(&l.Bytes, uint64(n))
		atomic.AddUint64(&l.Ops, 1)
		return
	}
	plainAdd(&l.Bytes, uint64(n))
	plainAdd(&l.Ops, 1)
}

// Foreign is a source of counts kept outside Go (the C ABI's short ways count into C
// memory, which Go reads only here, so that the C path never crosses into Go): it
// adds its calls' counts into calls (indexed by Call; N, Bytes and Hist) and its
// one-sided flows into to and from (indexed by world rank). It is called from any
// goroutine, at every snapshot of the record.
type Foreign func(calls []Counter, to, from []Link)

var foreign atomic.Pointer[Foreign]

// SetForeign sets the source of counts kept outside Go (nil: none).
func SetForeign(f Foreign) {
	if f == nil {
		foreign.Store(nil)
		return
	}
	foreign.Store(&f)
}

func startLinks(n int) {
	rmaTo, rmaFrom = make([]Link, n), make([]Link, n)
}

func loadLinks(dst, src []Link) {
	for i := range src {
		if i < len(dst) {
			dst[i].Bytes += atomic.LoadUint64(&src[i].Bytes)
			dst[i].Ops += atomic.LoadUint64(&src[i].Ops)
		}
	}
}
