package detrend

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// spottedStar returns a year of Kepler-like cadences of a star with a 10 d, 0.2 % modulation, white noise of
// sigma and 1000 ppm, 3.6 h transits every 7.3 d.
func spottedStar(sigma float64, seed uint64) (tt, f []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	tt = keplerTimes(372)
	f = make([]float64, len(tt))
	for i, x := range tt {
		f[i] = (1 + 0.002*math.Sin(2*math.Pi*x/10)) * (boxDip(x, 7.3, 172.1, 0.15, 1e-3) + sigma*rng.NormFloat64())
	}
	return tt, f
}

// TestFlattenKnotsFollowsFlatten checks the coarse grid against the per-cadence trend: with 16 knots per
// window the trends differ by well under the noise, out-of-transit scatter and kept depth agree within 2 %.
func TestFlattenKnotsFollowsFlatten(t *testing.T) {
	const sigma = 300e-6
	tt, f := spottedStar(sigma, 3)
	flat, trend := Flatten(tt, f, Options{})
	kflat, ktrend := FlattenKnots(tt, f, Options{}, 16)
	var d2 float64
	for i := range trend {
		d2 += (ktrend[i] - trend[i]) * (ktrend[i] - trend[i])
		if kflat[i] != f[i]/ktrend[i] {
			t.Fatalf("flat[%d] = %v, want f/trend = %v", i, kflat[i], f[i]/ktrend[i])
		}
	}
	// The interpolation error of a 10 d sinusoid between knots 1.5/16 d apart is ≈ 0.002·(2π/10)²·0.094²/8 ≈
	// 1e-6; the rest is the knots' own noise, far below σ/√(window cadences) ≈ 35 ppm.
	if rms := math.Sqrt(d2 / float64(len(trend))); rms > 0.1*sigma {
		t.Errorf("rms trend difference %.1f ppm, want ≤ %.1f ppm", rms*1e6, 0.1*sigma*1e6)
	}
	scatter := func(x []float64) (out float64, depth float64) {
		var o, in []float64
		for i, ti := range tt {
			switch {
			case boxDip(ti, 7.3, 172.1, 0.15-2*cadence, 1) < 1:
				in = append(in, x[i])
			case boxDip(ti, 7.3, 172.1, 0.15+2*cadence, 1) == 1:
				o = append(o, x[i])
			}
		}
		mo, so := meanStd(o)
		mi, _ := meanStd(in)
		return so, mo - mi
	}
	s, d := scatter(flat)
	ks, kd := scatter(kflat)
	t.Logf("scatter %.1f / %.1f ppm, depth %.0f / %.0f ppm (per cadence / knots)", s*1e6, ks*1e6, d*1e6, kd*1e6)
	if math.Abs(ks/s-1) > 0.02 || math.Abs(kd/d-1) > 0.02 {
		t.Errorf("knots: scatter %.1f ppm and depth %.0f ppm, per-cadence %.1f and %.0f: want within 2 %%", ks*1e6, kd*1e6, s*1e6, d*1e6)
	}
}

// TestFlattenKnotsSegmentsAreIndependent checks that a segment's trend does not depend on the segments beside
// it: detrending the whole light curve and each segment alone give the same values, bit for bit.
func TestFlattenKnotsSegmentsAreIndependent(t *testing.T) {
	tt, f := spottedStar(500e-6, 4)
	_, all := FlattenKnots(tt, f, Options{}, 16)
	for s := 0; s < len(tt); {
		e := s + 1
		for e < len(tt) && tt[e]-tt[e-1] <= DefaultGapDays {
			e++
		}
		_, one := FlattenKnots(tt[s:e], f[s:e], Options{}, 16)
		for i := range one {
			if one[i] != all[s+i] {
				t.Fatalf("segment [%d, %d): trend[%d] alone %v, within the light curve %v", s, e, s+i, one[i], all[s+i])
			}
		}
		s = e
	}
}

func BenchmarkFlattenKnotsYear(b *testing.B) {
	tt, f := spottedStar(300e-6, 5)
	for b.Loop() {
		FlattenKnots(tt, f, Options{}, 16)
	}
}

// TestPlaceKnotsWindowsMatchBisection checks that each knot's cadence range, found by stepping from the
// previous knot's, is the one bisecting its segment gives: lo the first cadence with t ≥ x − h, hi the first
// with t > x + h. The light curves have gaps, short segments, duplicate and irregular times, and the knot
// spacing ranges from more than a window to less than a cadence.
func TestPlaceKnotsWindowsMatchBisection(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	year := keplerTimes(372)
	jittered := make([]float64, 0, 3000)
	for x := 100.0; len(jittered) < cap(jittered); {
		jittered = append(jittered, x)
		switch r := rng.IntN(100); {
		case r < 3:
			x += 0.6 + rng.Float64() // a gap
		case r < 6: // a duplicate time
		default:
			x += 0.02 * rng.Float64()
		}
	}
	for _, tt := range [][]float64{year, jittered, {5}, {5, 5.01}} {
		for _, window := range []float64{0.1, 1.5, 4} {
			for _, perWindow := range []float64{0.3, 1, 16, 100} {
				for _, k := range placeKnots(tt, DefaultGapDays, window, perWindow) {
					s, e := segmentOf(tt, k.lo, DefaultGapDays)
					first, last, half := tt[s], tt[e-1], window/2
					h := math.Min(half, math.Max(math.Min(k.t-first, last-k.t), half/3))
					lo := s + sort.SearchFloat64s(tt[s:e], k.t-h)
					hi := s + sort.Search(e-s, func(i int) bool { return tt[s+i] > k.t+h })
					if k.lo != lo || k.hi != hi {
						t.Fatalf("window %v, %v knots per window, knot at %v: cadences [%d, %d), bisection gives [%d, %d)",
							window, perWindow, k.t, k.lo, k.hi, lo, hi)
					}
				}
			}
		}
	}
}

// segmentOf returns the segment [s, e) of the sorted t (split at gaps longer than gapDays) that holds cadence i.
func segmentOf(t []float64, i int, gapDays float64) (s, e int) {
	s, e = i, i+1
	for s > 0 && t[s]-t[s-1] <= gapDays {
		s--
	}
	for e < len(t) && t[e]-t[e-1] <= gapDays {
		e++
	}
	return s, e
}
