package collective

import (
	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/core"
)

// The collective entry points: each checks the communicator, then goes through the
// table its communicator chose when it was made. The blocking forms return when the
// call is done; the I forms return a Pending that completes in the background.

// The blocking Barrier, Bcast, Reduce and Allreduce take their buffers and reduction
// by pointer and choose their path by a switch on the one the communicator chose when
// it was made: direct calls, so that the buffers' descriptions are neither copied at
// every level nor moved to the heap (an indirect call would let them escape).

func Barrier(cc *core.Comm, op string) error {
	if err := cc.Check(op); err != nil {
		return err
	}
	c := of(cc)
	switch c.path {
	case PathNode:
		return nodeBarrier(c, op)
	case PathHier:
		return hierBarrierEntry(c, op)
	}
	return schedBarrier(c, op)
}

func Bcast(cc *core.Comm, op string, buf *Vec, root int) error {
	if err := cc.Check(op); err != nil {
		return err
	}
	c := of(cc)
	if buf.Type != nil {
		return core.BcastErr(op, root, c.bcastStaged(op, buf, root))
	}
	return core.BcastErr(op, root, c.bcast(op, buf, root))
}

// bcast is Bcast on a laid-out buffer.
func (c *comm) bcast(op string, buf *Vec, root int) error {
	switch c.path {
	case PathNode:
		return nodeBcast(c, op, buf, root)
	case PathHier:
		return hierBcastEntry(c, op, buf, root)
	}
	return schedBcast(c, op, buf, root)
}

func Reduce(cc *core.Comm, op string, send, recv *Vec, r *Red, root int) error {
	if err := cc.Check(op); err != nil {
		return err
	}
	c := of(cc)
	switch c.path {
	case PathNode:
		return nodeReduce(c, op, send, recv, r, root)
	case PathHier:
		return hierReduceEntry(c, op, send, recv, r, root)
	}
	return schedReduce(c, op, send, recv, r, root)
}

func Allreduce(cc *core.Comm, op string, send, recv *Vec, r *Red) error {
	if err := cc.Check(op); err != nil {
		return err
	}
	c := of(cc)
	switch c.path {
	case PathNode:
		return nodeAllreduceEntry(c, op, send, recv, r)
	case PathHier:
		return hierAllreduceEntry(c, op, send, recv, r)
	}
	return schedAllreduce(c, op, send, recv, r)
}

func Gather(cc *core.Comm, op string, send, recv Vec, root int, nb bool) (*core.Pending, error) {
	if err := cc.Check(op); err != nil {
		return nil, err
	}
	c := of(cc)
	if typed(role{v: &send}, role{v: &recv}) {
		return c.gatherTyped(op, send, recv, nil, nil, root, false, nb)
	}
	return c.gatherRun(op, send, recv, nil, nil, root, false, nb)
}

func Gatherv(cc *core.Comm, op string, send, recv Vec, counts, displs []int, root int, nb bool) (*core.Pending, error) {
	if err := cc.Check(op); err != nil {
		return nil, err
	}
	c := of(cc)
	if typed(role{v: &send}, role{v: &recv}) {
		return c.gatherTyped(op, send, recv, counts, displs, root, true, nb)
	}
	return c.gatherRun(op, send, recv, counts, displs, root, true, nb)
}

func Scatter(cc *core.Comm, op string, send, recv Vec, root int, nb bool) (*core.Pending, error) {
	if err := cc.Check(op); err != nil {
		return nil, err
	}
	c := of(cc)
	if typed(role{v: &send}, role{v: &recv}) {
		return c.scatterTyped(op, send, nil, nil, recv, root, false, nb)
	}
	return c.scatterRun(op, send, recv, root, nb)
}

func Scatterv(cc *core.Comm, op string, send Vec, counts, displs []int, recv Vec, root int, nb bool) (*core.Pending, error) {
	if err := cc.Check(op); err != nil {
		return nil, err
	}
	c := of(cc)
	if typed(role{v: &send}, role{v: &recv}) {
		return c.scatterTyped(op, send, counts, displs, recv, root, true, nb)
	}
	return c.scattervRun(op, send, counts, displs, recv, root, nb)
}

func Allgather(cc *core.Comm, op string, send, recv Vec, nb bool) (*core.Pending, error) {
	if err := cc.Check(op); err != nil {
		return nil, err
	}
	c := of(cc)
	if typed(role{v: &send}, role{v: &recv}) {
		return c.allgatherTyped(op, send, recv, nil, nil, false, nb)
	}
	return c.allgatherRun(op, send, recv, nil, nil, false, nb)
}

func Allgatherv(cc *core.Comm, op string, send, recv Vec, counts, displs []int, nb bool) (*core.Pending, error) {
	if err := cc.Check(op); err != nil {
		return nil, err
	}
	c := of(cc)
	if typed(role{v: &send}, role{v: &recv}) {
		return c.allgatherTyped(op, send, recv, counts, displs, true, nb)
	}
	return c.allgatherRun(op, send, recv, counts, displs, true, nb)
}

func Alltoall(cc *core.Comm, op string, send, recv Vec, nb bool) (*core.Pending, error) {
	if err := cc.Check(op); err != nil {
		return nil, err
	}
	c := of(cc)
	if typed(role{v: &send}, role{v: &recv}) {
		return c.alltoallTyped(op, send, nil, nil, recv, nil, nil, false, nb)
	}
	return c.alltoallRun(op, send, recv, nb)
}

func Alltoallv(cc *core.Comm, op string, send Vec, scounts, sdispls []int, recv Vec, rcounts, rdispls []int, nb bool) (*core.Pending, error) {
	if err := cc.Check(op); err != nil {
		return nil, err
	}
	c := of(cc)
	if typed(role{v: &send}, role{v: &recv}) {
		return c.alltoallTyped(op, send, scounts, sdispls, recv, rcounts, rdispls, true, nb)
	}
	return c.alltoallvRun(op, send, scounts, sdispls, recv, rcounts, rdispls, nb)
}

func ReduceScatterBlock(cc *core.Comm, op string, send, recv Vec, r Red, nb bool) (*core.Pending, error) {
	if err := cc.Check(op); err != nil {
		return nil, err
	}
	return of(cc).reduceScatterRun(op, send, recv, nil, r, true, nb)
}

func ReduceScatter(cc *core.Comm, op string, send, recv Vec, counts []int, r Red, nb bool) (*core.Pending, error) {
	if err := cc.Check(op); err != nil {
		return nil, err
	}
	return of(cc).reduceScatterRun(op, send, recv, counts, r, false, nb)
}

// Scan (excl: Exscan).
func Scan(cc *core.Comm, op string, send, recv Vec, r Red, excl, nb bool) (*core.Pending, error) {
	if err := cc.Check(op); err != nil {
		return nil, err
	}
	c := of(cc)
	s, err := c.sched.scan(c, op, send, recv, r, excl, nb)
	return finish(op, nb, s, err)
}

// The nonblocking forms of the collectives that have faster blocking paths: always
// schedules.

func Ibarrier(cc *core.Comm, op string) (*core.Pending, error) {
	if err := cc.Check(op); err != nil {
		return nil, err
	}
	c := of(cc)
	s, err := c.sched.barrier(c, op, true)
	return finish(op, true, s, err)
}

func Ibcast(cc *core.Comm, op string, buf Vec, root int) (*core.Pending, error) {
	if err := cc.Check(op); err != nil {
		return nil, err
	}
	c := of(cc)
	if typed(role{v: &buf}) {
		return c.bcastTyped(op, buf, root, true)
	}
	s, err := c.sched.bcast(c, op, buf, root, true)
	return finish(op, true, s, err)
}

func Ireduce(cc *core.Comm, op string, send, recv Vec, r Red, root int) (*core.Pending, error) {
	if err := cc.Check(op); err != nil {
		return nil, err
	}
	c := of(cc)
	s, err := c.sched.reduce(c, op, send, recv, r, root, true)
	return finish(op, true, s, err)
}

func Iallreduce(cc *core.Comm, op string, send, recv Vec, r Red) (*core.Pending, error) {
	if err := cc.Check(op); err != nil {
		return nil, err
	}
	c := of(cc)
	s, err := c.sched.allreduce(c, op, send, recv, r, true)
	return finish(op, true, s, err)
}

// finish runs a blocking call's schedule to completion or starts a nonblocking one
// (nb).
func finish(op string, nb bool, s *coll.Sched, err error) (*core.Pending, error) {
	if err != nil {
		return nil, err
	}
	if nb {
		return startSched(op, s), nil
	}
	err = s.Run()
	s.Free()
	return nil, core.MapErr(op, err)
}

// after is err, or where the call went well, late: an earlier call's error that this
// one found on the way (a Bcast's truncation, taken with the lines this rank owed).
func after(late, err error) error {
	if err != nil {
		return err
	}
	return late
}
