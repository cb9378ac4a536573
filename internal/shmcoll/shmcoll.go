// Package shmcoll runs the collectives of ranks that share a node through one region of
// shared memory per communicator, with no messages: a rank writes data once into the
// region and the others copy it out, and flags in the region say when.
//
// # Region
//
// The region (made by the communicator's leader, mapped by every member; see
// internal/transport/shm's Region) holds, after a header:
//
//	one block per rank (256 bytes: no prefetcher pairs two ranks' lines): a line of
//	  flags, arrive, chosen, ack and done, each a uint64 only its rank writes, and
//	  the total length of its reduction of each bank and its defer flag, a line
//	  for AllreduceDirect's address, (rank 0) Choose's picks and the op of the last
//	  long Bcast it began as root (only long ops write it), and two inline lines,
//	  one per bank (sequence parity), that each hold a sequence number and a reduction
//	  contribution of at most 56 bytes
//	a ring of Chunks buffers of Chunk bytes, which broadcasts stream through, each
//	  after a line of its own that holds the buffer's chunk sequence number and, for
//	  a chunk of at most 56 bytes, the chunk itself (one cache line carries both)
//	two banks (by sequence parity) of one slot of Slot bytes per rank, where
//	  reductions put their contributions, and one result buffer of Slot bytes per bank
//	two lines per rank of its own state (Own)
//	a ring of GatherCells cells per rank, where a Gather's non-roots put their blocks,
//	  and the cells' extensions, for the longer ones (gather.go)
//
// # Sequence numbers
//
// Every rank counts the collectives it runs on the group (op sequence s) and the ring
// chunks broadcasts have used (chunk sequence c); ranks call collectives in the same
// order, so their counts agree and nothing is ever reset. The flags carry these
// numbers and only grow:
//
//   - arrive = s: the rank has entered op s, so it has finished every read of op s-1
//     and before, and its contribution to s (a reduction's slot) is in place.
//   - an inline line's sequence = s<<8 | tag: the rank's small contribution to op s
//     is in the line (the bank of s); tag is the reduction's total length, 0xff when
//     longer than a line holds.
//   - a ring buffer's sequence = c: the broadcast's root has written chunk c into
//     ring buffer c mod Chunks.
//   - ack = c: the rank is done with chunk c (copied it out, or wrote it as root).
//   - done = s: the rank has combined its section of a split Allreduce's op s (or,
//     rank 0 only, left Barrier op s).
//   - chosen = k: the rank has taken the pick of its k-th Choose call.
//
// Barrier: arrive = s, then wait until every rank's arrive ≥ s. Bcast: the root copies
// each chunk of the message into the ring once and raises the buffer's sequence; the
// others copy it out and raise their ack, so root and readers copy at the same time; the root
// reuses a ring buffer only once every other rank has acknowledged the chunk that was
// in it (ack ≥ c-Chunks). A long Bcast with a single-copy read (Options.Read) takes one
// chunk whose line holds the root's buffer's address and length (flagged in its top
// bit) instead: each reader reads the root's buffer itself and raises its ack, and the
// root returns once every ack is at that chunk. Reduce and Allreduce: each rank copies
// its contribution into its slot of bank s mod 2 and raises arrive; then the root (Reduce) or every rank
// (Allreduce) combines the slots in rank order (so non-commutative ops are right, and
// every rank of an Allreduce gets the same bits). A Reduce's root takes its own
// contribution from its buffer instead of its slot. A message longer than a slot goes
// in pieces, one op each. Bank s mod 2 was last read in op s-2, so a rank writes its
// slot only once every arrive ≥ s-1. Before arrive = s a reducing rank writes the
// reduction's total length beside it (bank s mod 2), and whoever combines compares
// each peer's with its own: ranks whose lengths differ (erroneous) end with a
// CountError after the same ops, instead of waiting for a peer that took another way
// (inline line, slot, split, pieces, or Elsewhere's schedules) or combining stale
// bytes. AllreduceSplit, for long messages, has each rank
// combine only its 1/n section of the slots into the bank's result buffer, raise done,
// and copy the whole result out once every done ≥ s.
//
// # Waiting
//
// A waiter follows the idle policy of internal/idle (Options: p2p_spin polls, only a
// few when ranks outnumber cores, then p2p_yield polls each followed by a yield, and
// its adaptation to a shared core), and sleeps on a futex on the flag's word for at
// most a millisecond; a rank that raises a flag wakes the word's sleepers when the
// region's sleeper count is not zero.
// Between polls it calls Options.Progress now and then (every 256 polls of the spin,
// every 8th yield, before each sleep), so that the rank's pending point-to-point
// messages move on (a peer may need them before it can come).
// About every millisecond of waiting the waiter calls Options.Check on the rank it
// waits for, so that a dead peer ends the wait with an error instead of a hang.
//
// # Concurrency
//
// One Group is one rank's view; its methods must not run concurrently with each other
// (MPI forbids concurrent collectives on one communicator). Distinct Groups over the
// same memory (the ranks) run concurrently, in one process or many.
package shmcoll

import (
	"errors"
	"fmt"
	"github.com/mpigo/mpigo/internal/ntcopy"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/mpigo/mpigo/internal/idle"
	"github.com/mpigo/mpigo/internal/yield"
)

const (
	magic   = 0x6d70_6967_6f63_6f6c // "mpigocol"
	version = 11

	lineSize   = 64
	rankStride = 4 * lineSize
	hdrSize    = 2 * lineSize

	offMagic    = 0
	offVersion  = 8
	offRanks    = 12
	offChunk    = 16
	offChunks   = 20
	offSlot     = 24
	offSleepers = lineSize // int32: waiters asleep on a futex

	fArrive = 0
	fChosen = 8 // Choose: this rank has taken the choice of call k (k)
	fAck    = 16
	fDone   = 24 // a split Allreduce: this rank has reduced its section of op s
	// fLen, two words (by bank, s mod 2): the total length of this rank's reduction
	// op s, written before arrive = s, so that a combiner, which reads arrive's line
	// anyway, compares it with its own for free.
	fLen = 32
	// fDefer: the last op s whose (empty) broadcast line this rank left owing, written
	// before its arrive = s (Bcast's empty readers).
	fDefer  = 48
	offAddr = lineSize // AllreduceDirect: where op s's piece of this rank's send buffer is
	// Choose, rank 0's block: chooseSlots words, call k's choice, k<<1 | way, in word
	// k mod chooseSlots.
	offChoice = lineSize + 8
	// offBegun: the last op s whose long Bcast (or announcement) this rank began as
	// root, written before it reads the readers' defer flags (deferrer). It shares the
	// block's second line, which only long ops write, with offAddr and offChoice, so
	// that an empty reader's read of it finds the line in its own cache.
	offBegun = lineSize + 56

	offInline = 2 * lineSize // a rank's two lines (one per bank) of small contributions
)

// Layout is the geometry of a region: for how many ranks, and its buffers' sizes.
type Layout struct {
	Ranks  int // members of the group
	Chunk  int // bytes per broadcast ring buffer, a multiple of 64
	Chunks int // buffers in the broadcast ring
	Slot   int // bytes per rank and bank for reductions, a multiple of 64
}

// Check reports a layout that Format would refuse, naming the field and its rule.
func (l Layout) Check() error {
	switch {
	case l.Ranks < 1 || l.Ranks > 1<<16:
		return fmt.Errorf("Layout.Ranks %d must be in [1, 65536]", l.Ranks)
	case l.Chunk < lineSize || l.Chunk%lineSize != 0 || l.Chunk > 1<<30:
		return fmt.Errorf("Layout.Chunk %d must be a multiple of 64 in [64, 1 GiB]", l.Chunk)
	case l.Chunks < 2 || l.Chunks > 1<<16:
		return fmt.Errorf("Layout.Chunks %d must be in [2, 65536]", l.Chunks)
	case l.Slot < lineSize || l.Slot%lineSize != 0 || l.Slot > 1<<30:
		return fmt.Errorf("Layout.Slot %d must be a multiple of 64 in [64, 1 GiB]", l.Slot)
	}
	return nil
}

// inlineMax is the longest small reduction contribution that goes in its sequence line.
const inlineMax = lineSize - 8

// bcastInlineMax is the longest broadcast chunk that goes in its ring buffer's sequence
// line, whose last word holds the broadcast's length (total).
const bcastInlineMax = lineSize - 16

// ErrTruncate: a broadcast's root sent more than a reader's buffer holds. The reader
// got the first len(buf) bytes, and the group stays in step. It is returned wrapped,
// with both lengths (truncated).
var ErrTruncate = errors.New("message truncated")

// truncated is ErrTruncate of a reader whose buffer holds have bytes of the root's n.
func truncated(n, have int) error {
	return fmt.Errorf("%w: the root's message has %d bytes, this rank's buffer %d "+
		"(MPI requires the same type signature on every rank)", ErrTruncate, n, have)
}

// ErrCount is what a CountError wraps.
var ErrCount = errors.New("reduction: the ranks' contributions differ in length")

// CountError: a reduction's ranks passed contributions of different lengths
// (erroneous: MPI requires equal counts). Every rank that combines returns one, after
// taking the same ops as the others, so the group stays in step.
type CountError struct {
	Rank int // a rank whose total length differs from this rank's
	Len  int // its length in bytes
	Want int // this rank's
}

func (e *CountError) Error() string {
	return fmt.Sprintf("reduction: rank %d contributes %d bytes, this rank %d", e.Rank, e.Len, e.Want)
}

func (e *CountError) Unwrap() error { return ErrCount }

// errNoChoice: rank 0 entered the op without publishing a Choose pick (its length
// took another way).
var errNoChoice = errors.New("rank 0 made no choice")

// ErrElsewhere: a broadcast's root sends its message by other means (Announce); the
// reader learnt its length (Announced) and must take the same way.
var ErrElsewhere = errors.New("broadcast sent by other means")

func (l Layout) ringOff() int    { return hdrSize + l.Ranks*rankStride }
func (l Layout) ringStride() int { return lineSize + l.Chunk }
func (l Layout) slotsOff() int   { return l.ringOff() + l.Chunks*l.ringStride() }

func (l Layout) resultOff() int { return l.slotsOff() + 2*l.Ranks*l.Slot }

func (l Layout) ownOff() int { return l.resultOff() + 2*l.Slot }

// cellsOff is where the gather cells begin: GatherCells of gatherCell bytes per rank;
// extOff where their extensions begin, cellExt bytes each.
func (l Layout) cellsOff() int { return l.ownOff() + l.Ranks*ownSize }
func (l Layout) extOff() int   { return l.cellsOff() + l.Ranks*GatherCells*gatherCell }

// Size is the region's size in bytes.
func (l Layout) Size() int { return l.extOff() + l.Ranks*GatherCells*cellExt }

// Hot is how many bytes from the region's start the short collectives touch: the
// header, the ranks' flag lines and the broadcast ring. The reductions' slots after
// them are touched only as far as a reduction's contributions reach (2 x Ranks x Slot
// bytes in all), so a rank need map in ahead of use only these (shm.CreatePart).
func (l Layout) Hot() int { return l.slotsOff() }

// Format writes l into the header of mem, a fresh zeroed region of at least l.Size()
// bytes, before any rank attaches.
func Format(mem []byte, l Layout) error {
	if err := l.Check(); err != nil {
		return err
	}
	if len(mem) < l.Size() {
		return fmt.Errorf("region of %d bytes is smaller than its layout's %d", len(mem), l.Size())
	}
	b := unsafe.Pointer(&mem[0])
	*(*uint32)(unsafe.Add(b, offVersion)) = version
	*(*uint32)(unsafe.Add(b, offRanks)) = uint32(l.Ranks)
	*(*uint32)(unsafe.Add(b, offChunk)) = uint32(l.Chunk)
	*(*uint32)(unsafe.Add(b, offChunks)) = uint32(l.Chunks)
	*(*uint32)(unsafe.Add(b, offSlot)) = uint32(l.Slot)
	atomic.StoreUint64((*uint64)(unsafe.Add(b, offMagic)), magic)
	return nil
}

// readLayout checks mem's header and returns its layout.
func readLayout(mem []byte) (Layout, error) {
	if len(mem) < hdrSize || uintptr(unsafe.Pointer(&mem[0]))%lineSize != 0 {
		return Layout{}, fmt.Errorf("region of %d bytes is too small or not aligned", len(mem))
	}
	b := unsafe.Pointer(&mem[0])
	if atomic.LoadUint64((*uint64)(unsafe.Add(b, offMagic))) != magic {
		return Layout{}, errors.New("region has no header (not formatted)")
	}
	if v := *(*uint32)(unsafe.Add(b, offVersion)); v != version {
		return Layout{}, fmt.Errorf("region version %d, want %d (mixed mpigo versions?)", v, version)
	}
	l := Layout{
		Ranks:  int(*(*uint32)(unsafe.Add(b, offRanks))),
		Chunk:  int(*(*uint32)(unsafe.Add(b, offChunk))),
		Chunks: int(*(*uint32)(unsafe.Add(b, offChunks))),
		Slot:   int(*(*uint32)(unsafe.Add(b, offSlot))),
	}
	if err := l.Check(); err != nil {
		return Layout{}, err
	}
	if l.Size() > len(mem) {
		return Layout{}, fmt.Errorf("region of %d bytes is smaller than its layout's %d", len(mem), l.Size())
	}
	return l, nil
}

// Options tune a Group's waiting; the zero value spins a little, yields, then sleeps.
type Options struct {
	// Spin is how many polls a waiter spins through before it yields; Yield how many
	// polls, each followed by a yield of the CPU, before it sleeps (0: idle.Default's;
	// negative: none).
	Spin, Yield int
	// Oversubscribed says ranks outnumber cores: spinning is cut to a few polls.
	Oversubscribed bool
	// Sleep bounds one futex sleep (0: 1 ms).
	Sleep time.Duration
	// Check, if not nil, is called with the group rank a wait is for about every
	// CheckEvery of waiting; an error it returns (a dead peer) ends the wait, and the
	// Group, with that error.
	Check      func(rank int) error
	CheckEvery time.Duration // 0: 1 ms
	// Progress, if not nil, is called now and then while a wait lasts (every few hundred
	// polls, on every yield and after every sleep): it moves the rank's pending
	// point-to-point messages, which a peer may need before it can come.
	Progress func()
	// Read, if not nil, copies len(dst) bytes at addr in the memory of group rank r's
	// process into dst (a single-copy read: cross-memory attach). With it, a Bcast of
	// at least Direct bytes (Direct > 0) is read by every other rank straight from the
	// root's buffer (see Bcast), and AllreduceDirect can run. Every rank must be given
	// a Read, or none.
	Read   func(r int, dst []byte, addr uint64) error
	Direct int
	// Timed: AllreduceChoose times its two ways only for messages of at most Timed
	// bytes (0: any); a longer one takes the reads without timing. Every rank must be
	// given the same.
	Timed int
	// NT: a Bcast's root writes ring chunks of at least NT bytes (NT > 0), and an
	// AllreduceDirect its sections of the result, with non-temporal stores, where the
	// platform has them (see stream).
	NT int
}

// NTOn is the Options.NT to give for a setting of nt bytes on this CPU: nt where its
// caches are split among core complexes (ntcopy.SplitCaches), so that an ordinary
// store would take each line back across them; 0 where every core shares the
// last-level cache and a reader finds the lines there (docs/ARCHITECTURE.md).
func NTOn(nt int) int {
	if !ntcopy.SplitCaches {
		return 0
	}
	return nt
}

// Kernel is a reduction over two equal-length byte buffers of whole elements: it sets
// inout to in ⊕ inout, in holding the lower ranks' contribution (coll.Kernel's rule).
type Kernel = func(inout, in []byte)

// Group is one rank's view of a region: the collectives it runs with the other ranks
// that attached to the same region.
type Group struct {
	mem  []byte
	base unsafe.Pointer
	l    Layout
	rank int
	size int

	o *Own // this rank's own lines of the region: its counts

	idle       idle.Adaptive
	check      func(int) error
	checkEvery time.Duration
	progress   func()
	oversub    bool
	read       func(int, []byte, uint64) error
	direct     int // Bcasts of at least this many bytes are read from the root (0: none)
	nt         int // ring chunks of at least this many bytes are written non-temporally (0: none)
	timed      int // AllreduceChoose above this many bytes reads without timing (0: none)

	scratch     []byte  // AllreduceDirect: a section of another rank's contribution
	calls       uint64  // choices made (Choose)
	chosenKnown uint64  // rank 0: every other rank's chosen was at least this when last looked at
	choice      Chooser // rank 0: what AllreduceChoose measured
	// announced: the root's length that the last Bcast returning ErrElsewhere learnt
	announced int
	// keep: the reader's Bcast is BcastKeep's, which keeps the message (kept) where
	// its length is not the buffer's
	keep bool
	kept []byte

	err error // sticky: the first failure; the group's state is unknown afterwards
}

// Own is a rank's own lines of the region, which no other rank reads: its counts of
// ops run (S) and ring chunks used (C), what it last saw of the others' acks
// (AckKnown), Short, 1 while the group has not failed, Bar, the op of its last
// Barrier (whose yield to rank 0 a Barrier right after a Barrier skips: Barrier), and
// Owed, the broadcast chunks it has not acknowledged yet (see Owing). They
// are in the region,
// not in the Group, so that code outside Go (the C library's short collectives,
// abi/libmpi/collshort.c, whose mpigo_own is this struct field for field) runs this
// rank's ops on the same counts by the same protocol, and Go's next op follows on.
// Flow is the caller's: two words it keeps beside them for the same reason (the
// collective package's traffic count of the group's data, a prof.Link).
type Own struct {
	S, C     uint64
	AckKnown uint64
	Short    uint64
	Flow     [2]uint64
	Bar      uint64
	Owed     uint64
	// The blocking gathers (gather.go): G counts them; GKnown is a root's taken word
	// last read, value<<16 | rank; Roots[g mod GatherCells] is the root of gather g.
	G      uint64
	GKnown uint64
	Roots  [GatherCells]uint16
	_      [2]uint64
}

// Own is this rank's own lines (Own).
func (g *Group) Own() *Own { return g.o }

// Geometry is where code outside Go finds the group's words in the region (Own says
// why it would): rank r's block is at Blocks + r*Stride, and in it its flags at Arrive,
// Ack, Done and Len (two words, by bank) and its two inline lines (one per bank) at
// Inline, the op of its last deferred broadcast at Defer and of its last long one begun
// as root at Begun; ring buffer i's line is at RingOff + i*RingStride, its chunk after its
// sequence word (BcastInline bytes at most) or, longer, from the next line on, the
// broadcast's length in the line's last word. Spin is how many polls a waiter spins
// before it yields, Yield how many polls it follows with a yield of the CPU before it
// sleeps, unless Handoffs (not 0) of those yields gave the core away first (the idle
// policy); Oversub: Barrier's rank 0 raises done and the others yield once if it has
// not (Barrier).
type Geometry struct {
	Blocks, Stride, Arrive, Ack, Done, Len, Inline, Defer, Begun int
	RingOff, RingStride, Chunks, Chunk                           int
	BcastInline, ReduceInline                                    int
	Spin, Yield, Handoffs                                        int
	Oversub                                                      bool
	// The gather cells: rank r's cell k at CellsOff + (r*Cells + k)*Cell, its
	// sequence word, its length word, then the block's first Cell-16 bytes, the rest
	// (up to GatherInline in all) at CellsOff + ranks*Cells*Cell + (r*Cells + k)*CellExt;
	// a root's taken word in its flags at Taken.
	CellsOff, Cells, Cell, CellExt, GatherInline, Taken int
	// The reductions' slots: rank r's of bank b at SlotsOff + (b*ranks + r)*Slot.
	SlotsOff, Slot int
}

// Geometry is the group's Geometry.
func (g *Group) Geometry() Geometry {
	p := g.idle.Policy()
	return Geometry{Blocks: hdrSize, Stride: rankStride, Arrive: fArrive, Ack: fAck, Done: fDone, Len: fLen,
		Inline: offInline, Defer: fDefer, Begun: offBegun,
		RingOff: g.l.ringOff(), RingStride: g.l.ringStride(), Chunks: g.l.Chunks, Chunk: g.l.Chunk,
		BcastInline: bcastInlineMax, ReduceInline: inlineMax, Spin: p.Spin, Yield: p.Yield, Handoffs: p.Handoffs,
		Oversub:  g.size > 2 && g.oversub,
		CellsOff: g.l.cellsOff(), Cells: GatherCells, Cell: gatherCell, CellExt: cellExt, GatherInline: GatherInline,
		Taken:    fTaken,
		SlotsOff: g.l.slotsOff(), Slot: g.l.Slot}
}

// Base is the region's address.
func (g *Group) Base() unsafe.Pointer { return g.base }

// NT is the smallest ring chunk the root writes with non-temporal stores (0: none).
func (g *Group) NT() int {
	if !ntcopy.Have {
		return 0
	}
	return g.nt
}

// fail ends the group with err: its state is unknown afterwards, to Go and to code
// outside it (Own.Short).
func (g *Group) fail(err error) error {
	g.err = err
	atomic.StoreUint64(&g.o.Short, 0)
	return err
}

// Attach makes rank's view of the formatted region mem. Every rank in [0, Ranks) must
// attach before collectives complete.
func Attach(mem []byte, rank int, o Options) (*Group, error) {
	l, err := readLayout(mem)
	if err != nil {
		return nil, err
	}
	if rank < 0 || rank >= l.Ranks {
		return nil, fmt.Errorf("Attach: rank %d out of range [0, %d)", rank, l.Ranks)
	}
	g := &Group{mem: mem, base: unsafe.Pointer(&mem[0]), l: l, rank: rank, size: l.Ranks,
		check: o.Check, checkEvery: o.CheckEvery, progress: o.Progress, oversub: o.Oversubscribed, nt: max(o.NT, 0),
		timed: max(o.Timed, 0)}
	if o.Read != nil {
		g.read, g.direct = o.Read, max(o.Direct, 0)
	}
	p := idle.Policy{Spin: o.Spin, Yield: o.Yield, Sleep: o.Sleep}.Or(idle.Default())
	if o.Oversubscribed {
		p = p.Oversubscribed()
	}
	if p.Sleep > time.Millisecond {
		p.Sleep = time.Millisecond
	}
	g.idle = idle.NewAdaptive(p, endWindow)
	if g.checkEvery <= 0 {
		g.checkEvery = time.Millisecond
	}
	// A rank re-attaching (never done by mpi) would restart its counts; a fresh
	// region starts every flag at zero.
	g.o = (*Own)(unsafe.Add(g.base, l.ownOff()+rank*ownSize))
	g.o.S = atomic.LoadUint64(g.flag(rank, fArrive))
	g.o.C = atomic.LoadUint64(g.flag(rank, fAck))
	g.o.AckKnown = g.o.C
	g.o.Owed = 0
	g.o.Short = 1
	g.calls = atomic.LoadUint64(g.flag(rank, fChosen))
	return g, nil
}

// Layout is the region's geometry.
func (g *Group) Layout() Layout { return g.l }

// NoRead turns the single-copy reads off (Options.Read): some rank of the group
// cannot read the others' memory. Every rank must call it, before any collective.
func (g *Group) NoRead() { g.read, g.direct = nil, 0 }

// CanRead reports whether the group has single-copy reads (Options.Read).
func (g *Group) CanRead() bool { return g.read != nil }

// Direct reports the size from which a Bcast is read from the root's buffer (0: never).
func (g *Group) Direct() int { return g.direct }

// Rank and Size are this rank's place in the group and the group's size.
func (g *Group) Rank() int { return g.rank }
func (g *Group) Size() int { return g.size }

// Err is the failure that ended the group, if any.
func (g *Group) Err() error { return g.err }

func (g *Group) flag(r, off int) *uint64 {
	return (*uint64)(unsafe.Add(g.base, hdrSize+r*rankStride+off))
}

func (g *Group) sleepers() *int32 { return (*int32)(unsafe.Add(g.base, offSleepers)) }

// ring returns the sequence word of ring buffer c mod Chunks and where chunk c of n
// bytes goes: inline after the word when it fits, else the buffer.
func (g *Group) ring(c uint64, n int) (*uint64, []byte) {
	off := g.l.ringOff() + int(c%uint64(g.l.Chunks))*g.l.ringStride()
	seq := (*uint64)(unsafe.Pointer(&g.mem[off]))
	if n <= bcastInlineMax {
		return seq, g.mem[off+8 : off+8+n : off+8+n]
	}
	off += lineSize
	return seq, g.mem[off : off+n : off+n]
}

// total is the word of ring buffer c's sequence line that holds the length of the
// whole broadcast the chunk belongs to: readers learn it with the first chunk, in the
// line they read anyway, and it stays until every rank has acknowledged the chunk.
func (g *Group) total(c uint64) *uint64 {
	off := g.l.ringOff() + int(c%uint64(g.l.Chunks))*g.l.ringStride() + lineSize - 8
	return (*uint64)(unsafe.Pointer(&g.mem[off]))
}

// result is bank's buffer for a split Allreduce's combined piece.
func (g *Group) result(bank uint64) []byte {
	off := g.l.resultOff() + int(bank&1)*g.l.Slot
	return g.mem[off : off+g.l.Slot : off+g.l.Slot]
}

func (g *Group) slot(bank uint64, r int) []byte {
	off := g.l.slotsOff() + (int(bank&1)*g.size+r)*g.l.Slot
	return g.mem[off : off+g.l.Slot : off+g.l.Slot]
}

// raise sets this rank's flag to v and wakes whoever sleeps on it.
func (g *Group) raise(off int, v uint64) { g.raiseAt(g.flag(g.rank, off), v) }

// raiseAt sets the word at p to v and wakes whoever sleeps on it. Only this rank
// writes the word meanwhile (its own flags and inline lines; a ring buffer's sequence
// while this rank is the root that owns the buffer).
func (g *Group) raiseAt(p *uint64, v uint64) {
	idle.Publish(p, v)
	if atomic.LoadInt32(g.sleepers()) != 0 {
		idle.FutexWake(word(p))
	}
}

// word is the futex word of a flag: its low half (little-endian machines: amd64, arm64).
func word(p *uint64) *uint32 { return (*uint32)(unsafe.Pointer(p)) }

// wait returns once rank r's flag at off is at least v.
func (g *Group) wait(r, off int, v uint64) error { return g.waitAt(r, g.flag(r, off), v) }

// waitAt returns once the word at p, which rank r writes, is at least v.
func (g *Group) waitAt(r int, p *uint64, v uint64) error {
	if atomic.LoadUint64(p) >= v {
		return nil
	}
	return g.waitSlow(r, p, v, nil, 0)
}

// waitEither returns once the word at p, which rank r writes, is at least v, or the
// word at q (also rank r's) is at least w; the caller tells which by reading p again.
// It serves the waits that a peer which took another way (erroneous counts) would
// never end: q is a flag that peer raises whichever way it took.
func (g *Group) waitEither(r int, p *uint64, v uint64, q *uint64, w uint64) error {
	if atomic.LoadUint64(p) >= v {
		return nil
	}
	return g.waitSlow(r, p, v, q, w)
}

// endWindow: a wait that ends at most this many polls past its spin, after a yield
// that gave the core away, ended right after that yield (idle.NewAdaptive); with
// waitSlow's counting, after at most two yields.
const endWindow = 2

// goEvery: a waiter's yield phase drives the engine's progress, lets the process's
// other goroutines run (runtime.Gosched) and reads the clock once every goEvery yields,
// not on each: a barrier of 4 ranks on 2 cores took 5.3 us with all three on every
// yield, 4.5 us (the C library's) without (docs/BENCHMARKS.md, Oversubscribed waits).
const goEvery = 8

// waitSlow first polls a few times on its own (quickPolls, or the spin in force if
// less), pausing after each, and only then takes waitFrom's way, whose waiter and clock
// cost a short wait more than its polls: most of a 2-rank group's waits end within
// them.
func (g *Group) waitSlow(r int, p *uint64, v uint64, q *uint64, qv uint64) error {
	n := min(quickPolls, g.idle.Spin())
	for i := 0; i < n; i++ {
		idle.Pause()
		if reached(p, v, q, qv) {
			return nil
		}
	}
	return g.waitFrom(n, r, p, v, q, qv)
}

// quickPolls bounds waitSlow's own polls.
const quickPolls = 64

// reached is the condition of every wait: the word at p is at least v, or the word at
// q, where there is one, is at least qv.
func reached(p *uint64, v uint64, q *uint64, qv uint64) bool {
	return atomic.LoadUint64(p) >= v || q != nil && atomic.LoadUint64(q) >= qv
}

// WaitLong is waitEither (q nil: waitAt) for a waiter outside Go that has already
// spun through spun polls (the C library's short collectives, which hand a wait that
// lasts to Go): it goes on from there, yields and sleeps as a Go waiter does, and
// checks that rank r lives. p and q are words of the region.
func (g *Group) WaitLong(spun int, r int, p *uint64, v uint64, q *uint64, qv uint64) error {
	if g.err != nil {
		return g.err
	}
	if reached(p, v, q, qv) {
		return nil
	}
	return g.waitFrom(spun, r, p, v, q, qv)
}

func (g *Group) waitFrom(spun int, r int, p *uint64, v uint64, q *uint64, qv uint64) error {
	var next time.Time // when to call check next; zero until the first clock reading
	yields := 0        // yields so far
	w := g.idle.Begin()
	if spun > 0 {
		w.Next(spun)
	}
	for {
		if reached(p, v, q, qv) {
			w.End()
			return nil
		}
		if w.Next(1) {
			// One PAUSE a poll, as the C library's waits (collshort.c) and p2p's spins:
			// the core neither runs ahead through the loop nor flushes its pipeline
			// when the other rank's write comes.
			idle.Pause()
			if w.Gosched() && g.progress != nil {
				g.progress()
			}
			continue
		}
		if w.Yielding() {
			// Only every goEvery-th yield drives the engine's progress, lets other
			// goroutines run and looks at the clock (for check), as the C library's
			// waiter (collshort.c), which does none of these before it hands a wait to
			// Go; the others go straight to the OS.
			if yields++; yields%goEvery != 0 {
				w.YieldOS()
				continue
			}
			if g.progress != nil {
				g.progress()
			}
			w.Yield()
		} else {
			if g.progress != nil {
				g.progress()
			}
			sl := g.sleepers()
			atomic.AddInt32(sl, 1)
			cur := atomic.LoadUint64(p) // after announcing: a raise from now on wakes us
			if cur < v {
				w.Sleep(word(p), uint32(cur))
			}
			atomic.AddInt32(sl, -1)
		}
		now := time.Now()
		if next.IsZero() {
			next = now.Add(g.checkEvery)
		} else if now.After(next) {
			next = now.Add(g.checkEvery)
			if g.check != nil && r != g.rank {
				if err := g.check(r); err != nil {
					if reached(p, v, q, qv) {
						return nil // it finished its part before it went
					}
					return g.fail(fmt.Errorf("waiting for rank %d: %w", r, err))
				}
			}
		}
	}
}

// waitAll waits until every rank's flag at off is at least v, except this rank's.
func (g *Group) waitAll(off int, v uint64) error {
	for j := 0; j < g.size; j++ {
		if j != g.rank {
			if err := g.wait(j, off, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// minOther is the least of the other ranks' flags at off.
func (g *Group) minOther(off int) uint64 {
	m := ^uint64(0)
	for j := 0; j < g.size; j++ {
		if j != g.rank {
			m = min(m, atomic.LoadUint64(g.flag(j, off)))
		}
	}
	return m
}

// Barrier returns once every rank of the group has called it: each rank raises its
// arrive flag and waits until it sees everyone's. When ranks outnumber cores (and
// there are more than two), rank 0 then raises its done flag, and the others, before
// they leave, yield the CPU once if rank 0 has not left yet: this lets rank 0, which
// often speaks first afterwards (a Bcast's root), go first, at the price of one yield
// (the figures, and why not a gather then release: docs/BENCHMARKS.md, Collectives).
// A Barrier that follows a Barrier skips that: what came after the last one was a
// Barrier, in which no rank speaks first, and the yield would cost the ranks on rank
// 0's core a switch each (docs/BENCHMARKS.md, Barrier after Barrier). Every rank runs
// the group's ops in the same order, so all skip it alike.
func (g *Group) Barrier() error {
	if g.err != nil {
		return g.err
	}
	if g.o.Owed != 0 {
		return after(g.Settle(), g.Barrier())
	}
	g.o.S++
	again := g.o.Bar != 0 && g.o.Bar == g.o.S-1
	g.o.Bar = g.o.S
	g.raise(fArrive, g.o.S)
	if err := g.waitAll(fArrive, g.o.S); err != nil {
		return err
	}
	if g.size > 2 && g.oversub && !again {
		if g.rank == 0 {
			g.raise(fDone, g.o.S)
		} else if atomic.LoadUint64(g.flag(0, fDone)) < g.o.S {
			yield.Core()
		}
	}
	return nil
}

// Bcast copies root's buf to every rank's buf; all pass bufs of the same length. With
// Options.Read, one of at least Options.Direct bytes is read by the others straight
// from the root's buf (the root waits until they have); otherwise it streams through
// the ring. A reader whose buf is empty does not wait for the root (Owing).
func (g *Group) Bcast(buf []byte, root int) error {
	if g.err != nil {
		return g.err
	}
	if root < 0 || root >= g.size {
		return fmt.Errorf("Bcast: root %d out of range [0, %d)", root, g.size)
	}
	if g.rank == root && g.oneChunk(len(buf)) {
		return g.bcastOne(buf)
	}
	if g.rank != root && len(buf) == 0 && !g.keep {
		return g.bcastEmpty(root)
	}
	if g.o.Owed != 0 {
		return after(g.Settle(), g.Bcast(buf, root))
	}
	g.o.S++
	g.raise(fArrive, g.o.S)
	if g.rank != root {
		return g.bcastRead(buf, root, false)
	}
	// A long message's root may wait for every reader: none may have left owing it.
	if j := g.deferrer(g.o.S); j >= 0 {
		return g.bcastStop(len(buf), j)
	}
	if g.direct > 0 && len(buf) >= g.direct {
		return g.bcastDirect(buf)
	}
	// The root's length decides how many chunks go: readers learn it from the first
	// chunk and follow it, whatever their own buffer's length.
	n := len(buf)
	for off := 0; off < n; off += g.l.Chunk {
		g.o.C++
		c := g.o.C
		part := buf[off:min(off+g.l.Chunk, n)]
		seq, b := g.ring(c, len(part))
		if err := g.reuse(c); err != nil {
			return err
		}
		g.stream(b, part)
		*g.total(c) = uint64(n)
		g.raiseAt(seq, c)
		g.raise(fAck, c) // for the reuse checks of later roots
	}
	return nil
}

// oneChunk reports whether a root's Bcast of n bytes takes one ring chunk: no more
// than a chunk, and not read from the root's buffer.
func (g *Group) oneChunk(n int) bool { return n <= g.l.Chunk && (g.direct <= 0 || n < g.direct) }

// bcastOne is the root's Bcast of one chunk (an empty broadcast too, so that every
// rank's chunk count stays in step). It waits for no reader, not even for one that
// owes lines (Owing), and one that owes lines itself writes its own before it has
// taken them: the chunk's place is known, since every chunk owed is one op's.
func (g *Group) bcastOne(buf []byte) error {
	late := g.takeOwed()
	if g.err != nil {
		return g.err
	}
	g.o.S++
	g.raise(fArrive, g.o.S)
	g.o.C++
	c := g.o.C
	seq, b := g.ring(c, len(buf))
	if err := g.reuse(c); err != nil {
		return err
	}
	g.stream(b, buf)
	*g.total(c) = uint64(len(buf))
	g.raiseAt(seq, c)
	if g.o.Owed == 0 {
		g.raise(fAck, c) // for the reuse checks of later roots
	} else {
		g.owe(g.rank) // acknowledged in order, after the lines before it
	}
	return late
}

// Owing: a reader whose Bcast buffer is empty (bcastEmpty) takes its op and chunk
// and, when the root's line is not there yet, leaves it owing: it writes the op to
// its defer flag, then raises arrive, and returns at once. It takes the lines it owes,
// in order, and acknowledges them (a ring chunk is acknowledged only with every chunk
// before it), as they come, in its later Bcasts, and waits for them before any other
// op of the group (Settle), or once it owes owedMax (Chunks-1 at most, so the
// root's reuse of the ring never waits for an owed line: a Recv after the Bcast
// cannot deadlock with a root that could not write). A root that owes lines writes its
// own chunk all the same, and owes its acknowledgement. So a correct program's empty
// Bcast waits for nobody.
//
// Every chunk owed is one op's: the ways that take more (a ring of several chunks, the
// reads from the root's buffer, the schedules) make the root wait for its readers in
// any case, and their root writes the op to its begun word (offBegun), then reads the
// readers' defer flags (deferrer), while a reader about to leave owing a line writes
// its defer flag, then reads its root's begun word and, if the root has begun the op
// so, waits for the line after all. Only long ops write the begun word's line, so the
// reader's read of it, in every empty Bcast, finds the line in its own cache (the
// root's arrive, which every op writes, would cost the trip of a line from the root's
// core). Where a reader whose buffer is empty (erroneous: the root sends bytes) may
// have left owing it, the root sends one line that stops the op (stopBit) instead. A
// reader that finds, when it takes an owed line, that the root sent bytes returns
// ErrTruncate (naming the Bcast's root and both counts) from the call in which it took
// it, after that call's own op; readers of a stopped op, and its root, return
// ErrStopped. Every rank takes the same chunks and ops, so the group stays in step.
//
// Own.Owed holds how many chunks are owed (low byte) and, 16 bits each, the root of
// each from the oldest (this rank: its own chunk, written); the last owed is chunk C.
const owedMaxAll = 3

func (g *Group) owedMax() int { return min(owedMaxAll, g.l.Chunks-1) }

func owedN(w uint64) int { return int(w & 0xff) }

// owe adds chunk C, whose root is r, to the chunks owed.
func (g *Group) owe(r int) {
	w := g.o.Owed
	m := owedN(w)
	g.o.Owed = (w&^0xff | uint64(r)<<(8+16*m)) + uint64(m) + 1
}

// takeOwed takes the owed lines that have arrived, and waits for the rest once the
// rank owes owedMax (Owing); late is what a line taken reported.
func (g *Group) takeOwed() (late error) {
	if g.o.Owed == 0 {
		return nil
	}
	if late = g.settleReady(); owedN(g.o.Owed) >= g.owedMax() {
		late = after(late, g.Settle())
	}
	return late
}

// bcastEmpty is a reader's Bcast whose buffer is empty (Owing).
func (g *Group) bcastEmpty(root int) error {
	late := g.takeOwed()
	if g.err != nil {
		return g.err
	}
	g.o.S++
	s := g.o.S
	g.o.C++
	c := g.o.C
	seq, _ := g.ring(c, 0)
	if g.o.Owed == 0 && atomic.LoadUint64(seq) >= c {
		g.raise(fArrive, s)
		return after(late, g.bcastRead(nil, root, true))
	}
	// The defer flag, then the root's begun word (deferrer: the root's writes and reads
	// in the other order, sequentially consistent, so one of the two sees the other's).
	atomic.StoreUint64(g.flag(g.rank, fDefer), s)
	g.raise(fArrive, s)
	if atomic.LoadUint64(g.flag(root, offBegun)) < s {
		g.owe(root)
		return late
	}
	return g.bcastBegun(root, late)
}

// bcastBegun is an empty reader's Bcast past its defer flag (bcastEmpty), which took
// op S and chunk C and found its root begun on a long op, whose line comes without
// waiting for this rank: it takes the lines it owes (chunks before C), in order,
// waiting for them, then the op's own line, whatever it says. late is what the call
// found before.
func (g *Group) bcastBegun(root int, late error) error {
	c := g.o.C
	if g.o.Owed != 0 {
		late = after(late, g.settleTo(c-1, true))
		if g.err != nil {
			return g.err
		}
	}
	seq, _ := g.ring(c, 0)
	if err := g.waitAt(root, seq, c); err != nil {
		return err
	}
	return after(late, g.bcastRead(nil, root, true))
}

// BcastBegun is bcastBegun for a reader that code outside Go began (the C library's
// short Bcast): it took the op and its chunk while it owed lines, wrote its defer flag
// and arrive, and found its root begun.
func (g *Group) BcastBegun(root int) error {
	if g.err != nil {
		return g.err
	}
	return g.bcastBegun(root, nil)
}

// settleReady takes the owed lines that are there, in order, and returns the error of
// one that held bytes (owedErr).
func (g *Group) settleReady() error { return g.settle(false) }

// Settle takes every owed line, waiting for those not there yet, and returns the
// error of one that held bytes (owedErr). Every op but a Bcast settles first, and so
// do the communicator's free and Finalize.
func (g *Group) Settle() error {
	if g.err != nil || g.o.Owed == 0 {
		return g.err
	}
	return g.settle(true)
}

func (g *Group) settle(wait bool) error { return g.settleTo(g.o.C, wait) }

// settleTo is settle where the last chunk owed is last.
func (g *Group) settleTo(last uint64, wait bool) error {
	w := g.o.Owed
	m := owedN(w)
	c := last - uint64(m) + 1
	var late error
	i := 0
	for ; i < m; i++ {
		r := int(uint16(w >> (8 + 16*i)))
		x := c + uint64(i)
		if r != g.rank {
			seq, _ := g.ring(x, 0)
			if atomic.LoadUint64(seq) < x {
				if !wait {
					break
				}
				if err := g.waitAt(r, seq, x); err != nil {
					g.o.Owed = 0 // the group failed: every later op returns g.err
					return err
				}
			}
			if n := *g.total(x) &^ wayBits; n != 0 && late == nil {
				late = owedErr(r, n)
			}
		}
		g.raise(fAck, x)
	}
	g.o.Owed = (w>>(8+16*i))<<8 | uint64(m-i)
	return late
}

// owedErr is the error of an owed line of root r, whose message has n bytes (not 0).
func owedErr(r int, n uint64) error {
	return fmt.Errorf("an earlier Bcast from root %d: %w", r, truncated(int(n), 0))
}

// wayBits are the bits of a chunk's total that say the way, not the length.
const wayBits = directBit | elsewhereBit | stagedBit | stopBit

// after is err, or late when err is nil: an op's own error first, then one found
// in the lines owed before it.
func after(late, err error) error {
	if err != nil {
		return err
	}
	return late
}

// deferrer is, at the root of a long Bcast's op s (its arrive raised), a reader that
// left the op owing its line (its buffer is empty: Owing), or may have, or -1. The
// root writes s to its begun word, sequentially consistent, then reads the readers'
// defer flags; such a reader writes its defer flag, then reads the root's begun word.
// So a reader that did not see the root begin (and left owing the line) is seen here,
// and one seen here that did see it waits for the line, which it takes whatever it
// says.
func (g *Group) deferrer(s uint64) int {
	atomic.StoreUint64(g.flag(g.rank, offBegun), s)
	for j := 0; j < g.size; j++ {
		if j != g.rank && atomic.LoadUint64(g.flag(j, fDefer)) >= s {
			return j
		}
	}
	return -1
}

// ErrStopped: a long Bcast's root stopped the op, since a reader passed an empty
// buffer (erroneous: MPI requires the same type signature on every rank) and left
// without waiting for it. The root and every reader return it; nothing is sent.
var ErrStopped = errors.New("Bcast stopped: the ranks' counts differ")

// stopBit, set in a chunk's total, says that the root stopped the broadcast
// (bcastStop).
const stopBit = 1 << 60

// bcastStop is the root's line that stops its op of n bytes: rank j left owing it.
func (g *Group) bcastStop(n, j int) error {
	if err := g.postLine(uint64(n) | stopBit); err != nil {
		return err
	}
	return fmt.Errorf("%w: the root's message has %d bytes, rank %d's buffer none "+
		"(MPI requires the same type signature on every rank); nothing was sent", ErrStopped, n, j)
}

// BcastResume is a reader's Bcast that code outside Go began (the C library's short
// Bcast) and hands over: it took the op and the first chunk and waited for that chunk,
// whose line says what the reader cannot do itself (a message of another length than
// buf's, or one that goes another way). It goes on as Bcast does from there.
func (g *Group) BcastResume(buf []byte, root int) error {
	if g.err != nil {
		return g.err
	}
	return g.bcastRead(buf, root, true)
}

// bcastRead is a reader's Bcast once it took its op; taken: it also took the first
// chunk (g.o.C) and saw the root write it.
func (g *Group) bcastRead(buf []byte, root int, taken bool) error {
	n := len(buf)
	for off := 0; off < n || off == 0; off += g.l.Chunk {
		if !taken || off > 0 {
			g.o.C++
			seq, _ := g.ring(g.o.C, 0)
			if err := g.waitAt(root, seq, g.o.C); err != nil {
				return err
			}
		}
		c := g.o.C
		if off == 0 {
			t := *g.total(c)
			if t&(directBit|elsewhereBit|stagedBit|stopBit) != 0 {
				if t&stopBit != 0 {
					g.raise(fAck, c)
					if m := int(t &^ stopBit); len(buf) < m {
						// This reader's buffer is the short one (it found the root begun
						// before it could leave owing the line): a truncation, as anywhere.
						return truncated(m, len(buf))
					}
					return fmt.Errorf("%w: another rank passed an empty buffer, the root %d bytes "+
						"(MPI requires the same type signature on every rank); nothing was sent", ErrStopped, int(t&^stopBit))
				}
				if t&stagedBit != 0 {
					return g.readStaged(buf, c, int(t&^stagedBit))
				}
				if t&directBit != 0 {
					if m := int(t &^ directBit); g.keep && m != len(buf) {
						return g.readKept(buf, root, c, m)
					}
					return g.readDirect(buf, root, c, int(t&^directBit))
				}
				g.announced = int(t &^ elsewhereBit)
				g.raise(fAck, c)
				return ErrElsewhere
			}
			n = int(t)
			if g.keep && n != len(buf) {
				return g.ringKept(buf, root, c, n)
			}
		}
		_, b := g.ring(c, min(g.l.Chunk, n-off))
		if off < len(buf) {
			ntcopy.Move(buf[off:], b)
		}
		g.raise(fAck, c)
	}
	if n > len(buf) {
		return truncated(n, len(buf))
	}
	return nil
}

// BcastKeep is Bcast at a reader that passes the message on (a hierarchical Bcast's
// leader on the root's node): where the root's length is not buf's (erroneous: MPI
// requires equal type signatures) it also returns the message, buf's first bytes
// where buf is longer, new memory where it is shorter (then with ErrTruncate, buf
// holding what fits); nil otherwise. ErrElsewhere as Bcast.
func (g *Group) BcastKeep(buf []byte, root int) ([]byte, error) {
	g.keep = true
	err := g.Bcast(buf, root)
	msg := g.kept
	g.keep, g.kept = false, nil
	return msg, err
}

// ringKept is BcastKeep's reader from chunk c on, whose first line gave the root's n
// bytes: the message in buf's first bytes or new memory, as a reader's Bcast does.
func (g *Group) ringKept(buf []byte, root int, c uint64, n int) error {
	msg := buf[:min(n, len(buf))]
	if n > len(buf) {
		msg = make([]byte, n)
	}
	for off := 0; off < n || off == 0; off += g.l.Chunk {
		if off > 0 {
			g.o.C++
			c = g.o.C
			seq, _ := g.ring(c, 0)
			if err := g.waitAt(root, seq, c); err != nil {
				return err
			}
		}
		_, b := g.ring(c, min(g.l.Chunk, n-off))
		ntcopy.Move(msg[off:], b)
		g.raise(fAck, c)
	}
	g.kept = msg
	if n > len(buf) {
		ntcopy.Move(buf, msg)
		return truncated(n, len(buf))
	}
	return nil
}

// readKept is BcastKeep's readDirect of the root's n bytes.
func (g *Group) readKept(buf []byte, root int, c uint64, n int) error {
	msg := buf[:min(n, len(buf))]
	if n > len(buf) {
		msg = make([]byte, n)
	}
	if err := g.readDirect(msg, root, c, n); err != nil {
		return err
	}
	g.kept = msg
	if n > len(buf) {
		ntcopy.Move(buf, msg)
		return truncated(n, len(buf))
	}
	return nil
}

// reuse waits, as the root of chunk c, until ring buffer c mod Chunks is free: every
// other rank has acknowledged chunk c-Chunks. It looks at the others' acks only when
// the last look does not cover that (each look costs a cache miss per rank): the root
// runs ahead.
func (g *Group) reuse(c uint64) error {
	k := uint64(g.l.Chunks)
	if c > k && g.o.AckKnown < c-k {
		if err := g.waitAll(fAck, c-k); err != nil {
			return err
		}
		g.o.AckKnown = g.minOther(fAck)
	}
	return nil
}

// stream copies src (a broadcast chunk, a section of a single-copy Allreduce's result)
// into dst in the region: with non-temporal stores from Options.NT bytes, so that this
// rank neither waits to take dst's lines back from the readers' caches, which hold them
// from the last time, nor fills its own cache with them; the readers then read them
// from memory, which is faster whether the vCPUs share a cache or not
// (docs/BENCHMARKS.md, figures from code comments). The fence at its end orders the
// bytes before the flag that announces them.
func (g *Group) stream(dst, src []byte) {
	if !ntcopy.Have || g.nt <= 0 || len(src) < g.nt {
		ntcopy.Move(dst, src)
		return
	}
	head := min(int((lineSize-uintptr(unsafe.Pointer(unsafe.SliceData(dst)))%lineSize)%lineSize), len(src))
	copy(dst[:head], src[:head])
	nl := (len(src) - head) / lineSize
	ntcopy.Copy(unsafe.Pointer(&dst[head]), unsafe.Pointer(&src[head]), uintptr(nl))
	copy(dst[head+nl*lineSize:], src[head+nl*lineSize:])
}

// directBit, set in a chunk's total, says that the broadcast is read from the root's
// buffer, whose address is in the chunk's inline bytes.
const directBit = 1 << 63

// elsewhereBit, set in a chunk's total, says that the broadcast's root sends it by
// other means (Announce).
const elsewhereBit = 1 << 62

// stagedBit, set in a chunk's total, says that the broadcast's root copied the whole
// message into its op's bank (BcastStaged).
const stagedBit = 1 << 61

// StageMax is the longest Bcast that BcastStaged copies into the region whole: one
// bank, every rank's slot of it.
func (g *Group) StageMax() int { return g.size * g.l.Slot }

// BcastStaged is Bcast for a root that copies its whole message into the region at
// once (the bank of its op, free once every rank has arrived at the op before) and
// returns, announcing it in one chunk's line; the readers (Bcast) copy it out and
// acknowledge the chunk. The message crosses in two steps in which ranks must run,
// the root's copy and each reader's, and the root waits for none of the readers: with
// many more ranks than cores, a ring's chunks (a step per chunk) or the readers'
// reads of the root's own buffer (which the root waits for) make the root wait for
// the scheduler to run every reader, once or many times. A message longer than
// StageMax streams through the ring, as Bcast. A reader takes the way from the line
// whatever it called; every rank's next ops follow on as after a Bcast.
func (g *Group) BcastStaged(buf []byte, root int) error {
	if g.rank != root || len(buf) > g.StageMax() {
		return g.Bcast(buf, root)
	}
	if g.err != nil {
		return g.err
	}
	if g.o.Owed != 0 {
		return after(g.Settle(), g.BcastStaged(buf, root))
	}
	g.o.S++
	g.raise(fArrive, g.o.S)
	s := g.o.S
	// The bank was last read in op s-2 (a reduction, or a staged Bcast's copy-out):
	// every rank is past it once every rank has arrived at op s-1.
	if s > 2 {
		if err := g.waitAll(fArrive, s-1); err != nil {
			return err
		}
	}
	g.o.C++
	c := g.o.C
	seq, _ := g.ring(c, 0)
	if err := g.reuse(c); err != nil {
		return err
	}
	g.stream(g.bankArea(s)[:len(buf)], buf)
	*g.total(c) = uint64(len(buf)) | stagedBit
	g.raiseAt(seq, c)
	g.raise(fAck, c)
	return nil
}

// readStaged is a reader's BcastStaged from chunk c, whose line gave the root's n
// bytes, in the bank of this rank's op: it copies what fits into buf (BcastKeep: the
// message, kept as ringKept does) and acknowledges the chunk.
func (g *Group) readStaged(buf []byte, c uint64, n int) error {
	src := g.bankArea(g.o.S)
	if n > len(src) {
		g.raise(fAck, c)
		return g.fail(fmt.Errorf("Bcast: the root staged %d bytes, more than the region's bank of %d", n, len(src)))
	}
	src = src[:n]
	if g.keep && n != len(buf) {
		msg := buf[:min(n, len(buf))]
		if n > len(buf) {
			msg = make([]byte, n)
		}
		ntcopy.Move(msg, src)
		g.kept = msg
	}
	ntcopy.Move(buf, src)
	g.raise(fAck, c)
	if n > len(buf) {
		return truncated(n, len(buf))
	}
	return nil
}

// Announce is the root's side of a Bcast of n bytes that goes by other means (the
// point-to-point schedules): it puts n in the first chunk's line, where every reader
// of the Bcast looks first, so that their Bcast returns ErrElsewhere and Announced
// says n, and the root does not wait. Every rank thus chooses the way of a Bcast by
// the root's length, whatever its own buffer's (an erroneous call, whose ranks would
// otherwise take different ways and wait for each other forever); it costs the root
// one line written and each reader one line read, ahead of a message of hundreds of
// kilobytes.
func (g *Group) Announce(n int) error {
	if g.err != nil {
		return g.err
	}
	if g.o.Owed != 0 {
		return after(g.Settle(), g.Announce(n))
	}
	g.o.S++
	g.raise(fArrive, g.o.S)
	if j := g.deferrer(g.o.S); j >= 0 {
		return g.bcastStop(n, j)
	}
	return g.postLine(uint64(n) | elsewhereBit)
}

// postLine takes the next ring chunk and writes in it a line of its total alone (a
// way's bit and the message's length), which the root acknowledges at once: the
// lines that stop a Bcast and that announce one.
func (g *Group) postLine(total uint64) error {
	g.o.C++
	c := g.o.C
	seq, _ := g.ring(c, 0)
	if err := g.reuse(c); err != nil {
		return err
	}
	*g.total(c) = total
	g.raiseAt(seq, c)
	g.raise(fAck, c)
	return nil
}

// Announced is the root's length that the last Bcast returning ErrElsewhere learnt.
func (g *Group) Announced() int { return g.announced }

// bcastDirect is a long Bcast's root: it announces its buffer's address and length in
// one chunk's line, and returns once every other rank has read the buffer (their acks).
// A ring copy moves every byte twice and, where two cores do not share a cache, every
// line across twice (the root's write takes the line back from the readers, their read
// takes it over); reading the root's buffer moves it once, and not at all when the
// readers' caches still hold the lines from the last time (docs/BENCHMARKS.md).
func (g *Group) bcastDirect(buf []byte) error {
	g.o.C++
	c := g.o.C
	seq, line := g.ring(c, 8)
	if err := g.reuse(c); err != nil {
		return err
	}
	*(*uint64)(unsafe.Pointer(&line[0])) = uint64(uintptr(unsafe.Pointer(&buf[0])))
	*g.total(c) = uint64(len(buf)) | directBit
	g.raiseAt(seq, c)
	g.raise(fAck, c)
	err := g.waitAll(fAck, c)
	runtime.KeepAlive(buf)
	if err == nil {
		g.o.AckKnown = c
	}
	return err
}

// readDirect is a long Bcast's reader: it copies the root's n bytes at the address in
// chunk c's line into buf (as much as fits) and acknowledges the chunk, so the root
// may return; a read that fails still acknowledges, so that the group stays in step.
func (g *Group) readDirect(buf []byte, root int, c uint64, n int) error {
	_, line := g.ring(c, 8)
	addr := *(*uint64)(unsafe.Pointer(&line[0]))
	err := errors.New("this rank has no single-copy read")
	if g.read != nil {
		err = g.read(root, buf[:min(n, len(buf))], addr)
	}
	g.raise(fAck, c)
	switch {
	case err != nil:
		return fmt.Errorf("Bcast: reading the root's buffer: %w", err)
	case n > len(buf):
		return truncated(n, len(buf))
	}
	return nil
}

// Allreduce combines every rank's send with k, in rank order, into every rank's recv
// (as long as send; recv may be send). esize is the element size: a message longer
// than a slot goes in pieces of whole elements.
func (g *Group) Allreduce(send, recv []byte, esize int, k Kernel) error {
	if g.o.Owed != 0 {
		return after(g.Settle(), g.Allreduce(send, recv, esize, k))
	}
	return g.reduce(send, recv, esize, k, false, -1)
}

// AllreduceSplit is Allreduce for long messages: after the contributions are in,
// each rank combines only its 1/n section of the piece (in rank order) into a shared
// result, and then every rank copies the whole result out, so the ranks share the
// reduction's work instead of each doing all of it. unit is the size of what k must
// see whole (an element, or a (value, index) pair): sections are whole units.
func (g *Group) AllreduceSplit(send, recv []byte, unit int, k Kernel) error {
	if g.o.Owed != 0 {
		return after(g.Settle(), g.AllreduceSplit(send, recv, unit, k))
	}
	if err := g.reduceArgs(send, recv, unit, true); err != nil {
		return err
	}
	esize := unit
	piece := g.l.Slot / esize * esize
	for off := 0; off < len(send); off += piece {
		m := min(piece, len(send)-off)
		s, err := g.contribute(send[off:off+m], false, len(send))
		if err != nil {
			return err
		}
		if err := g.waitAllLen(s, len(send)); err != nil {
			return err
		}
		// This rank's section, in whole elements.
		el := m / esize
		lo := el * g.rank / g.size * esize
		hi := el * (g.rank + 1) / g.size * esize
		if hi > lo {
			acc := g.result(s)[lo:hi]
			ntcopy.Move(acc, g.slot(s, g.size-1)[lo:hi])
			for j := g.size - 2; j >= 0; j-- {
				k(acc, g.slot(s, j)[lo:hi])
			}
		}
		g.raise(fDone, s)
		if err := g.waitAll(fDone, s); err != nil {
			return err
		}
		ntcopy.Move(recv[off:off+m], g.result(s)[:m])
	}
	return nil
}

// AllreduceChoose is AllreduceSplit or AllreduceDirect, chosen by measurement: which is
// faster depends on whether the cores share a cache at the time, which on a shared VM
// changes from one minute to the next (docs/BENCHMARKS.md). Rank 0 times its calls of
// each (time per byte), tries each twice (the reads first), then takes the faster and
// tries the other every chooseProbe calls; it publishes each call's choice before it
// starts the call, and the others follow it. A message longer than Options.Timed
// takes the reads untimed: the slots' way cuts it in pieces of one slot, each with two
// steps in which every rank must run, where the reads take one piece, and with many
// ranks a try of the slots costs many times a call of the reads (docs/BENCHMARKS.md,
// the Allreduce's choice). Every rank of the group must call it for the same calls,
// and the group must have a Read.
func (g *Group) AllreduceChoose(send, recv []byte, unit int, k Kernel) error {
	if g.o.Owed != 0 {
		return after(g.Settle(), g.AllreduceChoose(send, recv, unit, k))
	}
	if g.err != nil {
		return g.err
	}
	if g.read == nil {
		return errors.New("AllreduceChoose: the group has no single-copy read")
	}
	force := -1
	if g.timed > 0 && len(send) > g.timed {
		force = 1
	}
	v, err := g.choose(&g.choice, true, force)
	if err == errNoChoice {
		return g.AllreduceSplit(send, recv, unit, k) // it finds the lengths differ
	}
	if err != nil {
		return err
	}
	var t0 time.Time
	if g.rank == 0 {
		t0 = time.Now()
	}
	if v == 1 {
		err = g.AllreduceDirect(send, recv, unit, k)
	} else {
		err = g.AllreduceSplit(send, recv, unit, k)
	}
	if g.rank == 0 && err == nil && len(send) > 0 && force < 0 {
		g.choice.Record(v, float64(time.Since(t0))/float64(len(send)))
	}
	return err
}

// Choose is the way (0 or 1) of this call of an operation that chooses by timing,
// as rank 0 picks it from ch (its record of the operation, which only rank 0
// keeps): rank 0 publishes the pick before the call starts, the others wait for it.
// Every rank of the group must call it for the same calls, in the same order.
//
// Rank 0 may run calls ahead of the others (a point-to-point way does not hold it
// back), so each call's pick has a word of its own, k mod chooseSlots, that a rank
// reads only for its own call k, and rank 0 reuses a word only once every rank has
// taken the pick that was in it (chosen ≥ k-chooseSlots). With one word, a rank one
// call behind took the next call's pick and ran the other way than its peers (MPICH's
// coll/bcasttest at 10 ranks: data of the next Bcast, then a hang).
func (g *Group) Choose(ch *Chooser) (int, error) { return g.choose(ch, false, -1) }

// choose is Choose; with alt, a rank other than 0 also stops waiting when rank 0
// enters the next op without a pick (errNoChoice: its length, erroneously not this
// rank's, took another way), and gives the call back. A force of 0 or 1 is rank 0's
// pick, instead of ch's.
func (g *Group) choose(ch *Chooser, alt bool, force int) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	g.calls++
	k := g.calls
	p := g.flag(0, offChoice+8*int(k%chooseSlots))
	if g.rank == 0 {
		if k > chooseSlots && g.chosenKnown < k-chooseSlots {
			if err := g.waitAll(fChosen, k-chooseSlots); err != nil {
				return 0, err
			}
			g.chosenKnown = g.minOther(fChosen)
		}
		v := force
		if v < 0 {
			v = ch.pick()
		}
		g.raiseAt(p, k<<1|uint64(v))
		g.raise(fChosen, k)
		return v, nil
	}
	var err error
	if alt {
		err = g.waitEither(0, p, k<<1, g.flag(0, fArrive), g.o.S+1)
	} else {
		err = g.waitAt(0, p, k<<1)
	}
	if err != nil {
		return 0, err
	}
	x := atomic.LoadUint64(p)
	if alt && x>>1 < k {
		g.calls--
		return 0, errNoChoice
	}
	if x>>1 != k {
		g.fail(fmt.Errorf("Choose: call %d found the pick of call %d", k, x>>1))
		return 0, g.err
	}
	g.raise(fChosen, k)
	return int(x & 1), nil
}

// SkipChoice takes, without using it, the pick rank 0 published for a Choose call
// this rank did not make (a reduction whose length, erroneously not rank 0's, took
// another way), so that the calls stay counted alike.
func (g *Group) SkipChoice() {
	if g.rank != 0 {
		g.calls++
		g.raise(fChosen, g.calls)
	}
}

// chooseSlots is how many calls' picks Choose keeps at once (the words of rank 0's
// second line from offChoice to offBegun): how far rank 0 may run ahead before it waits.
const chooseSlots = 6

// chooseProbe: once a choice is made, one call in this many tries the other way, so
// that a change of the host's state is noticed.
const chooseProbe = 32

// Chooser is the record of an operation that chooses by timing between two ways,
// kept by the rank that picks: rank 0 for Choose, or a rank that picks and tells the
// others itself (Pick): the estimated time per byte of each (for AllreduceChoose, the
// slots (0) and single-copy reads (1)).
type Chooser struct {
	est   [2]float64
	n     [2]int
	calls int
}

// Pick is the way of the next call, for a caller that tells the others the pick in a
// publication of its own (a long Bcast's root, in the line that announces it): each
// way twice at first (way 1 first), then the faster, and the other one call in
// chooseProbe. The caller times the call and gives the time to Record.
func (c *Chooser) Pick() int { return c.pick() }

// PickFirst is Pick for an operation whose way v usually wins and whose other way
// costs many times its steady time on its first calls (cold pages and a first round
// of large messages: a long Bcast's schedules): way v alone until the first probe
// call (chooseProbe), then as Pick. A program of a few such calls then never pays to
// try the other way; one of many pays it once, as with Pick, a little later.
func (c *Chooser) PickFirst(v int) int {
	if c.n[1-v] == 0 && c.calls+1 < chooseProbe {
		c.calls++
		return v
	}
	return c.pick()
}

func (c *Chooser) pick() int {
	c.calls++
	// The reads first: in a benchmark the first calls are warm-up, and then the last
	// one explored, which is timed, is the slots, the usual winner.
	for _, v := range [2]int{1, 0} {
		if c.n[v] < 2 {
			return v
		}
	}
	best := 0
	if c.est[1] < c.est[0] {
		best = 1
	}
	if c.calls%chooseProbe == 0 {
		return 1 - best
	}
	return best
}

// Record takes a call's time per byte: the first two of a way keep the faster (the
// first may run on cold pages), later ones move the estimate a quarter of the way,
// counting a time of more than twice the estimate as twice it: a call whose rank lost
// its core for a while would otherwise turn the choice for many calls, while a way
// that stays slower still raises its estimate by a quarter a call.
func (c *Chooser) Record(v int, x float64) {
	switch {
	case c.n[v] == 0:
		c.est[v] = x
	case c.n[v] == 1:
		c.est[v] = min(c.est[v], x)
	default:
		if c.est[v] > 0 {
			x = min(x, 2*c.est[v])
		}
		c.est[v] += (x - c.est[v]) / 4
	}
	c.n[v]++
}

// AllreduceDirect is AllreduceSplit for ranks that can read each other's memory
// (Options.Read): a rank publishes where its send buffer is instead of copying it into
// its slot, and each rank reads its section of the others' contributions straight
// from their send buffers into scratch of its own and combines them (in rank order)
// into the shared result, which every rank then copies out. A contribution thus moves
// once, by the rank that combines it, instead of twice through the slots (written
// there, then read), and where two cores do not share a cache the lines of a send
// buffer that did not change since the last call need not cross at all
// (docs/BENCHMARKS.md).
//
// The slots hold no contribution here, so the result of op s goes in its whole bank
// (bankArea: Ranks x Slot bytes), and a message goes in pieces of that size, not of
// one slot: every piece costs two steps in which every rank must run (all arrived, all
// combined), and with many more ranks than cores each such step waits for the
// scheduler to run them all. A rank copies a section of the result out as soon as its
// combiner is done with it (done), rather than once every rank is, so a rank that runs
// has work while later combiners wait for a core.
//
// A rank's send section j is read only by rank j, which raises done once it has
// combined it; this rank writes recv's section j only after that, so an in-place call
// (send is recv) is safe, and it returns only once every rank that reads its send
// buffer (every rank with a section) is done.
func (g *Group) AllreduceDirect(send, recv []byte, unit int, k Kernel) error {
	if g.o.Owed != 0 {
		return after(g.Settle(), g.AllreduceDirect(send, recv, unit, k))
	}
	if err := g.reduceArgs(send, recv, unit, true); err != nil {
		return err
	}
	if g.read == nil {
		return errors.New("AllreduceDirect: the group has no single-copy read")
	}
	piece := g.size * g.l.Slot / unit * unit
	for off := 0; off < len(send); off += piece {
		m := min(piece, len(send)-off)
		s, err := g.nextBank()
		if err != nil {
			return err
		}
		*g.flag(g.rank, offAddr) = uint64(uintptr(unsafe.Pointer(&send[off])))
		*g.lenWord(g.rank, s) = uint64(len(send))
		g.raise(fArrive, s)
		lo, hi := g.section(m, unit, g.rank)
		if hi > lo {
			if err := g.combineDirect(send[off+lo:off+hi], s, lo, len(send), k); err != nil {
				return err
			}
		} else if err := g.waitAllLen(s, len(send)); err != nil {
			return err
		}
		g.raise(fDone, s)
		if err := g.copyOutDirect(recv[off:off+m], s, unit); err != nil {
			return err
		}
	}
	runtime.KeepAlive(send)
	return nil
}

// section is rank r's section [lo, hi) of a piece of m bytes, in whole units.
func (g *Group) section(m, unit, r int) (lo, hi int) {
	el := m / unit
	return el * r / g.size * unit, el * (r + 1) / g.size * unit
}

// bankArea is the bank of op s, all ranks' slots of it as one buffer.
func (g *Group) bankArea(s uint64) []byte {
	off := g.l.slotsOff() + int(s&1)*g.size*g.l.Slot
	n := g.size * g.l.Slot
	return g.mem[off : off+n : off+n]
}

// combineDirect combines this rank's section of op s's piece (mine: its own send
// bytes, at lo in the piece) with every other rank's, read from their send buffers,
// and streams the result into the bank. total is the reduction's length, compared
// with each rank's.
func (g *Group) combineDirect(mine []byte, s uint64, lo, total int, k Kernel) error {
	n := len(mine)
	if len(g.scratch) < 2*n {
		g.scratch = make([]byte, 2*n)
	}
	// The section is combined in scratch and streamed into the result once: the
	// result's lines are in the other ranks' caches from their last copy-out, and
	// taking them back line by line, then writing each several times, cost most of
	// the call where the cores do not share a cache.
	acc, tmp := g.scratch[:n], g.scratch[n:2*n]
	for j := g.size - 1; j >= 0; j-- {
		in := mine
		if j != g.rank {
			if err := g.wait(j, fArrive, s); err != nil {
				return err
			}
			if err := g.sameLen(j, s, total); err != nil {
				return err
			}
			dst := tmp
			if j == g.size-1 {
				dst = acc
			}
			if err := g.read(j, dst, *g.flag(j, offAddr)+uint64(lo)); err != nil {
				g.fail(fmt.Errorf("Allreduce: reading rank %d's contribution: %w", j, err))
				return g.err
			}
			in = dst
		}
		switch {
		case j == g.size-1 && j == g.rank:
			ntcopy.Move(acc, in)
		case j < g.size-1:
			k(acc, in)
		}
	}
	g.stream(g.bankArea(s)[lo:lo+n], acc)
	return nil
}

// copyOutDirect copies op s's result (recv: its piece) out of the bank, section by
// section as their combiners raise done, from this rank's own on, so that the ranks
// do not all wait for the same combiner first.
func (g *Group) copyOutDirect(recv []byte, s uint64, unit int) error {
	res := g.bankArea(s)
	for i := 0; i < g.size; i++ {
		j := (g.rank + i) % g.size
		lo, hi := g.section(len(recv), unit, j)
		if hi == lo {
			continue
		}
		if j != g.rank {
			if err := g.wait(j, fDone, s); err != nil {
				return err
			}
		}
		ntcopy.Move(recv[lo:hi], res[lo:hi])
	}
	return nil
}

// nextBank starts the next reduction op s and waits until its bank (s mod 2) is
// free: last read in op s-2, which every rank must be past.
func (g *Group) nextBank() (uint64, error) {
	g.o.S++
	if g.o.S > 2 {
		return g.o.S, g.waitAll(fArrive, g.o.S-1)
	}
	return g.o.S, nil
}

// contribute starts the next op: it waits until bank s mod 2 is free (last read in op
// s-2: everyone must be past it), copies b into this rank's slot of the bank, or its
// inline line of the bank when small (raising the line's sequence), publishes total
// (the whole reduction's length) beside arrive, and raises arrive.
func (g *Group) contribute(b []byte, small bool, total int) (uint64, error) {
	s, err := g.nextBank()
	if err != nil {
		return 0, err
	}
	if small {
		seq, d := g.inline(g.rank, s)
		ntcopy.Move(d, b)
		g.raiseAt(seq, s<<8|inlineTag(total))
	} else {
		ntcopy.Move(g.slot(s, g.rank), b)
	}
	g.arrive(s, total)
	return s, nil
}

// arrive publishes total (the whole reduction's length) beside op s's arrive flag,
// then raises it.
func (g *Group) arrive(s uint64, total int) {
	*g.lenWord(g.rank, s) = uint64(total)
	g.raise(fArrive, s)
}

// rootPiece is a Reduce's root on one piece of more than inlineMax bytes (own, its
// contribution, into acc). The others' slots are combined into acc from the highest
// rank down, as every reduction of the region does, but the root's own part is read
// from its buffer, not copied into its slot first (nothing else reads a Reduce's
// root's slot). Where the order allows, the root copies its part into acc before it
// waits for the others, which takes that copy off the call's critical path: on the
// highest rank, whose part the order starts from, and for a commutative op on the
// next one down too (x[n-2] op x[n-1] and x[n-1] op x[n-2] are the same values then,
// and so is all that follows). In place, a root that starts from another rank's slot
// would overwrite its part before combining it, so that one is copied to its slot.
func (g *Group) rootPiece(own, acc []byte, k Kernel, commute bool, total int) error {
	last := g.size - 1
	early := g.rank == last || commute && g.rank == last-1
	alias := &own[0] == &acc[0]
	s, err := g.nextBank()
	if err != nil {
		return err
	}
	if alias && !early {
		mine := g.slot(s, g.rank)[:len(own)]
		ntcopy.Move(mine, own)
		own = mine
	}
	g.arrive(s, total)
	if early && !alias {
		ntcopy.Move(acc, own)
	}
	if err := g.waitAllLen(s, total); err != nil {
		return err
	}
	g.combine(acc, s, k, g.rank, own, early)
	return nil
}

// combine folds op s's contributions into acc from the highest rank down (inout =
// in ⊕ inout, the rank order every reduction of the region keeps): each rank's
// slot, but rank mine's part from own (mine -1: none); held says acc holds mine's
// part already, so the fold skips it.
func (g *Group) combine(acc []byte, s uint64, k Kernel, mine int, own []byte, held bool) {
	m := len(acc)
	for j := g.size - 1; j >= 0; j-- {
		in := own
		if j != mine {
			in = g.slot(s, j)[:m]
		} else if held {
			continue
		}
		if j == g.size-1 && !held {
			ntcopy.Move(acc, in)
		} else {
			k(acc, in)
		}
	}
}

// inlineTag is the low byte of an inline line's sequence word, s<<8 | tag: a
// reduction's total length when it is at most inlineMax, else 0xff. A combiner reads
// it in the line it reads anyway and compares it with its own.
func inlineTag(total int) uint64 {
	if total <= inlineMax {
		return uint64(total)
	}
	return 0xff
}

// lenWord is rank r's word of op s's bank that holds its reduction's total length.
func (g *Group) lenWord(r int, s uint64) *uint64 { return g.flag(r, fLen+8*int(s&1)) }

// LenOf is the total length rank r published for this rank's last reduction op (to
// be read once a CountError says the ranks differ).
func (g *Group) LenOf(r int) int { return int(atomic.LoadUint64(g.lenWord(r, g.o.S))) }

// ArrivedLen waits until rank r has arrived at this rank's last op and returns the
// total length it published.
func (g *Group) ArrivedLen(r int) (int, error) {
	if err := g.wait(r, fArrive, g.o.S); err != nil {
		return 0, err
	}
	return g.LenOf(r), nil
}

// sameLen reports a CountError when rank r, which has arrived at op s, published a
// total length other than want.
func (g *Group) sameLen(r int, s uint64, want int) error {
	if n := int(*g.lenWord(r, s)); n != want {
		return &CountError{Rank: r, Len: n, Want: want}
	}
	return nil
}

// waitAllLen waits until every other rank has arrived at op s and checks that each
// published total as its length: one compare in the line the wait reads anyway.
func (g *Group) waitAllLen(s uint64, total int) error {
	for j := 0; j < g.size; j++ {
		if j != g.rank {
			if err := g.wait(j, fArrive, s); err != nil {
				return err
			}
			if err := g.sameLen(j, s, total); err != nil {
				return err
			}
		}
	}
	return nil
}

// inline returns rank r's sequence word and data line of op s's bank: a contribution
// of at most inlineMax bytes goes in the same cache line as the word that announces it.
func (g *Group) inline(r int, s uint64) (*uint64, []byte) {
	off := hdrSize + r*rankStride + offInline + int(s&1)*lineSize
	return (*uint64)(unsafe.Pointer(&g.mem[off])), g.mem[off+8 : off+lineSize : off+lineSize]
}

// combineInline combines the ranks' inline contributions to op s into acc, in rank
// order, waiting for each as it comes to it. A rank whose total differs from this
// rank's (its tag), or which arrived without an inline contribution (its length took
// another way), ends it with a CountError.
func (g *Group) combineInline(acc []byte, s uint64, k Kernel, total int) error {
	want := s<<8 | inlineTag(total)
	for j := g.size - 1; j >= 0; j-- {
		seq, d := g.inline(j, s)
		if j != g.rank {
			v := atomic.LoadUint64(seq)
			if v < s<<8 {
				if err := g.waitSlow(j, seq, s<<8, g.flag(j, fArrive), s); err != nil {
					return err
				}
				v = atomic.LoadUint64(seq)
			}
			if v != want {
				return g.lenMismatch(j, s, total)
			}
		}
		if j == g.size-1 {
			ntcopy.Move(acc, d)
		} else {
			k(acc, d[:len(acc)])
		}
	}
	return nil
}

// ReduceMismatch is lenMismatch for code outside Go that runs this rank's small
// reductions (the C library's short Allreduce): in this rank's last op rank r's
// inline line did not hold a contribution of this rank's total length.
func (g *Group) ReduceMismatch(r int, total int) error {
	if g.err != nil {
		return g.err
	}
	return g.lenMismatch(r, g.o.S, total)
}

// lenMismatch is the CountError of rank r, whose inline tag at op s was not this
// rank's: its length is beside its arrive, raised right after the tag.
func (g *Group) lenMismatch(r int, s uint64, total int) error {
	if err := g.wait(r, fArrive, s); err != nil {
		return err
	}
	if err := g.sameLen(r, s, total); err != nil {
		return err
	}
	// Same total, no inline line: the lengths agree but not the way (cannot happen
	// while every rank cuts pieces alike); say so rather than combine stale bytes.
	return &CountError{Rank: r, Len: total, Want: total}
}

// Elsewhere is a reduction of n bytes that this rank runs by other means (its length
// is beyond the region's limit: the schedules): it takes the op in the region like a
// contribution without data, publishing n, waits until every rank has arrived and
// reports a CountError if one published another length. So a rank whose length
// erroneously differs, and which therefore took the region's way, finds it (its
// combine compares the lengths) instead of waiting for this rank's slot, and this
// rank does not wait in the schedules for a peer that never comes. Every rank of the
// group must call it (or a reduction) for the same calls. Its cost, a line written and
// one read per rank, goes only to messages too long for the region.
func (g *Group) Elsewhere(n int) error {
	if g.err != nil {
		return g.err
	}
	if g.o.Owed != 0 {
		return after(g.Settle(), g.Elsewhere(n))
	}
	s, err := g.nextBank()
	if err != nil {
		return err
	}
	*g.lenWord(g.rank, s) = uint64(n)
	g.raise(fArrive, s)
	return g.waitAllLen(s, n)
}

func (g *Group) reduceArgs(send, recv []byte, esize int, want bool) error {
	if g.err != nil {
		return g.err
	}
	if esize < 1 || esize > g.l.Slot || len(send)%esize != 0 {
		return fmt.Errorf("reduction: element size %d must be in [1, %d] and divide len(send) %d", esize, g.l.Slot, len(send))
	}
	if want && len(recv) != len(send) {
		return fmt.Errorf("reduction: len(recv) %d != len(send) %d", len(recv), len(send))
	}
	return nil
}

// Reduce is Allreduce with the result in root's recv only (recv is ignored elsewhere).
// commute says k's operands may be swapped (the op is commutative), which lets the
// root start from its own contribution in more places (rootPiece). At the root send
// may be recv itself (in place).
func (g *Group) Reduce(send, recv []byte, esize int, k Kernel, commute bool, root int) error {
	if root < 0 || root >= g.size {
		return fmt.Errorf("Reduce: root %d out of range [0, %d)", root, g.size)
	}
	if g.o.Owed != 0 {
		return after(g.Settle(), g.Reduce(send, recv, esize, k, commute, root))
	}
	return g.reduce(send, recv, esize, k, commute, root)
}

// reduce is Reduce to root, or Allreduce for root -1. Every op publishes the whole
// length, and whoever combines compares the others' with its own (CountError); an
// empty reduction still takes one op, so that a rank whose length erroneously differs
// finds it. A non-root of a Reduce in pieces checks the lengths of each piece's op
// before the next, which waits for every arrival anyway, so that it does not run
// ahead of a root that stopped.
func (g *Group) reduce(send, recv []byte, esize int, k Kernel, commute bool, root int) error {
	all := root < 0
	if err := g.reduceArgs(send, recv, esize, all || g.rank == root); err != nil {
		return err
	}
	n := len(send)
	piece := g.l.Slot / esize * esize
	for off := 0; off < n || off == 0; off += piece {
		m := min(piece, n-off)
		small := m <= inlineMax
		if !all && g.rank == root && !small {
			if err := g.rootPiece(send[off:off+m], recv[off:off+m], k, commute, n); err != nil {
				return err
			}
			continue
		}
		s, err := g.contribute(send[off:off+m], small, n)
		if err != nil {
			return err
		}
		if !all && g.rank != root {
			if off+m < n {
				if err := g.waitAllLen(s, n); err != nil {
					return err
				}
			}
			continue
		}
		if small {
			if err := g.combineInline(recv[off:off+m], s, k, n); err != nil {
				return err
			}
			continue
		}
		if err := g.waitAllLen(s, n); err != nil {
			return err
		}
		g.combine(recv[off:off+m], s, k, -1, nil, false)
	}
	return nil
}
