package bls

import "math"

// prefixSums sets c[i] to the sum of the bins q[j mod nb] for j < i (nb = len(q)), for i = 0 … len(c)−1 ≤ 2·nb:
// c[n+k] − c[n] is then the sum of the k bins from n on, wrapping past phase P. The sums are exact integers;
// c holds them rounded to float64. It returns the largest weight of a bin, and leaves every bin of q zero,
// ready for the next fold: each bin is cleared by the last pass that reads it (the first k = len(c)−1−nb
// bins are read twice), which saves a pass over the bins.
func prefixSums(c []bin, q []qbin) (maxW int64) {
	if len(c) == 0 {
		clear(q)
		return 0
	}
	c[0] = bin{}
	nb := min(len(q), len(c)-1)
	k := len(c) - 1 - nb
	var acc qbin
	maxW = prefixRun(c[1:k+1], q[:k], &acc, false)
	maxW = max(maxW, prefixRun(c[k+1:nb+1], q[k:nb], &acc, true))
	prefixRun(c[nb+1:], q[:k], &acc, true)
	clear(q[nb:])
	return maxW
}

// prefixRun adds the bins src[i] to acc in turn and sets dst[i] to each running sum, for i < len(dst) ≤
// len(src); with zero, it also sets those bins to zero. It returns the largest weight of the bins added (0 if
// none is positive).
func prefixRun(dst []bin, src []qbin, acc *qbin, zero bool) (maxW int64) {
	if !haveAVX512 {
		maxW = prefixRunGo(dst, src, acc)
		if zero {
			clear(src[:len(dst)])
		}
		return maxW
	}
	n := len(dst) &^ 3
	maxW = prefixRunVec512(dst[:n], src[:n], acc, zero)
	if n < len(dst) {
		maxW = max(maxW, prefixRunVec(dst[n:], src[n:], acc))
		if zero {
			clear(src[n:len(dst)])
		}
	}
	return maxW
}

func prefixRunGo(dst []bin, src []qbin, acc *qbin) (maxW int64) {
	sy, sw := acc.wy, acc.w
	src = src[:len(dst)]
	for i := range dst {
		sy += src[i].wy
		sw += src[i].w
		maxW = max(maxW, src[i].w)
		dst[i] = bin{float64(sy), float64(sw)}
	}
	acc.wy, acc.w = sy, sw
	return maxW
}

// best is the best box of a period so far: its score q/den (q = Y_in², Y_in < 0), start bin n and length bestK;
// k is the length of the boxes being scanned.
type best struct {
	q, den      float64
	n, k, bestK int
}

// scan scores the boxes of one length k starting at every stride-th bin: box n has prefix sums cs[n] at its
// start and ce[n] at its end, W_in = ce[n].w − cs[n].w and Y_in likewise, W_out = W − W_in. A box beats the
// best so far (q, den) when Y_in²·den > q·den_box, with den_box = W_in·W_out for the SNR and W_in·W_out² for
// the likelihood; it is then kept if it dips (Y_in < 0) and has weight above empty both in and out of transit.
//
// No box weighs more than wmax (k times the heaviest bin), so W_out ≥ g = W − wmax, and a box can beat the
// best only if Y_in² > τ·W_in, τ = (q/den)·g (g² for the likelihood). screen and screenStride apply this
// test, two multiplications per box, to groups of screenGroup boxes (in one vector with AVX2 or AVX-512),
// and only search for the next group holding a box that passes it, which is rare, so that τ stays fixed
// inside them; that group is then examined box by box with the full test. τ is lowered by 2⁻⁴⁰ of itself and g by 2⁻⁴⁰ of W, far
// more than the rounding of the products and of the prefix sums, so that the cheap test never rejects a box
// the full test would keep.
type scan struct {
	sumW, empty, wmax float64
	likelihood        bool
}

// tau returns the threshold of the cheap test for the best score q/den.
func (sc *scan) tau(q, den float64) float64 {
	g := max(sc.sumW-sc.wmax-sc.sumW*0x1p-40, 0)
	if sc.likelihood {
		g *= g
	}
	return q / den * g * (1 - 0x1p-40)
}

// beats applies the full test to the box with sums win, yin and, if it passes, makes it the best.
func (sc *scan) beats(b *best, win, yin float64, n int) bool {
	wout := sc.sumW - win
	den := win * wout
	if sc.likelihood {
		den *= wout
	}
	if yin*yin*b.den > b.q*den && yin < 0 && win > sc.empty && wout > sc.empty {
		b.q, b.den = yin*yin, den
		b.n, b.bestK = n, b.k
		return true
	}
	return false
}

// boxes scans the boxes starting at every stride-th bin.
func (sc *scan) boxes(b *best, cs, ce []bin, stride int) {
	ce = ce[:len(cs)]
	tau := sc.tau(b.q, b.den)
	s, end := stride, len(cs)
	for n := 0; n < end; {
		if s == 1 {
			n += screen(cs[n:], ce[n:], tau)
		} else {
			n += screenStride(cs[n:], ce[n:], s, tau)
		}
		for stop := min(n+screenGroup*s, end); n < stop; n += s {
			if sc.beats(b, ce[n].w-cs[n].w, ce[n].wy-cs[n].wy, n) {
				tau = sc.tau(b.q, b.den)
			}
		}
	}
}

// screenGroup is the number of boxes screen and screenStride test together: eight with AVX-512 (in one
// 512-bit vector), else four.
var screenGroup = 4

func init() {
	if haveAVX512 {
		screenGroup = 8
	}
}

// screen returns the start of the first group of screenGroup boxes n … n+G−1 (G = screenGroup; n = 0, G, 2G,
// …, n+G−1 < len(cs)) holding a box with Y_in² > tau·W_in, or the first n with n+G−1 ≥ len(cs) if none does;
// len(ce) ≥ len(cs).
func screen(cs, ce []bin, tau float64) int {
	switch {
	case haveAVX512:
		return screenVec512(cs, ce, tau)
	case haveAVX2:
		return screenVec(cs, ce, tau)
	}
	return screenGo(cs, ce, tau)
}

// screenGo is screen with groups of four, in Go.
func screenGo(cs, ce []bin, tau float64) int {
	n := 0
	for ; n+3 < len(cs); n += 4 {
		e, c := ce[n:n+4], cs[n:n+4]
		w0, y0 := e[0].w-c[0].w, e[0].wy-c[0].wy
		w1, y1 := e[1].w-c[1].w, e[1].wy-c[1].wy
		w2, y2 := e[2].w-c[2].w, e[2].wy-c[2].wy
		w3, y3 := e[3].w-c[3].w, e[3].wy-c[3].wy
		if y0*y0 > tau*w0 || y1*y1 > tau*w1 || y2*y2 > tau*w2 || y3*y3 > tau*w3 {
			break
		}
	}
	return n
}

// screenStride is screen for the boxes n = 0, s, 2s, … (s = stride ≥ 1): it returns the first n = 0, Gs,
// 2Gs, … with n+(G−1)s < len(cs) whose group n, n+s, …, n+(G−1)s holds a box passing the test, or the first
// with n+(G−1)s ≥ len(cs) if none does (G = screenGroup).
func screenStride(cs, ce []bin, stride int, tau float64) int {
	switch {
	case haveAVX512:
		return screenStrideVec512(cs, ce, stride, tau)
	case haveAVX2:
		return screenStrideVec(cs, ce, stride, tau)
	}
	return screenStrideGo(cs, ce, stride, tau)
}

// screenStrideGo is screenStride with groups of four, in Go.
func screenStrideGo(cs, ce []bin, s int, tau float64) int {
	ce = ce[:len(cs)]
	n := 0
	for ; n+3*s < len(cs); n += 4 * s {
		w0, y0 := ce[n].w-cs[n].w, ce[n].wy-cs[n].wy
		w1, y1 := ce[n+s].w-cs[n+s].w, ce[n+s].wy-cs[n+s].wy
		w2, y2 := ce[n+2*s].w-cs[n+2*s].w, ce[n+2*s].wy-cs[n+2*s].wy
		w3, y3 := ce[n+3*s].w-cs[n+3*s].w, ce[n+3*s].wy-cs[n+3*s].wy
		if y0*y0 > tau*w0 || y1*y1 > tau*w1 || y2*y2 > tau*w2 || y3*y3 > tau*w3 {
			break
		}
	}
	return n
}

// store computes the reported quantities of the best box (bins n … n+k−1 of width bw) from its sums.
func (s *searcher) store(r *Result, p int, win, yin float64, n, k int, bw float64) {
	d := s.d
	per := r.Periods[p]
	win, yin = win/d.wScale, yin/d.yScale
	wout := d.sumW/d.wScale - win
	depth := (d.sumWY/d.yScale-yin)/wout - yin/win
	// Real inverse-variance sums are the normalised ones times ivarScale.
	depthErr := math.Sqrt((1/win + 1/wout) / d.ivarScale)
	snr := depth / depthErr
	ll := 0.5 * win * d.ivarScale * depth * depth
	mid := (float64(n) + 0.5*float64(k)) * bw
	if mid >= per {
		mid -= per
	}
	r.Durations[p] = float64(k) * bw
	r.T0[p] = d.tref + mid
	r.Depth[p] = depth
	r.DepthErr[p] = depthErr
	r.SNR[p] = snr
	r.LogLike[p] = ll
	if s.obj == Likelihood {
		r.Power[p] = ll
	} else {
		r.Power[p] = snr
	}
}
