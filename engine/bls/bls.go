package bls

import (
	"errors"
	"fmt"
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
