#include "textflag.h"

// AVX2 loops of the reduction kernels (simd_amd64.go): dst[i] = dst[i] op src[i] on
// blocks×64 bytes, two 32-byte lanes a step; unaligned loads and stores.

// func vpaddb(dst, src *byte, blocks int)
TEXT ·vpaddb(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), CX
	TESTQ CX, CX
	JZ vpaddb_done
vpaddb_loop:
	VMOVDQU 0(DI), Y0
	VMOVDQU 32(DI), Y1
	VPADDB 0(SI), Y0, Y0
	VPADDB 32(SI), Y1, Y1
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ vpaddb_loop
	VZEROUPPER
vpaddb_done:
	RET

// func vpaddw(dst, src *byte, blocks int)
TEXT ·vpaddw(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), CX
	TESTQ CX, CX
	JZ vpaddw_done
vpaddw_loop:
	VMOVDQU 0(DI), Y0
	VMOVDQU 32(DI), Y1
	VPADDW 0(SI), Y0, Y0
	VPADDW 32(SI), Y1, Y1
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ vpaddw_loop
	VZEROUPPER
vpaddw_done:
	RET

// func vpaddd(dst, src *byte, blocks int)
TEXT ·vpaddd(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), CX
	TESTQ CX, CX
	JZ vpaddd_done
vpaddd_loop:
	VMOVDQU 0(DI), Y0
	VMOVDQU 32(DI), Y1
	VPADDD 0(SI), Y0, Y0
	VPADDD 32(SI), Y1, Y1
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ vpaddd_loop
	VZEROUPPER
vpaddd_done:
	RET

// func vpaddq(dst, src *byte, blocks int)
TEXT ·vpaddq(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), CX
	TESTQ CX, CX
	JZ vpaddq_done
vpaddq_loop:
	VMOVDQU 0(DI), Y0
	VMOVDQU 32(DI), Y1
	VPADDQ 0(SI), Y0, Y0
	VPADDQ 32(SI), Y1, Y1
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ vpaddq_loop
	VZEROUPPER
vpaddq_done:
	RET

// func vaddps(dst, src *byte, blocks int)
TEXT ·vaddps(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), CX
	TESTQ CX, CX
	JZ vaddps_done
vaddps_loop:
	VMOVDQU 0(DI), Y0
	VMOVDQU 32(DI), Y1
	VADDPS 0(SI), Y0, Y0
	VADDPS 32(SI), Y1, Y1
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ vaddps_loop
	VZEROUPPER
vaddps_done:
	RET

// func vaddpd(dst, src *byte, blocks int)
TEXT ·vaddpd(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), CX
	TESTQ CX, CX
	JZ vaddpd_done
vaddpd_loop:
	VMOVDQU 0(DI), Y0
	VMOVDQU 32(DI), Y1
	VADDPD 0(SI), Y0, Y0
	VADDPD 32(SI), Y1, Y1
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ vaddpd_loop
	VZEROUPPER
vaddpd_done:
	RET

// func vpand(dst, src *byte, blocks int)
TEXT ·vpand(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), CX
	TESTQ CX, CX
	JZ vpand_done
vpand_loop:
	VMOVDQU 0(DI), Y0
	VMOVDQU 32(DI), Y1
	VPAND 0(SI), Y0, Y0
	VPAND 32(SI), Y1, Y1
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ vpand_loop
	VZEROUPPER
vpand_done:
	RET

// func vpor(dst, src *byte, blocks int)
TEXT ·vpor(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), CX
	TESTQ CX, CX
	JZ vpor_done
vpor_loop:
	VMOVDQU 0(DI), Y0
	VMOVDQU 32(DI), Y1
	VPOR 0(SI), Y0, Y0
	VPOR 32(SI), Y1, Y1
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ vpor_loop
	VZEROUPPER
vpor_done:
	RET

// func vpxor(dst, src *byte, blocks int)
TEXT ·vpxor(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), CX
	TESTQ CX, CX
	JZ vpxor_done
vpxor_loop:
	VMOVDQU 0(DI), Y0
	VMOVDQU 32(DI), Y1
	VPXOR 0(SI), Y0, Y0
	VPXOR 32(SI), Y1, Y1
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ vpxor_loop
	VZEROUPPER
vpxor_done:
	RET
