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

// PREFIX4 is one step of prefixRunVec512: four bins from SI summed into four prefix sums at DI; SI and DI
// move past them. Z2 is Z1 shifted up by one pair, then by two, then its total in every pair.
#define PREFIX4 \
	VMOVDQU64 0(SI), Z1 \
	VPMAXSQ Z1, Z3, Z3 \
	VALIGNQ $6, Z9, Z1, Z2 \
	VPADDQ Z2, Z1, Z1 \
	VALIGNQ $4, Z9, Z1, Z2 \
	VPADDQ Z2, Z1, Z1 \
	VSHUFI64X2 $0xff, Z1, Z1, Z2 \
	VPADDQ Z0, Z1, Z1 \
	VPADDQ Z2, Z0, Z0 \
	VCVTQQ2PD Z1, Z1 \
	VMOVUPD Z1, 0(DI) \
	ADDQ $64, SI \
	ADDQ $64, DI

// func prefixRunVec512(dst []bin, src []qbin, acc *qbin, zero bool) (maxW int64)
//
// prefixRunVec four bins at a time, for len(dst) a multiple of 4: Z1 holds the four (wy, w) pairs of src,
// summed within the vector in two shift-and-add steps (VALIGNQ shifts in zeros from Z9) and offset by the
// running sums broadcast to every pair (Z0); Z0 then advances by the four bins' total (Z1's last pair before
// the offset, broadcast), so that the carried dependency is one addition per four bins. Z3 holds the largest
// bin values lane by lane; the weights are its odd lanes. With zero, the loop that also stores zeros over
// the bins it has read runs instead.
TEXT ·prefixRunVec512(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ src_base+24(FP), SI
	MOVQ acc+48(FP), AX
	VBROADCASTI64X2 0(AX), Z0
	VPXORQ Z9, Z9, Z9
	VPXORQ Z3, Z3, Z3
	SHRQ $2, CX
	JZ done512
	CMPB zero+56(FP), $0
	JNE zloop512

loop512:
	PREFIX4
	DECQ CX
	JNZ loop512
	JMP done512

zloop512:
	PREFIX4
	VMOVDQU64 Z9, -64(SI)
	DECQ CX
	JNZ zloop512

done512:
	VMOVDQU X0, 0(AX)
	VEXTRACTI64X4 $1, Z3, Y4
	VPMAXSQ Y4, Y3, Y3
	VEXTRACTI128 $1, Y3, X4
	VPMAXSQ X4, X3, X3
	VPEXTRQ $1, X3, BX
	MOVQ BX, maxW+64(FP)
	VZEROUPPER
	RET
