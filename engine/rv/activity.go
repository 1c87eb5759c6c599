package rv

import (
	"math"
	"slices"
	"sort"
)

// Activity is a stellar-rotation signal in the velocities: a sinusoid at the rotation period and its first
// harmonic (spots on a rotating star, Boisse et al. 2011), whose amplitudes change as spots grow and decay:
// each of the four coefficients is interpolated linearly between knots spaced about two rotations apart
// (at least one at each end of the series),
//
//	a(t) = Σ_j b_j(t) [c_{j,1} cos(2πt/P) + s_{j,1} sin(2πt/P) + c_{j,2} cos(4πt/P) + s_{j,2} sin(4πt/P)],
//
// b_j the hat function of knot j. Coef holds (c₁, s₁, c₂, s₂) for each knot in turn (m/s).
type Activity struct {
	PeriodDays float64
	Knots      []float64 // days, increasing
	Coef       []float64 // 4 per knot
}

// Params is what the term costs in a BIC: its coefficients and its period.
func (a *Activity) Params() int { return len(a.Coef) + 1 }

// basis writes the term's basis functions at t into b (4 per knot; zero away from t's two knots).
func (a *Activity) basis(b []float64, t float64) {
	clear(b)
	s1, c1 := math.Sincos(2 * math.Pi * t / a.PeriodDays)
	s2, c2 := math.Sincos(4 * math.Pi * t / a.PeriodDays)
	k := len(a.Knots)
	j := sort.SearchFloat64s(a.Knots, t) - 1
	j = min(max(j, 0), k-2)
	u := (t - a.Knots[j]) / (a.Knots[j+1] - a.Knots[j])
	u = min(max(u, 0), 1)
	for q, w := range [2]float64{1 - u, u} {
		off := 4 * (j + q)
		b[off], b[off+1], b[off+2], b[off+3] = w*c1, w*s1, w*c2, w*s2
	}
}

// Model writes a(t) at times into dst (allocated when short) and returns it.
func (a *Activity) Model(dst, times []float64) []float64 {
	if cap(dst) < len(times) {
		dst = make([]float64, len(times))
	}
	dst = dst[:len(times)]
	b := make([]float64, len(a.Coef))
	for i, t := range times {
		a.basis(b, t)
		v := 0.0
		for q, c := range a.Coef {
			v += c * b[q]
		}
		dst[i] = v
	}
	return dst
}

// fitActivity fits the activity term of period periodDays to residuals r of d by weighted linear least squares
// (weights 1/sig², one free offset per instrument beside the coefficients). Knots are spaced at most two
// rotations apart, and fewer when the series is short: at most one coefficient per four points. It returns nil
// when the series covers less than two rotations or the normal equations are singular.
func fitActivity(d *Data, r, sig []float64, periodDays float64) *Activity {
	span := d.Span()
	if span < 2*periodDays {
		return nil
	}
	lo, hi := slices.Min(d.Times), slices.Max(d.Times)
	knots := min(int(math.Ceil(span/(2*periodDays)))+1, d.Len()/16)
	if knots < 2 {
		return nil
	}
	a := &Activity{PeriodDays: periodDays, Knots: make([]float64, knots), Coef: make([]float64, 4*knots)}
	for j := range knots {
		a.Knots[j] = lo + (hi-lo)*float64(j)/float64(knots-1)
	}
	nc := len(a.Coef)
	m := nc + len(d.Instruments)
	A := make([]float64, m*m)
	g := make([]float64, m)
	x := make([]float64, m)
	row := make([]float64, m)
	for i, t := range d.Times {
		clear(row)
		a.basis(row[:nc], t)
		row[nc+d.Inst[i]] = 1
		w := 1 / (sig[i] * sig[i])
		for p := range m {
			if row[p] == 0 {
				continue
			}
			g[p] += w * row[p] * r[i]
			for q := 0; q <= p; q++ {
				A[p*m+q] += w * row[p] * row[q]
			}
		}
	}
	if !solveDamped(x, A, g, m, 0) {
		return nil
	}
	copy(a.Coef, x[:nc])
	return a
}

// withoutActivity returns a copy of d whose velocities have a's signal removed (d itself when a is nil).
func withoutActivity(d *Data, a *Activity) *Data {
	if a == nil {
		return d
	}
	c := *d
	m := a.Model(nil, d.Times)
	c.RVs = make([]float64, d.Len())
	for i, v := range d.RVs {
		c.RVs[i] = v - m[i]
	}
	return &c
}
