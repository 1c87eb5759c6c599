package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/engine/bls"
	"transitbench/engine/stat"
	"transitbench/engine/vet"
	"transitbench/workspace/figure"
	"transitbench/workspace/quicklook"
)

// BLSIn is a star and the search's options, as 'transitbench bls' takes them (no grid option: the quick-look
// search every front end shows).
type BLSIn struct {
	StarIn
	PMinDays       float64   `json:"pmin_days,omitempty" jsonschema:"shortest period in days (default 0.5)"`
	PMaxDays       float64   `json:"pmax_days,omitempty" jsonschema:"longest period in days (default: the span over 3 transits)"`
	Periods        int       `json:"periods,omitempty" jsonschema:"that many periods uniform in log period instead of Ofir's grid"`
	DurationsHours []float64 `json:"durations_hours,omitempty" jsonschema:"exactly these durations (hours) at every period"`
	Oversample     float64   `json:"oversample,omitempty" jsonschema:"Ofir's frequency oversampling (default 3)"`
	DurMinHours    float64   `json:"dur_min_hours,omitempty" jsonschema:"shortest duration in hours (default 0.5)"`
	DurMaxHours    float64   `json:"dur_max_hours,omitempty" jsonschema:"longest duration in hours (default 12, longer for a low-density star)"`
	Objective      string    `json:"objective,omitempty" jsonschema:"snr (default) or likelihood"`
	Peaks          int       `json:"peaks,omitempty" jsonschema:"how many peaks to return (default 5, at most 20)"`
	Planets        int       `json:"planets,omitempty" jsonschema:"find up to N planets one after another, each masked before the next search (default 0: one search)"`
	MinMES         float64   `json:"min_mes,omitempty" jsonschema:"with planets: stop when the best peak's measured MES is below this (default 10, chosen from its false-alarm rate)"`
	Workers        int       `json:"workers,omitempty" jsonschema:"goroutines sharing the periods (default 1, at most the CPUs)"`
}

// PeakOut is one BLS peak: the search's box (what the peaks are ranked by) and the peak measured.
type PeakOut struct {
	PeriodDays    float64          `json:"period_days"`
	T0Days        float64          `json:"t0_days"`
	DurationHours float64          `json:"duration_hours"`
	DepthPPM      float64          `json:"depth_ppm"`
	DepthErrPPM   float64          `json:"depth_err_ppm"`
	SNR           float64          `json:"snr"`
	Power         float64          `json:"power"`
	NTransits     int              `json:"n_transits"`
	Measured      *quicklook.Stats `json:"measured,omitempty"`
	// Single marks a peak with fewer than three transits: a single event, reported by its events (each transit
	// with data at its own mid-time, no period) instead of a measurement.
	Single bool        `json:"single,omitempty"`
	Events []vet.Event `json:"events,omitempty"`
}

// PlanetOut is one planet of a search for planets: its peak and its measurement with the other found signals
// masked.
type PlanetOut struct {
	Peak     PeakOut         `json:"peak"`
	Measured quicklook.Stats `json:"measured"`
}

// BLSOut is bls's answer: the grid searched and the strongest peaks, strongest first, each measured; with
// planets, the planets found one after another and the single events (no period) found on the way.
type BLSOut struct {
	Star       string        `json:"star"`
	NPoints    int           `json:"n_points"`
	NPeriods   int           `json:"n_periods"`
	NDurations int           `json:"n_durations"`
	Objective  string        `json:"objective"`
	Search     string        `json:"search"`
	WindowDays float64       `json:"detrend_window_days"`
	Seconds    float64       `json:"seconds"`
	Peaks      []PeakOut     `json:"peaks"`
	Planets    []PlanetOut   `json:"planets,omitempty"`
	Singles    [][]vet.Event `json:"singles,omitempty"`
}

// MaxPeaks is the most peaks bls returns.
const MaxPeaks = 20

// blsDoc describes the bls tool to the client.
const blsDoc = "Box least squares search of a star, the analysis 'transitbench bls' and the star view run " +
	"(workspace/quicklook): the light curve detrended for the longest duration searched; without grid options " +
	"the quick-look search (coarse periodogram, refined peaks), with them the grid they describe. Each peak is " +
	"measured as Kepler's DV does (re-detrended with its transits masked, at the fitted T14): 'measured' holds " +
	"the statistics to read (depth, MES, refined secondary and odd/even); 'box' inside it the learned vetter's " +
	"box statistics. planets N finds planets one after another, stopping at measured MES < min_mes."

func (s *Server) bls(_ context.Context, _ *mcp.CallToolRequest, in BLSIn) (*mcp.CallToolResult, BLSOut, error) {
	if in.Objective == "" {
		in.Objective = "snr"
	}
	obj, err := bls.ParseObjective(in.Objective)
	if err != nil {
		return nil, BLSOut{}, badInput("%v", err)
	}
	if in.Peaks == 0 {
		in.Peaks = 5
	}
	for name, v := range map[string]float64{"pmin_days": in.PMinDays, "pmax_days": in.PMaxDays, "oversample": in.Oversample,
		"dur_min_hours": in.DurMinHours, "dur_max_hours": in.DurMaxHours, "min_mes": in.MinMES} {
		if v < 0 || !stat.Finite(v) {
			return nil, BLSOut{}, badInput("%s %g: give a positive number, or leave it out for the default", name, v)
		}
	}
	if in.Peaks < 1 || in.Peaks > MaxPeaks {
		return nil, BLSOut{}, badInput("peaks %d: give 1 to %d", in.Peaks, MaxPeaks)
	}
	if in.Periods < 0 || in.Planets < 0 || in.Planets > MaxPeaks {
		return nil, BLSOut{}, badInput("periods and planets must be positive (planets at most %d)", MaxPeaks)
	}
	var durs []float64
	for _, h := range in.DurationsHours {
		if !(h > 0) || !stat.Finite(h) {
			return nil, BLSOut{}, badInput("durations_hours: %g is not a positive number of hours", h)
		}
		durs = append(durs, h/24)
	}
	slices.Sort(durs)
	durs = slices.Compact(durs)
	if in.Workers == 0 {
		in.Workers = 1
	}
	if in.Workers < 0 || in.Workers > runtime.GOMAXPROCS(0) {
		return nil, BLSOut{}, badInput("workers %d: give 1 to %d", in.Workers, runtime.GOMAXPROCS(0))
	}
	set, err := s.checkStar(in.StarIn)
	if err != nil {
		return nil, BLSOut{}, err
	}
	a, err := s.analysis(set, in.Star)
	if err != nil {
		return nil, BLSOut{}, err
	}
	so := quicklook.SearchOptions{PMinDays: in.PMinDays, PMaxDays: in.PMaxDays, Periods: in.Periods, Durations: durs,
		Oversample: in.Oversample, DurMinDays: in.DurMinHours / 24, DurMaxDays: in.DurMaxHours / 24, Objective: obj,
		Peaks: in.Peaks, Workers: in.Workers}
	var res *quicklook.BLSResult
	var planets []quicklook.Planet
	if in.Planets > 0 {
		planets, res, err = quicklook.FindPlanets(a, quicklook.PlanetOptions{Planets: in.Planets, MinMES: in.MinMES, Search: so})
	} else {
		res, err = a.BLS(so)
	}
	if err != nil {
		if errors.Is(err, bls.ErrGridTooLarge) || errors.Is(err, bls.ErrBadGrid) {
			return nil, BLSOut{}, badInput("%v: narrow the period range (pmin_days, pmax_days) or lower oversample", err)
		}
		return nil, BLSOut{}, fmt.Errorf("%s: %w", in.Star, err)
	}
	out := BLSOut{Star: in.Star, Objective: obj.String(), Search: "quick-look", Peaks: []PeakOut{},
		WindowDays: a.ForDuration(longest(durs, in.DurMaxHours/24)).WindowDays}
	if so.Grid() {
		out.Search = "grid"
	}
	if res != nil {
		out.NPoints, out.NPeriods, out.NDurations, out.Seconds = res.NPoints, res.NPeriods, res.NDurations, res.Seconds
		for i, p := range res.Peaks {
			out.Peaks = append(out.Peaks, peakOut(p, res.Measured[i], res.Events[i]))
		}
	}
	for _, p := range planets {
		if p.Single {
			out.Singles = append(out.Singles, p.Events)
			continue
		}
		out.Planets = append(out.Planets, PlanetOut{Peak: peakOut(p.Peak, p.Measurement, nil), Measured: quicklook.StatsOf(p.Measurement)})
	}
	return nil, out, nil
}

// longest is the longest duration asked for: the last of durs, else dmax (0: none asked).
func longest(durs []float64, dmax float64) float64 {
	if len(durs) > 0 {
		return durs[len(durs)-1]
	}
	return dmax
}

// peakOut is a peak and its measurement as bls returns them; a peak with events is a single event.
func peakOut(p bls.Peak, m vet.Measurement, events []vet.Event) PeakOut {
	out := PeakOut{PeriodDays: p.PeriodDays, T0Days: p.T0Days, DurationHours: p.DurationDays * 24, DepthPPM: p.Depth * 1e6,
		DepthErrPPM: p.DepthErr * 1e6, SNR: p.SNR, Power: p.Power, NTransits: p.NTransits}
	if events != nil {
		out.Single, out.Events = true, events
		return out
	}
	st := quicklook.StatsOf(m)
	out.Measured = &st
	return out
}

// EphemerisIn names a star and what to fold it at: an ephemeris given in full, or At ("truth", "peak N").
type EphemerisIn struct {
	StarIn
	At            string  `json:"at,omitempty" jsonschema:"truth (labelled stars) or peak N (the quick-look BLS peaks, 1 to 5); default: the given period, else truth, else peak 1"`
	PeriodDays    float64 `json:"period_days,omitempty" jsonschema:"period in days (with t0_days and duration_hours)"`
	T0Days        float64 `json:"t0_days,omitempty" jsonschema:"a mid-transit time, BKJD days"`
	DurationHours float64 `json:"duration_hours,omitempty" jsonschema:"transit duration T14 in hours (default 3)"`
}

// ephemeris resolves in on the star's analysis.
func (s *Server) ephemeris(in EphemerisIn) (*figure.Star, quicklook.Ephemeris, error) {
	set, err := s.checkStar(in.StarIn)
	if err != nil {
		return nil, quicklook.Ephemeris{}, err
	}
	a, err := s.analysis(set, in.Star)
	if err != nil {
		return nil, quicklook.Ephemeris{}, err
	}
	fs := &figure.Star{Analysis: a, ID: in.Star}
	if ans, ok := set.Answers[in.Star]; ok && !set.Hidden() {
		fs.Answer, fs.Category, fs.Population = &ans, ans.Category, ans.Population
	}
	at := strings.ToLower(strings.TrimSpace(in.At))
	switch {
	case in.PeriodDays != 0 || in.T0Days != 0:
		if !(in.PeriodDays > 0) || !stat.Finite(in.PeriodDays) || !stat.Finite(in.T0Days) || in.DurationHours < 0 {
			return nil, quicklook.Ephemeris{}, badInput("period_days must be positive and t0_days finite (BKJD days)")
		}
		dur := in.DurationHours / 24
		if dur == 0 {
			dur = quicklook.DefaultDurationDays
		}
		return fs, quicklook.Ephemeris{Label: "given", PeriodDays: in.PeriodDays, T0Days: in.T0Days, DurationDays: dur}, nil
	case at == "":
		e := figure.DefaultEphemeris(fs)
		if e.PeriodDays <= 0 {
			return nil, e, badInput("%s has no labelled signal and no BLS peak: give period_days and t0_days", in.Star)
		}
		return fs, e, nil
	case at == "truth":
		e, ok := quicklook.Truth(fs.Answer)
		if !ok {
			return nil, e, badInput("%s has no labelled signal to fold at: use at 'peak 1' or give period_days", in.Star)
		}
		e.Label = "truth"
		return fs, e, nil
	case strings.HasPrefix(at, "peak"):
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(at, "peak")))
		e, ok := quicklook.Peak(a.Peaks, n-1)
		if err != nil || !ok {
			return nil, e, badInput("at %q: the star has peaks 1 to %d", in.At, len(a.Peaks))
		}
		return fs, e, nil
	}
	return nil, quicklook.Ephemeris{}, badInput("at %q: use truth or peak N, or give period_days and t0_days", in.At)
}

// FoldBin is one bin of a fold: its centre in hours from mid-transit, the mean flux − 1 in ppm and its error.
type FoldBin struct {
	Hours  float64 `json:"hours"`
	PPM    float64 `json:"ppm"`
	ErrPPM float64 `json:"err_ppm"`
}

// FoldOut is fold's answer: the ephemeris, the binned fold of the measured flux (empty bins left out) and the
// measurement's statistics (quicklook.Stats, the box statistics under "box").
type FoldOut struct {
	Star          string          `json:"star"`
	FoldedAt      string          `json:"folded_at"`
	PeriodDays    float64         `json:"period_days"`
	T0Days        float64         `json:"t0_days"`
	DurationHours float64         `json:"duration_hours"`
	HalfHours     float64         `json:"half_window_hours"`
	Points        int             `json:"points"`
	Bins          []FoldBin       `json:"bins"`
	Measured      quicklook.Stats `json:"measured"`
}

// foldDoc describes the fold tool to the client.
const foldDoc = "Fold a star at an ephemeris (given, 'truth' or 'peak N'), measured as 'transitbench vet' and the " +
	"star view measure it (re-detrended with its transits masked, at the fitted T14): binned means in ppm against " +
	"hours from mid-transit, and 'measured': fitted ephemeris, depth, MES, refined secondary and odd/even ('box': " +
	"the learned vetter's box statistics)."

func (s *Server) fold(_ context.Context, _ *mcp.CallToolRequest, in EphemerisIn) (*mcp.CallToolResult, FoldOut, error) {
	fs, e, err := s.ephemeris(in)
	if err != nil {
		return nil, FoldOut{}, err
	}
	f := quicklook.FoldAt(fs.Analysis, e)
	out := FoldOut{Star: in.Star, FoldedAt: e.Label, PeriodDays: e.PeriodDays, T0Days: e.T0Days, DurationHours: e.DurationDays * 24,
		HalfHours: f.HalfHours, Points: len(f.All.X), Bins: []FoldBin{},
		Measured: quicklook.StatsOf(vet.Measurement{Ephemeris: f.Fitted, Refined: f.Refined, Features: f.Vet})}
	for i := range f.All.BX {
		if stat.Finite(f.All.BY[i]) {
			out.Bins = append(out.Bins, FoldBin{Hours: f.All.BX[i], PPM: f.All.BY[i], ErrPPM: f.All.BE[i]})
		}
	}
	return nil, out, nil
}

// VetOut is vet's answer: the ephemeris and its measurement: the statistics to read first (Measured), then
// engine/vet's features at the fitted T14 and the refined statistics in full.
type VetOut struct {
	Star     string          `json:"star"`
	FoldedAt string          `json:"folded_at"`
	Measured quicklook.Stats `json:"measured"`
	Features vet.Features    `json:"features"`
	Refined  vet.Refined     `json:"refined"`
}

// vetDoc describes the vet tool to the client.
const vetDoc = "Vetting statistics of a signal on a star, measured as 'transitbench vet' measures it (re-detrended " +
	"with its transits masked, at the fitted T14): 'measured' first (fitted ephemeris, depth, MES as the answers " +
	"state it, secondary clear of the transit and odd/even with a systematic floor), then engine/vet's features " +
	"(shape, single-event dominance, duration against the stellar density, modulation; their odd/even and " +
	"secondary are the learned vetter's box statistics, not flags) and the refined statistics in full."

func (s *Server) vet(_ context.Context, _ *mcp.CallToolRequest, in EphemerisIn) (*mcp.CallToolResult, VetOut, error) {
	fs, e, err := s.ephemeris(in)
	if err != nil {
		return nil, VetOut{}, err
	}
	m := quicklook.Measure(fs.Analysis, e)
	out := VetOut{Star: in.Star, FoldedAt: e.Label, Measured: quicklook.StatsOf(m), Features: m.Features, Refined: m.Refined}
	return nil, out, nil
}

// PlotIn is a star, what to fold it at and the figure's width.
type PlotIn struct {
	EphemerisIn
	FigureIn
}

// PlotOut describes the figure the image content block holds.
type PlotOut struct {
	Star       string  `json:"star"`
	FoldedAt   string  `json:"folded_at"`
	PeriodDays float64 `json:"period_days"`
	T0Days     float64 `json:"t0_days"`
	Bytes      int     `json:"png_bytes"`
}

// plotStarDoc describes the plot_star tool to the client.
const plotStarDoc = "The star view as a PNG image (as 'transitbench plot'): raw and detrended light curves, BLS " +
	"periodogram, and the fold at the ephemeris (default: truth, else peak 1)."

func (s *Server) plotStar(_ context.Context, _ *mcp.CallToolRequest, in PlotIn) (*mcp.CallToolResult, PlotOut, error) {
	w, err := in.width()
	if err != nil {
		return nil, PlotOut{}, err
	}
	fs, e, err := s.ephemeris(in.EphemerisIn)
	if err != nil {
		return nil, PlotOut{}, err
	}
	var buf bytes.Buffer
	if err := figure.Write(&buf, fs, e, w, figure.PNG); err != nil {
		return nil, PlotOut{}, err
	}
	out := PlotOut{Star: in.Star, FoldedAt: e.Label, PeriodDays: e.PeriodDays, T0Days: e.T0Days, Bytes: buf.Len()}
	return imageResult(buf.Bytes(), fmt.Sprintf("%s folded at %s: P = %.5f d, T0 = %.4f", in.Star, e.Label, e.PeriodDays, e.T0Days)), out, nil
}

// FigureIn is the width of a figure tool's PNG.
type FigureIn struct {
	WidthIn float64 `json:"width_in,omitempty" jsonschema:"figure width in inches at 150 dpi (default 8, at most 16)"`
}

// width checks the figure width (0: 8 inches).
func (f FigureIn) width() (float64, error) {
	switch w := f.WidthIn; {
	case w == 0:
		return 8, nil
	case !(w > 0) || w > 16:
		return 0, badInput("width_in %g: give 1 to 16 inches", w)
	default:
		return w, nil
	}
}

// imageResult is a tool result holding a PNG and a line of text saying what it shows.
func imageResult(png []byte, caption string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: caption}, &mcp.ImageContent{Data: png, MIMEType: "image/png"}}}
}

// zeroNonFinite sets every NaN or infinite float64 field reachable from v (a pointer) to 0, since
// JSON has no such numbers; the tools' descriptions of such values (no transit with data, no secondary) are 0.
func zeroNonFinite(v any) {
	var walk func(r reflect.Value)
	walk = func(r reflect.Value) {
		switch r.Kind() {
		case reflect.Float64:
			if f := r.Float(); (math.IsNaN(f) || math.IsInf(f, 0)) && r.CanSet() {
				r.SetFloat(0)
			}
		case reflect.Struct:
			for i := 0; i < r.NumField(); i++ {
				walk(r.Field(i))
			}
		case reflect.Slice:
			for i := 0; i < r.Len(); i++ {
				walk(r.Index(i))
			}
		case reflect.Pointer:
			if !r.IsNil() {
				walk(r.Elem())
			}
		}
	}
	walk(reflect.ValueOf(v))
}
