package mpi_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// members lists the world ranks of g's members, in g's order.
func members(t *testing.T, g *mpi.Group) []int {
	t.Helper()
	ranks := make([]int, g.Size())
	for i := range ranks {
		ranks[i] = i
	}
	w, err := mpi.TranslateRanks(g, ranks, mpi.World.Group())
	must(t, err)
	return w
}

// TestGroupOperations: the set operations, exclusions and comparisons give the
// members MPI defines, in its order; a communicator made of a union ranks its members
// in the union's order.
func TestGroupOperations(t *testing.T) {
	job(t, 4, func(t *testing.T, rank, size int) {
		world := mpi.World.Group()
		a, err := world.Incl([]int{3, 1, 0})
		must(t, err)
		b, err := world.Incl([]int{0, 2, 3})
		must(t, err)
		op := func(f func(g1, g2 *mpi.Group) (*mpi.Group, error), g1, g2 *mpi.Group) *mpi.Group {
			g, err := f(g1, g2)
			must(t, err)
			return g
		}
		union := op(mpi.GroupUnion, a, b)
		type groupCase struct {
			name string
			g    *mpi.Group
			want []int
		}
		cases := []groupCase{
			// The union is the first group, then the second's other members in its order.
			{"Union(a, b)", union, []int{3, 1, 0, 2}},
			{"Union(b, a)", op(mpi.GroupUnion, b, a), []int{0, 2, 3, 1}},
			// Intersection and difference keep the first group's order.
			{"Intersection(a, b)", op(mpi.GroupIntersection, a, b), []int{3, 0}},
			{"Intersection(b, a)", op(mpi.GroupIntersection, b, a), []int{0, 3}},
			{"Difference(a, b)", op(mpi.GroupDifference, a, b), []int{1}},
			{"Difference(b, a)", op(mpi.GroupDifference, b, a), []int{2}},
			{"Difference(a, a)", op(mpi.GroupDifference, a, a), []int{}},
			{"Union(a, empty)", op(mpi.GroupUnion, a, mpi.GroupEmpty), []int{3, 1, 0}},
			{"Intersection(a, empty)", op(mpi.GroupIntersection, a, mpi.GroupEmpty), []int{}},
		}
		excl, err := world.Excl([]int{1, 2})
		must(t, err)
		cases = append(cases, groupCase{"Excl(1, 2)", excl, []int{0, 3}})
		rexcl, err := world.RangeExcl([]mpi.Range{{First: 0, Last: 3, Stride: 2}})
		must(t, err)
		cases = append(cases, groupCase{"RangeExcl(0..3 by 2)", rexcl, []int{1, 3}})
		down, err := a.RangeExcl([]mpi.Range{{First: 2, Last: 0, Stride: -2}}) // a's ranks 2 and 0
		must(t, err)
		cases = append(cases, groupCase{"a.RangeExcl(2..0 by -2)", down, []int{1}})

		for _, c := range cases {
			got := members(t, c.g)
			if !slices.Equal(got, c.want) || c.g.Size() != len(c.want) {
				t.Errorf("%s: members %v (size %d), want %v", c.name, got, c.g.Size(), c.want)
			}
			wantRank := slices.Index(c.want, rank)
			if wantRank < 0 {
				wantRank = mpi.Undefined
			}
			if c.g.Rank() != wantRank {
				t.Errorf("%s: world rank %d has rank %d, want %d", c.name, rank, c.g.Rank(), wantRank)
			}
			if !strings.Contains(c.g.String(), fmt.Sprintf("n=%d", len(c.want))) || c.g.Bytes() <= 0 {
				t.Errorf("%s: String() %q, Bytes() %d", c.name, c.g.String(), c.g.Bytes())
			}
		}
		if _, err := world.Excl([]int{4}); !errors.Is(err, mpi.ErrRank) {
			t.Errorf("Excl of rank 4 of 4: %v, want class ErrRank", err)
		}

		a2, err := world.Incl([]int{3, 1, 0})
		must(t, err)
		comparisons := []struct {
			name   string
			g1, g2 *mpi.Group
			want   mpi.Comparison
			str    string
		}{
			{"a, a built again", a, a2, mpi.Ident, "MPI_IDENT"},
			{"the intersections both ways", op(mpi.GroupIntersection, a, b), op(mpi.GroupIntersection, b, a), mpi.Similar, "MPI_SIMILAR"},
			{"Union(a, b), world", union, world, mpi.Similar, "MPI_SIMILAR"},
			{"a, b", a, b, mpi.Unequal, "MPI_UNEQUAL"},
			{"Difference(a, a), GroupEmpty", op(mpi.GroupDifference, a, a), mpi.GroupEmpty, mpi.Ident, "MPI_IDENT"},
		}
		for _, c := range comparisons {
			got, err := mpi.GroupCompare(c.g1, c.g2)
			must(t, err)
			if got != c.want || got.String() != c.str {
				t.Errorf("GroupCompare(%s) = %v, want %v", c.name, got, c.str)
			}
		}

		// A communicator of the union: world rank 3 is its rank 0, and so on.
		uc, err := mpi.World.Create(union)
		must(t, err)
		if uc.Rank() != union.Rank() || uc.Size() != 4 {
			t.Errorf("the union's communicator: rank %d of %d, want %d of 4", uc.Rank(), uc.Size(), union.Rank())
		}
		root := []int{rank}
		must(t, mpi.Bcast(uc, root, 0))
		if root[0] != 3 {
			t.Errorf("Bcast from rank 0 of the union's communicator came from world rank %d, want 3", root[0])
		}
		// A communicator of Difference(b, a): world rank 2 alone.
		dc, err := mpi.World.Create(op(mpi.GroupDifference, b, a))
		must(t, err)
		if (dc != nil) != (rank == 2) || (dc != nil && dc.Size() != 1) {
			t.Errorf("world rank %d: the communicator of Difference(b, a) is %v", rank, dc)
		}
		union.Free()
	})
}

// TestRemoteGroup: an intercommunicator's remote group is the other side, in its
// order; an intracommunicator has none.
func TestRemoteGroup(t *testing.T) {
	job(t, 4, func(t *testing.T, rank, size int) {
		// Side 0: world ranks 1, 0 (in that order); side 1: world ranks 2, 3.
		side, key := 0, -rank
		if rank >= 2 {
			side, key = 1, rank
		}
		local, err := mpi.World.Split(side, key)
		must(t, err)
		leader := map[int]int{0: 2, 1: 1}[side] // the other side's leader, in World
		ic, err := mpi.IntercommCreate(local, 0, mpi.World, leader, 5)
		must(t, err)
		want := map[int][]int{0: {2, 3}, 1: {1, 0}}[side]
		if got := members(t, ic.RemoteGroup()); !slices.Equal(got, want) {
			t.Errorf("side %d: remote group %v, want %v", side, got, want)
		}
		if got := members(t, ic.Group()); !slices.Equal(got, map[int][]int{0: {1, 0}, 1: {2, 3}}[side]) {
			t.Errorf("side %d: local group %v", side, got)
		}
		if g := mpi.World.RemoteGroup(); g != nil {
			t.Errorf("World's remote group: %v, want nil", g)
		}
	})
}
