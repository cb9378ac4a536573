package coll

// Alltoallw sends send[j] to rank j and receives recv[i] from rank i, for every rank:
// blocks of any length (Alltoallw's, packed or contiguous already), this rank's own
// block copied. Empty blocks send nothing: a sender's block for a rank and that rank's
// block from it hold the same type signature, so both are empty or neither is.
//
// Linear, like Alltoall's short form: every receive is posted, then every send, the
// sends starting with the next rank so that the ranks' first messages spread out. With
// coll_alltoall=pairwise it runs n-1 exchange rounds instead. Strict, as Alltoallv:
// a block whose message is shorter or longer than the receiver's is an error there.
func (s *Sched) Alltoallw(send, recv [][]byte) {
	s.Strict()
	n, r := s.size, s.rank
	s.copy(recv[r], send[r])
	pairwise := tuning().Alltoall == Pairwise
	for k := 1; k < n; k++ {
		from, to := (r-k+n)%n, (r+k)%n
		if b := recv[from]; len(b) > 0 {
			s.recv(b, from)
		}
		if b := send[to]; len(b) > 0 {
			s.send(b, to)
		}
		if pairwise {
			s.fence()
		}
	}
	s.fence()
}
