package grader

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"transitbench/data"
	"transitbench/engine/lc"
)

// yearGaps are the data gaps of the test year, [start, end) in BKJD days: monthly downlinks (1 d) and quarterly
// rolls (1.5 d), placed as in a Kepler year starting at BKJD 170 (SPEC A3).
var yearGaps = [][2]float64{
	{201, 202}, {232, 233}, // quarter 1 downlinks
	{262, 263.5},                   // roll
	{293.5, 294.5}, {324.5, 325.5}, // quarter 2 downlinks
	{355, 356.5},                   // roll
	{386.5, 387.5}, {417.5, 418.5}, // quarter 3 downlinks
	{448, 449.5},                   // roll
	{479.5, 480.5}, {510.5, 511.5}, // quarter 4 downlinks
}

// desatEvery is the spacing of reaction-wheel desaturations in cadences: 147 × 29.4244 min ≈ 3.0 d (SPEC A3).
const desatEvery = 147

// yearTimes returns the valid cadence times of a Kepler-like year: 29.4244-min cadences from BKJD 170 up to 542,
// without the desaturation cadences and the gaps of yearGaps. About 17,470 cadences.
func yearTimes() []float64 {
	var ts []float64
outer:
	for i := 0; ; i++ {
		t := 170 + float64(i)*lc.CadenceDays
		if t >= 542 {
			return ts
		}
		if i%desatEvery == 0 {
			continue
		}
		for _, g := range yearGaps {
			if t >= g[0] && t < g[1] {
				continue outer
			}
		}
		ts = append(ts, t)
	}
}

// withGap returns a copy of ts without the times in [lo, hi): a safe-mode gap.
func withGap(ts []float64, lo, hi float64) []float64 {
	var out []float64
	for _, t := range ts {
		if t < lo || t >= hi {
			out = append(out, t)
		}
	}
	return out
}

var year = yearTimes()

// Test planets. Their observed midtimes over the test year, counted by hand against yearGaps:
//
//   - planetYear, P = 10 d, t0 = 170.7, D = 6 h (τ = 0.125 d): midtimes 170.7 … 540.7 (n = 0…37, 38 of them);
//     510.7 has its whole window [510.575, 510.825] inside the 510.5–511.5 downlink, so 37 are observed.
//   - planetLong, P = 100 d, t0 = 350, D = 2.5 d (τ = 1.25 d; a long transit across an evolved star): midtimes
//     250, 350, 450 observed (150 and 550 lie outside the data, 170–542). 450's window [448.75, 451.25] keeps
//     data after the 448–449.5 roll.
//   - planetFour, P = 100 d, t0 = 200, D = 2.5 d: midtimes 200, 300, 400, 500 observed (200's window
//     [198.75, 201.25] keeps data before the 201–202 downlink).
var (
	planetYear = data.Planet{PeriodDays: 10, T0Days: 170.7, DurationDays: 0.25, MES: 12, NTransits: 37}
	planetLong = data.Planet{PeriodDays: 100, T0Days: 350, DurationDays: 2.5, MES: 5, NTransits: 3}
	planetFour = data.Planet{PeriodDays: 100, T0Days: 200, DurationDays: 2.5, MES: 8, NTransits: 4}
)

func injected(id string, p data.Planet, population string) data.Answer {
	return data.Answer{ID: id, Category: data.CategoryInjected, Population: population, Scored: true, Planet: &p}
}

func TestYearTimes(t *testing.T) {
	// 372 d / 0.0204336 d = 18,205 cadences; the gaps remove 12.5 d (612 cadences) and desaturations
	// 18,205 / 147 ≈ 124: ≈ 17,470 remain.
	if n := len(year); n < 17450 || n > 17490 {
		t.Errorf("test year has %d valid cadences, want ≈ 17,470", n)
	}
}

// want is the expected outcome of one counted row.
type want struct {
	status           string
	trueObs, trueHit int
	predObs, predHit int
	note             string // a substring of the note, for false rows
}

func checkRow(t *testing.T, got RowResult, w want) {
	t.Helper()
	if got.Status != w.status {
		t.Errorf("row %d (P'=%g, t0'=%g): status %q, want %q (note %q)", got.Rank, got.PeriodDays, got.T0Days,
			got.Status, w.status, got.Note)
	}
	if got.TrueObserved != w.trueObs || got.TrueHit != w.trueHit || got.PredObserved != w.predObs ||
		got.PredHit != w.predHit {
		t.Errorf("row %d (P'=%g, t0'=%g): true %d/%d pred %d/%d, want true %d/%d pred %d/%d", got.Rank,
			got.PeriodDays, got.T0Days, got.TrueHit, got.TrueObserved, got.PredHit, got.PredObserved,
			w.trueHit, w.trueObs, w.predHit, w.predObs)
	}
	if math.Abs(got.FTrue-share(w.trueHit, w.trueObs)) > 1e-12 || math.Abs(got.FPred-share(w.predHit, w.predObs)) > 1e-12 {
		t.Errorf("row %d: f_true %g f_pred %g do not match the counts", got.Rank, got.FTrue, got.FPred)
	}
	if !strings.Contains(got.Note, w.note) {
		t.Errorf("row %d: note %q, want it to contain %q", got.Rank, got.Note, w.note)
	}
	wantCredit := map[string]float64{StatusFull: 1, StatusHalf2x: 0.5, StatusHalf3x: 0.5, StatusHalfHalf: 0.5,
		StatusHalfThird: 0.5}[w.status]
	if got.Credit != wantCredit {
		t.Errorf("row %d: credit %g, want %g", got.Rank, got.Credit, wantCredit)
	}
}

// TestMatchRules checks each rule of SPEC A5 with one row against one planet; the counts are worked out by hand
// in the comments.
func TestMatchRules(t *testing.T) {
	var cases []matchCase
	for _, part := range [][]matchCase{matchEphemerisCases, matchPeriodGateCases, matchEdge75Cases, matchAliasCases,
		matchDriftCases, matchEdgeCases} {
		cases = append(cases, part...)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := MatchStar(injected("s", c.planet, data.PopulationRandom), c.times, []Row{c.row})
			if len(res.Rows) != 1 {
				t.Fatalf("got %d counted rows, want 1", len(res.Rows))
			}
			checkRow(t, res.Rows[0], c.want)
			if res.Rows[0].Status == StatusFalse {
				if res.False != 1 || res.Credit != 0 || res.Planets[0].Status != StatusMissed {
					t.Errorf("false row: star false %d credit %g planet %q", res.False, res.Credit, res.Planets[0].Status)
				}
			} else if res.False != 0 || res.Credit != res.Rows[0].Credit || res.Planets[0].ClaimedBy != 1 ||
				res.Planets[0].Status != c.want.status {
				t.Errorf("claim: star false %d credit %g planet %+v", res.False, res.Credit, res.Planets[0])
			}
		})
	}
}

// matchCase is one row matched against one planet of TestMatchRules.
type matchCase struct {
	name   string
	planet data.Planet
	times  []float64
	row    Row
	want   want
}

// matchEphemerisCases are the cases of TestMatchRules on the true ephemeris, wherever t0' lies.
var matchEphemerisCases = []matchCase{
	// --- the true ephemeris, wherever t0' lies ---
	{"exact ephemeris", planetYear, year, Row{10, 170.7, 1}, want{StatusFull, 37, 37, 37, 37, ""}},
	{"t0' thirty periods later", planetYear, year, Row{10, 470.7, 1}, want{StatusFull, 37, 37, 37, 37, ""}},
	// 170.7 − 1e7 and 170.7 + 1e13 are still 170.7 modulo 10 to within float64 rounding (≤ 0.002 d ≪ τ).
	{"t0' far before the data", planetYear, year, Row{10, 170.7 - 1e7, 1}, want{StatusFull, 37, 37, 37, 37, ""}},
	{"t0' far after the data", planetYear, year, Row{10, 170.7 + 1e13, 1}, want{StatusFull, 37, 37, 37, 37, ""}},
}

// matchPeriodGateCases are the cases of TestMatchRules on the 1 % period gate.
var matchPeriodGateCases = []matchCase{
	// --- the 1 % period gate, on planetLong with t0' = 350: predicted midtimes 350 ± P', offsets 0.99–1.01 d
	// stay within τ = 1.25 d, so f passes and only the gate decides ---
	// P' = 100.99: predicted 249.01, 350, 450.99 observed (148.02 and 551.98 lie outside the data); each is
	// 0.99 d from a true midtime, so 3/3 both ways.
	{"period 0.99 % long", planetLong, year, Row{100.99, 350, 1}, want{StatusFull, 3, 3, 3, 3, ""}},
	// |101 − 100| = 1 ≤ 0.01 · 100: exactly 1 % is inside. Offsets 1.0 d.
	{"period exactly 1 % long", planetLong, year, Row{101, 350, 1}, want{StatusFull, 3, 3, 3, 3, ""}},
	// P' = 99.01: predicted 250.99, 350, 449.01 (window [447.76, 450.26] keeps data after the roll).
	{"period 0.99 % short", planetLong, year, Row{99.01, 350, 1}, want{StatusFull, 3, 3, 3, 3, ""}},
	{"period 1.01 % long", planetLong, year, Row{101.01, 350, 1},
		want{StatusFalse, 0, 0, 0, 0, "not within 1 %"}},
	{"period 1.01 % short", planetLong, year, Row{98.99, 350, 1},
		want{StatusFalse, 0, 0, 0, 0, "not within 1 %"}},
}

// matchEdge75Cases are the cases of TestMatchRules on the 75 % edges.
var matchEdge75Cases = []matchCase{
	// --- the 75 % edges, on planetFour (true 200, 300, 400, 500) with P' = 100.8 (0.8 %), t0' = 300:
	// predicted 199.2, 300, 400.8, 501.6 observed (98.4 and 602.4 outside). Offsets 0.8, 0, 0.8, 1.6 d:
	// the last misses τ = 1.25. True 200, 300, 400 are hit, 500 is 1.6 d from 501.6: f_true = f_pred = 3/4. ---
	{"f_true = f_pred = 0.75 exactly", planetFour, year, Row{100.8, 300, 1}, want{StatusFull, 4, 3, 4, 3, ""}},
	// A gap [198.7, 201.3) hides true 200 (window [198.75, 201.25]) but not predicted 199.2 (window
	// [197.95, 200.45] keeps 197.95–198.7): f_true = 2/3 (300, 400 of 300, 400, 500), f_pred still 3/4.
	{"f_true 2/3 just below", planetFour, withGap(year, 198.7, 201.3), Row{100.8, 300, 1},
		want{StatusFalse, 3, 2, 4, 3, "f_true 2/3 < 0.75"}},
	// A gap [399.5, 402.1) hides predicted 400.8 (window [399.55, 402.05]) but not true 400 (window
	// [398.75, 401.25] keeps 398.75–399.5): f_pred = 2/3 (199.2, 300 of 199.2, 300, 501.6), f_true 3/4.
	{"f_pred 2/3 just below", planetFour, withGap(year, 399.5, 402.1), Row{100.8, 300, 1},
		want{StatusFalse, 4, 3, 3, 2, "f_pred 2/3 < 0.75"}},
}

// matchAliasCases are the cases of TestMatchRules on the aliases.
var matchAliasCases = []matchCase{
	// --- aliases, on planetLong (true 250, 350, 450; τ = 1.25 d) ---
	// 2P, t0' = 250: predicted 250, 450 observed (50, 650 outside), both hit: f_pred = 2/2. f_true = 2/3
	// (350 is 100 d from both) is below 0.75 but not checked for 2P.
	{"2P with f_pred 1", planetLong, year, Row{200, 250, 1}, want{StatusHalf2x, 3, 2, 2, 2, ""}},
	// 2P · 1.009 = 201.8, t0' = 250: predicted 250 (hit) and 451.8 (1.8 d from 450, a miss): f_pred = 1/2.
	// True: 250 hit, 350 and 450 missed: 1/3.
	{"2P with f_pred 1/2", planetLong, year, Row{201.8, 250, 1}, want{StatusFalse, 3, 1, 2, 1, "f_pred 1/2"}},
	// 3P, t0' = 350: only predicted 350 lies in the data (50, 650 outside): f_pred = 1/1; f_true = 1/3.
	{"3P with f_pred 1", planetLong, year, Row{300, 350, 1}, want{StatusHalf3x, 3, 1, 1, 1, ""}},
	// 3P, t0' = 300: predicted 300 is 50 d from any true midtime: f_pred = 0/1.
	{"3P with f_pred 0", planetLong, year, Row{300, 300, 1}, want{StatusFalse, 3, 0, 1, 0, "f_pred 0/1"}},
	// P/2, t0' = 350: predicted 200, 250, …, 500 (7 observed; 150 and 550 outside), 250, 350, 450 hit:
	// f_pred = 3/7, not checked for P/2; every true midtime hit: f_true = 3/3.
	{"P/2 with f_true 1", planetLong, year, Row{50, 350, 1}, want{StatusHalfHalf, 3, 3, 7, 3, ""}},
	// P/2, t0' = 352: predicted 202, 252, …, 502 (202's window [200.75, 203.25] keeps data before 201), all 2 d
	// from the truth: f_true = 0/3.
	{"P/2 with f_true 0", planetLong, year, Row{50, 352, 1}, want{StatusFalse, 3, 0, 7, 0, "f_true 0/3"}},
	// P/3, t0' = 350: predicted 183.33, 216.67, …, 516.67 (11 observed; 150 and 550 outside); 250, 350, 450
	// hit: f_true = 3/3, f_pred = 3/11.
	{"P/3 with f_true 1", planetLong, year, Row{100.0 / 3, 350, 1}, want{StatusHalfThird, 3, 3, 11, 3, ""}},
	{"P/3 with f_true 0", planetLong, year, Row{100.0 / 3, 352, 1},
		want{StatusFalse, 3, 0, 11, 0, "f_true 0/3"}},
}

// matchDriftCases are the cases of TestMatchRules on the drift of a slightly wrong period.
var matchDriftCases = []matchCase{
	// --- drift of a slightly wrong period over the year, on planetYear (τ = 0.125 d) with t0' = 350.7 (true
	// midtime n = 18): predicted midtime m lies m·(P' − P) from true midtime n = 18 + m ---
	// P' = 10.05 (0.5 %, inside the gate): offsets 0.05|m| ≤ 0.125 only for |m| ≤ 2, so 5 hits each way.
	// Predicted 179.85 (m = −17) … 541.65 (m = 19): 37, all observed (m = 16 at 511.5 has data from 511.5 on).
	// True: 37 observed. f = 5/37: the ephemeris holds for ±20 d around t0' only.
	{"0.5 % drift over a year", planetYear, year, Row{10.05, 350.7, 1},
		want{StatusFalse, 37, 5, 37, 5, "f_true 5/37"}},
	// P' = 10.008 (0.08 %): offsets 0.008|m| ≤ 0.125 for |m| ≤ 15 (0.120; m = 16 gives 0.128). Predicted
	// 170.556 (m = −18) … 540.852 (m = 19): 38, of which m = 16 (510.828, window [510.703, 510.953]) falls in
	// the 510.5–511.5 downlink: 37 observed, 31 hit (m = −15 … 15). True n = 3 … 33 hit: 31 of 37.
	// f = 31/37 ≈ 0.84 ≥ 0.75.
	{"0.08 % drift over a year", planetYear, year, Row{10.008, 350.7, 1},
		want{StatusFull, 37, 31, 37, 31, ""}},
}

// matchEdgeCases are the cases of TestMatchRules on the edge cases.
var matchEdgeCases = []matchCase{
	// --- edge cases ---
	// No valid cadences: nothing is observed, every share is 0/0 = 0, nothing matches.
	{"no valid times", planetYear, nil, Row{10, 170.7, 1},
		want{StatusFalse, 0, 0, 0, 0, "f_true 0/0"}},
	// A huge period is far from every alias: false without counting midtimes.
	{"huge period", planetYear, year, Row{1e300, 170.7, 1}, want{StatusFalse, 0, 0, 0, 0, "not within 1 %"}},
	// A tiny period likewise (it would have 4e14 midtimes in the year).
	{"tiny period", planetYear, year, Row{1e-12, 170.7, 1}, want{StatusFalse, 0, 0, 0, 0, "not within 1 %"}},
	// 3P of planetLong, t0' = 300: the one predicted midtime in the data, 300, has its window
	// [298.75, 301.25] inside a safe-mode gap [298, 302): f_pred = 0/0 = 0. True 250, 350, 450 are 50 d from
	// 300 + 300m: f_true = 0/3.
	{"no predicted midtime observed", planetLong, withGap(year, 298, 302), Row{300, 300, 1},
		want{StatusFalse, 3, 0, 0, 0, "f_pred 0/0"}},
}

func TestMatchMidtimeGuard(t *testing.T) {
	// A (nonsensical) planet of period 1e-4 d would have 372 / 1e-4 = 3.7 million midtimes in the year, more than
	// MaxMidtimes (1,048,576): it is treated as having no observed midtime instead of being counted.
	p := data.Planet{PeriodDays: 1e-4, T0Days: 170, DurationDays: 1e-5, MES: 10}
	res := MatchStar(injected("s", p, data.PopulationRandom), year, []Row{{1e-4, 170, 1}})
	checkRow(t, res.Rows[0], want{StatusFalse, 0, 0, 0, 0, "f_true 0/0"})
	// Just under the bound the count is done: P = 372 / 1e6 d, D = 2 cadences, the truth as the row.
	p = data.Planet{PeriodDays: 372.0 / 1e6, T0Days: 170, DurationDays: 2 * lc.CadenceDays, MES: 10}
	res = MatchStar(injected("s", p, data.PopulationRandom), year, []Row{{p.PeriodDays, 170, 1}})
	if r := res.Rows[0]; r.Status != StatusFull || r.TrueObserved < 900000 {
		t.Errorf("P = 0.372 ms: %+v, want full with ≈ 1e6 observed midtimes", r)
	}
}

func TestMatchUnsortedTimes(t *testing.T) {
	rev := make([]float64, len(year))
	for i, x := range year {
		rev[len(year)-1-i] = x
	}
	res := MatchStar(injected("s", planetYear, data.PopulationRandom), rev, []Row{{10, 170.7, 1}})
	checkRow(t, res.Rows[0], want{StatusFull, 37, 37, 37, 37, ""})
	if rev[0] < rev[1] {
		t.Error("MatchStar sorted its input in place")
	}
}

func TestMatchInvalidPlanet(t *testing.T) {
	p := planetYear
	p.DurationDays = math.NaN()
	res := MatchStar(injected("s", p, data.PopulationRandom), year, []Row{{10, 170.7, 1}})
	checkRow(t, res.Rows[0], want{StatusFalse, 0, 0, 0, 0, "not within 1 %"})
}

// TestMatchClaims checks the order of claims: highest score first, ties in output order, one claim per planet,
// only the top three rows counted.
func TestMatchClaims(t *testing.T) {
	exact := Row{10, 170.7, 5}
	double := Row{20, 170.7, 5} // 2P of planetYear: predicted 170.7 … 530.7 (19), 510.7 unobserved: f_pred 18/18
	drift := Row{10.05, 350.7, 5}
	fullW := want{StatusFull, 37, 37, 37, 37, ""}
	doubleW := want{StatusHalf2x, 37, 18, 18, 18, ""}
	// A row that would match an already claimed planet is false; its counts are those of the attempt.
	cases := []struct {
		name       string
		rows       []Row
		want       []want
		credit     float64
		falseCount int
		planet     string
	}{
		{"duplicate rows: the second is false", []Row{exact, {10, 170.7, 4}},
			[]want{fullW, {StatusFalse, 37, 37, 37, 37, "would earn full on planet 0 but row 1 claimed it first"}},
			1, 1, StatusFull},
		{"tie: the wrong row first in output order", []Row{drift, exact},
			[]want{{StatusFalse, 37, 5, 37, 5, "f_true 5/37"}, fullW}, 1, 1, StatusFull},
		{"tie: half before full in output order", []Row{double, exact},
			[]want{doubleW, {StatusFalse, 37, 37, 37, 37, "would earn full on planet 0 but row 1 claimed it first"}},
			0.5, 1, StatusHalf2x},
		{"tie: full before half in output order", []Row{exact, double},
			[]want{fullW, {StatusFalse, 37, 18, 18, 18, "would earn half_2x on planet 0 but row 1 claimed it first"}},
			1, 1, StatusFull},
		{"higher score wins over output order", []Row{{20, 170.7, 1}, {10, 170.7, 2}},
			[]want{fullW, {StatusFalse, 37, 18, 18, 18, "row 1 claimed it first"}}, 1, 1, StatusFull},
		{"only the top three count", []Row{{10, 170.7, 1}, {3, 171, 4}, {4, 172, 3}, {7, 173, 2}},
			[]want{{StatusFalse, 0, 0, 0, 0, "not within"}, {StatusFalse, 0, 0, 0, 0, "not within"},
				{StatusFalse, 0, 0, 0, 0, "not within"}}, 0, 3, StatusMissed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := MatchStar(injected("s", planetYear, data.PopulationRandom), year, c.rows)
			if res.RowsGiven != len(c.rows) || len(res.Rows) != len(c.want) {
				t.Fatalf("rows given %d counted %d, want %d and %d", res.RowsGiven, len(res.Rows), len(c.rows), len(c.want))
			}
			for i, w := range c.want {
				checkRow(t, res.Rows[i], w)
			}
			if res.Credit != c.credit || res.False != c.falseCount || res.Planets[0].Status != c.planet {
				t.Errorf("credit %g false %d planet %q, want %g, %d, %q", res.Credit, res.False,
					res.Planets[0].Status, c.credit, c.falseCount, c.planet)
			}
		})
	}
}

// TestMatchCategories checks how each kind of star treats its rows.
func TestMatchCategories(t *testing.T) {
	eb := &data.EB{PeriodDays: 3.2, T0Days: 171, PrimaryDepth: 0.2, PrimaryDurationDays: 0.15}
	ebCounted := *eb
	ebCounted.Counted, ebCounted.Giveaway = true, []string{"too_deep"}
	rows := []Row{{3.2, 171, 10}, {6.4, 171, 5}}
	cases := []struct {
		name    string
		ans     data.Answer
		rows    []Row
		status  string
		false   int
		ebRows  bool
		outcome string
	}{
		{"counted EB: every row false", data.Answer{ID: "e", Category: data.CategoryEB, Scored: true, EB: &ebCounted},
			rows, StatusFalse, 2, true, "false"},
		{"counted EB without rows", data.Answer{ID: "e", Category: data.CategoryEB, Scored: true, EB: &ebCounted},
			nil, "", 0, false, "quiet"},
		{"uncounted EB: ignored", data.Answer{ID: "e", Category: data.CategoryEB, Scored: false, EB: eb},
			rows, StatusIgnored, 0, false, "ignored"},
		{"confirmed host: ignored even on its planet", data.Answer{ID: "c", Category: data.CategoryConfirmed,
			Scored: false, Confirmed: []data.Planet{planetYear}}, []Row{{10, 170.7, 1}}, StatusIgnored, 0, false, "ignored"},
		{"untouched: every row false", data.Answer{ID: "u", Category: data.CategoryUntouched,
			Population: data.PopulationFalseAlarm, Scored: true,
			FalseAlarm: &data.FalseAlarm{Kind: "desaturation", PeriodDays: 3.004}}, []Row{{3.004, 170.1, 2}},
			StatusFalse, 1, false, "false"},
		{"untouched without rows", data.Answer{ID: "u", Category: data.CategoryUntouched, Scored: true},
			nil, "", 0, false, "quiet"},
		{"injected without rows", injected("i", planetYear, data.PopulationRandom), nil, "", 0, false, "missed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := MatchStar(c.ans, year, c.rows)
			for _, r := range res.Rows {
				if r.Status != c.status || r.Credit != 0 {
					t.Errorf("row %d: status %q credit %g, want %q and 0", r.Rank, r.Status, r.Credit, c.status)
				}
			}
			if res.False != c.false || res.Credit != 0 || res.EBWithRows != c.ebRows || res.Outcome() != c.outcome {
				t.Errorf("false %d credit %g eb_with_rows %v outcome %q, want %d, 0, %v, %q",
					res.False, res.Credit, res.EBWithRows, res.Outcome(), c.false, c.ebRows, c.outcome)
			}
			if b, err := json.Marshal(res); err != nil || !strings.Contains(string(b), `"rows":[`) ||
				!strings.Contains(string(b), `"planets":[`) {
				t.Errorf("JSON %s (error %v): want rows and planets as arrays", b, err)
			}
			if res.StarID != c.ans.ID || res.Category != c.ans.Category || res.Scored != c.ans.Scored {
				t.Errorf("identity %q %q %v not copied from the answer", res.StarID, res.Category, res.Scored)
			}
		})
	}
}

// TestMatchExactlyTau checks the hit test's epsilon (SPEC A5: "≤ τ" is tested as ≤ τ + 1e-9 d). The row has the
// planet's period and t0' = t0 + τ, both as a solution prints them in decimal: in exact arithmetic every
// predicted midtime is exactly τ from a true one, so every transit hits. In float64 the distances scatter by
// ~1e-14 d around τ; the test first checks that the construction really sits on that edge (some distances come
// out above τ, some not), so that without the epsilon rounding would decide. A row 1e-6 d further off, beyond
// the epsilon, must hit nowhere.
func TestMatchExactlyTau(t *testing.T) {
	// P = 9.3 d, t0 = 171.7, D = 0.27 d: τ = D/2 = 0.135 d (above one cadence); 40 observed transits in the
	// test year (none falls wholly in a gap of yearGaps).
	planet := data.Planet{PeriodDays: 9.3, T0Days: 171.7, DurationDays: 0.27, MES: 10, NTransits: 40}
	const tau = 0.135
	row := Row{PeriodDays: 9.3, T0Days: 171.835, Score: 1} // 171.7 + 0.135
	lo, hi := year[0], year[len(year)-1]
	truth, pred := newComb(planet.T0Days, planet.PeriodDays, lo), newComb(row.T0Days, row.PeriodDays, lo)
	above, within := 0, 0
	for k := math.Ceil((lo - tau - truth.ref) / truth.period); truth.ref+k*truth.period <= hi+tau; k++ {
		d := pred.dist(truth.ref + k*truth.period)
		if math.Abs(d-tau) > 1e-12 {
			t.Fatalf("midtime %g: distance %g d is not τ up to rounding", truth.ref+k*truth.period, d)
		}
		if d > tau {
			above++
		} else {
			within++
		}
	}
	if above == 0 || within == 0 {
		t.Fatalf("construction is not on the rounding edge: %d distances above τ, %d within", above, within)
	}

	res := MatchStar(injected("edge", planet, data.PopulationRandom), year, []Row{row})
	checkRow(t, res.Rows[0], want{status: StatusFull, trueObs: 40, trueHit: 40, predObs: 40, predHit: 40})

	beyond := Row{PeriodDays: 9.3, T0Days: 171.835 + 1e-6, Score: 1}
	res = MatchStar(injected("edge", planet, data.PopulationRandom), year, []Row{beyond})
	checkRow(t, res.Rows[0], want{status: StatusFalse, trueObs: 40, trueHit: 0, predObs: 40, predHit: 0,
		note: "f_true 0/40"})
}

// TestMatchWidenedSpan checks that midtimes are listed over the data span widened by D/2 on each side (SPEC A5):
// a transit whose midtime lies before the first valid time, or after the last, still counts as observed when
// valid cadences lie within ±D/2 of it.
func TestMatchWidenedSpan(t *testing.T) {
	// Data from BKJD 200.0 to 230.0; planet P = 10 d, D = 0.5 d (half = 0.25 d) with midtimes 199.9, 209.9,
	// 219.9, 229.9 and 239.9. 199.9 lies 0.1 d before the first cadence, but 200.0 … 200.15 lie within its
	// window: observed. 229.9 is inside the span; 239.9 is beyond hi + D/2 = 230.25: not listed. So 4 observed
	// true midtimes, of which only 3 lie inside [first, last valid time].
	var times []float64
	for t := 200.0; t <= 230.0; t += lc.CadenceDays {
		times = append(times, t)
	}
	planet := data.Planet{PeriodDays: 10, T0Days: 199.9, DurationDays: 0.5, MES: 10, NTransits: 4}
	// A row at the true ephemeris hits all four, from both sides.
	res := MatchStar(injected("span", planet, data.PopulationRandom), times, []Row{{PeriodDays: 10, T0Days: 199.9, Score: 1}})
	checkRow(t, res.Rows[0], want{status: StatusFull, trueObs: 4, trueHit: 4, predObs: 4, predHit: 4})
	// The same planet seen from the other end: the last valid time 229.99… and a midtime at 230.1 (0.1 d past it).
	late := data.Planet{PeriodDays: 10, T0Days: 200.1, DurationDays: 0.5, MES: 10, NTransits: 4}
	res = MatchStar(injected("span", late, data.PopulationRandom), times, []Row{{PeriodDays: 10, T0Days: 200.1, Score: 1}})
	checkRow(t, res.Rows[0], want{status: StatusFull, trueObs: 4, trueHit: 4, predObs: 4, predHit: 4})
}

// TestMatchUnobservedPartner checks that a hit's partner need not itself be observed (SPEC A5): a predicted
// midtime whose window reaches valid data hits a true midtime that falls wholly in a gap.
func TestMatchUnobservedPartner(t *testing.T) {
	// Planet P = 10 d, t0 = 175, D = 0.5 d (τ = 0.25 d) over the test year: midtimes 175 … 535, 37 of them;
	// 325's window [324.75, 325.25] lies in the 324.5–325.5 downlink, so 36 are observed in year. Cut a gap
	// [294.7, 295.3): the window of 295, [294.75, 295.25], is empty too, so 35 true midtimes are observed. The row
	// is 0.2 d late (within τ): its midtime 295.2 has the window [294.95, 295.45], which holds valid times from
	// 295.3 on, so it is observed, and it hits 295 although 295 is not observed; 325.2's window lies in the
	// downlink. So 36 predicted midtimes are observed and all hit, and f_true = 35/35.
	times := withGap(year, 294.7, 295.3)
	planet := data.Planet{PeriodDays: 10, T0Days: 175, DurationDays: 0.5, MES: 10, NTransits: 35}
	res := MatchStar(injected("gap", planet, data.PopulationRandom), times, []Row{{PeriodDays: 10, T0Days: 175.2, Score: 1}})
	checkRow(t, res.Rows[0], want{status: StatusFull, trueObs: 35, trueHit: 35, predObs: 36, predHit: 36})
}
