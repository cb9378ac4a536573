// Package prof is each rank's record of its own MPI calls: per-call counters that are
// always on, the call the rank is in now (for a hung job to explain itself), and, when
// the job is profiled, a timeline of every call. The facade reports each call's entry
// and exit (Try and TryExit inlined in the hot calls, with the timeline's TryDeferred
// and TryExitRecv, else Enter, EnterTimed, EnterWait and Exit), naming the
// communicator by the record's descriptor of it (Comm), which the layer below fills
// when it makes the communicator; the owners of the communication matrix's counts
// hand them down as memory the record reads (Watch, WatchTallies); the launcher reads
// what this package writes (Flush, Query, Report, State) and draws the picture of the
// job (internal/launch, profile*.go).
//
// Contracts:
//   - Counting costs no allocation and no system call: fixed arrays indexed by Call.
//     The short path (Try, TryExit) is a compare, five plain stores, two adds; a
//     call's count is the sum of its size histogram, taken by a snapshot.
//   - Counts and bytes are exact. Time is exact for the calls entered with EnterTimed
//     (collectives, creation, window synchronisation, Finalize), for every call that
//     waited past its spin (the idle policy's slow path reports it: Blocked), and for
//     every call when the timeline is on but the small sends and receives that start
//     deferred (see below); the other calls (point-to-point, waits, one-sided
//     operations; with the timeline, those small ones) are timed one in about
//     SampleEvery (chosen at random), and the time of those neither sampled nor
//     blocked is the mean of the sampled ones that did not block (Counter.Estimate).
//     A clock read costs a good part of a small message's one-way latency
//     (docs/BENCHMARKS.md, profiling overhead), which is why the hot calls are not
//     all timed.
//   - With the timeline on, an event's interval lies within the call's, a few tens of
//     nanoseconds short at one edge in two cases, so that no clock read lies between a
//     message's arrival and the answer a ping-pong sends: a send of at most
//     stampedMax bytes starts when it begins to wait, else at its end (after its
//     message has left); a blocking receive of at most stampedMax bytes whose wait
//     found its message ends at the clock read before one of its last few polls. An
//     event reaches the ring at the next call's exit or wait (pend; Settle before a
//     Flush that must hold it).
//   - The current call is a few words written with plain stores (atomic under the
//     race detector and off amd64); a reader (State) takes it when two reads agree.
//     With several goroutines in MPI at once it is the last call entered.
//   - In a program at ThreadMultiple every call takes the long path, whose counters
//     are updated atomically, but the calls of sharedCalls, counted in per-processor
//     tallies (shared.go); below it, the caller's promise that calls never overlap
//     lets them be plain adds.
//   - Data flows down to the record, never the other way: it imports nothing of
//     mpigo's but config and group, and calls nothing of a layer above, not even
//     through a function value. What it knows of a communicator was given to its
//     descriptor (Comm); the counts it does not keep itself (the matrix's, the C
//     library's) are memory their owners registered (Watch, WatchTallies), which a
//     snapshot reads with atomic loads, from any goroutine, whoever asks for it
//     (Flush, Query, Summary, the error seam's OnError).
//   - The communication matrix counts the data that moves between ranks where it
//     moves, by the rank that moves it, into memory that rank owns: the engine's
//     messages, the node shared-memory collectives' flows, one-sided operations on
//     node memory (links.go says which column each goes to). Counting is plain adds
//     (AddLink), none per element.
//   - Ticks are the CPU's time-stamp counter on amd64 (constant and synchronised on
//     the machines Go supports there), nanoseconds elsewhere; Flush records two pairs
//     (ticks, Unix nanoseconds) from which readers convert.
package prof

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// NoPeer is the peer of a call that names none.
const NoPeer = -3

// SampleEvery is the mean number of short point-to-point calls per timed one.
const SampleEvery = 64

// HistBuckets is the number of message-size classes: bucket b holds sizes whose
// bit length is b (0; 1; 2-3; 4-7; ...; 2^63 and up in bucket 64), so that a size's
// bucket is one instruction (bits.Len64) with no bound to apply.
const HistBuckets = 65

// Counter is one call's totals. A call's time is measured from its entry (Timed: every
// call of the kinds always timed, every call with the timeline on, else a random
// sample of the short calls), or from when it blocked (Waited: a short call not
// sampled whose wait went past its spin), or not at all (the rest of the short calls,
// whose time Estimate takes from the sampled ones that did not block).
type Counter struct {
	N          uint64              // calls: the sum of Hist, which the recording adds to (a snapshot's sum)
	Bytes      uint64              // bytes moved (sent, received, or the rank's part of a collective)
	Timed      uint64              // calls timed from their entry
	Ticks      uint64              // their time
	Quick      uint64              // of the timed calls, those that did not block
	QuickTicks uint64              // their time
	Waited     uint64              // calls not timed from their entry that blocked
	WaitTicks  uint64              // their time from when they blocked
	Hist       [HistBuckets]uint64 // calls by message size
}

// Estimate is the calls' time in ticks: the time measured, and for the calls not
// measured (neither timed nor blocked) the mean of the timed ones that did not block.
// (The mean of all the timed ones would count the blocked ones' waits again for every
// call not measured.)
func (c *Counter) Estimate() float64 {
	t := float64(c.Ticks) + float64(c.WaitTicks)
	if rest := c.N - c.Timed - c.Waited; c.Timed+c.Waited < c.N && c.Quick > 0 {
		t += float64(rest) * float64(c.QuickTicks) / float64(c.Quick)
	}
	return t
}

// Done counts a call that completed at once without entering the record (a window
// operation on the short path to node memory): its count, bytes and size, no time.
// A hot caller tries TryDone first, inlined, and calls Done when it says no:
//
//	if !prof.TryDone(call, n) {
//		prof.Done(call, n)
//	}
func Done(call Call, n int) {
	if fast && concurrent && sharedIndex[call] >= 0 {
		SharedCount(call, n)
		return
	}
	c := &counts[call]
	add(&c.Bytes, uint64(n))
	add(&c.Hist[bits.Len64(uint64(n))], 1)
}

// TryDone is Done's short path below ThreadMultiple, inlined: two plain adds. It
// reports whether it counted the call.
func TryDone(call Call, n int) bool {
	if !fast || concurrent {
		return false
	}
	c := &counts[call]
	c.Bytes += uint64(n)
	c.Hist[bits.Len64(uint64(n))]++
	return true
}

// Bucket is the histogram bucket of a message of n bytes.
func Bucket(n int) int { return bits.Len64(uint64(n)) }

// Call-word flags (current.call above the call's byte).
const (
	// sampled: a call that may start deferred, timed from its entry as a sample.
	sampled = 1 << 11
	// worldPeer: the peer is a world rank (a request's), not a rank of the communicator.
	worldPeer = 1 << 8
	// waitsRecv: the call waits for a receive (a request's).
	waitsRecv = 1 << 9
	// blocked: the call's wait went past its spin (Blocked).
	blocked = 1 << 10
)

// current is the call the rank is in: what State reports.
type current struct {
	call  uint64 // Call | flags
	comm  *Comm  // the communicator (nil: none)
	peer  uint64 // peer (int32: a rank of comm, a wildcard, NoPeer, a root) | tag (int32) << 32
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
	// gate is Enter's and Exit's short-path word: in its low bits the number of short
	// calls to the next sampled one (the short path runs while it is above 1), plus
	// inCall while a call is under way. Start holds it at 0 when every call must go
	// the long way (concurrent, timed), and only this rank's calling goroutine writes it
	// otherwise.
	gate uint32 = 1
	rng  uint64 = 0x9e3779b97f4a7c15

	tl timeline
	mu sync.Mutex // Start, Flush, the timeline's file
)

// inCall is gate's bit for "in a call".
const inCall = 1 << 31

func add(p *uint64, v uint64) {
	if concurrent {
		atomic.AddUint64(p, v)
		return
	}
	plainAdd(p, v)
}

// countedAtEntry is Enter's answer for a call counted as it entered (shareEnter).
const countedAtEntry = -2

// Enter records that the caller entered call, a short point-to-point call, on comm
// (the record's descriptor of the communicator; nil: none)
// naming peer (a rank of comm, a wildcard, NoPeer), tag and n bytes. It returns the
// ticks at entry, 0 when this call is not timed (between samples), -1 when it is
// made inside another call and not counted, or -2 when it was counted as it entered
// (a blocking collective at ThreadMultiple, between samples: shareEnter).
//
// A hot call tries the short path first, inlined, and calls Enter only when it says
// no (Enter and Exit themselves, which hold the long path's call, cannot be inlined):
//
//	var t int64
//	if !prof.Try(call, comm, peer, tag, n) {
//		t = prof.Enter(call, comm, peer, tag, n)
//	}
//	...
//	if !prof.TryExit(call, t, n) {
//		prof.Exit(call, t, n)
//	}
func Enter(call Call, comm *Comm, peer, tag, n int) int64 {
	if timed && !concurrent && cur.call == 0 {
		// The timeline's path: one clock read and the current call's stores; none
		// for a small send or receive, whose start is read when it waits or else at
		// its end (see deferred).
		word := uint64(call)
		if n <= stampedMax && deferrable[call] {
			if t := TryDeferred(call, comm, peer, tag, n); t != 0 {
				return t
			}
			// One in about SampleEvery is timed from its entry: the others' time
			// is estimated from these (see count).
			defGap = nextGap()
			word |= sampled
		}
		polled = 0
		t := Now()
		publish(&cur.call, word)
		publishComm(&cur.comm, comm)
		publish(&cur.peer, uint64(uint32(peer))|uint64(uint32(tag))<<32)
		publish(&cur.bytes, uint64(n))
		publish(&cur.since, uint64(t))
		return t
	}
	return enter(uint64(call), comm, uint64(uint32(peer))|uint64(uint32(tag))<<32, n, false)
}

// Try is Enter's short path: a call between samples, not nested in another, in a
// program below ThreadMultiple, recorded by four plain stores (amd64 without the
// race detector; elsewhere it always says no). It reports whether it recorded the
// call, whose Enter answer is then 0.
func Try(call Call, comm *Comm, peer, tag, n int) bool {
	if !fast || uint32(gate-2) >= inCall-2 {
		return false
	}
	gate += inCall - 1
	cur.call = uint64(call)
	cur.comm = comm
	// peer | tag<<32 as two stores (amd64 is little endian): no shift and or.
	*(*[2]uint32)(unsafe.Pointer(&cur.peer)) = [2]uint32{uint32(peer), uint32(tag)}
	cur.bytes = uint64(n)
	return true
}

// How a call that may be done at once (an eager send: p2p's SendNow) is recorded
// after it is done rather than around it: Later's answers.
const (
	LaterNot   = iota // through Enter and Exit (Try, TryDeferred, TryExit)
	LaterCount        // counted untimed, as Try and TryExit would count it: Count
	LaterEvent        // the timeline's event of a deferred call that never waited: SentEvent
)

// Later says how call, of n bytes, made now would be recorded if it is done at once,
// without waiting: LaterCount where Try would take it (not nested in another call,
// not the next sample, no timeline, below ThreadMultiple, amd64 without the race
// detector), LaterEvent where TryDeferred would and the timeline is on. A caller
// that gets either tries the call's short path first and records it once done (Count
// or SentEvent), so that none of the record's stores lies between a ping-pong's
// arrival and its answer; if the short path said no, nothing is recorded yet and it
// records the call as usual. Later stores nothing.
func Later(call Call, n int) int {
	if fast && uint32(gate-2) < inCall-2 && call != None {
		return LaterCount
	}
	if stamping && cur.call == 0 && n <= stampedMax && deferrable[call] && defGap > 1 {
		return LaterEvent
	}
	return LaterNot
}

// Gate is the address of the word Later and Count read and write for the short
// path, for code outside Go that does a call at once and counts it itself, in a tally
// it registered (WatchTallies): the C library's short way for small sends
// (abi/libmpi/p2pshort.c). It takes the call only where Later would say LaterCount,
// gate-2 < GateInCall-2 as unsigned numbers, and then stores gate-1, as Count does;
// anywhere else it calls the Go way. gate is a package variable: it never moves and
// is never freed. 0 where there is no short path (fast false): every call takes Go.
func Gate() uintptr {
	if !fast {
		return 0
	}
	return uintptr(unsafe.Pointer(&gate))
}

// GateInCall is the gate's bit for "in a call" (Gate).
const GateInCall = inCall

// Count records a call of n bytes, done where Later said LaterCount, as Try and
// TryExit together would have.
func Count(call Call, n int) {
	c := &counts[call]
	c.Bytes += uint64(n)
	c.Hist[bits.Len64(uint64(n))]++
	gate--
}

// SentEvent records a call done where Later said LaterEvent (a send of n bytes to
// peer with tag on comm, as Enter takes them), as TryDeferred and Exit together would
// have: a call that started deferred and never waited, its end read now, its event
// pending.
func SentEvent(call Call, comm *Comm, peer, tag, n int) {
	defGap--
	end := Now()
	polled = 0
	if pend.call != None {
		commitBefore(end)
	}
	pend.call, pend.n, pend.comm, pend.t, pend.end, pend.mode = call, n, comm, end, end, countUntimed
	pend.peer = uint64(uint32(peer)) | uint64(uint32(tag))<<32
}

// TryDeferred is Enter's timeline path for a small call that may start deferred (a
// deferrable call: a send that is not a send-receive, or a blocking receive), inlined
// where it is called: the stores between a ping-pong's arrival and its answer, with
// no call and no clock read. It returns Enter's answer for it, or 0 if the call must
// go through Enter.
func TryDeferred(call Call, comm *Comm, peer, tag, n int) int64 {
	if !stamping || cur.call != 0 || n > stampedMax || defGap <= 1 {
		return 0
	}
	defGap--
	polled = 0
	publish(&cur.call, uint64(call))
	publishComm(&cur.comm, comm)
	publish(&cur.peer, uint64(uint32(peer))|uint64(uint32(tag))<<32)
	publish(&cur.bytes, uint64(n))
	// cur.since is 0 already: every exit clears it before cur.call, and only a call
	// under way (cur.call not 0) sets it.
	return deferred
}

// EnterTimed is Enter for a call that is always timed: collectives, communicator
// and window calls, Init and Finalize.
func EnterTimed(call Call, comm *Comm, peer, tag, n int) int64 {
	return enter(uint64(call), comm, uint64(uint32(peer))|uint64(uint32(tag))<<32, n, true)
}

// EnterWait is Enter for a completion call on a request with world rank peer
// (NoPeer: none) and tag; recv says the request is a receive's.
func EnterWait(call Call, comm *Comm, peer, tag int, recv bool) int64 {
	w := uint64(call) | worldPeer
	if recv {
		w |= waitsRecv
	}
	return enter(w, comm, uint64(uint32(peer))|uint64(uint32(tag))<<32, 0, false)
}

// enter is Enter's long path: a nested call, a sampled one, a timed one, a program
// at ThreadMultiple, a build without the short path.
func enter(word uint64, comm *Comm, pt uint64, n int, always bool) int64 {
	if !concurrent && load(&cur.call) != 0 {
		// A call made by another (Sendrecv's Wait, Testall's): counted once, as the
		// outer one. (At ThreadMultiple, where calls may overlap, it counts twice.)
		return -1
	}
	var t int64
	switch {
	case always || timed:
		t = Now()
	case concurrent:
		// A call of untimedCalls here is its processor's sample already.
		c := Call(word)
		switch {
		case !fast || sharedIndex[c] < 0 || untimedCalls[c]:
			t = Now()
		case entryCounted[c]:
			if shareEnter(c, n) {
				t = countedAtEntry
			} else {
				t = Now()
			}
		case sampleShared():
			t = Now()
		}
	case gate <= 1:
		gate = nextGap()
		t = Now()
	default:
		gate--
	}
	if !concurrent {
		gate |= inCall
	}
	publish(&cur.call, word)
	publishComm(&cur.comm, comm)
	publish(&cur.peer, pt)
	publish(&cur.bytes, uint64(n))
	publish(&cur.since, uint64(max(t, 0)))
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
	if t > 0 && timed && !concurrent {
		// The timeline's path below ThreadMultiple: the end's clock read (none for a
		// receive whose wait read it, see Stamp), the counters, and the event kept
		// as pending: it goes into the ring at the next call's exit or wait, which
		// in a ping-pong is after this rank's answer has left, not before.
		end := polled
		if end == 0 || call != Recv || n > stampedMax {
			end = Now()
		}
		polled = 0
		mode := countTimed
		if w := load(&cur.call); w&blocked != 0 {
			mode = countBlocked
		} else if w&sampled != 0 {
			mode = countSample
		}
		if t == deferred {
			mode = countWaited
			if t = int64(load(&cur.since)); t == 0 {
				t, mode = end, countUntimed
			}
		}
		peer, comm := cur.peer, cur.comm
		publish(&cur.since, 0)
		publish(&cur.call, 0)
		if polls[call] {
			// A poll is counted here. One right after the same poll (a Test loop)
			// joins the pending event, so that a program spinning on Test draws one
			// bar, not one event per poll.
			count(call, n, end-t, mode)
			if pend.call == call && pend.comm == comm && pend.peer == peer && t-pend.end < pollGap {
				pend.end = end
				return
			}
		}
		if pend.call != None {
			commitBefore(t)
		}
		pend.call, pend.n, pend.comm, pend.peer, pend.t, pend.end, pend.mode = call, n, comm, peer, t, end, mode
		return
	}
	if !TryExit(call, t, n) {
		exit(call, t, n)
	}
}

// TryExitRecv is Exit's timeline path for a small blocking receive (Recv) whose
// wait stamped its end, inlined as TryDeferred is. It reports whether it recorded the
// exit; if not, the caller calls Exit.
func TryExitRecv(t int64, n int) bool {
	if t != deferred || polled == 0 || n > stampedMax || !timed || concurrent || pend.call != None {
		return false
	}
	// Its start is its wait's first stamp (Stamp), or where the engine's wait began.
	pend.call, pend.n, pend.comm, pend.peer, pend.t, pend.end, pend.mode = Recv, n, cur.comm, cur.peer, int64(cur.since), polled, countWaited
	polled = 0
	publish(&cur.since, 0)
	publish(&cur.call, 0)
	return true
}

// deferred is Enter's answer for a call whose start is not read yet: a send or a
// blocking receive of at most stampedMax bytes, whose start is read when it begins to
// wait (WaitBegins, or a receive's first Stamp) or else is its end. Such a call is
// short unless it waits: its event starts late by the time it took to hand its
// message over or to find that none had come (a copy, a few polls). For a send, the
// clock read it saves is the one that lay between a ping-pong's arrival and its
// answer; for a receive, the one after that answer has left, beside the send's end,
// where a ping-pong's rank has until the next message arrives to do its recorder's
// work.
const deferred = 1

// deferrable: the calls that may start deferred: the sends (not the send-receives,
// which wait for their receive's message) and the blocking receive.
var deferrable = func() (d [NumCalls]bool) {
	for c := range d {
		d[c] = calls[c].kind == KindSend
	}
	d[Recv] = true
	for _, c := range []Call{Sendrecv, SendrecvReplace, Isendrecv, IsendrecvReplace, SendrecvValue} {
		d[c] = false
	}
	return d
}()

// stampedMax is the largest receive whose end is the clock read before the poll that
// completed it: the copy of a larger message would make that read too early.
const stampedMax = 1024

// polled is the clock read before the last poll of a blocking receive's wait (Stamp);
// 0: none since the call began.
var polled int64

// pend is the last timed call's event, not yet in the ring (see Exit). call None:
// none.
var pend struct {
	call   Call
	mode   uint8 // how it is counted: countTimed, ...
	n      int
	comm   *Comm
	peer   uint64
	t, end int64
}

// defGap is the number of deferrable calls to the next one timed from its entry
// (with the timeline on; see TryDeferred).
var defGap uint32 = 1

// How the timeline's path counts a call's time (pend.mode).
const (
	countTimed   uint8 = iota // timed from its entry (and not sampled)
	countSample               // a sample of the calls that may start deferred, that did not block
	countBlocked              // timed from its entry, and blocked
	countWaited               // started deferred, timed from when it began to wait
	countUntimed              // started deferred and never waited: no time of its own
)

// count adds a call of the timeline's path to its counters: plain adds (below
// ThreadMultiple, as that path is), atomic under the race detector, whose
// snapshots (State, Flush) read them from another goroutine. A call that started
// deferred and never waited has no time of its own: Estimate gives it the mean of
// the samples of its call, which are the small calls that may start deferred, as
// it is (the timed calls of that kind are mostly larger).
func count(call Call, n int, ticks int64, mode uint8) {
	c := &counts[call]
	plainAdd(&c.Bytes, uint64(n))
	plainAdd(&c.Hist[bits.Len64(uint64(n))], 1)
	switch mode {
	case countTimed, countBlocked:
		plainAdd(&c.Timed, 1)
		plainAdd(&c.Ticks, uint64(ticks))
	case countSample:
		plainAdd(&c.Timed, 1)
		plainAdd(&c.Ticks, uint64(ticks))
		plainAdd(&c.Quick, 1)
		plainAdd(&c.QuickTicks, uint64(ticks))
	case countWaited:
		plainAdd(&c.Waited, 1)
		plainAdd(&c.WaitTicks, uint64(ticks))
	}
}

// polls are the calls that only look whether something has happened; pollGap, in
// ticks (about a microsecond), is the most that may lie between two of a run.
var polls = func() (p [NumCalls]bool) {
	for _, c := range []Call{Test, Testall, Testany, Testsome, Iprobe, Improbe, WinTest, Parrived,
		RequestGetStatus, RequestGetStatusAll, RequestGetStatusAny, RequestGetStatusSome} {
		p[c] = true
	}
	return p
}()

const pollGap = 4096

// commitBefore commits the pending event, ended no later than t, where the next call
// on this goroutine started: a stamped receive's end is an estimate (Polled), which
// the polls' measured rate can put a little past what came next.
func commitBefore(t int64) {
	if pend.end > t {
		pend.end = max(t, pend.t)
	}
	commit()
}

// commit puts the pending event into the ring: in the common case one word, a
// repeat, stored here (a call in the state of the last one recorded, like the event
// before it or the one before that, whose times fit, in a half with room); record
// takes the rest.
func commit() {
	call, n, comm, peer, t, end := pend.call, pend.n, pend.comm, pend.peer, pend.t, pend.end
	pend.call = None
	if !polls[call] {
		count(call, n, end-t, pend.mode) // a poll was counted at its exit
	}
	p := int32(uint32(peer))
	dt, dur := uint64(t-tl.prev), uint64(end-t)
	h := int(tl.head)
	if comm == tl.stComm && uint32(peer>>32) == tl.tag && h < tl.half && dt < 1<<(kindShift-repDur) && dur < 1<<repDur &&
		uint64(n) < 1<<32 && int32(int16(p)) == p {
		key := uint64(n) | uint64(uint16(p))<<32 | uint64(call)<<48
		var rep uint32
		if key == tl.h1 {
			rep = recRepeat1 << kindShift
		} else if key == tl.h2 {
			rep = recRepeat2 << kindShift
		}
		if rep != 0 {
			tl.ev[tl.base+h] = uint32(dt<<repDur|dur) | rep
			tl.prev = t
			tl.h1, tl.h2 = key, tl.h1
			publish(&tl.head, uint64(h+1))
			return
		}
	}
	tl.record(call, comm, peer, t, end, n)
}

// WaitBegins is called where a wait begins (the engine's): a call whose start is
// deferred starts now.
func WaitBegins() {
	if timed && !concurrent && load(&cur.since) == 0 && load(&cur.call) != 0 {
		publish(&cur.since, uint64(Now()))
	}
}

// Stamping says whether a blocking receive's wait should call Waiting and Stamp:
// the timeline is on, below ThreadMultiple. It is one load, so that the device's
// small receive that asks it stays within the inliner's budget.
func Stamping() bool { return stamping }

// stamping is timed && !concurrent, set by Start.
var stamping bool

// Waiting is called by a program's blocking receive (on its calling goroutine, the
// timeline on) that found no message and starts to wait for one: the pending event
// goes into the ring now, while the message is on its way.
func Waiting() {
	if pend.call != None {
		commit()
	}
	polled = 0
}

// Stamp reads the clock before one poll in StampEvery of a blocking receive's wait.
// If a poll completes the receive, the stamp moved to that poll (Polled) is its end,
// a poll and a small copy early, and the receive's exit reads no clock on the path
// between the message's arrival and what the rank does next (in a ping-pong, its
// answer). The first stamp of a receive that started deferred is its start.
func Stamp() {
	now := Now()
	if polled != 0 {
		// Down at once, up slowly: a poll that handled some other packet makes an
		// interval longer, and an estimate too high would end the receive after it
		// returned; one too low only ends it a little early.
		if d := (now - polled) / StampEvery; d < perPoll || perPoll == 0 {
			perPoll = d
		} else {
			perPoll += (d - perPoll) / 16
		}
	}
	polled = now
	if cur.since == 0 {
		publish(&cur.since, uint64(now)) // a deferred receive's start (see deferred)
	}
}

// StampEvery is how many polls of a receive's wait lie between two Stamps.
const StampEvery = 16

// perPoll is the ticks one poll of a receive's wait takes, as the stamps measure it
// (a clock read included, spread over StampEvery polls, which errs late by a part of
// it; the poll that finds a message takes longer than that, so that the estimate
// stays within the call).
var perPoll int64

// Polled moves the last Stamp to the start of the poll that found a receive's
// message, k polls after the stamp, by the ticks those polls took at their last
// measured rate: the receive's end without a clock read, and without reading the
// clock before every poll.
func Polled(k int) {
	if polled != 0 {
		polled += int64(k) * perPoll
	}
}

// Unstamp forgets the last Stamp: the receive waits on where the polls are not
// stamped.
func Unstamp() { polled = 0 }

// Settle puts the pending event into the ring. The calling goroutine calls it before
// a Flush that must include its last call (Finalize, Abort, an error).
func Settle() {
	if timed && !concurrent && pend.call != None {
		commit()
	}
}

// TryExit is Exit's short path below ThreadMultiple, inlined: a call not timed that
// did not wait is counted by two adds and two stores. It reports whether it counted
// the call.
func TryExit(call Call, t int64, n int) bool {
	if !fast || t != 0 || concurrent || cur.since != 0 {
		return false
	}
	c := &counts[call]
	c.Bytes += uint64(n)
	c.Hist[bits.Len64(uint64(n))]++
	cur.call = 0
	gate &^= inCall
	return true
}

// exit is Exit's long path.
func exit(call Call, t int64, n int) {
	if t < 0 {
		if t == countedAtEntry {
			exitCounted(call)
		}
		return
	}
	since := int64(load(&cur.since))
	word := load(&cur.call)
	peer := load(&cur.peer)
	comm := loadComm(&cur.comm)
	publish(&cur.since, 0)
	publish(&cur.call, 0)
	if !concurrent {
		gate &^= inCall
	}
	if concurrent && fast && !timed && sharedIndex[call] >= 0 && shareEnd(call, n, t, since, word&blocked != 0) {
		return
	}
	c := &counts[call]
	add(&c.Bytes, uint64(n))
	add(&c.Hist[bits.Len64(uint64(n))], 1)
	if t == 0 && since == 0 {
		return
	}
	end := Now()
	if t == 0 {
		// Not sampled, but it blocked: the time from when it began to wait, which
		// misses only the spin before it (microseconds).
		t = since
		add(&c.Waited, 1)
		add(&c.WaitTicks, uint64(end-t))
	} else {
		add(&c.Timed, 1)
		add(&c.Ticks, uint64(end-t))
		if word&blocked == 0 {
			add(&c.Quick, 1)
			add(&c.QuickTicks, uint64(end-t))
		}
	}
	if timed {
		if !concurrent && pend.call != None {
			commit() // the events stay in the order of their ends
		}
		tl.add(call, comm, peer, t, end, n)
	}
}

// Unwind ends the record of the call under way, uncounted: a panic (a user's error
// handler's) is leaving it, and with it any call it was made in.
func Unwind() {
	publish(&cur.since, 0)
	publish(&cur.call, 0)
	if !concurrent {
		gate &^= inCall
	}
}

// Blocked is called by a wait that has spun in vain (internal/idle): the current call
// is really waiting, so its time is measured from now if it was not from its entry.
func Blocked() {
	w := load(&cur.call)
	if w == 0 || w&blocked != 0 {
		return
	}
	publish(&cur.call, w|blocked)
	if load(&cur.since) == 0 {
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
