package baselines

import (
	"math"
	"os"
	"slices"
	"testing"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/engine/pipeline"
	"transitbench/engine/stat"
)

// TestVetterStableUnderStellarErrors perturbs the catalogue star of dev planets (radius, then mass, ± 20 %) and
// runs learned_vetter again: a planet kept with one catalogue should be kept with another that a real catalogue
// could as well have given (SPEC A1's errors are 5–40 %). Where the planet is a candidate in both runs it counts
// the vetter's decisions that flip (kept ↔ dropped, p across pipeline.VetterThreshold) and the median change of
// p; separately it counts the runs where the search finds the planet in one and not the other (the period grid
// follows the star's density, Ofir 2014), which are logged. By default the first 12 injected dev planets with MES
// ≥ 7.1 are checked (48 perturbed runs, about a minute of CPU); with TRANSITBENCH_STABILITY=all every injected
// dev planet is, at ± 10 % and ± 20 % (the README's numbers).
func TestVetterStableUnderStellarErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the dev set and runs the pipeline 60 times")
	}
	m, err := pipeline.EmbeddedVetter()
	if err != nil {
		t.Fatal(err)
	}
	set, err := sets.Open(t.TempDir(), sets.Dev, sets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := os.Getenv("TRANSITBENCH_STABILITY") == "all"
	factors := []float64{0.8, 1.2}
	if all {
		factors = []float64{0.8, 0.9, 1.1, 1.2}
	}
	// pAt is the largest p among the candidates at the planet's period, and whether one is at it.
	pAt := func(c []pipeline.Features, period float64) (float64, bool) {
		best, found := 0.0, false
		for i := range c {
			if math.Abs(c[i].Peak.PeriodDays/period-1) < 0.01 {
				best, found = math.Max(best, m.Model.Predict(c[i].Vector())), true
			}
		}
		return best, found
	}
	var flips, runs, planets, kept, searchChanges int
	var dp []float64
	for _, id := range set.IDs {
		ans := set.Answers[id]
		if ans.Category != data.CategoryInjected || !all && (ans.Planet.MES < 7.1 || planets == 12) {
			continue
		}
		planets++
		c, st, err := set.Star(id)
		if err != nil {
			t.Fatal(err)
		}
		base := PipelineStar(st)
		cands, err := pipeline.Candidates(c, base)
		if err != nil {
			t.Fatal(err)
		}
		p0, found0 := pAt(cands, ans.Planet.PeriodDays)
		if p0 > pipeline.VetterThreshold {
			kept++
		}
		for _, f := range factors {
			for _, which := range []string{"radius", "mass"} {
				s := base
				if which == "radius" {
					s.RadiusRsun *= f
				} else {
					s.MassMsun *= f
				}
				cands, err := pipeline.Candidates(c, s)
				if err != nil {
					t.Fatal(err)
				}
				p, found := pAt(cands, ans.Planet.PeriodDays)
				if found != found0 {
					searchChanges++
					t.Logf("%s (MES %.1f, P %.3f d): %s × %.1f: the search finds the planet %v, with the catalogue star %v",
						id, ans.Planet.MES, ans.Planet.PeriodDays, which, f, found, found0)
					continue
				}
				if !found {
					continue
				}
				runs++
				dp = append(dp, math.Abs(p-p0))
				if (p > pipeline.VetterThreshold) != (p0 > pipeline.VetterThreshold) {
					flips++
					t.Logf("%s (MES %.1f, P %.3f d): %s × %.1f moves p from %.3f to %.3f", id, ans.Planet.MES,
						ans.Planet.PeriodDays, which, f, p0, p)
				}
			}
		}
	}
	med := stat.Median(slices.Clone(dp))
	t.Logf("%d planets (%d kept with the catalogue star); %d perturbed runs with the planet a candidate in both: %d decisions flip, median |Δp| %.4f, 90th percentile %.3f; %d runs where the search finds it in one only",
		planets, kept, runs, flips, med, percentile(dp, 0.9), searchChanges)
	// Allowed: one flip in 24 perturbed runs and a median change of p below 0.02 — a vetter whose decisions
	// hang on the star's density to that degree would drop or keep planets by the catalogue's luck.
	if flips*24 > runs || med > 0.02 {
		t.Errorf("%d of %d perturbed runs flip the decision, median |Δp| %.4f: want at most 1 in 24 and a median under 0.02",
			flips, runs, med)
	}
}

// percentile returns the q-quantile of x (nearest rank), leaving x as it is.
func percentile(x []float64, q float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(x))
	return s[min(len(s)-1, int(q*float64(len(s))))]
}
