package mpir

import (
	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// Collective operations (MPI 4.1 chapter 6, and the neighbourhood collectives of
// section 8.6), once for both faces. A face converts its arguments into the device's
// (a buffer as a Vec, a reduction as a Red, a v form's counts and displacements as
// []int), calls one function here, and turns the answer into its own: a request for
// the Pending of a nonblocking or persistent call, its error through its handler.
// Here, and only here:
//
//   - Which arguments are significant on which process, section by section (each
//     kind's rules, coll_rules.go). An argument the standard says is ignored is never
//     looked at: the face may pass anything there, even what its conversion refused
//     (CollArgs carries such errors beside the arguments), and the device is given an
//     empty buffer in its place. A face reads memory for an argument only where
//     Significant says it counts (the C face's arrays of counts, displacements and
//     types), since a program may leave the others unset.
//   - The checks of the significant arguments, with the standard's classes: a root
//     out of range or of the wrong kind on an intercommunicator (MPI_ERR_ROOT), a
//     negative count or a block outside its buffer (MPI_ERR_COUNT), a missing or
//     uncommitted datatype (MPI_ERR_TYPE), an operation that does not apply
//     (MPI_ERR_OP), MPI_IN_PLACE where the standard does not allow it or a buffer
//     that does not hold what its count says (MPI_ERR_BUFFER), a missing array
//     (MPI_ERR_ARG), an info that is none (MPI_ERR_INFO); the buffers' lengths
//     against each other (MPI_ERR_COUNT). A block of no elements is never placed, so
//     its displacement is not looked at.
//   - A process whose own arguments fail these checks still takes its part in the
//     collective, with no data, and then returns its error (abstain): the others never
//     wait for it. They find what any process finds when another passed different
//     counts (erroneous): a message shorter or longer than expected (MPI_ERR_COUNT,
//     MPI_ERR_TRUNCATE), or under coll_check the mismatch; and the communicator's
//     collectives stay in step. Only a communicator that cannot be used, a root that
//     is none and a kind not defined on the communicator (Scan on an
//     intercommunicator) end the call at once: they are the same on every process.
//   - The three modes: blocking, nonblocking (a Pending that completes in the
//     background) and persistent (an inactive Pending that Start runs as the
//     nonblocking form). A persistent init takes and checks every argument, its info
//     included, without communicating (MPI 4.1 section 6.13): the device runs its
//     nonblocking form under collective.CheckArgs, which stops before anything is sent.
//   - Each call is recorded once (internal/prof), by its kind's record for its mode,
//     with its root as the peer and this process's input in bytes (its receive
//     buffer's where the input is in place, none where it has none). A persistent
//     init is recorded as itself; its runs are the record's Start.

// Mode is how a collective runs.
type Mode uint8

const (
	Blocking    Mode = iota // MPI_x
	Nonblocking             // MPI_Ix: returns a Pending that completes in the background
	Persistent              // MPI_x_init: returns an inactive Pending that Start runs
	numModes
)

// Vec, Red and NSide are the device's buffer, reduction and neighbourhood side, as the
// faces name them.
type (
	Vec   = collective.Vec
	Red   = collective.Red
	NSide = collective.NSide
)

// Root is what the root passes as root to a rooted collective on an intercommunicator
// (MPI_ROOT); the other processes of its group pass core.ProcNull.
const Root = collective.Root

// CollKind names one of the standard's collective operations.
type CollKind uint8

const (
	CollBarrier CollKind = iota
	CollBcast
	CollGather
	CollGatherv
	CollScatter
	CollScatterv
	CollAllgather
	CollAllgatherv
	CollAlltoall
	CollAlltoallv
	CollAlltoallw
	CollReduce
	CollAllreduce
	CollReduceScatterBlock
	CollReduceScatter
	CollScan
	CollExscan
	CollNeighborAllgather
	CollNeighborAllgatherv
	CollNeighborAlltoall
	CollNeighborAlltoallv
	CollNeighborAlltoallw
	NumCollKinds
)

// A Coll is one of the standard's collective procedures as mpir runs it: its kind and
// mode, how the record names it, and what its errors call it. CollProc gives the
// standard's, named as the standard does without MPI_ ("Bcast", "Ibcast",
// "Bcast_init"); a face that names one otherwise makes its own (As). The blocking
// forms' entry points take one, so that the hottest calls pass a pointer where they
// would pass three arguments.
type Coll struct {
	Kind CollKind
	Mode Mode
	Call prof.Call
	Op   string
}

// CollProc is the procedure of kind k in mode m.
func CollProc(k CollKind, m Mode) *Coll { return &colls[k][m] }

// CollProcLarge is CollProc's large-count form (the C binding's MPI_Bcast_c): the
// same procedure, named so in its errors.
func CollProcLarge(k CollKind, m Mode) *Coll { return &collsLarge[k][m] }

// As is p named op in its errors.
func (p *Coll) As(op string) *Coll {
	q := *p
	q.Op = op
	return &q
}

// collNames are the kinds' names as the standard spells them (without MPI_), and the
// record's calls of each mode.
var collNames = [NumCollKinds]struct {
	name  string
	calls [numModes]prof.Call
}{
	CollBarrier:            {"Barrier", [3]prof.Call{prof.Barrier, prof.Ibarrier, prof.BarrierInit}},
	CollBcast:              {"Bcast", [3]prof.Call{prof.Bcast, prof.Ibcast, prof.BcastInit}},
	CollGather:             {"Gather", [3]prof.Call{prof.Gather, prof.Igather, prof.GatherInit}},
	CollGatherv:            {"Gatherv", [3]prof.Call{prof.Gatherv, prof.Igatherv, prof.GathervInit}},
	CollScatter:            {"Scatter", [3]prof.Call{prof.Scatter, prof.Iscatter, prof.ScatterInit}},
	CollScatterv:           {"Scatterv", [3]prof.Call{prof.Scatterv, prof.Iscatterv, prof.ScattervInit}},
	CollAllgather:          {"Allgather", [3]prof.Call{prof.Allgather, prof.Iallgather, prof.AllgatherInit}},
	CollAllgatherv:         {"Allgatherv", [3]prof.Call{prof.Allgatherv, prof.Iallgatherv, prof.AllgathervInit}},
	CollAlltoall:           {"Alltoall", [3]prof.Call{prof.Alltoall, prof.Ialltoall, prof.AlltoallInit}},
	CollAlltoallv:          {"Alltoallv", [3]prof.Call{prof.Alltoallv, prof.Ialltoallv, prof.AlltoallvInit}},
	CollAlltoallw:          {"Alltoallw", [3]prof.Call{prof.Alltoallw, prof.Ialltoallw, prof.AlltoallwInit}},
	CollReduce:             {"Reduce", [3]prof.Call{prof.Reduce, prof.Ireduce, prof.ReduceInit}},
	CollAllreduce:          {"Allreduce", [3]prof.Call{prof.Allreduce, prof.Iallreduce, prof.AllreduceInit}},
	CollReduceScatterBlock: {"Reduce_scatter_block", [3]prof.Call{prof.ReduceScatterBlock, prof.IreduceScatterBlock, prof.ReduceScatterBlockInit}},
	CollReduceScatter:      {"Reduce_scatter", [3]prof.Call{prof.ReduceScatter, prof.IreduceScatter, prof.ReduceScatterInit}},
	CollScan:               {"Scan", [3]prof.Call{prof.Scan, prof.Iscan, prof.ScanInit}},
	CollExscan:             {"Exscan", [3]prof.Call{prof.Exscan, prof.Iexscan, prof.ExscanInit}},
	CollNeighborAllgather:  {"Neighbor_allgather", [3]prof.Call{prof.NeighborAllgather, prof.IneighborAllgather, prof.NeighborAllgatherInit}},
	CollNeighborAllgatherv: {"Neighbor_allgatherv", [3]prof.Call{prof.NeighborAllgatherv, prof.IneighborAllgatherv, prof.NeighborAllgathervInit}},
	CollNeighborAlltoall:   {"Neighbor_alltoall", [3]prof.Call{prof.NeighborAlltoall, prof.IneighborAlltoall, prof.NeighborAlltoallInit}},
	CollNeighborAlltoallv:  {"Neighbor_alltoallv", [3]prof.Call{prof.NeighborAlltoallv, prof.IneighborAlltoallv, prof.NeighborAlltoallvInit}},
	CollNeighborAlltoallw:  {"Neighbor_alltoallw", [3]prof.Call{prof.NeighborAlltoallw, prof.IneighborAlltoallw, prof.NeighborAlltoallwInit}},
}

var colls = func() (t [NumCollKinds][numModes]Coll) {
	for k, n := range collNames {
		name := n.name
		t[k][Blocking] = Coll{CollKind(k), Blocking, n.calls[Blocking], name}
		t[k][Nonblocking] = Coll{CollKind(k), Nonblocking, n.calls[Nonblocking], "I" + lowerFirst(name)}
		t[k][Persistent] = Coll{CollKind(k), Persistent, n.calls[Persistent], name + "_init"}
	}
	return
}()

var collsLarge = func() (t [NumCollKinds][numModes]Coll) {
	for k := range colls {
		for m, p := range colls[k] {
			p.Op += "_c"
			t[k][m] = p
		}
	}
	return
}()

func lowerFirst(s string) string { return string(s[0]-'A'+'a') + s[1:] }

// Name is the kind's name as the standard spells it, without MPI_.
func (k CollKind) Name() string { return collNames[k].name }

// collEnter is the record's entry of collective call on c naming peer (its root, or
// prof.NoPeer) with n bytes of input, its short path inlined: sampled, as
// point-to-point calls are (two clock reads are a good part of a short Barrier's
// time), and timed exactly once it waits. prof.None records nothing: a call made
// inside another that is recorded (the Go face's value collectives).
func collEnter(call prof.Call, c *core.Comm, peer, n int) int64 {
	if call == prof.None {
		return 0
	}
	pc := c.Prof()
	if prof.Try(call, pc, peer, -1, n) {
		return 0
	}
	return prof.Enter(call, pc, peer, -1, n)
}

// collExit is prof.Exit with its short path inlined: the collectives end with it
// rather than with a deferred Exit, whose wrapper costs as much again.
func collExit(call prof.Call, t int64, n int) {
	if call != prof.None && !prof.TryExit(call, t, n) {
		prof.Exit(call, t, n)
	}
}

// Unrecorded is p recorded by nothing: a call made inside another that the record
// counts (the Go face's value collectives).
func (p *Coll) Unrecorded() *Coll {
	q := *p
	q.Call = prof.None
	return &q
}

// vecBytes is the bytes of data v holds (none in place).
func vecBytes(v *Vec) int {
	if v.Type != nil {
		if v.Count <= 0 {
			return 0
		}
		return v.Count * int(v.Type.Size())
	}
	return len(v.B)
}

// inputBytes is what the record counts of a reduction's buffers: the input, or the
// receive buffer's in place.
func inputBytes(send, recv *Vec) int {
	if send.InPlace {
		return vecBytes(recv)
	}
	return vecBytes(send)
}

// Barrier is MPI_Barrier, blocking: it returns once every process of c has called it
// (on an intercommunicator, every process of both groups).
func Barrier(p *Coll, c *core.Comm) error {
	// The record's short paths inline here, as in the other short entry points
	// below: a call to collEnter and one to collExit cost a short Barrier more than
	// their bodies (docs/BENCHMARKS.md, "Collectives once, in mpir").
	call, t := p.Call, int64(0)
	if call != prof.None && !prof.Try(call, c.Prof(), prof.NoPeer, -1, 0) {
		t = prof.Enter(call, c.Prof(), prof.NoPeer, -1, 0)
	}
	err := collective.Barrier(c, p.Op)
	if call != prof.None && !prof.TryExit(call, t, 0) {
		prof.Exit(call, t, 0)
	}
	return err
}

// Bcast is MPI_Bcast, blocking (section 6.4): root's buf reaches every process's.
// Every argument is significant on every process but, on an intercommunicator, the
// processes of the root's group other than the root (core.ProcNull), where only root
// is; bad is what the face's conversion of buf found wrong (nil: nothing).
func Bcast(p *Coll, c *core.Comm, buf *Vec, bad error, root int) error {
	n, call, t := vecBytes(buf), p.Call, int64(0)
	if call != prof.None && !prof.Try(call, c.Prof(), root, -1, n) {
		t = prof.Enter(call, c.Prof(), root, -1, n)
	}
	var err error
	if bad == nil && !buf.InPlace && buf.Type == nil {
		// The short path: nothing to check but the root, which the device does.
		err = collective.Bcast(c, p.Op, buf, root)
	} else {
		a := CollArgs{Send: *buf, SendErr: bad, Root: root}
		_, err = collStart(p, c, &a)
	}
	if call != prof.None && !prof.TryExit(call, t, n) {
		prof.Exit(call, t, n)
	}
	return err
}

// Reduce is MPI_Reduce, blocking (section 6.9.1): every process's send combined by r,
// in rank order, into root's recv. sendBad and recvBad are what the face's conversion
// of each found wrong, sendBad the operation's too (it is significant where send is);
// CollArgs's rules say where each counts.
func Reduce(p *Coll, c *core.Comm, send, recv *Vec, r *Red, sendBad, recvBad error, root int) error {
	n, call, t := inputBytes(send, recv), p.Call, int64(0)
	if call != prof.None && !prof.Try(call, c.Prof(), root, -1, n) {
		t = prof.Enter(call, c.Prof(), root, -1, n)
	}
	var err error
	if reduceShort(c, send, recv, r, sendBad, recvBad, root) {
		err = collective.Reduce(c, p.Op, send, recv, r, root)
	} else {
		a := CollArgs{Send: *send, Recv: *recv, Red: *r, SendErr: sendBad, RecvErr: recvBad, Root: root}
		_, err = collStart(p, c, &a)
	}
	if call != prof.None && !prof.TryExit(call, t, n) {
		prof.Exit(call, t, n)
	}
	return err
}

// Gather is MPI_Gather, blocking (section 6.5): every process's send, in rank order,
// into root's recv. sendBad and recvBad are what the face's conversion of each found
// wrong; CollArgs's rules say where each counts.
func Gather(p *Coll, c *core.Comm, send, recv *Vec, sendBad, recvBad error, root int) error {
	n, call, t := inputBytes(send, recv), p.Call, int64(0)
	if call != prof.None && !prof.Try(call, c.Prof(), root, -1, n) {
		t = prof.Enter(call, c.Prof(), root, -1, n)
	}
	var err error
	if gatherShort(c, send, recv, sendBad, recvBad, root) {
		if c.Rank() != root {
			_, err = collective.Gather(c, p.Op, *send, Vec{Esz: esz(recv)}, root, false)
		} else {
			_, err = collective.Gather(c, p.Op, *send, *recv, root, false)
		}
	} else {
		a := CollArgs{Send: *send, Recv: *recv, SendErr: sendBad, RecvErr: recvBad, Root: root}
		_, err = collStart(p, c, &a)
	}
	if call != prof.None && !prof.TryExit(call, t, n) {
		prof.Exit(call, t, n)
	}
	return err
}

// gatherShort reports whether a Gather has nothing to check that the long way would:
// an intracommunicator's, of plain buffers, the root in range, a non-root's send not
// in place (its recv is not significant), the root's recv of size blocks of its send
// (gatherLengths) or its send in place.
func gatherShort(c *core.Comm, send, recv *Vec, sendBad, recvBad error, root int) bool {
	if c == nil || c.IsInter() || send.Type != nil || recv.Type != nil || uint(root) >= uint(c.Size()) {
		return false
	}
	if c.Rank() != root {
		return sendBad == nil && !send.InPlace
	}
	return recvBad == nil && !recv.InPlace && (send.InPlace || sendBad == nil) && blocksFit(c.Size(), send, recv)
}

// Allgather is MPI_Allgather, blocking (section 6.7): every process's send, in rank
// order, into every process's recv. bad is what the face's conversion of either
// buffer found wrong.
func Allgather(p *Coll, c *core.Comm, send, recv *Vec, bad error) error {
	n, call, t := inputBytes(send, recv), p.Call, int64(0)
	if call != prof.None && !prof.Try(call, c.Prof(), prof.NoPeer, -1, n) {
		t = prof.Enter(call, c.Prof(), prof.NoPeer, -1, n)
	}
	var err error
	if c != nil && bad == nil && !c.IsInter() && send.Type == nil && recv.Type == nil && !recv.InPlace &&
		blocksFit(c.Size(), send, recv) {
		_, err = collective.Allgather(c, p.Op, *send, *recv, false)
	} else {
		a := CollArgs{Send: *send, Recv: *recv, SendErr: bad}
		_, err = collStart(p, c, &a)
	}
	if call != prof.None && !prof.TryExit(call, t, n) {
		prof.Exit(call, t, n)
	}
	return err
}

// blocksFit reports whether plain recv holds size blocks of plain send, or, send in
// place, a whole number of size blocks (gatherLengths' and allgatherLengths' rule).
func blocksFit(size int, send, recv *Vec) bool {
	if send.InPlace {
		return recv.Esz > 0 && len(recv.B)%(size*recv.Esz) == 0
	}
	return send.Esz == recv.Esz && len(recv.B) == size*len(send.B)
}

// reduceShort reports whether a Reduce has nothing to check but its root, which the
// device does: an intracommunicator's, of plain buffers that convert, in place only at
// the root, as long at the root, no (value, index) pairs to count. (A non-root's recv
// is not significant; the device does not look at it.) A nil c takes the long way,
// whose first check names it.
func reduceShort(c *core.Comm, send, recv *Vec, r *Red, sendBad, recvBad error, root int) bool {
	if c == nil || sendBad != nil || c.IsInter() || r.Pair || send.Type != nil || recv.Type != nil {
		return false
	}
	if c.Rank() != root {
		return !send.InPlace
	}
	return recvBad == nil && !recv.InPlace && (send.InPlace || len(send.B) == len(recv.B) && send.Esz == recv.Esz)
}

// Allreduce is MPI_Allreduce, blocking (section 6.9.6): every process's send combined
// by r into every process's recv (on an intercommunicator, the other group's sends).
// Every argument is significant everywhere; bad is what the face's conversion of any
// of them found wrong.
func Allreduce(p *Coll, c *core.Comm, send, recv *Vec, r *Red, bad error) error {
	n, call, t := inputBytes(send, recv), p.Call, int64(0)
	if call != prof.None && !prof.Try(call, c.Prof(), prof.NoPeer, -1, n) {
		t = prof.Enter(call, c.Prof(), prof.NoPeer, -1, n)
	}
	var err error
	if c != nil && bad == nil && !recv.InPlace && !r.Pair && send.Type == nil && recv.Type == nil &&
		(send.InPlace && !c.IsInter() || !send.InPlace && len(send.B) == len(recv.B) && send.Esz == recv.Esz) {
		err = collective.Allreduce(c, p.Op, send, recv, r)
	} else {
		a := CollArgs{Send: *send, Recv: *recv, Red: *r, SendErr: bad, Root: noRoot}
		_, err = collStart(p, c, &a)
	}
	if call != prof.None && !prof.TryExit(call, t, n) {
		prof.Exit(call, t, n)
	}
	return err
}
