package bls_test

import (
	"bufio"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"transitbench/data"
	"transitbench/engine/bls"
	"transitbench/engine/detrend"
	"transitbench/engine/lc"
)

// sharedData returns the path of the shared reference data: ../shared/data beside the module root.
func sharedData(t *testing.T, elem ...string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the package directory")
		}
		dir = parent
	}
	return filepath.Join(append([]string{dir, "..", "shared", "data"}, elem...)...)
}

// koi is a catalogued planet: period (days), mid-transit time (BKJD) and duration (hours).
type koi struct{ period, t0, durationHours float64 }

// readKOIs returns the cumulative KOI table's ephemerides by Kepler ID.
func readKOIs(t *testing.T) map[string]koi {
	t.Helper()
	f, err := os.Open(sharedData(t, "kepler", "tables", "koi_cumulative.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "#") {
			lines = append(lines, sc.Text())
		}
	}
	rows, err := csv.NewReader(strings.NewReader(strings.Join(lines, "\n"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	out := map[string]koi{}
	for _, r := range rows[1:] {
		p, _ := strconv.ParseFloat(r[col["koi_period"]], 64)
		t0, _ := strconv.ParseFloat(r[col["koi_time0bk"]], 64)
		d, _ := strconv.ParseFloat(r[col["koi_duration"]], 64)
		out[r[col["kepid"]]] = koi{p, t0, d}
	}
	return out
}

// TestRealKeplerPlanets searches one year (BKJD 170–540) of each whole-mission DV light curve in
// ../shared/data/kepler/dv with the default pipeline (quality mask, biweight detrending, default grid) and
// requires the catalogued planet as the strongest peak: period within 0.1 %, mid-transit time within half a
// duration (modulo the period).
func TestRealKeplerPlanets(t *testing.T) {
	kois := readKOIs(t)
	files, err := filepath.Glob(sharedData(t, "kepler", "dv", "KIC*.tbl"))
	if err != nil || len(files) != 5 {
		t.Fatalf("want the five DV light curves, found %d (%v)", len(files), err)
	}
	for _, path := range files {
		kic := strings.TrimLeft(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "KIC"), ".tbl"), "0")
		want, ok := kois[kic]
		if !ok {
			t.Fatalf("KIC %s is not in the KOI table", kic)
		}
		c, err := data.ReadLightCurve(path)
		if err != nil {
			t.Fatal(err)
		}
		c = c.Clean(lc.DefaultQualityMask)
		var tt, f, e []float64
		for i, x := range c.Time {
			if x >= 170 && x <= 540 {
				tt, f, e = append(tt, x), append(f, c.Flux[i]), append(e, c.FluxErr[i])
			}
		}
		flat, trend := detrend.Flatten(tt, f, detrend.Options{})
		for i := range e {
			e[i] /= trend[i]
		}
		g, err := bls.DefaultGrid(tt, bls.GridOptions{})
		if err != nil {
			t.Fatal(err)
		}
		g.Workers = 2
		r, err := bls.Search(tt, flat, e, g, bls.SNR)
		if err != nil {
			t.Fatalf("KIC %s: %v", kic, err)
		}
		pk := r.Peaks(1)
		if len(pk) == 0 {
			t.Fatalf("KIC %s: no peak", kic)
		}
		p := pk[0]
		dur := want.durationHours / 24
		dt := math.Remainder(p.T0Days-want.t0, want.period)
		t.Logf("KIC %s: %d points; peak P = %.5f d (KOI %.5f), t0 off by %.4f d, duration %.2f h (KOI %.2f), depth %.0f ppm, SNR %.0f, %d transits",
			kic, len(tt), p.PeriodDays, want.period, dt, p.DurationDays*24, want.durationHours, p.Depth*1e6, p.SNR, p.NTransits)
		if math.Abs(p.PeriodDays/want.period-1) > 1e-3 {
			t.Errorf("KIC %s: strongest peak at %.5f d, catalogued period %.5f d", kic, p.PeriodDays, want.period)
		}
		if math.Abs(dt) > dur/2 {
			t.Errorf("KIC %s: t0 %.4f is %.4f d from the catalogued ephemeris, more than half the %.2f h duration", kic, p.T0Days, dt, want.durationHours)
		}
	}
}
