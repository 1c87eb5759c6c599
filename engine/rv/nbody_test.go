package rv

import (
	"math"
	"testing"
)

// One planet does not interact: the integration must reproduce the Keplerian star velocity, also for an
// eccentric, inclined orbit, over hundreds of orbits and for negative and unsorted times.
func TestNBodyOnePlanetIsKeplerian(t *testing.T) {
	o := StargazerOrbit(2.0, 3.3, 0.6, 1.1, 0.7, 2.5, 1.2)
	times := []float64{400, 0, 0.3, -50, 1.7, 123.4, 250, -3.3, 399.9}
	want := make([]float64, len(times))
	got := make([]float64, len(times))
	JacobiStarVX(want, times, 1.1, []Orbit3D{o})
	NBodyStarVX(got, times, 1.1, []Orbit3D{o})
	for i := range times {
		if math.Abs(got[i]-want[i]) > 1e-4 {
			t.Errorf("t = %g: N-body %.6f m/s, Keplerian %.6f m/s", times[i], got[i], want[i])
		}
	}
}

// Two planets start on the Jacobi orbits of JacobiStarVX: the velocities agree at t = 0 and part slowly, the
// more so near a 2:1 resonance and for massive planets; a light distant pair stays within a few mm/s.
func TestNBodyStartsOnJacobiOrbits(t *testing.T) {
	times := []float64{0, 10, 100, 300}
	run := func(m float64, p2 float64) []float64 {
		ps := []Orbit3D{StargazerOrbit(m, 3.2, 0.3, 0.2, 1.0, 1.3, 1.5), StargazerOrbit(m, p2, 0.1, 4.0, 2.0, 0.4, 1.4)}
		a, b := make([]float64, len(times)), make([]float64, len(times))
		JacobiStarVX(a, times, 1, ps)
		NBodyStarVX(b, times, 1, ps)
		for i := range a {
			a[i] = math.Abs(a[i] - b[i])
		}
		return a
	}
	res := run(1, 6.5)
	if res[0] > 1e-6 {
		t.Errorf("t = 0: N-body and Jacobi differ by %g m/s", res[0])
	}
	if res[3] < 0.05 {
		t.Errorf("a Jupiter-mass pair near 2:1 should part from the Keplerian stand-in by 300 d; differs by %g m/s", res[3])
	}
	if light := run(0.003, 80); light[3] > 0.005 {
		t.Errorf("a light distant pair parts from the Keplerian stand-in by %g m/s at 300 d", light[3])
	}
	t.Logf("near-2:1 Jupiter pair: |N-body − Jacobi| at %v d = %.3g m/s", times, res)
}

func BenchmarkNBodyStarVX(b *testing.B) {
	ps := []Orbit3D{StargazerOrbit(0.36, 3.24, 0.49, 0.09, 4.4, 1.3, 1.53), StargazerOrbit(0.71, 6.5, 0.2, 4.86, 6.2, 1.58, 1.52),
		StargazerOrbit(0.02, 71, 0.19, 3.2, 1.57, 0.03, 0.94), StargazerOrbit(0.02, 108, 0.13, 2.7, 0.39, 3.4, 0.9)}
	times := make([]float64, 70)
	for i := range times {
		times[i] = 13 * float64(i) / 69
	}
	dst := make([]float64, len(times))
	for b.Loop() {
		NBodyStarVX(dst, times, 1, ps)
	}
}
