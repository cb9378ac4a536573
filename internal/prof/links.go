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
//     target to the origin, FetchAndOp, CompareAndSwap and GetAccumulate both ways;
//     one operation each way it moves data. They are counted here, per world rank,
//     at the origin: RMATo and RMAFrom.
//
// Counting is a bounds check and two adds into this rank's arrays (plain below
// ThreadMultiple, as every counter), nothing per element; the arrays are sized at
// Start.

// Link is what moved between this rank and one world rank.
type Link struct{ Bytes, Ops uint64 }

var rmaTo, rmaFrom []Link

// RMATo counts a one-sided operation that moved n bytes from this rank to world
// rank w.
func RMATo(w, n int) {
	if uint(w) < uint(len(rmaTo)) {
		AddLink(&rmaTo[w], n)
	}
}

// RMAFrom counts a one-sided operation that moved n bytes from world rank w to this
// rank.
func RMAFrom(w, n int) {
	if uint(w) < uint(len(rmaFrom)) {
		AddLink(&rmaFrom[w], n)
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
