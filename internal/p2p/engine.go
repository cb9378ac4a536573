// Package p2p is mpigo's point-to-point engine: matching of sends to receives by
// (context, source, tag), the protocols that move a message (eager, pipelined
// rendezvous, single-copy get), requests and their completion, and the progress loop
// that drives the transports.
//
// The engine is a state machine over transport.Transport values: it never knows
// whether it drives shared memory, TCP or the in-memory transport of its tests. It
// deals in world ranks, 32-bit context ids and bytes (or a Layout, the datatype
// engine's resumable pack/unpack cursor); the mpi package adds communicators, rank
// translation and typed buffers on top.
//
// Peers are the job's world ranks, and after AddPeers the processes of other jobs that
// the device numbers past them (grow.go). Each peer is routed to the first transport
// that reaches it, on first use, and gets a protocol selection table computed from its
// endpoint's cost models (Select; the settings p2p_protocol and eager_limit override
// it). Where single copy is possible, a message of 32 KiB or more is offered both ways
// and its receiver chooses between pipeline and get by timing both (adapt.go;
// p2p_adapt). Messages are matched when their first packet (eager data or a request to
// send) is handled, in per-peer arrival order, so small and large messages never
// overtake each other whatever protocol each one takes. The packet kinds and their use
// of transport.Header are described in packet.go.
//
// Concurrency: every method is safe for concurrent use (MPI_THREAD_MULTIPLE). One
// mutex guards the engine's state and serialises every call into the transports, so
// transports need not be safe for concurrent Poll or Send. A waiting goroutine takes
// the mutex only with TryLock: one goroutine polls while the others watch their own
// request's completion flag. A waiter spins (p2p_spin polls), then yields the OS
// thread between polls (p2p_yield), then sleeps on the rank's doorbell, naps of at
// most p2p_sleep with a poll between them, until a packet rings it. The engine never calls Endpoint.Send or Transport.Endpoint from inside
// Handler.Packet: answers generated while handling packets are queued and sent after
// Poll returns.
package p2p

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mpigo/mpigo/internal/config"
	"github.com/mpigo/mpigo/internal/idle"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/transport"
)

// Special ranks and tags. The mpi layer maps MPI_ANY_SOURCE, MPI_PROC_NULL and
// MPI_ANY_TAG to these.
const (
	AnySource = -1
	ProcNull  = -2
	AnyTag    = -1
	// MaxTag is the largest tag (MPI_TAG_UB): tags travel as int32.
	MaxTag = math.MaxInt32
)

// Mode is a send mode.
type Mode uint8

const (
	Standard    Mode = iota
	Synchronous      // completes only once a receive has matched the message
	Ready            // the receive is known to be posted (sent as Standard)
	Buffered         // copied into the attached buffer; completes at once
)

func (m Mode) String() string {
	switch m {
	case Standard:
		return "standard"
	case Synchronous:
		return "synchronous"
	case Ready:
		return "ready"
	case Buffered:
		return "buffered"
	}
	return "mode?"
}

// Errors. Statuses and returned errors wrap these, so errors.Is works on them.
var (
	ErrTruncate = errors.New("message truncated")
	ErrBuffer   = errors.New("attached buffer too small")
	ErrNoBuffer = errors.New("no buffer attached")
	// ErrBufferAttached is an attach where a buffer is attached already.
	ErrBufferAttached = errors.New("a buffer is attached already")
	ErrClosed         = errors.New("engine closed")
	ErrRequest        = errors.New("invalid request")
)

var (
	setProtocol = config.String("p2p_protocol", "auto",
		"protocol for messages: auto (cheapest by the transport's cost model), or force eager, pipeline or get").OneOf("auto", "eager", "pipeline", "get").Live()
	setEagerLimit = config.Size("eager_limit", 0,
		"largest message sent eagerly (payload in the first packet); 0: chosen from the transport's cost model").Live()
	setPeerPolls = config.Int("p2p_peer_polls", 512,
		"polls a receive waiting for one peer makes of that peer's packets alone (shm), before the full progress loop; 0: none").AtLeast(0).Live()
	setAdapt = config.Bool("p2p_adapt", true,
		"let the receiver of a large message (32 KiB and more) choose between pipeline and get by timing both, "+
			"where single copy is possible; false: the cost models alone decide").Live()
	setSplit = config.Bool("p2p_split", true,
		"split a single-copy get of 32 KiB or more between the two ranks: the receiver reads half, the sender writes the other half "+
			"(both cores copy); false: the receiver reads it all").Live()
	setProtoInfo = config.Bool("proto_info", false,
		"print each peer's protocol selection table to stderr when the peer is first used (like UCX_PROTO_INFO)").Live()
)

// Options tune an engine. The zero value takes every setting from internal/config.
type Options struct {
	// Doorbell is the rank's doorbell, rung by transports when a packet arrives. The
	// zero value makes a local one (waiters then wake only by timeout or completion).
	Doorbell transport.Doorbell
	// Protocol forces a protocol: "eager", "pipeline", "get"; "" or "auto" selects by cost.
	Protocol string
	// EagerLimit caps eager messages in bytes; 0 takes the setting, negative: no cap.
	EagerLimit int64
	// Spin and Yield are the idle policy's poll counts (0: the settings, through
	// idle.Configured; negative: none).
	Spin, Yield int
	// Sleep is the longest doorbell sleep (0: the setting).
	Sleep time.Duration
	// Oversubscribed says ranks outnumber cores: waiters yield the CPU far sooner.
	Oversubscribed bool
	// ProtoInfo receives each peer's protocol table when the peer is first used
	// (nil: stderr if the proto_info setting is on).
	ProtoInfo io.Writer
	// Events receives the engine's events that a tool wants (nil: none; tools.go).
	Events *EventLog
	// KeepWildcards keeps AnySource receives pending when a peer fails (by default
	// they complete with the failure, as MPI-4 prescribes for ULFM).
	KeepWildcards bool
	// Serialized promises that the engine's methods are called by one goroutine at a
	// time (each call happening before the next), as MPI_THREAD_SERIALIZED does: the
	// engine then takes no lock, until Concurrent. PeerFailed may still come from any
	// goroutine.
	Serialized bool
	// SharedLock makes the engine's lock a word in its outside memory, which code
	// outside Go may take too (lock.go; the C library's short ways at
	// MPI_THREAD_MULTIPLE). Without it the lock is a sync.Mutex.
	SharedLock bool
}

// PeerChecker may be implemented by a Transport that can tell, other than by a failed
// Send, that a peer died (the shm transport: a dead pid). The engine asks after a
// doorbell sleep timed out, for peers in use. PeerErr (the TCP transport's name for
// it) is accepted too.
type PeerChecker interface {
	CheckPeer(peer int) error
}

type peerErrer interface {
	PeerErr(peer int) error
}

// Armer is implemented by a Transport that must be told before the engine sleeps so
// that it rings the doorbell when a packet arrives (TCP arms its socket watcher).
type Armer interface {
	Arm()
}

// Engine is one rank's point-to-point engine.
type Engine struct {
	mu engineLock // a sync.Mutex, or none at all for a serialised program (lock.go)

	self   int
	self32 int32
	size   int          // the job's
	reach  atomic.Int64 // the peers addressed are [0, reach): the job's ranks, then those of AddPeers
	trs    []transport.Transport
	h      transport.Handler // the engine as a packet handler, boxed once
	armers []Armer

	peers []*peer
	busy  []*peer // peers with queued packets or streams
	gets  reqList // receives reading a sender's memory (Get protocol)
	ctxs  []*ctxq // matching queues by context id (dense ids)
	ctxm  map[uint32]*ctxq
	reqs  []*request // every request ever made, by index (cookies name them)
	freeR []*request
	freeU []*umsg
	pool  bufPool
	hdr   transport.Header // scratch header: Send's argument must not escape per call
	pack  []byte           // scratch for packing non-contiguous data

	db         transport.Doorbell
	sleepers   atomic.Int32
	idle       idle.Adaptive // the idle policy of block, with the spin in force
	peerPolls  int           // a receive's polls of its peer's packets alone (pollPeer)
	shortRecvs uint64        // blocking receives done by recvNow
	anyNext    int           // the peer whose ring an AnySource recvNow looks at first
	takers     int           // peers whose ring is shown to recvNow (p.take)
	deferFn    func()        // posts the receives code outside Go holds back (SetDeferred)
	inDefer    bool          // deferFn runs
	force      string
	eagerCap   int64
	info       io.Writer
	// forced, capped and infoOpt are what Options fixed, which Retune leaves alone.
	forced   string
	capped   int64
	infoOpt  io.Writer
	keepWild bool
	adaptive bool // p2p_adapt, and no protocol forced
	split    bool // p2p_split
	putAsked bool // a split get's put request is queued: push sends it before reading
	// pairing: the peer to which a send-receive's large send follows the receive being
	// posted (IrecvPair); nil outside IrecvPair.
	pairing *peer

	lastCheck time.Time // when checkPeers last ran (after a doorbell timeout)

	failed error
	bsend  bsendState             // the process's buffer (MPI_Buffer_attach)
	cbufs  map[uint32]*bsendState // communicators' buffers, by context (MPI_Comm_attach_buffer)
	bsess  map[uint32]uint32      // the session buffer key of contexts derived from a session

	// sent counts what this rank sent to each world rank: sent[2*dest] on even
	// contexts, sent[2*dest+1] on odd ones (core gives each communicator an even
	// context for its users' messages and the odd one above it for its collectives).
	// Written under e.mu with idle.Publish, read through Sent from any goroutine.
	// Peers beyond the job (AddPeers) are counted in far instead, so that sent, which
	// the record of calls reads in place, keeps its size and address.
	sent []prof.Link
	far  atomic.Pointer[farTraffic]

	// What code outside Go reads of the engine, in memory outside Go's heap
	// (outside.go): the ok word, and per world rank its ring record while the short
	// way may use it, and the peer's eager limits, alone and in an exchange. sent
	// lies in the same memory.
	out     *outsideHead
	rings   []uintptr
	eager   []int64
	exch    []int64
	inrings []uintptr
	ppAll   bool // findPollers has nothing left to look up

	// What the tool interface reads (tools.go): queue counts, the transport of each
	// world rank (index in trs plus one; 0 before it is connected) and the rendezvous
	// counts per transport, the watermarks a tool tracks, the waits' time while a tool
	// watches, and the event log.
	qst       QueueStats
	routes    []uint32
	rdv       []*rdvStats
	tv        atomic.Pointer[toolView] // trs and rdv, as TransportStats reads them
	hwmMu     sync.Mutex
	hwm       atomic.Pointer[[]*atomic.Uint64]
	waitWatch atomic.Int32
	waitNanos atomic.Uint64
	log       *EventLog

	failMu  sync.Mutex // guards failQ, which PeerFailed fills without e.mu
	failQ   []peerFailure
	failNew atomic.Bool

	srv served // the served contexts (served.go)
}

// New makes the engine of rank self in a job of size ranks. Each peer is reached by
// the first transport in trs that Reaches it (order them self, shm, tcp); endpoints are
// made on first use.
func New(self, size int, trs []transport.Transport, opts Options) (*Engine, error) {
	if size <= 0 || size > math.MaxInt32 {
		return nil, fmt.Errorf("New: size %d out of range [1,%d]", size, math.MaxInt32)
	}
	if self < 0 || self >= size {
		return nil, fmt.Errorf("New: self %d out of range [0,%d)", self, size)
	}
	e := &Engine{
		self:   self,
		self32: int32(self),
		size:   size,
		trs:    append([]transport.Transport(nil), trs...),
		peers:  make([]*peer, size),
		routes: make([]uint32, size),
		db:     opts.Doorbell,
		log:    opts.Events,
	}
	if err := e.mapOutside(size); err != nil {
		return nil, fmt.Errorf("New: mapping the engine's outside words: %w", err)
	}
	if opts.SharedLock {
		e.shareLock()
	}
	e.reach.Store(int64(size))
	e.far.Store(&farTraffic{})
	for range trs {
		e.rdv = append(e.rdv, &rdvStats{})
	}
	e.publishTools()
	if opts.Serialized {
		e.mu.off.Store(true)
	}
	e.outsideOK()
	e.h = (*handler)(e)
	for _, t := range e.trs {
		if a, ok := t.(Armer); ok {
			e.armers = append(e.armers, a)
		}
	}
	if e.db == (transport.Doorbell{}) {
		e.db = transport.NewLocalDoorbell()
	}
	e.force, e.forced, e.capped, e.infoOpt = opts.Protocol, opts.Protocol, opts.EagerLimit, opts.ProtoInfo
	if e.force == "" {
		e.force = setProtocol.Get()
	}
	switch e.force {
	case "auto", "eager", "pipeline", "get":
	default:
		return nil, fmt.Errorf("New: protocol %q: must be auto, eager, pipeline or get", e.force)
	}
	e.eagerCap = opts.EagerLimit
	if e.eagerCap == 0 {
		e.eagerCap = setEagerLimit.Get()
	}
	p := idle.Policy{Spin: opts.Spin, Yield: opts.Yield, Sleep: opts.Sleep}.Or(idle.Configured())
	if opts.Oversubscribed {
		p = p.Oversubscribed()
	}
	e.idle = idle.NewAdaptive(p, endWindow)
	e.peerPolls = max(int(setPeerPolls.Get()), 0)
	e.out.polls = int64(min(e.peerPolls, e.idle.Spin())) // before pollPeer's first: C's nonblocking receives wait too
	e.info = opts.ProtoInfo
	if e.info == nil && setProtoInfo.Get() {
		e.info = os.Stderr
	}
	e.keepWild = opts.KeepWildcards
	e.adaptive = e.force == "auto" && setAdapt.Get()
	e.split = setSplit.Get()
	e.reqs = make([]*request, 0, 64)
	e.pack = make([]byte, 64<<10)
	return e, nil
}

// EagerUpTo reports whether every message of at most n bytes leaves eagerly (a
// blocking Send of one returns without waiting for its receiver), whatever the peer:
// not when a rendezvous protocol is forced for every size, or the eager limit is set
// below n. (The transports' cost models always choose eager for a few hundred bytes.)
func (e *Engine) EagerUpTo(n int64) bool {
	return (e.force == "auto" || e.force == "eager") && (e.eagerCap <= 0 || e.eagerCap >= n)
}

// Rank and Size describe the job the engine belongs to.
func (e *Engine) Rank() int { return e.self }
func (e *Engine) Size() int { return e.size }

// Peers is the number of peers the engine addresses: Size, or more after AddPeers.
func (e *Engine) Peers() int { return int(e.reach.Load()) }

// Doorbell returns the doorbell the engine sleeps on.
func (e *Engine) Doorbell() transport.Doorbell { return e.db }

// peer is the engine's state for one remote rank.
type peer struct {
	rank       int
	tr         transport.Transport
	ti         int // tr's index in the engine's transports
	ep         transport.Endpoint
	cs         transport.CompactSender // ep, if it writes small eager packets without a Header
	csMax      int64                   // the largest payload cs takes
	sc         transport.SingleCopy
	mapper     transport.Mapper // tr, where it copies some memory through mappings
	maxPayload int
	eagerMax   int64 // messages up to this size go eagerly; -1: none
	table      Table
	exchange   Table         // the choice for a large message that arrives while one to the peer is under way (adapt.go)
	err        error         // set once the peer has failed
	sent       *[2]prof.Link // what was sent to it, on even and odd contexts (count)
	oring      uintptr       // its ring's record for the short way, if it may have one (outside.go)

	sendq    reqList            // sends whose first packet waits, in order
	streams  reqList            // pipeline sends streaming fragments
	ctrl     []transport.Header // answers waiting to be sent (CTS, FIN, ACK)
	ctrlHead int
	inBusy   bool

	adapt adaptive // large receives from this peer, timed by protocol (adapt.go)
	getOK bool     // a single-copy read from this peer has worked: gets may be split
	// offered: this rank's sends to the peer offered for get (splitMin bytes and
	// more) and not complete, which the peer is reading or will read: while there
	// are any, a get from the peer is not split (startGet)
	offered int

	pp      transport.PeerPoll  // polls this peer's packets alone (see pollPeer)
	take    transport.HeadTaker // pp, if it takes the packet at its head alone (recvNow)
	ppTries uint8               // lookups of pp that found none yet
}

func (p *peer) idle() bool {
	return p.ctrlHead == len(p.ctrl) && p.sendq.head == nil && p.streams.head == nil
}

// peerState returns the state of rank, making it (without an endpoint) on first use.
func (e *Engine) peerState(rank int) *peer {
	p := e.peers[rank]
	if p == nil {
		p = &peer{rank: rank, eagerMax: -1, csMax: -1, sent: e.sentTo(rank)}
		e.peers[rank] = p
	}
	return p
}

// connect routes p to the first transport that reaches it and builds its protocol
// table. On failure the peer is failed.
func (e *Engine) connect(p *peer) error {
	if p.err != nil {
		return p.err
	}
	if p.ep != nil {
		return nil
	}
	for _, t := range e.trs {
		if !t.Reaches(p.rank) {
			continue
		}
		ep, err := t.Endpoint(p.rank)
		if err != nil {
			e.failPeer(p, fmt.Errorf("endpoint of rank %d over %s: %w", p.rank, t.Name(), err))
			return p.err
		}
		p.tr, p.ep = t, ep
		if cs, ok := ep.(transport.CompactSender); ok {
			p.cs, p.csMax = cs, int64(cs.CompactMax())
		}
		e.route(p)
		p.sc, _ = t.(transport.SingleCopy)
		p.mapper, _ = t.(transport.Mapper)
		p.maxPayload = ep.MaxPayload()
		e.selectTables(p)
		if p.maxPayload > len(e.pack) {
			e.pack = make([]byte, p.maxPayload)
		}
		e.outsideRing(p)
		return nil
	}
	p.err = fmt.Errorf("no transport reaches rank %d", p.rank)
	return p.err
}

// Protocols returns the protocol selection table for rank, connecting to it if needed.
func (e *Engine) Protocols(rank int) (Table, error) {
	if n := e.Peers(); rank < 0 || rank >= n {
		return Table{}, fmt.Errorf("Protocols: rank %d out of range [0,%d)", rank, n)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.peerState(rank)
	if err := e.connect(p); err != nil {
		return Table{}, err
	}
	return p.table, nil
}

func (e *Engine) markBusy(p *peer) {
	if !p.inBusy {
		p.inBusy = true
		e.busy = append(e.busy, p)
		e.hideRing(p)
		e.out.quiet = 0
	}
}

// queueCtrl queues an answer packet to rank; it is sent by the progress loop, never
// from inside a packet handler.
func (e *Engine) queueCtrl(rank int32, kind uint8, sendID, recvID uint64, off, n int64) {
	e.queueCtrlHdr(rank, transport.Header{Kind: kind, SendID: sendID, RecvID: recvID, Offset: uint64(off), Len: uint64(n)})
}

// queueCtrlHdr queues control packet h (its Src is filled in) for rank.
func (e *Engine) queueCtrlHdr(rank int32, h transport.Header) {
	p := e.peerState(int(rank))
	if p.err != nil {
		return
	}
	h.Src = e.self32
	p.ctrl = append(p.ctrl, h)
	e.markBusy(p)
}

// PeerFailed tells the engine that rank has died (from the process manager, or a
// transport's callback): every request waiting on it completes with an error naming
// it. It may be called from any goroutine, including from inside a transport's Poll
// (where the engine's lock is held): the failure is queued and applied by the next
// progress step.
func (e *Engine) PeerFailed(rank int, err error) {
	if rank < 0 || rank >= e.Peers() {
		return
	}
	e.failMu.Lock()
	e.failQ = append(e.failQ, peerFailure{rank, err})
	e.failMu.Unlock()
	e.failNew.Store(true)
	// Serialised, the lock is no lock: the program's goroutine applies the failure
	// when it next makes progress.
	if !e.mu.off.Load() && e.mu.mu.TryLock() {
		e.applyFailures()
		e.mu.mu.Unlock()
	}
	e.db.Ring()
}

type peerFailure struct {
	rank int
	err  error
}

// applyFailures applies the failures PeerFailed queued. The caller holds e.mu.
func (e *Engine) applyFailures() {
	e.failNew.Store(false)
	e.failMu.Lock()
	q := e.failQ
	e.failQ = nil
	e.failMu.Unlock()
	for _, f := range q {
		e.failPeer(e.peerState(f.rank), f.err)
	}
}

// failPeer completes with an error every request that waits on p: sends to it,
// receives matched to its messages or posted for it, and (unless KeepWildcards)
// AnySource receives.
func (e *Engine) failPeer(p *peer, err error) {
	if p.err != nil {
		return
	}
	if err == nil {
		err = transport.ErrPeerGone
	}
	p.err = fmt.Errorf("rank %d failed: %w", p.rank, err)
	e.hidePeer(p)
	e.logFailure(p)
	p.ctrl, p.ctrlHead = p.ctrl[:0], 0
	rank := int32(p.rank)
	for _, r := range e.reqs {
		if !r.pending() {
			continue
		}
		switch {
		case r.kind == sendReq && r.peer == rank:
		case r.kind == recvReq && r.matched && r.st.Source == p.rank:
		case r.kind == recvReq && !r.matched && (r.peer == rank || (r.peer == AnySource && !e.keepWild)):
		default:
			continue
		}
		e.fail(r, p.err)
	}
}

// fail completes r with err.
func (e *Engine) fail(r *request, err error) {
	if r.list != nil {
		r.list.remove(r)
	}
	r.st.Err = err
	e.complete(r)
}

// Fail aborts the engine: every pending request completes with err, and every later
// operation returns it.
func (e *Engine) Fail(err error) {
	if err == nil {
		err = ErrClosed
	}
	e.mu.Lock()
	if e.failed == nil {
		e.failed = err
	}
	e.outsideOK()
	for _, r := range e.reqs {
		if r.pending() {
			e.fail(r, e.failed)
		}
	}
	for _, p := range e.peers {
		if p != nil {
			p.ctrl, p.ctrlHead = p.ctrl[:0], 0
		}
	}
	e.mu.Unlock()
	e.db.Ring()
}

// Close aborts every pending operation with ErrClosed. It does not close the
// transports: they belong to the caller.
func (e *Engine) Close() error {
	e.Fail(ErrClosed)
	return nil
}

// PeerErr returns why rank is known to have failed, or nil: a failure the engine has
// recorded, or one that a transport that can tell (PeerChecker) reports when asked
// here, which the engine then records.
func (e *Engine) PeerErr(rank int) error {
	if rank < 0 || rank >= e.Peers() || rank == e.self {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.failNew.Load() {
		e.applyFailures()
	}
	p := e.peerState(rank)
	if p.err != nil {
		return p.err
	}
	for _, t := range e.trs {
		if p.tr != t && (p.tr != nil || !t.Reaches(rank)) {
			continue
		}
		var err error
		switch c := t.(type) {
		case PeerChecker:
			err = c.CheckPeer(rank)
		case peerErrer:
			err = c.PeerErr(rank)
		}
		if err != nil {
			e.failPeer(p, err)
			return p.err
		}
	}
	return nil
}

// checkPeers asks the transports that can tell whether peers in use have died.
func (e *Engine) checkPeers() {
	for _, t := range e.trs {
		var check func(int) error
		switch c := t.(type) {
		case PeerChecker:
			check = c.CheckPeer
		case peerErrer:
			check = c.PeerErr
		default:
			continue
		}
		for _, p := range e.peers {
			if p != nil && p.err == nil && (p.tr == t || (p.tr == nil && t.Reaches(p.rank))) {
				if err := check(p.rank); err != nil {
					e.failPeer(p, err)
				}
			}
		}
	}
}
