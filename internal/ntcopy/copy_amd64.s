#include "textflag.h"

// func Copy(dst, src unsafe.Pointer, lines uintptr)
//
// Copies lines×64 bytes with non-temporal stores (MOVNTDQ), then SFENCE: the stores
// are weakly ordered, and the fence makes them visible before any later store (the
// cell's stamp). dst is 16-byte aligned; src need not be.
TEXT ·Copy(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ lines+16(FP), CX
	TESTQ CX, CX
	JZ done
loop:
	MOVOU 0(SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3
	MOVNTO X0, 0(DI)
	MOVNTO X1, 16(DI)
	MOVNTO X2, 32(DI)
	MOVNTO X3, 48(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ loop
	SFENCE
done:
	RET

// func Gather8(dst, src unsafe.Pointer, stride, lines uintptr)
//
// Gathers lines×8 eight-byte words, the i-th at src + i×stride, into lines×64
// contiguous bytes at dst with non-temporal stores, then SFENCE. dst is 16-byte
// aligned; src and stride need not be.
TEXT ·Gather8(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ stride+16(FP), DX
	MOVQ lines+24(FP), CX
	TESTQ CX, CX
	JZ gdone
gloop:
	MOVQ (SI), X0
	MOVHPD (SI)(DX*1), X0
	LEAQ (SI)(DX*2), SI
	MOVQ (SI), X1
	MOVHPD (SI)(DX*1), X1
	LEAQ (SI)(DX*2), SI
	MOVQ (SI), X2
	MOVHPD (SI)(DX*1), X2
	LEAQ (SI)(DX*2), SI
	MOVQ (SI), X3
	MOVHPD (SI)(DX*1), X3
	LEAQ (SI)(DX*2), SI
	MOVNTO X0, 0(DI)
	MOVNTO X1, 16(DI)
	MOVNTO X2, 32(DI)
	MOVNTO X3, 48(DI)
	ADDQ $64, DI
	DECQ CX
	JNZ gloop
	SFENCE
gdone:
	RET

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
//
// The CPUID instruction's four words for leaf and subleaf.
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func movsb(dst, src unsafe.Pointer, n uintptr)
//
// Copies n bytes forward with REP MOVSB. The slices do not overlap.
TEXT ·movsb(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	REP; MOVSB
	RET

// func vecMove(dst, src unsafe.Pointer, n uintptr)
//
// Copies n >= 128 bytes between buffers that do not overlap, 128 bytes a step in
// 32-byte loads and stores, the stores aligned at the destination: the first 32 and
// the last 128 bytes are loaded before the loop and stored after it, which covers
// the unaligned head and the tail. Needs AVX.
TEXT ·vecMove(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), BX
	VMOVDQU 0(SI), Y4
	LEAQ -128(SI)(BX*1), AX
	VMOVDQU 0(AX), Y5
	VMOVDQU 32(AX), Y6
	VMOVDQU 64(AX), Y7
	VMOVDQU 96(AX), Y8
	LEAQ -128(DI)(BX*1), DX
	MOVQ DI, CX
	NEGQ CX
	ANDQ $31, CX
	SUBQ $128, BX
vloop:
	CMPQ CX, BX
	JAE vtail
	VMOVDQU 0(SI)(CX*1), Y0
	VMOVDQU 32(SI)(CX*1), Y1
	VMOVDQU 64(SI)(CX*1), Y2
	VMOVDQU 96(SI)(CX*1), Y3
	VMOVDQU Y0, 0(DI)(CX*1)
	VMOVDQU Y1, 32(DI)(CX*1)
	VMOVDQU Y2, 64(DI)(CX*1)
	VMOVDQU Y3, 96(DI)(CX*1)
	ADDQ $128, CX
	JMP vloop
vtail:
	VMOVDQU Y5, 0(DX)
	VMOVDQU Y6, 32(DX)
	VMOVDQU Y7, 64(DX)
	VMOVDQU Y8, 96(DX)
	VMOVDQU Y4, 0(DI)
	VZEROUPPER
	RET
