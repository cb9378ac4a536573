package mpi

import (
	"sync"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/p2p"
	"github.com/mpigo/mpigo/internal/yield"
)

// Nonblocking collectives. Each is the blocking one's schedule, driven step by step:
// the call posts the first round and returns. A progress goroutine, alive while any
// nonblocking collective is outstanding, waits on all their pending messages at once
// (the engine's Waitany, so it sleeps through the engine's idle policy rather than
// spinning) and advances each schedule as its messages complete. So a collective
// completes while its caller computes, or blocks in some other call, and ranks that
// wait on their requests in different orders cannot deadlock. Test and Wait advance
// the schedules too, so a request found complete is reported at once.
//
// On an intercommunicator the nonblocking forms run the schedules of coll_inter.go
// (local phases plus exchanges with the remote group) on the same machinery; Iscan and
// Iexscan, like Scan and Exscan, are not defined there.

// A nonblocking collective is a Request whose operation is a collOp: until Wait or
// Test reports it complete, its buffers belong to MPI.
type collOp struct {
	s    *coll.Sched
	name string
	done bool
	err  error
	out  bool          // its pending requests are lent to the progress goroutine
	ch   chan struct{} // closed once done
	box  pending       // its Request's handle on it
	// fin, if set, runs once the schedule has succeeded, before its scratch buffers
	// go back (Alltoallw unpacks what it received there into the user's layout).
	fin func() error
}

var nbColl struct {
	mu      sync.Mutex
	ops     []*collOp
	running bool // the progress goroutine is alive
}

func startColl(c *Comm, name string, s *coll.Sched, err error) (Request, error) {
	return startCollFin(c, name, s, nil, err)
}

// startCollFin is startColl with a function to run once the schedule has succeeded.
func startCollFin(c *Comm, name string, s *coll.Sched, fin func() error, err error) (Request, error) {
	if err != nil {
		return Request{}, err
	}
	x := &collOp{s: s, name: name, ch: make(chan struct{}), fin: fin}
	nbColl.mu.Lock()
	nbColl.ops = append(nbColl.ops, x)
	progressColl()
	if !x.done && !nbColl.running {
		nbColl.running = true
		eng.Concurrent() // the loop calls the engine beside the caller
		go progressLoop()
	}
	nbColl.mu.Unlock()
	x.box.op = x
	return Request{c: c, x: &x.box}, nil
}

// progressColl advances every schedule not lent out; finished ones leave the list.
// The caller holds nbColl.mu.
func progressColl() {
	ops := nbColl.ops[:0]
	for _, x := range nbColl.ops {
		if !x.out {
			if done, err := x.s.Progress(); done {
				if err == nil && x.fin != nil {
					err = x.fin()
				}
				x.done, x.err = true, err
				x.s.Free()
				x.s = nil
				close(x.ch)
				continue
			}
		}
		ops = append(ops, x)
	}
	clear(nbColl.ops[len(ops):])
	nbColl.ops = ops
}

type lent struct {
	x *collOp
	i int
}

// progressLoop is the progress goroutine: it borrows the pending requests of every
// outstanding schedule, waits until one completes, gives them back and advances the
// schedules, until none is left.
func progressLoop() {
	var (
		qs    []p2p.Request
		backs []lent
		mine  []*collOp
	)
	for {
		nbColl.mu.Lock()
		progressColl()
		if len(nbColl.ops) == 0 {
			nbColl.running = false
			nbColl.mu.Unlock()
			return
		}
		qs, backs, mine = qs[:0], backs[:0], mine[:0]
		for _, y := range nbColl.ops {
			y.out = true
			mine = append(mine, y)
			for i, q := range y.s.Pending() {
				qs = append(qs, q.Q)
				backs = append(backs, lent{y, i})
			}
		}
		nbColl.mu.Unlock()
		if len(qs) > 0 {
			eng.Waitany(qs)
		} else {
			yield.Gosched()
		}
		nbColl.mu.Lock()
		for k, b := range backs {
			b.x.s.Pending()[b.i].Q = qs[k]
		}
		for _, y := range mine {
			y.out = false
		}
		nbColl.mu.Unlock()
	}
}

// test and wait are a collective request's Test and Wait (nil: the null request).
func (x *collOp) test() (Status, bool, error) {
	empty := Status{Source: AnySource, Tag: AnyTag}
	if x == nil {
		return empty, true, nil
	}
	nbColl.mu.Lock()
	progressColl()
	done := x.done
	nbColl.mu.Unlock()
	if !done {
		return Status{}, false, nil
	}
	return empty, true, mapErr(x.name, x.err)
}

func (x *collOp) wait() (Status, error) {
	empty := Status{Source: AnySource, Tag: AnyTag}
	if x == nil {
		return empty, nil
	}
	nbColl.mu.Lock()
	progressColl()
	nbColl.mu.Unlock()
	<-x.ch
	return empty, mapErr(x.name, x.err)
}

// Ibarrier starts a barrier; the request completes once every rank has called it.
func (c *Comm) Ibarrier() (Request, error) {
	if c != nil && c.remote != nil {
		s, err := interBarrierSched("Ibarrier", c, true)
		return startColl(c, "Ibarrier", s, err)
	}
	s, err := begin(c, call{op: "Ibarrier", kind: kBarrier, root: noRoot, nonblocking: true}, 1)
	if err == nil {
		s.Barrier()
	}
	return startColl(c, "Ibarrier", s, err)
}

// Ibcast starts a Bcast.
func Ibcast[T Elem](c *Comm, buf []T, root int) (Request, error) {
	if c != nil && c.remote != nil {
		s, err := interBcastSched("Ibcast", c, buf, root, true)
		return startColl(c, "Ibcast", s, err)
	}
	s, err := bcast("Ibcast", c, buf, root, true)
	return startColl(c, "Ibcast", s, err)
}

// Ireduce starts a Reduce.
func Ireduce[T Elem](c *Comm, send, recv []T, op Op, root int) (Request, error) {
	if c != nil && c.remote != nil {
		s, err := interReduceSched("Ireduce", c, send, recv, op, root, true)
		return startColl(c, "Ireduce", s, err)
	}
	s, err := reduce("Ireduce", c, send, recv, op, root, true)
	return startColl(c, "Ireduce", s, err)
}

// Iallreduce starts an Allreduce.
func Iallreduce[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	if c != nil && c.remote != nil {
		s, err := interAllreduceSched("Iallreduce", c, send, recv, op, true)
		return startColl(c, "Iallreduce", s, err)
	}
	s, err := allreduce("Iallreduce", c, send, recv, op, true)
	return startColl(c, "Iallreduce", s, err)
}

// Igather starts a Gather.
func Igather[T Elem](c *Comm, send, recv []T, root int) (Request, error) {
	if c != nil && c.remote != nil {
		s, err := interGatherSched("Igather", c, send, recv, root, true)
		return startColl(c, "Igather", s, err)
	}
	s, err := gather("Igather", c, send, recv, root, true)
	return startColl(c, "Igather", s, err)
}

// Igatherv starts a Gatherv.
func Igatherv[T Elem](c *Comm, send, recv []T, counts, displs []int, root int) (Request, error) {
	if c != nil && c.remote != nil {
		s, err := interGathervSched("Igatherv", c, send, recv, counts, displs, root, true)
		return startColl(c, "Igatherv", s, err)
	}
	s, err := gatherv("Igatherv", c, send, recv, counts, displs, root, true)
	return startColl(c, "Igatherv", s, err)
}

// Iscatter starts a Scatter.
func Iscatter[T Elem](c *Comm, send, recv []T, root int) (Request, error) {
	if c != nil && c.remote != nil {
		s, err := interScatterSched("Iscatter", c, send, recv, root, true)
		return startColl(c, "Iscatter", s, err)
	}
	s, err := scatter("Iscatter", c, send, recv, root, true)
	return startColl(c, "Iscatter", s, err)
}

// Iscatterv starts a Scatterv.
func Iscatterv[T Elem](c *Comm, send []T, counts, displs []int, recv []T, root int) (Request, error) {
	if c != nil && c.remote != nil {
		s, err := interScattervSched("Iscatterv", c, send, counts, displs, recv, root, true)
		return startColl(c, "Iscatterv", s, err)
	}
	s, err := scatterv("Iscatterv", c, send, counts, displs, recv, root, true)
	return startColl(c, "Iscatterv", s, err)
}

// Iallgather starts an Allgather.
func Iallgather[T Elem](c *Comm, send, recv []T) (Request, error) {
	if c != nil && c.remote != nil {
		s, err := interAllgatherSched("Iallgather", c, send, recv, true)
		return startColl(c, "Iallgather", s, err)
	}
	s, err := allgather("Iallgather", c, send, recv, true)
	return startColl(c, "Iallgather", s, err)
}

// Iallgatherv starts an Allgatherv.
func Iallgatherv[T Elem](c *Comm, send, recv []T, counts, displs []int) (Request, error) {
	if c != nil && c.remote != nil {
		s, err := interAllgathervSched("Iallgatherv", c, send, recv, counts, displs, true)
		return startColl(c, "Iallgatherv", s, err)
	}
	s, err := allgatherv("Iallgatherv", c, send, recv, counts, displs, true)
	return startColl(c, "Iallgatherv", s, err)
}

// Ialltoall starts an Alltoall.
func Ialltoall[T Elem](c *Comm, send, recv []T) (Request, error) {
	if c != nil && c.remote != nil {
		s, err := interAlltoallSched("Ialltoall", c, send, recv, true)
		return startColl(c, "Ialltoall", s, err)
	}
	s, err := alltoall("Ialltoall", c, send, recv, true)
	return startColl(c, "Ialltoall", s, err)
}

// Ialltoallv starts an Alltoallv.
func Ialltoallv[T Elem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (Request, error) {
	if c != nil && c.remote != nil {
		s, err := interAlltoallvSched("Ialltoallv", c, send, scounts, sdispls, recv, rcounts, rdispls, true)
		return startColl(c, "Ialltoallv", s, err)
	}
	s, err := alltoallv("Ialltoallv", c, send, scounts, sdispls, recv, rcounts, rdispls, true)
	return startColl(c, "Ialltoallv", s, err)
}

// IreduceScatterBlock starts a ReduceScatterBlock.
func IreduceScatterBlock[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	if c != nil && c.remote != nil {
		s, err := interReduceScatterBlockSched("IreduceScatterBlock", c, send, recv, op, true)
		return startColl(c, "IreduceScatterBlock", s, err)
	}
	s, err := reduceScatterBlock("IreduceScatterBlock", c, send, recv, op, true)
	return startColl(c, "IreduceScatterBlock", s, err)
}

// IreduceScatter starts a ReduceScatter.
func IreduceScatter[T Elem](c *Comm, send, recv []T, counts []int, op Op) (Request, error) {
	if c != nil && c.remote != nil {
		s, err := interReduceScatterSched("IreduceScatter", c, send, recv, counts, op, true)
		return startColl(c, "IreduceScatter", s, err)
	}
	s, err := reduceScatter("IreduceScatter", c, send, recv, counts, op, true)
	return startColl(c, "IreduceScatter", s, err)
}

// Iscan starts a Scan.
func Iscan[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	s, err := scan("Iscan", c, send, recv, op, false, true)
	return startColl(c, "Iscan", s, err)
}

// Iexscan starts an Exscan.
func Iexscan[T Elem](c *Comm, send, recv []T, op Op) (Request, error) {
	s, err := scan("Iexscan", c, send, recv, op, true, true)
	return startColl(c, "Iexscan", s, err)
}
