package grader

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"transitbench/data"
	"transitbench/engine/lc"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// summaryStars is a small set with one star of each situation, matched on the test year.
func summaryStars() []StarResult {
	p5, p8 := planetLong, planetFour // MES 5 and 8
	ebCounted := &data.EB{PeriodDays: 3.2, T0Days: 171, Counted: true, Giveaway: []string{"secondary"}}
	ebQuiet := &data.EB{PeriodDays: 7.5, T0Days: 172}
	stars := []struct {
		ans  data.Answer
		rows []Row
	}{
		// 1. random, MES 12, exact row: credit 1.
		{injected("s1", planetYear, data.PopulationRandom), []Row{{10, 170.7, 9}}},
		// 2. false-alarm, MES 5, the 2P row of TestMatchRules (½) and a row at 37 d (false).
		{injected("s2", p5, data.PopulationFalseAlarm), []Row{{200, 250, 9}, {37, 171, 3}}},
		// 3. random, MES 8, no rows: missed.
		{injected("s3", p8, data.PopulationRandom), nil},
		// 4. random untouched, two rows: two false.
		{data.Answer{ID: "s4", Category: data.CategoryUntouched, Population: data.PopulationRandom, Scored: true},
			[]Row{{2.5, 170.3, 2}, {5, 170.3, 1}}},
		// 5. false-alarm untouched, no rows.
		{data.Answer{ID: "s5", Category: data.CategoryUntouched, Population: data.PopulationFalseAlarm, Scored: true}, nil},
		// 6. counted EB with a row: false, and an EB with rows.
		{data.Answer{ID: "s6", Category: data.CategoryEB, Scored: true, EB: ebCounted}, []Row{{3.2, 171, 1}}},
		// 7. counted EB without rows.
		{data.Answer{ID: "s7", Category: data.CategoryEB, Scored: true, EB: ebCounted}, nil},
		// 8. uncounted EB with a row: ignored.
		{data.Answer{ID: "s8", Category: data.CategoryEB, Scored: false, EB: ebQuiet}, []Row{{7.5, 172, 1}}},
		// 9. confirmed host with two rows, one on its planet: ignored.
		{data.Answer{ID: "s9", Category: data.CategoryConfirmed, Scored: false, Confirmed: []data.Planet{planetYear}},
			[]Row{{10, 170.7, 1}, {20, 170.7, 1}}},
	}
	var out []StarResult
	for _, s := range stars {
		out = append(out, MatchStar(s.ans, year, s.rows))
	}
	return out
}

func TestSummarize(t *testing.T) {
	s := Summarize(summaryStars())
	// Scored stars 1–7; planets on 1, 2, 3; credit 1 + ½ = 1.5; false 1 (star 2) + 2 (star 4) + 1 (star 6) = 4.
	// S = (1.5 − 4)/3 = −5/6, C = 1.5/3 = 0.5, F = 100 · 4/7, EB share = 1 of 2 counted EBs.
	want := Totals{S: -2.5 / 3, C: 0.5, F: 400.0 / 7, EBShare: 0.5, Credit: 1.5, False: 4, Planets: 3,
		ScoredStars: 7, CountedEBs: 2, EBsWithRows: 1}
	checkTotals(t, "all", s.Totals, want)
	// Random: stars 1, 3, 4: planets 2, credit 1, false 2: S = −1/2, C = 1/2, F = 200/3.
	checkTotals(t, "random", s.ByPopulation.Random, Totals{S: -0.5, C: 0.5, F: 200.0 / 3, Credit: 1, False: 2,
		Planets: 2, ScoredStars: 3})
	// False alarm: stars 2, 5: planets 1, credit ½, false 1: S = −1/2, C = 1/2, F = 50.
	checkTotals(t, "false_alarm", s.ByPopulation.FalseAlarm, Totals{S: -0.5, C: 0.5, F: 50, Credit: 0.5, False: 1,
		Planets: 1, ScoredStars: 2})
	// MES 5 → 4–7.1 (½ of 1), MES 8 → 7.1–10 (0 of 1), MES 12 → 10–20 (1 of 1).
	if s.ByMESBin.Low != (MESBin{Credit: 0.5, Planets: 1, C: 0.5}) || s.ByMESBin.Mid != (MESBin{Planets: 1}) ||
		s.ByMESBin.High != (MESBin{Credit: 1, Planets: 1, C: 1}) {
		t.Errorf("by MES bin = %+v", s.ByMESBin)
	}
	// Injected: 3 stars, rows 1 + 2 + 0, false 1. Untouched: 2 stars, 2 rows, 2 false. EB: 2 stars, 1 row, 1 false.
	if s.ByCategory != (Categories{Injected: CategoryCounts{3, 3, 1}, Untouched: CategoryCounts{2, 2, 2},
		EB: CategoryCounts{2, 1, 1}}) {
		t.Errorf("by category = %+v", s.ByCategory)
	}
	// Stars 8 and 9 with 1 + 2 rows.
	if s.IgnoredStars != 2 || s.IgnoredRows != 3 {
		t.Errorf("ignored stars %d rows %d, want 2 and 3", s.IgnoredStars, s.IgnoredRows)
	}
}

func checkTotals(t *testing.T, name string, got, want Totals) {
	t.Helper()
	if !near(got.S, want.S) || !near(got.C, want.C) || !near(got.F, want.F) || !near(got.EBShare, want.EBShare) ||
		got.Credit != want.Credit || got.False != want.False || got.Planets != want.Planets ||
		got.ScoredStars != want.ScoredStars || got.CountedEBs != want.CountedEBs || got.EBsWithRows != want.EBsWithRows {
		t.Errorf("%s totals = %+v, want %+v", name, got, want)
	}
}

func TestSummarizeMESBinEdges(t *testing.T) {
	// Each planet found at its true ephemeris; its MES alone decides the bin, edges going to the upper bin.
	var res []StarResult
	for i, mes := range []float64{3.9, 4, 7.0999, 7.1, 9.9999, 10, 19.9999, 20, 20.6, 35} {
		p := planetYear
		p.MES = mes
		rows := []Row{{10, 170.7, 1}}
		if i%2 == 1 {
			rows = nil // every other planet missed
		}
		res = append(res, MatchStar(injected(fmt.Sprint("s", i), p, data.PopulationRandom), year, rows))
	}
	s := Summarize(res)
	// Low: 3.9 (found), 4 (missed), 7.0999 (found); Mid: 7.1 (missed), 9.9999 (found); High: 10 (missed),
	// 19.9999 (found); Top: 20 (missed), 20.6 (found), 35 (missed).
	if s.ByMESBin.Low != (MESBin{Credit: 2, Planets: 3, C: 2.0 / 3}) ||
		s.ByMESBin.Mid != (MESBin{Credit: 1, Planets: 2, C: 0.5}) ||
		s.ByMESBin.High != (MESBin{Credit: 1, Planets: 2, C: 0.5}) ||
		s.ByMESBin.Top != (MESBin{Credit: 1, Planets: 3, C: 1.0 / 3}) {
		t.Errorf("by MES bin = %+v", s.ByMESBin)
	}
}

func TestSummarizeNoPlanets(t *testing.T) {
	untouched := data.Answer{ID: "u", Category: data.CategoryUntouched, Population: data.PopulationRandom, Scored: true}
	for _, c := range []struct {
		name    string
		results []StarResult
		want    Totals
	}{
		{"nothing", nil, Totals{}},
		// One scored star, no planet, one false row: S and C have no denominator and read 0; F = 100 · 1/1.
		{"untouched only", []StarResult{MatchStar(untouched, year, []Row{{3, 171, 1}})},
			Totals{F: 100, False: 1, ScoredStars: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Summarize(c.results)
			checkTotals(t, c.name, s.Totals, c.want)
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatalf("summary does not marshal: %v", err)
			}
			for _, key := range []string{`"S":0,`, `"C":0,`, `"eb_share":0,`, `"4-7.1":{"credit":0,"planets":0,"C":0}`,
				`"by_population":{"random":{"S":0,`, `"by_category":{"injected":{"stars":0`} {
				if !strings.Contains(string(b), key) {
					t.Errorf("JSON lacks %s:\n%s", key, b)
				}
			}
		})
	}
}

func TestSummaryJSONFields(t *testing.T) {
	b, err := json.Marshal(Summarize(summaryStars()))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"S", "C", "F", "eb_share", "credit", "false", "planets", "scored_stars",
		"by_population", "by_mes_bin", "by_category"} {
		if _, ok := m[k]; !ok {
			t.Errorf("summary JSON lacks %q", k)
		}
	}
	for _, k := range []string{"4-7.1", "7.1-10", "10-20"} {
		if _, ok := m["by_mes_bin"].(map[string]any)[k]; !ok {
			t.Errorf("by_mes_bin lacks %q", k)
		}
	}
}

// benchSet makes a 1,000-star set in the hidden sets' proportions (SPEC A2): 400 injected planets with periods
// log-uniform in 0.5–120 d, 350 untouched, 150 EBs, 100 confirmed hosts, three rows on every star (on injected stars
// the truth, its double and a random period), all on the test year.
func benchSet() ([]data.Answer, [][]Row) {
	rng := rand.New(rand.NewPCG(1, 2))
	var answers []data.Answer
	var rows [][]Row
	for i := range 1000 {
		p := 0.5 * math.Pow(240, rng.Float64())
		t0 := 170 + rng.Float64()*p
		random := Row{PeriodDays: 0.5 * math.Pow(240, rng.Float64()), T0Days: 170 + rng.Float64()*10, Score: 1}
		pl := data.Planet{PeriodDays: p, T0Days: t0, DurationDays: 0.1 + 0.4*rng.Float64(), MES: 4 + 16*rng.Float64()}
		var a data.Answer
		switch {
		case i < 400:
			a = injected(fmt.Sprint("s", i), pl, data.PopulationRandom)
		case i < 750:
			a = data.Answer{ID: fmt.Sprint("s", i), Category: data.CategoryUntouched, Scored: true}
		case i < 900:
			a = data.Answer{ID: fmt.Sprint("s", i), Category: data.CategoryEB, Scored: i%2 == 0}
		default:
			a = data.Answer{ID: fmt.Sprint("s", i), Category: data.CategoryConfirmed, Confirmed: []data.Planet{pl}}
		}
		answers = append(answers, a)
		rows = append(rows, []Row{{p, t0, 3}, {2 * p, t0, 2}, random})
	}
	return answers, rows
}

// BenchmarkMatchSet matches and summarizes a 1,000-star set with three rows per star.
func BenchmarkMatchSet(b *testing.B) {
	answers, rows := benchSet()
	results := make([]StarResult, len(answers))
	b.ResetTimer()
	for b.Loop() {
		for i := range answers {
			results[i] = MatchStar(answers[i], year, rows[i])
		}
		Summarize(results)
	}
}

// BenchmarkMatchStar matches one injected star with a 0.5 d planet (740 midtimes in the year, the most work a
// realistic planet gives) and three rows at P, 2P and P/2.
func BenchmarkMatchStar(b *testing.B) {
	p := data.Planet{PeriodDays: 0.5, T0Days: 170.2, DurationDays: 0.06, MES: 10}
	ans := injected("s", p, data.PopulationRandom)
	rows := []Row{{0.5, 170.2, 3}, {1, 170.2, 2}, {0.25, 170.2, 1}}
	for b.Loop() {
		MatchStar(ans, year, rows)
	}
}

func ExampleMatchStar() {
	// A year of 29.4-min cadences, 170–542 BKJD, no gaps.
	var times []float64
	for t := 170.0; t < 542; t += lc.CadenceDays {
		times = append(times, t)
	}
	ans := data.Answer{ID: "dev-0042", Category: data.CategoryInjected, Population: data.PopulationRandom,
		Scored: true, Planet: &data.Planet{PeriodDays: 6.173, T0Days: 173.22, DurationDays: 0.13, MES: 9.4}}
	rows, _ := ParseRows(strings.NewReader("period_days,t0_days,score\n12.3461,173.21,14.2\n3.0107,170.02,9.8\n"))
	res := MatchStar(ans, times, rows)
	for _, r := range res.Rows {
		fmt.Printf("%g %s f_true %.2f f_pred %.2f\n", r.PeriodDays, r.Status, r.FTrue, r.FPred)
	}
	s := Summarize([]StarResult{res})
	fmt.Printf("S %.2f C %.2f F %.0f\n", s.S, s.C, s.F)
	// Output:
	// 12.3461 half_2x f_true 0.50 f_pred 1.00
	// 3.0107 false f_true 0.00 f_pred 0.00
	// S -0.50 C 0.50 F 100
}

// TestStandardErrorS checks the delta-method standard error of S against a hand computation and its edge cases.
func TestStandardErrorS(t *testing.T) {
	planet := []PlanetResult{{}}
	// Four scored stars: two hosts found (y = 1, x = 1), one host missed (y = 0, x = 1), one untouched star with a
	// false row (y = −1, x = 0), and an unscored star that must not count. S = (2 − 1) / 3 = 1/3; the residuals
	// yᵢ − S·xᵢ are 2/3, 2/3, −1/3, −1, so Σd² = 4/9 + 4/9 + 1/9 + 1 = 2 and SE = √(4/3 · 2) / 3.
	results := []StarResult{
		{Scored: true, Credit: 1, Planets: planet},
		{Scored: true, Credit: 1, Planets: planet},
		{Scored: true, Planets: planet},
		{Scored: true, False: 1},
		{Scored: false, Credit: 1, False: 3, Planets: planet},
	}
	se, ok := StandardErrorS(results)
	if want := math.Sqrt(4.0/3*2) / 3; !ok || math.Abs(se-want) > 1e-12 {
		t.Errorf("StandardErrorS = %v, %v; want %v, true", se, ok, want)
	}
	if s := Summarize(results).S; math.Abs(s-1.0/3) > 1e-12 {
		t.Errorf("S = %v, want 1/3", s)
	}
	// Every star the same contribution per planet: no scatter.
	same := []StarResult{{Scored: true, Credit: 1, Planets: planet}, {Scored: true, Credit: 2, Planets: []PlanetResult{{}, {}}}}
	if se, ok := StandardErrorS(same); !ok || se != 0 {
		t.Errorf("equal contributions: SE = %v, %v; want 0, true", se, ok)
	}
	for name, rs := range map[string][]StarResult{
		"one star":    {{Scored: true, Credit: 1, Planets: planet}},
		"no planets":  {{Scored: true, False: 1}, {Scored: true}},
		"none scored": {{Credit: 1, Planets: planet}, {Credit: 1, Planets: planet}},
	} {
		if se, ok := StandardErrorS(rs); ok || se != 0 {
			t.Errorf("%s: SE = %v, %v; want 0, false", name, se, ok)
		}
	}
}
