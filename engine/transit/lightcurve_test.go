package transit

import (
	"fmt"
	"math"
	"testing"

	"transitbench/engine/lc"
)

// keplerTimes returns n cadences of the Kepler long cadence starting at BKJD 131.5 (the start of Q1).
func keplerTimes(n int) []float64 {
	t := make([]float64, n)
	for i := range t {
		t[i] = 131.5 + float64(i)*lc.CadenceDays
	}
	return t
}

func TestARsAndDensity(t *testing.T) {
	// 1 au / R☉ = 1.495978707e11 m / 6.957e8 m = 215.03; the 365.25-d year differs from the sidereal year
	// (365.256 d) by 2e-5 in period, 1e-5 in a.
	if got := ARs(365.25, 1, 1); math.Abs(got-215.03) > 0.01 {
		t.Errorf("ARs(Earth) = %v, want 215.03", got)
	}
	// The mean solar density is 1.408 g cm⁻³ (M☉ / (4/3 π R☉³)).
	if got := StellarDensity(365.25, ARs(365.25, 1, 1)); math.Abs(got-1.408) > 0.002 {
		t.Errorf("StellarDensity(Sun) = %v, want 1.408", got)
	}
	// a ∝ M^{1/3} P^{2/3} / R.
	if r := ARs(8*365.25, 1, 2) / ARs(365.25, 1, 1); math.Abs(r-2) > 1e-12 {
		t.Errorf("ARs scaling: ratio %v, want 2", r)
	}
	if !math.IsNaN(ARs(0, 1, 1)) {
		t.Error("ARs(0, …) should be NaN")
	}
}

func TestDurations(t *testing.T) {
	// Small-angle limit: T14 → P (1+k) / (π aRs) for b = 0; the Earth crossing the Sun takes 13.1 h.
	aRs := ARs(365.25, 1, 1)
	got := DurationT14(365.25, aRs, 0.00917, 0)
	if want := 365.25 * 1.00917 / (math.Pi * aRs); math.Abs(got/want-1) > 1e-5 {
		t.Errorf("T14(Earth) = %v d, want %v d", got, want)
	}
	if h := got * 24; h < 13.0 || h > 13.2 {
		t.Errorf("T14(Earth) = %.2f h, want 13.1 h", h)
	}
	if DurationT14(10, 20, 0.1, 1.2) != 0 || DurationT23(10, 20, 0.1, 0.95) != 0 {
		t.Error("no transit / grazing transit should give a zero duration")
	}
	if DurationT14(1, 1.05, 0.5, 0) != 0.5 {
		t.Error("a companion covering the star for half the orbit should give T14 = P/2")
	}

	// The model's contacts agree with the formulas: at T14/2 the disks touch, within T23/2 a uniform star shows
	// the flat bottom 1 − k².
	p := Params{PeriodDays: 4.2, T0Days: 0, RpRs: 0.1, ARs: 11, B: 0.4, Supersample: 1}
	t14, t23 := DurationT14(p.PeriodDays, p.ARs, p.RpRs, p.B), DurationT23(p.PeriodDays, p.ARs, p.RpRs, p.B)
	const eps = 1e-6
	ts := []float64{t14/2 - eps, t14/2 + eps, -t14/2 + eps, -t14/2 - eps, t23/2 - eps, t23/2 + eps}
	f := make([]float64, len(ts))
	p.Flux(f, ts)
	if !(f[0] < 1 && f[1] == 1 && f[2] < 1 && f[3] == 1) {
		t.Errorf("flux around first/last contact = %v, want <1, 1, <1, 1", f[:4])
	}
	p.U1, p.U2 = 0, 0
	p.Flux(f, ts)
	if math.Abs(f[4]-0.99) > 1e-12 || !(f[5] > 0.99+1e-9) {
		t.Errorf("uniform star around second contact: %v, %v; want 0.99 then above", f[4], f[5])
	}
}

func TestFluxShape(t *testing.T) {
	p := Params{PeriodDays: 3.5, T0Days: 134.2, RpRs: 0.08, ARs: 9, B: 0.3, U1: 0.4, U2: 0.26}
	times := keplerTimes(5000)
	f := make([]float64, len(times))
	p.Flux(f, times)
	half := p.DurationDays()/2 + lc.CadenceDays/2
	nIn := 0
	for i, ti := range times {
		dt := math.Remainder(ti-p.T0Days, p.PeriodDays)
		switch {
		case f[i] < 0 || f[i] > 1:
			t.Fatalf("flux %v out of [0, 1] at t=%v", f[i], ti)
		case math.Abs(dt) > half && f[i] != 1:
			t.Fatalf("flux %v outside the transit window at t=%v (dt=%v)", f[i], ti, dt)
		case math.Abs(dt) < half-lc.CadenceDays && f[i] >= 1:
			t.Fatalf("flux 1 inside the transit at t=%v (dt=%v)", ti, dt)
		}
		if f[i] < 1 {
			nIn++
		}
	}
	if nIn == 0 {
		t.Fatal("no cadence in transit")
	}
	// Symmetric about mid-transit and periodic.
	ts := []float64{p.T0Days - 0.03, p.T0Days + 0.03, p.T0Days + 7*p.PeriodDays + 0.03, p.T0Days - 5*p.PeriodDays - 0.03}
	g := make([]float64, 4)
	p.Flux(g, ts)
	for _, v := range g[1:] {
		if math.Abs(v-g[0]) > 1e-12 {
			t.Errorf("flux not symmetric/periodic: %v", g)
		}
	}
	// The sign of the impact parameter does not matter.
	q := p
	q.B = -p.B
	h := make([]float64, len(times))
	q.Flux(h, times)
	for i := range h {
		if h[i] != f[i] {
			t.Fatalf("B = %v and %v give different fluxes at t=%v", p.B, q.B, times[i])
		}
	}
	// Depth: a uniform star behind a centred disk loses k².
	if d := (Params{PeriodDays: 1, ARs: 5, RpRs: 0.1}).Depth(); math.Abs(d-0.01) > 1e-15 {
		t.Errorf("Depth = %v, want 0.01", d)
	}
}

// TestSupersampleAccuracy compares the default 9-sample exposure average with a 401-sample one on a short,
// sharp transit (a hot Jupiter with a 13-min ingress): the documented accuracy of DefaultSupersample.
func TestSupersampleAccuracy(t *testing.T) {
	p := Params{PeriodDays: 1.5, T0Days: 0, RpRs: 0.12, ARs: 5, B: 0.2, U1: 0.4, U2: 0.26}
	ts := make([]float64, 2001)
	for i := range ts {
		ts[i] = -0.1 + 0.2*float64(i)/2000
	}
	coarse, fine := make([]float64, len(ts)), make([]float64, len(ts))
	p.Flux(coarse, ts)
	p.Supersample = 401
	p.Flux(fine, ts)
	worst := 0.0
	for i := range ts {
		worst = math.Max(worst, math.Abs(coarse[i]-fine[i]))
	}
	// The midpoint rule's error at the contact points falls as N^−2; 9 samples keep it within 0.2 % of the
	// depth (measured: 1.7e-5 on this 1.7 %-deep transit).
	if worst > 0.002*p.Depth() {
		t.Errorf("9-sample exposure average differs from the 401-sample one by %.2g", worst)
	}
	t.Logf("9 vs 401 sub-samples: largest difference %.2g (depth %.4f)", worst, p.Depth())
}

func TestLimbDarkening(t *testing.T) {
	u1, u2 := LimbDarkening(5772, 4.44)
	// The Sun in the Kepler band: about u1 ≈ 0.40, u2 ≈ 0.26 (Claret & Bloemen 2011); the table is coarse.
	if math.Abs(u1-0.40) > 0.05 || math.Abs(u2-0.26) > 0.05 {
		t.Errorf("Sun: u1, u2 = %v, %v", u1, u2)
	}
	prev := math.Inf(1)
	for teff := 4500.0; teff <= 7500; teff += 100 {
		a, b := LimbDarkening(teff, 4.5)
		if a > prev+1e-12 || a+b > 1 || a < 0 || a+2*b < 0 {
			t.Errorf("Teff %v: u1=%v u2=%v (u1 must fall with Teff and the law stay physical)", teff, a, b)
		}
		prev = a
	}
	// A 4,000-K dwarf: Claret, Hauschildt & Witte (2012) give u1 = 0.5068, u2 = 0.2043 (logg 4.5, PHOENIX).
	if a, b := LimbDarkening(4000, 4.5); math.Abs(a-0.5068) > 0.006 || math.Abs(b-0.2043) > 0.006 {
		t.Errorf("4,000 K dwarf: u1, u2 = %v, %v", a, b)
	}
	a, b := LimbDarkening(20000, 6)
	c, d := LimbDarkening(7500, 4.5)
	if a != c || b != d {
		t.Error("LimbDarkening should clamp to the table's edges")
	}
}

func BenchmarkFlux(b *testing.B) {
	// A year of long cadence (17.6 k points) and a 10.3-d, 4-h transit with the default 9 sub-samples.
	benchmarkFlux(b, Params{PeriodDays: 10.3, T0Days: 135, RpRs: 0.05, ARs: 20, B: 0.3, U1: 0.4, U2: 0.26})
}

func BenchmarkFluxShortPeriod(b *testing.B) {
	// The worst realistic case: a 0.6-d period puts ~12 % of the cadences in transit.
	benchmarkFlux(b, Params{PeriodDays: 0.6, T0Days: 131.7, RpRs: 0.05, ARs: 3.2, B: 0.3, U1: 0.4, U2: 0.26})
}

// benchmarkFlux times p.Flux over a year of long cadence (17.6 k points).
func benchmarkFlux(b *testing.B, p Params) {
	times := keplerTimes(17600)
	dst := make([]float64, len(times))
	for b.Loop() {
		p.Flux(dst, times)
	}
}

func BenchmarkQuadraticFlux(b *testing.B) {
	for b.Loop() {
		QuadraticFlux(0.37, 0.1, 0.4, 0.26)
	}
}

func ExampleParams_Flux() {
	// A hot Jupiter around a Sun-like star, sampled at mid-transit and half a day later.
	p := Params{PeriodDays: 3.5, T0Days: 100, RpRs: 0.1, ARs: ARs(3.5, 1, 1), B: 0.3}
	p.U1, p.U2 = LimbDarkening(5772, 4.44)
	f := make([]float64, 2)
	p.Flux(f, []float64{100, 100.5})
	fmt.Printf("T14 %.2f h, in transit %.5f, after %.5f\n", 24*p.DurationDays(), f[0], f[1])
	// Output: T14 2.92 h, in transit 0.98811, after 1.00000
}
