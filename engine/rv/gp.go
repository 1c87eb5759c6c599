package rv

import (
	"errors"
	"math"
)

// RotationGP is celerite2's RotationTerm, a quasi-periodic kernel for stellar rotation: two damped simple
// harmonic oscillators at the rotation period and at half of it.
type RotationGP struct {
	SigmaMS    float64 // standard deviation of the process, m/s
	PeriodDays float64 // rotation period
	Q0         float64 // quality of the secondary mode
	DQ         float64 // difference between the qualities of the two modes
	F          float64 // fractional amplitude of the secondary (P/2) mode
}

// Kernel returns the covariance (m²/s²) at lag tau (days):
//
//	Q1 = ½ + Q0 + dQ, ω1 = 4π Q1 / (P √(4Q1² − 1)), S1 = σ² / ((1 + f) ω1 Q1)
//	Q2 = ½ + Q0,      ω2 = 8π Q2 / (P √(4Q2² − 1)), S2 = f σ² / ((1 + f) ω2 Q2)
//	k_SHO(τ) = S ω Q e^{−ωτ/(2Q)} (cos(ηωτ) + sin(ηωτ)/(2ηQ)), η = √(1 − 1/(4Q²))   (Q > ½)
//
// so that Kernel(0) = σ².
func (g RotationGP) Kernel(tau float64) float64 {
	tau = math.Abs(tau)
	sho := func(S, w, Q float64) float64 {
		eta := math.Sqrt(1 - 1/(4*Q*Q))
		return S * w * Q * math.Exp(-w*tau/(2*Q)) * (math.Cos(eta*w*tau) + math.Sin(eta*w*tau)/(2*eta*Q))
	}
	amp := g.SigmaMS * g.SigmaMS / (1 + g.F)
	q1 := 0.5 + g.Q0 + g.DQ
	w1 := 4 * math.Pi * q1 / (g.PeriodDays * math.Sqrt(4*q1*q1-1))
	q2 := 0.5 + g.Q0
	w2 := 8 * math.Pi * q2 / (g.PeriodDays * math.Sqrt(4*q2*q2-1))
	return sho(amp/(w1*q1), w1, q1) + sho(g.F*amp/(w2*q2), w2, q2)
}

// Whitener turns correlated residuals into independent unit-variance ones: with the covariance
// C = K_gp + diag(σ² + s²) = L Lᵀ, whitened residuals are L⁻¹ r, and the per-instrument offsets are profiled
// by generalised least squares (projecting out the whitened instrument indicator columns).
type Whitener struct {
	n, nInst int
	l        []float64 // N×N lower triangle, row-major
	x        []float64 // L⁻¹ X, N × nInst, row-major
	ginv     []float64 // (XᵀC⁻¹X)⁻¹, nInst × nInst
	logDet   float64   // ln |C|
}

// ErrNotPositive is returned when a covariance matrix is not positive definite.
var ErrNotPositive = errors.New("rv: covariance matrix is not positive definite")

// NewWhitener factorises C = K_gp(t_i − t_j) + δ_ij (σ_i² + s²) for the series d.
func NewWhitener(d *Data, gp RotationGP, jitterMS float64) (*Whitener, error) {
	n, ni := d.Len(), len(d.Instruments)
	w := &Whitener{n: n, nInst: ni, l: make([]float64, n*n), x: make([]float64, n*ni), ginv: make([]float64, ni*ni)}
	L := w.l
	for i := range n {
		for j := 0; j <= i; j++ {
			v := gp.Kernel(d.Times[i] - d.Times[j])
			if i == j {
				v += d.Sigmas[i]*d.Sigmas[i] + jitterMS*jitterMS
			}
			for k := range j {
				v -= L[i*n+k] * L[j*n+k]
			}
			if i == j {
				if !(v > 0) {
					return nil, ErrNotPositive
				}
				L[i*n+i] = math.Sqrt(v)
				w.logDet += 2 * math.Log(L[i*n+i])
			} else {
				L[i*n+j] = v / L[j*n+j]
			}
		}
	}
	col := make([]float64, n)
	for k := range ni {
		for i := range n {
			col[i] = 0
			if d.Inst[i] == k {
				col[i] = 1
			}
		}
		w.solve(col)
		for i := range n {
			w.x[i*ni+k] = col[i]
		}
	}
	G := make([]float64, ni*ni)
	for i := range n {
		for a := range ni {
			for b := range ni {
				G[a*ni+b] += w.x[i*ni+a] * w.x[i*ni+b]
			}
		}
	}
	if !invertSmall(w.ginv, G, ni) {
		return nil, ErrNotPositive
	}
	return w, nil
}

// solve overwrites v with L⁻¹ v (forward substitution).
func (w *Whitener) solve(v []float64) {
	n, L := w.n, w.l
	for i := range n {
		s := v[i]
		row := L[i*n : i*n+i]
		for k, lk := range row {
			s -= lk * v[k]
		}
		v[i] = s / L[i*n+i]
	}
}

// whiten overwrites v with the whitened, offset-projected vector (I − X′ G⁻¹ X′ᵀ) L⁻¹ v.
func (w *Whitener) whiten(v []float64) {
	w.solve(v)
	ni := w.nInst
	var xtv [8]float64
	buf := xtv[:0]
	if ni > len(xtv) {
		buf = make([]float64, ni)
	} else {
		buf = xtv[:ni]
	}
	for k := range buf {
		buf[k] = 0
	}
	for i := range v {
		for k := range ni {
			buf[k] += w.x[i*ni+k] * v[i]
		}
	}
	c := make([]float64, ni)
	for a := range ni {
		for b := range ni {
			c[a] += w.ginv[a*ni+b] * buf[b]
		}
	}
	for i := range v {
		for k := range ni {
			v[i] -= w.x[i*ni+k] * c[k]
		}
	}
}

// LnL returns the Gaussian log-likelihood of whitened residuals rw: −½ |rw|² − ½ ln|C| − (N/2) ln 2π.
func (w *Whitener) LnL(rw []float64) float64 {
	s := 0.0
	for _, x := range rw {
		s += x * x
	}
	return -0.5*s - 0.5*w.logDet - 0.5*float64(w.n)*math.Log(2*math.Pi)
}

// invertSmall inverts the m×m matrix a into dst by Gauss–Jordan elimination with partial pivoting.
func invertSmall(dst, a []float64, m int) bool {
	aug := make([]float64, m*2*m)
	for i := range m {
		copy(aug[i*2*m:i*2*m+m], a[i*m:i*m+m])
		aug[i*2*m+m+i] = 1
	}
	for c := range m {
		p := c
		for r := c + 1; r < m; r++ {
			if math.Abs(aug[r*2*m+c]) > math.Abs(aug[p*2*m+c]) {
				p = r
			}
		}
		if aug[p*2*m+c] == 0 {
			return false
		}
		for k := range 2 * m {
			aug[c*2*m+k], aug[p*2*m+k] = aug[p*2*m+k], aug[c*2*m+k]
		}
		piv := aug[c*2*m+c]
		for k := range 2 * m {
			aug[c*2*m+k] /= piv
		}
		for r := range m {
			if r != c {
				f := aug[r*2*m+c]
				for k := range 2 * m {
					aug[r*2*m+k] -= f * aug[c*2*m+k]
				}
			}
		}
	}
	for i := range m {
		copy(dst[i*m:i*m+m], aug[i*2*m+m:i*2*m+2*m])
	}
	return true
}
