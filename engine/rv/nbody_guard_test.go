package rv

import (
	"errors"
	"math"
	"testing"
)

// sevenPlanets is a seven-planet system with its shortest period pDays, spread to ten times that.
func sevenPlanets(pDays float64) []Orbit3D {
	ps := make([]Orbit3D, 7)
	for k := range ps {
		ps[k] = StargazerOrbit(0.01, pDays*math.Pow(10, float64(k)/6), 0.1, 0.3*float64(k), 0.2, 1.1*float64(k), 1.4)
	}
	return ps
}

// TestNBodyStepBudget gives the integrator what a bad task file can hold: a time of 1e308 days (ran over five
// minutes before the budget), a period of 10⁻⁶ d over a 1000-day span, and a NaN time. Each fails with
// ErrNBodySteps, leaving dst zero, without integrating (the span check comes first).
func TestNBodyStepBudget(t *testing.T) {
	one := []Orbit3D{StargazerOrbit(1, 10, 0.1, 0.2, 0.3, 0.4, 1.5)}
	cases := []struct {
		name    string
		times   []float64
		planets []Orbit3D
	}{
		{"t=1e308", []float64{0, 1, 1e308}, one},
		{"P=1e-6 d", []float64{0, 500, 1000}, []Orbit3D{StargazerOrbit(1, 1e-6, 0.1, 0.2, 0.3, 0.4, 1.5)}},
		{"NaN time", []float64{0, math.NaN()}, one},
	}
	for _, c := range cases {
		dst := []float64{7, 7, 7}[:len(c.times)]
		err := NBodyStarVX(dst, c.times, 1, c.planets)
		if !errors.Is(err, ErrNBodySteps) {
			t.Errorf("%s: err %v, want ErrNBodySteps", c.name, err)
		}
		for _, v := range dst {
			if v != 0 {
				t.Errorf("%s: dst %v not zeroed", c.name, dst)
				break
			}
		}
	}
	// A span the first check lets through (it needs only MaxNBodySteps/4 steps of a quarter period) but which
	// seven planets on eccentric orbits integrate in smaller steps: the step counter stops it.
	p := 1.0
	long := []float64{0, p / 4 * MaxNBodySteps / 4}
	if err := NBodyStarVX(make([]float64, 2), long, 1, sevenPlanets(p)); !errors.Is(err, ErrNBodySteps) {
		t.Errorf("%d quarter periods of seven planets: %v, want ErrNBodySteps from the step counter", MaxNBodySteps/4, err)
	}
}

// BenchmarkNBodyStarVXBudget runs seven planets until the step counter stops them at MaxNBodySteps: the longest
// any input can make NBodyStarVX run.
func BenchmarkNBodyStarVXBudget(b *testing.B) {
	p := 1.0
	times := []float64{0, p / 4 * MaxNBodySteps / 4}
	dst := make([]float64, len(times))
	for b.Loop() {
		if err := NBodyStarVX(dst, times, 1, sevenPlanets(p)); !errors.Is(err, ErrNBodySteps) {
			b.Fatal(err)
		}
	}
}
