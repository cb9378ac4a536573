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

// func vendor() (ebx, edx, ecx uint32)
//
// CPUID leaf 0: the vendor's name, twelve bytes in EBX, EDX, ECX.
TEXT ·vendor(SB), NOSPLIT, $0-12
	MOVL $0, AX
	MOVL $0, CX
	CPUID
	MOVL BX, ebx+0(FP)
	MOVL DX, edx+4(FP)
	MOVL CX, ecx+8(FP)
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

// func leaf7() (ebx, edx uint32)
//
// CPUID leaf 7, subleaf 0: the extended feature words EBX (ERMS is bit 9) and EDX
// (FSRM is bit 4).
TEXT ·leaf7(SB), NOSPLIT, $0-8
	MOVL $7, AX
	MOVL $0, CX
	CPUID
	MOVL BX, ebx+0(FP)
	MOVL DX, edx+4(FP)
	RET
