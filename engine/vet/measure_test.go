package vet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// yearTimes returns one year of long-cadence times from BKJD 170 with a 1.5 d gap every 93 d and a 0.9 d gap
// every 31 d (Kepler's rolls and downlinks).
func yearTimes() []float64 {
	const cadence = 29.4244 / 1440
	var t []float64
	for x := 0.0; x < 372; x += cadence {
		if x > 93 && math.Mod(x, 93) < 1.5 || x > 31 && math.Mod(x, 31) < 0.9 {
			continue
		}
		t = append(t, 170+x)
	}
	return t
}

// TestMeasureKeepsShallowLongTransits injects boxes of 100, 300 and 1,000 ppm lasting 2, 8 and 16 h in 30 ppm
// white noise, alone and on a Kepler-like active star (a 0.5 % spot modulation at 10 d, McQuillan et al. 2014,
// and quarter-to-quarter offsets of 0.2 %), and measures each at its ephemeris. The fitted depth must be within
// 10 % of the injection on both; in white noise the MES must also be at least 90 % of the MES of the same box
// measured on the undetrended flux (the ideal: nothing removed). On the active star there is no such ideal: a
// 1.5 d running location leaves ≈ A·(ωh)²/6 ≈ 190 ppm of a 0.5 %, 10 d modulation at its extremes, which is noise
// to every search; there the MES is compared with the MES of the star measured without its transits. At 30 ppm
// per cadence the weakest box (100 ppm, 2 h, ≈ 41 transits of 4 cadences) has MES ≈ 43, so 10 % is more than 4σ
// of the depth's own error.
func TestMeasureKeepsShallowLongTransits(t *testing.T) {
	times := yearTimes()
	const period, t0, sigma = 8.7, 171.3, 30e-6
	for _, depth := range []float64{100e-6, 300e-6, 1000e-6} {
		for _, hours := range []float64{2, 8, 16} {
			dur := hours / 24
			r := rand.New(rand.NewPCG(uint64(depth*1e6), uint64(hours)))
			white := make([]float64, len(times))
			active := make([]float64, len(times))
			for i, x := range times {
				box := 1.0
				if math.Abs(math.Remainder(x-t0, period)) < dur/2 {
					box = 1 - depth
				}
				n := 1 + sigma*r.NormFloat64()
				white[i] = box * n
				active[i] = box * n * (1 + 0.005*math.Sin(2*math.Pi*x/10)) * (1 + 0.002*float64(int((x-170)/93)%2))
			}
			eph := Ephemeris{PeriodDays: period, T0Days: t0, DurationDays: dur}
			for name, flux := range map[string][]float64{"white": white, "active": active} {
				t.Run(fmt.Sprintf("%s/%.0fppm/%.0fh", name, depth*1e6, hours), func(t *testing.T) {
					m := Measure(times, flux, eph, nil, nil)
					// The ideal: the box measured at the fitted T14 on the undetrended white-noise flux, or with
					// σ_D from the active star's own transit-free light curve detrended alike.
					e := m.Ephemeris
					ideal := Compute(times, white, e.PeriodDays, e.T0Days, e.DurationDays, nil)
					if name == "active" {
						ideal.MES *= ideal.SigmaD / Compute(times, Redetrend(times, active, []Ephemeris{e}), e.PeriodDays, e.T0Days, e.DurationDays, nil).SigmaD
					}
					got := m.Features
					t.Logf("fitted depth %.1f ppm (injected %.0f), MES %.1f (ideal %.1f), T14 %.2f h",
						m.Refined.Fit.Depth*1e6, depth*1e6, got.MES, ideal.MES, e.DurationDays*24)
					// Within 10 %, or within 3σ of the depth's own error (depth/MES) where that is larger: on the
					// active star the 100 ppm boxes have MES ≈ 6, a 17 % error that no detrending removes.
					if tol := math.Max(0.1, 3/got.MES); math.Abs(m.Refined.Fit.Depth/depth-1) > tol {
						t.Errorf("fitted depth %.1f ppm, want %.0f ppm within %.0f %%", m.Refined.Fit.Depth*1e6, depth*1e6, 100*tol)
					}
					if !(got.MES >= 0.9*ideal.MES) {
						t.Errorf("MES %.1f, want at least 90 %% of the ideal %.1f", got.MES, ideal.MES)
					}
				})
			}
		}
	}
}

// TestMeasureIsolatesOtherPlanets: a 60 d planet and a 13.7 d planet whose transits fall where the first's
// secondary eclipse would be. Vetted with the other in the data, the first shows a "secondary"; with the other
// masked (Measure's others), none.
func TestMeasureIsolatesOtherPlanets(t *testing.T) {
	times := yearTimes()
	r := rand.New(rand.NewPCG(3, 5))
	a := Ephemeris{PeriodDays: 60.0, T0Days: 175.0, DurationDays: 0.3}
	b := Ephemeris{PeriodDays: 30.0, T0Days: 205.0, DurationDays: 0.25} // b's transits at a's phase 0.5
	flux := make([]float64, len(times))
	for i, x := range times {
		f := 1 + 40e-6*r.NormFloat64()
		if math.Abs(math.Remainder(x-a.T0Days, a.PeriodDays)) < a.DurationDays/2 {
			f -= 800e-6
		}
		if math.Abs(math.Remainder(x-b.T0Days, b.PeriodDays)) < b.DurationDays/2 {
			f -= 400e-6
		}
		flux[i] = f
	}
	with := Measure(times, flux, a, nil, nil)
	without := Measure(times, flux, a, []Ephemeris{b}, nil)
	t.Logf("secondary MES %.1f with the other planet in the data, %.1f with it masked", with.Refined.SecondaryMES, without.Refined.SecondaryMES)
	if !(with.Refined.SecondaryMES > 7.1) {
		t.Fatalf("the other planet's transits give a secondary MES of only %.1f: the test shows nothing", with.Refined.SecondaryMES)
	}
	if without.Refined.SecondaryMES > 4 {
		t.Errorf("with the other planet masked the secondary MES is %.1f, want noise (< 4)", without.Refined.SecondaryMES)
	}
}
