package rvtrack

import (
	"math"
	"testing"

	"transitbench/engine/rv"
	"transitbench/workspace/internal/taskfixture"
)

// TestAnalyseSinglePlanet analyses a published one-planet Easy task (P = 5.28 d): the data's periodogram
// peaks at the planet's period, the peak's circular start lies there too, and once the true planet is
// subtracted the residuals pass the dry-run criteria and no longer peak at that period.
func TestAnalyseSinglePlanet(t *testing.T) {
	task := taskfixture.Load(t, "seed1108_diff2")
	d, med := task.Data(), task.MedianSigma()
	truth := task.TruthPlanets()
	if len(truth) != 1 {
		t.Fatalf("%s has %d true planets, the test wants 1", task.TaskID, len(truth))
	}
	p := truth[0].PeriodDays
	data := Analyse(d, med, nil, 0, false)
	if len(data.Peaks) != PeakCount || len(data.FAP) != PeakCount || len(data.Periods) != len(data.Power) {
		t.Fatalf("data: %d peaks, %d FAP, %d periods, %d powers", len(data.Peaks), len(data.FAP), len(data.Periods), len(data.Power))
	}
	if math.Abs(data.Peaks[0].PeriodDays/p-1) > 0.01 || data.FAP[0] > 1e-6 {
		t.Errorf("data: strongest peak %.4f d with FAP %g, the planet has %.4f d", data.Peaks[0].PeriodDays, data.FAP[0], p)
	}
	if data.Metrics.OKDeltaBIC || len(data.CurveT) != CurveN || data.CurveT[0] != d.Times[0] {
		t.Errorf("data: no planets yet ΔBIC/N passes or the curve is wrong: %+v, %d points from %g", data.Metrics,
			len(data.CurveT), data.CurveT[0])
	}
	start, ok := PeakPlanet(d, data)
	if !ok || math.Abs(start.PeriodDays/p-1) > 0.01 || math.Abs(start.KMS/truth[0].KMS-1) > 0.5 {
		t.Errorf("peak planet %+v (ok %v), truth %+v", start, ok, truth[0])
	}
	res := Analyse(d, med, truth, 0, true)
	if !res.Metrics.OKRMS || !res.Metrics.OKDeltaBIC {
		t.Errorf("residuals of the truth: %+v", res.Metrics)
	}
	for i, pk := range res.Peaks {
		if math.Abs(pk.PeriodDays/p-1) < 0.01 {
			t.Errorf("residual peak %d still at the planet's period: %.4f d", i+1, pk.PeriodDays)
		}
	}
	if _, ok := PeakPlanet(d, nil); ok {
		t.Error("a nil analysis suggests a planet")
	}
}

// TestFitData refines a start near the truth and runs the automatic search from nothing: both land on the
// planet's period and meet the dry-run criteria.
func TestFitData(t *testing.T) {
	task := taskfixture.Load(t, "seed1108_diff2")
	d, med := task.Data(), task.MedianSigma()
	p := task.TruthPlanets()[0]
	off := p
	off.PeriodDays *= 1.001
	off.KMS *= 0.8
	for name, init := range map[string][]rv.Planet{"refined": {off}, "searched": nil} {
		fit, err := FitData(d, init)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(fit.Planets) != 1 || math.Abs(fit.Planets[0].PeriodDays/p.PeriodDays-1) > 1e-3 || fit.JitterMS < 0 {
			t.Errorf("%s: %+v, truth %+v", name, fit, p)
			continue
		}
		if m := Analyse(d, med, fit.Planets, fit.JitterMS, true).Metrics; !m.OKRMS || !m.OKDeltaBIC {
			t.Errorf("%s: dry run %+v", name, m)
		}
	}
}
