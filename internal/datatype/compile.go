package datatype

import (
	"fmt"
	"math"
)

// op is an instruction of a compiled program.
type op uint8

const (
	opLeaf op = iota // size contiguous bytes at off
	opVec            // count copies of child, stride bytes apart
	opIdx            // count blocks of bytes: block i at disp[i], pre[i+1]-pre[i] bytes
	opBlk            // count blocks of copies of child: block i is cnt[i] copies at disp[i], cstride apart
	opSeq            // count children: kids[i] at disp[i]
)

// node is one instruction of a compiled program. Every node describes one
// instance of (part of) a type relative to a base address: its data starts at
// base+off. Items are what kernels iterate over: bytes of a leaf, elements of
// a vector, blocks of an index or children of a sequence.
type node struct {
	op      op
	off     int64
	size    int64 // packed bytes of one instance
	count   int64 // items (leaf: bytes)
	stride  int64 // opVec
	cstride int64 // opBlk
	child   *node // opVec, opBlk
	disp    []int64
	pre     []int64 // packed offset of item i; len count+1 (opIdx, opBlk, opSeq)
	cnt     []int64 // opBlk
	chunk   int64   // opIdx: fixed move size covering every block, or 0
	fast    int64   // opIdx: blocks before fast can be read chunk bytes long
	lo, hi  int64   // bytes touched, relative to the base address
	uniform int64   // opIdx: the length of every block if all are equal, else 0
	compact bool    // opIdx: disp and pre are held as int32 in d32 and p32
	d32     []int32
	p32     []int32
	kids    []*node    // opSeq
	pack    kernelFunc // moves items [i0,i1) from user memory to packed
	unpack  kernelFunc // and back
	kname   string     // kernel name, for tests and diagnostics
}

var emptyNode = &node{op: opLeaf}

func leaf(off, size int64) *node {
	if size == 0 {
		return emptyNode
	}
	n := &node{op: opLeaf, off: off, size: size, count: size, lo: off, hi: off + size}
	setKernel(n)
	return n
}

// shift returns n moved by d bytes, sharing n's arrays.
func shift(n *node, d int64) *node {
	if d == 0 || n.size == 0 {
		return n
	}
	c := *n
	c.off += d
	c.lo += d
	c.hi += d
	return &c
}

// mkVec returns count copies of c, stride bytes apart, simplified: empty
// parts vanish, a vector of adjacent leaves is a leaf, and a vector of
// vectors that continue each other's stride is one vector.
func mkVec(count, stride int64, c *node) *node {
	switch {
	case count == 0 || c.size == 0:
		return emptyNode
	case count == 1:
		return c
	case c.op == opLeaf && stride == c.size:
		return leaf(c.off, count*c.size)
	case c.op == opVec && stride == c.count*c.stride:
		return mkVec(count*c.count, c.stride, shift(c.child, c.off))
	}
	last := (count - 1) * stride
	n := &node{op: opVec, count: count, stride: stride, child: c, size: count * c.size,
		lo: min(0, last) + c.lo, hi: max(0, last) + c.hi}
	setKernel(n)
	return n
}

// compile builds t's program once; nested types compile their own once and
// share the result.
func (t *Type) compile() (*node, error) {
	t.compileOnce.Do(func() {
		t.prog, t.compileErr = t.build()
	})
	return t.prog, t.compileErr
}

func (t *Type) build() (*node, error) {
	d := t.def
	switch d.op {
	case defBasic:
		return leaf(0, t.size), nil
	case defResized:
		return d.old.compile()
	case defVec:
		c, err := d.old.compile()
		if err != nil {
			return nil, err
		}
		return mkVec(d.count, d.stride, mkVec(d.blen, d.old.Extent(), c)), nil
	case defBlocks:
		return buildBlocks(t)
	}
	return nil, fmt.Errorf("internal error: unknown definition %d", d.op)
}

// buildBlocks compiles a block list: to byte blocks when every block is
// contiguous, to blocks of one child when all blocks share a type, else to a
// sequence.
func buildBlocks(t *Type) (*node, error) {
	d := &t.def
	if x := d.cx; x != nil {
		// Compiled by the constructor: only the node is left to make.
		n := &node{op: opIdx, compact: true, d32: x.d32, p32: x.p32, count: int64(len(x.d32)),
			size: int64(x.p32[len(x.d32)])}
		return idxNode(n, x.maxLen, x.sorted, x.lo, x.hi), nil
	}
	nb := d.nblocks()
	var (
		same    *Type
		allLeaf = true
		nonzero int
	)
	if d.blocks == nil {
		// One old type: its program decides the shape; lengths matter only
		// when copies of a leaf are not adjacent.
		c, err := d.old.compile()
		if err != nil {
			return nil, err
		}
		if c.size == 0 {
			return emptyNode, nil
		}
		same, nonzero = d.old, nb
		allLeaf = c.op == opLeaf
		if allLeaf && d.old.Extent() != c.size {
			if d.lens == nil {
				allLeaf = d.blen <= 1
			} else {
				for _, l := range d.lens {
					allLeaf = allLeaf && l <= 1
				}
			}
		}
	}
	for i := range nb {
		if d.blocks == nil {
			break
		}
		b := d.block(i)
		if b.n == 0 || b.t.size == 0 {
			continue
		}
		c, err := b.t.compile()
		if err != nil {
			return nil, err
		}
		if nonzero == 0 {
			same = b.t
		} else if same != b.t {
			same = nil
		}
		nonzero++
		if c.op != opLeaf || (b.n > 1 && b.t.Extent() != c.size) {
			allLeaf = false
		}
	}
	switch {
	case nonzero == 0:
		return emptyNode, nil
	case allLeaf:
		return bytesBlocks(t)
	case same != nil:
		c, _ := same.compile()
		ext := same.Extent()
		n := &node{op: opBlk, child: c, cstride: ext}
		n.disp = make([]int64, 0, nonzero)
		n.cnt = make([]int64, 0, nonzero)
		n.pre = make([]int64, 1, nonzero+1)
		for i := range nb {
			b := d.block(i)
			if b.n == 0 || b.t.size == 0 {
				continue
			}
			last := (b.n - 1) * ext
			lo, hi := b.disp+c.lo, b.disp+last+c.hi
			if len(n.disp) == 0 {
				n.lo, n.hi = lo, hi
			}
			n.lo, n.hi = min(n.lo, lo), max(n.hi, hi)
			n.disp = append(n.disp, b.disp)
			n.cnt = append(n.cnt, b.n)
			n.size += b.n * c.size
			n.pre = append(n.pre, n.size)
		}
		n.count = int64(len(n.disp))
		switch n.count {
		case 0:
			return emptyNode, nil
		case 1:
			return shift(mkVec(n.cnt[0], ext, c), n.disp[0]), nil
		}
		setKernel(n)
		return n, nil
	}
	n := &node{op: opSeq}
	n.disp = make([]int64, 0, nonzero)
	n.kids = make([]*node, 0, nonzero)
	n.pre = make([]int64, 1, nonzero+1)
	for i := range nb {
		b := d.block(i)
		if b.n == 0 || b.t.size == 0 {
			continue
		}
		c, _ := b.t.compile()
		k := mkVec(b.n, b.t.Extent(), c)
		if len(n.disp) == 0 {
			n.lo, n.hi = b.disp+k.lo, b.disp+k.hi
		}
		n.lo, n.hi = min(n.lo, b.disp+k.lo), max(n.hi, b.disp+k.hi)
		n.disp = append(n.disp, b.disp)
		n.kids = append(n.kids, k)
		n.size += k.size
		n.pre = append(n.pre, n.size)
	}
	n.count = int64(len(n.kids))
	if n.count == 1 {
		return shift(n.kids[0], n.disp[0]), nil
	}
	setKernel(n)
	return n, nil
}

// bytesBlocks compiles blocks that are each contiguous, merging blocks that
// touch, into a leaf, a vector of leaves or a byte-block index.
func bytesBlocks(t *Type) (*node, error) {
	d := &t.def
	n := &node{op: opIdx}
	nb := d.nblocks()
	var s blockStats
	if d.blocks == nil {
		// One old type: a tight loop over the caller's arrays. When the
		// type spans less than 2 GiB the program holds int32s, which halves
		// its memory and the time to build and read it (DAME issue 3).
		c := d.old.prog
		n.compact = t.size <= compactMax && t.tlb >= -compactMax-1 && t.tub <= compactMax
		if n.compact {
			n.d32, n.p32, s = fillIdx[int32](d, c.off, c.size, nb)
			n.count = int64(len(n.d32))
		} else {
			n.disp, n.pre, s = fillIdx[int64](d, c.off, c.size, nb)
			n.count = int64(len(n.disp))
		}
	} else {
		n.disp = make([]int64, 0, nb)
		n.pre = make([]int64, 1, nb+1)
		for i := range nb {
			b := d.block(i)
			if b.n != 0 && b.t.size != 0 {
				c := b.t.prog
				s.add(n, b.disp+c.off, b.n*c.size)
			}
		}
		n.count = int64(len(n.disp))
	}
	n.size = s.pre
	if n.count == 0 {
		return emptyNode, nil
	}
	return idxNode(n, max(s.maxLen, s.pre-n.preAt(n.count-1)), s.sorted, s.lo, s.hi), nil
}

// idxNode finishes a byte-block index n of count >= 1 blocks, given its
// longest block, whether block starts ascend and the bytes touched: one
// block is a leaf, equal blocks at a constant stride a vector.
func idxNode(n *node, maxLen int64, sorted bool, lo, hi int64) *node {
	if n.count == 1 {
		return leaf(n.dispAt(0), n.size)
	}
	// Equal blocks at a constant stride are a vector; most indexes differ
	// in their first few blocks, so this loop ends early.
	l0 := n.preAt(1)
	stride := n.dispAt(1) - n.dispAt(0)
	vec := true
	for i := int64(1); i < n.count && vec; i++ {
		vec = n.preAt(i+1)-n.preAt(i) == l0 && n.dispAt(i)-n.dispAt(i-1) == stride
	}
	if vec {
		return shift(mkVec(n.count, stride, leaf(0, l0)), n.dispAt(0))
	}
	if maxLen == l0 && n.size == n.count*l0 {
		n.uniform = l0 // every block is l0 bytes: the longest is, and they add up
	}
	n.lo, n.hi = lo, hi
	chooseChunk(n, maxLen, sorted)
	setKernel(n)
	return n
}

// compactMax is the largest packed size or displacement held in int32
// arrays; a variable so tests can exercise the int64 arrays with small types.
var compactMax int64 = math.MaxInt32

// idxInt is the integer type of a byte-block index's arrays.
type idxInt interface{ int32 | int64 }

// fillIdx builds the displacement and packed-offset arrays of a block list
// of one contiguous old type (offset off, size sz), merging blocks that
// touch; blockStats.add is written out here since it is too big to inline.
func fillIdx[I idxInt](d *def, off, sz int64, nb int) (disp, pre []I, s blockStats) {
	disp = make([]I, 0, nb)
	pre = make([]I, 1, nb+1)
	unit, lens, blen := d.unit, d.lens, d.blen
	// Sentinels instead of first-block tests keep the loop short; cur is
	// the length of the block being merged, prev the last block's start.
	lo, hi, last, prev := int64(math.MaxInt64), int64(math.MinInt64), int64(math.MinInt64), int64(math.MinInt64)
	var maxLen, sum, cur int64
	unsorted := false
	for i, dd := range d.disps {
		k := blen
		if lens != nil {
			k = lens[i]
		}
		if k == 0 {
			continue
		}
		start, l := dd*unit+off, k*sz
		end := start + l
		sum += l
		if start == last {
			pre[len(pre)-1] = I(sum)
			cur += l
		} else {
			maxLen = max(maxLen, cur)
			unsorted = unsorted || start < prev
			disp = append(disp, I(start))
			pre = append(pre, I(sum))
			cur, prev = l, start
		}
		lo = min(lo, start)
		hi = max(hi, end)
		last = end
	}
	return disp, pre, blockStats{pre: sum, lo: lo, hi: hi, maxLen: max(maxLen, cur), sorted: !unsorted}
}

// dispAt returns the displacement of item i of a block node.
func (n *node) dispAt(i int64) int64 {
	if n.compact {
		return int64(n.d32[i])
	}
	return n.disp[i]
}

// preAt returns the packed offset of item i of a block node (i <= count).
func (n *node) preAt(i int64) int64 {
	if n.compact {
		return int64(n.p32[i])
	}
	return n.pre[i]
}

// item returns the item of a block node holding packed offset x < size.
func (n *node) itemAt(x int64) int64 {
	if n.compact {
		return search(n.p32[:n.count], x)
	}
	return search(n.pre[:n.count], x)
}

// blockStats gathers, while blocks are appended, what the compiler needs to
// know about them, so that 100k blocks cost one loop.
type blockStats struct {
	pre, last   int64 // packed size so far, end of the previous block
	lo, hi      int64
	maxLen      int64 // longest finished block
	sorted      bool  // block starts ascending
	started     bool
	unsortedYet bool
}

func (s *blockStats) add(n *node, start, l int64) {
	end := start + l
	s.pre += l
	if s.started && start == s.last {
		n.pre[len(n.pre)-1] = s.pre
	} else {
		if s.started {
			s.maxLen = max(s.maxLen, n.pre[len(n.pre)-1]-n.pre[len(n.pre)-2])
			s.unsortedYet = s.unsortedYet || start < n.disp[len(n.disp)-1]
		} else {
			s.lo, s.hi, s.started = start, end, true
		}
		n.disp = append(n.disp, start)
		n.pre = append(n.pre, s.pre)
	}
	s.lo = min(s.lo, start)
	s.hi = max(s.hi, end)
	s.last = end
	s.sorted = !s.unsortedYet
}

// chooseChunk picks the fixed move size for short byte blocks and how many
// leading blocks can be read that long without leaving the node's bounds.
func chooseChunk(n *node, maxLen int64, sorted bool) {
	for _, c := range []int64{16, 32, 64, 128} {
		if maxLen <= c {
			n.chunk = c
			break
		}
	}
	if n.chunk == 0 {
		return
	}
	lim := n.hi - n.chunk
	if sorted {
		// The fast blocks are those starting at or below lim.
		lo, hi := int64(0), n.count
		for lo < hi {
			m := int64(uint64(lo+hi) >> 1)
			if n.dispAt(m) <= lim {
				lo = m + 1
			} else {
				hi = m
			}
		}
		n.fast = lo
		return
	}
	for n.fast < n.count && n.dispAt(n.fast) <= lim {
		n.fast++
	}
}

// Commit marks t ready for communication (MPI_Type_commit). It is
// idempotent and cheap: the program is compiled on t's first use (prepare),
// once however many goroutines use t at once. Errors in the type are found by
// its constructor; compilation can fail only on an internal error, which the
// first use reports.
func (t *Type) Commit() error {
	if t == nil {
		return argErr("t", "nil type")
	}
	if t.freed {
		return fmt.Errorf("%w: Commit", ErrFreed)
	}
	t.committed.Store(true)
	return nil
}

// prepare compiles a committed t on first use and sets what the kernels'
// callers read (prog, rep, contig, safe); every use of those goes through it.
// After the first it is a load, inlined: IsContiguous, which has the same fast
// path, is on the path of every message of a C program (a predefined datatype's
// buffer).
func (t *Type) prepare() error {
	if t.prepared.Load() {
		return t.prepErr
	}
	return t.prepareOnce()
}

func (t *Type) prepareOnce() error {
	t.prepOnce.Do(func() {
		t.prepErr = t.commit()
		t.prepared.Store(true)
	})
	return t.prepErr
}

func (t *Type) commit() error {
	n, err := t.compile()
	if err != nil {
		return err
	}
	if n.size != t.size {
		return fmt.Errorf("internal error: program moves %d bytes, type has %d", n.size, t.size)
	}
	if t.size > 0 {
		// The engine trusts the true bounds for memory safety: prove the
		// program stays inside them.
		if lo, hi := n.lo, n.hi; lo < t.tlb || hi > t.tub {
			return fmt.Errorf("internal error: program touches [%d,%d) outside true bounds [%d,%d)", lo, hi, t.tlb, t.tub)
		}
	}
	t.contig = t.size == 0 || (n.op == opLeaf && n.size == t.Extent())
	if !t.contig {
		// Instances of the count are items of a vector whose kernel is
		// chosen like any other; its count is given per call.
		t.rep = &node{op: opVec, stride: t.Extent(), child: n, size: n.size}
		setKernel(t.rep)
	}
	t.safe = t.safeCount()
	return nil
}

// safeCount is the largest count for which count*size, (count-1)*extent and the
// true bounds added to it all stay within half of int64's range, so that Bind needs
// no overflow checks below it.
func (t *Type) safeCount() int64 {
	const half = math.MaxInt64 / 2
	bound := max(abs(t.tlb), abs(t.tub), abs(t.lb), abs(t.ub))
	if bound >= half {
		return 0
	}
	return (half - bound) / max(t.size, abs(t.Extent()), 1)
}

// abs is |x|, saturated at MaxInt64.
func abs(x int64) int64 {
	switch {
	case x == math.MinInt64:
		return math.MaxInt64
	case x < 0:
		return -x
	}
	return x
}

// Program returns a one-line description of the compiled program of a
// committed type, naming the kernels chosen, for diagnostics and tests.
func (t *Type) Program() string {
	if !t.committed.Load() || t.prepare() != nil {
		return "<not committed>"
	}
	return t.prog.String()
}

func (n *node) String() string {
	switch n.op {
	case opLeaf:
		if n.size == 0 {
			return "empty"
		}
		return fmt.Sprintf("leaf(%d@%d)", n.size, n.off)
	case opVec:
		return fmt.Sprintf("%s(%d x %d, %s)", n.kname, n.count, n.stride, n.child)
	case opIdx:
		return fmt.Sprintf("%s(%d blocks)", n.kname, n.count)
	case opBlk:
		return fmt.Sprintf("%s(%d blocks, %s)", n.kname, n.count, n.child)
	}
	s := n.kname + "("
	for i, k := range n.kids {
		if i > 0 {
			s += ", "
		}
		s += k.String()
	}
	return s + ")"
}
