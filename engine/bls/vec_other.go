//go:build !amd64 || purego

package bls

// haveAVX2 and haveAVX512 are false: there are no vector kernels on this architecture.
const (
	haveAVX2   = false
	haveAVX512 = false
)

func fold4Vec(pts []point, q *foldBuf, a *foldVecArgs) { panic("bls: fold4Vec without AVX2") }

func fold4Vec512(pts []point, q *foldBuf, a *foldVecArgs) { panic("bls: fold4Vec512 without AVX-512") }

func prefixRunVec(dst []bin, src []qbin, acc *qbin) int64 { panic("bls: prefixRunVec without AVX-512") }

func screenVec(cs, ce []bin, tau float64) int { panic("bls: screenVec without AVX2") }

func screenStrideVec(cs, ce []bin, stride int, tau float64) int {
	panic("bls: screenStrideVec without AVX2")
}

func screenVec512(cs, ce []bin, tau float64) int { panic("bls: screenVec512 without AVX-512") }

func screenStrideVec512(cs, ce []bin, stride int, tau float64) int {
	panic("bls: screenStrideVec512 without AVX-512")
}

func prefixRunVec512(dst []bin, src []qbin, acc *qbin, zero bool) int64 {
	panic("bls: prefixRunVec512 without AVX-512")
}
