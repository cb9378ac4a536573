package group

import (
	"fmt"
	"slices"
	"sort"
)

// Range is a triplet (first rank, last rank, stride) of MPI_Group_range_incl and
// MPI_Group_range_excl: the ranks First, First+Stride, ... up to Last. Stride may be
// negative (then First >= Last) but not zero.
type Range struct{ First, Last, Stride int }

func (r Range) String() string { return fmt.Sprintf("{%d,%d,%d}", r.First, r.Last, r.Stride) }

// empty is an empty group that keeps g's policy.
func (g *Group) empty() *Group {
	return &Group{kind: KindStride, step: 1, policy: g.policy, sorted: true}
}

// Incl returns the group of g's members ranks[0], ranks[1], ... in that order
// (MPI_Group_incl). Each rank must be in [0, Size()) and appear once.
func (g *Group) Incl(ranks []int) (*Group, error) {
	const op = "Incl"
	if g == nil {
		return nil, nilGroup(op, "group")
	}
	if _, err := checkRanks(op, ranks, g.n); err != nil {
		return nil, err
	}
	if len(ranks) == 0 {
		return g.empty(), nil
	}
	return build(g.policy, func(yield func(int32) bool) {
		for _, r := range ranks {
			if !yield(g.WorldRank(r)) {
				return
			}
		}
	}), nil
}

// Excl returns g without the members of the given ranks, in g's order
// (MPI_Group_excl). Each rank must be in [0, Size()) and appear once.
func (g *Group) Excl(ranks []int) (*Group, error) {
	const op = "Excl"
	if g == nil {
		return nil, nilGroup(op, "group")
	}
	sorted, err := checkRanks(op, ranks, g.n)
	if err != nil {
		return nil, err
	}
	if len(ranks) == 0 {
		return g, nil
	}
	return build(g.policy, func(yield func(int32) bool) {
		i, next := 0, 0
		g.each(func(w int32) bool {
			if next < len(sorted) && sorted[next] == i {
				next++
				i++
				return true
			}
			i++
			return yield(w)
		})
	}), nil
}

// checkRanks validates a rank list against a group of n members and returns the
// ranks sorted. Sorting a copy, rather than marking a bit per member, keeps the
// check's memory proportional to the list, not to the group.
func checkRanks(op string, ranks []int, n int32) ([]int, error) {
	for i, r := range ranks {
		if r < 0 || r >= int(n) {
			return nil, errorf(ErrRank, op, "ranks[%d] = %d out of range [0,%d)", i, r, n)
		}
	}
	sorted := slices.Clone(ranks)
	slices.Sort(sorted)
	for k := 1; k < len(sorted); k++ {
		if sorted[k] == sorted[k-1] {
			r := sorted[k]
			first := slices.Index(ranks, r)
			again := first + 1 + slices.Index(ranks[first+1:], r)
			return nil, errorf(ErrRank, op, "ranks[%d] = %d repeats ranks[%d]", again, r, first)
		}
	}
	return sorted, nil
}

// span is a validated range: count ranks from first by stride.
type span struct {
	first, stride, count int64
}

func (s span) lo() int64 { return min(s.first, s.first+(s.count-1)*s.stride) }
func (s span) hi() int64 { return max(s.first, s.first+(s.count-1)*s.stride) }

func (s span) has(r int64) bool {
	d := r - s.first
	if d%s.stride != 0 {
		return false
	}
	k := d / s.stride
	return k >= 0 && k < s.count
}

// checkRanges validates triplets against a group of n members under MPI's rules
// (MPICH's checks): First in range, Stride nonzero, Stride pointing from First to
// Last, every computed rank in range, and no rank computed twice.
func checkRanges(op string, ranges []Range, n int32) ([]span, error) {
	spans := make([]span, len(ranges))
	var total int64
	for i, r := range ranges {
		if r.First < 0 || r.First >= int(n) {
			return nil, errorf(ErrRank, op, "ranges[%d].First = %d out of range [0,%d)", i, r.First, n)
		}
		if r.Stride == 0 {
			return nil, errorf(ErrArg, op, "ranges[%d] = %v: Stride is zero", i, r)
		}
		if r.Stride > 0 && r.First > r.Last {
			return nil, errorf(ErrArg, op, "ranges[%d] = %v: First > Last needs a negative Stride", i, r)
		}
		if r.Stride < 0 && r.First < r.Last {
			return nil, errorf(ErrArg, op, "ranges[%d] = %v: First < Last needs a positive Stride", i, r)
		}
		// Distances in uint64: Last and Stride may be anything an int holds.
		var diff, abs uint64
		first := uint64(r.First)
		if r.Stride > 0 {
			diff, abs = uint64(r.Last)-first, uint64(r.Stride)
		} else {
			diff, abs = first-uint64(r.Last), -uint64(r.Stride)
		}
		q := diff / abs
		reach := q * abs // distance from First to the last computed rank
		if r.Stride > 0 && reach >= uint64(n)-first {
			k := (uint64(n) - first + abs - 1) / abs
			return nil, errorf(ErrRank, op, "ranges[%d] = %v: computed rank %d out of range [0,%d)",
				i, r, r.First+int(k*abs), n)
		}
		if r.Stride < 0 && reach > first {
			k := first/abs + 1
			return nil, errorf(ErrRank, op, "ranges[%d] = %v: computed rank %d out of range [0,%d)",
				i, r, r.First-int(k*abs), n)
		}
		spans[i] = span{first: int64(r.First), stride: int64(r.Stride), count: int64(q) + 1}
		if q == 0 {
			spans[i].stride = 1
		}
		total += spans[i].count
	}
	if len(spans) < 2 {
		return spans, nil
	}
	// Triplets whose spans do not overlap cannot repeat a rank; only otherwise mark
	// every computed rank, which costs a bit per member for the moment of the check.
	byLo := make([]int, len(spans))
	for i := range byLo {
		byLo[i] = i
	}
	sort.Slice(byLo, func(a, b int) bool { return spans[byLo[a]].lo() < spans[byLo[b]].lo() })
	overlap := false
	for k := 1; k < len(byLo) && !overlap; k++ {
		overlap = spans[byLo[k-1]].hi() >= spans[byLo[k]].lo()
	}
	if !overlap && total <= int64(n) {
		return spans, nil
	}
	seen := make([]uint64, (int(n)+63)/64)
	for i, s := range spans {
		for k, r := int64(0), s.first; k < s.count; k, r = k+1, r+s.stride {
			if seen[r>>6]&(1<<(r&63)) != 0 {
				j := 0
				for !spans[j].has(r) {
					j++
				}
				return nil, errorf(ErrRank, op, "ranges[%d] = %v: computed rank %d also comes from ranges[%d] = %v",
					i, ranges[i], r, j, ranges[j])
			}
			seen[r>>6] |= 1 << (r & 63)
		}
	}
	return spans, nil
}

// RangeIncl returns the group of g's members at the ranks the triplets compute, in
// that order (MPI_Group_range_incl).
func (g *Group) RangeIncl(ranges []Range) (*Group, error) {
	const op = "RangeIncl"
	if g == nil {
		return nil, nilGroup(op, "group")
	}
	spans, err := checkRanges(op, ranges, g.n)
	if err != nil {
		return nil, err
	}
	if len(spans) == 0 {
		return g.empty(), nil
	}
	// A stride of a stride is a stride over the world: O(1), whatever the size.
	if s := spans[0]; len(spans) == 1 && g.ext == nil && (g.policy == Sparse || g.policy == PreferStride) {
		step := int32(1)
		if s.count > 1 {
			step = g.step * int32(s.stride)
		}
		return &Group{n: int32(s.count), kind: KindStride, policy: g.policy,
			first: g.first + int32(s.first)*g.step, step: step, sorted: step > 0}, nil
	}
	return build(g.policy, func(yield func(int32) bool) {
		for _, s := range spans {
			for k, r := int64(0), s.first; k < s.count; k, r = k+1, r+s.stride {
				if !yield(g.WorldRank(int(r))) {
					return
				}
			}
		}
	}), nil
}

// RangeExcl returns g without the members at the ranks the triplets compute, in g's
// order (MPI_Group_range_excl).
func (g *Group) RangeExcl(ranges []Range) (*Group, error) {
	const op = "RangeExcl"
	if g == nil {
		return nil, nilGroup(op, "group")
	}
	spans, err := checkRanges(op, ranges, g.n)
	if err != nil {
		return nil, err
	}
	if len(spans) == 0 {
		return g, nil
	}
	out := make([]uint64, (int(g.n)+63)/64)
	for _, s := range spans {
		for k, r := int64(0), s.first; k < s.count; k, r = k+1, r+s.stride {
			out[r>>6] |= 1 << (r & 63)
		}
	}
	return build(g.policy, func(yield func(int32) bool) {
		i := 0
		g.each(func(w int32) bool {
			skip := out[i>>6]&(1<<(i&63)) != 0
			i++
			return skip || yield(w)
		})
	}), nil
}

// Union returns g1's members followed by g2's members not in g1 (MPI_Group_union).
// The result takes g1's Storage.
func Union(g1, g2 *Group) (*Group, error) {
	if g1 == nil {
		return nil, nilGroup("Union", "g1")
	}
	if g2 == nil {
		return nil, nilGroup("Union", "g2")
	}
	if g1 == g2 || g2.n == 0 {
		return g1, nil
	}
	return build(g1.policy, func(yield func(int32) bool) {
		stopped := false
		g1.each(func(w int32) bool {
			stopped = !yield(w)
			return !stopped
		})
		if stopped {
			return
		}
		g2.each(func(w int32) bool { return g1.Rank(w) != Undefined || yield(w) })
	}), nil
}

// Intersection returns g1's members that are also in g2, in g1's order
// (MPI_Group_intersection).
func Intersection(g1, g2 *Group) (*Group, error) {
	if g1 == nil {
		return nil, nilGroup("Intersection", "g1")
	}
	if g2 == nil {
		return nil, nilGroup("Intersection", "g2")
	}
	if g1 == g2 {
		return g1, nil
	}
	return build(g1.policy, func(yield func(int32) bool) {
		g1.each(func(w int32) bool { return g2.Rank(w) == Undefined || yield(w) })
	}), nil
}

// Difference returns g1's members that are not in g2, in g1's order
// (MPI_Group_difference).
func Difference(g1, g2 *Group) (*Group, error) {
	if g1 == nil {
		return nil, nilGroup("Difference", "g1")
	}
	if g2 == nil {
		return nil, nilGroup("Difference", "g2")
	}
	if g2.n == 0 {
		return g1, nil
	}
	return build(g1.policy, func(yield func(int32) bool) {
		g1.each(func(w int32) bool { return g2.Rank(w) != Undefined || yield(w) })
	}), nil
}

// Compare reports whether g1 and g2 have the same members in the same order (Ident),
// the same members in another order (Similar), or not (Unequal) (MPI_Group_compare).
func Compare(g1, g2 *Group) (Comparison, error) {
	if g1 == nil {
		return Unequal, nilGroup("Compare", "g1")
	}
	if g2 == nil {
		return Unequal, nilGroup("Compare", "g2")
	}
	if g1 == g2 {
		return Ident, nil
	}
	if g1.n != g2.n {
		return Unequal, nil
	}
	if g1.ext == nil && g2.ext == nil && (g1.n <= 1 || g1.step == g2.step) {
		if g1.n == 0 || g1.first == g2.first {
			return Ident, nil
		}
		if g1.n == 1 {
			return Unequal, nil
		}
	}
	same := true
	i := 0
	g1.each(func(w int32) bool {
		same = g2.WorldRank(i) == w
		i++
		return same
	})
	if same {
		return Ident, nil
	}
	// Same size and every member of g1 in g2: members are distinct, so the sets match.
	in := true
	g1.each(func(w int32) bool {
		in = g2.Rank(w) != Undefined
		return in
	})
	if in {
		return Similar, nil
	}
	return Unequal, nil
}

// TranslateRanks returns, for each rank of g1 in ranks, the rank of the same process
// in g2, or Undefined when it is not a member (MPI_Group_translate_ranks). ProcNull
// translates to ProcNull.
func TranslateRanks(g1 *Group, ranks []int, g2 *Group) ([]int, error) {
	const op = "TranslateRanks"
	if g1 == nil {
		return nil, nilGroup(op, "g1")
	}
	if g2 == nil {
		return nil, nilGroup(op, "g2")
	}
	out := make([]int, len(ranks))
	for i, r := range ranks {
		switch {
		case r == ProcNull:
			out[i] = ProcNull
		case r < 0 || r >= int(g1.n):
			return nil, errorf(ErrRank, op, "ranks[%d] = %d out of range [0,%d)", i, r, g1.n)
		case g1 == g2:
			out[i] = r
		default:
			out[i] = g2.Rank(g1.WorldRank(r))
		}
	}
	return out, nil
}
