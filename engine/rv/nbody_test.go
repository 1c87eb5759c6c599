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
	if err := NBodyStarVX(got, times, 1.1, []Orbit3D{o}); err != nil {
		t.Fatal(err)
	}
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
		if err := NBodyStarVX(b, times, 1, ps); err != nil {
			t.Fatal(err)
		}
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
		if err := NBodyStarVX(dst, times, 1, ps); err != nil {
			b.Fatal(err)
		}
	}
}

// The integration conserves the energy and angular momentum of a strongly interacting system (a Jupiter-mass
// pair near 2:1 beside a third planet) to far better than the interactions change the orbits.
func TestNBodyConservesEnergyAndAngularMomentum(t *testing.T) {
	ps := []Orbit3D{StargazerOrbit(1, 3.2, 0.3, 0.2, 1.0, 1.3, 1.5), StargazerOrbit(1.5, 6.5, 0.1, 4.0, 2.0, 0.4, 1.4),
		StargazerOrbit(0.5, 40, 0.4, 2.0, 0.5, 5.0, 0.9)}
	s := newNBody(1, ps)
	energy := func() float64 {
		e := 0.0
		for a := range s.gm {
			v := s.y[6*a+3 : 6*a+6]
			e += 0.5 * s.gm[a] * (v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
			for b := a + 1; b < len(s.gm); b++ {
				dx, dy, dz := s.y[6*b]-s.y[6*a], s.y[6*b+1]-s.y[6*a+1], s.y[6*b+2]-s.y[6*a+2]
				e -= s.gm[a] * s.gm[b] / math.Sqrt(dx*dx+dy*dy+dz*dz)
			}
		}
		return e // G times the energy
	}
	angmom := func() [3]float64 {
		var l [3]float64
		for a := range s.gm {
			r, v := s.y[6*a:6*a+3], s.y[6*a+3:6*a+6]
			l[0] += s.gm[a] * (r[1]*v[2] - r[2]*v[1])
			l[1] += s.gm[a] * (r[2]*v[0] - r[0]*v[2])
			l[2] += s.gm[a] * (r[0]*v[1] - r[1]*v[0])
		}
		return l
	}
	// The interaction energy sets the scale against which a wrong force would show.
	inter := 0.0
	for a := 1; a < len(s.gm); a++ {
		for b := a + 1; b < len(s.gm); b++ {
			dx, dy, dz := s.y[6*b]-s.y[6*a], s.y[6*b+1]-s.y[6*a+1], s.y[6*b+2]-s.y[6*a+2]
			inter += s.gm[a] * s.gm[b] / math.Sqrt(dx*dx+dy*dy+dz*dz)
		}
	}
	e0, l0 := energy(), angmom()
	s.advance(300 * daySeconds)
	e1, l1 := energy(), angmom()
	if d := math.Abs(e1 - e0); d > 1e-6*inter {
		t.Errorf("energy changed by %g, %g of the planets' interaction energy", d, d/inter)
	}
	ln := math.Sqrt(l0[0]*l0[0] + l0[1]*l0[1] + l0[2]*l0[2])
	for c := range 3 {
		if d := math.Abs(l1[c] - l0[c]); d > 1e-9*ln {
			t.Errorf("angular momentum component %d changed by %g of |L|", c, d/ln)
		}
	}
}
