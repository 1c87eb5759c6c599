//go:build !amd64 || purego

package bls

// haveFoldVec is false: fold4 has no vector version on this architecture.
const haveFoldVec = false

func fold4Vec(pts []point, q *foldBuf, a *foldVecArgs) { panic("bls: fold4Vec without vector support") }
