package datatype

import (
	"fmt"
	"unsafe"
)

// Bound is count instances of a committed type over a user buffer whose base
// address is mem[0], checked once by Bind: the type was committed, the count is
// not negative, no size or bound overflows and every byte the instances touch
// lies inside mem. Packing or unpacking all of it then runs the kernels with no
// further checks, which is what a collective on a typed buffer does once per
// call. Freeing the type afterwards does not affect a Bound (MPI lets an
// operation in progress finish with a type freed under it). The zero Bound is
// empty: it packs nothing.
type Bound struct {
	t     *Type
	mem   []byte
	count int64
	size  int64 // packed bytes of all count instances
}

// Bind checks count instances of t over mem (base address mem[0]) and returns
// them bound. Its errors are Pack's: ErrArg for a nil type, ErrCount for a
// negative count, ErrNotCommitted, ErrOverflow, and ErrBuffer when the instances
// reach outside mem. It does not refuse a freed type, which stays usable by the
// operations that hold it; a caller starting a new operation checks IsFreed.
func (t *Type) Bind(mem []byte, count int64) (Bound, error) {
	switch {
	case t == nil:
		return Bound{}, argErr("t", "nil type")
	case !t.committed.Load():
		return Bound{}, ErrNotCommitted
	}
	if err := t.prepare(); err != nil {
		return Bound{}, err
	}
	if uint64(count) <= uint64(t.safe) {
		// The common case: nothing can overflow, and the span is the true
		// bounds widened by the extent of count-1 instances.
		size := count * t.size
		if size == 0 {
			return Bound{t: t, mem: mem, count: count}, nil
		}
		last := (count - 1) * (t.ub - t.lb)
		if lo, hi := t.tlb+min(0, last), t.tub+max(0, last); lo >= 0 && hi <= int64(len(mem)) {
			return Bound{t: t, mem: mem, count: count, size: size}, nil
		}
	}
	return t.bindSlow(mem, count)
}

// bindSlow is Bind with every check spelled out and its error.
func (t *Type) bindSlow(mem []byte, count int64) (Bound, error) {
	size, err := t.PackSize(count)
	if err != nil {
		return Bound{}, err
	}
	lo, hi, err := t.span(0, count)
	if err != nil {
		return Bound{}, err
	}
	if err := userSpan("buf", mem, lo, hi); err != nil {
		return Bound{}, err
	}
	return Bound{t: t, mem: mem, count: count, size: size}, nil
}

// Type is the bound type (nil for the zero Bound).
func (b *Bound) Type() *Type { return b.t }

// Count is the number of instances bound.
func (b *Bound) Count() int64 { return b.count }

// Mem is the user buffer.
func (b *Bound) Mem() []byte { return b.mem }

// Size is the packed size of the instances: the bytes Pack writes.
func (b *Bound) Size() int64 { return b.size }

// Contiguous returns the user memory that already is the packed stream, when the
// type's instances are one run of bytes.
func (b *Bound) Contiguous() ([]byte, bool) {
	if b.size == 0 {
		return b.mem[:0], true
	}
	if !b.t.contig {
		return nil, false
	}
	off := b.t.tlb
	return b.mem[off : off+b.size], true
}

// Pack packs every instance into dst, which must hold Size() bytes.
func (b *Bound) Pack(dst []byte) error { return b.move(dst, false) }

// Unpack unpacks Size() bytes of src into the instances.
func (b *Bound) Unpack(src []byte) error { return b.move(src, true) }

// move runs the kernel of all the instances: one move for a contiguous type, the
// program's own kernel for one instance, the count's vector kernel for more.
func (b *Bound) move(p []byte, up bool) error {
	if b.size == 0 {
		return nil
	}
	if int64(len(p)) < b.size {
		return b.short(len(p), up)
	}
	t, pp, u := b.t, unsafe.Pointer(unsafe.SliceData(p)), unsafe.Pointer(unsafe.SliceData(b.mem))
	n := t.prog
	switch {
	case t.contig:
		run(t, b.count, pp, 0, u, 0, 0, b.size, up)
	case b.count == 1 && up:
		n.unpack(n, pp, 0, u, 0, 0, n.count)
	case b.count == 1:
		n.pack(n, pp, 0, u, 0, 0, n.count)
	case up:
		t.rep.unpack(t.rep, pp, 0, u, 0, 0, b.count)
	default:
		t.rep.pack(t.rep, pp, 0, u, 0, 0, b.count)
	}
	return nil
}

func (b *Bound) short(have int, up bool) error {
	arg := "dst"
	if up {
		arg = "src"
	}
	return fmt.Errorf("%w: %s: %d bytes, need %d for %d x %s", ErrBuffer, arg, have, b.size, b.count, b.t.Name())
}
