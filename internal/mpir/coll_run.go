package mpir

import (
	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// CollArgs are a collective's arguments as a face converted them. A face fills what
// its call takes and leaves the rest zero; where its conversion of an argument failed
// (a NULL buffer, a negative count, a datatype or operation that is none) it sets the
// argument's error beside it instead, which counts only where the argument is
// significant. The collectives without their own fields take theirs as follows:
// Bcast's buffer is Send; a v form's counts and displacements, in elements (items of
// its buffer's datatype), are the receive side's (Gatherv, Allgatherv, Alltoallv) or
// the send side's (Scatterv) as Counts and Displs, and Alltoallv's send side's as
// SCounts and SDispls; Reduce_scatter's counts are Counts.
type CollArgs struct {
	Send, Recv       Vec
	SendErr, RecvErr error
	Red              Red
	RedErr           error // the operation's: significant where the send side is
	Err              error // of an argument significant everywhere (a request pointer, the info)
	Root             int
	Counts, Displs   []int
	SCounts, SDispls []int
	Info             *Info // a persistent init's (nil: MPI_INFO_NULL)
	Stage            Stage // nil: the buffers are the face's own memory
}

// A Stage lays a face's buffers out for the device around a collective's runs, where
// its memory is not the contiguous elements the device reduces (a C reduction over a
// datatype with gaps): Pack lays the input out before each run, and Finish, after
// each (once a nonblocking run has completed), puts the output back if the run
// succeeded and gives back what the stage holds, unless Keep was called: a persistent
// request's stage lives as long as the request.
type Stage interface {
	Pack()
	core.Finisher
	Keep()
}

// Collective runs collective p on c with arguments a (whose fields the call's kind
// takes, see CollArgs), recorded: a blocking call to its end (no Pending), a
// nonblocking one started (its Pending), a persistent init as an inactive Pending that
// Start runs. a is the caller's; a persistent request keeps a copy.
func Collective(p *Coll, c *core.Comm, a *CollArgs) (*core.Pending, error) {
	x, err := prepare(p, c, a)
	n := 0
	if err == nil {
		n = x.inputBytes(a)
	} else if a.Stage != nil {
		a.Stage.Finish(err)
	}
	t := collEnter(p.Call, c, x.peer(a), n)
	var pd *core.Pending
	if err == nil {
		pd, err = x.run(a)
	}
	collExit(p.Call, t, n)
	return pd, err
}

// collStart is Collective unrecorded, for the blocking entry points' slow branches,
// which record themselves.
func collStart(p *Coll, c *core.Comm, a *CollArgs) (*core.Pending, error) {
	x, err := prepare(p, c, a)
	if err != nil {
		return nil, err
	}
	return x.run(a)
}

// collCall is one collective call under way: what it is, on which communicator and
// process. It is passed by value, as its methods are, and the arguments beside it: a
// pointer to them held in it would move them to the heap with it.
type collCall struct {
	p  *Coll
	c  *core.Comm
	v  view
	ro role
	s  Sides // the significant sides, before in place
}

// prepare checks what every process of a correct program has alike (the
// communicator, the kind against it, the root) and drops what is not significant
// here, so that nothing looks at it again.
func prepare(p *Coll, c *core.Comm, a *CollArgs) (x collCall, err error) {
	x.p, x.c = p, c
	if err = c.Check(p.Op); err != nil {
		return
	}
	x.v = viewOf(c)
	r := &kindRules[p.Kind]
	if r.intraOnly && x.v.inter {
		err = core.Errorf(core.ClassComm, p.Op, "%s is not defined on intercommunicators (MPI defines Scan and Exscan on intracommunicators only)", p.Op)
		return
	}
	x.ro = roleAll
	if r.rooted {
		if x.ro, err = x.v.roleOf(p.Op, a.Root); err != nil {
			return
		}
	}
	x.s = sidesOf(p.Kind, x.ro, x.v.inter)
	x.drop(a)
	return
}

// drop empties the sides that are not significant, with their errors and arrays, and
// forgets the operation where nothing is reduced here.
func (x collCall) drop(a *CollArgs) {
	if !x.s.Send() {
		a.Send, a.SendErr = Vec{Esz: esz(&a.Send)}, nil
		a.SCounts, a.SDispls = nil, nil
		if kindRules[x.p.Kind].reduces {
			a.RedErr = nil
			if a.Red.K.Fn == nil {
				a.Red = noRed
			}
		}
		if x.p.Kind == CollScatterv {
			a.Counts, a.Displs = nil, nil
		}
	}
	if !x.s.Recv() {
		a.Recv, a.RecvErr = Vec{Esz: esz(&a.Recv)}, nil
		if x.p.Kind == CollGatherv {
			a.Counts, a.Displs = nil, nil
		}
	}
	if a.Send.InPlace { // its count and datatype are the receive side's
		a.SendErr, a.SCounts, a.SDispls = nil, nil, nil
	}
}

// esz is v's element size for an empty buffer in its place (1 for none).
func esz(v *Vec) int {
	if v.Type != nil {
		return max(int(v.Type.Size()), 1)
	}
	return max(v.Esz, 1)
}

// noRed is the operation of a process that reduces nothing: a kernel never called.
var noRed = Red{K: collective.ReduceOp{Fn: func(_, _ []byte) {}, Commute: true}, Name: "no operation"}

// peer is the record's peer of the call: its root.
func (x collCall) peer(a *CollArgs) int {
	if kindRules[x.p.Kind].rooted {
		return a.Root
	}
	return prof.NoPeer
}

// inputBytes is the record's bytes of the call: this process's input, its receive
// buffer's in place.
func (x collCall) inputBytes(a *CollArgs) int {
	switch {
	case a.Send.InPlace:
		return vecBytes(&a.Recv)
	case a.Counts != nil && x.p.Kind == CollScatterv:
		return blocksBytes(&a.Send, a.Counts)
	case a.SCounts != nil:
		return blocksBytes(&a.Send, a.SCounts)
	}
	return vecBytes(&a.Send)
}

// blocksBytes is the bytes of counts' blocks of v's elements.
func blocksBytes(v *Vec, counts []int) int {
	n := 0
	for _, k := range counts {
		n += max(k, 0)
	}
	if v.Type != nil {
		return n * int(v.Type.Size())
	}
	return n * v.Esz
}

// run checks the significant arguments and runs the call; a process whose arguments
// fail takes its part with no data first (abstain).
func (x collCall) run(a *CollArgs) (*core.Pending, error) {
	base := x.p.reserve(x.c)
	if err := x.settle(a); err != nil {
		x.abstain(a)
		if st := a.Stage; st != nil {
			st.Finish(err)
		}
		return nil, err
	}
	noBytes(x.p.Kind, a)
	return x.launch(a, base)
}

// noBytes gives the device zero counts for the blocks of a v form's side whose
// datatype has no bytes (MPI_Type_contiguous(0, ...), the null datatype of no items):
// they move nothing, and the schedules would slice that side's buffer, which holds
// nothing, by the program's counts (the C face zeroes its own the same way, moved).
// The checks have seen the program's counts already; a new list is made only where
// one is not all zeros.
func noBytes(k CollKind, a *CollArgs) {
	zero := func(cs []int) []int {
		for _, c := range cs {
			if c != 0 {
				return make([]int, len(cs))
			}
		}
		return cs
	}
	if t := a.Send.Type; t != nil && t.Size() == 0 && !a.Send.InPlace {
		switch k {
		case CollScatterv:
			a.Counts = zero(a.Counts)
		case CollAlltoallv:
			a.SCounts = zero(a.SCounts)
		}
	}
	if t := a.Recv.Type; t != nil && t.Size() == 0 && !a.Recv.InPlace {
		switch k {
		case CollGatherv, CollAllgatherv, CollAlltoallv:
			a.Counts = zero(a.Counts)
		}
	}
}

// settle checks the significant arguments: what the face's conversion found, where
// MPI_IN_PLACE stands, the datatypes of typed buffers, and the kind's rules on the
// buffers' lengths.
func (x collCall) settle(a *CollArgs) error {
	op, k := x.p.Op, x.p.Kind
	if a.Err != nil {
		return a.Err
	}
	if x.s.Send() {
		if a.SendErr != nil {
			return a.SendErr
		}
		if kindRules[k].reduces && a.RedErr != nil {
			return a.RedErr
		}
	}
	if x.s.Recv() && a.RecvErr != nil {
		return a.RecvErr
	}
	sip, rip := a.Send.InPlace && x.s.Send(), a.Recv.InPlace && x.s.Recv()
	if err := inPlaceErr(op, k, x.ro, x.v.inter, sip, rip); err != nil {
		return err
	}
	if x.s.Send() && !sip {
		if err := checkTyped(op, "send", &a.Send, sendBlocks(k, a)); err != nil {
			return err
		}
	}
	if x.s.Recv() && !rip {
		if err := checkTyped(op, "recv", &a.Recv, recvBlocks(k, a)); err != nil {
			return err
		}
	}
	return checkLengths(k, op, &x.v, x.ro, a)
}

// sendBlocks and recvBlocks are the counts and displacements of a side's blocks (nil
// counts: the whole buffer).
func sendBlocks(k CollKind, a *CollArgs) [2][]int {
	switch k {
	case CollScatterv:
		return [2][]int{a.Counts, a.Displs}
	case CollAlltoallv:
		return [2][]int{a.SCounts, a.SDispls}
	}
	return [2][]int{}
}

func recvBlocks(k CollKind, a *CollArgs) [2][]int {
	switch k {
	case CollGatherv, CollAllgatherv, CollAlltoallv:
		return [2][]int{a.Counts, a.Displs}
	}
	return [2][]int{}
}

// launch runs a checked call in its mode.
func (x collCall) launch(a *CollArgs, base int) (*core.Pending, error) {
	switch x.p.Mode {
	case Blocking:
		_, err := staged(x.p.Kind, x.p.Op, x.c, a, false)
		return nil, err
	case Nonblocking:
		return staged(x.p.Kind, x.p.Op, x.c, a, true)
	}
	if err := checkInfo(x.p.Op, a.Info); err != nil {
		if a.Stage != nil {
			a.Stage.Finish(err)
		}
		return nil, err
	}
	held := *a // the request's own arguments
	held.Info = nil
	if held.Stage != nil {
		held.Stage.Keep()
	}
	k, op, c := x.p.Kind, x.p.Op, x.c
	return persistent(op, c, base, func() (*core.Pending, error) { return staged(k, op, c, &held, true) })
}

// staged is devCall with a's stage around it: the input laid out before, the output
// put back after (at once for a blocking call, once a nonblocking one completes).
func staged(k CollKind, op string, c *core.Comm, a *CollArgs, nb bool) (*core.Pending, error) {
	st := a.Stage
	if st == nil {
		return devCall(k, op, c, a, nb)
	}
	st.Pack()
	p, err := devCall(k, op, c, a, nb)
	if err != nil || p == nil {
		return nil, st.Finish(err)
	}
	return core.ThenFinish(p, st), nil
}

// reserve takes a persistent init's sequence numbers on c (collective.ReservePersistent)
// and returns the first; other calls take none (0). A persistent init takes them
// before it checks its arguments, whatever it then finds, so that a process whose
// arguments are refused (a root's counts) keeps the same sequence as the others.
func (p *Coll) reserve(c *core.Comm) int {
	if p.Mode != Persistent {
		return 0
	}
	return collective.ReservePersistent(c)
}

// persistent makes the inactive request of a persistent collective whose every run
// start begins, on the sequence numbers from base (reserve): start runs once under
// collective.CheckArgs, which stops the device's builders after their own checks,
// before they take a sequence number or send, so that a bad argument is the init's
// error, as MPI 4.1 section 6.13 has it.
func persistent(op string, c *core.Comm, base int, start func() (*core.Pending, error)) (*core.Pending, error) {
	err := collective.CheckArgs(c, func() error {
		p, err := start()
		if err == nil && p != nil {
			p.Free()
			return core.Errorf(core.ClassIntern, op, "the argument check started the operation")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return collective.Persistent(c, base, start), nil
}

// checkInfo checks a persistent init's info: MPI_INFO_NULL (nil) or an info not
// freed. MPI defines no hint for the collectives, and mpigo takes none.
func checkInfo(op string, in *Info) error {
	if in == nil {
		return nil
	}
	_, err := in.Nkeys()
	return InfoErr(op, err)
}

// abstain takes this process's part in the call with no data, after its arguments
// failed their checks, so that no other process waits for it: a blocking call runs
// to its end, a nonblocking one is started and left to complete on its own. A
// persistent init communicates nothing, so it has nothing to do.
func (x collCall) abstain(a *CollArgs) {
	if x.p.Mode == Persistent {
		return
	}
	e := x.emptyArgs(a)
	p, err := devCall(x.p.Kind, x.p.Op, x.c, &e, x.p.Mode == Nonblocking)
	if err == nil && p != nil {
		p.Free()
	}
}

// emptyArgs are the call's arguments with no data: its root and operation, empty
// buffers of its element sizes, zero counts.
func (x collCall) emptyArgs(a *CollArgs) CollArgs {
	e := CollArgs{Root: a.Root, Send: Vec{Esz: esz(&a.Send)}, Recv: Vec{Esz: esz(&a.Recv)}, Red: a.Red}
	if e.Red.K.Fn == nil || a.RedErr != nil {
		e.Red = noRed
	}
	e.Red.Pair = false
	n := x.v.peers()
	switch x.p.Kind {
	case CollGatherv, CollScatterv, CollAllgatherv:
		e.Counts, e.Displs = make([]int, n), make([]int, n)
	case CollAlltoallv:
		e.Counts, e.Displs, e.SCounts, e.SDispls = make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	case CollReduceScatter:
		e.Counts = make([]int, x.v.size)
	}
	return e
}

// devCall runs the device's collective of kind k on checked arguments (nb: its
// nonblocking form).
func devCall(k CollKind, op string, c *core.Comm, a *CollArgs, nb bool) (*core.Pending, error) {
	switch k {
	case CollBarrier:
		if nb {
			return collective.Ibarrier(c, op)
		}
		return nil, collective.Barrier(c, op)
	case CollBcast:
		if nb {
			return collective.Ibcast(c, op, a.Send, a.Root)
		}
		return nil, collective.Bcast(c, op, &a.Send, a.Root)
	case CollGather:
		return collective.Gather(c, op, a.Send, a.Recv, a.Root, nb)
	case CollGatherv:
		return collective.Gatherv(c, op, a.Send, a.Recv, a.Counts, a.Displs, a.Root, nb)
	case CollScatter:
		return collective.Scatter(c, op, a.Send, a.Recv, a.Root, nb)
	case CollScatterv:
		return collective.Scatterv(c, op, a.Send, a.Counts, a.Displs, a.Recv, a.Root, nb)
	case CollAllgather:
		return collective.Allgather(c, op, a.Send, a.Recv, nb)
	case CollAllgatherv:
		return collective.Allgatherv(c, op, a.Send, a.Recv, a.Counts, a.Displs, nb)
	case CollAlltoall:
		return collective.Alltoall(c, op, a.Send, a.Recv, nb)
	case CollAlltoallv:
		return collective.Alltoallv(c, op, a.Send, a.SCounts, a.SDispls, a.Recv, a.Counts, a.Displs, nb)
	case CollReduce:
		if nb {
			return collective.Ireduce(c, op, a.Send, a.Recv, a.Red, a.Root)
		}
		return nil, collective.Reduce(c, op, &a.Send, &a.Recv, &a.Red, a.Root)
	case CollAllreduce:
		if nb {
			return collective.Iallreduce(c, op, a.Send, a.Recv, a.Red)
		}
		return nil, collective.Allreduce(c, op, &a.Send, &a.Recv, &a.Red)
	case CollReduceScatterBlock:
		return collective.ReduceScatterBlock(c, op, a.Send, a.Recv, a.Red, nb)
	case CollReduceScatter:
		return collective.ReduceScatter(c, op, a.Send, a.Recv, a.Counts, a.Red, nb)
	case CollScan, CollExscan:
		return collective.Scan(c, op, a.Send, a.Recv, a.Red, k == CollExscan, nb)
	}
	return nil, core.Errorf(core.ClassIntern, op, "%s has entry points of its own", k.Name())
}
