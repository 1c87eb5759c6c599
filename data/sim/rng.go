package sim

import (
	"math"
	"math/rand/v2"
)

// stream returns the random stream called name of the star with the given seed. Each ingredient of the
// simulator draws from its own stream, so adding or changing one ingredient leaves the others' draws alone.
// The stream is PCG seeded with (seed, FNV-1a-64(name)).
func stream(seed uint64, name string) *rand.Rand {
	return rand.New(rand.NewPCG(seed, fnv64(name)))
}

// fnv64 is the 64-bit FNV-1a hash of s.
func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// uniform returns a number drawn uniformly from [lo, hi).
func uniform(r *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }

// logUniform returns a number whose logarithm is uniform between log lo and log hi.
func logUniform(r *rand.Rand, lo, hi float64) float64 {
	return lo * math.Exp(r.Float64()*math.Log(hi/lo))
}
