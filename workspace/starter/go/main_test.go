package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"transitbench/data"
	"transitbench/data/sim"
)

// TestScanBeyondSizedPeriod: the refinement of a candidate at the top of the coarse grid steps a little past
// the longest period the phase-bin scratch was sized for (a third of the span); scan must grow the scratch
// rather than slice past it, and still measure the planted box.
func TestScanBeyondSizedPeriod(t *testing.T) {
	const (
		cadence = 0.0204336 // Kepler long cadence, days
		span    = 372.0
		depth   = 2e-3
		dur     = 0.3
	)
	pmax := span / 3
	period := pmax * 1.003 // two refinement steps of the coarse grid past pmax
	var tt, y, dy []float64
	for i := 0; float64(i)*cadence <= span; i++ {
		ti := float64(i) * cadence
		f := 1.0
		if ph := math.Mod(ti-1+period/2, period) - period/2; math.Abs(ph) < dur/2 {
			f -= depth
		}
		tt, y, dy = append(tt, ti), append(y, f), append(dy, 1e-4)
	}
	s := newSeries(tt, y, dy, pmax)
	got := s.scan(period)
	if math.Abs(got.depth/depth-1) > 0.2 {
		t.Errorf("depth %.2e at P = %.3f d, want %.2e", got.depth, period, depth)
	}
}

// BenchmarkStarterDevStar runs the starter's work on four simulated dev-like stars per op (an injected planet
// on a random star and on a false-alarm star, an untouched star and an eclipsing binary, each a full Kepler-like
// light curve from the repository's simulator): reading lightcurve.csv, the detrending and the BLS search.
// It reports the time per star besides the time per op, and the process's processor time per star
// (cpu-sec/star), which a machine busy with other work inflates less than the wall time.
func BenchmarkStarterDevStar(b *testing.B) {
	specs := []sim.Spec{
		{Seed: 11, Category: data.CategoryInjected, Population: data.PopulationRandom},
		{Seed: 12, Category: data.CategoryInjected, Population: data.PopulationFalseAlarm},
		{Seed: 13, Category: data.CategoryUntouched, Population: data.PopulationRandom},
		{Seed: 14, Category: data.CategoryEB},
	}
	dir := b.TempDir()
	var paths []string
	for i, spec := range specs {
		spec.Set, spec.Index, spec.ID = "bench", i, fmt.Sprintf("bench-%d", i)
		r, err := sim.Generate(spec, sim.DefaultKnobs())
		if err != nil {
			b.Fatal(err)
		}
		star := filepath.Join(dir, spec.ID)
		if err := data.WriteStarDir(star, r.Curve, &r.Star); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, filepath.Join(star, data.LightCurveFile))
	}
	cpu0 := cpuSeconds(b)
	for b.Loop() {
		for _, path := range paths {
			t, f, e, err := readLightCurve(path)
			if err != nil {
				b.Fatal(err)
			}
			bestPeak(t, f, e)
		}
	}
	stars := float64(b.N * len(paths))
	b.ReportMetric(b.Elapsed().Seconds()/stars, "sec/star")
	b.ReportMetric((cpuSeconds(b)-cpu0)/stars, "cpu-sec/star")
}

// cpuSeconds returns the user and system processor time the process has used, in seconds.
func cpuSeconds(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// TestMedianMatchesSort: median selects the middle values instead of sorting, and must return exactly what the
// middle of the sorted values gives, for odd and even lengths, ties and already sorted input.
func TestMedianMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 1; n < 300; n++ {
		for _, kind := range []string{"normal", "ties", "sorted", "reversed"} {
			x := make([]float64, n)
			for i := range x {
				switch kind {
				case "ties":
					x[i] = float64(rng.IntN(5))
				case "sorted":
					x[i] = float64(i) / 7
				case "reversed":
					x[i] = float64(n-i) / 7
				default:
					x[i] = rng.NormFloat64()
				}
			}
			before := slices.Clone(x)
			s := slices.Clone(x)
			slices.Sort(s)
			want := s[n/2]
			if n%2 == 0 {
				want = 0.5 * (s[n/2-1] + s[n/2])
			}
			if got := median(x); got != want {
				t.Fatalf("median of %d %s values: %v, want %v", n, kind, got, want)
			}
			if !slices.Equal(x, before) {
				t.Fatalf("median of %d %s values changed its input", n, kind)
			}
		}
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of no values is not NaN")
	}
}

// TestDetrendMatchesSortingEachWindow: detrend keeps its window sorted as it slides; each cadence must get
// exactly the median that copying and sorting its window gives, through gaps and tied fluxes.
func TestDetrendMatchesSortingEachWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var tt, f []float64
	for x := 0.0; x < 40; x += 0.0204 {
		if math.Mod(x, 10) > 8.5 { // a 1.5-day gap every 10 days
			continue
		}
		tt = append(tt, x)
		f = append(f, 1+float64(rng.IntN(40))*1e-4) // few distinct values, so many ties
	}
	got := detrend(tt, f, windowDays)
	for i := range tt {
		var window []float64
		for j := range tt {
			if tt[j] >= tt[i]-windowDays/2 && tt[j] <= tt[i]+windowDays/2 {
				window = append(window, f[j])
			}
		}
		slices.Sort(window)
		want := f[i] / middle(window)
		if got[i] != want {
			t.Fatalf("cadence %d: %v, want %v", i, got[i], want)
		}
	}
}

// TestScanMatchesDividingEveryBox: scan tests most boxes without a division and ranks only those that could
// beat the best so far; it must return exactly the peak that ranking every box by s² / (w·(W − w)) gives.
func TestScanMatchesDividingEveryBox(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var tt, y, dy []float64
	for x := 0.0; x < 90; x += 0.0204 * 3 {
		if math.Mod(x, 30) > 29 {
			continue
		}
		f := 1 + 3e-4*rng.NormFloat64()
		if math.Mod(x, 3.7) < 0.1 {
			f -= 5e-4
		}
		tt, y, dy = append(tt, x), append(y, f), append(dy, 3e-4*(1+rng.Float64()))
	}
	s := newSeries(tt, y, dy, 30)
	for p := 0.5; p < 30; p *= 1.013 {
		if got, want := s.scan(p), divideEveryBox(s, p); got != want {
			t.Fatalf("P = %v: scan gives %+v, dividing every box %+v", p, got, want)
		}
	}
}

// divideEveryBox is scan as written before its boxes were screened: the same fold, then every box's q by
// division.
func divideEveryBox(s *series, p float64) peak {
	dmin := shortestDuration(p)
	nb := int(math.Ceil(p / (dmin / 4)))
	bw, bwy := s.fold(p, nb)
	fnb, sw := float64(nb), s.sw
	var best peak
	var bestQ float64
	for _, d := range durations {
		if d > 0.25*p {
			break
		}
		if d < 0.7*dmin {
			continue
		}
		m := max(1, int(math.Round(d/(p/fnb))))
		var win, wyin float64
		for k := 0; k < m; k++ {
			win += bw[k]
			wyin += bwy[k]
		}
		bestJ := -1
		for j := 0; j < nb; j++ {
			if wyin < 0 && win > 0 && win < sw {
				if q := wyin * wyin / (win * (sw - win)); q > bestQ {
					bestQ, bestJ = q, j
				}
			}
			win += bw[j+m] - bw[j]
			wyin += bwy[j+m] - bwy[j]
		}
		if bestJ >= 0 {
			win, wyin = 0, 0
			for k := bestJ; k < bestJ+m; k++ {
				win += bw[k]
				wyin += bwy[k]
			}
			best = peak{period: p, t0: s.t0 + (float64(bestJ)+float64(m)/2)*p/fnb, duration: d,
				depth: -wyin * sw / (win * (sw - win)), snr: math.Sqrt(bestQ * sw)}
		}
	}
	return best
}
