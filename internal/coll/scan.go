package coll

// ReduceScatter combines every rank's send (sum(counts) elements) with op and leaves
// block i (counts[i] elements, in order) on rank i's recv. In place: send is recv, at
// full length, and the result is its first counts[r] elements.
//
// A commutative op goes round a ring: at step k a rank sends its partial block r-k-1
// to the right and folds in block r-k-2 from the left, so after n-1 steps it holds block
// r complete. A non-commutative one is a Reduce to rank 0 and a Scatterv. Empty
// blocks are no message: every rank passes the same counts.
func (s *Sched) ReduceScatter(send, recv []byte, counts []int, op Op) {
	s.reduceScatter(send, recv, counts, op, false)
}

// ReduceScatterBlock is ReduceScatter with every block of len(recv) bytes (counts
// holds len(recv)/esize n times). Its blocks are messages even when empty: a rank
// whose count is zero where another's is not (erroneous) then finds a truncated
// message and goes on broken, instead of returning while its peers wait for it.
// Only an empty call pays for them.
func (s *Sched) ReduceScatterBlock(send, recv []byte, counts []int, op Op) {
	s.reduceScatter(send, recv, counts, op, true)
}

// reduceScatter is ReduceScatter, every: ReduceScatterBlock.
func (s *Sched) reduceScatter(send, recv []byte, counts []int, op Op, every bool) {
	s.op = op
	s.exact = true
	n, r, e := s.size, s.rank, s.esize
	displ := func(i int) int { // bytes before block i
		d := 0
		for _, c := range counts[:i] {
			d += c * e
		}
		return d
	}
	total := displ(n)
	if n == 1 {
		s.copy(recv[:total], send[:total])
		return
	}
	if !op.Commute {
		full := s.buf(total)
		s.Reduce(send[:total], full, op, 0)
		displs := make([]int, n)
		for i := range displs {
			displs[i] = displ(i) / e
		}
		if every {
			s.Scatter(full, recv[:counts[r]*e], 0)
		} else {
			s.Scatterv(full, counts, displs, recv[:counts[r]*e], 0)
		}
		return
	}
	// The ring writes partial blocks into a copy: send stays untouched and, in place,
	// recv's prefix (the result) is written only at the end.
	acc := s.buf(total)
	s.copy(acc, send[:total])
	blk := func(i int) []byte {
		i = (i%n + n) % n
		return acc[displ(i) : displ(i)+counts[i]*e]
	}
	maxc := 0
	for _, c := range counts {
		maxc = max(maxc, c)
	}
	tmp := s.buf(maxc * e)
	right, left := (r+1)%n, (r-1+n)%n
	for k := 0; k < n-1; k++ {
		in := blk(r - k - 2)
		t := tmp[:len(in)]
		if len(in) > 0 || every {
			s.recv(t, left)
		}
		if b := blk(r - k - 1); len(b) > 0 || every {
			s.send(b, right)
		}
		s.fence()
		s.reduce(in, t)
	}
	s.copy(recv[:counts[r]*e], blk(r))
}

// Scan leaves on rank r the combination of the sends of ranks 0..r, in rank order.
// In place: send is recv. Recursive doubling: log2 n exchanges of a partial result that
// covers an aligned run of ranks.
func (s *Sched) Scan(send, recv []byte, op Op) {
	s.scan(send, recv, op, false)
}

// Exscan leaves on rank r>0 the combination of the sends of ranks 0..r-1; rank 0's
// recv is not touched. In place: send is recv.
func (s *Sched) Exscan(send, recv []byte, op Op) {
	s.scan(send, recv, op, true)
}

func (s *Sched) scan(send, recv []byte, op Op, exclusive bool) {
	s.op = op
	s.exact = true
	n, r := s.size, s.rank
	m := len(send) // an empty one still exchanges, so a mismatched peer finds it
	partial := s.buf(m)
	s.copy(partial, send)
	if !exclusive {
		s.copy(recv, send)
	}
	tmp := s.buf(m)
	have := !exclusive // recv holds something
	for mask := 1; mask < n; mask <<= 1 {
		dst := r ^ mask
		if dst >= n {
			continue
		}
		s.recv(tmp, dst)
		s.send(partial, dst)
		s.fence()
		if dst < r {
			// tmp covers the ranks just below partial's and recv's runs.
			s.reduce(partial, tmp)
			if have {
				s.reduce(recv, tmp)
			} else {
				s.copy(recv, tmp)
				have = true
			}
			continue
		}
		if op.Commute {
			s.reduce(partial, tmp)
		} else {
			s.reduce(tmp, partial) // partial ⊕ tmp
			partial, tmp = tmp, partial
		}
	}
}
