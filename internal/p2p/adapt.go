package p2p

import (
	"math/bits"
	"time"

	"github.com/mpigo/mpigo/internal/transport"
)

// Adaptive rendezvous: which of pipeline (two copies, overlapped) and get (one
// single-copy read) is faster for a large message is not a property of the host
// alone. On the shared 2-vCPU VMs this was tuned on, the two vCPUs sometimes share a
// cache and sometimes do not (everything that moves cache lines between them, the C
// MPIs' small messages included, then runs markedly slower): pipeline wins
// by far in the first kind of period and get in the second (docs/BENCHMARKS.md, Host
// states and Rendezvous). A start-up calibration
// inside one process cannot see which period the job is in, nor what two ranks
// copying at once achieve. So for messages of adaptMin bytes and more, when a
// single-copy route exists, the sender offers both (a get request carrying its
// address) and the receiver chooses, by measurement, per size class:
//
//   - A message that arrives alone (no other adaptive receive from the peer under
//     way) is timed from the match to its last byte: latency. One that arrives while
//     this rank's own large send to the peer is under way (an exchange) is timed so
//     too, in estimates of its own, starting from the exchange table's choice: in an
//     exchange both cores copy at once, so its costs say nothing of a one-way
//     transfer's, and the table, built from a start-up calibration of about a
//     millisecond, chose the pipeline, two and a half times slower there, in some
//     runs and the get in others on one host (docs/BENCHMARKS.md, the Intel guest).
//   - Messages that arrive while others are under way form a stream, where
//     throughput counts. A stream changes protocol at most once per burst (a burst
//     ends when nothing from the peer is in flight, or after streamEpoch
//     decisions), and the messages after the change are held until the ones before
//     it have completed, so that the two protocols never run at once. Each run of
//     one protocol (a segment) is timed as a whole, from its start (the burst's, or
//     the previous segment's last completion) to its last completion, over the
//     bytes it moved: completions bunch (a split get's halves are read many in a
//     row, then acknowledged together), so the intervals between them do not tell.
//
// Both start with a few transfers of each protocol, then take the faster and try the
// other now and then, less often the further behind it is.

// adaptMin is the smallest message whose protocol the receiver chooses by measurement.
const adaptMin = 32 << 10

// adaptProbe: one in this many uncontended large receives tries the protocol that is
// not the best at the moment, so that a change of conditions is noticed.
const adaptProbe = 32

// adaptFirst is how many uncontended transfers of each protocol a size class starts
// with; the fastest of them is the first estimate. The first few of a class run slower
// than the rest (pages and caches still cold on both sides; docs/BENCHMARKS.md,
// figures from code comments), so three were not always enough: a protocol whose
// three came early was judged slow and, probed rarely for it, stayed so.
const adaptFirst = 6

const (
	// streamFirst is how many segments of each protocol a size class's streams time
	// before they choose. The protocol the cost models prefer, if it lost, is timed
	// streamRetry times in all before the other is taken: a class's first segment
	// can be slowed by pages and caches still cold, and the other, probed rarely once
	// it is behind, would otherwise stay chosen for most of a short run.
	streamFirst = 1
	streamRetry = 2
	// segMin is the fewest completions a segment needs to be timed.
	segMin = 4
	// streamBlock is how many decisions at the start of a burst take the protocol
	// being explored or probed; the rest of the burst takes the other one.
	streamBlock = 16
	// streamProbe: one burst in this many probes the protocol that is behind (one in
	// four times, sixteen times as many when it is far behind).
	streamProbe = 8
	// streamEpoch bounds a burst, so that an endless stream is probed too.
	streamEpoch = 256
)

const adaptClasses = 12 // size classes 32 KiB, 64 KiB, ... 32 MiB and above

// adaptive is a receiver's record of one sender's large transfers.
type adaptive struct {
	inflight int // adaptive receives from this peer under way
	// The current burst of streamed receives: its number, the receives started per
	// protocol (index 0 pipeline, 1 get), and those held back behind a change of
	// protocol, to be started (as heldProto) when the running ones have completed.
	burst     uint32
	running   [2]int
	held      reqList
	heldProto transport.Protocol
	// The segment being timed: when it began, its protocol and size class, how many
	// receives and bytes have completed in it, and when the last did.
	segBegin time.Time
	segProto transport.Protocol
	segClass int
	segN     int
	segBytes int64
	segLast  time.Time
	class    [adaptClasses]adaptClass
}

// adaptClass is what a receiver knows of one size class's transfers from one peer.
type adaptClass struct {
	alone   estimate // uncontended transfers
	exch    estimate // transfers in an exchange
	stream  estimate // streamed transfers
	decided uint32   // uncontended decisions made
	exchN   uint32   // exchange decisions made
	// The class's part of the current burst: the burst's number, the decisions made
	// in it, and its plan (first for the first streamBlock decisions, then rest).
	burst       uint32
	n           uint32
	bursts      uint32
	first, rest transport.Protocol
}

// estimate is a per-protocol cost in nanoseconds per KiB (index 0 pipeline, 1 get).
type estimate struct {
	nsPerKB [2]float64 // 0: no sample yet
	samples [2]uint32
}

// ready reports whether both protocols have at least k samples.
func (s *estimate) ready(k uint32) bool { return s.samples[0] >= k && s.samples[1] >= k }

// retry reports whether protocol p, which the cost models prefer, lost its first
// segments to the other and is still to be timed again (streamRetry).
func (s *estimate) retry(p transport.Protocol) bool {
	best, _ := s.best()
	return best != p && s.samples[protoIdx(p)] < streamRetry
}

// best returns the cheaper protocol and how many times dearer the other one is.
func (s *estimate) best() (transport.Protocol, float64) {
	pipe, get := s.nsPerKB[0], s.nsPerKB[1]
	if get < pipe {
		return transport.Get, pipe / get
	}
	return transport.Pipeline, get / pipe
}

func sizeClass(n int64) int {
	c := bits.Len64(uint64(n)) - bits.Len64(adaptMin)
	return min(max(c, 0), adaptClasses-1)
}

func protoIdx(p transport.Protocol) int {
	if p == transport.Get {
		return 1
	}
	return 0
}

func otherProto(p transport.Protocol) transport.Protocol {
	if p == transport.Get {
		return transport.Pipeline
	}
	return transport.Get
}

// chooseRndv decides how receive r takes a large message offered for get from peer
// p; table is what the cost models say. hold means r must wait in p.adapt.held until
// the receives of the other protocol under way have completed.
func (e *Engine) chooseRndv(p *peer, r *request, table transport.Protocol) (proto transport.Protocol, hold bool) {
	a := &p.adapt
	c := &a.class[sizeClass(r.expect)]
	a.inflight++
	r.adapt = true
	if a.inflight == 1 {
		a.segBegin, a.segN, a.segBytes = time.Now(), 0, 0 // a burst may start here
	}
	if a.inflight > 1 {
		return a.streamed(c, r, table)
	}
	r.t0 = sinceStart()
	if e.exchanging(p) {
		// An exchange: this rank's own large send to the peer is under way. Streamed,
		// each core would copy both messages (into the ring and out of it); read,
		// each copies one, after a system call's fixed cost. So the exchange table's
		// choice (selectTables) first, then the faster in exchanges.
		r.exch = true
		c.exchN++
		return c.exch.choose(p.exchange.lookup(r.expect), c.exchN), false
	}
	c.decided++
	return c.alone.choose(table, c.decided), false
}

// exchanging says whether a large message from p is one of an exchange: this rank's
// own large send to p is under way (offered), or follows the receive being posted
// (IrecvPair).
func (e *Engine) exchanging(p *peer) bool {
	return p.offered > 0 || p == e.pairing
}

// choose is the protocol of a timed receive, the n-th decision of its kind, where
// the cost models say table.
func (s *estimate) choose(table transport.Protocol, n uint32) transport.Protocol {
	if table != transport.Get {
		table = transport.Pipeline
	}
	if !s.ready(adaptFirst) {
		// Start with a few of each, the models' choice first, and believe the best
		// of them: one transfer slowed by a neighbour must not decide for the run.
		k := s.samples
		switch {
		case k[protoIdx(table)] == 0:
			return table
		case k[0] < k[1]:
			return transport.Pipeline
		case k[1] < k[0]:
			return transport.Get
		}
		return table
	}
	// Try the other protocol now and then: the further behind it is, the more a try
	// costs and the less likely conditions have changed that much.
	best, ratio := s.best()
	if n%probeEvery(adaptProbe, ratio) == 0 {
		return otherProto(best)
	}
	return best
}

// probeEvery stretches a probing period by how far behind the other protocol is.
func probeEvery(every uint32, ratio float64) uint32 {
	switch {
	case ratio > 3:
		return every * 16
	case ratio > 1.5:
		return every * 4
	}
	return every
}

// streamed chooses the protocol of a receive that joins a stream.
func (a *adaptive) streamed(c *adaptClass, r *request, table transport.Protocol) (transport.Protocol, bool) {
	if c.n == 0 || c.burst != a.burst || c.n >= streamEpoch {
		// The class's first decision in this burst: plan it.
		c.burst, c.n = a.burst, 0
		c.bursts++
		s := &c.stream
		switch {
		case !s.ready(streamFirst) || s.retry(table):
			// Explore: the protocol with fewer samples first, then the other.
			c.first = table
			if n := s.samples; n[protoIdx(table)] > n[protoIdx(otherProto(table))] {
				c.first = otherProto(table)
			}
			c.rest = otherProto(c.first)
		default:
			best, ratio := s.best()
			c.first, c.rest = best, best
			if c.bursts%probeEvery(streamProbe, ratio) == 0 {
				c.first = otherProto(best)
			}
		}
	}
	proto := c.rest
	if c.n < streamBlock {
		proto = c.first
	}
	c.n++
	r.stream = true
	i := protoIdx(proto)
	if a.held.head != nil {
		// A change is already waiting: join it, whatever the plan says, so that the
		// protocols do not mix.
		return a.heldProto, true
	}
	if a.running[1-i] > 0 {
		a.heldProto = proto
		return proto, true
	}
	a.running[i]++
	r.running = true
	return proto, false
}

// adaptDone records the end of an adaptive receive. The caller holds e.mu.
func (e *Engine) adaptDone(r *request) {
	r.adapt = false
	exch := r.exch
	r.exch = false
	p := e.peers[r.st.Source]
	if p == nil {
		return
	}
	a := &p.adapt
	a.inflight--
	if r.stream {
		e.streamDone(p, r)
	}
	if a.inflight == 0 {
		a.burst++
		a.endSegment()
	}
	if r.t0 == 0 || r.st.Err != nil || r.got < adaptMin {
		r.t0 = 0
		return
	}
	ns := float64(sinceStart()-r.t0) / float64(r.got) * 1024
	r.t0 = 0
	s := &a.class[sizeClass(r.got)].alone
	if exch {
		s = &a.class[sizeClass(r.got)].exch
	}
	i := protoIdx(r.proto)
	// Interference (a descheduled rank, a neighbour's burst) only ever slows a
	// transfer, by up to a whole time slice: a faster sample is believed at once
	// (half way), a slower one slowly and at most twice the estimate, so one outlier
	// does not switch protocols but a lasting slow-down does, after a dozen samples.
	s.samples[i]++
	switch old := s.nsPerKB[i]; {
	case old == 0:
		s.nsPerKB[i] = ns
	case s.samples[i] <= adaptFirst:
		s.nsPerKB[i] = min(old, ns)
	case ns < old:
		s.nsPerKB[i] = old + 0.5*(ns-old)
	default:
		s.nsPerKB[i] = old + 0.1*(min(ns, 2*old)-old)
	}
}

// streamDone accounts for the end of streamed receive r: it adds r to the segment
// being timed (closing the previous one if r's protocol differs), and starts the held
// receives once the other protocol's have all completed.
func (e *Engine) streamDone(p *peer, r *request) {
	a := &p.adapt
	r.stream = false
	i := protoIdx(r.proto)
	if r.running {
		r.running = false
		a.running[i]--
		if a.running[i] == 0 && a.held.head != nil {
			e.releaseHeld(p)
		}
	}
	now := time.Now()
	if a.segN > 0 && r.proto != a.segProto {
		a.endSegment()
		a.segBegin = a.segLast // the held receives started when the last one ended
	}
	if a.segN == 0 {
		a.segProto, a.segClass = r.proto, sizeClass(r.got)
	}
	a.segN++
	a.segBytes += r.got
	a.segLast = now
}

// endSegment times the segment under way, if it is long enough, and starts a new one.
func (a *adaptive) endSegment() {
	n, bytes := a.segN, a.segBytes
	a.segN, a.segBytes = 0, 0
	if n < segMin || bytes <= 0 || a.segBegin.IsZero() {
		return
	}
	ns := float64(a.segLast.Sub(a.segBegin).Nanoseconds()) / float64(bytes) * 1024
	a.class[a.segClass].stream.segment(protoIdx(a.segProto), ns)
}

// segment takes the cost (ns per KiB) of a stream segment of protocol i. A
// segment averages many transfers, but a rank preempted in it, and the first
// segments of a class (pages not yet mapped on both sides, caches cold), only
// ever slow it: the best of the first streamRetry is believed, then a faster
// segment half way and a slower one by a quarter, an outlier bounded at four
// times the estimate. Otherwise a cold first segment of the faster protocol
// would make it look the slower, and it is probed too rarely to recover in a
// short run.
func (s *estimate) segment(i int, ns float64) {
	s.samples[i]++
	switch old := s.nsPerKB[i]; {
	case old == 0:
		s.nsPerKB[i] = ns
	case s.samples[i] <= streamRetry:
		s.nsPerKB[i] = min(old, ns)
	case ns < old:
		s.nsPerKB[i] = old + (ns-old)/2
	default:
		s.nsPerKB[i] = old + (min(ns, 4*old)-old)/4
	}
}

// releaseHeld starts the receives held behind a change of protocol.
func (e *Engine) releaseHeld(p *peer) {
	a := &p.adapt
	i := protoIdx(a.heldProto)
	for r := a.held.head; r != nil; r = a.held.head {
		a.held.remove(r)
		a.running[i]++
		r.running = true
		if r.proto == transport.Pipeline {
			e.queueCtrl(int32(r.st.Source), kindCTS, r.remote, r.cookie(), 0, r.expect)
		} else {
			e.startGet(p, r)
		}
	}
}

// start is a moment before any request's; sinceStart is the nanoseconds from it on the
// monotonic clock, 1 at least (a request's t0 of 0 is "not timed"), which a request
// keeps in a word where a time.Time would take three.
var start = time.Now()

func sinceStart() int64 { return int64(time.Since(start)) | 1 }
