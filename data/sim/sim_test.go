package sim_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"sync"
	"testing"

	"transitbench/data"
	"transitbench/data/sim"
	"transitbench/engine/lc"
)

// generate makes the star of spec with the knobs k, failing the test when the simulator refuses.
func generate(t testing.TB, spec sim.Spec, k *sim.Knobs) *sim.Result {
	t.Helper()
	r, err := sim.Generate(spec, k)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// specs returns one star of each category and population, the sample most tests run over.
func specs(seed uint64) []sim.Spec {
	return []sim.Spec{
		{Set: "test", Index: 0, Seed: seed, Category: data.CategoryInjected, Population: data.PopulationRandom, ID: "t-0"},
		{Set: "test", Index: 1, Seed: seed + 1, Category: data.CategoryInjected, Population: data.PopulationFalseAlarm, ID: "t-1"},
		{Set: "test", Index: 2, Seed: seed + 2, Category: data.CategoryUntouched, Population: data.PopulationRandom, ID: "t-2"},
		{Set: "test", Index: 3, Seed: seed + 3, Category: data.CategoryUntouched, Population: data.PopulationFalseAlarm, ID: "t-3"},
		{Set: "test", Index: 4, Seed: seed + 4, Category: data.CategoryEB, ID: "t-4"},
		{Set: "test", Index: 5, Seed: seed + 5, Category: data.CategoryConfirmed, ID: "t-5"},
	}
}

// digest is the SHA-256 of everything Generate returns: every cadence's time, flux, error and quality bits,
// and the JSON of the star and the answer.
func digest(t *testing.T, r *sim.Result) string {
	t.Helper()
	h := sha256.New()
	c := r.Curve
	var b [8]byte
	for i := range c.Time {
		for _, v := range []float64{c.Time[i], c.Flux[i], c.FluxErr[i]} {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			h.Write(b[:])
		}
		binary.LittleEndian.PutUint32(b[:4], uint32(c.Quality[i]))
		h.Write(b[:4])
	}
	for _, v := range []any{r.Star, r.Answer} {
		j, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		h.Write(j)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestGenerateIsDeterministic(t *testing.T) {
	k := sim.DefaultKnobs()
	for _, spec := range specs(101) {
		a := generate(t, spec, k)
		b := generate(t, spec, sim.DefaultKnobs())
		if da, db := digest(t, a), digest(t, b); da != db {
			t.Errorf("%s/%s: two runs differ: %s vs %s", spec.Category, spec.Population, da, db)
		}
		tm, q := sim.Cadences(spec, k)
		if !slices.Equal(tm, a.Curve.Time) || !slices.Equal(q, a.Curve.Quality) {
			t.Errorf("%s/%s: Cadences differs from Generate's time and quality", spec.Category, spec.Population)
		}
	}
}

// goldenDigest is the SHA-256 of the digests of six or more stars of each category and population (more when
// needed to cover every kind of false alarm) under sim.Version and the default knobs. Any change of the simulator's output
// changes it: bump sim.Version, then update these values.
const (
	goldenVersion = "sim-6"
	goldenDigest  = "aa6d017f1629cdfe727787a4ff628957ed154d38e67055079c483759446c22f6"
)

func TestGoldenDigest(t *testing.T) {
	k := sim.DefaultKnobs()
	h := sha256.New()
	kinds := map[string]bool{}
	for s := 0; s < 6 || (len(kinds) < len(k.FalseAlarm.Kinds) && s < 20); s++ {
		for _, spec := range specs(uint64(0x5eed + 100*s)) {
			if spec.Category == data.CategoryInjected && spec.Population == data.PopulationFalseAlarm {
				spec.MESQuantile = float64(s+1) / 22 // a set builder's stratified MES
			}
			r := generate(t, spec, k)
			h.Write([]byte(digest(t, r)))
			if fa := r.Answer.FalseAlarm; fa != nil {
				kinds[fa.Kind] = true
			}
		}
	}
	if len(kinds) != len(k.FalseAlarm.Kinds) {
		t.Errorf("the golden sample covers the false-alarm kinds %v; choose seeds that cover all %d", kinds, len(k.FalseAlarm.Kinds))
	}
	got := hex.EncodeToString(h.Sum(nil))
	if sim.Version != goldenVersion {
		t.Fatalf("sim.Version is %q but the golden digest belongs to %q: update goldenVersion and goldenDigest (now %s)",
			sim.Version, goldenVersion, got)
	}
	if got != goldenDigest {
		t.Errorf("output of %s changed (digest %s, golden %s): bump sim.Version and update the golden values", sim.Version, got, goldenDigest)
	}
}

func TestGenerateRejectsBadSpecs(t *testing.T) {
	k := sim.DefaultKnobs()
	cases := []struct {
		spec sim.Spec
		want error
	}{
		{sim.Spec{Category: "planet", ID: "x"}, sim.ErrCategory},
		{sim.Spec{Category: data.CategoryInjected, ID: "x"}, sim.ErrPopulation},
		{sim.Spec{Category: data.CategoryEB, Population: data.PopulationRandom, ID: "x"}, sim.ErrPopulation},
	}
	for _, c := range cases {
		if _, err := sim.Generate(c.spec, k); !errors.Is(err, c.want) {
			t.Errorf("Generate(%+v) error = %v, want %v", c.spec, err, c.want)
		}
	}
}

// TestFluxIsNaNExactlyOnMaskedCadences checks the contract with the set builder: flux is NaN where and only
// where the quality has a bit of lc.DefaultQualityMask, and everything else is finite.
func TestFluxIsNaNExactlyOnMaskedCadences(t *testing.T) {
	k := sim.DefaultKnobs()
	for _, spec := range specs(202) {
		r := generate(t, spec, k)
		c := r.Curve
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		for i := range c.Time {
			masked := c.Quality[i]&lc.DefaultQualityMask != 0
			if math.IsNaN(c.Flux[i]) != masked {
				t.Fatalf("%s: cadence %d (quality %d): flux %v", spec.Category, i, c.Quality[i], c.Flux[i])
			}
			if !masked && (math.IsInf(c.Flux[i], 0) || !(c.FluxErr[i] > 0) || math.Abs(c.Flux[i]-1) > 0.9) {
				t.Fatalf("%s: cadence %d: flux %v ± %v", spec.Category, i, c.Flux[i], c.FluxErr[i])
			}
		}
	}
}

// TestCalendarFacts checks the observing calendar against the Kepler facts of SPEC A3 and SIMULATOR-NOTES on
// 30 stars: the 29.4244-min grid, a ≈ 372-d span from BKJD ≈ 170, 16–17 k valid cadences, monthly downlinks
// and quarterly rolls, desaturations every ≈ 3 d, and the quality bits the spec names.
func TestCalendarFacts(t *testing.T) {
	k := sim.DefaultKnobs()
	var counts []int
	bits := int32(0)
	for i := range 30 {
		spec := sim.Spec{Seed: uint64(9000 + i), Category: data.CategoryUntouched, Population: data.PopulationRandom}
		tm, q := sim.Cadences(spec, k)
		if tm[0] < 169.5 || tm[0] > 170.1 {
			t.Errorf("star %d starts at BKJD %.3f, want 169.5–170.1 (Q2 began at 169.76)", i, tm[0])
		}
		// Q2–Q5 span ≈ 368–372 d; the knobs draw quarters of 89.5–93 d and rolls of 1–2.5 d.
		if span := tm[len(tm)-1] - tm[0]; span < 360 || span > 378 {
			t.Errorf("star %d spans %.1f d, want ≈ 372 d", i, span)
		}
		gaps, lost := 0, false
		var gapTimes []float64
		for j := 1; j < len(tm); j++ {
			steps := (tm[j] - tm[0]) / lc.CadenceDays
			if math.Abs(steps-math.Round(steps)) > 1e-6 {
				t.Fatalf("star %d: cadence %d at %.8f is off the 29.4244-min grid", i, j, tm[j])
			}
			if tm[j]-tm[j-1] > 0.5 {
				gaps++
				gapTimes = append(gapTimes, tm[j])
			}
			// A star on a failing module loses weeks (Kepler-90's Q4, SIMULATOR-NOTES).
			lost = lost || tm[j]-tm[j-1] > 10
		}
		// 8 monthly downlinks and 3 rolls, sometimes a safe mode or a failed module on top.
		if gaps < 11 || gaps > 14 {
			t.Errorf("star %d has %d gaps longer than 12 h, want 11 (8 downlinks, 3 rolls) plus a few", i, gaps)
		}
		for j := 1; j < len(gapTimes) && !lost; j++ {
			if d := gapTimes[j] - gapTimes[j-1]; d > 40 {
				t.Errorf("star %d: %.1f d between gaps at %.1f and %.1f; downlinks are monthly", i, d, gapTimes[j-1], gapTimes[j])
			}
		}
		valid := 0
		var desat []float64
		for j := range tm {
			bits |= q[j]
			if q[j]&lc.DefaultQualityMask == 0 {
				valid++
			}
			if q[j]&lc.QDesaturation != 0 && (j == 0 || q[j-1]&lc.QDesaturation == 0) {
				desat = append(desat, tm[j])
			}
		}
		counts = append(counts, valid)
		var spacing []float64
		for j := 1; j < len(desat); j++ {
			spacing = append(spacing, desat[j]-desat[j-1])
		}
		slices.Sort(spacing)
		// Desaturations every ≈ 3 d (SIMULATOR-NOTES); gaps make a few intervals longer.
		if med := spacing[len(spacing)/2]; med < 2.85 || med > 3.15 { // the knobs draw 2.9–3.1 d, on a 0.02-d grid
			t.Errorf("star %d: median desaturation spacing %.3f d, want ≈ 3 d", i, med)
		}
		if !lost && (len(desat) < 110 || len(desat) > 130) {
			t.Errorf("star %d: %d desaturations in the year, want ≈ 372/3 ≈ 124 less those in gaps", i, len(desat))
		}
	}
	slices.Sort(counts)
	t.Logf("valid cadences: min %d, median %d, max %d", counts[0], counts[len(counts)/2], counts[len(counts)-1])
	// SPEC A3: ≈ 16–17 k valid cadences; a star on a failing module may lose a month or two.
	if med := counts[len(counts)/2]; med < 16000 || med > 17000 {
		t.Errorf("median valid cadences %d, want 16,000–17,000 (all: %v)", med, counts)
	}
	if counts[0] < 13000 {
		t.Errorf("a star has only %d valid cadences", counts[0])
	}
	for _, b := range []int32{lc.QAttitudeTweak, lc.QCoarsePoint, lc.QEarthPoint, lc.QDesaturation, lc.QApertureCosmic,
		lc.QSuddenSensDropout, lc.QImpulsiveOutlier, lc.QRollingBand, lc.QRollingBandMask, lc.QZeroCrossing,
		lc.QCollateralCosmic, lc.QDetectorAnomaly, lc.QNoFinePoint, lc.QArgabrightening} {
		if bits&b == 0 {
			t.Errorf("quality bit %d never set in 30 stars", b)
		}
	}
}

// TestAnswersFollowTheSpec checks every star's answer against SPEC A2 and A4 on a sample of each category.
func TestAnswersFollowTheSpec(t *testing.T) {
	k := sim.DefaultKnobs()
	for s := range 5 {
		for _, spec := range specs(uint64(300 + 10*s)) {
			r := generate(t, spec, k)
			a := r.Answer
			if a.ID != spec.ID || a.Category != spec.Category || a.Population != spec.Population {
				t.Errorf("answer %+v does not echo the spec %+v", a, spec)
			}
			if (a.FalseAlarm != nil) != (spec.Population == data.PopulationFalseAlarm) || (a.FalseAlarm != nil && a.FalseAlarm.Kind == "") {
				t.Errorf("%s/%s: false alarm %+v", spec.Category, spec.Population, a.FalseAlarm)
			}
			switch spec.Category {
			case data.CategoryInjected:
				p := a.Planet
				if !a.Scored || p == nil {
					t.Fatalf("injected star: scored %v, planet %v", a.Scored, p)
				}
				// MES drawn from [4, 20] and met within 5 % (SPEC A2, A4); period 0.5–120 d, b 0–0.9, ≥ 3 transits.
				if p.MES < 4*0.95 || p.MES > 20*1.05 || p.PeriodDays < 0.5 || p.PeriodDays > 120 || p.B < 0 || p.B > 0.9 ||
					p.NTransits < 3 || !(p.Depth > 0) || !(p.DurationDays > 0) || !(p.RpRs > 0) {
					t.Errorf("injected planet out of range: %+v", p)
				}
			case data.CategoryUntouched:
				if !a.Scored || a.Planet != nil || a.EB != nil || a.Confirmed != nil {
					t.Errorf("untouched star: %+v", a)
				}
			case data.CategoryEB:
				if a.EB == nil || a.Scored != a.EB.Counted || a.EB.Counted != (len(a.EB.Giveaway) > 0) {
					t.Errorf("eb star: %+v / %+v", a, a.EB)
				}
			case data.CategoryConfirmed:
				if a.Scored || len(a.Confirmed) < 1 || len(a.Confirmed) > 3 {
					t.Errorf("confirmed star: scored %v with %d planets", a.Scored, len(a.Confirmed))
				}
			}
			st := r.Star
			if st.Kepmag < 10 || st.Kepmag > 16 || st.Teff < 2500 || st.RadiusRsun <= 0 || st.MassMsun <= 0 ||
				st.CadenceDays != lc.CadenceDays || st.TimeSystem != "BKJD" || len(st.CDPPppm) != 3 {
				t.Errorf("star.json out of range: %+v", st)
			}
			if !(st.CDPPppm["3.0"] > 0 && st.CDPPppm["6.0"] > 0 && st.CDPPppm["12.0"] > 0) {
				t.Errorf("CDPP %v", st.CDPPppm)
			}
		}
	}
}

// TestCountedEBShare checks SPEC A2's target: about 65–90 % of a set's eclipsing binaries are counted
// (TransitBench's A: 114 of 150, 76 %). It generates 150 binaries as set A would.
func TestCountedEBShare(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 150 stars")
	}
	k := sim.DefaultKnobs()
	counted := 0
	reasons := map[string]int{}
	for i := range 150 {
		r := generate(t, sim.Spec{Set: "ebs", Index: i, Seed: uint64(7000 + i), Category: data.CategoryEB, ID: "eb"}, k)
		if r.Answer.EB.Counted {
			counted++
		}
		for _, g := range r.Answer.EB.Giveaway {
			reasons[g]++
		}
	}
	share := float64(counted) / 150
	t.Logf("counted %d of 150 (%.0f %%); giveaways %v", counted, 100*share, reasons)
	if share < 0.65 || share > 0.90 {
		t.Errorf("counted EB share %.2f, want 0.65–0.90 (TransitBench: 114/150)", share)
	}
}

// TestQuietStarCDPP checks the noise level against Christiansen et al. 2012: quiet Kp ≈ 12 dwarfs reach
// ≈ 30 ppm at 6.5 h, and CDPP rises steeply with magnitude, to a few hundred ppm at Kp 16. The fitted KOI
// relation (fitted.go) has a median of 34 ppm at Kp 12 and 240 ppm at Kp 16; spots and pulsations add to it.
func TestQuietStarCDPP(t *testing.T) {
	k := sim.DefaultKnobs()
	cdpp6 := func(lo, hi float64) []float64 {
		k.Star.Kepmag = sim.Range{Lo: lo, Hi: hi}
		var v []float64
		for i := range 24 {
			r := generate(t, sim.Spec{Seed: uint64(400 + i), Category: data.CategoryUntouched, Population: data.PopulationRandom}, k)
			v = append(v, r.Star.CDPPppm["6.0"])
		}
		slices.Sort(v)
		return v
	}
	bright, faint := cdpp6(11.8, 12.2), cdpp6(15.8, 16)
	quiet, med, medFaint := bright[len(bright)/4], bright[len(bright)/2], faint[len(faint)/2]
	t.Logf("CDPP 6 h at Kp 12: lower quartile %.1f ppm, median %.1f ppm; at Kp 16: median %.1f ppm", quiet, med, medFaint)
	if quiet < 15 || quiet > 45 {
		t.Errorf("lower-quartile CDPP at Kp 12 = %.1f ppm, want ≈ 30 (15–45)", quiet)
	}
	if med < 25 || med > 70 {
		t.Errorf("median CDPP at Kp 12 = %.1f ppm, want 25–70", med)
	}
	if medFaint < 100 || medFaint > 600 || medFaint < 3*med {
		t.Errorf("median CDPP at Kp 16 = %.1f ppm, want a few hundred and several times Kp 12's", medFaint)
	}
}

func TestKnobsValidate(t *testing.T) {
	if err := sim.DefaultKnobs().Validate(); err != nil {
		t.Fatalf("default knobs: %v", err)
	}
	cases := map[string]func(k *sim.Knobs){
		"reversed range":  func(k *sim.Knobs) { k.Planet.MES = sim.Range{Lo: 20, Hi: 4} },
		"NaN":             func(k *sim.Knobs) { k.Noise.QuarterOffset = math.NaN() },
		"share above 1":   func(k *sim.Knobs) { k.EB.BackgroundProb = 1.5 },
		"negative weight": func(k *sim.Knobs) { k.Confirmed.Multiplicity[1] = -1 },
		"unknown kind":    func(k *sim.Knobs) { k.FalseAlarm.Kinds = []sim.KindWeight{{Kind: "aliens", Weight: 1}} },
		"zero weights":    func(k *sim.Knobs) { k.FalseAlarm.Kinds = []sim.KindWeight{{Kind: sim.KindHarmonic}} },
	}
	for name, edit := range cases {
		k := sim.DefaultKnobs()
		edit(k)
		if err := k.Validate(); !errors.Is(err, sim.ErrKnobs) {
			t.Errorf("%s: Validate() = %v, want ErrKnobs", name, err)
		}
		if _, err := sim.Generate(specs(1)[0], k); !errors.Is(err, sim.ErrKnobs) {
			t.Errorf("%s: Generate error %v, want ErrKnobs", name, err)
		}
	}
}

// TestGenerateConcurrently checks that Generate shares no state between calls: stars made on four goroutines
// at once (as the set builder's workers do) equal those made one by one. Run with -race to check more.
func TestGenerateConcurrently(t *testing.T) {
	k := sim.DefaultKnobs()
	sp := specs(77)
	want := make([]string, len(sp))
	for i, s := range sp {
		r := generate(t, s, k)
		want[i] = digest(t, r)
	}
	got := make([][]string, 4)
	var wg sync.WaitGroup
	for g := range got {
		got[g] = make([]string, len(sp))
		wg.Go(func() {
			for i := range sp {
				j := (i + g) % len(sp) // each goroutine in another order
				r, err := sim.Generate(sp[j], k)
				if err != nil {
					t.Error(err)
					return
				}
				got[g][j] = digest(t, r)
			}
		})
	}
	wg.Wait()
	for g := range got {
		if !slices.Equal(got[g], want) {
			t.Errorf("goroutine %d made different stars", g)
		}
	}
}

// TestMESQuantile: a Spec's MES quantile sets the injected planet's MES (measured on the star's noise, within
// the solve's tolerance) and leaves the rest of the star's draws alone.
func TestMESQuantile(t *testing.T) {
	k := sim.DefaultKnobs()
	base := specs(0xabc)[0]
	free := generate(t, base, k)
	for _, q := range []float64{0.1, 0.5, 0.9} {
		spec := base
		spec.MESQuantile = q
		r := generate(t, spec, k)
		want := k.Planet.MES.Lo + q*(k.Planet.MES.Hi-k.Planet.MES.Lo)
		if got := r.Answer.Planet.MES; math.Abs(got/want-1) > 0.05 {
			t.Errorf("quantile %v: MES %.3f, want %.3f ± 5 %%", q, got, want)
		}
		if !reflect.DeepEqual(r.Star, free.Star) {
			t.Errorf("quantile %v changed the star: %+v, want %+v", q, r.Star, free.Star)
		}
	}
}
