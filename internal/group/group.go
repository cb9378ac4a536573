// Package group implements MPI process groups: ordered sets of processes named by
// their world rank, with the whole MPI group API (Incl, Excl, RangeIncl, RangeExcl,
// Union, Intersection, Difference, Compare, TranslateRanks).
//
// Each group stores its members in the smallest of four forms, chosen when the group
// is built:
//
//   - stride: first + (i/block)*step + i%block, with no per-member memory. The world,
//     every k-th rank, a half, a reversed range and "the first b ranks of every node"
//     all take this form.
//   - range: runs of (first, step, count), 8 bytes per run when every step is 1 and
//     12 otherwise. Lookups are binary searches over the runs (O(log runs)), started
//     from a sample column when there are more than 16 runs, so that only a few runs
//     remain to search.
//   - bitmap: one bit per world rank between the lowest and highest member (members
//     in ascending order only), with the count of members before every 512-bit block
//     (world rank to rank: a few popcounts, O(1)) and the position of every 2^k-th
//     member, k chosen so that samples are about four words apart (rank to world
//     rank: a short scan from the sample, bounded by a fall-back through the counts).
//   - dense: one int32 per member. A reverse index is built at the first reverse
//     lookup: a bitmap with counts over the members' span (O(1)) when they are dense
//     enough in it, else a sorted permutation (O(log n)).
//
// Unlike Open MPI's sparse groups (seed 000), which describe a group relative to the
// group it came from and climb that chain of parents on every lookup, every group here
// is expressed directly over world ranks: a derived group composes its parent's
// mapping when it is built. A lookup therefore never walks a chain, its cost depends
// only on the group's own form, and a parent can be garbage-collected while its
// children live on. Groups are immutable and safe for concurrent use.
//
// The setting group_storage (MPIGO_GROUP_STORAGE) chooses between "sparse" (the
// default: smallest form) and "dense" (one int32 per member for every group, the way
// Open MPI and MPICH store groups by default). NewWorld takes an explicit Storage for
// tests and benchmarks, and a group passes its Storage on to the groups derived from it.
//
// World ranks are int32 process identities. When dynamic processes arrive, the
// identity space becomes the universe (world ranks first, then spawned or connected
// processes appended), and groups over it need no change.
package group

import (
	"fmt"
	"iter"
	"math"
	"strings"
	"unsafe"

	"github.com/mpigo/mpigo/internal/config"
)

// Values shared with the MPI layer, numerically those of MPICH.
const (
	// Undefined is the rank of a process that is not in a group (MPI_UNDEFINED).
	Undefined = -32766
	// ProcNull is the null process (MPI_PROC_NULL); TranslateRanks passes it through.
	ProcNull = -1
)

// Comparison is the result of Compare.
type Comparison int

const (
	Ident   Comparison = iota // same members in the same order (MPI_IDENT)
	Similar                   // same members in another order (MPI_SIMILAR)
	Unequal                   // different members (MPI_UNEQUAL)
)

func (c Comparison) String() string {
	switch c {
	case Ident:
		return "ident"
	case Similar:
		return "similar"
	case Unequal:
		return "unequal"
	}
	return fmt.Sprintf("Comparison(%d)", int(c))
}

// Kind is the form a group's members are stored in.
type Kind uint8

const (
	KindStride Kind = iota // first + (i/block)*step + i%block
	KindRange              // runs of (first, step, count)
	KindBitmap             // a bit per world rank in [min, max]
	KindDense              // an int32 per member
	numKinds
)

func (k Kind) String() string {
	switch k {
	case KindStride:
		return "stride"
	case KindRange:
		return "range"
	case KindBitmap:
		return "bitmap"
	case KindDense:
		return "dense"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Storage is the policy that chooses a group's Kind.
type Storage uint8

const (
	// Sparse takes the smallest form that holds the members (ties go to the faster
	// form: stride, range, bitmap, dense).
	Sparse Storage = iota
	// Dense stores one int32 per member, always.
	Dense
	// PreferStride, PreferRange and PreferBitmap take that form whenever it can hold
	// the members and the smallest form otherwise. They exist to exercise every form
	// in tests and benchmarks.
	PreferStride
	PreferRange
	PreferBitmap
)

func (s Storage) String() string {
	switch s {
	case Sparse:
		return "sparse"
	case Dense:
		return "dense"
	case PreferStride:
		return "prefer-stride"
	case PreferRange:
		return "prefer-range"
	case PreferBitmap:
		return "prefer-bitmap"
	}
	return fmt.Sprintf("Storage(%d)", int(s))
}

var storage = config.String("group_storage", "sparse",
	"how groups store their members: sparse (the smallest of stride, range, bitmap "+
		"or dense, per group) or dense (one int32 per member, like Open MPI and MPICH)").OneOf("sparse", "dense").Live()

// DefaultStorage is the Storage named by the group_storage setting
// (MPIGO_GROUP_STORAGE). An unknown value gives Sparse and an error naming the
// setting and the values it accepts.
func DefaultStorage() (Storage, error) { return parseStorage(storage.Get()) }

func parseStorage(v string) (Storage, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "sparse", "":
		return Sparse, nil
	case "dense":
		return Dense, nil
	}
	return Sparse, fmt.Errorf("setting group_storage = %q, want sparse or dense", v)
}

// Group is an ordered set of processes, named by world rank. The zero value is not a
// valid group; use World, NewWorld, Empty or an operation on another group. A nil
// *Group stands for MPI_GROUP_NULL: operations on it return an error.
type Group struct {
	n      int32
	kind   Kind
	policy Storage
	sorted bool  // members ascend in world rank
	first  int32 // stride: world rank of member 0; bitmap: world rank of bit 0
	step   int32 // stride: distance between blocks
	ext    any   // nil for a plain stride; else *blockStore, *runStore, *bitmapStore or *denseStore
}

// blockStore is the block length of a stride group whose blocks hold more than one rank.
type blockStore struct {
	block int32
	_     int32 // the allocator's smallest block is 8 bytes; say so in Bytes
}

var emptyGroup = &Group{kind: KindStride, step: 1, sorted: true}

// Empty returns the group with no members (MPI_GROUP_EMPTY).
func Empty() *Group { return emptyGroup }

// World returns the group of world ranks 0..n-1 in the storage named by the
// group_storage setting. Under sparse storage it costs one small struct whatever n is.
func World(n int) (*Group, error) {
	s, _ := DefaultStorage() // an unknown setting falls back to sparse; the launcher reports it
	return NewWorld(n, s)
}

// NewWorld is World with an explicit Storage.
func NewWorld(n int, s Storage) (*Group, error) {
	if n < 0 || n > math.MaxInt32 {
		return nil, errorf(ErrArg, "World", "n = %d out of range [0,%d]", n, math.MaxInt32)
	}
	if s > PreferBitmap {
		return nil, errorf(ErrArg, "World", "storage = %d is not a Storage", int(s))
	}
	g := &Group{n: int32(n), kind: KindStride, step: 1, policy: s, sorted: true}
	if s == Dense || s == PreferBitmap || s == PreferRange {
		return g.WithStorage(s), nil
	}
	return g, nil
}

// Size is the number of members (MPI_Group_size).
func (g *Group) Size() int {
	if g == nil {
		return 0
	}
	return int(g.n)
}

// Kind is the form the members are stored in.
func (g *Group) Kind() Kind {
	if g == nil {
		return KindDense
	}
	return g.kind
}

// Storage is the policy the group was built with, which derived groups inherit.
func (g *Group) Storage() Storage {
	if g == nil {
		return Sparse
	}
	return g.policy
}

// Free releases the group (MPI_Group_free). Go's collector owns the memory, so this
// does nothing; it exists so that code written against MPI reads naturally.
func (g *Group) Free() {}

// WorldRank returns the world rank of member i, or Undefined when i is not in
// [0, Size()). This is the lookup point-to-point does for every message; it never
// walks a chain of groups.
func (g *Group) WorldRank(i int) int32 {
	// The plain stride (the world, every k-th rank, a range) is answered before the
	// type switch. (The function is just over the inliner's budget with the nil
	// check; the call costs about a nanosecond.)
	if g != nil && g.ext == nil && uint(i) < uint(g.n) {
		return g.first + int32(i)*g.step
	}
	return g.worldRank(i)
}

func (g *Group) worldRank(j int) int32 {
	if g == nil || uint(j) >= uint(g.n) {
		return Undefined
	}
	i := int32(j)
	switch s := g.ext.(type) {
	case *denseStore:
		return s.ranks[i]
	case *blockStore:
		return g.first + (i/s.block)*g.step + i%s.block
	case *runStore:
		return s.worldRank(i, g.n)
	case *bitmapStore:
		return g.first + s.selectBit(i)
	}
	return g.first + i*g.step
}

// Rank returns the rank in g of the process with world rank w, or Undefined when it
// is not a member (MPI_Group_rank answers this for the calling process).
func (g *Group) Rank(w int32) int {
	if g == nil || g.n == 0 || w < 0 {
		return Undefined
	}
	var r int32
	switch s := g.ext.(type) {
	case nil:
		r = strideRank(w-g.first, g.step, 1, g.n)
	case *blockStore:
		r = strideRank(w-g.first, g.step, s.block, g.n)
	case *runStore:
		r = s.rank(w, g.n)
	case *bitmapStore:
		r = s.rank(w - g.first)
	case *denseStore:
		r = s.rank(w, g.sorted)
	}
	if r < 0 {
		return Undefined
	}
	return int(r)
}

// strideRank inverts w = first + (i/block)*step + i%block, given d = w - first: the
// remainder of d modulo |step| is the offset in a block and the quotient the block.
// Blocks never overlap (members are distinct), so |step| >= block.
func strideRank(d, step, block, n int32) int32 {
	s := int64(step)
	if s < 0 {
		s = -s
	}
	r := int64(d) % s
	if r < 0 {
		r += s
	}
	if r >= int64(block) {
		return -1
	}
	q := (int64(d) - r) / int64(step)
	if q < 0 {
		return -1
	}
	i := q*int64(block) + r
	if i >= int64(n) {
		return -1
	}
	return int32(i)
}

// All iterates over the members in rank order, yielding each rank and world rank. It
// walks the storage directly, cheaper than calling WorldRank for every rank.
func (g *Group) All() iter.Seq2[int, int32] {
	return func(yield func(int, int32) bool) {
		i := 0
		g.each(func(w int32) bool {
			ok := yield(i, w)
			i++
			return ok
		})
	}
}

// each calls f with the world rank of every member in order until f returns false.
func (g *Group) each(f func(int32) bool) {
	if g == nil || g.n == 0 {
		return
	}
	switch s := g.ext.(type) {
	case nil:
		for i, w := int32(0), g.first; i < g.n; i, w = i+1, w+g.step {
			if !f(w) {
				return
			}
		}
	case *blockStore:
		for i := int32(0); i < g.n; i++ {
			if !f(g.first + (i/s.block)*g.step + i%s.block) {
				return
			}
		}
	case *runStore:
		s.each(g.n, f)
	case *bitmapStore:
		s.each(g.first, f)
	case *denseStore:
		for _, w := range s.ranks {
			if !f(w) {
				return
			}
		}
	}
}

// Bytes is the memory the group holds: its struct and every slice it owns (capacity,
// not length), including a reverse index once built. The allocator rounds each block
// up to its size class; see TestBytesMatchHeap for the cross-check.
func (g *Group) Bytes() int {
	if g == nil {
		return 0
	}
	b := int(unsafe.Sizeof(*g))
	switch s := g.ext.(type) {
	case *blockStore:
		b += int(unsafe.Sizeof(*s))
	case *runStore:
		b += int(unsafe.Sizeof(*s)) + 4*cap(s.r)
	case *bitmapStore:
		b += int(unsafe.Sizeof(*s)) + 8*cap(s.words) + 4*cap(s.blk) + 4*cap(s.pos)
	case *denseStore:
		b += int(unsafe.Sizeof(*s)) + 4*cap(s.ranks) + s.index.Load().bytes()
	}
	return b
}

// String describes the group's form and size, not its members.
func (g *Group) String() string {
	if g == nil {
		return "group(null)"
	}
	switch s := g.ext.(type) {
	case nil:
		return fmt.Sprintf("group(stride n=%d first=%d step=%d)", g.n, g.first, g.step)
	case *blockStore:
		return fmt.Sprintf("group(stride n=%d first=%d step=%d block=%d)", g.n, g.first, g.step, s.block)
	case *runStore:
		return fmt.Sprintf("group(range n=%d runs=%d)", g.n, s.nruns())
	case *bitmapStore:
		return fmt.Sprintf("group(bitmap n=%d base=%d bits=%d)", g.n, g.first, s.nbits)
	}
	return fmt.Sprintf("group(dense n=%d)", g.n)
}

// Block is the block length of a stride group (1 for a plain stride) and 0 for other kinds.
func (g *Group) Block() int {
	if g == nil {
		return 0
	}
	switch s := g.ext.(type) {
	case nil:
		return 1
	case *blockStore:
		return int(s.block)
	}
	return 0
}
