package rvbaselines

import (
	"math"

	"transitbench/data/stargazer"
	"transitbench/engine/rv"
	"transitbench/grader/rvgate"
)

// Ceiling is how a fit started at a task's own truth fares at the gate: the honest ceiling (SPEC B3). No
// search and no feedback are involved: the planet count and the basin of each planet are given, so a search
// cannot do better on a task except by luck.
type Ceiling struct {
	// LeastSquares is the gate's verdict on the least-squares fit (rv.Fit, jitter 0) started at the truth.
	LeastSquares rvgate.Result `json:"least_squares"`
	// Kipping is the verdict on the same fit under Kipping's (2013) eccentricity prior (rv.FitOptions.Kipping),
	// what an RV astronomer fits: least squares lets the eccentricity of weak planets run away towards 1.
	Kipping rvgate.Result `json:"kipping"`
}

// HonestCeiling fits task's truth planets to its data from the truth itself, by least squares and under
// Kipping's prior, and grades both fits with the gate (original, strict and calibrated verdicts in each
// Result). A fit that fails to run, or diverges to a model that is not finite (plain least squares on
// seed43_diff7 and seed500060_diff9 drives a weak planet's period towards 0), is graded as no planets.
func HonestCeiling(task *stargazer.Task) Ceiling {
	grade := func(opt rv.FitOptions) rvgate.Result {
		fit, err := rv.Fit(task.Data(), task.TruthPlanets(), opt)
		if err != nil {
			return rvgate.Evaluate(task, nil, 0)
		}
		r := rvgate.Evaluate(task, fit.Planets, fit.Jitter)
		if math.IsNaN(r.RMSMS) || math.IsInf(r.RMSMS, 0) || math.IsNaN(r.DeltaBICPerPoint) {
			return rvgate.Evaluate(task, nil, 0)
		}
		return r
	}
	return Ceiling{LeastSquares: grade(rv.FitOptions{}), Kipping: grade(rv.FitOptions{Kipping: true})}
}
