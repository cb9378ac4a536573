package core

import "github.com/mpigo/mpigo/internal/p2p"

// Nonblocking I/O (MPI_File_iread, iwrite and their kin) runs each operation in a
// goroutine of its own, which does the system calls and, for a collective one, the
// messages that agree on it. The operation has a status (the count of bytes it moved)
// and an owner, the face's file, whose error handler serves the completion calls'
// errors (MPI 4.1 section 14.7).

// StartIO starts f in a goroutine as a nonblocking operation and returns its record;
// f fills the status the completion calls report. owner is the face's name for the
// object the operation belongs to (Pending.Owner). engine says that f calls the
// engine (a collective operation's agreement), which then takes its lock from now on;
// an operation of system calls only leaves the engine as it is.
func StartIO(owner any, engine bool, f func(st *p2p.Status) error) *Pending {
	o := &ioOp{ch: make(chan struct{}), owner: owner, st: p2p.Status{Source: AnySource, Tag: AnyTag}}
	o.box.Bind(o)
	if engine {
		eng.Concurrent()
	}
	go func() {
		o.err = f(&o.st)
		close(o.ch)
		NoteDone()
	}()
	return &o.box
}

// ioOp's optional methods, checked by the compiler (see nbreq.go).
var (
	_ = []statusOp{(*ioOp)(nil)}
	_ = []cancelOp{(*ioOp)(nil)}
)

// ioOp is a nonblocking I/O operation.
type ioOp struct {
	ch    chan struct{}
	err   error
	st    p2p.Status // f's, read once ch is closed
	owner any
	box   Pending
}

func (o *ioOp) Test() (bool, error) {
	select {
	case <-o.ch:
		return true, o.err
	default:
		return false, nil
	}
}

func (o *ioOp) Wait() error {
	<-o.ch
	return o.err
}

func (o *ioOp) DoneCh() <-chan struct{} { return o.ch }

func (o *ioOp) Status() (p2p.Status, error) {
	<-o.ch
	return o.st, nil
}

// cancel does nothing: the system calls under way cannot be taken back, so the
// operation completes as it would have, and its status says it was not cancelled
// (MPI lets a cancel of a request fail so).
func (o *ioOp) Cancel() error { return nil }

// Owner is the object p's operation belongs to, as its face named it (StartIO), nil
// for an operation that has none.
func (p *Pending) Owner() any {
	if p != nil {
		if o, ok := p.op.(*ioOp); ok {
			return o.owner
		}
	}
	return nil
}
