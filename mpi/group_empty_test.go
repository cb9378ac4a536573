package mpi_test

import (
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// TestGroupConstructorsGiveGroupEmpty follows MPI 4.1 section 7.3.2: MPI_GROUP_INCL with
// n = 0 gives MPI_GROUP_EMPTY; MPI_GROUP_EXCL with n = 0 gives a group "identical to
// group"; of the set operations, "the new group can be empty, that is, equal to
// MPI_GROUP_EMPTY". So every constructor whose result has no member returns the handle
// GroupEmpty itself, and Excl of no rank returns its group.
func TestGroupConstructorsGiveGroupEmpty(t *testing.T) {
	job(t, 4, func(t *testing.T, rank, size int) {
		world := mpi.World.Group()
		low, err := world.Incl([]int{0, 1})
		must(t, err)
		high, err := world.Incl([]int{2, 3})
		must(t, err)
		try := func(g *mpi.Group, err error) *mpi.Group {
			t.Helper()
			must(t, err)
			return g
		}
		empty := map[string]*mpi.Group{
			"Incl([])":                      try(world.Incl(nil)),
			"Excl(every rank)":              try(world.Excl([]int{3, 1, 0, 2})),
			"RangeIncl([])":                 try(world.RangeIncl(nil)),
			"RangeExcl(every rank)":         try(world.RangeExcl([]mpi.Range{{First: 0, Last: 3, Stride: 1}})),
			"Intersection(disjoint)":        try(mpi.GroupIntersection(low, high)),
			"Intersection(g, GroupEmpty)":   try(mpi.GroupIntersection(low, mpi.GroupEmpty)),
			"Difference(g, g)":              try(mpi.GroupDifference(low, low)),
			"Difference(g, world)":          try(mpi.GroupDifference(low, world)),
			"Union(GroupEmpty, GroupEmpty)": try(mpi.GroupUnion(mpi.GroupEmpty, mpi.GroupEmpty)),
			"GroupEmpty.Excl([])":           try(mpi.GroupEmpty.Excl(nil)),
		}
		for name, g := range empty {
			if g != mpi.GroupEmpty {
				t.Errorf("%s = %v, want GroupEmpty itself", name, g)
			}
		}
		if g := try(low.Excl(nil)); g != low {
			t.Errorf("Excl([]) = %v, want its group itself", g)
		}
		if g := try(low.RangeExcl(nil)); g != low {
			t.Errorf("RangeExcl([]) = %v, want its group itself", g)
		}
		// A non-empty result is a group of its own.
		if g := try(mpi.GroupUnion(low, high)); g == mpi.GroupEmpty || g.Size() != 4 {
			t.Errorf("Union(low, high) = %v", g)
		}
		if mpi.GroupEmpty.Size() != 0 || mpi.GroupEmpty.Rank() != mpi.Undefined {
			t.Errorf("GroupEmpty: size %d, rank %d", mpi.GroupEmpty.Size(), mpi.GroupEmpty.Rank())
		}
	})
}
