#include "textflag.h"

// func ticks() int64: the time-stamp counter, not serialised (RDTSCP and the fences
// runtime.cputicks adds cost twice as much; a call's edges need no more precision).
TEXT ·ticks(SB),NOSPLIT,$0-8
	RDTSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, ret+0(FP)
	RET
