package pipeline

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"transitbench/engine/bls"
	"transitbench/engine/lc"
	"transitbench/engine/vet"
)

// synth makes a Kepler-like light curve: spanDays of 29.4-min cadences from t = 170 d (BKJD), a 1-d gap every
// 30 d (the monthly downlink), white noise of sigma, and the cadences within 0.01 d of every desatEvery days
// flagged as reaction-wheel desaturations (flux NaN, as Kepler writes them). signal adds to the relative flux.
func synth(spanDays, sigma, desatEvery float64, seed uint64, signal func(t float64) float64) *lc.LightCurve {
	r := rand.New(rand.NewPCG(seed, 2))
	c := &lc.LightCurve{}
	for t := 170.0; t < 170+spanDays; t += lc.CadenceDays {
		if math.Mod(t-170, 30) > 29 {
			continue // downlink gap
		}
		q := int32(0)
		f := 1 + sigma*r.NormFloat64() + signal(t)
		if desatEvery > 0 && math.Abs(t-170-desatEvery*math.Round((t-170)/desatEvery)) < 0.011 {
			q, f = lc.QDesaturation, math.NaN()
		}
		c.Time = append(c.Time, t)
		c.Flux = append(c.Flux, f)
		c.FluxErr = append(c.FluxErr, sigma)
		c.Quality = append(c.Quality, q)
	}
	return c
}

// box returns a periodic box dip of depth and duration (days) at t0 + kP.
func box(period, t0, duration, depth float64) func(float64) float64 {
	return func(t float64) float64 {
		x := math.Mod(t-t0, period)
		if x < 0 {
			x += period
		}
		if x < duration/2 || x > period-duration/2 {
			return -depth
		}
		return 0
	}
}

var sun = Star{RadiusRsun: 1, MassMsun: 1}

// TestNaiveFindsABoxAndIgnoresNoise: a 1,000 ppm, 3-h box every 3.7 d in 200 ppm white noise over 90 d has an
// SNR of depth/σ·√(cadences in transit) = 5·√(24 transits × 6 cadences) ≈ 60, far above 8; pure white noise over
// ~10⁶ trials (periods × durations × phases) peaks near SNR 5–6, below 8.
func TestNaiveFindsABoxAndIgnoresNoise(t *testing.T) {
	const period, t0, dur = 3.7, 171.3, 0.125
	rows, err := Naive(synth(90, 2e-4, 3, 1, box(period, t0, dur, 1e-3)), sun)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("naive gave %d rows, want 1", len(rows))
	}
	r := rows[0]
	if math.Abs(r.PeriodDays/period-1) > 1e-3 {
		t.Errorf("period %.5f, want %.5f", r.PeriodDays, period)
	}
	// The row's mid-time lands on a true mid-time within half a duration.
	k := math.Round((r.T0Days - t0) / period)
	if d := math.Abs(r.T0Days - t0 - k*period); d > dur/2 {
		t.Errorf("t0 %.4f is %.3f d from the nearest true mid-time", r.T0Days, d)
	}
	if r.Score < 30 {
		t.Errorf("score (SNR) %.1f, want ≈ 60", r.Score)
	}
	noise, err := Naive(synth(90, 2e-4, 3, 2, func(float64) float64 { return 0 }), sun)
	if err != nil {
		t.Fatal(err)
	}
	if len(noise) != 0 {
		t.Errorf("white noise gave rows %+v", noise)
	}
}

func TestPrepareDropsDesaturationsAndFindsTheirTimes(t *testing.T) {
	c := synth(60, 1e-4, 3, 3, func(float64) float64 { return 0 })
	l, err := Prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	// Desaturations every 3 d over 60 d, minus those in the downlink gaps (day 29–30 and 59–60 of each month:
	// t − 170 = 30 hits one): 21 events at 0, 3, …, 60 minus 30 and 60 → 19.
	if len(l.DesatTimes) != 19 {
		t.Errorf("%d desaturation events, want 19: %v", len(l.DesatTimes), l.DesatTimes)
	}
	if got := desatInterval(l.DesatTimes); math.Abs(got-3) > 0.05 {
		t.Errorf("desaturation interval %.3f d, want 3", got)
	}
	for i, x := range l.Flat {
		if math.IsNaN(x) || math.IsNaN(l.Flux[i]) {
			t.Fatalf("cadence %d at %.3f kept with NaN flux", i, l.T[i])
		}
	}
	if _, err := Prepare(&lc.LightCurve{Time: []float64{1, 2}, Flux: []float64{1, 1}, FluxErr: []float64{1, 1}, Quality: []int32{0, 0}}); err != ErrTooFewCadences {
		t.Errorf("two cadences: %v, want ErrTooFewCadences", err)
	}
}

func TestRatioCloseness(t *testing.T) {
	cases := []struct{ p, ref, want float64 }{
		{6, 3, 0},                    // 2×
		{4.5, 3, 0},                  // 3/2
		{0.75, 3, 0},                 // 1/4
		{3.15, 3, math.Log(1.05)},    // 5 % off the interval itself
		{37, 3, math.Log(37.0 / 12)}, // beyond 4× the nearest ratio is 4/1
		{1, math.NaN(), math.NaN()},  // unknown reference
	}
	for _, c := range cases {
		got := ratioCloseness(c.p, c.ref)
		if math.IsNaN(c.want) != math.IsNaN(got) || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ratioCloseness(%g, %g) = %g, want %g", c.p, c.ref, got, c.want)
		}
	}
}

// TestVariabilityOfASpottedStar: a 1 % sinusoid of period 7.3 d in 300 ppm noise is found within 1 % (the
// periodogram peak's width is ~P²/span = 0.3 d at 180 d, sampled 5 times), explains nearly all the variance,
// and its binned standard deviation is the sinusoid's, 1 %/√2.
func TestVariabilityOfASpottedStar(t *testing.T) {
	l, err := Prepare(synth(180, 3e-4, 3, 4, func(t float64) float64 { return 0.01 * math.Sin(2*math.Pi*t/7.3) }))
	if err != nil {
		t.Fatal(err)
	}
	v := MeasureVariability(l)
	if math.Abs(v.PeriodDays/7.3-1) > 0.01 {
		t.Errorf("variability period %.3f d, want 7.3", v.PeriodDays)
	}
	if v.Power < 0.9 {
		t.Errorf("power %.3f, want > 0.9", v.Power)
	}
	if math.Abs(v.AmpFrac/(0.01/math.Sqrt2)-1) > 0.1 {
		t.Errorf("amplitude %.4f, want %.4f", v.AmpFrac, 0.01/math.Sqrt2)
	}
}

// features computes the Features of a candidate at the given ephemeris on c.
func features(t *testing.T, c *lc.LightCurve, period, t0, dur float64) map[string]float64 {
	t.Helper()
	l, err := Prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	p := bls.Peak{PeriodDays: period, T0Days: t0, DurationDays: dur, Depth: 1e-3, SNR: 20}
	f := Compute(l, sun, p, Context{TopSNR: 20, Variability: MeasureVariability(l)})
	v := f.Vector()
	if len(v) != len(FeatureNames) {
		t.Fatalf("vector of %d values for %d names", len(v), len(FeatureNames))
	}
	m := map[string]float64{}
	for i, x := range v {
		if math.IsInf(x, 0) {
			t.Errorf("feature %s is infinite", FeatureNames[i])
		}
		m[FeatureNames[i]] = x
	}
	return m
}

// TestFeaturesSeparatePlanetBinaryAndGlitch builds three constructed light curves and checks the features that
// tell them apart: a planet (1,000 ppm box, P = 3.7 d), an eclipsing binary with a secondary eclipse half as deep
// at phase 0.5, and a glitch of 3 low cadences right after every desaturation (P = 3 d).
func TestFeaturesSeparatePlanetBinaryAndGlitch(t *testing.T) {
	const sigma = 3e-4
	planet := features(t, synth(120, sigma, 3, 5, box(3.7, 171.3, 0.125, 1e-3)), 3.7, 171.3, 0.125)
	ebSignal := func(x float64) float64 { return box(3.7, 171.3, 0.125, 1e-3)(x) + box(3.7, 171.3+1.85, 0.125, 5e-4)(x) }
	eb := features(t, synth(120, sigma, 3, 6, ebSignal), 3.7, 171.3, 0.125)
	glitch := features(t, synth(120, sigma, 3, 7, box(3, 170+0.045, 0.06, 2e-3)), 3, 170.045, 0.06)

	// Secondary: 500 ppm at 3-h duration over 32 transits is ≈ 500/300·√(32·6) ≈ 23σ on the MES scale; the
	// planet's flat phase curve gives noise (< 5).
	if eb["secondary_mes"] < 10 || planet["secondary_mes"] > 5 {
		t.Errorf("secondary_mes: EB %.1f (want > 10), planet %.1f (want < 5)", eb["secondary_mes"], planet["secondary_mes"])
	}
	if r := eb["secondary_depth_ratio"]; math.Abs(r-0.5) > 0.15 {
		t.Errorf("EB secondary depth ratio %.2f, want ≈ 0.5", r)
	}
	// Desaturations: every glitch follows one; the planet's transits meet one by chance, 2(D/2 + 0.1 d)/3 d ≈ 11 %.
	if glitch["desat_fraction"] < 0.9 || planet["desat_fraction"] > 0.35 {
		t.Errorf("desat_fraction: glitch %.2f (want > 0.9), planet %.2f (want < 0.35)", glitch["desat_fraction"], planet["desat_fraction"])
	}
	if glitch["desat_closeness"] > 0.01 {
		t.Errorf("glitch at the desaturation interval has desat_closeness %.3f, want ≈ 0", glitch["desat_closeness"])
	}
	// The planet's MES: 1,000 ppm / 300 ppm · √(6 cadences) per transit · √(≈ 31 transits) ≈ 45.
	if mes := math.Pow(10, planet["log_mes"]); mes < 30 || mes > 60 {
		t.Errorf("planet MES %.1f, want ≈ 45", mes)
	}
	if planet["log_period"] != math.Log10(3.7) || planet["rank"] != 0 || planet["snr_over_top"] != 1 {
		t.Errorf("bookkeeping features: log_period %g rank %g snr_over_top %g", planet["log_period"], planet["rank"], planet["snr_over_top"])
	}
}

func TestVetterModelMustMatchFeatures(t *testing.T) {
	m, err := EmbeddedVetter()
	if err != nil {
		t.Fatalf("the embedded vetter does not load: %v", err)
	}
	if len(m.Model.Trees) == 0 {
		t.Error("the embedded vetter has no trees")
	}
	b, _ := json.Marshal(VetterModel{Format: VetterFormat, Model: m.Model})
	if _, err := ParseVetter(b); err != nil {
		t.Errorf("a re-encoded embedded model does not parse: %v", err)
	}
	bad := m.Model
	bad.Features = append([]string{"extra"}, bad.Features...)
	b, _ = json.Marshal(VetterModel{Format: VetterFormat, Model: bad})
	if _, err := ParseVetter(b); err == nil {
		t.Error("a model over other features was accepted")
	}
}

// TestCandidatesSkipSingleEvents: one 1 % dip of 3 h (SNR 100/√… ≈ 120 on its own) beside a 600 ppm planet
// (P = 3.7 d, SNR ≈ 35) puts BLS peaks at every period that lands a box on the dip; the candidates must skip
// those (one transit with data) and lead with the planet.
func TestCandidatesSkipSingleEvents(t *testing.T) {
	planet := box(3.7, 171.3, 0.125, 6e-4)
	c := synth(90, 2e-4, 3, 8, func(x float64) float64 {
		if math.Abs(x-201.1) < 0.0625 {
			return planet(x) - 0.01
		}
		return planet(x)
	})
	cands, err := Candidates(c, sun)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) == 0 {
		t.Fatal("no candidate")
	}
	if p := cands[0].Peak.PeriodDays; math.Abs(p/3.7-1) > 1e-3 {
		t.Errorf("first candidate at %.4f d, want the planet's 3.7 d", p)
	}
	for i, f := range cands {
		if f.Vet.NTransits < 2 {
			t.Errorf("candidate %d (P %.3f d) has %d transits with data", i, f.Peak.PeriodDays, f.Vet.NTransits)
		}
		if f.Rank != i {
			t.Errorf("candidate %d has rank %d", i, f.Rank)
		}
	}
}

// TestSharedEvents: against a stronger peak at P = 5 d (D = 0.2 d), a peak at 10 d on the same dips shares all
// its transits, one at 7.5 d (3/2) shares every other one, and an unrelated 7.3-d peak (D = 0.15 d) meets a
// 5-d window only when its phase comes within (0.15 + 0.2)/2 d of it: ≈ 0.35/5 = 7 % of its transits. The
// strongest peak has nothing to share with (NaN).
func TestSharedEvents(t *testing.T) {
	var tt []float64
	for x := 170.0; x < 540; x += lc.CadenceDays {
		tt = append(tt, x)
	}
	strong := bls.Peak{PeriodDays: 5, T0Days: 171, DurationDays: 0.2}
	cases := []struct {
		p      bls.Peak
		lo, hi float64
	}{
		{bls.Peak{PeriodDays: 10, T0Days: 176, DurationDays: 0.2}, 1, 1},
		{bls.Peak{PeriodDays: 7.5, T0Days: 171, DurationDays: 0.2}, 0.45, 0.55},
		{bls.Peak{PeriodDays: 7.3, T0Days: 172.9, DurationDays: 0.15}, 0.02, 0.14},
	}
	for _, c := range cases {
		got := sharedEvents(tt, c.p, []bls.Peak{strong})
		if got < c.lo || got > c.hi {
			t.Errorf("P %.1f d: shared_events %.3f, want in [%.2f, %.2f]", c.p.PeriodDays, got, c.lo, c.hi)
		}
	}
	if got := sharedEvents(tt, strong, nil); !math.IsNaN(got) {
		t.Errorf("the strongest peak has shared_events %g, want NaN", got)
	}
}

// TestCandidatesSDEAndSharedEvents: on a light curve with a 600 ppm planet at 3.7 d (SNR ≈ 35) and nothing
// else, the planet's peak stands far above its periodogram's crowd (SDE > 10), while the next peaks are noise
// (SDE below the planet's by far); on pure white noise the strongest peak's SDE is that of the largest of
// ~10⁴ noise maxima, a few spreads (< 8). Every candidate after the first has a shared_events value, the
// first has NaN.
func TestCandidatesSDEAndSharedEvents(t *testing.T) {
	cands, err := Candidates(synth(90, 2e-4, 3, 9, box(3.7, 171.3, 0.125, 6e-4)), sun)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) < 2 || math.Abs(cands[0].Peak.PeriodDays/3.7-1) > 1e-3 {
		t.Fatalf("want the planet first and at least one more candidate, got %d", len(cands))
	}
	if cands[0].SDE < 10 {
		t.Errorf("planet SDE %.1f, want > 10", cands[0].SDE)
	}
	for i, f := range cands[1:] {
		if !(f.SDE < cands[0].SDE/2) {
			t.Errorf("noise candidate %d (P %.3f d) SDE %.1f against the planet's %.1f", i+1, f.Peak.PeriodDays, f.SDE, cands[0].SDE)
		}
		if math.IsNaN(f.SharedEvents) || f.SharedEvents < 0 || f.SharedEvents > 1 {
			t.Errorf("candidate %d shared_events %g, want a share", i+1, f.SharedEvents)
		}
	}
	if !math.IsNaN(cands[0].SharedEvents) {
		t.Errorf("first candidate shared_events %g, want NaN", cands[0].SharedEvents)
	}
	noise, err := Candidates(synth(90, 2e-4, 3, 10, func(float64) float64 { return 0 }), sun)
	if err != nil {
		t.Fatal(err)
	}
	if len(noise) == 0 {
		t.Fatal("no candidate on white noise")
	}
	if sde := noise[0].SDE; !(sde > 0 && sde < 8) {
		t.Errorf("white noise: strongest peak SDE %.1f, want 0 < SDE < 8", sde)
	}
}

// TestDistinctSignalsKeepThePlanetNotItsAlias: a planet at P = 8 d over 90 d of data, its alias at P/2 (every
// planet transit and as many empty epochs) and a peak at 2P (every other planet transit). The alias, weaker
// and found after the planet, covers all the planet's transits: masking it would leave the planet none, so the
// alias goes and the planet stays, even though masking the planet leaves the alias half its epochs. The 2P
// peak is made of the planet's transits and goes too. An unrelated 5.3-d signal stays.
func TestDistinctSignalsKeepThePlanetNotItsAlias(t *testing.T) {
	c := synth(90, 2e-4, 0, 1, func(float64) float64 { return 0 })
	l, err := Prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	peak := func(p, t0, snr float64) keptPeak {
		return keptPeak{peak: bls.Peak{PeriodDays: p, T0Days: t0, DurationDays: 0.15, SNR: snr}}
	}
	planet, alias, double, other := peak(8, 171, 20), peak(4, 171, 12), peak(16, 171, 11), peak(5.3, 172.2, 9)
	got := distinctSignals(l.T, []keptPeak{planet, alias, double, other})
	var periods []float64
	for _, k := range got {
		periods = append(periods, k.peak.PeriodDays)
	}
	if len(got) != 2 || got[0].peak.PeriodDays != 8 || got[1].peak.PeriodDays != 5.3 {
		t.Fatalf("distinct signals at %v d, want the planet (8 d) and the unrelated signal (5.3 d)", periods)
	}
	if n := epochsLeft(l.T, ephemeris(alias.peak), []vet.Ephemeris{ephemeris(planet.peak)}); n < 8 {
		t.Errorf("the alias keeps %d epochs once the planet is masked, want its empty half (about 11)", n)
	}
}

// TestExpertFindsAPlanetUnderAStrongerSignal: a deep 2.1-d box (a binary's, 3,000 ppm) and a shallow 13.7-d
// planet (600 ppm, 4 h). The iterative search takes the strong signal out first, then finds the planet, which
// a one-search pipeline sees only through the strong signal's aliases.
func TestExpertFindsAPlanetUnderAStrongerSignal(t *testing.T) {
	strong, planet := box(2.1, 170.4, 0.1, 3e-3), box(13.7, 175.2, 0.17, 6e-4)
	c := synth(120, 2e-4, 0, 3, func(x float64) float64 { return strong(x) + planet(x) })
	cands, err := ExpertCandidates(c, sun)
	if err != nil {
		t.Fatal(err)
	}
	var periods []float64
	found := -1
	for i, f := range cands {
		periods = append(periods, f.Peak.PeriodDays)
		if math.Abs(f.Peak.PeriodDays/13.7-1) < 1e-3 && found < 0 {
			found = i
		}
	}
	if len(cands) == 0 || math.Abs(cands[0].Peak.PeriodDays/2.1-1) > 1e-3 {
		t.Fatalf("signals at %v d, want the 2.1-d signal first", periods)
	}
	if found < 0 {
		t.Fatalf("signals at %v d, want the 13.7-d planet among them", periods)
	}
	if f := cands[found]; f.Vet.NTransits < 7 {
		t.Errorf("the planet is measured on %d transits with the strong signal masked, want about 8", f.Vet.NTransits)
	}
}

// TestBinaryGiveaway: each rule fires on its own evidence and only past its bound; a hot Jupiter's features
// (Rp/R★ 0.1, an occultation at 1 % of the transit even when significant, equal odd and even depths) pass.
func TestBinaryGiveaway(t *testing.T) {
	planet := func() Features {
		var f Features
		f.Vet.RpRs = 0.1
		f.Refined.SigmaD = 1e-5
		f.Refined.Fit.Depth = 0.01
		f.Refined.SecondaryDepth, f.Refined.SecondaryMES = 1e-4, 10 // significant, but 1 % of the transit
		f.Refined.OddDepthErr, f.Refined.OddEvenSigma = 1e-4, 1.2
		return f
	}
	cases := []struct {
		name string
		edit func(*Features)
		want string
	}{
		{"hot Jupiter", func(*Features) {}, ""},
		{"Rp/R★ at the bound", func(f *Features) { f.Vet.RpRs = MaxPlanetRpRs }, ""},
		{"too deep", func(f *Features) { f.Vet.RpRs = 0.4 }, "too_deep"},
		{"deep secondary", func(f *Features) { f.Refined.SecondaryDepth = 0.002 }, "secondary"},
		{"deep secondary, not significant", func(f *Features) { f.Refined.SecondaryDepth, f.Refined.SecondaryMES = 0.002, 5 }, ""},
		{"secondary without a noise level", func(f *Features) { f.Refined.SecondaryDepth, f.Refined.SigmaD = 0.002, 0 }, ""},
		{"odd/even", func(f *Features) { f.Refined.OddEvenSigma = 6 }, "odd_even"},
		{"odd/even unmeasured", func(f *Features) { f.Refined.OddEvenSigma, f.Refined.OddDepthErr = 6, 0 }, ""},
	}
	for _, c := range cases {
		f := planet()
		c.edit(&f)
		if got := BinaryGiveaway(&f); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
