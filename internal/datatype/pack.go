package datatype

import (
	"fmt"
	"io"
	"unsafe"
)

// PackSize returns the packed size of count instances of t (MPI_Pack_size).
func (t *Type) PackSize(count int64) (int64, error) {
	if t == nil {
		return 0, argErr("t", "nil type")
	}
	if err := checkCount("count", count); err != nil {
		return 0, err
	}
	n, of := mul(count, t.size)
	if of {
		return 0, fmt.Errorf("%w: count %d * size %d", ErrOverflow, count, t.size)
	}
	return n, nil
}

// Span returns the bytes [lo, hi), relative to the buffer's base address,
// that count instances of t touch: the memory a user buffer must provide.
func (t *Type) Span(count int64) (lo, hi int64, err error) {
	if t == nil {
		return 0, 0, argErr("t", "nil type")
	}
	if err := checkCount("count", count); err != nil {
		return 0, 0, err
	}
	return t.span(0, count)
}

// span returns the user bytes [lo, hi) that count instances of t touch,
// relative to the start of a buffer whose base address is at origin.
func (t *Type) span(origin, count int64) (lo, hi int64, err error) {
	if t.size == 0 || count == 0 {
		return origin, origin, nil
	}
	var c checked
	last := c.mul(count-1, t.Extent())
	lo = c.add(c.add(origin, t.tlb), min(0, last))
	hi = c.add(c.add(origin, t.tub), max(0, last))
	if c.of {
		return 0, 0, fmt.Errorf("%w: %d instances of %s", ErrOverflow, count, t.Name())
	}
	return lo, hi, nil
}

// ready checks that t can be used for packing.
func (t *Type) ready() error {
	if t == nil {
		return argErr("t", "nil type")
	}
	if t.freed {
		return ErrFreed
	}
	if !t.committed.Load() {
		return ErrNotCommitted
	}
	return t.prepare()
}

// userSpan checks once per call that the engine stays inside buf: the
// kernels that follow do no bounds checks.
func userSpan(arg string, buf []byte, lo, hi int64) error {
	if lo < 0 {
		return fmt.Errorf("%w: %s: type reaches %d bytes before the buffer base; give an origin", ErrBuffer, arg, -lo)
	}
	if hi > int64(len(buf)) {
		return fmt.Errorf("%w: %s: type needs %d bytes from the start of the slice, have %d", ErrBuffer, arg, hi, len(buf))
	}
	return nil
}

// Pack packs count instances of t from src into dst and returns the number of
// bytes written (MPI_Pack). The buffer's base address (MPI's buf) is src[0];
// use PackAt for types with a negative true lower bound. dst must hold
// PackSize(count) bytes.
func (t *Type) Pack(dst, src []byte, count int64) (int64, error) {
	return t.PackAt(dst, src, 0, count)
}

// PackAt is Pack with the buffer's base address at src[origin], so that
// types reaching below their base address can be packed.
func (t *Type) PackAt(dst, src []byte, origin, count int64) (int64, error) {
	return t.xfer(dst, src, origin, count, false)
}

// Unpack unpacks count instances of t from the packed bytes src into dst,
// whose base address is dst[0], and returns the number of packed bytes read
// (MPI_Unpack). Arguments are in copy's order: destination first.
func (t *Type) Unpack(dst, src []byte, count int64) (int64, error) {
	return t.UnpackAt(dst, 0, src, count)
}

// UnpackAt is Unpack with the buffer's base address at dst[origin].
func (t *Type) UnpackAt(dst []byte, origin int64, src []byte, count int64) (int64, error) {
	return t.xfer(src, dst, origin, count, true)
}

// xfer moves count whole instances between the packed buffer p and the user
// buffer u (whose base address is u[origin]).
func (t *Type) xfer(p, u []byte, origin, count int64, up bool) (int64, error) {
	if err := t.ready(); err != nil {
		return 0, err
	}
	total, err := t.PackSize(count)
	if err != nil {
		return 0, err
	}
	parg, uarg := "dst", "src"
	if up {
		parg, uarg = "src", "dst"
	}
	if total > int64(len(p)) {
		return 0, fmt.Errorf("%w: %s: %d bytes, need %d for %d x %s", ErrBuffer, parg, len(p), total, count, t.Name())
	}
	lo, hi, err := t.span(origin, count)
	if err != nil {
		return 0, err
	}
	if err := userSpan(uarg, u, lo, hi); err != nil {
		return 0, err
	}
	if total == 0 {
		return 0, nil
	}
	run(t, count, unsafe.Pointer(unsafe.SliceData(p)), 0, unsafe.Pointer(unsafe.SliceData(u)), origin, 0, total, up)
	return total, nil
}

// run moves packed bytes [lo, hi) of count instances of t; instance k's base
// address is u+uo+k*extent, and p+po is where packed byte lo goes.
func run(t *Type, count int64, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, lo, hi int64, up bool) {
	n := t.prog
	if t.contig {
		// Instances are adjacent: one move of the whole range.
		if up {
			move(at(u, uo+n.off+lo), at(p, po), hi-lo)
		} else {
			move(at(p, po), at(u, uo+n.off+lo), hi-lo)
		}
		return
	}
	copies(n, t.Extent(), t.rep, p, po, u, uo, lo, hi, up)
}

// copies moves packed bytes [lo, hi) of copies of c whose i-th base address
// is u+uo+i*stride: a partial first copy, whole copies by the kernel of
// rep (a vector of c at stride) or else, and for one copy, c's own (chosen
// for c's shape), and a partial last copy.
func copies(c *node, stride int64, rep *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, lo, hi int64, up bool) {
	cs := c.size
	i0, o0 := lo/cs, lo%cs
	i1, o1 := hi/cs, hi%cs
	if i0 == i1 {
		walk(c, p, po, u, uo+i0*stride, o0, o1, up)
		return
	}
	if o0 > 0 {
		walk(c, p, po, u, uo+i0*stride, o0, cs, up)
		po += cs - o0
		i0++
	}
	switch {
	case i0 == i1:
	case rep != nil && i1-i0 > 1:
		if up {
			rep.unpack(rep, p, po, u, uo, i0, i1)
		} else {
			rep.pack(rep, p, po, u, uo, i0, i1)
		}
		po += (i1 - i0) * cs
	default:
		k := c.pack
		if up {
			k = c.unpack
		}
		for i := i0; i < i1; i++ {
			k(c, p, po, u, uo+i*stride, 0, c.count)
			po += cs
		}
	}
	if o1 > 0 {
		walk(c, p, po, u, uo+i1*stride, 0, o1, up)
	}
}

// walk moves packed bytes [lo, hi) of one instance of n at base u+uo. It
// descends only along the partial first and last items, so a fragment costs
// O(depth * log(blocks)) beyond the bytes moved.
func walk(n *node, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, lo, hi int64, up bool) {
	if lo >= hi {
		return
	}
	k := n.pack
	if up {
		k = n.unpack
	}
	if lo == 0 && hi == n.size {
		k(n, p, po, u, uo, 0, n.count)
		return
	}
	switch n.op {
	case opLeaf:
		k(n, p, po, u, uo, lo, hi)
	case opVec:
		c := n.child
		cs := c.size
		base := uo + n.off
		i0, o0 := lo/cs, lo%cs
		i1, o1 := hi/cs, hi%cs
		if i0 == i1 {
			walk(c, p, po, u, base+i0*n.stride, o0, o1, up)
			return
		}
		if o0 > 0 {
			walk(c, p, po, u, base+i0*n.stride, o0, cs, up)
			po += cs - o0
			i0++
		}
		if i1 > i0 {
			k(n, p, po, u, uo, i0, i1)
			po += (i1 - i0) * cs
		}
		if o1 > 0 {
			walk(c, p, po, u, base+i1*n.stride, 0, o1, up)
		}
	default:
		b0 := n.itemAt(lo)
		b1 := n.count
		if hi < n.size {
			b1 = n.itemAt(hi)
		}
		o0, o1 := lo-n.preAt(b0), hi-n.preAt(b1)
		if b0 == b1 {
			item(n, b0, p, po, u, uo, o0, o1, up)
			return
		}
		if o0 > 0 {
			item(n, b0, p, po, u, uo, o0, n.preAt(b0+1)-n.preAt(b0), up)
			po += n.preAt(b0+1) - lo
			b0++
		}
		if b1 > b0 {
			k(n, p, po, u, uo, b0, b1)
			po += n.preAt(b1) - n.preAt(b0)
		}
		if o1 > 0 {
			item(n, b1, p, po, u, uo, 0, o1, up)
		}
	}
}

// item moves packed bytes [lo, hi) of item b of a block node.
func item(n *node, b int64, p unsafe.Pointer, po int64, u unsafe.Pointer, uo int64, lo, hi int64, up bool) {
	base := uo + n.off + n.dispAt(b)
	switch n.op {
	case opIdx:
		if up {
			move(at(u, base+lo), at(p, po), hi-lo)
		} else {
			move(at(p, po), at(u, base+lo), hi-lo)
		}
	case opBlk:
		copies(n.child, n.cstride, nil, p, po, u, base, lo, hi, up)
	case opSeq:
		walk(n.kids[b], p, po, u, base, lo, hi, up)
	}
}

// search returns the largest i with pre[i] <= x (pre ascending), or 0.
func search[I idxInt](pre []I, x int64) int64 {
	lo, hi := 0, len(pre)
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if int64(pre[m]) <= x {
			lo = m
		} else {
			hi = m
		}
	}
	return int64(lo)
}

// Cursor packs or unpacks count instances of a type in fragments of any
// size, starting at any packed offset. Its state is the packed offset: the
// position in the program is found again by descending the program along the
// path to that offset (O(depth) steps, a binary search in block nodes), so a
// cursor is a few words, can be copied, and allocates nothing per fragment.
//
// The zero Cursor is unusable; make one with NewCursor or Init. A cursor made
// before its type is freed keeps working: MPI_Type_free lets the communication
// already using the type complete normally (the type's program is kept alive by
// the cursor).
type Cursor struct {
	t      *Type
	count  int64
	total  int64
	pos    int64
	origin int64
	lo, hi int64 // user bytes touched, relative to the slice start
}

// NewCursor returns a cursor at packed offset 0 over count instances of the
// committed type t, with the buffer's base address at the start of the user
// slices.
func NewCursor(t *Type, count int64) (*Cursor, error) {
	c := new(Cursor)
	if err := c.Init(t, count); err != nil {
		return nil, err
	}
	return c, nil
}

// Init (re)initialises c in place, so a cursor can live inside a request
// without an allocation.
func (c *Cursor) Init(t *Type, count int64) error {
	if err := t.ready(); err != nil {
		return err
	}
	total, err := t.PackSize(count)
	if err != nil {
		return err
	}
	lo, hi, err := t.span(0, count)
	if err != nil {
		return err
	}
	*c = Cursor{t: t, count: count, total: total, lo: lo, hi: hi}
	return nil
}

// SetOrigin places the buffer's base address at byte origin of the user
// slices passed to Pack and Unpack.
func (c *Cursor) SetOrigin(origin int64) error {
	if c.t == nil {
		return argErr("c", "cursor not initialised")
	}
	lo, hi, err := c.t.span(origin, c.count)
	if err != nil {
		return err
	}
	if lo < 0 {
		return argErr("origin", "type reaches %d bytes before the buffer base at origin %d", -lo, origin)
	}
	c.origin, c.lo, c.hi = origin, lo, hi
	return nil
}

// Reset moves c back to packed offset 0.
func (c *Cursor) Reset() { c.pos = 0 }

// Seek moves c within the packed stream as io.Seeker does (whence is
// io.SeekStart, io.SeekCurrent or io.SeekEnd); the new offset must lie in
// 0..Size().
func (c *Cursor) Seek(offset int64, whence int) (int64, error) {
	var base int64
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		base = c.pos
	case io.SeekEnd:
		base = c.total
	default:
		return c.pos, argErr("whence", "must be io.SeekStart, io.SeekCurrent or io.SeekEnd, got %d", whence)
	}
	off, of := add(base, offset)
	if of || off < 0 || off > c.total {
		return c.pos, argErr("offset", "resulting offset must be in 0..%d", c.total)
	}
	c.pos = off
	return off, nil
}

// Offset returns the packed offset of the next byte.
func (c *Cursor) Offset() int64 { return c.pos }

// Size returns the total packed size.
func (c *Cursor) Size() int64 { return c.total }

// Remaining returns the packed bytes left.
func (c *Cursor) Remaining() int64 { return c.total - c.pos }

// Done reports whether every byte has been moved.
func (c *Cursor) Done() bool { return c.pos == c.total }

// Pack packs the next min(len(dst), Remaining()) bytes from the user buffer
// src into dst and returns how many it wrote.
func (c *Cursor) Pack(dst, src []byte) (int, error) {
	return c.step(dst, src, false)
}

// Unpack unpacks the next min(len(src), Remaining()) packed bytes from src
// into the user buffer dst and returns how many it consumed.
func (c *Cursor) Unpack(dst, src []byte) (int, error) {
	return c.step(src, dst, true)
}

func (c *Cursor) step(p, u []byte, up bool) (int, error) {
	if c.t == nil {
		return 0, argErr("c", "cursor not initialised")
	}
	n := min(int64(len(p)), c.total-c.pos)
	if n <= 0 {
		return 0, nil
	}
	arg := "src"
	if up {
		arg = "dst"
	}
	if c.lo < 0 {
		return 0, fmt.Errorf("%w: %s: type reaches %d bytes before the buffer base; set an origin", ErrBuffer, arg, -c.lo)
	}
	if c.hi > int64(len(u)) {
		return 0, fmt.Errorf("%w: %s: type needs %d bytes from the start of the slice, have %d", ErrBuffer, arg, c.hi, len(u))
	}
	run(c.t, c.count, unsafe.Pointer(unsafe.SliceData(p)), 0, unsafe.Pointer(unsafe.SliceData(u)), c.origin, c.pos, c.pos+n, up)
	c.pos += n
	return int(n), nil
}
