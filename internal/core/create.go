package core

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/group"
	"github.com/mpigo/mpigo/internal/topo"
)

// Communicator creation. Every call agrees on a new context id (ctx.go) over the
// processes that take part, using the collectives of internal/coll over a conn of
// those processes on a context no user message can match (the parent's internal
// context, or World's for IntercommCreate, whose two groups share no communicator
// but World).
//
// Each takes bad, the error a face met in its own arguments (a NULL output, a handle
// it could not convert), nil if none, and adds the checks it makes itself that a
// member can fail alone: the member still takes part, and the context agreement
// (allocCtx) fails the creation at every member. Only a member that cannot take part
// at all (its communicator is not valid, or it cannot know the processes to agree
// with) returns its error alone.
//
// These make a communicator's core only: its groups, context and conns. The faces
// make communicators through internal/collective (its Dup, Split, ...), which calls
// these and then chooses the new communicator's collectives, once, before anyone else
// sees it; hence the names, so that no face takes one for the whole creation.

// Undefined is MPI_UNDEFINED: the color that leaves a process out of Split.
const Undefined = -32766

// DupCore returns a communicator with c's groups and a new context (MPI_Comm_dup).
func (c *Comm) DupCore(op string, bad error) (*Comm, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	return c.DupCoreAt(op, c.SeqTag(), bad)
}

// DupCoreAt is DupCore with the duplication's tag, a number of c's collective
// sequence (SeqTag) taken already: MPI_Comm_idup takes it at the call and
// duplicates in the background, so that duplications and other collectives pending
// on c at once agree pairwise whatever order their goroutines run in.
func (c *Comm) DupCoreAt(op string, tag int, bad error) (*Comm, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	k := c.lconn
	if c.remote != nil {
		// Both groups of an intercommunicator take part, listed alike everywhere.
		a, b := c.group, c.remote
		if procBefore(b.WorldRank(0), a.WorldRank(0)) {
			a, b = b, a
		}
		k = unionConn(a, b, c.ctx+1)
	}
	ctx, err := allocCtx(op, &k, c.ctx, tag, bad)
	if err != nil {
		return nil, err
	}
	return newComm(ctx, c.group, c.remote), nil
}

// SplitCore partitions c (MPI_Comm_split): the processes that pass the same color form a
// new communicator, ranked by key (ties by rank in c). A process passing Undefined
// gets nil. On an intercommunicator each color's processes of both groups form an
// intercommunicator; a color found in one group only gives nil there.
func (c *Comm) SplitCore(op string, color, key int, bad error) (*Comm, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if color < 0 && color != Undefined {
		bad = cmp.Or(bad, Errorf(ClassArg, op, "color %d is negative (and not Undefined)", color))
	}
	if bad != nil {
		color = Undefined
	}
	local, remote, err := c.gather(op, colorKey(color, key))
	if err != nil {
		return nil, err
	}
	return c.splitBy(op, local, remote, color, bad)
}

// colorKey is a process's record in a split: its color and key.
func colorKey(color, key int) []byte {
	rec := make([]byte, 16)
	binary.LittleEndian.PutUint64(rec, uint64(int64(color)))
	binary.LittleEndian.PutUint64(rec[8:], uint64(int64(key)))
	return rec
}

// gather gives every process of c every process's record (all of one length): local
// holds its group's by rank and, on an intercommunicator, remote the other group's.
// The local group gathers its records, then the leaders swap them and tell their groups.
func (c *Comm) gather(op string, rec []byte) (local, remote []byte, err error) {
	n := len(rec)
	local = make([]byte, n*c.size)
	if err := c.lconn.Run(tagGather, 1, func(s *coll.Sched) { s.Allgather(rec, local) }); err != nil {
		return nil, nil, MapErr(op, err)
	}
	if c.remote == nil {
		return local, nil, nil
	}
	remote = make([]byte, n*c.remote.Size())
	if c.rank == 0 {
		if err := c.iconn.Sendrecv(local, remote, c.size, tagGather); err != nil {
			return nil, nil, MapErr(op, err)
		}
	}
	if err := c.lconn.Run(tagGather, 1, func(s *coll.Sched) { s.Bcast(remote, 0) }); err != nil {
		return nil, nil, MapErr(op, err)
	}
	return local, remote, nil
}

// splitBy makes this process's communicator of a split whose (color, key) records
// (colorKey) every process has: each color's processes of the local group, and on an
// intercommunicator (remote not nil) the same color's processes of the other group
// (MPI 4.1 section 7.4.2). All of c agree on one context, which the new communicators
// share, as they are disjoint; bad fails it everywhere, as for allocCtx.
func (c *Comm) splitBy(op string, local, remote []byte, color int, bad error) (*Comm, error) {
	var ctx uint32
	var err error
	if c.remote == nil {
		ctx, err = allocCtx(op, &c.lconn, c.ctx, c.SeqTag(), bad)
	} else {
		a, b := c.group, c.remote
		if procBefore(b.WorldRank(0), a.WorldRank(0)) {
			a, b = b, a
		}
		k := unionConn(a, b, c.ctx+1)
		ctx, err = allocCtx(op, &k, c.ctx, c.SeqTag(), bad)
	}
	if err != nil {
		return nil, err
	}
	if color == Undefined {
		releaseCtx(ctx)
		return nil, nil
	}
	lg, err := c.group.Incl(colorRanks(local, color))
	if err != nil {
		releaseCtx(ctx)
		return nil, GroupErr(op, err)
	}
	if c.remote == nil {
		return newComm(ctx, lg, nil), nil
	}
	rr := colorRanks(remote, color)
	if len(rr) == 0 {
		releaseCtx(ctx)
		return nil, nil
	}
	rg, err := c.remote.Incl(rr)
	if err != nil {
		releaseCtx(ctx)
		return nil, GroupErr(op, err)
	}
	return newComm(ctx, lg, rg), nil
}

// colorRanks lists the ranks whose (color, key) records in all carry color, ordered
// by key, ties by rank.
func colorRanks(all []byte, color int) []int {
	type member struct{ key, rank int }
	var ms []member
	for r := 0; r < len(all)/16; r++ {
		if int(int64(binary.LittleEndian.Uint64(all[16*r:]))) == color {
			ms = append(ms, member{int(int64(binary.LittleEndian.Uint64(all[16*r+8:]))), r})
		}
	}
	slices.SortStableFunc(ms, func(a, b member) int { return cmp.Compare(a.key, b.key) })
	ranks := make([]int, len(ms))
	for i, m := range ms {
		ranks[i] = m.rank
	}
	return ranks
}

// Split types of MPI_Comm_split_type, numbered as MPICH numbers them.
const (
	SplitShared         = 1 // MPI_COMM_TYPE_SHARED: one communicator per node
	SplitHWUnguided     = 2 // MPI_COMM_TYPE_HW_UNGUIDED: the next level of the hardware
	SplitHWGuided       = 3 // MPI_COMM_TYPE_HW_GUIDED: by mpi_hw_resource_type
	SplitResourceGuided = 4 // MPI_COMM_TYPE_RESOURCE_GUIDED: by mpi_hw_resource_type or mpi_pset_name
)

// SharedMemory is the reserved value of mpi_hw_resource_type that splits as
// SplitShared does; HWPrefix begins the names of the hardware resource types
// (topo.ResourceTypes), as hwloc's provider names them (MPI 4.1 section 9.1.2).
const (
	SharedMemory = "mpi_shared_memory"
	HWPrefix     = "hwloc://"
)

// The process sets a communicator may be split by (MPI 4.1 section 11.3.2).
const (
	PsetWorld = "mpi://WORLD"
	PsetSelf  = "mpi://SELF"
)

// SplitTypeArgs are one process's arguments to SplitType: the split type (or
// Undefined), the key, and the values of the info keys mpi_hw_resource_type and
// mpi_pset_name, with whether each was given.
type SplitTypeArgs struct {
	Kind, Key          int
	HWType, Pset       string
	HasHWType, HasPset bool
}

// SplitTypeCore splits c by where its processes run (MPI_Comm_split_type, MPI 4.1 section
// 7.4.2). Every process learns every process's arguments and places (node, and the
// instance of each hardware resource type it is bound within), so all decide alike:
// processes whose split types differ (Undefined aside), or whose HW_GUIDED resource
// types differ, get an error everywhere, as does RESOURCE_GUIDED given both keys.
// RESOURCE_GUIDED's keys are hints: where the processes give them differently (or
// only some give one), the hints are ignored and every process gets nil, as when
// none is given (MPICH's comm/cmsplit_type holds MPI 4.1 to this). A process gets nil where the
// standard says MPI_COMM_NULL: it passed Undefined, the info lacks the key or names a
// type or set mpigo does not know, the process is not within one instance of the
// type, or (HW_UNGUIDED) no level of the hardware splits c. On an intercommunicator the
// processes of both groups within one instance form an intercommunicator, as Split's
// colors do. The second result is the resource type HW_UNGUIDED split by. bad is as
// for every constructor, but carried by this process's record, which the processes
// exchange before any context is agreed.
func (c *Comm) SplitTypeCore(op string, a SplitTypeArgs, bad error) (*Comm, string, error) {
	if err := c.Check(op); err != nil {
		return nil, "", err
	}
	rec := a.record(World.rank)
	if bad != nil {
		binary.LittleEndian.PutUint64(rec[8*stWorld:], uint64(int64(-1-int(ClassOf(bad)))))
	}
	local, remote, err := c.gather(op, rec)
	if err != nil {
		return nil, "", err
	}
	if err := cmp.Or(bad, badRecord(op, local, remote)); err != nil {
		return nil, "", err
	}
	all := append(slices.Clip(local), remote...)
	ignored, err := checkSplitType(op, a, all)
	if err != nil {
		return nil, "", err
	}
	level, typ := splitLevel(a, all)
	if ignored {
		level, typ = levelNone, ""
	}
	return c.splitTypeBy(op, level, local, remote, typ)
}

// splitTypeBy forms the split at the resource level chosen, its colors drawn from the
// records.
func (c *Comm) splitTypeBy(op string, level int, local, remote []byte, typ string) (*Comm, string, error) {
	lck, color := colorKeys(level, local, c.rank)
	var rck []byte
	if remote != nil {
		rck, _ = colorKeys(level, remote, -1)
	}
	nc, err := c.splitBy(op, lck, rck, color, nil)
	if nc == nil {
		typ = ""
	}
	return nc, typ, err
}

// A SplitType record is int64 words: the split type, a fingerprint of the info values
// that split type reads, the key, the node, the world rank (negative where the
// process's arguments were bad: badRecord), then for each of topo.ResourceTypes the
// instance the process is within (-1 if none).
const (
	stKind = iota
	stPrint
	stKey
	stNode
	stWorld
	stLevels
)

func stLen() int { return 8 * (stLevels + len(topo.ResourceTypes)) }

func word(rec []byte, i int) int { return int(int64(binary.LittleEndian.Uint64(rec[8*i:]))) }

func (a SplitTypeArgs) record(world int) []byte {
	w := []int{a.Kind, a.fingerprint(), a.Key, proc.NodeOf(world), world}
	set, err := topo.Allowed()
	m := topo.Machine()
	for _, typ := range topo.ResourceTypes {
		id := -1
		if err == nil {
			id = m.InstanceOf(typ, set)
		}
		w = append(w, id)
	}
	rec := make([]byte, 0, stLen())
	for _, v := range w {
		rec = binary.LittleEndian.AppendUint64(rec, uint64(int64(v)))
	}
	return rec
}

// badRecord is the error of a SplitType in which a process's record says that its
// arguments were bad, naming the first such process; nil if none is. Such a record's
// world rank, which no argument sets, is -1 less the class of the process's error.
func badRecord(op string, local, remote []byte) error {
	for i, recs := range [][]byte{local, remote} {
		for r := 0; (r+1)*stLen() <= len(recs); r++ {
			rec := recs[r*stLen():]
			w := word(rec, stWorld)
			if w >= 0 {
				continue
			}
			where := ""
			if remote != nil {
				where = [2]string{" of this group", " of the other group"}[i]
			}
			return Errorf(ErrorClass(-1-w), op, "rank %d%s passed invalid arguments (its error says which), so the call failed at every process", r, where)
		}
	}
	return nil
}

// fingerprint stands for the info values a split type reads, which every process must
// give alike.
func (a SplitTypeArgs) fingerprint() int {
	h := fnv.New64a()
	switch a.Kind {
	case SplitHWGuided:
		fmt.Fprintf(h, "%t\x00%s", a.HasHWType, a.HWType)
	case SplitResourceGuided:
		fmt.Fprintf(h, "%t\x00%s\x00%t\x00%s", a.HasHWType, a.HWType, a.HasPset, canonicalPset(a.Pset))
	}
	return int(h.Sum64() >> 1)
}

// canonicalPset spells the predefined process sets as the standard does; MPICH, too,
// takes their names in any case.
func canonicalPset(name string) string {
	for _, p := range []string{PsetWorld, PsetSelf} {
		if strings.EqualFold(name, p) {
			return p
		}
	}
	return name
}

// checkSplitType is the agreement every process reaches alike from the records of all;
// ignored says that RESOURCE_GUIDED's hints differ between them, and count for none.
func checkSplitType(op string, a SplitTypeArgs, all []byte) (ignored bool, err error) {
	kind, fp := Undefined, 0
	for off := 0; off < len(all); off += stLen() {
		rec := all[off : off+stLen()]
		k, p := word(rec, stKind), word(rec, stPrint)
		switch {
		case k == Undefined:
		case kind == Undefined:
			kind, fp = k, p
		case k != kind:
			return false, Errorf(ClassArg, op, "the processes pass different split types (%d and %d); all but those passing Undefined must pass the same", kind, k)
		case p != fp && k == SplitResourceGuided:
			ignored = true
		case p != fp:
			return false, Errorf(ClassInfoValue, op, "the processes pass different values for the info keys of split type %d; all must pass the same", kind)
		}
	}
	if kind < SplitShared && kind != Undefined || kind > SplitResourceGuided {
		return false, Errorf(ClassArg, op, "split type %d: want SplitTypeShared, SplitTypeHWUnguided, SplitTypeHWGuided, SplitTypeResourceGuided or Undefined", kind)
	}
	if ignored {
		return true, nil
	}
	if kind == SplitResourceGuided && a.HasHWType && a.HasPset {
		return false, Errorf(ClassInfoKey, op, "the info gives both mpi_hw_resource_type and mpi_pset_name; SplitTypeResourceGuided takes one of them")
	}
	return false, nil
}

// Resource levels of a split: a hardware resource type's index in topo.ResourceTypes,
// or one of these.
const (
	levelNone  = -1 // everyone gets nil
	levelWorld = -2 // the process set mpi://WORLD
	levelSelf  = -3 // the process set mpi://SELF
)

// splitLevel chooses what the split goes by, alike on every process (the records are
// checked to agree), and for HW_UNGUIDED the name of the resource type chosen.
func splitLevel(a SplitTypeArgs, all []byte) (int, string) {
	kind := a.Kind
	if kind == Undefined {
		// Whatever the others split by, this process gets nil.
		return levelNone, ""
	}
	switch {
	case kind == SplitShared:
		return 0, ""
	case kind == SplitHWUnguided:
		return unguidedLevel(all)
	case a.HasHWType:
		return hwLevel(a.HWType), ""
	case kind == SplitResourceGuided && a.HasPset:
		switch canonicalPset(a.Pset) {
		case PsetWorld:
			return levelWorld, ""
		case PsetSelf:
			return levelSelf, ""
		}
	}
	return levelNone, ""
}

// hwLevel is the level an mpi_hw_resource_type value names, levelNone if none.
// Machine is the node, as mpi_shared_memory is.
func hwLevel(typ string) int {
	if typ == SharedMemory {
		return 0
	}
	name, ok := strings.CutPrefix(typ, HWPrefix)
	if i := slices.Index(topo.ResourceTypes, name); ok && i >= 0 {
		return i
	}
	return levelNone
}

// unguidedLevel is the first level, from the node down, whose instances part the
// processes taking part (those not passing Undefined) into strict subsets: some
// process is within an instance, and no instance holds them all.
func unguidedLevel(all []byte) (int, string) {
	for l := range topo.ResourceTypes {
		count := map[int]int{}
		n := 0
		for off := 0; off < len(all); off += stLen() {
			rec := all[off : off+stLen()]
			if word(rec, stKind) == Undefined {
				continue
			}
			n++
			if col := levelColor(rec, l); col != Undefined {
				count[col]++
			}
		}
		if len(count) > 0 && !slices.Contains(slices.Collect(maps.Values(count)), n) {
			if l == 0 {
				return l, SharedMemory
			}
			return l, HWPrefix + topo.ResourceTypes[l]
		}
	}
	return levelNone, ""
}

// levelColor is the color of a record's process at a level: its instance there, made
// unique across nodes, or Undefined.
func levelColor(rec []byte, level int) int {
	switch {
	case word(rec, stKind) == Undefined || level == levelNone:
		return Undefined
	case level == levelWorld:
		return 0
	case level == levelSelf:
		return word(rec, stWorld)
	case level == 0:
		return word(rec, stNode)
	}
	id := word(rec, stLevels+level)
	if id < 0 {
		return Undefined
	}
	return word(rec, stNode)<<32 | id
}

// colorKeys turns records into Split's (color, key) records at a level, and returns
// the color of the record of rank me (if me >= 0).
func colorKeys(level int, recs []byte, me int) ([]byte, int) {
	n := len(recs) / stLen()
	out := make([]byte, 0, 16*n)
	mine := Undefined
	for r := 0; r < n; r++ {
		rec := recs[r*stLen() : (r+1)*stLen()]
		col := levelColor(rec, level)
		if r == me {
			mine = col
		}
		out = append(out, colorKey(col, word(rec, stKey))...)
	}
	return out, mine
}

// CreateCore makes a communicator of the members of g, a subgroup of c's group; it is
// collective over all of c, and processes outside g get nil (MPI_Comm_create). On an
// intercommunicator g is a subgroup of the local group, and the result joins each
// side's g (nil where either side's g is empty). A nil g is bad (ClassGroup), as is
// one that is not a subgroup.
func (c *Comm) CreateCore(op string, g *group.Group, bad error) (*Comm, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if bad == nil && g == nil {
		bad = Errorf(ClassGroup, op, "the group is nil")
	}
	if bad == nil {
		bad = c.subgroup(op, g)
	}
	if bad != nil {
		g = group.Empty()
	}
	if c.remote != nil {
		return c.createInter(op, g, bad)
	}
	ctx, err := allocCtx(op, &c.lconn, c.ctx, c.SeqTag(), bad)
	if err != nil {
		return nil, err
	}
	if g.Rank(int32(World.rank)) == group.Undefined {
		releaseCtx(ctx)
		return nil, nil
	}
	return newComm(ctx, g, nil), nil
}

// createInter is Create on an intercommunicator: each side passes a subgroup of its
// own group; the leaders swap them and tell their sides.
func (c *Comm) createInter(op string, g *group.Group, bad error) (*Comm, error) {
	mine := encodeMembers(g)
	sizes := make([]byte, 8)
	var theirs []byte
	if c.rank == 0 {
		n := make([]byte, 8)
		binary.LittleEndian.PutUint64(n, uint64(len(mine)))
		if err := c.iconn.Sendrecv(n, sizes, c.size, tagInterBcast); err != nil {
			return nil, MapErr(op, err)
		}
		theirs = make([]byte, binary.LittleEndian.Uint64(sizes))
		if err := c.iconn.Sendrecv(mine, theirs, c.size, tagInterBcast); err != nil {
			return nil, MapErr(op, err)
		}
	}
	if err := c.lconn.Run(tagInterBcast, 1, func(s *coll.Sched) { s.Bcast(sizes, 0) }); err != nil {
		return nil, MapErr(op, err)
	}
	if theirs == nil {
		theirs = make([]byte, binary.LittleEndian.Uint64(sizes))
	}
	if err := c.lconn.Run(tagInterBcast, 1, func(s *coll.Sched) { s.Bcast(theirs, 0) }); err != nil {
		return nil, MapErr(op, err)
	}
	rg, err := decodeMembers(op, theirs)
	if bad = cmp.Or(bad, err); bad != nil {
		rg = group.Empty()
	}
	a, b := c.group, c.remote
	if procBefore(b.WorldRank(0), a.WorldRank(0)) {
		a, b = b, a
	}
	k := unionConn(a, b, c.ctx+1)
	ctx, err := allocCtx(op, &k, c.ctx, c.SeqTag(), bad)
	if err != nil {
		return nil, err
	}
	if g.Rank(int32(World.rank)) == group.Undefined || rg.Size() == 0 {
		releaseCtx(ctx)
		return nil, nil
	}
	return newComm(ctx, g, rg), nil
}

// CreateGroupCore makes a communicator of the members of g, a subgroup of c's group,
// collectively over g's members only (MPI_Comm_create_group); concurrent calls on
// overlapping groups are told apart by tag. Its checks fail alike at every member of
// g, so bad is the only error the agreement carries.
func (c *Comm) CreateGroupCore(op string, g *group.Group, tag int, bad error) (*Comm, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if c.remote != nil {
		return nil, Errorf(ClassComm, op, "%q is an intercommunicator; MPI_Comm_create_group takes an intracommunicator", c.Name())
	}
	if g == nil {
		return nil, Errorf(ClassGroup, op, "the group is nil")
	}
	if tag < 0 || tag > MaxTag {
		return nil, Errorf(ClassTag, op, "tag %d out of range [0,%d]", tag, MaxTag)
	}
	if g.Rank(int32(World.rank)) == group.Undefined {
		return nil, Errorf(ClassGroup, op, "the calling rank is not a member of the group")
	}
	if err := c.subgroup(op, g); err != nil {
		return nil, err
	}
	k := groupConn(g, c.ctx+1)
	ctx, err := allocCtx(op, &k, c.ctx, tagGroupBase+tag%groupTagLimit, bad)
	if err != nil {
		return nil, err
	}
	return newComm(ctx, g, nil), nil
}

func (c *Comm) subgroup(op string, g *group.Group) error {
	for i, w := range g.All() {
		if c.group.Rank(w) == group.Undefined {
			return Errorf(ClassGroup, op, "member %d of the group is not in communicator %q", i, c.Name())
		}
	}
	return nil
}

// encodeMembers and decodeMembers carry a group to another process by the names of
// its members (procs.go), which mean the same there: a table of the jobs, then per
// member the job's place in it and the rank.
func encodeMembers(g *group.Group) []byte {
	var jobs []string
	place := map[string]int{}
	var body []byte
	for _, w := range g.All() {
		n := nameOf(w)
		i, ok := place[n.job]
		if !ok {
			i = len(jobs)
			place[n.job] = i
			jobs = append(jobs, n.job)
		}
		body = binary.AppendUvarint(body, uint64(i))
		body = binary.AppendUvarint(body, uint64(n.rank))
	}
	b := binary.AppendUvarint(nil, uint64(len(jobs)))
	for _, j := range jobs {
		b = appendBytes(b, []byte(j))
	}
	b = binary.AppendUvarint(b, uint64(g.Size()))
	return append(b, body...)
}

func decodeMembers(op string, b []byte) (*group.Group, error) {
	r := wire{b: b}
	jobs := make([]string, r.count())
	for i := range jobs {
		jobs[i] = string(r.bytes())
	}
	ws := make([]int32, r.count())
	for i := range ws {
		j, rank := r.uint(), r.uint()
		if r.bad || j >= uint64(len(jobs)) || rank > 1<<31-1 {
			return nil, Errorf(ClassIntern, op, "a malformed list of group members")
		}
		w, ok := indexOf(procName{jobs[j], int32(rank)})
		if !ok {
			return nil, Errorf(ClassComm, op, "rank %d of job %s shares no communicator with this process", rank, jobs[j])
		}
		ws[i] = w
	}
	if r.bad {
		return nil, Errorf(ClassIntern, op, "a malformed list of group members")
	}
	return procGroup(op, ws)
}

// unionTag is the tag of a context agreement over a and b on dynCtx: the same in
// every member, and apart from other agreements there (of other groups, or of the
// same groups with another tag).
func unionTag(a, b *group.Group, tag int) int {
	h := fnv.New32a()
	for _, g := range []*group.Group{a, b} {
		n := nameOf(g.WorldRank(0))
		fmt.Fprintf(h, "%s/%d/%d;", n.job, n.rank, g.Size())
	}
	fmt.Fprintf(h, "%d", tag)
	return int(h.Sum32() & (1<<30 - 1))
}

// IntercommCreateCore makes an intercommunicator between local (the caller's side) and
// the disjoint group led by remoteLeader, a rank of peer that both leaders belong to
// (of its remote group where peer is an intercommunicator) (MPI_Intercomm_create). It
// is collective over both groups; localLeader is the leader's rank in local, tag keeps
// concurrent creations apart on peer. Where either group may not know the other's
// members (either side's group or peer spans jobs, as either leader sees it), the
// leaders swap records that make them reachable, not names alone: so each leader
// first tells the other whether its side needs them. bad, at any member of either
// side, fails the creation at every member of both, as for every constructor. A
// leader that cannot use its peer (peerBad, at the local leader: an error the face
// found in the peer argument) or reach the other leader through it (peer or
// remoteLeader is not valid) tells its group, which returns an error rather than
// waits.
func IntercommCreateCore(op string, bad, peerBad error, local *Comm, localLeader int, peer *Comm, remoteLeader, tag int) (*Comm, error) {
	if err := local.Check(op); err != nil {
		return nil, err
	}
	if localLeader < 0 || localLeader >= local.size {
		return nil, Errorf(ClassRank, op, "localLeader %d out of range [0,%d)", localLeader, local.size)
	}
	if tag < 0 || tag > MaxTag {
		return nil, Errorf(ClassTag, op, "tag %d out of range [0,%d]", tag, MaxTag)
	}
	tag %= interLeadersSpan
	// The leader tells its group whether the other group may not know its members
	// (the local group or the peer spans jobs): each member's record (name and card,
	// procs.go) then goes to the other side, not its name alone.
	withRecs := []byte{0}
	var pk *Conn
	var unreached error // the leader's
	leader := remoteLeader
	if local.rank == localLeader {
		unreached = peerBad
		if unreached == nil {
			pk, leader, unreached = peerLeader(op, peer, remoteLeader)
		}
		if unreached == nil {
			withRecs[0], unreached = leadersNeed(op, pk, leader, tag, local.foreign || peer.foreign)
		}
		if unreached != nil {
			withRecs[0] = needFailed
		}
	}
	if err := local.lconn.Run(tagInterBcast, 1, func(s *coll.Sched) { s.Bcast(withRecs, localLeader) }); err != nil {
		return nil, MapErr(op, err)
	}
	if withRecs[0] == needFailed {
		if local.rank == localLeader {
			return nil, unreached
		}
		return nil, Errorf(ClassComm, op, "the leader of this group could not reach the other group's leader")
	}
	mine, err := localMembers(op, local, localLeader, withRecs[0] == 1)
	if err != nil {
		return nil, err
	}
	var word []byte
	if local.rank == localLeader {
		word = leadersSwap(op, pk, leader, tag, mine)
	}
	if word, err = bcastBytes(op, local, localLeader, word); err != nil {
		return nil, err
	}
	rg, held, err := remoteMembers(op, word)
	defer releaseIdx(held)
	if err != nil {
		return nil, err
	}
	if both, err := group.Intersection(local.group, rg); err != nil || both.Size() > 0 {
		return nil, Errorf(ClassGroup, op, "the local and remote groups overlap; an intercommunicator joins disjoint groups")
	}
	// Both sides agree on one context over the union, ordered by the leaders' world
	// ranks so that every process lists it alike, on World's internal context (the
	// one communicator every process is in), or where the groups are of different
	// jobs, on the context reserved for that (dynCtx), with a tag of both groups
	// and the caller's tag.
	a, b := local.group, rg
	if procBefore(rg.WorldRank(0), local.group.WorldRank(0)) {
		a, b = rg, local.group
	}
	k := unionConn(a, b, World.ctx+1)
	parent, atag := uint32(0), tagInterCtx
	if foreign(a) || foreign(b) {
		k = unionConn(a, b, dynCtx+1)
		parent, atag = dynCtx, unionTag(a, b, tag)
	}
	ctx, err := allocCtx(op, &k, parent, atag, bad)
	if err != nil {
		return nil, err
	}
	return newComm(ctx, local.group, rg), nil
}

// peerLeader is, at the local leader, the connection on which it reaches the other
// leader, remoteLeader of peer, and that leader's rank there. The peer may be an
// intercommunicator (a parent and its spawned children meeting through theirs):
// remoteLeader is then a rank of its remote group, as any rank given to
// point-to-point on it.
func peerLeader(op string, peer *Comm, remoteLeader int) (*Conn, int, error) {
	if err := peer.Check(op); err != nil {
		return nil, 0, err
	}
	pk, leader, size := &peer.lconn, remoteLeader, peer.size
	if peer.remote != nil {
		pk, leader, size = &peer.iconn, peer.size+remoteLeader, peer.remote.Size()
	}
	if remoteLeader < 0 || remoteLeader >= size {
		return nil, 0, Errorf(ClassRank, op, "remoteLeader %d out of range [0,%d) of the peer communicator", remoteLeader, size)
	}
	return pk, leader, nil
}

// needFailed, as the leader's word to its group before the members are described,
// says the leader could not go on; 0 and 1 say whether records are needed.
const needFailed = 2

// leadersNeed swaps, between the leaders, whether their sides need records (mine):
// either side's need is both sides', since a group that spans jobs may hold
// processes that know nothing of the other group, and must be told how to reach it.
func leadersNeed(op string, pk *Conn, leader, tag int, mine bool) (byte, error) {
	out, in := []byte{0}, []byte{0}
	if mine {
		out[0] = 1
	}
	if err := pk.Sendrecv(out, in, leader, tagInterLeaders+tag); err != nil {
		return 0, MapErr(op, err)
	}
	return out[0] | in[0]&1, nil
}

// Kinds of a group's description as Intercomm_create's leaders swap it: the first
// byte, then the members' names (encodeMembers), their records (encodeRecs), or the
// text of a failure that ends the creation on both sides.
const (
	membersNames = iota
	membersRecs
	membersFailed
)

// localMembers is local's description at its leader (nil elsewhere): with recs each
// member's record is gathered there, else the group's names suffice.
func localMembers(op string, local *Comm, leader int, recs bool) ([]byte, error) {
	if !recs {
		if local.rank != leader {
			return nil, nil
		}
		return append([]byte{membersNames}, encodeMembers(local.group)...), nil
	}
	// A member whose card cannot be had sends an empty record, which fails the
	// creation at the leader, and through it on both sides.
	var rec []byte
	if card, err := myCard(op); err == nil {
		rec = encodeRecs([]procRec{{myName(), card}})
	}
	if local.rank != leader {
		if err := local.lconn.Send(rec, leader, tagDynGather); err != nil {
			return nil, MapErr(op, err)
		}
		return nil, nil
	}
	all, err := gatherRecs(op, local, leader, rec)
	if err != nil {
		return append([]byte{membersFailed}, err.Error()...), nil
	}
	return append([]byte{membersRecs}, all...), nil
}

// leadersSwap sends mine to the other group's leader (rank leader of pk) and returns
// what its group is to learn: the other's description, or this side's failure.
func leadersSwap(op string, pk *Conn, leader, tag int, mine []byte) []byte {
	failed := func(err error) []byte { return append([]byte{membersFailed}, err.Error()...) }
	n, sizes := make([]byte, 8), make([]byte, 8)
	binary.LittleEndian.PutUint64(n, uint64(len(mine)))
	if err := pk.Sendrecv(n, sizes, leader, tagInterLeaders+tag); err != nil {
		return failed(MapErr(op, err))
	}
	theirs := make([]byte, binary.LittleEndian.Uint64(sizes))
	if err := pk.Sendrecv(mine, theirs, leader, tagInterLeaders+tag); err != nil {
		return failed(MapErr(op, err))
	}
	if mine[0] == membersFailed {
		return mine
	}
	return theirs
}

// remoteMembers is the other group, from its description, and the processes that
// addProcs holds for it (releaseIdx lets go of them). Names alone come only where
// both groups are of one job (leadersNeed), which holds nothing.
func remoteMembers(op string, word []byte) (*group.Group, []int32, error) {
	if len(word) == 0 {
		return nil, nil, Errorf(ClassIntern, op, "a malformed list of group members")
	}
	switch word[0] {
	case membersNames:
		g, err := decodeMembers(op, word[1:])
		return g, nil, err
	case membersRecs:
		recs, err := decodeRecs(word[1:])
		if err != nil {
			return nil, nil, Wrap(ClassIntern, op, "the other group's processes", err)
		}
		ws, err := addProcs(op, recs)
		if err != nil {
			return nil, nil, err
		}
		g, err := procGroup(op, ws)
		return g, ws, err
	}
	return nil, nil, Errorf(ClassComm, op, "%s", word[1:])
}

// MergeCore makes an intracommunicator of both groups of an intercommunicator
// (MPI_Intercomm_merge): the group whose processes pass high=false comes first
// (ties broken by the groups' leaders).
func (c *Comm) MergeCore(op string, high bool, bad error) (*Comm, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	if c.remote == nil {
		return nil, Errorf(ClassComm, op, "%q is not an intercommunicator", c.Name())
	}
	flag := []byte{0}
	if high {
		flag[0] = 1
	}
	theirs := []byte{0}
	if c.rank == 0 {
		if err := c.iconn.Sendrecv(flag, theirs, c.size, tagMergeFlags); err != nil {
			return nil, MapErr(op, err)
		}
	}
	both := []byte{flag[0], theirs[0]}
	if err := c.lconn.Run(tagMergeFlags, 1, func(s *coll.Sched) { s.Bcast(both, 0) }); err != nil {
		return nil, MapErr(op, err)
	}
	mineHigh, theirHigh := both[0] == 1, both[1] == 1
	first, second := c.group, c.remote
	if mineHigh && !theirHigh || mineHigh == theirHigh && procBefore(c.remote.WorldRank(0), c.group.WorldRank(0)) {
		first, second = c.remote, c.group
	}
	k := unionConn(first, second, c.ctx+1)
	ctx, err := allocCtx(op, &k, c.ctx, c.SeqTag(), bad)
	if err != nil {
		return nil, err
	}
	u, err := group.Union(first, second)
	if err != nil {
		releaseCtx(ctx)
		return nil, GroupErr(op, err)
	}
	return newComm(ctx, u, nil), nil
}
