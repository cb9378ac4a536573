#include "textflag.h"

// AVX2 loops of the reduction kernels (simd_amd64.go): dst[i] = dst[i] op src[i] on
// blocks×64 bytes, two 32-byte lanes a step; unaligned loads and stores. Every loop
// is LOOP64 with its instruction (labels are local to each TEXT block).

#define LOOP64(INSTR) \
	MOVQ dst+0(FP), DI; \
	MOVQ src+8(FP), SI; \
	MOVQ blocks+16(FP), CX; \
	TESTQ CX, CX; \
	JZ done; \
loop: \
	VMOVDQU 0(DI), Y0; \
	VMOVDQU 32(DI), Y1; \
	INSTR 0(SI), Y0, Y0; \
	INSTR 32(SI), Y1, Y1; \
	VMOVDQU Y0, 0(DI); \
	VMOVDQU Y1, 32(DI); \
	ADDQ $64, SI; \
	ADDQ $64, DI; \
	DECQ CX; \
	JNZ loop; \
	VZEROUPPER; \
done: \
	RET

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
