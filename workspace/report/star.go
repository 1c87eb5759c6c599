package report

import (
	"context"
	"encoding/json"
	"fmt"

	"gonum.org/v1/plot"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/engine/vet"
	"transitbench/grader"
	"transitbench/grader/store"
	"transitbench/workspace"
	"transitbench/workspace/figure"
	"transitbench/workspace/quicklook"
)

// StarPage is a dev star's page: what it is, its truth, its outcome in every public run, the latest run's rows
// with their match status and stderr, and the terminal UI's views as figures.
type StarPage struct {
	ID, Category, Population string
	Truth                    []Ephem
	// FalseAlarm is the false signal planted on a dev star of the false-alarm population, from the set's
	// answers as star_info of the agent server shows it (nil on other stars; hidden stars have no page).
	FalseAlarm *data.FalseAlarm
	Runs       []StarRun
	Latest     *StarRun
	Rows       []grader.RowResult
	Planets    []grader.PlanetResult
	Dropped    []grader.DroppedLine
	Figures    []Figure
	Vetting    []Vetting
	Err        string
}

// Ephem is an ephemeris as the page prints it.
type Ephem struct {
	Label                            string
	PeriodDays, T0Days, DurationDays float64
}

// StarRun is the star's outcome in one run.
type StarRun struct {
	Run      RunLine
	Outcome  store.Outcome
	RuntimeS float64
	Rows     int
}

// Vetting is the vetting of one fold (quicklook's measurement at an ephemeris): the fitted T14, depth and MES at
// it, the refined secondary MES and odd/even, and the box statistics (the learned vetter's inputs) last.
type Vetting struct {
	Label                                                   string
	T14Hours, DepthPPM, DepthSNR, MES, SecMES, OddEvenSigma float64
	BoxSecMES, BoxOddEvenSigma                              float64
	NTransits                                               int
}

// starPage builds the page of dev star id: its outcomes in the public runs of the dev set (newest first) and
// its figures, folded at each counted row of the latest run, the truth and the strongest BLS peak.
func (s *Site) starPage(ctx context.Context, id string) (*StarPage, error) {
	if workspace.IsHiddenStar(id) {
		return nil, fmt.Errorf("star %s: %w", id, workspace.ErrHiddenStar)
	}
	set, err := s.devSet()
	if err != nil { // the runs still say how the star fared
		p := &StarPage{ID: id, Err: fmt.Sprintf("the dev set cannot be read (%v)", err)}
		if err := s.starRuns(ctx, p); err != nil || len(p.Runs) == 0 {
			return nil, fmt.Errorf("star %s: %w", id, store.ErrNotFound)
		}
		return p, nil
	}
	ans, ok := set.Answers[id]
	if !ok {
		return nil, fmt.Errorf("star %s: %w", id, store.ErrNotFound)
	}
	p := &StarPage{ID: id, Category: ans.Category, Population: ans.Population, FalseAlarm: ans.FalseAlarm}
	if e, ok := quicklook.Truth(&ans); ok {
		p.Truth = append(p.Truth, Ephem{quicklook.TruthSignal(&ans), e.PeriodDays, e.T0Days, e.DurationDays})
	}
	if err := s.starRuns(ctx, p); err != nil {
		return nil, err
	}
	var res *grader.StarResult
	if p.Latest != nil {
		if sr, err := workspace.StarResultOf(p.Latest.Outcome); err == nil {
			res = &sr
			p.Rows, p.Planets = sr.Rows, sr.Planets
		}
		var parsed struct {
			Dropped []grader.DroppedLine `json:"dropped"`
		}
		if json.Unmarshal(p.Latest.Outcome.Rows, &parsed) == nil {
			p.Dropped = parsed.Dropped
		}
	}
	s.starFigures(p, set, &ans, res)
	return p, nil
}

// starRuns adds the star's outcome in every public run of the dev set, newest first, and picks the run whose rows
// the page shows: the latest dev run or grading, else the latest baseline.
func (s *Site) starRuns(ctx context.Context, p *StarPage) error {
	runs, err := s.runs(ctx)
	if err != nil {
		return err
	}
	for _, r := range runs {
		if !starPaged(r, p.ID) {
			continue
		}
		o, err := s.st.Outcome(ctx, r.ID, p.ID)
		if err != nil {
			continue // the run did not reach the star
		}
		sr := StarRun{Run: runLine(r), Outcome: o, RuntimeS: float64(o.RuntimeMS) / 1000}
		if res, err := workspace.StarResultOf(o); err == nil {
			sr.Rows = res.RowsGiven
		}
		p.Runs = append(p.Runs, sr)
	}
	for i := range p.Runs { // the latest run of a contestant's solution, else the latest of any
		if k := p.Runs[i].Run.Kind; k == store.KindDev || k == store.KindGrade {
			p.Latest = &p.Runs[i]
			break
		}
	}
	if p.Latest == nil && len(p.Runs) > 0 {
		p.Latest = &p.Runs[0]
	}
	return nil
}

// MaxRowFolds is how many of the latest run's counted rows get a fold.
const MaxRowFolds = 3

// foldEphemerides are what the page folds at, in order: the latest run's first MaxRowFolds counted rows, the
// truth and the strongest BLS peak. One signal is folded once: an ephemeris that is the same signal as one
// before it (quicklook.Same: periods within 1 %, a transit within a duration) is named in that one's label
// ("row 1 = truth = peak 1"), since its fold, odd/even, secondary and vetting would repeat the first's.
func foldEphemerides(st *figure.Star, res *grader.StarResult) []quicklook.Ephemeris {
	var ephs []quicklook.Ephemeris
	add := func(e quicklook.Ephemeris, ok bool) {
		if !ok {
			return
		}
		for i := range ephs {
			if quicklook.Same(vetEphemeris(ephs[i]), vetEphemeris(e)) {
				ephs[i].Label += " = " + e.Label
				return
			}
		}
		ephs = append(ephs, e)
	}
	for i := range MaxRowFolds {
		add(quicklook.Row(res, i, st.Answer, st.Peaks))
	}
	add(quicklook.Truth(st.Answer))
	add(quicklook.Peak(st.Peaks, 0))
	return ephs
}

func vetEphemeris(e quicklook.Ephemeris) vet.Ephemeris {
	return vet.Ephemeris{PeriodDays: e.PeriodDays, T0Days: e.T0Days, DurationDays: e.DurationDays}
}

// starFigures draws the light curve (raw and detrended), the periodogram, and at each of foldEphemerides the
// fold and the odd/even and secondary folds, reusing what the site's cache holds of the star (cache.go): a star
// drawn before is searched no more, and its light curve is read and detrended only for a fold not drawn yet.
func (s *Site) starFigures(p *StarPage, set *sets.Set, ans *data.Answer, res *grader.StarResult) {
	id := p.ID
	c := s.loadCache(id, s.cacheKeyOf(id))
	defer s.saveCache(id, c)
	st := &figure.Star{ID: id, Category: ans.Category, Population: ans.Population, Answer: ans}
	searched := c.Overview == nil
	if searched {
		a, err := quicklook.Star(set, id, 1)
		if err != nil {
			p.Err = err.Error()
			return
		}
		s.searched.Add(1)
		st.Analysis = a
		c.Peaks, c.Overview, c.changed = a.Peaks, s.overviewFigures(st), true
	} else {
		st.Analysis = &quicklook.Analysis{Peaks: c.Peaks} // the peaks pick and label the folds; a fold not cached reads the curve
	}
	p.Figures = append(p.Figures, c.Overview...)
	for i, e := range foldEphemerides(st, res) {
		k := ephKey(e.Label, e.PeriodDays, e.T0Days, e.DurationDays)
		f, ok := c.fold(k)
		if !ok {
			if !searched && st.Time == nil {
				a, err := quicklook.PrepareStar(set, id)
				if err != nil {
					p.Err = err.Error()
					return
				}
				s.prepared.Add(1)
				a.Peaks = c.Peaks
				st.Analysis = a
			}
			c.addFold(s.drawFold(st.Analysis, e, k))
			f, _ = c.fold(k)
		}
		figs := append([]Figure(nil), f.Figures...)
		fid := fmt.Sprintf("fold-%d", i+1)
		figs[0].ID, figs[1].ID = fid, fid+"-vet"
		p.Figures = append(p.Figures, figs...)
		p.Vetting = append(p.Vetting, f.Vetting)
	}
}

// overviewFigures draws the light curve (raw, and detrended with the transits of figure.DefaultEphemeris
// marked) and the periodogram. Light curves are thinned to s.opt.Columns columns of time (about two points wide
// each), the periodogram to half as many columns of log period (a line needs a column's lowest and highest
// power, not the points between).
func (s *Site) overviewFigures(st *figure.Star) []Figure {
	cols := s.opt.Columns
	thin := figure.Thin(st, cols)
	def := figure.DefaultEphemeris(st)
	return []Figure{
		gridFigure("lightcurve", "Light curve: raw flux (flagged cadences in orange) and detrended flux with the transits of the "+def.Label+" marked",
			[][]*plot.Plot{{figure.RawPlot(thin)}, {figure.DetrendedPlot(thin, def)}}, 9, 5.5),
		svgFigure("periodogram", "BLS periodogram of the detrended light curve", figure.PeriodogramPlot(figure.Thin(st, max(cols/2, 1))), 9, 3.2),
	}
}

// drawFold measures and folds a at e (quicklook.FoldAt) and draws the fold, thinned to 3/8 of s.opt.Columns
// across its window, and the odd/even and secondary panels, each half the figure's width, to a quarter; the
// figures' IDs are set where the page places them.
func (s *Site) drawFold(a *quicklook.Analysis, e quicklook.Ephemeris, key string) cachedFold {
	cols := s.opt.Columns
	foldCols, halfCols := max(3*cols/8, 1), max(cols/4, 1) // the odd/even and secondary panels are half as wide
	f := quicklook.FoldAt(a, e)
	v, r := f.Vet, f.Refined
	return cachedFold{Eph: key,
		Figures: []Figure{
			svgFigure("", "Folded at "+e.Label, figure.FoldCurvePlot(e, f.All, foldCols), 9, 3.2),
			gridFigure("", "Odd and even transits, and the secondary eclipse, at "+e.Label,
				[][]*plot.Plot{{figure.OddEvenPlot(f, halfCols), figure.SecondaryPlot(f, halfCols)}}, 9, 3.2),
		},
		Vetting: Vetting{Label: e.Label, T14Hours: 24 * f.Fitted.DurationDays, DepthPPM: v.Depth * 1e6,
			DepthSNR: v.DepthSNR, MES: v.MES, SecMES: r.SecondaryMES, OddEvenSigma: r.OddEvenSigma,
			BoxSecMES: v.SecondaryMES, BoxOddEvenSigma: v.OddEvenSigma, NTransits: v.NTransits},
	}
}
