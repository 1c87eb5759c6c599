package sim

import (
	"math"

	"transitbench/data"
	"transitbench/engine/lc"
)

// Morphology classes of an eclipsing binary (Matijevič et al. 2012 morph thresholds), and "background" for a
// diluted background binary of any class.
const (
	MorphDetached     = "detached"
	MorphSemiDetached = "semi_detached"
	MorphContact      = "contact"
	MorphEllipsoidal  = "ellipsoidal"
	MorphBackground   = "background"
)

// Giveaway reasons (SPEC A4).
const (
	GiveawaySecondary   = "secondary"
	GiveawayOddEven     = "odd_even"
	GiveawayTooDeep     = "too_deep"
	GiveawayEllipsoidal = "ellipsoidal"
)

// ebModel is an eclipsing binary's light curve before dilution. Phases φ are in [−½, ½) from the primary
// eclipse. Each eclipse has the profile depth·(1 − x^s) for x = |φ − φ_e|/(w/2) < 1 (s = 1 a V, larger s flatter);
// out of eclipse the flux carries ellipsoidal −A_ell cos 4πφ and reflection −A_ref cos 2πφ modulation.
type ebModel struct {
	periodDays, t0Days float64
	pDepth, sDepth     float64 // undiluted eclipse depths
	pWidth, sWidth     float64 // full eclipse widths in phase
	sPhase             float64 // phase of the secondary eclipse (0.5 for a circular orbit)
	shape              float64 // profile exponent s
	ell, refl          float64 // ellipsoidal and reflection semi-amplitudes
	morph              float64 // Villanova morphology parameter
	dilution           float64 // share of the aperture's light that comes from the binary
}

// eclipseProfile returns 1 − x^s for x < 1, 0 beyond.
func eclipseProfile(x, s float64) float64 {
	if x >= 1 {
		return 0
	}
	return 1 - math.Pow(x, s)
}

// meanProfile is the mean of 1 − x^s over 0 ≤ x < 1: s/(s+1).
func meanProfile(s float64) float64 { return s / (s + 1) }

// fluxAt returns the diluted relative flux at time t: 1 − d·(1 − F_binary).
func (e *ebModel) fluxAt(t float64) float64 {
	ph := (t - e.t0Days) / e.periodDays
	ph -= math.Floor(ph + 0.5) // [−½, ½)
	loss := e.pDepth * eclipseProfile(math.Abs(ph)/(e.pWidth/2), e.shape)
	ds := ph - e.sPhase
	ds -= math.Floor(ds + 0.5)
	loss += e.sDepth * eclipseProfile(math.Abs(ds)/(e.sWidth/2), e.shape)
	loss += e.ell*math.Cos(4*math.Pi*ph) + e.refl*math.Cos(2*math.Pi*ph)
	return 1 - e.dilution*loss
}

// fill multiplies signal by the model averaged over each cadence's exposure (five sub-samples).
func (e *ebModel) fill(t, signal []float64) {
	const n = 5
	for i, ti := range t {
		s := 0.0
		for j := range n {
			s += e.fluxAt(ti + lc.CadenceDays*((float64(j)+0.5)/n-0.5))
		}
		signal[i] *= s / n
	}
}

// drawEB draws a binary from the Villanova copula (stream "eb"), kept when its period lies in EB.PeriodDays
// and at least two primary eclipses have data, with depths capped at 95 % and widths at 0.45 in phase; its
// morphology class; and its dilution: a background binary's light fraction sets its primary depth log-uniform
// in BackgroundDepth, a bound or foreground one keeps a share uniform in CompanionDilution.
func drawEB(spec Spec, k *Knobs, m *meter) (*ebModel, string) {
	r := stream(spec.Seed, "eb")
	ek := &k.EB
	var e ebModel
	for range 1000 {
		x := ebCopula.sample(r)
		e = ebModel{
			periodDays: math.Pow(10, x[0]),
			pDepth:     math.Min(math.Pow(10, x[1]), 0.95),
			pWidth:     math.Min(math.Pow(10, x[3]), 0.45),
			morph:      clamp(x[6], 0, 1),
		}
		e.sDepth = x[2] * e.pDepth
		e.sWidth = math.Min(x[4]*e.pWidth, 0.45)
		e.sPhase = 0.5 + x[5]
		if e.periodDays < ek.PeriodDays.Lo || e.periodDays > ek.PeriodDays.Hi {
			continue
		}
		e.t0Days = m.t[0] + e.periodDays*r.Float64()
		if m.transits(e.periodDays, e.t0Days, e.pWidth*e.periodDays) >= 2 {
			break
		}
	}
	// V shapes for close, interacting binaries, flatter bottoms for well-detached ones.
	e.shape = 1 + ek.ShapeFlatness*(1-e.morph)
	if e.morph > ek.EllipsoidalMorph {
		e.ell = ek.EllipsoidalPerMorph * (e.morph - ek.EllipsoidalMorph)
		e.refl = ek.ReflectionShare * e.ell
	}
	class := MorphDetached
	switch {
	case e.morph >= 0.8:
		class = MorphEllipsoidal
	case e.morph >= 0.7:
		class = MorphContact
	case e.morph >= 0.5:
		class = MorphSemiDetached
	}
	if r.Float64() < ek.BackgroundProb {
		class = MorphBackground
		e.dilution = math.Min(1, logUniform(r, ek.BackgroundDepth.Lo, ek.BackgroundDepth.Hi)/e.pDepth)
	} else {
		e.dilution = uniform(r, ek.CompanionDilution.Lo, ek.CompanionDilution.Hi)
	}
	return &e, class
}

// addEB adds an eclipsing binary to signal and returns its answer with the giveaways computed on the star's
// own noise (m measures the detrended, raw the undetrended planet-free flux).
func addEB(spec Spec, k *Knobs, cal *calendar, st star, m *meter, nz *starNoise, signal []float64) (*data.EB, error) {
	e, class := drawEB(spec, k, m)
	e.fill(cal.time, signal)
	raw := newRawMeter(cal, nz.flux)
	reasons := giveaways(e, &k.EB, m, raw)
	return &data.EB{
		PeriodDays:            e.periodDays,
		T0Days:                e.t0Days,
		PrimaryDepth:          e.dilution * e.pDepth,
		SecondaryDepth:        e.dilution * e.sDepth,
		PrimaryDurationDays:   e.pWidth * e.periodDays,
		SecondaryDurationDays: e.sWidth * e.periodDays,
		SecondaryPhase:        e.sPhase,
		Morphology:            class,
		Counted:               len(reasons) > 0,
		Giveaway:              reasons,
	}, nil
}

// giveaways returns the reasons a year of data gives the binary away (SPEC A4), in the fixed order secondary,
// odd_even, too_deep, ellipsoidal:
//   - secondary: MES of the secondary eclipse, δ̄_s/σ_D(T_s)·√N_s with δ̄_s = d·D_s·s/(s+1) its mean depth,
//     at or above SecondaryMES;
//   - odd_even: when the secondary sits at half phase (|φ_s − ½| < w_p/2) and is at least OddEvenFoldRatio of the
//     primary, a search folds at P/2 and its odd and even events are the primary and the secondary; their mean
//     depths differ by |δ̄_p − δ̄_s| / √(σ_p² + σ_s²) ≥ OddEvenSigma, σ = σ_D(T)/√N;
//   - too_deep: the diluted primary depth implies Rp/R★ = √depth > TooDeepRpRs;
//   - ellipsoidal: the diluted ellipsoidal (period P/2) or reflection (period P) semi-amplitude A has
//     SNR = A·√(M/2)/σ_raw(L) ≥ EllipsoidalSNR, where L is a quarter of the modulation's period, M the number
//     of windows L in the valid data, and σ_raw(L) the scatter of the undetrended flux's means over windows L
//     (a sinusoid fitted to M window means has amplitude error σ·√(2/M)).
func giveaways(e *ebModel, ek *EBKnobs, m, raw *meter) []string {
	var out []string
	d := e.dilution
	pDur, sDur := e.pWidth*e.periodDays, e.sWidth*e.periodDays
	np := m.transits(e.periodDays, e.t0Days, pDur)
	ts := e.t0Days + (e.sPhase)*e.periodDays
	ns := m.transits(e.periodDays, ts, sDur)
	meanP := d * e.pDepth * meanProfile(e.shape)
	meanS := d * e.sDepth * meanProfile(e.shape)
	if ns > 0 && meanS > 0 {
		if meanS/m.sigmaD(sDur)*math.Sqrt(float64(ns)) >= ek.SecondaryMES {
			out = append(out, GiveawaySecondary)
		}
	}
	if math.Abs(e.sPhase-0.5) < e.pWidth/2 && e.sDepth >= ek.OddEvenFoldRatio*e.pDepth && np > 0 && ns > 0 {
		sp := m.sigmaD(pDur) / math.Sqrt(float64(np))
		ss := m.sigmaD(sDur) / math.Sqrt(float64(ns))
		if math.Abs(meanP-meanS)/math.Hypot(sp, ss) >= ek.OddEvenSigma {
			out = append(out, GiveawayOddEven)
		}
	}
	if math.Sqrt(d*e.pDepth) > ek.TooDeepRpRs {
		out = append(out, GiveawayTooDeep)
	}
	if snr := math.Max(modulationSNR(raw, d*e.ell, e.periodDays/2), modulationSNR(raw, d*e.refl, e.periodDays)); snr >= ek.EllipsoidalSNR {
		out = append(out, GiveawayEllipsoidal)
	}
	return out
}

// modulationSNR is the SNR of a sinusoid of semi-amplitude a and period p on the raw flux (see giveaways).
func modulationSNR(raw *meter, a, p float64) float64 {
	if a <= 0 || len(raw.t) == 0 {
		return 0
	}
	l := p / 4
	s := raw.sigmaD(l)
	if !(s > 0) {
		return 0
	}
	mWindows := float64(len(raw.t)) * lc.CadenceDays / l
	return a * math.Sqrt(mWindows/2) / s
}
