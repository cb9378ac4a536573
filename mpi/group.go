package mpi

import (
	"github.com/mpigo/mpigo/internal/group"
	"github.com/mpigo/mpigo/internal/mpir"
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
// from those) belong to the session too and use its buffer for buffered sends. The
// other groups belong to the world model.
//
// The errors of calls that have no communicator, window or session of their own (the
// group calls here, and an error CommCreateFromGroup meets before it has a
// communicator, such as a handler of the wrong kind) go to the handler of the session
// their groups derive from, Self's for the world model's groups, as MPI sends such
// errors to MPI_COMM_SELF's handler.
//
// MPI forbids mixing objects of different sessions, or of a session and the world
// model, in one call: a call making a group or a communicator from groups (or from a
// communicator and a group), and Win.Start and Win.Post, fail with ErrGroup given ones
// of different owners; IntercommCreate fails with ErrComm given communicators of
// different owners. GroupEmpty belongs to every owner. GroupCompare and TranslateRanks
// make nothing and take groups of any owners.
type Group struct {
	x *mpir.Group
}

// Comparison is the result of comparing groups or communicators, with MPI's values.
type Comparison int

const (
	Ident     Comparison = iota // same members in the same order (communicators: the same one)
	Congruent                   // communicators: same members in the same order, different contexts
	Similar                     // same members, another order
	Unequal                     // different members
)

// comparison is mpir's c.
func comparison(c mpir.Comparison) Comparison {
	return [...]Comparison{mpir.Ident: Ident, mpir.Congruent: Congruent, mpir.Similar: Similar, mpir.Unequal: Unequal}[c]
}

func (c Comparison) String() string {
	return [...]string{"MPI_IDENT", "MPI_CONGRUENT", "MPI_SIMILAR", "MPI_UNEQUAL"}[c]
}

// GroupEmpty is the group with no members (MPI_GROUP_EMPTY). Every call that makes a
// group returns it, this very handle, when the group it makes is empty, so
// g == GroupEmpty tests for emptiness as MPI programs compare with MPI_GROUP_EMPTY.
var GroupEmpty = &Group{x: mpir.EmptyGroup}

// obj is g's group in mpir, nil for a nil g.
func (g *Group) obj() *mpir.Group {
	if g == nil {
		return nil
	}
	return g.x
}

// wrapGroup is the handle of x: GroupEmpty itself for the empty group.
func wrapGroup(x *mpir.Group) *Group {
	if x == mpir.EmptyGroup {
		return GroupEmpty
	}
	return &Group{x: x}
}

// derived is the result of a group constructor of op on the groups from: x, or err
// raised on the handler of their owner (a call with no object of its own). Where x
// is from's unchanged (Excl of no ranks: "newgroup is identical to group"), from
// itself.
func derived(op string, x *mpir.Group, err error, from ...*Group) (*Group, error) {
	if err != nil {
		return nil, failNoObject(op, err, from...)
	}
	if x == from[0].obj() {
		return from[0], nil
	}
	return wrapGroup(x), nil
}

// Size is the number of members. A nil group (MPI_GROUP_NULL) has none to count, and
// MPI makes asking an error: Size raises an error of class ErrGroup on Self's handler
// and returns 0. GroupEmpty is the group with no members.
func (g *Group) Size() int {
	if g == nil {
		unreturned("Group.Size", errorf(ClassGroup, "Group.Size", "the group is nil (MPI_GROUP_NULL)"), "0")
		return 0
	}
	return g.x.Size()
}

// Rank is the calling process's rank in g, or Undefined when it is not a member. On
// a nil group (MPI_GROUP_NULL) it raises an error of class ErrGroup, as Size does,
// and returns Undefined.
func (g *Group) Rank() int {
	if g == nil {
		unreturned("Group.Rank", errorf(ClassGroup, "Group.Rank", "the group is nil (MPI_GROUP_NULL)"), "Undefined")
		return Undefined
	}
	return g.x.Rank()
}

// String describes the group and its storage.
func (g *Group) String() string { return g.obj().Members().String() }

// Bytes is the memory the group's storage takes.
func (g *Group) Bytes() int { return g.obj().Members().Bytes() }

// Free releases g (MPI_Group_free); Go's collector owns the memory.
func (g *Group) Free() {}

// Incl is the group of the members of g at ranks, in that order; GroupEmpty for no
// ranks. Each rank is one of g's, given once (else ErrRank).
func (g *Group) Incl(ranks []int) (*Group, error) {
	const op = "GroupIncl"
	x, err := g.obj().Incl(op, ranks)
	return derived(op, x, err, g)
}

// Excl is g without the members at ranks: g itself for no ranks, GroupEmpty for all.
// Ranks as for Incl.
func (g *Group) Excl(ranks []int) (*Group, error) {
	const op = "GroupExcl"
	x, err := g.obj().Excl(op, ranks)
	return derived(op, x, err, g)
}

// Range is a run of ranks first, first+stride, ... up to last (inclusive).
type Range = group.Range

// RangeIncl is the group of the members at the ranks of the ranges, in order. A rank
// out of g, or one computed twice, is an error of class ErrRank; a zero stride, or
// one pointing away from last, of class ErrArg.
func (g *Group) RangeIncl(ranges []Range) (*Group, error) {
	const op = "GroupRangeIncl"
	x, err := g.obj().RangeIncl(op, ranges)
	return derived(op, x, err, g)
}

// RangeExcl is g without the members at the ranks of the ranges: g itself for no
// ranges. Ranges as for RangeIncl.
func (g *Group) RangeExcl(ranges []Range) (*Group, error) {
	const op = "GroupRangeExcl"
	x, err := g.obj().RangeExcl(op, ranges)
	return derived(op, x, err, g)
}

// GroupUnion is the members of g1, then those of g2 not in g1. g1 and g2 belong to one
// session, or both to the world model (else ErrGroup); so does the union.
func GroupUnion(g1, g2 *Group) (*Group, error) {
	const op = "GroupUnion"
	x, err := mpir.GroupUnion(op, g1.obj(), g2.obj())
	return derived(op, x, err, g1, g2)
}

// GroupIntersection is the members of g1 that are in g2, in g1's order; owners as for
// GroupUnion.
func GroupIntersection(g1, g2 *Group) (*Group, error) {
	const op = "GroupIntersection"
	x, err := mpir.GroupIntersection(op, g1.obj(), g2.obj())
	return derived(op, x, err, g1, g2)
}

// GroupDifference is the members of g1 not in g2, in g1's order; owners as for
// GroupUnion.
func GroupDifference(g1, g2 *Group) (*Group, error) {
	const op = "GroupDifference"
	x, err := mpir.GroupDifference(op, g1.obj(), g2.obj())
	return derived(op, x, err, g1, g2)
}

// GroupCompare compares two groups: Ident, Similar or Unequal.
func GroupCompare(g1, g2 *Group) (Comparison, error) {
	const op = "GroupCompare"
	c, err := mpir.GroupCompare(op, g1.obj(), g2.obj())
	if err != nil {
		return Unequal, failNoObject(op, err, g1, g2)
	}
	return comparison(c), nil
}

// TranslateRanks maps ranks of g1 to the ranks of the same processes in g2 (Undefined
// for those not in g2; ProcNull stays ProcNull). Another rank that is not one of g1's
// (AnySource among them) is an error of class ErrRank.
func TranslateRanks(g1 *Group, ranks []int, g2 *Group) ([]int, error) {
	const op = "GroupTranslateRanks"
	out, err := mpir.TranslateRanks(op, g1.obj(), ranks, g2.obj())
	if err != nil {
		return nil, failNoObject(op, err, g1, g2)
	}
	return out, nil
}
