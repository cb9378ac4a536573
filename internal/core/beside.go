package core

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/idle"
	"github.com/mpigo/mpigo/internal/p2p"
)

// The device's API for the packages beside core that build on its runtime: windows
// (internal/window) and collectives (internal/collective), which sit at the device's
// level and serve both faces. They use
// the runtime through what this file exports and never reach into a communicator's
// fields; core imports none of them (one way down, no cycles). The faces do not
// call these: they are the device's own plumbing.
//
// Invariants: every function here may be called once the runtime runs (Live), and
// the values returned are fixed until it stops, but Engine, nil before the first
// start.

// Engine is the process's point-to-point engine, which carries every message of
// every communicator: a package beside core sends and receives on the contexts of
// the communicators it owns (Ctx), with world ranks (Comm.WorldRank).
func Engine() *p2p.Engine { return eng }

// Ctx is c's point-to-point context; Ctx()+1 is its internal context, whose tags
// tags.go divides, and which only core's collectives and creation use.
func (c *Comm) Ctx() uint32 { return c.ctx }

// Local is c's local group as a coll.Conn on its internal context: member i is rank
// i of c. Schedules built over it (coll.New) and its Run take a tag of c's
// collective sequence (SeqTag) or of tags.go.
func (c *Comm) Local() *Conn { return &c.lconn }

// Inter is an intercommunicator's both groups as a coll.Conn on its internal
// context: member i < Size() is rank i of the local group, member Size()+j rank j of
// the remote group (internal/coll's convention); the zero Conn for an
// intracommunicator.
func (c *Comm) Inter() *Conn { return &c.iconn }

// CollState is the collective package's state of c (internal/collective), nil until
// it has made c; SetCollState sets it, once, when it makes c and before c is handed
// to anyone else. core keeps it for that package and never reads it.
func (c *Comm) CollState() unsafe.Pointer { return c.coll }

// SetCollState sets c's CollState.
func (c *Comm) SetCollState(p unsafe.Pointer) { c.coll = p }

// SeqTag takes c's next collective sequence number as a tag of its internal context:
// every member calls it in the same order, once per collective, so that all agree.
func (c *Comm) SeqTag() int { return c.NextSeq() & tagSeqMask }

// NextSeq takes c's next collective sequence number, unmasked: an
// intercommunicator's collectives number their tags from it in a range of their own
// (TagInterColl). While Pinned runs, the numbers come from the pin.
func (c *Comm) NextSeq() int {
	if c.pinG.Load() == pinAny {
		s := c.pinNext
		c.pinNext++
		return s
	}
	return int(c.seq.Add(1) - 1)
}

// pinAny in pinG pins every draw (Pinned, serialised calls).
const pinAny = -1

// ReserveSeq takes n consecutive numbers of c's collective sequence at once and
// returns the first: a persistent collective's init takes its runs' numbers so, in
// the order every member inits, and each run draws from them (Pinned), since MPI lets
// the members start persistent collectives in different orders (MPI 4.1 section
// 7.4.4, mpi_assert_strict_persistent_collective_ordering).
func (c *Comm) ReserveSeq(n int) int { return int(c.seq.Add(uint32(n)) - uint32(n)) }

// Pinned runs start with the sequence numbers the calling goroutine draws from c
// (SeqTag, NextSeq) taken in turn from first on, instead of from c's sequence, and
// returns what start returns and how many numbers it drew. Other goroutines draw from
// c's sequence meanwhile, as usual.
func (c *Comm) Pinned(first int, start func() (*Pending, error)) (p *Pending, err error, drawn int) {
	c.pinMu.Lock()
	c.pinNext = first
	// Every draw on c meanwhile is the pin's: MPI leaves the order of collective calls
	// on one communicator from several threads to the program, and mpigo's own
	// goroutines draw none on it (Idup takes its number at the call). The goroutine's
	// number (GoroutineID) would cost a Start an allocation.
	g := int64(pinAny)
	c.pinG.Store(g)
	p, err = start()
	c.pinG.Store(0)
	drawn = c.pinNext - first
	c.pinMu.Unlock()
	return p, err, drawn
}

// NodeMemory is the capability a transport offers that reaches the node's peers
// through memory they share: which world ranks it reaches, and whether a peer's
// process still lives (an error says why not).
type NodeMemory interface {
	Reaches(rank int) bool
	SharedMemory() bool
	CheckPeer(rank int) error
}

// NodeTransport is the transport that shares memory with this node's peers, nil
// where there is none (one rank on the node, or shm not among the transports).
func NodeTransport() NodeMemory {
	for _, t := range transports {
		if sh, ok := t.(NodeMemory); ok && sh.SharedMemory() {
			return sh
		}
	}
	return nil
}

// NodeOf is the node (0..) that world rank w runs on, from the process manager's
// node map; a process of another job (w beyond the world) is on a node of its own,
// numbered below 0.
func NodeOf(w int) int {
	if w >= World.size {
		return -1 - w
	}
	return proc.NodeOf(w)
}

// LocalSize is the number of ranks on this node.
func LocalSize() int { return proc.LocalSize() }

// AwaitPolicy is the idle policy's settings, read once: how the device's waits
// spin, yield and sleep.
func AwaitPolicy() idle.Policy { return awaitPolicy() }
