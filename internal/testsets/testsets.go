package testsets

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"transitbench/data"
	"transitbench/data/sets"
)

// Small returns the compositions of a small dev set (10 stars), small hidden sets A and B (8 stars each) and a
// small secret mini pool M (18 stars, the fewest a mini task can draw its hidden stars from), so that a test's
// dev run, grading or mini run takes seconds: the real sets are 196 and 1,000 stars.
func Small() map[string]sets.Composition {
	return map[string]sets.Composition{
		sets.Dev:      {Injected: 4, Untouched: 3, EB: 2, Confirmed: 1},
		sets.A:        {Injected: 3, Untouched: 2, EB: 2, Confirmed: 1},
		sets.B:        {Injected: 3, Untouched: 2, EB: 2, Confirmed: 1},
		sets.MiniPool: {Injected: 8, Untouched: 8, EB: 1, Confirmed: 1},
	}
}

// Open builds (or opens) in home each set that comps names, at its composition: dev, A and B first, then any
// other in name order. It returns each set's answers by set name, and every set's answers together by star id.
func Open(home string, comps map[string]sets.Composition) (answers map[string]map[string]data.Answer, all map[string]data.Answer, err error) {
	names := make([]string, 0, len(comps))
	for name := range comps {
		names = append(names, name)
	}
	first := []string{sets.Dev, sets.A, sets.B}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := slices.Index(first, names[i]), slices.Index(first, names[j])
		if ri < 0 {
			ri = len(first)
		}
		if rj < 0 {
			rj = len(first)
		}
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	answers = map[string]map[string]data.Answer{}
	all = map[string]data.Answer{}
	for _, name := range names {
		c := comps[name]
		s, err := sets.Open(home, name, sets.Options{Composition: &c})
		if err != nil {
			return nil, nil, err
		}
		answers[name] = s.Answers
		for id, a := range s.Answers {
			all[id] = a
		}
	}
	return answers, all, nil
}

// CurveIDs returns the stars of the hidden sets among comps (built in home, e.g. by Open) by the first cadence
// line of their lightcurve.csv: what OracleScriptByCurve identifies a star by when its star.json does not.
func CurveIDs(home string, comps map[string]sets.Composition) (map[string]string, error) {
	out := map[string]string{}
	for name, c := range comps {
		if !sets.IsHidden(name) {
			continue
		}
		s, err := sets.Open(home, name, sets.Options{Composition: &c})
		if err != nil {
			return nil, err
		}
		if err := AddCurveIDs(out, s); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// AddCurveIDs adds the stars of s to curveIDs, by the first cadence line of their lightcurve.csv.
func AddCurveIDs(curveIDs map[string]string, s *sets.Set) error {
	for _, id := range s.IDs {
		curve, star, err := s.Star(id)
		if err != nil {
			return err
		}
		csv, _, err := data.EncodeStarDir(curve, star)
		if err != nil {
			return err
		}
		lines := strings.SplitN(string(csv), "\n", 3)
		if len(lines) < 3 {
			return fmt.Errorf("testsets: star %s has no cadence", id)
		}
		if prev, dup := curveIDs[lines[1]]; dup && prev != id {
			return fmt.Errorf("testsets: stars %s and %s begin with the same cadence line", prev, id)
		}
		curveIDs[lines[1]] = id
	}
	return nil
}

// PlanetRows returns, for each star of answers that has an injected planet, the row claiming it at its true
// ephemeris with score 10 ("period,t0,10", %.8f).
func PlanetRows(answers map[string]data.Answer) map[string][]string {
	rows := map[string][]string{}
	for id, a := range answers {
		if a.Planet != nil {
			rows[id] = []string{fmt.Sprintf("%.8f,%.8f,10", a.Planet.PeriodDays, a.Planet.T0Days)}
		}
	}
	return rows
}

// OracleScript returns the run script (sh) of a solution that answers by its star's id: it reads the id from
// star.json, runs before (shell lines, e.g. writing to stderr), prints the CSV header and the rows that rows
// holds for the id (stars without rows print none), then runs after (shell lines for every star).
func OracleScript(rows map[string][]string, before, after string) string {
	return OracleScriptByCurve(rows, nil, before, after)
}

// OracleScriptByCurve is OracleScript for stars whose star.json does not carry their id (a hidden set's stars
// carry a per-run anonymous id, SPEC A1): the script first looks the first cadence line of its
// lightcurve.csv up in curveIDs (see CurveIDs) and, when it is there, takes the star's id from it.
func OracleScriptByCurve(rows map[string][]string, curveIDs map[string]string, before, after string) string {
	ids := make([]string, 0, len(rows))
	for id := range rows {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	b.WriteString("#!/bin/sh\nid=$(sed -n 's/.*\"id\": *\"\\([^\"]*\\)\".*/\\1/p' \"$1/star.json\")\n")
	if len(curveIDs) > 0 {
		keys := make([]string, 0, len(curveIDs))
		for k := range curveIDs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("key=$(sed -n 2p \"$1/lightcurve.csv\")\ncase \"$key\" in\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "  '%s') id=%s ;;\n", k, curveIDs[k])
		}
		b.WriteString("esac\n")
	}
	b.WriteString(before)
	b.WriteString("echo period_days,t0_days,score\ncase \"$id\" in\n")
	for _, id := range ids {
		if len(rows[id]) > 0 {
			fmt.Fprintf(&b, "  %s) echo %s ;;\n", id, strings.Join(rows[id], "; echo "))
		}
	}
	b.WriteString("esac\n")
	b.WriteString(after)
	return b.String()
}
