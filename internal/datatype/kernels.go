package datatype

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/ntcopy"
)

// The kernels run after one bounds check per call (userSpan, Cursor.step), so they use
// unchecked pointer arithmetic. They keep a base pointer to the start of each
// buffer and int64 offsets, and form a pointer only for an access that is
// inside the buffer: a pointer one past the end is never made, which keeps
// them valid under the race detector's pointer checks.
//
// p, po: packed buffer and offset of item i0's data; u, uo: user buffer and
// offset of the instance's base address.
type kernelFunc = func(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64)

func at(b unsafe.Pointer, off int64) unsafe.Pointer { return unsafe.Add(b, off) }

// move copies n bytes; copy on slices compiles to memmove.
func move(dst, src unsafe.Pointer, n int64) {
	copy(unsafe.Slice((*byte)(dst), n), unsafe.Slice((*byte)(src), n))
}

// moveShort copies n <= shortBlock bytes with word moves: short blocks are
// common and a call to memmove costs more than the move (DAME point 2). The
// last word overlaps the previous one instead of looping over a byte tail.
// Kernels use it where n is the same for every call, so its branches predict
// well; for blocks of varying length memmove measured faster.
func moveShort(d, s unsafe.Pointer, n int64) {
	switch {
	case n >= 8:
		var i int64
		for ; i+16 <= n; i += 16 {
			*(*uint64)(at(d, i)) = *(*uint64)(at(s, i))
			*(*uint64)(at(d, i+8)) = *(*uint64)(at(s, i+8))
		}
		if i+8 < n {
			*(*uint64)(at(d, i)) = *(*uint64)(at(s, i))
		}
		*(*uint64)(at(d, n-8)) = *(*uint64)(at(s, n-8))
	case n >= 4:
		*(*uint32)(d) = *(*uint32)(s)
		*(*uint32)(at(d, n-4)) = *(*uint32)(at(s, n-4))
	case n >= 2:
		*(*uint16)(d) = *(*uint16)(s)
		*(*uint16)(at(d, n-2)) = *(*uint16)(at(s, n-2))
	case n == 1:
		*(*uint8)(d) = *(*uint8)(s)
	}
}

// shortBlock is the largest block moved by moveShort rather than memmove.
const shortBlock = 128

type kernelPair struct {
	name         string
	pack, unpack kernelFunc
}

// setKernel chooses n's kernels once, at compile time, from its shape.
func setKernel(n *node) {
	var k kernelPair
	switch n.op {
	case opLeaf:
		k = kernelPair{"leaf", packLeaf, unpackLeaf}
	case opVec:
		c := n.child
		switch {
		case c.op == opVec && c.child.op == opLeaf && c.child.size <= shortBlock:
			k = kernelPair{"vecvec", packVecVec, unpackVecVec}
		case c.op == opIdx && c.compact:
			k = vecIdxKernels[int32](c.chunk, "c")
		case c.op == opIdx:
			k = vecIdxKernels[int64](c.chunk, "")
		case c.op != opLeaf:
			k = kernelPair{"vec", packVec, unpackVec}
		case c.size == 8:
			k = kernelPair{"vec8", packVec8, unpackVec8}
		case c.size == 4:
			k = kernelPair{"vec4", packVec4, unpackVec4}
		case c.size == 16:
			k = kernelPair{"vec16", packVec16, unpackVec16}
		case fixedOK(c.size):
			k, _, _ = fixedKernels(c.size, false)
		case c.size <= shortBlock:
			k = kernelPair{"vecshort", packVecShort, unpackVecShort}
		default:
			k = kernelPair{"veclong", packVecLong, unpackVecLong}
		}
	case opIdx:
		if _, ik, ok := fixedKernels(n.uniform, n.compact); ok && n.uniform > 0 {
			k = ik
		} else if n.compact {
			k = idxKernels[int32](n.chunk, "c")
		} else {
			k = idxKernels[int64](n.chunk, "")
		}
	case opBlk:
		k = kernelPair{"blk", packBlk, unpackBlk}
		if n.child.op == opLeaf && n.child.size <= shortBlock {
			k = kernelPair{"blkleaf", packBlkLeaf, unpackBlkLeaf}
		}
	case opSeq:
		k = kernelPair{"seq", packSeq, unpackSeq}
	}
	n.kname, n.pack, n.unpack = k.name, k.pack, k.unpack
}

// idxKernels returns the kernels of a byte-block index whose blocks all fit
// in chunk bytes (0: some do not); suffix marks int32 arrays in names.
func idxKernels[I idxInt](chunk int64, suffix string) kernelPair {
	switch chunk {
	case 16:
		return kernelPair{"idx16" + suffix, packIdxChunk[[16]byte, I], unpackIdxChunk[[16]byte, I]}
	case 32:
		return kernelPair{"idx32" + suffix, packIdxChunk[[32]byte, I], unpackIdxChunk[[32]byte, I]}
	case 64:
		return kernelPair{"idx64" + suffix, packIdxChunk[[64]byte, I], unpackIdxChunk[[64]byte, I]}
	case 128:
		return kernelPair{"idx128" + suffix, packIdxChunk[[128]byte, I], unpackIdxChunk[[128]byte, I]}
	}
	return kernelPair{"idx" + suffix, packIdx[I], unpackIdx[I]}
}

// vecIdxKernels is idxKernels for a vector of byte-block indexes.
func vecIdxKernels[I idxInt](chunk int64, suffix string) kernelPair {
	switch chunk {
	case 16:
		return kernelPair{"vecidx16" + suffix, packVecIdxChunk[[16]byte, I], unpackVecIdxChunk[[16]byte, I]}
	case 32:
		return kernelPair{"vecidx32" + suffix, packVecIdxChunk[[32]byte, I], unpackVecIdxChunk[[32]byte, I]}
	case 64:
		return kernelPair{"vecidx64" + suffix, packVecIdxChunk[[64]byte, I], unpackVecIdxChunk[[64]byte, I]}
	case 128:
		return kernelPair{"vecidx128" + suffix, packVecIdxChunk[[128]byte, I], unpackVecIdxChunk[[128]byte, I]}
	}
	return kernelPair{"vecidx" + suffix, packVecIdx[I], unpackVecIdx[I]}
}

func packLeaf(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	move(at(p, po), at(u, uo+n.off+i0), i1-i0)
}

func unpackLeaf(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	move(at(u, uo+n.off+i0), at(p, po), i1-i0)
}

// ntPack is the packed size from which a vector of 8-byte leaves is packed
// with non-temporal stores (ntcopy.Gather8): output that large leaves the
// caches anyway, and storing around them spares reading each line before
// writing it (glibc's memcpy does the same from a few MiB).
const ntPack = 4 << 20

// Vectors of 8-byte leaves: the stride-2 double vector of the anchors.
func packVec8(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	s := n.stride
	o := uo + n.off + n.child.off + i0*s
	k := i1 - i0
	i := int64(0)
	if a := uintptr(p) + uintptr(po); ntcopy.Have && k*8 >= ntPack && a%8 == 0 {
		// Words up to a line boundary, whole lines, then the rest.
		h := int64(-a&63) / 8
		for ; i < h; i++ {
			*(*uint64)(at(p, po+8*i)) = *(*uint64)(at(u, o))
			o += s
		}
		lines := (k - h) / 8
		ntcopy.Gather8(at(p, po+8*i), at(u, o), uintptr(s), uintptr(lines))
		i += 8 * lines
		o += 8 * lines * s
	}
	for ; i+4 <= k; i += 4 {
		a := *(*uint64)(at(u, o))
		b := *(*uint64)(at(u, o+s))
		c := *(*uint64)(at(u, o+2*s))
		d := *(*uint64)(at(u, o+3*s))
		*(*uint64)(at(p, po+8*i)) = a
		*(*uint64)(at(p, po+8*i+8)) = b
		*(*uint64)(at(p, po+8*i+16)) = c
		*(*uint64)(at(p, po+8*i+24)) = d
		o += 4 * s
	}
	for ; i < k; i++ {
		*(*uint64)(at(p, po+8*i)) = *(*uint64)(at(u, o))
		o += s
	}
}

func unpackVec8(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	s := n.stride
	o := uo + n.off + n.child.off + i0*s
	k := i1 - i0
	i := int64(0)
	for ; i+4 <= k; i += 4 {
		a := *(*uint64)(at(p, po+8*i))
		b := *(*uint64)(at(p, po+8*i+8))
		c := *(*uint64)(at(p, po+8*i+16))
		d := *(*uint64)(at(p, po+8*i+24))
		*(*uint64)(at(u, o)) = a
		*(*uint64)(at(u, o+s)) = b
		*(*uint64)(at(u, o+2*s)) = c
		*(*uint64)(at(u, o+3*s)) = d
		o += 4 * s
	}
	for ; i < k; i++ {
		*(*uint64)(at(u, o)) = *(*uint64)(at(p, po+8*i))
		o += s
	}
}

func packVec4(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	s := n.stride
	o := uo + n.off + n.child.off + i0*s
	for i := int64(0); i < i1-i0; i++ {
		*(*uint32)(at(p, po+4*i)) = *(*uint32)(at(u, o))
		o += s
	}
}

func unpackVec4(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	s := n.stride
	o := uo + n.off + n.child.off + i0*s
	for i := int64(0); i < i1-i0; i++ {
		*(*uint32)(at(u, o)) = *(*uint32)(at(p, po+4*i))
		o += s
	}
}

func packVec16(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	s := n.stride
	o := uo + n.off + n.child.off + i0*s
	for i := int64(0); i < i1-i0; i++ {
		*(*[2]uint64)(at(p, po+16*i)) = *(*[2]uint64)(at(u, o))
		o += s
	}
}

func unpackVec16(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	s := n.stride
	o := uo + n.off + n.child.off + i0*s
	for i := int64(0); i < i1-i0; i++ {
		*(*[2]uint64)(at(u, o)) = *(*[2]uint64)(at(p, po+16*i))
		o += s
	}
}

func packVecShort(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	s, l := n.stride, n.child.size
	o := uo + n.off + n.child.off + i0*s
	for i := i0; i < i1; i++ {
		moveShort(at(p, po), at(u, o), l)
		po += l
		o += s
	}
}

func unpackVecShort(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	s, l := n.stride, n.child.size
	o := uo + n.off + n.child.off + i0*s
	for i := i0; i < i1; i++ {
		moveShort(at(u, o), at(p, po), l)
		po += l
		o += s
	}
}

func packVecLong(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	s, l := n.stride, n.child.size
	o := uo + n.off + n.child.off + i0*s
	for i := i0; i < i1; i++ {
		move(at(p, po), at(u, o), l)
		po += l
		o += s
	}
}

func unpackVecLong(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	s, l := n.stride, n.child.size
	o := uo + n.off + n.child.off + i0*s
	for i := i0; i < i1; i++ {
		move(at(u, o), at(p, po), l)
		po += l
		o += s
	}
}

// packVec runs the child's kernel per element: nesting depth costs one
// indirect call per child instance, not per byte.
func packVec(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	c := n.child
	o := uo + n.off + i0*n.stride
	for i := i0; i < i1; i++ {
		c.pack(c, p, po, u, o, 0, c.count)
		po += c.size
		o += n.stride
	}
}

func unpackVec(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	c := n.child
	o := uo + n.off + i0*n.stride
	for i := i0; i < i1; i++ {
		c.unpack(c, p, po, u, o, 0, c.count)
		po += c.size
		o += n.stride
	}
}

// chunk is the fixed move of the short-block kernels; each size is its own
// instantiation, so the move compiles to a few vector loads and stores.
type chunk interface {
	[16]byte | [32]byte | [64]byte | [128]byte
}

// packIdxChunk packs byte blocks of at most len(A) bytes each with one
// fixed-size move per block, branch-free: it reads past the block's end and
// writes past its packed end, and the next block overwrites the excess. It is
// used for blocks [i0, e) where e keeps both inside bounds: reads stay below
// the node's true upper bound (blocks before n.fast, found at compile time)
// and writes below the end of this call's packed range.
func packIdxChunk[A chunk, I idxInt](n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	var z A
	dispAll, preAll := idxArrays[I](n)
	e := max(i0, min(i1, n.fast))
	if lim := int64(preAll[i1]) - int64(len(z)); e > i0 {
		if lim < int64(preAll[i0]) {
			e = i0
		} else {
			e = min(e, i0+search(preAll[i0:i1], lim)+1)
		}
	}
	if e > i0 {
		disp, pre := dispAll[i0:e], preAll[i0:e+1]
		o := uo + n.off
		var zi I
		if len(z) == 128 && unsafe.Sizeof(zi) == 4 && haveShortAVX {
			// The same in assembly: the generic copy of A is a call to
			// memmove per block.
			packShortAVX(unsafe.Pointer(&disp[0]), unsafe.Pointer(&pre[0]), len(disp), at(p, po), u, o)
			po += int64(pre[len(disp)] - pre[0])
		} else {
			for i, d := range disp {
				*(*A)(at(p, po)) = *(*A)(at(u, o+int64(d)))
				po += int64(pre[i+1] - pre[i])
			}
		}
	}
	packIdx[I](n, p, po, u, uo, e, i1)
}

// unpackIdxChunk unpacks byte blocks of 8 to len(A) bytes each without a
// branch on the length, which varies from block to block and so would be
// mispredicted (memmove's size classes are such branches): it reads len(A)
// packed bytes, past the block's end, and stores them 16 bytes at a time, each
// store either inside the block or, past its end, into a scratch buffer, the
// destination picked by a conditional move; then the block's last 16 bytes
// (or, under 16, its first and last 8) exactly. The user's bytes between
// blocks are never written. Blocks under 8 bytes, and those whose read would
// pass the end of this call's packed range, take memmove.
func unpackIdxChunk[A chunk, I idxInt](n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	dispAll, preAll := idxArrays[I](n)
	end := po + int64(preAll[i1]-preAll[i0])
	unpackChunks[A](dispAll[i0:i1], preAll[i0:i1+1], p, po, end, u, uo+n.off)
}

// unpackVecIdxChunk is unpackIdxChunk for a vector of byte-block indexes
// (count > 1 of an indexed type, or a vector of one).
func unpackVecIdxChunk[A chunk, I idxInt](n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	c := n.child
	disp, pre := idxArrays[I](c)
	end := po + (i1-i0)*c.size
	o := uo + n.off + c.off + i0*n.stride
	for i := i0; i < i1; i++ {
		unpackChunks[A](disp, pre, p, po, end, u, o)
		po += c.size
		o += n.stride
	}
}

// unpackChunks unpacks the blocks disp (pre: their packed offsets, one more)
// from p+po to u+o+disp[i]; packed bytes may be read up to p+end.
func unpackChunks[A chunk, I idxInt](disp, pre []I, p unsafe.Pointer, po, end int64, u unsafe.Pointer, o int64) {
	var z A
	var zi I
	ch := int64(len(z))
	var scratch [32]byte
	sp := unsafe.Pointer(&scratch)
	if ch == 128 && unsafe.Sizeof(zi) == 4 && haveShortAVX && len(disp) > 0 {
		// The same in assembly with 32-byte stores, for the blocks whose
		// 128-byte read stays below end; the rest below.
		if x := int64(pre[0]) + end - po - ch; x >= int64(pre[0]) {
			e := search(pre[:len(disp)], x) + 1
			unpackShortAVX(unsafe.Pointer(&disp[0]), unsafe.Pointer(&pre[0]), int(e), at(p, po), u, o, sp)
			po += int64(pre[e] - pre[0])
			disp, pre = disp[e:], pre[e:]
		}
	}
	for i, d := range disp {
		l := int64(pre[i+1] - pre[i])
		dst, src := at(u, o+int64(d)), at(p, po)
		if l < 8 || po+ch > end {
			move(dst, src, l)
			po += l
			continue
		}
		for k := int64(0); k < ch; k += 16 {
			t, to := dst, k
			if k+16 > l {
				t, to = sp, 0
			}
			*(*[16]byte)(at(t, to)) = *(*[16]byte)(at(src, k))
		}
		t, to, so := dst, l-16, l-16
		if l < 16 {
			t, to, so = sp, 0, 0
		}
		*(*[16]byte)(at(t, to)) = *(*[16]byte)(at(src, so))
		*(*uint64)(dst) = *(*uint64)(src)
		*(*uint64)(at(dst, l-8)) = *(*uint64)(at(src, l-8))
		po += l
	}
}

// idxArrays returns the arrays of a byte-block index as I, which the caller
// chose from n.compact.
func idxArrays[I idxInt](n *node) (disp, pre []I) {
	var z I
	if unsafe.Sizeof(z) == 4 {
		return *(*[]I)(unsafe.Pointer(&n.d32)), *(*[]I)(unsafe.Pointer(&n.p32))
	}
	return *(*[]I)(unsafe.Pointer(&n.disp)), *(*[]I)(unsafe.Pointer(&n.pre))
}

// packVecIdxChunk packs a vector of short-block indexes (a Go struct with
// padding, repeated) with the same fixed moves, checking per block the two
// conditions packIdxChunk checks per call; both branches are predictable.
func packVecIdxChunk[A chunk, I idxInt](n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	var z A
	var zi I
	c := n.child
	ch := int64(len(z))
	end := po + (i1-i0)*c.size
	disp, pre := idxArrays[I](c)
	fast := int(c.fast)
	o := uo + n.off + c.off + i0*n.stride
	asm := ch == 128 && unsafe.Sizeof(zi) == 4 && haveShortAVX && fast > 0
	for i := i0; i < i1; i++ {
		b0 := 0
		if asm {
			// The leading fast blocks whose move stays below end (all of
			// them but in the last instances) in assembly, as packIdxChunk.
			e := fast
			if lim := end - ch - po + int64(pre[0]); int64(pre[e-1]) > lim {
				e = 0
				if lim >= int64(pre[0]) {
					e = int(search(pre[:fast], lim)) + 1
				}
			}
			if e > 0 {
				packShortAVX(unsafe.Pointer(&disp[0]), unsafe.Pointer(&pre[0]), e, at(p, po), u, o)
				po += int64(pre[e] - pre[0])
				b0 = e
			}
		}
		for b := b0; b < len(disp); b++ {
			d := disp[b]
			l := int64(pre[b+1] - pre[b])
			if b < fast && po+ch <= end {
				*(*A)(at(p, po)) = *(*A)(at(u, o+int64(d)))
			} else {
				move(at(p, po), at(u, o+int64(d)), l)
			}
			po += l
		}
		o += n.stride
	}
}

// packIdx moves blocks of bytes.
func packIdx[I idxInt](n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	dispAll, preAll := idxArrays[I](n)
	disp, pre := dispAll[i0:i1], preAll[i0:i1+1]
	uo += n.off
	for i, d := range disp {
		l := int64(pre[i+1] - pre[i])
		move(at(p, po), at(u, uo+int64(d)), l)
		po += l
	}
}

func unpackIdx[I idxInt](n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	dispAll, preAll := idxArrays[I](n)
	disp, pre := dispAll[i0:i1], preAll[i0:i1+1]
	uo += n.off
	for i, d := range disp {
		l := int64(pre[i+1] - pre[i])
		move(at(u, uo+int64(d)), at(p, po), l)
		po += l
	}
}

func packBlk(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	c := n.child
	for i := i0; i < i1; i++ {
		o := uo + n.off + n.disp[i]
		for j := n.cnt[i]; j > 0; j-- {
			c.pack(c, p, po, u, o, 0, c.count)
			po += c.size
			o += n.cstride
		}
	}
}

func unpackBlk(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	c := n.child
	for i := i0; i < i1; i++ {
		o := uo + n.off + n.disp[i]
		for j := n.cnt[i]; j > 0; j-- {
			c.unpack(c, p, po, u, o, 0, c.count)
			po += c.size
			o += n.cstride
		}
	}
}

func packSeq(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	for i := i0; i < i1; i++ {
		c := n.kids[i]
		c.pack(c, p, po, u, uo+n.off+n.disp[i], 0, c.count)
		po += c.size
	}
}

func unpackSeq(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	for i := i0; i < i1; i++ {
		c := n.kids[i]
		c.unpack(c, p, po, u, uo+n.off+n.disp[i], 0, c.count)
		po += c.size
	}
}

// Two-level kernels: a vector of vectors of leaves (matrix columns, faces of
// 3-d arrays) and blocks of non-adjacent leaves run as plain nested loops
// instead of one indirect call per inner vector.

func packVecVec(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	c := n.child
	g := c.child
	l, cs, cn := g.size, c.stride, c.count
	o := uo + n.off + c.off + g.off + i0*n.stride
	for i := i0; i < i1; i++ {
		q := o
		if l == 8 {
			for j := int64(0); j < cn; j++ {
				*(*uint64)(at(p, po)) = *(*uint64)(at(u, q))
				po += 8
				q += cs
			}
		} else {
			for j := int64(0); j < cn; j++ {
				moveShort(at(p, po), at(u, q), l)
				po += l
				q += cs
			}
		}
		o += n.stride
	}
}

func unpackVecVec(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	c := n.child
	g := c.child
	l, cs, cn := g.size, c.stride, c.count
	o := uo + n.off + c.off + g.off + i0*n.stride
	for i := i0; i < i1; i++ {
		q := o
		if l == 8 {
			for j := int64(0); j < cn; j++ {
				*(*uint64)(at(u, q)) = *(*uint64)(at(p, po))
				po += 8
				q += cs
			}
		} else {
			for j := int64(0); j < cn; j++ {
				moveShort(at(u, q), at(p, po), l)
				po += l
				q += cs
			}
		}
		o += n.stride
	}
}

// packBlkLeaf packs blocks of copies of a leaf that are not adjacent (a
// resized element).
func packBlkLeaf(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	g := n.child
	l := g.size
	for i := i0; i < i1; i++ {
		o := uo + n.off + n.disp[i] + g.off
		for j := n.cnt[i]; j > 0; j-- {
			moveShort(at(p, po), at(u, o), l)
			po += l
			o += n.cstride
		}
	}
}

func unpackBlkLeaf(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	g := n.child
	l := g.size
	for i := i0; i < i1; i++ {
		o := uo + n.off + n.disp[i] + g.off
		for j := n.cnt[i]; j > 0; j-- {
			moveShort(at(u, o), at(p, po), l)
			po += l
			o += n.cstride
		}
	}
}

// packVecIdx packs a vector of byte-block indexes, each block with memmove.
func packVecIdx[I idxInt](n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	c := n.child
	disp, pre := idxArrays[I](c)
	o := uo + n.off + c.off + i0*n.stride
	for i := i0; i < i1; i++ {
		for b, d := range disp {
			l := int64(pre[b+1] - pre[b])
			move(at(p, po), at(u, o+int64(d)), l)
			po += l
		}
		o += n.stride
	}
}

func unpackVecIdx[I idxInt](n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	c := n.child
	disp, pre := idxArrays[I](c)
	o := uo + n.off + c.off + i0*n.stride
	for i := i0; i < i1; i++ {
		for b, d := range disp {
			l := int64(pre[b+1] - pre[b])
			move(at(u, o+int64(d)), at(p, po), l)
			po += l
		}
		o += n.stride
	}
}

// fixed is an element or block size that gets its own exact-move kernels:
// sizes common in MPI types (pairs are 12 bytes, padded structs 24...).
type fixed interface {
	[1]byte | [2]byte | [12]byte | [24]byte | [32]byte | [48]byte | [64]byte | [4]byte | [8]byte | [16]byte
}

// fixedKernels returns exact-move kernels for vectors of leaves and for
// byte-block indexes (with int32 arrays if compact) whose blocks are all l
// bytes, or ok == false.
func fixedKernels(l int64, compact bool) (vec, idx kernelPair, ok bool) {
	switch l {
	case 1:
		return fixedKernelsOf[[1]byte]("1", compact)
	case 2:
		return fixedKernelsOf[[2]byte]("2", compact)
	case 4:
		return fixedKernelsOf[[4]byte]("4", compact)
	case 8:
		return fixedKernelsOf[[8]byte]("8", compact)
	case 12:
		return fixedKernelsOf[[12]byte]("12", compact)
	case 16:
		return fixedKernelsOf[[16]byte]("16", compact)
	case 24:
		return fixedKernelsOf[[24]byte]("24", compact)
	case 32:
		return fixedKernelsOf[[32]byte]("32", compact)
	case 48:
		return fixedKernelsOf[[48]byte]("48", compact)
	case 64:
		return fixedKernelsOf[[64]byte]("64", compact)
	}
	return kernelPair{}, kernelPair{}, false
}

func fixedOK(l int64) bool {
	_, _, ok := fixedKernels(l, false)
	return ok
}

func fixedKernelsOf[A fixed](name string, compact bool) (vec, idx kernelPair, ok bool) {
	vec = kernelPair{"vecfix" + name, packVecFixed[A], unpackVecFixed[A]}
	if compact {
		idx = kernelPair{"idxfix" + name + "c", packIdxFixed[A, int32], unpackIdxFixed[A, int32]}
	} else {
		idx = kernelPair{"idxfix" + name, packIdxFixed[A, int64], unpackIdxFixed[A, int64]}
	}
	return vec, idx, true
}

func packVecFixed[A fixed](n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	var z A
	l, s := int64(len(z)), n.stride
	o := uo + n.off + n.child.off + i0*s
	for i := range i1 - i0 {
		*(*A)(at(p, po+i*l)) = *(*A)(at(u, o))
		o += s
	}
}

func unpackVecFixed[A fixed](n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	var z A
	l, s := int64(len(z)), n.stride
	o := uo + n.off + n.child.off + i0*s
	for i := range i1 - i0 {
		*(*A)(at(u, o)) = *(*A)(at(p, po+i*l))
		o += s
	}
}

// packIdxFixed packs blocks that all have len(A) bytes (block-indexed
// gathers of elements): no lengths to read, one exact move per block.
func packIdxFixed[A fixed, I idxInt](n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	var z A
	l := int64(len(z))
	o := uo + n.off
	disp, _ := idxArrays[I](n)
	for i, d := range disp[i0:i1] {
		*(*A)(at(p, po+int64(i)*l)) = *(*A)(at(u, o+int64(d)))
	}
}

func unpackIdxFixed[A fixed, I idxInt](n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, i0, i1 int64) {
	var z A
	l := int64(len(z))
	o := uo + n.off
	disp, _ := idxArrays[I](n)
	for i, d := range disp[i0:i1] {
		*(*A)(at(u, o+int64(d))) = *(*A)(at(p, po+int64(i)*l))
	}
}
