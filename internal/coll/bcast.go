package coll

import (
	"fmt"
	"runtime"
)

// Barrier is the dissemination barrier: ceil(log2 n) rounds; in round k each rank
// signals rank+2^k and hears from rank-2^k, so no rank is a hot spot and any n works.
//
// On a few ranks it is flat instead: every rank signals every other and waits for all,
// one round of n-1 messages. A barrier cannot take fewer than one round, and where
// ranks share cores every extra round costs a wake-up of the rank it waits for.
func (s *Sched) Barrier() {
	n, r := s.size, s.rank
	if s.flat(0) {
		for k := 1; k < n; k++ {
			s.recv(nil, (r-k+n)%n)
		}
		for k := 1; k < n; k++ {
			s.send(nil, (r+k)%n)
		}
		s.fence()
		return
	}
	for k := 1; k < n; k <<= 1 {
		s.recv(nil, (r-k+n)%n)
		s.send(nil, (r+k)%n)
		s.fence()
	}
}

// Bcast sends root's buf to every rank's buf. An empty one still sends its (empty)
// messages: a receiver whose buffer is longer than the root's, an erroneous call that
// the shared-memory path answers, then gets nothing rather than waiting forever.
func (s *Sched) Bcast(buf []byte, root int) {
	n := s.size
	if n == 1 {
		return
	}
	t := tuning()
	if s.learn && s.rank != root && learnable(t, n, len(buf)) {
		s.bcastLearn(buf, root, t)
		return
	}
	alg := t.Bcast
	if alg == Auto {
		// Scatter-ring shortens the critical path but moves more bytes in all
		// (about n-1+(n-1)/n messages' worth against the tree's n-1): a win when each
		// rank has a core to copy with, a loss when ranks share cores, where every
		// copy is on the critical path.
		switch {
		case n <= 2 || len(buf) < t.BcastLarge || n > runtime.NumCPU():
			alg = Binomial
		default:
			alg = ScatterRing
		}
	}
	switch {
	case t.Bcast == Auto && s.flat(len(buf)):
		// Short message, few ranks: root sends to each directly (one round).
		choose(CollBcast, Flat)
		if s.rank == root {
			for k := 1; k < n; k++ {
				s.send(buf, (root+k)%n)
			}
		} else {
			s.recv(buf, root)
		}
		s.fence()
	case alg == ScatterRing && len(buf) >= n:
		choose(CollBcast, ScatterRing)
		s.bcastScatterRing(buf, root)
	case alg == Pipeline && len(buf) > t.Segment:
		choose(CollBcast, Pipeline)
		s.bcastPipeline(buf, root, t.Segment)
	default:
		choose(CollBcast, Binomial)
		s.bcastBinomial(buf, root)
	}
}

// bcastBinomial: in relative ranks (root is 0), rank v receives from v minus its
// lowest set bit and then sends to v+2^k for each 2^k below that bit, largest first, so
// the farthest subtrees start earliest. log2 n rounds of the whole message.
func (s *Sched) bcastBinomial(buf []byte, root int) {
	n := s.size
	v := (s.rank - root + n) % n
	mask := 1
	for mask < n {
		if v&mask != 0 {
			s.recv(buf, (v-mask+root)%n)
			s.fence()
			break
		}
		mask <<= 1
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if v+mask < n {
			s.send(buf, (v+mask+root)%n)
		}
	}
	s.fence()
}

// bcastScatterRing is van de Geijn's broadcast for long messages: a binomial scatter
// gives relative rank v block v of the message, then a ring allgather circulates the
// blocks. Each rank moves about 2(n-1)/n of the message instead of log2 n times it.
func (s *Sched) bcastScatterRing(buf []byte, root int) {
	n := s.size
	v := (s.rank - root + n) % n
	bs := (len(buf) + n - 1) / n
	block := func(i, nb int) []byte { // blocks [i, i+nb) of the message
		lo, hi := min(i*bs, len(buf)), min((i+nb)*bs, len(buf))
		return buf[lo:hi]
	}
	real := func(u int) int { return (u + root) % n }
	// Scatter: v's subtree is [v, v+lowbit(v)) and receives those blocks.
	mask := 1
	for mask < n {
		if v&mask != 0 {
			if b := block(v, min(mask, n-v)); len(b) > 0 {
				s.recv(b, real(v-mask))
				s.fence()
			}
			break
		}
		mask <<= 1
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if c := v + mask; c < n {
			if b := block(c, min(mask, n-c)); len(b) > 0 {
				s.send(b, real(c))
			}
		}
	}
	s.fence()
	// Ring allgather of the blocks, in relative ranks: at step k, send block v-k to the
	// right and receive block v-k-1 from the left.
	right, left := real((v+1)%n), real((v-1+n)%n)
	for k := 0; k < n-1; k++ {
		if b := block((v-k+n)%n, 1); len(b) > 0 {
			s.send(b, right)
		}
		if b := block((v-k-1+2*n)%n, 1); len(b) > 0 {
			s.recv(b, left)
		}
		s.fence()
	}
}

// bcastPipeline sends the message down a chain in segments: at step k a rank forwards
// segment k-1 while it receives segment k, so all links work at once.
func (s *Sched) bcastPipeline(buf []byte, root int, seg int) {
	n := s.size
	v := (s.rank - root + n) % n
	nseg := (len(buf) + seg - 1) / seg
	segment := func(i int) []byte { return buf[i*seg : min((i+1)*seg, len(buf))] }
	next, prev := (v+1+root)%n, (v-1+root+n)%n
	for k := 0; k <= nseg; k++ {
		if v > 0 && k < nseg {
			s.recv(segment(k), prev)
		}
		if v < n-1 && k > 0 {
			s.send(segment(k-1), next)
		}
		s.fence()
	}
}

// Receivers that learn the root's length. The algorithm is chosen by length, and a
// receiver whose buffer disagrees with the root's (erroneous: MPI requires equal type
// signatures) would choose another one, or stop forwarding at its truncated receive,
// and leave a peer waiting. Where the algorithm that a length chooses is the flat one
// or the binomial tree (not scatter_ring, which needs more than 2 ranks with a core
// each, nor a forced pipeline), a receiver instead takes its first message wherever it
// fits (FitConn: in place when the lengths agree, else into new memory of the
// message's length), and continues from the message's length as the root did: it
// forwards the whole message down the tree, keeps what fits and reports ErrTruncate
// when its buffer is shorter, and gets the message when it is longer. Its parent
// differs between the two only for the relative ranks that are not powers of two on a
// communicator small enough for the flat algorithm (rank 3 of 4): those take the
// first message from any member, which this call's own tag confines to the root or
// the parent, whichever the root's length sends it.

// learnable reports whether a receiver of a buffer of m bytes on n ranks can follow
// the root's algorithm from its message: every length's algorithm is flat or binomial
// here, or m is below scatter_ring's limit (where a root whose length chose
// scatter_ring still leaves this rank waiting: still open, docs/ARCHITECTURE.md).
func learnable(t *Tuning, n, m int) bool {
	switch t.Bcast {
	case Binomial:
		return true
	case Auto:
		return n <= 2 || n > runtime.NumCPU() || m < t.BcastLarge
	}
	return false
}

// bcastLearn is a receiver's Bcast: the first message, then bcastOn.
func (s *Sched) bcastLearn(buf []byte, root int, t *Tuning) {
	n := s.size
	v := (s.rank - root + n) % n
	from := (v - v&-v + root) % n // the binomial tree's parent
	if v&(v-1) != 0 && t.Bcast == Auto && n <= t.FlatMax {
		from = AnySource // the root's, if the flat algorithm sends
	}
	s.steps = append(s.steps, step{kind: stRecvFit, peer: from, a: buf}, step{kind: stBcastOn, peer: root, a: buf})
}

// bcastOn continues a receiver's Bcast once its first message (s.got) is in: forward
// it down the tree, unless the root's length chose the flat algorithm, and keep what
// fits in buf.
func (s *Sched) bcastOn(buf []byte, root int) {
	msg := s.got
	n, m := s.size, len(msg)
	if t := tuning(); t.Bcast != Auto || n > t.FlatMax || m > t.FlatBytes { // not flat
		v := (s.rank - root + n) % n
		if mask := (v & -v) >> 1; mask > 0 && v+1 < n { // not a leaf
			for ; mask > 0; mask >>= 1 {
				if v+mask < n {
					s.send(msg, (v+mask+root)%n)
				}
			}
			s.fence()
		}
	}
	if m == len(buf) {
		s.got = nil // Message: the lengths agree
		return
	}
	if m > len(buf) {
		copy(buf, msg)
		s.err = fmt.Errorf("%w: the root's message has %d bytes, this rank's buffer %d "+
			"(MPI requires the same type signature on every rank)", ErrTruncate, m, len(buf))
	}
}

// Message is a Bcast receiver's message where its length is not its buffer's (nil
// otherwise): the buffer's first bytes where it is shorter, new memory where it is
// longer (the schedule then ends with ErrTruncate). For a caller that passes the
// message on (a hierarchical Bcast's leader); call it before Free.
func (s *Sched) Message() []byte { return s.got }
