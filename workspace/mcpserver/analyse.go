package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/engine/bls"
	"transitbench/engine/detrend"
	"transitbench/engine/lc"
	"transitbench/engine/stat"
	"transitbench/engine/vet"
	"transitbench/workspace/figure"
	"transitbench/workspace/quicklook"
)

// BLSIn is a star and the search's grid (zeros take engine/bls's defaults, as 'transitbench bls' does).
type BLSIn struct {
	StarIn
	PMinDays    float64 `json:"pmin_days,omitempty" jsonschema:"shortest period in days (default 0.5)"`
	PMaxDays    float64 `json:"pmax_days,omitempty" jsonschema:"longest period in days (default: the span over 3 transits)"`
	Oversample  float64 `json:"oversample,omitempty" jsonschema:"Ofir's frequency oversampling (default 3)"`
	DurMinHours float64 `json:"dur_min_hours,omitempty" jsonschema:"shortest duration in hours (default 0.5)"`
	DurMaxHours float64 `json:"dur_max_hours,omitempty" jsonschema:"longest duration in hours (default 12)"`
	Objective   string  `json:"objective,omitempty" jsonschema:"snr (default) or likelihood"`
	Peaks       int     `json:"peaks,omitempty" jsonschema:"how many peaks to return (default 5, at most 20)"`
	Workers     int     `json:"workers,omitempty" jsonschema:"goroutines sharing the periods (default 1, at most the CPUs)"`
}

// PeakOut is one BLS peak.
type PeakOut struct {
	PeriodDays    float64 `json:"period_days"`
	T0Days        float64 `json:"t0_days"`
	DurationHours float64 `json:"duration_hours"`
	DepthPPM      float64 `json:"depth_ppm"`
	DepthErrPPM   float64 `json:"depth_err_ppm"`
	SNR           float64 `json:"snr"`
	Power         float64 `json:"power"`
	NTransits     int     `json:"n_transits"`
}

// BLSOut is bls's answer: the grid searched and the strongest peaks, strongest first.
type BLSOut struct {
	Star       string    `json:"star"`
	NPoints    int       `json:"n_points"`
	NPeriods   int       `json:"n_periods"`
	NDurations int       `json:"n_durations"`
	Objective  string    `json:"objective"`
	Seconds    float64   `json:"seconds"`
	Peaks      []PeakOut `json:"peaks"`
}

// MaxPeaks is the most peaks bls returns.
const MaxPeaks = 20

// blsDoc describes the bls tool to the client.
const blsDoc = "Box least squares search of a star's detrended light curve on Ofir's period grid (options: period " +
	"and duration range, oversampling, objective); returns the strongest peaks."

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
		"dur_min_hours": in.DurMinHours, "dur_max_hours": in.DurMaxHours} {
		if v < 0 || !stat.Finite(v) {
			return nil, BLSOut{}, badInput("%s %g: give a positive number, or leave it out for the default", name, v)
		}
	}
	if in.Peaks < 1 || in.Peaks > MaxPeaks {
		return nil, BLSOut{}, badInput("peaks %d: give 1 to %d", in.Peaks, MaxPeaks)
	}
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
	maxDur := detrend.DefaultMaxDurationDays
	if in.DurMaxHours > 0 {
		maxDur = in.DurMaxHours / 24
	}
	d, err := s.detrended(set, in.Star, maxDur)
	if err != nil {
		return nil, BLSOut{}, err
	}
	opt := bls.GridOptions{PMinDays: in.PMinDays, PMaxDays: in.PMaxDays, Oversample: in.Oversample,
		DurMinDays: in.DurMinHours / 24, DurMaxDays: in.DurMaxHours / 24, RStarRsun: d.star.RadiusRsun, MStarMsun: d.star.MassMsun}
	g, err := bls.DefaultGrid(d.t, opt)
	if err != nil {
		if errors.Is(err, bls.ErrGridTooLarge) || errors.Is(err, bls.ErrBadGrid) {
			return nil, BLSOut{}, badInput("%v: narrow the period range (pmin_days, pmax_days) or lower oversample", err)
		}
		return nil, BLSOut{}, err
	}
	g.Workers = in.Workers
	start := time.Now()
	res, err := bls.Search(d.t, d.flat, d.dy, g, obj)
	if err != nil {
		return nil, BLSOut{}, fmt.Errorf("%s: %w", in.Star, err)
	}
	out := BLSOut{Star: in.Star, NPoints: res.NPoints, NPeriods: len(g.Periods), NDurations: len(g.Durations),
		Objective: obj.String(), Seconds: time.Since(start).Seconds(), Peaks: []PeakOut{}}
	for _, p := range res.Peaks(in.Peaks) {
		out.Peaks = append(out.Peaks, PeakOut{PeriodDays: p.PeriodDays, T0Days: p.T0Days, DurationHours: p.DurationDays * 24,
			DepthPPM: p.Depth * 1e6, DepthErrPPM: p.DepthErr * 1e6, SNR: p.SNR, Power: p.Power, NTransits: p.NTransits})
	}
	return nil, out, nil
}

// detrendedCurve is a star's valid cadences detrended for a search of transits up to maxDur days: the times,
// the flux divided by its trend and the errors divided likewise (nil when the star has none).
type detrendedCurve struct {
	set, id     string
	maxDur      float64
	star        *data.Star
	t, flat, dy []float64
}

// detrended is star id of set cleaned (lc.DefaultQualityMask) and detrended (engine/detrend.Flatten with the
// window for maxDur) as 'transitbench bls' detrends a light curve, from the cache when recent: a star is
// regenerated from its seed on first use, which costs more than the search.
func (s *Server) detrended(set *sets.Set, id string, maxDur float64) (*detrendedCurve, error) {
	if d, ok := findRecent(&s.mu, &s.curves, func(d *detrendedCurve) bool {
		return d.set == set.Name && d.id == id && d.maxDur == maxDur
	}); ok {
		return d, nil
	}
	c, star, err := set.Star(id)
	if err != nil {
		return nil, err
	}
	c = c.Clean(lc.DefaultQualityMask)
	flat, trend := detrend.Flatten(c.Time, c.Flux, detrend.Options{WindowDays: detrend.WindowFor(maxDur)})
	d := &detrendedCurve{set: set.Name, id: id, maxDur: maxDur, star: star, t: c.Time, flat: flat}
	for i, e := range c.FluxErr {
		if !(e > 0) || !stat.Finite(e) {
			d.dy = nil
			break
		}
		if d.dy == nil {
			d.dy = make([]float64, len(c.FluxErr))
		}
		d.dy[i] = e / trend[i]
	}
	addRecent(&s.mu, &s.curves, d)
	return d, nil
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

// FoldOut is fold's answer: the ephemeris, the binned fold (empty bins left out) and the summary numbers.
type FoldOut struct {
	Star          string    `json:"star"`
	FoldedAt      string    `json:"folded_at"`
	PeriodDays    float64   `json:"period_days"`
	T0Days        float64   `json:"t0_days"`
	DurationHours float64   `json:"duration_hours"`
	HalfHours     float64   `json:"half_window_hours"`
	Points        int       `json:"points"`
	Bins          []FoldBin `json:"bins"`
	DepthPPM      float64   `json:"depth_ppm"`
	DepthSNR      float64   `json:"depth_snr"`
	MES           float64   `json:"mes"`
	NTransits     int       `json:"n_transits"`
	OddDepthPPM   float64   `json:"odd_depth_ppm"`
	EvenDepthPPM  float64   `json:"even_depth_ppm"`
	OddEvenSigma  float64   `json:"odd_even_sigma"`
	SecondaryPPM  float64   `json:"secondary_depth_ppm"`
	SecondaryMES  float64   `json:"secondary_mes"`
}

// foldDoc describes the fold tool to the client.
const foldDoc = "Fold a star's detrended light curve at an ephemeris (given, 'truth' or 'peak N'): binned means in " +
	"ppm against hours from mid-transit, odd/even and secondary depths."

func (s *Server) fold(_ context.Context, _ *mcp.CallToolRequest, in EphemerisIn) (*mcp.CallToolResult, FoldOut, error) {
	fs, e, err := s.ephemeris(in)
	if err != nil {
		return nil, FoldOut{}, err
	}
	f := quicklook.FoldAt(fs.Analysis, e)
	v := f.Vet
	out := FoldOut{Star: in.Star, FoldedAt: e.Label, PeriodDays: e.PeriodDays, T0Days: e.T0Days, DurationHours: e.DurationDays * 24,
		HalfHours: f.HalfHours, Points: len(f.All.X), Bins: []FoldBin{}, DepthPPM: v.Depth * 1e6, DepthSNR: v.DepthSNR, MES: v.MES,
		NTransits: v.NTransits, OddDepthPPM: v.OddDepth * 1e6, EvenDepthPPM: v.EvenDepth * 1e6, OddEvenSigma: v.OddEvenSigma,
		SecondaryPPM: v.SecondaryDepth * 1e6, SecondaryMES: v.SecondaryMES}
	for i := range f.All.BX {
		if stat.Finite(f.All.BY[i]) {
			out.Bins = append(out.Bins, FoldBin{Hours: f.All.BX[i], PPM: f.All.BY[i], ErrPPM: f.All.BE[i]})
		}
	}
	return nil, out, nil
}

// VetOut is vet's answer: the ephemeris and engine/vet's features.
type VetOut struct {
	Star     string       `json:"star"`
	FoldedAt string       `json:"folded_at"`
	Features vet.Features `json:"features"`
}

// vetDoc describes the vet tool to the client.
const vetDoc = "Vetting features of a signal on a star (depth, MES, odd/even, secondary eclipse, V shape, " +
	"single-event dominance, duration against the stellar density, modulation)."

func (s *Server) vet(_ context.Context, _ *mcp.CallToolRequest, in EphemerisIn) (*mcp.CallToolResult, VetOut, error) {
	fs, e, err := s.ephemeris(in)
	if err != nil {
		return nil, VetOut{}, err
	}
	out := VetOut{Star: in.Star, FoldedAt: e.Label, Features: quicklook.FoldAt(fs.Analysis, e).Vet}
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
