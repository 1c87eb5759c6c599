package quicklook

import (
	"fmt"
	"math"
	"sort"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/engine/bls"
	"transitbench/engine/detrend"
	"transitbench/engine/lc"
	"transitbench/workspace"
)

// Analysis is a star's light curve with its detrended flux and BLS search.
type Analysis struct {
	// Star is the star's metadata (its radius and mass bound the search's durations); nil when unknown.
	Star *data.Star
	// Time, Raw and Flat have one entry per cadence: times in BKJD days, the relative flux and the flux
	// detrended by engine/detrend; Flat is NaN where the cadence is not valid (Flagged, or a NaN flux).
	Time, Raw, Flat []float64
	// Flagged marks the cadences that are not valid: a quality flag of lc.DefaultQualityMask, or a time or
	// flux that is not finite.
	Flagged []bool
	// Periods and Power are the BLS periodogram (SNR objective) on the valid cadences; Peaks its PeakCount
	// strongest distinct peaks, strongest first, each refined on the unbinned light curve.
	Periods, Power []float64
	Peaks          []bls.Peak
	// Err is the flux error of each cadence as the search weighted it (1 where c had none; NaN where not
	// valid), for the searches after masking (Planets).
	Err []float64
}

// PeakCount is how many BLS peaks Analyse keeps.
const PeakCount = 5

// The BLS search trades period resolution for speed, so that a star is analysed in about a second: the
// periodogram is computed on Ofir's grid with oversampling SearchOversample instead of the default 3, durations
// from SearchDurMinDays (1 h instead of 0.5 h; the phase bins are a fraction of the shortest duration, so this
// halves them) in steps of SearchDurStep instead of 1.25, and SearchPhaseOversample phase bins per shortest
// duration instead of 5, on the light curve averaged over runs of SearchBin consecutive cadences (the search's
// cost grows with the number of points; a 59-minute bin still resolves the 1-hour shortest box); then each of
// the strongest peaks is refined on the unbinned light curve by a search from 0.5 h at the default duration
// step over a fine grid of RefinePeriods periods between its two neighbours on the coarse grid. The
// periodogram is the coarse one; the peaks are the refined ones.
const (
	SearchOversample      = 1.0
	SearchDurStep         = 1.5
	SearchPhaseOversample = 3
	SearchDurMinDays      = 1.0 / 24
	SearchBin             = 2
	RefinePeriods         = 64
)

// Analyse flags the invalid cadences of c, detrends the rest (engine/detrend.Flatten with its default window)
// and runs Search on the valid detrended cadences (unit errors where c has none) with up to workers goroutines
// (0: GOMAXPROCS). star may be nil. The analysis shares c's Time and Flux slices.
func Analyse(c *lc.LightCurve, star *data.Star, workers int) (*Analysis, error) {
	n := len(c.Time)
	a := &Analysis{Star: star, Time: c.Time, Raw: c.Flux, Flagged: make([]bool, n), Flat: make([]float64, n), Err: make([]float64, n)}
	masked := make([]float64, n)
	for i := range c.Time {
		bad := (i < len(c.Quality) && c.Quality[i]&lc.DefaultQualityMask != 0) || math.IsNaN(c.Flux[i]) ||
			math.IsInf(c.Flux[i], 0) || math.IsNaN(c.Time[i])
		a.Flagged[i] = bad
		masked[i] = c.Flux[i]
		if bad {
			masked[i] = math.NaN()
		}
	}
	flat, _ := detrend.Flatten(c.Time, masked, detrend.Options{})
	copy(a.Flat, flat)
	var vt, vf, ve []float64
	for i := range c.Time {
		a.Err[i] = math.NaN()
		if a.Flagged[i] || math.IsNaN(flat[i]) {
			continue
		}
		e := 1.0
		if i < len(c.FluxErr) && c.FluxErr[i] > 0 && !math.IsNaN(c.FluxErr[i]) {
			e = c.FluxErr[i]
		}
		a.Err[i] = e
		vt, vf, ve = append(vt, c.Time[i]), append(vf, flat[i]), append(ve, e)
	}
	var err error
	a.Periods, a.Power, a.Peaks, err = Search(vt, vf, ve, star, workers)
	return a, err
}

// Search is Analyse's BLS search on the points (t, y, dy) (dy nil: unit errors): the coarse periodogram and
// its PeakCount strongest peaks, refined (see SearchOversample). star, when not nil, bounds the durations by
// its density.
func Search(t, y, dy []float64, star *data.Star, workers int) (periods, power []float64, peaks []bls.Peak, err error) {
	opt := bls.GridOptions{Oversample: SearchOversample, DurStep: SearchDurStep, DurMinDays: SearchDurMinDays}
	if star != nil {
		opt.RStarRsun, opt.MStarMsun = star.RadiusRsun, star.MassMsun
	}
	g, err := bls.DefaultGrid(t, opt)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("BLS search: %w", err)
	}
	g.Workers, g.PhaseOversample = workers, SearchPhaseOversample
	bt, by, bdy := binRuns(t, y, dy, SearchBin)
	res, err := bls.Search(bt, by, bdy, g, bls.SNR)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("BLS search: %w", err)
	}
	for _, pk := range res.Peaks(PeakCount) {
		peaks = append(peaks, refinePeak(t, y, dy, res.Periods, pk, workers))
	}
	return res.Periods, res.Power, peaks, nil
}

// binRuns averages runs of up to n consecutive points whose times lie within n cadences of the run's first:
// the mean time and flux, and the error of the mean, √(Σ dy²)/k for k points (unit errors when dy is nil).
// Points across a gap start a new run, so no bin straddles one.
func binRuns(t, y, dy []float64, n int) (bt, by, bdy []float64) {
	for i := 0; i < len(t); {
		j := i + 1
		for j < len(t) && j-i < n && t[j]-t[i] < float64(n)*lc.CadenceDays {
			j++
		}
		var st, sy, se float64
		for k := i; k < j; k++ {
			e := 1.0
			if dy != nil {
				e = dy[k]
			}
			st, sy, se = st+t[k], sy+y[k], se+e*e
		}
		k := float64(j - i)
		bt, by, bdy = append(bt, st/k), append(by, sy/k), append(bdy, math.Sqrt(se)/k)
		i = j
	}
	return bt, by, bdy
}

// refinePeak searches a fine grid of periods between the coarse grid's neighbours of pk's period, at the
// default duration step (durations up to 15 % of the period, as the default grid allows), and returns the best
// box found there, or pk when the refined search finds nothing stronger.
func refinePeak(t, y, dy, coarse []float64, pk bls.Peak, workers int) bls.Peak {
	i := sort.SearchFloat64s(coarse, pk.PeriodDays)
	if i >= len(coarse) || !sort.Float64sAreSorted(coarse) {
		return pk
	}
	lo, hi := coarse[max(i-1, 0)], coarse[min(i+1, len(coarse)-1)]
	if !(hi > lo) {
		return pk
	}
	dmax := math.Min(bls.DefaultDurMaxDays, 0.15*lo)
	if !(dmax > bls.DefaultDurMinDays) {
		return pk
	}
	g := bls.Grid{
		Periods:   bls.LogPeriodGrid(lo, hi, RefinePeriods),
		Durations: bls.LogDurations(bls.DefaultDurMinDays, dmax, bls.DefaultDurStep),
		Workers:   workers,
	}
	res, err := bls.Search(t, y, dy, g, bls.SNR)
	if err != nil {
		return pk
	}
	best := res.Peaks(1)
	if len(best) == 0 || best[0].Power < pk.Power {
		return pk
	}
	return best[0]
}

// Star reads star id of set and analyses it with up to workers goroutines. A star of a hidden set is refused
// (workspace.ErrHiddenStar) before anything of it is read.
func Star(set *sets.Set, id string, workers int) (*Analysis, error) {
	if workspace.IsHiddenStar(id) || sets.IsHidden(set.Name) || set.Hidden() {
		return nil, fmt.Errorf("star %s of set %s: %w", id, set.Name, workspace.ErrHiddenStar)
	}
	c, star, err := set.Star(id)
	if err != nil {
		return nil, fmt.Errorf("star %s of set %s: %w", id, set.Name, err)
	}
	return Analyse(c, star, workers)
}
