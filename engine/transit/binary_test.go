package transit

import (
	"math"
	"testing"
)

func binaryTimes(p float64) []float64 {
	ts := make([]float64, 4001)
	for i := range ts {
		ts[i] = -0.1*p + 1.2*p*float64(i)/4000
	}
	return ts
}

func TestBinaryReducesToPlanet(t *testing.T) {
	// A dark companion (no light of its own, no third light) is a planet.
	b := Binary{PeriodDays: 2.4, T0Days: 0, K: 0.4, ARs: 6, B: 0.5, U1: 0.4, U2: 0.26, U1b: 0.6, U2b: 0.1}
	p := Params{PeriodDays: 2.4, T0Days: 0, RpRs: 0.4, ARs: 6, B: 0.5, U1: 0.4, U2: 0.26}
	ts := binaryTimes(2.4)
	fb, fp := make([]float64, len(ts)), make([]float64, len(ts))
	b.Flux(fb, ts)
	p.Flux(fp, ts)
	for i := range ts {
		if fb[i] != fp[i] {
			t.Fatalf("t=%v: binary %v, planet %v", ts[i], fb[i], fp[i])
		}
	}
}

func TestBinaryTotalSecondary(t *testing.T) {
	// A small star wholly hidden behind the primary at the secondary's centre (b = 0, K = 0.3): the flux drops
	// by exactly its share of the light, L2/(L1+L2); with third light s the drop is (1−s) of that.
	b := Binary{PeriodDays: 3, T0Days: 10, K: 0.3, ARs: 7, B: 0, LightRatio: 0.25, U1: 0.4, U2: 0.26, U1b: 0.6, U2b: 0.1, Supersample: 1}
	f := make([]float64, 1)
	b.Flux(f, []float64{11.5})
	if want := 1 - 0.25/1.25; math.Abs(f[0]-want) > 1e-15 {
		t.Errorf("total secondary: %v, want %v", f[0], want)
	}
	b.ThirdLight = 0.6
	b.Flux(f, []float64{11.5})
	if want := 1 - 0.4*0.25/1.25; math.Abs(f[0]-want) > 1e-15 {
		t.Errorf("total secondary with 60 %% third light: %v, want %v", f[0], want)
	}
}

func TestBinaryRoleSwap(t *testing.T) {
	// Naming the stars the other way round (lengths in R2, the light ratio inverted, the limb darkening swapped,
	// the primary eclipse half a period later) describes the same system, so the same light curve.
	b := Binary{PeriodDays: 1.7, T0Days: 0.3, K: 0.8, ARs: 4.5, B: 0.9, LightRatio: 0.55, ThirdLight: 0.1,
		U1: 0.45, U2: 0.2, U1b: 0.6, U2b: 0.12}
	s := Binary{PeriodDays: 1.7, T0Days: 0.3 + 0.85, K: 1 / b.K, ARs: b.ARs / b.K, B: b.B / b.K, LightRatio: 1 / b.LightRatio,
		ThirdLight: 0.1, U1: b.U1b, U2: b.U2b, U1b: b.U1, U2b: b.U2}
	ts := binaryTimes(1.7)
	f1, f2 := make([]float64, len(ts)), make([]float64, len(ts))
	b.Flux(f1, ts)
	s.Flux(f2, ts)
	minF := 1.0
	for i := range ts {
		if math.Abs(f1[i]-f2[i]) > 1e-12 {
			t.Fatalf("t=%v: %v vs %v with the stars swapped", ts[i], f1[i], f2[i])
		}
		minF = math.Min(minF, f1[i])
	}
	if minF > 0.9 {
		t.Fatalf("no eclipse in the test curve (min flux %v)", minF)
	}
}
