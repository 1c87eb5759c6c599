//go:build !purego

#include "textflag.h"

// func screenVec(cs, ce []bin, tau float64) int
//
// Four boxes at a time: two 32-byte loads of each of ce and cs hold four (wy, w) pairs; their differences are
// unpacked into the four Y_in and the four W_in, and Y_in² is compared with tau·W_in.
TEXT ·screenVec(SB), NOSPLIT, $0-64
	MOVQ cs_base+0(FP), SI
	MOVQ cs_len+8(FP), CX
	MOVQ ce_base+24(FP), DI
	VBROADCASTSD tau+48(FP), Y7
	XORQ AX, AX
	SUBQ $3, CX // groups start below len(cs)−3

loop:
	CMPQ AX, CX
	JGE done
	MOVQ AX, DX
	SHLQ $4, DX
	VMOVUPD 0(DI)(DX*1), Y0      // ce[n], ce[n+1]
	VMOVUPD 32(DI)(DX*1), Y1     // ce[n+2], ce[n+3]
	VSUBPD 0(SI)(DX*1), Y0, Y0   // y0 w0 y1 w1
	VSUBPD 32(SI)(DX*1), Y1, Y1  // y2 w2 y3 w3
	VUNPCKLPD Y1, Y0, Y2         // y0 y2 y1 y3
	VUNPCKHPD Y1, Y0, Y3         // w0 w2 w1 w3
	VMULPD Y2, Y2, Y2
	VMULPD Y7, Y3, Y3
	VCMPPD $0x1e, Y3, Y2, Y4     // Y_in² > tau·W_in (greater than, ordered, quiet)
	VMOVMSKPD Y4, BX
	TESTL BX, BX
	JNZ done
	ADDQ $4, AX
	JMP loop

done:
	MOVQ AX, ret+56(FP)
	VZEROUPPER
	RET

// func screenStrideVec(cs, ce []bin, stride int, tau float64) int
//
// screenVec for the boxes n = 0, s, 2s, … (s = stride): each vector gathers two bins with a 16-byte load and
// a 16-byte insert; the offsets are counted in bytes.
TEXT ·screenStrideVec(SB), NOSPLIT, $0-72
	MOVQ cs_base+0(FP), SI
	MOVQ cs_len+8(FP), CX
	MOVQ ce_base+24(FP), DI
	MOVQ stride+48(FP), R8
	VBROADCASTSD tau+56(FP), Y7
	LEAQ (R8)(R8*2), R9
	SUBQ R9, CX
	SHLQ $4, CX // groups start below (len(cs)−3s)·16 bytes
	SHLQ $4, R8 // s·16
	LEAQ (R8)(R8*2), R9 // 3s·16
	XORQ DX, DX

sloop:
	CMPQ DX, CX
	JGE sdone
	LEAQ (DI)(DX*1), R12
	LEAQ (SI)(DX*1), R13
	VMOVUPD 0(R12), X0
	VINSERTF128 $1, (R12)(R8*1), Y0, Y0 // ce[n], ce[n+s]
	VMOVUPD (R12)(R8*2), X1
	VINSERTF128 $1, (R12)(R9*1), Y1, Y1 // ce[n+2s], ce[n+3s]
	VMOVUPD 0(R13), X2
	VINSERTF128 $1, (R13)(R8*1), Y2, Y2
	VMOVUPD (R13)(R8*2), X3
	VINSERTF128 $1, (R13)(R9*1), Y3, Y3
	VSUBPD Y2, Y0, Y0
	VSUBPD Y3, Y1, Y1
	VUNPCKLPD Y1, Y0, Y2
	VUNPCKHPD Y1, Y0, Y3
	VMULPD Y2, Y2, Y2
	VMULPD Y7, Y3, Y3
	VCMPPD $0x1e, Y3, Y2, Y4
	VMOVMSKPD Y4, BX
	TESTL BX, BX
	JNZ sdone
	LEAQ (DX)(R8*4), DX
	JMP sloop

sdone:
	SHRQ $4, DX
	MOVQ DX, ret+64(FP)
	VZEROUPPER
	RET

// func screenVec512(cs, ce []bin, tau float64) int
//
// screenVec with eight boxes per group (AVX-512F): two 64-byte loads of each of ce and cs hold eight (wy, w)
// pairs; their differences are unpacked into the eight Y_in and the eight W_in (in the lane order 0 4 1 5 2 6
// 3 7, which does not matter), and Y_in² is compared with tau·W_in.
TEXT ·screenVec512(SB), NOSPLIT, $0-64
	MOVQ cs_base+0(FP), SI
	MOVQ cs_len+8(FP), CX
	MOVQ ce_base+24(FP), DI
	VBROADCASTSD tau+48(FP), Z7
	XORQ AX, AX
	SUBQ $7, CX // groups start below len(cs)−7

loop512:
	CMPQ AX, CX
	JGE done512
	MOVQ AX, DX
	SHLQ $4, DX
	VMOVUPD 0(DI)(DX*1), Z0      // ce[n … n+3]
	VMOVUPD 64(DI)(DX*1), Z1     // ce[n+4 … n+7]
	VSUBPD 0(SI)(DX*1), Z0, Z0
	VSUBPD 64(SI)(DX*1), Z1, Z1
	VUNPCKLPD Z1, Z0, Z2         // the Y_in
	VUNPCKHPD Z1, Z0, Z3         // the W_in
	VMULPD Z2, Z2, Z2
	VMULPD Z7, Z3, Z3
	VCMPPD $0x1e, Z3, Z2, K1     // Y_in² > tau·W_in (greater than, ordered, quiet)
	KORTESTB K1, K1
	JNZ done512
	ADDQ $8, AX
	JMP loop512

done512:
	MOVQ AX, ret+56(FP)
	VZEROUPPER
	RET

// GATHER4 loads the bins at base, base+o1, base+o2 and base+o3 (byte offsets) into the four 128-bit lanes of
// v (vx: its low lane).
#define GATHER4(base, o1, o2, o3, v, vx) \
	VMOVUPD 0(base), vx \
	VINSERTF64X2 $1, (base)(o1*1), v, v \
	VINSERTF64X2 $2, (base)(o2*1), v, v \
	VINSERTF64X2 $3, (base)(o3*1), v, v

// func screenStrideVec512(cs, ce []bin, stride int, tau float64) int
//
// screenStrideVec with eight boxes n, n+s, …, n+7s per group (AVX-512F): each vector gathers four bins with a
// 16-byte load and three 16-byte inserts; the offsets are counted in bytes.
TEXT ·screenStrideVec512(SB), NOSPLIT, $0-72
	MOVQ cs_base+0(FP), SI
	MOVQ cs_len+8(FP), CX
	MOVQ ce_base+24(FP), DI
	MOVQ stride+48(FP), R8
	VBROADCASTSD tau+56(FP), Z7
	LEAQ (R8)(R8*2), R9
	LEAQ (R9)(R8*4), R9         // 7s
	SUBQ R9, CX
	SHLQ $4, CX                 // groups start below (len(cs)−7s)·16 bytes
	SHLQ $4, R8                 // s·16
	LEAQ (R8)(R8*2), R9         // 3s·16
	LEAQ (R8)(R8*1), R10        // 2s·16
	XORQ DX, DX

sloop512:
	CMPQ DX, CX
	JGE sdone512
	LEAQ (DI)(DX*1), R12
	LEAQ (SI)(DX*1), R13
	GATHER4(R12, R8, R10, R9, Z0, X0)   // ce[n], ce[n+s], ce[n+2s], ce[n+3s]
	LEAQ (R12)(R8*4), R12
	GATHER4(R12, R8, R10, R9, Z1, X1)   // ce[n+4s] … ce[n+7s]
	GATHER4(R13, R8, R10, R9, Z2, X2)
	LEAQ (R13)(R8*4), R13
	GATHER4(R13, R8, R10, R9, Z3, X3)
	VSUBPD Z2, Z0, Z0
	VSUBPD Z3, Z1, Z1
	VUNPCKLPD Z1, Z0, Z2
	VUNPCKHPD Z1, Z0, Z3
	VMULPD Z2, Z2, Z2
	VMULPD Z7, Z3, Z3
	VCMPPD $0x1e, Z3, Z2, K1
	KORTESTB K1, K1
	JNZ sdone512
	LEAQ (DX)(R8*8), DX
	JMP sloop512

sdone512:
	SHRQ $4, DX
	MOVQ DX, ret+64(FP)
	VZEROUPPER
	RET
