package collective

import (
	"context"
	"errors"
	"sync"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/p2p"
)

// persistOp is a persistent collective (MPI_Bcast_init and its kin, MPI 4.1 §6.13):
// inactive until Start, which runs the operation's nonblocking form; once a completion
// call has reported that run, it is inactive again, to be started anew. Every member
// inits its persistent collectives in the same order, but may start them in any
// order (MPI 4.1 §7.4.4: only mpi_assert_strict_persistent_collective_ordering
// promises the same order), so a run's tags are not the communicator's next ones:
// the init reserves persistRuns*persistDraws numbers of the communicator's sequence,
// and run n draws from the (n mod persistRuns)th persistDraws of them.
type persistOp struct {
	mu     sync.Mutex
	c      *core.Comm
	base   int // the first of the reserved numbers
	runs   int // runs started
	start1 func() (*core.Pending, error)
	cur    core.Ref // the run under way; the zero core.Ref while inactive
	freed  bool
}

// A run of a persistent collective draws at most persistDraws sequence numbers (one
// for a schedule's tag); the numbers of run n and run n+persistRuns are the same,
// which needs a member persistRuns runs behind another for a message to meet the
// wrong run.
const (
	persistDraws = 4
	persistRuns  = 64
)

// ReservePersistent takes the sequence numbers of a persistent collective on c:
// its init calls it, on every member in the same place among c's collectives, before
// anything that may fail, so that every member's sequence stays the same.
func ReservePersistent(c *core.Comm) int { return c.ReserveSeq(persistDraws * persistRuns) }

// errDry ends a build under CheckArgs once the builder's checks have passed.
var errDry = errors.New("arguments checked")

// IsDry reports whether err is a build's stop under CheckArgs, which is not an error
// of the program's: the error seam lets it through untouched.
func IsDry(err error) bool { return err == errDry }

// CheckArgs runs start, which starts a nonblocking collective on c, only as far as its
// argument checks: every schedule builder stops at Begin, before it takes the
// collective's sequence number or talks to a peer, so nothing is sent and the
// communicator's collective order is untouched. A persistent collective's Init calls
// it so that a bad argument is reported there, as MPI 4.1 §6.13 has the init call take
// and check every argument, not at each Start. As for any collective, the program
// must not run another collective on c from another goroutine meanwhile.
//
// The dry run is the calling goroutine's alone: a collective that another goroutine
// builds on c meanwhile (an Idup's) runs as
// usual.
func CheckArgs(cc *core.Comm, start func() error) error {
	c := of(cc)
	c.dryG.Store(core.GoroutineID())
	c.dry.Store(true)
	err := start()
	c.dry.Store(false)
	if err == errDry {
		return nil
	}
	return err
}

// DryStop is errDry in the goroutine that runs CheckArgs on c, nil otherwise: a
// collective built without a schedule (the neighbourhood exchange) calls it once its
// checks have passed, before it sends anything.
func (c *comm) DryStop() error {
	if c.dry.Load() {
		return c.dryStop()
	}
	return nil
}

func (c *comm) dryStop() error {
	if c.dryG.Load() == core.GoroutineID() {
		return errDry
	}
	return nil
}

// The optional methods core's Pending looks for at run time (core/nbreq.go), checked
// by the compiler: one that fell out would silently change what a call does.
var _ interface {
	core.PendingOp
	Status() (p2p.Status, error)
	Release() error
	Free() error
	Start(op string) error
	IsActive() bool
	WaitContext(ctx context.Context) error
} = (*persistOp)(nil)

// Persistent makes the persistent request of an operation on c whose every run start
// begins, with the sequence numbers from base (ReservePersistent): the request is
// inactive until Start.
func Persistent(c *core.Comm, base int, start func() (*core.Pending, error)) *core.Pending {
	p := new(core.Pending)
	p.Bind(&persistOp{c: c, base: base, start1: start})
	return p
}

func (o *persistOp) IsActive() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.cur != core.Ref{}
}

func (o *persistOp) Start(op string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.freed {
		return core.Errorf(core.ClassRequest, op, "the persistent request has been freed")
	}
	if o.cur != (core.Ref{}) {
		return core.Errorf(core.ClassRequest, op, "the persistent request is active: complete it (Wait, Test) before starting it again")
	}
	first := o.base + o.runs%persistRuns*persistDraws
	o.runs++
	cur, err, n := o.c.Pinned(first, o.start1)
	if n > persistDraws && err == nil {
		err = core.Errorf(core.ClassIntern, op, "a run of the persistent collective took %d sequence numbers, more than the %d it has", n, persistDraws)
	}
	if err != nil {
		return err
	}
	if cur == nil {
		cur = &core.Pending{} // completed at once
	}
	o.cur = cur.Ref()
	return nil
}

func (o *persistOp) run() core.Ref {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.cur
}

// An inactive persistent request completes at once with the empty status.
func (o *persistOp) Test() (bool, error) { return o.run().Test() }
func (o *persistOp) Wait() error         { return o.run().Wait() }

// WaitContext waits for the current run as its own request would, allocating nothing.
func (o *persistOp) WaitContext(ctx context.Context) error { return o.run().WaitContext(ctx) }

func (o *persistOp) DoneCh() <-chan struct{} {
	return o.run().DoneCh()
}

func (o *persistOp) Status() (p2p.Status, error) {
	var st p2p.Status
	err := o.run().StatusInto(&st)
	return st, err
}

// release makes the request inactive once a completion call has reported its run.
func (o *persistOp) Release() error {
	o.mu.Lock()
	cur := o.cur
	o.cur = core.Ref{}
	o.mu.Unlock()
	return cur.Release()
}

// free: a run under way completes unobserved; no other run can start.
func (o *persistOp) Free() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.freed = true
	return o.cur.Free()
}
