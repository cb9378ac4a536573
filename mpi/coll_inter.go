package mpi

import (
	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/p2p"
)

// Collectives on intercommunicators (MPI 4.1, chapter 6). An intercommunicator joins
// two disjoint groups; its collectives move data from one group to the other. The
// rooted ones follow the standard's root convention: in the group holding the root,
// the root passes Root and every other process ProcNull; the processes of the other
// group pass the root's rank in the root's group (their remote group). Allreduce and
// Allgather give each group the result computed from the OTHER group's data.
//
// Each is built from collectives on the local group plus an exchange between the
// groups' leaders (local rank 0). The local group runs them on a view of the
// intercommunicator's own collective context: the view addresses only local members,
// the two groups are disjoint and the leaders' exchange uses tags of its own, so the
// messages of the two groups' local phases and of the exchange can never match each
// other's receives, and no new context is needed.

// Root is what the root passes as root to a rooted collective on an intercommunicator
// (MPI_ROOT); the other processes of its group pass ProcNull.
const Root = -3

// Tags of the leaders' exchange on an intercommunicator's collective context: one per
// call, numbered by the intercommunicator's collective sequence, which both groups
// advance in the same order.
const (
	tagInterColl    = tagManage + 1<<29
	tagInterCheck   = tagInterColl + 1<<25 // + seq: coll_check's exchange
	tagInterSeqMask = 1<<24 - 1
)

// interLocal is the view of c's local group that runs the local phases.
func (c *Comm) interLocal() *Comm {
	st := c.coll()
	st.localOnce.Do(func() {
		st.local = &Comm{ctx: c.ctx, rank: c.rank, size: c.size, group: c.group, name: c.Name() + " (local group)"}
	})
	return st.local
}

// interOp is one collective call on an intercommunicator.
type interOp struct {
	name  string
	c     *Comm
	local *Comm
	tag   int
}

// beginInter checks c and numbers the call; with coll_check on it first verifies that
// the processes of both groups make matching calls.
func beginInter(c *Comm, cl interCall) (*interOp, error) {
	if err := c.usable(cl.op); err != nil {
		return nil, err
	}
	if _, err := coll.Tune(); err != nil {
		return nil, errorf(ClassArg, cl.op, "%v", err)
	}
	st := c.coll()
	seq := int(st.seq.Add(1)-1) & tagInterSeqMask
	if coll.Checking() {
		if err := verifyInter(c, tagInterCheck+seq, cl); err != nil {
			return nil, err
		}
	}
	return &interOp{name: cl.op, c: c, local: c.interLocal(), tag: tagInterColl + seq}, nil
}

// leader reports whether this process is its group's leader.
func (o *interOp) leader() bool { return o.c.rank == 0 }

// send and recv move bytes to and from rank r of the remote group.
func (o *interOp) send(b []byte, r int) error {
	return mapErr(o.name, eng.Send(p2p.Bytes(b), o.c.worldRank(r), o.tag, o.c.ctx+1, p2p.Standard))
}

func (o *interOp) recv(b []byte, r int) error {
	_, err := eng.Recv(p2p.Bytes(b), o.c.worldRank(r), o.tag, o.c.ctx+1)
	return mapErr(o.name, err)
}

// exchange is the leaders' exchange: out to the remote leader, in from it.
func (o *interOp) exchange(out, in []byte) error {
	_, err := mpiSendrecvBytes(o.c.ctx+1, out, in, o.c.worldRank(0), o.tag)
	return mapErr(o.name, err)
}

// interRole is what a process's root argument makes it in a rooted collective.
type interRole int

const (
	roleNone   interRole = iota // a collective without a root
	roleRoot                    // the root (Root)
	roleIdle                    // another process of the root's group (ProcNull)
	roleRemote                  // a process of the other group, root is the root's rank there
)

func interRootRole(name string, c *Comm, root int) (interRole, error) {
	switch {
	case root == Root:
		return roleRoot, nil
	case root == ProcNull:
		return roleIdle, nil
	case root >= 0 && root < c.remote.Size():
		return roleRemote, nil
	}
	return 0, errorf(ClassRoot, name, "root %d on an intercommunicator: the root passes Root, the rest of its group ProcNull, and the other group the root's rank in [0,%d) of its remote group", root, c.remote.Size())
}

func noInPlaceInter[T Elem](name, arg string, b []T) error {
	if isInPlace(b) {
		return errorf(ClassBuffer, name, "%s is InPlace, which intercommunicator collectives do not take", arg)
	}
	return nil
}

func interBarrier(c *Comm) error {
	o, err := beginInter(c, interCall{op: "Barrier", kind: kBarrier, out: -1, in: -1})
	if err != nil {
		return err
	}
	// Everyone here has arrived once the local barrier ends; the leaders then learn
	// that the other group has too, and the second local barrier tells the rest.
	if err := o.local.Barrier(); err != nil {
		return err
	}
	if o.leader() {
		if err := o.exchange(nil, nil); err != nil {
			return err
		}
	}
	return o.local.Barrier()
}

func interBcast[T Elem](c *Comm, buf []T, root int) error {
	const name = "Bcast"
	role, err := interRootRole(name, c, root)
	if err != nil {
		return err
	}
	o, err := beginInter(c, interCall{op: name, kind: kBcast, role: role, root: root, elem: int64(esize[T]()), out: ifRole(role, roleRoot, len(buf)), in: ifRole(role, roleRemote, len(buf))})
	if err != nil {
		return err
	}
	switch role {
	case roleRoot:
		return o.send(asBytes(buf), 0)
	case roleIdle:
		return nil
	}
	if o.leader() {
		if err := o.recv(asBytes(buf), root); err != nil {
			return err
		}
	}
	return Bcast(o.local, buf, 0)
}

func interReduce[T Elem](c *Comm, send, recv []T, op Op, root int) error {
	const name = "Reduce"
	role, err := interRootRole(name, c, root)
	if err != nil {
		return err
	}
	if _, err := kernel[T](name, op); err != nil {
		return err
	}
	if role == roleRemote {
		if err := noInPlaceInter(name, "send", send); err != nil {
			return err
		}
		if err := pairs(name, op, len(send)); err != nil {
			return err
		}
	}
	o, err := beginInter(c, interCall{op: name, kind: kReduce, role: role, root: root, elem: int64(esize[T]()), out: ifRole(role, roleRemote, len(send)), in: ifRole(role, roleRoot, len(recv))})
	if err != nil {
		return err
	}
	switch role {
	case roleRoot:
		return o.recv(asBytes(recv), 0)
	case roleIdle:
		return nil
	}
	var acc []T
	if o.leader() {
		acc = make([]T, len(send))
	}
	if err := Reduce(o.local, send, acc, op, 0); err != nil {
		return err
	}
	if o.leader() {
		return o.send(asBytes(acc), root)
	}
	return nil
}

func interAllreduce[T Elem](c *Comm, send, recv []T, op Op) error {
	const name = "Allreduce"
	if _, err := kernel[T](name, op); err != nil {
		return err
	}
	if err := noInPlaceInter(name, "send", send); err != nil {
		return err
	}
	if len(send) != len(recv) {
		return errorf(ClassCount, name, "len(send) %d != len(recv) %d", len(send), len(recv))
	}
	if err := pairs(name, op, len(send)); err != nil {
		return err
	}
	o, err := beginInter(c, interCall{op: name, kind: kAllreduce, elem: int64(esize[T]()), out: int64(len(send)), in: int64(len(recv))})
	if err != nil {
		return err
	}
	var acc []T
	if o.leader() {
		acc = make([]T, len(send))
	}
	if err := Reduce(o.local, send, acc, op, 0); err != nil {
		return err
	}
	if o.leader() {
		if err := o.exchange(asBytes(acc), asBytes(recv)); err != nil {
			return err
		}
	}
	return Bcast(o.local, recv, 0)
}

func interGather[T Elem](c *Comm, send, recv []T, root int) error {
	const name = "Gather"
	role, err := interRootRole(name, c, root)
	if err != nil {
		return err
	}
	switch role {
	case roleRoot:
		if n := c.remote.Size(); len(recv)%n != 0 {
			return errorf(ClassCount, name, "len(recv) %d at the root is not a multiple of the remote group's size %d", len(recv), n)
		}
	case roleRemote:
		if err := noInPlaceInter(name, "send", send); err != nil {
			return err
		}
	}
	o, err := beginInter(c, interCall{op: name, kind: kGather, role: role, root: root, elem: int64(esize[T]()), out: ifRole(role, roleRemote, len(send)), in: ifRole(role, roleRoot, len(recv)/c.remote.Size())})
	if err != nil {
		return err
	}
	switch role {
	case roleRoot:
		return o.recv(asBytes(recv), 0)
	case roleIdle:
		return nil
	}
	var all []T
	if o.leader() {
		all = make([]T, c.size*len(send))
	}
	if err := Gather(o.local, send, all, 0); err != nil {
		return err
	}
	if o.leader() {
		return o.send(asBytes(all), root)
	}
	return nil
}

func interScatter[T Elem](c *Comm, send, recv []T, root int) error {
	const name = "Scatter"
	role, err := interRootRole(name, c, root)
	if err != nil {
		return err
	}
	switch role {
	case roleRoot:
		if n := c.remote.Size(); len(send)%n != 0 {
			return errorf(ClassCount, name, "len(send) %d at the root is not a multiple of the remote group's size %d", len(send), n)
		}
	case roleRemote:
		if err := noInPlaceInter(name, "recv", recv); err != nil {
			return err
		}
	}
	o, err := beginInter(c, interCall{op: name, kind: kScatter, role: role, root: root, elem: int64(esize[T]()), out: ifRole(role, roleRoot, len(send)/c.remote.Size()), in: ifRole(role, roleRemote, len(recv))})
	if err != nil {
		return err
	}
	switch role {
	case roleRoot:
		return o.send(asBytes(send), 0)
	case roleIdle:
		return nil
	}
	var all []T
	if o.leader() {
		all = make([]T, c.size*len(recv))
		if err := o.recv(asBytes(all), root); err != nil {
			return err
		}
	}
	return Scatter(o.local, all, recv, 0)
}

func interAllgather[T Elem](c *Comm, send, recv []T) error {
	const name = "Allgather"
	if err := noInPlaceInter(name, "send", send); err != nil {
		return err
	}
	if n := c.remote.Size(); len(recv)%n != 0 {
		return errorf(ClassCount, name, "len(recv) %d is not a multiple of the remote group's size %d", len(recv), n)
	}
	o, err := beginInter(c, interCall{op: name, kind: kAllgather, elem: int64(esize[T]()), out: int64(len(send)), in: int64(len(recv) / c.remote.Size())})
	if err != nil {
		return err
	}
	var all []T
	if o.leader() {
		all = make([]T, c.size*len(send))
	}
	if err := Gather(o.local, send, all, 0); err != nil {
		return err
	}
	if o.leader() {
		if err := o.exchange(asBytes(all), asBytes(recv)); err != nil {
			return err
		}
	}
	return Bcast(o.local, recv, 0)
}

func interAlltoall[T Elem](c *Comm, send, recv []T) error {
	const name = "Alltoall"
	if err := noInPlaceInter(name, "send", send); err != nil {
		return err
	}
	n := c.remote.Size()
	if len(send)%n != 0 || len(recv)%n != 0 {
		return errorf(ClassCount, name, "len(send) %d and len(recv) %d must be multiples of the remote group's size %d", len(send), len(recv), n)
	}
	o, err := beginInter(c, interCall{op: name, kind: kAlltoall, elem: int64(esize[T]()), out: int64(len(send) / n), in: int64(len(recv) / n)})
	if err != nil {
		return err
	}
	// Block j goes straight to remote rank j and block j of recv comes from it: every
	// receive is posted before any send, so no order of the peers can deadlock.
	sm, rm := len(send)/n, len(recv)/n
	qs := make([]p2p.Request, 0, 2*n)
	var first error
	for j := 0; j < n && first == nil; j++ {
		q, err := eng.Irecv(p2p.Bytes(asBytes(recv[j*rm:(j+1)*rm])), c.worldRank(j), o.tag, c.ctx+1)
		if err != nil {
			first = err
			break
		}
		qs = append(qs, q)
	}
	for j := 0; j < n && first == nil; j++ {
		// Start with the peer after this rank, so that the peers' sends spread out.
		k := (c.rank + j) % n
		q, err := eng.Isend(p2p.Bytes(asBytes(send[k*sm:(k+1)*sm])), c.worldRank(k), o.tag, c.ctx+1, p2p.Standard)
		if err != nil {
			first = err
			break
		}
		qs = append(qs, q)
	}
	for i := range qs {
		if first != nil {
			eng.Cancel(&qs[i])
		}
		if _, err := eng.Wait(&qs[i]); err != nil && first == nil {
			first = err
		}
	}
	return mapErr(name, first)
}
