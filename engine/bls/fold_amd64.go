//go:build !purego

package bls

import "golang.org/x/sys/cpu"

// haveFoldVec reports whether fold4 may use fold4Vec: the processor has AVX2.
var haveFoldVec = cpu.X86.HasAVX2

// fold4Vec is fold4 in AVX2 (fold_amd64.s): one cadence at a time, the four periods' bins computed in the
// four lanes of a vector, each bin's (w·y, w) pair added with one 16-byte load and store. The bin numbers are
// the same as fold4's (see foldVecArgs).
//
//go:noescape
func fold4Vec(pts []point, q *foldBuf, a *foldVecArgs)
