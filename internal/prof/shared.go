package prof

import (
	"math/bits"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// The counts at ThreadMultiple. Where calls may overlap, the record's counters take
// atomic adds, and a locked add waits for the stores before it to drain: after a
// send's packet, a collective's flag or a Put's copy, the four to six of a call cost
// as much as the call itself. So the calls of sharedCalls (the point-to-point calls and
// their completions, the blocking collectives, the one-sided operations that complete
// at once) and the one-sided links of node memory (DoneDirect) are counted instead in
// tallies of the Go scheduler's processor (P) that runs the caller, with plain adds
// made while the goroutine is pinned to it, so that no other goroutine adds to the
// same words meanwhile; every snapshot adds the tallies to the record's counts
// (WatchTallies) and reads the links as it reads the owners' (Watch), so counts and
// bytes stay exact. Their times are sampled as below ThreadMultiple, per processor:
// one in about SampleEvery is timed from its entry (Tally's Timed, or Blocked if it
// waited), one that is not but blocks is timed from its wait (Blocked), and the
// others' time is estimated from the samples that did not block (Counter.Estimate).
// Reading the clock at both edges of every call was a tenth of a short
// collective's time. The blocking collectives (entryCounted), whose bytes are known
// as they enter, are counted then when not sampled (shareEnter), so that the
// goroutine is pinned once per call rather than at both ends.
//
// The calls of untimedCalls (the file short way's read_at and write_at: one system
// call, no wait) go further: the unsampled ones skip Enter and Exit too
// (SharedUntimed, SharedCount), so such a call is not the current call while it runs
// (State does not show it).
//
// Below ThreadMultiple the calls take Try, TryExit and TryDone; with the timeline on,
// or under the race detector (whose builds have no short path), Enter, Exit and Done
// with atomic counts.

// sharedCalls are the calls counted in the processors' tallies at ThreadMultiple:
// the point-to-point calls and completions (ReqStart to Testsome), the blocking
// collectives (Barrier to Exscan), the one-sided operations (Put to CompareAndSwap,
// which Done counts, their request forms, and WinFlush), and the file calls of
// untimedCalls.
var sharedCalls = func() (cs [nShared]Call) {
	i := 0
	for c := ReqStart; c <= Testsome; c++ {
		cs[i], i = c, i+1
	}
	for c := Barrier; c <= Exscan; c++ {
		cs[i], i = c, i+1
	}
	for c := Put; c <= RgetAccumulate; c++ {
		cs[i], i = c, i+1
	}
	cs[i], cs[i+1], cs[i+2] = WinFlush, FileReadAt, FileWriteAt
	return cs
}()

const nShared = uintptr(Testsome-ReqStart+1) + uintptr(Exscan-Barrier+1) + uintptr(RgetAccumulate-Put+1) + 3

// sharedIndex is a call's index in sharedCalls, -1 where it is not one.
var sharedIndex = func() (x [NumCalls]int16) {
	for c := range x {
		x[c] = -1
	}
	for i, c := range sharedCalls {
		x[c] = int16(i)
	}
	return x
}()

// untimedCalls says which calls may skip Enter and Exit at ThreadMultiple
// (SharedUntimed).
var untimedCalls = func() (x [NumCalls]bool) {
	x[FileReadAt], x[FileWriteAt] = true, true
	return x
}()

// shard is one processor's tallies of sharedCalls, its count of calls to the next
// timed one, and its one-sided links (DoneDirect); a whole number of cache lines, so
// that processors share none.
type shard struct {
	gap   uint64
	rng   uint64
	links []Link // by world rank w: 2w what went to w, 2w+1 what came from it
	_     [3]uint64
	t     [nShared]Tally
	_     [(64 - nShared*unsafe.Sizeof(Tally{})%64) % 64]byte
}

// shards is indexed by processor id (made once, at the first Start at ThreadMultiple,
// for the processors there are then: GOMAXPROCS, which the rank has set by then); a
// call on a processor beyond it (GOMAXPROCS raised later) counts atomically.
var shards []shard

//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// startShared makes the tallies of the short path at ThreadMultiple (under mu, from
// Start).
func startShared() {
	if !fast || shards != nil {
		return
	}
	shards = make([]shard, runtime.GOMAXPROCS(0))
	linked := len(shards)*size <= maxSharedLinks
	for p := range shards {
		s := &shards[p]
		s.gap = uint64(p%SampleEvery) + 1
		s.rng = 0x9e3779b97f4a7c15 ^ uint64(p+1)*0xbf58476d1ce4e5b9
		calls := sharedCalls
		WatchTallies(calls[:], s.t[:])
		if !linked {
			continue
		}
		s.links = make([]Link, 2*size)
		taps := make([]Tap, 0, 2*size)
		for w := range size {
			taps = append(taps, Tap{Link: &s.links[2*w], World: w, Cols: RMATo},
				Tap{Link: &s.links[2*w+1], World: w, Cols: RMAFrom})
		}
		Watch(taps)
	}
}

// maxSharedLinks bounds the processors' one-sided links (processors times world
// ranks, 32 bytes each): past it DoneDirect counts atomically at ThreadMultiple.
const maxSharedLinks = 1 << 16

// addLinkShared counts one transfer of n bytes in l, the link of slot (DoneDirect's),
// where calls may overlap: in the calling processor's link of that slot, the
// goroutine pinned, or atomically in l.
func addLinkShared(l *Link, slot, n int) {
	if fast {
		p := procPin()
		if p < len(shards) && uint(slot) < uint(len(shards[p].links)) {
			x := &shards[p].links[slot]
			x.Bytes += uint64(n)
			x.Ops++
			procUnpin()
			return
		}
		procUnpin()
	}
	atomic.AddUint64(&l.Bytes, uint64(n))
	atomic.AddUint64(&l.Ops, 1)
}

// Dir says which of a one-sided operation's links DoneDirect counts: what went to
// the target, what came from it, or both (a fetching operation).
type Dir uint8

const (
	DirTo Dir = 1 << iota
	DirFrom
)

// DoneDirect counts a one-sided operation of n bytes done directly on node memory
// with world rank w: call (None: no call) as Done counts it, and the transfer in the
// links of d, to (slot 2w: what went to w) and from (slot 2w+1: what came from it).
// Below ThreadMultiple these are plain adds; at ThreadMultiple they go to the calling
// processor's tally and links of those slots, which every snapshot reads as it reads
// to and from, with the goroutine pinned once for all of them: a pin is a chain of
// dependent loads and stores, worth paying once per operation, not once per count.
func DoneDirect(call Call, n int, to, from *Link, w int, d Dir) {
	if !fast || concurrent {
		doneDirectShared(call, n, to, from, w, d)
		return
	}
	if d&DirTo != 0 {
		*to = Link{to.Bytes + uint64(n), to.Ops + 1}
	}
	if d&DirFrom != 0 {
		*from = Link{from.Bytes + uint64(n), from.Ops + 1}
	}
	if call != None {
		c := &counts[call]
		c.Bytes += uint64(n)
		c.Hist[bits.Len64(uint64(n))]++
	}
}

// doneDirectShared is DoneDirect where calls may overlap.
func doneDirectShared(call Call, n int, to, from *Link, w int, d Dir) {
	if fast && (call == None || sharedIndex[call] >= 0) {
		p := procPin()
		if p < len(shards) && uint(2*w+1) < uint(len(shards[p].links)) {
			s := &shards[p]
			if d&DirTo != 0 {
				x := &s.links[2*w]
				x.Bytes += uint64(n)
				x.Ops++
			}
			if d&DirFrom != 0 {
				x := &s.links[2*w+1]
				x.Bytes += uint64(n)
				x.Ops++
			}
			if call != None {
				t := &s.t[sharedIndex[call]]
				t.Bytes += uint64(n)
				t.Hist[bits.Len64(uint64(n))]++
			}
			procUnpin()
			return
		}
		procUnpin()
	}
	if d&DirTo != 0 {
		addLinkShared(to, 2*w, n)
	}
	if d&DirFrom != 0 {
		addLinkShared(from, 2*w+1, n)
	}
	if call != None {
		Done(call, n)
	}
}

// entryCounted are the calls of sharedCalls counted as they enter at ThreadMultiple
// (shareEnter): the blocking collectives, whose bytes are known at entry and are what
// their exit reports. So an unsampled one pins its processor once, not at both ends,
// and its exit, unless it blocked, only clears the current call.
var entryCounted = func() (x [NumCalls]bool) {
	for c := Barrier; c <= Exscan; c++ {
		x[c] = true
	}
	return x
}()

// shareEnter counts call (one of entryCounted), of n bytes, as it enters at
// ThreadMultiple, in the tally of the processor that runs the caller: false if it is
// the processor's next sample, timed from its entry and counted at its exit, or the
// processor has no tally (GOMAXPROCS raised since Start).
func shareEnter(call Call, n int) bool {
	p := procPin()
	if p >= len(shards) || shards[p].sample() {
		procUnpin()
		return false
	}
	x := &shards[p].t[sharedIndex[call]]
	x.Bytes += uint64(n)
	x.Hist[bits.Len64(uint64(n))]++
	procUnpin()
	return true
}

// exitCounted ends a call that shareEnter counted: the current call cleared, and its
// time from when it began to wait if it blocked, as shareEnd times one.
func exitCounted(call Call) {
	since := int64(load(&cur.since))
	publish(&cur.since, 0)
	publish(&cur.call, 0)
	if since == 0 {
		return
	}
	end := Now()
	p := procPin()
	if p < len(shards) {
		x := &shards[p].t[sharedIndex[call]]
		x.Blocked++
		x.BlockedTicks += uint64(end - since)
		procUnpin()
		return
	}
	procUnpin()
	c := &counts[call]
	add(&c.Waited, 1)
	add(&c.WaitTicks, uint64(end-since))
}

// shareEnd is exit's path for a call of sharedCalls at ThreadMultiple, entered at t
// (0: not sampled) and waiting since since (0: it did not block): counted in its
// processor's tally, timed from its entry if it was sampled, from its wait if it
// blocked, else untimed. False: a processor without one, for exit's atomic counts.
func shareEnd(call Call, n int, t, since int64, blocked bool) bool {
	switch {
	case t > 0:
		return shareExit(call, n, t, blocked)
	case since != 0:
		return shareExit(call, n, since, true)
	}
	SharedCount(call, n)
	return true
}

// shareExit counts call (one of sharedCalls), of n bytes, timed from t, at
// ThreadMultiple in the tally of the processor that runs the caller now: false for a
// processor without one.
func shareExit(call Call, n int, t int64, blocked bool) bool {
	end := Now()
	p := procPin()
	if p >= len(shards) {
		procUnpin()
		return false
	}
	x := &shards[p].t[sharedIndex[call]]
	x.Bytes += uint64(n)
	x.Hist[bits.Len64(uint64(n))]++
	if blocked {
		x.Blocked++
		x.BlockedTicks += uint64(end - t)
	} else {
		x.Timed++
		x.Ticks += uint64(end - t)
	}
	procUnpin()
	return true
}

// SharedOutside says whether code outside Go that does a call itself at ThreadMultiple
// counts it in its own tally (WatchTallies), timing one in about SampleEvery of its
// calls itself: the program is at ThreadMultiple, where Gate's word stays 0, and the
// timeline is off (with it on, every call goes through Enter and Exit).
func SharedOutside() bool { return fast && concurrent && !timed }

// SharedUntimed says whether call, a call of untimedCalls about to be made at
// ThreadMultiple, is to be counted by SharedCount once done, untimed; false: it goes
// through Enter and Exit (the program is not at ThreadMultiple, the timeline is on,
// it is the processor's next sample, or call is not one of untimedCalls).
func SharedUntimed(call Call) bool {
	if !fast || !concurrent || timed || !untimedCalls[call] {
		return false
	}
	p := procPin()
	if p >= len(shards) {
		procUnpin()
		return false
	}
	untimed := !shards[p].sample()
	procUnpin()
	return untimed
}

// sample counts a call on s's processor (pinned to it) and says whether it is the
// processor's next sample, drawing the gap to the one after it as nextGap does.
func (s *shard) sample() bool {
	if s.gap > 1 {
		s.gap--
		return false
	}
	s.rng ^= s.rng << 13
	s.rng ^= s.rng >> 7
	s.rng ^= s.rng << 17
	s.gap = s.rng%(2*SampleEvery-1) + 1
	return true
}

// sampleShared says whether a call of sharedCalls entered at ThreadMultiple is to be
// timed from its entry: its processor's next sample, or a call on a processor without
// tallies (GOMAXPROCS raised since Start).
func sampleShared() bool {
	p := procPin()
	timed := p >= len(shards) || shards[p].sample()
	procUnpin()
	return timed
}

// SharedCount counts call (one of sharedCalls), of n bytes, at ThreadMultiple in the
// tally of the processor that runs the caller now: a call done where SharedUntimed
// said so, or one Done counts.
func SharedCount(call Call, n int) {
	p := procPin()
	if p < len(shards) {
		t := &shards[p].t[sharedIndex[call]]
		t.Bytes += uint64(n)
		t.Hist[bits.Len64(uint64(n))]++
		procUnpin()
		return
	}
	procUnpin()
	// A processor added since the shards were made (GOMAXPROCS raised): the record's
	// own counters, atomically.
	c := &counts[call]
	add(&c.Bytes, uint64(n))
	add(&c.Hist[bits.Len64(uint64(n))], 1)
}

// Flows is a Link counted by the calling goroutines of an owner that may be called
// from several at once: a node collective's flows. Below ThreadMultiple its adds go
// to its base link (AddLink: plain adds); at ThreadMultiple to a copy per processor,
// a cache line each, with plain adds while the goroutine is pinned, for the shards'
// reason: a locked add right after a collective's stores into lines a peer holds
// waits for them to leave this core. Taps hands the base and every copy to the record.
type Flows struct {
	base *Link
	per  []Link // at ThreadMultiple: processor p's at flowStride*p; the last line for a processor added later
}

// flowStride is the Links of a cache line.
const flowStride = 64 / int(unsafe.Sizeof(Link{}))

// NewFlows makes a Flows over base, a link the caller keeps (C's short ways may count
// there too), or over one of its own when base is nil. Made after Start, whose level
// decides whether there are copies.
func NewFlows(base *Link) Flows {
	if base == nil {
		base = new(Link)
	}
	f := Flows{base: base}
	if fast && concurrent && len(shards) > 0 {
		f.per = make([]Link, flowStride*(len(shards)+1))
	}
	return f
}

// Add counts one transfer of n bytes.
func (f *Flows) Add(n int) {
	if f.per == nil {
		AddLink(f.base, n)
		return
	}
	p := procPin()
	if i := flowStride * p; i < len(f.per)-flowStride {
		x := &f.per[i]
		x.Bytes += uint64(n)
		x.Ops++
		procUnpin()
		return
	}
	procUnpin()
	x := &f.per[len(f.per)-flowStride]
	atomic.AddUint64(&x.Bytes, uint64(n))
	atomic.AddUint64(&x.Ops, 1)
}

// Taps appends f's links to taps, as flows to world rank w in cols.
func (f *Flows) Taps(taps []Tap, w int, cols Column) []Tap {
	taps = append(taps, Tap{Link: f.base, World: w, Cols: cols})
	for i := 0; i < len(f.per); i += flowStride {
		taps = append(taps, Tap{Link: &f.per[i], World: w, Cols: cols})
	}
	return taps
}
