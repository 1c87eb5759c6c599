package rv

import (
	"errors"
	"math"
)

// FitOptions bound and steer Fit.
type FitOptions struct {
	MinPeriodDays, MaxPeriodDays float64 // periods are clamped to this range; 0 means no bound
	MaxE                         float64 // eccentricities are capped here (default 0.95)
	MaxIter                      int     // Levenberg–Marquardt iterations per round (default 100)
	FitJitter                    bool    // also fit one jitter term (alternating with the orbit fit)
	Jitter                       float64 // fixed jitter (m/s) when FitJitter is false; the start otherwise
	ESigma                       float64 // when > 0, a Gaussian shrinkage prior on (e cos ω, e sin ω) of this width
	Circular                     []bool  // planets (by index) held on circular orbits (e = 0)
	// InstJitter, when not nil, gives one jitter per instrument (m/s, indexed as d.Instruments) in place of
	// Jitter; with FitInstJitter they are the start and are fitted, each by maximum likelihood on its
	// instrument's points, alternating with the orbit fit.
	InstJitter    []float64
	FitInstJitter bool
	// Kipping adds the eccentricity prior of Kipping (2013), Beta(0.867, 3.03), to the objective (see
	// kippingPenalty); ESigma may be 0 then.
	Kipping bool
	// Whiten, when set, replaces the diagonal weights by a full noise covariance (a Gaussian process): the
	// least squares run on L⁻¹(y − model) with generalised-least-squares offsets; Jitter and FitJitter are
	// then ignored (the whitener carries the white terms).
	Whiten *Whitener
}

// FitResult is a fitted multi-Keplerian model.
type FitResult struct {
	Planets []Planet
	Jitter  float64 // m/s
	Eval            // offsets, residuals, RMS, χ², lnL of the best model
	BIC     float64 // −2 lnL + (5·planets + instruments) ln N
	// LnLGP is the log-likelihood under the Whiten covariance (0 without one).
	LnLGP float64
	// InstJitter is the per-instrument jitter of a fit with FitOptions.InstJitter (nil otherwise); Eval is then
	// evaluated with it.
	InstJitter []float64
}

// ErrNoPlanets is returned by Fit when it is given no starting planets.
var ErrNoPlanets = errors.New("rv: fit needs at least one starting planet")

// Fit refines the planets in init by Levenberg–Marquardt least squares on the weighted residuals
// (y − model − γ)/√(σ² + s²), where the offsets γ (one per instrument) are profiled out analytically (the
// weighted mean of y − model) and s is the jitter. Each planet is parametrised as (ln P, ln K, e cos ω,
// e sin ω, λ = M0 + ω), which keeps K and P positive and on which the velocity depends linearly at small e
// (with √e cos ω, √e sin ω the gradient vanishes at e = 0 and a circular start could never leave it); the
// Jacobian is analytic. With FitJitter the orbit fit alternates with a one-dimensional maximisation of lnL
// over s (three rounds). The BIC counts 5 parameters per planet and one per
// instrument, as the Stargazer gate does. With ESigma > 0 the objective becomes χ² + Σ e²/ESigma² (a
// maximum-a-posteriori fit under a half-Gaussian eccentricity prior, which counters the upward bias of
// least-squares eccentricities at low signal-to-noise); the reported χ², lnL and BIC exclude that term.
func Fit(d *Data, init []Planet, opt FitOptions) (*FitResult, error) {
	if len(init) == 0 {
		return nil, ErrNoPlanets
	}
	if opt.MaxE <= 0 || opt.MaxE >= 1 {
		opt.MaxE = 0.95
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = 100
	}
	f := newFitter(d, len(init), opt)
	theta := make([]float64, 5*len(init))
	for j, p := range init {
		if j < len(opt.Circular) && opt.Circular[j] {
			p.M0Rad, p.OmegaRad, p.E = wrap(p.M0Rad+p.OmegaRad), 0, 0
		}
		encode(theta[5*j:5*j+5], p)
	}
	jit := math.Max(0, opt.Jitter)
	rounds := 1
	if opt.Whiten != nil {
		opt.FitJitter, opt.InstJitter = false, nil
		f.opt = opt
		jit = 0
	}
	if opt.FitJitter || opt.InstJitter != nil && opt.FitInstJitter {
		rounds = 3
	}
	model := make([]float64, d.Len())
	for range rounds {
		f.setJitter(jit)
		f.lm(theta)
		if rounds == 1 {
			break
		}
		ModelRV(model, d.Times, d.TRef, f.decodeAll(theta))
		if opt.InstJitter != nil {
			f.opt.InstJitter = bestInstJitter(d, model)
		} else {
			jit = bestJitter(d, model)
		}
	}
	planets := f.decodeAll(theta)
	ModelRV(model, d.Times, d.TRef, planets)
	var ev Eval
	if f.opt.InstJitter != nil {
		ev = d.EvaluateInst(model, f.opt.InstJitter)
	} else {
		ev = d.Evaluate(model, jit)
	}
	res := &FitResult{
		Planets: planets, Jitter: jit, Eval: ev, InstJitter: f.opt.InstJitter,
		BIC: BIC(ev.LnL, NumParams(len(planets), len(d.Instruments)), d.Len()),
	}
	if opt.Whiten != nil {
		rw := make([]float64, d.Len())
		for i := range rw {
			rw[i] = d.RVs[i] - model[i]
		}
		opt.Whiten.whiten(rw)
		res.LnLGP = opt.Whiten.LnL(rw)
	}
	return res, nil
}

// bestJitter maximises lnL(s) for a fixed model over s in [0, 10·max σ + RMS] by golden-section search on √s,
// and holds the result at jitterFloor (the median quoted error on a sparse series) or above.
func bestJitter(d *Data, model []float64) float64 {
	ev := d.Evaluate(model, 0)
	hi := ev.RMS
	for _, s := range d.Sigmas {
		hi = math.Max(hi, s)
	}
	s := minJitter(func(x float64) float64 { return -d.Evaluate(model, x*x).LnL }, hi, 60)
	return math.Max(s, jitterFloor(d.Len(), d.Sigmas))
}

// minJitter minimises neg(x) over x in [0, √(3·hi)] by steps of golden-section search and returns the jitter
// x² at the minimum, or 0 when x = 0 is no worse. Searching on x = √s resolves small jitters finely.
func minJitter(neg func(x float64) float64, hi float64, steps int) float64 {
	a, b := 0.0, math.Sqrt(3*hi)
	g := (math.Sqrt(5) - 1) / 2
	c, e := b-g*(b-a), a+g*(b-a)
	fc, fe := neg(c), neg(e)
	for range steps {
		if fc < fe {
			b, e, fe = e, c, fc
			c = b - g*(b-a)
			fc = neg(c)
		} else {
			a, c, fc = c, e, fe
			e = a + g*(b-a)
			fe = neg(e)
		}
	}
	x := 0.5 * (a + b)
	if neg(0) <= neg(x) {
		return 0
	}
	return x * x
}

// fitter holds the buffers of one Levenberg–Marquardt problem.
type fitter struct {
	d        *Data
	opt      FitOptions
	np       int
	w        []float64      // 1/√(σ² + s²)
	wInst    []float64      // Σ w² per instrument
	curves   [][]float64    // per-planet curves at the current θ
	grads    [][5][]float64 // per-planet derivatives with respect to (ln P, ln K, h, k, λ) at the current θ
	anom     [][]float64    // per-planet eccentric anomalies at the current θ
	curvesT  [][]float64    // the same at a trial θ
	gradsT   [][5][]float64
	anomT    [][]float64
	tmp      []float64
	r        []float64 // weighted residuals
	jac      []float64 // N × 5np, row-major
	a, g, dl []float64
	trial    []float64
}

func newFitter(d *Data, np int, opt FitOptions) *fitter {
	n := d.Len()
	f := &fitter{d: d, opt: opt, np: np, w: make([]float64, n), wInst: make([]float64, len(d.Instruments)),
		curves: make([][]float64, np), grads: make([][5][]float64, np), curvesT: make([][]float64, np),
		gradsT: make([][5][]float64, np), anom: make([][]float64, np), anomT: make([][]float64, np),
		tmp: make([]float64, n), r: make([]float64, n),
		jac: make([]float64, n*5*np), a: make([]float64, 25*np*np), g: make([]float64, 5*np),
		dl: make([]float64, 5*np), trial: make([]float64, 5*np)}
	for j := range np {
		f.curves[j], f.curvesT[j] = make([]float64, n), make([]float64, n)
		f.anom[j], f.anomT[j] = make([]float64, n), make([]float64, n)
		for q := range 5 {
			f.grads[j][q], f.gradsT[j][q] = make([]float64, n), make([]float64, n)
		}
	}
	return f
}

func (f *fitter) setJitter(s float64) {
	for k := range f.wInst {
		f.wInst[k] = 0
	}
	for i, sg := range f.d.Sigmas {
		if f.opt.InstJitter != nil {
			s = f.opt.InstJitter[f.d.Inst[i]]
		}
		f.w[i] = 1 / math.Sqrt(sg*sg+s*s)
		f.wInst[f.d.Inst[i]] += f.w[i] * f.w[i]
	}
}

// encode writes a planet's fit parameters into th.
func encode(th []float64, p Planet) {
	sw, cw := math.Sincos(p.OmegaRad)
	th[0] = math.Log(p.PeriodDays)
	th[1] = math.Log(math.Max(p.KMS, 1e-3))
	th[2] = p.E * cw
	th[3] = p.E * sw
	th[4] = p.M0Rad + p.OmegaRad
}

// decode turns fit parameters into a planet, applying the period bounds and the eccentricity cap.
func (f *fitter) decode(th []float64) Planet {
	P := math.Exp(th[0])
	if f.opt.MinPeriodDays > 0 {
		P = math.Max(P, f.opt.MinPeriodDays)
	}
	if f.opt.MaxPeriodDays > 0 {
		P = math.Min(P, f.opt.MaxPeriodDays)
	}
	h, k := th[2], th[3]
	e := math.Hypot(h, k)
	if e > f.opt.MaxE {
		e = f.opt.MaxE
	}
	w := 0.0
	if e > 1e-12 {
		w = math.Atan2(k, h)
	}
	return Planet{PeriodDays: P, KMS: math.Min(math.Exp(th[1]), 1e5), E: e, OmegaRad: wrap(w), M0Rad: wrap(th[4] - w)}
}

func (f *fitter) decodeAll(theta []float64) []Planet {
	out := make([]Planet, f.np)
	for j := range out {
		out[j] = f.decode(theta[5*j : 5*j+5])
	}
	return out
}

// model writes every planet's curve, derivatives and eccentric anomalies at parameters theta into curves, grads
// and anom (one Kepler solve per planet and point serves all three: the Jacobian at an accepted step is the one
// computed with its curves). When from is not nil, Kepler's equation starts from its anomalies (those of the
// current θ, which a step changes little).
func (f *fitter) model(curves [][]float64, grads [][5][]float64, anom, from [][]float64, theta []float64) {
	for j := range f.np {
		c := curves[j]
		for i := range c {
			c[i] = 0
		}
		if from != nil {
			copy(anom[j], from[j])
		}
		f.decode(theta[5*j:5*j+5]).addRVAndGrad(c, grads[j], f.d.Times, f.d.TRef, anom[j], from != nil)
	}
}

// residuals fills f.r from the current curves and returns χ² (offsets profiled).
func (f *fitter) residuals() float64 {
	d := f.d
	if wh := f.opt.Whiten; wh != nil {
		for i := range d.RVs {
			m := 0.0
			for _, c := range f.curves {
				m += c[i]
			}
			f.r[i] = d.RVs[i] - m
		}
		wh.whiten(f.r)
		chi2 := 0.0
		for _, x := range f.r {
			chi2 += x * x
		}
		return chi2
	}
	gam := make([]float64, len(d.Instruments))
	for i := range d.RVs {
		m := 0.0
		for _, c := range f.curves {
			m += c[i]
		}
		f.r[i] = d.RVs[i] - m
		gam[d.Inst[i]] += f.w[i] * f.w[i] * f.r[i]
	}
	chi2 := 0.0
	for i := range f.r {
		f.r[i] = (f.r[i] - gam[d.Inst[i]]/f.wInst[d.Inst[i]]) * f.w[i]
		chi2 += f.r[i] * f.r[i]
	}
	return chi2
}

// jacobian fills f.jac with ∂r_i/∂θ_p from the analytic derivatives of the forward model at the current θ
// (f.grads, from addRVAndGrad), the offsets profiled: J = −w (∂m − ⟨∂m⟩_inst), ⟨·⟩_inst the weighted mean over
// the instrument's points.
func (f *fitter) jacobian() {
	d := f.d
	n, m := d.Len(), 5*f.np
	mean := make([]float64, len(d.Instruments))
	for j := range f.np {
		for q := range 5 {
			gq := f.grads[j][q]
			if wh := f.opt.Whiten; wh != nil {
				copy(f.tmp, gq)
				gq = f.tmp
				wh.whiten(gq)
				col := 5*j + q
				for i := range n {
					f.jac[i*m+col] = -gq[i]
				}
				continue
			}
			for k := range mean {
				mean[k] = 0
			}
			for i := range n {
				mean[d.Inst[i]] += f.w[i] * f.w[i] * gq[i]
			}
			col := 5*j + q
			for i := range n {
				f.jac[i*m+col] = -f.w[i] * (gq[i] - mean[d.Inst[i]]/f.wInst[d.Inst[i]])
			}
		}
	}
}

// lm runs Levenberg–Marquardt from theta, leaving the best parameters in theta.
func (f *fitter) lm(theta []float64) {
	n, m := f.d.Len(), 5*f.np
	f.model(f.curves, f.grads, f.anom, nil, theta)
	chi2 := f.residuals() + f.penalty(theta)
	lambda := 1e-3
	rsave := make([]float64, n)
	for range f.opt.MaxIter {
		f.jacobian()
		for p := range m {
			f.g[p] = 0
			for q := 0; q <= p; q++ {
				f.a[p*m+q] = 0
			}
		}
		for i := range n {
			row := f.jac[i*m : i*m+m]
			ri := f.r[i]
			for p, jp := range row {
				f.g[p] += jp * ri
				for q := 0; q <= p; q++ {
					f.a[p*m+q] += jp * row[q]
				}
			}
		}
		for j, c := range f.opt.Circular {
			if !c || j >= f.np {
				continue
			}
			for _, q := range []int{5*j + 2, 5*j + 3} { // freeze e cos ω and e sin ω: zero step
				for p := range m {
					if p < q {
						f.a[q*m+p] = 0
					} else {
						f.a[p*m+q] = 0
					}
				}
				f.a[q*m+q] = 1
				f.g[q] = 0
			}
		}
		if f.opt.ESigma > 0 {
			ip := 1 / (f.opt.ESigma * f.opt.ESigma)
			for j := range f.np {
				for _, q := range []int{5*j + 2, 5*j + 3} {
					f.a[q*m+q] += ip
					f.g[q] += ip * theta[q]
				}
			}
		}
		if f.opt.Kipping {
			f.kippingNormal(theta)
		}
		improved := false
		for range 12 {
			copy(rsave, f.r)
			if !solveDamped(f.dl, f.a, f.g, m, lambda) {
				lambda *= 10
				continue
			}
			for p := range m {
				f.trial[p] = theta[p] - f.dl[p]
			}
			f.model(f.curvesT, f.gradsT, f.anomT, f.anom, f.trial)
			f.curves, f.curvesT = f.curvesT, f.curves
			f.grads, f.gradsT = f.gradsT, f.grads
			f.anom, f.anomT = f.anomT, f.anom
			c2 := f.residuals() + f.penalty(f.trial)
			if c2 < chi2 && !math.IsNaN(c2) {
				rel := (chi2 - c2) / math.Max(chi2, 1e-300)
				copy(theta, f.trial)
				chi2 = c2
				lambda = math.Max(lambda/10, 1e-12)
				improved = true
				if rel < 1e-7 {
					return
				}
				break
			}
			f.curves, f.curvesT = f.curvesT, f.curves
			f.grads, f.gradsT = f.gradsT, f.grads
			f.anom, f.anomT = f.anomT, f.anom
			copy(f.r, rsave)
			lambda *= 10
		}
		if !improved {
			return
		}
	}
}

// penalty returns the eccentricity priors' terms: Σ_j e_j² / ESigma² (ESigma > 0) plus Σ_j kippingPenalty(e_j) (Kipping).
func (f *fitter) penalty(theta []float64) float64 {
	s := 0.0
	if f.opt.Kipping {
		for j := range f.np {
			s += kippingPenalty(math.Hypot(theta[5*j+2], theta[5*j+3]))
		}
	}
	if f.opt.ESigma <= 0 {
		return s
	}
	for j := range f.np {
		h, k := theta[5*j+2], theta[5*j+3]
		s += (h*h + k*k) / (f.opt.ESigma * f.opt.ESigma)
	}
	return s
}

// solveDamped solves (A + λ diag(A)) x = g for x by Cholesky, with A symmetric m×m given in its lower triangle
// (row-major). It reports false when the damped matrix is not positive definite.
func solveDamped(x, a, g []float64, m int, lambda float64) bool {
	L := make([]float64, m*m)
	for p := range m {
		for q := 0; q <= p; q++ {
			v := a[p*m+q]
			if p == q {
				v += lambda*v + 1e-12
			}
			for k := range q {
				v -= L[p*m+k] * L[q*m+k]
			}
			if p == q {
				if v <= 0 {
					return false
				}
				L[p*m+p] = math.Sqrt(v)
			} else {
				L[p*m+q] = v / L[q*m+q]
			}
		}
	}
	for p := range m {
		v := g[p]
		for k := range p {
			v -= L[p*m+k] * x[k]
		}
		x[p] = v / L[p*m+p]
	}
	for p := m - 1; p >= 0; p-- {
		v := x[p]
		for k := p + 1; k < m; k++ {
			v -= L[k*m+p] * x[k]
		}
		x[p] = v / L[p*m+p]
	}
	return true
}
