package rv

import (
	"math"
	"testing"
)

func TestSolveKeplerResidual(t *testing.T) {
	for _, e := range []float64{0, 0.1, 0.5, 0.9, 0.97, 0.99, 0.999} {
		for k := -50; k <= 50; k++ {
			M := float64(k) * 0.137
			E := SolveKepler(M, e)
			want := math.Mod(M, 2*math.Pi)
			if want < 0 {
				want += 2 * math.Pi
			}
			got := math.Mod(E-e*math.Sin(E), 2*math.Pi)
			if got < 0 {
				got += 2 * math.Pi
			}
			if d := math.Abs(got - want); d > 1e-12 && math.Abs(d-2*math.Pi) > 1e-12 {
				t.Fatalf("e=%g M=%g: E − e sin E = %.15g, want %.15g", e, M, got, want)
			}
		}
	}
}

// TestForwardModelHand checks v = K (cos(ν+ω) + e cos ω) at points where ν is known by hand.
func TestForwardModelHand(t *testing.T) {
	const K, P, tRef = 10.0, 20.0, 100.0
	cases := []struct {
		name string
		p    Planet
		t    float64
		want float64
	}{
		// Circular, ω = 0, M0 = 0: v = K cos(2π (t − t_ref)/P).
		{"circular t_ref", Planet{P, K, 0, 0, 0}, tRef, K},
		{"circular quarter", Planet{P, K, 0, 0, 0}, tRef + P/4, 0},
		{"circular half", Planet{P, K, 0, 0, 0}, tRef + P/2, -K},
		// Circular with ω = 1, M0 = 0.5: v = K cos(M + ω) = K cos(1.5) at t_ref.
		{"circular phased", Planet{P, K, 0, 1, 0.5}, tRef, K * math.Cos(1.5)},
		// Eccentric at periastron (M = 0 ⇒ ν = 0): v = K (1 + e) cos ω.
		{"periastron", Planet{P, K, 0.6, 0.3, 0}, tRef, K * 1.6 * math.Cos(0.3)},
		// Apoastron (M = π ⇒ ν = π): v = −K (1 − e) cos ω.
		{"apoastron", Planet{P, K, 0.6, 0.3, math.Pi}, tRef, -K * 0.4 * math.Cos(0.3)},
		// E = π/2 ⇒ M = π/2 − e, cos ν = −e, sin ν = √(1−e²): v = −K √(1−e²) sin ω.
		{"E=π/2", Planet{P, K, 0.6, 0.3, math.Pi/2 - 0.6}, tRef, -K * 0.8 * math.Sin(0.3)},
		// The same point one period later.
		{"E=π/2 + P", Planet{P, K, 0.6, 0.3, math.Pi/2 - 0.6}, tRef + P, -K * 0.8 * math.Sin(0.3)},
		// Very eccentric, at periastron.
		{"e=0.99 periastron", Planet{P, K, 0.99, 2.0, 0}, tRef, K * 1.99 * math.Cos(2.0)},
	}
	for _, c := range cases {
		dst := []float64{0}
		c.p.AddRV(dst, []float64{c.t}, tRef)
		if math.Abs(dst[0]-c.want) > 1e-9 {
			t.Errorf("%s: v = %.12g, want %.12g", c.name, dst[0], c.want)
		}
	}
}

// TestSemiAmplitude checks Jupiter around the Sun (P = 4332.59 d, e = 0.0489: K ≈ 12.5 m/s, the textbook value)
// and the round trip K ↔ m sin i.
func TestSemiAmplitude(t *testing.T) {
	k := SemiAmplitude(1, 4332.59, 0.0489, 1)
	if math.Abs(k-12.47) > 0.05 {
		t.Errorf("Jupiter K = %.3f m/s, want ≈ 12.47", k)
	}
	// 1 M_J, 1 M☉, P = 1 yr, circular: K is the constant itself.
	if k := SemiAmplitude(1, YearDays, 0, 1); math.Abs(k-KConstMS) > 1e-12 {
		t.Errorf("K = %g, want %g", k, KConstMS)
	}
	for _, c := range [][4]float64{{0.01, 2, 0, 0.7}, {0.3, 45, 0.4, 1.1}, {1, 300, 0.9, 1.3}} {
		k := SemiAmplitude(c[0], c[1], c[2], c[3])
		if m := MSinI(k, c[1], c[2], c[3]); math.Abs(m/c[0]-1) > 1e-12 {
			t.Errorf("round trip of m sin i %g: got %g", c[0], m)
		}
	}
}

func BenchmarkModelRV(b *testing.B) {
	for _, n := range []int{80, 640} {
		tt := make([]float64, n)
		for i := range tt {
			tt[i] = float64(i) * 3.7
		}
		dst := make([]float64, n)
		ps := []Planet{{12.3, 5, 0.3, 1, 2}, {45, 3, 0.1, 2, 1}, {300, 8, 0.6, 4, 0.5}}
		b.Run(map[int]string{80: "N80", 640: "N640"}[n], func(b *testing.B) {
			for b.Loop() {
				ModelRV(dst, tt, 0, ps)
			}
		})
	}
}

// TestGradientAgainstDifferences checks the analytic derivatives of the fit parameters against central
// differences of the forward model.
func TestGradientAgainstDifferences(t *testing.T) {
	tt := make([]float64, 40)
	for i := range tt {
		tt[i] = 3 + 7.3*float64(i)
	}
	for _, p := range []Planet{{12.3, 5, 0.3, 1, 2}, {45, 3, 0.8, 4, 0.5}, {7, 2, 0.02, 2.5, 6}} {
		f := &fitter{opt: FitOptions{MaxE: 0.999}}
		th := make([]float64, 5)
		encode(th, p)
		base := f.decode(th)
		v := make([]float64, len(tt))
		var g [5][]float64
		for q := range g {
			g[q] = make([]float64, len(tt))
		}
		base.addRVAndGrad(v, g, tt, 3, nil, false)
		for q := range 5 {
			hq := 1e-6
			up, dn := append([]float64(nil), th...), append([]float64(nil), th...)
			up[q] += hq
			dn[q] -= hq
			vu, vd := make([]float64, len(tt)), make([]float64, len(tt))
			f.decode(up).AddRV(vu, tt, 3)
			f.decode(dn).AddRV(vd, tt, 3)
			for i := range tt {
				num := (vu[i] - vd[i]) / (2 * hq)
				if math.Abs(num-g[q][i]) > 1e-5*math.Max(1, math.Abs(num)) {
					t.Fatalf("planet %+v param %d point %d: analytic %g, numeric %g", p, q, i, g[q][i], num)
				}
			}
		}
	}
}

// solveKeplerSC's sine and cosine are those of its E, and E solves Kepler's equation, across M and e.
func TestSolveKeplerSinCos(t *testing.T) {
	for _, e := range []float64{0, 1e-6, 0.1, 0.5, 0.9, 0.95, 0.999} {
		for i := range 2001 {
			M := -7 + 14*float64(i)/2000
			E, s, c := solveKeplerSC(M, e, -1)
			ws, wc := math.Sincos(E)
			if math.Abs(s-ws) > 1e-14 || math.Abs(c-wc) > 1e-14 {
				t.Fatalf("e = %g, M = %g: sin, cos = %.17g, %.17g; want %.17g, %.17g", e, M, s, c, ws, wc)
			}
			r := math.Mod(E-e*ws-M, 2*math.Pi)
			if r > math.Pi {
				r -= 2 * math.Pi
			} else if r < -math.Pi {
				r += 2 * math.Pi
			}
			if math.Abs(r) > 1e-13 {
				t.Fatalf("e = %g, M = %g: E − e sin E − M = %g", e, M, r)
			}
			if E2 := SolveKepler(M, e); E2 != E {
				t.Fatalf("SolveKepler and solveKeplerSC differ: %g %g", E2, E)
			}
			// Started from a nearby or a distant anomaly, the solver finds the same root.
			for _, dE := range []float64{1e-9, -1e-4, 0.05, 3} {
				E0 := math.Mod(E+dE+2*math.Pi, 2*math.Pi)
				if E3, s3, c3 := solveKeplerSC(M, e, E0); math.Abs(E3-E) > 1e-13 && math.Abs(math.Abs(E3-E)-2*math.Pi) > 1e-13 ||
					math.Abs(s3-s) > 1e-13 || math.Abs(c3-c) > 1e-13 {
					t.Fatalf("e = %g, M = %g, start %g: E = %.17g, want %.17g", e, M, E0, E3, E)
				}
			}
		}
	}
}
