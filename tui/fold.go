package tui

import "transitbench/workspace/quicklook"

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
	targetNext // the planet found after masking the strongest signal (StarData.Next)
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
		if n := len(d.Next); n > 1 {
			return d.Next[n-1].Ephemeris("next"), true
		}
	}
	return ephemeris{}, false
}

// foldStar folds d at e for the folded panel (quicklook.FoldAt).
func foldStar(d *StarData, e ephemeris) *folded { return quicklook.FoldAt(d.analysis(), e) }
