package datatype

import (
	"encoding/binary"
	"fmt"
)

// external32 (MPI 4.1 §19.3.5 and the table of its sizes): every basic element
// big-endian, byte aligned, at a fixed size. For the Go element types that size is
// the native one, so a native pack followed by an in-place byte swap per element is
// the whole conversion. C's long, unsigned long, wchar_t and long double are not:
// their types (CLong, CUlong, Wchar, LongDouble, ...) carry an xrep, and a type
// containing one (xconv) converts element by element between its native packed
// form and a separate external one.

// xop is how a basic element with an xrep converts.
type xop uint8

const (
	xSwap       xop = iota // units of ns bytes, each byte-swapped
	xNarrowS               // signed integers of ns bytes, xs bytes externally
	xNarrowU               // unsigned integers of ns bytes, xs bytes externally
	xLongDouble            // x87 extended precision in ns=16 bytes, IEEE binary128 externally
)

// xrep is the external32 form of a basic element: n units of ns native bytes,
// each xs bytes externally.
type xrep struct {
	op     xop
	n      int64
	ns, xs int64
}

// External32Size returns the external32 size of count instances of t
// (MPI_Pack_external_size).
func (t *Type) External32Size(count int64) (int64, error) {
	if t == nil {
		return 0, argErr("t", "nil type")
	}
	if err := checkCount("count", count); err != nil {
		return 0, err
	}
	n, of := mul(count, t.xsize)
	if of {
		return 0, fmt.Errorf("%w: count %d * external32 size %d", ErrOverflow, count, t.xsize)
	}
	return n, nil
}

// swapUnit returns the byte-swap unit of elements of kind k, or 0 when k is
// not one uniform element size (pairs, mixtures).
func swapUnit(k Kind) int64 {
	switch k {
	case KindInt8, KindUint8, KindBool, KindByte:
		return 1
	case KindInt16, KindUint16:
		return 2
	case KindInt32, KindUint32, KindFloat32, KindComplex64:
		return 4
	case KindInt64, KindUint64, KindInt, KindUint, KindFloat64, KindComplex128:
		return 8
	}
	return 0
}

// PackExternal packs count instances of t from src into dst in external32
// format: big-endian, fixed sizes (MPI_Pack_external). dst must hold
// External32Size(count) bytes.
func (t *Type) PackExternal(dst, src []byte, count int64) (int64, error) {
	return t.PackExternalAt(dst, src, 0, count)
}

// PackExternalAt is PackExternal with the buffer's base address at src[origin].
func (t *Type) PackExternalAt(dst, src []byte, origin, count int64) (int64, error) {
	if err := t.ready(); err != nil {
		return 0, err
	}
	total, err := t.External32Size(count)
	if err != nil {
		return 0, err
	}
	if total > int64(len(dst)) {
		return 0, fmt.Errorf("%w: dst: %d bytes, need %d for %d x %s in external32", ErrBuffer, len(dst), total, count, t.Name())
	}
	if !t.xconv {
		// Native and external sizes agree: pack, then swap in place.
		n, err := t.PackAt(dst, src, origin, count)
		if err != nil {
			return 0, err
		}
		for k := range count {
			swapType(t, dst[k*t.size:(k+1)*t.size])
		}
		return n, nil
	}
	// Sizes differ: pack natively aside, then convert each element.
	nat := make([]byte, count*t.size)
	if _, err := t.PackAt(nat, src, origin, count); err != nil {
		return 0, err
	}
	for k := range count {
		xconvert(t, nat[k*t.size:], dst[k*t.xsize:], true)
	}
	return total, nil
}

// UnpackExternal unpacks count instances of t in external32 format from src
// into dst (MPI_Unpack_external). It converts a copy of the packed bytes, so it
// allocates per call: external32 is for portability, not for the fast path.
func (t *Type) UnpackExternal(dst, src []byte, count int64) (int64, error) {
	return t.UnpackExternalAt(dst, 0, src, count)
}

// UnpackExternalAt is UnpackExternal with the buffer's base address at dst[origin].
func (t *Type) UnpackExternalAt(dst []byte, origin int64, src []byte, count int64) (int64, error) {
	if err := t.ready(); err != nil {
		return 0, err
	}
	total, err := t.External32Size(count)
	if err != nil {
		return 0, err
	}
	if total > int64(len(src)) {
		return 0, fmt.Errorf("%w: src: %d bytes, need %d for %d x %s in external32", ErrBuffer, len(src), total, count, t.Name())
	}
	nat := make([]byte, count*t.size)
	for k := range count {
		if t.xconv {
			xconvert(t, nat[k*t.size:], src[k*t.xsize:], false)
		} else {
			copy(nat[k*t.size:(k+1)*t.size], src[k*t.size:])
			swapType(t, nat[k*t.size:(k+1)*t.size])
		}
	}
	if _, err := t.UnpackAt(dst, origin, nat, count); err != nil {
		return 0, err
	}
	return total, nil
}

// swapType byte-swaps the packed bytes b of one instance of t, element by
// element, in typemap order. t has no xrep elements.
func swapType(t *Type, b []byte) {
	if u := swapUnit(t.kind); u > 0 {
		swapAll(b, u)
		return
	}
	d := &t.def
	switch d.op {
	case defResized:
		swapType(d.old, b)
	case defVec:
		sz := d.old.size
		for k := range d.count * d.blen {
			swapType(d.old, b[k*sz:(k+1)*sz])
		}
	case defBlocks:
		var p int64
		for i := range d.nblocks() {
			blk := d.block(i)
			for range blk.n {
				swapType(blk.t, b[p:p+blk.t.size])
				p += blk.t.size
			}
		}
	}
}

// xconvert converts one instance of t between its native packed bytes nat and
// its external32 bytes ext, in the direction toExt.
func xconvert(t *Type, nat, ext []byte, toExt bool) {
	if !t.xconv {
		if toExt {
			copy(ext[:t.size], nat)
			swapType(t, ext[:t.size])
		} else {
			copy(nat[:t.size], ext)
			swapType(t, nat[:t.size])
		}
		return
	}
	if x := t.xr; x != nil {
		for i := range x.n {
			xbasic(x, nat[i*x.ns:(i+1)*x.ns], ext[i*x.xs:(i+1)*x.xs], toExt)
		}
		return
	}
	d := &t.def
	var pn, px int64
	each := func(c *Type, n int64) {
		for range n {
			xconvert(c, nat[pn:], ext[px:], toExt)
			pn += c.size
			px += c.xsize
		}
	}
	switch d.op {
	case defResized:
		xconvert(d.old, nat, ext, toExt)
	case defVec:
		each(d.old, d.count*d.blen)
	case defBlocks:
		for i := range d.nblocks() {
			b := d.block(i)
			each(b.t, b.n)
		}
	}
}

// xbasic converts one unit of an xrep element.
func xbasic(x *xrep, nat, ext []byte, toExt bool) {
	switch x.op {
	case xSwap:
		if toExt {
			for i := range x.ns {
				ext[i] = nat[x.ns-1-i]
			}
		} else {
			for i := range x.ns {
				nat[i] = ext[x.ns-1-i]
			}
		}
	case xNarrowS, xNarrowU:
		if toExt {
			v := readLE(nat[:x.ns])
			for i := range x.xs {
				ext[x.xs-1-i] = byte(v >> (8 * i))
			}
			return
		}
		var v uint64
		for i := range x.xs {
			v = v<<8 | uint64(ext[i])
		}
		if sh := 64 - 8*x.xs; x.op == xNarrowS {
			v = uint64(int64(v<<sh) >> sh)
		}
		for i := range x.ns {
			nat[i] = byte(v >> (8 * i))
		}
	case xLongDouble:
		if toExt {
			x87ToQuad(nat, ext)
		} else {
			quadToX87(ext, nat)
		}
	}
}

func readLE(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// x87ToQuad writes the x87 extended-precision value in the first 10 bytes of
// n (64-bit significand with an explicit integer bit, then sign and 15-bit
// exponent, little-endian) as a big-endian IEEE binary128 in q[:16]. Both have
// a 15-bit exponent of bias 16383, denormals included, so the fraction's 63
// bits move to the top of binary128's 112 and nothing is rounded.
func x87ToQuad(n, q []byte) {
	mant := binary.LittleEndian.Uint64(n[0:])
	se := binary.LittleEndian.Uint16(n[8:])
	frac := mant &^ (1 << 63)
	hi := uint64(se)<<48 | frac>>15
	lo := frac << 49
	binary.BigEndian.PutUint64(q[0:], hi)
	binary.BigEndian.PutUint64(q[8:], lo)
}

// quadToX87 is x87ToQuad's inverse; the 49 low fraction bits binary128 has
// beyond x87's precision are truncated. The padding bytes n[10:16] are zeroed.
func quadToX87(q, n []byte) {
	hi := binary.BigEndian.Uint64(q[0:])
	lo := binary.BigEndian.Uint64(q[8:])
	se := uint16(hi >> 48)
	frac := (hi&(1<<48-1))<<15 | lo>>49
	mant := frac
	if se&0x7fff != 0 {
		mant |= 1 << 63 // normal numbers, infinities and NaNs have the integer bit
	}
	binary.LittleEndian.PutUint64(n[0:], mant)
	binary.LittleEndian.PutUint16(n[8:], se)
	clear(n[10:16])
}

func swapAll(b []byte, u int64) {
	switch u {
	case 2:
		for i := 0; i+2 <= len(b); i += 2 {
			binary.BigEndian.PutUint16(b[i:], binary.NativeEndian.Uint16(b[i:]))
		}
	case 4:
		for i := 0; i+4 <= len(b); i += 4 {
			binary.BigEndian.PutUint32(b[i:], binary.NativeEndian.Uint32(b[i:]))
		}
	case 8:
		for i := 0; i+8 <= len(b); i += 8 {
			binary.BigEndian.PutUint64(b[i:], binary.NativeEndian.Uint64(b[i:]))
		}
	}
}
