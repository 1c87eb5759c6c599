package quicklook

import (
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/engine/bls"
	"transitbench/grader"
	"transitbench/workspace"
)

var keplerDir = filepath.Join("..", "..", "..", "shared", "data", "kepler")

// koi returns the cumulative KOI table's first row of kepid as column → value.
func koi(t *testing.T, kepid string) map[string]float64 {
	f, err := os.Open(filepath.Join(keplerDir, "tables", "koi_cumulative.csv"))
	if err != nil {
		t.Skipf("reference data not available: %v", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		if row[0] != kepid && row[indexOf(rows[0], "kepid")] != kepid {
			continue
		}
		out := map[string]float64{}
		for i, name := range rows[0] {
			if v, err := strconv.ParseFloat(row[i], 64); err == nil {
				out[name] = v
			}
		}
		return out
	}
	t.Fatalf("KIC %s is not in koi_cumulative.csv", kepid)
	return nil
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// TestAnalyseKepler8 analyses the whole-mission DV light curve of Kepler-8 (KIC 6922244, a hot Jupiter) and
// checks it against the KOI catalogue: the strongest BLS peak is at the KOI period, the folds at that peak and
// at the catalogue ephemeris show a transit of the catalogue's depth at phase 0, the odd and even transits
// agree, and the deepest secondary box is tiny beside the transit.
func TestAnalyseKepler8(t *testing.T) {
	k := koi(t, "6922244")
	c, err := data.ReadLightCurve(filepath.Join(keplerDir, "dv", "KIC006922244.tbl"))
	if err != nil {
		t.Fatal(err)
	}
	radius := k["koi_srad"]
	star := &data.Star{RadiusRsun: radius, MassMsun: math.Pow(10, k["koi_slogg"]-4.438) * radius * radius}
	a, err := Analyse(c, star, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Flat) != len(c.Time) || len(a.Flagged) != len(c.Time) {
		t.Fatalf("%d flat, %d flags for %d cadences", len(a.Flat), len(a.Flagged), len(c.Time))
	}
	var valid []float64
	for i, v := range a.Flat {
		if !a.Flagged[i] && !math.IsNaN(v) {
			valid = append(valid, v)
		} else if !a.Flagged[i] && !math.IsNaN(c.Flux[i]) {
			t.Errorf("cadence %d is valid but has no detrended flux", i)
		}
	}
	sort.Float64s(valid)
	if len(valid) < len(c.Time)/2 || math.Abs(valid[len(valid)/2]-1) > 1e-3 {
		t.Fatalf("%d of %d cadences valid, median detrended flux %v: want most, around 1", len(valid), len(c.Time), valid[len(valid)/2])
	}
	if len(a.Peaks) == 0 || len(a.Peaks) > PeakCount || len(a.Periods) != len(a.Power) {
		t.Fatalf("%d peaks, %d periods, %d powers", len(a.Peaks), len(a.Periods), len(a.Power))
	}
	period := k["koi_period"]
	if p := a.Peaks[0].PeriodDays; math.Abs(p/period-1) > 1e-3 {
		t.Fatalf("strongest peak at %.5f d, the KOI period is %.5f d", p, period)
	}
	depth := k["koi_depth"] * 1e-6
	catalogue := Ephemeris{"KOI", period, k["koi_time0bk"], k["koi_duration"] / 24}
	peak, _ := Peak(a.Peaks, 0)
	for _, e := range []Ephemeris{catalogue, peak} {
		f := FoldAt(a, e)
		if f.HalfHours != WindowHours(e) || len(f.All.BX) != FoldBins {
			t.Fatalf("%s: window %v h, %d bins", e.Label, f.HalfHours, len(f.All.BX))
		}
		if math.Abs(f.Vet.Depth/depth-1) > 0.3 {
			t.Errorf("%s: depth %.0f ppm, the KOI's is %.0f ppm", e.Label, f.Vet.Depth*1e6, depth*1e6)
		}
		low := 0
		for i, m := range f.All.BY {
			if m < f.All.BY[low] {
				low = i
			}
		}
		if math.Abs(f.All.BX[low]) > e.DurationDays*24/2 {
			t.Errorf("%s: the deepest bin is at %.2f h from mid-transit, outside T14/2", e.Label, f.All.BX[low])
		}
		if len(f.Odd.X)+len(f.Even.X) != len(f.All.X) || len(f.Odd.X) == 0 || len(f.Even.X) == 0 {
			t.Errorf("%s: %d odd + %d even points of %d", e.Label, len(f.Odd.X), len(f.Even.X), len(f.All.X))
		}
		if math.Abs(f.Vet.OddEvenSigma) > 3 {
			t.Errorf("%s: odd and even transits differ by %.1fσ", e.Label, f.Vet.OddEvenSigma)
		}
		// An eclipsing binary's secondary eclipse is a good fraction of its primary; a hot Jupiter's is a few
		// tens of ppm at most.
		if f.Vet.SecondaryDepth > 0.02*f.Vet.Depth || len(f.Secondary.X) == 0 {
			t.Errorf("%s: secondary %.0f ppm (MES %.1f) over %d points", e.Label, f.Vet.SecondaryDepth*1e6,
				f.Vet.SecondaryMES, len(f.Secondary.X))
		}
		t.Logf("%s: P %.5f d, depth %.0f ppm, odd/even %.1fσ, secondary %.0f ppm at phase %.2f", e.Label,
			e.PeriodDays, f.Vet.Depth*1e6, f.Vet.OddEvenSigma, f.Vet.SecondaryDepth*1e6, f.Vet.SecondaryPhase)
		// Refined: the fitted T14 near the catalogue's 3.20 h, whatever box the ephemeris carries; no secondary
		// at the detection level and odd/even within 3σ with the systematic floor.
		r := f.Refined
		if math.Abs(r.DurationDays/(k["koi_duration"]/24)-1) > 0.15 || r.SecondaryMES >= 7.1 || r.OddEvenSigma >= 3 {
			t.Errorf("%s: refined T14 %.2f h, secondary MES %.1f, odd/even %.1fσ", e.Label, 24*r.DurationDays, r.SecondaryMES, r.OddEvenSigma)
		}
		if p := PrimaryFold(a, e); !sameFloats(p.X, f.All.X) || !sameFloats(p.Y, f.All.Y) || !sameFloats(p.BY, f.All.BY) {
			t.Errorf("%s: PrimaryFold differs from FoldAt's whole fold", e.Label)
		}
	}
}

func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

func TestEphemerides(t *testing.T) {
	ans := &data.Answer{Category: "injected", Planet: &data.Planet{PeriodDays: 10, T0Days: 105, DurationDays: 0.2}}
	peaks := []bls.Peak{{PeriodDays: 3.001, T0Days: 101, DurationDays: 0.09}}
	res := &grader.StarResult{Rows: []grader.RowResult{
		{Row: grader.Row{PeriodDays: 10.001, T0Days: 105}, Planet: 0},
		{Row: grader.Row{PeriodDays: 3, T0Days: 101}, Planet: -1},
		{Row: grader.Row{PeriodDays: 44, T0Days: 120}, Planet: -1},
	}}
	check := func(name string, got Ephemeris, ok bool, want Ephemeris, wantOK bool) {
		t.Helper()
		if ok != wantOK || got != want {
			t.Errorf("%s = %+v, %v; want %+v, %v", name, got, ok, want, wantOK)
		}
	}
	e, ok := Truth(ans)
	check("truth", e, ok, Ephemeris{"truth", 10, 105, 0.2}, true)
	e, ok = Peak(peaks, 0)
	check("peak 0", e, ok, Ephemeris{"peak 1", 3.001, 101, 0.09}, true)
	e, ok = Peak(peaks, 1)
	check("peak 1", e, ok, Ephemeris{}, false)
	e, ok = Row(res, 0, ans, peaks)
	check("row 0", e, ok, Ephemeris{"row 1", 10.001, 105, 0.2}, true) // claimed: the truth's T14
	e, ok = Row(res, 1, ans, peaks)
	check("row 1", e, ok, Ephemeris{"row 2", 3, 101, 0.09}, true) // a peak within 1 %
	e, ok = Row(res, 2, ans, peaks)
	check("row 2", e, ok, Ephemeris{"row 3", 44, 120, DefaultDurationDays}, true) // neither
	e, ok = Row(res, 3, ans, peaks)
	check("row 3", e, ok, Ephemeris{}, false)
	e, ok = Row(nil, 0, ans, peaks)
	check("row of no run", e, ok, Ephemeris{}, false)

	eb := &data.Answer{Category: "eb", EB: &data.EB{PeriodDays: 2, T0Days: 100, PrimaryDurationDays: 0.1}}
	e, ok = Truth(eb)
	check("EB truth", e, ok, Ephemeris{"truth", 2, 100, 0.1}, true)
	conf := &data.Answer{Category: "confirmed", Confirmed: []data.Planet{{PeriodDays: 4, T0Days: 130, DurationDays: 0.15}}}
	e, ok = Truth(conf)
	check("confirmed truth", e, ok, Ephemeris{"truth", 4, 130, 0.15}, true)
	_, ok = Truth(&data.Answer{Category: "untouched"})
	if ok || TruthSignal(&data.Answer{Category: "untouched"}) != "" {
		t.Error("an untouched star has a truth to fold at")
	}
	for a, want := range map[*data.Answer]string{ans: "planet", eb: "EB primary", conf: "confirmed planet", nil: ""} {
		if got := TruthSignal(a); got != want {
			t.Errorf("TruthSignal(%v) = %q, want %q", a, got, want)
		}
	}
}

func TestTransitTimes(t *testing.T) {
	got := TransitTimes(Ephemeris{PeriodDays: 10, T0Days: 105}, 100, 131, 400)
	want := []float64{105, 115, 125}
	if !sameFloats(got, want) {
		t.Errorf("transits in [100, 131] = %v, want %v", got, want)
	}
	if got := TransitTimes(Ephemeris{PeriodDays: 10, T0Days: 105}, 100, 131, 2); !sameFloats(got, want[:2]) {
		t.Errorf("at most 2: %v", got)
	}
	if got := TransitTimes(Ephemeris{T0Days: 105}, 100, 131, 400); got != nil {
		t.Errorf("no period: %v", got)
	}
}

func TestWindowHours(t *testing.T) {
	for _, tt := range []struct {
		e    Ephemeris
		want float64
	}{
		{Ephemeris{PeriodDays: 10, DurationDays: 0.2}, 12}, // 2.5 T14
		{Ephemeris{PeriodDays: 10, DurationDays: 0.01}, 2}, // at least 2 h
		{Ephemeris{PeriodDays: 0.5, DurationDays: 0.2}, 6}, // at most half the period
	} {
		if got := WindowHours(tt.e); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("WindowHours(%+v) = %v, want %v", tt.e, got, tt.want)
		}
	}
}

func TestBinRuns(t *testing.T) {
	c := 0.0204336 // the Kepler cadence, days
	tm := []float64{0, c, 2 * c, 3 * c, 10, 10 + c, 20}
	y := []float64{1, 3, 5, 7, 2, 4, 9}
	dy := []float64{2, 2, 2, 2, 1, 1, 3}
	bt, by, be := binRuns(tm, y, dy, 2)
	wantT := []float64{c / 2, 2.5 * c, 10 + c/2, 20}
	wantY := []float64{2, 6, 3, 9}
	wantE := []float64{math.Sqrt(8) / 2, math.Sqrt(8) / 2, math.Sqrt(2) / 2, 3} // √(Σ dy²)/k
	if len(bt) != len(wantT) {
		t.Fatalf("binRuns gave %d bins (%v), want %d", len(bt), bt, len(wantT))
	}
	for i := range wantT {
		if math.Abs(bt[i]-wantT[i]) > 1e-12 || by[i] != wantY[i] || math.Abs(be[i]-wantE[i]) > 1e-12 {
			t.Errorf("bin %d = (%v, %v, %v), want (%v, %v, %v)", i, bt[i], by[i], be[i], wantT[i], wantY[i], wantE[i])
		}
	}
}

func TestStarRefusesHiddenStars(t *testing.T) {
	for _, tt := range []struct{ set, id string }{{sets.A, "A-0001"}, {sets.Dev, "B-0002"}, {sets.B, "dev-0001"}} {
		_, err := Star(&sets.Set{Name: tt.set}, tt.id, 1)
		if !errors.Is(err, workspace.ErrHiddenStar) {
			t.Errorf("star %s of set %s: %v, want workspace.ErrHiddenStar", tt.id, tt.set, err)
		}
		if _, err := PrepareStar(&sets.Set{Name: tt.set}, tt.id); !errors.Is(err, workspace.ErrHiddenStar) {
			t.Errorf("PrepareStar %s of set %s: %v, want workspace.ErrHiddenStar", tt.id, tt.set, err)
		}
	}
}

// TestPlanetMESPicksTheListedPlanet: the star lists show the injected planet's MES, else the first confirmed
// planet's, else the first labelled one's (an imported star), and 0 for a star with none or an eclipsing
// binary.
func TestPlanetMESPicksTheListedPlanet(t *testing.T) {
	injected, confirmed, labelled := data.Planet{MES: 12.5}, data.Planet{MES: 30}, data.Planet{MES: 8.1}
	for _, c := range []struct {
		name string
		a    *data.Answer
		want float64
	}{
		{"none", nil, 0},
		{"untouched", &data.Answer{}, 0},
		{"eclipsing binary", &data.Answer{EB: &data.EB{}}, 0},
		{"injected", &data.Answer{Planet: &injected, Confirmed: []data.Planet{confirmed}}, 12.5},
		{"confirmed", &data.Answer{Confirmed: []data.Planet{confirmed, injected}}, 30},
		{"labelled", &data.Answer{Category: data.CategoryLabelled, Labelled: []data.Planet{labelled, confirmed}}, 8.1},
	} {
		if got := PlanetMES(c.a); got != c.want {
			t.Errorf("%s: MES %v, want %v", c.name, got, c.want)
		}
	}
}
