package window

import (
	"sort"

	"github.com/mpigo/mpigo/internal/rma"
)

// The target side of a dynamic window: the memory the program attached, in address
// order, and how a request's pieces (addresses) find it. A program may attach
// regions side by side and address them as one (MPICH's
// rma/win_dynamic_rma_flush_get puts across two halves of one array, attached
// apart): a request inside one attachment is applied there, as in any window; one
// that spans attachments is applied to a copy of the bytes it touches, gathered from
// each and stored back after, which is as atomic as the rest, since every request to
// a dynamic window is applied by this rank's applier, one at a time (no origin maps
// its memory).

// run is a part of a request's pieces that lies in one attachment: pieces of mem, and
// the bytes [lo,hi) of the request's packed data they hold.
type run struct {
	mem    []byte
	ps     []rma.Piece
	lo, hi int64
}

// resolve finds the memory a request's pieces address and makes them offsets into
// it (in place), or says why they are not inside the window. When the pieces of a
// dynamic window's request span attachments, mem is a copy of the bytes they touch,
// in the request's packed order (ps one piece over it), and runs says where each
// came from: the caller stores back what it changed (store).
func (w *Win) resolve(base int64, ps []rma.Piece) (mem []byte, out []rma.Piece, runs []run, why string) {
	mem = w.mem
	if w.flavor == FlavorDynamic {
		lo, hi := rma.Span(ps)
		x, ok := w.attachedAt(base+lo, hi-lo)
		if !ok {
			return w.spanning(base, ps)
		}
		mem, base = x.mem, base-int64(x.addr)
	}
	for i := range ps {
		ps[i].Off += base
	}
	if err := rma.Check(ps, int64(len(mem))); err != nil {
		return nil, nil, nil, err.Error()
	}
	return mem, ps, nil, ""
}

const notAttached = "the access reaches memory not attached to the dynamic window"

// attachedAt finds the attachment that holds [addr, addr+n).
func (w *Win) attachedAt(addr, n int64) (attachment, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	i := w.attachmentAt(uintptr(addr))
	if i < 0 {
		return attachment{}, false
	}
	x := w.attached[i]
	return x, uintptr(addr+n) <= x.addr+uintptr(len(x.mem))
}

// attachmentAt is the index of the attachment holding address a, -1 if none (w.mu
// held).
func (w *Win) attachmentAt(a uintptr) int {
	i := sort.Search(len(w.attached), func(i int) bool { return w.attached[i].addr > a }) - 1
	for ; i >= 0; i-- { // empty attachments share their address with the next
		if x := w.attached[i]; a < x.addr+uintptr(len(x.mem)) {
			return i
		}
		if len(w.attached[i].mem) > 0 {
			break
		}
	}
	return -1
}

// spanning resolves pieces that no one attachment holds: each piece, from address
// base+Off, is cut where one attachment ends and the next begins.
func (w *Win) spanning(base int64, ps []rma.Piece) ([]byte, []rma.Piece, []run, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var runs []run
	var d int64
	for _, p := range ps {
		a, left := uintptr(base+p.Off), p.Len
		for left > 0 {
			i := w.attachmentAt(a)
			if i < 0 {
				return nil, nil, nil, notAttached
			}
			x := w.attached[i]
			off := int64(a - x.addr)
			m := min(left, int64(len(x.mem))-off)
			runs = append(runs, run{mem: x.mem, ps: []rma.Piece{{Off: off, Len: m}}, lo: d, hi: d + m})
			a, d, left = a+uintptr(m), d+m, left-m
		}
	}
	mem := make([]byte, d)
	for _, r := range runs {
		rma.Get(mem[r.lo:r.hi], r.mem, r.ps)
	}
	return mem, []rma.Piece{{Off: 0, Len: d}}, runs, ""
}

// store puts back into the attachments the copy that resolve gathered from runs.
func store(runs []run, mem []byte) {
	for _, r := range runs {
		rma.Put(r.mem, r.ps, mem[r.lo:r.hi])
	}
}
