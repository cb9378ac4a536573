// Package prof is each rank's record of its own MPI calls: per-call counters that are
// always on, the call the rank is in now (for a hung job to explain itself), and, when
// the job is profiled, a timeline of every call. The facade reports each call's entry
// and exit (Enter, Exit); the launcher reads what this package writes (Flush, Report,
// State) and draws the picture of the job (internal/launch, profile*.go).
//
// Contracts:
//   - Counting costs no allocation and no system call: fixed arrays indexed by Call.
//   - Counts and bytes are exact. Time is exact for every call that is not a
//     point-to-point call, for every call that waited past its spin (the idle policy's
//     slow path reports it: Blocked), and for every call when the timeline is on; the
//     short point-to-point calls that remain are timed one in about SampleEvery
//     (chosen at random), and their time is the sampled mean times their count. A
//     clock read costs 10-25 ns, a fifth of a small message's one-way latency, which
//     is why the hot calls are not all timed.
//   - The current call is a few words written with plain stores (Publish-like: atomic
//     under the race detector); a reader (State) takes it when two reads agree. With
//     several goroutines in MPI at once it is the last call entered.
//   - In a program at ThreadMultiple, counters are updated atomically; below it, the
//     caller's promise that calls never overlap lets them be plain adds.
//   - Ticks are the CPU's time-stamp counter on amd64 (constant and synchronised on
//     the machines Go supports there), nanoseconds elsewhere; Flush records two pairs
//     (ticks, Unix nanoseconds) from which readers convert.
package prof

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

// NoPeer is the peer of a call that names none.
const NoPeer = -3

// SampleEvery is the mean number of short point-to-point calls per timed one.
const SampleEvery = 16

// HistBuckets is the number of message-size classes: bucket b holds sizes whose
// bit length is b (0; 1; 2-3; 4-7; ...), the last one everything from 2^(b-1) up.
const HistBuckets = 40

// Counter is one call's totals.
type Counter struct {
	N     uint64              // calls
	Bytes uint64              // bytes moved (sent, received, or the rank's part of a collective)
	Timed uint64              // calls whose time was measured
	Ticks uint64              // the measured calls' time
	Hist  [HistBuckets]uint64 // calls by message size
}

// Bucket is the histogram bucket of a message of n bytes.
func Bucket(n int) int { return min(bits.Len64(uint64(n)), HistBuckets-1) }

// current is the call the rank is in: what State reports.
type current struct {
	call  uint64 // Call | comm context id << 8 | comm size << 40
	peer  uint64 // peer world rank (int32) | tag (int32) << 32
	bytes uint64
	since uint64 // ticks at entry, or when it started waiting; 0: not known yet
}

var (
	counts [NumCalls]Counter
	cur    current

	// concurrent: the program may call MPI from several goroutines at once (set at
	// Start, before any call can overlap).
	concurrent bool
	// timed: every call is timed (the timeline is on).
	timed bool
	// left counts down the short point-to-point calls to the next timed one.
	left uint32 = 1
	rng  uint64 = 0x9e3779b97f4a7c15

	// The rank's row of the communication matrix: bytes and messages sent to each
	// world rank by the point-to-point send calls.
	matBytes, matMsgs []uint64

	tl timeline
	mu sync.Mutex // Start, Flush, the timeline's file
)

func add(p *uint64, v uint64) {
	if concurrent {
		atomic.AddUint64(p, v)
		return
	}
	plainAdd(p, v)
}

// Enter records that the caller entered call on the communicator with context id comm
// (size members) naming peer (a world rank, a wildcard, NoPeer, or a collective's
// root), tag and n bytes. It returns the ticks at entry, 0 when this call is not timed
// (a short point-to-point call between samples), or -1 when it is made inside another
// call and not counted.
func Enter(call Call, comm uint32, size, peer, tag, n int) int64 {
	if !concurrent && load(&cur.call) != 0 {
		// A call made by another (Sendrecv's Wait, Testall's): counted once, as the
		// outer one. (At ThreadMultiple, where calls may overlap, it counts twice.)
		return -1
	}
	var t int64
	if call >= Barrier || call <= Finalize || timed {
		t = Now()
	} else if left--; left == 0 {
		left = nextGap()
		t = Now()
	}
	publish(&cur.call, uint64(call)|uint64(comm)<<8|uint64(uint32(size))<<40)
	publish(&cur.peer, uint64(uint32(peer))|uint64(uint32(tag))<<32)
	publish(&cur.bytes, uint64(n))
	publish(&cur.since, uint64(t))
	return t
}

// nextGap draws the number of calls to the next sample: 1 to 2*SampleEvery-1, so
// that a program's periodic pattern of calls cannot line up with the samples.
func nextGap() uint32 {
	rng ^= rng << 13
	rng ^= rng >> 7
	rng ^= rng << 17
	return uint32(rng%(2*SampleEvery-1)) + 1
}

// Exit records the end of call, entered at t (Enter's answer), having moved n bytes.
func Exit(call Call, t int64, n int) {
	if t < 0 {
		return
	}
	since := int64(load(&cur.since))
	word := load(&cur.call)
	publish(&cur.call, 0)
	c := &counts[call]
	add(&c.N, 1)
	add(&c.Bytes, uint64(n))
	add(&c.Hist[Bucket(n)], 1)
	if t == 0 && since == 0 {
		return
	}
	end := Now()
	if t == 0 {
		// Not sampled, but it waited: the time from when it began to wait, which
		// misses only the spin before it (microseconds).
		t = since
	} else {
		add(&c.Timed, 1)
	}
	add(&c.Ticks, uint64(end-t))
	if timed {
		tl.add(call, word, t, end, n)
	}
}

// ExitSend is Exit for a call that sent n bytes to world rank peer: the matrix counts it.
func ExitSend(call Call, t int64, n, peer int) {
	if t >= 0 && uint(peer) < uint(len(matBytes)) {
		add(&matBytes[peer], uint64(n))
		add(&matMsgs[peer], 1)
	}
	Exit(call, t, n)
}

// Blocked is called by a wait that has spun in vain (internal/idle): the current call
// is really waiting, so its time is measured from now if it was not from its entry.
func Blocked() {
	if load(&cur.since) == 0 && load(&cur.call) != 0 {
		publish(&cur.since, uint64(Now()))
	}
}

// Now is the tick counter.
func Now() int64 { return ticks() }

// pair is a moment in both clocks.
type pair struct{ Ticks, Unix int64 }

func pairNow() pair {
	// The Unix clock read between two tick reads: the pair's error is half the gap.
	t0 := Now()
	u := time.Now().UnixNano()
	t1 := Now()
	return pair{t0 + (t1-t0)/2, u}
}
