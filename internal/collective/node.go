package collective

import (
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/config"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/idle"
	"github.com/mpigo/mpigo/internal/ntcopy"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/shmcoll"
	"github.com/mpigo/mpigo/internal/transport"
	"github.com/mpigo/mpigo/internal/transport/shm"
)

// Node-local collectives: when every rank of an intracommunicator runs on this node and
// the ranks talk through the shared-memory transport, the blocking Barrier, Bcast,
// Reduce and Allreduce (up to the size settings below) run through one region of shared
// memory per communicator (internal/shmcoll) instead of point-to-point messages. The
// region is made on the communicator's first such collective: its leader (rank 0)
// creates it, broadcasts its address over the point-to-point collectives, the others
// map it, and a gather and a broadcast agree that every rank did (else every rank keeps
// the point-to-point algorithms for that communicator). Free and Finalize unmap it. A
// communicator spanning nodes, with several ranks on some, runs Barrier, Bcast and
// commutative Allreduce hierarchically (hierColl). The size limits were measured at 2
// and 4 ranks on 2 cores (docs/ARCHITECTURE.md).
var (
	setCollShm = config.String("coll_shm", "auto",
		"node-local collectives (Barrier, Bcast, Reduce, Allreduce) through shared memory when all ranks of a "+
			"communicator share a node: auto, or off (point-to-point algorithms only)").OneOf("auto", "off").Live().Same()
	setShmBcastMax = config.Size("coll_shm_bcast_max", 128<<10,
		"largest Bcast (bytes) on 3 or more ranks that goes through node shared memory; larger ones use the "+
			"point-to-point algorithms").Same()
	setShmBcastMax2 = config.Size("coll_shm_bcast_max2", shmBcastMax2(),
		"largest Bcast (bytes) on 2 ranks that goes through node shared memory (beyond, a single-copy get is faster): "+
			"128 KiB on CPUs whose cores are grouped in complexes with a cache each (AMD's), 16 KiB elsewhere").Same()
	setShmReduceMax = config.Size("coll_shm_reduce_max", 1<<20,
		"largest Reduce or Allreduce (bytes) on 3 or more ranks that goes through node shared memory").Same()
	setShmReduceMax2 = config.Size("coll_shm_reduce_max2", shmReduceMax2(),
		"largest Allreduce (bytes) on 2 ranks that goes through node shared memory (beyond, the "+
			"point-to-point schedule is faster): 8 KiB on CPUs whose cores are grouped in complexes with a cache each "+
			"(AMD's), 128 KiB elsewhere").Same()
	setShmRootMax2 = config.Size("coll_shm_reduce_root_max2", shmRootMax2(),
		"largest Reduce (bytes) on 2 ranks that goes through node shared memory (beyond, the point-to-point "+
			"schedule): 1 MiB where every core shares the last-level cache (Intel's), 8 KiB on CPUs whose cores are "+
			"grouped in complexes with a cache each (AMD's)").Same()
	setShmSplit = config.Size("coll_shm_split", 64<<10,
		"Allreduce (bytes) from which the node shared-memory path splits the reduction among the ranks "+
			"(each combines a section, all copy the result) instead of each rank combining it all").Same()
	setShmChunk = config.Size("coll_shm_chunk", 16<<10,
		"bytes per buffer of a node shared-memory Bcast's ring (rounded up to 64): the pipeline's step").Range(1, 1<<30).Same()
	setShmDirect = config.Size("coll_shm_bcast_direct", 256<<10,
		"smallest Bcast (bytes) on 3 or more ranks that goes through node shared memory with every rank reading the "+
			"root's buffer itself (single copy, where cross-memory attach works) instead of through the ring; 0: never").Same()
	setShmDirectMax = config.Size("coll_shm_bcast_direct_max", 1<<20,
		"largest Bcast (bytes) on 3 or more ranks that goes through node shared memory read from the root's buffer "+
			"(coll_shm_bcast_direct); larger ones use the point-to-point algorithms").Same()
	setShmBcastStage = config.Int("coll_shm_bcast_stage_ranks", 4,
		"smallest communicator (ranks) whose Bcasts longer than coll_shm_bcast_max, up to coll_shm_bcast_direct_max "+
			"and the region's bank (ranks x coll_shm_slot bytes), the root copies into node shared memory whole and "+
			"leaves, the others copying it out, instead of the reads from the root's buffer or the schedules; 0: never").AtLeast(0).Same()
	setShmReduceDirect = config.Size("coll_shm_allreduce_direct", 256<<10,
		"smallest split Allreduce (bytes, coll_shm_split) on 3 or more ranks that chooses by timing between the slots "+
			"and each rank reading its section of the others' contributions from their buffers (single copy, where "+
			"cross-memory attach works); 0: always the slots").Same()
	setShmNT = config.Size("coll_shm_nt", 16<<10,
		"smallest chunk (bytes) that a node shared-memory Bcast's root writes into the ring with non-temporal stores "+
			"(amd64), so that it does not take the lines back from the readers' caches, on CPUs whose cores are grouped "+
			"in complexes with a cache each (AMD's); where every core shares the last-level cache (Intel's) never; 0: never").Same()
	setShmChunks = config.Int("coll_shm_chunks", 16,
		"buffers in a node shared-memory Bcast's ring (at least 2)").Range(2, 1<<16).Same()
	setShmSlot = config.Size("coll_shm_slot", 512<<10,
		"bytes per rank (and per bank of two) for node shared-memory reductions (rounded up to 64); longer "+
			"messages go in pieces of this size; left at the default it shrinks to 4 MiB/ranks, not below 64 KiB").Range(1, 1<<30).Same()
)

// shmBcastMax2 is coll_shm_bcast_max2's default. Where the cores' caches are split
// among complexes (ntcopy.SplitCaches: AMD's), a 2-rank Bcast of up to 128 KiB is
// faster through the ring, whose copies run at REP MOVSB's speed (ntcopy.Move), than
// by the single-copy get; on Intel's, 32 KiB in two chunks was slower than the get
// (docs/BENCHMARKS.md, "Copies on AMD" and "Two-rank limits on AMD").
func shmBcastMax2() int64 {
	if ntcopy.SplitCaches {
		return 128 << 10
	}
	return 16 << 10
}

// shmReduceMax2 is coll_shm_reduce_max2's default: the size from which a 2-rank
// Allreduce by the point-to-point schedule overtakes the region's. Where the cores'
// caches are split (AMD's) that is 12 KiB (docs/BENCHMARKS.md, "Two-rank limits on
// AMD"), on Intel's between 192 and 256 KiB ("Two-rank Reduce through the region").
func shmReduceMax2() int64 {
	if ntcopy.SplitCaches {
		return 8 << 10
	}
	return 128 << 10
}

// shmRootMax2 is coll_shm_reduce_root_max2's default. A 2-rank Reduce's root reads
// its own contribution from its buffer and the other's from its slot, which keeps
// the region ahead of the schedule's single message and combine up to 256 KiB on
// Intel's cores and level with it from there to 1 MiB (docs/BENCHMARKS.md,
// "Two-rank Reduce through the region"). Where the caches are split it was not
// measured, so it keeps the Allreduce's limit.
func shmRootMax2() int64 {
	if ntcopy.SplitCaches {
		return shmReduceMax2()
	}
	return 1 << 20
}

// nodeColl is a communicator's node-local collective state (collState.node), made on
// its first collective that could use it.
type nodeColl struct {
	state int8 // nodeUnknown, nodeOn, nodeOff, nodeHier
	lim   nodeLimits
	why   string // why off
	err   error  // a bad setting, reported by every collective that could use the region
	g     *shmcoll.Group
	reg   *shm.Region
	hier  *hierColl // nodeHier: the node and leaders' communicators, made on first use
	// The data this rank's node collectives sent through the region (the matrix's
	// collective column, as their logical flow: a Bcast's n bytes from the root to
	// every other member, a Reduce's from every other member to the root, an
	// Allreduce's from every member to every other): to every other member (toAll)
	// and to one (to, by rank of the communicator). Written by the calling goroutines
	// (prof.Flows), read by the record's snapshots, to which they are handed down
	// when the region is made (taps) and retired when it goes (forget).
	toAll prof.Flows // over the region's shmcoll.Own.Flow, where C's short collectives count too
	to    []prof.Flows
	taps  *prof.Taps
	// bcast is this rank's record, as their root, of the long Bcasts that choose by
	// timing between the point-to-point tree (0) and every rank reading the root's
	// buffer (1): which is faster depends on whether the cores share a cache at the
	// time (docs/BENCHMARKS.md). The root picks (nodeBcastRoot).
	bcast shmcoll.Chooser
	far   []farBlock // a Gather root's blocks that went as messages, kept for reuse
	red   []byte     // a Reduce root's scratch (shmcoll ReduceRoot's tmp), made at its first
	// joined: code outside Go (the C library's Allgather, Scatter or Alltoall(v)) took
	// this rank's op of the call under way and found a rank that took the schedules,
	// which the call's Go half, next, joins without an op (ShortJoin).
	joined bool
}

const (
	nodeUnknown int8 = iota // one node: usable, region not made yet
	nodeOn                  // one node: region in use
	nodeOff                 // point-to-point algorithms only
	nodeHier                // several nodes, some with several ranks: hierarchical
)

// hierColl is what a communicator spanning nodes needs for hierarchical collectives:
// its ranks on this node (node, whose rank 0 is the node's leader: its lowest rank in
// c), the leaders' communicator (leaders, nil on the other ranks), and for every rank
// of c its node's leader's rank in leaders and its own rank in its node.
type hierColl struct {
	node      *comm
	leaders   *comm
	leaderIdx []int
	nodeRank  []int
	// blocks: every node holds a block of consecutive ranks of c (leaders are then in
	// the blocks' order), so a reduction on the nodes, then across the leaders, combines
	// in rank order and is right for non-commutative operations too.
	blocks  bool
	scratch []byte // a leader's partial result in a hierarchical Reduce, kept for reuse
}

// nodeRegions are the regions mapped now, for Finalize.
var nodeRegions struct {
	sync.Mutex
	m map[*nodeColl]struct{}
}

// sentAll counts a node collective's flow of n bytes from this rank to every other
// member.
func (n *nodeColl) sentAll(b int) { n.toAll.Add(b) }

// sentTo counts a node collective's flow of n bytes from this rank to member r.
func (n *nodeColl) sentTo(r, b int) {
	if uint(r) < uint(len(n.to)) {
		n.to[r].Add(b)
	}
}

// watch makes n's flows, toAll over all (in the region), and hands them down to the
// record: both count towards every other member of c, by its world rank.
func (n *nodeColl) watch(c *comm, all *prof.Link) {
	n.toAll = prof.NewFlows(all)
	n.to = make([]prof.Flows, c.size)
	var taps []prof.Tap
	for r := range c.size {
		n.to[r] = prof.NewFlows(nil)
		if r != c.rank {
			w := c.LocalWorldRank(r)
			taps = n.toAll.Taps(taps, w, prof.Sent|prof.Coll)
			taps = n.to[r].Taps(taps, w, prof.Sent|prof.Coll)
		}
	}
	n.taps = prof.Watch(taps)
}

// forget takes n out of nodeRegions, retiring its flows; the caller holds the lock.
func (n *nodeColl) forget() {
	delete(nodeRegions.m, n)
	n.taps.Retire()
}

// nodeGroup returns the shared-memory group that runs c's blocking collective cl of
// nbytes bytes, or nil when the schedules do (the size is above limit, the region
// could not be made). On the nil path it has checked nothing; otherwise it has checked
// c and cl's root and run coll_check, and an error ends the call. Only a communicator
// whose table chose the node path calls it.
func (c *comm) nodeGroup(cl *Call, nbytes int64, limit int64) (*shmcoll.Group, error) {
	n := c.node
	if nbytes > limit || n.state == nodeOff {
		return nil, nil
	}
	if cl.Root != NoRoot && uint(cl.Root) >= uint(c.size) {
		return nil, core.Errorf(core.ClassRoot, cl.Op, "root %d out of range [0,%d)", cl.Root, c.size)
	}
	if c.check {
		if err := c.verify(c.SeqTag(), cl); err != nil {
			return nil, err
		}
	}
	if n.state == nodeUnknown {
		if err := n.setup(c); err != nil {
			return nil, core.MapErr(cl.Op, err)
		}
		if n.state != nodeOn {
			return nil, nil
		}
	}
	return n.g, nil
}

// Size limits of the shared-memory path for a communicator of size ranks (measured on
// 2 cores: for two ranks the point-to-point single-copy protocols win sooner).
// The settings are read once (parsing them on every call would cost more than a short
// collective).
var shmLimits = sync.OnceValue(func() [10]int64 {
	return [10]int64{setShmBcastMax2.Get(), setShmBcastMax.Get(), setShmReduceMax2.Get(), setShmReduceMax.Get(), setShmSplit.Get(),
		setShmDirect.Get(), setShmDirectMax.Get(), setShmReduceDirect.Get(), setShmBcastStage.Get(), setShmRootMax2.Get()}
})

// nodeLimits are the sizes up to which a communicator's blocking collectives take
// the node's shared memory, fixed when the communicator is made.
type nodeLimits struct {
	bcast, reduce int64
	rooted        int64 // Reduce's limit: reduce, but coll_shm_reduce_root_max2 on 2 ranks
	// userReduce and userRooted bound a reduction with a user op, which may treat
	// several elements as one (the tests' 2x2 matrices of four int64s): its message
	// must fit one slot and is never cut.
	userReduce, userRooted int64
	gather                 int64 // the longest block a blocking gather puts in the region (nodegather.go)
	block                  int64 // the longest v form's block (its table and parts): a slot
	split                  int64 // Allreduce from which the reduction is split among the ranks
	// A split Allreduce of at least readSplit bytes (0: none) chooses by timing between
	// the slots and reading the others' contributions from their buffers, where every
	// rank can, up to readTimed bytes (0: any); a longer one reads untimed. readTimed
	// is two slots: beyond, the slots' way goes in three pieces or more, and from 16
	// ranks on, where a 1 MiB message is four, a try of it cost 5-14 calls of the
	// reads (docs/BENCHMARKS.md, the Allreduce's choice).
	readSplit, readTimed int64
	// Bcasts of direct to directMax bytes (3 ranks or more; direct 0: none) go through
	// shared memory read from the root's buffer, where every rank can (the region's
	// set-up agrees on it); other ones above bcast take the schedules.
	direct, directMax int64
	// pair: two ranks whose schedules' Bcast is one message (coll_bcast auto or
	// binomial), which a Bcast beyond bcast sends alone (pairBcast).
	pair bool
	// Bcasts beyond bcast up to stage bytes (0: none) go through the region whole,
	// copied in by the root, which leaves (shmcoll's BcastStaged): on a communicator
	// of at least coll_shm_bcast_stage_ranks ranks, where waiting for the scheduler
	// to run every reader, as the reads from the root's buffer and the schedules'
	// trees make the root do, costs more than the second copy.
	stage int64
}

func limitsFor(size int) nodeLimits {
	l := shmLimits()
	lim := nodeLimits{bcast: l[1], reduce: l[3], rooted: l[3], split: l[4], direct: l[5], directMax: l[6], readSplit: l[7]}
	if size == 2 {
		lim.bcast, lim.reduce, lim.rooted, lim.direct, lim.readSplit = l[0], l[2], l[9], 0, 0
		t, err := coll.Tune()
		lim.pair = err == nil && (t.Bcast == coll.Auto || t.Bcast == coll.Binomial)
	}
	lim.userReduce, lim.userRooted = lim.reduce, lim.rooted
	lim.gather = gatherMax()
	if lay, err := nodeLayout(size); err == nil {
		lim.userReduce, lim.userRooted = min(lim.reduce, int64(lay.Slot)), min(lim.rooted, int64(lay.Slot))
		lim.gather = min(lim.gather, int64(lay.Slot))
		lim.block = int64(lay.Slot)
		lim.readTimed = 2 * int64(lay.Slot)
		if k := l[8]; k > 0 && int64(size) >= k && size > 2 {
			lim.stage = min(l[6], int64(size)*int64(lay.Slot))
		}
	}
	return lim
}

// reduceLimit is the largest Allreduce with r on c that goes through shared memory.
func reduceLimit(c *comm, r *Red) int64 {
	if r.User {
		return c.node.lim.userReduce
	}
	return c.node.lim.reduce
}

// rootedLimit is the largest Reduce with r on c that goes through shared memory.
func rootedLimit(c *comm, r *Red) int64 {
	if r.User {
		return c.node.lim.userRooted
	}
	return c.node.lim.rooted
}

// nodeAllreduce runs an Allreduce of len(send) bytes with op on g; a long one with a
// predefined op splits the reduction (in whole (value, index) pairs for Maxloc and
// Minloc), and a longer one chooses by timing between that and reading the others'
// contributions from their buffers, where every rank can.
func nodeAllreduce(g *shmcoll.Group, lim *nodeLimits, send, recv []byte, esize int, r *Red) error {
	if n := int64(len(send)); !r.User && n >= lim.split && g.Size() > 2 {
		if nodeChooses(g, lim, len(send), r) {
			return g.AllreduceChoose(send, recv, r.unit(esize), r.K.Fn)
		}
		return g.AllreduceSplit(send, recv, r.unit(esize), r.K.Fn)
	}
	return g.Allreduce(send, recv, esize, r.K.Fn)
}

// nodeChooses reports whether nodeAllreduce of n bytes takes the timed choice
// (AllreduceChoose).
func nodeChooses(g *shmcoll.Group, lim *nodeLimits, n int, r *Red) bool {
	return !r.User && g.Size() > 2 && int64(n) >= lim.split && lim.readSplit > 0 && int64(n) >= lim.readSplit && g.CanRead()
}

// nodeLayout is the region geometry the settings ask for, for size ranks.
func nodeLayout(size int) (shmcoll.Layout, error) {
	up := func(v int64) int { return int(min(max(v, 0), 1<<30)+63) &^ 63 }
	l := shmcoll.Layout{Ranks: size, Chunk: up(setShmChunk.Get()), Chunks: int(setShmChunks.Get()), Slot: up(setShmSlot.Get())}
	if _, src := setShmSlot.Value(); src == config.Default {
		// The slots take 2 x ranks x Slot bytes: bound them at about 8 MiB.
		l.Slot = min(l.Slot, max(64<<10, up(4<<20/int64(size))))
	}
	if err := l.Check(); err != nil {
		return l, fmt.Errorf("settings coll_shm_chunk, coll_shm_chunks, coll_shm_slot: %v", err)
	}
	return l, nil
}

// newNodeColl decides whether c can use the node's shared memory at all.
func newNodeColl(c *comm) *nodeColl {
	n := chooseNode(c)
	n.lim = limitsFor(c.size)
	return n
}

func chooseNode(c *comm) *nodeColl {
	off := func(why string) *nodeColl { return &nodeColl{state: nodeOff, why: why} }
	switch v := setCollShm.Get(); v {
	case "off":
		return off("coll_shm=off")
	case "auto", "":
	default:
		return &nodeColl{state: nodeOff, err: fmt.Errorf("setting coll_shm=%q: want auto or off", v)}
	}
	if c.SpansJobs() {
		// Two jobs share no memory through mpigo, nor a numbering of their nodes.
		return off("the communicator spans jobs")
	}
	if _, err := nodeLayout(c.size); err != nil {
		return &nodeColl{state: nodeOff, err: err}
	}
	// Decide from what every rank knows alike (the node map), so that all agree.
	perNode := map[int]int{}
	for r := 0; r < c.size; r++ {
		perNode[c.NodeOfRank(r)]++
	}
	if len(perNode) > 1 {
		for _, k := range perNode {
			if k > 1 {
				return &nodeColl{state: nodeHier, why: "several nodes: hierarchical"}
			}
		}
		return off("one rank per node")
	}
	sh := core.NodeTransport()
	if sh == nil {
		return off("no shared-memory transport")
	}
	for r := 0; r < c.size; r++ {
		if w := c.LocalWorldRank(r); w != core.World.Rank() && !sh.Reaches(w) {
			return off("the shared-memory transport does not reach rank " + strconv.Itoa(r))
		}
	}
	return &nodeColl{}
}

// setup makes the region (leader) or maps it (the others), and agrees with every rank
// that all did; any failure leaves every rank on the point-to-point algorithms. Only
// the point-to-point exchanges' own failures are returned.
func (n *nodeColl) setup(c *comm) error {
	var (
		addr [1 + 64]byte // ok byte, then the region's address
		reg  *shm.Region
		err  error
		why  string
	)
	if c.rank == 0 {
		l, lerr := nodeLayout(c.size)
		if lerr == nil {
			reg, lerr = shm.CreatePart("coll-"+strconv.Itoa(core.World.Rank())+"-"+strconv.Itoa(int(c.Ctx())), l.Size(), l.Hot())
		}
		if lerr == nil {
			if lerr = shmcoll.Format(reg.Mem, l); lerr != nil {
				reg.Close()
				reg = nil
			}
		}
		if lerr != nil {
			why = lerr.Error()
		} else if a := reg.Addr(); len(a) < len(addr) {
			addr[0] = byte(1 + len(a))
			copy(addr[1:], a)
		} else {
			why = "region address too long"
			reg.Close()
			reg = nil
		}
	}
	s := coll.New(c.Local(), c.SeqTag(), 1)
	s.Bcast(addr[:], 0)
	if err = s.Run(); err != nil {
		s.Free()
		if reg != nil {
			reg.Close()
		}
		return err
	}
	s.Free()
	if addr[0] == 0 && why == "" {
		why = "the leader could not make the region"
	}
	if c.rank != 0 && addr[0] != 0 {
		// The leader's settings made the region; this rank's give the part to map in
		// ahead of use, which only saves page faults.
		l, _ := nodeLayout(c.size)
		if reg, err = shm.OpenPart(addr[1:addr[0]], l.Hot()); err != nil {
			why, reg = err.Error(), nil
		}
	}
	var g *shmcoll.Group
	if reg != nil {
		g, err = shmcoll.Attach(reg.Mem, c.rank, waitOptions(c, core.NodeTransport()))
		if err != nil {
			why = err.Error()
		}
	}
	// mine: 1 mapped, 2 mapped and able to read the others' memory (single-copy reads).
	mine := [1]byte{}
	if g != nil {
		mine[0] = 1
		if g.CanRead() {
			mine[0] = 2
		}
	}
	// Agree: gather the outcomes at the leader, which broadcasts the verdict (trees
	// only: the blocking sends of small messages then never wait on each other, even
	// with p2p_protocol forced to a rendezvous).
	all := make([]byte, c.size)
	s = coll.New(c.Local(), c.SeqTag(), 1)
	s.Gather(mine[:], all, 0)
	err = s.Run()
	s.Free()
	verdict := [1]byte{2} // 0 off, 1 on, 2 on with single-copy reads
	for r, b := range all {
		if b == 0 && c.rank == 0 && verdict[0] != 0 {
			verdict[0] = 0
			why = "rank " + strconv.Itoa(r) + " could not map the region"
		}
		verdict[0] = min(verdict[0], b)
	}
	if err == nil {
		s = coll.New(c.Local(), c.SeqTag(), 1)
		s.Bcast(verdict[:], 0)
		err = s.Run()
		s.Free()
	}
	ok := err == nil && verdict[0] != 0 && g != nil
	if ok && verdict[0] == 1 {
		g.NoRead() // some rank cannot read the others' memory: every rank turns reads off
	}
	if !ok && why == "" {
		why = "another rank could not map the region"
	}
	if !ok {
		if reg != nil {
			reg.Close()
		}
		n.state, n.why = nodeOff, why
		return err
	}
	reg.CloseFd() // every rank has mapped it: nobody opens it any more
	n.state, n.g, n.reg = nodeOn, g, reg
	n.watch(c, (*prof.Link)(unsafe.Pointer(&g.Own().Flow)))
	nodeRegions.Lock()
	if nodeRegions.m == nil {
		nodeRegions.m = map[*nodeColl]struct{}{}
	}
	nodeRegions.m[n] = struct{}{}
	nodeRegions.Unlock()
	return nil
}

// waitOptions follows the point-to-point engine's idle policy (idle.Configured:
// p2p_spin, p2p_yield, p2p_sleep; oversubscribed nodes spin little), and checks the shm
// transport's view of a peer a wait is for about every millisecond.
func waitOptions(c *comm, sh core.NodeMemory) shmcoll.Options {
	p := idle.Configured()
	o := shmcoll.Options{
		Spin:           p.Spin,
		Yield:          p.Yield,
		Sleep:          p.Sleep,
		Oversubscribed: core.LocalSize() > runtime.NumCPU(),
		CheckEvery:     time.Millisecond,
		NT:             shmcoll.NTOn(int(min(max(setShmNT.Get(), 0), 1<<30))),
		Progress:       func() { eng().Progress() },
	}
	if sh != nil {
		o.Check = func(r int) error { return sh.CheckPeer(c.LocalWorldRank(r)) }
	}
	if sc, ok := sh.(transport.NodeCopier); ok && c.size > 2 {
		if can, _ := sc.CMA(); can && (shmLimits()[5] > 0 || shmLimits()[7] > 0) {
			o.Direct = int(min(max(shmLimits()[5], 0), 1<<30))
			o.Timed = int(min(c.node.lim.readTimed, 1<<30))
			o.Read = func(r int, dst []byte, addr uint64) error { return sc.ReadFrom(c.LocalWorldRank(r), dst, addr) }
		}
	}
	return o
}

// close unmaps the region; the communicator's collectives must not run afterwards.
func (n *nodeColl) close() {
	if n.reg != nil {
		n.reg.Close()
	}
	n.state, n.g, n.reg = nodeOff, nil, nil
}

// hierGroup returns the hierarchical set-up for c's blocking collective cl of nbytes
// bytes (made on first use: two Splits of c), or nil for the schedules. A reduction
// whose operation does not commute (commute false) runs hierarchically only when the
// nodes hold blocks of consecutive ranks. Like nodeGroup, it has checked c and run
// coll_check when it returns one. Only a communicator whose table chose the
// hierarchical path calls it.
func (c *comm) hierGroup(cl *Call, nbytes, limit int64, commute bool) (*hierColl, error) {
	if nbytes > limit {
		return nil, nil
	}
	n := c.node
	if err := c.admit(cl); err != nil {
		return nil, err
	}
	if n.hier == nil {
		h, err := makeHier(c)
		if err != nil {
			return nil, err
		}
		n.hier = h
	}
	if !commute && !n.hier.blocks {
		return nil, nil // every rank decides alike
	}
	if c.check {
		if err := c.verify(c.SeqTag(), cl); err != nil {
			return nil, err
		}
	}
	return n.hier, nil
}

func makeHier(c *comm) (*hierColl, error) {
	h := &hierColl{leaderIdx: make([]int, c.size), nodeRank: make([]int, c.size)}
	seen := map[int][2]int{} // node -> (leader's index, ranks so far)
	for r := 0; r < c.size; r++ {
		nd := c.NodeOfRank(r)
		e, ok := seen[nd]
		if !ok {
			e = [2]int{len(seen), 0}
		}
		h.leaderIdx[r], h.nodeRank[r] = e[0], e[1]
		e[1]++
		seen[nd] = e
	}
	h.blocks = true
	for r := 1; r < c.size; r++ {
		if h.leaderIdx[r] < h.leaderIdx[r-1] {
			h.blocks = false
		}
	}
	nc, err := Split(c.Comm, "Split", core.NodeOf(core.World.Rank()), c.rank, nil)
	if err != nil {
		return nil, err
	}
	h.node = of(nc)
	color := core.Undefined
	if h.nodeRank[c.rank] == 0 {
		color = 0
	}
	lc, err := Split(c.Comm, "Split", color, c.rank, nil)
	if err != nil {
		Free(h.node.Comm, "Free")
		return nil, err
	}
	if lc != nil {
		h.leaders = of(lc)
	}
	return h, nil
}

func (h *hierColl) free() {
	Free(h.node.Comm, "Free")
	if h.leaders != nil {
		Free(h.leaders.Comm, "Free")
	}
}

// The hierarchical collectives are composed of the node and leaders' communicators'
// own entry points (their tables: node shared memory on the node, schedules among
// the leaders).

// hierBarrier: the node's ranks meet, their leaders meet, the node's ranks are let go.
func hierBarrier(h *hierColl, op string) error {
	if err := Barrier(h.node.Comm, op); err != nil {
		return err
	}
	if h.leaders != nil {
		if err := Barrier(h.leaders.Comm, op); err != nil {
			return err
		}
	}
	return Barrier(h.node.Comm, op)
}

// hierBcast: root's node first (when root does not lead it), then the leaders, then
// the other nodes (and root's, when root leads it).
func hierBcast(h *hierColl, c *comm, op string, buf *Vec, root int) error {
	mine := h.leaderIdx[c.rank] == h.leaderIdx[root]
	rootLeads := h.nodeRank[root] == 0
	if mine && !rootLeads {
		if h.leaders == nil {
			return Bcast(h.node.Comm, op, buf, h.nodeRank[root])
		}
		// This node's leader passes the message on to the others: where its
		// buffer disagrees with the root's (erroneous), it passes the root's
		// message, and reports the truncation, if any, once it has.
		msg, err := bcastKeep(h.node, op, buf, h.nodeRank[root])
		if msg != nil {
			if e := Bcast(h.leaders.Comm, op, &Vec{B: msg, Esz: 1}, h.leaderIdx[root]); e != nil {
				return e
			}
			return err
		}
		if err != nil {
			return err
		}
	}
	if h.leaders != nil {
		msg, err := bcastKeep(h.leaders, op, buf, h.leaderIdx[root])
		if msg != nil && (!mine || rootLeads) {
			// This leader's buffer disagrees with the root's message (erroneous):
			// its node still gets the message, and it the truncation, if any.
			if e := Bcast(h.node.Comm, op, &Vec{B: msg, Esz: 1}, 0); e != nil {
				return e
			}
			return err
		}
		if err != nil {
			return err
		}
	}
	if !mine || rootLeads {
		return Bcast(h.node.Comm, op, buf, 0)
	}
	return nil
}

// bcastKeep is c's Bcast at a rank that passes the message on: where this rank's
// buffer's length is not the root's message's, it returns the message (coll's
// Message) as well as the truncation error, if any. c's schedules learn it; on c's
// other paths it is c's Bcast, returning nil.
func bcastKeep(c *comm, op string, buf *Vec, root int) ([]byte, error) {
	if c.rank == root || buf.Type != nil || (c.path != PathSched && c.path != PathNode) {
		return nil, Bcast(c.Comm, op, buf, root)
	}
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if c.path == PathNode {
		return nodeBcastKeep(c, op, buf, root)
	}
	return schedBcastKeep(c, op, buf, root)
}

func schedBcastKeep(c *comm, op string, buf *Vec, root int) ([]byte, error) {
	s, err := c.sched.bcast(c, op, *buf, root, false)
	if err != nil {
		return nil, err
	}
	err = s.Run()
	msg := s.Message()
	s.Free()
	return msg, core.MapErr(op, err)
}

// nodeBcastKeep is nodeBcast at a reader that keeps the message (bcastKeep).
func nodeBcastKeep(c *comm, op string, buf *Vec, root int) ([]byte, error) {
	if err := c.nodeErr(op); err != nil {
		return nil, err
	}
	cl := Call{Op: op, Kind: KBcast, Root: root, Size: int64(buf.N()), Elem: int64(buf.Esz)}
	g, err := c.nodeGroup(&cl, 0, 0)
	if err != nil || g == nil {
		if err != nil {
			return nil, err
		}
		return schedBcastKeep(c, op, buf, root)
	}
	msg, err := g.BcastKeep(buf.B, root)
	if err != shmcoll.ErrElsewhere {
		return msg, core.MapErr(op, err)
	}
	n := g.Announced()
	if n == len(buf.B) {
		return nil, nodeBcastLong(c, op, buf, root, n)
	}
	v := Vec{B: buf.B[:min(n, len(buf.B))], Esz: 1}
	if n > len(buf.B) {
		v.B = make([]byte, n)
	}
	if err := nodeBcastLong(c, op, &v, root, n); err != nil {
		return nil, err
	}
	if n > len(buf.B) {
		copy(buf.B, v.B)
		return v.B, core.Errorf(core.ClassTruncate, op, "the root's message has %d bytes, this rank's buffer %d "+
			"(MPI requires the same type signature on every rank)", n, len(buf.B))
	}
	return v.B, nil
}

// hierAllreduce (an operation that commutes, or nodes that hold blocks of ranks):
// reduce to the node's leader, allreduce among the leaders, broadcast on the node.
//
// Where ranks passed different counts (erroneous), a phase's error does not skip the
// phases after it, in which the other ranks wait: a leader whose node phase found one
// takes part in the leaders' phase broken (hierBroken), so the other leaders find it
// too, and a leader with an error broadcasts an empty message on its node, whose
// ranks learn its length (bcastKeep) and report the mismatch.
func hierAllreduce(h *hierColl, op string, send, recv *Vec, r *Red) error {
	leader := h.leaders != nil
	if leader && same(send.B, recv.B) {
		ip := InPlaceVec(recv.Esz)
		send = &ip
	}
	err := Reduce(h.node.Comm, op, send, recv, r, 0)
	if leader {
		ip := InPlaceVec(recv.Esz)
		if err == nil {
			err = Allreduce(h.leaders.Comm, op, &ip, recv, r)
		} else {
			s, e := h.leaders.sched.allreduce(h.leaders, op, ip, *recv, *r, false)
			hierBroken(op, s, e, err)
		}
		out := recv
		if err != nil {
			out = &Vec{B: recv.B[:0], Esz: recv.Esz}
		}
		if e := Bcast(h.node.Comm, op, out, 0); err == nil {
			err = e
		}
		return err
	}
	msg, e := bcastKeep(h.node, op, recv, 0)
	if err == nil {
		err = e
	}
	if err == nil && msg != nil && len(msg) < len(recv.B) {
		err = hierShort(op, len(msg), len(recv.B))
	}
	return err
}

// hierBroken runs s (built with error e), a leaders' phase of a hierarchical reduction
// whose node phase ended with err on this leader, broken from its start (its sends
// empty: coll.Sched.Break), so that the other leaders find short messages and report
// the mismatch rather than passing this node's wrong part on; its own errors are
// err's consequences.
func hierBroken(op string, s *coll.Sched, e, err error) {
	if e != nil {
		return
	}
	s.Break(err)
	Run(op, s)
}

// hierShort is the error of a rank whose node's leader sent it n bytes of the result
// where it expected want: the leader found ranks that passed different counts.
func hierShort(op string, n, want int) error {
	return core.Errorf(core.ClassCount, op, "this rank's node leader passed on %d bytes of the result where this rank expected %d: "+
		"ranks passed different counts (MPI requires the same count on every rank)", n, want)
}

// hierReduce (an operation that commutes, or nodes that hold blocks of ranks):
// reduce to each node's leader, reduce among the leaders to the leader of root's node,
// which passes the result to root when root does not lead. Only leaders' partial
// results cross the network.
func hierReduce(h *hierColl, c *comm, op string, send, recv *Vec, r *Red, root int) error {
	isRoot := c.rank == root
	if isRoot && send.InPlace {
		send = recv
	}
	leader := h.leaders != nil
	rootLeads := h.nodeRank[root] == 0
	rootNode := h.leaderIdx[c.rank] == h.leaderIdx[root]
	// Where this rank's node-level result goes: root's recv when root leads its node,
	// else (leaders only) the scratch buffer.
	var part *Vec
	if leader {
		if isRoot {
			part = recv
		} else {
			need := len(send.B)
			if cap(h.scratch) < need {
				h.scratch = make([]byte, need)
			}
			part = &Vec{B: h.scratch[:need:need], Esz: send.Esz}
		}
	}
	nodeSend := send
	ip := InPlaceVec(send.Esz)
	if leader && same(send.B, part.B) {
		nodeSend = &ip
	}
	if part == nil {
		part = &Vec{Esz: send.Esz}
	}
	// As in hierAllreduce, an error (ranks that passed different counts) skips no
	// later phase; a leader that found one passes the root an empty result.
	err := Reduce(h.node.Comm, op, nodeSend, part, r, 0)
	if leader {
		lsend := &ip
		if !rootNode {
			lsend = part // only the root's leader reduces in place
		}
		if err == nil {
			err = Reduce(h.leaders.Comm, op, lsend, part, r, h.leaderIdx[root])
		} else {
			s, e := h.leaders.sched.reduce(h.leaders, op, *lsend, *part, *r, h.leaderIdx[root], false)
			hierBroken(op, s, e, err)
		}
	}
	if rootNode && !rootLeads {
		k := h.node.Local()
		switch {
		case leader:
			out := part.B
			if err != nil {
				out = out[:0]
			}
			if e := core.MapErr(op, k.Send(out, h.nodeRank[root], core.TagHier)); err == nil {
				err = e
			}
		case isRoot:
			if e := k.Recv(recv.B, 0, core.TagHier); err == nil && e != nil {
				err = core.MapErr(op, e)
			}
		}
	}
	return err
}

// settleNode takes the lines c's region's group owes (shmcoll's Owing: a Bcast's
// reader whose buffer was empty did not wait for them), before the communicator is
// freed or MPI ends: a line that held bytes (an erroneous Bcast) is op's error.
func (c *comm) settleNode(op string) error {
	if n := c.node; n != nil && n.state == nodeOn && n.g != nil {
		return core.MapErr(op, n.g.Settle())
	}
	return nil
}

// settleNodes is settleNode of every region mapped now (Finalize).
func settleNodes(op string) error {
	nodeRegions.Lock()
	defer nodeRegions.Unlock()
	var err error
	for n := range nodeRegions.m {
		if n.state == nodeOn && n.g != nil {
			if e := n.g.Settle(); err == nil && e != nil {
				err = core.MapErr(op, e)
			}
		}
	}
	return err
}

// freeNode releases c's region, or its node and leaders' communicators (Free).
func (c *comm) freeNode() {
	n := c.node
	if n == nil {
		return
	}
	if n.hier != nil {
		n.hier.free()
		n.hier = nil
	}
	nodeRegions.Lock()
	n.forget()
	nodeRegions.Unlock()
	n.close()
}

// closeNodeRegions releases every region (Finalize, once every rank has passed its
// fence).
func closeNodeRegions() {
	nodeRegions.Lock()
	defer nodeRegions.Unlock()
	for n := range nodeRegions.m {
		n.forget()
		n.close()
	}
}
