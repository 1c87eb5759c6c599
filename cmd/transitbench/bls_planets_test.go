package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"transitbench/data/kepref"
)

// TestBLSPlanetsKepler90 runs `bls` on the folder of Kepler-90's quarters 3–5 with the five long-period planets
// (h, g, d, e, f of the KOI table, windows ≈ 2 × T14) masked and --planets 2 between 5 and 12 d: the two inner
// planets come out one after the other, b (7.008 d) and then c (8.720 d), each with a fitted T14 near the
// catalogue's (3.8 h, 3.7 h) and no secondary or odd/even flag. Without the masks, the long planets' deep single
// transits make the strongest peaks of that period range.
func TestBLSPlanetsKepler90(t *testing.T) {
	dir, err := kepref.Dir()
	if err != nil {
		t.Skipf("reference data not available: %v", err)
	}
	folder := filepath.Join(dir, "fits", "kic011442793")
	args := []string{"bls", folder, "--pmin", "5", "--pmax", "12", "--planets", "2", "--workers", "2", "--json",
		"--mask", "331.5972732,140.498929,1.2", "--mask", "210.6013843,147.056867,1.0", "--mask", "59.7371443,158.95974,0.67",
		"--mask", "91.9401253,134.3,0.77", "--mask", "124.922516,129.7295,1.0"}
	out, err := runBLSCmd(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	var res blsJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Masks) != 5 || len(res.Planets) != 2 {
		t.Fatalf("%d masks, %d planets: %s", len(res.Masks), len(res.Planets), out)
	}
	for i, want := range []struct{ p, t14 float64 }{{7.00822, 3.812}, {8.71980, 3.745}} {
		pl := res.Planets[i]
		if math.Abs(pl.PeriodDays/want.p-1) > 0.002 || math.Abs(24*pl.Refined.DurationDays/want.t14-1) > 0.25 {
			t.Errorf("planet %d: P %.5f d, T14 %.2f h; want %.5f d, %.2f h", i+1, pl.PeriodDays, 24*pl.Refined.DurationDays, want.p, want.t14)
		}
		if pl.Single || pl.Refined.SecondaryMES >= 7.1 || pl.Refined.OddEvenSigma >= 3 {
			t.Errorf("planet %d flagged: %+v", i+1, pl)
		}
	}
	unmasked, err := runBLSCmd(t, "bls", folder, "--pmin", "5", "--pmax", "12", "--workers", "2", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var plain blsJSON
	if err := json.Unmarshal([]byte(unmasked), &plain); err != nil || len(plain.Peaks) == 0 {
		t.Fatalf("%v: %s", err, unmasked)
	}
	if math.Abs(plain.Peaks[0].PeriodDays/7.00822-1) < 0.002 {
		t.Errorf("without masks b is already the strongest peak: the masks show nothing")
	}
	if _, err := runBLSCmd(t, "bls", folder, "--mask", "1,2"); !isCode(err, codeUsage) {
		t.Errorf("--mask 1,2: %v, want a usage error", err)
	}
}

// TestFoldQuartersRefined folds Kepler-90's three quarter files, given one by one, at Kepler-90 d's catalogue
// ephemeris with a box of 6 h: the quarters are stitched (≈ 9,600 valid cadences) and --duration adds the
// refined statistics, whose fitted T14 is the catalogue's 8.0 h within 20 %.
func TestFoldQuartersRefined(t *testing.T) {
	dir, err := kepref.Dir()
	if err != nil {
		t.Skipf("reference data not available: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "fits", "kic011442793", "*.fits"))
	args := append(append([]string{"fold"}, files...), "--period", "59.7371443", "--t0", "158.95974", "--duration", "0.25",
		"--window", "2", "--json")
	out, err := runBLSCmd(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	var res foldJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.NPoints < 9000 || res.Refined == nil || math.Abs(24*res.Refined.DurationDays/8.0-1) > 0.2 {
		t.Fatalf("%d points, refined %+v", res.NPoints, res.Refined)
	}
}
