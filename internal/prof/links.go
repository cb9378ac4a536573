package prof

import (
	"sync"
	"sync/atomic"
)

// The communication matrix. Data that moves between ranks is counted where it moves,
// by the rank that moves it, into memory that rank owns, as the data it moves between
// two ranks (the logical flow, not the cache lines that carry it):
//
//   - the engine's messages (internal/p2p), per destination and parity of context
//     (the odd contexts are the collectives');
//   - the node shared-memory collectives' flows (internal/core, node*.go), into the
//     collective column;
//   - one-sided operations done directly on node memory (the device's short and
//     general ways to a direct target; the C library's short ways, in C memory): Put
//     and Accumulate move their bytes from the origin to the target, Get from the
//     target to the origin, FetchAndOp, CompareAndSwap and GetAccumulate both ways
//     (with NoOp only back); one operation each way it moves data. They are counted
//     at the origin, in the window's state per target.
//
// Their owners hand the counts down to the record as data: each is a Link in the
// owner's memory (Go's or C's), registered with the world rank it counts towards and
// the columns it adds to (Watch) when the owner makes it, and retired when the owner
// frees it (Taps.Retire), which adds its last values into the record's own totals.
// A snapshot reads the registered Links with atomic loads and calls nothing: the
// owners never wait for the record, and the record never calls up into them.
//
// Counting is two adds (AddLink: plain below ThreadMultiple, as every counter), nothing
// per element; the calls counted outside Go (the C short ways) are registered as
// Tallies the same way (WatchTallies).

// Link is what moved between this rank and one world rank.
type Link struct{ Bytes, Ops uint64 }

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

// Column is a set of the matrix's columns that a count adds to.
type Column uint8

const (
	// Sent: what this rank sent to the world rank, messages and node flows
	// (Profile.SentBytes, SentMsgs).
	Sent Column = 1 << colSent
	// Coll: the collectives' part of Sent (CollBytes, CollMsgs).
	Coll Column = 1 << colColl
	// RMATo: one-sided operations on node memory, to the world rank (RMABytes, RMAOps).
	RMATo Column = 1 << colRMATo
	// RMAFrom: one-sided operations on node memory, from the world rank (RMAInBytes,
	// RMAInOps).
	RMAFrom Column = 1 << colRMAFrom
)

// The columns' indices: a Column's bits, the record's arrays of totals.
const (
	colSent = iota
	colColl
	colRMATo
	colRMAFrom
	numColumns
)

// Tap is one count the record reads: a Link its owner writes with aligned 8-byte
// stores (AddLink, or its own of the same kind), the world rank it counts towards,
// and the columns it adds to.
type Tap struct {
	Link  *Link
	World int
	Cols  Column
}

// Taps is a set of counts registered together (Watch) and retired together: the
// engine's, a window's targets', a communicator's node state.
type Taps struct{ taps []Tap }

// matrix holds the sets being read and the totals of those retired, by column and
// world rank (grown as needed: a set may retire before Start sets the size).
var matrix struct {
	sync.Mutex
	live    map[*Taps]struct{}
	retired [numColumns][]Link
	tallies []tally
}

// Watch registers taps, which every snapshot reads until the set is retired. It
// keeps the slice. Any goroutine; rare (an owner's creation).
func Watch(taps []Tap) *Taps {
	s := &Taps{taps: taps}
	matrix.Lock()
	if matrix.live == nil {
		matrix.live = map[*Taps]struct{}{}
	}
	matrix.live[s] = struct{}{}
	matrix.Unlock()
	return s
}

// Retire adds s's counts into the record's totals and stops reading them: the memory
// they are in may go once it returns. A nil s, or one retired already, is left alone.
func (s *Taps) Retire() {
	if s == nil {
		return
	}
	matrix.Lock()
	defer matrix.Unlock()
	if _, ok := matrix.live[s]; !ok {
		return
	}
	delete(matrix.live, s)
	for _, t := range s.taps {
		if t.World < 0 {
			continue
		}
		l := t.load()
		for col := range numColumns {
			if t.Cols&(1<<col) == 0 {
				continue
			}
			r := &matrix.retired[col]
			for len(*r) <= t.World {
				*r = append(*r, Link{})
			}
			(*r)[t.World].Bytes += l.Bytes
			(*r)[t.World].Ops += l.Ops
		}
	}
}

func (t *Tap) load() Link {
	return Link{Bytes: atomic.LoadUint64(&t.Link.Bytes), Ops: atomic.LoadUint64(&t.Link.Ops)}
}

// readMatrix adds every count, live and retired, into cols (by column, then world
// rank; counts of world ranks beyond them are left out).
func readMatrix(cols *[numColumns][]Link) {
	matrix.Lock()
	defer matrix.Unlock()
	add := func(c Column, w int, l Link) {
		for col := range numColumns {
			if c&(1<<col) != 0 && uint(w) < uint(len(cols[col])) {
				cols[col][w].Bytes += l.Bytes
				cols[col][w].Ops += l.Ops
			}
		}
	}
	for s := range matrix.live {
		for i := range s.taps {
			t := &s.taps[i]
			add(t.Cols, t.World, t.load())
		}
	}
	for col, r := range matrix.retired {
		for w, l := range r {
			add(1<<col, w, l)
		}
	}
}

// Tally is a call's counts kept outside the record's counters by their owner (the C
// library's short ways, in C memory, so that they never cross into Go to count): its
// bytes and its calls by size class, as Counter's Bytes and Hist, and the samples its
// owner timed itself: Timed of them in Ticks that did not wait (Counter's Quick ones
// too), Blocked in BlockedTicks whose wait went past its spin, written with aligned
// 8-byte stores.
type Tally struct {
	Bytes                 uint64
	Hist                  [HistBuckets]uint64
	Timed, Ticks          uint64
	Blocked, BlockedTicks uint64
}

type tally struct {
	call Call
	t    *Tally
}

// WatchTallies registers counts of calls kept outside the record: ts[i] counts the
// calls calls[i], which every snapshot adds to the record's own. The memory must
// outlive the process's record (static C memory, for one).
func WatchTallies(calls []Call, ts []Tally) {
	matrix.Lock()
	defer matrix.Unlock()
	for i := range min(len(calls), len(ts)) {
		matrix.tallies = append(matrix.tallies, tally{calls[i], &ts[i]})
	}
}

// readTallies adds the registered tallies into calls (indexed by Call).
func readTallies(calls []Counter) {
	matrix.Lock()
	defer matrix.Unlock()
	for _, x := range matrix.tallies {
		c := &calls[x.call]
		c.Bytes += atomic.LoadUint64(&x.t.Bytes)
		for b := range c.Hist {
			h := atomic.LoadUint64(&x.t.Hist[b])
			c.Hist[b] += h
			c.N += h
		}
		x.t.addSamples(c)
	}
}

// addSamples adds the samples t's owner timed to c: timed from their entry, as a
// sampled call is, and Quick those that did not wait.
func (t *Tally) addSamples(c *Counter) {
	n, k := atomic.LoadUint64(&t.Timed), atomic.LoadUint64(&t.Ticks)
	b, bk := atomic.LoadUint64(&t.Blocked), atomic.LoadUint64(&t.BlockedTicks)
	c.Timed += n + b
	c.Ticks += k + bk
	c.Quick += n
	c.QuickTicks += k
}
