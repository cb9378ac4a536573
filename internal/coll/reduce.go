package coll

// Reduce combines every rank's send with op into root's recv (recv is ignored
// elsewhere). send and recv may be the same memory at root (in place).
//
// Binomial tree: a rank receives the partial results of its subtrees and sends its own
// to its parent. A commutative op runs in ranks relative to root; a non-commutative one
// runs with rank 0 as the tree's root, where every partial result covers a contiguous
// run of ranks and is combined in rank order, and rank 0 then hands the result to root.
func (s *Sched) Reduce(send, recv []byte, op Op, root int) {
	s.op = op
	s.exact = true
	n, r := s.size, s.rank
	if n == 1 {
		s.copy(recv, send)
		return
	}
	if s.flat(len(send)) {
		s.reduceFlat(send, recv, root)
		return
	}
	top := root
	if !op.Commute {
		top = 0
	}
	v := (r - top + n) % n
	acc, owned := send, false // owned: acc is writable memory (scratch, or recv at root)
	if r == root && r == top {
		s.copy(recv, send)
		acc, owned = recv, true
	}
	var tmp []byte
	for mask := 1; mask < n; mask <<= 1 {
		if v&mask != 0 {
			s.send(acc, (v-mask+top)%n)
			s.fence()
			break
		}
		src := v | mask
		if src >= n {
			continue
		}
		if !owned {
			b := s.buf(len(send))
			s.copy(b, acc)
			acc, owned = b, true
		}
		if tmp == nil {
			tmp = s.buf(len(send))
		}
		s.recv(tmp, (src+top)%n)
		s.fence()
		if op.Commute {
			s.reduce(acc, tmp)
		} else {
			// acc holds lower ranks than tmp: acc ⊕ tmp lands in tmp; swap names.
			s.reduce(tmp, acc)
			acc, tmp = tmp, acc
		}
	}
	if r == root && r == top {
		s.copy(recv, acc)
	}
	if top != root {
		switch r {
		case top:
			s.send(acc, root)
			s.fence()
		case root:
			s.recv(recv, top)
			s.fence()
		}
	}
}

// Allreduce combines every rank's send with op into every rank's recv; send may be
// recv (in place).
func (s *Sched) Allreduce(send, recv []byte, op Op) {
	s.op = op
	s.exact = true
	n := s.size
	// An empty vector still runs the exchanges (of empty messages), so that a peer
	// whose count erroneously differs finds it instead of waiting.
	if n == 1 {
		s.copy(recv, send)
		return
	}
	t := tuning()
	alg := t.Allreduce
	count := len(recv) / s.esize
	pof2 := 1
	for pof2*2 <= n {
		pof2 *= 2
	}
	if alg == Auto {
		switch {
		case len(recv) < t.AllreduceLarge:
			alg = RecursiveDoubling
		case pof2 == n:
			alg = Rabenseifner
		default:
			alg = Ring
		}
	}
	switch {
	case t.Allreduce == Auto && s.flat(len(recv)):
		choose(CollAllreduce, Flat)
		s.allreduceFlat(send, recv)
	case alg == Rabenseifner && op.Commute && count >= pof2:
		choose(CollAllreduce, Rabenseifner)
		s.allreduceRabenseifner(send, recv)
	case alg == Ring && op.Commute && count >= n:
		choose(CollAllreduce, Ring)
		s.copy(recv, send)
		s.allreduceRing(recv)
	default:
		choose(CollAllreduce, RecursiveDoubling)
		s.copy(recv, send)
		s.allreduceRD(recv)
	}
}

// reduceFlat: every rank sends its vector to root, which combines them in rank order.
func (s *Sched) reduceFlat(send, recv []byte, root int) {
	n, r, m := s.size, s.rank, len(send)
	if r != root {
		s.send(send, root)
		s.fence()
		return
	}
	all := s.buf(n * m)
	for i := 0; i < n; i++ {
		if i != r {
			s.recv(all[i*m:(i+1)*m], i)
		}
	}
	s.fence()
	s.combine(send, recv, all, m)
}

// allreduceFlat: every rank sends its vector to every other and combines the n
// vectors itself, in rank order: one round of messages.
func (s *Sched) allreduceFlat(send, recv []byte) {
	n, r, m := s.size, s.rank, len(send)
	all := s.buf(n * m)
	for k := 1; k < n; k++ {
		i := (r - k + n) % n
		s.recv(all[i*m:(i+1)*m], i)
	}
	for k := 1; k < n; k++ {
		s.send(send, (r+k)%n)
	}
	s.fence()
	s.combine(send, recv, all, m)
}

// combine sets recv to v0 ⊕ v1 ⊕ ... ⊕ v(n-1), where v_i is block i of all and this
// rank's own is send: from the last rank down, so the order holds for any op.
// In place (send is recv) this rank's vector is set aside first.
func (s *Sched) combine(send, recv, all []byte, m int) {
	n, r := s.size, s.rank
	blk := func(i int) []byte { return all[i*m : (i+1)*m] }
	s.copy(blk(r), send)
	s.copy(recv, blk(n-1))
	for i := n - 2; i >= 0; i-- {
		s.reduce(recv, blk(i))
	}
}

// fold reduces a non-power-of-two communicator to pof2 ranks: of the first 2*rem ranks,
// each even one sends its vector to the odd one above and sits out. It returns this
// rank's new rank (-1: sitting out), and the map from new ranks to real ones.
func (s *Sched) fold(acc, tmp []byte, pof2 int) int {
	r := s.rank
	rem := s.size - pof2
	switch {
	case r >= 2*rem:
		return r - rem
	case r%2 == 0:
		s.send(acc, r+1)
		s.fence()
		return -1
	default:
		s.recv(tmp, r-1)
		s.fence()
		s.reduce(acc, tmp) // tmp is the lower rank's: acc = tmp ⊕ acc
		return r / 2
	}
}

// unfold gives the ranks that sat out the result.
func (s *Sched) unfold(recv []byte, pof2 int) {
	r := s.rank
	if rem := s.size - pof2; r < 2*rem {
		if r%2 == 0 {
			s.recv(recv, r+1)
		} else {
			s.send(recv, r-1)
		}
		s.fence()
	}
}

func realRank(newrank, rem int) int {
	if newrank < rem {
		return newrank*2 + 1
	}
	return newrank + rem
}

// allreduceRD is recursive doubling: log2 n exchanges of the whole vector (plus two
// for the ranks folded away when n is not a power of two). Best for short vectors, and
// keeps rank order for non-commutative ops, since each exchange joins two adjacent
// runs of ranks.
func (s *Sched) allreduceRD(recv []byte) {
	pof2 := 1
	for pof2*2 <= s.size {
		pof2 *= 2
	}
	rem := s.size - pof2
	tmp := s.buf(len(recv))
	acc := recv
	newrank := s.fold(acc, tmp, pof2)
	if newrank >= 0 {
		for mask := 1; mask < pof2; mask <<= 1 {
			dst := realRank(newrank^mask, rem)
			s.recv(tmp, dst)
			s.send(acc, dst)
			s.fence()
			switch {
			case dst < s.rank || s.op.Commute:
				s.reduce(acc, tmp)
			default:
				s.reduce(tmp, acc) // acc ⊕ tmp, in rank order
				acc, tmp = tmp, acc
			}
		}
		s.copy(recv, acc)
	}
	s.unfold(recv, pof2)
}

// blocks splits count elements into n blocks of whole elements, the first count%n one
// element longer, and returns block i's byte range.
func (s *Sched) blockRange(count, n, i int) (lo, hi int) {
	q, rm := count/n, count%n
	lo = i*q + min(i, rm)
	hi = lo + q
	if i < rm {
		hi++
	}
	return lo * s.esize, hi * s.esize
}

// allreduceRabenseifner is a reduce-scatter by recursive halving followed by an
// allgather by recursive doubling (Rabenseifner; Thakur, Rabenseifner and Gropp 2005):
// each rank sends and reduces about the vector's length in all, instead of log2 n
// times it. Commutative ops only.
//
// On a power-of-two communicator the first round sends straight from send and
// receives straight into recv, so send is never copied.
func (s *Sched) allreduceRabenseifner(send, recv []byte) {
	pof2 := 1
	for pof2*2 <= s.size {
		pof2 *= 2
	}
	rem := s.size - pof2
	count := len(recv) / s.esize
	tmp := s.buf(len(recv))
	cur := send // where the window's data is: send until the first round, recv after
	if rem > 0 {
		s.copy(recv, send)
		cur = recv
	}
	newrank := s.fold(recv, tmp, pof2)
	if newrank >= 0 {
		spanOf := func(buf []byte, a, b int) []byte { // blocks [a, b) of pof2
			lo, _ := s.blockRange(count, pof2, a)
			_, hi := s.blockRange(count, pof2, b-1)
			return buf[lo:hi]
		}
		span := func(a, b int) []byte { return spanOf(recv, a, b) }
		tspan := func(a, b int) []byte {
			lo, _ := s.blockRange(count, pof2, a)
			_, hi := s.blockRange(count, pof2, b-1)
			return tmp[lo:hi]
		}
		// Halving: this rank's window [lo, hi) of blocks halves each round; it keeps
		// the half on its side of the partner and sends the other.
		lo, hi := 0, pof2
		for mask := pof2 / 2; mask > 0; mask >>= 1 {
			dst := realRank(newrank^mask, rem)
			mid := lo + (hi-lo)/2
			keepLo, keepHi, sendLo, sendHi := lo, mid, mid, hi
			if newrank&mask != 0 {
				keepLo, keepHi, sendLo, sendHi = mid, hi, lo, mid
			}
			if !same(cur, recv) {
				// First round, not in place: the partner's half lands in recv and
				// this rank's half of send is folded into it (the op commutes).
				s.recv(span(keepLo, keepHi), dst)
				s.send(spanOf(cur, sendLo, sendHi), dst)
				s.fence()
				s.reduce(span(keepLo, keepHi), spanOf(cur, keepLo, keepHi))
				cur = recv
			} else {
				s.recv(tspan(keepLo, keepHi), dst)
				s.send(span(sendLo, sendHi), dst)
				s.fence()
				s.reduce(span(keepLo, keepHi), tspan(keepLo, keepHi))
			}
			lo, hi = keepLo, keepHi
		}
		// Doubling: the window doubles back, each round receiving the partner's half.
		for mask := 1; mask < pof2; mask <<= 1 {
			dst := realRank(newrank^mask, rem)
			size := hi - lo
			otherLo := lo + size
			if newrank&mask != 0 {
				otherLo = lo - size
			}
			s.recv(span(otherLo, otherLo+size), dst)
			s.send(span(lo, hi), dst)
			s.fence()
			lo, hi = min(lo, otherLo), max(hi, otherLo+size)
		}
	}
	s.unfold(recv, pof2)
}

// allreduceRing is a ring reduce-scatter then a ring allgather: 2(n-1) steps, each
// moving 1/n of the vector to the right neighbour. Bandwidth-optimal for any n, at the
// cost of n-1 latencies per phase. Commutative ops only.
func (s *Sched) allreduceRing(recv []byte) {
	n, r := s.size, s.rank
	count := len(recv) / s.esize
	right, left := (r+1)%n, (r-1+n)%n
	blk := func(i int) []byte {
		lo, hi := s.blockRange(count, n, (i%n+n)%n)
		return recv[lo:hi]
	}
	lo, hi := s.blockRange(count, n, 0)
	tmp := s.buf(hi - lo)
	for k := 0; k < n-1; k++ {
		in := blk(r - k - 1)
		t := tmp[:len(in)]
		s.recv(t, left)
		s.send(blk(r-k), right)
		s.fence()
		s.reduce(in, t)
	}
	// Rank r now holds block r+1 complete.
	for k := 0; k < n-1; k++ {
		s.recv(blk(r-k), left)
		s.send(blk(r+1-k), right)
		s.fence()
	}
}
