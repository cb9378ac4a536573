package collective

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/core"
)

// Collectives run as schedules of internal/coll over the communicator's conn on its
// internal context. Each call takes the next number of the communicator's collective
// sequence as its tag: ranks call collectives on a communicator in the same order, so
// they agree on it, and the messages of collectives in flight at the same time
// (nonblocking ones) can never match each other's receives.
//
// Which implementation a communicator's collectives take (node shared memory,
// hierarchical, schedules, intercommunicator schedules) was chosen when it was made
// (table.go); the entry points (api.go: Bcast, Ibcast, ...) go through that table. The builders below build an intracommunicator's
// schedule. Their arguments were checked above the device (internal/mpir: which are
// significant, and how the buffers' lengths must agree); the builders index the
// buffers by them, and resolve MPI_IN_PLACE to the part of the receive buffer that
// holds this process's input.

// Kind names a collective (coll_check compares them across ranks).
type Kind int64

const (
	KBarrier Kind = iota + 1
	KBcast
	KReduce
	KAllreduce
	KGather
	KGatherv
	KScatter
	KScatterv
	KAllgather
	KAllgatherv
	KAlltoall
	KAlltoallv
	KAlltoallw
	KReduceScatter
	KReduceScatterBlock
	KScan
	KExscan
	numKinds
)

var kindNames = [numKinds]string{KBarrier: "Barrier", KBcast: "Bcast", KReduce: "Reduce",
	KAllreduce: "Allreduce", KGather: "Gather", KGatherv: "Gatherv", KScatter: "Scatter",
	KScatterv: "Scatterv", KAllgather: "Allgather", KAllgatherv: "Allgatherv", KAlltoall: "Alltoall",
	KAlltoallv: "Alltoallv", KAlltoallw: "Alltoallw", KReduceScatter: "ReduceScatter", KReduceScatterBlock: "ReduceScatterBlock",
	KScan: "Scan", KExscan: "Exscan"}

func (k Kind) String() string {
	if k > 0 && k < numKinds {
		return kindNames[k]
	}
	return "an unknown collective"
}

// NoRoot is Call.Root for collectives without one.
const NoRoot = -1 << 31

// Call describes one collective call for coll_check: what it is, its root (NoRoot:
// none), a size every rank must agree on (-1: none to compare), the element size, the
// reduction (for ops every rank must pass alike) and the form.
type Call struct {
	Op          string
	Kind        Kind
	Root        int
	Size        int64
	Elem        int64
	Red         uint64 // a code of the reduction operation, 0 for none
	Nonblocking bool
}

// Begin checks that c can run the intracommunicator collective cl and returns an empty
// schedule for it with the next tag and element size esize; with coll_check on it
// first verifies that every rank makes the same call.
func (c *comm) Begin(cl Call, esize int) (*coll.Sched, error) {
	if err := c.admit(&cl); err != nil {
		return nil, err
	}
	if _, err := coll.Tune(); err != nil {
		return nil, core.Errorf(core.ClassArg, cl.Op, "%v", err)
	}
	if c.dry.Load() {
		if err := c.dryStop(); err != nil {
			return nil, err
		}
	}
	seq := c.SeqTag()
	if c.check {
		if err := c.verify(seq, &cl); err != nil {
			return nil, err
		}
	}
	return coll.New(c.Local(), seq, esize), nil
}

// admit checks that c can run the collective cl on an intracommunicator: c usable,
// not an intercommunicator, the root in range.
func (c *comm) admit(cl *Call) error {
	if err := c.Check(cl.Op); err != nil {
		return err
	}
	return c.admitChecked(cl)
}

// admitChecked is admit for a communicator its caller has checked (the entry points
// of the blocking collectives check it first).
func (c *comm) admitChecked(cl *Call) error {
	if c.remote != nil {
		return core.Errorf(core.ClassComm, cl.Op, "%s is not defined on intercommunicators (MPI defines Scan and Exscan on intracommunicators only)", cl.Op)
	}
	if cl.Root != NoRoot && (cl.Root < 0 || cl.Root >= c.size) {
		return core.Errorf(core.ClassRoot, cl.Op, "root %d out of range [0,%d)", cl.Root, c.size)
	}
	return nil
}

// verify is coll_check: an allgather of every rank's call description, compared here.
func (c *comm) verify(seq int, cl *Call) error {
	me := [6]int64{int64(cl.Kind), int64(cl.Root), cl.Size, cl.Elem, 0, int64(cl.Red)}
	if cl.Nonblocking {
		me[4] = 1
	}
	all := make([]int64, 6*c.size)
	s := coll.New(c.Local(), core.TagCheck+seq, 8)
	s.Allgather(words(me[:]), words(all))
	err := s.Run()
	s.Free()
	if err != nil {
		return core.MapErr(cl.Op, err)
	}
	for r := 0; r < c.size; r++ {
		o := all[6*r : 6*r+6]
		switch {
		case Kind(o[0]) != cl.Kind:
			return core.Errorf(core.ClassArg, cl.Op, "coll_check: rank %d called %s while rank %d called %s", r, Kind(o[0]), c.rank, cl.Op)
		case o[1] != me[1]:
			return core.Errorf(core.ClassRoot, cl.Op, "coll_check: rank %d gave root %d, rank %d root %d", r, o[1], c.rank, me[1])
		case o[3] != me[3]:
			return core.Errorf(core.ClassType, cl.Op, "coll_check: rank %d has elements of %d bytes, rank %d of %d", r, o[3], c.rank, me[3])
		case o[4] != me[4]:
			return core.Errorf(core.ClassArg, cl.Op, "coll_check: rank %d called the %s form, rank %d the %s one (they do not match)", r, form(o[4]), c.rank, form(me[4]))
		case o[5] != me[5]:
			return core.Errorf(core.ClassOp, cl.Op, "coll_check: rank %d and rank %d passed different reduction operations", r, c.rank)
		case o[2] != me[2] && o[2] >= 0 && me[2] >= 0:
			return core.Errorf(core.ClassCount, cl.Op, "coll_check: rank %d has %d elements, rank %d has %d", r, o[2], c.rank, me[2])
		}
	}
	return nil
}

func form(nb int64) string {
	if nb != 0 {
		return "nonblocking"
	}
	return "blocking"
}

// words views int64s as bytes.
func words(w []int64) []byte {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), 8*len(w))
}

// Run runs a blocking collective's schedule and releases it.
func Run(op string, s *coll.Sched) error {
	err := s.Run()
	s.Free()
	return core.MapErr(op, err)
}

func (c *comm) barrierSched(op string, nb bool) (*coll.Sched, error) {
	s, err := c.Begin(Call{Op: op, Kind: KBarrier, Root: NoRoot, Nonblocking: nb}, 1)
	if err == nil {
		s.Barrier()
	}
	return s, err
}

func (c *comm) bcastSched(op string, buf Vec, root int, nb bool) (*coll.Sched, error) {
	s, err := c.Begin(Call{Op: op, Kind: KBcast, Root: root, Size: int64(buf.N()), Elem: int64(buf.Esz), Nonblocking: nb}, buf.Esz)
	if err != nil {
		return nil, err
	}
	s.Learn(c.Local())
	s.Bcast(buf.B, root)
	return s, nil
}

// reduceSend is Reduce's send buffer at rank me (root: root): recv itself at the root
// in place.
func reduceSend(me, root int, send, recv *Vec) *Vec {
	if me == root && send.InPlace {
		return recv
	}
	return send
}

func (c *comm) reduceSched(op string, send, recv Vec, r Red, root int, nb bool) (*coll.Sched, error) {
	send = *reduceSend(c.rank, root, &send, &recv)
	s, err := c.Begin(Call{Op: op, Kind: KReduce, Root: root, Size: int64(send.N()), Elem: int64(send.Esz), Red: (&r).code(), Nonblocking: nb}, (&r).unit(send.Esz))
	if err != nil {
		return nil, err
	}
	s.Reduce(send.B, recv.B, r.K, root)
	return s, nil
}

// allreduceSend is Allreduce's (and Scan's) send buffer: recv itself in place.
func allreduceSend(send, recv *Vec) *Vec {
	if send.InPlace {
		return recv
	}
	return send
}

func (c *comm) allreduceSched(op string, send, recv Vec, r Red, nb bool) (*coll.Sched, error) {
	send = *allreduceSend(&send, &recv)
	s, err := c.Begin(Call{Op: op, Kind: KAllreduce, Root: NoRoot, Size: int64(recv.N()), Elem: int64(recv.Esz), Red: (&r).code(), Nonblocking: nb}, (&r).unit(recv.Esz))
	if err != nil {
		return nil, err
	}
	s.Allreduce(send.B, recv.B, r.K)
	return s, nil
}

func (c *comm) gatherSched(op string, send, recv Vec, root int, nb bool) (*coll.Sched, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	send = c.rootBlock(root, recv, send)
	s, err := c.Begin(Call{Op: op, Kind: KGather, Root: root, Size: int64(send.N()), Elem: int64(send.Esz), Nonblocking: nb}, send.Esz)
	if err != nil {
		return nil, err
	}
	s.Learn(c.Local())
	s.Gather(send.B, recv.B, root)
	return s, nil
}

func (c *comm) gathervSched(op string, send, recv Vec, counts, displs []int, root int, nb bool) (*coll.Sched, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	send = c.rootVBlock(root, recv, send, counts, displs)
	s, err := c.Begin(Call{Op: op, Kind: KGatherv, Root: root, Size: -1, Elem: int64(send.Esz), Nonblocking: nb}, send.Esz)
	if err != nil {
		return nil, err
	}
	if err := c.checkVPairs(op, s, c.size, root, c.rank == root, true, counts, send.N(), send.Esz, true); err != nil {
		return nil, err
	}
	s.Gatherv(send.B, recv.B, counts, displs, root)
	return s, nil
}

// rootVBlock is the root's own block of Gatherv and Scatterv: part, or in place the
// block of whole that counts and displs give it.
func (c *comm) rootVBlock(root int, whole, part Vec, counts, displs []int) Vec {
	if c.rank == root && part.InPlace {
		return whole.block(counts, displs, root)
	}
	return part
}

// checkVPairs is the debug check (coll.Checking) of a v-form rooted collective on n
// ranks: the root's counts against the others' block of mine elements of esz bytes
// (gather: the blocks go to the root; else they come from it).
func (c *comm) checkVPairs(op string, s *coll.Sched, n, root int, atRoot, atOther bool, counts []int, mine, esz int, gather bool) error {
	if !c.check {
		return nil
	}
	out, in := vPairs(n, root, atRoot, atOther, counts, mine*esz, esz, gather)
	return c.checkPairs(op, s, out, in)
}

// rootBlock is the root's own block of Gather and Scatter: part, or in place its
// block of whole, one of the size's equal blocks.
func (c *comm) rootBlock(root int, whole, part Vec) Vec {
	if c.rank == root && part.InPlace {
		m := whole.N() / c.size
		return whole.Sub(root*m, (root+1)*m)
	}
	return part
}

func (c *comm) scatterSched(op string, send, recv Vec, root int, nb bool) (*coll.Sched, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	recv = c.rootBlock(root, send, recv)
	s, err := c.Begin(Call{Op: op, Kind: KScatter, Root: root, Size: int64(recv.N()), Elem: int64(recv.Esz), Nonblocking: nb}, recv.Esz)
	if err != nil {
		return nil, err
	}
	s.Scatter(send.B, recv.B, root)
	return s, nil
}

func (c *comm) scattervSched(op string, send Vec, counts, displs []int, recv Vec, root int, nb bool) (*coll.Sched, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	recv = c.rootVBlock(root, send, recv, counts, displs)
	s, err := c.Begin(Call{Op: op, Kind: KScatterv, Root: root, Size: -1, Elem: int64(recv.Esz), Nonblocking: nb}, recv.Esz)
	if err != nil {
		return nil, err
	}
	if err := c.checkVPairs(op, s, c.size, root, c.rank == root, true, counts, recv.N(), recv.Esz, false); err != nil {
		return nil, err
	}
	s.Scatterv(send.B, counts, displs, recv.B, root)
	return s, nil
}

func (c *comm) allgatherSched(op string, send, recv Vec, nb bool) (*coll.Sched, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if send.InPlace {
		m := recv.N() / c.size
		send = recv.Sub(c.rank*m, (c.rank+1)*m)
	}
	s, err := c.Begin(Call{Op: op, Kind: KAllgather, Root: NoRoot, Size: int64(send.N()), Elem: int64(send.Esz), Nonblocking: nb}, send.Esz)
	if err != nil {
		return nil, err
	}
	s.Allgather(send.B, recv.B)
	return s, nil
}

func (c *comm) allgathervSched(op string, send, recv Vec, counts, displs []int, nb bool) (*coll.Sched, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if r := c.rank; send.InPlace {
		send = recv.block(counts, displs, r)
	}
	s, err := c.Begin(Call{Op: op, Kind: KAllgatherv, Root: NoRoot, Size: -1, Elem: int64(send.Esz), Nonblocking: nb}, send.Esz)
	if err != nil {
		return nil, err
	}
	if c.check {
		if err := c.checkPairs(op, s, blocksOf(c.size, len(send.B)), bytesOf(counts, send.Esz)); err != nil {
			return nil, err
		}
	}
	s.Allgatherv(send.B, recv.B, counts, displs)
	return s, nil
}

func (c *comm) alltoallSched(op string, send, recv Vec, nb bool) (*coll.Sched, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if send.InPlace {
		send = recv
	}
	s, err := c.Begin(Call{Op: op, Kind: KAlltoall, Root: NoRoot, Size: int64(recv.N()), Elem: int64(recv.Esz), Nonblocking: nb}, recv.Esz)
	if err != nil {
		return nil, err
	}
	s.Alltoall(send.B, recv.B)
	return s, nil
}

func (c *comm) alltoallvSched(op string, send Vec, scounts, sdispls []int, recv Vec, rcounts, rdispls []int, nb bool) (*coll.Sched, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if send.InPlace {
		send, scounts, sdispls = recv, rcounts, rdispls
	}
	s, err := c.Begin(Call{Op: op, Kind: KAlltoallv, Root: NoRoot, Size: -1, Elem: int64(recv.Esz), Nonblocking: nb}, recv.Esz)
	if err != nil {
		return nil, err
	}
	if c.check {
		if err := c.checkPairs(op, s, bytesOf(scounts, recv.Esz), bytesOf(rcounts, recv.Esz)); err != nil {
			return nil, err
		}
	}
	s.Alltoallv(send.B, scounts, sdispls, recv.B, rcounts, rdispls)
	return s, nil
}

func (c *comm) reduceScatterBlockSched(op string, send, recv Vec, r Red, nb bool) (*coll.Sched, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	n := c.size
	m := recv.N()
	if send.InPlace {
		send, m = recv, recv.N()/n
	}
	s, err := c.Begin(Call{Op: op, Kind: KReduceScatterBlock, Root: NoRoot, Size: int64(m), Elem: int64(recv.Esz), Red: (&r).code(), Nonblocking: nb}, recv.Esz)
	if err != nil {
		return nil, err
	}
	counts := make([]int, n)
	for i := range counts {
		counts[i] = m
	}
	s.ReduceScatterBlock(send.B, recv.B, counts, r.K)
	return s, nil
}

// countsTotal is the sum of ReduceScatter's counts.
func countsTotal(counts []int) int {
	total := 0
	for _, k := range counts {
		total += k
	}
	return total
}

func (c *comm) reduceScatterSched(op string, send, recv Vec, counts []int, r Red, nb bool) (*coll.Sched, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	total := countsTotal(counts)
	if send.InPlace {
		send = recv
	}
	s, err := c.Begin(Call{Op: op, Kind: KReduceScatter, Root: NoRoot, Size: int64(total), Elem: int64(recv.Esz), Red: (&r).code(), Nonblocking: nb}, recv.Esz)
	if err != nil {
		return nil, err
	}
	s.ReduceScatter(send.B, recv.B, counts, r.K)
	return s, nil
}

func (c *comm) scanSched(op string, send, recv Vec, r Red, excl, nb bool) (*coll.Sched, error) {
	send = *allreduceSend(&send, &recv)
	kind := KScan
	if excl {
		kind = KExscan
	}
	s, err := c.Begin(Call{Op: op, Kind: kind, Root: NoRoot, Size: int64(recv.N()), Elem: int64(recv.Esz), Red: (&r).code(), Nonblocking: nb}, recv.Esz)
	if err != nil {
		return nil, err
	}
	if excl {
		s.Exscan(send.B, recv.B, r.K)
	} else {
		s.Scan(send.B, recv.B, r.K)
	}
	return s, nil
}
