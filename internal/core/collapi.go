package core

import "github.com/mpigo/mpigo/internal/coll"

// The collective entry points: each checks the communicator, then goes through the
// table its communicator chose when it was made. The blocking forms return when the
// call is done; the I forms return a Pending that completes in the background.

// The blocking Barrier, Bcast, Reduce and Allreduce take their buffers and reduction
// by pointer and choose their path by a switch on the one the communicator chose when
// it was made: direct calls, so that the buffers' descriptions are neither copied at
// every level nor moved to the heap (an indirect call would let them escape).

func (c *Comm) Barrier(op string) error {
	if err := c.Check(op); err != nil {
		return err
	}
	switch c.coll.path {
	case PathNode:
		return nodeBarrier(c, op)
	case PathHier:
		return hierBarrierEntry(c, op)
	}
	return schedBarrier(c, op)
}

func (c *Comm) Bcast(op string, buf *Vec, root int) error {
	if err := c.Check(op); err != nil {
		return err
	}
	if buf.Type != nil {
		return c.bcastStaged(op, buf, root)
	}
	return c.bcast(op, buf, root)
}

// bcast is Bcast on a laid-out buffer.
func (c *Comm) bcast(op string, buf *Vec, root int) error {
	switch c.coll.path {
	case PathNode:
		return nodeBcast(c, op, buf, root)
	case PathHier:
		return hierBcastEntry(c, op, buf, root)
	}
	return schedBcast(c, op, buf, root)
}

func (c *Comm) Reduce(op string, send, recv *Vec, r *Red, root int) error {
	if err := c.Check(op); err != nil {
		return err
	}
	switch c.coll.path {
	case PathNode:
		return nodeReduce(c, op, send, recv, r, root)
	case PathHier:
		return hierReduceEntry(c, op, send, recv, r, root)
	}
	return schedReduce(c, op, send, recv, r, root)
}

func (c *Comm) Allreduce(op string, send, recv *Vec, r *Red) error {
	if err := c.Check(op); err != nil {
		return err
	}
	switch c.coll.path {
	case PathNode:
		return nodeAllreduceEntry(c, op, send, recv, r)
	case PathHier:
		return hierAllreduceEntry(c, op, send, recv, r)
	}
	return schedAllreduce(c, op, send, recv, r)
}

func (c *Comm) Gather(op string, send, recv Vec, root int, nb bool) (*Pending, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if typed(role{v: &send}, role{v: &recv}) {
		return c.gatherTyped(op, send, recv, nil, nil, root, false, nb)
	}
	s, err := c.coll.sched.gather(c, op, send, recv, root, nb)
	return finish(op, nb, s, err)
}

func (c *Comm) Gatherv(op string, send, recv Vec, counts, displs []int, root int, nb bool) (*Pending, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if typed(role{v: &send}, role{v: &recv}) {
		return c.gatherTyped(op, send, recv, counts, displs, root, true, nb)
	}
	s, err := c.coll.sched.gatherv(c, op, send, recv, counts, displs, root, nb)
	return finish(op, nb, s, err)
}

func (c *Comm) Scatter(op string, send, recv Vec, root int, nb bool) (*Pending, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if typed(role{v: &send}, role{v: &recv}) {
		return c.scatterTyped(op, send, nil, nil, recv, root, false, nb)
	}
	s, err := c.coll.sched.scatter(c, op, send, recv, root, nb)
	return finish(op, nb, s, err)
}

func (c *Comm) Scatterv(op string, send Vec, counts, displs []int, recv Vec, root int, nb bool) (*Pending, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if typed(role{v: &send}, role{v: &recv}) {
		return c.scatterTyped(op, send, counts, displs, recv, root, true, nb)
	}
	s, err := c.coll.sched.scatterv(c, op, send, counts, displs, recv, root, nb)
	return finish(op, nb, s, err)
}

func (c *Comm) Allgather(op string, send, recv Vec, nb bool) (*Pending, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if typed(role{v: &send}, role{v: &recv}) {
		return c.allgatherTyped(op, send, recv, nil, nil, false, nb)
	}
	s, err := c.coll.sched.allgather(c, op, send, recv, nb)
	return finish(op, nb, s, err)
}

func (c *Comm) Allgatherv(op string, send, recv Vec, counts, displs []int, nb bool) (*Pending, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if typed(role{v: &send}, role{v: &recv}) {
		return c.allgatherTyped(op, send, recv, counts, displs, true, nb)
	}
	s, err := c.coll.sched.allgatherv(c, op, send, recv, counts, displs, nb)
	return finish(op, nb, s, err)
}

func (c *Comm) Alltoall(op string, send, recv Vec, nb bool) (*Pending, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if typed(role{v: &send}, role{v: &recv}) {
		return c.alltoallTyped(op, send, nil, nil, recv, nil, nil, false, nb)
	}
	s, err := c.coll.sched.alltoall(c, op, send, recv, nb)
	return finish(op, nb, s, err)
}

func (c *Comm) Alltoallv(op string, send Vec, scounts, sdispls []int, recv Vec, rcounts, rdispls []int, nb bool) (*Pending, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if typed(role{v: &send}, role{v: &recv}) {
		return c.alltoallTyped(op, send, scounts, sdispls, recv, rcounts, rdispls, true, nb)
	}
	s, err := c.coll.sched.alltoallv(c, op, send, scounts, sdispls, recv, rcounts, rdispls, nb)
	return finish(op, nb, s, err)
}

func (c *Comm) ReduceScatterBlock(op string, send, recv Vec, r Red, nb bool) (*Pending, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	s, err := c.coll.sched.reduceScatterBlock(c, op, send, recv, r, nb)
	return finish(op, nb, s, err)
}

func (c *Comm) ReduceScatter(op string, send, recv Vec, counts []int, r Red, nb bool) (*Pending, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	s, err := c.coll.sched.reduceScatter(c, op, send, recv, counts, r, nb)
	return finish(op, nb, s, err)
}

// Scan (excl: Exscan).
func (c *Comm) Scan(op string, send, recv Vec, r Red, excl, nb bool) (*Pending, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	s, err := c.coll.sched.scan(c, op, send, recv, r, excl, nb)
	return finish(op, nb, s, err)
}

// The nonblocking forms of the collectives that have faster blocking paths: always
// schedules.

func (c *Comm) Ibarrier(op string) (*Pending, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	s, err := c.coll.sched.barrier(c, op, true)
	return finish(op, true, s, err)
}

func (c *Comm) Ibcast(op string, buf Vec, root int) (*Pending, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if typed(role{v: &buf}) {
		return c.bcastTyped(op, buf, root, true)
	}
	s, err := c.coll.sched.bcast(c, op, buf, root, true)
	return finish(op, true, s, err)
}

func (c *Comm) Ireduce(op string, send, recv Vec, r Red, root int) (*Pending, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	s, err := c.coll.sched.reduce(c, op, send, recv, r, root, true)
	return finish(op, true, s, err)
}

func (c *Comm) Iallreduce(op string, send, recv Vec, r Red) (*Pending, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	s, err := c.coll.sched.allreduce(c, op, send, recv, r, true)
	return finish(op, true, s, err)
}

// finish runs a blocking call's schedule to completion or starts a nonblocking one
// (nb).
func finish(op string, nb bool, s *coll.Sched, err error) (*Pending, error) {
	if err != nil {
		return nil, err
	}
	if nb {
		return startSched(op, s), nil
	}
	err = s.Run()
	s.Free()
	return nil, MapErr(op, err)
}
