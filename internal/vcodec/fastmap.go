package vcodec

import (
	"encoding/binary"
	"reflect"
	"unsafe"
)

// fastMap returns codecs for the common maps (string or int keys to ints, int64s,
// float64s or strings) that use Go's own map operations instead of reflect's, which
// cost more per entry. nil when t is not one of them.
func fastMap(t reflect.Type) (func(*Enc, unsafe.Pointer), func(*Dec, unsafe.Pointer)) {
	// Only the exact Go types: a map's memory belongs to its type's runtime
	// description, so a map of other named keys or values is left to reflect.
	switch t {
	case reflect.TypeFor[map[string]int]():
		return mapCodec[string, int, strC, intC[int]]()
	case reflect.TypeFor[map[string]int64]():
		return mapCodec[string, int64, strC, intC[int64]]()
	case reflect.TypeFor[map[string]float64]():
		return mapCodec[string, float64, strC, f64C]()
	case reflect.TypeFor[map[string]string]():
		return mapCodec[string, string, strC, strC]()
	case reflect.TypeFor[map[int]int]():
		return mapCodec[int, int, intC[int], intC[int]]()
	case reflect.TypeFor[map[int]string]():
		return mapCodec[int, string, intC[int], strC]()
	}
	return nil, nil
}

// elemCodec writes and reads one key or value, passed by value (nothing escapes).
type elemCodec[T any] interface {
	put(b []byte, v T) []byte
	get(d *Dec) T
}

type strC struct{}

func (strC) put(b []byte, v string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(v))), v...)
}

func (strC) get(d *Dec) string {
	b := d.take(d.uvarint())
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

type intC[T ~int | ~int64] struct{}

func (intC[T]) put(b []byte, v T) []byte { return binary.LittleEndian.AppendUint64(b, uint64(v)) }

func (intC[T]) get(d *Dec) T {
	if len(d.buf)-d.off < 8 {
		d.fail(errShort)
		return 0
	}
	v := binary.LittleEndian.Uint64(d.buf[d.off:])
	d.off += 8
	return T(v)
}

type f64C struct{}

func (f64C) put(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, *(*uint64)(unsafe.Pointer(&v)))
}

func (f64C) get(d *Dec) float64 {
	u := intC[int64]{}.get(d)
	return *(*float64)(unsafe.Pointer(&u))
}

// mapCodec encodes as the reflect path does: 0 for nil, else the length plus one, then
// keys and values.
func mapCodec[K comparable, V any, KC elemCodec[K], VC elemCodec[V]]() (func(*Enc, unsafe.Pointer), func(*Dec, unsafe.Pointer)) {
	var kc KC
	var vc VC
	return func(e *Enc, p unsafe.Pointer) {
			m := *(*map[K]V)(p)
			if m == nil {
				e.Buf = append(e.Buf, 0)
				return
			}
			b := binary.AppendUvarint(e.Buf, uint64(len(m))+1)
			for k, v := range m {
				b = vc.put(kc.put(b, k), v)
			}
			e.Buf = b
		}, func(d *Dec, p unsafe.Pointer) {
			n := d.uvarint()
			if n == 0 || d.err != nil {
				*(*map[K]V)(p) = nil
				return
			}
			n--
			if n > uint64(len(d.buf)-d.off) {
				d.fail(errShort)
				return
			}
			m := make(map[K]V, n)
			for range n {
				k := kc.get(d)
				v := vc.get(d)
				if d.err != nil {
					return
				}
				m[k] = v
			}
			*(*map[K]V)(p) = m
		}
}
