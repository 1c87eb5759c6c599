package mcpserver

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/grader"
	"transitbench/workspace"
	"transitbench/workspace/quicklook"
)

// ListStarsIn filters the stars as the terminal UI's browser does: every given field must match.
type ListStarsIn struct {
	Set        string `json:"set,omitempty" jsonschema:"data set (default: the workspace's dev set); the hidden sets (A, B and the mini pool M) are refused"`
	Category   string `json:"category,omitempty" jsonschema:"injected, untouched, eb or confirmed"`
	Population string `json:"population,omitempty" jsonschema:"random or false_alarm"`
	Outcome    string `json:"outcome,omitempty" jsonschema:"the last dev run's outcome: hit, half, missed, false, quiet, ignored or 'not run'"`
	MESBin     string `json:"mes_bin,omitempty" jsonschema:"the planet's MES bin: 4-7.1, 7.1-10, 10-20, 20+ or none"`
	Text       string `json:"text,omitempty" jsonschema:"a substring of the id, category or population"`
	Sort       string `json:"sort,omitempty" jsonschema:"id (default), mes, cdpp, kepmag or outcome"`
	Limit      int    `json:"limit,omitempty" jsonschema:"at most this many stars (0: all)"`
}

// StarRow is one star of list_stars: its kind (the answer's category and population, public for dev stars),
// its planet's MES (quicklook.PlanetMES), magnitude, 6-hour CDPP and the last dev run's outcome ("" when not run).
type StarRow struct {
	ID         string  `json:"id"`
	Category   string  `json:"category,omitempty"`
	Population string  `json:"population,omitempty"`
	Scored     bool    `json:"scored"`
	MES        float64 `json:"mes"`
	Kepmag     float64 `json:"kepmag"`
	CDPP6PPM   float64 `json:"cdpp6_ppm"`
	Outcome    string  `json:"outcome,omitempty"`
}

// ListStarsOut is list_stars's answer: the matching stars, and how many the set has.
type ListStarsOut struct {
	Set     string    `json:"set"`
	Total   int       `json:"total"`
	Matched int       `json:"matched"`
	LastRun int64     `json:"last_run,omitempty"`
	Stars   []StarRow `json:"stars"`
}

// listStarsDoc describes the list_stars tool to the client.
const listStarsDoc = "List the labelled stars of the dev set with their category, MES, CDPP and the last dev run's " +
	"outcome, filtered as the terminal UI's browser filters."

func (s *Server) listStars(ctx context.Context, _ *mcp.CallToolRequest, in ListStarsIn) (*mcp.CallToolResult, ListStarsOut, error) {
	if in.Limit < 0 {
		return nil, ListStarsOut{}, badInput("limit %d: give a number of stars, or 0 for all", in.Limit)
	}
	set, err := s.set(in.Set)
	if err != nil {
		return nil, ListStarsOut{}, err
	}
	ids := set.IDs
	if set.Name == s.devSetName() {
		ids = s.ws.DevIDs(set)
	}
	last, run, err := s.ws.LastOutcomes(ctx, s.home, set.Name)
	if err != nil {
		return nil, ListStarsOut{}, err
	}
	out := ListStarsOut{Set: set.Name, Total: len(ids), Stars: []StarRow{}}
	if run != nil {
		out.LastRun = run.ID
	}
	text := strings.ToLower(strings.TrimSpace(in.Text))
	for _, id := range ids {
		r, err := starRow(set, id, last)
		if err != nil {
			return nil, ListStarsOut{}, err
		}
		if keepRow(r, in, text) {
			out.Stars = append(out.Stars, r)
		}
	}
	if err := sortRows(out.Stars, in.Sort); err != nil {
		return nil, ListStarsOut{}, err
	}
	out.Matched = len(out.Stars)
	if in.Limit > 0 && len(out.Stars) > in.Limit {
		out.Stars = out.Stars[:in.Limit]
	}
	return nil, out, nil
}

// starRow is star id's row: its metadata, its answer's kind and its last outcome.
func starRow(set *sets.Set, id string, last map[string]grader.StarResult) (StarRow, error) {
	info, err := set.Info(id)
	if err != nil {
		return StarRow{}, err
	}
	r := StarRow{ID: id, Kepmag: info.Star.Kepmag, CDPP6PPM: info.Star.CDPPppm["6.0"]}
	if a, ok := set.Answers[id]; ok {
		r.Category, r.Population, r.Scored, r.MES = a.Category, a.Population, a.Scored, quicklook.PlanetMES(&a)
	}
	if res, ok := last[id]; ok {
		r.Outcome = res.Outcome()
	}
	return r, nil
}

// keepRow applies the browser's filters (text lower-cased).
func keepRow(r StarRow, in ListStarsIn, text string) bool {
	outcome := r.Outcome
	if outcome == "" {
		outcome = "not run"
	}
	switch {
	case in.Category != "" && r.Category != in.Category,
		in.Population != "" && r.Population != in.Population,
		in.Outcome != "" && outcome != in.Outcome,
		in.MESBin != "" && grader.MESBinName(r.MES) != in.MESBin:
		return false
	}
	return text == "" || strings.Contains(strings.ToLower(r.ID+" "+r.Category+" "+r.Population), text)
}

// sortRows sorts the rows by key, ties by id.
func sortRows(rows []StarRow, key string) error {
	var v func(r StarRow) float64
	switch key {
	case "", "id":
		return nil
	case "mes":
		v = func(r StarRow) float64 { return r.MES }
	case "cdpp":
		v = func(r StarRow) float64 { return r.CDPP6PPM }
	case "kepmag":
		v = func(r StarRow) float64 { return r.Kepmag }
	case "outcome":
		rank := map[string]float64{"false": 0, "missed": 1, "half": 2, "hit": 3, "quiet": 4, "ignored": 5, "": 6}
		v = func(r StarRow) float64 { return rank[r.Outcome] }
	default:
		return badInput("sort %q: use id, mes, cdpp, kepmag or outcome", key)
	}
	sort.SliceStable(rows, func(i, j int) bool { return v(rows[i]) < v(rows[j]) })
	return nil
}

// StarIn names a star of a public set.
type StarIn struct {
	Star string `json:"star" jsonschema:"star id, e.g. dev-0042 (list_stars gives them)"`
	Set  string `json:"set,omitempty" jsonschema:"data set (default: the workspace's dev set)"`
}

// StarInfoOut is star_info's answer. Truth is the star's answer, only for the public labelled sets.
type StarInfoOut struct {
	ID            string       `json:"id"`
	Set           string       `json:"set"`
	Star          data.Star    `json:"star"`
	Cadences      int          `json:"cadences"`
	ValidCadences int          `json:"valid_cadences"`
	LastOutcome   string       `json:"last_outcome,omitempty"`
	LastRun       int64        `json:"last_run,omitempty"`
	Truth         *data.Answer `json:"truth,omitempty"`
	// TruthMeasured is the truth's signal (quicklook.Truth) measured on the light curve as bls, fold and vet
	// measure every signal: its MES is the one the answers state, within the depth's noise.
	TruthMeasured *quicklook.Stats `json:"truth_measured,omitempty"`
}

// checkStar refuses a hidden star or set, and a star the set does not have.
func (s *Server) checkStar(in StarIn) (*sets.Set, error) {
	if in.Star == "" {
		return nil, badInput("give the star's id (list_stars gives them)")
	}
	if workspace.IsHiddenStar(in.Star) {
		return nil, hiddenError(fmt.Sprintf("%s is a star of a hidden set; gradings report those as aggregates only", in.Star))
	}
	set, err := s.set(in.Set)
	if err != nil {
		return nil, err
	}
	if _, err := set.Info(in.Star); err != nil {
		return nil, notFound(fmt.Sprintf("%v (list_stars gives the ids)", err))
	}
	return set, nil
}

// starInfoDoc describes the star_info tool to the client.
const starInfoDoc = "One star's metadata (magnitude, Teff, radius, mass, CDPP at 3, 6 and 12 h), cadence counts, the " +
	"last dev run's outcome and, for labelled public stars, the truth and the truth measured as bls, fold and vet " +
	"measure a signal (truth_measured: fitted ephemeris, depth, MES, secondary, odd/even)."

func (s *Server) starInfo(ctx context.Context, _ *mcp.CallToolRequest, in StarIn) (*mcp.CallToolResult, StarInfoOut, error) {
	set, err := s.checkStar(in)
	if err != nil {
		return nil, StarInfoOut{}, err
	}
	info, _ := set.Info(in.Star)
	out := StarInfoOut{ID: in.Star, Set: set.Name, Star: info.Star, Cadences: info.Cadences, ValidCadences: info.ValidCadences}
	last, run, err := s.ws.LastOutcomes(ctx, s.home, set.Name)
	if err != nil {
		return nil, StarInfoOut{}, err
	}
	if res, ok := last[in.Star]; ok && run != nil {
		out.LastOutcome, out.LastRun = res.Outcome(), run.ID
	}
	if a, ok := set.Answers[in.Star]; ok && !set.Hidden() {
		out.Truth = &a
		if e, ok := quicklook.Truth(&a); ok {
			// The measurement re-detrends the flux itself: the star needs no search for it.
			c, star, err := set.Star(in.Star)
			if err != nil {
				return nil, StarInfoOut{}, err
			}
			st := quicklook.StatsOf(quicklook.Measure(quicklook.Prepare(c, star, quicklook.PrepareOptions{NoDetrend: true}), e))
			out.TruthMeasured = &st
		}
	}
	return nil, out, nil
}
