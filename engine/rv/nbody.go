package rv

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// MaxNBodySteps bounds the Bulirsch–Stoer steps (converged or rejected) of one NBodyStarVX call. A step is at
// most a quarter of the shortest period, and the 100 published synthetic Stargazer tasks need at most 166 steps
// (generated tasks, spanning 2–4 inner periods, far fewer); 50,000 is 300 times that, about a second of work
// for seven planets (BenchmarkNBodyStarVXBudget: 1.03 s on the reference machine), and stops an integration no
// task needs (a period of seconds, times of 10⁸ days, a close encounter shrinking the step without end) with
// an error instead of running for hours.
const MaxNBodySteps = 50_000

// ErrNBodySteps is returned when an integration would need more than MaxNBodySteps steps.
var ErrNBodySteps = errors.New("rv: N-body integration needs too many steps")

// NBodyStarVX returns the star's barycentric x velocity (m/s) at times t (days, from the epoch of the elements)
// for planets that interact: the system starts at t = 0 from the same Jacobi Keplerian orbits as JacobiStarVX
// (planet k placed relative to the centre of mass of the star and planets 0..k−1, with G(η_{k−1} + m_k)), is
// moved to its barycentre and is integrated as a full gravitational N-body problem by the Bulirsch–Stoer
// method (modified midpoint steps, polynomial extrapolation in h², relative tolerance 1e-11 on the planets'
// barycentric positions and velocities). The star's velocity follows from momentum conservation,
// v★ = −Σ m_k v_k / M★. At t = 0 it equals JacobiStarVX; later it adds the planets' mutual perturbations, which
// near a mean-motion resonance reach a sizeable fraction of a m/s within a few hundred days. Times need not be
// sorted and may be negative. It fails with ErrNBodySteps (dst then holds zeros) when the integration takes more
// than MaxNBodySteps steps, or when the step size collapses (a close encounter), so no input runs for long.
func NBodyStarVX(dst, t []float64, mStarSun float64, planets []Orbit3D) error {
	for i := range dst {
		dst[i] = 0
	}
	if len(planets) == 0 {
		return nil
	}
	s := newNBody(mStarSun, planets)
	if !(s.minP > 0) || math.IsInf(s.minP, 0) {
		return fmt.Errorf("%w: the shortest period %g s is not a positive number", ErrNBodySteps, s.minP)
	}
	// A step is at most a quarter of the shortest period, so the span alone sets a lower bound on the steps.
	lo, hi := 0.0, 0.0
	for _, x := range t {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	if need := (hi - lo) * daySeconds / (s.minP / 4); !(need <= MaxNBodySteps) {
		return fmt.Errorf("%w: %.3g d of integration at periods down to %.4g d take at least %.3g steps, above %d",
			ErrNBodySteps, hi-lo, s.minP/daySeconds, need, MaxNBodySteps)
	}
	order := make([]int, len(t))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(t[a], t[b]) }) // t is finite: checked above
	y0 := slices.Clone(s.y)
	// Forward from t = 0 over the non-negative times, then backward from t = 0 over the negative ones.
	first := 0
	for first < len(order) && t[order[first]] < 0 {
		first++
	}
	fail := func(err error) error {
		for i := range dst {
			dst[i] = 0
		}
		return err
	}
	now := 0.0
	for _, i := range order[first:] {
		if err := s.advance(t[i]*daySeconds - now); err != nil {
			return fail(err)
		}
		now = t[i] * daySeconds
		dst[i] = s.starVX()
	}
	copy(s.y, y0)
	s.h = 0
	now = 0
	for k := first - 1; k >= 0; k-- {
		i := order[k]
		if err := s.advance(t[i]*daySeconds - now); err != nil {
			return fail(err)
		}
		now = t[i] * daySeconds
		dst[i] = s.starVX()
	}
	return nil
}

// nbody is the state of a star plus planets: y holds, per body (star first), x, y, z (m) then vx, vy, vz (m/s)
// in the barycentric frame; gm holds G·m (m³/s²).
type nbody struct {
	gm    []float64
	y     []float64
	h     float64 // the step the last advance ended with (s); 0 before the first
	minP  float64 // the shortest orbital period (s)
	steps int     // steps tried so far, converged or not
	// work buffers
	dy, ym, yn []float64
	rowA, rowB []([]float64) // two rows of the extrapolation tableau
}

func newNBody(mStarSun float64, planets []Orbit3D) *nbody {
	nb := len(planets) + 1
	s := &nbody{gm: make([]float64, nb), y: make([]float64, 6*nb), minP: math.Inf(1)}
	s.gm[0] = GMSunSI * mStarSun
	// Place the planets in Jacobi coordinates: body k relative to the centre of mass of bodies 0..k−1,
	// with the star at rest at the origin; then move everything to the barycentre.
	var com [6]float64 // centre of mass (position, velocity) of the bodies placed so far
	eta := mStarSun
	for k, p := range planets {
		gm := GMSunSI * (eta + p.MassSun)
		rel := jacobiState(p, gm)
		b := 6 * (k + 1)
		for c := range 6 {
			s.y[b+c] = com[c] + rel[c]
		}
		for c := range 6 {
			com[c] = (eta*com[c] + p.MassSun*s.y[b+c]) / (eta + p.MassSun)
		}
		eta += p.MassSun
		s.gm[k+1] = GMSunSI * p.MassSun
		s.minP = math.Min(s.minP, p.PeriodDays*daySeconds)
	}
	for b := range nb {
		for c := range 6 {
			s.y[6*b+c] -= com[c]
		}
	}
	n := len(s.y)
	s.dy, s.ym, s.yn = make([]float64, n), make([]float64, n), make([]float64, n)
	s.rowA, s.rowB = make([][]float64, len(bsSteps)), make([][]float64, len(bsSteps))
	for i := range s.rowA {
		s.rowA[i], s.rowB[i] = make([]float64, n), make([]float64, n)
	}
	return s
}

// jacobiState returns the position (m) and velocity (m/s) of p relative to its primary at t = 0, on a Keplerian
// orbit with G M = gm.
func jacobiState(p Orbit3D, gm float64) [6]float64 {
	Ps := p.PeriodDays * daySeconds
	a := math.Cbrt(gm * Ps * Ps / (4 * math.Pi * math.Pi))
	e := p.E
	E := SolveKepler(p.LRad-p.PomegaRad, e)
	sE, cE := math.Sincos(E)
	sq := math.Sqrt(1 - e*e)
	// Perifocal position and velocity.
	px, py := a*(cE-e), a*sq*sE
	n := 2 * math.Pi / Ps
	den := 1 - e*cE
	vx, vy := -a*n*sE/den, a*n*sq*cE/den
	w := p.PomegaRad - p.NodeRad
	sO, cO := math.Sincos(p.NodeRad)
	sw, cw := math.Sincos(w)
	si, ci := math.Sincos(p.IncRad)
	// Columns of R_z(Ω) R_x(i) R_z(ω) for the perifocal x (P) and y (Q) unit vectors.
	P := [3]float64{cO*cw - sO*sw*ci, sO*cw + cO*sw*ci, sw * si}
	Q := [3]float64{-cO*sw - sO*cw*ci, -sO*sw + cO*cw*ci, cw * si}
	var out [6]float64
	for c := range 3 {
		out[c] = px*P[c] + py*Q[c]
		out[3+c] = vx*P[c] + vy*Q[c]
	}
	return out
}

// starVX returns the star's barycentric x velocity from the planets' momenta.
func (s *nbody) starVX() float64 {
	p := 0.0
	for b := 1; b < len(s.gm); b++ {
		p += s.gm[b] * s.y[6*b+3]
	}
	return -p / s.gm[0]
}

// deriv sets dy = d/dt y.
func (s *nbody) deriv(dy, y []float64) {
	nb := len(s.gm)
	for b := range nb {
		dy[6*b], dy[6*b+1], dy[6*b+2] = y[6*b+3], y[6*b+4], y[6*b+5]
		dy[6*b+3], dy[6*b+4], dy[6*b+5] = 0, 0, 0
	}
	for a := range nb {
		for b := a + 1; b < nb; b++ {
			dx := y[6*b] - y[6*a]
			dyy := y[6*b+1] - y[6*a+1]
			dz := y[6*b+2] - y[6*a+2]
			r2 := dx*dx + dyy*dyy + dz*dz
			inv := 1 / (r2 * math.Sqrt(r2))
			fa, fb := s.gm[b]*inv, s.gm[a]*inv
			dy[6*a+3] += fa * dx
			dy[6*a+4] += fa * dyy
			dy[6*a+5] += fa * dz
			dy[6*b+3] -= fb * dx
			dy[6*b+4] -= fb * dyy
			dy[6*b+5] -= fb * dz
		}
	}
}

// bsSteps are the substep counts of the extrapolation sequence.
var bsSteps = []int{2, 4, 6, 8, 10, 12, 14, 16, 18, 20}

const bsTol = 1e-11

// midpoint sets out to the modified-midpoint estimate of y(H) from y with n substeps.
func (s *nbody) midpoint(out, y []float64, H float64, n int) {
	h := H / float64(n)
	zPrev, z := s.ym, s.yn
	s.deriv(s.dy, y)
	for i := range y {
		zPrev[i] = y[i]
		z[i] = y[i] + h*s.dy[i]
	}
	for range n - 1 {
		s.deriv(s.dy, z)
		for i := range z {
			zPrev[i], z[i] = z[i], zPrev[i]+2*h*s.dy[i]
		}
	}
	s.deriv(s.dy, z)
	for i := range out {
		out[i] = 0.5 * (z[i] + zPrev[i] + h*s.dy[i])
	}
}

// step tries one Bulirsch–Stoer step of H from s.y. It returns whether the extrapolation converged (then s.y
// holds the new state) and the number of substep counts it used.
func (s *nbody) step(H float64) (bool, int) {
	nb := len(s.gm)
	prev, cur := s.rowA, s.rowB
	for j, n := range bsSteps {
		// Aitken–Neville: T[j][0] is the midpoint estimate with n substeps and
		// T[j][k] = T[j][k−1] + (T[j][k−1] − T[j−1][k−1]) / ((n_j/n_{j−k})² − 1).
		s.midpoint(cur[0], s.y, H, n)
		for k := 1; k <= j; k++ {
			r := float64(n) / float64(bsSteps[j-k])
			f := 1 / (r*r - 1)
			for i := range cur[k] {
				cur[k][i] = cur[k-1][i] + (cur[k-1][i]-prev[k-1][i])*f
			}
		}
		if j > 0 {
			// Error: the last correction, relative to each planet's position and velocity.
			err := 0.0
			for b := 1; b < nb; b++ {
				var rs, vs, dr, dv float64
				for c := range 3 {
					rs += s.y[6*b+c] * s.y[6*b+c]
					vs += s.y[6*b+3+c] * s.y[6*b+3+c]
					x := cur[j][6*b+c] - cur[j-1][6*b+c]
					dr += x * x
					v := cur[j][6*b+3+c] - cur[j-1][6*b+3+c]
					dv += v * v
				}
				err = math.Max(err, math.Max(math.Sqrt(dr/rs), math.Sqrt(dv/vs)))
			}
			if err < bsTol {
				copy(s.y, cur[j])
				return true, j + 1
			}
		}
		prev, cur = cur, prev
	}
	return false, len(bsSteps)
}

// advance integrates the state over dt seconds (either sign). It fails once s.steps passes MaxNBodySteps or
// when the step shrinks below 10⁻⁹ of the shortest period.
func (s *nbody) advance(dt float64) error {
	if dt == 0 {
		return nil
	}
	sign := 1.0
	if dt < 0 {
		sign = -1
	}
	H := math.Abs(s.h)
	if H == 0 {
		H = s.minP / 40
	}
	left := math.Abs(dt)
	for left > 0 {
		if s.steps++; s.steps > MaxNBodySteps {
			return fmt.Errorf("%w: more than %d steps (the orbits may be unstable or the times far from 0)", ErrNBodySteps, MaxNBodySteps)
		}
		h := math.Min(H, left)
		ok, cols := s.step(sign * h)
		if !ok {
			H = h / 2
			if H < s.minP*1e-9 {
				return fmt.Errorf("%w: the step shrank below 10⁻⁹ of the shortest period (a close encounter); the configuration is not a stable planetary system", ErrNBodySteps)
			}
			continue
		}
		left -= h
		switch {
		case cols <= 4:
			H = math.Max(H, h) * 1.5
		case cols >= 7:
			H = h * 0.7
		default:
			H = math.Max(H, h)
		}
		H = math.Min(H, s.minP/4)
	}
	s.h = H
	return nil
}
