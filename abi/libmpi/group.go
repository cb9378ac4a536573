package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
)

// Groups (MPI 4.1 section 7.3): handles of mpir's groups, which carry their owner (a
// session or the world model). A group call has no object of its own: its errors go
// to the handler of its groups' owner, a live session's, else MPI_COMM_SELF's
// (failOwned).

// grp is a group handle's object. MPI_GROUP_EMPTY has no entry.
type grp = mpir.Group

var groups = table[grp]{kind: kGroup}

// groupOf is the group of handle h, nil for a handle that is no group.
func groupOf(h uintptr) *mpir.Group {
	if h == hGroupEmpty {
		return mpir.EmptyGroup
	}
	return groups.get(h)
}

// newGroup is a new handle of g: MPI_GROUP_EMPTY for the empty group.
func newGroup(g *mpir.Group) uintptr {
	if g == mpir.EmptyGroup {
		return hGroupEmpty
	}
	return groups.add(g)
}

// groupOut stores in out a handle of g, which op computed from the groups hs, or
// raises err.
func groupOut(op string, g *mpir.Group, err error, out unsafe.Pointer, hs ...uintptr) int32 {
	if err != nil {
		return failOwned(op, err, hs...)
	}
	setHandle(out, newGroup(g))
	return 0
}

// failOwned raises err of op, a call with no object of its own, on the handler of the
// live session the first of the groups hs derives from, else on MPI_COMM_SELF's (the
// world model's default).
func failOwned(op string, err error, hs ...uintptr) int32 {
	for _, h := range hs {
		if s := mpir.LiveOwner(groupOf(h)); s != nil {
			x := s.Face.(*session)
			return failSession(op, x, x.h, err)
		}
	}
	return fail(op, 0, err)
}

func needGroup(op string, h uintptr) (*mpir.Group, int32) {
	g := groupOf(h)
	if g == nil {
		return nil, fail(op, 0, badHandle(op, "group", h, kGroup))
	}
	return g, 0
}

// construct is a constructor of op on group gh: f of the n entries of width C ints
// each at p (the argument what), its result stored in newgroup at out.
func construct(op string, gh uintptr, n int32, width int, what string, p, out unsafe.Pointer, f func(g *mpir.Group, v []int) (*mpir.Group, error)) int32 {
	g, r := needGroup(op, gh)
	if g == nil {
		return r
	}
	k, err := count(op, "n", n)
	if err != nil {
		return failOwned(op, err, gh)
	}
	v, err := intsIn(op, what, p, k*width)
	if err != nil {
		return failOwned(op, err, gh)
	}
	if out == nil {
		return failOwned(op, argErr(op, "newgroup is NULL"), gh)
	}
	ng, err := f(g, v)
	return groupOut(op, ng, err, out, gh)
}

//export PMPI_Comm_group
func PMPI_Comm_group(ch uintptr, out unsafe.Pointer) int32 {
	c, r := needComm("Comm_group", ch)
	if c == nil {
		return r
	}
	if out == nil {
		return fail("Comm_group", ch, argErr("Comm_group", "group is NULL"))
	}
	setHandle(out, newGroup(c.x.Group()))
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
	if out == nil {
		return fail("Comm_remote_group", ch, argErr("Comm_remote_group", "group is NULL"))
	}
	setHandle(out, newGroup(c.x.RemoteGroup()))
	return 0
}

//export PMPI_Group_size
func PMPI_Group_size(gh uintptr, size unsafe.Pointer) int32 {
	const op = "Group_size"
	g, r := needGroup(op, gh)
	if g == nil {
		return r
	}
	if size == nil {
		return failOwned(op, argErr(op, "size is NULL"), gh)
	}
	setInt(size, g.Size())
	return 0
}

//export PMPI_Group_rank
func PMPI_Group_rank(gh uintptr, rank unsafe.Pointer) int32 {
	const op = "Group_rank"
	g, r := needGroup(op, gh)
	if g == nil {
		return r
	}
	if rank == nil {
		return failOwned(op, argErr(op, "rank is NULL"), gh)
	}
	setInt(rank, g.Rank())
	return 0
}

//export PMPI_Group_incl
func PMPI_Group_incl(gh uintptr, n int32, ranks unsafe.Pointer, out unsafe.Pointer) int32 {
	const op = "Group_incl"
	return construct(op, gh, n, 1, "ranks", ranks, out, func(g *mpir.Group, v []int) (*mpir.Group, error) { return g.Incl(op, v) })
}

//export PMPI_Group_excl
func PMPI_Group_excl(gh uintptr, n int32, ranks unsafe.Pointer, out unsafe.Pointer) int32 {
	const op = "Group_excl"
	return construct(op, gh, n, 1, "ranks", ranks, out, func(g *mpir.Group, v []int) (*mpir.Group, error) { return g.Excl(op, v) })
}

// rangesIn is the triplets (first, last, stride) of C's int ranges[][3], read as ints.
func rangesIn(v []int) []mpir.Range {
	out := make([]mpir.Range, len(v)/3)
	for i := range out {
		out[i] = mpir.Range{First: v[3*i], Last: v[3*i+1], Stride: v[3*i+2]}
	}
	return out
}

//export PMPI_Group_range_incl
func PMPI_Group_range_incl(gh uintptr, n int32, rs unsafe.Pointer, out unsafe.Pointer) int32 {
	const op = "Group_range_incl"
	return construct(op, gh, n, 3, "ranges", rs, out, func(g *mpir.Group, v []int) (*mpir.Group, error) { return g.RangeIncl(op, rangesIn(v)) })
}

//export PMPI_Group_range_excl
func PMPI_Group_range_excl(gh uintptr, n int32, rs unsafe.Pointer, out unsafe.Pointer) int32 {
	const op = "Group_range_excl"
	return construct(op, gh, n, 3, "ranges", rs, out, func(g *mpir.Group, v []int) (*mpir.Group, error) { return g.RangeExcl(op, rangesIn(v)) })
}

// setop is a set operation f of op on the groups h1 and h2.
func setop(op string, h1, h2 uintptr, f func(op string, a, b *mpir.Group) (*mpir.Group, error), out unsafe.Pointer) int32 {
	g1, r := needGroup(op, h1)
	if g1 == nil {
		return r
	}
	g2, r := needGroup(op, h2)
	if g2 == nil {
		return r
	}
	if out == nil {
		return failOwned(op, argErr(op, "newgroup is NULL"), h1, h2)
	}
	ng, err := f(op, g1, g2)
	return groupOut(op, ng, err, out, h1, h2)
}

//export PMPI_Group_union
func PMPI_Group_union(h1, h2 uintptr, out unsafe.Pointer) int32 {
	return setop("Group_union", h1, h2, mpir.GroupUnion, out)
}

//export PMPI_Group_intersection
func PMPI_Group_intersection(h1, h2 uintptr, out unsafe.Pointer) int32 {
	return setop("Group_intersection", h1, h2, mpir.GroupIntersection, out)
}

//export PMPI_Group_difference
func PMPI_Group_difference(h1, h2 uintptr, out unsafe.Pointer) int32 {
	return setop("Group_difference", h1, h2, mpir.GroupDifference, out)
}

// comparisonOut is MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR or MPI_UNEQUAL for c.
func comparisonOut(c mpir.Comparison) int {
	return [...]int{mpir.Ident: C.MPI_IDENT, mpir.Congruent: C.MPI_CONGRUENT, mpir.Similar: C.MPI_SIMILAR, mpir.Unequal: C.MPI_UNEQUAL}[c]
}

//export PMPI_Group_compare
func PMPI_Group_compare(h1, h2 uintptr, result unsafe.Pointer) int32 {
	const op = "Group_compare"
	g1, r := needGroup(op, h1)
	if g1 == nil {
		return r
	}
	g2, r := needGroup(op, h2)
	if g2 == nil {
		return r
	}
	if result == nil {
		return failOwned(op, argErr(op, "result is NULL"), h1, h2)
	}
	cmp, err := mpir.GroupCompare(op, g1, g2)
	if err != nil {
		return failOwned(op, err, h1, h2)
	}
	setInt(result, comparisonOut(cmp))
	return 0
}

//export PMPI_Group_translate_ranks
func PMPI_Group_translate_ranks(h1 uintptr, n int32, r1 unsafe.Pointer, h2 uintptr, r2 unsafe.Pointer) int32 {
	const op = "Group_translate_ranks"
	g1, r := needGroup(op, h1)
	if g1 == nil {
		return r
	}
	g2, r := needGroup(op, h2)
	if g2 == nil {
		return r
	}
	in, err := translateArgs(op, n, r1, r2)
	if err != nil {
		return failOwned(op, err, h1, h2)
	}
	out, err := mpir.TranslateRanks(op, g1, in, g2)
	if err != nil {
		return failOwned(op, err, h1, h2)
	}
	dst := ints(r2, len(out))
	for i, v := range out {
		if v == core.Undefined {
			dst[i] = C.MPI_UNDEFINED
		} else {
			dst[i] = rankOut(v)
		}
	}
	return 0
}

// translateArgs converts MPI_Group_translate_ranks's n ranks at r1 (the output r2
// must hold as many): MPI_PROC_NULL to the device's, every other negative value to one
// that is no rank either, whatever the device numbers its sentinels.
func translateArgs(op string, n int32, r1, r2 unsafe.Pointer) ([]int, error) {
	k, err := count(op, "n", n)
	if err != nil {
		return nil, err
	}
	in, err := intsIn(op, "ranks1", r1, k)
	if err != nil {
		return nil, err
	}
	if r2 == nil && k > 0 {
		return nil, argErr(op, "ranks2 is NULL")
	}
	for i, v := range in {
		switch {
		case v == C.MPI_PROC_NULL:
			in[i] = core.ProcNull
		case v < 0:
			in[i] = -1 << 31
		}
	}
	return in, nil
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
		groupFreed()
	}
	setHandle(p, hGroupNull)
	return 0
}
