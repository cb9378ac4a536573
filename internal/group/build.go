package group

import (
	"math"
	"slices"
	"unsafe"
)

// A source calls yield with the world rank of every member of a new group, in rank
// order, and stops early if yield returns false. Groups are built in two passes over
// their source, one to price every form and one to fill the chosen form, so that no
// list of members is ever materialised: building a stride group of 2^20 ranks
// allocates 32 bytes.
type source func(yield func(int32) bool)

// form is a candidate storage; two of them (unit and strided runs) share KindRange.
type form uint8

const (
	formStride form = iota
	formRunsUnit
	formRunsStrided
	formBitmap
	formDense
	numForms
)

var formKind = [numForms]Kind{KindStride, KindRange, KindRange, KindBitmap, KindDense}

// shape is what the first pass learns about the members: enough to price each form.
type shape struct {
	n      int64
	sorted bool
	lo, hi int32
	prev   int32

	// Stride candidate: member i = first + (i/block)*step + i%block. The block length
	// is that of the first run of consecutive ranks; step is the distance from the
	// first member to the first rank after that run.
	first, step, block int32
	regular            bool
	inFirst            bool

	unit, strided runCounter
}

// runCounter cuts a sequence greedily into runs: an arithmetic progression grows
// while the next rank continues it. In unit mode every step is 1.
type runCounter struct {
	unit               bool
	first, step, count int32
	runs               int64
}

// add takes the next rank and reports whether it starts a new run.
func (c *runCounter) add(w int32) bool {
	if c.count > 0 {
		if c.count == 1 && !c.unit {
			c.step, c.count = w-c.first, 2
			return false
		}
		if int64(c.first)+int64(c.count)*int64(c.step) == int64(w) {
			c.count++
			return false
		}
	}
	c.first, c.step, c.count = w, 1, 1
	c.runs++
	return true
}

func (s *shape) add(w int32) {
	i := s.n
	if i == 0 {
		s.first, s.lo, s.hi = w, w, w
		s.sorted, s.regular, s.inFirst = true, true, true
	} else {
		if w < s.prev {
			s.sorted = false
		}
		s.lo, s.hi = min(s.lo, w), max(s.hi, w)
		if s.regular {
			switch {
			case s.inFirst:
				if int64(w) != int64(s.prev)+1 {
					s.inFirst = false
					s.block, s.step = int32(i), w-s.first
					// Blocks closer than their length would overlap; members are
					// distinct, so only a last partial block could fit, and the
					// reverse lookup's arithmetic needs |step| >= block.
					if abs32(s.step) < s.block {
						s.regular = false
					}
				}
			case int64(s.first)+(i/int64(s.block))*int64(s.step)+i%int64(s.block) != int64(w):
				s.regular = false
			}
		}
	}
	s.unit.add(w)
	s.strided.add(w)
	s.prev = w
	s.n++
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

const (
	blockBits   = 512 // bits per rank-index block of a bitmap
	maxScanRuns = 8   // interleaved runs beyond this are not worth a linear scan
)

var (
	sizeRunStore    = int64(unsafe.Sizeof(runStore{}))
	sizeBitmapStore = int64(unsafe.Sizeof(bitmapStore{}))
	sizeDenseStore  = int64(unsafe.Sizeof(denseStore{}))
	sizeBlockStore  = int64(unsafe.Sizeof(blockStore{}))
)

// cost is the number of bytes form f would take beyond the Group struct, or -1 when
// f cannot hold the members. It uses the same sizes as Bytes.
func (s *shape) cost(f form) int64 {
	switch f {
	case formStride:
		if !s.regular {
			return -1
		}
		if s.inFirst || s.block == 1 {
			return 0
		}
		return sizeBlockStore
	case formRunsUnit, formRunsStrided:
		runs, per := s.unit.runs, int64(8)
		if f == formRunsStrided {
			runs, per = s.strided.runs, 12
		}
		c := sizeRunStore + runsCost(s.n, runs, per)
		if !s.sorted {
			c += 8 * runs // order and low columns
		}
		return c
	case formBitmap:
		nbits := int64(s.hi) - int64(s.lo) + 1
		if !s.sorted || nbits > math.MaxInt32 {
			return -1
		}
		words := (nbits + 63) / 64
		blocks := (words + 7) / 8
		return sizeBitmapStore + 8*words + 4*blocks + 4*(((s.n-1)>>bitmapShift(s.n, nbits))+1)
	case formDense:
		return sizeDenseStore + 4*s.n
	}
	return -1
}

// choose picks a form under policy p, skipping those in bad.
func (s *shape) choose(p Storage, bad *[numForms]bool) form {
	if p == Dense {
		return formDense
	}
	var prefer form = numForms
	switch p {
	case PreferStride:
		prefer = formStride
	case PreferRange:
		prefer = formRunsStrided
		if c, d := s.cost(formRunsUnit), s.cost(formRunsStrided); c <= d {
			prefer = formRunsUnit
		}
	case PreferBitmap:
		prefer = formBitmap
	}
	if prefer < numForms && !bad[prefer] && s.cost(prefer) >= 0 {
		return prefer
	}
	best, bestCost := formDense, s.cost(formDense)
	for f := form(0); f < formDense; f++ {
		if c := s.cost(f); c >= 0 && !bad[f] && c < bestCost {
			best, bestCost = f, c
		}
	}
	return best
}

// build makes a group of the members src yields, under policy p.
func build(p Storage, src source) *Group {
	var s shape
	s.strided.unit = false
	s.unit.unit = true
	src(func(w int32) bool { s.add(w); return true })
	g := &Group{n: int32(s.n), kind: KindStride, step: 1, policy: p, sorted: s.sorted}
	if s.n == 0 {
		return g
	}
	var bad [numForms]bool
	for {
		f := s.choose(p, &bad)
		if g.fill(f, &s, src) {
			g.kind = formKind[f]
			return g
		}
		bad[f] = true
	}
}

// fill stores the members in form f; it fails only for strided runs that interleave
// too much for reverse lookups to stay cheap.
func (g *Group) fill(f form, s *shape, src source) bool {
	switch f {
	case formStride:
		g.first = s.first
		if s.inFirst { // one consecutive run
			g.step = 1
			return true
		}
		g.step = s.step
		if s.block > 1 {
			g.ext = &blockStore{block: s.block}
		}
		return true
	case formRunsUnit, formRunsStrided:
		rs := fillRuns(src, g.n, f == formRunsUnit, s)
		if rs == nil {
			return false
		}
		g.ext = rs
		return true
	case formBitmap:
		g.first = s.lo
		g.ext = fillBitmap(src, s)
		return true
	}
	ranks := sized[int32](int(s.n))[:0]
	src(func(w int32) bool { ranks = append(ranks, w); return true })
	g.ext = &denseStore{ranks: ranks}
	return true
}

// sized returns n zeroed elements whose capacity is that of the allocator's size
// class, so that Bytes, which counts capacity, matches what the heap really spends.
func sized[E any](n int) []E {
	return slices.Grow([]E(nil), n)[:n]
}

// WithStorage returns the same members stored under policy s (and passing s on to
// groups derived from the result).
func (g *Group) WithStorage(s Storage) *Group {
	if g == nil {
		return nil
	}
	return build(s, g.each)
}
