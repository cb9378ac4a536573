package coll

// Collectives on intercommunicators. The Conn of such a schedule numbers the peers of
// both groups: 0..Size()-1 are the local group (Rank() is this process's rank in it)
// and Size()+j is rank j of the remote group. The local phases are the
// intracommunicator algorithms over the local group; the exchanges between the groups
// go through the groups' leaders (local rank 0) or straight between the processes.
//
// One tag serves the whole schedule: the two groups are disjoint, so a message from
// the remote group can never match a receive of a local phase, and the messages one
// process sends another within the schedule match its receives in the order both
// post them (MPI's non-overtaking rule), phase after phase.
//
// Every receive checks that the message fills its buffer (exact where a rank passes
// on what it received, so that its empty sends carry a mismatch on; Strict where each
// block goes straight to its receiver), and every block is a message, even an empty
// one: a process whose count disagrees with its peer's (erroneous) ends with
// MPI_ERR_COUNT or MPI_ERR_TRUNCATE rather than waiting or keeping old bytes.
//
// A rooted collective has three kinds of process: the root, the other processes of
// its group (which build an empty schedule) and the processes of the other group,
// which name the root by its rank in their remote group. Builders called by the root
// end in Send, by the other group in Recv.

// peer is the Conn number of remote rank j.
func (s *Sched) peer(j int) int { return s.size + j }

// leader reports whether this process leads its group.
func (s *Sched) leader() bool { return s.rank == 0 }

// Scratch returns a buffer of n bytes that lives until Free: space a caller packs
// into before the schedule runs, or unpacks from once it is done.
func (s *Sched) Scratch(n int) []byte { return s.buf(n) }

// InterBarrier returns once every process of both groups has entered it: a barrier of
// the local group (everyone here has arrived), the leaders' exchange (so has everyone
// there) and a second local barrier that tells the rest.
func (s *Sched) InterBarrier() {
	s.Barrier()
	s.fence()
	if s.leader() {
		s.recv(nil, s.peer(0))
		s.send(nil, s.peer(0))
		s.fence()
	}
	s.Barrier()
}

// InterBcastSend is the root's part of a broadcast: buf to the remote leader.
func (s *Sched) InterBcastSend(buf []byte) {
	s.exact = true
	s.send(buf, s.peer(0))
	s.fence()
}

// InterBcastRecv is the receiving group's part: its leader receives from the remote
// root, then broadcasts in the group.
func (s *Sched) InterBcastRecv(buf []byte, root int) {
	s.exact = true
	if s.leader() {
		s.recv(buf, s.peer(root))
		s.fence()
	}
	s.Bcast(buf, 0)
}

// interReduce reduces send into a scratch buffer at the leader (nil elsewhere).
func (s *Sched) interReduce(send []byte, op Op) []byte {
	var acc []byte
	if s.leader() {
		acc = s.buf(len(send))
	}
	s.Reduce(send, acc, op, 0)
	s.fence()
	return acc
}

// InterReduceSend is the sending group's part of a reduction to the remote rank root:
// a reduction to the leader, which sends the result on.
func (s *Sched) InterReduceSend(send []byte, op Op, root int) {
	acc := s.interReduce(send, op)
	if s.leader() {
		s.send(acc, s.peer(root))
		s.fence()
	}
}

// InterReduceRecv is the root's part: the result from the remote leader.
func (s *Sched) InterReduceRecv(recv []byte) {
	s.exact = true
	s.recv(recv, s.peer(0))
	s.fence()
}

// InterAllreduce leaves in every recv the combination of the remote group's sends:
// each group reduces to its leader, the leaders swap results and broadcast them.
func (s *Sched) InterAllreduce(send, recv []byte, op Op) {
	acc := s.interReduce(send, op)
	if s.leader() {
		s.recv(recv, s.peer(0))
		s.send(acc, s.peer(0))
		s.fence()
	}
	s.Bcast(recv, 0)
}

// interGather gathers the group's sends at the leader, in local rank order.
func (s *Sched) interGather(send []byte) []byte {
	var all []byte
	if s.leader() {
		all = s.buf(s.size * len(send))
	}
	s.Gather(send, all, 0)
	s.fence()
	return all
}

// InterGatherSend is the sending group's part of a gather to the remote rank root.
func (s *Sched) InterGatherSend(send []byte, root int) {
	s.exact = true
	all := s.interGather(send)
	if s.leader() {
		s.send(all, s.peer(root))
		s.fence()
	}
}

// InterGatherRecv is the root's part: every block, in rank order, from the remote leader.
func (s *Sched) InterGatherRecv(recv []byte) {
	s.exact = true
	s.recv(recv, s.peer(0))
	s.fence()
}

// InterGathervSend is a process's part of a Gatherv to the remote rank root: its block
// goes straight to the root (the root alone knows the counts).
func (s *Sched) InterGathervSend(send []byte, root int) {
	s.Strict()
	s.send(send, s.peer(root))
	s.fence()
}

// InterGathervRecv is the root's part: remote rank j's block of counts[j] elements
// into recv at element displs[j], for every j.
func (s *Sched) InterGathervRecv(recv []byte, counts, displs []int) {
	s.Strict()
	e := s.esize
	for j := range counts {
		s.recv(block(recv, counts, displs, j, e), s.peer(j))
	}
	s.fence()
}

// InterScatterSend is the root's part of a scatter: all blocks to the remote leader.
func (s *Sched) InterScatterSend(send []byte) {
	s.exact = true
	s.send(send, s.peer(0))
	s.fence()
}

// InterScatterRecv is the receiving group's part: the leader receives every block
// from the remote root and scatters them in the group.
func (s *Sched) InterScatterRecv(recv []byte, root int) {
	s.exact = true
	var all []byte
	if s.leader() {
		all = s.buf(s.size * len(recv))
		s.recv(all, s.peer(root))
		s.fence()
	}
	s.Scatter(all, recv, 0)
}

// InterScattervSend is the root's part of a Scatterv: block j (counts[j] elements at
// element displs[j]) straight to remote rank j.
func (s *Sched) InterScattervSend(send []byte, counts, displs []int) {
	s.Strict()
	e := s.esize
	for j := range counts {
		s.send(block(send, counts, displs, j, e), s.peer(j))
	}
	s.fence()
}

// InterScattervRecv is a receiving process's part: its block from the remote root.
func (s *Sched) InterScattervRecv(recv []byte, root int) {
	s.Strict()
	s.recv(recv, s.peer(root))
	s.fence()
}

// InterAllgather leaves in every recv the remote group's sends in rank order: each
// group gathers at its leader, the leaders swap and broadcast.
func (s *Sched) InterAllgather(send, recv []byte) {
	s.exact = true
	all := s.interGather(send)
	if s.leader() {
		s.recv(recv, s.peer(0))
		s.send(all, s.peer(0))
		s.fence()
	}
	s.Bcast(recv, 0)
}

// InterAllgatherv sends send to every remote process and receives remote rank j's
// block into recv (counts[j] elements at element displs[j]): direct, since only the
// other group knows this group's counts.
func (s *Sched) InterAllgatherv(send, recv []byte, counts, displs []int) {
	s.Strict()
	e, m := s.esize, len(counts)
	for j := 0; j < m; j++ {
		s.recv(block(recv, counts, displs, j, e), s.peer(j))
	}
	for k := 0; k < m; k++ {
		s.send(send, s.peer((s.rank+k)%m))
	}
	s.fence()
}

// InterAlltoallw sends send[j] to remote rank j and receives recv[j] from it, for every
// j (blocks of any length, packed already): every receive is posted before any send.
func (s *Sched) InterAlltoallw(send, recv [][]byte) {
	s.Strict()
	m := len(recv)
	for j := 0; j < m; j++ {
		s.recv(recv[j], s.peer(j))
	}
	for k := 0; k < m; k++ {
		// Start with a different peer on each process, so the sends spread out.
		j := (s.rank + k) % m
		s.send(send[j], s.peer(j))
	}
	s.fence()
}

// InterAlltoallv is InterAlltoallw over one send and one receive buffer, remote rank
// j's blocks being counts[j] elements at element displs[j].
func (s *Sched) InterAlltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) {
	s.Strict()
	e, m := s.esize, len(rcounts)
	for j := 0; j < m; j++ {
		s.recv(block(recv, rcounts, rdispls, j, e), s.peer(j))
	}
	for k := 0; k < m; k++ {
		j := (s.rank + k) % m
		s.send(block(send, scounts, sdispls, j, e), s.peer(j))
	}
	s.fence()
}

// InterAlltoall is InterAlltoallv with blocks of equal length: send and recv hold one
// block per remote process.
func (s *Sched) InterAlltoall(send, recv []byte, m int) {
	s.Strict()
	sm, rm := len(send)/m, len(recv)/m
	for j := 0; j < m; j++ {
		s.recv(recv[j*rm:(j+1)*rm], s.peer(j))
	}
	for k := 0; k < m; k++ {
		j := (s.rank + k) % m
		s.send(send[j*sm:(j+1)*sm], s.peer(j))
	}
	s.fence()
}

// InterReduceScatter leaves in recv this process's block (counts[rank] elements, in
// order) of the combination of the remote group's sends (sum(counts) elements each):
// each group reduces to its leader, the leaders swap results, and each scatters the
// one it received.
func (s *Sched) InterReduceScatter(send, recv []byte, counts []int, op Op) {
	acc := s.interReduce(send, op)
	var other []byte
	if s.leader() {
		other = s.buf(len(send))
		s.recv(other, s.peer(0))
		s.send(acc, s.peer(0))
		s.fence()
	}
	displs := make([]int, len(counts))
	d := 0
	for i, c := range counts {
		displs[i] = d
		d += c
	}
	s.Scatterv(other, counts, displs, recv, 0)
}

// InterReduceScatterBlock is InterReduceScatter with blocks of len(recv) bytes.
func (s *Sched) InterReduceScatterBlock(send, recv []byte, op Op) {
	acc := s.interReduce(send, op)
	var other []byte
	if s.leader() {
		other = s.buf(len(send))
		s.recv(other, s.peer(0))
		s.send(acc, s.peer(0))
		s.fence()
	}
	s.Scatter(other, recv, 0)
}

// Tag returns the tag s's messages carry.
func (s *Sched) Tag() int { return s.tag }
