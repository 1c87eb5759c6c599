package sets

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"transitbench/data"
)

// Composition counts a set's stars by category (SPEC A2).
type Composition struct {
	Injected  int `json:"injected"`
	Untouched int `json:"untouched"`
	EB        int `json:"eb"`
	Confirmed int `json:"confirmed"`
	// Labelled counts the real stars imported with their planets (data.CategoryLabelled); only imported sets
	// have them.
	Labelled int `json:"labelled,omitempty"`
}

// Total returns the number of stars.
func (c Composition) Total() int { return c.Injected + c.Untouched + c.EB + c.Confirmed + c.Labelled }

func (c Composition) valid() error {
	if c.Injected < 0 || c.Untouched < 0 || c.EB < 0 || c.Confirmed < 0 {
		return fmt.Errorf("sets: composition %+v has a negative count", c)
	}
	if c.Total() == 0 {
		return fmt.Errorf("sets: composition %+v holds no star", c)
	}
	return nil
}

// The compositions of SPEC A2.
var (
	// DevComposition is the dev set's: 196 stars.
	DevComposition = Composition{Injected: 78, Untouched: 69, EB: 29, Confirmed: 20}
	// HiddenComposition is that of each hidden set, A and B: 1,000 stars.
	HiddenComposition = Composition{Injected: 400, Untouched: 350, EB: 150, Confirmed: 100}
)

// DefaultTrainStars is the train pool's size when none is asked for.
const DefaultTrainStars = 2000

// TrainComposition returns the composition of a train pool of n stars, in the proportions of the hidden sets
// (40 % injected, 35 % untouched, 15 % eclipsing binaries, 10 % confirmed-planet hosts), rounded by the largest
// remainder method (ties go to the category listed first) so that the counts add up to n.
func TrainComposition(n int) Composition {
	h := HiddenComposition
	w := []int{h.Injected, h.Untouched, h.EB, h.Confirmed}
	tot := h.Total()
	cnt := make([]int, 4)
	rem := make([]int, 4)
	left := n
	for i, wi := range w {
		cnt[i] = n * wi / tot
		rem[i] = n * wi % tot
		left -= cnt[i]
	}
	for ; left > 0; left-- {
		best := 0
		for i := range rem {
			if rem[i] > rem[best] {
				best = i
			}
		}
		cnt[best]++
		rem[best] = -1
	}
	return Composition{Injected: cnt[0], Untouched: cnt[1], EB: cnt[2], Confirmed: cnt[3]}
}

// slot is one star's place in a set before the simulator has made it; MESQuantile places an injected planet's
// MES in the simulator's range (see stratify).
type slot struct {
	Category, Population string
	MESQuantile          float64
}

// plan lists the category and population of every star of a set in id order. The stars are first laid out by
// category: injected, untouched, eclipsing binaries, confirmed hosts; within injected and within untouched, the
// random population takes ⌈n/2⌉ and the false-alarm population ⌊n/2⌋ (so dev's 69 untouched stars are 35 random
// and 34 false-alarm); eclipsing binaries and confirmed hosts have no population. The list is then shuffled by a
// Fisher–Yates shuffle driven by SHA-256 of (set name, set seed), so that a star's id says nothing of its category.
// The injected stars of each population get stratified MES quantiles first (stratify).
func plan(name string, seed []byte, c Composition) []slot {
	out := make([]slot, 0, c.Total())
	add := func(n int, cat, pop string) {
		from := len(out)
		for range n {
			out = append(out, slot{Category: cat, Population: pop})
		}
		if cat == data.CategoryInjected {
			stratify(out[from:], hashKey("transitbench mes strata", []byte(name), seed, []byte(pop)))
		}
	}
	add((c.Injected+1)/2, data.CategoryInjected, data.PopulationRandom)
	add(c.Injected/2, data.CategoryInjected, data.PopulationFalseAlarm)
	add((c.Untouched+1)/2, data.CategoryUntouched, data.PopulationRandom)
	add(c.Untouched/2, data.CategoryUntouched, data.PopulationFalseAlarm)
	add(c.EB, data.CategoryEB, "")
	add(c.Confirmed, data.CategoryConfirmed, "")
	shuffle(len(out), hashKey("transitbench order", []byte(name), seed), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// stratify gives the n slots MES quantiles (π(k) + u_k)/n, with π a permutation of 0…n−1 (shuffle) and u_k in
// (0, 1), both from key: one quantile in each n-th of the range, in random order. Each planet's MES is still
// uniform in Planet.MES, but a set's share above any threshold is fixed to within one star per population: with
// MES uniform in [4, 20], 80.6 % at or above 7.1 on every set and seed (SPEC A2), the share the reference
// detector's score of ≈ 0.805 rests on, instead of a binomial draw that wanders by ±2 % on 400 planets and ±4.5 %
// on dev's 78.
func stratify(slots []slot, key [32]byte) {
	n := len(slots)
	rank := make([]int, n)
	for i := range rank {
		rank[i] = i
	}
	shuffle(n, key, func(i, j int) { rank[i], rank[j] = rank[j], rank[i] })
	var ix [8]byte
	for k := range slots {
		binary.BigEndian.PutUint64(ix[:], uint64(k))
		h := hashKey("transitbench mes offset", key[:], ix[:])
		u := (float64(binary.BigEndian.Uint64(h[:8])>>11) + 0.5) / (1 << 53) // in (0, 1)
		slots[k].MESQuantile = (float64(rank[k]) + u) / float64(n)
	}
}

// shuffle permutes n elements by Fisher–Yates: for i from n−1 down to 1 it swaps i with j = u_i mod (i+1), where
// u_i is the first 8 bytes (big-endian) of SHA-256(key ‖ i as 8 bytes). The modulo bias is below n/2⁶⁴, and the
// result depends on nothing but key, so it is the same on every machine and Go release.
func shuffle(n int, key [32]byte, swap func(i, j int)) {
	var buf [40]byte
	copy(buf[:], key[:])
	for i := n - 1; i > 0; i-- {
		binary.BigEndian.PutUint64(buf[32:], uint64(i))
		h := sha256.Sum256(buf[:])
		j := int(binary.BigEndian.Uint64(h[:8]) % uint64(i+1))
		swap(i, j)
	}
}

// hashKey returns SHA-256 of a label and parts, each part preceded by its length as 8 bytes, so that no two
// different lists of parts hash the same input.
func hashKey(label string, parts ...[]byte) [32]byte {
	h := sha256.New()
	var n [8]byte
	for _, p := range append([][]byte{[]byte(label)}, parts...) {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// add counts one star of the given category (SPEC A2); other categories are not counted.
func (c *Composition) add(category string) {
	switch category {
	case data.CategoryInjected:
		c.Injected++
	case data.CategoryUntouched:
		c.Untouched++
	case data.CategoryEB:
		c.EB++
	case data.CategoryConfirmed:
		c.Confirmed++
	case data.CategoryLabelled:
		c.Labelled++
	}
}
