// Package shm is the shared-memory transport: it moves packets between the ranks of one
// node through per-pair rings in shared memory, and copies large messages straight
// out of a peer's memory with cross-memory attach (process_vm_readv) when the kernel
// allows it.
//
// # Set-up
//
// Peers' addresses are known only after the wire-up fence, so set-up has two phases:
//
//	t, err := shm.New(client, shm.Options{}) // creates the segment, puts pm.KeyShm and pm.KeyPID
//	err = client.Fence()                      // the caller fences once, for all transports
//	err = t.Start()                           // probes CMA; attaches to nobody
//
// Connections are lazy: the first Endpoint(peer) maps the peer's segment and claims
// this rank's slot in it; a receiver learns of a new sender from a bit the sender sets
// in the receiver's control block. Memory is spent only on pairs that talk.
//
// # Memory, and nothing left behind
//
// Every rank owns one segment: an anonymous memfd, which peers open through
// /proc/<pid>/fd/<fd> (same user, no Yama restriction on reading /proc), so there is
// never a name to remove and a rank killed with -9 leaves nothing. Where memfd fails
// (or shm_memory=file) the segment is a file FilePrefix(job)+"<rank>-<pid>" in
// /dev/shm, unlinked as soon as every local peer has attached, and at Close; the
// launcher removes what killed ranks left with RemoveLeftovers(job).
//
// # Rings
//
// The segment holds the rank's doorbell and one slot per possible sender on the node
// (indexed by local rank). The rings live in the receiver's memory: the receiver polls
// its own pages and never maps anyone, and packets already written survive the death
// of their sender. A slot is a ring of 128-byte cells (one per packet; a small eager
// message fits whole in one cell, one or two cache lines published by one atomic store) beside
// a byte ring for larger payloads (ring.go). A sender writes with no system call, lock
// or allocation, and rings the receiver's doorbell (one atomic add when nobody sleeps).
// Poll looks only at the slots of senders that attached.
//
// # Protocols
//
// Eager packets and pipeline fragments (up to shm_max_fragment, 64 KiB) go through the
// rings; Get is ReadFrom (process_vm_readv), or a memmove through a mapping where the
// peer's memory came from Alloc (MPI_Alloc_mem; memory.go). Each endpoint's Models
// come from the host's copy and CMA speeds, measured once per process in the
// background after Start (calibrate.go), and from the two ranks' locality (model.go).
//
// # Concurrency
//
// Poll must not run concurrently with itself, and Send on one endpoint must not run
// concurrently with itself (the point-to-point engine serialises both). Everything
// else is safe for concurrent use.
package shm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/config"
	"github.com/mpigo/mpigo/internal/pm"
	"github.com/mpigo/mpigo/internal/transport"
	"golang.org/x/sys/unix"
)

var (
	setRingSize = config.Size("shm_ring_size", 1<<20,
		"payload ring bytes per sender→receiver pair on a node (rounded up to a power of two); "+
			"pipelined messages stream through it, so it should hold several fragments; left at "+
			"the default it shrinks to 16 MiB/(local ranks-1), not below 256 KiB").Range(pageSize, 1<<30).Same()
	setCells = config.Int("shm_ring_cells", 256,
		"packet slots (128 bytes each) per sender→receiver pair (rounded up to a power of two)").Range(4, 1<<20).Same()
	setFragment = config.Size("shm_max_fragment", 64<<10,
		"largest payload of one shared-memory packet: the pipeline fragment size").Range(1, 512<<20).Same()
	setEager = config.Size("shm_eager_limit", 16<<10,
		"largest message the shared-memory transport offers to send eagerly (copied in, copied out)").Range(0, 512<<20)
	setMemory = config.String("shm_memory", "auto",
		"shared memory backing: auto (memfd, else /dev/shm file), memfd, or file").OneOf("auto", "memfd", "file")
	setCMA = config.Bool("shm_cma", true,
		"use cross-memory attach (process_vm_readv) for single-copy gets between ranks of a node")
	setNTCopy = config.String("shm_nt_copy", "auto",
		"how a sender copies a whole message of shm_nt_min bytes up to shm_eager_limit into the receiver's ring: auto "+
			"(each pair times ordinary and non-temporal stores and keeps the faster), on (non-temporal), "+
			"off (ordinary); non-temporal stores exist on amd64 only").OneOf("auto", "on", "off")
	setNTMin = config.Size("shm_nt_min", 1024,
		"smallest payload that shm_nt_copy applies to").Range(lineSize, 1<<30)
)

var (
	_ transport.Transport  = (*Transport)(nil)
	_ transport.SingleCopy = (*Transport)(nil)
)

// Options override the settings; zero values take them from internal/config.
type Options struct {
	RingSize    int    // payload ring bytes per pair (power of two)
	Cells       int    // packet slots per pair (power of two)
	MaxFragment int    // largest payload of one Send
	EagerLimit  int    // largest message the Eager model covers
	Memory      string // "auto", "memfd" or "file"
	NoCMA       bool   // never offer Get
	NTCopy      string // "auto", "on" or "off" (streamcopy.go)
	NTMin       int    // smallest payload NTCopy applies to
}

// ringBudget bounds the default rings' memory per receiver: with many ranks on a node,
// each pair's ring shrinks (not below 256 KiB, four 64 KiB fragments in flight) so that
// a fully connected node of n ranks holds about n x 16 MiB, not n x (n-1) MiB.
const ringBudget = 16 << 20

func (o Options) resolve(localSize int) (Options, error) {
	if o.RingSize == 0 {
		o.RingSize = int(setRingSize.Get())
		if _, src := setRingSize.Value(); src == config.Default && localSize > 2 {
			share := 1 << (bits.Len(uint(ringBudget/(localSize-1))) - 1) // a power of two, rounded down
			o.RingSize = max(256<<10, min(o.RingSize, share))
		}
	}
	if o.Cells == 0 {
		o.Cells = int(setCells.Get())
	}
	if o.MaxFragment == 0 {
		o.MaxFragment = int(setFragment.Get())
	}
	if o.EagerLimit == 0 {
		o.EagerLimit = int(setEager.Get())
	}
	if o.Memory == "" {
		o.Memory = setMemory.Get()
	}
	if !setCMA.Get() {
		o.NoCMA = true
	}
	if o.NTCopy == "" {
		o.NTCopy = setNTCopy.Get()
	}
	if o.NTMin == 0 {
		o.NTMin = int(setNTMin.Get())
	}
	switch {
	case o.RingSize < pageSize || o.RingSize > 1<<30:
		return o, fmt.Errorf("shared memory: shm_ring_size %d bytes: must be between %d and 1 GiB", o.RingSize, pageSize)
	case o.Cells < 4 || o.Cells > 1<<20:
		return o, fmt.Errorf("shared memory: shm_ring_cells %d: must be between 4 and 1048576", o.Cells)
	case o.Memory != "auto" && o.Memory != "memfd" && o.Memory != "file":
		return o, fmt.Errorf("shared memory: shm_memory %q: must be auto, memfd or file", o.Memory)
	case o.NTCopy != "auto" && o.NTCopy != "on" && o.NTCopy != "off":
		return o, fmt.Errorf("shared memory: shm_nt_copy %q: must be auto, on or off", o.NTCopy)
	case o.NTMin < lineSize:
		return o, fmt.Errorf("shared memory: shm_nt_min %d bytes: must be at least %d (a cache line)", o.NTMin, lineSize)
	}
	o.RingSize = 1 << bits.Len(uint(o.RingSize-1))
	o.Cells = 1 << bits.Len(uint(o.Cells-1))
	if o.MaxFragment <= 0 || o.MaxFragment > o.RingSize/2 {
		return o, fmt.Errorf("shared memory: shm_max_fragment %d bytes: must be positive and at most half the ring (%d bytes)",
			o.MaxFragment, o.RingSize/2)
	}
	if o.EagerLimit < 0 || o.EagerLimit > o.MaxFragment {
		return o, fmt.Errorf("shared memory: shm_eager_limit %d bytes: must be between 0 and shm_max_fragment (%d bytes)",
			o.EagerLimit, o.MaxFragment)
	}
	return o, nil
}

// Transport is a rank's shared-memory transport.
type Transport struct {
	c         pm.Client
	rank      int
	node      int
	localRank int
	pid       int
	parked    *parked // the thread peers' single-copy calls name
	opts      Options

	seg      *segment
	addr     address
	memfd    int
	door     transport.Doorbell
	connGen  *uint32
	seenGen  uint32
	in       []*inbound // senders attached to us; appended by Poll only
	inSlots  []uint64   // bitmap of the slots in `in`
	unlinked bool       // file mode: the file's name is gone

	done atomic.Bool // Close has run: Poll must not touch the unmapped segment

	mu      sync.Mutex
	started bool
	closed  bool
	out     map[int]*outbound
	peers   map[int]*peerInfo // for ReadFrom
	// ready holds the peers whose single-copy calls are known to work (Endpoint's
	// probe read passed), in a map that is replaced, never changed: a ReadFrom to them
	// looks there without t.mu, which every message of a get would otherwise take.
	ready  atomic.Pointer[map[int]*peerInfo]
	cma    bool
	cmaWhy string
	myCPUs unix.CPUSet
}

// New creates this rank's segment and publishes its address with c.Put. The caller
// must then run c.Fence and call Start.
func New(c pm.Client, opts Options) (*Transport, error) {
	localSize, localRank := c.LocalSize(), c.LocalRank()
	o, err := opts.resolve(localSize)
	if err != nil {
		return nil, err
	}
	if localSize < 1 || localRank < 0 || localRank >= localSize {
		return nil, fmt.Errorf("shared memory: local rank %d of %d: must be in [0, local size)", localRank, localSize)
	}
	t := &Transport{c: c, rank: c.Rank(), node: c.NodeOf(c.Rank()), localRank: localRank, pid: os.Getpid(),
		opts: o, memfd: -1, out: map[int]*outbound{}, peers: map[int]*peerInfo{}}
	mode := 0
	switch o.Memory {
	case "memfd":
		mode = modeMemfd
	case "file":
		mode = modeFile
	}
	l := newLayout(localSize, o.Cells, o.RingSize)
	seg, addr, fd, err := createSegment(mode, c.JobID(), t.rank, t.pid, l)
	if err != nil {
		return nil, err
	}
	seg.l = l
	seg.writeControl(t.pid)
	addr.base = uint64(uintptr(seg.base))
	t.seg, t.addr, t.memfd = seg, addr, fd
	t.door = transport.NewDoorbell(seg.u32(offDoorbell), seg.u32(offDoorbell+4))
	t.connGen = seg.u32(offConnGen)
	t.inSlots = make([]uint64, (localSize+63)/64)
	t.parked = park()
	pid := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, uint32(t.pid)), uint32(t.parked.tid))
	pid = appendMemFd(pid, memTableFd())
	if err := c.Put(pm.Proc, pm.KeyShm, addr.encode()); err != nil {
		t.Close()
		return nil, fmt.Errorf("shared memory: publishing address: %w", err)
	}
	if err := c.Put(pm.Proc, pm.KeyPID, pid); err != nil {
		t.Close()
		return nil, fmt.Errorf("shared memory: publishing pid: %w", err)
	}
	return t, nil
}

// Start finishes set-up after the wire-up fence: it decides whether single-copy reads
// are possible. It attaches to no peer.
func (t *Transport) Start() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return errors.New("shared memory: Start after Close")
	}
	if t.opts.NoCMA {
		t.cma, t.cmaWhy = false, "disabled by shm_cma=false"
	} else {
		t.cma, t.cmaWhy = probeCMA()
	}
	unix.SchedGetaffinity(0, &t.myCPUs)
	// Calibrate in the background: the first Endpoint waits for it only if it comes
	// within the few milliseconds calibration takes.
	go hostCosts()
	t.started = true
	return nil
}

// CMA reports whether single-copy reads are in use, and why not when they are not.
func (t *Transport) CMA() (bool, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cma, t.cmaWhy
}

// Name implements transport.Transport.
func (t *Transport) Name() string { return "shm" }

// Doorbell is the doorbell senders ring after every packet to this rank. The progress
// engine reads Seq, polls, and if nothing came sleeps with Wait(seq, timeout).
func (t *Transport) Doorbell() transport.Doorbell { return t.door }

// Reaches implements transport.Transport: peers on this node that published an address.
func (t *Transport) Reaches(peer int) bool {
	if peer == t.rank || peer < 0 || peer >= t.c.Size() || t.c.NodeOf(peer) != t.node {
		return false
	}
	_, ok := t.c.Get(pm.Proc, pm.KeyShm, peer)
	return ok
}

// Endpoint implements transport.Transport. The first call for a peer maps the peer's
// segment and claims this rank's slot in it.
func (t *Transport) Endpoint(peer int) (transport.Endpoint, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.out[peer]; ok {
		return e, nil
	}
	switch {
	case t.closed:
		return nil, fmt.Errorf("shared memory: Endpoint(%d) after Close", peer)
	case !t.started:
		return nil, fmt.Errorf("shared memory: Endpoint(%d) before Start: call Start after the wire-up fence", peer)
	case peer == t.rank:
		return nil, fmt.Errorf("shared memory: Endpoint(%d): a rank does not send to itself through shm", peer)
	case peer < 0 || peer >= t.c.Size():
		return nil, fmt.Errorf("shared memory: Endpoint(%d): peer must be in [0, %d)", peer, t.c.Size())
	case t.c.NodeOf(peer) != t.node:
		return nil, fmt.Errorf("shared memory: Endpoint(%d): peer is on node %d, this rank on node %d", peer, t.c.NodeOf(peer), t.node)
	}
	a, err := t.address(peer)
	if err != nil {
		return nil, fmt.Errorf("shared memory: Endpoint(%d): %w", peer, err)
	}
	live := newLiveness(a.pid)
	seg, err := openSegment(a)
	if err != nil {
		if !live.alive() {
			err = fmt.Errorf("%v: %w", err, transport.ErrPeerGone)
		}
		live.close()
		return nil, fmt.Errorf("shared memory: Endpoint(%d): %w", peer, err)
	}
	l := seg.l
	if t.localRank >= l.localSize {
		unix.Munmap(seg.mem)
		live.close()
		return nil, fmt.Errorf("shared memory: Endpoint(%d): local rank %d outside the peer's %d slots", peer, t.localRank, l.localSize)
	}
	slot := l.slotOff(t.localRank)
	seg.populate(slot)
	// Identify ourselves in the slot before setting the bit that makes the owner look.
	atomic.StoreUint32(seg.u32(slot+slotMeta), uint32(t.rank)+1)
	atomic.StoreUint32(seg.u32(slot+slotMeta+4), uint32(t.pid))
	atomic.OrUint64(seg.u64(offConnected+t.localRank/64*8), 1<<(t.localRank%64))
	atomic.AddUint32(seg.u32(offConnGen), 1)
	door := transport.NewDoorbell(seg.u32(offDoorbell), seg.u32(offDoorbell+4))
	door.Ring()
	e := &outbound{
		t: t, peer: peer, seg: seg,
		cells:      unsafe.Add(seg.base, slot+slotCells),
		data:       unsafe.Add(seg.base, slot+slotCells+l.cells*cellSize),
		cons:       (*[2]uint64)(unsafe.Add(seg.base, slot+slotCons)),
		closed:     seg.u32(offClosed),
		block:      seg.u32(slot + slotMeta + slotBlock),
		door:       door,
		cellMask:   uint64(l.cells - 1),
		nCells:     uint64(l.cells),
		dataMask:   uint64(l.ringBytes - 1),
		dataSize:   uint64(l.ringBytes),
		maxPayload: min(t.opts.MaxFragment, l.ringBytes/2),
		live:       live,
		cc:         newCopyChooser(t.opts.NTCopy, t.opts.NTMin, t.opts.EagerLimit),
	}
	if err := e.mapOutside(seg); err != nil {
		unix.Munmap(seg.mem)
		live.close()
		return nil, fmt.Errorf("shared memory: Endpoint(%d): mapping the ring's record: %w", peer, err)
	}
	p, ok := t.peers[peer]
	if !ok {
		p = t.newPeer(peer, a.pid)
	}
	if p.cma && !probePeer(p.task, a.base) {
		p.cma, p.why = false, "a probe read of the peer's memory failed (ptrace permission?)"
	}
	if p.cma {
		t.markReady(peer, p)
	}
	e.models = t.models(a.pid, e.maxPayload, p.cma)
	t.out[peer] = e
	return e, nil
}

func (t *Transport) address(peer int) (address, error) {
	raw, ok := t.c.Get(pm.Proc, pm.KeyShm, peer)
	if !ok {
		return address{}, errors.New("peer published no shm address (did every rank call New before the fence?)")
	}
	return decodeAddress(raw)
}

// openPeer maps peer's segment for ringing its doorbell (Poll's goroutine only).
func (t *Transport) openPeer(peer int) (*segment, error) {
	a, err := t.address(peer)
	if err != nil {
		return nil, err
	}
	return openSegment(a)
}

// Poll implements transport.Transport.
func (t *Transport) Poll(h transport.Handler) int {
	if t.done.Load() {
		return 0
	}
	if atomic.LoadUint32(t.connGen) != t.seenGen {
		t.attach()
	}
	n := 0
	budget := int(t.opts.Cells)
	for _, in := range t.in {
		n += in.drain(h, budget)
	}
	return n
}

// PeerPoll implements transport.PeerPoller: the ring of peer, once it has attached.
func (t *Transport) PeerPoll(peer int) transport.PeerPoll {
	if t.done.Load() {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, in := range t.in {
		if in.src == peer {
			return in
		}
	}
	return nil
}

// attach picks up the senders that claimed a slot since the last look.
func (t *Transport) attach() {
	gen := atomic.LoadUint32(t.connGen)
	l := t.seg.l
	for w := range t.inSlots {
		bitsNow := atomic.LoadUint64(t.seg.u64(offConnected + w*8))
		for fresh := bitsNow &^ t.inSlots[w]; fresh != 0; fresh &= fresh - 1 {
			s := w*64 + bits.TrailingZeros64(fresh)
			slot := l.slotOff(s)
			t.seg.populate(slot)
			src := int(atomic.LoadUint32(t.seg.u32(slot+slotMeta))) - 1
			pid := int(atomic.LoadUint32(t.seg.u32(slot + slotMeta + 4)))
			in := &inbound{
				src:      src,
				cells:    unsafe.Add(t.seg.base, slot+slotCells),
				data:     unsafe.Add(t.seg.base, slot+slotCells+l.cells*cellSize),
				cons:     (*[2]uint64)(unsafe.Add(t.seg.base, slot+slotCons)),
				cellMask: uint64(l.cells - 1),
				dataMask: uint64(l.ringBytes - 1),
				dataSize: uint64(l.ringBytes),
				live:     newLiveness(pid),
				block:    t.seg.u32(slot + slotMeta + slotBlock),
				t:        t,
				// Less than the ring by a margin, so a sender never finds it full
				// while this rank has drained it (ring.go).
				lazyCells: uint64(max(l.cells/4, 1)),
				lazyData:  uint64(max(l.ringBytes/4, 1)),
			}
			in.rp = &in.local
			in.mapOutside() // if it fails, the positions stay local and C takes none of this ring
			t.mu.Lock()
			t.in = append(t.in, in)
			t.mu.Unlock()
		}
		t.inSlots[w] = bitsNow
	}
	t.seenGen = gen
	// In file mode the name is needed only until every local peer has attached: drop it
	// then, so that a later kill -9 leaves nothing behind.
	if t.addr.mode == modeFile && !t.unlinked {
		n := 0
		for _, w := range t.inSlots {
			n += bits.OnesCount64(w)
		}
		if n == l.localSize-1 {
			os.Remove(t.addr.path)
			t.unlinked = true
		}
	}
}

// Pending reports whether a packet is waiting (for a progress engine deciding to sleep).
func (t *Transport) Pending() bool {
	if atomic.LoadUint32(t.connGen) != t.seenGen {
		return true
	}
	for _, in := range t.in {
		if in.pending() {
			return true
		}
	}
	return false
}

// Check reports a peer this rank talks to, in either direction, that has died or
// closed its transport, as a *PeerGoneError (which wraps transport.ErrPeerGone and
// names the rank). It costs a system call per peer: the engine calls it when a wait on
// the doorbell has timed out, not per poll. Packets a dead sender wrote before dying
// are still delivered by Poll.
func (t *Transport) Check() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for peer, e := range t.out {
		if err := t.checkOut(peer, e); err != nil {
			return err
		}
	}
	for _, in := range t.in {
		if !in.live.alive() {
			return died(in.src, in.live.pid)
		}
	}
	return nil
}

func (t *Transport) checkOut(peer int, e *outbound) error {
	if e.err != nil {
		return e.err
	}
	if atomic.LoadUint32(e.closed) != 0 {
		return closedBy(peer)
	}
	if !e.live.alive() {
		return died(peer, e.live.pid)
	}
	return nil
}

// CheckPeer is Check for one peer (the engine's PeerChecker): it also covers a peer
// this rank waits for but has not heard from yet, through the pid the peer published.
func (t *Transport) CheckPeer(peer int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.out[peer]; ok {
		return t.checkOut(peer, e)
	}
	for _, in := range t.in {
		if in.src == peer {
			if !in.live.alive() {
				return died(peer, in.live.pid)
			}
			return nil
		}
	}
	p, err := t.peerLocked(peer)
	if err != nil {
		return nil // nothing known to check
	}
	if p.live == nil {
		l := newLiveness(p.pid)
		p.live = &l
	}
	if !p.live.alive() {
		return died(peer, p.pid)
	}
	return nil
}

// Close implements transport.Transport. Senders see ErrPeerGone from then on; the memory
// goes away when the last process that mapped it unmaps it or exits.
func (t *Transport) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true
	t.done.Store(true)
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	atomic.StoreUint32(t.seg.u32(offClosed), 1)
	t.door.Ring() // a sleeping owner thread, if any, should notice
	for _, e := range t.out {
		e.err = fmt.Errorf("shared memory: Send to rank %d after Close", e.peer)
		keep(unix.Munmap(e.seg.mem))
		keep(unix.Munmap(e.outside))
		e.live.close()
	}
	for _, in := range t.in {
		in.live.close()
		if in.outside != nil {
			in.local, in.rp = *in.rp, &in.local
			keep(unix.Munmap(in.outside))
			in.outside = nil
		}
		if in.doorSeg != nil {
			keep(unix.Munmap(in.doorSeg.mem))
		}
	}
	for _, p := range t.peers {
		if p.live != nil {
			p.live.close()
		}
		p.mem.close()
	}
	if t.addr.mode == modeFile {
		if err := os.Remove(t.addr.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			keep(err)
		}
	}
	keep(unix.Munmap(t.seg.mem))
	if t.memfd >= 0 {
		keep(unix.Close(t.memfd))
	}
	if t.parked != nil {
		t.parked.release()
	}
	return first
}

// Describe is one line for `mpigo info` and error reports: backing, geometry, CMA.
func (t *Transport) Describe() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	backing := "memfd"
	if t.addr.mode == modeFile {
		backing = "file " + t.addr.path
	}
	cma := "cma"
	if !t.cma {
		cma = "no cma (" + t.cmaWhy + ")"
	}
	return fmt.Sprintf("shm: %s, %d local ranks, %d cells + %d KiB ring per pair, fragments of %d KiB, eager up to %d B, %s",
		backing, t.seg.l.localSize, t.opts.Cells, t.opts.RingSize>>10, t.opts.MaxFragment>>10, t.opts.EagerLimit, cma)
}

// SharedMemory says that the peers this transport reaches share memory with this
// process (the node collectives' capability).
func (t *Transport) SharedMemory() bool { return true }
