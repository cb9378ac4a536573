package core

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mpigo/mpigo/internal/group"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/transport"
	"github.com/mpigo/mpigo/internal/transport/tcp"
)

// Processes of other jobs. The engine, the groups and the transports address a
// process by an index: world ranks are 0..World.size-1, and a process of another job
// (a spawned child, a parent, a job joined through a port) takes the next free index
// when this process first learns of it. Indices are this process's own: another
// process may index the same peer differently, so whatever must agree between
// processes (an order, an identity sent in a message) goes by name, (job, rank).
//
// Such peers are reached only through the open-mode TCP transport (dynTr), made on
// the first dynamic operation and added to the engine then; the job's own transports
// never see them. A foreign process stays reachable while a live communicator names
// it; Disconnect drops the ones no communicator names any more, so that their later
// end is not a failure here.

// procName names a process across jobs.
type procName struct {
	job  string
	rank int32
}

func (n procName) less(m procName) bool {
	if n.job != m.job {
		return n.job < m.job
	}
	return n.rank < m.rank
}

// dynTransport is the open-mode TCP transport's contract (internal/transport/tcp).
type dynTransport interface {
	transport.Transport
	Card() []byte
	Add(peer int, card []byte) error
	Remove(peer int)
}

var dyn struct {
	sync.Mutex
	tr     dynTransport
	names  []procName       // names[i] is index World.size+i's
	index  map[procName]int // foreign name -> index, while reachable
	refs   []int32          // live communicators naming index World.size+i
	ports  map[string]*port
	parent *Comm
	live   map[*Comm]struct{} // the live communicators with members of other jobs
}

// rankBell is the doorbell the rank's transports share (startWorld), which the
// open transport rings too.
var rankBell transport.Doorbell

func myName() procName { return procName{proc.JobID(), int32(World.rank)} }

// nameOf is the name of index w.
func nameOf(w int32) procName {
	if int(w) < World.size {
		return procName{proc.JobID(), w}
	}
	dyn.Lock()
	defer dyn.Unlock()
	return dyn.names[int(w)-World.size]
}

// procBefore orders two processes alike in every process that knows both.
func procBefore(a, b int32) bool {
	if int(a) < World.size && int(b) < World.size {
		return a < b
	}
	return nameOf(a).less(nameOf(b))
}

// known counts the processes of other jobs this process ever indexed, so that a
// communicator's creation looks through its group only once there are some.
var known atomic.Int32

// foreign reports whether g names a process of another job.
func foreign(g *group.Group) bool {
	if known.Load() == 0 || g == nil || World.group == nil || g == World.group {
		return false
	}
	for _, w := range g.All() {
		if int(w) >= World.size {
			return true
		}
	}
	return false
}

// dynTr returns the open transport, making it (and telling the engine) on first use.
// The caller holds dyn.
func dynTr(op string) (dynTransport, error) {
	if dyn.tr != nil {
		return dyn.tr, nil
	}
	gone := func(peer int, err error) {
		if eng != nil {
			eng.PeerFailed(peer, err)
		}
	}
	t, err := tcp.Open(tcp.Options{Doorbell: rankBell, PeerGone: gone})
	if err != nil {
		return nil, Wrap(ClassOther, op, "the transport to other jobs", err)
	}
	eng.AddTransport(t)
	transports = append(transports, t)
	dyn.tr = t
	if dyn.index == nil {
		dyn.index = map[procName]int{}
	}
	return t, nil
}

// myCard is what another job needs to reach this process.
func myCard(op string) ([]byte, error) {
	dyn.Lock()
	defer dyn.Unlock()
	t, err := dynTr(op)
	if err != nil {
		return nil, err
	}
	return t.Card(), nil
}

// procRec is one process as connect and accept exchange it.
type procRec struct {
	name procName
	card []byte
}

// addProcs makes every process of recs reachable and returns their indices, in order.
// It holds each foreign one as a communicator would, so that a Disconnect running
// meanwhile on another thread does not drop a process this connection is about to
// name; the caller lets go with releaseIdx once the communicator holds them (or the
// connection failed).
func addProcs(op string, recs []procRec) ([]int32, error) {
	dyn.Lock()
	defer dyn.Unlock()
	t, err := dynTr(op)
	if err != nil {
		return nil, err
	}
	me := proc.JobID()
	out := make([]int32, len(recs))
	for i, r := range recs {
		if r.name.job == me {
			if int(r.name.rank) >= World.size {
				return nil, Errorf(ClassIntern, op, "process %d of this job is beyond its size %d", r.name.rank, World.size)
			}
			out[i] = r.name.rank
			continue
		}
		if w, ok := dyn.index[r.name]; ok {
			out[i] = int32(w)
			continue
		}
		w := World.size + len(dyn.names)
		if err := t.Add(w, r.card); err != nil {
			return nil, Wrap(ClassOther, op, fmt.Sprintf("reaching rank %d of job %s", r.name.rank, r.name.job), err)
		}
		dyn.names = append(dyn.names, r.name)
		prof.NameProc(w, r.name.job, int(r.name.rank))
		known.Add(1)
		dyn.refs = append(dyn.refs, 0)
		dyn.index[r.name] = w
		out[i] = int32(w)
	}
	if err := eng.AddPeers(World.size + len(dyn.names)); err != nil {
		return nil, Wrap(ClassIntern, op, "growing the engine", err)
	}
	for _, w := range out {
		if int(w) >= World.size {
			dyn.refs[int(w)-World.size]++
		}
	}
	return out, nil
}

// releaseIdx lets go of the holds addProcs took on ws.
func releaseIdx(ws []int32) {
	dyn.Lock()
	defer dyn.Unlock()
	for _, w := range ws {
		if int(w) >= World.size {
			dyn.refs[int(w)-World.size]--
		}
	}
}

// procGroup is the group of the processes of indices ws, in order.
func procGroup(op string, ws []int32) (*group.Group, error) {
	n := World.size
	dyn.Lock()
	n += len(dyn.names)
	dyn.Unlock()
	all, err := group.World(n)
	if err != nil {
		return nil, GroupErr(op, err)
	}
	ranks := make([]int, len(ws))
	for i, w := range ws {
		ranks[i] = int(w)
	}
	g, err := all.Incl(ranks)
	if err != nil {
		return nil, GroupErr(op, err)
	}
	return g, nil
}

// holdProcs counts c among the communicators naming its foreign members.
func (c *Comm) holdProcs() {
	c.foreign = foreign(c.group) || foreign(c.remote)
	if !c.foreign {
		return
	}
	dyn.Lock()
	defer dyn.Unlock()
	c.eachForeign(func(i int) { dyn.refs[i]++ })
	if dyn.live == nil {
		dyn.live = map[*Comm]struct{}{}
	}
	dyn.live[c] = struct{}{}
}

// releaseProcs undoes holdProcs when c is freed.
func (c *Comm) releaseProcs() {
	if !c.foreign {
		return
	}
	dyn.Lock()
	defer dyn.Unlock()
	c.eachForeign(func(i int) { dyn.refs[i]-- })
	delete(dyn.live, c)
}

// finishConnected is Finalize's part for other jobs: MPI_Finalize is collective over
// every process still connected to this one, so each live communicator with members
// of other jobs is waited on (a barrier over both its groups, in the order of their
// context ids, which all members share) and then dropped, as Disconnect would. A
// member found gone ends its communicator's wait with nothing to wait for.
func finishConnected(op string) {
	dyn.Lock()
	var cs []*Comm
	for c := range dyn.live {
		cs = append(cs, c)
	}
	dyn.Unlock()
	slices.SortFunc(cs, func(a, b *Comm) int { return cmp.Compare(a.ctx, b.ctx) })
	for _, c := range cs {
		if c.DisconnectWait(op) == nil {
			c.FreeCore(op)
		}
	}
	dropUnused()
}

// eachForeign calls f with the table position of each foreign member of c. The caller
// holds dyn.
func (c *Comm) eachForeign(f func(i int)) {
	for _, g := range []*group.Group{c.group, c.remote} {
		if g == nil {
			continue
		}
		for _, w := range g.All() {
			if int(w) >= World.size {
				f(int(w) - World.size)
			}
		}
	}
}

// dropUnused makes the foreign processes that no live communicator names unreachable:
// their end is no longer this process's business (MPI_Comm_disconnect).
func dropUnused() {
	dyn.Lock()
	defer dyn.Unlock()
	if dyn.tr == nil {
		return
	}
	for i, n := range dyn.refs {
		if w := World.size + i; n == 0 && dyn.index[dyn.names[i]] == w {
			dyn.tr.Remove(w)
			delete(dyn.index, dyn.names[i])
		}
	}
}

// NodeOfRank is the node of c's local rank r, for choices every member must make
// alike (node-aware collectives, aggregators, shared regions). On a communicator that
// spans jobs every member is a node of its own: two jobs number their nodes apart, and
// their processes share no memory with mpigo.
func (c *Comm) NodeOfRank(r int) int {
	if c.foreign {
		return -1 - r
	}
	return NodeOf(c.LocalWorldRank(r))
}

// SpansJobs reports whether c has members of more than one job.
func (c *Comm) SpansJobs() bool { return c.foreign }

// indexOf is this process's index of the process named n, if it knows it.
func indexOf(n procName) (int32, bool) {
	if n.job == proc.JobID() {
		return n.rank, n.rank >= 0 && int(n.rank) < World.size
	}
	dyn.Lock()
	defer dyn.Unlock()
	w, ok := dyn.index[n]
	return int32(w), ok
}
