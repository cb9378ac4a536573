package datatype

import (
	"encoding/binary"
	"fmt"
)

// External32Size returns the external32 size of count instances of t
// (MPI_Pack_external_size). Every predefined type's native size on 64-bit
// platforms equals its external32 size, so this equals PackSize.
func (t *Type) External32Size(count int64) (int64, error) { return t.PackSize(count) }

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
// format: big-endian, fixed sizes (MPI_Pack_external). It is a native pack
// followed by an in-place byte swap of each element.
func (t *Type) PackExternal(dst, src []byte, count int64) (int64, error) {
	n, err := t.Pack(dst, src, count)
	if err != nil {
		return 0, err
	}
	for k := range count {
		swapType(t, dst[k*t.size:(k+1)*t.size])
	}
	return n, nil
}

// UnpackExternal unpacks count instances of t in external32 format from src
// into dst (MPI_Unpack_external). It swaps a copy of the packed bytes, so it
// allocates PackSize(count) bytes per call: external32 is for portability,
// not for the fast path.
func (t *Type) UnpackExternal(dst, src []byte, count int64) (int64, error) {
	if err := t.ready(); err != nil {
		return 0, err
	}
	total, err := t.PackSize(count)
	if err != nil {
		return 0, err
	}
	if total > int64(len(src)) {
		return 0, fmt.Errorf("%w: src: %d bytes, need %d", ErrBuffer, len(src), total)
	}
	tmp := append([]byte(nil), src[:total]...)
	for k := range count {
		swapType(t, tmp[k*t.size:(k+1)*t.size])
	}
	return t.Unpack(dst, tmp, count)
}

// swapType byte-swaps the packed bytes b of one instance of t, element by
// element, in typemap order.
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
