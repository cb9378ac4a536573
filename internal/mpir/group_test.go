package mpir

import (
	"errors"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/group"
)

// world is a group of the first n world ranks, owned by s.
func world(t *testing.T, n int, s *Session) *Group {
	t.Helper()
	g, err := group.World(n)
	if err != nil {
		t.Fatal(err)
	}
	return NewGroup(g, s)
}

func rng(first, last, stride int) Range { return Range{First: first, Last: last, Stride: stride} }

// TestGroupConstructors: every constructor gives EmptyGroup itself for an empty
// result, Excl and RangeExcl of nothing give their input, each result belongs to its
// input's owner, and the engine's argument errors come with MPI's classes and the
// call's name.
func TestGroupConstructors(t *testing.T) {
	s := &Session{}
	g := world(t, 8, s)
	type made struct {
		name string
		g    *Group
		err  error
	}
	run := func(name string, f func() (*Group, error)) made {
		x, err := f()
		return made{name, x, err}
	}
	empties := []made{
		run("Incl of none", func() (*Group, error) { return g.Incl("GroupIncl", nil) }),
		run("Excl of all", func() (*Group, error) { return g.Excl("GroupExcl", []int{0, 1, 2, 3, 4, 5, 6, 7}) }),
		run("RangeIncl of none", func() (*Group, error) { return g.RangeIncl("GroupRangeIncl", nil) }),
		run("RangeExcl of all", func() (*Group, error) { return g.RangeExcl("GroupRangeExcl", []Range{rng(0, 7, 1)}) }),
		run("Difference with itself", func() (*Group, error) { return GroupDifference("GroupDifference", g, g) }),
		run("Intersection with empty", func() (*Group, error) { return GroupIntersection("GroupIntersection", g, EmptyGroup) }),
		run("Union of empties", func() (*Group, error) { return GroupUnion("GroupUnion", EmptyGroup, EmptyGroup) }),
	}
	for _, m := range empties {
		if m.err != nil || m.g != EmptyGroup {
			t.Errorf("%s = %p, %v; want EmptyGroup", m.name, m.g, m.err)
		}
	}
	for _, m := range []made{
		run("Excl of none", func() (*Group, error) { return g.Excl("GroupExcl", nil) }),
		run("RangeExcl of none", func() (*Group, error) { return g.RangeExcl("GroupRangeExcl", nil) }),
	} {
		if m.err != nil || m.g != g {
			t.Errorf("%s = %p, %v; want the group itself", m.name, m.g, m.err)
		}
	}
	for _, m := range []made{
		run("Incl", func() (*Group, error) { return g.Incl("GroupIncl", []int{3, 1}) }),
		run("Excl", func() (*Group, error) { return g.Excl("GroupExcl", []int{3}) }),
		run("RangeIncl", func() (*Group, error) { return g.RangeIncl("GroupRangeIncl", []Range{rng(6, 0, -2)}) }),
		run("RangeExcl", func() (*Group, error) { return g.RangeExcl("GroupRangeExcl", []Range{rng(0, 6, 2)}) }),
		run("Union with empty", func() (*Group, error) { return GroupUnion("GroupUnion", EmptyGroup, g) }),
	} {
		if m.err != nil || m.g.Owner() != s || m.g.Size() == 0 {
			t.Errorf("%s = %v (owner %p), %v; want a group of owner %p", m.name, m.g, m.g.Owner(), m.err, s)
		}
	}
	for _, c := range []struct {
		name  string
		f     func() (*Group, error)
		class core.ErrorClass
	}{
		{"GroupIncl", func() (*Group, error) { return g.Incl("GroupIncl", []int{8}) }, core.ClassRank},
		{"GroupIncl", func() (*Group, error) { return g.Incl("GroupIncl", []int{1, 1}) }, core.ClassRank},
		{"GroupExcl", func() (*Group, error) { return g.Excl("GroupExcl", []int{-1}) }, core.ClassRank},
		{"GroupRangeIncl", func() (*Group, error) { return g.RangeIncl("GroupRangeIncl", []Range{rng(0, 4, 0)}) }, core.ClassArg},
		{"GroupRangeIncl", func() (*Group, error) { return g.RangeIncl("GroupRangeIncl", []Range{rng(4, 0, 1)}) }, core.ClassArg},
		{"GroupRangeExcl", func() (*Group, error) { return g.RangeExcl("GroupRangeExcl", []Range{rng(0, 9, 3)}) }, core.ClassRank},
		{"GroupRangeExcl", func() (*Group, error) { return g.RangeExcl("GroupRangeExcl", []Range{rng(0, 2, 1), rng(2, 3, 1)}) }, core.ClassRank},
		{"GroupIncl", func() (*Group, error) { return (*Group)(nil).Incl("GroupIncl", nil) }, core.ClassGroup},
		{"GroupUnion", func() (*Group, error) { return GroupUnion("GroupUnion", g, nil) }, core.ClassGroup},
	} {
		x, err := c.f()
		if x != nil || core.ClassOf(err) != c.class || !containsOp(err, c.name) {
			t.Errorf("%s: %v, %v; want an error of class %v naming the call", c.name, x, err, c.class)
		}
	}
}

// containsOp is whether err is a core.Error of the call op.
func containsOp(err error, op string) bool {
	var e *core.Error
	return errors.As(err, &e) && e.Op == op
}

// TestGroupOwners: groups of two sessions, or of a session and the world model, are
// not combined (ClassGroup); EmptyGroup and the world's groups combine with their own.
func TestGroupOwners(t *testing.T) {
	s1, s2 := &Session{}, &Session{}
	a, b, w := world(t, 4, s1), world(t, 4, s2), world(t, 4, nil)
	for _, c := range []struct {
		name   string
		g1, g2 *Group
		ok     bool
	}{
		{"one session", a, a, true},
		{"the world model", w, w, true},
		{"a session and the empty group", EmptyGroup, a, true},
		{"two sessions", a, b, false},
		{"a session and the world model", a, w, false},
		{"the world model and a session", w, b, false},
	} {
		for _, f := range []func(string, *Group, *Group) (*Group, error){GroupUnion, GroupIntersection, GroupDifference} {
			x, err := f("GroupUnion", c.g1, c.g2)
			if c.ok != (err == nil) || (!c.ok && core.ClassOf(err) != core.ClassGroup) {
				t.Errorf("%s: %v, %v", c.name, x, err)
			}
		}
		_, err := SameOwner("Op", c.g1, c.g2)
		if c.ok != (err == nil) {
			t.Errorf("SameOwner of %s: %v", c.name, err)
		}
		// Comparing and translating make nothing: any owners.
		if _, err := GroupCompare("GroupCompare", c.g1, c.g2); err != nil {
			t.Errorf("GroupCompare of %s: %v", c.name, err)
		}
	}
	if err := Owns("Create", s1, b); core.ClassOf(err) != core.ClassGroup {
		t.Errorf("Owns(s1, a group of s2) = %v, want ClassGroup", err)
	}
	if err := Owns("Create", nil, a); core.ClassOf(err) != core.ClassGroup {
		t.Errorf("Owns(world model, a session's group) = %v, want ClassGroup", err)
	}
	for _, g := range []*Group{a, EmptyGroup, nil} {
		if err := Owns("Create", s1, g); err != nil {
			t.Errorf("Owns(s1, %v) = %v, want nil", g, err)
		}
	}
	// A session never started, like a finalized one, owns nothing live.
	if s := LiveOwner(nil, EmptyGroup, w, a); s != nil {
		t.Errorf("LiveOwner of groups of no live session = %p", s)
	}
}

// TestTranslateRanks: MPI_PROC_NULL translates to itself, a process not in group2 to
// MPI_UNDEFINED; any other negative rank (MPI_ANY_SOURCE among them, which the engine
// numbers as its ProcNull) and a rank past group1 are errors of class ClassRank.
func TestTranslateRanks(t *testing.T) {
	g := world(t, 6, nil)
	sub, err := g.Incl("GroupIncl", []int{4, 2})
	if err != nil {
		t.Fatal(err)
	}
	got, err := TranslateRanks("GroupTranslateRanks", g, []int{core.ProcNull, 2, 3, 4}, sub)
	if want := []int{core.ProcNull, 1, core.Undefined, 0}; err != nil || !slices.Equal(got, want) {
		t.Errorf("TranslateRanks = %v, %v; want %v", got, err, want)
	}
	for _, bad := range []int{core.AnySource, group.ProcNull, -7, 6} {
		if got, err := TranslateRanks("GroupTranslateRanks", g, []int{0, bad}, sub); core.ClassOf(err) != core.ClassRank {
			t.Errorf("TranslateRanks of rank %d = %v, %v; want ClassRank", bad, got, err)
		}
	}
	if _, err := TranslateRanks("GroupTranslateRanks", nil, nil, g); core.ClassOf(err) != core.ClassGroup {
		t.Errorf("TranslateRanks of a nil group1: %v, want ClassGroup", err)
	}
	if c, err := GroupCompare("GroupCompare", g, sub); c != Unequal || err != nil {
		t.Errorf("GroupCompare of a group and a subgroup = %v, %v", c, err)
	}
	rev, _ := g.Incl("GroupIncl", []int{5, 4, 3, 2, 1, 0})
	if c, _ := GroupCompare("GroupCompare", g, rev); c != Similar {
		t.Errorf("GroupCompare of a group and its reverse = %v, want Similar", c)
	}
	if c, _ := GroupCompare("GroupCompare", g, world(t, 6, &Session{})); c != Ident {
		t.Errorf("GroupCompare of equal groups of two owners = %v, want Ident", c)
	}
}

// TestRanksIn: a window's ranks of a group's members; a member outside the window's
// group, or a group of another owner, is an error of class ClassGroup.
func TestRanksIn(t *testing.T) {
	s := &Session{}
	win, err := group.World(6)
	if err != nil {
		t.Fatal(err)
	}
	of, _ := win.Incl([]int{1, 3, 5}) // the window's group: world ranks 1, 3, 5
	g := world(t, 6, s)
	sub, _ := g.Incl("GroupIncl", []int{5, 1})
	if rs, err := RanksIn("WinStart", sub, s, of); err != nil || !slices.Equal(rs, []int{2, 0}) {
		t.Errorf("RanksIn = %v, %v; want [2 0]", rs, err)
	}
	out, _ := g.Incl("GroupIncl", []int{2})
	for name, c := range map[string]struct {
		g     *Group
		owner *Session
	}{"a member outside": {out, s}, "another owner": {sub, nil}, "a nil group": {nil, s}} {
		if _, err := RanksIn("WinStart", c.g, c.owner, of); core.ClassOf(err) != core.ClassGroup {
			t.Errorf("RanksIn of %s: %v, want ClassGroup", name, err)
		}
	}
}
