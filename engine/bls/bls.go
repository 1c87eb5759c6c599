package bls

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"transitbench/engine/stat"
)

// Objective selects what a box is scored by; both follow astropy's BoxLeastSquares exactly.
type Objective int

const (
	// SNR scores a box by the signal-to-noise of its depth: depth/depth_err.
	SNR Objective = iota
	// Likelihood scores a box by its log likelihood relative to a constant: ½·W_in·depth².
	Likelihood
)

// String returns "snr" or "likelihood".
func (o Objective) String() string {
	switch o {
	case SNR:
		return "snr"
	case Likelihood:
		return "likelihood"
	}
	return fmt.Sprintf("Objective(%d)", int(o))
}

// ParseObjective returns the objective named "snr" or "likelihood".
func ParseObjective(s string) (Objective, error) {
	switch s {
	case "snr":
		return SNR, nil
	case "likelihood":
		return Likelihood, nil
	}
	return 0, fmt.Errorf("%w: %q (use snr or likelihood)", ErrObjective, s)
}

// Errors returned by Search; test for them with errors.Is.
var (
	ErrEmpty          = errors.New("bls: no data")
	ErrLengthMismatch = errors.New("bls: t, y and dy differ in length")
	ErrAllNaN         = errors.New("bls: no cadence has a finite time, flux and positive error")
	ErrTooFewPoints   = errors.New("bls: too few finite points")
	ErrUnsorted       = errors.New("bls: times are not sorted")
	ErrDuplicateTime  = errors.New("bls: duplicate times")
	ErrEmptyGrid      = errors.New("bls: the grid has no periods or no durations")
	ErrBadGrid        = errors.New("bls: invalid grid")
	ErrSpanTooShort   = errors.New("bls: data span shorter than the longest trial period")
	ErrObjective      = errors.New("bls: unknown objective")
)

// MinPoints is the smallest number of usable cadences Search accepts.
const MinPoints = 10

// minWeight is the smallest normalised weight (inverse variance over its mean) a cadence may have: errors
// more than 1000 times the typical one mark a cadence unusable. Windows whose summed normalised weight is
// below emptyWeight hold no cadence: emptyWeight sits far above the rounding of the prefix sums (≈ N·2⁻⁵² ≈
// 1e-11 for N = 10⁵) and below the weight of any usable cadence.
const (
	minWeight   = 1e-6
	emptyWeight = 1e-7
)

// Result is a BLS periodogram. Slices are indexed like the grid's periods.
type Result struct {
	Objective Objective
	Periods   []float64 // trial periods, days
	Power     []float64 // the objective of the best box at each period (SNR, or log likelihood); 0 when no box dips
	Durations []float64 // best box's duration, days (a whole number of phase bins); NaN when no box dips
	T0        []float64 // best box's mid-transit time, days, in [t_first, t_first + P); NaN when no box dips
	Depth     []float64 // weighted mean out of transit − weighted mean in transit (flux units)
	DepthErr  []float64 // √(1/W_in + 1/W_out), W = Σ 1/dy² (flux units)
	SNR       []float64 // Depth/DepthErr
	LogLike   []float64 // ½·W_in·Depth² (astropy's log_likelihood, relative to a constant model)

	NPoints  int     // cadences used
	SpanDays float64 // last − first time used

	t []float64 // times of the cadences used, for counting transits
}

// prepared holds the cadences Search uses: times relative to the first, weights w normalised to mean 1 and
// weighted flux deviations w·(y − ȳ) from the weighted mean ȳ, both in fixed point (see quantise), and their
// totals.
type prepared struct {
	tref      float64
	pts       []point
	sumW      float64 // Σ w, in units of 1/wScale
	sumWY     float64 // Σ w·(y − ȳ) ≈ 0, in units of 1/yScale
	wScale    float64 // a power of two: a point's w field is w·wScale rounded to an integer
	yScale    float64 // likewise for w·(y − ȳ)
	ivarScale float64 // mean inverse variance: real weights are w·ivarScale
}

// point is one cadence as the fold reads it: time since tref (days), and w·(y − ȳ) and w in fixed point.
type point struct {
	t     float64
	wy, w int64
}

// Search computes the BLS periodogram of the light curve (t days, y flux, dy its 1σ error; dy nil means unit
// errors, as astropy's dy=None) over grid g, scoring boxes by obj.
//
// For a box with in-transit cadences I and the rest O, with weights w = 1/dy²: W_in = Σ_I w, W_out = Σ_O w,
// ȳ_in = Σ_I w·y / W_in, ȳ_out likewise; depth = ȳ_out − ȳ_in, depth_err = √(1/W_in + 1/W_out),
// snr = depth/depth_err, log_like = ½·W_in·depth² (the log likelihood of the box model minus that of a
// constant, as astropy computes it). Only boxes with depth > 0 and cadences both in and out of transit count.
// The power at a period is the best box's snr (SNR) or log_like (Likelihood), maximised over the boxes the grid
// defines (start phases on the phase bins, durations rounded to whole bins: see Grid.PhaseOversample); the
// other columns describe that box. A period where no box dips has power 0 and NaN duration and t0. The values
// do not depend on a constant offset of y.
//
// Search allocates the result and, per worker, one array of 4·2^14 phase bins (1 MB) and two buffers sized by
// the longest period; the loop over periods allocates nothing.
//
// Cadences with a non-finite time, flux or error, a non-positive error, or an error more than 1000 times the
// typical one (weight below 1e-6 of the mean inverse variance) are skipped. The remaining times must increase strictly (ErrUnsorted, ErrDuplicateTime: sort the
// data and drop repeated cadences first; the data readers do). Other errors: ErrEmpty, ErrLengthMismatch,
// ErrAllNaN, ErrTooFewPoints (fewer than MinPoints), ErrEmptyGrid, ErrBadGrid, ErrSpanTooShort, ErrGridTooLarge
// (more than MaxGridWork (period, duration) pairs).
func Search(t, y, dy []float64, g Grid, obj Objective) (*Result, error) {
	if obj != SNR && obj != Likelihood {
		return nil, fmt.Errorf("%w: %d", ErrObjective, int(obj))
	}
	d, err := prepare(t, y, dy)
	if err != nil {
		return nil, err
	}
	span := d.pts[len(d.pts)-1].t
	if err := checkGrid(g, span); err != nil {
		return nil, err
	}
	np := len(g.Periods)
	r := &Result{
		Objective: obj,
		Periods:   append([]float64(nil), g.Periods...),
		Power:     make([]float64, np),
		Durations: make([]float64, np),
		T0:        make([]float64, np),
		Depth:     make([]float64, np),
		DepthErr:  make([]float64, np),
		SNR:       make([]float64, np),
		LogLike:   make([]float64, np),
		NPoints:   len(d.pts),
		SpanDays:  span,
		t:         make([]float64, len(d.pts)),
	}
	for i, pt := range d.pts {
		r.t[i] = pt.t + d.tref
	}
	os := g.PhaseOversample
	if os <= 0 {
		os = DefaultPhaseOversample
	}
	workers := max(g.Workers, 1)
	if workers == 1 {
		s := newSearcher(d, g, os, obj)
		s.periods(r, 0, np)
		return r, nil
	}
	// Periods are handed out in blocks from a shared counter, so that slow (long) periods balance out.
	const block = 32
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newSearcher(d, g, os, obj)
			for {
				lo := int(next.Add(block)) - block
				if lo >= np {
					return
				}
				s.periods(r, lo, min(lo+block, np))
			}
		}()
	}
	wg.Wait()
	return r, nil
}

func prepare(t, y, dy []float64) (*prepared, error) {
	if len(t) == 0 && len(y) == 0 {
		return nil, ErrEmpty
	}
	if len(y) != len(t) || (dy != nil && len(dy) != len(t)) {
		return nil, fmt.Errorf("%w: len(t) = %d, len(y) = %d, len(dy) = %d", ErrLengthMismatch, len(t), len(y), len(dy))
	}
	keep := make([]int, 0, len(t))
	var ivarSum float64
	for i := range t {
		if !stat.Finite(t[i]) || !stat.Finite(y[i]) {
			continue
		}
		if dy != nil {
			if !stat.Finite(dy[i]) || !(dy[i] > 0) {
				continue
			}
			ivarSum += 1 / (dy[i] * dy[i])
		}
		keep = append(keep, i)
	}
	if len(keep) == 0 {
		return nil, fmt.Errorf("%w (%d cadences given)", ErrAllNaN, len(t))
	}
	ivarScale := 1.0
	if dy != nil {
		ivarScale = ivarSum / float64(len(keep))
		k := keep[:0]
		for _, i := range keep {
			if 1/(dy[i]*dy[i])/ivarScale >= minWeight {
				k = append(k, i)
			}
		}
		keep = k
	}
	if len(keep) < MinPoints {
		return nil, fmt.Errorf("%w: %d usable cadences, need at least %d", ErrTooFewPoints, len(keep), MinPoints)
	}
	for k := 1; k < len(keep); k++ {
		a, b := t[keep[k-1]], t[keep[k]]
		if b < a {
			return nil, fmt.Errorf("%w: t[%d] = %v follows t[%d] = %v; sort the cadences by time", ErrUnsorted, keep[k], b, keep[k-1], a)
		}
		if b == a {
			return nil, fmt.Errorf("%w: t[%d] = t[%d] = %v; keep one cadence per time", ErrDuplicateTime, keep[k-1], keep[k], a)
		}
	}
	d := &prepared{
		tref:      t[keep[0]],
		pts:       make([]point, len(keep)),
		ivarScale: ivarScale,
	}
	w := make([]float64, len(keep))
	wy := make([]float64, len(keep))
	var sw, swy float64
	for k, i := range keep {
		d.pts[k].t = t[i] - d.tref
		w[k] = 1
		if dy != nil {
			w[k] = 1 / (dy[i] * dy[i]) / ivarScale
		}
		sw += w[k]
		swy += w[k] * y[i]
	}
	mean := swy / sw
	for k, i := range keep {
		wy[k] = w[k] * (y[i] - mean)
	}
	var sumW, sumWY int64
	d.wScale = quantise(w, func(k int, q int64) { d.pts[k].w = q; sumW += q })
	d.yScale = quantise(wy, func(k int, q int64) { d.pts[k].wy = q; sumWY += q })
	d.sumW, d.sumWY = float64(sumW), float64(sumWY)
	return d, nil
}

// quantise passes set the values x·scale rounded to integers and returns scale, the power of two that makes
// Σ|x|·scale at most 2⁶¹ (1 when every x is 0). Sums of the integers are then exact: any partial sum, and any
// sum of two partial sums, fits in an int64. Each value is off by at most ½ unit, 2⁻⁶² of Σ|x|: for N values
// of similar size, a relative error of about N·2⁻⁶² (4·10⁻¹⁵ for N = 17.6 k), below the rounding of the
// float64 sums that the fixed point replaces.
func quantise(x []float64, set func(k int, q int64)) (scale float64) {
	var sum float64
	for _, v := range x {
		sum += math.Abs(v)
	}
	scale = 1
	if sum > 0 {
		_, e := math.Frexp(sum) // sum < 2^e
		scale = math.Ldexp(1, 61-e)
	}
	for k, v := range x {
		set(k, int64(math.Round(v*scale)))
	}
	return scale
}

func checkGrid(g Grid, span float64) error {
	if len(g.Periods) == 0 || len(g.Durations) == 0 {
		return ErrEmptyGrid
	}
	for i, d := range g.Durations {
		if !stat.Finite(d) || !(d > 0) {
			return fmt.Errorf("%w: duration %v is not a positive number of days", ErrBadGrid, d)
		}
		if i > 0 && d <= g.Durations[i-1] {
			return fmt.Errorf("%w: durations must increase (%v follows %v)", ErrBadGrid, d, g.Durations[i-1])
		}
	}
	ranged := g.DurLo != nil || g.DurHi != nil
	if ranged && (len(g.DurLo) != len(g.Periods) || len(g.DurHi) != len(g.Periods)) {
		return fmt.Errorf("%w: DurLo and DurHi need one entry per period", ErrBadGrid)
	}
	pmax := 0.0
	for p, per := range g.Periods {
		if !stat.Finite(per) || !(per > 0) {
			return fmt.Errorf("%w: period %v is not a positive number of days", ErrBadGrid, per)
		}
		pmax = math.Max(pmax, per)
		dmax := g.Durations[len(g.Durations)-1]
		if ranged {
			lo, hi := g.DurLo[p], g.DurHi[p]
			if lo < 0 || hi > len(g.Durations) || lo >= hi {
				return fmt.Errorf("%w: duration range [%d, %d) of period %v is empty or out of bounds", ErrBadGrid, lo, hi, per)
			}
			dmax = g.Durations[hi-1]
		}
		if dmax >= per {
			return fmt.Errorf("%w: duration %v d is not shorter than period %v d; lower the durations or raise the periods", ErrBadGrid, dmax, per)
		}
	}
	if span < pmax {
		return fmt.Errorf("%w: data span %.4g d, longest period %.4g d; lower the maximum period", ErrSpanTooShort, span, pmax)
	}
	if w := GridWork(g); w > MaxGridWork {
		return fmt.Errorf("%w: %d periods, %d (period, duration) pairs, above the cap of %d (MaxGridWork); give fewer periods or durations",
			ErrGridTooLarge, len(g.Periods), w, MaxGridWork)
	}
	return nil
}

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
	pl.q = buf[:pl.nb]
	clear(pl.q)
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

// prefixSums sets c[i] to the sum of the bins q[j mod nb] for j < i (nb = len(q)), for i = 0 … len(c)−1 ≤ 2·nb:
// c[n+k] − c[n] is then the sum of the k bins from n on, wrapping past phase P. The sums are exact integers;
// c holds them rounded to float64. It returns the largest weight of a bin.
func prefixSums(c []bin, q []qbin) (maxW int64) {
	if len(c) == 0 {
		return 0
	}
	c[0] = bin{}
	nb := min(len(q), len(c)-1)
	var acc qbin
	maxW = prefixRun(c[1:nb+1], q[:nb], &acc)
	prefixRun(c[nb+1:], q, &acc)
	return maxW
}

// prefixRun adds the bins src[i] to acc in turn and sets dst[i] to each running sum, for i < len(dst) ≤
// len(src). It returns the largest weight of the bins added (0 if none is positive).
func prefixRun(dst []bin, src []qbin, acc *qbin) (maxW int64) {
	if haveAVX512 {
		return prefixRunVec(dst, src, acc)
	}
	return prefixRunGo(dst, src, acc)
}

func prefixRunGo(dst []bin, src []qbin, acc *qbin) (maxW int64) {
	sy, sw := acc.wy, acc.w
	src = src[:len(dst)]
	for i := range dst {
		sy += src[i].wy
		sw += src[i].w
		maxW = max(maxW, src[i].w)
		dst[i] = bin{float64(sy), float64(sw)}
	}
	acc.wy, acc.w = sy, sw
	return maxW
}

// best is the best box of a period so far: its score q/den (q = Y_in², Y_in < 0), start bin n and length bestK;
// k is the length of the boxes being scanned.
type best struct {
	q, den      float64
	n, k, bestK int
}

// scan scores the boxes of one length k starting at every stride-th bin: box n has prefix sums cs[n] at its
// start and ce[n] at its end, W_in = ce[n].w − cs[n].w and Y_in likewise, W_out = W − W_in. A box beats the
// best so far (q, den) when Y_in²·den > q·den_box, with den_box = W_in·W_out for the SNR and W_in·W_out² for
// the likelihood; it is then kept if it dips (Y_in < 0) and has weight above empty both in and out of transit.
//
// No box weighs more than wmax (k times the heaviest bin), so W_out ≥ g = W − wmax, and a box can beat the
// best only if Y_in² > τ·W_in, τ = (q/den)·g (g² for the likelihood). screen and screenStride apply this
// test, two multiplications per box, to four boxes at a time (in one vector with AVX2), and only search for
// the next group holding a box that passes it, which is rare, so that τ stays fixed inside them; that group
// is then examined box by box with the full test. τ is lowered by 2⁻⁴⁰ of itself and g by 2⁻⁴⁰ of W, far
// more than the rounding of the products and of the prefix sums, so that the cheap test never rejects a box
// the full test would keep.
type scan struct {
	sumW, empty, wmax float64
	likelihood        bool
}

// tau returns the threshold of the cheap test for the best score q/den.
func (sc *scan) tau(q, den float64) float64 {
	g := max(sc.sumW-sc.wmax-sc.sumW*0x1p-40, 0)
	if sc.likelihood {
		g *= g
	}
	return q / den * g * (1 - 0x1p-40)
}

// beats applies the full test to the box with sums win, yin and, if it passes, makes it the best.
func (sc *scan) beats(b *best, win, yin float64, n int) bool {
	wout := sc.sumW - win
	den := win * wout
	if sc.likelihood {
		den *= wout
	}
	if yin*yin*b.den > b.q*den && yin < 0 && win > sc.empty && wout > sc.empty {
		b.q, b.den = yin*yin, den
		b.n, b.bestK = n, b.k
		return true
	}
	return false
}

// boxes scans the boxes starting at every stride-th bin.
func (sc *scan) boxes(b *best, cs, ce []bin, stride int) {
	ce = ce[:len(cs)]
	tau := sc.tau(b.q, b.den)
	s, end := stride, len(cs)
	for n := 0; n < end; {
		if s == 1 {
			n += screen(cs[n:], ce[n:], tau)
		} else {
			n += screenStride(cs[n:], ce[n:], s, tau)
		}
		for stop := min(n+4*s, end); n < stop; n += s {
			if sc.beats(b, ce[n].w-cs[n].w, ce[n].wy-cs[n].wy, n) {
				tau = sc.tau(b.q, b.den)
			}
		}
	}
}

// screen returns the start of the first group of four boxes n … n+3 (n = 0, 4, 8, …, n+3 < len(cs)) holding
// a box with Y_in² > tau·W_in, or the first n with n+3 ≥ len(cs) if none does; len(ce) ≥ len(cs).
func screen(cs, ce []bin, tau float64) int {
	if haveAVX2 {
		return screenVec(cs, ce, tau)
	}
	return screenGo(cs, ce, tau)
}

func screenGo(cs, ce []bin, tau float64) int {
	n := 0
	for ; n+3 < len(cs); n += 4 {
		e, c := ce[n:n+4], cs[n:n+4]
		w0, y0 := e[0].w-c[0].w, e[0].wy-c[0].wy
		w1, y1 := e[1].w-c[1].w, e[1].wy-c[1].wy
		w2, y2 := e[2].w-c[2].w, e[2].wy-c[2].wy
		w3, y3 := e[3].w-c[3].w, e[3].wy-c[3].wy
		if y0*y0 > tau*w0 || y1*y1 > tau*w1 || y2*y2 > tau*w2 || y3*y3 > tau*w3 {
			break
		}
	}
	return n
}

// screenStride is screen for the boxes n = 0, s, 2s, … (s = stride ≥ 1): it returns the first n = 0, 4s,
// 8s, … with n+3s < len(cs) whose group n, n+s, n+2s, n+3s holds a box passing the test, or the first with
// n+3s ≥ len(cs) if none does.
func screenStride(cs, ce []bin, stride int, tau float64) int {
	if haveAVX2 {
		return screenStrideVec(cs, ce, stride, tau)
	}
	return screenStrideGo(cs, ce, stride, tau)
}

func screenStrideGo(cs, ce []bin, s int, tau float64) int {
	ce = ce[:len(cs)]
	n := 0
	for ; n+3*s < len(cs); n += 4 * s {
		w0, y0 := ce[n].w-cs[n].w, ce[n].wy-cs[n].wy
		w1, y1 := ce[n+s].w-cs[n+s].w, ce[n+s].wy-cs[n+s].wy
		w2, y2 := ce[n+2*s].w-cs[n+2*s].w, ce[n+2*s].wy-cs[n+2*s].wy
		w3, y3 := ce[n+3*s].w-cs[n+3*s].w, ce[n+3*s].wy-cs[n+3*s].wy
		if y0*y0 > tau*w0 || y1*y1 > tau*w1 || y2*y2 > tau*w2 || y3*y3 > tau*w3 {
			break
		}
	}
	return n
}

// store computes the reported quantities of the best box (bins n … n+k−1 of width bw) from its sums.
func (s *searcher) store(r *Result, p int, win, yin float64, n, k int, bw float64) {
	d := s.d
	per := r.Periods[p]
	win, yin = win/d.wScale, yin/d.yScale
	wout := d.sumW/d.wScale - win
	depth := (d.sumWY/d.yScale-yin)/wout - yin/win
	// Real inverse-variance sums are the normalised ones times ivarScale.
	depthErr := math.Sqrt((1/win + 1/wout) / d.ivarScale)
	snr := depth / depthErr
	ll := 0.5 * win * d.ivarScale * depth * depth
	mid := (float64(n) + 0.5*float64(k)) * bw
	if mid >= per {
		mid -= per
	}
	r.Durations[p] = float64(k) * bw
	r.T0[p] = d.tref + mid
	r.Depth[p] = depth
	r.DepthErr[p] = depthErr
	r.SNR[p] = snr
	r.LogLike[p] = ll
	if s.obj == Likelihood {
		r.Power[p] = ll
	} else {
		r.Power[p] = snr
	}
}
