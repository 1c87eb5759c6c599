package rv

import (
	"math"
	"math/rand/v2"
	"testing"
)

// glsDirect is the textbook GLS with every sine and cosine computed directly, as an independent reference.
func glsDirect(t, y, dy []float64, f float64) float64 {
	var W, Y, C, S, YY, YC, YS, CC, CS float64
	for i := range t {
		W += 1 / (dy[i] * dy[i])
	}
	for i := range t {
		w := 1 / (dy[i] * dy[i]) / W
		s, c := math.Sincos(2 * math.Pi * f * t[i])
		Y += w * y[i]
		C += w * c
		S += w * s
		YY += w * y[i] * y[i]
		YC += w * y[i] * c
		YS += w * y[i] * s
		CC += w * c * c
		CS += w * c * s
	}
	SS := 1 - CC - S*S
	YY -= Y * Y
	YC -= Y * C
	YS -= Y * S
	CC -= C * C
	CS -= C * S
	return (SS*YC*YC + CC*YS*YS - 2*CS*YC*YS) / (YY * (CC*SS - CS*CS))
}

func TestGLSAgainstDirect(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 60
	tt, y, dy := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		tt[i] = 2450000 + 900*r.Float64() // absolute JD: the recurrence must survive large times
		dy[i] = 1 + r.Float64()
		y[i] = 5*math.Sin(2*math.Pi*tt[i]/17.3+1) + dy[i]*r.NormFloat64() + 3
	}
	freq := FrequencyGrid(900, 2, 1000, 10)
	p := GLS(nil, tt, y, dy, freq)
	best := 0
	for k := range freq {
		if want := glsDirect(tt, y, dy, freq[k]); math.Abs(p[k]-want) > 1e-8 {
			t.Fatalf("f=%g: recurrence %g, direct %g", freq[k], p[k], want)
		}
		if p[k] > p[best] {
			best = k
		}
	}
	if P := 1 / freq[best]; math.Abs(P-17.3) > 0.1 {
		t.Errorf("highest peak at %.3f d, want 17.3", P)
	}
	if fap := FAP(p[best], n, 900, freq[len(freq)-1]-freq[0]); fap > 1e-6 {
		t.Errorf("FAP of a K/σ ≈ 3 sinusoid on 60 points = %g, want tiny", fap)
	}
	if fap := FAP(0.05, n, 900, 0.5); fap < 0.5 {
		t.Errorf("FAP of a weak peak (p = 0.05) = %g, want large", fap)
	}
}

func BenchmarkGLS(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name string
		n    int
		span float64
	}{{"N80_span600", 80, 600}, {"N640_span7000", 640, 7000}} {
		tt, y, dy := make([]float64, c.n), make([]float64, c.n), make([]float64, c.n)
		for i := range tt {
			tt[i], y[i], dy[i] = c.span*r.Float64(), r.NormFloat64(), 1
		}
		freq := FrequencyGrid(c.span, 2, 5000, 8)
		dst := make([]float64, len(freq))
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				GLS(dst, tt, y, dy, freq)
			}
		})
	}
}

// TestSeparatedPeaks checks the period-separation rule both peak pickers share: points are taken in the given
// order, and one within minLogSep in ln P of a point already taken is skipped.
func TestSeparatedPeaks(t *testing.T) {
	freq := []float64{1 / 10.0, 1 / 10.5, 1 / 20.0, 1 / 21.0, 1 / 40.0}
	power := []float64{5, 4, 3, 2, 1}
	// ln(10.5/10) = 0.049 and ln(21/20) = 0.049 are below 0.1; the other pairs are at least 0.69 apart.
	got := separatedPeaks([]int{0, 1, 2, 3, 4}, freq, power, 10, 0.1)
	want := []float64{10, 20, 40}
	if len(got) != len(want) {
		t.Fatalf("got %d peaks %+v, want periods %v", len(got), got, want)
	}
	for i, p := range got {
		if math.Abs(p.PeriodDays-want[i]) > 1e-12 || p.Power != power[[]int{0, 2, 4}[i]] {
			t.Errorf("peak %d: %+v, want period %v", i, p, want[i])
		}
	}
	// The order decides which of two close points is kept, and k caps the count.
	if got := separatedPeaks([]int{1, 0, 3}, freq, power, 1, 0.1); len(got) != 1 || math.Abs(got[0].PeriodDays-10.5) > 1e-12 {
		t.Errorf("order 1, 0, 3 with k = 1: %+v, want the 10.5 d point only", got)
	}
}
