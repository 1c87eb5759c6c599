package noise

import (
	"math"
	"math/rand/v2"
	"testing"
)

// scanTransits is the reference count of transits with data: one pass over the times, grouping the in-window
// ones by their nearest epoch (the definition of NTransitsWithData, written as plainly as possible).
func scanTransits(t []float64, c, periodDays, t0Days, durationDays float64) int {
	need := max(1, int(math.Ceil(durationDays/(2*c)-1e-9)))
	counts := map[int]int{}
	for _, x := range t {
		k := int(math.Floor((x-t0Days)/periodDays + 0.5))
		if math.Abs(x-t0Days-float64(k)*periodDays) <= durationDays/2 {
			counts[k]++
		}
	}
	n := 0
	for _, v := range counts {
		if v >= need {
			n++
		}
	}
	return n
}

// gappyTimes returns a year of 30-min cadences with random gaps (single cadences and runs of up to 3 days).
func gappyTimes(r *rand.Rand) []float64 {
	const c = 0.0204
	var t []float64
	for x := 131.5; x < 131.5+365; x += c {
		switch {
		case r.IntN(3000) == 0:
			x += 3 * r.Float64()
		case r.IntN(20) == 0:
			continue
		}
		t = append(t, x)
	}
	return t
}

// TestCountTransitsMatchesScan checks the binary-search count against the one-pass reference on gappy
// light curves, with periods from shorter than the duration (overlapping windows) to longer than the span, and
// epochs placed so that window edges fall on cadences.
func TestCountTransitsMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := range 400 {
		tv := gappyTimes(r)
		c := CadenceDays(tv)
		period := math.Exp(math.Log(0.05) + r.Float64()*math.Log(400/0.05))
		dur := 0.02 + 0.5*r.Float64()
		t0 := tv[0] + period*r.Float64()
		if trial%4 == 0 { // a window edge exactly on a cadence
			t0 = tv[r.IntN(len(tv))] + dur/2
		}
		want := scanTransits(tv, c, period, t0, dur)
		if got := CountTransits(tv, c, period, t0, dur); got != want {
			t.Fatalf("trial %d: P %.4f d, D %.4f d: CountTransits %d, reference %d", trial, period, dur, got, want)
		}
		if got := NTransitsWithData(tv, period, t0, dur); got != want {
			t.Fatalf("trial %d: NTransitsWithData %d, reference %d", trial, got, want)
		}
	}
}

// TestIntoMatchEngine checks SigmaDInto and MESInto against SigmaD and MES on white noise with gaps: equal to
// rounding (the sums are centred differently), with the same transit count.
func TestIntoMatchEngine(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	tv := gappyTimes(r)
	f := make([]float64, len(tv))
	for i := range f {
		f[i] = 1 + 1e-4*r.NormFloat64()
	}
	c := CadenceDays(tv)
	work := make([]float64, 4*len(tv)+1)
	for _, d := range []float64{0.05, 0.125, 0.25, 0.5} {
		got, want := SigmaDInto(work, tv, f, c, d), SigmaD(tv, f, d)
		if math.Abs(got/want-1) > 1e-9 {
			t.Errorf("D = %v d: SigmaDInto %v, SigmaD %v", d, got, want)
		}
	}
	model := boxModel(tv, 3.7, 140, 0.2, 300e-6)
	got, want := MESInto(work, tv, f, model, c, 3.7, 140, 0.2), MES(tv, f, model, 3.7, 140, 0.2)
	if math.Abs(got.MES/want.MES-1) > 1e-9 || got.NTransits != want.NTransits || got.MeanDepth != want.MeanDepth {
		t.Errorf("MESInto %+v, MES %+v", got, want)
	}
	if a := testing.AllocsPerRun(5, func() { MESInto(work, tv, f, model, c, 3.7, 140, 0.2) }); a != 0 {
		t.Errorf("MESInto allocates %v times a call, want 0", a)
	}
}

func BenchmarkMESInto(b *testing.B) {
	times, flux := validPairs(whiteLightCurve(17600, 100e-6, 4))
	model := boxModel(times, 3.7, times[0]+1, 0.2, 300e-6)
	work := make([]float64, 4*len(times)+1)
	c := CadenceDays(times)
	for b.Loop() {
		MESInto(work, times, flux, model, c, 3.7, times[0]+1, 0.2)
	}
}
