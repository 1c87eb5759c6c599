package sim

import (
	"math"
	"math/rand/v2"
	"sort"

	"transitbench/data"
	"transitbench/engine/lc"
)

// Kinds of false alarm planted on false-alarm-population stars (SPEC A3): signals a box search picks up and
// vetting can reject.
const (
	KindDesatGlitch  = "desat_glitch"  // brief dips just after each reaction-wheel desaturation, at its interval
	KindSingleEvents = "single_events" // two or three deep aperiodic events that fold together at some period
	KindSpotDips     = "spot_dips"     // dips from a spot group at the rotation period, varying in depth
	KindHarmonic     = "harmonic"      // non-sinusoidal variability whose peaked minima survive detrending
	KindGapRamps     = "gap_ramps"     // strong thermal ramps after every downlink and roll
	KindRollingBand  = "rolling_band"  // periodic rolling-band dips inside flagged rolling-band episodes
)

// faPlan is what of a false alarm must be known before the noise exists: its kind and, for the rolling-band
// kind (which the calendar flags), its period, phase, width and episodes.
type faPlan struct {
	kind      string
	period    float64
	t0        float64
	widthDays float64
	bands     []interval
}

// planFalseAlarm chooses the kind of false alarm of a false-alarm-population star by the knobs' weights
// (stream "fa-plan"); other stars get the zero plan. The calendar calls it too, to flag rolling-band episodes.
func planFalseAlarm(spec Spec, k *Knobs) faPlan {
	if spec.Population != data.PopulationFalseAlarm || len(k.FalseAlarm.Kinds) == 0 {
		return faPlan{}
	}
	r := stream(spec.Seed, "fa-plan")
	total := 0.0
	for _, kw := range k.FalseAlarm.Kinds {
		total += kw.Weight
	}
	u := r.Float64() * total
	p := faPlan{kind: k.FalseAlarm.Kinds[len(k.FalseAlarm.Kinds)-1].Kind}
	for _, kw := range k.FalseAlarm.Kinds {
		if u < kw.Weight {
			p.kind = kw.Kind
			break
		}
		u -= kw.Weight
	}
	if p.kind == KindRollingBand {
		// Periodic dips inside a few long episodes somewhere in the year.
		fk := &k.FalseAlarm
		p.period = uniform(r, fk.RollingBandPeriodDays.Lo, fk.RollingBandPeriodDays.Hi)
		p.widthDays = uniform(r, fk.RollingBandDipDays.Lo, fk.RollingBandDipDays.Hi)
		start := k.Calendar.StartBKJD.Lo
		p.t0 = start + p.period*r.Float64()
		for range int(uniform(r, fk.RollingBandEpisodes.Lo, fk.RollingBandEpisodes.Hi+1)) {
			s := uniform(r, start, start+300)
			p.bands = append(p.bands, interval{s, s + uniform(r, fk.RollingBandEpisodeDays.Lo, fk.RollingBandEpisodeDays.Hi)})
		}
	}
	return p
}

// plantFalseAlarm returns the star's noise flux with its false alarm added (stream "fa-signal") and records
// the false alarm in ans. The signal's size is set by a drawn MES: a box search folding at the recorded
// period sees a mean depth δ̄·n_events/N_epochs over N_epochs epochs with data, so the events first get
// δ̄ = MES·σ_D(w)·√N_epochs / n_events, σ_D measured on the detrended noise; then the whole signal is scaled
// until the MES measured after detrending (boxMES) is within 20 % of the drawn one. It also returns the meter of
// the returned flux when it has measured one (nil otherwise).
func plantFalseAlarm(spec Spec, k *Knobs, cal *calendar, nz *starNoise, fa faPlan, ans *data.Answer) ([]float64, *meter) {
	r := stream(spec.Seed, "fa-signal")
	fk := &k.FalseAlarm
	p := &planter{
		r: r, fk: fk, cal: cal, fa: fa,
		f: make([]float64, len(nz.flux)), // the false signal alone, added to the noise at the end
		m: newMeter(cal, nz.flux, k),
	}
	p.target = uniform(r, fk.MES.Lo, fk.MES.Hi)
	p.lo, p.hi = 1-fk.EventScatter, 1+fk.EventScatter // event-to-event depth scatter
	rec := &data.FalseAlarm{Kind: fa.kind}
	var box float64 // the box width a search would fit to the signal, days
	if plant, ok := planters[fa.kind]; ok {
		rec.PeriodDays, rec.T0Days, box = plant(p)
	}
	ans.FalseAlarm = rec
	return p.rescale(k, nz.flux, rec.PeriodDays, rec.T0Days, box)
}

// planters are the planting methods of the false-alarm kinds.
var planters = map[string]func(*planter) (period, t0, box float64){
	KindDesatGlitch:  (*planter).desatGlitch,
	KindSingleEvents: (*planter).singleEvents,
	KindSpotDips:     (*planter).spotDips,
	KindHarmonic:     (*planter).harmonic,
	KindGapRamps:     (*planter).gapRamps,
	KindRollingBand:  (*planter).rollingBand,
}

// planter plants one false signal: each kind's method adds it to f from the stream r and returns the period,
// epoch and box width a search would fit to it.
type planter struct {
	r      *rand.Rand
	fk     *FalseAlarmKnobs
	cal    *calendar
	fa     faPlan
	f      []float64 // the false signal alone
	m      *meter    // the meter of the noise alone
	target float64   // the MES drawn for the signal
	lo, hi float64   // the range of each event's depth relative to the mean
}

// depthFor returns the mean event depth that gives the target MES for events of width w.
func (p *planter) depthFor(period, t0, w float64, nEvents int) float64 {
	n := p.m.transits(period, t0, w)
	if nEvents <= 0 || n == 0 {
		return 0
	}
	return p.target * p.m.sigmaD(w) * math.Sqrt(float64(n)) / float64(nEvents)
}

// epoch draws the time of a first event uniformly within the first period of data.
func (p *planter) epoch(period float64) float64 { return p.m.t[0] + period*p.r.Float64() }

// events draws a train of events from p.r, in this order: its period with draw from periods, the width of its
// events uniformly from widths, and its first epoch.
func (p *planter) events(draw func(r *rand.Rand, lo, hi float64) float64, periods, widths Range) (period, w, t0 float64) {
	period = draw(p.r, periods.Lo, periods.Hi)
	w = uniform(p.r, widths.Lo, widths.Hi)
	return period, w, p.epoch(period)
}

// desatGlitch plants a dip over w just after each desaturation's flagged cadence.
func (p *planter) desatGlitch() (period, t0, box float64) {
	r, fk, cal, t := p.r, p.fk, p.cal, p.cal.time
	w := math.Floor(uniform(r, fk.DesatGlitchCadences.Lo, fk.DesatGlitchCadences.Hi)) * lc.CadenceDays
	off := lc.CadenceDays / 2
	period, t0 = cal.desatPeriod, cal.desat[0]+off+w/2
	n := p.m.transits(period, t0, w)
	a := p.depthFor(period, t0, w, n)
	for _, td := range cal.desat {
		addBox(t, p.f, td+off, td+off+w, -a*uniform(r, p.lo, p.hi))
	}
	return period, t0, w
}

// singleEvents plants three deep, sharp-edged events (SPSD residuals, spacecraft events) on three epochs of a
// long period; the other epochs with data, if any, have no event.
func (p *planter) singleEvents() (period, t0, box float64) {
	r, m, t := p.r, p.m, p.cal.time
	period, w, t0 := p.events(logUniform, p.fk.SingleEventPeriodDays, p.fk.SingleEventDays)
	var epochs []float64
	for e := 0; t0+float64(e)*period < m.t[len(m.t)-1]; e++ {
		if mid := t0 + float64(e)*period; hasData(m.t, mid, w/2) {
			epochs = append(epochs, mid)
		}
	}
	r.Shuffle(len(epochs), func(i, j int) { epochs[i], epochs[j] = epochs[j], epochs[i] })
	chosen := epochs[:min(3, len(epochs))]
	a := p.depthFor(period, t0, w, len(chosen)) * 2 // the triangular profile's mean is half its depth
	for _, mid := range chosen {
		addRecoveringDip(t, p.f, mid-w/2, w, a*uniform(r, p.lo, p.hi))
	}
	return period, t0, w
}

// spotDips plants a spot group crossing the visible disk: a Gaussian dip (FWHM w) each rotation, its depth
// evolving.
func (p *planter) spotDips() (period, t0, box float64) {
	r, fk, m, t := p.r, p.fk, p.m, p.cal.time
	period, w, t0 := p.events(uniform, fk.SpotDipPeriodDays, fk.SpotDipDays)
	a := p.depthFor(period, t0, w, m.transits(period, t0, w)) / gaussMean
	life := uniform(r, fk.SpotDipLifetimeRots.Lo, fk.SpotDipLifetimeRots.Hi) * period
	depth := 1.0
	for e := 0; t0+float64(e)*period < t[len(t)-1]+period; e++ {
		depth = math.Exp(-period/life)*depth + math.Sqrt(1-math.Exp(-2*period/life))*0.4*r.NormFloat64()
		addGaussDip(t, p.f, t0+float64(e)*period, w, a*math.Max(0.2, 1+depth))
	}
	return period, t0, w
}

// harmonic plants −A·(cos 2πφ + 0.6 cos 4πφ + 0.3 cos 6πφ)/1.9: peaked minima at φ = 0 with a broad, shallow
// maximum.
func (p *planter) harmonic() (period, t0, box float64) {
	r, fk, m, t, f := p.r, p.fk, p.m, p.cal.time, p.f
	period = uniform(r, fk.HarmonicPeriodDays.Lo, fk.HarmonicPeriodDays.Hi)
	t0 = p.epoch(period)
	w := 0.2 * period
	// The normalised profile's mean over |φ| < 0.1 is Σ c_h sin(0.2πh)/(0.2πh) / 1.9 ≈ 0.81 of its minimum.
	a := p.depthFor(period, t0, w, m.transits(period, t0, w)) / 0.811
	for i, ti := range t {
		ph := 2 * math.Pi * (ti - t0) / period
		f[i] -= a * (math.Cos(ph) + 0.6*math.Cos(2*ph) + 0.3*math.Cos(3*ph)) / 1.9
	}
	return period, t0, w
}

// gapRamps plants downward thermal ramps after every monthly downlink, A·e^(−(t−t_r)/τ) from the time t_r data
// resume (the downlinks are periodic; the rolls' longer, more variable gaps are left out).
func (p *planter) gapRamps() (period, t0, box float64) {
	r, fk, cal, t := p.r, p.fk, p.cal, p.cal.time
	tau := uniform(r, fk.GapRampTauDays.Lo, fk.GapRampTauDays.Hi)
	w := 2 * tau
	period, t0 = cal.month, cal.monthly[0]+tau
	// A ramp's mean over its first 2τ is A(1 − e^(−2))/2 ≈ 0.43 A.
	a := p.depthFor(period, t0, w, len(cal.monthly)) / 0.43
	for _, tr := range cal.monthly {
		addRamp(t, p.f, tr, -a*uniform(r, p.lo, p.hi), tau)
	}
	return period, t0, w
}

// rollingBand plants box dips at the planned period inside the planned rolling-band episodes.
func (p *planter) rollingBand() (period, t0, box float64) {
	fa, t := p.fa, p.cal.time
	n := 0
	for _, b := range fa.bands {
		for e := math.Ceil((b.Start - fa.t0) / fa.period); fa.t0+e*fa.period < b.End; e++ {
			if hasData(p.m.t, fa.t0+e*fa.period, fa.widthDays/2) {
				n++
			}
		}
	}
	a := p.depthFor(fa.period, fa.t0, fa.widthDays, n)
	for _, b := range fa.bands {
		for e := math.Ceil((b.Start - fa.t0) / fa.period); fa.t0+e*fa.period < b.End; e++ {
			mid := fa.t0 + e*fa.period
			addBox(t, p.f, mid-fa.widthDays/2, mid+fa.widthDays/2, -a*uniform(p.r, p.lo, p.hi))
		}
	}
	return fa.period, fa.t0, fa.widthDays
}

// rescale adds the planted signal to the noise flux. Detrending eats part of some signals (ramps, broad dips),
// and its clipping stops eating them once they stand out: measure the MES a box search sees on the detrended
// light curve (boxMES) and rescale the signal by target/seen until it is within 20 % of the target (at most
// three rounds, each step at most × 3), but never up by more than MaxRescale in all: what this meter's biweight
// eats (ramps at gap edges), a search with another detrending may see in full, so the planted depth stays the
// anchor. It returns the light curve and the meter of it (nil after the last round).
func (p *planter) rescale(k *Knobs, flux []float64, period, t0, box float64) ([]float64, *meter) {
	f, target := p.f, p.target
	out := make([]float64, len(f))
	scale := 1.0
	for round := 0; ; round++ {
		for i := range f {
			out[i] = flux[i] + scale*f[i]
		}
		if round == 3 {
			return out, nil
		}
		with := newMeter(p.cal, out, k)
		seen := p.m.boxMES(with, period, t0, box)
		if !(seen > 0) || math.Abs(seen/target-1) < 0.2 {
			return out, with
		}
		next := math.Min(scale*clamp(target/seen, 1.0/3, 3), math.Max(1, p.fk.MaxRescale))
		if next == scale {
			return out, with // already scaled up as far as MaxRescale allows
		}
		scale = next
	}
}

// gaussMean is the mean of a unit Gaussian dip over its FWHM: erf(√(ln 2))·√π/(2√(ln 2)) ≈ 0.8.
var gaussMean = math.Erf(math.Sqrt(math.Ln2)) * math.Sqrt(math.Pi) / (2 * math.Sqrt(math.Ln2))

// hasData reports whether a valid time lies within ±half of mid.
func hasData(t []float64, mid, half float64) bool {
	i := sort.SearchFloat64s(t, mid-half)
	return i < len(t) && t[i] <= mid+half
}

// addBox adds a to f on [lo, hi).
func addBox(t, f []float64, lo, hi, a float64) {
	for i := sort.SearchFloat64s(t, lo); i < len(t) && t[i] < hi; i++ {
		f[i] += a
	}
}

// addRecoveringDip subtracts a·(1 − (t−start)/w) on [start, start+w): a sudden drop and a linear recovery.
func addRecoveringDip(t, f []float64, start, w, a float64) {
	for i := sort.SearchFloat64s(t, start); i < len(t) && t[i] < start+w; i++ {
		f[i] -= a * (1 - (t[i]-start)/w)
	}
}

// addGaussDip subtracts a·exp(−4 ln 2 (t−mid)²/w²), a Gaussian of FWHM w, within ±2w of mid.
func addGaussDip(t, f []float64, mid, w, a float64) {
	for i := sort.SearchFloat64s(t, mid-2*w); i < len(t) && t[i] < mid+2*w; i++ {
		x := (t[i] - mid) / w
		f[i] -= a * math.Exp(-4*math.Ln2*x*x)
	}
}

// boxMES returns the MES of a box of width box at (period, t0) that the signal added to m's flux has on
// with's (the same cadences, detrended with the signal): the mean of m.flat − with.flat over the cadences within
// box/2 of a mid-time, over σ_D(box) of m, times √N with N the epochs with data.
func (m *meter) boxMES(with *meter, period, t0, box float64) float64 {
	if len(with.t) != len(m.t) || !(period > 0) || !(box > 0) {
		return 0
	}
	sum, n := 0.0, 0
	for i, ti := range m.t {
		dt := ti - t0
		dt -= period * math.Floor(dt/period+0.5)
		if math.Abs(dt) <= box/2 {
			sum += m.flat[i] - with.flat[i]
			n++
		}
	}
	epochs := m.transits(period, t0, box)
	if n == 0 || epochs == 0 {
		return 0
	}
	return sum / float64(n) / m.sigmaD(box) * math.Sqrt(float64(epochs))
}
