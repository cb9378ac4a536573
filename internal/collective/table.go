package collective

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/group"
	"github.com/mpigo/mpigo/internal/shmcoll"

	"github.com/mpigo/mpigo/internal/coll"
)

// Every communicator chooses its collectives once, when it is made (as Open MPI's
// c_coll and MPICH's collective selection do): chooseColl fills its table of entry
// points, and every call goes through it without asking again whether the
// communicator is an intercommunicator, lives on one node or spans several. Within an
// entry, the choice left per call is by message size (a node shared-memory Bcast up
// to a limit, the schedules beyond), as point-to-point chooses a protocol per message.

// Path is how a communicator's blocking Barrier, Bcast, Reduce and Allreduce run.
type Path uint8

const (
	// PathSched: schedules of point-to-point messages (internal/coll).
	PathSched Path = iota
	// PathNode: every rank on this node: one region of shared memory.
	PathNode
	// PathHier: several nodes, several ranks on some: the node's shared memory, then
	// one leader per node, composed of the entry points on two communicators.
	PathHier
	// PathInter: an intercommunicator: schedules over both groups.
	PathInter
)

func (p Path) String() string {
	return [...]string{"schedule", "node shared memory", "hierarchical", "intercommunicator"}[p]
}

// collTable is a communicator's collectives: the blocking entries that have faster
// paths than schedules, and the schedule builders (intra- or intercommunicator) that
// serve every other call and every nonblocking one.
type collTable struct {
	path  Path
	why   string // why not a faster path, for mpigo info
	sched *schedTable
	check bool // coll_check: verify that the members' calls match
}

// schedTable builds the schedule of each collective (nb: the nonblocking form).
type schedTable struct {
	barrier            func(c *comm, op string, nb bool) (*coll.Sched, error)
	bcast              func(c *comm, op string, buf Vec, root int, nb bool) (*coll.Sched, error)
	reduce             func(c *comm, op string, send, recv Vec, r Red, root int, nb bool) (*coll.Sched, error)
	allreduce          func(c *comm, op string, send, recv Vec, r Red, nb bool) (*coll.Sched, error)
	gather             func(c *comm, op string, send, recv Vec, root int, nb bool) (*coll.Sched, error)
	gatherv            func(c *comm, op string, send, recv Vec, counts, displs []int, root int, nb bool) (*coll.Sched, error)
	scatter            func(c *comm, op string, send, recv Vec, root int, nb bool) (*coll.Sched, error)
	scatterv           func(c *comm, op string, send Vec, counts, displs []int, recv Vec, root int, nb bool) (*coll.Sched, error)
	allgather          func(c *comm, op string, send, recv Vec, nb bool) (*coll.Sched, error)
	allgatherv         func(c *comm, op string, send, recv Vec, counts, displs []int, nb bool) (*coll.Sched, error)
	alltoall           func(c *comm, op string, send, recv Vec, nb bool) (*coll.Sched, error)
	alltoallv          func(c *comm, op string, send Vec, scounts, sdispls []int, recv Vec, rcounts, rdispls []int, nb bool) (*coll.Sched, error)
	reduceScatterBlock func(c *comm, op string, send, recv Vec, r Red, nb bool) (*coll.Sched, error)
	reduceScatter      func(c *comm, op string, send, recv Vec, counts []int, r Red, nb bool) (*coll.Sched, error)
	scan               func(c *comm, op string, send, recv Vec, r Red, excl, nb bool) (*coll.Sched, error)
}

var intraSched = &schedTable{
	barrier: (*comm).barrierSched, bcast: (*comm).bcastSched, reduce: (*comm).reduceSched,
	allreduce: (*comm).allreduceSched, gather: (*comm).gatherSched, gatherv: (*comm).gathervSched,
	scatter: (*comm).scatterSched, scatterv: (*comm).scattervSched, allgather: (*comm).allgatherSched,
	allgatherv: (*comm).allgathervSched, alltoall: (*comm).alltoallSched, alltoallv: (*comm).alltoallvSched,
	reduceScatterBlock: (*comm).reduceScatterBlockSched, reduceScatter: (*comm).reduceScatterSched,
	scan: (*comm).scanSched,
}

var interSched = &schedTable{
	barrier: (*comm).interBarrierSched, bcast: (*comm).interBcastSched, reduce: (*comm).interReduceSched,
	allreduce: (*comm).interAllreduceSched, gather: (*comm).interGatherSched, gatherv: (*comm).interGathervSched,
	scatter: (*comm).interScatterSched, scatterv: (*comm).interScattervSched, allgather: (*comm).interAllgatherSched,
	allgatherv: (*comm).interAllgathervSched, alltoall: (*comm).interAlltoallSched, alltoallv: (*comm).interAlltoallvSched,
	reduceScatterBlock: (*comm).interReduceScatterBlockSched, reduceScatter: (*comm).interReduceScatterSched,
	scan: func(c *comm, op string, _, _ Vec, _ Red, _, _ bool) (*coll.Sched, error) {
		return nil, core.Errorf(core.ClassComm, op, "%s is not defined on intercommunicators (MPI defines Scan and Exscan on intracommunicators only)", op)
	},
}

// comm is a communicator as its collectives see it: core's communicator, the table
// chosen for it when it was made, and its collectives' state. It is made with the
// communicator (create.go: made) and kept in the communicator's CollState, where of
// finds it; it lives as long as the communicator.
type comm struct {
	*core.Comm
	collTable
	// rank, size and remote are the communicator's, copied when it is made (they
	// never change), so that the collectives read them as fields.
	rank, size int
	remote     *group.Group
	node       *nodeColl    // node shared-memory or hierarchical state, made on first use
	dry        atomic.Bool  // CheckArgs is running: its goroutine's builders stop after their checks
	dryG       atomic.Int64 // the goroutine running CheckArgs
}

// of is c's comm. c must have been made through this package (made), as every
// communicator the faces hold is.
func of(c *core.Comm) *comm { return (*comm)(c.CollState()) }

// newComm makes c's comm and chooses its collectives.
func newComm(c *core.Comm) *comm {
	k := &comm{Comm: c, rank: c.Rank(), size: c.Size(), remote: c.Remote()}
	k.chooseColl()
	return k
}

// chooseColl fills c's table from what every member knows alike (its groups, the node
// map, the settings), so that all members choose the same.
func (c *comm) chooseColl() {
	t := collTable{path: PathSched, sched: intraSched}
	switch {
	case c.remote != nil:
		t = collTable{path: PathInter, sched: interSched}
	case c.size < 2:
		t.why = "one rank"
	default:
		n := newNodeColl(c)
		c.node = n
		switch {
		case n.err != nil:
			t.path = PathNode
		case n.state == nodeHier:
			t.path = PathHier
		case n.state == nodeOff:
			t.why = n.why
		default:
			t.path = PathNode
		}
	}
	t.check = coll.Checking()
	c.collTable = t
}

// PathOf reports how c's blocking Barrier, Bcast, Reduce and Allreduce run, and why
// not faster where a faster path was ruled out.
func PathOf(c *core.Comm) (Path, string) { k := of(c); return k.path, k.why }

// Table describes c's collective table for people (mpigo info): the path of the
// blocking collectives that have several, the size limits, and the schedules'
// algorithm selection.
func Table(cc *core.Comm) string {
	c := of(cc)
	var b strings.Builder
	p, why := c.path, c.why
	fmt.Fprintf(&b, "collectives of %s (%d ranks): Barrier, Bcast, Reduce, Allreduce by %s", c.Name(), c.size, p)
	if why != "" {
		fmt.Fprintf(&b, " (%s)", why)
	}
	b.WriteString("\n")
	if p == PathHier {
		b.WriteString("  Bcast hierarchical at every length (node phases as below); Barrier, Reduce and Allreduce up to the node's limits\n")
	}
	if p == PathNode || p == PathHier {
		l := c.node.lim
		if c.size == 2 {
			fmt.Fprintf(&b, "  node shared memory up to: Bcast %d B, Reduce %d B, Allreduce %d B; beyond, schedules\n", l.bcast, l.rooted, l.reduce)
			if l.pair && p == PathNode {
				b.WriteString("  a Bcast beyond that: its length announced there, then the root's message alone\n")
			}
		} else {
			fmt.Fprintf(&b, "  node shared memory up to: Bcast %d B, Reduce/Allreduce %d B (split from %d B); beyond, schedules\n", l.bcast, l.reduce, l.split)
			if l.stage > l.bcast {
				fmt.Fprintf(&b, "  and Bcast from %d to %d B copied whole into the region by the root, which leaves (coll_shm_bcast_stage_ranks)\n", l.bcast+1, l.stage)
			}
			if l.direct > 0 && l.directMax >= l.direct && l.directMax > l.stage && p == PathNode {
				state := "where every rank can"
				if n := c.node; n.state == nodeOn {
					state = "(on: every rank can)"
					if n.g.Direct() == 0 {
						state = "(off: some rank cannot read another's memory)"
					}
				}
				fmt.Fprintf(&b, "  and Bcast from %d to %d B read from the root's buffer %s (single copy), or the schedule, chosen by timing\n", l.direct, l.directMax, state)
			}
			if l.readSplit > 0 && p == PathNode {
				fmt.Fprintf(&b, "  split Allreduce from %d B chooses by timing between the slots and reading the others' contributions from their buffers, where every rank can\n",
					max(l.readSplit, l.split))
			}
		}
	}
	if p == PathNode {
		fmt.Fprintf(&b, "  Gather, Gatherv: node shared memory (blocks over %d B as messages); Allgather, Allgatherv: node shared memory up to %d B per block\n",
			shmcoll.GatherInline, c.node.gatherLimit())
		fmt.Fprintf(&b, "  Reduce: a cell per rank up to %d B (non-roots leave at once), beyond it the reductions' way above\n", shmcoll.GatherInline)
	}
	t, err := coll.Tune()
	if err != nil {
		fmt.Fprintf(&b, "  %v\n", err)
	}
	fmt.Fprintf(&b, "  schedules: %s\n", t)
	b.WriteString("  every other collective, and every nonblocking one: schedules\n")
	return b.String()
}

func runSched(op string, s *coll.Sched, err error) error {
	if err != nil {
		return err
	}
	return Run(op, s)
}

func schedBarrier(c *comm, op string) error {
	s, err := c.sched.barrier(c, op, false)
	return runSched(op, s, err)
}

func schedBcast(c *comm, op string, buf *Vec, root int) error {
	s, err := c.sched.bcast(c, op, *buf, root, false)
	return runSched(op, s, err)
}

func schedReduce(c *comm, op string, send, recv *Vec, r *Red, root int) error {
	s, err := c.sched.reduce(c, op, *send, *recv, *r, root, false)
	return runSched(op, s, err)
}

func schedAllreduce(c *comm, op string, send, recv *Vec, r *Red) error {
	s, err := c.sched.allreduce(c, op, *send, *recv, *r, false)
	return runSched(op, s, err)
}

// nodeErr is a bad node setting, reported by every collective that could use the
// region; nil otherwise.
func (c *comm) nodeErr(op string) error {
	if c.node.err != nil {
		return c.nodeErrSlow(op)
	}
	return nil
}

func (c *comm) nodeErrSlow(op string) error { return core.Errorf(core.ClassArg, op, "%v", c.node.err) }

// ready is c's region while it is in use and calls need no comparison first
// (coll_check), else nil. The node collectives take it at once when the call's
// arguments allow (a root in range, a length within the region's limit); otherwise,
// and on the first call, which makes the region, they take nodeGroup's way, which
// builds the call's description for the checks.
func (c *comm) ready() *shmcoll.Group {
	if c.check {
		return nil
	}
	return c.node.g
}

func nodeBarrier(c *comm, op string) error {
	g := c.ready()
	if g == nil {
		if err := c.nodeErr(op); err != nil {
			return err
		}
		cl := Call{Op: op, Kind: KBarrier, Root: NoRoot}
		var err error
		if g, err = c.nodeGroup(&cl, 0, 0); err != nil || g == nil {
			if err != nil {
				return err
			}
			return schedBarrier(c, op)
		}
	}
	return core.MapErr(op, g.Barrier())
}

// nodeBcast: every rank takes the region's first step, whatever its own buffer's
// length, and the way follows the root's: the ring up to its limit (readers follow the
// root's chunk count); beyond it the root picks the way and says so, with its length,
// in the same line: the reads from its buffer (shmcoll's direct Bcast, whose line holds
// the buffer's address and length) or the schedules (shmcoll Announce), which every
// rank then builds for the root's length. So a receiver whose buffer disagrees with
// the root's (erroneous: MPI requires equal type signatures) gets MPI_ERR_TRUNCATE or
// the message, never a wait for a peer that took another way.
func nodeBcast(c *comm, op string, buf *Vec, root int) error {
	g := c.ready()
	if g == nil || uint(root) >= uint(c.size) {
		if err := c.nodeErr(op); err != nil {
			return err
		}
		cl := Call{Op: op, Kind: KBcast, Root: root, Size: int64(buf.N()), Elem: int64(buf.Esz)}
		var err error
		if g, err = c.nodeGroup(&cl, 0, 0); err != nil || g == nil {
			if err != nil {
				return err
			}
			return schedBcast(c, op, buf, root)
		}
	}
	n := len(buf.B)
	if c.rank != root {
		err := g.Bcast(buf.B, root)
		if err == shmcoll.ErrElsewhere {
			return nodeBcastLong(c, op, buf, root, g.Announced())
		}
		return core.MapErr(op, err)
	}
	if n > int(c.node.lim.bcast) {
		if n <= int(c.node.lim.stage) {
			return nodeBcastStaged(c, g, op, buf, root)
		}
		return nodeBcastRoot(c, g, op, buf, root, n)
	}
	if err := g.Bcast(buf.B, root); err != nil {
		return core.MapErr(op, err)
	}
	c.node.sentAll(n)
	return nil
}

// nodeBcastRoot is the root's Bcast of n bytes, too long for the ring. Where every
// rank can read the others' memory and n is in the reads' range, the root picks by
// timing its own part of each call (its record, c.node.bcast, shmcoll.Chooser) between
// the reads from its buffer and the point-to-point tree: which is faster depends on
// whether the cores share a cache at the time. Either way one line tells the readers
// the way and the length together (the direct Bcast's line, or Announce's), where a
// pick by another rank would be a second exchange. Otherwise the schedules, announced.
func nodeBcastRoot(c *comm, g *shmcoll.Group, op string, buf *Vec, root, n int) error {
	l := &c.node.lim
	if !(l.direct > 0 && n >= int(l.direct) && n <= int(l.directMax) && g.Direct() > 0) {
		if err := g.Announce(n); err != nil {
			return core.MapErr(op, err)
		}
		return nodeBcastLong(c, op, buf, root, n)
	}
	ch := &c.node.bcast
	v := ch.PickFirst(1)
	t0 := time.Now()
	var err error
	if v == 1 {
		if err = core.MapErr(op, g.Bcast(buf.B, root)); err == nil {
			c.node.sentAll(n)
		}
	} else if err = core.MapErr(op, g.Announce(n)); err == nil {
		err = nodeBcastLong(c, op, buf, root, n)
	}
	if err == nil {
		ch.Record(v, float64(time.Since(t0))/float64(n))
	}
	return err
}

// nodeBcastStaged is the root's Bcast of a message that it copies into the region
// whole and leaves (nodeLimits.stage).
func nodeBcastStaged(c *comm, g *shmcoll.Group, op string, buf *Vec, root int) error {
	if err := g.BcastStaged(buf.B, root); err != nil {
		return core.MapErr(op, err)
	}
	c.node.sentAll(len(buf.B))
	return nil
}

// nodeBcastLong is the schedules' Bcast of the root's n bytes, announced by the root
// (nodeBcastRoot): on two ranks, where they are one message, that message alone
// (pairBcast), else the schedules built for n (schedBcastLen).
func nodeBcastLong(c *comm, op string, buf *Vec, root, n int) error {
	if c.node.lim.pair {
		return pairBcast(c, op, buf, root, n)
	}
	return schedBcastLen(c, op, buf, root, n)
}

// pairBcast is the schedules' Bcast of the root's n bytes on two ranks, where the
// binomial tree is one message from the root to the other rank: it sends that
// message without building a schedule (coll.New, its steps and Free cost more
// instructions than the message's own send or receive). The announcement told the
// receiver n, so it receives exactly n bytes, into its buffer's first n or into
// scratch of which it keeps what fits (MPI_ERR_TRUNCATE), as schedBcastLen's
// receivers do. The tag is the collective's next sequence tag, as a schedule's.
func pairBcast(c *comm, op string, buf *Vec, root, n int) error {
	tag := c.SeqTag()
	if c.rank == root {
		return core.MapErr(op, c.Local().Send(buf.B, 1-root, tag))
	}
	have := len(buf.B)
	if have >= n {
		return core.MapErr(op, c.Local().Recv(buf.B[:n], root, tag))
	}
	b := make([]byte, n)
	if err := c.Local().Recv(b, root, tag); err != nil {
		return core.MapErr(op, err)
	}
	copy(buf.B, b)
	return core.Errorf(core.ClassTruncate, op, "the root's message has %d bytes, this rank's buffer %d "+
		"(MPI requires the same type signature on every rank)", n, have)
}

// schedBcastLen is the schedules' Bcast of the root's n bytes, built for n on every
// rank whatever its own buffer's length (so that all build the same schedule): a
// longer buffer receives into its first n bytes, a shorter one into scratch, of which
// it keeps what fits and reports MPI_ERR_TRUNCATE.
func schedBcastLen(c *comm, op string, buf *Vec, root, n int) error {
	switch have := len(buf.B); {
	case have == n:
		return schedBcast(c, op, buf, root)
	case have > n:
		v := Vec{B: buf.B[:n], Esz: buf.Esz}
		return schedBcast(c, op, &v, root)
	default:
		v := Vec{B: make([]byte, n), Esz: 1}
		if err := schedBcast(c, op, &v, root); err != nil {
			return err
		}
		copy(buf.B, v.B)
		return core.Errorf(core.ClassTruncate, op, "the root's message has %d bytes, this rank's buffer %d "+
			"(MPI requires the same type signature on every rank)", n, have)
	}
}

// nodeReduce: every rank of a Reduce takes the region's cells whatever its length
// (shmcoll's ReducePut and ReduceRoot): a contribution that fits a cell is combined
// from there by the root, and the non-roots leave, as after an eager send; a longer
// one publishes its length, and the ranks take the op way below the limit or the
// schedules beyond it, once it is sure that all do (on two ranks the root follows its
// peer's length, with its own buffers; on more the root's verdict says so). A rank
// whose length differs (erroneous) is reported by the root, or by the way both took,
// and no rank waits for a peer on a way it did not take. coll_check compares the calls
// before any of this.
func nodeReduce(c *comm, op string, send, recv *Vec, r *Red, root int) error {
	if err := c.nodeErr(op); err != nil {
		return err
	}
	s := reduceSend(c.rank, root, send, recv)
	g := c.ready()
	if g == nil || uint(root) >= uint(c.size) {
		cl := Call{Op: op, Kind: KReduce, Root: root, Size: int64(s.N()), Elem: int64(s.Esz), Red: r.code()}
		var err error
		if g, err = c.nodeGroup(&cl, 0, 0); err != nil || g == nil {
			if err != nil {
				return err
			}
			return schedReduce(c, op, send, recv, r, root)
		}
	}
	n, way := len(s.B), len(s.B) // way: the length whose way the call goes on by
	if c.rank != root {
		if err := g.ReducePut(s.B, root); err != nil {
			return nodeCountErr(c, g, op, err, s.Esz, nil)
		}
	} else {
		if c.node.red == nil {
			c.node.red = make([]byte, 2*shmcoll.GatherInline)
		}
		split := !r.User && shmcoll.CellHead%r.unit(s.Esz) == 0
		follow, err := g.ReduceRoot(s.B, recv.B, r.K.Fn, split, c.node.red)
		if err != nil {
			return nodeCountErr(c, g, op, err, s.Esz, nil)
		}
		if follow < 0 {
			return nil
		}
		way = follow
	}
	if way <= shmcoll.GatherInline {
		c.node.sentTo(root, n)
		return nil
	}
	limit := rootedLimit(c, r)
	var err error
	switch {
	case int64(way) > limit && way != n:
		return followSched(c, op, r, root, way, n, s.Esz)
	case int64(way) > limit:
		return schedReduce(c, op, send, recv, r, root)
	case int64(n) > limit:
		// The root's own contribution is beyond the limit, the others' not
		// (erroneous): the op without data, which compares the lengths.
		err = g.Elsewhere(n)
	default:
		err = g.Reduce(s.B, recv.B, r.unit(s.Esz), r.K.Fn, r.K.Commute, root)
	}
	if err != nil {
		return nodeCountErr(c, g, op, err, s.Esz, nil)
	}
	if c.rank != root {
		c.node.sentTo(root, n)
	}
	return nil
}

// followSched is a Reduce's root whose contribution of n bytes differs from the
// others' (of way bytes, erroneous), which went on to the schedules: it runs them
// alike on scratch buffers of their length (each rank picks its algorithm by its own
// length, and one it did not pick would leave them waiting), then reports the
// difference.
func followSched(c *comm, op string, r *Red, root, way, n, esz int) error {
	esz = max(esz, 1)
	m := way / esz * esz
	a, b := Vec{B: make([]byte, m), Esz: esz}, Vec{B: make([]byte, m), Esz: esz}
	if err := schedReduce(c, op, &a, &b, r, root); err != nil {
		return err
	}
	j := 0
	if root == 0 {
		j = 1
	}
	return countErr(op, &shmcoll.CountError{Rank: j, Len: way, Want: n}, esz)
}

// nodeAllreduceEntry: every rank takes the region whatever its own length (an
// erroneous call's ranks may pass different ones): one within the limit reduces
// there, one beyond it takes the op there without data (shmcoll Elsewhere) before the
// schedules. Each publishes its length beside its arrival, and whoever combines
// compares (shmcoll CountError, MPI_ERR_COUNT here), so a rank whose length differs
// makes every rank that can see it return an error, none waits for a peer that took
// another way, and the group stays in step. coll_check compares the calls before any
// of this (and keeps the schedules' own check for long messages).
func nodeAllreduceEntry(c *comm, op string, send, recv *Vec, r *Red) error {
	if err := c.nodeErr(op); err != nil {
		return err
	}
	s := allreduceSend(send, recv)
	n, limit := int64(len(recv.B)), reduceLimit(c, r)
	g := c.ready()
	if g == nil || n > limit {
		cl := Call{Op: op, Kind: KAllreduce, Root: NoRoot, Size: int64(recv.N()), Elem: int64(recv.Esz), Red: r.code()}
		var err error
		if g, err = c.nodeGroup(&cl, n, limit); err != nil || g == nil {
			if err != nil {
				return err
			}
			if n > limit {
				if err := c.nodeElsewhere(&cl, len(recv.B), recv.Esz, r); err != nil {
					return err
				}
			}
			return schedAllreduce(c, op, send, recv, r)
		}
	}
	if err := nodeAllreduce(g, &c.node.lim, s.B, recv.B, recv.Esz, r); err != nil {
		return nodeCountErr(c, g, op, err, recv.Esz, r)
	}
	c.node.sentAll(len(recv.B))
	return nil
}

// reduceScatterRun is a ReduceScatter of counts' blocks, or (block) a
// ReduceScatterBlock of recv's: blocking on the node path within the Allreduce's
// limit, an Allreduce's op into scratch from which each rank copies its block
// (nodeReduceScatterEntry), else the schedules.
func (c *comm) reduceScatterRun(op string, send, recv Vec, counts []int, r Red, block, nb bool) (*core.Pending, error) {
	if !nb && c.path == PathNode {
		if done, err := nodeReduceScatterEntry(c, op, &send, &recv, counts, &r, block); done {
			return nil, err
		}
	}
	var s *coll.Sched
	var err error
	if block {
		s, err = c.sched.reduceScatterBlock(c, op, send, recv, r, nb)
	} else {
		s, err = c.sched.reduceScatter(c, op, send, recv, counts, r, nb)
	}
	return finish(op, nb, s, err)
}

// nodeReduceScatterEntry is a ReduceScatter(Block) on the node path, as
// nodeAllreduceEntry: within the Allreduce's limit (coll_shm_reduce_max2 on two
// ranks, coll_shm_reduce_max on more) every rank combines the whole vector in the
// region, an Allreduce's op into scratch, and copies its own block out (every rank
// combining everything there costs less than the ring's messages, which on more ranks
// than cores wait for the scheduler at each step); beyond it, every rank takes the op
// without data (Elsewhere) and then the schedules (done false). A rank whose total
// length differs (erroneous) makes every rank that combines return MPI_ERR_COUNT, as
// an Allreduce's.
func nodeReduceScatterEntry(c *comm, op string, send, recv *Vec, counts []int, r *Red, block bool) (done bool, err error) {
	if err := c.nodeErr(op); err != nil {
		return true, err
	}
	esz := recv.Esz
	mine, at, total := len(recv.B), 0, 0
	k := KReduceScatter
	if block {
		k = KReduceScatterBlock
		if send.InPlace {
			mine = len(recv.B) / c.size
		}
		at, total = c.rank*mine, c.size*mine
	} else {
		for j, n := range counts {
			if j == c.rank {
				at, mine = total, n*esz
			}
			total += n * esz
		}
	}
	s := allreduceSend(send, recv)
	limit := reduceLimit(c, r)
	g := c.ready()
	if g == nil || int64(total) > limit {
		cl := Call{Op: op, Kind: k, Root: NoRoot, Size: int64(total / max(esz, 1)), Elem: int64(esz), Red: r.code()}
		if g, err = c.nodeGroup(&cl, int64(total), limit); err != nil || g == nil {
			if err == nil && int64(total) > limit {
				err = c.nodeElsewhere(&cl, total, esz, r)
			}
			return err != nil, err
		}
	}
	p := coll.GetScratch(total)
	defer coll.PutScratch(p)
	if err := nodeAllreduce(g, &c.node.lim, s.B[:total], (*p)[:total], esz, r); err != nil {
		return true, nodeCountErr(c, g, op, err, esz, r)
	}
	copy(recv.B[:min(mine, len(recv.B))], (*p)[at:at+mine])
	c.node.sentAll(total)
	return true, nil
}

// nodeElsewhere is a reduction of n bytes, beyond the region's limit, before it takes
// the schedules: it takes the op in the region (shmcoll Elsewhere) when the region is
// on, so that ranks whose lengths differ find it, except under coll_check, which
// compares the calls itself. r is the Allreduce's op (nil for a Reduce).
func (c *comm) nodeElsewhere(cl *Call, n, esz int, r *Red) error {
	if c.check || c.node.state == nodeOff {
		return nil
	}
	g, err := c.nodeGroup(cl, 0, 0)
	if err != nil || g == nil {
		return err
	}
	if err := g.Elsewhere(n); err != nil {
		return nodeCountErr(c, g, cl.Op, err, esz, r)
	}
	return nil
}

// nodeCountErr maps a node reduction's error, a shmcoll.CountError to MPI_ERR_COUNT
// naming both counts. For an Allreduce (r; nil for a Reduce) a length may make a rank
// take rank 0's timed choice (shmcoll Choose) first: a rank that did not while rank 0
// did takes the pick it left, so that the calls stay counted alike.
func nodeCountErr(c *comm, g *shmcoll.Group, op string, err error, esz int, r *Red) error {
	var ce *shmcoll.CountError
	if !errors.As(err, &ce) {
		return core.MapErr(op, err)
	}
	chooses := func(n int) bool {
		return int64(n) <= reduceLimit(c, r) && nodeChooses(g, &c.node.lim, n, r)
	}
	if r != nil && g.Rank() != 0 && !chooses(ce.Want) {
		n0, err := g.ArrivedLen(0)
		if err != nil {
			return core.MapErr(op, err)
		}
		if chooses(n0) {
			g.SkipChoice()
		}
	}
	return countErr(op, ce, esz)
}

// countErr is MPI_ERR_COUNT for a reduction's ranks whose lengths differ (ce), of
// esz-byte elements.
func countErr(op string, ce *shmcoll.CountError, esz int) error {
	esz = max(esz, 1)
	return core.Errorf(core.ClassCount, op, "this rank passes a count of %d (%d bytes), rank %d a count of %d (%d bytes): "+
		"MPI requires the same count on every rank", ce.Want/esz, ce.Want, ce.Rank, ce.Len/esz, ce.Len)
}

func hierBarrierEntry(c *comm, op string) error {
	cl := Call{Op: op, Kind: KBarrier, Root: NoRoot}
	h, err := c.hierGroup(&cl, 0, 0, true)
	if err != nil || h == nil {
		if err != nil {
			return err
		}
		return schedBarrier(c, op)
	}
	return hierBarrier(h, op)
}

// hierBcastEntry: the hierarchical Bcast at every length, not by each rank's own
// length, which a rank whose buffer disagrees with the root's (erroneous) would choose
// differently from it, waiting on another communicator. Each phase answers such a
// rank on its own: the node's (nodeBcast: the ring, or the root's length announced)
// and the leaders' (the schedules' receivers learn the root's length).
func hierBcastEntry(c *comm, op string, buf *Vec, root int) error {
	cl := Call{Op: op, Kind: KBcast, Root: root, Size: int64(buf.N()), Elem: int64(buf.Esz)}
	h, err := c.hierGroup(&cl, 0, 0, true)
	if err != nil || h == nil {
		if err != nil {
			return err
		}
		return schedBcast(c, op, buf, root)
	}
	return hierBcast(h, c, op, buf, root)
}

func hierReduceEntry(c *comm, op string, send, recv *Vec, r *Red, root int) error {
	s := reduceSend(c.rank, root, send, recv)
	cl := Call{Op: op, Kind: KReduce, Root: root, Size: int64(s.N()), Elem: int64(s.Esz), Red: r.code()}
	h, err := c.hierGroup(&cl, int64(len(s.B)), c.node.lim.reduce, r.K.Commute)
	if err != nil || h == nil {
		if err != nil {
			return err
		}
		return schedReduce(c, op, send, recv, r, root)
	}
	return hierReduce(h, c, op, send, recv, r, root)
}

func hierAllreduceEntry(c *comm, op string, send, recv *Vec, r *Red) error {
	s := allreduceSend(send, recv)
	cl := Call{Op: op, Kind: KAllreduce, Root: NoRoot, Size: int64(recv.N()), Elem: int64(recv.Esz), Red: r.code()}
	h, err := c.hierGroup(&cl, int64(len(recv.B)), c.node.lim.reduce, r.K.Commute)
	if err != nil || h == nil {
		if err != nil {
			return err
		}
		return schedAllreduce(c, op, send, recv, r)
	}
	return hierAllreduce(h, op, s, recv, r)
}
