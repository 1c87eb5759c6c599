package tui

import (
	"transitbench/data"
	"transitbench/workspace/quicklook"
)

// ephemeris is what the folded panel folds at (quicklook.Ephemeris): a row of the solution, the truth or a BLS
// peak; folded is its fold (quicklook.Fold).
type (
	ephemeris = quicklook.Ephemeris
	folded    = quicklook.Fold
)

// targetKind says where the fold target comes from.
type targetKind int

const (
	targetTruth targetKind = iota
	targetRow
	targetPeak
	targetNext       // the planet found after masking the strongest signal (StarData.Next)
	targetTyped      // the ephemeris typed in (StarData.Typed)
	targetFalseAlarm // the periodic false alarm planted on a dev star (its answer's FalseAlarm)
)

// foldTarget names the fold target: the truth, row Index (0-based, rank order) or peak Index.
type foldTarget struct {
	Kind  targetKind
	Index int
}

// defaultDurationDays is the duration a row is folded with when nothing gives one (quicklook.Row).
const defaultDurationDays = quicklook.DefaultDurationDays

// resolveTarget returns the ephemeris of target on d, and false when d has no such target (quicklook's Truth,
// Row and Peak).
func resolveTarget(d *StarData, target foldTarget) (ephemeris, bool) {
	switch target.Kind {
	case targetTruth:
		return quicklook.Truth(d.Answer)
	case targetPeak:
		return quicklook.Peak(d.Peaks, target.Index)
	case targetRow:
		return quicklook.Row(d.Result, target.Index, d.Answer, d.Peaks)
	case targetNext:
		if i := nextPlanet(d); i >= 0 {
			return d.Next[i].Ephemeris("next"), true
		}
	case targetTyped:
		if d.Typed != nil {
			return *d.Typed, true
		}
	case targetFalseAlarm:
		return falseAlarm(d.Answer)
	}
	return ephemeris{}, false
}

// falseAlarm is the ephemeris of the periodic false alarm planted on a star (its answer's FalseAlarm), labelled
// "false alarm", with the default duration (the answer gives none); false when there is none or it has no
// period.
func falseAlarm(a *data.Answer) (ephemeris, bool) {
	if a == nil || a.FalseAlarm == nil || !(a.FalseAlarm.PeriodDays > 0) {
		return ephemeris{}, false
	}
	return ephemeris{Label: "false alarm", PeriodDays: a.FalseAlarm.PeriodDays, T0Days: a.FalseAlarm.T0Days,
		DurationDays: defaultDurationDays}, true
}

// foldStar folds d at e for the folded panel (quicklook.FoldAt).
func foldStar(d *StarData, e ephemeris) *folded { return quicklook.FoldAt(d.analysis(), e) }

// nextPlanet is the index in d.Next of the last planet found after masking another signal (a single event has
// no period to fold at), -1 when there is none.
func nextPlanet(d *StarData) int {
	for i := len(d.Next) - 1; i >= 1; i-- {
		if !d.Next[i].Single {
			return i
		}
	}
	return -1
}
