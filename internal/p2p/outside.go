package p2p

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/transport"
	"golang.org/x/sys/unix"
)

// What code outside Go may read of the engine and write into it: the C library's
// short way for a small send (abi/libmpi/p2pshort.c), which sends a message as
// SendNow does, into the same ring, without crossing into Go. Everything it needs is
// in memory outside Go's heap that the engine takes at New (outsideHead, then the
// table of rings, then the traffic counts) and never gives back: the record of calls
// reads the counts in place (Sent) for as long as the process lives, closed engine or
// not, as it kept the Go slice they were in alive before. The engines of a process
// that starts its runtime many times (sessions) take it from one arena (outsideAlloc),
// so each costs its bytes, not a page.
//
// The engine keeps the words true under its lock, where the state they summarise
// changes; the short way reads them only while the engine is serialised (ok), from the
// goroutine or thread the program promised calls the engine one at a time, so it
// needs no atomics beyond program order.
type outsideHead struct {
	// ok: the short way may send and receive: the engine is serialised (Concurrent
	// clears it for good) and has not failed. (A tool's event log does not matter: a
	// send logs nothing, SendNow's short path included; a receive that matches at once
	// logs nothing either: EventUnexpected is a message that matched no receive.)
	ok   uint32
	self int32
	size int32
	// quiet: nothing is queued to any peer and no get is under way (e.busy and
	// e.gets empty), pollPeer's condition: a receive's short way may poll one ring
	// without leaving a peer waiting for this rank's packets.
	quiet   uint32
	head0   uint64  // a compact eager cell's first header word: kindEager, no flags, Src
	rings   uintptr // [size]uintptr: world rank d's ring record, or 0 (showRing)
	sent    uintptr // [2*size]prof.Link: Sent, in this memory
	eager   uintptr // [size]int64: world rank d's eager limit while its ring is shown
	inrings uintptr // [size]uintptr: world rank d's inbound ring record, or 0 (showInbound)
	polls   int64   // how many polls of one ring a receive's short way makes (pollPeer's)
	// deferred: code outside Go holds receives it has not posted here yet (the C
	// library's pending receives), which SetDeferred's function posts before the
	// engine matches or moves a packet (postDeferred).
	deferred uint32
	_        uint32
	exch     uintptr // [size]int64: world rank d's eager limit in an exchange (exchEager) while its ring is shown
	// lockw is the engine's lock where it is shared (Options.SharedLock): 0 free, 1
	// held (engineLock).
	lockw uint32
	// locked: the short way may send and receive holding lockw: the engine takes its
	// lock, shares it, and has not failed. The short way reads ok's words (quiet,
	// the rings, the contexts' words) only while it holds lockw then.
	locked uint32
}

// ctxWords is what the receive's short way reads of a context's matching state, in
// outside memory: how many receives are posted on it and how many messages wait in
// its unexpected queue. With both 0, a message at the head of a peer's ring that a
// blocking receive matches is the message the engine would give it: no earlier
// receive could take it, and no earlier message could match the receive.
type ctxWords struct {
	posted uint64
	queued uint64
}

// SetDeferred gives the engine fn, which posts the receives that code outside Go
// holds back while the deferred word says it holds some (the C library's pending
// receives, abi/libmpi/p2pshort.c: made while the engine is serialised, in order,
// taken from the rings' heads in C). The engine calls it before anything could match
// on any context or move a packet (startRecv, probe, progressLocked) and before it
// takes its lock for good (Concurrent), so that those receives are posted ahead of
// every later one and no peer waits for them while this rank runs Go. The engine
// calls fn holding its lock (where the outside code made them holding the shared lock,
// Options.SharedLock) or with its lock off (serialised); fn posts through
// IrecvDeferred, which takes no lock, and the calls it makes do not call it again.
func (e *Engine) SetDeferred(fn func()) { e.deferFn = fn }

// PostDeferred posts the receives code outside Go holds back now (SetDeferred's
// function, as the engine would call it): for that code itself, between engine calls.
// It takes the engine's lock even when nothing is held back: where the lock is shared,
// another goroutine may be posting them, and they are all posted once it returns.
func (e *Engine) PostDeferred() {
	e.mu.Lock()
	if e.out.deferred != 0 {
		e.postDeferred()
	}
	e.mu.Unlock()
}

// postDeferred posts the receives code outside Go holds back (SetDeferred), once.
//
//go:noinline
func (e *Engine) postDeferred() {
	if e.deferFn == nil || e.inDefer {
		return
	}
	e.inDefer = true
	e.deferFn()
	e.inDefer = false
}

// outsideMin is a compact cell's payload (shm.OutsideInline), which the short way
// sends to a peer whose eager limit and compact cells reach it; larger messages up to
// the peer's eager limit (eager, which it reads) and the ring's own bound for them. A
// peer whose eager limit or compact cell is below outsideMin takes the Go way for
// every size.
const outsideMin = 96

// mapOutside maps the engine's outside memory for a job of size ranks, and points
// e.out, e.rings and e.sent into it.
func (e *Engine) mapOutside(size int) error {
	head := int(unsafe.Sizeof(outsideHead{}))
	links := 2 * size * int(unsafe.Sizeof(prof.Link{}))
	base, err := outsideAlloc(head + 8*size + links + 8*size + 8*size + 8*size)
	if err != nil {
		return err
	}
	e.out = (*outsideHead)(base)
	e.rings = unsafe.Slice((*uintptr)(unsafe.Add(base, head)), size)
	e.sent = unsafe.Slice((*prof.Link)(unsafe.Add(base, head+8*size)), 2*size)
	e.eager = unsafe.Slice((*int64)(unsafe.Add(base, head+8*size+links)), size)
	e.inrings = unsafe.Slice((*uintptr)(unsafe.Add(base, head+8*size+links+8*size)), size)
	e.exch = unsafe.Slice((*int64)(unsafe.Add(base, head+8*size+links+16*size)), size)
	o := e.out
	o.self, o.size = int32(e.self), int32(size)
	o.head0 = uint64(kindEager) | uint64(uint32(e.self))<<32
	o.rings = uintptr(unsafe.Pointer(unsafe.SliceData(e.rings)))
	o.sent = uintptr(unsafe.Pointer(unsafe.SliceData(e.sent)))
	o.eager = uintptr(unsafe.Pointer(unsafe.SliceData(e.eager)))
	o.inrings = uintptr(unsafe.Pointer(unsafe.SliceData(e.inrings)))
	o.exch = uintptr(unsafe.Pointer(unsafe.SliceData(e.exch)))
	o.quiet = 1
	return nil
}

// noteQuiet recomputes the quiet word: e.busy or e.gets changed. The caller holds e.mu.
func (e *Engine) noteQuiet() {
	v := uint32(0)
	if len(e.busy) == 0 && e.gets.head == nil {
		v = 1
	}
	e.out.quiet = v
}

// showInbound publishes p's inbound ring to the receive's short way once p's poller
// is known (pollPeer), unless p has failed.
func (e *Engine) showInbound(p *peer) {
	if p.rank >= len(e.inrings) {
		return
	}
	r := uintptr(0)
	if o, ok := p.pp.(transport.OutsideInbound); ok && p.err == nil {
		r = o.OutsideInbound()
	}
	e.inrings[p.rank] = r
}

// newCtxq makes a context's queues with their words outside Go's heap (or, if none
// can be had, in it: the short way then never receives on the context).
func newCtxq() *ctxq {
	q := new(ctxq)
	if m, err := outsideAlloc(int(unsafe.Sizeof(ctxWords{}))); err == nil {
		q.ow, q.owOut = (*ctxWords)(m), true
	} else {
		q.ow = new(ctxWords)
	}
	return q
}

// OutsideCtx is the address of context ctx's words for code outside Go (ctxWords;
// abi/libmpi/p2pshort.h), valid for the life of the process; 0 if it has none.
func (e *Engine) OutsideCtx(ctx uint32) uintptr {
	e.mu.Lock()
	defer e.mu.Unlock()
	q := e.ctxq(ctx)
	if !q.owOut {
		return 0
	}
	return uintptr(unsafe.Pointer(q.ow))
}

// Outside is the address of the engine's words for code outside Go (outsideHead;
// abi/libmpi/p2pshort.h has their layout): valid for the life of the process.
func (e *Engine) Outside() uintptr { return uintptr(unsafe.Pointer(e.out)) }

// outsideOK recomputes the engine's ok and locked words. The caller holds e.mu (or is
// New).
func (e *Engine) outsideOK() {
	ok, locked := uint32(0), uint32(0)
	switch {
	case e.failed != nil:
	case e.mu.off.Load():
		ok = 1
	case e.mu.w != nil:
		locked = 1
	}
	atomic.StoreUint32(&e.out.ok, ok)
	atomic.StoreUint32(&e.out.locked, locked)
}

// outsideRing notes p's ring record once p is connected: the short way may use it
// while nothing is queued to p, if its eager limit covers a compact cell.
func (e *Engine) outsideRing(p *peer) {
	p.oring = 0
	if p.pp != nil {
		e.showInbound(p)
	}
	if o, ok := p.ep.(transport.OutsideRing); ok && p.eagerMax >= outsideMin && p.csMax >= outsideMin {
		p.oring = o.OutsideRing()
	}
	e.showRing(p)
}

// showRing publishes p's ring to the short way, or 0 while something is queued to p
// (a packet the short way wrote would overtake it) or p has failed.
func (e *Engine) showRing(p *peer) {
	if p.rank >= len(e.rings) {
		return // a peer beyond the job: the short way sends on MPI_COMM_WORLD only
	}
	r := p.oring
	if p.inBusy || p.err != nil {
		r = 0
	}
	e.eager[p.rank] = p.eagerMax
	e.exch[p.rank] = max(p.eagerMax, p.table.Exchange)
	e.rings[p.rank] = r
}

// hideRing takes p's ring from the short way: something is queued to p.
func (e *Engine) hideRing(p *peer) {
	if p.rank < len(e.rings) {
		e.rings[p.rank] = 0
	}
}

// hidePeer takes both of p's rings from the short way: p has failed.
func (e *Engine) hidePeer(p *peer) {
	e.hideRing(p)
	if p.rank < len(e.inrings) {
		e.inrings[p.rank] = 0
	}
}

// The arena of the engines' outside memory: zeroed anonymous mappings, handed out in
// cache lines, never unmapped.
var arena struct {
	sync.Mutex
	free []byte
}

const arenaChunk = 64 << 10

// outsideAlloc returns n zeroed bytes outside Go's heap, aligned to a cache line.
func outsideAlloc(n int) (unsafe.Pointer, error) {
	n = (n + 63) &^ 63
	arena.Lock()
	defer arena.Unlock()
	if len(arena.free) < n {
		mem, err := unix.Mmap(-1, 0, max(arenaChunk, (n+4095)&^4095), unix.PROT_READ|unix.PROT_WRITE,
			unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			return nil, err
		}
		arena.free = mem
	}
	p := unsafe.Pointer(unsafe.SliceData(arena.free))
	arena.free = arena.free[n:]
	return p, nil
}
