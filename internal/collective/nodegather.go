package collective

import (
	"encoding/binary"
	"sync"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/config"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/shmcoll"
)

// The blocking gathers of a communicator on the node path run through its region,
// with no schedule built. A Gather's or Gatherv's non-root puts its block in a cell
// of its own (shmcoll's GatherPut) and leaves, as after an eager send, and the root
// copies the cells out; a block longer than a cell goes to the root as one
// point-to-point message (TagNodeGather), which the root receives where the sender's
// cell says so. An Allgather's or Allgatherv's ranks each put their block where a
// reduction puts its contribution (shmcoll's Put) and copy the others' out (Take);
// where a block is longer than coll_shm_gather_max (or a slot), they take the op
// without data (far) and then the schedules, which compare the lengths. Every rank
// takes the region's way whatever its length, so a rank whose length disagrees with
// the collector's block (erroneous) is reported there, or joined on the schedules,
// instead of waited for on a way it did not take.
var setShmGatherMax = config.Size("coll_shm_gather_max", 16<<10,
	"largest block (bytes) of a blocking Allgather or Allgatherv that goes through node shared memory; "+
		"longer ones take the schedules").Same()

var setShmScatterMax = config.Size("coll_shm_scatter_max", 16<<10,
	"largest send buffer (bytes, every rank's part) of a blocking Scatter's or Scatterv's root that goes through "+
		"node shared memory; longer ones take the schedules (one message to each rank)").Same()

var setShmAlltoallMax = config.Size("coll_shm_alltoall_max", 8<<10,
	"largest send buffer (bytes, every rank's part) of a blocking Alltoall or Alltoallv that goes through node "+
		"shared memory; longer ones take the schedules (one message to each rank)").Same()

// scatterMax and alltoallMax are coll_shm_scatter_max and coll_shm_alltoall_max, read once.
var (
	scatterMax  = sync.OnceValue(setShmScatterMax.Get)
	alltoallMax = sync.OnceValue(setShmAlltoallMax.Get)
)

// gatherRun is a Gather or (v) a Gatherv on laid-out buffers (a typed call's
// packed ones too, so that every rank takes the same way whatever its datatypes'
// layout): blocking on the node path through the region, else the schedules.
func (c *comm) gatherRun(op string, send, recv Vec, counts, displs []int, root int, v, nb bool) (*core.Pending, error) {
	if !nb && c.path == PathNode {
		s := c.rootBlock(root, recv, send)
		if v {
			s = c.rootVBlock(root, recv, send, counts, displs)
		}
		if done, err := nodeGatherEntry(c, op, &s, &recv, counts, displs, root, v); done {
			return nil, err
		}
	}
	var sc *coll.Sched
	var err error
	if v {
		sc, err = c.sched.gatherv(c, op, send, recv, counts, displs, root, nb)
	} else {
		sc, err = c.sched.gather(c, op, send, recv, root, nb)
	}
	return finish(op, nb, sc, err)
}

// allgatherRun is an Allgather or (v) an Allgatherv on laid-out buffers, as
// gatherRun. An earlier Bcast's truncation found on the region's way (late) is
// reported after the call's own work.
func (c *comm) allgatherRun(op string, send, recv Vec, counts, displs []int, v, nb bool) (*core.Pending, error) {
	var late error
	if !nb && c.path == PathNode {
		s := send
		if s.InPlace {
			if v {
				s = recv.block(counts, displs, c.rank)
			} else {
				m := recv.N() / c.size
				s = recv.Sub(c.rank*m, (c.rank+1)*m)
			}
		}
		var done bool
		if done, late = nodeAllgatherEntry(c, op, &s, &recv, counts, displs, v); done {
			return nil, late
		}
	}
	var sc *coll.Sched
	var err error
	if v {
		sc, err = c.sched.allgatherv(c, op, send, recv, counts, displs, nb)
	} else {
		sc, err = c.sched.allgather(c, op, send, recv, nb)
	}
	if late != nil {
		return nil, after(late, runSched(op, sc, err))
	}
	return finish(op, nb, sc, err)
}

// scatterRun is a Scatter on laid-out buffers (a typed call's packed ones too, as
// gatherRun): blocking on the node path through the region, else the schedules.
func (c *comm) scatterRun(op string, send, recv Vec, root int, nb bool) (*core.Pending, error) {
	if !nb && c.path == PathNode {
		r := c.rootBlock(root, send, recv)
		if done, err := nodeScatterEntry(c, op, &send, &r, root); done {
			return nil, err
		}
	}
	sc, err := c.sched.scatter(c, op, send, recv, root, nb)
	return finish(op, nb, sc, err)
}

// alltoallRun is an Alltoall on laid-out buffers (a typed call's packed ones too, as
// gatherRun): blocking on the node path through the region, else the schedules. An
// earlier Bcast's truncation found on the region's way (late) is reported after the
// call's own work.
func (c *comm) alltoallRun(op string, send, recv Vec, nb bool) (*core.Pending, error) {
	var late error
	if !nb && c.path == PathNode {
		s := send
		if s.InPlace {
			s = recv
		}
		var done bool
		if done, late = nodeAlltoallEntry(c, op, &s, &recv); done {
			return nil, late
		}
	}
	sc, err := c.sched.alltoall(c, op, send, recv, nb)
	if late != nil {
		return nil, after(late, runSched(op, sc, err))
	}
	return finish(op, nb, sc, err)
}

// nodeAlltoallEntry is an Alltoall on the node path, an Allgather's op in which each
// rank takes its own part of the others' blocks: every rank puts its whole send
// buffer (shmcoll's Put) and copies its part of every other rank's out (TakePart). A
// rank whose buffer is longer than coll_shm_alltoall_max (or than the region takes)
// puts its length alone (far), and every rank, finding it so, goes on to the
// schedules (done false): past it, each rank's copy of its whole buffer into the
// region costs more than its messages. A part that disagrees with the receive block
// (erroneous) is reported as the schedules report it, what fits of it kept.
func nodeAlltoallEntry(c *comm, op string, send, recv *Vec) (done bool, err error) {
	g, done, err := c.shortGroup(op, KAlltoall, NoRoot, send)
	if g == nil {
		return done, err
	}
	far := len(send.B) > min(c.node.gatherLimit(), int(alltoallMax()))
	s, late := g.Put(send.B, far)
	if s == 0 {
		return true, core.MapErr(op, late)
	}
	if far {
		return false, core.MapErr(op, late)
	}
	m := len(recv.B) / c.size
	sm := len(send.B) / c.size
	var first error
	anyFar := false
	for j := 0; j < c.size; j++ {
		dst := recv.B[j*m : (j+1)*m]
		if j == c.rank {
			own := send.B[j*sm : (j+1)*sm]
			if !same(dst, own) {
				copy(dst, own)
			}
			if first == nil && sm != m {
				first = blockErr(op, j, sm, m)
			}
			continue
		}
		n, jfar, err := g.TakePart(j, s, c.rank, c.size, dst)
		switch {
		case err != nil:
			return true, core.MapErr(op, err)
		case jfar:
			anyFar = true
		case first == nil && n/c.size != m:
			first = blockErr(op, j, n/c.size, m)
		}
	}
	if anyFar {
		return false, core.MapErr(op, late)
	}
	if first != nil {
		return true, first
	}
	c.node.sentAll(len(send.B) - sm)
	return true, core.MapErr(op, late)
}

// alltoallvRun is an Alltoallv on laid-out buffers (a typed call's packed ones too,
// as gatherRun), as alltoallRun.
func (c *comm) alltoallvRun(op string, send Vec, scounts, sdispls []int, recv Vec, rcounts, rdispls []int, nb bool) (*core.Pending, error) {
	var late error
	if !nb && c.path == PathNode {
		s, sc, sd := send, scounts, sdispls
		if s.InPlace {
			s, sc, sd = recv, rcounts, rdispls
		}
		var done bool
		if done, late = nodeAlltoallvEntry(c, op, &s, sc, sd, &recv, rcounts, rdispls); done {
			return nil, late
		}
	}
	sc, err := c.sched.alltoallv(c, op, send, scounts, sdispls, recv, rcounts, rdispls, nb)
	if late != nil {
		return nil, after(late, runSched(op, sc, err))
	}
	return finish(op, nb, sc, err)
}

// vEnd is the bytes of an entry of an Alltoallv block's table: the end of a rank's part.
const vEnd = 4

// nodeAlltoallvEntry is an Alltoallv on the node path, as nodeAlltoallEntry: every
// rank puts one block, a table of where each rank's part ends (vEnd bytes each, in
// native byte order, read by the C library's too) and the parts after it in rank
// order, written in place (PutBegin); each rank copies its part of every other rank's
// out. A block whose parts are longer than coll_shm_alltoall_max (or which is longer
// than the region takes) goes by its length alone (far), and every rank goes on to the
// schedules.
func nodeAlltoallvEntry(c *comm, op string, send *Vec, scounts, sdispls []int, recv *Vec, rcounts, rdispls []int) (done bool, err error) {
	g, done, err := c.shortGroup(op, KAlltoallv, NoRoot, send)
	if g == nil {
		return done, err
	}
	s, far, data, late := putVBlock(c, g, send, scounts, sdispls, int(alltoallMax()))
	if s == 0 || far {
		return s == 0, core.MapErr(op, late)
	}
	// Every block is waited for before any is copied: a rank's far one (their lengths
	// differ) sends every rank to the schedules, which read an in-place call's parts
	// from the receive buffer.
	anyFar := false
	for j := 0; j < c.size; j++ {
		if j != c.rank {
			_, _, far, err := g.Block(j, s)
			if err != nil {
				return true, core.MapErr(op, err)
			}
			anyFar = anyFar || far
		}
	}
	if anyFar {
		return false, core.MapErr(op, late)
	}
	var first error
	for j := 0; j < c.size; j++ {
		dst := recv.block(rcounts, rdispls, j).B
		part := send.block(scounts, sdispls, j).B
		if j != c.rank {
			b, _, _, _ := g.Block(j, s) // arrived
			part = vPart(b, c.rank, c.size)
		}
		if !same(dst, part) {
			copy(dst, part)
		}
		if first == nil && len(part) != len(dst) {
			first = blockErr(op, j, len(part), len(dst))
		}
	}
	if first != nil {
		return true, first
	}
	c.node.sentAll(data)
	return true, core.MapErr(op, late)
}

// vData is the bytes of the parts of send (a v form's) by counts and displacements, and
// vSize those of their block, the table included (putV).
func vData(send *Vec, counts []int) int {
	n := 0
	for _, k := range counts {
		n += k * send.Esz
	}
	return n
}

func vSize(ranks, data int) int { return vEnd*ranks + data }

// putVBlock takes this rank's op with send's parts (by counts and displs) as a v
// form's block (putV), or with its length alone (far) where the parts are longer than
// max or a gather's block, or the block (its table too) than a slot. It returns the op
// (0 where it could not take one: late says why), whether it went far, and the parts'
// bytes.
func putVBlock(c *comm, g *shmcoll.Group, send *Vec, counts, displs []int, max int) (s uint64, far bool, data int, late error) {
	data = vData(send, counts)
	n := vSize(c.size, data)
	if data > min(c.node.gatherLimit(), max) || int64(n) > c.node.lim.block {
		s, late = g.PutLen(n)
		return s, true, data, late
	}
	s, d, late := g.PutBegin(n)
	if s != 0 {
		putV(d, send, counts, displs, c.size)
		g.PutEnd(s, n)
	}
	return s, false, data, late
}

// putV writes into d a v form's block (nodeAlltoallvEntry's, nodeScattervEntry's): a
// table of where each of the ranks' parts of send ends, then the parts in rank order.
func putV(d []byte, send *Vec, counts, displs []int, ranks int) {
	end := 0
	for j := 0; j < ranks; j++ {
		end += copy(d[vEnd*ranks+end:], send.block(counts, displs, j).B)
		binary.NativeEndian.PutUint32(d[vEnd*j:], uint32(end))
	}
}

// vPart is rank k's part of a block b of ranks parts (putV's).
func vPart(b []byte, k, ranks int) []byte {
	data := b[vEnd*ranks:]
	at := 0
	if k > 0 {
		at = int(binary.NativeEndian.Uint32(b[vEnd*(k-1):]))
	}
	return data[at:binary.NativeEndian.Uint32(b[vEnd*k:])]
}

// scattervRun is a Scatterv on laid-out buffers (a typed call's packed ones too, as
// gatherRun), as scatterRun. An earlier Bcast's truncation found on the region's way
// (late) is reported after the call's own work.
func (c *comm) scattervRun(op string, send Vec, counts, displs []int, recv Vec, root int, nb bool) (*core.Pending, error) {
	var late error
	if !nb && c.path == PathNode {
		r := c.rootVBlock(root, send, recv, counts, displs)
		var done bool
		if done, late = nodeScattervEntry(c, op, &send, counts, displs, &r, root); done {
			return nil, late
		}
	}
	sc, err := c.sched.scatterv(c, op, send, counts, displs, recv, root, nb)
	if late != nil {
		return nil, after(late, runSched(op, sc, err))
	}
	return finish(op, nb, sc, err)
}

// nodeScattervEntry is a Scatterv on the node path, a Scatter's op with the root's
// block an Alltoallv's (putV: a table of where each rank's part ends, then the parts),
// so that a non-root, which does not know the root's counts, finds its part. A root
// whose parts are longer than coll_shm_scatter_max (or whose block the region does not
// take) puts its length alone (far), and every rank goes on to the schedules.
func nodeScattervEntry(c *comm, op string, send *Vec, counts, displs []int, recv *Vec, root int) (done bool, err error) {
	g, done, err := c.shortGroup(op, KScatterv, root, recv)
	if g == nil {
		return done, err
	}
	if c.rank == root {
		s, far, data, late := putVBlock(c, g, send, counts, displs, int(scatterMax()))
		if s == 0 || far {
			return s == 0, core.MapErr(op, late)
		}
		own := send.block(counts, displs, root).B
		if !same(recv.B, own) {
			copy(recv.B, own)
		}
		if len(own) != len(recv.B) {
			return true, blockErr(op, root, len(own), len(recv.B))
		}
		c.node.sentAll(data - len(own))
		return true, core.MapErr(op, late)
	}
	s, late := g.Put(nil, false)
	if s == 0 {
		return true, core.MapErr(op, late)
	}
	b, _, far, err := g.Block(root, s)
	switch {
	case err != nil:
		return true, core.MapErr(op, err)
	case far:
		return false, core.MapErr(op, late)
	}
	part := vPart(b, c.rank, c.size)
	copy(recv.B, part)
	if len(part) != len(recv.B) {
		return true, blockErr(op, root, len(part), len(recv.B))
	}
	return true, core.MapErr(op, late)
}

// nodeScatterEntry is a Scatter on the node path, the mirror of an Allgather's: every
// rank takes a gather op, the root putting its whole send buffer, the others nothing,
// and each other rank copies its part of the root's block out (TakePart). A root
// whose buffer is longer than coll_shm_scatter_max (or than the region takes) puts
// its length alone (far), and every rank goes on to the schedules (done false): past
// it, the root's copy of the whole buffer into the region and each rank's copy out
// cost more than one message to each rank. A rank's part that disagrees with its
// receive buffer (erroneous) is reported as the schedules report it, what fits of it
// kept.
func nodeScatterEntry(c *comm, op string, send, recv *Vec, root int) (done bool, err error) {
	g, done, err := c.shortGroup(op, KScatter, root, recv)
	if g == nil {
		return done, err
	}
	if c.rank == root {
		far := len(send.B) > min(c.node.gatherLimit(), int(scatterMax()))
		s, late := g.Put(send.B, far)
		if s == 0 || far {
			return s == 0, core.MapErr(op, late)
		}
		own := gatherBlock(c, send, nil, nil, root, false)
		if !same(recv.B, own) {
			copy(recv.B, own)
		}
		if len(own) != len(recv.B) {
			return true, blockErr(op, root, len(own), len(recv.B))
		}
		c.node.sentAll(len(send.B) - len(own))
		return true, core.MapErr(op, late)
	}
	s, late := g.Put(nil, false)
	if s == 0 {
		return true, core.MapErr(op, late)
	}
	n, far, err := g.TakePart(root, s, c.rank, c.size, recv.B)
	switch {
	case err != nil:
		return true, core.MapErr(op, err)
	case far:
		return false, core.MapErr(op, late)
	case n/c.size != len(recv.B):
		return true, blockErr(op, root, n/c.size, len(recv.B))
	}
	return true, core.MapErr(op, late)
}

// gatherMax is coll_shm_gather_max, read once.
var gatherMax = sync.OnceValue(setShmGatherMax.Get)

// gatherLimit is the longest block c's gathers put in the region.
func (n *nodeColl) gatherLimit() int { return int(n.lim.gather) }

// nodeGatherEntry is Gather or (v) Gatherv on the node path: it returns
// done false when the schedules must run the call (the region is off or coll_check
// wants the calls compared first, which nodeGroup does before the region's way).
func nodeGatherEntry(c *comm, op string, send, recv *Vec, counts, displs []int, root int, v bool) (done bool, err error) {
	k := KGather
	if v {
		k = KGatherv
	}
	g, done, err := c.gatherGroup(op, k, root, send)
	if g == nil {
		return done, err
	}
	if c.rank != root {
		return true, nodeGatherSend(c, g, op, send.B, root)
	}
	return true, nodeGatherRoot(c, g, op, send, recv, counts, displs, v)
}

// shortGroup is gatherGroup for a call whose op the C library may have taken (its
// Allgather, Scatter(v) and Alltoall(v)): where it did and found a rank that took
// the schedules (ShortJoin), nil with done false, so this rank joins them without an op.
func (c *comm) shortGroup(op string, k Kind, root int, send *Vec) (g *shmcoll.Group, done bool, err error) {
	if c.node.joined {
		c.node.joined = false
		return nil, false, nil
	}
	return c.gatherGroup(op, k, root, send)
}

// gatherGroup is the region that runs c's gather of kind k (root: NoRoot for the
// all-gathers; send: this rank's block), or nil with done false where the schedules
// run it (the region off, or coll_check, which compares the calls on their way), or
// done true with the call's error (a bad node setting, a root out of range). A call
// that cannot take the region at once (its first, which makes it) takes nodeGroup's
// way, which builds the call's description for the checks.
func (c *comm) gatherGroup(op string, k Kind, root int, send *Vec) (g *shmcoll.Group, done bool, err error) {
	g = c.ready()
	if g != nil && (root == NoRoot || uint(root) < uint(c.size)) {
		return g, false, nil
	}
	if err := c.nodeErr(op); err != nil {
		return nil, true, err
	}
	if c.check {
		return nil, false, nil
	}
	cl := Call{Op: op, Kind: k, Root: root, Size: int64(send.N()), Elem: int64(send.Esz)}
	if k == KGatherv || k == KAllgatherv {
		cl.Size = -1
	}
	if g, err = c.nodeGroup(&cl, 0, 0); err != nil || g == nil {
		return nil, err != nil, err
	}
	return g, false, nil
}

// nodeGatherSend is a non-root's part: its block in its cell of the region, or,
// longer than a cell holds, to the root as a message.
func nodeGatherSend(c *comm, g *shmcoll.Group, op string, b []byte, root int) error {
	far := len(b) > shmcoll.GatherInline
	if err := g.GatherPut(b, far, root); err != nil {
		return core.MapErr(op, err)
	}
	if far {
		return core.MapErr(op, c.Local().Send(b, root, core.TagNodeGather))
	}
	c.node.sentTo(root, len(b))
	return nil
}

// nodeGatherRoot is the root's part: its own block copied (unless in place), every
// other rank's taken from its cell, and the blocks that went as messages received
// together once every cell was read (their receives posted at once, as the schedules'
// root does), each checked against its block. The first block that disagrees makes
// the error, after every block was taken, so that no message is left behind.
func nodeGatherRoot(c *comm, g *shmcoll.Group, op string, send, recv *Vec, counts, displs []int, v bool) error {
	s, err := g.GatherBegin()
	if err != nil {
		return core.MapErr(op, err)
	}
	var first error
	far := c.node.far[:0]
	for j := 0; j < c.size; j++ {
		dst := gatherBlock(c, recv, counts, displs, j, v)
		if j == c.rank {
			if !same(dst, send.B) {
				copy(dst, send.B)
			}
			continue
		}
		n, isFar, err := g.GatherTake(j, s, dst)
		if err != nil {
			return core.MapErr(op, err)
		}
		if isFar {
			far = append(far, farBlock{j: j, n: n})
		}
		if first == nil && n != len(dst) {
			first = blockErr(op, j, n, len(dst))
		}
	}
	g.GatherEnd(s)
	if len(far) > 0 {
		if err := recvFar(c, recv, counts, displs, v, far); first == nil {
			first = err
		}
	}
	c.node.far = far[:0]
	return core.MapErr(op, first)
}

// farBlock is a Gather's block that went as a message: from rank j, n bytes (and,
// while its receive is under way, the receive).
type farBlock struct {
	j, n int
	q    coll.Req
	tmp  []byte // n > the block: the whole message, of which the block keeps what fits
}

// recvFar receives the far blocks into their blocks of recv (what fits of a longer
// one), all posted before any is waited for.
func recvFar(c *comm, recv *Vec, counts, displs []int, v bool, far []farBlock) error {
	var first error
	k := c.Local()
	for i := range far {
		f := &far[i]
		dst := gatherBlock(c, recv, counts, displs, f.j, v)
		b := dst[:min(f.n, len(dst))]
		if f.n > len(dst) {
			f.tmp = make([]byte, f.n)
			b = f.tmp
		}
		var err error
		if f.q, err = k.Irecv(b, f.j, core.TagNodeGather); err != nil {
			f.n = -1 // not posted
			if first == nil {
				first = err
			}
		}
	}
	for i := range far {
		f := &far[i]
		if f.n < 0 {
			continue
		}
		if err := k.Wait(&f.q); err != nil && first == nil {
			first = err
		}
		if f.tmp != nil {
			copy(gatherBlock(c, recv, counts, displs, f.j, v), f.tmp)
			f.tmp = nil
		}
	}
	return first
}

// gatherBlock is rank j's block of recv: one of size equal blocks, or (v) the v
// form's block j.
func gatherBlock(c *comm, recv *Vec, counts, displs []int, j int, v bool) []byte {
	if !v {
		m := len(recv.B) / c.size
		return recv.B[j*m : (j+1)*m]
	}
	return recv.block(counts, displs, j).B
}

// blockErr is the error of rank j's block of n bytes where the collector's has want:
// MPI_ERR_TRUNCATE when longer (what fits was kept), MPI_ERR_COUNT when shorter, as
// the schedules report them.
func blockErr(op string, j, n, want int) error {
	class := core.ClassCount
	if n > want {
		class = core.ClassTruncate
	}
	return core.Errorf(class, op, "rank %d sent %d bytes, the block this rank gave for it has %d "+
		"(MPI requires the type signatures of the two sides to match)", j, n, want)
}

// nodeAllgatherEntry is Allgather or (v) Allgatherv on the node path; done false:
// the schedules run the call (as nodeGatherEntry), and err, if any, is an earlier
// Bcast's truncation found on the way (shmcoll's Put), to report after them. Where a
// block is too long for the region, every rank takes the op without data (far) and
// goes on to the schedules without waiting; a rank whose blocks fit (its counts
// differ: erroneous) takes every rank's block, finds the far one, and joins the
// schedules too, which compare the lengths, so that no rank waits for another on a
// way it did not take.
func nodeAllgatherEntry(c *comm, op string, send, recv *Vec, counts, displs []int, v bool) (done bool, err error) {
	k := KAllgather
	if v {
		k = KAllgatherv
	}
	g, done, err := c.shortGroup(op, k, NoRoot, send)
	if g == nil {
		return done, err
	}
	far := !allgatherFits(c, recv, counts, send.Esz, v)
	s, late := g.Put(send.B, far)
	if s == 0 {
		return true, core.MapErr(op, late)
	}
	if far {
		return false, core.MapErr(op, late)
	}
	var first error
	anyFar := false
	for j := 0; j < c.size; j++ {
		dst := gatherBlock(c, recv, counts, displs, j, v)
		if j == c.rank {
			if !same(dst, send.B) {
				copy(dst, send.B)
			}
			continue
		}
		n, jfar, err := g.Take(j, s, dst)
		switch {
		case err != nil:
			return true, core.MapErr(op, err)
		case jfar:
			anyFar = true
		case first == nil && n != len(dst):
			first = blockErr(op, j, n, len(dst))
		}
	}
	if anyFar {
		return false, core.MapErr(op, late)
	}
	if first != nil {
		return true, first
	}
	c.node.sentAll(len(send.B))
	return true, core.MapErr(op, late)
}

// allgatherFits reports whether every block of an Allgather(v) fits the region.
func allgatherFits(c *comm, recv *Vec, counts []int, esz int, v bool) bool {
	lim := c.node.gatherLimit()
	if !v {
		return len(recv.B)/c.size <= lim
	}
	for _, k := range counts {
		if k*esz > lim {
			return false
		}
	}
	return true
}

// recvOne receives rank j's block of n bytes sent as a message into dst, or what of
// it fits (the length's error is the caller's).
func recvOne(c *comm, dst []byte, n, j int) error {
	if n <= len(dst) {
		return c.Local().Recv(dst[:n], j, core.TagNodeGather)
	}
	b := make([]byte, n)
	err := c.Local().Recv(b, j, core.TagNodeGather)
	copy(dst, b)
	return err
}
