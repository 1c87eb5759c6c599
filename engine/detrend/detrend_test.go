package detrend

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"transitbench/engine/stat"
)

// cadence is the Kepler long cadence, 29.4244 min, in days.
const cadence = 29.4244 / 1440

// keplerTimes returns one year of Kepler-like cadence times from BKJD 170 with 1.5 d quarterly roll gaps and
// 0.9 d monthly downlink gaps (the layout of /work/shared/bench/make_lc.py), about 17.6 k points.
func keplerTimes(spanDays float64) []float64 {
	var t []float64
	for x := 0.0; x < spanDays; x += cadence {
		q := math.Mod(x, 93)
		m := math.Mod(x, 31)
		if x > 93 && q < 1.5 || x > 31 && m < 0.9 {
			continue
		}
		t = append(t, 170+x)
	}
	return t
}

// boxDip returns 1 − depth inside transits of the given period, epoch and duration, else 1.
func boxDip(t, period, t0, duration, depth float64) float64 {
	ph := math.Mod(t-t0, period)
	if ph < 0 {
		ph += period
	}
	if ph < duration/2 || ph > period-duration/2 {
		return 1 - depth
	}
	return 1
}

// refBiweight is the textbook iteration (no sorted-window tricks): start at the median, reweight until the
// step is below 1e-12.
func refBiweight(x []float64) float64 {
	s := slices.Clone(x)
	sort.Float64s(s)
	med := stat.MedianSorted(s)
	d := make([]float64, len(s))
	for i, v := range s {
		d[i] = math.Abs(v - med)
	}
	sort.Float64s(d)
	mad := stat.MedianSorted(d)
	loc := med
	for it := 0; it < 1000 && mad > 0; it++ {
		var num, den float64
		for _, v := range s {
			u := (v - loc) / (BiweightC * mad)
			if math.Abs(u) < 1 {
				w := (1 - u*u) * (1 - u*u)
				num += w * (v - loc)
				den += w
			}
		}
		loc += num / den
		if math.Abs(num/den) < 1e-12 {
			break
		}
	}
	return loc
}

func TestBiweightMatchesReferenceWindows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tt := make([]float64, 300)
	f := make([]float64, len(tt))
	for i := range tt {
		tt[i] = float64(i) * cadence
		f[i] = 1 + 1e-3*rng.NormFloat64()
		if rng.IntN(20) == 0 {
			f[i] += 0.01 // outliers the biweight must ignore
		}
	}
	const w = 0.5
	got := Biweight(tt, f, w)
	for i := range tt {
		var win []float64
		e := math.Min(tt[i]-tt[0], tt[len(tt)-1]-tt[i])
		h := math.Min(w/2, math.Max(e, w/6)) // the documented edge rule
		for j := range tt {
			if math.Abs(tt[j]-tt[i]) <= h {
				win = append(win, f[j])
			}
		}
		// The iteration stops at a step below 1e-3 MAD; MAD ≈ 0.67e-3 here, so allow 1e-6.
		if want := refBiweight(win); math.Abs(got[i]-want) > 1e-6 {
			t.Fatalf("trend[%d] = %.12f, reference %.12f", i, got[i], want)
		}
	}
}

func TestFlattenKeepsTransitsAndRemovesVariability(t *testing.T) {
	// One Kepler year with 200 ppm white noise, 0.2 % spot-like modulation with a 10-day period and a slow
	// drift, and 3.6-hour box transits; flattened with the default 1.5 d window (the longest searched duration
	// 12 h, times three). A high-SNR transit (5σ per cadence) is clipped out of the trend and keeps its depth;
	// at 1σ per cadence clipping cannot find the transit, and the biweight, then close to a window mean, takes
	// in at most the in-transit fraction of the window: the depth drops by up to duration/window = 10 %. The
	// measured depth itself is uncertain by 200 ppm/√(51 transits · 7 cadences) ≈ 11 ppm (5 % at 200 ppm).
	cases := []struct {
		depth, keepMin, keepMax float64
	}{
		{1000e-6, 0.95, 1.05},
		{200e-6, 0.85, 1.05},
	}
	for _, c := range cases {
		rng := rand.New(rand.NewPCG(5, 6))
		tt := keplerTimes(372)
		const (
			sigma    = 200e-6
			duration = 0.15
			period   = 7.3
			t0       = 172.1
		)
		f := make([]float64, len(tt))
		for i, x := range tt {
			f[i] = (1 + 0.002*math.Sin(2*math.Pi*x/10) + 1e-3*(x-170)/372) * (boxDip(x, period, t0, duration, c.depth) + sigma*rng.NormFloat64())
		}
		flat, trend := Flatten(tt, f, Options{})
		var in, out []float64
		for i, x := range tt {
			if math.IsNaN(trend[i]) {
				t.Fatalf("trend[%d] is NaN for finite input", i)
			}
			if boxDip(x, period, t0, duration+2*cadence, 1) < 1 {
				if boxDip(x, period, t0, duration-2*cadence, 1) < 1 {
					in = append(in, flat[i])
				}
				continue
			}
			out = append(out, flat[i])
		}
		mOut, sOut := meanStd(out)
		mIn, _ := meanStd(in)
		keep := (mOut - mIn) / c.depth
		t.Logf("depth %.0f ppm: out-of-transit scatter %.1f ppm, depth kept %.3f", c.depth*1e6, sOut*1e6, keep)
		// The modulation's curvature over the window leaves about 0.002·(2π/10)²·1.5²/24 = 74 ppm at its
		// extremes (≈ 50 ppm rms): allow the scatter 10 % above the white noise.
		if sOut > 1.1*sigma {
			t.Errorf("depth %.0f ppm: out-of-transit scatter %.1f ppm, want ≤ %.1f ppm", c.depth*1e6, sOut*1e6, 1.1*sigma*1e6)
		}
		if keep < c.keepMin || keep > c.keepMax {
			t.Errorf("depth %.0f ppm: fraction kept %.3f, want in [%.2f, %.2f]", c.depth*1e6, keep, c.keepMin, c.keepMax)
		}
	}
}

func TestBiweightSegmentsAreIndependent(t *testing.T) {
	// Two segments 1 d apart (a quarter boundary) with different levels and slopes: the trend of each equals
	// the trend computed from that segment alone, so nothing leaks across the gap.
	rng := rand.New(rand.NewPCG(11, 12))
	var tt, f []float64
	for x := 0.0; x < 5; x += cadence {
		tt = append(tt, x)
		f = append(f, 1+2e-3*x+3e-4*rng.NormFloat64())
	}
	n1 := len(tt)
	for x := 6.0; x < 11; x += cadence {
		tt = append(tt, x)
		f = append(f, 1.01-1e-3*x+3e-4*rng.NormFloat64())
	}
	both := Biweight(tt, f, 1.5)
	first := Biweight(tt[:n1], f[:n1], 1.5)
	second := Biweight(tt[n1:], f[n1:], 1.5)
	for i := range both {
		want := 0.0
		if i < n1 {
			want = first[i]
		} else {
			want = second[i-n1]
		}
		if both[i] != want {
			t.Fatalf("trend at t=%.2f is %.9f, but %.9f from its own segment alone", tt[i], both[i], want)
		}
	}
	// With a gap threshold above the gap, a 3 d window near the boundary mixes the two segments.
	var s scratch
	mixed := make([]float64, len(tt))
	s.trend(mixed, tt, f, nil, 3, 2)
	both = Biweight(tt, f, 3)
	if mixed[n1-1] == both[n1-1] && mixed[n1] == both[n1] {
		t.Errorf("with a 2 d gap threshold the 1 d gap should not split the light curve")
	}
}

func TestFlattenSkipsNaNAndAcceptsUnsorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	tt := keplerTimes(30)
	f := make([]float64, len(tt))
	for i, x := range tt {
		f[i] = 1 + 0.002*math.Sin(x) + 3e-4*rng.NormFloat64()
	}
	flat, trend := Flatten(tt, f, Options{})

	// NaN flux at some cadences: NaN out there, and the rest equals the result without those cadences.
	fn := slices.Clone(f)
	var keepT, keepF []float64
	for i := range fn {
		if i%17 == 0 {
			fn[i] = math.NaN()
			continue
		}
		keepT = append(keepT, tt[i])
		keepF = append(keepF, f[i])
	}
	flatN, _ := Flatten(tt, fn, Options{})
	flatK, _ := Flatten(keepT, keepF, Options{})
	k := 0
	for i := range fn {
		if i%17 == 0 {
			if !math.IsNaN(flatN[i]) {
				t.Fatalf("flat[%d] = %g for NaN flux, want NaN", i, flatN[i])
			}
			continue
		}
		if flatN[i] != flatK[k] {
			t.Fatalf("flat[%d] = %.12f with NaNs, %.12f with those cadences removed", i, flatN[i], flatK[k])
		}
		k++
	}

	// Reversed input gives the reversed output.
	rt, rf := slices.Clone(tt), slices.Clone(f)
	slices.Reverse(rt)
	slices.Reverse(rf)
	rflat, rtrend := Flatten(rt, rf, Options{})
	for i := range tt {
		j := len(tt) - 1 - i
		if rflat[j] != flat[i] || rtrend[j] != trend[i] {
			t.Fatalf("reversed input: flat %.12f vs %.12f at t=%.3f", rflat[j], flat[i], tt[i])
		}
	}
}

func TestWindowFor(t *testing.T) {
	if got := WindowFor(0.25); got != 0.75 {
		t.Errorf("WindowFor(0.25) = %g, want 0.75 (three durations)", got)
	}
}

func meanStd(x []float64) (mean, std float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		std += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(std / float64(len(x)-1))
}

func benchmarkFlatten(b *testing.B, spanDays float64) {
	rng := rand.New(rand.NewPCG(9, 10))
	tt := keplerTimes(spanDays)
	f := make([]float64, len(tt))
	for i, x := range tt {
		f[i] = 1 + 0.005*math.Sin(2*math.Pi*x/3) + 3e-4*rng.NormFloat64()
	}
	b.ReportMetric(float64(len(tt)), "points")
	c0 := cpuSeconds()
	for b.Loop() {
		Flatten(tt, f, Options{})
	}
	b.ReportMetric((cpuSeconds()-c0)/float64(b.N)*1e3, "cpu-ms/op")
}

// Size tiers: a quarter (≈ 4.4 k cadences), one Kepler year (≈ 17.6 k, the benchmark's size) and four years.
func BenchmarkFlattenQuarter(b *testing.B) { benchmarkFlatten(b, 93) }
func BenchmarkFlattenYear(b *testing.B)    { benchmarkFlatten(b, 372) }
func BenchmarkFlatten4Years(b *testing.B)  { benchmarkFlatten(b, 4*372) }

func BenchmarkBiweightYear(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	tt := keplerTimes(372)
	f := make([]float64, len(tt))
	for i := range tt {
		f[i] = 1 + 3e-4*rng.NormFloat64()
	}
	c0 := cpuSeconds()
	for b.Loop() {
		Biweight(tt, f, 1.5)
	}
	b.ReportMetric((cpuSeconds()-c0)/float64(b.N)*1e3, "cpu-ms/op")
}

func TestClippingDoesNotCascadeAtEdges(t *testing.T) {
	// Noise-free 2 % modulation (12-day period) over a 30-day segment: the only residual is the trend's bias
	// near the segment ends. Clipping against a global scatter would call the biased end cadences outliers,
	// drop them and make the ends worse round after round; clipping against each window's own scatter must
	// leave the residual where a single pass puts it.
	var tt, f []float64
	for x := 0.0; x < 30; x += cadence {
		tt, f = append(tt, x), append(f, 1+0.02*math.Sin(2*math.Pi*x/12))
	}
	worst := func(flat []float64) float64 {
		w := 0.0
		for _, v := range flat {
			w = math.Max(w, math.Abs(v-1))
		}
		return w
	}
	single, _ := Flatten(tt, f, Options{WindowDays: 0.75, ClipIterations: -1})
	clipped, _ := Flatten(tt, f, Options{WindowDays: 0.75})
	if worst(clipped) > worst(single)*1.0001 {
		t.Errorf("largest residual %.0f ppm with clipping, %.0f ppm with a single pass", worst(clipped)*1e6, worst(single)*1e6)
	}
	// The end bias: a one-sided window of a sixth of 0.75 d on a slope of 0.02·2π/12 per day leaves about
	// 0.0105·0.125/2 ≈ 650 ppm; the interior is far better.
	if worst(single) > 800e-6 {
		t.Errorf("largest residual %.0f ppm, want below 800 ppm", worst(single)*1e6)
	}
}
