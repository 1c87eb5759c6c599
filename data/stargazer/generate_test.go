package stargazer

import (
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"testing"
)

func TestGenerateDeterministic(t *testing.T) {
	a, b := Generate(42), Generate(42)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave two different tasks")
	}
	if c := Generate(43); reflect.DeepEqual(a.Observations, c.Observations) {
		t.Fatal("seeds 42 and 43 gave the same observations")
	}
}

// TestGeneratePriors draws 1000 tasks and checks the prior fractions within 4σ of a binomial proportion:
// one planet 0.5, two 0.3, correlated noise 0.4 (Stargazer's priors.py and task_factory.py), and the ranges
// of the other draws.
func TestGeneratePriors(t *testing.T) {
	const n = 1000
	counts := [5]int{}
	gp := 0
	for s := range uint64(n) {
		task := Generate(1000 + s)
		np := len(task.Config.Planets)
		counts[np]++
		if task.Config.Noise.GP.UseGP {
			gp++
		}
		o := task.Observations
		if len(o.TimesDays) < 40 || len(o.TimesDays) > 80 {
			t.Fatalf("seed %d: %d observations, want 40–80", s, len(o.TimesDays))
		}
		if m := task.Config.Star.MStarSun; m < 0.7 || m > 1.3 {
			t.Fatalf("seed %d: M★ %g", s, m)
		}
		for _, p := range task.Config.Planets {
			if p.PDays < 2 || p.PDays > 300 || p.E < 0 || p.E > 0.9 || p.MSinIMJup < 0.01 || p.MSinIMJup > 1 {
				t.Fatalf("seed %d: planet out of prior range: %+v", s, p)
			}
		}
		if got, _ := Difficulty(task.Config.Planets, task.Config.Star.MStarSun, task.Config.Noise, o.TimesDays); got != task.TruthDifficulty {
			t.Fatalf("seed %d: stored difficulty %d, recomputed %d", s, task.TruthDifficulty, got)
		}
	}
	check := func(name string, k int, p float64) {
		sd := math.Sqrt(p * (1 - p) / n)
		if f := float64(k) / n; math.Abs(f-p) > 4*sd {
			t.Errorf("%s: fraction %.3f, want %.2f ± %.3f", name, f, p, 4*sd)
		}
	}
	check("one planet", counts[1], 0.5)
	check("two planets", counts[2], 0.3)
	check("four planets", counts[4], 0.05)
	check("correlated noise", gp, 0.4)
}

// TestGeneratedConversionRecoversNoise: the load-time conversion removes exactly the stand-in signal the
// generator added, so a generated task without correlated noise has residual std ≈ √(σ_white² + σ_jitter²),
// and its truth reproduces the converted RVs to the noise level.
func TestGeneratedConversionRecoversNoise(t *testing.T) {
	dir := t.TempDir()
	var ratios []float64
	for s := range uint64(60) {
		g := Generate(500 + s)
		if g.HasCorrelatedNoise() {
			continue
		}
		path := filepath.Join(dir, g.TaskID+".json")
		if err := WriteFile(path, g); err != nil {
			t.Fatal(err)
		}
		task, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !task.Converted || task.Real {
			t.Fatalf("%s: read back as converted=%v real=%v", task.TaskID, task.Converted, task.Real)
		}
		ev := task.Data().Evaluate(modelOf(task), 0)
		nz := task.Config.Noise
		ratios = append(ratios, ev.RMS/math.Hypot(nz.SigmaWhiteMS, nz.SigmaJitterMS))
	}
	mean := 0.0
	for _, r := range ratios {
		mean += r
	}
	mean /= float64(len(ratios))
	// The RMS about the fitted offset of 40–80 Gaussian points averages ≈ 1 (slightly below: one offset fitted).
	if len(ratios) < 20 || math.Abs(mean-1) > 0.06 {
		t.Errorf("%d tasks, mean RMS / expected noise %.3f, want ≈ 1", len(ratios), mean)
	}
}

func modelOf(task *Task) []float64 {
	d := task.Data()
	m := make([]float64, d.Len())
	for _, p := range task.TruthPlanets() {
		p.AddRV(m, d.Times, d.TRef)
	}
	return m
}

func TestGenerateTier(t *testing.T) {
	tasks, err := GenerateTier(TierHard, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, task := range tasks {
		if task.Tier() != TierHard || task.TruthDifficulty < 7 {
			t.Errorf("%s: tier %s", task.TaskID, task.Tier())
		}
		ids[task.TaskID] = true
	}
	if len(ids) != 5 {
		t.Errorf("%d distinct tasks, want 5", len(ids))
	}
	if _, err := GenerateTier(TierReal, 1, 1); err == nil {
		t.Error("generating real tasks should fail")
	}
	b, _ := json.Marshal(tasks[0])
	if _, err := Parse(b, "x.json"); err != nil {
		t.Errorf("a generated task does not parse: %v", err)
	}
}
