package shmcoll

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/ntcopy"
)

// Gathers, two ways. An Allgather's ranks all wait for all anyway, so it takes an op
// as a reduction does (Put, Take): every rank puts its block where a reduction puts
// its contribution (the inline line of the op's bank when it holds at most inlineMax
// bytes, else its slot of the bank), publishes the block's length beside arrive and
// raises arrive, and copies every other rank's block out once it came. A Gather's
// blocks go through cells instead (below). Either way a block too long for the region
// goes by other means (the collective layer's: a message to the root, or the
// schedules): its rank puts no data and publishes the length with farBit set, so the
// collector follows each sender's way rather than its own guess of it, and a sender
// whose length differs from the collector's block (erroneous) is reported by the
// collector, never waited for on a way it did not take.

// farBit in a gather op's length word: the block went by other means.
const farBit = 1 << 63

// A Gather's blocks do not take an op: the non-roots would wait for the root to
// enter the previous one (the banks' rule), a round trip per call where a Gather's
// senders, as an eager send's, need not wait at all. Each rank has instead a ring of
// GatherCells cells of its own, one per blocking Gather (Own.G counts them on every
// rank alike): a non-root writes its block (at most GatherInline bytes, else farBit
// and the length) into cell g mod GatherCells and raises the cell's sequence word to
// g; the root of gather g copies every other rank's cell g out and then raises its
// taken word (fTaken) to g. A rank reuses cell g mod GatherCells once the root of
// gather g-GatherCells (Own.Roots) has taken it, which it rarely has to wait for. A
// cell is two lines, its words and the block's first cellHead bytes, and an extension
// elsewhere for the rest (cellExt bytes), so that the rings of small blocks stay
// within few pages. A cell holds a block of 8 KiB, which it moves faster than a
// message does; the extensions' stride is no multiple of 4 KiB, so that a rank's 16
// do not all fall in the same sets of the cache (docs/BENCHMARKS.md).
const (
	// GatherCells is the cells per rank; a non-root runs at most this many Gathers
	// ahead of their roots.
	GatherCells = 16
	gatherCell  = 2 * lineSize // a cell: its sequence word, its length word, the block's head
	cellHead    = gatherCell - 16
	cellExt     = 129 * lineSize // the rest of a cell's block, in the extensions' area
	// GatherInline is the longest block a cell holds.
	GatherInline = cellHead + cellExt
	fTaken       = 56 // in a rank's flags line: the last Gather it took as root
	ownSize      = 2 * lineSize
)

// Own fills its two lines exactly (code outside Go mirrors it field for field).
var _ [0]struct{} = [unsafe.Sizeof(Own{}) - ownSize]struct{}{}

// cell is rank r's cell of Gather g: its sequence word, its length word, the block's
// head and the rest's extension.
func (g *Group) cell(r int, n uint64) (seq, lw *uint64, head, ext []byte) {
	k := r*GatherCells + int(n%GatherCells)
	off := g.l.cellsOff() + k*gatherCell
	x := g.l.extOff() + k*cellExt
	return (*uint64)(unsafe.Pointer(&g.mem[off])), (*uint64)(unsafe.Pointer(&g.mem[off+8])),
		g.mem[off+16 : off+gatherCell : off+gatherCell], g.mem[x : x+cellExt : x+cellExt]
}

// cellPut copies block b (at most GatherInline bytes) into a cell's head and
// extension; cellGet copies what fits in dst of a cell's block of n bytes.
func cellPut(head, ext, b []byte) {
	k := copy(head, b)
	if k < len(b) {
		copy(ext, b[k:])
	}
}

func cellGet(dst, head, ext []byte, n int) {
	n = min(n, len(dst))
	k := copy(dst[:n], head)
	if k < n {
		copy(dst[k:n], ext)
	}
}

// GatherPut is a non-root's part of the next Gather, to root: its block b in its
// cell, or, longer than GatherInline or far, its length alone (the block goes by
// other means, and the root follows). It waits only while the root of the Gather
// that last used the cell has not taken it.
func (g *Group) GatherPut(b []byte, far bool, root int) error {
	if g.err != nil {
		return g.err
	}
	o := g.o
	n := o.G + 1
	i := n % GatherCells
	if old := int(o.Roots[i]); n > GatherCells && old != g.rank {
		if err := g.taken(old, n-GatherCells); err != nil {
			return err
		}
	}
	seq, lw, head, ext := g.cell(g.rank, n)
	w := uint64(len(b))
	if far || len(b) > GatherInline {
		w |= farBit
	} else {
		cellPut(head, ext, b)
	}
	*lw = w
	g.raiseAt(seq, n)
	o.G, o.Roots[i] = n, uint16(root)
	return nil
}

// taken waits until rank r has taken Gather n as its root, remembering what it read.
func (g *Group) taken(r int, n uint64) error {
	o := g.o
	if int(o.GKnown&0xffff) == r && o.GKnown>>16 >= n {
		return nil
	}
	p := g.flag(r, fTaken)
	if err := g.waitAt(r, p, n); err != nil {
		return err
	}
	o.GKnown = atomic.LoadUint64(p)<<16 | uint64(r)
	return nil
}

// GatherBegin is the root's start of the next Gather: it returns its number.
func (g *Group) GatherBegin() (uint64, error) {
	if g.err != nil {
		return 0, g.err
	}
	o := g.o
	o.G++
	o.Roots[o.G%GatherCells] = uint16(g.rank)
	return o.G, nil
}

// GatherTake is the root's copy of rank r's block of Gather n into dst (what fits),
// once it came, unless it went by other means (far). It returns the block's length.
func (g *Group) GatherTake(r int, n uint64, dst []byte) (int, bool, error) {
	seq, lw, head, ext := g.cell(r, n)
	if atomic.LoadUint64(seq) < n {
		if err := g.waitAt(r, seq, n); err != nil {
			return 0, false, err
		}
	}
	w := *lw
	m := int(w &^ farBit)
	if w&farBit != 0 {
		return m, true, nil
	}
	cellGet(dst, head, ext, m)
	return m, false, nil
}

// GatherEnd is the root's end of Gather n: every block taken, the cells are free.
func (g *Group) GatherEnd(n uint64) { g.raise(fTaken, n) }

// Put starts this rank's part of the next gather op: its block b goes into the
// region (far: it goes by other means; b's length is published, no data), and arrive
// is raised. It returns the op's number, which Take needs, or 0 when it could not take
// the op (late says why: the group failed, or b does not fit a slot). Broadcast lines
// this rank owed are taken first, as before every op; a truncation one of them
// reports (erroneous) is late's, with the op taken all the same, to be reported after
// the call.
func (g *Group) Put(b []byte, far bool) (s uint64, late error) {
	if !far {
		s, d, late := g.PutBegin(len(b))
		if s != 0 {
			ntcopy.Move(d, b)
			g.PutEnd(s, len(b))
		}
		return s, late
	}
	return g.PutLen(len(b))
}

// PutLen is Put of a block of n bytes that goes by other means: its length alone.
func (g *Group) PutLen(n int) (s uint64, late error) {
	if s, late = g.putOp(0); s != 0 {
		*g.lenWord(g.rank, s) = uint64(n) | farBit
		g.raise(fArrive, s)
	}
	return s, late
}

// PutBegin is Put of a block of n bytes that the caller writes into d, in the
// region, before PutEnd publishes it: so a block made of pieces (an Alltoallv's) is
// written once.
func (g *Group) PutBegin(n int) (s uint64, d []byte, late error) {
	if s, late = g.putOp(n); s == 0 {
		return 0, nil, late
	}
	if n <= inlineMax {
		_, d = g.inline(g.rank, s)
		return s, d[:n], late
	}
	return s, g.slot(s, g.rank)[:n], late
}

// PutEnd publishes the n bytes PutBegin's op s was given, and raises arrive.
func (g *Group) PutEnd(s uint64, n int) {
	if n <= inlineMax {
		seq, _ := g.inline(g.rank, s)
		g.raiseAt(seq, s<<8|uint64(n))
	}
	*g.lenWord(g.rank, s) = uint64(n)
	g.raise(fArrive, s)
}

// putOp takes the next op for a block of n bytes (0 where it goes by other means),
// as Put: 0 where it cannot (late says why).
func (g *Group) putOp(n int) (s uint64, late error) {
	if g.err != nil {
		return 0, g.err
	}
	if n > g.l.Slot {
		return 0, fmt.Errorf("gather: block of %d bytes exceeds the region's slot (%d)", n, g.l.Slot)
	}
	if g.o.Owed != 0 {
		if late = g.Settle(); g.err != nil {
			return 0, g.err
		}
	}
	s, err := g.nextBank()
	if err != nil {
		return 0, err
	}
	return s, late
}

// Take waits for rank r's block of op s (r != this rank) and copies what fits of it
// into dst, unless it went by other means (far: nothing copied). It returns the
// block's length. A length other than len(dst) is the caller's to report (Check).
func (g *Group) Take(r int, s uint64, dst []byte) (n int, far bool, err error) {
	return g.TakePart(r, s, 0, 1, dst)
}

// TakePart is Take of part k of the parts equal parts of rank r's block (a Scatter's
// rank takes its own of the root's): what fits of it is copied into dst. It returns
// the whole block's length.
func (g *Group) TakePart(r int, s uint64, k, parts int, dst []byte) (n int, far bool, err error) {
	b, n, far, err := g.Block(r, s)
	if err == nil && !far {
		copyPart(dst, b, k, parts)
	}
	return n, far, err
}

// Block waits for rank r's block of op s (r != this rank) and returns it: b, n bytes
// of the region, to be read before this rank takes its next op, or its length alone
// where it went by other means (far).
func (g *Group) Block(r int, s uint64) (b []byte, n int, far bool, err error) {
	seq, d := g.inline(r, s)
	v := atomic.LoadUint64(seq)
	if v>>8 != s {
		if err := g.waitEither(r, seq, s<<8, g.flag(r, fArrive), s); err != nil {
			return nil, 0, false, err
		}
		v = atomic.LoadUint64(seq)
	}
	if v>>8 == s {
		n = int(v & 0xff)
		return d[:n], n, false, nil
	}
	w := atomic.LoadUint64(g.lenWord(r, s))
	n = int(w &^ farBit)
	if w&farBit != 0 {
		return nil, n, true, nil
	}
	return g.slot(s, r)[:n], n, false, nil
}

// copyPart copies what fits of part k of the parts equal parts of b into dst.
func copyPart(dst, b []byte, k, parts int) {
	m := len(b) / parts
	ntcopy.Move(dst, b[k*m:k*m+min(m, len(dst))])
}

// A Reduce takes the cells too: its non-roots, as a Gather's, need not wait for the
// root, and an op would make them (the banks' rule). Every rank of a Reduce takes a
// cell, whatever its length. A non-root's contribution of at most GatherInline bytes
// goes into its cell and the rank leaves; the root combines the cells as they come,
// from the highest rank down, in MPI's order (inout = in ⊕ inout, in from the lower
// ranks), as the op way does. A longer contribution goes by other means (the
// caller's: the reductions' ops, or the schedules), and its rank publishes the length
// alone (farBit). Every rank must take the other means or none, whatever its length
// (an erroneous call's ranks may pass different ones). The rule: they all do when
// every non-root's contribution went alone with one length, and the root then follows
// that length's way with its own buffers, which finds its own length if it differs.
// A non-root that went alone reads the other non-roots' cells to know: it goes on when
// all agree with it, and stops with a CountError when one does not (the root sees it
// too). A peer's cell is safe to read only while the root has not taken the Reduce
// (after, the peer may reuse it); where the root has, the non-root takes the root's
// verdict instead: the root, where the non-roots did not agree, marks each cell that
// went alone rejected (rejectBit, with its own length) before raising its taken word.

// rejectBit in a far cell's length word: the root of its Reduce found that some rank's
// length differed from its own, which the word then holds.
const rejectBit = 1 << 62

// CellHead is how many bytes of a block a cell holds before its extension: a
// reduction's kernel may run on the two parts apart when its unit divides it.
const CellHead = cellHead

// ReducePut is a non-root's part of the next Reduce, to root: its contribution b in
// its cell, or, longer than GatherInline, its length alone, after which it learns
// whether the Reduce goes on by other means (agree): nil, every other non-root's
// contribution went alone with b's length; a CountError naming a rank that differs.
func (g *Group) ReducePut(b []byte, root int) error {
	long := len(b) > GatherInline
	if err := g.GatherPut(b, long, root); err != nil {
		return err
	}
	if !long {
		return nil
	}
	return g.agree(len(b), root)
}

// agree is ReducePut's look at the other non-roots' cells of this rank's last Reduce,
// whose contribution of total bytes went alone, or at the root's verdict.
func (g *Group) agree(total, root int) error {
	n := g.o.G
	taken := g.flag(root, fTaken)
	verdict := false
	for j := 0; j < g.size; j++ {
		if j == g.rank || j == root {
			continue
		}
		seq, lw, _, _ := g.cell(j, n)
		if err := g.waitAt(j, seq, n); err != nil {
			return err
		}
		s, w := atomic.LoadUint64(seq), atomic.LoadUint64(lw)
		// The root not having taken the Reduce after the length was read, j had not
		// reused its cell when it was (it waits for that first).
		if s != n || atomic.LoadUint64(taken) >= n {
			verdict = true
			continue
		}
		if w&farBit == 0 || int(w&^farBit) != total {
			return &CountError{Rank: j, Len: int(w &^ farBit), Want: total}
		}
	}
	if !verdict {
		return nil
	}
	if err := g.taken(root, n); err != nil {
		return err
	}
	_, lw, _, _ := g.cell(g.rank, n)
	if w := atomic.LoadUint64(lw); w&rejectBit != 0 {
		return &CountError{Rank: root, Len: int(w &^ (farBit | rejectBit)), Want: total}
	}
	return nil
}

// ReduceRoot is the root's part of the next Reduce: own is its contribution (acc
// itself in place), and acc, of own's length, gets the result of k over every rank's,
// each other rank's read from its cell as it comes; split says whether k may run on a
// cell's head and extension apart (else the block is first copied into tmp). tmp
// holds at least 2*GatherInline bytes. Where every non-root's contribution went alone
// with one length, follow is that length: the caller takes its way with its own
// buffers (which reports its own length if it differs); a root alone follows its own
// when it is longer than a cell. Otherwise a length that differs from own's is a
// CountError (the highest such rank's), reported once every cell was read and each
// long one rejected; follow is -1 where nothing is left to do.
func (g *Group) ReduceRoot(own, acc []byte, k Kernel, split bool, tmp []byte) (follow int, err error) {
	if g.err != nil {
		return -1, g.err
	}
	n, l, far, agree := g.o.G+1, -1, false, true
	for j := 0; j < g.size; j++ {
		if j == g.rank {
			continue
		}
		seq, lw, _, _ := g.cell(j, n)
		if err := g.waitAt(j, seq, n); err != nil {
			return -1, err
		}
		w := atomic.LoadUint64(lw)
		switch m := int(w &^ farBit); {
		case w&farBit == 0:
			agree = false
		case l < 0:
			far, l = true, m
		case m != l:
			agree = false
		}
	}
	if far && agree {
		if _, err := g.GatherBegin(); err != nil {
			return -1, err
		}
		g.GatherEnd(n)
		return l, nil
	}
	if err := g.reduceRoot(own, acc, k, split, tmp); err != nil {
		return -1, err
	}
	if len(own) > GatherInline {
		return len(own), nil
	}
	return -1, nil
}

// reduceRoot is ReduceRoot's reading and combining of every cell.
func (g *Group) reduceRoot(own, acc []byte, k Kernel, split bool, tmp []byte) error {
	n, err := g.GatherBegin()
	if err != nil {
		return err
	}
	total := len(own)
	long := total > GatherInline
	var first error
	if len(acc) != total {
		first = fmt.Errorf("reduction: len(recv) %d != len(send) %d", len(acc), total)
	} else if !long && g.rank != g.size-1 && total > 0 && same(own, acc) {
		copy(tmp[:total], own)
		own = tmp[:total]
	}
	for j := g.size - 1; j >= 0; j-- {
		top := j == g.size-1
		if j == g.rank {
			if first == nil && !long && total > 0 {
				if top {
					if !same(own, acc) {
						copy(acc, own)
					}
				} else {
					k(acc, own)
				}
			}
			continue
		}
		seq, lw, head, ext := g.cell(j, n)
		if atomic.LoadUint64(seq) < n {
			if err := g.waitAt(j, seq, n); err != nil {
				return err
			}
		}
		w := atomic.LoadUint64(lw)
		if m := int(w &^ farBit); m != total || (w&farBit != 0) != long {
			if first == nil {
				first = &CountError{Rank: j, Len: m, Want: total}
			}
			continue
		}
		if first != nil || long || total == 0 {
			continue
		}
		switch {
		case top:
			cellGet(acc, head, ext, total)
		case split:
			h := min(total, cellHead)
			k(acc[:h], head[:h])
			if total > h {
				k(acc[h:], ext[:total-h])
			}
		default:
			x := tmp[GatherInline : GatherInline+total]
			cellGet(x, head, ext, total)
			k(acc, x)
		}
	}
	if first != nil {
		for j := 0; j < g.size; j++ {
			if j == g.rank {
				continue
			}
			_, lw, _, _ := g.cell(j, n)
			if w := atomic.LoadUint64(lw); w&farBit != 0 {
				atomic.StoreUint64(lw, farBit|rejectBit|uint64(total))
			}
		}
	}
	g.GatherEnd(n)
	return first
}

// same reports whether a and b are the same bytes.
func same(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
