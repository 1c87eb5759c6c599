package data

import (
	"testing"

	"transitbench/engine/lc"
	"transitbench/engine/stat"
)

// TestValidityRuleOnKepler applies engine/lc's validity rule to the three real Kepler-90 quarters: no cadence
// with a bit of the default mask is valid; cadences whose only flags are ones the default mask leaves to
// lightkurve's hard mask (aperture and collateral cosmic rays, 128 and 8192, which these quarters hold) stay
// valid when their flux is finite; and Clean keeps exactly the cadences astropy counts as valid, in time order.
func TestValidityRuleOnKepler(t *testing.T) {
	const hardOnly = lc.QApertureCosmic | lc.QCollateralCosmic | lc.QSuddenSensDropout | lc.QPossibleThruster
	for i, q := range kepler90Quarters {
		c, err := ReadKeplerFITS(keplerPath(t, i))
		if err != nil {
			t.Fatal(err)
		}
		flagged, keptFlagged := 0, 0
		for j := range c.Time {
			good := c.Good(j, lc.DefaultQualityMask)
			if c.Quality[j]&lc.DefaultQualityMask != 0 && good {
				t.Errorf("quarter %d, cadence %d: quality %d has a default-mask bit but is valid", q.quarter, j, c.Quality[j])
			}
			if qb := c.Quality[j]; qb != 0 && qb&^hardOnly == 0 && stat.Finite(c.Flux[j]) {
				flagged++
				if good {
					keptFlagged++
				}
			}
		}
		if flagged == 0 || keptFlagged != flagged {
			t.Errorf("quarter %d: %d of %d cadences flagged only with hard-mask bits are valid; want all, and some", q.quarter, keptFlagged, flagged)
		}
		clean := c.Clean(lc.DefaultQualityMask)
		if clean.Len() != q.valid {
			t.Errorf("quarter %d: Clean keeps %d cadences, astropy counts %d valid", q.quarter, clean.Len(), q.valid)
		}
		for j := range clean.Time {
			if !clean.Good(j, lc.DefaultQualityMask) || j > 0 && !(clean.Time[j] > clean.Time[j-1]) {
				t.Fatalf("quarter %d: cleaned cadence %d (t %v, quality %d) is not valid or not in time order", q.quarter, j, clean.Time[j], clean.Quality[j])
			}
		}
		t.Logf("quarter %d: %d valid cadences, %d flagged only with hard-mask bits", q.quarter, clean.Len(), flagged)
	}
}
