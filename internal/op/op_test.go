package op

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/mpigo/mpigo/internal/datatype"
)

// TestDefinedIsTheStandardsTable: Defined answers, for every operation and class,
// what MPI 4.1 §6.9.2 (its table of allowed types), §6.9.4 (the pair types) and
// §12.3.4 (Replace and NoOp: any predefined datatype) say.
func TestDefinedIsTheStandardsTable(t *testing.T) {
	all := "C integer, Fortran integer, floating point, logical, complex, byte, multi-language, value-index pair, no reduction group"
	std := map[Op]string{
		Max:     "C integer, Fortran integer, floating point, multi-language",
		Min:     "C integer, Fortran integer, floating point, multi-language",
		Sum:     "C integer, Fortran integer, floating point, complex, multi-language",
		Prod:    "C integer, Fortran integer, floating point, complex, multi-language",
		Land:    "C integer, logical",
		Lor:     "C integer, logical",
		Lxor:    "C integer, logical",
		Band:    "C integer, Fortran integer, byte, multi-language",
		Bor:     "C integer, Fortran integer, byte, multi-language",
		Bxor:    "C integer, Fortran integer, byte, multi-language",
		Maxloc:  "value-index pair",
		Minloc:  "value-index pair",
		Replace: all,
		NoOp:    all,
	}
	for o := None; o < NumOps; o++ {
		for c := Mixed; c < numClasses; c++ {
			want := strings.Contains(", "+std[o]+",", ", "+c.String()+",")
			if got := Defined(o, c); got != want {
				t.Errorf("Defined(%v, %v) = %v, want %v", o, c, got, want)
			}
		}
	}
}

// TestNamedClasses: the predefined names fall in the standard's groups.
func TestNamedClasses(t *testing.T) {
	for name, want := range map[string]Class{
		"MPI_INT": CInteger, "MPI_UNSIGNED_LONG_LONG": CInteger, "MPI_UINT8_T": CInteger, "MPI_CHAR": CInteger,
		"MPI_INTEGER": FortranInteger, "MPI_INTEGER8": FortranInteger,
		"MPI_LONG_DOUBLE": Floating, "MPI_REAL16": Floating, "MPI_DOUBLE_PRECISION": Floating,
		"MPI_LOGICAL": Logical, "MPI_C_BOOL": Logical, "MPI_CXX_BOOL": Logical,
		"MPI_C_LONG_DOUBLE_COMPLEX": Complex, "MPI_DOUBLE_COMPLEX": Complex,
		"MPI_BYTE": Byte, "MPI_AINT": MultiLanguage, "MPI_COUNT": MultiLanguage, "MPI_OFFSET": MultiLanguage,
		"MPI_SHORT_INT": Pair, "MPI_LONG_DOUBLE_INT": Pair, "MPI_2INTEGER": Pair,
		"MPI_WCHAR": Other, "MPI_CHARACTER": Other, "MPI_UB": Mixed,
	} {
		if got := NamedClass(name); got != want {
			t.Errorf("NamedClass(%s) = %v, want %v", name, got, want)
		}
	}
}

// TestCheck: every operation on every element kind (of the kind's own class) is
// accepted exactly where the table defines it and a kernel exists; the refusals name
// the operation and the type and wrap the sentinel errors.
func TestCheck(t *testing.T) {
	for o := Sum; o < NumOps; o++ {
		for k := datatype.KindNone; k < datatype.NumKinds; k++ {
			c := KindClass(k)
			err := Check(o, c, k, o.String(), k.String())
			if want := Defined(o, c) && kernels[o][k] != nil; (err == nil) != want {
				t.Errorf("Check(%v, %v): %v, want ok=%v", o, k, err, want)
			}
			if err != nil && (!strings.Contains(err.Error(), o.String()) || !strings.Contains(err.Error(), k.String())) {
				t.Errorf("Check(%v, %v): %q does not name both", o, k, err)
			}
		}
	}
	// Every (op, class) the table defines has a kernel on the Go kinds of that class.
	for _, k := range []Kind{datatype.KindInt32, datatype.KindFloat64, datatype.KindComplex128, datatype.KindBool,
		datatype.KindByte, datatype.KindFloat64Int32, datatype.KindLongDouble, datatype.KindLongDoubleComplex, datatype.KindLongDoubleInt} {
		for o := Sum; o < NumOps; o++ {
			if Defined(o, KindClass(k)) && kernels[o][k] == nil {
				t.Errorf("%v is defined on %v (%v) but has no kernel", o, k, KindClass(k))
			}
		}
	}
	refusals := []struct {
		o    Op
		c    Class
		k    Kind
		want error
		text string
	}{
		{Band, Floating, datatype.KindFloat64, ErrUndefined, "MPI_BAND is not defined on T (floating point): it takes C integer, Fortran integer, byte and multi-language types"},
		{Land, FortranInteger, datatype.KindInt32, ErrUndefined, "it takes C integer and logical types"},
		{Sum, Logical, datatype.KindInt32, ErrUndefined, "(logical)"},
		{Max, Complex, datatype.KindComplex64, ErrUndefined, "(complex)"},
		{Sum, Byte, datatype.KindByte, ErrUndefined, "(byte)"},
		{Maxloc, Floating, datatype.KindFloat32, ErrUndefined, "value-index pair types"},
		{Sum, Pair, datatype.KindInt16Int32, ErrUndefined, "(value-index pair)"},
		{Sum, Other, datatype.KindInt32, ErrUndefined, "(no reduction group)"},
		{Sum, Mixed, datatype.KindNone, ErrUndefined, "mixes element types"},
		{Replace, Mixed, datatype.KindNone, ErrUndefined, "mixes element types"},
		{Sum, Floating, datatype.KindByte, ErrNoKernel, "no arithmetic"}, // MPI_REAL16
		{Max, FortranInteger, datatype.KindByte, ErrNoKernel, "no arithmetic"},
		{None, CInteger, datatype.KindInt32, ErrNotOp, "not a predefined operation"},
		{NumOps, CInteger, datatype.KindInt32, ErrNotOp, "not a predefined operation"},
	}
	for _, r := range refusals {
		err := Check(r.o, r.c, r.k, "OP", "T")
		var e *Error
		if !errors.Is(err, r.want) || !errors.As(err, &e) || !strings.Contains(err.Error(), strings.ReplaceAll(r.text, "MPI_BAND", "OP")) {
			t.Errorf("Check(%v, %v, %v) = %v, want %v saying %q", r.o, r.c, r.k, err, r.want, r.text)
		}
	}
	// Band on a 16-byte Fortran integer (bytes) is bitwise, so defined and done.
	if err := Check(Band, FortranInteger, datatype.KindByte, "MPI_BAND", "MPI_INTEGER16"); err != nil {
		t.Error(err)
	}
	if !CompareSwapDefined(Logical) || !CompareSwapDefined(Byte) || CompareSwapDefined(Floating) || CompareSwapDefined(Pair) || CompareSwapDefined(Complex) {
		t.Error("CompareSwapDefined does not follow MPI 4.1 §12.3.4")
	}
}

// ref is one element's a ⊕ b (a earlier, b later) on Go values, the reference the
// kernels are held to.
func ref[T ordered](o Op, a, b T) T {
	bl := func(v bool) T {
		if v {
			return 1
		}
		return 0
	}
	switch o {
	case Sum:
		return a + b
	case Prod:
		return a * b
	case Min:
		return min(a, b)
	case Max:
		return max(a, b)
	case Land:
		return bl(a != 0 && b != 0)
	case Lor:
		return bl(a != 0 || b != 0)
	case Lxor:
		return bl((a != 0) != (b != 0))
	case Replace:
		return b
	case NoOp:
		return a
	}
	var x, y uint64
	*(*T)(unsafe.Pointer(&x)), *(*T)(unsafe.Pointer(&y)) = a, b
	switch o {
	case Band:
		x &= y
	case Bor:
		x |= y
	case Bxor:
		x ^= y
	}
	return *(*T)(unsafe.Pointer(&x))
}

// checkKernels runs every kernel of kind k on random Ts, for lengths around the
// vector loops' 64-byte blocks and at unaligned offsets, in both orders (Reduce and
// Accumulate), against ref.
func checkKernels[T ordered](t *testing.T, k Kind, gen func(r *rand.Rand) T) {
	r := rand.New(rand.NewPCG(uint64(k), 9))
	for o := Sum; o < NumOps; o++ {
		if o.Loc() || kernels[o][k] == nil {
			continue
		}
		for _, n := range []int{0, 1, 3, 8, 15, 16, 17, 31, 64, 100} {
			a, b := make([]T, n+1), make([]T, n+1)
			for i := range a {
				a[i], b[i] = gen(r), gen(r)
			}
			for _, acc := range []bool{false, true} {
				inout, in := append([]T(nil), a...), b
				fn := Reduce(o, k)
				if acc {
					fn = Accumulate(o, k)
					inout, in = append([]T(nil), b...), a // target b, origin a: b ⊕ a
				}
				// The kernel sees n elements starting one element in (unaligned for the
				// vector loops).
				fn(bytesOf(inout[1:]), bytesOf(in[1:]))
				// Either way b is the earlier operand: in (Reduce), or the target
				// (Accumulate).
				for i := 1; i <= n; i++ {
					want := ref(o, b[i], a[i])
					// Bit for bit (a zero's sign counts), but any NaN for a NaN.
					if got := inout[i]; !same(got, want) && !(got != got && want != want) {
						t.Fatalf("%v on %v (accumulate %v), %d elements, element %d: got %v, want %v (operands %v, %v)", o, k, acc, n, i, got, want, a[i], b[i])
					}
				}
				if first := [2]T{a[0], b[0]}[b2i(acc)]; !same(inout[0], first) {
					t.Fatalf("%v on %v wrote before its slice", o, k)
				}
			}
		}
	}
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// same compares bits, so a NaN equals itself.
func same[T any](x, y T) bool {
	return string(bytesOf([]T{x})) == string(bytesOf([]T{y}))
}

func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

func TestKernelsAgainstGoValues(t *testing.T) {
	ints := func(r *rand.Rand) uint64 {
		if r.IntN(4) == 0 {
			return uint64(r.IntN(3)) // zeros and ones for the logical ops
		}
		return r.Uint64()
	}
	checkKernels(t, datatype.KindInt8, func(r *rand.Rand) int8 { return int8(ints(r)) })
	checkKernels(t, datatype.KindUint8, func(r *rand.Rand) uint8 { return uint8(ints(r)) })
	checkKernels(t, datatype.KindByte, func(r *rand.Rand) uint8 { return uint8(ints(r)) })
	checkKernels(t, datatype.KindInt16, func(r *rand.Rand) int16 { return int16(ints(r)) })
	checkKernels(t, datatype.KindUint16, func(r *rand.Rand) uint16 { return uint16(ints(r)) })
	checkKernels(t, datatype.KindInt32, func(r *rand.Rand) int32 { return int32(ints(r)) })
	checkKernels(t, datatype.KindUint32, func(r *rand.Rand) uint32 { return uint32(ints(r)) })
	checkKernels(t, datatype.KindInt64, func(r *rand.Rand) int64 { return int64(ints(r)) })
	checkKernels(t, datatype.KindInt, func(r *rand.Rand) int { return int(ints(r)) })
	checkKernels(t, datatype.KindUint64, func(r *rand.Rand) uint64 { return ints(r) })
	checkKernels(t, datatype.KindUint, func(r *rand.Rand) uint { return uint(ints(r)) })
	floats := func(r *rand.Rand) float64 {
		switch r.IntN(10) {
		case 0:
			return math.NaN()
		case 1:
			return math.Copysign(0, float64(r.IntN(2)*2-1))
		case 2:
			return math.Inf(r.IntN(2)*2 - 1)
		}
		return r.NormFloat64() * 1e3
	}
	checkKernels(t, datatype.KindFloat32, func(r *rand.Rand) float32 { return float32(floats(r)) })
	checkKernels(t, datatype.KindFloat64, floats)
}

func TestComplexAndBoolKernels(t *testing.T) {
	a, b := []complex128{1 + 2i, -3, 0}, []complex128{2 - 1i, 1i, 5}
	x := append([]complex128(nil), a...)
	Reduce(Sum, datatype.KindComplex128)(bytesOf(x), bytesOf(b))
	y := append([]complex128(nil), a...)
	Reduce(Prod, datatype.KindComplex128)(bytesOf(y), bytesOf(b))
	for i := range a {
		if x[i] != a[i]+b[i] || y[i] != b[i]*a[i] {
			t.Errorf("complex128 element %d: sum %v prod %v", i, x[i], y[i])
		}
	}
	c64 := []complex64{1 + 1i, 2, 3, 4, 5, 6, 7, 8, 9} // past one vector block
	d64 := append([]complex64(nil), c64...)
	Reduce(Sum, datatype.KindComplex64)(bytesOf(d64), bytesOf(c64))
	for i := range c64 {
		if d64[i] != 2*c64[i] {
			t.Errorf("complex64 sum element %d: %v", i, d64[i])
		}
	}
	p, q := []bool{true, true, false, false}, []bool{true, false, true, false}
	for o, want := range map[Op][]bool{Land: {true, false, false, false}, Lor: {true, true, true, false}, Lxor: {false, true, true, false}} {
		got := append([]bool(nil), p...)
		Reduce(o, datatype.KindBool)(bytesOf(got), bytesOf(q))
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%v on bool: %v, want %v", o, got, want)
				break
			}
		}
	}
}

// pairRec is a packed pair: vs bytes of value, then an int32 index.
func pairRec(val []byte, idx int32) []byte {
	return binary.LittleEndian.AppendUint32(append([]byte(nil), val...), uint32(idx))
}

// TestLocTies: on every pair kind, the better value wins with its index, and of equal
// values the smaller index stays, in both orders of the operands.
func TestLocTies(t *testing.T) {
	le := func(n int, v uint64) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		return b
	}
	f32 := func(v float32) []byte { return le(4, uint64(math.Float32bits(v))) }
	f64 := func(v float64) []byte { return le(8, math.Float64bits(v)) }
	ld := func(v x87) []byte { b := make([]byte, 16); v.store(b); b[12] = 0xee; return b }
	kinds := []struct {
		k             Kind
		small, big    []byte
		nan           []byte
		rec           int
		valueBytesCmp int
	}{
		{datatype.KindInt32Int32, le(4, 3), le(4, 7), nil, 8, 4},
		{datatype.KindFloat32Int32, f32(-1.5), f32(2.25), f32(float32(math.NaN())), 8, 4},
		{datatype.KindFloat64Int32, f64(-1.5), f64(2.25), f64(math.NaN()), 12, 8},
		{datatype.KindInt64Int32, le(8, uint64(1<<40)), le(8, uint64(1<<41)), nil, 12, 8},
		{datatype.KindInt16Int32, le(2, 0xfffe), le(2, 5), nil, 6, 2}, // -2 < 5
		{datatype.KindLongDoubleInt, ld(ldMinusOn), ld(ldThree), ld(ldQNaN), 20, 10},
	}
	for _, c := range kinds {
		for _, o := range []Op{Maxloc, Minloc} {
			fn := Reduce(o, c.k)
			best, worse := c.big, c.small
			if o == Minloc {
				best, worse = c.small, c.big
			}
			run := func(inout, in []byte) []byte {
				x := append([]byte(nil), inout...)
				fn(x, in)
				return x
			}
			// The better value wins with its index, whichever side it is on.
			if got := run(pairRec(worse, 1), pairRec(best, 9)); string(got) != string(pairRec(best, 9)) {
				t.Errorf("%v on %v: better value in in lost: %x", o, c.k, got)
			}
			if got := run(pairRec(best, 9), pairRec(worse, 1)); string(got) != string(pairRec(best, 9)) {
				t.Errorf("%v on %v: better value in inout lost: %x", o, c.k, got)
			}
			// Ties keep the smaller index, either way round.
			if got := run(pairRec(best, 4), pairRec(best, 2)); string(got) != string(pairRec(best, 2)) {
				t.Errorf("%v on %v: tie kept index %x, want 2", o, c.k, got)
			}
			if got := run(pairRec(best, 2), pairRec(best, 4)); string(got) != string(pairRec(best, 2)) {
				t.Errorf("%v on %v: tie kept index %x, want 2", o, c.k, got)
			}
			// Two records in a row: the second at offset rec, unaligned for the value.
			two := append(pairRec(worse, 1), pairRec(best, 3)...)
			in := append(pairRec(best, 5), pairRec(worse, 0)...)
			if got := run(two, in); string(got) != string(append(pairRec(best, 5), pairRec(best, 3)...)) {
				t.Errorf("%v on %v: two records: %x", o, c.k, got)
			}
			if c.nan != nil {
				// A NaN is never better: the inout pair stays.
				if got := run(pairRec(c.small, 1), pairRec(c.nan, 0)); string(got) != string(pairRec(c.small, 1)) {
					t.Errorf("%v on %v: NaN replaced the value: %x", o, c.k, got)
				}
			}
		}
	}
	// Flat pairs of one Go type: value, index, value, index.
	x := []float64{1, 5, 2, 7}
	Reduce(Maxloc, datatype.KindFloat64)(bytesOf(x), bytesOf([]float64{1, 3, 3, 0}))
	if x[0] != 1 || x[1] != 3 || x[2] != 3 || x[3] != 0 {
		t.Errorf("Maxloc on flat float64 pairs: %v", x)
	}
}

// TestLongDoubleKernels: Sum, Prod, Max and Min on MPI_LONG_DOUBLE and its complex
// type work on 16-byte elements and leave the padding alone.
func TestLongDoubleKernels(t *testing.T) {
	els := func(vs ...x87) []byte {
		b := make([]byte, 16*len(vs))
		for i, v := range vs {
			v.store(b[16*i:])
			for j := 10; j < 16; j++ {
				b[16*i+j] = 0xa5
			}
		}
		return b
	}
	got := func(b []byte, i int) x87 { return loadX87(b[16*i:]) }
	inout, in := els(ldOne, ldTwo, ldQNaN, x87{0, 0x8000}), els(ldTwo, ldMinusOn, ldOne, x87{})
	Reduce(Sum, datatype.KindLongDouble)(inout, in)
	if got(inout, 0) != ldThree || got(inout, 1) != ldOne || !got(inout, 2).isNaN() || got(inout, 3) != (x87{}) {
		t.Errorf("Sum: %x", inout)
	}
	for i := 0; i < 4; i++ {
		if string(inout[16*i+10:16*i+16]) != "\xa5\xa5\xa5\xa5\xa5\xa5" {
			t.Errorf("Sum wrote element %d's padding", i)
		}
	}
	inout = els(ldOne, ldTwo, ldOne, x87{0, 0x8000}, ldMinDen)
	in = els(ldThree, ldMinusOn, ldQNaN, x87{}, ldPseudo)
	Reduce(Max, datatype.KindLongDouble)(inout, in)
	if got(inout, 0) != ldThree || got(inout, 1) != ldTwo || !got(inout, 2).isNaN() || got(inout, 3) != (x87{}) || got(inout, 4) != ldPseudo {
		t.Errorf("Max: %x", inout)
	}
	inout = els(ldOne, ldTwo, ldOne, x87{0, 0x8000})
	in = els(ldThree, ldMinusOn, ldQNaN, x87{})
	Reduce(Min, datatype.KindLongDouble)(inout, in)
	if got(inout, 0) != ldOne || got(inout, 1) != ldMinusOn || !got(inout, 2).isNaN() || got(inout, 3) != (x87{0, 0x8000}) {
		t.Errorf("Min: %x", inout)
	}
	inout, in = els(ldTwo, ldThree), els(ldThree, ldMinusOn)
	Reduce(Prod, datatype.KindLongDouble)(inout, in)
	if got(inout, 0) != (x87{0xc000000000000000, 0x4001}) || got(inout, 1) != negX87(ldThree) {
		t.Errorf("Prod: %x", inout)
	}
	// (1 + 2i)(3 - i) = 5 + 5i; (1+2i) + (3-i) = 4 + i.
	five, four := x87{0xa000000000000000, 0x4001}, x87{1 << 63, 0x4001}
	a, b := els(ldOne, ldTwo), els(ldThree, ldMinusOn)
	p := append([]byte(nil), a...)
	Reduce(Prod, datatype.KindLongDoubleComplex)(p, b)
	s := append([]byte(nil), a...)
	Reduce(Sum, datatype.KindLongDoubleComplex)(s, b)
	if got(p, 0) != five || got(p, 1) != five || got(s, 0) != four || got(s, 1) != ldOne {
		t.Errorf("complex long double: product %x, sum %x", p, s)
	}
}

// TestLiteralLogical: the logical operations on Fortran LOGICALs whose .TRUE. is -1
// and .FALSE. 0 in 4 bytes: anything but .FALSE. is true, results are the literals.
func TestLiteralLogical(t *testing.T) {
	yes, no := []byte{0xff, 0xff, 0xff, 0xff}, []byte{0, 0, 0, 0}
	lit := func(vs ...uint32) []byte {
		b := make([]byte, 4*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint32(b[4*i:], v)
		}
		return b
	}
	a, b := lit(0xffffffff, 1, 0, 0), lit(7, 0, 0xffffffff, 0) // true true false false; true false true false
	for o, want := range map[Op][]byte{Land: lit(0xffffffff, 0, 0, 0), Lor: lit(0xffffffff, 0xffffffff, 0xffffffff, 0), Lxor: lit(0, 0xffffffff, 0xffffffff, 0)} {
		got := append([]byte(nil), a...)
		LiteralLogical(o, yes, no)(got, b)
		if string(got) != string(want) {
			t.Errorf("%v: %x, want %x", o, got, want)
		}
	}
	if LiteralLogical(Sum, yes, no) != nil {
		t.Error("Sum has a literal logical kernel")
	}
}

// TestPackedLocLoops: the packed pairs' own loops give, record for record, what the
// general packedLoc gives with the value's order, on random records that tie, hold
// NaNs and zeros of both signs, at lengths around whole records.
func TestPackedLocLoops(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	f64 := func(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }
	f32 := func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }
	kinds := []struct {
		k     Kind
		vs    int
		order func(x, y []byte) int
		value func() uint64
	}{
		{datatype.KindFloat64Int32, 8, func(x, y []byte) int { return orderOf(f64(x), f64(y)) }, func() uint64 {
			return math.Float64bits([]float64{math.NaN(), 0, math.Copysign(0, -1), 1, -1, 2.5}[r.IntN(6)])
		}},
		{datatype.KindFloat32Int32, 4, func(x, y []byte) int { return orderOf(f32(x), f32(y)) }, func() uint64 {
			return uint64(math.Float32bits([]float32{float32(math.NaN()), 0, float32(math.Copysign(0, -1)), 1, -1, 2.5}[r.IntN(6)]))
		}},
		{datatype.KindInt64Int32, 8, func(x, y []byte) int {
			return orderOf(int64(binary.LittleEndian.Uint64(x)), int64(binary.LittleEndian.Uint64(y)))
		}, func() uint64 { return uint64(int64(r.IntN(5)-2) << (r.IntN(2) * 40)) }},
		{datatype.KindInt16Int32, 2, func(x, y []byte) int {
			return orderOf(int16(binary.LittleEndian.Uint16(x)), int16(binary.LittleEndian.Uint16(y)))
		}, func() uint64 { return uint64(r.IntN(5)-2) & 0xffff }},
	}
	for _, c := range kinds {
		rec := c.vs + 4
		for _, o := range []Op{Maxloc, Minloc} {
			ref := packedLoc(c.vs, c.order, o == Maxloc)
			for _, n := range []int{0, 1, 2, 7, 50} {
				mk := func() []byte {
					b := make([]byte, 0, n*rec+3)
					for range n {
						v := make([]byte, 8)
						binary.LittleEndian.PutUint64(v, c.value())
						b = binary.LittleEndian.AppendUint32(append(b, v[:c.vs]...), uint32(int32(r.IntN(7)-3)))
					}
					return append(b, 1, 2, 3) // a partial record the kernels leave alone
				}
				inout, in := mk(), mk()
				want := append([]byte(nil), inout...)
				ref(want, in)
				got := append([]byte(nil), inout...)
				Reduce(o, c.k)(got, in)
				if string(got) != string(want) {
					t.Fatalf("%v on %v, %d records: got %x, want %x", o, c.k, n, got, want)
				}
			}
		}
	}
}
