package datatype

import (
	"fmt"
	"math"
)

// Order is the storage order of multi-dimensional arrays in Subarray and Darray.
type Order int64

// Array storage orders.
const (
	OrderC       Order = 0 // row-major: the last index varies fastest
	OrderFortran Order = 1 // column-major: the first index varies fastest
)

// Distribution of one dimension in Darray.
type Distribution int64

// Darray distributions.
const (
	DistributeNone   Distribution = 0
	DistributeBlock  Distribution = 1
	DistributeCyclic Distribution = 2
)

// DefaultDarg asks Darray for the default distribution argument.
const DefaultDarg int64 = -1

func checkCount(arg string, n int64) error {
	if n < 0 {
		return countErr(arg, n)
	}
	return nil
}

// finish computes size, bounds, alignment and kind of t from t.def.
// It is the only place bounds are derived, and every constructor goes through
// it, so overflow is caught at construction.
func (t *Type) finish() (*Type, error) {
	if t.def.op == defVec && t.finishVec() {
		return t, nil
	}
	return t.finishAll()
}

// finishAll is finish with every check.
func (t *Type) finishAll() (*Type, error) {
	var c checked
	// Bounds are gathered twice (MPI 4.1 §5.1.7): from parts without bound
	// markers (natural) and from parts that carry them (marked, made by
	// Resized). When any part is marked, its markers alone give t's bounds,
	// which then are markers too, and a struct gets no alignment padding.
	var nat, mark bounds
	dataFirst := true
	kindSet := false
	t.kind = KindNone
	t.align = 1
	// span merges the block [lo, hi) and the data [tlo, thi) into t's bounds.
	span := func(lo, hi int64, old *Type, tlo, thi int64) {
		if old.marked {
			mark.add(lo, hi)
		} else {
			nat.add(lo, hi)
		}
		if old.size > 0 {
			if dataFirst || tlo < t.tlb {
				t.tlb = tlo
			}
			if dataFirst || thi > t.tub {
				t.tub = thi
			}
			dataFirst = false
		}
		t.align = max(t.align, old.align)
		if old.size > 0 || old.kind != KindNone {
			if !kindSet {
				t.kind, kindSet = old.kind, true
			} else if t.kind != old.kind {
				t.kind = KindNone
			}
		}
	}
	// bases is span for instances of old whose base addresses lie in [lo, hi].
	bases := func(lo, hi int64, old *Type) {
		span(c.add(lo, old.lb), c.add(hi, old.ub), old, c.add(lo, old.tlb), c.add(hi, old.tub))
	}
	switch d := t.def; d.op {
	case defVec:
		old := d.old
		if d.count > 0 && d.blen > 0 {
			// Blocks at i*stride, copies at j*extent: either may be negative.
			last, inner := c.mul(d.count-1, d.stride), c.mul(d.blen-1, old.Extent())
			bases(c.add(min(0, last), min(0, inner)), c.add(max(0, last), max(0, inner)), old)
			t.size = c.mul(c.mul(d.count, d.blen), old.size)
		}
	case defBlocks:
		if d.cx != nil {
			// Checked and measured by compactIndex.
			bases(d.cx.baseLo, d.cx.baseHi, d.old)
			t.size = c.mul(d.cx.total, d.old.size)
			break
		}
		if d.blocks == nil {
			// One old type: find the extreme blocks first, then merge
			// bounds once, so a 100k-block index costs one tight loop.
			old := d.old
			ext := old.Extent()
			var lo, hi, total int64
			any := false
			// Overflow of disp*unit and (n-1)*ext is checked against limits
			// divided out once: a division per block would dominate.
			dmin, dmax, nmax := int64(math.MinInt64), int64(math.MaxInt64), int64(math.MaxInt64)
			switch {
			case d.unit > 0:
				dmin, dmax = math.MinInt64/d.unit, math.MaxInt64/d.unit
			case d.unit < 0:
				dmax = math.MaxInt64 / -d.unit
				dmin = -dmax
			}
			if ext != 0 {
				nmax = math.MaxInt64 / abs(ext)
			}
			for i, dd := range d.disps {
				n := d.blen
				if d.lens != nil {
					n = d.lens[i]
				}
				if dd < dmin || dd > dmax {
					return nil, fmt.Errorf("%w: displs[%d] = %d times %d", ErrOverflow, i, dd, d.unit)
				}
				if n <= 0 {
					if n < 0 {
						return nil, countErr(fmt.Sprintf("blocklens[%d]", i), n)
					}
					continue
				}
				if n-1 > nmax {
					return nil, fmt.Errorf("%w: blocklens[%d] = %d copies of extent %d", ErrOverflow, i, n, ext)
				}
				start := dd * d.unit
				end := c.add(start, (n-1)*ext)
				first, last := min(start, end), max(start, end)
				if !any || first < lo {
					lo = first
				}
				if !any || last > hi {
					hi = last
				}
				any = true
				total = c.add(total, n)
			}
			if any {
				bases(lo, hi, old)
				t.size = c.mul(total, old.size)
			}
			break
		}
		for i := range d.nblocks() {
			b := d.block(i)
			if b.n == 0 {
				continue
			}
			inner := c.mul(b.n-1, b.t.Extent())
			bases(c.add(b.disp, min(0, inner)), c.add(b.disp, max(0, inner)), b.t)
			t.size = c.add(t.size, c.mul(b.n, b.t.size))
		}
	case defResized:
		old := d.old
		t.size, t.tlb, t.tub, t.align, t.kind = old.size, old.tlb, old.tub, old.align, old.kind
	}
	if mark.set {
		t.lb, t.ub, t.marked = mark.lb, mark.ub, true
	} else if nat.set {
		t.lb, t.ub = nat.lb, nat.ub
		if t.comb == CombinerStruct {
			// MPI pads a struct's extent to its strictest alignment, as C
			// does (the epsilon of §5.1.7); bound markers turn this off.
			if r := c.add(t.ub, -t.lb) % t.align; r > 0 {
				t.ub = c.add(t.ub, t.align-r)
			}
		}
	}
	if t.size == 0 {
		t.tlb, t.tub = 0, 0
	}
	t.external(&c)
	if c.of {
		return nil, fmt.Errorf("%w: %s type", ErrOverflow, t.comb)
	}
	if _, of := add(t.ub, -t.lb); of {
		return nil, fmt.Errorf("%w: %s type extent", ErrOverflow, t.comb)
	}
	return t, nil
}

// finishVec is finish for the common vector: count and block length above
// zero, an old type without bound markers, and every number small enough
// that nothing can overflow (counts to 2^31 and 2^32 copies of old in all,
// sizes below 2^29, strides and bounds within +-2^29), so that it needs none
// of finish's checks. It reports whether it applied; the bounds are finish's.
func (t *Type) finishVec() bool {
	const lim = 1 << 29
	d, old := &t.def, t.def.old
	ext := old.ub - old.lb
	// Each term is below 2^31 (2^30) exactly when its number is in range;
	// so is their or.
	counts := uint64(d.count-1) | uint64(d.blen-1)
	others := uint64(d.stride+lim) | uint64(ext+lim) | uint64(old.size) |
		uint64(old.lb+lim) | uint64(old.ub+lim) | uint64(old.tlb+lim) | uint64(old.tub+lim)
	if counts >= 1<<31 || others >= 2*lim || uint64(d.count*d.blen) >= 1<<32 || old.marked || old.xconv {
		return false
	}
	last, inner := (d.count-1)*d.stride, (d.blen-1)*ext
	lo, hi := min(0, last)+min(0, inner), max(0, last)+max(0, inner)
	t.lb, t.ub = lo+old.lb, hi+old.ub
	t.size = d.count * d.blen * old.size
	if t.size > 0 {
		t.tlb, t.tub = lo+old.tlb, hi+old.tub
	}
	t.align = max(1, old.align)
	if old.size > 0 || old.kind != KindNone {
		t.kind = old.kind
	}
	t.xsize = t.size
	return true
}

// external sets t's external32 size and whether any of its elements converts
// other than by a byte swap; it equals the size unless a part's does not.
func (t *Type) external(c *checked) {
	t.xsize = t.size
	switch d := &t.def; d.op {
	case defVec:
		if t.xconv = d.old.xconv; t.xconv {
			t.xsize = c.mul(c.mul(d.count, d.blen), d.old.xsize)
		}
	case defResized:
		t.xsize, t.xconv = d.old.xsize, d.old.xconv
	case defBlocks:
		if d.blocks == nil {
			if t.xconv = d.old.xconv; t.xconv {
				var n int64
				for i := range d.nblocks() {
					n = c.add(n, d.block(i).n)
				}
				t.xsize = c.mul(n, d.old.xsize)
			}
			return
		}
		for _, b := range d.blocks {
			t.xconv = t.xconv || b.t.xconv
		}
		if t.xconv {
			t.xsize = 0
			for _, b := range d.blocks {
				t.xsize = c.add(t.xsize, c.mul(b.n, b.t.xsize))
			}
		}
	}
}

// bounds gathers the lowest lower bound and the highest upper bound seen.
type bounds struct {
	lb, ub int64
	set    bool
}

func (b *bounds) add(lb, ub int64) {
	if !b.set || lb < b.lb {
		b.lb = lb
	}
	if !b.set || ub > b.ub {
		b.ub = ub
	}
	b.set = true
}

// Contiguous returns count copies of old laid end to end by extent
// (MPI_Type_contiguous).
func Contiguous(count int64, old *Type) (*Type, error) {
	if err := checkCount("count", count); err != nil {
		return nil, err
	}
	if err := usable("old", old); err != nil {
		return nil, err
	}
	t := simple(CombinerContiguous, old, 1, 0)
	t.argBuf[0] = count
	t.def = def{op: defVec, count: 1, blen: count, old: old}
	return t.finish()
}

// simple returns a new type of combiner comb built from old, whose nints
// integer and then naddrs address arguments the caller puts in t.argBuf.
func simple(comb Combiner, old *Type, nints, naddrs int) *Type {
	t := &Type{comb: comb}
	t.typeBuf[0] = old
	t.types = t.typeBuf[:]
	if nints > 0 {
		t.ints = t.argBuf[:nints:nints]
	}
	if naddrs > 0 {
		t.addrs = t.argBuf[nints : nints+naddrs : nints+naddrs]
	}
	return t
}

// Vector returns count blocks of blocklen copies of old, the blocks stride
// extents of old apart (MPI_Type_vector).
func Vector(count, blocklen, stride int64, old *Type) (*Type, error) {
	if count < 0 || blocklen < 0 || old == nil || old.freed {
		return nil, checkVec(count, blocklen, old)
	}
	bstride, of := mul(stride, old.Extent())
	if of {
		return nil, fmt.Errorf("%w: stride %d * extent %d", ErrOverflow, stride, old.Extent())
	}
	t := &Type{comb: CombinerVector, argBuf: [3]int64{count, blocklen, stride},
		def: def{op: defVec, count: count, blen: blocklen, stride: bstride, old: old}}
	t.typeBuf[0] = old
	t.types, t.ints = t.typeBuf[:], t.argBuf[:3:3]
	if t.finishVec() {
		return t, nil
	}
	return t.finishAll()
}

// Hvector is Vector with the stride in bytes (MPI_Type_create_hvector).
func Hvector(count, blocklen, stride int64, old *Type) (*Type, error) {
	if err := checkVec(count, blocklen, old); err != nil {
		return nil, err
	}
	t := simple(CombinerHvector, old, 2, 1)
	t.argBuf = [3]int64{count, blocklen, stride}
	t.def = def{op: defVec, count: count, blen: blocklen, stride: stride, old: old}
	return t.finish()
}

func checkVec(count, blocklen int64, old *Type) error {
	if err := checkCount("count", count); err != nil {
		return err
	}
	if err := checkCount("blocklen", blocklen); err != nil {
		return err
	}
	return usable("old", old)
}

// Ints are the integer types of the index constructors' arrays: C's int,
// MPI_Aint and MPI_Count as the C library reads them in place, and Go's int64.
type Ints interface{ ~int32 | ~int64 }

// Indexed returns blocks of blocklens[i] copies of old at displacements
// displs[i] in extents of old (MPI_Type_indexed).
func Indexed(blocklens, displs []int64, old *Type) (*Type, error) {
	return indexed(CombinerIndexed, blocklens, displs, old)
}

// Hindexed is Indexed with byte displacements (MPI_Type_create_hindexed).
func Hindexed(blocklens, displs []int64, old *Type) (*Type, error) {
	return indexed(CombinerHindexed, blocklens, displs, old)
}

// IndexedOf is Indexed over arrays of any integer type: the C library passes
// the caller's int arrays without converting them.
func IndexedOf[L, D Ints](blocklens []L, displs []D, old *Type) (*Type, error) {
	return indexed(CombinerIndexed, blocklens, displs, old)
}

// HindexedOf is Hindexed over arrays of any integer type.
func HindexedOf[L, D Ints](blocklens []L, displs []D, old *Type) (*Type, error) {
	return indexed(CombinerHindexed, blocklens, displs, old)
}

func indexed[L, D Ints](comb Combiner, blocklens []L, displs []D, old *Type) (*Type, error) {
	if err := usable("old", old); err != nil {
		return nil, err
	}
	unit := int64(1)
	if comb == CombinerIndexed {
		unit = old.Extent()
	}
	if len(blocklens) != len(displs) {
		return nil, argErr("displs", "length %d differs from blocklens length %d", len(displs), len(blocklens))
	}
	n := len(blocklens)
	t := &Type{comb: comb, types: []*Type{old}}
	if cx := compactIndex(blocklens, 0, displs, old, unit); cx != nil {
		t.def = def{op: defBlocks, old: old, unit: unit, cx: cx}
		return t.finish()
	}
	// finish checks each block: one pass over 100k blocks, not two.
	if comb == CombinerIndexed {
		t.ints = make([]int64, 1+2*n)
		t.ints[0] = int64(n)
		copyInts(t.ints[1:], blocklens)
		copyInts(t.ints[1+n:], displs)
		t.def = def{op: defBlocks, old: old, unit: unit, lens: t.ints[1 : 1+n], disps: t.ints[1+n:]}
	} else {
		t.ints = make([]int64, 1+n)
		t.ints[0] = int64(n)
		copyInts(t.ints[1:], blocklens)
		t.addrs = make([]int64, n)
		copyInts(t.addrs, displs)
		t.def = def{op: defBlocks, old: old, unit: unit, lens: t.ints[1:], disps: t.addrs}
	}
	return t.finish()
}

// copyInts copies src into dst, converting.
func copyInts[I Ints](dst []int64, src []I) {
	if s, ok := any(src).([]int64); ok {
		copy(dst, s)
		return
	}
	for i, v := range src {
		dst[i] = int64(v)
	}
}

// IndexedBlock is Indexed with one block length (MPI_Type_create_indexed_block).
func IndexedBlock(blocklen int64, displs []int64, old *Type) (*Type, error) {
	return indexedBlock(CombinerIndexedBlock, blocklen, displs, old)
}

// HindexedBlock is IndexedBlock with byte displacements
// (MPI_Type_create_hindexed_block).
func HindexedBlock(blocklen int64, displs []int64, old *Type) (*Type, error) {
	return indexedBlock(CombinerHindexedBlock, blocklen, displs, old)
}

// IndexedBlockOf is IndexedBlock over an array of any integer type.
func IndexedBlockOf[D Ints](blocklen int64, displs []D, old *Type) (*Type, error) {
	return indexedBlock(CombinerIndexedBlock, blocklen, displs, old)
}

// HindexedBlockOf is HindexedBlock over an array of any integer type.
func HindexedBlockOf[D Ints](blocklen int64, displs []D, old *Type) (*Type, error) {
	return indexedBlock(CombinerHindexedBlock, blocklen, displs, old)
}

func indexedBlock[D Ints](comb Combiner, blocklen int64, displs []D, old *Type) (*Type, error) {
	if err := checkCount("blocklen", blocklen); err != nil {
		return nil, err
	}
	if err := usable("old", old); err != nil {
		return nil, err
	}
	unit := int64(1)
	if comb == CombinerIndexedBlock {
		unit = old.Extent()
	}
	n := len(displs)
	t := &Type{comb: comb, types: []*Type{old}}
	if cx := compactIndex[int64](nil, blocklen, displs, old, unit); cx != nil {
		t.def = def{op: defBlocks, old: old, unit: unit, blen: blocklen, cx: cx}
		return t.finish()
	}
	if comb == CombinerIndexedBlock {
		t.ints = make([]int64, 2+n)
		t.ints[0], t.ints[1] = int64(n), blocklen
		copyInts(t.ints[2:], displs)
		t.def = def{op: defBlocks, old: old, unit: unit, blen: blocklen, disps: t.ints[2:]}
	} else {
		t.ints = []int64{int64(n), blocklen}
		t.addrs = make([]int64, n)
		copyInts(t.addrs, displs)
		t.def = def{op: defBlocks, old: old, unit: unit, blen: blocklen, disps: t.addrs}
	}
	return t.finish()
}

// compactIdx is a block list of one contiguous old type held as the
// compiled program's own arrays (an opIdx over int32s), built by
// compactIndex in the constructor's one loop over the caller's arrays: commit
// then has nothing left to do per block, and the constructor writes 8 bytes
// a block instead of copying the arrays and compiling them later. The
// contents are read back from the arrays (contents), so they are kept only
// where that gives the caller's values: no block empty or touching the one
// before it (compile would merge those), every value inside int32.
type compactIdx struct {
	d32 []int32 // block i's first byte, relative to the base address
	p32 []int32 // packed offset of block i; len blocks+1
	off int64   // old's data offset from its base address
	esz int64   // old's size, which is its extent
	// What finish and compile need: bytes touched, the lowest and highest
	// base address of a copy of old, copies of old in all, the longest
	// block, and whether block starts ascend.
	lo, hi         int64
	baseLo, baseHi int64
	total          int64
	maxLen         int64
	sorted         bool
}

// compactIndex returns the compact form of blocks of lens[i] (or, lens nil,
// blen) copies of old at disps[i]*unit bytes, or nil where it does not apply
// (see compactIdx) or an argument is wrong, which the general path reports.
func compactIndex[L, D Ints](lens []L, blen int64, disps []D, old *Type, unit int64) *compactIdx {
	const lim = math.MaxInt32
	n := len(disps)
	if n == 0 || (lens == nil && (blen <= 0 || blen > lim)) || unit < 1 || unit > lim {
		return nil
	}
	c, err := old.compile()
	if err != nil || c.op != opLeaf || c.size <= 0 || c.size != old.Extent() || c.size > lim || c.off < -lim || c.off > lim {
		return nil
	}
	cmax := compactMax
	off, esz := c.off, c.size
	d32, p32 := make([]int32, n), make([]int32, n+1)
	lo, hi, last, prev := int64(math.MaxInt64), int64(math.MinInt64), int64(math.MinInt64), int64(math.MinInt64)
	var sum, maxLen int64
	unsorted := false
	for i, dv := range disps {
		k, dd := blen, int64(dv)
		if lens != nil {
			k = int64(lens[i])
		}
		if k <= 0 || k > lim || dd < -lim || dd > lim {
			return nil
		}
		start, l := dd*unit+off, k*esz
		end := start + l
		sum += l
		if start == last || start < -cmax-1 || end > cmax || sum > cmax {
			return nil
		}
		unsorted = unsorted || start < prev
		maxLen = max(maxLen, l)
		lo, hi = min(lo, start), max(hi, end)
		d32[i], p32[i+1] = int32(start), int32(sum)
		last, prev = end, start
	}
	return &compactIdx{d32: d32, p32: p32, off: off, esz: esz, lo: lo, hi: hi,
		baseLo: lo - off, baseHi: hi - off - esz, total: sum / esz, maxLen: maxLen, sorted: !unsorted}
}

// contents gives back the caller's arrays of a compact block list: the
// block lengths (nil for the block kinds) and displacements in units.
func (x *compactIdx) contents(lens bool, unit int64) (bl, disps []int64) {
	n := len(x.d32)
	disps = make([]int64, n)
	for i, d := range x.d32 {
		disps[i] = (int64(d) - x.off) / unit
	}
	if lens {
		bl = make([]int64, n)
		for i := range n {
			bl[i] = int64(x.p32[i+1]-x.p32[i]) / x.esz
		}
	}
	return bl, disps
}

// Struct returns blocks of blocklens[i] copies of types[i] at byte
// displacements displs[i] (MPI_Type_create_struct). The extent is padded to a
// multiple of the strictest alignment of the members, as in C.
func Struct(blocklens, displs []int64, types []*Type) (*Type, error) {
	n := len(blocklens)
	if len(displs) != n {
		return nil, argErr("displs", "length %d differs from blocklens length %d", len(displs), n)
	}
	if len(types) != n {
		return nil, argErr("types", "length %d differs from blocklens length %d", len(types), n)
	}
	bl := make([]block, n)
	for i := range n {
		if blocklens[i] < 0 {
			return nil, countErr(fmt.Sprintf("blocklens[%d]", i), blocklens[i])
		}
		if err := usable(fmt.Sprintf("types[%d]", i), types[i]); err != nil {
			return nil, err
		}
		bl[i] = block{displs[i], blocklens[i], types[i]}
	}
	t := &Type{comb: CombinerStruct, def: def{op: defBlocks, blocks: bl},
		ints:  append([]int64{int64(n)}, blocklens...),
		addrs: append([]int64(nil), displs...), types: append([]*Type(nil), types...)}
	return t.finish()
}

// Resized returns old with lower bound lb and extent extent
// (MPI_Type_create_resized): bound markers at lb and lb+extent, which then
// give the bounds of every type built from it (MPI 4.1 §5.1.7). Any lb and
// extent are allowed: with a zero extent all instances of a count share one
// base address, with a negative one instance k lies k*|extent| bytes below
// the first.
func Resized(old *Type, lb, extent int64) (*Type, error) {
	if err := usable("old", old); err != nil {
		return nil, err
	}
	ub, of := add(lb, extent)
	if of {
		return nil, fmt.Errorf("%w: lb %d + extent %d", ErrOverflow, lb, extent)
	}
	t := simple(CombinerResized, old, 0, 2)
	t.argBuf = [3]int64{lb, extent}
	t.def = def{op: defResized, old: old}
	if _, err := t.finish(); err != nil {
		return nil, err
	}
	t.lb, t.ub, t.marked = lb, ub, true
	return t, nil
}

// Dup returns a new type with the typemap of old (MPI_Type_dup); it is
// committed if old is.
func Dup(old *Type) (*Type, error) {
	if err := usable("old", old); err != nil {
		return nil, err
	}
	t := simple(CombinerDup, old, 0, 0)
	t.def = def{op: defResized, old: old}
	if _, err := t.finish(); err != nil {
		return nil, err
	}
	t.lb, t.ub, t.marked = old.lb, old.ub, old.marked
	t.kind = old.kind
	if old.committed.Load() {
		if err := t.Commit(); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// Subarray returns the sub-block subsizes at starts of an array of sizes
// elements of old in order (MPI_Type_create_subarray). Its lower bound is 0
// and its extent the whole array's.
func Subarray(sizes, subsizes, starts []int64, order Order, old *Type) (*Type, error) {
	if err := usable("old", old); err != nil {
		return nil, err
	}
	nd := len(sizes)
	if nd == 0 {
		return nil, argErr("sizes", "must have at least one dimension")
	}
	if len(subsizes) != nd {
		return nil, argErr("subsizes", "length %d differs from sizes length %d", len(subsizes), nd)
	}
	if len(starts) != nd {
		return nil, argErr("starts", "length %d differs from sizes length %d", len(starts), nd)
	}
	if order != OrderC && order != OrderFortran {
		return nil, argErr("order", "must be OrderC or OrderFortran, got %d", order)
	}
	for i := range nd {
		if sizes[i] < 1 {
			return nil, argErr(fmt.Sprintf("sizes[%d]", i), "must be >= 1, got %d", sizes[i])
		}
		if subsizes[i] < 1 || subsizes[i] > sizes[i] {
			return nil, argErr(fmt.Sprintf("subsizes[%d]", i), "must be in 1..sizes[%d]=%d, got %d", i, sizes[i], subsizes[i])
		}
		if starts[i] < 0 || starts[i] > sizes[i]-subsizes[i] {
			return nil, argErr(fmt.Sprintf("starts[%d]", i), "must be in 0..sizes-subsizes=%d, got %d", sizes[i]-subsizes[i], starts[i])
		}
	}
	// Visit dimensions from fastest to slowest varying.
	dims := make([]int, nd)
	for i := range nd {
		if order == OrderC {
			dims[i] = nd - 1 - i
		} else {
			dims[i] = i
		}
	}
	var c checked
	ext := old.Extent()
	stride := ext
	var disp int64
	cur := old
	for _, d := range dims {
		// One row of this dimension: subsizes[d] copies of cur, stride apart.
		nt := &Type{comb: CombinerHvector, def: def{op: defVec, count: subsizes[d], blen: 1, stride: stride, old: cur}}
		if _, err := nt.finish(); err != nil {
			return nil, err
		}
		cur = nt
		disp = c.add(disp, c.mul(starts[d], stride))
		stride = c.mul(stride, sizes[d])
	}
	if c.of {
		return nil, fmt.Errorf("%w: subarray of %v", ErrOverflow, sizes)
	}
	shifted := &Type{comb: CombinerHindexed, def: def{op: defBlocks, blocks: []block{{disp, 1, cur}}}}
	if _, err := shifted.finish(); err != nil {
		return nil, err
	}
	t := &Type{comb: CombinerSubarray, types: []*Type{old}, def: def{op: defResized, old: shifted}}
	t.ints = append(append(append(append([]int64{int64(nd)}, sizes...), subsizes...), starts...), int64(order))
	if _, err := t.finish(); err != nil {
		return nil, err
	}
	t.lb, t.ub, t.marked = 0, stride, true // defined as a resized type
	return t, nil
}

// dimRuns are the indexes of one Darray dimension a process owns: nfull
// blocks of k indexes, the first at first, step apart, then last indexes
// (0 <= last < k) at first+nfull*step.
type dimRuns struct {
	first, nfull, k, step, last int64
}

// Darray returns the part of a gsizes array of old owned by process rank of
// size processes arranged in a psizes grid (MPI_Type_create_darray). dargs[i]
// may be DefaultDarg. The lower bound is 0 and the extent the whole array's.
func Darray(size, rank int64, gsizes []int64, distribs []Distribution, dargs, psizes []int64,
	order Order, old *Type) (*Type, error) {
	if err := usable("old", old); err != nil {
		return nil, err
	}
	if size < 1 {
		return nil, argErr("size", "must be >= 1, got %d", size)
	}
	if rank < 0 || rank >= size {
		return nil, argErr("rank", "must be in 0..size-1=%d, got %d", size-1, rank)
	}
	nd := len(gsizes)
	if nd == 0 {
		return nil, argErr("gsizes", "must have at least one dimension")
	}
	for i, l := range []int{len(distribs), len(dargs), len(psizes)} {
		if l != nd {
			return nil, argErr([]string{"distribs", "dargs", "psizes"}[i], "length %d differs from gsizes length %d", l, nd)
		}
	}
	if order != OrderC && order != OrderFortran {
		return nil, argErr("order", "must be OrderC or OrderFortran, got %d", order)
	}
	nprocs := int64(1)
	for i := range nd {
		if psizes[i] < 1 {
			return nil, argErr(fmt.Sprintf("psizes[%d]", i), "must be >= 1, got %d", psizes[i])
		}
		var of bool
		if nprocs, of = mul(nprocs, psizes[i]); of {
			return nil, fmt.Errorf("%w: psizes", ErrOverflow)
		}
	}
	if nprocs != size {
		return nil, argErr("psizes", "product %d differs from size %d", nprocs, size)
	}
	// Process coordinates are always row-major in the process grid.
	coords := make([]int64, nd)
	r := rank
	for i := nd - 1; i >= 0; i-- {
		coords[i] = r % psizes[i]
		r /= psizes[i]
	}
	// runs[i]: the owned indexes of dimension i, regular so that a cyclic
	// distribution of a billion elements is not a billion blocks.
	runs := make([]dimRuns, nd)
	for i := range nd {
		g, p, dg := gsizes[i], psizes[i], dargs[i]
		arg := fmt.Sprintf("dargs[%d]", i)
		if g < 1 {
			return nil, argErr(fmt.Sprintf("gsizes[%d]", i), "must be >= 1, got %d", g)
		}
		switch distribs[i] {
		case DistributeNone:
			if p != 1 {
				return nil, argErr(fmt.Sprintf("psizes[%d]", i), "must be 1 for DistributeNone, got %d", p)
			}
			runs[i] = dimRuns{0, 1, g, 0, 0}
		case DistributeBlock:
			b := (g + p - 1) / p
			if dg != DefaultDarg {
				if dg < 1 {
					return nil, argErr(arg, "must be >= 1 or DefaultDarg, got %d", dg)
				}
				if bp, of := mul(dg, p); of || bp < g {
					return nil, argErr(arg, "block %d * psizes %d must cover gsizes %d", dg, p, g)
				}
				b = dg
			}
			lo := min(coords[i]*b, g)
			hi := min(lo+b, g)
			if hi > lo {
				runs[i] = dimRuns{lo, 1, hi - lo, 0, 0}
			}
		case DistributeCyclic:
			k := int64(1)
			if dg != DefaultDarg {
				if dg < 1 {
					return nil, argErr(arg, "must be >= 1 or DefaultDarg, got %d", dg)
				}
				k = dg
			}
			step, of := mul(k, p)
			if of {
				return nil, fmt.Errorf("%w: %s * psizes", ErrOverflow, arg)
			}
			if first := coords[i] * k; first < g {
				nb := (g - first + step - 1) / step // blocks starting below g
				last := min(k, g-(first+(nb-1)*step))
				if last == k {
					runs[i] = dimRuns{first, nb, k, step, 0}
				} else {
					runs[i] = dimRuns{first, nb - 1, k, step, last}
				}
			}
		default:
			return nil, argErr(fmt.Sprintf("distribs[%d]", i), "unknown distribution %d", distribs[i])
		}
	}
	dims := make([]int, nd)
	for i := range nd {
		if order == OrderC {
			dims[i] = nd - 1 - i
		} else {
			dims[i] = i
		}
	}
	var c checked
	stride := old.Extent()
	cur := old
	for _, d := range dims {
		// This dimension's owned runs of cur, each cur resized to one row.
		row, err := Resized(cur, 0, stride)
		if err != nil {
			return nil, err
		}
		ru := runs[d]
		bl := []block{} // non-nil: an empty list, not the array form
		if ru.nfull > 0 {
			hv := &Type{comb: CombinerHvector, def: def{op: defVec, count: ru.nfull, blen: ru.k,
				stride: c.mul(ru.step, stride), old: row}}
			if _, err := hv.finish(); err != nil {
				return nil, err
			}
			bl = append(bl, block{c.mul(ru.first, stride), 1, hv})
		}
		if ru.last > 0 {
			bl = append(bl, block{c.mul(c.add(ru.first, c.mul(ru.nfull, ru.step)), stride), ru.last, row})
		}
		nt := &Type{comb: CombinerHindexed, def: def{op: defBlocks, blocks: bl}}
		if _, err := nt.finish(); err != nil {
			return nil, err
		}
		cur = nt
		stride = c.mul(stride, gsizes[d])
	}
	if c.of {
		return nil, fmt.Errorf("%w: darray of %v", ErrOverflow, gsizes)
	}
	t := &Type{comb: CombinerDarray, types: []*Type{old}, def: def{op: defResized, old: cur}}
	t.ints = []int64{size, rank, int64(nd)}
	t.ints = append(t.ints, gsizes...)
	for _, d := range distribs {
		t.ints = append(t.ints, int64(d))
	}
	t.ints = append(t.ints, dargs...)
	t.ints = append(t.ints, psizes...)
	t.ints = append(t.ints, int64(order))
	if _, err := t.finish(); err != nil {
		return nil, err
	}
	t.lb, t.ub, t.marked = 0, stride, true // defined as a resized type
	return t, nil
}
