package rvbaselines

import (
	"math"
	"testing"

	"transitbench/engine/rv"
	"transitbench/internal/testsets"
)

// hd164922 is HD 164922's published series (testsets.HD164922) as the pipelines' data.
func hd164922(t *testing.T) *rv.Data {
	t.Helper()
	s := testsets.HD164922(t)
	d, err := rv.NewData(s.Times, s.RVs, s.Sigmas, s.Instruments)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestHonestHD164922 asks for the two published planets and nothing more: b at 1201.1 ± 2.6 d (Fulton et al.
// 2016; radvel's example starts at 1206.3 d) with K ≈ 7.3 m/s, and c at 75.76 d with K ≈ 2.2 m/s, each period
// within 1 %.
func TestHonestHD164922(t *testing.T) {
	d := hd164922(t)
	res := rv.Honest(d, rv.HonestOptions{})
	checkHD164922(t, "honest", res.Planets)
	// One jitter per instrument (k, j, a), each a few m/s at most.
	if len(res.InstJitter) != 3 {
		t.Fatalf("jitters %v, want one per instrument", res.InstJitter)
	}
	for k, j := range res.InstJitter {
		if !(j >= 0 && j < 5) {
			t.Errorf("instrument %s jitter %.2f m/s", d.Instruments[k], j)
		}
	}
	last := res.Steps[len(res.Steps)-1]
	if last.Added || last.Reason != "no significant peak" {
		t.Errorf("last step %+v: want the search to stop on a peak that is not significant", last)
	}
}

// TestEveryPipelineHD164922: the classical pipeline, the search and the honest solver give exactly the two
// published planets too. Before the eccentricity prior, the jitter-aware BIC and the empirical false-alarm
// test, classical went on to 19.40 d and 3.44 d planets at e = 0.95 and the search to the cap of 7.
func TestEveryPipelineHD164922(t *testing.T) {
	d := hd164922(t)
	for _, c := range []struct {
		name  string
		solve Solver
	}{{"classical", ClassicalSolver}, {"search", SearchSolver}, {"honest", HonestSolver}} {
		planets, _ := c.solve(d, 0.874, 1)
		checkHD164922(t, c.name, planets)
	}
}

// checkHD164922 asks planets to be HD 164922 b and c and nothing else.
func checkHD164922(t *testing.T, name string, planets []rv.Planet) {
	t.Helper()
	if len(planets) != 2 {
		t.Errorf("%s: %d planets %+v, want 2", name, len(planets), planets)
		return
	}
	b, c := planets[0], planets[1]
	if b.PeriodDays < c.PeriodDays {
		b, c = c, b
	}
	if math.Abs(b.PeriodDays/1201.1-1) > 0.01 || math.Abs(b.KMS-7.3) > 1 || b.E > 0.3 {
		t.Errorf("%s: planet b %+v, want P within 1 %% of 1201.1 d, K ≈ 7.3 m/s, e ≈ 0.1", name, b)
	}
	if math.Abs(c.PeriodDays/75.76-1) > 0.01 || math.Abs(c.KMS-2.2) > 0.7 || c.E > 0.5 {
		t.Errorf("%s: planet c %+v, want P within 1 %% of 75.76 d, K ≈ 2.2 m/s", name, c)
	}
}

// sparseSeason is HD 164922's last year of data (HIRES and APF) cut to 32 points, taken evenly by index: one
// season, too short and sparse to see either planet.
func sparseSeason(t *testing.T) *rv.Data {
	d := hd164922(t)
	last := d.Times[d.Len()-1]
	var idx []int
	for i, x := range d.Times {
		if x > last-365.25 {
			idx = append(idx, i)
		}
	}
	var tt, vv, ss []float64
	var ii []string
	for k := range 32 {
		i := idx[k*(len(idx)-1)/31]
		tt, vv, ss = append(tt, d.Times[i]), append(vv, d.RVs[i]), append(ss, d.Sigmas[i])
		ii = append(ii, d.Instruments[d.Inst[i]])
	}
	s, err := rv.NewData(tt, vv, ss, ii)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSparseSeasonNoInventedPlanets: 32 points over one season, where the star's signals are below 8 m/s and
// neither planet is resolved, as observed (HIRES and APF) and as one instrument. Before the eccentricity
// prior and the jitter-aware evidence, the classical search returned a 232.8 d planet with K = 91.3 m/s at
// e = 0.950 on the first, and ClassicalSolver an 11.53 d planet with K = 42.7 m/s at e = 0.950 and a 2.305 d
// one on the second (the search: the same two at e = 0.71 and 0.46, jitter 1.0 m/s). Now no pipeline reports
// an orbit at e > 0.8 or a K above the scatter of the data, nor a jitter below the quoted errors, and the
// honest search reports no planet.
func TestSparseSeasonNoInventedPlanets(t *testing.T) {
	d := sparseSeason(t)
	if d.Len() != 32 || d.Span() > 366 || len(d.Instruments) != 2 {
		t.Fatalf("sparse series: %d points over %.0f d, instruments %v", d.Len(), d.Span(), d.Instruments)
	}
	one, err := rv.NewData(d.Times, d.RVs, d.Sigmas, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*rv.Data{d, one} {
		scatter := d.Evaluate(nil, 0).RMS
		for _, c := range []struct {
			name  string
			solve Solver
		}{{"classical", ClassicalSolver}, {"classical-thorough", ClassicalThoroughSolver}, {"search", SearchSolver}, {"honest", HonestSolver}} {
			planets, jit := c.solve(d, 0.874, 1)
			for _, p := range planets {
				if p.E > rv.MaxPriorE || p.KMS > scatter {
					t.Errorf("%d instruments, %s: %+v (scatter %.2f m/s)", len(d.Instruments), c.name, p, scatter)
				}
			}
			if jit != 0 && jit < d.MedianSigma() {
				t.Errorf("%d instruments, %s: jitter %.2f m/s below the median quoted error %.2f", len(d.Instruments), c.name, jit, d.MedianSigma())
			}
			t.Logf("%d instruments, %s: %d planets, jitter %.2f", len(d.Instruments), c.name, len(planets), jit)
		}
		for _, p := range rv.Classical(d, rv.ClassicalOptions{}).Planets {
			if p.E > rv.MaxPriorE || p.KMS > scatter {
				t.Errorf("%d instruments, rv.Classical: %+v (scatter %.2f m/s)", len(d.Instruments), p, scatter)
			}
		}
		res := rv.Honest(d, rv.HonestOptions{})
		if len(res.Planets) != 0 {
			t.Errorf("%d instruments: %d planets %+v on one sparse season, want none; steps %+v", len(d.Instruments), len(res.Planets), res.Planets, res.Steps)
		}
	}
}
