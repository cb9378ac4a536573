package p2p

import (
	"math/bits"
	"time"

	"github.com/mpigo/mpigo/internal/transport"
)

// Adaptive rendezvous: which of pipeline (two copies, overlapped) and get (one
// single-copy read) is faster for a large message is not a property of the host
// alone. On the shared 2-vCPU VM this was tuned on, a 1 MiB ping-pong took 25 us
// pipelined in some periods and 130 us in others (everything, the C MPIs' small
// messages included, ran slower then: the host's doing, presumably), while a get took
// 80-250 us; a start-up calibration inside one process cannot see which period the
// job is in, nor what two ranks copying at once achieve. So for messages of adaptMin bytes
// and more, when a single-copy route exists, the sender offers both (a get request
// carrying its address) and the receiver chooses: it times uncontended transfers of
// each protocol per size class (from the match to the last byte in place) and takes
// the faster, trying the other one now and then. A message matched while another
// large one from the same peer is under way takes the models' choice: that is a
// stream, where throughput counts, not the latency the samples measure.

// adaptMin is the smallest message whose protocol the receiver chooses by measurement.
const adaptMin = 32 << 10

// adaptProbe: one in this many uncontended large receives tries the protocol that is
// not the best at the moment, so that a change of conditions is noticed.
const adaptProbe = 32

// adaptFirst is how many uncontended transfers of each protocol a size class starts
// with; the fastest of them is the first estimate.
const adaptFirst = 3

const adaptClasses = 12 // size classes 32 KiB, 64 KiB, ... 32 MiB and above

// adaptive is a receiver's record of one sender's large transfers.
type adaptive struct {
	inflight int // adaptive receives from this peer under way
	class    [adaptClasses]struct {
		nsPerKB [2]float64 // estimate; index 0 pipeline, 1 get; 0: no sample yet
		samples [2]uint32
		decided uint32 // uncontended decisions made
	}
}

func adaptClass(n int64) int {
	c := bits.Len64(uint64(n)) - bits.Len64(adaptMin)
	return min(max(c, 0), adaptClasses-1)
}

func protoIdx(p transport.Protocol) int {
	if p == transport.Get {
		return 1
	}
	return 0
}

// chooseRndv decides how receive r takes a large message offered for get from peer
// p; table is what the cost models say. It starts r's timing when the transfer will
// run alone, so that the sample measures the protocol, not a queue.
func (e *Engine) chooseRndv(p *peer, r *request, table transport.Protocol) transport.Protocol {
	a := &p.adapt
	c := &a.class[adaptClass(r.expect)]
	a.inflight++
	r.adapt = true
	if a.inflight > 1 {
		// Under contention (a window of messages in flight) no sample is taken, and
		// the models decide: an uncontended transfer times latency, while here
		// throughput counts, where the pipeline's two copies run at once (on the
		// reference machine 64 KiB messages streamed at 33 GB/s pipelined, 11 by get,
		// though one alone took about as long either way).
		return table
	}
	pipe, get := c.nsPerKB[0], c.nsPerKB[1]
	best := table
	switch {
	case pipe > 0 && get > 0:
		best = transport.Pipeline
		if get < pipe {
			best = transport.Get
		}
	case pipe > 0:
		best = transport.Pipeline
	case get > 0:
		best = transport.Get
	}
	r.t0 = time.Now()
	c.decided++
	other := transport.Get
	if best == transport.Get {
		other = transport.Pipeline
	}
	if n := c.samples; n[0] < adaptFirst || n[1] < adaptFirst {
		// Start with a few of each, the models' choice first, and believe the best
		// of them: one transfer slowed by a neighbour must not decide for the run.
		switch {
		case n[protoIdx(table)] == 0:
			return table
		case n[0] < n[1]:
			return transport.Pipeline
		case n[1] < n[0]:
			return transport.Get
		}
		return table
	}
	// Try the other protocol now and then: the further behind it is, the more a try
	// costs and the less likely conditions have changed that much.
	every := uint32(adaptProbe)
	if ratio := max(pipe, get) / min(pipe, get); ratio > 3 {
		every *= 16
	} else if ratio > 1.5 {
		every *= 4
	}
	if c.decided%every == 0 {
		return other
	}
	return best
}

// adaptDone records the end of an adaptive receive. The caller holds e.mu.
func (e *Engine) adaptDone(r *request) {
	r.adapt = false
	p := e.peers[r.st.Source]
	if p == nil {
		return
	}
	a := &p.adapt
	a.inflight--
	if r.t0.IsZero() || r.st.Err != nil || r.got < adaptMin {
		r.t0 = time.Time{}
		return
	}
	ns := float64(time.Since(r.t0).Nanoseconds()) / float64(r.got) * 1024
	r.t0 = time.Time{}
	c := &a.class[adaptClass(r.got)]
	i := protoIdx(r.proto)
	// Interference (a descheduled rank, a neighbour's burst) only ever slows a
	// transfer, by up to a whole time slice: a faster sample is believed at once
	// (half way), a slower one slowly and at most twice the estimate, so one outlier
	// does not switch protocols but a lasting slow-down does, after a dozen samples.
	c.samples[i]++
	switch old := c.nsPerKB[i]; {
	case old == 0:
		c.nsPerKB[i] = ns
	case c.samples[i] <= adaptFirst:
		c.nsPerKB[i] = min(old, ns)
	case ns < old:
		c.nsPerKB[i] = old + 0.5*(ns-old)
	default:
		c.nsPerKB[i] = old + 0.1*(min(ns, 2*old)-old)
	}
}
