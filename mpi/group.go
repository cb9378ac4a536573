package mpi

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/group"
)

// Group is an ordered set of processes (MPI_Group). Groups are values to compute with:
// making one communicates nothing. Their storage is the smallest of a list, runs, a
// stride or a bitmap, chosen automatically (MPIGO_GROUP_STORAGE=dense turns that off).
//
// A group belongs to the session it derives from (MPI 4.1 section 11.3): one of
// Session.GroupFromPset, the group of a communicator or window that derives from a
// session (Comm.Group, RemoteGroup, Win.Group), and every group computed from such
// groups (Incl, Excl, RangeIncl, RangeExcl, GroupUnion, GroupIntersection,
// GroupDifference). Communicators made from it (CommCreateFromGroup, and every one made
// from those) belong to the session too and use its buffer for buffered sends; an
// error CommCreateFromGroup meets before it has a communicator (a handler of the wrong
// kind) goes to the session's handler, not Self's. The other groups belong to the
// world model. MPI forbids mixing objects of different sessions, or of a session and
// the world model, in one call: a call making a group or a communicator from groups
// (or from a communicator and a group), and Win.Start and Win.Post, fail with ErrGroup
// given ones of different owners. GroupEmpty belongs to every owner. GroupCompare and
// TranslateRanks make nothing and take groups of any owners.
type Group struct {
	g *group.Group
	s *Session // the session the group derives from, nil for the world model
}

// Comparison is the result of comparing groups or communicators, with MPI's values.
type Comparison int

const (
	Ident     Comparison = iota // same members in the same order (communicators: the same one)
	Congruent                   // communicators: same members in the same order, different contexts
	Similar                     // same members, another order
	Unequal                     // different members
)

func (c Comparison) String() string {
	return [...]string{"MPI_IDENT", "MPI_CONGRUENT", "MPI_SIMILAR", "MPI_UNEQUAL"}[c]
}

func comparison(c group.Comparison) Comparison {
	switch c {
	case group.Ident:
		return Ident
	case group.Similar:
		return Similar
	}
	return Unequal
}

// GroupEmpty is the group with no members (MPI_GROUP_EMPTY). Every call that makes a
// group returns it, this very handle, when the group it makes is empty, so
// g == GroupEmpty tests for emptiness as MPI programs compare with MPI_GROUP_EMPTY.
var GroupEmpty = &Group{g: group.Empty()}

func (g *Group) inner() *group.Group {
	if g == nil {
		return nil
	}
	return g.g
}

// wrapGroup gives a group computed by op its handle: GroupEmpty itself for an empty
// one, as MPI 4.1 section 7.3.2 says of every group constructor ("the new group can be
// empty, that is, equal to MPI_GROUP_EMPTY").
func wrapGroup(op string, g *group.Group, err error) (*Group, error) {
	if err != nil {
		return nil, groupErr(op, err)
	}
	if g.Size() == 0 {
		return GroupEmpty, nil
	}
	return &Group{g: g}, nil
}

// owner is the session g belongs to (nil: the world model); ok is false for a nil
// group or GroupEmpty, which belong to every owner.
func (g *Group) owner() (s *Session, ok bool) {
	if g == nil || g == GroupEmpty || g.g == nil || g.g.Size() == 0 {
		return nil, false
	}
	return g.s, true
}

// sameOwner is the session the groups belong to, or an error of class ErrGroup for op
// where two of them belong to different sessions, or one to a session and another to
// the world model (MPI 4.1 section 11.3: objects derived from different sessions are
// not mixed in one call).
func sameOwner(op string, gs ...*Group) (*Session, error) {
	var s *Session
	seen := false
	for _, g := range gs {
		o, ok := g.owner()
		if !ok {
			continue
		}
		if seen && o != s {
			return nil, mixErr(op, s, o)
		}
		s, seen = o, true
	}
	return s, nil
}

// mixErr is the error of op given objects of owners a and b.
func mixErr(op string, a, b *Session) error { return core.MixedOwners(op, a == nil || b == nil) }

// carry gives a group computed from groups their owner (sameOwner checked it first).
func carry(out *Group, err error, s *Session) (*Group, error) {
	if out != nil && out != GroupEmpty && out.s == nil {
		out.s = s
	}
	return out, err
}

// derive is wrapGroup for a group computed from from: where the computation kept from
// unchanged (Excl of no ranks: "newgroup is identical to group", section 7.3.2), from
// itself.
func derive(op string, from *Group, g *group.Group, err error) (*Group, error) {
	if err == nil && g != nil && g == from.inner() && g.Size() > 0 {
		return from, nil
	}
	return wrapGroup(op, g, err)
}

// owner1 is g's session, nil for a nil group.
func (g *Group) owner1() *Session {
	if g == nil {
		return nil
	}
	return g.s
}

// Size is the number of members.
func (g *Group) Size() int { return g.inner().Size() }

// Rank is the calling process's rank in g, or Undefined when it is not a member.
func (g *Group) Rank() int {
	r := g.inner().Rank(int32(core.WorldRank()))
	if r == group.Undefined {
		return Undefined
	}
	return r
}

// String describes the group and its storage.
func (g *Group) String() string { return g.inner().String() }

// Bytes is the memory the group's storage takes.
func (g *Group) Bytes() int { return g.inner().Bytes() }

// Free releases g (MPI_Group_free); Go's collector owns the memory.
func (g *Group) Free() {}

// Incl is the group of the members of g at ranks, in that order; GroupEmpty for no
// ranks.
func (g *Group) Incl(ranks []int) (*Group, error) {
	n, nerr := g.inner().Incl(ranks)
	out, err := wrapGroup("GroupIncl", n, nerr)
	return carry(out, err, g.owner1())
}

// Excl is g without the members at ranks: g itself for no ranks, GroupEmpty for all.
func (g *Group) Excl(ranks []int) (*Group, error) {
	n, nerr := g.inner().Excl(ranks)
	out, err := derive("GroupExcl", g, n, nerr)
	return carry(out, err, g.owner1())
}

// Range is a run of ranks first, first+stride, ... up to last (inclusive).
type Range = group.Range

// RangeIncl is the group of the members at the ranks of the ranges, in order.
func (g *Group) RangeIncl(ranges []Range) (*Group, error) {
	n, nerr := g.inner().RangeIncl(ranges)
	out, err := wrapGroup("GroupRangeIncl", n, nerr)
	return carry(out, err, g.owner1())
}

// RangeExcl is g without the members at the ranks of the ranges.
func (g *Group) RangeExcl(ranges []Range) (*Group, error) {
	n, nerr := g.inner().RangeExcl(ranges)
	out, err := derive("GroupRangeExcl", g, n, nerr)
	return carry(out, err, g.owner1())
}

// GroupUnion is the members of g1, then those of g2 not in g1. g1 and g2 belong to one
// session, or both to the world model (else ErrGroup); so does the union.
func GroupUnion(g1, g2 *Group) (*Group, error) {
	return setOp("GroupUnion", group.Union, g1, g2)
}

// GroupIntersection is the members of g1 that are in g2, in g1's order; owners as for
// GroupUnion.
func GroupIntersection(g1, g2 *Group) (*Group, error) {
	return setOp("GroupIntersection", group.Intersection, g1, g2)
}

// GroupDifference is the members of g1 not in g2, in g1's order; owners as for
// GroupUnion.
func GroupDifference(g1, g2 *Group) (*Group, error) {
	return setOp("GroupDifference", group.Difference, g1, g2)
}

// setOp computes f(g1, g2) for op, the result belonging to the groups' owner.
func setOp(op string, f func(a, b *group.Group) (*group.Group, error), g1, g2 *Group) (*Group, error) {
	s, err := sameOwner(op, g1, g2)
	if err != nil {
		return nil, err
	}
	n, nerr := f(g1.inner(), g2.inner())
	out, err := wrapGroup(op, n, nerr)
	return carry(out, err, s)
}

// GroupCompare compares two groups: Ident, Similar or Unequal.
func GroupCompare(g1, g2 *Group) (Comparison, error) {
	c, err := group.Compare(g1.inner(), g2.inner())
	return comparison(c), groupErr("GroupCompare", err)
}

// TranslateRanks maps ranks of g1 to the ranks of the same processes in g2 (Undefined
// for those not in g2; ProcNull stays ProcNull).
func TranslateRanks(g1 *Group, ranks []int, g2 *Group) ([]int, error) {
	in := make([]int, len(ranks))
	for i, r := range ranks {
		if r == ProcNull {
			r = group.ProcNull
		}
		in[i] = r
	}
	out, err := group.TranslateRanks(g1.inner(), in, g2.inner())
	if err != nil {
		return nil, groupErr("GroupTranslateRanks", err)
	}
	for i, r := range out {
		switch r {
		case group.ProcNull:
			out[i] = ProcNull
		case group.Undefined:
			out[i] = Undefined
		}
	}
	return out, nil
}
