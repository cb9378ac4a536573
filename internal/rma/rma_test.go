package rma

import (
	"encoding/binary"
	"math"
	"sync"
	"testing"
	"unsafe"

	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/op"
)

func i64s(v ...int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

func TestAccEveryOpOnInt64(t *testing.T) {
	want := map[Op]int64{OpSum: 9, op.Prod: 14, op.Min: 2, op.Max: 7, op.Land: 1, op.Lor: 1, op.Lxor: 0,
		OpBand: 2, OpBor: 7, op.Bxor: 5, OpReplace: 7, OpNoOp: 2}
	for op, w := range want {
		for _, k := range []datatype.Kind{datatype.KindInt64, datatype.KindInt32} {
			var mem, org []byte
			if k == datatype.KindInt64 {
				mem, org = i64s(0, 2), i64s(7)
			} else {
				mem, org = make([]byte, 12), make([]byte, 4)
				binary.LittleEndian.PutUint32(mem[8:], 2)
				binary.LittleEndian.PutUint32(org, 7)
			}
			old := make([]byte, len(org))
			var lock uint32
			if err := Acc(mem, []Piece{{Off: 8, Len: int64(len(org))}}, org, old, op, k, &lock, nil); err != nil {
				t.Fatal(op, err)
			}
			var got, was int64
			if k == datatype.KindInt64 {
				got, was = int64(binary.LittleEndian.Uint64(mem[8:])), int64(binary.LittleEndian.Uint64(old))
			} else {
				got, was = int64(int32(binary.LittleEndian.Uint32(mem[8:]))), int64(int32(binary.LittleEndian.Uint32(old)))
			}
			if got != w || was != 2 {
				t.Errorf("%v on %v: 2 ⊕ 7 = %d (old %d), want %d (old 2)", op, k, got, was, w)
			}
		}
	}
}

func TestAccRefusesUndefined(t *testing.T) {
	if _, err := Lookup(OpBand, datatype.KindFloat64); err == nil {
		t.Error("Band on float64 accepted")
	}
	if _, err := Lookup(OpSum, datatype.KindNone); err == nil {
		t.Error("Sum on a mixed type accepted")
	}
	if _, err := Lookup(op.Maxloc, datatype.KindFloat64Int32); err != nil {
		t.Error(err)
	}
}

func TestMaxlocPairsInPieces(t *testing.T) {
	// Two MPI_DOUBLE_INT in memory (extent 16), as the engine's Iov describes them.
	mem := make([]byte, 32)
	put := func(o int, v float64, i int32) {
		binary.LittleEndian.PutUint64(mem[o:], math.Float64bits(v))
		binary.LittleEndian.PutUint32(mem[o+8:], uint32(i))
	}
	put(0, 1, 5)
	put(16, 9, 5)
	ps := make([]Piece, 4)
	n, _, err := datatype.Float64Int32.Iov(ps, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	org := make([]byte, 24) // packed: (3, 1) (9, 2)
	binary.LittleEndian.PutUint64(org, math.Float64bits(3))
	binary.LittleEndian.PutUint32(org[8:], 1)
	binary.LittleEndian.PutUint64(org[12:], math.Float64bits(9))
	binary.LittleEndian.PutUint32(org[20:], 2)
	var lock uint32
	if err := Acc(mem, ps[:n], org, nil, op.Maxloc, datatype.KindFloat64Int32, &lock, nil); err != nil {
		t.Fatal(err)
	}
	v0, i0 := math.Float64frombits(binary.LittleEndian.Uint64(mem)), int32(binary.LittleEndian.Uint32(mem[8:]))
	v1, i1 := math.Float64frombits(binary.LittleEndian.Uint64(mem[16:])), int32(binary.LittleEndian.Uint32(mem[24:]))
	if v0 != 3 || i0 != 1 || v1 != 9 || i1 != 2 {
		t.Errorf("got (%v,%d) (%v,%d), want (3,1) (9,2)", v0, i0, v1, i1)
	}
}

// TestConcurrentAccExact: many goroutines add to the same elements, atomically and
// under the lock; the sums must be exact.
func TestConcurrentAccExact(t *testing.T) {
	for _, k := range []datatype.Kind{datatype.KindInt64, datatype.KindFloat64, datatype.KindInt32} {
		mem := make([]byte, 64)
		var lock uint32
		esz := int64(8)
		org := make([]byte, 64)
		switch k {
		case datatype.KindFloat64:
			for i := 0; i < 8; i++ {
				binary.LittleEndian.PutUint64(org[8*i:], math.Float64bits(1))
			}
		case datatype.KindInt32:
			esz = 4
			for i := 0; i < 16; i++ {
				binary.LittleEndian.PutUint32(org[4*i:], 1)
			}
		default:
			for i := 0; i < 8; i++ {
				binary.LittleEndian.PutUint64(org[8*i:], 1)
			}
		}
		var wg sync.WaitGroup
		const G, N = 8, 2000
		for g := 0; g < G; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < N; i++ {
					if err := Acc(mem, []Piece{{Off: 0, Len: 64}}, org, nil, OpSum, k, &lock, nil); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		for o := int64(0); o < 64; o += esz {
			var got float64
			switch k {
			case datatype.KindFloat64:
				got = math.Float64frombits(binary.LittleEndian.Uint64(mem[o:]))
			case datatype.KindInt32:
				got = float64(binary.LittleEndian.Uint32(mem[o:]))
			default:
				got = float64(binary.LittleEndian.Uint64(mem[o:]))
			}
			if got != G*N {
				t.Fatalf("%v: element at %d is %v, want %d", k, o, got, G*N)
			}
		}
	}
}

func TestCompareSwapAsLock(t *testing.T) {
	for _, k := range []datatype.Kind{datatype.KindInt64, datatype.KindInt32} {
		sz := 8
		if k == datatype.KindInt32 {
			sz = 4
		}
		mem := make([]byte, 16)
		var lock uint32
		counter := 0
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				zero, one, old := make([]byte, sz), make([]byte, sz), make([]byte, sz)
				one[0] = 1
				for i := 0; i < 500; i++ {
					for {
						CompareSwap(mem, 0, zero, one, old, k, &lock)
						if old[0] == 0 {
							break
						}
					}
					counter++ // guarded by the CAS lock
					CompareSwap(mem, 0, one, zero, old, k, &lock)
				}
			}()
		}
		wg.Wait()
		if counter != 2000 {
			t.Errorf("%v: counter %d, want 2000", k, counter)
		}
	}
}

func TestRWLock(t *testing.T) {
	var w uint64
	if !TryShared(&w) || !TryShared(&w) || TryExclusive(&w) {
		t.Fatal("two shared holds, then exclusive must fail")
	}
	Release(&w, false)
	Release(&w, false)
	if !TryExclusive(&w) || TryShared(&w) || TryExclusive(&w) {
		t.Fatal("exclusive must exclude")
	}
	Release(&w, true)
	if w != 0 {
		t.Fatalf("word %x after release", w)
	}
}

func TestEncodeDecode(t *testing.T) {
	h := Header{Kind: KGetAcc, Op: op.Max, Elem: datatype.KindFloat32, Flags: 1, Pieces: 2, ID: 77, Base: 4096, Data: 5}
	ps := []Piece{{Off: 1, Len: 2}, {Off: 30, Len: 3}}
	b := make([]uint64, (h.Len()+7)/8)
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), h.Len())
	copy(Encode(buf, &h, ps), "hello")
	g, gps, data, err := Decode(buf)
	if err != nil || g != h || len(gps) != 2 || gps[0] != ps[0] || gps[1] != ps[1] || string(data) != "hello" {
		t.Fatalf("decoded %+v %v %q %v", g, gps, data, err)
	}
	if _, _, _, err := Decode(buf[:h.Len()-1]); err == nil {
		t.Error("a short request decoded")
	}
	if err := Check([]Piece{{Off: 10, Len: 10}}, 15); err == nil {
		t.Error("a piece past the end passed Check")
	}
}

// TestAccContig: the short way's accumulate agrees with Acc, refuses what Lookup
// refuses, and CasWord swaps only on a match.
func TestAccContig(t *testing.T) {
	var lock uint32
	mem, org := make([]byte, 4096), make([]byte, 4096)
	for i := range org {
		org[i] = byte(i)
	}
	if !AccContig(mem, org, OpSum, datatype.KindInt32, &lock) || !AccContig(mem, org, OpSum, datatype.KindInt32, &lock) {
		t.Fatal("Sum on int32 refused")
	}
	for i := 0; i < 4096; i += 4 {
		if got, want := binary.LittleEndian.Uint32(mem[i:]), 2*binary.LittleEndian.Uint32(org[i:]); got != want {
			t.Fatalf("element %d: %d, want %d", i/4, got, want)
		}
	}
	if AccContig(mem[:8], org[:8], OpBand, datatype.KindFloat64, &lock) {
		t.Error("Band on float64 accepted")
	}
	w := i64s(5, 0)
	if !AccContig(w, i64s(3, 4), OpSum, datatype.KindInt64, &lock) || binary.LittleEndian.Uint64(w) != 8 || binary.LittleEndian.Uint64(w[8:]) != 4 {
		t.Errorf("atomic Sum on int64 gave %v", w)
	}
	a := uint64(7)
	if was := CasWord(&a, 6, 9); was != 7 || a != 7 {
		t.Errorf("CasWord without a match: was %d, now %d", was, a)
	}
	if was := CasWord(&a, 7, 9); was != 7 || a != 9 {
		t.Errorf("CasWord with a match: was %d, now %d", was, a)
	}
}
