package quicklook

import (
	"math"
	"sort"
	"testing"

	"transitbench/data/sets"
	"transitbench/engine/stat"
)

// TestMESAtTruthIsTheAnswers measures every injected planet of the dev set at its true ephemeris as every
// front end measures a signal (Measure) and compares the MES with the one the set's answer states (the
// simulator's meter). A measured MES scatters about the expected one by about ±1 (the depth's own noise: the
// MES is a depth over its error), so per star "within 10 %" cannot hold at MES 5–10; over the set the median
// ratio measured/answer must be within 10 % of 1, and the differences measured − answer must look like unit
// scatter: a median near 0 and a robust spread (1.4826 MAD) between 0.5 and 2.
func TestMESAtTruthIsTheAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the dev set: not in -short mode")
	}
	s, err := sets.Open(t.TempDir(), sets.Dev, sets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 0, len(s.Answers))
	for id, a := range s.Answers {
		if a.Planet != nil {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	var ratio, diff []float64
	for _, id := range ids {
		c, star, err := s.Star(id)
		if err != nil {
			t.Fatal(err)
		}
		ans := s.Answers[id]
		e, _ := Truth(&ans)
		m := Measure(Prepare(c, star, PrepareOptions{NoDetrend: true}), e)
		got, want := m.Features.MES, ans.Planet.MES
		ratio, diff = append(ratio, got/want), append(diff, got-want)
		t.Logf("%s: answer MES %5.1f, measured %5.1f (T14 %.2f h, truth %.2f h)", id, want, got, 24*m.Ephemeris.DurationDays, 24*e.DurationDays)
	}
	if len(ids) < 50 {
		t.Fatalf("%d injected planets", len(ids))
	}
	medRatio := stat.Median(append([]float64(nil), ratio...))
	medDiff := stat.Median(append([]float64(nil), diff...))
	spread := stat.MADToSigma4 * stat.MAD(append([]float64(nil), diff...))
	within1, within2 := 0, 0
	for _, d := range diff {
		if math.Abs(d) <= 1 {
			within1++
		}
		if math.Abs(d) <= 2 {
			within2++
		}
	}
	t.Logf("%d planets: median ratio %.3f, median difference %+.2f, robust spread %.2f; |Δ| ≤ 1 on %d, ≤ 2 on %d",
		len(ids), medRatio, medDiff, spread, within1, within2)
	if math.Abs(medRatio-1) > 0.1 {
		t.Errorf("median measured/answer MES %.3f, want within 10 %% of 1", medRatio)
	}
	if math.Abs(medDiff) > 1 || spread < 0.5 || spread > 2 {
		t.Errorf("differences measured − answer: median %+.2f, spread %.2f; want unit scatter about 0", medDiff, spread)
	}
}
