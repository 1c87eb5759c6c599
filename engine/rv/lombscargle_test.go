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
