//go:build !purego

#include "textflag.h"

// func prefixRunVec(dst []bin, src []qbin, acc *qbin) (maxW int64)
//
// X0 holds the running (wy, w) sums, X3 the largest bin values (lane 1: w).
TEXT ·prefixRunVec(SB), NOSPLIT, $0-64
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ src_base+24(FP), SI
	MOVQ acc+48(FP), AX
	VMOVDQU 0(AX), X0
	VPXOR X3, X3, X3
	TESTQ CX, CX
	JZ done

loop:
	VMOVDQU 0(SI), X2
	VPADDQ X2, X0, X0
	VPMAXSQ X2, X3, X3
	VCVTQQ2PD X0, X1
	VMOVUPD X1, 0(DI)
	ADDQ $16, SI
	ADDQ $16, DI
	DECQ CX
	JNZ loop

done:
	VMOVDQU X0, 0(AX)
	VPEXTRQ $1, X3, BX
	MOVQ BX, maxW+56(FP)
	RET
