//go:build !purego

package bls

import "golang.org/x/sys/cpu"

// haveAVX2 reports whether the processor has AVX2, for fold4Vec, screenVec and screenStrideVec;
// haveAVX512 whether it also has the AVX-512 subsets fold4Vec512 and prefixRunVec use.
var (
	haveAVX2   = cpu.X86.HasAVX2
	haveAVX512 = haveAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL
)

// fold4Vec is fold4 in AVX2 (fold_amd64.s): one cadence at a time, the four periods' bins computed in the
// four lanes of a vector, each bin's (w·y, w) pair added with one 16-byte load and store. The bin numbers are
// the same as fold4Go's (see foldVecArgs).
//
//go:noescape
func fold4Vec(pts []point, q *foldBuf, a *foldVecArgs)

// fold4Vec512 is fold4Vec converting t·2³²/P to an integer in one instruction (AVX-512DQ and VL, on
// 256-bit vectors); its bins are fold4Go's for t·2³²/P < 2⁶³.
//
//go:noescape
func fold4Vec512(pts []point, q *foldBuf, a *foldVecArgs)

// prefixRunVec is prefixRunGo in AVX-512 (prefix_amd64.s): the running sum of each bin's (wy, w) pair in one
// 128-bit integer addition, converted to float64 with VCVTQQ2PD (round to nearest, as Go's conversion).
//
//go:noescape
func prefixRunVec(dst []bin, src []qbin, acc *qbin) (maxW int64)

// screenVec is screenGo in AVX2 (screen_amd64.s).
//
//go:noescape
func screenVec(cs, ce []bin, tau float64) int

// screenStrideVec is screenStrideGo in AVX2 (screen_amd64.s).
//
//go:noescape
func screenStrideVec(cs, ce []bin, stride int, tau float64) int

// screenVec512 is screenVec with groups of eight boxes, in AVX-512F (screen_amd64.s).
//
//go:noescape
func screenVec512(cs, ce []bin, tau float64) int

// screenStrideVec512 is screenStrideVec with groups of eight boxes, in AVX-512F (screen_amd64.s).
//
//go:noescape
func screenStrideVec512(cs, ce []bin, stride int, tau float64) int

// prefixRunVec512 is prefixRunVec four bins per 512-bit vector (prefix_amd64.s), for len(dst) a multiple of 4;
// its sums and conversions are the same. With zero it sets the bins of src it reads to zero.
//
//go:noescape
func prefixRunVec512(dst []bin, src []qbin, acc *qbin, zero bool) (maxW int64)
