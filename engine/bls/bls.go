package bls

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
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

// prepared holds the cadences Search uses: times relative to the first, weights normalised to mean 1,
// weighted flux deviations from the weighted mean, and their totals.
type prepared struct {
	tref      float64
	pts       []point
	sumW      float64
	sumWY     float64 // ≈ 0 up to rounding
	ivarScale float64 // mean inverse variance: real weights are w·ivarScale
}

// point is one cadence as the fold reads it: time since tref (days), normalised weight w, and w·(y − ȳ).
type point struct{ t, w, wy float64 }

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
// Search allocates the result and four bin buffers per worker; the loop over periods allocates nothing.
//
// Cadences with a non-finite time, flux or error, a non-positive error, or an error more than 1000 times the
// typical one (weight below 1e-6 of the mean inverse variance) are skipped. The remaining times must increase strictly (ErrUnsorted, ErrDuplicateTime: sort the
// data and drop repeated cadences first; the data readers do). Other errors: ErrEmpty, ErrLengthMismatch,
// ErrAllNaN, ErrTooFewPoints (fewer than MinPoints), ErrEmptyGrid, ErrBadGrid, ErrSpanTooShort.
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
		if !finite(t[i]) || !finite(y[i]) {
			continue
		}
		if dy != nil {
			if !finite(dy[i]) || !(dy[i] > 0) {
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
	var sw, swy float64
	for k, i := range keep {
		p := &d.pts[k]
		p.t = t[i] - d.tref
		p.w = 1
		if dy != nil {
			p.w = 1 / (dy[i] * dy[i]) / ivarScale
		}
		sw += p.w
		swy += p.w * y[i]
	}
	mean := swy / sw
	for k, i := range keep {
		p := &d.pts[k]
		p.wy = p.w * (y[i] - mean)
		d.sumWY += p.wy
	}
	d.sumW = sw
	return d, nil
}

func checkGrid(g Grid, span float64) error {
	if len(g.Periods) == 0 || len(g.Durations) == 0 {
		return ErrEmptyGrid
	}
	for i, d := range g.Durations {
		if !finite(d) || !(d > 0) {
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
		if !finite(per) || !(per > 0) {
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
	return nil
}

// bin is one phase bin's (or prefix's) weighted flux deviation and weight.
type bin struct{ wy, w float64 }

// searcher holds one goroutine's work buffers: the phase bins of four periods, folded together in one pass
// over the cadences and then turned into prefix sums.
type searcher struct {
	d   *prepared
	g   Grid
	os  int
	obj Objective
	buf [4][]bin
}

func newSearcher(d *prepared, g Grid, os int, obj Objective) *searcher {
	// The longest buffer: the most bins of any period plus the longest box, plus one for the prefix origin.
	n := 2
	for p, per := range g.Periods {
		lo := 0
		if g.DurLo != nil {
			lo = g.DurLo[p]
		}
		nb := int(math.Ceil(per * float64(os) / g.Durations[lo]))
		n = max(n, 2*nb+2)
	}
	n = max(n, 1+1<<foldBits) // fold4 views bins 1 … 2^foldBits as an array
	s := &searcher{d: d, g: g, os: os, obj: obj}
	for i := range s.buf {
		s.buf[i] = make([]bin, n)
	}
	return s
}

// plan is the phase binning of one period: nb bins of width bw days, durations lo … hi−1 of the grid (the
// shortest dmin), boxes up to kmax bins; c holds the bins at 1 … nb (index 0 is the prefix origin) and, after
// wrapping, their first kmax again at nb+1 … nb+kmax.
type plan struct {
	p, lo, hi, nb, kmax int
	per, bw, dmin       float64
	c                   []bin
}

func (s *searcher) plan(p int, buf []bin) plan {
	g := s.g
	pl := plan{p: p, per: g.Periods[p], lo: 0, hi: len(g.Durations)}
	if g.DurLo != nil {
		pl.lo, pl.hi = g.DurLo[p], g.DurHi[p]
	}
	pl.dmin = g.Durations[pl.lo]
	pl.nb = int(math.Ceil(pl.per * float64(s.os) / pl.dmin))
	pl.bw = pl.per / float64(pl.nb)
	pl.kmax = min(int(math.Round(g.Durations[pl.hi-1]/pl.bw)), pl.nb)
	pl.c = buf[:pl.nb+pl.kmax+1]
	clear(pl.c[:pl.nb+1])
	return pl
}

// Folding: a cadence at phase fraction φ = ((t − tref)/P) mod 1 goes to bin ⌊φ·nb⌋, stored at index +1. φ is
// taken in 32-bit fixed point: u = (t − tref)·2³²/P truncated to an integer keeps its low 32 bits, φ·2³²,
// exact to 2⁻¹¹ of a unit for spans up to 10⁴ periods; the bin is then (u·nb) >> 32, always below nb.
//
// fold4, the fast path, computes the bin as (u·nb·2^(32−foldBits)) >> (64−foldBits), the same number: the
// shift shows the compiler that the bin is below 2^foldBits, so that indexing an array of that length needs
// no bounds check.

// foldBits bounds the bins fold4 handles: nb ≤ 2^foldBits.
const foldBits = 14

type foldBins = [1 << foldBits]bin

// fold1 folds the cadences at one period, for any number of bins.
func (s *searcher) fold1(a *plan) {
	c := a.c
	scale, unb := 0x1p32/a.per, uint64(a.nb)
	for _, pt := range s.d.pts {
		k := int((uint64(uint32(int64(pt.t*scale)))*unb)>>32) + 1
		c[k].wy += pt.wy
		c[k].w += pt.w
	}
}

// fold4 folds the cadences at four periods of at most 2^foldBits bins each in one pass, sharing the reads of
// the cadences.
func (s *searcher) fold4(a, b, c, d *plan) {
	ca, cb := (*foldBins)(s.buf[0][1:]), (*foldBins)(s.buf[1][1:])
	cc, cd := (*foldBins)(s.buf[2][1:]), (*foldBins)(s.buf[3][1:])
	sa, sb, sc, sd := 0x1p32/a.per, 0x1p32/b.per, 0x1p32/c.per, 0x1p32/d.per
	const sh = 32 - foldBits
	na, nb, nc, nd := uint64(a.nb)<<sh, uint64(b.nb)<<sh, uint64(c.nb)<<sh, uint64(d.nb)<<sh
	for _, pt := range s.d.pts {
		ka := (uint64(uint32(int64(pt.t*sa))) * na) >> (64 - foldBits)
		kb := (uint64(uint32(int64(pt.t*sb))) * nb) >> (64 - foldBits)
		kc := (uint64(uint32(int64(pt.t*sc))) * nc) >> (64 - foldBits)
		kd := (uint64(uint32(int64(pt.t*sd))) * nd) >> (64 - foldBits)
		ca[ka].wy += pt.wy
		ca[ka].w += pt.w
		cb[kb].wy += pt.wy
		cb[kb].w += pt.w
		cc[kc].wy += pt.wy
		cc[kc].w += pt.w
		cd[kd].wy += pt.wy
		cd[kd].w += pt.w
	}
}

// periods searches the periods with indices lo … hi−1 and stores their best boxes in r: four at a time, the
// rest one by one.
func (s *searcher) periods(r *Result, lo, hi int) {
	p := lo
	for ; p+4 <= hi; p += 4 {
		var pl [4]plan
		fast := true
		for i := range pl {
			pl[i] = s.plan(p+i, s.buf[i])
			fast = fast && pl[i].nb <= 1<<foldBits
		}
		if fast {
			s.fold4(&pl[0], &pl[1], &pl[2], &pl[3])
		} else {
			for i := range pl {
				s.fold1(&pl[i])
			}
		}
		for i := range pl {
			s.finish(r, &pl[i])
		}
	}
	for ; p < hi; p++ {
		pl := s.plan(p, s.buf[0])
		s.fold1(&pl)
		s.finish(r, &pl)
	}
}

// finish wraps and sums the folded bins of a period, scans every box and stores the best.
func (s *searcher) finish(r *Result, pl *plan) {
	g, c, nb := s.g, pl.c, pl.nb
	// Wrap: bins nb+1 … nb+kmax repeat bins 1 … kmax, so boxes may run past phase P.
	copy(c[nb+1:nb+pl.kmax+1], c[1:pl.kmax+1])
	prefixSums(c)

	// Scan boxes. The flux deviations are centred on their weighted mean, so Y = Σ w·y = 0 (to rounding) and
	// a box with sums Y_in, W_in, W_out = W − W_in has depth = −Y_in·W/(W_in·W_out). Hence, for Y_in < 0,
	// snr² ∝ Y_in²/(W_in·W_out) and log_like ∝ Y_in²/(W_in·W_out²). The best box maximises Y_in²/den over
	// boxes with Y_in < 0, compared by cross-multiplication to keep divisions and square roots out of the loop.
	b := best{q: 0, den: 1, n: -1}
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
		switch {
		case s.obj == Likelihood:
			scanLikelihood(&b, c[:nb], c[k:k+nb], stride, s.d.sumW)
		case stride == 1:
			scanSNR1(&b, c[:nb], c[k:k+nb], s.d.sumW)
		default:
			scanSNR(&b, c[:nb], c[k:k+nb], stride, s.d.sumW)
		}
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

// prefixSums turns c into its running sums in place. Each running sum is a chain of dependent additions; the
// two halves of c are summed as two interleaved chains, then the first half's total is added to the second.
func prefixSums(c []bin) {
	h := len(c) / 2
	if h == 0 {
		return
	}
	lo, hi := c[:h], c[h:] // len(hi) is h or h+1
	for k := 1; k < h; k++ {
		lo[k].wy += lo[k-1].wy
		lo[k].w += lo[k-1].w
		hi[k].wy += hi[k-1].wy
		hi[k].w += hi[k-1].w
	}
	if len(hi) > h {
		hi[h].wy += hi[h-1].wy
		hi[h].w += hi[h-1].w
	}
	ty, tw := lo[h-1].wy, lo[h-1].w
	for k := range hi {
		hi[k].wy += ty
		hi[k].w += tw
	}
}

// best is the best box of a period so far: its score q/den (q = Y_in², Y_in < 0), start bin n and length bestK;
// k is the length of the boxes being scanned.
type best struct {
	q, den      float64
	n, k, bestK int
}

// The scans score the boxes starting at every stride-th bin: box n has prefix sums cs[n] at its start and
// ce[n] at its end, W_in = ce[n].w − cs[n].w and Y_in likewise. A box beats the best so far (q, den) when
// Y_in²·den > q·den_box, with den_box = W_in·W_out for the SNR and W_in·W_out² for the likelihood; it is then
// kept if it dips (Y_in < 0) and has weight both in and out of transit. The inner loops test four boxes at a
// time and only search for the next group holding a box that passes the first test, which is rare, so that
// the best-so-far values stay fixed inside them; that group is then examined box by box.

// scanSNR scans with the SNR objective.
func scanSNR(b *best, cs, ce []bin, stride int, sumW float64) {
	ce = ce[:len(cs)]
	bq, bden := b.q, b.den
	s, end := stride, len(cs)
	for n := 0; n < end; {
		for ; n+3*s < end; n += 4 * s {
			w0, y0 := ce[n].w-cs[n].w, ce[n].wy-cs[n].wy
			w1, y1 := ce[n+s].w-cs[n+s].w, ce[n+s].wy-cs[n+s].wy
			w2, y2 := ce[n+2*s].w-cs[n+2*s].w, ce[n+2*s].wy-cs[n+2*s].wy
			w3, y3 := ce[n+3*s].w-cs[n+3*s].w, ce[n+3*s].wy-cs[n+3*s].wy
			a0 := y0*y0*bden > bq*(w0*(sumW-w0))
			a1 := y1*y1*bden > bq*(w1*(sumW-w1))
			a2 := y2*y2*bden > bq*(w2*(sumW-w2))
			a3 := y3*y3*bden > bq*(w3*(sumW-w3))
			if a0 || a1 || a2 || a3 {
				break
			}
		}
		for stop := min(n+4*s, end); n < stop; n += s {
			win, yin := ce[n].w-cs[n].w, ce[n].wy-cs[n].wy
			if wout := sumW - win; yin*yin*bden > bq*(win*wout) && yin < 0 && win > emptyWeight && wout > emptyWeight {
				bq, bden = yin*yin, win*wout
				b.n, b.bestK = n, b.k
			}
		}
	}
	b.q, b.den = bq, bden
}

// scanSNR1 is scanSNR with stride 1, with constant offsets the compiler handles better.
func scanSNR1(b *best, cs, ce []bin, sumW float64) {
	ce = ce[:len(cs)]
	bq, bden := b.q, b.den
	end := len(cs)
	for n := 0; n < end; {
		for ; n+3 < end; n += 4 {
			w0, y0 := ce[n].w-cs[n].w, ce[n].wy-cs[n].wy
			w1, y1 := ce[n+1].w-cs[n+1].w, ce[n+1].wy-cs[n+1].wy
			w2, y2 := ce[n+2].w-cs[n+2].w, ce[n+2].wy-cs[n+2].wy
			w3, y3 := ce[n+3].w-cs[n+3].w, ce[n+3].wy-cs[n+3].wy
			a0 := y0*y0*bden > bq*(w0*(sumW-w0))
			a1 := y1*y1*bden > bq*(w1*(sumW-w1))
			a2 := y2*y2*bden > bq*(w2*(sumW-w2))
			a3 := y3*y3*bden > bq*(w3*(sumW-w3))
			if a0 || a1 || a2 || a3 {
				break
			}
		}
		for stop := min(n+4, end); n < stop; n++ {
			win, yin := ce[n].w-cs[n].w, ce[n].wy-cs[n].wy
			if wout := sumW - win; yin*yin*bden > bq*(win*wout) && yin < 0 && win > emptyWeight && wout > emptyWeight {
				bq, bden = yin*yin, win*wout
				b.n, b.bestK = n, b.k
			}
		}
	}
	b.q, b.den = bq, bden
}

// scanLikelihood scans with the likelihood objective.
func scanLikelihood(b *best, cs, ce []bin, stride int, sumW float64) {
	ce = ce[:len(cs)]
	bq, bden := b.q, b.den
	s, end := stride, len(cs)
	for n := 0; n < end; {
		for ; n+3*s < end; n += 4 * s {
			w0, y0 := ce[n].w-cs[n].w, ce[n].wy-cs[n].wy
			w1, y1 := ce[n+s].w-cs[n+s].w, ce[n+s].wy-cs[n+s].wy
			w2, y2 := ce[n+2*s].w-cs[n+2*s].w, ce[n+2*s].wy-cs[n+2*s].wy
			w3, y3 := ce[n+3*s].w-cs[n+3*s].w, ce[n+3*s].wy-cs[n+3*s].wy
			o0, o1, o2, o3 := sumW-w0, sumW-w1, sumW-w2, sumW-w3
			a0 := y0*y0*bden > bq*(w0*o0*o0)
			a1 := y1*y1*bden > bq*(w1*o1*o1)
			a2 := y2*y2*bden > bq*(w2*o2*o2)
			a3 := y3*y3*bden > bq*(w3*o3*o3)
			if a0 || a1 || a2 || a3 {
				break
			}
		}
		for stop := min(n+4*s, end); n < stop; n += s {
			win, yin := ce[n].w-cs[n].w, ce[n].wy-cs[n].wy
			if wout := sumW - win; yin*yin*bden > bq*(win*wout*wout) && yin < 0 && win > emptyWeight && wout > emptyWeight {
				bq, bden = yin*yin, win*wout*wout
				b.n, b.bestK = n, b.k
			}
		}
	}
	b.q, b.den = bq, bden
}

// store computes the reported quantities of the best box (bins n … n+k−1 of width bw) from its sums.
func (s *searcher) store(r *Result, p int, win, yin float64, n, k int, bw float64) {
	d := s.d
	per := r.Periods[p]
	wout := d.sumW - win
	depth := (d.sumWY-yin)/wout - yin/win
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

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
