package fold

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestPhase(t *testing.T) {
	const period, t0 = 3.0, 10.0
	cases := []struct{ t, want float64 }{
		{10, 0}, {11, 1}, {11.4999, 1.4999}, {11.5, -1.5}, {9, -1}, {13.2, 0.2}, {-20.5, -0.5}, {4, 0},
	}
	in := make([]float64, len(cases))
	for i, c := range cases {
		in[i] = c.t
	}
	got := Phase(in, period, t0)
	for i, c := range cases {
		if math.Abs(got[i]-c.want) > 1e-12 {
			t.Errorf("Phase(%g) = %g, want %g", c.t, got[i], c.want)
		}
	}
	// The range is [−P/2, P/2) for every input, including values near the edges.
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, 10000)
	for i := range x {
		x[i] = 170 + 372*rng.Float64()
		if i%2 == 0 {
			x[i] = t0 + float64(rng.IntN(200)-100)*period + period/2 // exactly on the edge
		}
	}
	for i, p := range Phase(x, period, t0) {
		if p < -period/2 || p >= period/2 {
			t.Fatalf("Phase(%v) = %v outside [−P/2, P/2)", x[i], p)
		}
	}
}

func TestEpochsAndInTransit(t *testing.T) {
	tt := []float64{9.9, 10.1, 12.9, 13.05, 14.6, 16.2, math.NaN()}
	ep := Epochs(tt, 3, 10)
	want := []int{0, 0, 1, 1, 2, 2, math.MinInt}
	for i := range want {
		if ep[i] != want[i] {
			t.Errorf("Epochs[%d] = %d, want %d", i, ep[i], want[i])
		}
	}
	in := InTransit(tt, 3, 10, 0.3)
	wantIn := []bool{true, true, true, true, false, false, false}
	for i := range wantIn {
		if in[i] != wantIn[i] {
			t.Errorf("InTransit[%d] = %v, want %v", i, in[i], wantIn[i])
		}
	}
}

func TestBin(t *testing.T) {
	x := []float64{-1, -0.9, -0.2, 0.1, 0.2, 0.3, 0.99, 1, math.NaN(), 0.5}
	y := []float64{5, 1, 2, 3, 4, 8, 6, 7, 9, math.NaN()}
	c, m, e, n := Bin(x, y, -1, 1, 4)
	wantC := []float64{-0.75, -0.25, 0.25, 0.75}
	wantN := []int{2, 1, 3, 1}
	wantM := []float64{3, 2, 5, 6}
	for j := range 4 {
		if c[j] != wantC[j] || n[j] != wantN[j] || math.Abs(m[j]-wantM[j]) > 1e-12 {
			t.Errorf("bin %d: center %g count %d mean %g, want %g %d %g", j, c[j], n[j], m[j], wantC[j], wantN[j], wantM[j])
		}
	}
	// Bin 0 holds 5 and 1: s = 2√2, err = s/√2 = 2. Bin 2 holds 3, 4, 8: s = √7, err = √(7/3).
	if math.Abs(e[0]-2) > 1e-12 || math.Abs(e[2]-math.Sqrt(7.0/3)) > 1e-12 || !math.IsNaN(e[1]) {
		t.Errorf("errors %v, want [2 NaN %g NaN]", e, math.Sqrt(7.0/3))
	}
	_, m, _, _ = Bin([]float64{0.5}, []float64{1}, 0, 4, 2)
	if !math.IsNaN(m[1]) {
		t.Errorf("empty bin mean %g, want NaN", m[1])
	}
}

func TestFoldedTransitDepth(t *testing.T) {
	// A year of cadences with a 500 ppm, 0.2 d box every 4.3 d: folding at the true ephemeris and binning at
	// 0.05 d puts the box in the two central bins with the injected depth.
	rng := rand.New(rand.NewPCG(3, 4))
	const cadence = 29.4244 / 1440
	var tt, f []float64
	for x := 170.0; x < 542; x += cadence {
		tt = append(tt, x)
		v := 1 + 100e-6*rng.NormFloat64()
		if math.Abs(math.Remainder(x-171.3, 4.3)) < 0.1 {
			v -= 500e-6
		}
		f = append(f, v)
	}
	ph := Phase(tt, 4.3, 171.3)
	_, m, e, _ := Bin(ph, f, -0.5, 0.5, 20)
	for j := range 20 {
		want := 1.0
		if j == 8 || j == 9 || j == 10 || j == 11 {
			want = 1 - 500e-6
		}
		if math.Abs(m[j]-want) > 5*e[j] {
			t.Errorf("bin %d: mean %.6f ± %.6f, want %.6f", j, m[j], e[j], want)
		}
	}
}

func benchmarkPhaseBin(b *testing.B, spanDays float64) {
	const cadence = 29.4244 / 1440
	var tt, f []float64
	for x := 170.0; x < 170+spanDays; x += cadence {
		tt = append(tt, x)
		f = append(f, 1)
	}
	ph := make([]float64, len(tt))
	b.ReportMetric(float64(len(tt)), "points")
	for b.Loop() {
		PhaseInto(ph, tt, 12.3456, 173)
		Bin(ph, f, -1, 1, 200)
	}
}

// Size tiers: a quarter (≈ 4.6 k cadences), a Kepler year (≈ 18.2 k, no gaps) and four years.
func BenchmarkPhaseBinQuarter(b *testing.B) { benchmarkPhaseBin(b, 93) }
func BenchmarkPhaseBinYear(b *testing.B)    { benchmarkPhaseBin(b, 372) }
func BenchmarkPhaseBin4Years(b *testing.B)  { benchmarkPhaseBin(b, 4*372) }
