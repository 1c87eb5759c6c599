//go:build !purego

#include "textflag.h"

// 2^52: adding it to a whole number x < 2^52 leaves x in the low bits of the float64.
DATA two52<>+0(SB)/8, $0x4330000000000000
GLOBL two52<>(SB), RODATA|NOPTR, $8

// BINS sets the four lanes of v to the byte offsets in q of the four periods' bins for the time at t, in AVX2.
#define BINS(t, v) \
	VBROADCASTSD t, v \
	VMULPD Y4, v, v \
	VROUNDPD $9, v, v \
	VADDPD Y5, v, v \
	VPMULUDQ Y6, v, v \
	VPSRLQ $32, v, v \
	VPADDQ Y7, v, v \
	VPSLLQ $4, v, v

// BINS512 sets the four lanes of v to the byte offsets in q of the four periods' bins for the time at t.
#define BINS512(t, v) \
	VBROADCASTSD t, v \
	VMULPD Y4, v, v \
	VCVTTPD2QQ v, v \
	VPMULUDQ Y6, v, v \
	VPSRLQ $32, v, v \
	VPADDQ Y7, v, v \
	VPSLLQ $4, v, v

// ADD4 adds the (wy, w) pair at p to the four bins at the byte offsets in v (vx: its low half).
#define ADD4(v, vx, p) \
	VMOVQ vx, R8 \
	VPEXTRQ $1, vx, R9 \
	VEXTRACTI128 $1, v, X3 \
	VMOVQ X3, R10 \
	VPEXTRQ $1, X3, R11 \
	VMOVDQU p, X1 \
	VPADDQ (DI)(R8*1), X1, X2 \
	VMOVDQU X2, (DI)(R8*1) \
	VPADDQ (DI)(R9*1), X1, X2 \
	VMOVDQU X2, (DI)(R9*1) \
	VPADDQ (DI)(R10*1), X1, X2 \
	VMOVDQU X2, (DI)(R10*1) \
	VPADDQ (DI)(R11*1), X1, X2 \
	VMOVDQU X2, (DI)(R11*1)

// FOLDARGS loads the arguments of fold4Vec and fold4Vec512: the points into SI and their number into CX, q into
// DI, and a's scale, nb and off into Y4, Y6 and Y7.
#define FOLDARGS \
	MOVQ pts_base+0(FP), SI \
	MOVQ pts_len+8(FP), CX \
	MOVQ q+24(FP), DI \
	MOVQ a+32(FP), AX \
	VMOVUPD 0(AX), Y4 \
	VMOVDQU 32(AX), Y6 \
	VMOVDQU 64(AX), Y7

// FOLD2 adds the two points at SI to their bins, which the macro bins (BINS or BINS512) computes, and moves
// SI past them.
#define FOLD2(bins) \
	bins(0(SI), Y0) \
	bins(24(SI), Y8) \
	ADD4(Y0, X0, 8(SI)) \
	ADD4(Y8, X8, 32(SI)) \
	ADDQ $48, SI

// FOLD4 is FOLD2 for four points: their bins are all computed before the first is added to, which leaves the
// processor more independent work between the additions.
#define FOLD4(bins) \
	bins(0(SI), Y0) \
	bins(24(SI), Y8) \
	bins(48(SI), Y9) \
	bins(72(SI), Y10) \
	ADD4(Y0, X0, 8(SI)) \
	ADD4(Y8, X8, 32(SI)) \
	ADD4(Y9, X9, 56(SI)) \
	ADD4(Y10, X10, 80(SI)) \
	ADDQ $96, SI

// func fold4Vec(pts []point, q *foldBuf, a *foldVecArgs)
//
// For each point {t, wy, w}: u = ⌊t·scale⌋ for the four periods (VROUNDPD toward −∞, no precision exception;
// t·scale < 2^51), read as an integer from the low bits of u + 2^52; bin = (uint32(u)·nb) >> 32 (VPMULUDQ
// multiplies the low 32 bits); the byte offset (bin + off)·16 of each period's bin in q gets (wy, w) added.
// Two points per iteration.
TEXT ·fold4Vec(SB), NOSPLIT, $0-40
	FOLDARGS
	VBROADCASTSD two52<>(SB), Y5
	SHRQ $1, CX                 // pairs of points
	JZ last

loop:
	FOLD2(BINS)
	DECQ CX
	JNZ loop

last:
	TESTQ $1, pts_len+8(FP)
	JZ done
	BINS(0(SI), Y0)
	ADD4(Y0, X0, 8(SI))

done:
	VZEROUPPER
	RET

// func fold4Vec512(pts []point, q *foldBuf, a *foldVecArgs)
//
// fold4Vec with u = int64(t·scale) converted by VCVTTPD2QQ (AVX-512DQ and VL, on 256-bit vectors), as Go's
// float-to-int conversion, four points per iteration, then the last one to three.
TEXT ·fold4Vec512(SB), NOSPLIT, $0-40
	FOLDARGS
	SHRQ $2, CX                 // groups of four points
	JZ tail512

loop512:
	FOLD4(BINS512)
	DECQ CX
	JNZ loop512

tail512:
	MOVQ pts_len+8(FP), CX
	ANDQ $3, CX
	JZ done512

one512:
	BINS512(0(SI), Y0)
	ADD4(Y0, X0, 8(SI))
	ADDQ $24, SI
	DECQ CX
	JNZ one512

done512:
	VZEROUPPER
	RET
