package vet

import (
	"math"
	"math/rand/v2"
	"testing"

	"transitbench/engine/transit"
)

const cadence = 29.4244 / 1440 // Kepler long cadence, days

// year returns a Kepler-like year of valid cadence times (17.6 k, starting at BKJD 131.5, with a 1-d gap every
// 30 d) and white noise of per-cadence σ around 1.
func year(sigma float64, seed uint64) (t, f []float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	for i := 0; len(t) < 17600; i++ {
		ti := 131.5 + float64(i)*cadence
		if math.Mod(ti-131.5, 30) > 29 {
			continue
		}
		t = append(t, ti)
		f = append(f, 1+sigma*rng.NormFloat64())
	}
	return t, f
}

// inject multiplies f by the model flux of p.
func inject(t, f []float64, p transit.Params) {
	m := make([]float64, len(t))
	p.Flux(m, t)
	for i := range f {
		f[i] *= m[i]
	}
}

var sun = &Star{RadiusRsun: 1, MassMsun: 1}

// planet is a 2.7 R⊕ planet (k = 0.025) on a 5.3-d orbit around the Sun, b = 0.3 (depth ≈ 750 ppm, T14 ≈ 3 h):
// with 150 ppm per cadence its MES is ≈ 50.
func planet() transit.Params {
	p := transit.Params{PeriodDays: 5.3, T0Days: 133.3, RpRs: 0.025, ARs: transit.ARs(5.3, 1, 1), B: 0.3}
	p.U1, p.U2 = transit.LimbDarkening(5772, 4.44)
	return p
}

func TestPlanetLooksLikeAPlanet(t *testing.T) {
	times, flux := year(150e-6, 1)
	p := planet()
	inject(times, flux, p)
	f := Compute(times, flux, p.PeriodDays, p.T0Days, p.DurationDays(), sun)
	t.Logf("%+v", f)
	if f.MES < 30 || f.DepthSNR < 30 {
		t.Errorf("MES %.1f, depth SNR %.1f: the planet should be detected strongly", f.MES, f.DepthSNR)
	}
	// The box depth over T14 is below the limb-darkened centre depth: between half and all of it.
	if d := p.Depth(); f.Depth < 0.5*d || f.Depth > d {
		t.Errorf("depth %.0f ppm, model's deepest point %.0f ppm", f.Depth*1e6, d*1e6)
	}
	if f.NTransits < 60 || f.NTransits > 70 {
		t.Errorf("%d transits with data, want ≈ 66 (a year at 5.3 d, some in gaps)", f.NTransits)
	}
	// No secondary, no odd/even difference: noise-level values (the secondary is the best of ≈ 170 trials,
	// so its significance reaches ≈ 3 by chance).
	if f.OddEvenSigma > 3 || f.SecondaryMES > 5 {
		t.Errorf("odd/even %.1fσ, secondary MES %.1f: want noise-level values", f.OddEvenSigma, f.SecondaryMES)
	}
	// Ingress fraction of this transit: T12/(T14/2) ≈ 2k/(1+k)/(1−b²) ≈ 0.05; limb darkening rounds the bottom,
	// so the trapezoid takes a somewhat longer ingress.
	if f.VShape > 0.4 || f.VShapeSigma > -5 {
		t.Errorf("V-shape %.2f (%.1fσ): a small planet's transit is box-like, and at MES ≈ 85 clearly so", f.VShape, f.VShapeSigma)
	}
	if f.SingleEventFraction > 0.1 {
		t.Errorf("single-event fraction %.2f: 66 equal transits should give ≈ 1/66", f.SingleEventFraction)
	}
	// Steady transits: χ² ≈ 1; the gaps (one per 30 d, 1 d of settling) catch ≈ 1/30 of them.
	if f.EventChi2 > 2 || f.GapEdgeFraction > 0.15 {
		t.Errorf("event χ² %.2f, gap-edge fraction %.2f: want ≈ 1 and ≈ 0.03", f.EventChi2, f.GapEdgeFraction)
	}
	if f.EllipsoidalSNR > 5 || f.ReflectionSNR > 5 {
		t.Errorf("ellipsoidal SNR %.1f, reflection SNR %.1f: a planet shows none", f.EllipsoidalSNR, f.ReflectionSNR)
	}
	// T14 of a b = 0.3 transit is √(1−b²) ≈ 0.95 of the central one.
	if f.DurationRatio < 0.85 || f.DurationRatio > 1.05 {
		t.Errorf("duration ratio %.2f, want ≈ 0.95", f.DurationRatio)
	}
	// A search's duration grid is coarse: given 1.8 × T14, the trapezoid still finds the transit's own duration.
	if g := Compute(times, flux, p.PeriodDays, p.T0Days, 1.8*p.DurationDays(), sun); math.Abs(g.TrapezoidDurationDays/p.DurationDays()-1) > 0.15 {
		t.Errorf("trapezoid T14 %.3f d from a 1.8× duration guess, model T14 %.3f d", g.TrapezoidDurationDays, p.DurationDays())
	}
	if math.Abs(f.RpRs/p.RpRs-1) > 0.2 {
		t.Errorf("Rp/R★ from the depth %.4f, injected %.4f", f.RpRs, p.RpRs)
	}
}

func TestSecondaryEclipse(t *testing.T) {
	times, flux := year(150e-6, 2)
	p := planet()
	inject(times, flux, p)
	// A secondary eclipse at phase 0.5 with 40 % of the primary's depth: a uniform dark disk passing behind.
	s := transit.Params{PeriodDays: p.PeriodDays, T0Days: p.T0Days + p.PeriodDays/2, RpRs: 0.016, ARs: p.ARs, B: p.B}
	inject(times, flux, s)
	f := Compute(times, flux, p.PeriodDays, p.T0Days, p.DurationDays(), sun)
	if f.SecondaryMES < 10 {
		t.Errorf("secondary MES %.1f, want a clear detection", f.SecondaryMES)
	}
	if math.Abs(f.SecondaryPhase-0.5) > 0.01 {
		t.Errorf("secondary phase %.3f, want 0.5", f.SecondaryPhase)
	}
	if want := s.Depth(); f.SecondaryDepth < 0.5*want || f.SecondaryDepth > 1.1*want {
		t.Errorf("secondary depth %.0f ppm, planted %.0f ppm", f.SecondaryDepth*1e6, want*1e6)
	}
}

func TestEccentricSecondary(t *testing.T) {
	// An eclipsing binary on an eccentric orbit, drawn with the engine's binary model and its secondary moved
	// to phase 0.37 (Villanova's "sep" ≠ 0.5): the scan finds it where it is.
	times, flux := year(150e-6, 16)
	b := transit.Binary{PeriodDays: 4.1, T0Days: 132.9, K: 0.5, ARs: 9, B: 0.2, LightRatio: 0.1, ThirdLight: 0.97,
		U1: 0.4, U2: 0.26, U1b: 0.6, U2b: 0.1}
	prim := make([]float64, len(times))
	b.Flux(prim, times)
	sec := make([]float64, len(times))
	shifted := make([]float64, len(times))
	for i, ti := range times {
		shifted[i] = ti - (0.37-0.5)*b.PeriodDays // the binary's secondary, moved from phase 0.5 to 0.37
	}
	b.Flux(sec, shifted)
	for i, ti := range times {
		dt := math.Remainder(ti-b.T0Days, b.PeriodDays)
		if math.Abs(dt) < 0.2*b.PeriodDays {
			flux[i] *= prim[i] // primary eclipse from the unshifted curve
		} else {
			flux[i] *= sec[i] // secondary eclipse from the shifted one
		}
	}
	f := Compute(times, flux, b.PeriodDays, b.T0Days, transit.DurationT14(b.PeriodDays, b.ARs, b.K, b.B), nil)
	if f.SecondaryMES < 10 || math.Abs(f.SecondaryPhase-0.37) > 0.01 {
		t.Errorf("secondary MES %.1f at phase %.3f, want a detection at 0.37", f.SecondaryMES, f.SecondaryPhase)
	}
	t.Logf("primary %.0f ppm, secondary %.0f ppm (MES %.1f) at phase %.3f", f.Depth*1e6, f.SecondaryDepth*1e6, f.SecondaryMES, f.SecondaryPhase)
}

func TestOddEven(t *testing.T) {
	times, flux := year(150e-6, 3)
	p := planet()
	// A binary at twice the period whose two eclipses differ: 750 and 450 ppm deep, folded at P.
	a, b := p, p
	a.PeriodDays, b.PeriodDays = 2*p.PeriodDays, 2*p.PeriodDays
	b.T0Days = p.T0Days + p.PeriodDays
	b.RpRs = 0.019
	inject(times, flux, a)
	inject(times, flux, b)
	f := Compute(times, flux, p.PeriodDays, p.T0Days, p.DurationDays(), sun)
	if f.OddEvenSigma < 5 {
		t.Errorf("odd/even %.1fσ (odd %.0f, even %.0f ppm): want ≥ 5σ", f.OddEvenSigma, f.OddDepth*1e6, f.EvenDepth*1e6)
	}
	if f.EvenDepth <= f.OddDepth {
		t.Errorf("even epochs (k = 0, 2, …) hold the deeper eclipse: even %.0f, odd %.0f ppm", f.EvenDepth*1e6, f.OddDepth*1e6)
	}
}

func TestVShape(t *testing.T) {
	times, flux := year(150e-6, 4)
	// A grazing eclipse: a disk of 0.3 R★ at impact parameter 1.15 covers only the limb (V-shaped, ≈ 0.4 % deep).
	p := transit.Params{PeriodDays: 3.1, T0Days: 132.4, RpRs: 0.3, ARs: 8, B: 1.15, U1: 0.4, U2: 0.26}
	inject(times, flux, p)
	f := Compute(times, flux, p.PeriodDays, p.T0Days, p.DurationDays(), sun)
	// A grazing eclipse's sides are curved (the chord of the covered limb), so the best trapezoid is a
	// near-V (measured: 0.78) rather than exactly 1; the planet above fits ≈ 0.3.
	if f.VShape < 0.7 || f.VShapeSigma < 5 {
		t.Errorf("V-shape %.2f (%.1fσ) for a grazing eclipse, want ≥ 0.7 and a clear preference", f.VShape, f.VShapeSigma)
	}
	if math.Abs(f.TrapezoidDurationDays/p.DurationDays()-1) > 0.2 {
		t.Errorf("trapezoid duration %.3f d, model T14 %.3f d", f.TrapezoidDurationDays, p.DurationDays())
	}
}

func TestSingleEventDominates(t *testing.T) {
	times, flux := year(150e-6, 5)
	// One 2,000-ppm, 4-h dip (a single deep event) and nothing else, folded at an arbitrary 6.1 d.
	const tEvent, dur = 245.1, 4.0 / 24
	for i, ti := range times {
		if math.Abs(ti-tEvent) < dur/2 {
			flux[i] -= 2000e-6
		}
	}
	f := Compute(times, flux, 6.1, tEvent, dur, sun)
	if f.SingleEventFraction < 0.8 {
		t.Errorf("single-event fraction %.2f, want ≥ 0.8", f.SingleEventFraction)
	}
	if f.MaxSingleEventSNR < 10 {
		t.Errorf("the event's SNR %.1f, want ≥ 10", f.MaxSingleEventSNR)
	}
}

func TestDurationTooLongForTheStar(t *testing.T) {
	times, flux := year(150e-6, 6)
	// A 12-h eclipse at 5.3 d: three times what a central transit of the Sun lasts at that period (≈ 3.1 h
	// scaled by 1 + k), as from a giant host or a binary.
	p := planet()
	p.ARs /= 4
	inject(times, flux, p)
	f := Compute(times, flux, p.PeriodDays, p.T0Days, p.DurationDays(), sun)
	if f.DurationRatio < 2.5 {
		t.Errorf("duration ratio %.2f for a 12-h eclipse at 5.3 d around the Sun, want ≥ 2.5", f.DurationRatio)
	}
	if g := Compute(times, flux, p.PeriodDays, p.T0Days, p.DurationDays(), nil); g.DurationRatio != 0 || g.ExpectedDurationDays != 0 {
		t.Error("without a star the duration statistics should be 0")
	}
}

func TestModulation(t *testing.T) {
	// A close binary's ellipsoidal variation, 300 ppm at half the 1.7-d period, on 150-ppm noise: ≈ 17,000
	// cadences give a coefficient error of 150·√(2/17000) ≈ 1.6 ppm, so an SNR near 190.
	times, flux := year(150e-6, 10)
	const period, t0 = 1.7, 132.05
	for i, ti := range times {
		flux[i] *= 1 - 300e-6*math.Cos(4*math.Pi*(ti-t0)/period)
	}
	m := MeasureModulation(times, flux, period, t0, 0.1)
	if m.EllipsoidalSNR < 100 || math.Abs(m.EllipsoidalAmp/300e-6-1) > 0.05 {
		t.Errorf("ellipsoidal %.0f ppm at SNR %.1f, planted 300 ppm", m.EllipsoidalAmp*1e6, m.EllipsoidalSNR)
	}
	if m.ReflectionSNR > 5 {
		t.Errorf("reflection SNR %.1f with no reflection planted", m.ReflectionSNR)
	}

	// A spotted star (0.5 % rotational modulation at 12.7 d whose phase wanders) shows no modulation at 5.3 d:
	// the noise on the P/4 time scale holds the spots, so they do not pass for a binary's signal.
	times, flux = year(150e-6, 11)
	rng := rand.New(rand.NewPCG(12, 13))
	phase := 0.0
	for i, ti := range times {
		phase += 0.02 * rng.NormFloat64()
		flux[i] *= 1 + 0.005*math.Sin(2*math.Pi*ti/12.7+phase)
	}
	m = MeasureModulation(times, flux, 5.3, 133.3, 0.13)
	if m.EllipsoidalSNR > 10 || m.ReflectionSNR > 10 {
		t.Errorf("spotted star: ellipsoidal SNR %.1f, reflection SNR %.1f; want < 10", m.EllipsoidalSNR, m.ReflectionSNR)
	}
	t.Logf("spotted star at 5.3 d: ellipsoidal %.0f ppm (SNR %.1f), reflection %.0f ppm (SNR %.1f)",
		m.EllipsoidalAmp*1e6, m.EllipsoidalSNR, m.ReflectionAmp*1e6, m.ReflectionSNR)
}

func TestUnsteadyEvents(t *testing.T) {
	times, flux := year(150e-6, 14)
	p := planet()
	// Four unrelated 1,500-ppm dips on the planet's ephemeris (epochs 3, 17, 30, 51) and nothing at the other
	// ≈ 60 epochs: a few deep events folded together.
	for _, k := range []float64{3, 17, 30, 51} {
		mid := p.T0Days + k*p.PeriodDays
		for i, ti := range times {
			if math.Abs(ti-mid) < p.DurationDays()/2 {
				flux[i] -= 1500e-6
			}
		}
	}
	f := Compute(times, flux, p.PeriodDays, p.T0Days, p.DurationDays(), sun)
	// Each dip is ≈ 1500/σ_D·… ≈ 25σ alone, the other transits ≈ 0: the χ² of the depths is ≈ 4·25²/60 ≫ 1.
	if f.EventChi2 < 10 {
		t.Errorf("event χ² %.1f for four events among 60 epochs, want ≫ 1", f.EventChi2)
	}
	if f.SingleEventFraction < 0.15 || f.SingleEventFraction > 0.4 {
		t.Errorf("single-event fraction %.2f, want ≈ 1/4", f.SingleEventFraction)
	}
}

func TestRampsAfterGaps(t *testing.T) {
	times, flux := year(150e-6, 15)
	// A thermal settling ramp after every gap: −800 ppm decaying with a 0.15-d time constant.
	var ends []float64
	for i := 1; i < len(times); i++ {
		if times[i]-times[i-1] > 0.5 {
			ends = append(ends, times[i])
		}
	}
	for _, e := range ends {
		for i, ti := range times {
			if ti >= e {
				flux[i] -= 800e-6 * math.Exp(-(ti-e)/0.15)
			}
		}
	}
	// The gaps recur every 30 d: a search at 30 d folds the ramps into a "transit".
	f := Compute(times, flux, 30, ends[0]+0.1, 0.25, sun)
	if f.GapEdgeFraction < 0.9 {
		t.Errorf("gap-edge fraction %.2f for ramps folded at the gap period, want ≈ 1", f.GapEdgeFraction)
	}
}

func TestComputeDegenerate(t *testing.T) {
	times, flux := year(150e-6, 7)
	if f := Compute(times, flux, 0, 0, 0.1, nil); f.MES != 0 || f.NTransits != 0 {
		t.Errorf("zero period: %+v", f)
	}
	nan := make([]float64, len(times))
	for i := range nan {
		nan[i] = math.NaN()
	}
	if f := Compute(times, nan, 5, 133, 0.1, nil); f.NTransits != 0 || f.Depth != 0 {
		t.Errorf("no valid flux: %+v", f)
	}
}

func BenchmarkCompute(b *testing.B) {
	times, flux := year(150e-6, 8)
	p := planet()
	inject(times, flux, p)
	d := p.DurationDays()
	for b.Loop() {
		Compute(times, flux, p.PeriodDays, p.T0Days, d, sun)
	}
}

func BenchmarkComputeLongPeriod(b *testing.B) {
	// A 90-d candidate with a 2-h duration: the secondary scan tries ≈ 4,300 phases.
	times, flux := year(150e-6, 9)
	for b.Loop() {
		Compute(times, flux, 90, 150, 2.0/24, sun)
	}
}

// TestSecondaryMustRepeat: one dip at the secondary phase (another planet's single transit, 8,000 ppm for 6 h)
// is not a secondary eclipse. Averaged into the fold's box over the year's ≈ 68 orbits it alone would read as a
// secondary of MES ≈ 8,000/68/(150/√(6·68)) ≈ 16; the orbit holding it carries nearly all of the box's SNR² and
// is left out, and the scan finds noise (MES below the 7.1 detection threshold). A 200 ppm dip repeated every
// orbit (SNR ≈ 5 per orbit, ≈ 40 over the year) is found.
func TestSecondaryMustRepeat(t *testing.T) {
	p := planet()
	single := func(depth float64, every bool) Features {
		times, flux := year(150e-6, 5)
		inject(times, flux, p)
		mid := p.T0Days + 20.5*p.PeriodDays // phase 0.5 of orbit 20
		for i, ti := range times {
			dt := math.Remainder(ti-(p.T0Days+p.PeriodDays/2), p.PeriodDays)
			if every && math.Abs(dt) < 0.125 || !every && math.Abs(ti-mid) < 0.125 {
				flux[i] -= depth
			}
		}
		return Compute(times, flux, p.PeriodDays, p.T0Days, p.DurationDays(), sun)
	}
	if f := single(8000e-6, false); f.SecondaryMES >= 7.1 {
		t.Errorf("one dip at phase 0.5: secondary MES %.1f at phase %.3f, want noise (< 7.1)", f.SecondaryMES, f.SecondaryPhase)
	}
	if f := single(200e-6, true); f.SecondaryMES < 20 || math.Abs(f.SecondaryPhase-0.5) > 0.02 {
		t.Errorf("a dip every orbit: secondary MES %.1f at phase %.3f, want ≥ 20 at 0.5", f.SecondaryMES, f.SecondaryPhase)
	}
}
