package rv

import (
	"math"
	"math/rand/v2"
	"testing"
)

// synth makes a two-instrument series from planets with Gaussian noise σ and offsets 5 and −3 m/s.
func synth(seed uint64, n int, span, sigma float64, planets []Planet) *Data {
	return synthTwo(rand.New(rand.NewPCG(seed, 7)), n, span, planets, [2]float64{sigma, sigma}, [2]float64{5, -3},
		[2]float64{sigma, sigma})
}

// synthTwo makes a series of n points at times drawn uniformly over span from planets: every third point is
// instrument B, the others A; a point of instrument k (0: A, 1: B) has quoted error sigma[k], offset off[k] and
// Gaussian noise of standard deviation sd[k].
func synthTwo(r *rand.Rand, n int, span float64, planets []Planet, sigma, off, sd [2]float64) *Data {
	tt, y, dy := make([]float64, n), make([]float64, n), make([]float64, n)
	inst := make([]string, n)
	for i := range n {
		tt[i] = span * r.Float64()
	}
	ModelRV(y, tt, tt[0], planets)
	for i := range n {
		k := 0
		inst[i] = "A"
		if i%3 == 0 {
			k, inst[i] = 1, "B"
		}
		dy[i] = sigma[k]
		y[i] += off[k] + sd[k]*r.NormFloat64()
	}
	d, err := NewData(tt, y, dy, inst)
	if err != nil {
		panic(err)
	}
	return d
}

func TestFitRecoversTwoPlanets(t *testing.T) {
	truth := []Planet{{PeriodDays: 11.2, KMS: 8, E: 0.3, OmegaRad: 1.2, M0Rad: 0.4}, {PeriodDays: 73, KMS: 5, E: 0.1, OmegaRad: 4, M0Rad: 2}}
	d := synth(3, 90, 400, 1, truth)
	start := []Planet{{PeriodDays: 11.25, KMS: 6, M0Rad: 1.5}, {PeriodDays: 72, KMS: 4, M0Rad: 6}}
	fit, err := Fit(d, start, FitOptions{MinPeriodDays: 2, MaxPeriodDays: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range fit.Planets {
		w := truth[i]
		if math.Abs(p.PeriodDays/w.PeriodDays-1) > 0.01 || math.Abs(p.KMS/w.KMS-1) > 0.1 || math.Abs(p.E-w.E) > 0.05 {
			t.Errorf("planet %d: got %+v, want near %+v", i, p, w)
		}
	}
	// Offsets: 5 and −3 m/s as injected, to within a few σ/√n.
	want := map[string]float64{"A": 5, "B": -3}
	for k, name := range d.Instruments {
		if math.Abs(fit.Offsets[k]-want[name]) > 0.5 {
			t.Errorf("offset of %s = %.3f, want ≈ %g", name, fit.Offsets[k], want[name])
		}
	}
	// The residuals are the injected noise: RMS ≈ σ = 1.
	if fit.RMS < 0.75 || fit.RMS > 1.2 {
		t.Errorf("residual RMS %.3f, want ≈ 1", fit.RMS)
	}
}

func TestFitJitter(t *testing.T) {
	truth := []Planet{{PeriodDays: 7.5, KMS: 10, E: 0.05, OmegaRad: 1, M0Rad: 1}}
	d := synth(5, 200, 300, 3, truth)
	// Quote σ = 1 while the scatter is 3: the fitted jitter must be ≈ √(3² − 1²) ≈ 2.83.
	for i := range d.Sigmas {
		d.Sigmas[i] = 1
	}
	fit, err := Fit(d, []Planet{{PeriodDays: 7.5, KMS: 9, M0Rad: 1}}, FitOptions{FitJitter: true})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(fit.Jitter-2.83) > 0.4 {
		t.Errorf("jitter %.3f, want ≈ 2.83", fit.Jitter)
	}
}

func BenchmarkFit3Planets(b *testing.B) {
	truth := []Planet{{11.2, 8, 0.3, 1.2, 0.4}, {31, 4, 0.1, 4, 2}, {140, 6, 0.2, 3, 5}}
	d := synth(3, 80, 500, 1, truth)
	for b.Loop() {
		Fit(d, truth, FitOptions{MinPeriodDays: 2, MaxPeriodDays: 1000})
	}
}
