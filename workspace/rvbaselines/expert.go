package rvbaselines

import (
	"math"
	"sort"

	"transitbench/engine/rv"
	"transitbench/grader/rvgate"
)

// Judge grades one submission of the task being solved and answers what `transitbench rv submit` answers a
// contestant (rvgate.FeedbackFor): pass or fail per criterion and the truth-free scalars, nothing more.
type Judge func(planets []rv.Planet, jitterMS float64) rvgate.Feedback

// InteractiveSolver solves a task as a contestant does under the Stargazer rules (SPEC B1, B3): it may submit up to
// submissions times, learns each submission's per-criterion verdicts, and is done when one passes. It sees the
// data, the star mass and the feedback; nothing else of the truth.
type InteractiveSolver func(d *rv.Data, mStarSun float64, seed uint64, submissions int, judge Judge)

// OneShot makes a one-submission InteractiveSolver of solve.
func OneShot(solve Solver) InteractiveSolver {
	return func(d *rv.Data, mStarSun float64, seed uint64, _ int, judge Judge) {
		planets, jit := solve(d, mStarSun, seed)
		judge(planets, jit)
	}
}

// ExpertCloseBIC is how far (in EvidenceBIC) an alternative model may lie from the best model the data
// support and still be offered: 10, the "very strong" evidence of Kass & Raftery (1995). Beyond it the data
// have decided and the alternative is not submitted; within it they have not, and the feedback may.
const ExpertCloseBIC = 10

// ExpertSolver submits the models the data support and uses the submission loop the Stargazer rules allow (the
// tier's submissions, each answered with pass or fail per criterion) only to choose among them; it never
// searches the planet count with the feedback.
//
//  1. The evidence models: the classical pipeline's (ClassicalSolver) and the honest search's (rv.Honest), in
//     that order.
//  2. The alternatives the data cannot tell from them: each of their models with one planet moved to a daily
//     or yearly alias of its period (rv.AliasAlternatives), with one planet more (rv.Extend: the best and the
//     second-best candidate of the residual periodogram) and with the weakest planet dropped (rv.DropWeakest),
//     each kept only when its EvidenceBIC lies within ExpertCloseBIC of the best of all; submitted from the
//     lowest EvidenceBIC up.
//
// A model the truth-free criteria reject (ok_rms, ok_delta_bic: what a free dry run reports) or equal to one
// already submitted (sameModel) is not submitted, and once a submission's ok_count has answered, models of a
// count it rules out are skipped; when no model is left to submit, the classical model is the answer. Every model is a fit to the data under Kipping's eccentricity prior; the
// feedback only picks one.
func ExpertSolver(d *rv.Data, mStarSun float64, seed uint64, submissions int, judge Judge) {
	left := submissions
	var made [][]rv.Planet
	medianSigma := d.MedianSigma()
	count, wrongCount := -1, map[int]bool{}
	submit := func(f *rv.FitResult) (passed bool) {
		n := len(f.Planets)
		if left <= 0 || n == 0 || wrongCount[n] || (count >= 0 && n != count) {
			return false
		}
		for _, m := range made {
			if sameModel(m, f.Planets) {
				return false
			}
		}
		if m := rvgate.Metrics(d, f.Planets, 0, medianSigma); !m.OKRMS || !m.OKDeltaBIC {
			return false // the dry run, which costs nothing, says it cannot pass
		}
		made = append(made, f.Planets)
		left--
		fb := judge(f.Planets, 0)
		switch {
		case fb.OKCount == nil:
		case *fb.OKCount:
			count = n
		default:
			wrongCount[n] = true
		}
		return fb.Passed != nil && *fb.Passed
	}
	classical := rv.Classical(d, rv.ClassicalOptions{Seed: seed, MaxFAP: ClassicalMaxFAP})
	honest := rv.Honest(d, rv.HonestOptions{}).FitResult
	if submit(classical) || submit(honest) {
		return
	}
	for _, f := range expertAlternatives(d, []*rv.FitResult{classical, honest}) {
		if left <= 0 || submit(f) {
			return
		}
	}
	if len(made) == 0 && left > 0 {
		judge(classical.Planets, 0) // no supported model can pass: the answer is still the evidence model
	}
}

// expertAlternatives returns the alternatives of the evidence models bases (alias moves, one planet more,
// the weakest dropped) whose EvidenceBIC lies within ExpertCloseBIC of the best of them and of bases, in
// increasing EvidenceBIC.
func expertAlternatives(d *rv.Data, bases []*rv.FitResult) []*rv.FitResult {
	fo := rv.FitOptions{Kipping: true}
	var alts []*rv.FitResult
	for _, b := range bases {
		if len(b.Planets) == 0 {
			continue
		}
		fb := fo // the classical search's period bounds
		fb.MinPeriodDays, fb.MaxPeriodDays = rv.MinSearchPeriodDays, math.Min(math.Max(300, 1.5*d.Span()), 5000)
		alts = append(alts, rv.AliasAlternatives(d, b, fb)...)
		for alt := range 2 {
			alts = append(alts, rv.Extend(d, b, len(b.Planets)+1, rv.ExtendOptions{Fit: fo, Alternative: alt}))
		}
		alts = append(alts, rv.DropWeakest(d, b, fo))
	}
	type scored struct {
		f   *rv.FitResult
		bic float64
	}
	best := math.Inf(1)
	for _, b := range bases {
		best = math.Min(best, rv.EvidenceBIC(d, b.Planets))
	}
	var out []scored
	for _, f := range alts {
		if len(f.Planets) == 0 {
			continue
		}
		s := rv.EvidenceBIC(d, f.Planets)
		best = math.Min(best, s)
		out = append(out, scored{f, s})
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].bic < out[b].bic })
	var res []*rv.FitResult
	for _, o := range out {
		if o.bic <= best+ExpertCloseBIC {
			res = append(res, o.f)
		}
	}
	return res
}

// sameModel reports whether a and b are the same planets up to fitting precision: as many, and each planet of
// a within 1 % in period and 5 % in K of its own planet of b.
func sameModel(a, b []rv.Planet) bool {
	if len(a) != len(b) {
		return false
	}
	used := make([]bool, len(b))
	for _, p := range a {
		found := false
		for j, q := range b {
			if !used[j] && math.Abs(math.Log(p.PeriodDays/q.PeriodDays)) < 0.01 && math.Abs(math.Log(p.KMS/q.KMS)) < 0.05 {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
