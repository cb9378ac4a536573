package core

import "encoding/binary"

// wire reads what the dynamic-process exchanges write with binary.AppendUvarint and
// length-prefixed byte strings. The first short or malformed read sets bad; every
// read after it returns zero values, so a decoder checks bad once, at its end, and
// never reads past its input.
type wire struct {
	b   []byte
	bad bool
}

// uint reads one uvarint.
func (r *wire) uint() uint64 {
	v, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[k:]
	return v
}

// count reads a uvarint that counts items of at least one byte each still to come.
func (r *wire) count() int {
	n := r.uint()
	if n > uint64(len(r.b)) {
		r.fail()
		return 0
	}
	return int(n)
}

// bytes reads a length-prefixed byte string (aliasing the input).
func (r *wire) bytes() []byte {
	n := r.count()
	if r.bad {
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *wire) fail() { r.bad, r.b = true, nil }

// appendBytes writes b length-prefixed, as wire.bytes reads it.
func appendBytes(dst, b []byte) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(b))), b...)
}
