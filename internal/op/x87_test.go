package op

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// x87 values in the patterns of the Intel SDM (vol. 1, §4.2.2, §4.8): the
// significand's integer bit is explicit.
var (
	ldOne     = x87{1 << 63, 0x3fff}
	ldTwo     = x87{1 << 63, 0x4000}
	ldThree   = x87{0xc000000000000000, 0x4000}
	ldMinusOn = x87{1 << 63, 0xbfff}
	ldInf     = x87{1 << 63, 0x7fff}
	ldNegInf  = x87{1 << 63, 0xffff}
	ldQNaN    = x87{0xc000000000000001, 0x7fff}
	ldSNaN    = x87{0x8000000000000001, 0x7fff}
	ldMaxFin  = x87{math.MaxUint64, 0x7ffe}
	ldMinNorm = x87{1 << 63, 0x0001}
	ldMinDen  = x87{1, 0x0000}
	ldPseudo  = x87{1 << 63, 0x0000} // a pseudo-denormal: the smallest normal's value
	ldUnnorm  = x87{1 << 62, 0x3fff} // an unnormal: invalid
)

func TestX87KnownResults(t *testing.T) {
	cases := []struct {
		name     string
		got, exp x87
	}{
		{"1+1", addX87(ldOne, ldOne), ldTwo},
		{"1+2", addX87(ldOne, ldTwo), ldThree},
		{"1-1 is +0", addX87(ldOne, ldMinusOn), x87{0, 0}},
		{"-0 + -0", addX87(x87{0, 0x8000}, x87{0, 0x8000}), x87{0, 0x8000}},
		{"-0 + +0", addX87(x87{0, 0x8000}, x87{0, 0}), x87{0, 0}},
		// 1 + 2^-63 is exact in 64 bits of significand (not in a double's 53).
		{"1+2^-63", addX87(ldOne, x87{1 << 63, 0x3fff - 63}), x87{1<<63 | 1, 0x3fff}},
		// 1 + 2^-64 is a tie: to even, 1.
		{"1+2^-64 ties to even", addX87(ldOne, x87{1 << 63, 0x3fff - 64}), ldOne},
		// (1+2^-63) + 2^-64 is a tie above an odd significand: up.
		{"tie to even upward", addX87(x87{1<<63 | 1, 0x3fff}, x87{1 << 63, 0x3fff - 64}), x87{1<<63 | 2, 0x3fff}},
		// 1 + 3·2^-66 lies above the tie's quarter: 1 + 2^-63·0 rounds to 1 (below half).
		{"below half", addX87(ldOne, x87{0xc000000000000000, 0x3fff - 66}), ldOne},
		{"just above half", addX87(ldOne, x87{0x8000000000000001, 0x3fff - 64}), x87{1<<63 | 1, 0x3fff}},
		// 1 - (1+2^-63)·2^-65 lies just below the tie between 1 - 2^-64 and 1: the bit
		// shifted out past 128 decides it (to even would give 1).
		{"a bit lost far below decides", addX87(ldOne, x87{1<<63 | 1, 0xbfff - 65}), x87{math.MaxUint64, 0x3ffe}},
		{"max + max overflows", addX87(ldMaxFin, ldMaxFin), ldInf},
		{"denormal + denormal", addX87(ldMinDen, ldMinDen), x87{2, 0}},
		{"denormals carry into the normal range", addX87(x87{1 << 62, 0}, x87{1 << 62, 0}), ldMinNorm},
		{"pseudo-denormal + 0", addX87(ldPseudo, x87{}), ldMinNorm},
		{"inf + 1", addX87(ldInf, ldOne), ldInf},
		{"inf - inf", addX87(ldInf, ldNegInf), indefinite},
		{"NaN + 1 keeps the NaN", addX87(ldQNaN, ldOne), ldQNaN},
		{"SNaN + 1 quiets it", addX87(ldOne, ldSNaN), x87{ldSNaN.m | quietBit, 0x7fff}},
		{"unnormal is invalid", addX87(ldUnnorm, ldOne), indefinite},
		{"2*3", mulX87(ldTwo, ldThree), x87{0xc000000000000000, 0x4001}},
		{"-1*-1", mulX87(ldMinusOn, ldMinusOn), ldOne},
		{"0 * inf", mulX87(x87{}, ldInf), indefinite},
		{"-1 * 0 is -0", mulX87(ldMinusOn, x87{}), x87{0, 0x8000}},
		{"max*2 overflows", mulX87(ldMaxFin, ldTwo), ldInf},
		{"min normal / 2 is a denormal", mulX87(ldMinNorm, x87{1 << 63, 0x3ffe}), x87{1 << 62, 0}},
		{"min denormal * 0.5 ties to 0", mulX87(ldMinDen, x87{1 << 63, 0x3ffe}), x87{}},
		{"min denormal * 0.75 rounds up", mulX87(ldMinDen, x87{0xc000000000000000, 0x3ffe}), ldMinDen},
		// (2^64-1)^2 = 2^128 - 2^65 + 1: significand all ones, then 0111...1: rounds
		// to nearest below the tie, so the top 64 bits stay.
		{"all ones squared", mulX87(x87{math.MaxUint64, 0x3fff}, x87{math.MaxUint64, 0x3fff}), x87{0xfffffffffffffffe, 0x4000}},
	}
	for _, c := range cases {
		if c.got != c.exp {
			t.Errorf("%s: got %016x/%04x, want %016x/%04x", c.name, c.got.m, c.got.se, c.exp.m, c.exp.se)
		}
	}
	if cmpX87(ldOne, ldTwo) != -1 || cmpX87(ldMinusOn, ldOne) != -1 || cmpX87(ldPseudo, ldMinNorm) != 0 ||
		cmpX87(ldMinDen, x87{}) != 1 || cmpX87(x87{0, 0x8000}, x87{}) != 0 || cmpX87(ldNegInf, ldMinusOn) != -1 {
		t.Error("cmpX87 misorders")
	}
}

// TestX87AgainstBig: addition and multiplication agree with exact arithmetic
// rounded to 64 bits of significand, to nearest even, over operands across the
// range: normals, denormals, pseudo-denormals, results that overflow and underflow.
func TestX87AgainstBig(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gen := func() x87 {
		var e uint16
		switch r.IntN(6) {
		case 0:
			e = 0 // a denormal, or a pseudo-denormal when the integer bit is set
		case 1:
			e = uint16(1 + r.IntN(80))
		case 2:
			e = uint16(0x7ffe - r.IntN(80))
		default:
			e = uint16(0x3fff - 70 + r.IntN(140))
		}
		m := r.Uint64()
		if e != 0 {
			m |= intBit
		} else if r.IntN(4) != 0 {
			m &^= intBit
		}
		if r.IntN(3) == 0 {
			m &^= 1<<uint(r.IntN(40)) - 1 // short significands make ties and exact sums
		}
		return x87{m, e | uint16(r.IntN(2))<<15}
	}
	for i := 0; i < 20000; i++ {
		a, b := gen(), gen()
		if got, want := addX87(a, b), bigRound(new(big.Float).SetPrec(40000).Add(bigOf(a), bigOf(b))); got != want && !(got.isZero() && want.isZero()) {
			t.Fatalf("%v + %v: got %016x/%04x, want %016x/%04x", bigOf(a), bigOf(b), got.m, got.se, want.m, want.se)
		}
		if got, want := mulX87(a, b), bigRound(new(big.Float).SetPrec(200).Mul(bigOf(a), bigOf(b))); got != want && !(got.isZero() && want.isZero() && got.sign() == want.sign()) {
			t.Fatalf("%v × %v: got %016x/%04x, want %016x/%04x", bigOf(a), bigOf(b), got.m, got.se, want.m, want.se)
		}
	}
}

// bigOf is a finite x87 value exactly.
func bigOf(x x87) *big.Float {
	e := int(max(x.exp(), 1)) - x87Bias - 63
	f := new(big.Float).SetPrec(64).SetUint64(x.m)
	f.SetMantExp(f, e)
	if x.sign() != 0 {
		f.Neg(f)
	}
	return f
}

// bigRound is f rounded to an x87 value, by the rules of IEEE 754: to nearest even at
// 64 bits of significand, at the denormals' fixed scale below the normal range,
// infinity past the largest.
func bigRound(f *big.Float) x87 {
	var sign uint16
	if f.Signbit() {
		sign = signBit
	}
	a := new(big.Float).Abs(f)
	if a.Sign() == 0 {
		return x87{0, sign}
	}
	minNorm := new(big.Float).SetMantExp(big.NewFloat(1), 1-x87Bias)
	if a.Cmp(minNorm) < 0 {
		// Denormal: the significand is a / 2^(1-bias-63), rounded to an integer.
		q := new(big.Float).SetPrec(a.Prec()+64).SetMantExp(a, x87Bias-1+63)
		n, _ := q.Int(nil)
		frac := new(big.Float).Sub(q, new(big.Float).SetInt(n))
		switch c := frac.Cmp(big.NewFloat(0.5)); {
		case c > 0, c == 0 && n.Bit(0) == 1:
			n.Add(n, big.NewInt(1))
		}
		m := n.Uint64()
		if m&intBit != 0 {
			return x87{m, sign | 1}
		}
		return x87{m, sign}
	}
	r := new(big.Float).SetPrec(64).SetMode(big.ToNearestEven).Set(a)
	mant := new(big.Float)
	exp := r.MantExp(mant) // r = mant × 2^exp, mant in [0.5, 1)
	be := exp - 1 + x87Bias
	if be >= x87ExpMax {
		return x87{intBit, sign | x87ExpMax}
	}
	mi, _ := mant.SetMantExp(mant, 64).Int(nil)
	return x87{mi.Uint64(), sign | uint16(be)}
}
