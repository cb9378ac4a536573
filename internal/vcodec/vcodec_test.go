package vcodec

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

type inner struct {
	A int8
	B string
	C []float64
}

type node struct {
	V    int
	Next *node
}

type record struct {
	ID     int
	Name   string
	Data   []byte
	Tags   map[string]int
	In     inner
	Ins    []inner
	Ptr    *inner
	Arr    [3]string
	Grid   [][]int32
	Empty  []int
	Nil    []int
	NilMap map[string]int
	hidden uint16
}

type point struct{ X, Y float64 }

func roundTrip[T any](t *testing.T, v T, oobMin int) T {
	t.Helper()
	c, err := For(reflect.TypeFor[T]())
	if err != nil {
		t.Fatal(err)
	}
	e := Enc{OOBMin: oobMin}
	if err := c.Encode(&e, unsafe.Pointer(&v)); err != nil {
		t.Fatal(err)
	}
	msg := append([]byte(nil), e.Buf...)
	var got T
	var d Dec
	if err := c.Decode(&d, msg, unsafe.Pointer(&got)); err != nil {
		t.Fatal(err)
	}
	if len(d.OOB) != len(e.OOB) {
		t.Fatalf("%d out-of-band slices encoded, %d decoded", len(e.OOB), len(d.OOB))
	}
	for i := range e.OOB {
		if len(d.OOB[i]) != len(e.OOB[i]) {
			t.Fatalf("out-of-band %d: %d bytes, want %d", i, len(d.OOB[i]), len(e.OOB[i]))
		}
		copy(d.OOB[i], e.OOB[i])
	}
	return got
}

func TestRoundTrip(t *testing.T) {
	r := record{
		ID: 7, Name: "block", Data: []byte("some bytes"),
		Tags:  map[string]int{"a": 1, "bb": 2, "": 3},
		In:    inner{-3, "in", []float64{1.5, 2.5}},
		Ins:   []inner{{1, "x", nil}, {2, "", []float64{}}},
		Ptr:   &inner{4, "p", []float64{9}},
		Arr:   [3]string{"u", "", "w"},
		Grid:  [][]int32{{1, 2}, nil, {}},
		Empty: []int{}, hidden: 42,
	}
	for _, oob := range []int{0, 1, 8} {
		got := roundTrip(t, r, oob)
		if !reflect.DeepEqual(got, r) {
			t.Errorf("oob %d: got %+v\nwant %+v", oob, got, r)
		}
		if got.Nil != nil || got.NilMap != nil || got.Empty == nil {
			t.Errorf("oob %d: nil and empty not kept apart", oob)
		}
	}
	l := &node{1, &node{2, &node{3, nil}}}
	if got := roundTrip(t, l, 0); !reflect.DeepEqual(got, l) {
		t.Errorf("list: %+v", got)
	}
	if got := roundTrip(t, []point{{1, 2}, {3, 4}}, 0); !reflect.DeepEqual(got, []point{{1, 2}, {3, 4}}) {
		t.Errorf("points: %v", got)
	}
	m := map[point][]string{{1, 2}: {"a"}, {3, 4}: nil}
	if got := roundTrip(t, m, 0); !reflect.DeepEqual(got, m) {
		t.Errorf("reflect map: %v", got)
	}
	if got := roundTrip(t, map[string]string{"k": "v"}, 0); !reflect.DeepEqual(got, map[string]string{"k": "v"}) {
		t.Errorf("map[string]string: %v", got)
	}
	if got := roundTrip(t, map[string]float64{"pi": 3.14}, 0); !reflect.DeepEqual(got, map[string]float64{"pi": 3.14}) {
		t.Errorf("map[string]float64: %v", got)
	}
	if got := roundTrip(t, map[int]string{1: "one", 2: ""}, 0); !reflect.DeepEqual(got, map[int]string{1: "one", 2: ""}) {
		t.Errorf("map[int]string: %v", got)
	}
	if got := roundTrip(t, "", 0); got != "" {
		t.Errorf("empty string: %q", got)
	}
	if got := roundTrip[*int](t, nil, 0); got != nil {
		t.Errorf("nil pointer: %v", got)
	}
	// A decoded slice shares the message with cap = len: appending copies.
	got := roundTrip(t, []byte("abc"), 0)
	if cap(got) != 3 {
		t.Errorf("cap %d, want 3", cap(got))
	}
}

func TestRefused(t *testing.T) {
	type job struct {
		Name string
		Done chan bool
	}
	type msg struct {
		Jobs []job
	}
	cases := []struct {
		t    reflect.Type
		path string
	}{
		{reflect.TypeFor[msg](), ".Jobs[i].Done"},
		{reflect.TypeFor[func()](), ""},
		{reflect.TypeFor[map[string]any](), "[value]"},
		{reflect.TypeFor[*struct{ P unsafe.Pointer }](), ".P"},
	}
	for _, c := range cases {
		_, err := For(c.t)
		var te *TypeError
		if !errors.As(err, &te) || te.Path != c.path || te.Type != c.t {
			t.Errorf("%v: %v (want path %q)", c.t, err, c.path)
		}
	}
}

func TestMismatch(t *testing.T) {
	type celsius float64
	a, _ := For(reflect.TypeFor[map[string]int]())
	b, _ := For(reflect.TypeFor[point]())
	var e Enc
	m := map[string]int{"x": 1}
	if err := a.Encode(&e, unsafe.Pointer(&m)); err != nil {
		t.Fatal(err)
	}
	var p point
	var d Dec
	err := b.Decode(&d, e.Buf, unsafe.Pointer(&p))
	var me *MismatchError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "map[string]int") || !strings.Contains(err.Error(), "vcodec.point") {
		t.Fatalf("mismatch: %v", err)
	}
	// A named type and its underlying type agree.
	if got := roundTrip(t, celsius(3), 0); got != 3 {
		t.Fatal(got)
	}
	f, _ := For(reflect.TypeFor[float64]())
	cc, _ := For(reflect.TypeFor[celsius]())
	if f.hash != cc.hash {
		t.Fatal("celsius and float64 differ")
	}
}

// TestCorrupt: every prefix of a message, and bytes flipped in it, fail or decode,
// never panic.
func TestCorrupt(t *testing.T) {
	r := record{ID: 1, Name: "n", Data: []byte{1, 2, 3}, Tags: map[string]int{"a": 1}, Ins: []inner{{1, "x", []float64{1}}}, Grid: [][]int32{{5}}}
	c, _ := For(reflect.TypeFor[record]())
	var e Enc
	if err := c.Encode(&e, unsafe.Pointer(&r)); err != nil {
		t.Fatal(err)
	}
	for n := range len(e.Buf) {
		var got record
		var d Dec
		if err := c.Decode(&d, e.Buf[:n], unsafe.Pointer(&got)); err == nil {
			t.Fatalf("prefix of %d bytes (of %d) decoded", n, len(e.Buf))
		}
	}
	for i := HeaderSize; i < len(e.Buf); i++ {
		for _, x := range []byte{0xff, 0x80, 1} {
			msg := append([]byte(nil), e.Buf...)
			msg[i] ^= x
			var got record
			var d Dec
			_ = c.Decode(&d, msg, unsafe.Pointer(&got))
		}
	}
}

func TestCycle(t *testing.T) {
	n := &node{V: 1}
	n.Next = n
	c, _ := For(reflect.TypeFor[*node]())
	var e Enc
	if err := c.Encode(&e, unsafe.Pointer(&n)); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("cycle: %v", err)
	}
}

// TestDecodeInto: decoding into a value that holds something overwrites every part
// (nil and empty ones too), and an out-of-band slice reuses the memory already there
// when it is long enough.
func TestDecodeInto(t *testing.T) {
	c, _ := For(reflect.TypeFor[record]())
	msgOf := func(r record, oob int) ([]byte, [][]byte) {
		e := Enc{OOBMin: oob}
		if err := c.Encode(&e, unsafe.Pointer(&r)); err != nil {
			t.Fatal(err)
		}
		return append([]byte(nil), e.Buf...), e.OOB
	}
	full := record{ID: 1, Name: "n", Data: make([]byte, 64), Tags: map[string]int{"a": 1},
		Ptr: &inner{1, "p", nil}, Grid: [][]int32{{1}}, Nil: []int{1}, NilMap: map[string]int{"x": 1}, Empty: []int{}}
	empty := record{}
	msg, _ := msgOf(empty, 0)
	got := full
	var d Dec
	if err := c.Decode(&d, msg, unsafe.Pointer(&got)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, empty) {
		t.Fatalf("decoding the zero record over a full one left %+v", got)
	}
	msg, oob := msgOf(full, 16)
	got = record{Data: make([]byte, 10, 100)}
	keep := unsafe.SliceData(got.Data)
	if err := c.Decode(&d, msg, unsafe.Pointer(&got)); err != nil {
		t.Fatal(err)
	}
	if len(d.OOB) != 1 || len(oob) != 1 || unsafe.SliceData(d.OOB[0]) != keep || unsafe.SliceData(got.Data) != keep {
		t.Fatalf("the out-of-band slice did not reuse the memory there")
	}
	copy(d.OOB[0], oob[0])
	if !reflect.DeepEqual(got, full) {
		t.Fatalf("decoding into: %+v", got)
	}
}

// TestPlainMessages: a plain type's message is its word, bytes and trailer; the
// receiver's check (PlainMsg) takes it, and refuses every message of another type,
// plain or not, with a *MismatchError naming both types (the name read from the
// trailer or the general header); no prefix of one decodes.
func TestPlainMessages(t *testing.T) {
	type celsius float64
	enc := func(c *Codec, p unsafe.Pointer) []byte {
		var e Enc
		if err := c.Encode(&e, p); err != nil {
			t.Fatal(err)
		}
		return append([]byte(nil), e.Buf...)
	}
	pc, _ := For(reflect.TypeFor[point]())
	ic, _ := For(reflect.TypeFor[int64]())
	mc, _ := For(reflect.TypeFor[map[string]int]())
	p := point{1.5, -2}
	msg := enc(pc, unsafe.Pointer(&p))
	if len(msg) != pc.PlainLen() || !pc.PlainMsg(msg) || len(msg) != 8+16+len("vcodec.point")+2 {
		t.Fatalf("plain message of %d bytes (PlainLen %d): %x", len(msg), pc.PlainLen(), msg)
	}
	var got point
	var d Dec
	if err := pc.Decode(&d, msg, unsafe.Pointer(&got)); err != nil || got != p {
		t.Fatalf("decoded %v, %v", got, err)
	}
	b, err := pc.PlainBytes(msg)
	if err != nil || len(b) != 16 {
		t.Fatalf("PlainBytes: %d bytes, %v", len(b), err)
	}
	i := int64(3)
	m := map[string]int{"a": 1}
	wrong := []struct {
		c        *Codec
		msg      []byte
		got, wnt string
	}{
		{ic, msg, "vcodec.point", "int64"},                           // plain as plain
		{mc, msg, "vcodec.point", "map[string]int"},                  // plain as general
		{pc, enc(ic, unsafe.Pointer(&i)), "int64", "vcodec.point"},   // plain as plain
		{pc, enc(mc, unsafe.Pointer(&m)), "map[string]int", "point"}, // general as plain
	}
	for _, w := range wrong {
		if w.c.PlainMsg(w.msg) {
			t.Errorf("%s took a message of %s", w.c.Name(), w.got)
		}
		var v [64]byte
		err := w.c.Decode(&d, w.msg, unsafe.Pointer(&v))
		var me *MismatchError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), w.got) || !strings.Contains(err.Error(), w.wnt) {
			t.Errorf("%s from %s: %v", w.wnt, w.got, err)
		}
		if w.c.Plain() {
			if _, err := w.c.PlainBytes(w.msg); !errors.As(err, &me) {
				t.Errorf("PlainBytes: %s from %s: %v", w.wnt, w.got, err)
			}
		}
	}
	// A named plain type and its underlying type agree, as general ones do.
	cc, _ := For(reflect.TypeFor[celsius]())
	fc, _ := For(reflect.TypeFor[float64]())
	x := celsius(21.5)
	var f float64
	if err := fc.Decode(&d, enc(cc, unsafe.Pointer(&x)), unsafe.Pointer(&f)); err != nil || f != 21.5 {
		t.Fatalf("celsius as float64: %v %v", f, err)
	}
	for n := range len(msg) {
		var got point
		if pc.PlainMsg(msg[:n]) || pc.Decode(&d, msg[:n], unsafe.Pointer(&got)) == nil {
			t.Fatalf("prefix of %d bytes (of %d) decoded", n, len(msg))
		}
		if _, err := pc.PlainBytes(msg[:n]); err == nil {
			t.Fatalf("prefix of %d bytes (of %d): PlainBytes took it", n, len(msg))
		}
	}
}
