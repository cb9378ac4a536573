package datatype

import "fmt"

// Piece is a contiguous run of user memory: Len bytes at byte offset Off from
// the buffer's base address.
type Piece struct {
	Off, Len int64
}

// Iov describes count instances of t as contiguous pieces, in packed order,
// starting at packed offset from: it fills iov (merging pieces that touch)
// and returns how many it filled and the packed offset just after the last
// piece, from which a later call continues. next == PackSize(count) when the
// whole type has been described. A transport can use the pieces for
// scatter/gather I/O without packing.
func (t *Type) Iov(iov []Piece, count, from int64) (n int, next int64, err error) {
	if err := t.ready(); err != nil {
		return 0, 0, err
	}
	total, err := t.PackSize(count)
	if err != nil {
		return 0, 0, err
	}
	if from < 0 || from > total {
		return 0, 0, argErr("from", "must be in 0..%d, got %d", total, from)
	}
	if len(iov) == 0 {
		return 0, from, argErr("iov", "must have room for at least one piece")
	}
	s := iovState{iov: iov, pos: from}
	if from < total {
		if t.contig {
			s.add(t.prog.off+from, total-from)
		} else {
			s.copies(t.prog, t.Extent(), 0, from, total)
		}
	}
	return s.n, s.pos, nil
}

type iovState struct {
	iov []Piece
	n   int
	pos int64 // packed offset after the last piece
}

// add appends a piece; it returns false, consuming nothing, when iov is full.
func (s *iovState) add(off, l int64) bool {
	if s.n > 0 {
		if last := &s.iov[s.n-1]; last.Off+last.Len == off {
			last.Len += l
			s.pos += l
			return true
		}
	}
	if s.n == len(s.iov) {
		return false
	}
	s.iov[s.n] = Piece{off, l}
	s.n++
	s.pos += l
	return true
}

// copies emits packed bytes [lo, hi) of copies of c at uo + i*stride.
func (s *iovState) copies(c *node, stride, uo, lo, hi int64) bool {
	cs := c.size
	for i := lo / cs; i*cs < hi; i++ {
		if !s.node(c, uo+i*stride, max(lo-i*cs, 0), min(hi-i*cs, cs)) {
			return false
		}
	}
	return true
}

// node emits packed bytes [lo, hi) of one instance of n at base uo.
func (s *iovState) node(n *node, uo, lo, hi int64) bool {
	base := uo + n.off
	switch n.op {
	case opLeaf:
		return s.add(base+lo, hi-lo)
	case opVec:
		return s.copies(n.child, n.stride, base, lo, hi)
	}
	for b := n.itemAt(lo); b < n.count && n.preAt(b) < hi; b++ {
		pb := n.preAt(b)
		blo, bhi := max(lo-pb, 0), min(hi, n.preAt(b+1))-pb
		var ok bool
		switch n.op {
		case opIdx:
			ok = s.add(base+n.dispAt(b)+blo, bhi-blo)
		case opBlk:
			ok = s.copies(n.child, n.cstride, base+n.dispAt(b), blo, bhi)
		case opSeq:
			ok = s.node(n.kids[b], base+n.dispAt(b), blo, bhi)
		default:
			panic(fmt.Sprintf("datatype: internal error: op %d", n.op))
		}
		if !ok {
			return false
		}
	}
	return true
}
