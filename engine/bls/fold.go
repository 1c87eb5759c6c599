package bls

import "math"

// qbin is one phase bin's sums of w·(y − ȳ) and w, in the fixed point of the points.
type qbin struct{ wy, w int64 }

// bin is a prefix sum of phase bins, in the same units as qbin.
type bin struct{ wy, w float64 }

// searcher holds one goroutine's work buffers: the phase bins of four periods, folded together in one pass
// over the cadences, and the prefix sums of one of them.
type searcher struct {
	d   *prepared
	g   Grid
	os  int
	obj Objective
	q4  *foldBuf // the bins of fold4's four periods
	q   []qbin   // the bins of a period fold1 folds
	c   []bin
}

func newSearcher(d *prepared, g Grid, os int, obj Objective) *searcher {
	// The most bins of any period; the prefix sums also repeat up to that many (the longest box) and start
	// with the origin.
	n := 1
	for p, per := range g.Periods {
		lo := 0
		if g.DurLo != nil {
			lo = g.DurLo[p]
		}
		n = max(n, phaseBins(per, g.Durations[lo], os))
	}
	return &searcher{d: d, g: g, os: os, obj: obj, q4: new(foldBuf), q: make([]qbin, n), c: make([]bin, 2*n+1)}
}

// phaseBins returns the number of phase bins at period per (days) with shortest duration dmin and
// oversampling os: ⌈per·os/dmin⌉.
func phaseBins(per, dmin float64, os int) int { return int(math.Ceil(per * float64(os) / dmin)) }

// plan is the phase binning of one period: nb bins of width bw days, durations lo … hi−1 of the grid (the
// shortest dmin), boxes up to kmax bins; q holds the folded bins.
type plan struct {
	p, lo, hi, nb, kmax int
	per, bw, dmin       float64
	q                   []qbin
}

func (s *searcher) plan(p int, buf []qbin) plan {
	g := s.g
	pl := plan{p: p, per: g.Periods[p], lo: 0, hi: len(g.Durations)}
	if g.DurLo != nil {
		pl.lo, pl.hi = g.DurLo[p], g.DurHi[p]
	}
	pl.dmin = g.Durations[pl.lo]
	pl.nb = phaseBins(pl.per, pl.dmin, s.os)
	pl.bw = pl.per / float64(pl.nb)
	pl.kmax = min(int(math.Round(g.Durations[pl.hi-1]/pl.bw)), pl.nb)
	pl.q = buf[:pl.nb] // zero: new, or left so by the last finish (prefixSums)
	return pl
}

// Folding: a cadence at phase fraction φ = ((t − tref)/P) mod 1 goes to bin ⌊φ·nb⌋. φ is taken in 32-bit
// fixed point: u = (t − tref)·2³²/P truncated to an integer keeps its low 32 bits, φ·2³², exact to 2⁻¹¹ of a
// unit for spans up to 10⁴ periods; the bin is then (u·nb) >> 32, always below nb. The bins sum integers, so
// the order of the cadences does not change them.
//
// fold4Go computes the bin as (u·nb·2^(32−foldBits)) >> (64−foldBits), the same number: the shift shows the
// compiler that the bin is below 2^foldBits, so that indexing an array of that length needs no bounds check.

// foldBits bounds the bins fold4 handles: nb ≤ 2^foldBits. fold4's four periods have their bins in one
// array, foldStride apart: the offsets are constants, so one register addresses all four. The stride is not
// a multiple of 4 KiB, so that the same bin number of neighbouring periods (similar periods often hit the
// same one) differs in the low 12 address bits, which processors use to match loads against pending stores.
const (
	foldBits   = 14
	foldStride = 1<<foldBits + 37
)

type foldBuf = [3*foldStride + 1<<foldBits]qbin

// fold1 folds the cadences at one period, for any number of bins.
func (s *searcher) fold1(a *plan) {
	q := a.q
	scale, unb := 0x1p32/a.per, uint64(a.nb)
	for _, pt := range s.d.pts {
		k := int((uint64(uint32(int64(pt.t*scale))) * unb) >> 32)
		q[k].wy += pt.wy
		q[k].w += pt.w
	}
}

// fold4 folds the cadences at four periods of at most 2^foldBits bins each in one pass, sharing the reads of
// the cadences: with fold4Vec512 or fold4Vec where the processor allows, else fold4Go.
func (s *searcher) fold4(a, b, c, d *plan) {
	pts := s.d.pts
	if !haveAVX2 || len(pts) == 0 {
		s.fold4Go(a, b, c, d)
		return
	}
	args := newFoldVecArgs(a, b, c, d)
	switch umax := pts[len(pts)-1].t * max(args.scale[0], args.scale[1], args.scale[2], args.scale[3]); {
	case haveAVX512 && umax < 0x1p62:
		fold4Vec512(pts, s.q4, &args)
	case umax < 0x1p51:
		fold4Vec(pts, s.q4, &args)
	default:
		s.fold4Go(a, b, c, d)
	}
}

// fold4Go is fold4 in Go.
func (s *searcher) fold4Go(a, b, c, d *plan) {
	q := s.q4
	sa, sb, sc, sd := 0x1p32/a.per, 0x1p32/b.per, 0x1p32/c.per, 0x1p32/d.per
	const sh = 32 - foldBits
	na, nb, nc, nd := uint64(a.nb)<<sh, uint64(b.nb)<<sh, uint64(c.nb)<<sh, uint64(d.nb)<<sh
	for _, pt := range s.d.pts {
		ka := (uint64(uint32(int64(pt.t*sa))) * na) >> (64 - foldBits)
		kb := (uint64(uint32(int64(pt.t*sb))) * nb) >> (64 - foldBits)
		kc := (uint64(uint32(int64(pt.t*sc))) * nc) >> (64 - foldBits)
		kd := (uint64(uint32(int64(pt.t*sd))) * nd) >> (64 - foldBits)
		q[ka].wy += pt.wy
		q[ka].w += pt.w
		q[kb+foldStride].wy += pt.wy
		q[kb+foldStride].w += pt.w
		q[kc+2*foldStride].wy += pt.wy
		q[kc+2*foldStride].w += pt.w
		q[kd+3*foldStride].wy += pt.wy
		q[kd+3*foldStride].w += pt.w
	}
}

// foldVecArgs are fold4Vec's and fold4Vec512's per-period constants: 2³²/P, the number of bins, and the
// offset of the period's bins in foldBuf. fold4Vec takes u = ⌊t·2³²/P⌋ in floating point, which is exact
// while t·2³²/P < 2⁵¹, and fold4Vec512 converts like Go (fold4 checks the range), so their bins are fold4Go's.
type foldVecArgs struct {
	scale   [4]float64
	nb, off [4]uint64
}

func newFoldVecArgs(pl ...*plan) foldVecArgs {
	var a foldVecArgs
	for i, p := range pl {
		a.scale[i], a.nb[i], a.off[i] = 0x1p32/p.per, uint64(p.nb), uint64(i*foldStride)
	}
	return a
}

// periods searches the periods with indices lo … hi−1 and stores their best boxes in r: four at a time when
// they have at most 2^foldBits bins, else one by one.
func (s *searcher) periods(r *Result, lo, hi int) {
	for p := lo; p < hi; {
		if p+4 <= hi && s.binsAtMost(p, p+4, 1<<foldBits) {
			var pl [4]plan
			for i := range pl {
				pl[i] = s.plan(p+i, s.q4[i*foldStride:])
			}
			s.fold4(&pl[0], &pl[1], &pl[2], &pl[3])
			for i := range pl {
				s.finish(r, &pl[i])
			}
			p += 4
			continue
		}
		pl := s.plan(p, s.q)
		s.fold1(&pl)
		s.finish(r, &pl)
		p++
	}
}

// binsAtMost reports whether the periods with indices lo … hi−1 have at most n phase bins each.
func (s *searcher) binsAtMost(lo, hi, n int) bool {
	for p := lo; p < hi; p++ {
		dmin := s.g.Durations[0]
		if s.g.DurLo != nil {
			dmin = s.g.Durations[s.g.DurLo[p]]
		}
		if phaseBins(s.g.Periods[p], dmin, s.os) > n {
			return false
		}
	}
	return true
}

// finish sums the folded bins of a period, scans every box and stores the best.
func (s *searcher) finish(r *Result, pl *plan) {
	g, nb := s.g, pl.nb
	c := s.c[:nb+pl.kmax+1]
	maxBin := float64(prefixSums(c, pl.q))

	// Scan boxes. The flux deviations are centred on their weighted mean, so Y = Σ w·y = 0 (to rounding) and
	// a box with sums Y_in, W_in, W_out = W − W_in has depth = −Y_in·W/(W_in·W_out). Hence, for Y_in < 0,
	// snr² ∝ Y_in²/(W_in·W_out) and log_like ∝ Y_in²/(W_in·W_out²). The best box maximises Y_in²/den over
	// boxes with Y_in < 0, compared by cross-multiplication to keep divisions and square roots out of the loop.
	b := best{q: 0, den: 1, n: -1}
	empty := emptyWeight * s.d.wScale
	prevK, prevStride := -1, -1
	for j := pl.lo; j < pl.hi; j++ {
		dur := g.Durations[j]
		k := max(int(math.Round(dur/pl.bw)), 1)
		if k >= nb {
			break
		}
		stride := max(int(dur/pl.dmin), 1)
		if k == prevK && stride == prevStride {
			continue
		}
		prevK, prevStride = k, stride
		b.k = k
		sc := scan{sumW: s.d.sumW, empty: empty, wmax: float64(k) * maxBin, likelihood: s.obj == Likelihood}
		sc.boxes(&b, c[:nb], c[k:k+nb], stride)
	}
	p := pl.p
	if b.n < 0 {
		r.Power[p], r.Durations[p], r.T0[p] = 0, math.NaN(), math.NaN()
		return
	}
	win := c[b.n+b.bestK].w - c[b.n].w
	yin := c[b.n+b.bestK].wy - c[b.n].wy
	s.store(r, p, win, yin, b.n, b.bestK, pl.bw)
}
