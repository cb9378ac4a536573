#include "textflag.h"

// func unpackShortAVX(disp, pre unsafe.Pointer, n int, src, u unsafe.Pointer, o int64, scratch unsafe.Pointer)
//
// Unpacks n byte blocks of at most 128 bytes: block i's pre[i+1]-pre[i] bytes
// (int32 arrays) go from src, consecutively, to u + o + disp[i]. Each block of 8
// bytes or more is read 128 bytes long (the caller ensures src has them) and
// stored without a branch on its length: four 32-byte stores at 0, 32, 64, 96,
// each into the block when it ends inside it, else into scratch (32 bytes); then
// the last 32, the first and last 16 and the first and last 8 bytes, each
// likewise, which together cover any length from 8 to 128 exactly. Blocks under 8
// bytes go byte by byte.
TEXT ·unpackShortAVX(SB), NOSPLIT, $0-56
	MOVQ disp+0(FP), R8
	MOVQ pre+8(FP), R9
	MOVQ n+16(FP), R10
	MOVQ src+24(FP), SI
	MOVQ u+32(FP), R11
	ADDQ o+40(FP), R11
	MOVQ scratch+48(FP), R12
	XORQ BX, BX
	TESTQ R10, R10
	JLE done

loop:
	MOVLQSX (R8)(BX*4), DI
	ADDQ R11, DI
	MOVL 4(R9)(BX*4), CX
	SUBL (R9)(BX*4), CX
	MOVLQSX CX, CX
	CMPQ CX, $8
	JLT small

	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1
	VMOVDQU 64(SI), Y2
	VMOVDQU 96(SI), Y3

	MOVQ DI, AX
	CMPQ CX, $32
	CMOVQLT R12, AX
	VMOVDQU Y0, (AX)

	LEAQ 32(DI), AX
	CMPQ CX, $64
	CMOVQLT R12, AX
	VMOVDQU Y1, (AX)

	LEAQ 64(DI), AX
	CMPQ CX, $96
	CMOVQLT R12, AX
	VMOVDQU Y2, (AX)

	LEAQ 96(DI), AX
	CMPQ CX, $128
	CMOVQLT R12, AX
	VMOVDQU Y3, (AX)

	// The last 32 bytes, when there are 32.
	LEAQ -32(DI)(CX*1), AX
	LEAQ -32(SI)(CX*1), DX
	CMPQ CX, $32
	CMOVQLT R12, AX
	CMOVQLT SI, DX
	VMOVDQU (DX), Y0
	VMOVDQU Y0, (AX)

	// The first and the last 16, when there are 16.
	MOVQ DI, AX
	LEAQ -16(DI)(CX*1), R13
	LEAQ -16(SI)(CX*1), DX
	CMPQ CX, $16
	CMOVQLT R12, AX
	CMOVQLT R12, R13
	CMOVQLT SI, DX
	VMOVDQU (SI), X0
	VMOVDQU X0, (AX)
	VMOVDQU (DX), X1
	VMOVDQU X1, (R13)

	// The first and the last 8.
	MOVQ (SI), AX
	MOVQ AX, (DI)
	MOVQ -8(SI)(CX*1), AX
	MOVQ AX, -8(DI)(CX*1)

next:
	ADDQ CX, SI
	INCQ BX
	CMPQ BX, R10
	JLT loop
	VZEROUPPER

done:
	RET

small:
	XORQ AX, AX

sloop:
	CMPQ AX, CX
	JGE next
	MOVB (SI)(AX*1), DX
	MOVB DX, (DI)(AX*1)
	INCQ AX
	JMP sloop

// func packShortAVX(disp, pre unsafe.Pointer, n int, dst, u unsafe.Pointer, o int64)
//
// Packs n byte blocks of at most 128 bytes: block i's pre[i+1]-pre[i] bytes (int32
// arrays) go from u + o + disp[i] to dst, consecutively. Each block moves 128
// bytes (four 32-byte loads and stores, no branch on its length): the bytes past
// its end land where the next block's go, and the next block overwrites them (the
// caller ensures the reads and the last block's write stay in bounds).
TEXT ·packShortAVX(SB), NOSPLIT, $0-48
	MOVQ disp+0(FP), R8
	MOVQ pre+8(FP), R9
	MOVQ n+16(FP), R10
	MOVQ dst+24(FP), DI
	MOVQ u+32(FP), R11
	ADDQ o+40(FP), R11
	XORQ BX, BX
	TESTQ R10, R10
	JLE pdone

ploop:
	MOVLQSX (R8)(BX*4), SI
	ADDQ R11, SI
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1
	VMOVDQU 64(SI), Y2
	VMOVDQU 96(SI), Y3
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	MOVL 4(R9)(BX*4), CX
	SUBL (R9)(BX*4), CX
	MOVLQSX CX, CX
	ADDQ CX, DI
	INCQ BX
	CMPQ BX, R10
	JLT ploop
	VZEROUPPER

pdone:
	RET
