//go:build !purego

#include "textflag.h"

// 2^52: adding it to a whole number x < 2^52 leaves x in the low bits of the float64.
DATA two52<>+0(SB)/8, $0x4330000000000000
GLOBL two52<>(SB), RODATA|NOPTR, $8

// func fold4Vec(pts []point, q *foldBuf, a *foldVecArgs)
//
// For each point {t, wy, w}: u = ⌊t·scale⌋ for the four periods (VROUNDPD toward −∞; t·scale < 2^51), read as
// an integer from the low bits of u + 2^52; bin = (uint32(u)·nb) >> 32 (VPMULUDQ multiplies the low 32 bits);
// the byte offset (bin + off)·16 of each period's bin in q gets (wy, w) added.
TEXT ·fold4Vec(SB), NOSPLIT, $0-40
	MOVQ pts_base+0(FP), SI
	MOVQ pts_len+8(FP), CX
	MOVQ q+24(FP), DI
	MOVQ a+32(FP), AX
	VMOVUPD 0(AX), Y4           // scale
	VMOVDQU 32(AX), Y6          // nb
	VMOVDQU 64(AX), Y7          // off
	VBROADCASTSD two52<>(SB), Y5
	TESTQ CX, CX
	JZ done

loop:
	VBROADCASTSD 0(SI), Y0      // t
	VMULPD Y4, Y0, Y0
	VROUNDPD $9, Y0, Y0         // toward −∞, no precision exception
	VADDPD Y5, Y0, Y0
	VPMULUDQ Y6, Y0, Y0
	VPSRLQ $32, Y0, Y0
	VPADDQ Y7, Y0, Y0
	VPSLLQ $4, Y0, Y0
	VMOVQ X0, R8
	VPEXTRQ $1, X0, R9
	VEXTRACTI128 $1, Y0, X3
	VMOVQ X3, R10
	VPEXTRQ $1, X3, R11
	VMOVDQU 8(SI), X1           // wy, w
	VPADDQ (DI)(R8*1), X1, X2
	VMOVDQU X2, (DI)(R8*1)
	VPADDQ (DI)(R9*1), X1, X2
	VMOVDQU X2, (DI)(R9*1)
	VPADDQ (DI)(R10*1), X1, X2
	VMOVDQU X2, (DI)(R10*1)
	VPADDQ (DI)(R11*1), X1, X2
	VMOVDQU X2, (DI)(R11*1)
	ADDQ $24, SI
	DECQ CX
	JNZ loop

done:
	VZEROUPPER
	RET

// func fold4Vec512(pts []point, q *foldBuf, a *foldVecArgs)
//
// fold4Vec with u = int64(t·scale) converted by VCVTTPD2QQ (AVX-512DQ and VL, on 256-bit vectors).
TEXT ·fold4Vec512(SB), NOSPLIT, $0-40
	MOVQ pts_base+0(FP), SI
	MOVQ pts_len+8(FP), CX
	MOVQ q+24(FP), DI
	MOVQ a+32(FP), AX
	VMOVUPD 0(AX), Y4           // scale
	VMOVDQU 32(AX), Y6          // nb
	VMOVDQU 64(AX), Y7          // off
	TESTQ CX, CX
	JZ done512

loop512:
	VBROADCASTSD 0(SI), Y0      // t
	VMULPD Y4, Y0, Y0
	VCVTTPD2QQ Y0, Y0           // truncate, as Go's float-to-int conversion
	VPMULUDQ Y6, Y0, Y0
	VPSRLQ $32, Y0, Y0
	VPADDQ Y7, Y0, Y0
	VPSLLQ $4, Y0, Y0
	VMOVQ X0, R8
	VPEXTRQ $1, X0, R9
	VEXTRACTI128 $1, Y0, X3
	VMOVQ X3, R10
	VPEXTRQ $1, X3, R11
	VMOVDQU 8(SI), X1           // wy, w
	VPADDQ (DI)(R8*1), X1, X2
	VMOVDQU X2, (DI)(R8*1)
	VPADDQ (DI)(R9*1), X1, X2
	VMOVDQU X2, (DI)(R9*1)
	VPADDQ (DI)(R10*1), X1, X2
	VMOVDQU X2, (DI)(R10*1)
	VPADDQ (DI)(R11*1), X1, X2
	VMOVDQU X2, (DI)(R11*1)
	ADDQ $24, SI
	DECQ CX
	JNZ loop512

done512:
	VZEROUPPER
	RET
