// Package coll holds mpigo's collective algorithms: barrier, broadcast, reductions,
// gathers, scatters, all-to-all and scans, each in the classic forms (binomial trees,
// recursive doubling and halving, rings, Bruck, pairwise exchange) and chosen by
// message size and communicator size.
//
// An algorithm does not talk to the network itself: it appends steps (send, receive,
// fence, local reduce, local copy) to a schedule, and a Sched runs them over a Conn, the
// point-to-point operations of one communicator's collective context. The same
// schedule serves the blocking call (Run waits at each fence) and the nonblocking one
// (Progress tests the fence's requests and returns when they are not done yet), so
// Ibcast and Bcast share one implementation and the algorithms can be tested over an
// in-memory Conn.
//
// Buffers are bytes; a reduction is a Kernel over bytes that the mpi package builds
// from a typed one, and esize (the element size) keeps block splits on element
// boundaries.
package coll

import (
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Req is a Conn's handle on one of its point-to-point requests: a pointer the Conn
// keeps alive and a number, which mean what the Conn makes them mean. The zero Req is
// the null request.
type Req struct {
	Ref unsafe.Pointer
	N   uint64
}

// Conn is point-to-point messaging among the ranks of one communicator, on a context
// no user message can match. Ranks are ranks of the communicator.
type Conn interface {
	Rank() int
	Size() int
	Isend(b []byte, dest, tag int) (Req, error)
	Irecv(b []byte, src, tag int) (Req, error)
	// Send sends a short message and returns once b may be reused; Run uses it for
	// messages of at most SmallSend bytes, which go eagerly and need no request.
	Send(b []byte, dest, tag int) error
	// Recv receives a short message (at most SmallSend bytes) and returns once it is in b.
	Recv(b []byte, src, tag int) error
	// EagerMax is the largest message (at most SmallSend) a blocking Send of which
	// returns before its receiver comes; -1 when none does (a rendezvous protocol forced
	// for every size), where a round whose ranks all send before they receive would
	// deadlock if sent blocking.
	EagerMax() int
	// Wait waits for q to complete and makes it null.
	Wait(q *Req) error
	// Test reports whether q has completed; a completed q becomes null, and testing a
	// null request reports true.
	Test(q *Req) (bool, error)
}

// FitConn is a Conn that can also receive a message whose length the receiver does
// not know for sure: into fit when the message fits there (in place, as a plain
// receive would), else into new memory of the message's length. Either way the
// receiver gets every byte and the message's length (the bytes' slice, in *dst once
// the request completes). Src may be AnySource. A Bcast's receivers learn the root's
// length this way and a Gather's root each block's (Learn, bcast.go, gather.go); over
// a Conn without it the schedules trust every rank's length.
type FitConn interface {
	IrecvFit(fit []byte, dst *[]byte, src, tag int) (Req, error)
	RecvFit(fit []byte, src, tag int) ([]byte, error)
}

// AnySource as a FitConn's source takes the message from any member.
const AnySource = -1

// ErrTruncate and ErrShort are a schedule's errors where a message is longer or
// shorter than the buffer the receiving rank gave for it: an erroneous program (MPI
// requires the type signatures of the two sides to match), found where the schedules
// learn lengths (FitConn).
var (
	ErrTruncate = errors.New("message truncated")
	ErrShort    = errors.New("message shorter than its block")
)

// Kernel is a reduction over two equal-length byte buffers holding whole elements: it
// sets inout to in ⊕ inout, element by element, in that order (MPI's convention, which
// matters for a non-commutative ⊕: in holds the contribution of lower ranks).
type Kernel func(inout, in []byte)

// Op is a reduction: its kernel and whether ⊕ commutes. Algorithms that reorder
// operands are used only for commutative ops; the others apply ⊕ in rank order.
type Op struct {
	Fn      Kernel
	Commute bool
}

type stepKind uint8

const (
	stSend stepKind = iota
	stRecv
	stFence  // wait for every request posted since the last fence
	stReduce // Fn(a, b): a = b ⊕ a
	stCopy   // copy(a, b)
	// stRecvFit receives from peer into a, or wherever the message fits (FitConn),
	// its bytes going to s.got: a Bcast receiver's first message.
	stRecvFit
	// stBcastOn continues a Bcast at a receiver from the message in s.got (root peer,
	// the caller's buffer a), once the requests before it are done (a fence as well):
	// bcast.go's bcastOn.
	stBcastOn
	// stRecvExact receives from peer into a, or wherever the message fits, its bytes
	// going to the step's b; stCheck (peer: the index of an stRecvExact step) then
	// reports a message whose length is not a's. The steps must not grow between the
	// two (b's address is the step's).
	stRecvExact
	stCheck
)

type step struct {
	kind stepKind
	peer int
	a, b []byte
}

// Sched is one collective operation as a list of steps, and its execution state.
// Steps between two fences are posted together; local steps run when reached, so a
// builder puts a fence before any local step that reads a received buffer or writes a
// buffer being sent.
type Sched struct {
	c     Conn
	tag   int
	rank  int
	size  int
	op    Op
	esize int

	steps   []step
	pc      int
	reqs    []Req
	scratch []*[]byte
	err     error
	done    bool
	// broken: a receive found a message of another length (ErrMismatch); the
	// schedule goes on to its end sending empty messages, so that its peers find it
	// too instead of waiting, and reports err.
	broken bool
	// exact: every receive of the collective fills its buffer (the reductions); a
	// short one is a mismatch. Elsewhere a short receive is no error and a truncated
	// one ends the schedule at once (Bcast's longer and shorter buffers keep their
	// documented results).
	exact bool
	// strict: as exact, but a mismatch leaves the schedule unbroken (its sends and
	// local steps as built): for exchanges in which no rank passes on what it
	// received (Gatherv's root, the scatters, the all-to-alls), where only the
	// receiving rank's block is wrong and every other block still arrives (Strict).
	strict bool

	small int // messages of at most this go by blocking Send (Conn.EagerMax)

	fc    FitConn // c, when it can receive messages of unknown length (Learn)
	learn bool    // Learn: receivers may learn lengths from the messages
	// got: stRecvFit's message; once a Bcast's receiver has taken it, kept only where
	// its length is not the buffer's (Message)
	got []byte

	// arena serves small scratch buffers (a short allreduce's) without the pools;
	// words, so that kernels may view it as any element type.
	arena [32]uint64
	used  int
}

// ErrMismatch: a receive found a message longer or shorter than its buffer, which
// within one collective means the ranks passed different counts (erroneous). A Conn
// wraps it into such a receive's error. A schedule that meets it does not stop, which
// would leave its peers waiting for its later messages: it runs on to its end, its
// later sends empty (a receiver expecting data finds them short and goes the same
// way) and its local steps skipped, and then reports the error. So a mismatch among
// ranks that run the same algorithm reaches every rank its messages reach; ranks
// whose lengths chose different algorithms may still wait (docs/ARCHITECTURE.md).
var ErrMismatch = errors.New("a message's length differs from the receive buffer's (the ranks passed different counts)")

// Mismatch is err (a receive's truncation) as an ErrMismatch, its text unchanged.
func Mismatch(err error) error { return mismatch{err} }

type mismatch struct{ err error }

func (m mismatch) Error() string        { return m.err.Error() }
func (m mismatch) Unwrap() error        { return m.err }
func (m mismatch) Is(target error) bool { return target == ErrMismatch }

// SmallSend is the largest message a blocking schedule sends with Conn.Send.
const SmallSend = 256

var schedPool = sync.Pool{New: func() any { return new(Sched) }}

// New returns an empty schedule for one collective on c, whose messages carry tag.
// esize is the element size of the buffers (1 when they are plain bytes).
func New(c Conn, tag, esize int) *Sched {
	s := schedPool.Get().(*Sched)
	s.c, s.tag, s.esize = c, tag, max(esize, 1)
	s.small = min(c.EagerMax(), SmallSend)
	s.rank, s.size = c.Rank(), c.Size()
	return s
}

// Learn lets s's receivers learn, through fc (s's Conn), the lengths of the messages
// they get, where the algorithm allows (Bcast, Gather), so that a program whose
// ranks disagree on a length ends with an error on the ranks whose buffers disagree,
// not a hang or bytes silently left as they were. A Bcast receiver may then take its first message from
// any member, so s's tag must be its own (a collective's sequence number), not one
// that another schedule uses at the same time or just before.
func (s *Sched) Learn(fc FitConn) { s.fc, s.learn = fc, fc != nil }

// Strict makes every receive of s check that the message fills its buffer: a
// shorter message is ErrShort and a longer one a Mismatch (truncated), each naming
// the sender and the lengths (the Conn's errors), which s reports once it has run to
// its end unchanged, so that its peers stay in step. A builder whose ranks pass on
// what they received (a ring, a tree) sets exact instead, whose broken schedule's
// empty sends carry the mismatch on. Exact already checks.
func (s *Sched) Strict() { s.strict = true }

// Break makes s run broken from its start, as a schedule that met a mismatch does:
// its sends empty, its local steps skipped, and err its result. For a rank that knows
// before the call that its part is wrong (a hierarchical reduction's leader whose node
// found ranks that passed different counts): its peers find its messages short, as
// they would a broken peer's. Call it once s is built.
func (s *Sched) Break(err error) { s.broken, s.err = true, err }

// checks reports whether s's receives check their lengths (Learn, exact, Strict):
// then even an empty block is a message, so that a receiver whose count disagrees
// with its sender's gets one.
func (s *Sched) checks() bool { return s.learn || s.exact || s.strict }

// Free returns s and its scratch buffers to their pools. Call it once s is done (or
// has failed); s must not be used afterwards.
func (s *Sched) Free() {
	s.exact = false
	for _, p := range s.scratch {
		putBuf(p)
	}
	clear(s.steps)
	clear(s.scratch)
	clear(s.reqs)
	steps, reqs, scratch := s.steps[:0], s.reqs[:0], s.scratch[:0]
	*s = Sched{}
	s.steps, s.reqs, s.scratch = steps, reqs, scratch
	schedPool.Put(s)
}

func (s *Sched) send(b []byte, peer int) {
	s.steps = append(s.steps, step{kind: stSend, peer: peer, a: b})
}
func (s *Sched) recv(b []byte, peer int) {
	s.steps = append(s.steps, step{kind: stRecv, peer: peer, a: b})
}
func (s *Sched) fence() { s.steps = append(s.steps, step{kind: stFence}) }

// reduce appends inout = in ⊕ inout.
func (s *Sched) reduce(inout, in []byte) {
	if len(inout) > 0 {
		s.steps = append(s.steps, step{kind: stReduce, a: inout, b: in})
	}
}

// copy appends copy(dst, src), unless both are the same memory.
func (s *Sched) copy(dst, src []byte) {
	if len(dst) > 0 && !same(dst, src) {
		s.steps = append(s.steps, step{kind: stCopy, a: dst, b: src})
	}
}

// same reports whether a and b start at the same address.
func same(a, b []byte) bool {
	return len(a) > 0 && len(b) > 0 && &a[0] == &b[0]
}

// buf returns a scratch buffer of n bytes, released by Free.
func (s *Sched) buf(n int) []byte {
	if n == 0 {
		return nil
	}
	if a := 8 * len(s.arena); n <= a-s.used {
		b := unsafe.Slice((*byte)(unsafe.Pointer(&s.arena[0])), a)[s.used : s.used+n : s.used+n]
		s.used += (n + 7) &^ 7
		return b
	}
	p := getBuf(n)
	s.scratch = append(s.scratch, p)
	return (*p)[:n]
}

// Run executes s to completion, waiting at each fence.
func (s *Sched) Run() error {
	for {
		done, err := s.advance(true)
		if done {
			return err
		}
	}
}

// Progress advances s as far as it can without waiting and reports whether it is done
// (then with the operation's error).
func (s *Sched) Progress() (bool, error) { return s.advance(false) }

// Done reports whether s has completed.
func (s *Sched) Done() bool { return s.done }

func (s *Sched) advance(block bool) (bool, error) {
	if s.done {
		return true, s.err
	}
	for {
		for i := range s.reqs {
			q := &s.reqs[i]
			if block {
				if err := s.c.Wait(q); err != nil && !s.broke(err) {
					return s.fail(err)
				}
				continue
			}
			ok, err := s.c.Test(q)
			if err != nil {
				if !s.broke(err) {
					return s.fail(err)
				}
				ok = true
			}
			if !ok {
				// The completed ones are null: drop them, moving the rest down
				// rather than reslicing, which would shrink the capacity that the
				// pooled schedule keeps for its next use.
				n := copy(s.reqs, s.reqs[i:])
				clear(s.reqs[n:])
				s.reqs = s.reqs[:n]
				return false, nil
			}
		}
		s.reqs = s.reqs[:0]
		if s.pc == len(s.steps) {
			s.done = true
			return true, s.err // a mismatch that stCheck, bcastOn or a receive found
		}
	steps:
		for s.pc < len(s.steps) {
			st := &s.steps[s.pc]
			s.pc++
			switch st.kind {
			case stFence:
				break steps
			case stSend:
				a := st.a
				if s.broken {
					a = a[:0]
				}
				if block && len(a) <= s.small {
					// Receives of the round are posted already (builders put them
					// first), so a blocking eager send cannot deadlock.
					if err := s.c.Send(a, st.peer, s.tag); err != nil {
						return s.fail(err)
					}
					continue
				}
				q, err := s.c.Isend(a, st.peer, s.tag)
				if err != nil {
					return s.fail(err)
				}
				s.reqs = append(s.reqs, q)
			case stRecv:
				if block && len(s.reqs) == 0 && len(st.a) <= s.small {
					if end, ok := s.shortRound(); ok {
						// A round of one short receive and short sends (a barrier or
						// small allreduce step): send eagerly, then receive, with no
						// request to keep; the engine has one call fewer to make.
						for k := s.pc; k < end; k++ {
							a := s.steps[k].a
							if s.broken {
								a = a[:0]
							}
							if err := s.c.Send(a, s.steps[k].peer, s.tag); err != nil {
								return s.fail(err)
							}
						}
						if err := s.c.Recv(st.a, st.peer, s.tag); err != nil && !s.broke(err) {
							return s.fail(err)
						}
						s.pc = end
						continue
					}
				}
				q, err := s.c.Irecv(st.a, st.peer, s.tag)
				if err != nil {
					return s.fail(err)
				}
				s.reqs = append(s.reqs, q)
			case stReduce:
				if !s.broken {
					s.op.Fn(st.a, st.b)
				}
			case stCopy:
				if !s.broken {
					copy(st.a, st.b)
				}
			case stRecvFit:
				if block && len(s.reqs) == 0 && len(st.a) <= s.small {
					got, err := s.fc.RecvFit(st.a, st.peer, s.tag)
					if err != nil {
						return s.fail(err)
					}
					s.got = got
					continue
				}
				q, err := s.fc.IrecvFit(st.a, &s.got, st.peer, s.tag)
				if err != nil {
					return s.fail(err)
				}
				s.reqs = append(s.reqs, q)
			case stRecvExact:
				q, err := s.fc.IrecvFit(st.a, &st.b, st.peer, s.tag)
				if err != nil {
					return s.fail(err)
				}
				s.reqs = append(s.reqs, q)
			case stBcastOn:
				if len(s.reqs) > 0 {
					s.pc-- // after the receive
					break steps
				}
				s.bcastOn(st.a, st.peer)
			case stCheck:
				s.check(&s.steps[st.peer])
			}
		}
	}
}

// shortRound reports whether the steps from s.pc to the next fence (or the end) are
// all sends of at most SmallSend bytes, and where they end.
func (s *Sched) shortRound() (int, bool) {
	j := s.pc
	for ; j < len(s.steps) && s.steps[j].kind != stFence; j++ {
		if s.steps[j].kind != stSend || len(s.steps[j].a) > s.small {
			return j, false
		}
	}
	return j, true
}

// broke reports whether s survives a receive's error err: a mismatch (ErrMismatch,
// ErrShort) in a reduction, after which it keeps the first and goes on broken, or in
// a strict schedule, which keeps the first and goes on as built, or a short receive
// elsewhere, which is no error.
func (s *Sched) broke(err error) bool {
	short := errors.Is(err, ErrShort)
	check := s.exact || s.strict
	switch {
	case short && !check:
		return true
	case !check, !short && !errors.Is(err, ErrMismatch):
		return false
	}
	if s.err == nil {
		s.err = err
	}
	if s.exact {
		s.broken = true
	}
	return true
}

// fail ends s with err. Requests still pending are waited for, so that no buffer is
// touched by the engine after the caller regains it; they fail too when a peer is gone.
func (s *Sched) fail(err error) (bool, error) {
	for i := range s.reqs {
		s.c.Wait(&s.reqs[i])
	}
	s.reqs = s.reqs[:0]
	s.err, s.done = err, true
	return true, err
}

// String describes the schedule, for tests and debugging.
func (s *Sched) String() string {
	out := fmt.Sprintf("sched rank %d/%d tag %d:", s.rank, s.size, s.tag)
	for _, st := range s.steps {
		switch st.kind {
		case stSend:
			out += fmt.Sprintf(" send(%d→%d)", len(st.a), st.peer)
		case stRecv:
			out += fmt.Sprintf(" recv(%d←%d)", len(st.a), st.peer)
		case stFence:
			out += " |"
		case stReduce:
			out += fmt.Sprintf(" reduce(%d)", len(st.a))
		case stCopy:
			out += fmt.Sprintf(" copy(%d)", len(st.a))
		case stRecvFit, stRecvExact:
			out += fmt.Sprintf(" recv(≤%d←%d)", len(st.a), st.peer)
		case stBcastOn:
			out += " bcast-on"
		case stCheck:
			out += " check"
		}
	}
	return out
}

// Scratch buffers come from pools by power-of-two size class, so that a collective
// called in a loop allocates nothing. Each class keeps one buffer in a slot beside
// its pool: the common caller takes one buffer and gives it back within the call,
// and swapping a pointer costs a fraction of the pool's pinning.
const maxClass = 28 // 256 MiB; larger buffers are allocated each time

var (
	bufPools [maxClass + 1]sync.Pool
	bufSlots [maxClass + 1]atomic.Pointer[[]byte]
)

// class is the size class of n bytes: buffers of 1<<class bytes, 64 at least.
func class(n int) int {
	if n <= 64 {
		return 6
	}
	return bits.Len(uint(n - 1))
}

func getBuf(n int) *[]byte {
	c := class(n)
	if c > maxClass {
		b := make([]byte, n)
		return &b
	}
	if p := bufSlots[c].Swap(nil); p != nil {
		return p
	}
	if p, _ := bufPools[c].Get().(*[]byte); p != nil {
		return p
	}
	b := make([]byte, 1<<c)
	return &b
}

func putBuf(p *[]byte) {
	c := class(cap(*p))
	if c <= maxClass && cap(*p) == 1<<c {
		*p = (*p)[:cap(*p)]
		if !bufSlots[c].CompareAndSwap(nil, p) {
			bufPools[c].Put(p)
		}
	}
}

// Pending returns the requests s waits for at its current fence. A caller may wait on
// them itself (the engine's Waitany over several schedules) and store them back
// completed (null); Progress then sees them done.
func (s *Sched) Pending() []Req { return s.reqs }

// GetScratch returns a pooled buffer of at least n bytes (its length is n), for
// callers that stage data around a schedule; PutScratch gives it back.
func GetScratch(n int) *[]byte {
	p := getBuf(n)
	*p = (*p)[:n]
	return p
}

// PutScratch returns a buffer from GetScratch to its pool.
func PutScratch(p *[]byte) { putBuf(p) }
