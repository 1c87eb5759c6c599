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
// within 1 %. Every other pipeline of the product adds planets up to the cap of 7 on this series.
func TestHonestHD164922(t *testing.T) {
	d := hd164922(t)
	res := rv.Honest(d, rv.HonestOptions{})
	if len(res.Planets) != 2 {
		t.Fatalf("%d planets %+v, want 2; steps %+v", len(res.Planets), res.Planets, res.Steps)
	}
	b, c := res.Planets[0], res.Planets[1]
	if b.PeriodDays < c.PeriodDays {
		b, c = c, b
	}
	if math.Abs(b.PeriodDays/1201.1-1) > 0.01 || math.Abs(b.KMS-7.3) > 1 || b.E > 0.3 {
		t.Errorf("planet b %+v, want P within 1 %% of 1201.1 d, K ≈ 7.3 m/s, e ≈ 0.1", b)
	}
	if math.Abs(c.PeriodDays/75.76-1) > 0.01 || math.Abs(c.KMS-2.2) > 0.7 || c.E > 0.5 {
		t.Errorf("planet c %+v, want P within 1 %% of 75.76 d, K ≈ 2.2 m/s", c)
	}
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

// TestHonestSparseSeason: on 32 points over one season the classical search returns a planet at e = 0.95 with
// K of tens of m/s (an artefact; the star's signals are below 8 m/s); the honest search reports none.
func TestHonestSparseSeason(t *testing.T) {
	d := sparseSeason(t)
	if d.Len() != 32 || d.Span() > 366 || len(d.Instruments) != 2 {
		t.Fatalf("sparse series: %d points over %.0f d, instruments %v", d.Len(), d.Span(), d.Instruments)
	}
	artefact := false
	for _, p := range rv.Classical(d, rv.ClassicalOptions{}).Planets {
		artefact = artefact || p.E > 0.9 && p.KMS > 20
	}
	if !artefact {
		t.Errorf("the classical search no longer finds the e ≈ 0.95 artefact here: the case no longer tests anything")
	}
	res := rv.Honest(d, rv.HonestOptions{})
	if len(res.Planets) != 0 {
		t.Fatalf("%d planets %+v on one sparse season, want none; steps %+v", len(res.Planets), res.Planets, res.Steps)
	}
	if len(res.Steps) != 1 || res.Steps[0].Reason != "no significant peak" {
		t.Errorf("steps %+v", res.Steps)
	}
	planets, jit := HonestSolver(d, 0.874, 0)
	if len(planets) != 0 || !(jit > 0) {
		t.Errorf("solver: %d planets, jitter %g; want none and the white jitter of the data", len(planets), jit)
	}
}
