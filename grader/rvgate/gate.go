package rvgate

import (
	"math"

	"transitbench/data/stargazer"
	"transitbench/engine/rv"
)

// Thresholds of the gate, as the original code sets them.
const (
	MaxRMSFactor       = 1.5  // ok_rms: RMS ≤ 1.5 × median(σ)
	MinDeltaBICPerPt   = 0.0  // ok_delta_bic: ΔBIC/N > 0 (the original README says "ΔBIC > 10"; its code uses this)
	MinMatchScore      = 0.8  // ok_match: S ≥ 0.8
	MaxPairDistance    = 5.0  // matched pairs with d > 5 are dropped
	CountPenaltyFactor = 0.25 // S loses 0.25 per planet of count mismatch
)

// ModelMetrics are the parts of the gate that need no truth: what a dry run may report.
type ModelMetrics struct {
	RMSMS            float64 `json:"rms_ms"`              // √mean((y − model − γ)²), unweighted, m/s
	MaxRMSMS         float64 `json:"max_rms_ms"`          // 1.5 × median(σ)
	DeltaBICPerPoint float64 `json:"delta_bic_per_point"` // (BIC_null − BIC_model)/N
	OKRMS            bool    `json:"ok_rms"`
	OKDeltaBIC       bool    `json:"ok_delta_bic"`
}

// Metrics computes RMS and ΔBIC/N of planets (with jitter s) on d. The model's offsets are the weighted means
// of the residuals per instrument (weights 1/(σ² + s²)); lnL = −½ Σ [r²/v + ln(2π v)], v = σ² + s²;
// k = 5·planets + instruments; BIC = −2 lnL + k ln N. The null model is the weighted mean per instrument with
// v = σ² and k = instruments. ok_rms: RMS ≤ 1.5 · median σ; ok_delta_bic: ΔBIC/N > 0.
func Metrics(d *rv.Data, planets []rv.Planet, jitterMS, medianSigma float64) ModelMetrics {
	n := d.Len()
	model := make([]float64, n)
	rv.ModelRV(model, d.Times, d.TRef, planets)
	ev := d.Evaluate(model, jitterMS)
	null := d.Evaluate(nil, 0)
	nInst := len(d.Instruments)
	bic := rv.BIC(ev.LnL, rv.NumParams(len(planets), nInst), n)
	bicNull := rv.BIC(null.LnL, rv.NumParams(0, nInst), n)
	m := ModelMetrics{
		RMSMS:            ev.RMS,
		MaxRMSMS:         MaxRMSFactor * medianSigma,
		DeltaBICPerPoint: (bicNull - bic) / float64(n),
	}
	m.OKRMS = m.RMSMS <= m.MaxRMSMS
	m.OKDeltaBIC = m.DeltaBICPerPoint > MinDeltaBICPerPt
	return m
}

// Result is the full gate outcome of one submission. It carries truth-derived scalars (the match scores and
// the count verdict) and is for the grader's own use; Feedback is what a contestant sees.
type Result struct {
	ModelMetrics
	MatchScore       float64 `json:"match_score"`        // S, the original's normalisation
	MatchScoreStrict float64 `json:"match_score_strict"` // Σ exp(−d)/n_truth − 0.25|Δn|
	OKMatch          bool    `json:"ok_match"`
	OKMatchStrict    bool    `json:"ok_match_strict"`
	OKCount          bool    `json:"ok_count"`
	Passed           bool    `json:"passed"` // all four criteria (original rules)
	NGuess           int     `json:"n_guess"`
	// The strict gate: ok_match replaced by ok_match_strict (S normalised by n_truth), the rest as Passed.
	PassedStrict bool `json:"passed_strict"`
	// The calibrated gate: ok_match replaced by ok_match_calibrated, which holds when every true planet is
	// matched (MatchCalibrated) within CalibratedSigmas of the uncertainties the data give at the truth
	// (Uncertainties); ok_rms, ok_delta_bic and ok_count as in the original.
	MatchedCalibrated int  `json:"matched_calibrated"` // true planets matched under the calibrated rule
	OKMatchCalibrated bool `json:"ok_match_calibrated"`
	PassedCalibrated  bool `json:"passed_calibrated"`
	// The fair RMS criterion, set for real tasks only: the threshold is raised to the truth's own RMS when that
	// is larger, so a submission is held to what the published solution achieves.
	FairMaxRMSMS *float64 `json:"fair_max_rms_ms,omitempty"`
	OKRMSFair    *bool    `json:"ok_rms_fair,omitempty"`
	PassedFair   *bool    `json:"passed_fair,omitempty"`
}

// Evaluate runs the four-criterion gate of SPEC B3 for planets (with jitter s) against task's truth, under
// the original match rule, the strict one and the calibrated one.
func Evaluate(task *stargazer.Task, planets []rv.Planet, jitterMS float64) Result {
	d := task.Data()
	truth := task.TruthPlanets()
	r := Result{ModelMetrics: Metrics(d, planets, jitterMS, task.MedianSigma()), NGuess: len(planets)}
	r.MatchScore, r.MatchScoreStrict = Match(d, truth, planets)
	r.OKMatch = r.MatchScore >= MinMatchScore
	r.OKMatchStrict = r.MatchScoreStrict >= MinMatchScore
	r.MatchedCalibrated = MatchCalibrated(truth, Uncertainties(d, truth, CalibratedJitter(task)), planets)
	r.OKMatchCalibrated = r.MatchedCalibrated == len(truth)
	r.OKCount = len(planets) == len(truth)
	r.Passed = r.OKRMS && r.OKDeltaBIC && r.OKMatch && r.OKCount
	r.PassedStrict = r.OKRMS && r.OKDeltaBIC && r.OKMatchStrict && r.OKCount
	r.PassedCalibrated = r.OKRMS && r.OKDeltaBIC && r.OKMatchCalibrated && r.OKCount
	if task.Real {
		model := make([]float64, d.Len())
		rv.ModelRV(model, d.Times, d.TRef, truth)
		fair := math.Max(r.MaxRMSMS, d.Evaluate(model, 0).RMS)
		ok := r.RMSMS <= fair
		passed := ok && r.OKDeltaBIC && r.OKMatch && r.OKCount
		r.FairMaxRMSMS, r.OKRMSFair, r.PassedFair = &fair, &ok, &passed
	}
	return r
}

// Distance returns the original's dissimilarity between a true planet a and a guessed planet b on the times of
// d: 4 · RMS(v_a − v_b − mean(v_a − v_b)) / K_a + |ln(P_b/P_a)| + 0.5 |ln(K_b/K_a)| + 0.5 |e_b − e_a|, with
// v the single-planet curves at the observation times.
func Distance(d *rv.Data, a, b rv.Planet) float64 {
	n := d.Len()
	diff := make([]float64, n)
	a.AddRV(diff, d.Times, d.TRef)
	neg := b
	neg.KMS = -b.KMS
	neg.AddRV(diff, d.Times, d.TRef)
	mean := 0.0
	for _, x := range diff {
		mean += x
	}
	mean /= float64(n)
	ss := 0.0
	for _, x := range diff {
		ss += (x - mean) * (x - mean)
	}
	rms := math.Sqrt(ss / float64(n))
	return 4*rms/a.KMS + math.Abs(math.Log(b.PeriodDays/a.PeriodDays)) +
		0.5*math.Abs(math.Log(b.KMS/a.KMS)) + 0.5*math.Abs(b.E-a.E)
}

// Match scores guessed planets against the truth: the Hungarian assignment minimising the summed Distance,
// pairs with d > 5 dropped, then
//
//	S = mean over kept pairs of exp(−d) − 0.25 |n_truth − n_guess|   (0 for the mean when no pair is kept)
//	S_strict = Σ over kept pairs of exp(−d) / n_truth − 0.25 |n_truth − n_guess|
//
// S is the original's score; S_strict is the variant its paper recommends, which does not reward a submission
// that matches one planet perfectly and misses the rest.
func Match(d *rv.Data, truth, guess []rv.Planet) (score, strict float64) {
	penalty := CountPenaltyFactor * math.Abs(float64(len(truth)-len(guess)))
	if len(truth) == 0 || len(guess) == 0 {
		return -penalty, -penalty
	}
	cost := make([][]float64, len(truth))
	for i, a := range truth {
		cost[i] = make([]float64, len(guess))
		for j, b := range guess {
			c := Distance(d, a, b)
			if math.IsNaN(c) || math.IsInf(c, 0) {
				c = 1e6
			}
			cost[i][j] = c
		}
	}
	sum, kept := 0.0, 0
	for i, j := range Assign(cost) {
		if j < 0 || cost[i][j] > MaxPairDistance {
			continue
		}
		sum += math.Exp(-cost[i][j])
		kept++
	}
	if kept > 0 {
		score = sum / float64(kept)
	}
	return score - penalty, sum/float64(len(truth)) - penalty
}

// TruthCheck is the gate's verdict on a task's own truth (jitter 0).
type TruthCheck struct {
	TaskID string `json:"task"`
	Tier   string `json:"tier"`
	Result
	Solvable bool `json:"solvable"` // the truth passes all four criteria
}

// CheckTruth submits the truth of task to the gate with jitter 0.
func CheckTruth(task *stargazer.Task) TruthCheck {
	r := Evaluate(task, task.TruthPlanets(), 0)
	return TruthCheck{TaskID: task.TaskID, Tier: task.Tier(), Result: r, Solvable: r.Passed}
}
