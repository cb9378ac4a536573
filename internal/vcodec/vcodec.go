// Package vcodec encodes Go values of any type as bytes, for mpi's value messages (the
// encoding path, beside the buffer path of typed slices and datatypes).
//
// Contract:
//   - A Codec is made once per Go type (For caches it) and refuses, naming the field
//     path, a type that holds what has no value to send: channels, functions,
//     unsafe pointers and interfaces.
//   - Both ends are the same program on machines of one architecture (MPI's
//     homogeneous case): memory without pointers (numbers, bools, arrays and structs of
//     them) travels as its bytes, unconverted, and so do unexported fields.
//   - A message names its type by a hash of the type's structure (kinds, lengths, field
//     names; not its name, so a named type and its underlying type agree) and carries
//     the sender's type name, so a receiver expecting another type refuses the message
//     naming both, without decoding anything.
//   - A value of a plain type (no pointers) is a plain message: an 8-byte word (a
//     marker byte and 56 bits of the hash), the value's bytes, then the sender's type
//     name and its length as a trailer. A receiver of the same type checks the word and
//     the length (PlainMsg) and copies the bytes; it reads the name only to report a
//     mismatch. Every other value is a general message (a 20-byte header, the name,
//     the encoding).
//   - Decoding never panics on bytes that are not a message of the type: it fails.
//   - Slices of pointer-free elements are not copied out of a received message: the
//     value shares the message's memory (with cap = len, so an append never reaches
//     the bytes after it). Strings share it too. Large ones (at least Enc.OOBMin
//     bytes) are not in the message at all: the encoder lists them (Enc.OOB) for the
//     caller to send as messages of their own straight from the value's memory, and the
//     decoder allocates them and lists their memory (Dec.OOB) for the caller to receive
//     into, so a large value is never copied by the encoding.
//
// Why a codec of mpigo's own (docs/BENCHMARKS.md, value messages): plans compiled per
// type over unsafe pointers, with no type descriptions in the stream, encode and decode
// the bench's values faster than encoding/gob, msgpack or CBOR, and the out-of-band
// slices need a hook the others do not have.
package vcodec

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/rawmem"
)

// Codec encodes and decodes values of one Go type.
type Codec struct {
	t     reflect.Type
	key   uintptr        // typeKey(t)
	pkey  atomic.Uintptr // the address of *t's descriptor, once ForPtrKey saw it
	name  string         // the type's Go name, for errors
	hash  uint64         // of sig
	plain bool           // no pointers: the value is its bytes
	root  *plan

	size int // of a value
	// A plain type's message: word, the value's size bytes, trailer (msgLen bytes).
	word    uint64
	trailer string
	msgLen  int
}

// Type is the codec's Go type.
func (c *Codec) Type() reflect.Type { return c.t }

// Name is the codec's type as Go prints it.
func (c *Codec) Name() string { return c.name }

// Plain reports whether values of the type hold no pointers (they travel as their
// bytes).
func (c *Codec) Plain() bool { return c.plain }

// plan encodes and decodes one type at a pointer to a value of it.
type plan struct {
	t     reflect.Type
	size  uintptr
	align uintptr
	plain bool
	enc   func(e *Enc, p unsafe.Pointer)
	dec   func(d *Dec, p unsafe.Pointer)
}

var cache sync.Map // reflect.Type -> *Codec or error

// For returns the codec of t, made once.
func For(t reflect.Type) (*Codec, error) {
	if c := Cached(t); c != nil {
		return c, nil
	}
	return forRecent(t)
}

// Cached is For's fast path, inlined: t's codec if it is in the cache in front of
// For's, else nil (then For makes or finds it, and caches it).
func Cached(t reflect.Type) *Codec {
	k := (*[2]uintptr)(unsafe.Pointer(&t))[1] // typeKey, spelt out for the inliner
	if c := recent[k>>4&(uintptr(len(recent))-1)].Load(); c != nil && c.key == k {
		return c
	}
	return nil
}

// recent is a direct-mapped cache in front of cache: a program's value calls use few
// types, and hashing the interface key of the map costs as much as copying a small
// message. Its hit (For) is a load and a compare of the type's address, inlined.
var recent [64]atomic.Pointer[Codec]

// typeKey is t's *rtype's address, the interface's data word: what identifies a type
// (comparing two reflect.Types as interfaces is a runtime call).
func typeKey(t reflect.Type) uintptr {
	return uintptr((*[2]unsafe.Pointer)(unsafe.Pointer(&t))[1])
}

// CachedPtr is Cached for a caller that holds the address of *T's type descriptor
// (the type word of a nil *T in an interface: no conversion of a T), k: T's codec if
// ForPtrKey cached it under k, else nil.
func CachedPtr(k uintptr) *Codec {
	if c := recentPtr[k>>4&(uintptr(len(recentPtr))-1)].Load(); c != nil && c.pkey.Load() == k {
		return c
	}
	return nil
}

// recentPtr is recent keyed by *T's descriptor (CachedPtr).
var recentPtr [64]atomic.Pointer[Codec]

// ForPtrKey is For(t), caching the codec for CachedPtr(k); k must be the address of
// the descriptor of the pointer type to t (what CachedPtr's caller holds).
func ForPtrKey(k uintptr, t reflect.Type) (*Codec, error) {
	c, err := For(t)
	if c != nil {
		c.pkey.CompareAndSwap(0, k)
		if c.pkey.Load() == k {
			recentPtr[k>>4&(uintptr(len(recentPtr))-1)].Store(c)
		}
	}
	return c, err
}

func forRecent(t reflect.Type) (*Codec, error) {
	c, err := forSlow(t)
	if c != nil {
		recent[c.key>>4&(uintptr(len(recent))-1)].Store(c)
	}
	return c, err
}

func forSlow(t reflect.Type) (*Codec, error) {
	if v, ok := cache.Load(t); ok {
		if c, ok := v.(*Codec); ok {
			return c, nil
		}
		return nil, v.(error)
	}
	c, err := build(t)
	if err != nil {
		cache.Store(t, err)
		return nil, err
	}
	v, _ := cache.LoadOrStore(t, c)
	if c, ok := v.(*Codec); ok {
		return c, nil
	}
	return nil, v.(error)
}

// builder makes the plans of one type and the types it holds.
type builder struct {
	plans map[reflect.Type]*plan
	stack []reflect.Type // types whose signatures are being written, for back references
	sig   strings.Builder
}

func build(t reflect.Type) (*Codec, error) {
	b := &builder{plans: map[reflect.Type]*plan{}}
	if err := b.check(t, "", map[reflect.Type]bool{}); err != nil {
		err.(*TypeError).Type = t
		return nil, err
	}
	b.signature(t)
	h := fnv.New64a()
	h.Write([]byte(b.sig.String()))
	p := b.plan(t)
	c := &Codec{t: t, key: typeKey(t), name: t.String(), hash: h.Sum64(), plain: p.plain, root: p, size: int(t.Size())}
	if c.plain {
		name := c.name[:min(len(c.name), maxTrailerName)]
		c.word = c.hash<<8 | plainMagic
		c.trailer = name + string(binary.LittleEndian.AppendUint16(nil, uint16(len(name))))
		c.msgLen = 8 + c.size + len(c.trailer)
	}
	return c, nil
}

// TypeError is a type that cannot be encoded; Path names where in it the trouble lies.
type TypeError struct {
	Type reflect.Type // the type asked for
	Path string       // e.g. ".Jobs[i].Done"; empty for the type itself
	Bad  reflect.Type // the type found there
}

func (e *TypeError) Error() string {
	where := "type " + e.Type.String()
	if e.Path != "" {
		where += " at " + e.Path
	}
	what := "channels"
	switch e.Bad.Kind() {
	case reflect.Func:
		what = "functions"
	case reflect.UnsafePointer:
		what = "unsafe pointers"
	case reflect.Interface:
		what = "interfaces (whose dynamic types the receiver cannot know)"
	}
	return fmt.Sprintf("%s holds %s, which cannot be sent: %s have no value to encode", where, e.Bad, what)
}

// check refuses the kinds that have no value to send, naming the first one's path
// (Go's syntax: .Field, [i] for an element, [key] and [value] for a map's).
func (b *builder) check(t reflect.Type, path string, seen map[reflect.Type]bool) error {
	if seen[t] {
		return nil
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.UnsafePointer, reflect.Interface:
		return &TypeError{Path: path, Bad: t}
	case reflect.Pointer:
		return b.check(t.Elem(), path, seen)
	case reflect.Slice, reflect.Array:
		return b.check(t.Elem(), path+"[i]", seen)
	case reflect.Map:
		if err := b.check(t.Key(), path+"[key]", seen); err != nil {
			return err
		}
		return b.check(t.Elem(), path+"[value]", seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if err := b.check(f.Type, path+"."+f.Name, seen); err != nil {
				return err
			}
		}
	}
	return nil
}

// signature writes t's structure; a type already on the stack (a recursive type) is
// written as a back reference.
func (b *builder) signature(t reflect.Type) {
	for i, s := range b.stack {
		if s == t {
			b.sig.WriteString("@" + strconv.Itoa(len(b.stack)-i))
			return
		}
	}
	w := b.sig.WriteString
	switch t.Kind() {
	case reflect.Pointer:
		b.stack = append(b.stack, t)
		w("*")
		b.signature(t.Elem())
		b.stack = b.stack[:len(b.stack)-1]
	case reflect.Slice:
		b.stack = append(b.stack, t)
		w("[]")
		b.signature(t.Elem())
		b.stack = b.stack[:len(b.stack)-1]
	case reflect.Array:
		w("[" + strconv.Itoa(t.Len()) + "]")
		b.signature(t.Elem())
	case reflect.Map:
		b.stack = append(b.stack, t)
		w("map[")
		b.signature(t.Key())
		w("]")
		b.signature(t.Elem())
		b.stack = b.stack[:len(b.stack)-1]
	case reflect.Struct:
		b.stack = append(b.stack, t)
		w("struct{")
		for i := range t.NumField() {
			f := t.Field(i)
			w(f.Name + " ")
			b.signature(f.Type)
			w(";")
		}
		w("}")
		b.stack = b.stack[:len(b.stack)-1]
	default:
		w(t.Kind().String())
	}
}

// plan makes (once) the plan of t. A recursive type's plan is entered in b.plans
// before its parts are made, so they find it.
func (b *builder) plan(t reflect.Type) *plan {
	if p := b.plans[t]; p != nil {
		return p
	}
	p := &plan{t: t, size: t.Size(), align: uintptr(t.Align()), plain: plainType(t)}
	b.plans[t] = p
	if p.plain {
		p.enc, p.dec = plainCodec(p.size)
		return p
	}
	switch t.Kind() {
	case reflect.String:
		p.enc, p.dec = encString, decString
	case reflect.Pointer:
		p.enc, p.dec = b.pointerCodec(t)
	case reflect.Slice:
		p.enc, p.dec = b.sliceCodec(t)
	case reflect.Array:
		p.enc, p.dec = b.arrayCodec(t)
	case reflect.Struct:
		p.enc, p.dec = b.structCodec(t)
	case reflect.Map:
		p.enc, p.dec = b.mapCodec(t)
	default:
		panic("vcodec: unchecked kind " + t.Kind().String()) // check refused it
	}
	return p
}

// plainType reports whether t holds no pointers (and so is its bytes).
func plainType(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return plainType(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !plainType(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// Enc is an encoder's state: the message being written and the out-of-band slices.
type Enc struct {
	Buf []byte
	// OOBMin: slices of pointer-free elements of at least this many bytes go out of
	// band (0: none do).
	OOBMin int
	// OOB lists the out-of-band slices, in order: views of the value's memory.
	OOB   [][]byte
	depth int
	err   error
}

// Dec is a decoder's state.
type Dec struct {
	buf []byte
	off int
	// OOB lists the memory of the out-of-band slices the decoded value holds, in
	// order, for the caller to fill from the messages that carry them.
	OOB   [][]byte
	depth int
	err   error
}

// maxDepth bounds the nesting of pointers, slices and maps an encoder follows: a
// value deeper than that is taken for a cycle (a cyclic value has no finite encoding).
const maxDepth = 1 << 14

// The header: magic, version, two reserved bytes, the type's hash (8 bytes), the
// caller's out-of-band sequence number (4) and the number of out-of-band slices (4),
// then the sender's type name (uvarint length and bytes), then the value.
const (
	magic      = 0x56 // 'V'
	version    = 1
	headerSeqO = 12
	headerOOBO = 16
)

// HeaderSize is the bytes before the sender's type name.
const HeaderSize = 20

// plainMagic is the low byte of a plain message's word (a general message begins with
// magic); maxTrailerName bounds the name a plain message carries (its length is two
// bytes).
const (
	plainMagic     = 0x50 // 'P'
	maxTrailerName = 1<<16 - 1
)

// Size is the size of a value of the type.
func (c *Codec) Size() int { return c.size }

// PlainLen is the length of a message of c's plain type.
func (c *Codec) PlainLen() int { return c.msgLen }

// PutPlain writes a plain message around the value's bytes, which the caller has
// put (or puts) at msg[8:8+size]: the word and the trailer. msg is PlainLen long.
func (c *Codec) PutPlain(msg []byte) {
	binary.LittleEndian.PutUint64(msg, c.word)
	copy(msg[8+c.size:], c.trailer)
}

// PlainMsg reports whether msg is a message of c's plain type, whose value's bytes
// are msg[8:]: the receiver's check, a length and a word compared.
func (c *Codec) PlainMsg(msg []byte) bool {
	return len(msg) == c.msgLen && len(msg) >= 8 && binary.LittleEndian.Uint64(msg) == c.word
}

// Encode writes the message of the value at p (of c's type) to e.Buf, which it resets,
// and lists out-of-band slices in e.OOB.
func (c *Codec) Encode(e *Enc, p unsafe.Pointer) error {
	e.Buf, e.OOB, e.depth, e.err = e.Buf[:0], e.OOB[:0], 0, nil
	if c.plain {
		e.Buf = append(e.Buf, make([]byte, c.msgLen)...)
		copy(e.Buf[8:], unsafe.Slice((*byte)(p), c.size))
		c.PutPlain(e.Buf)
		return nil
	}
	var h [HeaderSize]byte
	h[0], h[1] = magic, version
	binary.LittleEndian.PutUint64(h[4:], c.hash)
	e.Buf = append(e.Buf, h[:]...)
	e.Buf = binary.AppendUvarint(e.Buf, uint64(len(c.name)))
	e.Buf = append(e.Buf, c.name...)
	c.root.enc(e, p)
	if e.err != nil {
		return fmt.Errorf("encoding a value of type %s: %w", c.name, e.err)
	}
	binary.LittleEndian.PutUint32(e.Buf[headerOOBO:], uint32(len(e.OOB)))
	return nil
}

// SetSeq stores the caller's out-of-band sequence number in an encoded message.
func SetSeq(msg []byte, seq uint32) { binary.LittleEndian.PutUint32(msg[headerSeqO:], seq) }

// OOB returns a message's out-of-band sequence number and the number of its
// out-of-band slices; ok is false for bytes too short to be a message.
func OOB(msg []byte) (seq, n uint32, ok bool) {
	if len(msg) < HeaderSize || msg[0] != magic {
		return 0, 0, false
	}
	return binary.LittleEndian.Uint32(msg[headerSeqO:]), binary.LittleEndian.Uint32(msg[headerOOBO:]), true
}

// MismatchError is a message holding a value of another type than the one asked for.
type MismatchError struct{ Got, Want string }

func (e *MismatchError) Error() string {
	return fmt.Sprintf("the message holds a value of type %s, not %s as asked", e.Got, e.Want)
}

// Decode decodes msg, a message of c's type, into the value at p, sharing msg's
// memory as the package doc says. Every part of the value is overwritten; an
// out-of-band slice reuses the memory of the slice already at its place when that
// slice's capacity suffices (so a value decoded into again and again allocates no
// large slices). A message of another type is a *MismatchError, and leaves the value
// as it was; a message that fails part way leaves it partly overwritten.
func (c *Codec) Decode(d *Dec, msg []byte, p unsafe.Pointer) error {
	*d = Dec{buf: msg, OOB: d.OOB[:0]}
	if c.PlainMsg(msg) || c.plainAlias(msg) {
		copy(unsafe.Slice((*byte)(p), c.size), msg[8:])
		return nil
	}
	if err := c.mismatch(msg); err != nil {
		return err
	}
	if len(msg) < HeaderSize || msg[0] != magic {
		return fmt.Errorf("the message (%d bytes) is not a value message: it was not sent by a value call", len(msg))
	}
	if msg[1] != version {
		return fmt.Errorf("value message of version %d, this program reads version %d", msg[1], version)
	}
	d.off = HeaderSize
	n := d.uvarint()
	name := d.take(n)
	if d.err != nil {
		return fmt.Errorf("value message for %s: %w", c.name, d.err)
	}
	if binary.LittleEndian.Uint64(msg[4:]) != c.hash {
		return &MismatchError{Got: string(name), Want: c.name}
	}
	c.root.dec(d, p)
	if d.err == nil && d.off != len(msg) {
		d.err = fmt.Errorf("%d bytes left over", len(msg)-d.off)
	}
	if d.err != nil {
		return fmt.Errorf("value message for %s: %w", c.name, d.err)
	}
	return nil
}

// PlainBytes returns the value's bytes in msg, a message of c's plain type, to be
// copied over a value of the type; or the error saying why msg is not one (a
// *MismatchError naming both types for a value of another type). PlainMsg is its
// fast check.
func (c *Codec) PlainBytes(msg []byte) ([]byte, error) {
	if c.PlainMsg(msg) || c.plainAlias(msg) {
		return msg[8 : 8+c.size], nil
	}
	if !c.plain {
		return nil, fmt.Errorf("%s is not a plain type", c.name)
	}
	if err := c.mismatch(msg); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("value message for %s: %d bytes, want %d", c.name, len(msg), c.msgLen)
}

// plainAlias reports whether msg is a plain message of a type of c's structure under
// another name (a named type and its underlying type: a longer or shorter trailer).
func (c *Codec) plainAlias(msg []byte) bool {
	if !c.plain || len(msg) < 8+c.size+2 || binary.LittleEndian.Uint64(msg) != c.word {
		return false
	}
	return len(msg) == 8+c.size+2+int(binary.LittleEndian.Uint16(msg[len(msg)-2:]))
}

// mismatch is the error for msg, a message that is not one of c's plain type when c
// is plain (a general message holds a value of another type then), or a plain
// message when c is not: a *MismatchError naming both types. It is nil for a message
// that may be of c's type (to be decoded) or is not a value message at all.
func (c *Codec) mismatch(msg []byte) error {
	switch {
	case len(msg) >= 8+2 && msg[0] == plainMagic:
		if binary.LittleEndian.Uint64(msg) == c.word {
			return nil // c's plain type, of the wrong length: not a mismatch of types
		}
		n := int(binary.LittleEndian.Uint16(msg[len(msg)-2:]))
		got := "a plain type (its name garbled)"
		if n <= len(msg)-10 {
			got = string(msg[len(msg)-2-n : len(msg)-2])
		}
		return &MismatchError{Got: got, Want: c.name}
	case c.plain && len(msg) >= HeaderSize && msg[0] == magic:
		d := Dec{buf: msg, off: HeaderSize}
		name := d.take(d.uvarint())
		got := "another type (its name garbled)"
		if d.err == nil {
			got = string(name)
		}
		return &MismatchError{Got: got, Want: c.name}
	}
	return nil
}

var errShort = fmt.Errorf("message ends inside the value")

func (d *Dec) fail(err error) {
	if d.err == nil {
		d.err = err
	}
	d.off = len(d.buf)
}

func (d *Dec) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.buf[d.off:])
	if n <= 0 {
		d.fail(errShort)
		return 0
	}
	d.off += n
	return v
}

// take returns the next n bytes (nil and an error when there are fewer).
func (d *Dec) take(n uint64) []byte {
	if d.err != nil || n > uint64(len(d.buf)-d.off) {
		d.fail(errShort)
		return nil
	}
	b := d.buf[d.off : d.off+int(n) : d.off+int(n)]
	d.off += int(n)
	return b
}

func plainCodec(size uintptr) (func(*Enc, unsafe.Pointer), func(*Dec, unsafe.Pointer)) {
	switch size {
	case 0:
		return func(*Enc, unsafe.Pointer) {}, func(*Dec, unsafe.Pointer) {}
	case 8:
		return func(e *Enc, p unsafe.Pointer) {
				e.Buf = binary.LittleEndian.AppendUint64(e.Buf, *(*uint64)(p))
			}, func(d *Dec, p unsafe.Pointer) {
				if len(d.buf)-d.off < 8 {
					d.fail(errShort)
					return
				}
				*(*uint64)(p) = binary.LittleEndian.Uint64(d.buf[d.off:])
				d.off += 8
			}
	}
	n := int(size)
	return func(e *Enc, p unsafe.Pointer) {
			e.Buf = append(e.Buf, unsafe.Slice((*byte)(p), n)...)
		}, func(d *Dec, p unsafe.Pointer) {
			if b := d.take(uint64(n)); b != nil {
				copy(unsafe.Slice((*byte)(p), n), b)
			}
		}
}

func encString(e *Enc, p unsafe.Pointer) {
	s := *(*string)(p)
	e.Buf = binary.AppendUvarint(e.Buf, uint64(len(s)))
	e.Buf = append(e.Buf, s...)
}

func decString(d *Dec, p unsafe.Pointer) {
	n := d.uvarint()
	b := d.take(n)
	if len(b) == 0 {
		*(*string)(p) = ""
		return
	}
	*(*string)(p) = unsafe.String(&b[0], len(b)) // shares the message: strings are immutable
}

func (b *builder) pointerCodec(t reflect.Type) (func(*Enc, unsafe.Pointer), func(*Dec, unsafe.Pointer)) {
	elem := b.plan(t.Elem())
	et := t.Elem()
	return func(e *Enc, p unsafe.Pointer) {
			q := *(*unsafe.Pointer)(p)
			if q == nil {
				e.Buf = append(e.Buf, 0)
				return
			}
			if e.deeper() {
				return
			}
			e.Buf = append(e.Buf, 1)
			elem.enc(e, q)
			e.depth--
		}, func(d *Dec, p unsafe.Pointer) {
			f := d.take(1)
			if f == nil || f[0] == 0 {
				*(*unsafe.Pointer)(p) = nil
				return
			}
			if d.deeper() {
				return
			}
			q := reflect.New(et).UnsafePointer()
			elem.dec(d, q)
			*(*unsafe.Pointer)(p) = q
			d.depth--
		}
}

func (e *Enc) deeper() bool {
	if e.depth++; e.depth > maxDepth {
		if e.err == nil {
			e.err = fmt.Errorf("the value nests pointers, slices or maps more than %d deep (a cycle?)", maxDepth)
		}
		e.depth = -1 << 30 // stop descending anywhere
		return true
	}
	return e.depth < 0
}

func (d *Dec) deeper() bool {
	if d.depth++; d.depth > maxDepth {
		d.fail(fmt.Errorf("the value nests more than %d deep", maxDepth))
		return true
	}
	return false
}

type sliceHeader struct {
	data unsafe.Pointer
	len  int
	cap  int
}

// Slices: 0 for nil, else the length plus one; then, for pointer-free elements, a
// byte saying where the elements are (inline after padding to their alignment, or out
// of band), else each element.
func (b *builder) sliceCodec(t reflect.Type) (func(*Enc, unsafe.Pointer), func(*Dec, unsafe.Pointer)) {
	et := t.Elem()
	elem := b.plan(et)
	esz := int(et.Size())
	if elem.plain {
		align := int(elem.align)
		return func(e *Enc, p unsafe.Pointer) {
				s := (*sliceHeader)(p)
				if s.data == nil {
					e.Buf = append(e.Buf, 0)
					return
				}
				e.Buf = binary.AppendUvarint(e.Buf, uint64(s.len)+1)
				n := s.len * esz
				mem := unsafe.Slice((*byte)(s.data), n)
				if e.OOBMin > 0 && n >= e.OOBMin {
					e.Buf = append(e.Buf, 1)
					e.OOB = append(e.OOB, mem)
					return
				}
				e.Buf = append(e.Buf, 0)
				for len(e.Buf)%align != 0 {
					e.Buf = append(e.Buf, 0)
				}
				e.Buf = append(e.Buf, mem...)
			}, func(d *Dec, p unsafe.Pointer) {
				v := d.uvarint()
				if v == 0 || d.err != nil {
					*(*sliceHeader)(p) = sliceHeader{}
					return
				}
				n := v - 1
				where := d.take(1)
				if where == nil {
					return
				}
				if esz > 0 && n > uint64(1<<62)/uint64(esz) {
					d.fail(fmt.Errorf("slice length %d is not possible", n))
					return
				}
				nb := n * uint64(esz)
				s := (*sliceHeader)(p)
				if where[0] == 1 { // out of band: allocate, the caller fills it
					if nb > 1<<46 {
						d.fail(fmt.Errorf("slice of %d bytes is not possible", nb))
						return
					}
					// The slice already there if it is long enough (decoding into a
					// value again), else new memory, not zeroed (rawmem): the caller
					// fills it whole from its message.
					var mem []byte
					var q unsafe.Pointer
					if s.data != nil && uint64(s.cap) >= n && nb > 0 {
						q = s.data
						mem = unsafe.Slice((*byte)(q), int(nb))
					} else {
						mem = rawmem.Bytes(int(nb))
						q = unsafe.Pointer(unsafe.SliceData(mem))
					}
					if nb == 0 {
						q = unsafe.Pointer(&zeroByte)
					}
					d.OOB = append(d.OOB, mem)
					*s = sliceHeader{q, int(n), int(n)}
					return
				}
				for d.off%align != 0 && d.err == nil {
					d.take(1)
				}
				mem := d.take(nb)
				if d.err != nil {
					return
				}
				if nb == 0 {
					// A non-nil empty slice: any non-nil pointer will do, as for make(T, 0).
					*s = sliceHeader{unsafe.Pointer(&zeroByte), int(n), int(n)}
					return
				}
				q := unsafe.Pointer(&mem[0])
				if uintptr(q)%uintptr(align) != 0 {
					// A message received at an odd place of a larger buffer: copy.
					q = reflect.MakeSlice(t, int(n), int(n)).UnsafePointer()
					copy(unsafe.Slice((*byte)(q), int(nb)), mem)
				}
				// Else it shares the message, which holds no pointers, as the elements
				// do not.
				*s = sliceHeader{q, int(n), int(n)}
			}
	}
	return func(e *Enc, p unsafe.Pointer) {
			s := (*sliceHeader)(p)
			if s.data == nil {
				e.Buf = append(e.Buf, 0)
				return
			}
			if e.deeper() {
				return
			}
			e.Buf = binary.AppendUvarint(e.Buf, uint64(s.len)+1)
			for i := range s.len {
				elem.enc(e, unsafe.Add(s.data, i*esz))
			}
			e.depth--
		}, func(d *Dec, p unsafe.Pointer) {
			v := d.uvarint()
			if v == 0 || d.err != nil {
				*(*sliceHeader)(p) = sliceHeader{}
				return
			}
			n := v - 1
			if n > uint64(len(d.buf)-d.off) { // every element takes a byte at least
				d.fail(errShort)
				return
			}
			if d.deeper() {
				return
			}
			sv := reflect.MakeSlice(t, int(n), int(n))
			q := sv.UnsafePointer()
			if n == 0 {
				q = unsafe.Pointer(&zeroByte)
			}
			for i := range int(n) {
				elem.dec(d, unsafe.Add(q, i*esz))
				if d.err != nil {
					return
				}
			}
			*(*sliceHeader)(p) = sliceHeader{q, int(n), int(n)}
			d.depth--
		}
}

var zeroByte byte

func (b *builder) arrayCodec(t reflect.Type) (func(*Enc, unsafe.Pointer), func(*Dec, unsafe.Pointer)) {
	elem := b.plan(t.Elem())
	n, esz := t.Len(), int(t.Elem().Size())
	return func(e *Enc, p unsafe.Pointer) {
			for i := range n {
				elem.enc(e, unsafe.Add(p, i*esz))
			}
		}, func(d *Dec, p unsafe.Pointer) {
			for i := range n {
				elem.dec(d, unsafe.Add(p, i*esz))
				if d.err != nil {
					return
				}
			}
		}
}

func (b *builder) structCodec(t reflect.Type) (func(*Enc, unsafe.Pointer), func(*Dec, unsafe.Pointer)) {
	type field struct {
		off uintptr
		p   *plan
	}
	fs := make([]field, t.NumField())
	for i := range fs {
		f := t.Field(i)
		fs[i] = field{f.Offset, b.plan(f.Type)}
	}
	return func(e *Enc, p unsafe.Pointer) {
			for _, f := range fs {
				f.p.enc(e, unsafe.Add(p, f.off))
			}
		}, func(d *Dec, p unsafe.Pointer) {
			for _, f := range fs {
				f.p.dec(d, unsafe.Add(p, f.off))
				if d.err != nil {
					return
				}
			}
		}
}

// Maps: 0 for nil, else the length plus one, then the keys and values in the map's
// iteration order.
func (b *builder) mapCodec(t reflect.Type) (func(*Enc, unsafe.Pointer), func(*Dec, unsafe.Pointer)) {
	kt, vt := t.Key(), t.Elem()
	kp, vp := b.plan(kt), b.plan(vt)
	if fe, fd := fastMap(t); fe != nil {
		return fe, fd
	}
	return func(e *Enc, p unsafe.Pointer) {
			m := reflect.NewAt(t, p).Elem()
			if m.IsNil() {
				e.Buf = append(e.Buf, 0)
				return
			}
			if e.deeper() {
				return
			}
			e.Buf = binary.AppendUvarint(e.Buf, uint64(m.Len())+1)
			k, v := reflect.New(kt).Elem(), reflect.New(vt).Elem()
			kq, vq := k.Addr().UnsafePointer(), v.Addr().UnsafePointer()
			it := m.MapRange()
			for it.Next() {
				k.SetIterKey(it)
				v.SetIterValue(it)
				kp.enc(e, kq)
				vp.enc(e, vq)
			}
			e.depth--
		}, func(d *Dec, p unsafe.Pointer) {
			n := d.uvarint()
			if n == 0 || d.err != nil {
				reflect.NewAt(t, p).Elem().SetZero()
				return
			}
			n--
			if n > uint64(len(d.buf)-d.off) {
				d.fail(errShort)
				return
			}
			if d.deeper() {
				return
			}
			m := reflect.MakeMapWithSize(t, int(n))
			for range n {
				k, v := reflect.New(kt), reflect.New(vt)
				kp.dec(d, k.UnsafePointer())
				vp.dec(d, v.UnsafePointer())
				if d.err != nil {
					return
				}
				m.SetMapIndex(k.Elem(), v.Elem())
			}
			reflect.NewAt(t, p).Elem().Set(m)
			d.depth--
		}
}
