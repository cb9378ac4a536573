package group

import (
	"cmp"
	"math/bits"
	"slices"
	"sync/atomic"
	"unsafe"
)

// denseStore holds one world rank per member.
type denseStore struct {
	ranks []int32
	// index answers reverse lookups. It is built at the first reverse lookup, so a
	// group never asked costs 4 bytes per member and nothing more.
	index atomic.Pointer[revIndex]
}

// revIndex maps world ranks back to group ranks for a dense group. When the members
// are dense enough in their span (at least one in 32 world ranks), a bitmap over the
// span with block counts gives the member's position among the members in O(1),
// and perm turns that position into the group rank (nil when members ascend): at
// most 4 bytes per member for the bitmap plus 4 for perm. Sparser groups keep only
// perm sorted by world rank and search it.
type revIndex struct {
	lo   int32
	bm   *bitmapStore // nil for sparse groups
	perm []int32
}

func (x *revIndex) bytes() int {
	if x == nil {
		return 0
	}
	b := int(unsafe.Sizeof(*x)) + 4*cap(x.perm)
	if x.bm != nil {
		b += int(unsafe.Sizeof(*x.bm)) + 8*cap(x.bm.words) + 4*cap(x.bm.blk)
	}
	return b
}

func (s *denseStore) rank(w int32, sorted bool) int32 {
	x := s.index.Load()
	if x == nil {
		x = s.buildIndex(sorted)
	}
	if x.bm != nil {
		k := x.bm.rank(w - x.lo)
		if k < 0 || x.perm == nil {
			return k
		}
		return x.perm[k]
	}
	if x.perm == nil {
		i, ok := slices.BinarySearch(s.ranks, w)
		if !ok {
			return -1
		}
		return int32(i)
	}
	p := x.perm
	lo, hi := 0, len(p) // the first position whose world rank is >= w
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if s.ranks[p[mid]] < w {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == len(p) || s.ranks[p[lo]] != w {
		return -1
	}
	return p[lo]
}

func (s *denseStore) buildIndex(sorted bool) *revIndex {
	x := &revIndex{}
	lo, hi := slices.Min(s.ranks), slices.Max(s.ranks)
	span := int64(hi) - int64(lo) + 1
	n := int64(len(s.ranks))
	if span <= 32*n {
		x.lo = lo
		words := sized[uint64](int((span + 63) / 64))
		for _, w := range s.ranks {
			b := w - lo
			words[b>>6] |= 1 << (b & 63)
		}
		blk := sized[int32]((len(words) + 7) / 8)
		var c int32
		for k := range blk {
			blk[k] = c
			for _, v := range words[k*8 : min(k*8+8, len(words))] {
				c += int32(bits.OnesCount64(v))
			}
		}
		x.bm = &bitmapStore{words: words, blk: blk, nbits: int32(span)}
		if !sorted {
			x.perm = sized[int32](len(s.ranks))
			for i, w := range s.ranks {
				x.perm[x.bm.rank(w-lo)] = int32(i)
			}
		}
	} else if !sorted {
		x.perm = sized[int32](len(s.ranks))
		for i := range x.perm {
			x.perm[i] = int32(i)
		}
		slices.SortFunc(x.perm, func(a, b int32) int { return cmp.Compare(s.ranks[a], s.ranks[b]) })
	}
	// Two goroutines may build at once; the indexes are equal, keep the first stored.
	if s.index.CompareAndSwap(nil, x) {
		return x
	}
	return s.index.Load()
}
