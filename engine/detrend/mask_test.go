package detrend

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFlattenMaskKeepsLongShallowTransits: a 100 ppm, 16 h box every 9.3 d in 100 ppm white noise on a 0.5 %,
// 10 d spot modulation (an active Kepler star: McQuillan et al. 2014). The biweight follows a shallow transit as if it were flux (the transit lies inside c·MAD
// of the location), so the default 1.5 d window — 2.25 transit durations — eats much of its depth; with the
// transit windows masked the trend runs under the transits from the flux around them and the depth survives.
func TestFlattenMaskKeepsLongShallowTransits(t *testing.T) {
	const period, t0, dur, depth = 9.3, 172.1, 16.0 / 24, 100e-6
	times := keplerTimes(372)
	r := rand.New(rand.NewPCG(7, 11))
	f := make([]float64, len(times))
	mask := make([]bool, len(times))
	for i, x := range times {
		f[i] = (1 + 0.005*math.Sin(2*math.Pi*x/10)) * boxDip(x, period, t0, dur, depth) * (1 + 100e-6*r.NormFloat64())
		mask[i] = math.Abs(math.Remainder(x-t0, period)) <= dur // the window 2·T14 wide, as DV masks
	}
	inTransitDepth := func(flat []float64) float64 {
		var s float64
		n := 0
		for i, x := range times {
			if math.Abs(math.Remainder(x-t0, period)) < dur/2 {
				s += 1 - flat[i]
				n++
			}
		}
		return s / float64(n)
	}
	plain, _ := Flatten(times, f, Options{})
	masked, _ := Flatten(times, f, Options{Mask: mask})
	dPlain, dMasked := inTransitDepth(plain), inTransitDepth(masked)
	t.Logf("recovered depth: %.1f ppm unmasked, %.1f ppm masked (injected 100)", dPlain*1e6, dMasked*1e6)
	// The box's mean depth has a statistical error of 100 ppm/√(≈ 40 transits × 32 cadences) ≈ 2.8 ppm.
	if math.Abs(dMasked-depth) > 0.1*depth {
		t.Errorf("masked detrending recovered %.1f ppm of a 100 ppm transit, want within 10 %%", dMasked*1e6)
	}
	if !(dPlain < 0.85*depth) {
		t.Errorf("the unmasked 1.5 d window kept %.1f ppm of a 100 ppm, 16 h transit: the test no longer shows what masking is for", dPlain*1e6)
	}
}

// TestFlattenMaskLength: a mask of the wrong length is a programmer error.
func TestFlattenMaskLength(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Flatten accepted a mask shorter than the light curve")
		}
	}()
	Flatten([]float64{1, 2, 3}, []float64{1, 1, 1}, Options{Mask: []bool{false}})
}
