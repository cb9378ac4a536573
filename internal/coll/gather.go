package coll

import "fmt"

// Gather collects every rank's send into root's recv, rank i's at block i (recv is
// n*len(send) bytes at root, ignored elsewhere). In place at root: send is recv's
// block root. Linear: root posts every receive at once; communicators here are small
// enough that a binomial gather's extra copies do not pay.
func (s *Sched) Gather(send, recv []byte, root int) {
	n, r, m := s.size, s.rank, len(send)
	if r != root {
		if m > 0 || s.checks() {
			s.send(send, root)
			s.fence()
		}
		return
	}
	if m == 0 && !s.checks() {
		return
	}
	// Checking, every block's message goes, even an empty one, so that a root
	// whose blocks disagree with a rank's send gets the message either way.
	first := len(s.steps)
	for i := 0; i < n; i++ {
		if i != r {
			if s.learn {
				s.steps = append(s.steps, step{kind: stRecvExact, peer: i, a: recv[i*m : (i+1)*m]})
			} else {
				s.recv(recv[i*m:(i+1)*m], i)
			}
		}
	}
	s.copy(recv[r*m:(r+1)*m], send)
	s.fence()
	if s.learn {
		// A send shorter than the root's block would leave the block's old bytes
		// there unreported: each block's length is checked.
		for k := first; k < first+n-1; k++ {
			s.steps = append(s.steps, step{kind: stCheck, peer: k})
		}
	}
}

// check reports (in s.err, the first of several) an stRecvExact step's message whose
// length is not its buffer's, keeping what fits of a longer one.
func (s *Sched) check(rs *step) {
	got, want := len(rs.b), len(rs.a)
	if got == want || s.err != nil {
		return
	}
	if got > want {
		copy(rs.a, rs.b)
		s.err = fmt.Errorf("%w: rank %d sent %d bytes, the block this rank gave for it has %d "+
			"(MPI requires the type signatures of the two sides to match)", ErrTruncate, rs.peer, got, want)
		return
	}
	s.err = fmt.Errorf("%w: rank %d sent %d bytes, the block this rank gave for it has %d "+
		"(MPI requires the type signatures of the two sides to match)", ErrShort, rs.peer, got, want)
}

// Gatherv is Gather with rank i's block of counts[i] elements at element displs[i].
// Strict: the root reports a block whose message is shorter or longer than it. An
// empty block is no message (on a correct call none is needed), so a rank whose
// send is empty where the root expects data, or the reverse, goes unseen.
func (s *Sched) Gatherv(send, recv []byte, counts, displs []int, root int) {
	s.Strict()
	n, r, e := s.size, s.rank, s.esize
	if r != root {
		if len(send) > 0 {
			s.send(send, root)
			s.fence()
		}
		return
	}
	for i := 0; i < n; i++ {
		b := block(recv, counts, displs, i, e)
		switch {
		case i == r:
			s.copy(b, send)
		case len(b) > 0:
			s.recv(b, i)
		}
	}
	s.fence()
}

// Scatter sends block i of root's send (n*len(recv) bytes) to rank i's recv. In place
// at root: recv is send's block root. Strict; empty blocks are empty messages, so that
// a receiver whose count disagrees with the root's finds out.
func (s *Sched) Scatter(send, recv []byte, root int) {
	s.Strict()
	n, r, m := s.size, s.rank, len(recv)
	if r != root {
		s.recv(recv, root)
		s.fence()
		return
	}
	for i := 0; i < n; i++ {
		if i != r {
			s.send(send[i*m:(i+1)*m], i)
		}
	}
	s.copy(recv, send[r*m:(r+1)*m])
	s.fence()
}

// Scatterv is Scatter with rank i's block of counts[i] elements at element displs[i].
// Strict, as Gatherv (empty blocks no message).
func (s *Sched) Scatterv(send []byte, counts, displs []int, recv []byte, root int) {
	s.Strict()
	n, r, e := s.size, s.rank, s.esize
	if r != root {
		if len(recv) > 0 {
			s.recv(recv, root)
			s.fence()
		}
		return
	}
	for i := 0; i < n; i++ {
		b := block(send, counts, displs, i, e)
		switch {
		case i == r:
			s.copy(recv, b)
		case len(b) > 0:
			s.send(b, i)
		}
	}
	s.fence()
}

// Allgather collects every rank's send into every rank's recv, rank i's at block i.
// In place: send is recv's block of this rank. Exact: a rank whose receive is short
// or truncated passes empty messages on, so the ranks downstream of a block that
// disagreed report it too; empty blocks are empty messages.
func (s *Sched) Allgather(send, recv []byte) {
	s.exact = true
	n, r, m := s.size, s.rank, len(send)
	s.copy(recv[r*m:(r+1)*m], send)
	if n == 1 {
		return
	}
	t := tuning()
	alg := t.Allgather
	if alg == Auto {
		alg = Bruck
		if m*n >= t.AllgatherLarge {
			alg = Ring
		}
	}
	choose(CollAllgather, alg)
	if alg == Ring {
		s.allgatherRing(recv, m)
		return
	}
	s.allgatherBruck(recv, m)
}

// allgatherRing: at step k each rank passes block r-k to the right and receives block
// r-k-1 from the left; n-1 steps of one block, bandwidth-optimal.
func (s *Sched) allgatherRing(recv []byte, m int) {
	n, r := s.size, s.rank
	blk := func(i int) []byte { i = (i%n + n) % n; return recv[i*m : (i+1)*m] }
	for k := 0; k < n-1; k++ {
		s.recv(blk(r-k-1), (r-1+n)%n)
		s.send(blk(r-k), (r+1)%n)
		s.fence()
	}
}

// allgatherBruck: ceil(log2 n) rounds; in round k a rank sends the 2^k blocks it has
// (its own and those of the ranks above it) to rank r-2^k and receives as many from
// r+2^k, in a scratch buffer ordered from its own block; a rotation puts them in place.
func (s *Sched) allgatherBruck(recv []byte, m int) {
	n, r := s.size, s.rank
	tmp := s.buf(n * m)
	s.copy(tmp[:m], recv[r*m:(r+1)*m])
	for k := 1; k < n; k <<= 1 {
		cnt := min(k, n-k)
		s.recv(tmp[k*m:(k+cnt)*m], (r+k)%n)
		s.send(tmp[:cnt*m], (r-k+n)%n)
		s.fence()
	}
	// tmp block i is rank r+i's.
	s.copy(recv[r*m:], tmp[:(n-r)*m])
	s.copy(recv[:r*m], tmp[(n-r)*m:])
}

// Allgatherv is Allgather with rank i's block of counts[i] elements at element
// displs[i]; a ring. In place: send is recv's block of this rank. Exact, as
// Allgather (empty blocks no message, as Gatherv).
func (s *Sched) Allgatherv(send, recv []byte, counts, displs []int) {
	s.exact = true
	n, r, e := s.size, s.rank, s.esize
	blk := func(i int) []byte {
		i = (i%n + n) % n
		return block(recv, counts, displs, i, e)
	}
	s.copy(blk(r), send)
	for k := 0; k < n-1; k++ {
		if b := blk(r - k - 1); len(b) > 0 {
			s.recv(b, (r-1+n)%n)
		}
		if b := blk(r - k); len(b) > 0 {
			s.send(b, (r+1)%n)
		}
		s.fence()
	}
}

// Alltoall sends block i of send to rank i, which receives it as block r of recv.
// In place: send is recv (the blocks are first copied aside). Strict; empty blocks are
// empty messages.
func (s *Sched) Alltoall(send, recv []byte) {
	s.Strict()
	n, r := s.size, s.rank
	m := len(recv) / n
	if same(send, recv) {
		b := s.buf(len(recv))
		s.copy(b, recv)
		send = b
	}
	s.copy(recv[r*m:(r+1)*m], send[r*m:(r+1)*m])
	t := tuning()
	pairwise := t.Alltoall == Pairwise || (t.Alltoall == Auto && m >= t.AlltoallLarge)
	if pairwise {
		choose(CollAlltoall, Pairwise)
	} else {
		choose(CollAlltoall, Linear)
	}
	for k := 1; k < n; k++ {
		from, to := (r-k+n)%n, (r+k)%n
		s.recv(recv[from*m:(from+1)*m], from)
		s.send(send[to*m:(to+1)*m], to)
		if pairwise {
			s.fence()
		}
	}
	s.fence()
}

// Alltoallv is Alltoall with per-rank counts and displacements, in elements. In place:
// send is recv, and the send counts are the receive counts. Strict, as Gatherv (empty
// blocks no message).
func (s *Sched) Alltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) {
	s.Strict()
	n, r, e := s.size, s.rank, s.esize
	if same(send, recv) {
		b := s.buf(len(recv))
		s.copy(b, recv)
		send = b
	}
	sb := func(i int) []byte { return block(send, scounts, sdispls, i, e) }
	rb := func(i int) []byte { return block(recv, rcounts, rdispls, i, e) }
	s.copy(rb(r), sb(r))
	pairwise := tuning().Alltoall == Pairwise
	for k := 1; k < n; k++ {
		from, to := (r-k+n)%n, (r+k)%n
		if b := rb(from); len(b) > 0 {
			s.recv(b, from)
		}
		if b := sb(to); len(b) > 0 {
			s.send(b, to)
		}
		if pairwise {
			s.fence()
		}
	}
	s.fence()
}

// block is the counts[i] elements of e bytes at element displs[i] of b: a v form's
// block i. A block of no elements is empty wherever its displacement points, since
// MPI never reads the displacement of a block that holds no data.
func block(b []byte, counts, displs []int, i, e int) []byte {
	if counts[i] == 0 {
		return b[:0]
	}
	return b[displs[i]*e : (displs[i]+counts[i])*e]
}
