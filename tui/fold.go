package tui

import (
	"fmt"
	"math"

	"transitbench/engine/fold"
	"transitbench/engine/vet"
)

// ephemeris is what the folded panel folds at: a row of the solution, the truth or a BLS peak.
type ephemeris struct {
	Label                            string
	PeriodDays, T0Days, DurationDays float64
}

// targetKind says where the fold target comes from.
type targetKind int

const (
	targetTruth targetKind = iota
	targetRow
	targetPeak
)

// foldTarget names the fold target: the truth, row Index (0-based, rank order) or peak Index.
type foldTarget struct {
	Kind  targetKind
	Index int
}

// defaultDurationDays is the duration assumed for a row when neither a BLS peak nor the truth gives one at its
// period: 3 h, a typical transit of a few-day planet around a Sun-like star.
const defaultDurationDays = 0.125

// resolveTarget returns the ephemeris of target on d, and false when d has no such target. A row carries no
// duration: it takes the truth's when it claimed the planet, else that of a BLS peak within 1 % of its
// period, else defaultDurationDays.
func resolveTarget(d *StarData, target foldTarget) (ephemeris, bool) {
	switch target.Kind {
	case targetTruth:
		p, t0, dur, ok := truthEphemeris(d)
		if !ok {
			return ephemeris{}, false
		}
		return ephemeris{"truth", p, t0, dur}, true
	case targetPeak:
		if target.Index < 0 || target.Index >= len(d.Peaks) {
			return ephemeris{}, false
		}
		pk := d.Peaks[target.Index]
		return ephemeris{fmt.Sprintf("peak %d", target.Index+1), pk.PeriodDays, pk.T0Days, pk.DurationDays}, true
	case targetRow:
		if d.Result == nil || target.Index < 0 || target.Index >= len(d.Result.Rows) {
			return ephemeris{}, false
		}
		r := d.Result.Rows[target.Index]
		dur := defaultDurationDays
		if _, _, td, ok := truthEphemeris(d); ok && r.Planet >= 0 {
			dur = td
		} else {
			for _, pk := range d.Peaks {
				if math.Abs(pk.PeriodDays/r.PeriodDays-1) <= 0.01 {
					dur = pk.DurationDays
					break
				}
			}
		}
		return ephemeris{fmt.Sprintf("row %d", target.Index+1), r.PeriodDays, r.T0Days, dur}, true
	}
	return ephemeris{}, false
}

// truthEphemeris is the labelled signal of a star: its injected planet, the primary eclipse of an EB, or a
// confirmed host's first planet.
func truthEphemeris(d *StarData) (period, t0, duration float64, ok bool) {
	a := d.Answer
	switch {
	case a == nil:
	case a.Planet != nil:
		return a.Planet.PeriodDays, a.Planet.T0Days, a.Planet.DurationDays, true
	case a.EB != nil:
		return a.EB.PeriodDays, a.EB.T0Days, a.EB.PrimaryDurationDays, true
	case len(a.Confirmed) > 0:
		p := a.Confirmed[0]
		return p.PeriodDays, p.T0Days, p.DurationDays, true
	}
	return 0, 0, 0, false
}

// curve is a folded light curve in the folded panel's units: hours from mid-transit and ppm relative to 1,
// with its binned means.
type curve struct {
	X, Y, BX, BY, BE []float64
}

// folded is the folded panel's data for one ephemeris: the whole fold, the odd and even transits apart, the
// fold around the secondary eclipse, and the vetting statistics.
type folded struct {
	Eph       ephemeris
	HalfHours float64
	All       curve
	Odd, Even curve
	Secondary curve
	Vet       vet.Features
}

// foldBins is the number of bins across the folded panel's window.
const foldBins = 40

// foldStar folds the valid detrended cadences of d at e. The window is ±max(2.5 T14, 2 h), at most half the
// period; the secondary fold is centred at the phase of the deepest secondary box vet found (0.5 when it
// found none).
func foldStar(d *StarData, e ephemeris) *folded {
	var t, f []float64
	for i, v := range d.Flat {
		if !d.Flagged[i] && !math.IsNaN(v) {
			t, f = append(t, d.Time[i]), append(f, v)
		}
	}
	half := math.Min(math.Max(2.5*e.DurationDays*24, 2), e.PeriodDays*24/2)
	out := &folded{Eph: e, HalfHours: half}
	var star *vet.Star
	if d.Star != nil {
		star = &vet.Star{RadiusRsun: d.Star.RadiusRsun, MassMsun: d.Star.MassMsun}
	}
	if len(t) == 0 || !(e.PeriodDays > 0) {
		return out
	}
	out.Vet = vet.Compute(t, f, e.PeriodDays, e.T0Days, e.DurationDays, star)

	phase := fold.Phase(t, e.PeriodDays, e.T0Days)
	epochs := fold.Epochs(t, e.PeriodDays, e.T0Days)
	var odd, even curve
	for i, ph := range phase {
		x, y := ph*24, (f[i]-1)*1e6
		if math.Abs(x) > half {
			continue
		}
		out.All.X, out.All.Y = append(out.All.X, x), append(out.All.Y, y)
		if epochs[i]%2 != 0 {
			odd.X, odd.Y = append(odd.X, x), append(odd.Y, y)
		} else {
			even.X, even.Y = append(even.X, x), append(even.Y, y)
		}
	}
	binCurve(&out.All, half)
	binCurve(&odd, half)
	binCurve(&even, half)
	out.Odd, out.Even = odd, even

	secPhase := 0.5
	if out.Vet.SecondaryPhase > 0 {
		secPhase = out.Vet.SecondaryPhase
	}
	sec := fold.Phase(t, e.PeriodDays, e.T0Days+secPhase*e.PeriodDays)
	for i, ph := range sec {
		if x := ph * 24; math.Abs(x) <= half {
			out.Secondary.X, out.Secondary.Y = append(out.Secondary.X, x), append(out.Secondary.Y, (f[i]-1)*1e6)
		}
	}
	binCurve(&out.Secondary, half)
	return out
}

func binCurve(c *curve, half float64) {
	if len(c.X) == 0 {
		return
	}
	centers, mean, err, _ := fold.Bin(c.X, c.Y, -half, half, foldBins)
	c.BX, c.BY, c.BE = centers, mean, err
}
