package window

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/config"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/p2p"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/transport"
	"github.com/mpigo/mpigo/internal/transport/shm"
)

// Windows: MPI's one-sided communication. A window is made collectively over a
// communicator and gets a communicator of its own (a Dup: its own context ids), on
// whose point-to-point context requests travel and whose collectives serve Fence and
// Free. Each rank exposes its memory (Mem) with a size and displacement unit, and a
// control block: the passive-target lock word, the accumulate lock word, per peer
// a counter of exposure epochs posted to it and one of access epochs completed at it,
// and this rank's own epoch state (epoch.go).
//
// Per target, an origin reaches the memory one of two ways, chosen when the window is
// made from what every rank knows alike (the node map, the flavour, the transports):
//
//   - direct: the window's memory (WinAllocate, WinAllocateShared) lies in one region
//     of node shared memory per node (internal/transport/shm's Region: a memfd, never
//     a name in /dev/shm), which every rank of the node maps; an origin on the target's
//     node reads and writes it with loads and stores, accumulates with the CPU's
//     atomics or the target's accumulate lock (internal/rma), and takes the
//     passive-target lock word itself. A WinCreate window whose every rank gave memory
//     its node peers map (MPI_Alloc_mem's: peersMayMap) is direct too, without a
//     region: its control blocks come from the same allocator, and each rank maps its
//     node peers' memory and control blocks (mapCreated). A rank's own memory is
//     always direct.
//   - shipped: every other target (another node, the TCP transport forced, other
//     memory the caller owns (WinCreate), dynamic windows) gets requests
//     (internal/rma's format), applied in order by the target's progress goroutine,
//     one per process for all its windows (serve.go), which runs while such windows
//     live and sleeps in the engine's wait when there is nothing to do, so that
//     passive-target operations complete while the target computes and never calls
//     MPI. The goroutine gets a Go thread of its own (GOMAXPROCS raised once, at the
//     first): a rank given one thread would otherwise serve requests only when its
//     computation is preempted. A rank waiting inside a call on the window applies
//     the requests itself meanwhile (drain.go), one goroutine at a time.
//
// Completion: direct operations are complete when the call returns. A shipped Put or
// Accumulate is complete when the target has applied it; Flush, Unlock, Complete and
// Fence send a request whose reply comes after every earlier one from this origin was
// applied (one stream per pair keeps the order), and wait for the replies of
// operations that return data.
var setRMAShm = config.String("rma_shm", "auto",
	"one-sided windows of WinAllocate, and of WinCreate over MPI_Alloc_mem memory on every rank, in node shared memory, read and written directly by the node's ranks: "+
		"auto (when the shared-memory transport is in use), or off (every operation shipped to its target's progress goroutine)").OneOf("auto", "off").Live().Same()

// Flavor is how a window's memory came to be (MPI_WIN_FLAVOR_*, MPICH's values).
type Flavor int

const (
	FlavorCreate   Flavor = 1
	FlavorAllocate Flavor = 2
	FlavorDynamic  Flavor = 3
	FlavorShared   Flavor = 4
)

func (f Flavor) String() string {
	switch f {
	case FlavorCreate:
		return "create"
	case FlavorAllocate:
		return "allocate"
	case FlavorDynamic:
		return "dynamic"
	case FlavorShared:
		return "shared"
	}
	return "flavor " + strconv.Itoa(int(f))
}

// Args describe this rank's part of a new window, checked by internal/mpir (a size
// of at least 0, a displacement unit of at least 1).
type Args struct {
	Flavor    Flavor
	Size      int64  // bytes (Create: len(Mem); Dynamic: 0)
	DispUnit  int    // bytes per displacement unit, at least 1
	Mem       []byte // Create: the caller's memory
	Noncontig bool   // Shared: alloc_shared_noncontig (each rank's part page aligned)
	// Alloc gives an allocated window's memory where it does not lie in node shared
	// memory (nil: the Go heap): the C face's, which hands C a pointer to it. It is
	// called on every rank or on none (the choice is made alike everywhere), and the
	// window fails on every rank if it fails on one.
	Alloc func(n int64) ([]byte, error)
	// Bad is the error the caller met in this rank's arguments, nil if none: the
	// window's creation then fails on every rank (collective.Dup's bad).
	Bad error
}

// Lock types (MPI_LOCK_EXCLUSIVE, MPI_LOCK_SHARED).
const (
	LockExclusive = 234
	LockShared    = 235
)

// Assertions (MPI_MODE_*, MPICH's values).
const (
	ModeNoCheck   = 1024
	ModeNoStore   = 2048
	ModeNoPut     = 4096
	ModeNoPrecede = 8192
	ModeNoSucceed = 16384
)

// Win is a window's device state.
type Win struct {
	comm   *core.Comm // the window's own communicator
	flavor Flavor
	rank   int
	size   int

	mem      []byte // this rank's memory
	dispUnit int
	ctrl     ctrlBlock            // this rank's control block
	sc       transport.NodeCopier // the node's single-copy calls, for targets with single set
	vsrc     [][]byte             // writeBatchLocked's scratch (w.mu)
	vaddr    []uint64
	peers    []winPeer
	reg      *shm.Region    // the node's region, for direct windows
	unmaps   []func()       // a created window's: let go of its node peers' memory and control blocks (mapPeers)
	ctrlMem  unsafe.Pointer // a created window's control block in memory peers map (mapCreated)
	// shared: the control blocks lie in memory the node's ranks map (a region, or
	// mapCreated's), where the C face's short ways may read and write them too.
	shared bool
	local  []uint64 // a control block (and Allocate memory) not in a region

	ships    bool // some target is shipped to
	served   bool // some origin ships to this rank: the progress goroutine serves it
	unserved bool // Free has taken it from the progress goroutine (applyMu's)
	// fenceLocal: every target is direct and none is served, alike on every rank:
	// Fence's barrier is fenceBarrier's, on the control blocks.
	fenceLocal bool

	applyMu sync.Mutex // held by the goroutine applying this rank's requests (drain.go)
	mu      sync.Mutex
	nextID  uint32
	out     [][]*shipOp // per target: shipped operations not yet complete
	// outMu: per target, held by the completion of its shipped operations (finishOut)
	// while it takes them from out and waits for them.
	outMu []sync.Mutex
	batch [][]byte  // per target: requests not sent yet (ship.go)
	free  [][]byte  // sent batches' buffers, for reuse
	xfree []*shipOp // completed shipOps, for reuse
	dirty []bool    // per target: shipped without a reply since its last flush
	// undirty: per target, Puts wait in its batch that were not marked dirty, since
	// the batch may be written by single copy (singlecopy.go); marked when shipped.
	undirty []bool
	// gets: per target, contiguous Gets by single copy not read yet (singlecopy.go);
	// run: a short shipped operation with a reply (or an answered Accumulate) went to
	// it since its last completion, so the next such join the batch (ship.go, acc).
	gets [][]laterGet
	run  []atomic.Bool
	// Batched replies (ship.go), per target: where the replies of the batch's
	// requests go, the tag of the batch's one reply (0: none yet), and the most bytes
	// that reply can have.
	breps    [][]batchSink
	brepID   []uint32
	brepLen  []int
	rfree    [][]byte // batch replies' buffers, for reuse
	bout     []byte   // target side: the reply to the batch being applied (applyMu's)
	boutID   uint32
	attached []attachment
	errs     map[int]string // target side: the first failure of each origin's requests since its last flush
	lockQ    []lockWaiter   // target side: remote lock requests not granted yet (applyMu's)
	rbuf     []uint64       // target side: the applier's receive buffer (applyMu's)
	scratch  []byte         // target side: the applier's replies (applyMu's)

	// Epochs: a Fence epoch, the targets of a PSCW access epoch, the origins of an
	// exposure epoch, per target a passive lock (0 none, else LockShared or
	// LockExclusive), LockAll. The words lie in this rank's control block (epoch.go),
	// so that the C face's short ways, which read and write them too, find them
	// outside Go's heap: one state, two entry points.
	ep        *epochHead
	locks     []atomic.Int32
	accessTo  []atomic.Int32 // per target: 1 while in the open access epoch
	accessL   []int32        // the targets of the open PSCW access epoch: [:ep.nAccess]
	exposureL []int32        // the origins of the open exposure epoch: [:ep.nExposure]
	startSeen []uint64
	waitSeen  []uint64
	// The values this rank gave the peers' post and complete counters (bump).
	postSent, completeSent []uint64

	freed     atomic.Bool
	name      string
	streamed  atomic.Int64  // bytes copied to or from direct targets since the last Flush (fast.go)
	applied   atomic.Uint64 // messages the progress goroutine has applied (observe)
	published atomic.Uint32 // stored by synchronisation calls, loaded by the progress goroutine (observe)
}

type winPeer struct {
	mem      []byte // its memory, mapped here (direct), else nil
	size     int64
	dispUnit int
	maxDisp  int64 // size / dispUnit: the largest displacement inside the window
	direct   bool
	// single: a created window's target on this node whose memory this rank reads
	// and writes with single-copy system calls (Put and Get; singlecopy.go), at addr
	// in the target's process; cleared for good when a call fails.
	single atomic.Bool
	addr   uint64
	// mapped: single's memory is copied through a mapping of it (transport.Mapper),
	// at memmove's speed: longer Puts and Gets go by single copy (singleMapped).
	mapped bool
	ctrl   ctrlBlock
	world  int // its world rank: where the recorder counts what moves to and from it
	// What this rank's direct operations moved to it and from it, for the recorder
	// (prof.go).
	to, from prof.Link
}

type attachment struct {
	addr uintptr
	mem  []byte
}

// ctrlBlock is a rank's control words: [0] the passive-target lock, [1] the
// accumulate lock (low 32 bits), [2] the number of remote lock requests queued at
// this rank (ship.go), [3] the fences this rank has entered (fenceBarrier), then per
// peer: n post counters, n complete counters, and
// n holder words (the lock type origin o holds here, 0 for none, so that a waiter can
// ask whether the holders still live); then this rank's epochs (epochIn).
type ctrlBlock []uint64

func ctrlWords(n int) int { return (4 + 3*n + epochWords(n) + 7) &^ 7 }

func (c ctrlBlock) lock() *uint64   { return &c[0] }
func (c ctrlBlock) acc() *uint32    { return (*uint32)(unsafe.Pointer(&c[1])) }
func (c ctrlBlock) queued() *uint64 { return &c[2] }
func (c ctrlBlock) fence() *uint64  { return &c[3] }
func (c ctrlBlock) post(from int) *uint64 {
	return &c[4+from]
}
func (c ctrlBlock) complete(from int, n int) *uint64 { return &c[4+n+from] }
func (c ctrlBlock) held(o int, n int) *uint64        { return &c[4+2*n+o] }

func u64s(b []byte) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
}

const winRecord = 48 // size, disp unit, node, direct-capable, created memory's and control block's addresses: int64 each

// CreateWin makes a window over c (collective): WinCreate, WinAllocate,
// WinAllocateShared or WinCreateDynamic by a.Flavor.
func Create(c *core.Comm, op string, a Args) (*Win, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if c.IsInter() {
		return nil, core.Errorf(core.ClassComm, op, "windows are made over intracommunicators; %s is an intercommunicator", c.Name())
	}
	wc, err := collective.Dup(c, op, a.Bad)
	if err != nil {
		return nil, err
	}
	wc.SetName("window of " + c.Name())
	w := &Win{comm: wc, flavor: a.Flavor, rank: wc.Rank(), size: wc.Size(), dispUnit: a.DispUnit}
	if err := w.setup(op, a); err != nil {
		collective.Free(wc, op)
		return nil, err
	}
	return w, nil
}

func (w *Win) setup(op string, a Args) error {
	n := w.size
	cw := ctrlWords(n)
	regionWanted := a.Flavor == FlavorShared || (a.Flavor == FlavorAllocate && setRMAShm.Get() != "off" && core.NodeTransport() != nil)
	// A created window's control block where its memory is such that its node peers
	// can map it: in memory they can map too (mapCreated).
	var ctrl unsafe.Pointer
	if a.Flavor == FlavorCreate && setRMAShm.Get() != "off" && peersMayMap(a.Mem) {
		ctrl = shm.Alloc(cw*8, 64)
	}
	rec := make([]byte, winRecord)
	binary.LittleEndian.PutUint64(rec[0:], uint64(a.Size))
	binary.LittleEndian.PutUint64(rec[8:], uint64(a.DispUnit))
	binary.LittleEndian.PutUint64(rec[16:], uint64(w.comm.NodeOfRank(w.rank)))
	if regionWanted || ctrl != nil {
		binary.LittleEndian.PutUint64(rec[24:], 1)
	}
	if a.Flavor == FlavorCreate && len(a.Mem) > 0 {
		binary.LittleEndian.PutUint64(rec[32:], uint64(uintptr(unsafe.Pointer(unsafe.SliceData(a.Mem)))))
	}
	binary.LittleEndian.PutUint64(rec[40:], uint64(uintptr(ctrl)))
	all, err := w.allgather(rec)
	if err != nil {
		shm.Free(ctrl)
		return core.MapErr(op, err)
	}
	sizes, units, nodes := make([]int64, n), make([]int, n), make([]int, n)
	anyWants, allCan := false, true
	for r := 0; r < n; r++ {
		sizes[r] = int64(binary.LittleEndian.Uint64(all[r*winRecord:]))
		units[r] = int(binary.LittleEndian.Uint64(all[r*winRecord+8:]))
		nodes[r] = int(binary.LittleEndian.Uint64(all[r*winRecord+16:]))
		bit := binary.LittleEndian.Uint64(all[r*winRecord+24:]) != 0
		anyWants, allCan = anyWants || bit, allCan && bit
	}
	// mapRegion is collective: every rank maps a region if any wants one. A rank
	// alone on its node has no shared-memory transport, but its node's ranks of the
	// window (itself) still share a region (a memfd needs no transport). A created
	// window has none: it is direct (mapCreated) only if every rank's memory and
	// control block can be mapped by the rank's node peers.
	regionWanted = anyWants && a.Flavor != FlavorCreate
	me := nodes[w.rank]
	offNode := false
	for r := range n {
		offNode = offNode || nodes[r] != me
	}
	if a.Flavor == FlavorShared && offNode {
		return core.Errorf(core.ClassComm, op, "WinAllocateShared needs every rank of the communicator on one node (shared memory); %s spans nodes", w.comm.Name())
	}
	w.peers = make([]winPeer, n)
	ctrls := make([]uint64, n)
	for r := range n {
		w.peers[r] = winPeer{size: sizes[r], dispUnit: units[r], maxDisp: sizes[r] / int64(max(units[r], 1)), world: w.worldOf(r),
			addr: binary.LittleEndian.Uint64(all[r*winRecord+32:])}
		ctrls[r] = binary.LittleEndian.Uint64(all[r*winRecord+40:])
	}
	if regionWanted {
		ok, err := w.mapRegion(op, a, sizes, nodes, cw)
		if err != nil {
			return err
		}
		if !ok && a.Flavor == FlavorShared {
			return core.Errorf(core.ClassNoMem, op, "could not make or map the node's shared memory for the window")
		}
		regionWanted = ok
	}
	if a.Flavor == FlavorCreate && allCan {
		ok, err := w.mapCreated(a, nodes, ctrl, ctrls, cw)
		if err != nil {
			shm.Free(ctrl)
			return core.MapErr(op, err)
		}
		regionWanted = ok
	}
	if !regionWanted {
		shm.Free(ctrl)
		w.ctrlMem = nil
		// Control block (and WinAllocate's memory) in this process's own memory,
		// 8-byte aligned for the atomics.
		if err := w.localMem(op, a, cw); err != nil {
			return err
		}
	}
	me0 := &w.peers[w.rank]
	me0.mem, me0.direct, me0.ctrl = w.mem, true, w.ctrl
	for r := range n {
		p := &w.peers[r]
		if !p.direct {
			w.ships = true
		}
		// A peer ships to this rank unless it maps this rank's memory.
		if r != w.rank && !(regionWanted && nodes[r] == me) {
			w.served = true
		}
	}
	if a.Flavor == FlavorDynamic {
		w.ships, w.served = true, true // every target, this rank too, goes through the goroutine
		me0.direct = false
	}
	if a.Flavor == FlavorCreate {
		w.chooseSingle(nodes)
	}
	w.out, w.dirty, w.undirty, w.batch = make([][]*shipOp, n), make([]bool, n), make([]bool, n), make([][]byte, n)
	w.outMu = make([]sync.Mutex, n)
	w.gets, w.run = make([][]laterGet, n), make([]atomic.Bool, n)
	w.breps, w.brepID, w.brepLen = make([][]batchSink, n), make([]uint32, n), make([]int, n)
	w.fenceLocal = w.shared && !w.ships && !w.served
	w.epochIn(w.ctrl)
	w.nextID = 2
	if w.served {
		w.startServing()
	}
	w.register()
	// Nobody may ship before every target serves.
	return w.schedBarrier(op)
}

// localMem puts the control block, and an allocated window's memory, in this
// process's memory: the Go heap, or a.Alloc's for the memory.
func (w *Win) localMem(op string, a Args, cw int) error {
	extra := 0
	if a.Flavor == FlavorAllocate && a.Alloc == nil {
		extra = int((a.Size + 7) / 8)
	}
	w.local = make([]uint64, cw+extra)
	w.ctrl = ctrlBlock(w.local[:cw])
	switch {
	case a.Flavor == FlavorCreate:
		w.mem = a.Mem
	case a.Flavor == FlavorAllocate && a.Alloc == nil:
		w.mem = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w.local[cw:]))), extra*8)[:a.Size:a.Size]
	case a.Flavor == FlavorAllocate:
		mem, err := a.Alloc(a.Size)
		ok := []byte{1}
		if err != nil {
			ok[0] = 0
		}
		// Every rank calls Alloc here or none does: agree, so that a failure fails
		// the window everywhere rather than leave the others in its barrier.
		all, aerr := w.allgatherN(ok)
		if aerr != nil {
			return core.MapErr(op, aerr)
		}
		if err != nil {
			return core.Wrap(core.ClassNoMem, op, "allocating "+strconv.FormatInt(a.Size, 10)+" bytes for the window", err)
		}
		for r, b := range all {
			if b == 0 {
				return core.Errorf(core.ClassNoMem, op, "rank %d of the window could not allocate its memory", r)
			}
		}
		w.mem = mem[:a.Size:a.Size]
	}
	return nil
}

// allgather gathers rec (winRecord bytes) from every rank of the window.
func (w *Win) allgather(rec []byte) ([]byte, error) {
	all := make([]byte, len(rec)*w.size)
	c := w.comm
	err := c.Local().Run(c.SeqTag(), 1, func(s *coll.Sched) { s.Allgather(rec, all) })
	return all, err
}

// peersMayMap reports whether a created window's memory can be mapped by its node's
// peers: it lies in one allocation this process lists for them (shm.Listed: memory of
// MPI_Alloc_mem), 8-byte aligned for the atomics, or it is empty.
func peersMayMap(mem []byte) bool {
	p := unsafe.Pointer(unsafe.SliceData(mem))
	return len(mem) == 0 || uintptr(p)&7 == 0 && shm.Listed(uint64(uintptr(p)), len(mem))
}

// mapCreated makes a created window direct, as a region makes an allocated one, where
// every rank gave memory its node peers can map (peersMayMap) and a control block in
// such memory (ctrls[r], this rank's at ctrl, of cw words): this rank maps its node
// peers' (mapPeers) and all agree. It reports whether they did (else nothing is left
// mapped).
func (w *Win) mapCreated(a Args, nodes []int, ctrl unsafe.Pointer, ctrls []uint64, cw int) (bool, error) {
	ok := []byte{0}
	if w.mapPeers(nodes, ctrls, cw) {
		ok[0] = 1
	}
	agree, err := w.allgatherN(ok)
	if err == nil && !bytes.Contains(agree, []byte{0}) {
		me := &w.peers[w.rank]
		me.mem, me.ctrl = a.Mem, ctrlBlock(unsafe.Slice((*uint64)(ctrl), cw))
		for r := range w.peers {
			w.peers[r].direct = w.peers[r].direct || nodes[r] == nodes[w.rank]
		}
		w.mem, w.ctrl, w.ctrlMem, w.shared = a.Mem, me.ctrl, ctrl, true
		return true, nil
	}
	w.unmapPeers()
	return false, err
}

// mapPeers maps the memory and control blocks of this rank's node peers for
// mapCreated, and reports whether it mapped them all.
func (w *Win) mapPeers(nodes []int, ctrls []uint64, cw int) bool {
	var mapper transport.Mapper
	if nt := core.NodeTransport(); nt != nil {
		mapper, _ = nt.(transport.Mapper)
	}
	for r := range w.peers {
		p := &w.peers[r]
		if r == w.rank || nodes[r] != nodes[w.rank] {
			continue
		}
		if mapper == nil {
			return false
		}
		c, unmap := mapper.Map(p.world, ctrls[r], cw*8)
		if c == nil {
			return false
		}
		w.unmaps = append(w.unmaps, unmap)
		p.ctrl = ctrlBlock(u64s(c))
		if p.size > 0 {
			mem, unmap := mapper.Map(p.world, p.addr, int(p.size))
			if mem == nil {
				return false
			}
			w.unmaps = append(w.unmaps, unmap)
			p.mem = mem
		}
	}
	return true
}

// unmapPeers undoes mapPeers.
func (w *Win) unmapPeers() {
	for _, unmap := range w.unmaps {
		unmap()
	}
	w.unmaps = nil
	for r := range w.peers {
		if r != w.rank {
			w.peers[r].mem, w.peers[r].ctrl = nil, nil
		}
	}
}

// mapRegion puts the window's memory and control blocks in one region per node,
// made by the node's lowest rank and mapped by the others. It reports whether every
// rank of the window succeeded (all decide alike).
func (w *Win) mapRegion(op string, a Args, sizes []int64, nodes []int, cw int) (bool, error) {
	n := w.size
	me := nodes[w.rank]
	var locals []int
	for r := range n {
		if nodes[r] == me {
			locals = append(locals, r)
		}
	}
	// Layout: the locals' control blocks, then their memory: page aligned each for
	// WinAllocate and noncontiguous shared windows, back to back for a contiguous
	// shared window (MPI's default: rank i's part follows rank i-1's). Only the
	// control blocks are faulted in ahead of use: the memory's pages fault in where
	// the program touches them, as a malloc'd buffer's do (a gigabyte per rank
	// faulted in by every rank of the node took seconds, for memory a program may
	// never touch whole).
	const page = 4096
	ctrlBytes := int64(len(locals) * cw * 8)
	off := (ctrlBytes + page - 1) &^ (page - 1)
	offs := make([]int64, len(locals))
	for i, r := range locals {
		if a.Flavor != FlavorShared || a.Noncontig {
			off = (off + page - 1) &^ (page - 1)
		}
		offs[i] = off
		off += sizes[r]
	}
	total := max(off, 1)
	addr := make([]byte, 1+64)
	var reg *shm.Region
	var err error
	why := ""
	if w.rank == locals[0] {
		reg, err = shm.CreatePart("win-"+strconv.Itoa(core.World.Rank())+"-"+strconv.Itoa(int(w.comm.Ctx())), int(total), int(ctrlBytes))
		if err != nil {
			why = err.Error()
		} else if ad := reg.Addr(); len(ad) < len(addr) {
			addr[0] = byte(1 + len(ad))
			copy(addr[1:], ad)
		}
	}
	all, err := w.allgatherN(addr)
	if err != nil {
		if reg != nil {
			reg.Close()
		}
		return false, core.MapErr(op, err)
	}
	lead := all[locals[0]*len(addr):][:len(addr)]
	if w.rank != locals[0] && lead[0] != 0 {
		if reg, err = shm.OpenPart(lead[1:lead[0]], int(ctrlBytes)); err != nil {
			why = err.Error()
		}
	}
	okb := []byte{0}
	if reg != nil && why == "" {
		okb[0] = 1
	}
	agree, err := w.allgatherN(okb)
	if err != nil {
		if reg != nil {
			reg.Close()
		}
		return false, core.MapErr(op, err)
	}
	for _, b := range agree {
		if b == 0 {
			if reg != nil {
				reg.Close()
			}
			return false, nil
		}
	}
	reg.CloseFd()
	w.reg = reg
	for i, r := range locals {
		p := &w.peers[r]
		p.direct = true
		p.ctrl = ctrlBlock(u64s(reg.Mem[i*cw*8:][:cw*8]))
		p.mem = reg.Mem[offs[i]:][:sizes[r]:sizes[r]]
	}
	w.mem, w.ctrl, w.shared = w.peers[w.rank].mem, w.peers[w.rank].ctrl, true
	return true, nil
}

func (w *Win) allgatherN(rec []byte) ([]byte, error) {
	all := make([]byte, len(rec)*w.size)
	c := w.comm
	err := c.Local().Run(c.SeqTag(), 1, func(s *coll.Sched) { s.Allgather(rec, all) })
	return all, err
}

// Check returns nil when w can be used by op.
func (w *Win) Check(op string) error {
	if err := core.Ready(op); err != nil {
		return err
	}
	if w == nil {
		return core.Errorf(core.ClassWin, op, "the window is nil (MPI_WIN_NULL)")
	}
	if w.freed.Load() {
		return core.Errorf(core.ClassWin, op, "window %q was freed", w.Name())
	}
	return nil
}

// Mem is this rank's memory in the window (nil for a dynamic window).
func (w *Win) Mem() []byte { return w.mem }

// Flavor is how the window was made.
func (w *Win) Flavor() Flavor { return w.flavor }

// DispUnit is this rank's displacement unit.
func (w *Win) DispUnit() int { return w.dispUnit }

// Comm is the window's own communicator (its group is the window's).
func (w *Win) Comm() *core.Comm { return w.comm }

// Unified reports whether the window's memory model is MPI_WIN_UNIFIED: every
// operation writes the memory the target's loads see, which holds for every mpigo
// window.
func (w *Win) Unified() bool { return true }

// Name is w's name.
func (w *Win) Name() string {
	if w == nil {
		return "MPI_WIN_NULL"
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.name
}

// SetName names w.
func (w *Win) SetName(s string) {
	w.mu.Lock()
	w.name = s
	w.mu.Unlock()
}

// Segment is rank r's part of the window as this rank sees it: its memory, when this
// rank can load and store it (mapped: r's own, or node shared memory), its size and
// its displacement unit. r is a rank of the window.
func (w *Win) Segment(r int) (mem []byte, size int64, dispUnit int, mapped bool) {
	p := &w.peers[r]
	mapped = p.direct || r == w.rank
	if mapped {
		mem = p.mem
		if r == w.rank {
			mem = w.mem
		}
	}
	return mem, p.size, p.dispUnit, mapped
}

// Route describes how this rank reaches each target, for `mpigo info`.
func (w *Win) Route() string {
	d, s, c, m := 0, 0, 0, 0
	for r := range w.peers {
		switch {
		case w.peers[r].direct:
			d++
		case w.peers[r].single.Load():
			c++
			s++
			if w.peers[r].mapped {
				m++
			}
		default:
			s++
		}
	}
	route := fmt.Sprintf("%s window: %d targets direct (node shared memory), %d shipped to their progress goroutine (of them %d read and written by single copy)", w.flavor, d, s, c)
	if m > 0 {
		route += fmt.Sprintf(", %d of those through a mapping of its memory", m)
	}
	return route
}

// Free frees w (collective): this rank's operations complete, every rank waits until
// all have (so nobody still writes this rank's memory), then the progress goroutine
// lets go of it (and ends with the last window it serves) and the memory is unmapped.
func (w *Win) Free(op string) error {
	if err := w.Check(op); err != nil {
		return err
	}
	if err := w.flushAll(op); err != nil {
		return err
	}
	if err := w.schedBarrier(op); err != nil {
		return err
	}
	if w.freed.Swap(true) {
		return core.Errorf(core.ClassWin, op, "window %q was freed", w.Name())
	}
	w.stopServing()
	w.retire()
	if w.reg != nil {
		w.reg.Close()
	}
	w.unmapPeers()
	shm.Free(w.ctrlMem)
	w.mem, w.peers, w.local, w.ctrlMem = nil, nil, nil, nil
	return collective.Free(w.comm, op)
}

// Attach exposes mem in a dynamic window (MPI_Win_attach) and returns the
// displacement origins name its first byte by (its address). Memory that overlaps
// memory attached already is refused (MPI_ERR_RMA_ATTACH); empty memory is attached
// too, so that Detach finds it.
func (w *Win) Attach(op string, mem []byte) (int64, error) {
	a := uintptr(unsafe.Pointer(unsafe.SliceData(mem)))
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, x := range w.attached {
		if len(mem) > 0 && a < x.addr+uintptr(len(x.mem)) && x.addr < a+uintptr(len(mem)) {
			return 0, core.Errorf(core.ClassRMAAttach, op, "the memory overlaps memory already attached to the window")
		}
	}
	w.attached = append(w.attached, attachment{addr: a, mem: mem})
	slices.SortStableFunc(w.attached, func(x, y attachment) int { return cmp.Compare(x.addr, y.addr) })
	return int64(a), nil
}

// Detach stops exposing the memory Attach exposed from address base (MPI_Win_detach).
func (w *Win) Detach(op string, base uintptr) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, x := range w.attached {
		if x.addr == base {
			w.attached = slices.Delete(w.attached, i, i+1)
			return nil
		}
	}
	return core.Errorf(core.ClassRMAAttach, op, "no memory is attached to the window at %#x", base)
}

// The window's tags on its communicator's point-to-point context: requests to a
// target, and replies, each tagged with its request's ID (from tagReplies up).
const (
	tagRMA     = 1
	tagReplies = 2
	tagPost    = core.MaxTag - 1 // Post's notice to a shipped origin, which Start receives itself
	tagData    = core.MaxTag - 2 // the data of a large Put (rma.Split)
)

// id returns a fresh reply tag.
func (w *Win) id() uint32 {
	w.mu.Lock()
	id := w.idLocked()
	w.mu.Unlock()
	return id
}

// idLocked is id with w.mu held.
func (w *Win) idLocked() uint32 {
	id := w.nextID
	w.nextID++
	if w.nextID >= tagData {
		w.nextID = tagReplies
	}
	return id
}

// RMAInfo says how windows reach their targets from this rank, for `mpigo info`.
func RMAInfo() string {
	alloc := "shipped to the target's progress goroutine (no shared-memory transport)"
	if setRMAShm.Get() == "off" {
		alloc = "shipped to the target's progress goroutine (rma_shm=off)"
	} else if core.NodeTransport() != nil {
		alloc = "direct loads, stores and atomics in node shared memory"
	}
	return "rma: WinAllocate targets on this node: " + alloc + "; WinAllocateShared: direct; " +
		"WinCreate over MPI_Alloc_mem memory on every rank: as WinAllocate; " +
		"other nodes, other WinCreate and dynamic windows: shipped to the target's progress goroutine\n"
}

// eng is the runtime's engine, which carries the shipped requests and their replies
// on the window's communicator's point-to-point context.
func eng() *p2p.Engine { return core.Engine() }
