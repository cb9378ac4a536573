package op

import (
	"encoding/binary"
	"math/bits"
)

// C's long double on x86-64 is the x87's extended precision: a 64-bit significand
// with an explicit integer bit, then a word holding the sign and a 15-bit exponent of
// bias 16383, little-endian in the first 10 of its 16 bytes (the other 6 are padding,
// which no operation here reads or writes). Go has no such type, so its arithmetic is
// done here on integers: addition and multiplication are correctly rounded to 64 bits
// of significand, to nearest with ties to even (the x87's default, which C programs
// run with), denormals included; comparisons are exact. Special values follow the
// x87: an operation on a NaN gives that NaN made quiet (of two, the one with the
// larger significand), an invalid operation (∞ - ∞, 0 × ∞) or an encoding the x87
// refuses as an operand (an unnormal, a pseudo-NaN, a pseudo-infinity) gives the
// x87's default NaN.

const (
	x87Bias   = 16383
	x87ExpMax = 0x7fff
	intBit    = 1 << 63 // the explicit integer bit of the significand
	quietBit  = 1 << 62 // set in a quiet NaN
	signBit   = 0x8000
)

// x87 is an extended-precision value as stored: significand and sign-and-exponent.
type x87 struct {
	m  uint64
	se uint16
}

// indefinite is the x87's default NaN, the result of an invalid operation.
var indefinite = x87{m: 0xc000000000000000, se: 0xffff}

func loadX87(b []byte) x87 {
	return x87{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint16(b[8:10])}
}

func (x x87) store(b []byte) {
	binary.LittleEndian.PutUint64(b, x.m)
	binary.LittleEndian.PutUint16(b[8:10], x.se)
}

func (x x87) sign() uint16 { return x.se & signBit }
func (x x87) exp() uint16  { return x.se & x87ExpMax }

// The classes of encodings.
const (
	xZero    = iota
	xFinite  // normal, denormal or pseudo-denormal
	xInf     // infinity
	xNaN     // quiet or signalling NaN
	xInvalid // unnormal, pseudo-NaN or pseudo-infinity: not an operand the x87 takes
)

func (x x87) class() int {
	e := x.exp()
	switch {
	case e == x87ExpMax:
		if x.m&intBit == 0 {
			return xInvalid
		}
		if x.m<<1 == 0 {
			return xInf
		}
		return xNaN
	case e == 0:
		if x.m == 0 {
			return xZero
		}
		return xFinite
	case x.m&intBit == 0:
		return xInvalid
	}
	return xFinite
}

// isNaN reports whether x is not a number (the invalid encodings count as NaNs).
func (x x87) isNaN() bool { return x.class() >= xNaN }

func (x x87) isZero() bool { return x.class() == xZero }

// nanOf is the result of an operation on a and b when one of them is a NaN or
// invalid.
func nanOf(a, b x87) x87 {
	ca, cb := a.class(), b.class()
	switch {
	case ca == xInvalid || cb == xInvalid:
		return indefinite
	case ca != xNaN:
		a = b
	case cb == xNaN:
		// Two NaNs: a quiet one before a signalling one, then the larger significand.
		qa, qb := a.m&quietBit != 0, b.m&quietBit != 0
		if qb && !qa || qa == qb && b.m&^quietBit > a.m&^quietBit {
			a = b
		}
	}
	a.m |= quietBit
	return a
}

// norm returns a finite nonzero x as e and m, with m's top bit set:
// x = ±m × 2^(e-63).
func (x x87) norm() (e int32, m uint64) {
	e = int32(max(x.exp(), 1)) // denormals have the smallest normal's scale
	lz := bits.LeadingZeros64(x.m)
	return e - x87Bias - int32(lz), x.m << lz
}

// round packs ±(hi:lo) × 2^(e-127), hi's top bit set, to nearest, ties to even.
func round(sign uint16, e int32, hi, lo uint64) x87 {
	be := e + x87Bias
	if be <= 0 {
		// Below the normal range: the denormal's significand is the value in units of
		// 2^(1-bias-63), which may round up to the smallest normal.
		hi, lo = shr128Jam(hi, lo, uint(1-be))
		hi, _ = roundEven(hi, lo)
		if hi&intBit != 0 {
			return x87{hi, sign | 1}
		}
		return x87{hi, sign}
	}
	var carry bool
	if hi, carry = roundEven(hi, lo); carry {
		hi, be = intBit, be+1
	}
	if be >= x87ExpMax {
		return x87{intBit, sign | x87ExpMax} // overflow rounds to infinity
	}
	return x87{hi, sign | uint16(be)}
}

// roundEven rounds hi by the fraction lo/2^64, and reports a carry out of hi.
func roundEven(hi, lo uint64) (uint64, bool) {
	if lo > 1<<63 || lo == 1<<63 && hi&1 != 0 {
		hi++
		return hi, hi == 0
	}
	return hi, false
}

// shr128Jam shifts hi:lo right by s, keeping in bit 0 whether any 1 was shifted out,
// so that rounding later sees that the value lies above the truncated one.
func shr128Jam(hi, lo uint64, s uint) (uint64, uint64) {
	var sticky bool
	switch {
	case s == 0:
		return hi, lo
	case s < 64:
		sticky = lo<<(64-s) != 0
		hi, lo = hi>>s, hi<<(64-s)|lo>>s
	case s < 128:
		sticky = lo != 0 || hi<<(128-s) != 0
		hi, lo = 0, hi>>(s-64)
	default:
		sticky = hi|lo != 0
		hi, lo = 0, 0
	}
	if sticky {
		lo |= 1
	}
	return hi, lo
}

// addX87 is a + b.
func addX87(a, b x87) x87 {
	ca, cb := a.class(), b.class()
	switch {
	case ca >= xNaN || cb >= xNaN:
		return nanOf(a, b)
	case ca == xInf && cb == xInf && a.sign() != b.sign():
		return indefinite
	case ca == xInf:
		return x87{intBit, a.se}
	case cb == xInf:
		return x87{intBit, b.se}
	case ca == xZero && cb == xZero:
		return x87{0, a.sign() & b.sign()} // -0 only from -0 + -0
	}
	// A zero's norm is m = 0 at an exponent below every finite value's, which adds
	// nothing.
	ea, ma := a.norm()
	eb, mb := b.norm()
	sa := a.sign()
	if eb > ea || eb == ea && mb > ma {
		ea, ma, eb, mb, sa = eb, mb, ea, ma, b.sign()
	}
	bh, bl := shr128Jam(mb, 0, uint(ea-eb))
	if a.sign() == b.sign() {
		lo, c := bits.Add64(0, bl, 0)
		hi, c := bits.Add64(ma, bh, c)
		if c != 0 {
			hi, lo = intBit|hi>>1, hi<<63|lo>>1|lo&1
			ea++
		}
		return round(sa, ea, hi, lo)
	}
	lo, br := bits.Sub64(0, bl, 0)
	hi, _ := bits.Sub64(ma, bh, br)
	if hi|lo == 0 {
		return x87{} // x - x is +0
	}
	n := bits.LeadingZeros64(hi)
	if hi == 0 {
		n = 64 + bits.LeadingZeros64(lo)
	}
	hi, lo = shl128(hi, lo, uint(n))
	return round(sa, ea-int32(n), hi, lo)
}

func shl128(hi, lo uint64, s uint) (uint64, uint64) {
	if s >= 64 {
		return lo << (s - 64), 0
	}
	if s == 0 {
		return hi, lo
	}
	return hi<<s | lo>>(64-s), lo << s
}

// mulX87 is a × b.
func mulX87(a, b x87) x87 {
	ca, cb := a.class(), b.class()
	sign := (a.se ^ b.se) & signBit
	switch {
	case ca >= xNaN || cb >= xNaN:
		return nanOf(a, b)
	case ca == xInf || cb == xInf:
		if ca == xZero || cb == xZero {
			return indefinite
		}
		return x87{intBit, sign | x87ExpMax}
	case ca == xZero || cb == xZero:
		return x87{0, sign}
	}
	ea, ma := a.norm()
	eb, mb := b.norm()
	hi, lo := bits.Mul64(ma, mb)
	e := ea + eb + 1
	if hi&intBit == 0 {
		hi, lo = hi<<1|lo>>63, lo<<1
		e--
	}
	return round(sign, e, hi, lo)
}

// cmpX87 orders a and b, neither a NaN: -1, 0 or +1. The zeros are equal.
func cmpX87(a, b x87) int {
	if a.isZero() && b.isZero() {
		return 0
	}
	if a.sign() != b.sign() {
		if a.sign() != 0 {
			return -1
		}
		return 1
	}
	// Same sign: the magnitudes order as (exponent, significand), the denormals
	// (exponent 0) at the smallest normal's scale.
	c := 0
	switch ea, eb := max(a.exp(), 1), max(b.exp(), 1); {
	case ea != eb:
		c = cmp(ea, eb)
	default:
		c = cmp(a.m, b.m)
	}
	if a.sign() != 0 {
		c = -c
	}
	return c
}

func cmp[T uint16 | uint64](x, y T) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// The long double kernels work on 16-byte elements, of which they read and write the
// first 10.

const ldSize = 16

func ldSum(inout, in []byte) {
	for o := 0; o+ldSize <= len(inout); o += ldSize {
		addX87(loadX87(in[o:]), loadX87(inout[o:])).store(inout[o:])
	}
}

func ldProd(inout, in []byte) {
	for o := 0; o+ldSize <= len(inout); o += ldSize {
		mulX87(loadX87(in[o:]), loadX87(inout[o:])).store(inout[o:])
	}
}

func ldMax(inout, in []byte) { ldPick(inout, in, 1) }
func ldMin(inout, in []byte) { ldPick(inout, in, -1) }

// ldPick keeps in each element the larger (dir 1) or smaller (dir -1) operand, as
// Go's max and min do on floats: a NaN spreads, and +0 is larger than -0.
func ldPick(inout, in []byte, dir int) {
	for o := 0; o+ldSize <= len(inout); o += ldSize {
		a, b := loadX87(inout[o:]), loadX87(in[o:])
		var take bool
		switch {
		case a.isNaN():
		case b.isNaN():
			take = true
		case a.isZero() && b.isZero():
			take = dir > 0 && a.sign() != 0 && b.sign() == 0 || dir < 0 && a.sign() == 0 && b.sign() != 0
		default:
			take = cmpX87(b, a) == dir
		}
		if take {
			copy(inout[o:o+10], in[o:o+10])
		}
	}
}

// Complex long double: {re; im}, 32 bytes. The product is C's
// (ac - bd) + (ad + bc)i, each operation rounded to long double, as GCC computes it
// on the x87; C's recovery of infinities from a NaN result (Annex G's __mulxc3) is
// not done.

const ldcSize = 2 * ldSize

func ldcSum(inout, in []byte) { ldSum(inout, in) }

func ldcProd(inout, in []byte) {
	for o := 0; o+ldcSize <= len(inout); o += ldcSize {
		a, b := loadX87(inout[o:]), loadX87(inout[o+ldSize:])
		c, d := loadX87(in[o:]), loadX87(in[o+ldSize:])
		re := addX87(mulX87(a, c), negX87(mulX87(b, d)))
		im := addX87(mulX87(a, d), mulX87(b, c))
		re.store(inout[o:])
		im.store(inout[o+ldSize:])
	}
}

func negX87(x x87) x87 { x.se ^= signBit; return x }
