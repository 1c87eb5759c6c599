package bls

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteForce scores every box the search tries at one period directly from the cadences, with astropy's
// definitions (bls_slow in astropy/timeseries/periodograms/bls/methods.py): in-transit means and inverse
// variances, depth = ȳ_out − ȳ_in, depth_err = √(1/W_in + 1/W_out), and the log likelihood as the slow method
// writes it, −½Σ_in (ȳ_in − y)²/σ² + ½Σ_in (ȳ_out − y)²/σ². The boxes are the documented ones: bins of width
// P/⌈P·os/d_min⌉ counted from the first time, durations rounded to whole bins, starts every ⌊d/d_min⌋ bins.
func bruteForce(t, y, dy []float64, period float64, durations []float64, os int, obj Objective) (power, depth, depthErr, snr, ll, dur, t0 float64) {
	dmin := durations[0]
	nb := int(math.Ceil(period * float64(os) / dmin))
	bw := period / float64(nb)
	binOf := make([]int, len(t))
	for i := range t {
		binOf[i] = int(math.Floor(math.Mod(t[i]-t[0], period) / period * float64(nb)))
	}
	power = math.Inf(-1)
	for _, d := range durations {
		k := max(int(math.Round(d/bw)), 1)
		stride := max(int(d/dmin), 1)
		for n := 0; n < nb; n += stride {
			var win, wout, syin, syout float64
			for i := range t {
				w := 1 / (dy[i] * dy[i])
				if ((binOf[i]-n)%nb+nb)%nb < k {
					win += w
					syin += w * y[i]
				} else {
					wout += w
					syout += w * y[i]
				}
			}
			if win == 0 || wout == 0 {
				continue
			}
			yin, yout := syin/win, syout/wout
			dp := yout - yin
			de := math.Sqrt(1/win + 1/wout)
			var l float64
			for i := range t {
				if ((binOf[i]-n)%nb+nb)%nb < k {
					w := 1 / (dy[i] * dy[i])
					l += -0.5*(yin-y[i])*(yin-y[i])*w + 0.5*(yout-y[i])*(yout-y[i])*w
				}
			}
			obj1 := dp / de
			if obj == Likelihood {
				obj1 = l
			}
			if dp > 0 && obj1 > power {
				power, depth, depthErr, snr, ll = obj1, dp, de, dp/de, l
				dur = float64(k) * bw
				t0 = t[0] + math.Mod((float64(n)+0.5*float64(k))*bw, period)
			}
		}
	}
	return
}

func TestSearchMatchesBruteForce(t *testing.T) {
	// 300 cadences at random times over 40 d with random errors, a 2.7 d box of depth 2σ and a slope: every
	// periodogram column at every period must equal the direct computation to rounding.
	rng := rand.New(rand.NewPCG(21, 22))
	n := 300
	tt := make([]float64, n)
	for i := range tt {
		tt[i] = 100 + 40*(float64(i)+0.8*rng.Float64())/float64(n)
	}
	y := make([]float64, n)
	dy := make([]float64, n)
	for i, x := range tt {
		dy[i] = 1e-3 * (0.5 + rng.Float64())
		y[i] = 1 + 2e-5*(x-100) + dy[i]*rng.NormFloat64()
		if math.Mod(x-101.3, 2.7) < 0.2 {
			y[i] -= 2e-3
		}
	}
	// An odd number of periods exercises both the paired and the single fold.
	g := Grid{Periods: LogPeriodGrid(1.5, 9, 41), Durations: []float64{0.1, 0.17, 0.25, 0.4}, PhaseOversample: 3}
	for _, obj := range []Objective{SNR, Likelihood} {
		r, err := Search(tt, y, dy, g, obj)
		if err != nil {
			t.Fatal(err)
		}
		for p, per := range g.Periods {
			pw, dp, de, snr, ll, dur, t0 := bruteForce(tt, y, dy, per, g.Durations, 3, obj)
			got := []float64{r.Power[p], r.Depth[p], r.DepthErr[p], r.SNR[p], r.LogLike[p], r.Durations[p], r.T0[p]}
			want := []float64{pw, dp, de, snr, ll, dur, t0}
			for j, name := range []string{"power", "depth", "depth_err", "snr", "log_like", "duration", "t0"} {
				// Prefix sums and centring change the rounding, not the result: agree to 1e-9 relative.
				if math.Abs(got[j]-want[j]) > 1e-9*math.Max(1, math.Abs(want[j])) {
					t.Errorf("%v, P = %.4f: %s = %.12g, brute force %.12g", obj, per, name, got[j], want[j])
				}
			}
		}
		if t.Failed() {
			return
		}
	}
}

func TestSearchWorkersAgree(t *testing.T) {
	// Splitting the periods among goroutines changes nothing: every column is bit-for-bit the same.
	tt := keplerYear(60)
	y, dy := boxLC(tt, 2.9, 171, 0.12, 500e-6, 300e-6, 5)
	g := Grid{Periods: LogPeriodGrid(0.6, 19, 1001), Durations: []float64{0.05, 0.08, 0.12, 0.2}}
	r1, err := Search(tt, y, dy, g, SNR)
	if err != nil {
		t.Fatal(err)
	}
	g.Workers = 3
	r3, err := Search(tt, y, dy, g, SNR)
	if err != nil {
		t.Fatal(err)
	}
	for p := range g.Periods {
		if r1.Power[p] != r3.Power[p] || r1.T0[p] != r3.T0[p] || r1.Durations[p] != r3.Durations[p] {
			t.Fatalf("P = %.4f: 1 worker (%v, %v, %v), 3 workers (%v, %v, %v)", g.Periods[p],
				r1.Power[p], r1.T0[p], r1.Durations[p], r3.Power[p], r3.T0[p], r3.Durations[p])
		}
	}
}

func TestFold4VecMatchesGo(t *testing.T) {
	// The vector folds put every cadence in the same bin as the Go fold: a year of cadences (every remainder
	// of their number modulo 4, which the four-point steps leave to a tail, and a few cadences alone) at four periods from the shortest to the longest of a default grid, nb from ~100
	// to 2^foldBits.
	if !haveAVX2 {
		t.Skip("no vector fold on this machine")
	}
	tt := keplerYear(372)
	y, dy := boxLC(tt, 3.3, 170.2, 0.1, 500e-6, 300e-6, 4)
	durations := []float64{0.02, 0.05, 0.1}
	for _, n := range []int{len(tt), len(tt) - 1, len(tt) - 2, len(tt) - 3, 13, 10} {
		d, err := prepare(tt[:n], y[:n], dy[:n])
		if err != nil {
			t.Fatal(err)
		}
		foldAll(t, d, durations)
	}
}

// foldAll checks fold4Vec (and fold4Vec512, if the processor has it) against fold4Go on the points of d, at
// three sets of four periods.
func foldAll(t *testing.T, d *prepared, durations []float64) {
	t.Helper()
	for _, pers := range [][4]float64{{0.5, 0.5001, 0.5002, 0.5003}, {3.1, 7.7, 19.3, 65.5}, {1, 2, 4, 8}} {
		g := Grid{Periods: pers[:], Durations: durations}
		s := newSearcher(d, g, 5, SNR)
		fold := func(f func(a, b, c, d *plan)) foldBuf {
			clear(s.q4[:])
			var pl [4]plan
			for i := range pl {
				pl[i] = s.plan(i, s.q4[i*foldStride:])
			}
			f(&pl[0], &pl[1], &pl[2], &pl[3])
			return *s.q4
		}
		want := fold(s.fold4Go)
		vec := func(p0, p1, p2, p3 *plan) { args := newFoldVecArgs(p0, p1, p2, p3); fold4Vec(d.pts, s.q4, &args) }
		if fold(vec) != want {
			t.Errorf("%d points, periods %v: fold4Vec and fold4Go differ", len(d.pts), pers)
		}
		if haveAVX512 {
			vec512 := func(p0, p1, p2, p3 *plan) {
				args := newFoldVecArgs(p0, p1, p2, p3)
				fold4Vec512(d.pts, s.q4, &args)
			}
			if fold(vec512) != want {
				t.Errorf("%d points, periods %v: fold4Vec512 and fold4Go differ", len(d.pts), pers)
			}
		}
	}
}

// randomScreen draws a screen's input: prefix sums of 1 … maxBins + k bins with random weights and deviations,
// the box starts cs and ends ce = cs shifted by a box of k bins, and a threshold tau from 0.1 to 10^(decades−1).
func randomScreen(rng *rand.Rand, maxBins, decades int) (cs, ce []bin, k int, tau float64) {
	nb := 1 + rng.IntN(maxBins)
	k = 1 + rng.IntN(nb)
	c := make([]bin, nb+k+1)
	for i := 1; i < len(c); i++ {
		c[i] = bin{c[i-1].wy + rng.NormFloat64(), c[i-1].w + rng.Float64()}
	}
	tau = math.Pow(10, float64(decades)*rng.Float64()-1)
	return c[:nb], c[k : k+nb], k, tau
}

func TestScreenVecMatchesGo(t *testing.T) {
	// The vector screens stop at the same group as the Go ones, for random prefix sums of bins with random
	// weights and deviations, every stride 1 … 5 and thresholds from passing almost every box to almost none.
	if !haveAVX2 {
		t.Skip("no vector screen on this machine")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 2000 {
		cs, ce, k, tau := randomScreen(rng, 60, 3)
		nb := len(cs)
		if got, want := screenVec(cs, ce, tau), screenGo(cs, ce, tau); got != want {
			t.Fatalf("trial %d (nb %d, k %d, tau %g): screenVec %d, screenGo %d", trial, nb, k, tau, got, want)
		}
		for s := 1; s <= 5; s++ {
			if got, want := screenStrideVec(cs, ce, s, tau), screenStrideGo(cs, ce, s, tau); got != want {
				t.Fatalf("trial %d (nb %d, k %d, stride %d, tau %g): screenStrideVec %d, screenStrideGo %d", trial, nb, k, s, tau, got, want)
			}
		}
	}
}

// screenGroupGo is screenStrideGo for groups of g boxes: the first n = 0, gs, 2gs, … with n+(g−1)s < len(cs)
// whose group holds a box with Y_in² > tau·W_in, or the first with n+(g−1)s ≥ len(cs).
func screenGroupGo(cs, ce []bin, s, g int, tau float64) int {
	n := 0
	for ; n+(g-1)*s < len(cs); n += g * s {
		for i := n; i < n+g*s; i += s {
			if w, y := ce[i].w-cs[i].w, ce[i].wy-cs[i].wy; y*y > tau*w {
				return n
			}
		}
	}
	return n
}

func TestScreenVec512MatchesGo(t *testing.T) {
	// The AVX-512 screens stop at the same group of eight as the Go reference, for random prefix sums of bins
	// with random weights and deviations, every stride 1 … 9 and thresholds from passing almost every box to
	// almost none; with groups of four the reference is screenGo and screenStrideGo.
	if !haveAVX512 {
		t.Skip("no AVX-512 screen on this machine")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 3000 {
		cs, ce, k, tau := randomScreen(rng, 120, 4)
		nb := len(cs)
		if got, want := screenVec512(cs, ce, tau), screenGroupGo(cs, ce, 1, 8, tau); got != want {
			t.Fatalf("trial %d (nb %d, k %d, tau %g): screenVec512 %d, reference %d", trial, nb, k, tau, got, want)
		}
		if got, want := screenGo(cs, ce, tau), screenGroupGo(cs, ce, 1, 4, tau); got != want {
			t.Fatalf("trial %d (nb %d, k %d, tau %g): screenGo %d, reference %d", trial, nb, k, tau, got, want)
		}
		for s := 1; s <= 9; s++ {
			if got, want := screenStrideVec512(cs, ce, s, tau), screenGroupGo(cs, ce, s, 8, tau); got != want {
				t.Fatalf("trial %d (nb %d, k %d, stride %d, tau %g): screenStrideVec512 %d, reference %d", trial, nb, k, s, tau, got, want)
			}
			if got, want := screenStrideGo(cs, ce, s, tau), screenGroupGo(cs, ce, s, 4, tau); got != want {
				t.Fatalf("trial %d (nb %d, k %d, stride %d, tau %g): screenStrideGo %d, reference %d", trial, nb, k, s, tau, got, want)
			}
		}
	}
}

func TestPrefixRunVecMatchesGo(t *testing.T) {
	// The vector prefix sums (one bin per 128-bit vector, and four per 512-bit vector) equal the Go ones bit for
	// bit, for random bins with sums up to 2⁶² (where the conversion to float64 rounds), starting from a random
	// running sum.
	if !haveAVX512 {
		t.Skip("no AVX-512 prefix sums on this machine")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 500 {
		n := rng.IntN(40)
		src := make([]qbin, n)
		for i := range src {
			src[i] = qbin{wy: rng.Int64N(1<<56) - 1<<55, w: rng.Int64N(1 << 56)}
		}
		acc0 := qbin{wy: rng.Int64N(1<<60) - 1<<59, w: rng.Int64N(1 << 60)}
		got, want := make([]bin, n), make([]bin, n)
		accGot, accWant := acc0, acc0
		mGot, mWant := prefixRunVec(got, src, &accGot), prefixRunGo(want, src, &accWant)
		if !slices.Equal(got, want) || accGot != accWant || mGot != mWant {
			t.Fatalf("trial %d (%d bins): vector (%v, %v, %d), Go (%v, %v, %d)", trial, n, got, accGot, mGot, want, accWant, mWant)
		}
		// Four bins per 512-bit vector, then the rest one by one (prefixRun), keeping the bins or zeroing them.
		for _, zero := range []bool{false, true} {
			s := slices.Clone(src)
			accGot, got = acc0, make([]bin, n)
			if mGot = prefixRun(got, s, &accGot, zero); !slices.Equal(got, want) || accGot != accWant || mGot != mWant {
				t.Fatalf("trial %d (%d bins, zero %v): prefixRun (%v, %v, %d), Go (%v, %v, %d)", trial, n, zero, got, accGot, mGot, want, accWant, mWant)
			}
			if zero && slices.ContainsFunc(s, func(b qbin) bool { return b != qbin{} }) || !zero && !slices.Equal(s, src) {
				t.Fatalf("trial %d (%d bins, zero %v): bins left %v", trial, n, zero, s)
			}
		}
	}
}

func TestPrefixSums(t *testing.T) {
	// Bins q[0 … nb−1] and prefix sums over up to nb more, wrapping: c[i] = Σ_{j<i} q[j mod nb]; the bins are
	// left zero.
	for nb := 0; nb < 12; nb++ {
		q := make([]qbin, nb)
		for i := range q {
			q[i] = qbin{wy: int64(i*i - 3), w: int64(i + 1)}
		}
		for n := 1; n <= 2*nb+1; n++ {
			qz := slices.Clone(q)
			c := make([]bin, n)
			prefixSums(c, qz)
			if slices.ContainsFunc(qz, func(b qbin) bool { return b != qbin{} }) {
				t.Fatalf("%d bins, %d sums: bins left %v, want all zero for the next fold", nb, n, qz)
			}
			var sy, sw int64
			for i := range c {
				if c[i] != (bin{float64(sy), float64(sw)}) {
					t.Fatalf("%d bins, %d sums: prefix[%d] = %v, want {%d %d}", nb, n, i, c[i], sy, sw)
				}
				if nb > 0 {
					sy += q[i%nb].wy
					sw += q[i%nb].w
				}
			}
		}
	}
}
