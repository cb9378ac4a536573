#include "textflag.h"

// AVX2 loops of the reduction kernels (simd_amd64.go): dst[i] = dst[i] op src[i] on
// blocks×64 bytes, two 32-byte lanes a step; unaligned loads and stores. Every loop
// is BEGIN, its body, END (labels are local to each TEXT block).

// BEGIN and END are every loop's frame: dst in DI, src in SI, blocks in CX; the body
// between them does one 64-byte block.
#define BEGIN \
	MOVQ dst+0(FP), DI; \
	MOVQ src+8(FP), SI; \
	MOVQ blocks+16(FP), CX; \
	TESTQ CX, CX; \
	JZ done; \
loop:

#define END \
	ADDQ $64, SI; \
	ADDQ $64, DI; \
	DECQ CX; \
	JNZ loop; \
	VZEROUPPER; \
done: \
	RET

#define LOOP64(INSTR) \
	BEGIN; \
	VMOVDQU 0(DI), Y0; \
	VMOVDQU 32(DI), Y1; \
	INSTR 0(SI), Y0, Y0; \
	INSTR 32(SI), Y1, Y1; \
	VMOVDQU Y0, 0(DI); \
	VMOVDQU Y1, 32(DI); \
	END

// func vpaddb(dst, src *byte, blocks int)
TEXT ·vpaddb(SB), NOSPLIT, $0-24
	LOOP64(VPADDB)

// func vpaddw(dst, src *byte, blocks int)
TEXT ·vpaddw(SB), NOSPLIT, $0-24
	LOOP64(VPADDW)

// func vpaddd(dst, src *byte, blocks int)
TEXT ·vpaddd(SB), NOSPLIT, $0-24
	LOOP64(VPADDD)

// func vpaddq(dst, src *byte, blocks int)
TEXT ·vpaddq(SB), NOSPLIT, $0-24
	LOOP64(VPADDQ)

// func vaddps(dst, src *byte, blocks int)
TEXT ·vaddps(SB), NOSPLIT, $0-24
	LOOP64(VADDPS)

// func vaddpd(dst, src *byte, blocks int)
TEXT ·vaddpd(SB), NOSPLIT, $0-24
	LOOP64(VADDPD)

// func vpand(dst, src *byte, blocks int)
TEXT ·vpand(SB), NOSPLIT, $0-24
	LOOP64(VPAND)

// func vpor(dst, src *byte, blocks int)
TEXT ·vpor(SB), NOSPLIT, $0-24
	LOOP64(VPOR)

// func vpxor(dst, src *byte, blocks int)
TEXT ·vpxor(SB), NOSPLIT, $0-24
	LOOP64(VPXOR)

// The integers' MIN and MAX are one instruction a lane (signed and unsigned bytes,
// words and doublewords).

// func vpmaxsb(dst, src *byte, blocks int)
TEXT ·vpmaxsb(SB), NOSPLIT, $0-24
	LOOP64(VPMAXSB)

// func vpminsb(dst, src *byte, blocks int)
TEXT ·vpminsb(SB), NOSPLIT, $0-24
	LOOP64(VPMINSB)

// func vpmaxub(dst, src *byte, blocks int)
TEXT ·vpmaxub(SB), NOSPLIT, $0-24
	LOOP64(VPMAXUB)

// func vpminub(dst, src *byte, blocks int)
TEXT ·vpminub(SB), NOSPLIT, $0-24
	LOOP64(VPMINUB)

// func vpmaxsw(dst, src *byte, blocks int)
TEXT ·vpmaxsw(SB), NOSPLIT, $0-24
	LOOP64(VPMAXSW)

// func vpminsw(dst, src *byte, blocks int)
TEXT ·vpminsw(SB), NOSPLIT, $0-24
	LOOP64(VPMINSW)

// func vpmaxuw(dst, src *byte, blocks int)
TEXT ·vpmaxuw(SB), NOSPLIT, $0-24
	LOOP64(VPMAXUW)

// func vpminuw(dst, src *byte, blocks int)
TEXT ·vpminuw(SB), NOSPLIT, $0-24
	LOOP64(VPMINUW)

// func vpmaxsd(dst, src *byte, blocks int)
TEXT ·vpmaxsd(SB), NOSPLIT, $0-24
	LOOP64(VPMAXSD)

// func vpminsd(dst, src *byte, blocks int)
TEXT ·vpminsd(SB), NOSPLIT, $0-24
	LOOP64(VPMINSD)

// func vpmaxud(dst, src *byte, blocks int)
TEXT ·vpmaxud(SB), NOSPLIT, $0-24
	LOOP64(VPMAXUD)

// func vpminud(dst, src *byte, blocks int)
TEXT ·vpminud(SB), NOSPLIT, $0-24
	LOOP64(VPMINUD)

// Quadwords have no MIN or MAX in AVX2: a lane compares keys (VPCMPGTQ, dst's > src's)
// and picks by the mask. LOOPQ(KEYS, k0, k1, l0, l1, a0, b0, a1, b1) makes the keys with
// KEYS, compares dst's (k0, k1) with src's (l0, l1), and writes a0 (a1) to the lanes
// where dst's key is greater, b0 (b1) elsewhere: MAX picks dst, MIN src.

#define LOOPQ(KEYS, K0, K1, L0, L1, A0, B0, A1, B1) \
	BEGIN; \
	VMOVDQU 0(DI), Y0; \
	VMOVDQU 32(DI), Y1; \
	VMOVDQU 0(SI), Y2; \
	VMOVDQU 32(SI), Y3; \
	KEYS; \
	VPCMPGTQ L0, K0, Y4; \
	VPCMPGTQ L1, K1, Y5; \
	VPBLENDVB Y4, A0, B0, Y4; \
	VPBLENDVB Y5, A1, B1, Y5; \
	VMOVDQU Y4, 0(DI); \
	VMOVDQU Y5, 32(DI); \
	END

// Signed quadwords are their own keys (SIGNEDQ makes none). Unsigned ones, which AVX2
// compares as signed only, have their sign bits flipped (UNSIGNEDQ, into Y4-Y7): the
// signed order of the keys is then the operands' unsigned order; the blend takes the
// operands as they were.
#define SIGNEDQ

DATA signq<>+0(SB)/8, $0x8000000000000000
DATA signq<>+8(SB)/8, $0x8000000000000000
DATA signq<>+16(SB)/8, $0x8000000000000000
DATA signq<>+24(SB)/8, $0x8000000000000000
GLOBL signq<>(SB), RODATA|NOPTR, $32

#define UNSIGNEDQ \
	VMOVDQU signq<>(SB), Y8; \
	VPXOR Y8, Y0, Y4; \
	VPXOR Y8, Y1, Y5; \
	VPXOR Y8, Y2, Y6; \
	VPXOR Y8, Y3, Y7

// func vpmaxsq(dst, src *byte, blocks int)
TEXT ·vpmaxsq(SB), NOSPLIT, $0-24
	LOOPQ(SIGNEDQ, Y0, Y1, Y2, Y3, Y0, Y2, Y1, Y3)

// func vpminsq(dst, src *byte, blocks int)
TEXT ·vpminsq(SB), NOSPLIT, $0-24
	LOOPQ(SIGNEDQ, Y0, Y1, Y2, Y3, Y2, Y0, Y3, Y1)

// func vpmaxuq(dst, src *byte, blocks int)
TEXT ·vpmaxuq(SB), NOSPLIT, $0-24
	LOOPQ(UNSIGNEDQ, Y4, Y5, Y6, Y7, Y0, Y2, Y1, Y3)

// func vpminuq(dst, src *byte, blocks int)
TEXT ·vpminuq(SB), NOSPLIT, $0-24
	LOOPQ(UNSIGNEDQ, Y4, Y5, Y6, Y7, Y2, Y0, Y3, Y1)

// Floating MIN and MAX as Go's min and max have them: NaN if either operand is NaN, and
// -0 below +0. VMAXPD/VMINPD give the second operand for a NaN and for equal operands,
// so two fixes follow each: lanes that compare equal (+0 and -0 among them) take the
// operands' AND for MAX (+0 if either is) or OR for MIN (-0 if either is); lanes that
// are unordered take their sum, a NaN. FMINMAX(OP, EQ, CMP, SUM, BLEND) is one 32-byte
// lane: dst in Y0, src in Y1, the result in Y2.

#define FMINMAX(OP, EQ, CMP, SUM, BLEND) \
	OP Y0, Y1, Y2; \
	CMP $0, Y1, Y0, Y3; \
	EQ Y1, Y0, Y4; \
	BLEND Y3, Y4, Y2, Y2; \
	CMP $3, Y1, Y0, Y3; \
	SUM Y1, Y0, Y4; \
	BLEND Y3, Y4, Y2, Y2

#define LOOPF(OP, EQ, CMP, SUM, BLEND) \
	BEGIN; \
	VMOVDQU 0(DI), Y0; \
	VMOVDQU 0(SI), Y1; \
	FMINMAX(OP, EQ, CMP, SUM, BLEND); \
	VMOVDQU Y2, 0(DI); \
	VMOVDQU 32(DI), Y0; \
	VMOVDQU 32(SI), Y1; \
	FMINMAX(OP, EQ, CMP, SUM, BLEND); \
	VMOVDQU Y2, 32(DI); \
	END

// func vmaxpd(dst, src *byte, blocks int)
TEXT ·vmaxpd(SB), NOSPLIT, $0-24
	LOOPF(VMAXPD, VANDPD, VCMPPD, VADDPD, VBLENDVPD)

// func vminpd(dst, src *byte, blocks int)
TEXT ·vminpd(SB), NOSPLIT, $0-24
	LOOPF(VMINPD, VORPD, VCMPPD, VADDPD, VBLENDVPD)

// func vmaxps(dst, src *byte, blocks int)
TEXT ·vmaxps(SB), NOSPLIT, $0-24
	LOOPF(VMAXPS, VANDPS, VCMPPS, VADDPS, VBLENDVPS)

// func vminps(dst, src *byte, blocks int)
TEXT ·vminps(SB), NOSPLIT, $0-24
	LOOPF(VMINPS, VORPS, VCMPPS, VADDPS, VBLENDVPS)

// Prod: floats lane by lane (IEEE multiplication, as Go's), integers of 16 and 32 bits
// by their low halves (wrapping, as Go's); AVX2 has no 8- or 64-bit multiply.

// func vmulpd(dst, src *byte, blocks int)
TEXT ·vmulpd(SB), NOSPLIT, $0-24
	LOOP64(VMULPD)

// func vmulps(dst, src *byte, blocks int)
TEXT ·vmulps(SB), NOSPLIT, $0-24
	LOOP64(VMULPS)

// func vpmulld(dst, src *byte, blocks int)
TEXT ·vpmulld(SB), NOSPLIT, $0-24
	LOOP64(VPMULLD)

// func vpmullw(dst, src *byte, blocks int)
TEXT ·vpmullw(SB), NOSPLIT, $0-24
	LOOP64(VPMULLW)
