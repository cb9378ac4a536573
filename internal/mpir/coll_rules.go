package mpir

import (
	"github.com/mpigo/mpigo/internal/core"
)

// The rules of each kind of collective: which buffers are significant on which
// process (MPI 4.1 sections 6.4 to 6.11 for intracommunicators, 6.2.2 and each
// section's paragraph on intercommunicators), where MPI_IN_PLACE may stand, and how
// the significant buffers' lengths must agree. They are pure functions of the
// communicator's shape (a view) and the arguments, tested in one process.

// Sides says which of a collective's buffers hold data on this process: the send side
// (the buffer, its count and datatype, a v form's send counts and displacements) and
// the receive side (likewise, and a v form's receive counts and displacements). A
// side in place (MPI_IN_PLACE) is not significant: its arguments are the other side's.
type Sides uint8

const (
	SendSide Sides = 1 << iota
	RecvSide
	bothSides = SendSide | RecvSide
)

// Send and Recv report whether the send and receive sides are significant.
func (s Sides) Send() bool { return s&SendSide != 0 }
func (s Sides) Recv() bool { return s&RecvSide != 0 }

// role is what a process is in a rooted collective.
type role uint8

const (
	roleAll    role = iota // a collective without a root: every process sends and receives
	roleRoot               // the root (intracommunicator: root is its rank; intercommunicator: Root)
	roleLeaf               // an intracommunicator's process other than the root
	roleIdle               // another process of the root's group on an intercommunicator (core.ProcNull)
	roleRemote             // a process of the other group; root is the root's rank there
)

// noRoot is the root of a collective without one.
const noRoot = -1 << 31

// view is what the rules need of a communicator: this process's rank, its group's
// size and, on an intercommunicator, the remote group's size.
type view struct {
	rank, size, remote int
	inter              bool
}

func viewOf(c *core.Comm) view {
	v := view{rank: c.Rank(), size: c.Size(), inter: c.IsInter()}
	if v.inter {
		v.remote = c.Peers()
	}
	return v
}

// peers is the number of blocks of a collective whose blocks go to or come from every
// process of the other side: the remote group's size on an intercommunicator.
func (v *view) peers() int {
	if v.inter {
		return v.remote
	}
	return v.size
}

// roleOf is what root makes this process in a rooted collective, or the error of a
// root that is none (the same on every process of a correct program, so nothing
// waits on it).
func (v *view) roleOf(op string, root int) (role, error) {
	switch {
	case !v.inter && root >= 0 && root < v.size:
		if root == v.rank {
			return roleRoot, nil
		}
		return roleLeaf, nil
	case !v.inter:
		return 0, core.Errorf(core.ClassRoot, op, "root %d out of range [0,%d)", root, v.size)
	case root == Root:
		return roleRoot, nil
	case root == core.ProcNull:
		return roleIdle, nil
	case root >= 0 && root < v.remote:
		return roleRemote, nil
	}
	return 0, core.Errorf(core.ClassRoot, op, "root %d on an intercommunicator: the root passes MPI_ROOT, the rest of its group MPI_PROC_NULL, and the other group the root's rank in [0,%d) of its remote group", root, v.remote)
}

// kindRule is what the rules say of one kind.
type kindRule struct {
	rooted bool
	// gathers: the root receives (Gather, Gatherv, Reduce), else it sends (Bcast,
	// Scatter, Scatterv). Bcast's buffer is its send side at the root and receive
	// side elsewhere; CollArgs holds it as Send.
	gathers bool
	// sendInPlace and recvInPlace: where MPI_IN_PLACE may stand (intracommunicators
	// only): as the send buffer everywhere (sendAll) or at the root (sendRoot), as
	// the receive buffer at the root (Scatter's).
	sendInPlace inPlaceAt
	recvInPlace bool
	reduces     bool // an operation is significant where the send side is
	intraOnly   bool // not defined on intercommunicators (Scan, Exscan)
	bcast       bool
}

type inPlaceAt uint8

const (
	never inPlaceAt = iota
	atRoot
	everywhere
)

var kindRules = [NumCollKinds]kindRule{
	CollBarrier:            {},
	CollBcast:              {rooted: true, bcast: true},
	CollGather:             {rooted: true, gathers: true, sendInPlace: atRoot},
	CollGatherv:            {rooted: true, gathers: true, sendInPlace: atRoot},
	CollScatter:            {rooted: true, recvInPlace: true},
	CollScatterv:           {rooted: true, recvInPlace: true},
	CollAllgather:          {sendInPlace: everywhere},
	CollAllgatherv:         {sendInPlace: everywhere},
	CollAlltoall:           {sendInPlace: everywhere},
	CollAlltoallv:          {sendInPlace: everywhere},
	CollAlltoallw:          {sendInPlace: everywhere},
	CollReduce:             {rooted: true, gathers: true, sendInPlace: atRoot, reduces: true},
	CollAllreduce:          {sendInPlace: everywhere, reduces: true},
	CollReduceScatterBlock: {sendInPlace: everywhere, reduces: true},
	CollReduceScatter:      {sendInPlace: everywhere, reduces: true},
	CollScan:               {sendInPlace: everywhere, reduces: true, intraOnly: true},
	CollExscan:             {sendInPlace: everywhere, reduces: true, intraOnly: true},
	CollNeighborAllgather:  {},
	CollNeighborAllgatherv: {},
	CollNeighborAlltoall:   {},
	CollNeighborAlltoallv:  {},
	CollNeighborAlltoallw:  {},
}

// Significant says which sides of collective k are significant on this process of c
// for root (ignored for a collective without one) and whether the send buffer is
// MPI_IN_PLACE, so that a face reads the arrays of only those (a program may leave
// the others unset). A root that is none makes nothing significant: the call fails
// on it before it looks at anything else.
func Significant(k CollKind, c *core.Comm, root int, sendInPlace bool) Sides {
	if c.Check("") != nil {
		return 0 // the call fails on c before it looks at anything else
	}
	v := viewOf(c)
	ro := roleAll
	if kindRules[k].rooted {
		var err error
		if ro, err = v.roleOf("", root); err != nil {
			return 0
		}
	}
	s := sidesOf(k, ro, v.inter)
	if sendInPlace && !kindRules[k].bcast {
		s &^= SendSide
	}
	return s
}

// sidesOf is the sides of k that hold data on a process of role ro, in place or not.
func sidesOf(k CollKind, ro role, inter bool) Sides {
	r := &kindRules[k]
	switch {
	case !r.rooted:
		return bothSides
	case ro == roleIdle:
		return 0
	case r.bcast:
		return SendSide
	case ro == roleRoot && inter && r.gathers:
		return RecvSide
	case ro == roleRoot && inter:
		return SendSide
	case ro == roleRoot:
		return bothSides
	case r.gathers: // a leaf or the remote group
		return SendSide
	}
	return RecvSide
}

// inPlaceErr is the error of MPI_IN_PLACE where k does not take it on this process
// (role ro), or nil. Only significant buffers are asked about.
func inPlaceErr(op string, k CollKind, ro role, inter, send, recv bool) error {
	r := &kindRules[k]
	switch {
	case !send && !recv:
		return nil
	case inter:
		return core.Errorf(core.ClassBuffer, op, "the %s buffer is in place (MPI_IN_PLACE), which collectives on an intercommunicator do not take", sideName(send))
	case send && r.bcast:
		return core.Errorf(core.ClassBuffer, op, "the buffer is in place (MPI_IN_PLACE), which %s does not take", k.Name())
	case send && r.sendInPlace == never, recv && !r.recvInPlace:
		return core.Errorf(core.ClassBuffer, op, "the %s buffer is in place (MPI_IN_PLACE), which %s does not take", sideName(send), k.Name())
	case send && r.sendInPlace == atRoot && ro != roleRoot, recv && ro != roleRoot:
		return core.Errorf(core.ClassBuffer, op, "the %s buffer is in place (MPI_IN_PLACE), which %s takes at the root only", sideName(send), k.Name())
	}
	return nil
}

func sideName(send bool) string {
	if send {
		return "send"
	}
	return "receive"
}
