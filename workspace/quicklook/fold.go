package quicklook

import (
	"fmt"
	"math"

	"transitbench/data"
	"transitbench/engine/bls"
	"transitbench/engine/fold"
	"transitbench/engine/vet"
	"transitbench/grader"
)

// Ephemeris is what a fold folds at: a row of a solution, the truth or a BLS peak. Label names it ("truth",
// "row 2", "peak 1").
type Ephemeris struct {
	Label                            string
	PeriodDays, T0Days, DurationDays float64
}

// DefaultDurationDays is the duration Row assumes when neither the truth nor a BLS peak gives one at the row's
// period: 3 h, a typical transit of a few-day planet around a Sun-like star.
const DefaultDurationDays = 0.125

// Truth is the labelled signal of answer a, labelled "truth": its injected planet, the primary eclipse of an EB,
// a confirmed host's or a labelled star's first planet; false when a is nil or has no signal. TruthSignal says which it is.
func Truth(a *data.Answer) (Ephemeris, bool) {
	switch {
	case a == nil:
	case a.Planet != nil:
		return Ephemeris{"truth", a.Planet.PeriodDays, a.Planet.T0Days, a.Planet.DurationDays}, true
	case a.EB != nil:
		return Ephemeris{"truth", a.EB.PeriodDays, a.EB.T0Days, a.EB.PrimaryDurationDays}, true
	case len(a.Confirmed) > 0:
		p := a.Confirmed[0]
		return Ephemeris{"truth", p.PeriodDays, p.T0Days, p.DurationDays}, true
	case len(a.Labelled) > 0:
		p := a.Labelled[0]
		return Ephemeris{"truth", p.PeriodDays, p.T0Days, p.DurationDays}, true
	}
	return Ephemeris{}, false
}

// PlanetMES is the MES the star lists (the terminal UI's browser, the agent server's list_stars) show and filter
// on for answer a: its injected planet's, else its first confirmed or labelled planet's; 0 when a is nil or has
// no planet (an untouched star, an eclipsing binary).
func PlanetMES(a *data.Answer) float64 {
	switch {
	case a == nil:
	case a.Planet != nil:
		return a.Planet.MES
	case len(a.Confirmed) > 0:
		return a.Confirmed[0].MES
	case len(a.Labelled) > 0:
		return a.Labelled[0].MES
	}
	return 0
}

// TruthSignal names the signal Truth folds at: "planet" (injected), "EB primary", "confirmed planet", or ""
// when there is none.
func TruthSignal(a *data.Answer) string {
	switch {
	case a == nil:
	case a.Planet != nil:
		return "planet"
	case a.EB != nil:
		return "EB primary"
	case len(a.Confirmed) > 0:
		return "confirmed planet"
	case len(a.Labelled) > 0:
		return "labelled planet"
	}
	return ""
}

// Peak is BLS peak i (0-based, strongest first), labelled "peak i+1"; false when there is no such peak.
func Peak(peaks []bls.Peak, i int) (Ephemeris, bool) {
	if i < 0 || i >= len(peaks) {
		return Ephemeris{}, false
	}
	pk := peaks[i]
	return Ephemeris{fmt.Sprintf("peak %d", i+1), pk.PeriodDays, pk.T0Days, pk.DurationDays}, true
}

// Row is counted row i (0-based, rank order) of a solution's result res, labelled "row i+1"; false when there
// is no such row. A row carries no duration: it takes the truth's (of answer a) when it claimed the planet,
// else that of a BLS peak within 1 % of its period, else DefaultDurationDays.
func Row(res *grader.StarResult, i int, a *data.Answer, peaks []bls.Peak) (Ephemeris, bool) {
	if res == nil || i < 0 || i >= len(res.Rows) {
		return Ephemeris{}, false
	}
	r := res.Rows[i]
	dur := DefaultDurationDays
	if t, ok := Truth(a); ok && r.Planet >= 0 {
		dur = t.DurationDays
	} else {
		for _, pk := range peaks {
			if math.Abs(pk.PeriodDays/r.PeriodDays-1) <= 0.01 {
				dur = pk.DurationDays
				break
			}
		}
	}
	return Ephemeris{fmt.Sprintf("row %d", i+1), r.PeriodDays, r.T0Days, dur}, true
}

// TransitTimes lists the mid-transit times of e inside [lo, hi], at most limit of them; nil when e has no
// period.
func TransitTimes(e Ephemeris, lo, hi float64, limit int) []float64 {
	if !(e.PeriodDays > 0) {
		return nil
	}
	var out []float64
	for n := math.Ceil((lo - e.T0Days) / e.PeriodDays); len(out) < limit; n++ {
		tc := e.T0Days + n*e.PeriodDays
		if tc > hi {
			break
		}
		out = append(out, tc)
	}
	return out
}

// Curve is a folded light curve in hours from mid-transit and ppm relative to 1, with its means in FoldBins
// bins across the window (BX the bin centres, BY the means, BE their errors; NaN in empty bins).
type Curve struct {
	X, Y, BX, BY, BE []float64
}

// Fold is the fold of an analysis at one ephemeris, measured (Measure): the whole fold, the odd and even
// transits apart and the fold around the secondary eclipse, of the flux the measurement was made on, and the
// measurement's statistics: Refined (the fitted T14, the secondary clear of the whole transit, odd/even as a
// ratio with a systematic floor: the statistics shown first) and Vet (engine/vet.Compute at the fitted T14:
// depth, MES, shape; its odd/even and secondary are the "box" statistics). Every curve spans ±HalfHours.
type Fold struct {
	Eph       Ephemeris
	HalfHours float64
	All       Curve
	Odd, Even Curve
	Secondary Curve
	Vet       vet.Features
	Refined   vet.Refined
	// Fitted is the measurement's fitted ephemeris (the period, the mid-time moved by the trapezoid and T14).
	Fitted vet.Ephemeris
}

// FoldBins is the number of bins across a fold's window.
const FoldBins = 40

// WindowHours is the half-width of the fold window of e: max(2.5 T14, 2 h), at most half the period.
func WindowHours(e Ephemeris) float64 {
	return math.Min(math.Max(2.5*e.DurationDays*24, 2), e.PeriodDays*24/2)
}

// validFlat returns the times and fluxes of a's valid cadences in flat.
func (a *Analysis) validFlat(flat []float64) (t, f []float64) {
	for i, v := range flat {
		if !a.Flagged[i] && !math.IsNaN(v) {
			t, f = append(t, a.Time[i]), append(f, v)
		}
	}
	return t, f
}

// measuredFlat is the flux Measure at e measured on, with the measurement (a's search flux and a zero
// measurement when e has no period or duration).
func (a *Analysis) measuredFlat(e Ephemeris) ([]float64, vet.Measurement) {
	m := Measure(a, e)
	if m.Flat == nil {
		return a.Flat, m
	}
	return m.Flat, m
}

// PrimaryFold folds a at e within ±WindowHours(e), on the flux Measure measures e on: Fold's All alone,
// without the other curves. It is empty when e has no period.
func PrimaryFold(a *Analysis, e Ephemeris) Curve {
	var c Curve
	if !(e.PeriodDays > 0) {
		return c
	}
	flat, _ := a.measuredFlat(e)
	t, f := a.validFlat(flat)
	half := WindowHours(e)
	for i, ph := range fold.Phase(t, e.PeriodDays, e.T0Days) {
		if x := ph * 24; math.Abs(x) <= half {
			c.X, c.Y = append(c.X, x), append(c.Y, (f[i]-1)*1e6)
		}
	}
	binCurve(&c, half)
	return c
}

// FoldAt measures the signal at e (Measure: re-detrended with its transits and the star's other found signals
// masked, at the fitted T14) and folds the measured flux at e within ±WindowHours(e). The secondary fold is
// centred at the phase of the deepest secondary box Refined found (0.5 when it found none). Without valid
// cadences or a period only Eph and HalfHours are set.
func FoldAt(a *Analysis, e Ephemeris) *Fold {
	half := WindowHours(e)
	out := &Fold{Eph: e, HalfHours: half}
	if !(e.PeriodDays > 0) {
		return out
	}
	flat, m := a.measuredFlat(e)
	t, f := a.validFlat(flat)
	if len(t) == 0 {
		return out
	}
	out.Vet, out.Refined, out.Fitted = m.Features, m.Refined, m.Ephemeris

	phase := fold.Phase(t, e.PeriodDays, e.T0Days)
	epochs := fold.Epochs(t, e.PeriodDays, e.T0Days)
	for i, ph := range phase {
		x, y := ph*24, (f[i]-1)*1e6
		if math.Abs(x) > half {
			continue
		}
		out.All.X, out.All.Y = append(out.All.X, x), append(out.All.Y, y)
		if epochs[i]%2 != 0 {
			out.Odd.X, out.Odd.Y = append(out.Odd.X, x), append(out.Odd.Y, y)
		} else {
			out.Even.X, out.Even.Y = append(out.Even.X, x), append(out.Even.Y, y)
		}
	}
	binCurve(&out.All, half)
	binCurve(&out.Odd, half)
	binCurve(&out.Even, half)

	secPhase := 0.5
	if out.Refined.SecondaryPhase > 0 {
		secPhase = out.Refined.SecondaryPhase
	}
	for i, ph := range fold.Phase(t, e.PeriodDays, e.T0Days+secPhase*e.PeriodDays) {
		if x := ph * 24; math.Abs(x) <= half {
			out.Secondary.X, out.Secondary.Y = append(out.Secondary.X, x), append(out.Secondary.Y, (f[i]-1)*1e6)
		}
	}
	binCurve(&out.Secondary, half)
	return out
}

func binCurve(c *Curve, half float64) {
	if len(c.X) == 0 {
		return
	}
	centers, mean, err, _ := fold.Bin(c.X, c.Y, -half, half, FoldBins)
	c.BX, c.BY, c.BE = centers, mean, err
}
