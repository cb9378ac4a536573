package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/group"
)

// Groups (MPI 4.1 chapter 7.3): handles of the group engine's groups with their
// owner (a session or the world model), the set operations and rank translation.

func groupOf(h uintptr) *group.Group {
	if h == hGroupEmpty {
		return group.Empty()
	}
	if g := groups.get(h); g != nil {
		return g.g
	}
	return nil
}

func newGroup(g *group.Group) uintptr {
	if g.Size() == 0 {
		return hGroupEmpty
	}
	return groups.add(&grp{g: g})
}

func groupResult(op string, g *group.Group, err error, out unsafe.Pointer) int32 {
	if err != nil {
		return fail(op, 0, core.GroupErr(op, err))
	}
	if out == nil {
		return fail(op, 0, errorf(errArg, op, "newgroup is NULL"))
	}
	setHandle(out, newGroup(g))
	return 0
}

// groupResultFrom is groupResult for a group computed from the groups from: they
// must have one owner (sameOwner), which the result gets. Its errors go to that
// owner's handler: a session's, else MPI_COMM_SELF's (failOwned).
func groupResultFrom(op string, g *group.Group, err error, out unsafe.Pointer, from ...uintptr) int32 {
	s, oerr := sameOwner(op, from...)
	if oerr != nil {
		return failOwned(op, oerr, from...)
	}
	if err != nil {
		return failOwned(op, core.GroupErr(op, err), from...)
	}
	if out == nil {
		return failOwned(op, errorf(errArg, op, "newgroup is NULL"), from...)
	}
	if r := groupResult(op, g, nil, out); r != 0 {
		return r
	}
	setGroupSession(*(*uintptr)(out), s)
	return 0
}

// newGroupOf is newGroup for a group owned by session s (nil: the world model).
func newGroupOf(g *group.Group, s *session) uintptr {
	h := newGroup(g)
	setGroupSession(h, s)
	return h
}

func setGroupSession(h uintptr, s *session) {
	if x := groups.get(h); x != nil {
		x.s = s
	}
}

// groupSession is the session group h derives from, nil for none.
func groupSession(h uintptr) *session {
	if x := groups.get(h); x != nil {
		return x.s
	}
	return nil
}

// sameOwner is the owner of the groups hs, or an error of class MPI_ERR_GROUP where
// two of them have different owners (two sessions, or a session and the world
// model). Handles that are no groups, and MPI_GROUP_EMPTY, are passed over.
func sameOwner(op string, hs ...uintptr) (*session, error) {
	var s *session
	seen := false
	for _, h := range hs {
		x := groups.get(h)
		if x == nil {
			continue
		}
		if seen && x.s != s {
			return nil, mixErr(op, s, x.s)
		}
		s, seen = x.s, true
	}
	return s, nil
}

// mixErr is the error of op given objects of owners a and b.
func mixErr(op string, a, b *session) error { return core.MixedOwners(op, a == nil || b == nil) }

// failOwned raises err of op, a call with no communicator, on the handler of the
// live session the first of the groups hs derives from, else on MPI_COMM_SELF's (the
// world model's default).
func failOwned(op string, err error, hs ...uintptr) int32 {
	for _, h := range hs {
		if s := groupSession(h); s != nil && s.s.Check(op) == nil {
			return failSession(op, s, s.h, err)
		}
	}
	return fail(op, 0, err)
}

// commOwns is nil when group gh belongs to c's owner, else MPI_ERR_GROUP's error.
func commOwns(op string, c *comm, gh uintptr) error {
	if x := groups.get(gh); x != nil && x.s != c.sess {
		return mixErr(op, c.sess, x.s)
	}
	return nil
}

func needGroup(op string, h uintptr) (*group.Group, int32) {
	g := groupOf(h)
	if g == nil {
		return nil, fail(op, 0, badHandle(op, "group", h, kGroup))
	}
	return g, 0
}

//export PMPI_Comm_group
func PMPI_Comm_group(ch uintptr, out unsafe.Pointer) int32 {
	c, r := needComm("Comm_group", ch)
	if c == nil {
		return r
	}
	if r := groupResult("Comm_group", c.c.Group(), nil, out); r != 0 {
		return r
	}
	setGroupSession(*(*uintptr)(out), c.sess)
	return 0
}

//export PMPI_Comm_remote_group
func PMPI_Comm_remote_group(ch uintptr, out unsafe.Pointer) int32 {
	c, r := needComm("Comm_remote_group", ch)
	if c == nil {
		return r
	}
	if !c.c.IsInter() {
		return fail("Comm_remote_group", ch, errorf(errComm, "Comm_remote_group", "comm is not an intercommunicator"))
	}
	if r := groupResult("Comm_remote_group", c.c.Remote(), nil, out); r != 0 {
		return r
	}
	setGroupSession(*(*uintptr)(out), c.sess)
	return 0
}

//export PMPI_Group_size
func PMPI_Group_size(gh uintptr, size unsafe.Pointer) int32 {
	g, r := needGroup("Group_size", gh)
	if g == nil {
		return r
	}
	setInt(size, g.Size())
	return 0
}

//export PMPI_Group_rank
func PMPI_Group_rank(gh uintptr, rank unsafe.Pointer) int32 {
	g, r := needGroup("Group_rank", gh)
	if g == nil {
		return r
	}
	me := core.WorldRank()
	setInt(rank, g.Rank(int32(me)))
	return 0
}

//export PMPI_Group_incl
func PMPI_Group_incl(gh uintptr, n int32, ranks unsafe.Pointer, out unsafe.Pointer) int32 {
	g, r := needGroup("Group_incl", gh)
	if g == nil {
		return r
	}
	ng, err := g.Incl(toInts(ints(ranks, int(n))))
	return groupResultFrom("Group_incl", ng, err, out, gh)
}

//export PMPI_Group_excl
func PMPI_Group_excl(gh uintptr, n int32, ranks unsafe.Pointer, out unsafe.Pointer) int32 {
	g, r := needGroup("Group_excl", gh)
	if g == nil {
		return r
	}
	ng, err := g.Excl(toInts(ints(ranks, int(n))))
	return groupResultFrom("Group_excl", ng, err, out, gh)
}

func ranges(p unsafe.Pointer, n int) []group.Range {
	v := ints(p, 3*n)
	out := make([]group.Range, n)
	for i := range out {
		out[i] = group.Range{First: int(v[3*i]), Last: int(v[3*i+1]), Stride: int(v[3*i+2])}
	}
	return out
}

//export PMPI_Group_range_incl
func PMPI_Group_range_incl(gh uintptr, n int32, rs unsafe.Pointer, out unsafe.Pointer) int32 {
	g, r := needGroup("Group_range_incl", gh)
	if g == nil {
		return r
	}
	ng, err := g.RangeIncl(ranges(rs, int(n)))
	return groupResultFrom("Group_range_incl", ng, err, out, gh)
}

//export PMPI_Group_range_excl
func PMPI_Group_range_excl(gh uintptr, n int32, rs unsafe.Pointer, out unsafe.Pointer) int32 {
	g, r := needGroup("Group_range_excl", gh)
	if g == nil {
		return r
	}
	ng, err := g.RangeExcl(ranges(rs, int(n)))
	return groupResultFrom("Group_range_excl", ng, err, out, gh)
}

func setop(op string, h1, h2 uintptr, f func(a, b *group.Group) (*group.Group, error), out unsafe.Pointer) int32 {
	g1, r := needGroup(op, h1)
	if g1 == nil {
		return r
	}
	g2, r := needGroup(op, h2)
	if g2 == nil {
		return r
	}
	ng, err := f(g1, g2)
	return groupResultFrom(op, ng, err, out, h1, h2)
}

//export PMPI_Group_union
func PMPI_Group_union(h1, h2 uintptr, out unsafe.Pointer) int32 {
	return setop("Group_union", h1, h2, group.Union, out)
}

//export PMPI_Group_intersection
func PMPI_Group_intersection(h1, h2 uintptr, out unsafe.Pointer) int32 {
	return setop("Group_intersection", h1, h2, group.Intersection, out)
}

//export PMPI_Group_difference
func PMPI_Group_difference(h1, h2 uintptr, out unsafe.Pointer) int32 {
	return setop("Group_difference", h1, h2, group.Difference, out)
}

//export PMPI_Group_compare
func PMPI_Group_compare(h1, h2 uintptr, result unsafe.Pointer) int32 {
	g1, r := needGroup("Group_compare", h1)
	if g1 == nil {
		return r
	}
	g2, r := needGroup("Group_compare", h2)
	if g2 == nil {
		return r
	}
	cmp, err := group.Compare(g1, g2)
	if err != nil {
		return fail("Group_compare", 0, core.GroupErr("Group_compare", err))
	}
	setInt(result, [...]int{C.MPI_IDENT, C.MPI_SIMILAR, C.MPI_UNEQUAL}[cmp])
	return 0
}

//export PMPI_Group_translate_ranks
func PMPI_Group_translate_ranks(h1 uintptr, n int32, r1 unsafe.Pointer, h2 uintptr, r2 unsafe.Pointer) int32 {
	g1, r := needGroup("Group_translate_ranks", h1)
	if g1 == nil {
		return r
	}
	g2, r := needGroup("Group_translate_ranks", h2)
	if g2 == nil {
		return r
	}
	// MPI_PROC_NULL translates to itself (MPI-2.2 errata); it is group.ProcNull in the
	// group package.
	in := toInts(ints(r1, int(n)))
	for i, v := range in {
		if v == C.MPI_PROC_NULL {
			in[i] = group.ProcNull
		} else if v == group.ProcNull {
			in[i] = badSentinel
		}
	}
	out, err := group.TranslateRanks(g1, in, g2)
	if err != nil {
		return fail("Group_translate_ranks", 0, core.GroupErr("Group_translate_ranks", err))
	}
	dst := ints(r2, int(n))
	for i, v := range out {
		switch v {
		case group.Undefined:
			v = C.MPI_UNDEFINED
		case group.ProcNull:
			v = C.MPI_PROC_NULL
		}
		dst[i] = int32(v)
	}
	return 0
}

//export PMPI_Group_free
func PMPI_Group_free(p unsafe.Pointer) int32 {
	if p == nil {
		return fail("Group_free", 0, errorf(errArg, "Group_free", "group is NULL"))
	}
	h := *(*uintptr)(p)
	if h != hGroupEmpty {
		if groups.get(h) == nil {
			return fail("Group_free", 0, badHandle("Group_free", "group", h, kGroup))
		}
		groups.remove(h)
	}
	setHandle(p, hGroupNull)
	return 0
}

// grp is a group and its owner: the session it derives from (Group_from_session_pset,
// the group of a session's communicator or window, a group computed from such
// groups), nil for the world model. MPI 4.1 section 11.3 mixes no objects of
// different owners in one call: sameOwner refuses them with MPI_ERR_GROUP.
// MPI_GROUP_EMPTY has no entry and belongs to every owner.
type grp struct {
	g *group.Group
	s *session
}

var groups = table[grp]{kind: kGroup}
