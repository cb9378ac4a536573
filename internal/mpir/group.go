package mpir

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/group"
)

// Groups (MPI 4.1 section 7.3) above the group engine (internal/group), which holds
// the members and checks the arguments of each operation (ranks in range and
// distinct, triplets that stay in the group). A Group is an engine group with its
// owner: the session it derives from, nil for the world model (see Session).
//
// Invariants:
//   - EmptyGroup is the one empty group a constructor returns (MPI_GROUP_EMPTY): MPI
//     4.1 section 7.3.2 says of every group constructor that the new group may be
//     MPI_GROUP_EMPTY, and programs compare with it. It belongs to every owner.
//   - A group computed from groups belongs to their owner; groups of two owners are
//     never combined (ClassGroup). Comparing groups and translating ranks make
//     nothing and take groups of any owners.
//   - Groups never change: a Group is safe for concurrent use, and a constructor that
//     keeps its input unchanged (Excl of no ranks: "newgroup is identical to group")
//     returns that very Group.
//   - A nil *Group is MPI_GROUP_NULL: its size is 0, and an operation on it is an
//     error of class ClassGroup.

// Group is a process group and its owner.
type Group struct {
	g     *group.Group
	owner *Session
}

// EmptyGroup is MPI_GROUP_EMPTY.
var EmptyGroup = &Group{g: group.Empty()}

// Range is a triplet of MPI_Group_range_incl and MPI_Group_range_excl.
type Range = group.Range

// NewGroup is the group of members g, owned by s (nil: the world model); EmptyGroup
// when g has no member.
func NewGroup(g *group.Group, s *Session) *Group {
	if g.Size() == 0 {
		return EmptyGroup
	}
	return &Group{g: g, owner: s}
}

// Members is the engine's group, nil for a nil g.
func (g *Group) Members() *group.Group {
	if g == nil {
		return nil
	}
	return g.g
}

// Owner is the session g derives from, nil for the world model's groups, EmptyGroup
// and a nil g.
func (g *Group) Owner() *Session {
	if g == nil {
		return nil
	}
	return g.owner
}

// Size is the number of members (MPI_Group_size).
func (g *Group) Size() int { return g.Members().Size() }

// Rank is the calling process's rank in g, core.Undefined when it is not a member
// (MPI_Group_rank).
func (g *Group) Rank() int { return g.Members().Rank(int32(core.WorldRank())) }

// The engine's sentinels are MPI's, as the device numbers them (these constants do
// not compile otherwise); its ProcNull is not: TranslateRanks converts it.
const (
	_ uint = group.Undefined - core.Undefined
	_ uint = core.Undefined - group.Undefined
)

// derived is the result of op, n computed from g (or err): g itself where n is g's
// members unchanged, else a group of g's owner.
func (g *Group) derived(op string, n *group.Group, err error) (*Group, error) {
	if err != nil {
		return nil, core.GroupErr(op, err)
	}
	if g != nil && n == g.g {
		return g, nil
	}
	return NewGroup(n, g.Owner()), nil
}

// Incl is the group of g's members at ranks, in that order (MPI_Group_incl):
// EmptyGroup for no ranks. Each rank is one of g's (else ClassRank), once (else
// ClassRank).
func (g *Group) Incl(op string, ranks []int) (*Group, error) {
	n, err := g.Members().Incl(ranks)
	return g.derived(op, n, err)
}

// Excl is g without the members at ranks, in g's order (MPI_Group_excl): g itself for
// no ranks. Ranks as for Incl.
func (g *Group) Excl(op string, ranks []int) (*Group, error) {
	n, err := g.Members().Excl(ranks)
	return g.derived(op, n, err)
}

// RangeIncl is the group of g's members at the ranks the triplets compute, in that
// order (MPI_Group_range_incl). A first rank or a computed rank out of g, or one
// computed twice, is an error of class ClassRank; a zero stride, or one pointing away
// from the last rank, of class ClassArg.
func (g *Group) RangeIncl(op string, ranges []Range) (*Group, error) {
	n, err := g.Members().RangeIncl(ranges)
	return g.derived(op, n, err)
}

// RangeExcl is g without the members at the ranks the triplets compute
// (MPI_Group_range_excl): g itself for no triplets. Triplets as for RangeIncl.
func (g *Group) RangeExcl(op string, ranges []Range) (*Group, error) {
	n, err := g.Members().RangeExcl(ranges)
	return g.derived(op, n, err)
}

// GroupUnion is g1's members, then g2's not in g1 (MPI_Group_union).
func GroupUnion(op string, g1, g2 *Group) (*Group, error) {
	return setOp(op, group.Union, g1, g2)
}

// GroupIntersection is g1's members that are in g2, in g1's order
// (MPI_Group_intersection).
func GroupIntersection(op string, g1, g2 *Group) (*Group, error) {
	return setOp(op, group.Intersection, g1, g2)
}

// GroupDifference is g1's members that are not in g2, in g1's order
// (MPI_Group_difference).
func GroupDifference(op string, g1, g2 *Group) (*Group, error) {
	return setOp(op, group.Difference, g1, g2)
}

// setOp computes f(g1, g2) for op: g1 and g2 belong to one owner (else ClassGroup),
// which the result gets.
func setOp(op string, f func(a, b *group.Group) (*group.Group, error), g1, g2 *Group) (*Group, error) {
	s, err := SameOwner(op, g1, g2)
	if err != nil {
		return nil, err
	}
	n, err := f(g1.Members(), g2.Members())
	if err != nil {
		return nil, core.GroupErr(op, err)
	}
	return NewGroup(n, s), nil
}

// Comparison is the result of comparing groups or communicators, in the order of
// MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR and MPI_UNEQUAL.
type Comparison int

const (
	Ident     Comparison = iota // the same members in the same order; communicators: the same one
	Congruent                   // communicators: the same groups, another context
	Similar                     // the same members in another order
	Unequal                     // other members
)

// comparison is the engine's comparison as a Comparison.
func comparison(c group.Comparison) Comparison {
	switch c {
	case group.Ident:
		return Ident
	case group.Similar:
		return Similar
	}
	return Unequal
}

// GroupCompare compares g1 and g2 (MPI_Group_compare): Ident, Similar or Unequal.
func GroupCompare(op string, g1, g2 *Group) (Comparison, error) {
	c, err := group.Compare(g1.Members(), g2.Members())
	if err != nil {
		return Unequal, core.GroupErr(op, err)
	}
	return comparison(c), nil
}

// TranslateRanks maps ranks of g1 to the ranks of the same processes in g2
// (MPI_Group_translate_ranks), ranks as the device numbers them: core.Undefined for a
// process not in g2, and core.ProcNull to itself (MPI 2.2 made it valid there). Any
// other rank that is not one of g1's is an error of class ClassRank.
func TranslateRanks(op string, g1 *Group, ranks []int, g2 *Group) ([]int, error) {
	if g1 == nil || g2 == nil { // the engine names which
		_, err := group.TranslateRanks(g1.Members(), nil, g2.Members())
		return nil, core.GroupErr(op, err)
	}
	in := make([]int, len(ranks))
	for i, r := range ranks {
		switch {
		case r == core.ProcNull:
			r = group.ProcNull
		case r < 0:
			// Not passed on: the engine's ProcNull is another of MPI's sentinels here.
			// Nor named: a binding may have converted it from its own sentinels.
			return nil, core.Errorf(core.ClassRank, op, "ranks1[%d] is negative and not MPI_PROC_NULL: a rank of group1 is 0 to %d", i, g1.Size()-1)
		}
		in[i] = r
	}
	out, err := group.TranslateRanks(g1.Members(), in, g2.Members())
	if err != nil {
		return nil, core.GroupErr(op, err)
	}
	for i, r := range out {
		if r == group.ProcNull {
			out[i] = core.ProcNull
		}
	}
	return out, nil
}

// RanksIn is the ranks that g's members have in the group of, an object of owner
// owner (a window's group, for MPI_Win_start and MPI_Win_post). g belongs to owner
// (else ClassGroup), and each member is in of (else ClassGroup).
func RanksIn(op string, g *Group, owner *Session, of *group.Group) ([]int, error) {
	if g == nil {
		return nil, core.Errorf(core.ClassGroup, op, "the group is MPI_GROUP_NULL")
	}
	if err := Owns(op, owner, g); err != nil {
		return nil, err
	}
	out := make([]int, g.Size())
	for i := range out {
		r := of.Rank(g.g.WorldRank(i))
		if r == group.Undefined {
			return nil, core.Errorf(core.ClassGroup, op, "member %d of the group is not in the window's group", i)
		}
		out[i] = r
	}
	return out, nil
}

// Owners. MPI 4.1 section 11.3 mixes no objects derived from different sessions, or
// from a session and the world model, in one call: each group, communicator and
// window has one owner, and a call given two is refused with ClassGroup.

// mixed is the error of op given objects of the owners a and b: of class, the class
// of the objects' kind.
func mixed(op string, class core.ErrorClass, a, b *Session) error {
	what := "different sessions"
	if a == nil || b == nil {
		what = "a session and the world model"
	}
	return core.Errorf(class, op, "the arguments belong to %s: MPI mixes no objects of different owners in one call (MPI 4.1 section 11.3)", what)
}

// Owns is nil when g may be used with an object of owner s (a communicator's, a
// window's): g belongs to s, or is EmptyGroup or nil (whose errors are the caller's to
// give). Else it is the error of op, of class ClassGroup.
func Owns(op string, s *Session, g *Group) error {
	if g == nil || g == EmptyGroup || g.owner == s {
		return nil
	}
	return mixed(op, core.ClassGroup, s, g.owner)
}

// SameOwner is the owner of the groups gs, or the error of op (ClassGroup) where two
// of them have different owners. EmptyGroup and nil groups are passed over.
func SameOwner(op string, gs ...*Group) (*Session, error) {
	var s *Session
	seen := false
	for _, g := range gs {
		if g == nil || g == EmptyGroup {
			continue
		}
		if seen && g.owner != s {
			return nil, mixed(op, core.ClassGroup, s, g.owner)
		}
		s, seen = g.owner, true
	}
	return s, nil
}

// LiveOwner is the owner of the first of gs that derives from a session not yet
// finalized, nil for none: the owner whose handler serves an error of a call with no
// object of its own (a group call, a creation from groups before it has its
// communicator). The world model's groups have none; their errors go where the world
// model sends errors with no object.
func LiveOwner(gs ...*Group) *Session {
	for _, g := range gs {
		if s := g.Owner(); s != nil && s.Check("") == nil {
			return s
		}
	}
	return nil
}
