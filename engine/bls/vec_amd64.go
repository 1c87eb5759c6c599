//go:build !purego

package bls

import "golang.org/x/sys/cpu"

// haveAVX2 reports whether the processor has AVX2, for fold4Vec, screenVec and screenStrideVec.
var haveAVX2 = cpu.X86.HasAVX2

// fold4Vec is fold4 in AVX2 (fold_amd64.s): one cadence at a time, the four periods' bins computed in the
// four lanes of a vector, each bin's (w·y, w) pair added with one 16-byte load and store. The bin numbers are
// the same as fold4Go's (see foldVecArgs).
//
//go:noescape
func fold4Vec(pts []point, q *foldBuf, a *foldVecArgs)

// screenVec is screenGo in AVX2 (screen_amd64.s).
//
//go:noescape
func screenVec(cs, ce []bin, tau float64) int

// screenStrideVec is screenStrideGo in AVX2 (screen_amd64.s).
//
//go:noescape
func screenStrideVec(cs, ce []bin, stride int, tau float64) int
