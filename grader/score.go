package grader

import (
	"math"

	"transitbench/data"
)

// Totals are the scores over a group of scored stars (SPEC A5). With planets the number of scored planets on the
// group's stars, credit the sum of the credits of their claims (1 full, ½ half) and false the number of false
// candidates on the group's stars:
//
//	S = (credit − false) / planets       C = credit / planets
//	F = 100 · false / scored stars       EB share = counted EBs with ≥ 1 counted row / counted EBs
//
// A ratio whose denominator is 0 is reported as 0 (never NaN); Planets, ScoredStars and CountedEBs tell the reader
// when that happened.
type Totals struct {
	S           float64 `json:"S"`
	C           float64 `json:"C"`
	F           float64 `json:"F"`
	EBShare     float64 `json:"eb_share"`
	Credit      float64 `json:"credit"`
	False       int     `json:"false"`
	Planets     int     `json:"planets"`
	ScoredStars int     `json:"scored_stars"`
	CountedEBs  int     `json:"counted_ebs"`
	EBsWithRows int     `json:"ebs_with_rows"`
}

// MESBin is the recovery of planets whose MES lies in one bin: Credit is the credit their claims earned, Planets
// how many there are, C = Credit / Planets (0 when Planets = 0).
type MESBin struct {
	Credit  float64 `json:"credit"`
	Planets int     `json:"planets"`
	C       float64 `json:"C"`
}

// MES bin edges (SPEC A5): [4, 7.1), [7.1, 10), [10, 20), [20, ∞). The first bin also takes MES below 4 (the
// measured MES of a planet drawn at the edge may fall slightly below, SPEC A4 allows 5 %); the last holds the
// strong planets of labelled real stars and confirmed hosts' and any planet measured above 20. 7.1 is the Kepler
// detection threshold.
const (
	MESEdgeLow  = 7.1
	MESEdgeHigh = 10
	MESEdgeTop  = 20
)

// MESBins holds the four MES bins.
type MESBins struct {
	Low  MESBin `json:"4-7.1"`
	Mid  MESBin `json:"7.1-10"`
	High MESBin `json:"10-20"`
	Top  MESBin `json:"20+"`
}

// CategoryCounts are the scored stars of one category, the counted rows on them and how many of those rows were
// false candidates.
type CategoryCounts struct {
	Stars int `json:"stars"`
	Rows  int `json:"rows"`
	False int `json:"false"`
}

// Populations holds the totals over each population's scored stars. EBs and confirmed hosts carry no population,
// so the two groups together cover the injected and untouched stars only.
type Populations struct {
	Random     Totals `json:"random"`
	FalseAlarm Totals `json:"false_alarm"`
}

// Categories holds the counts over the scored stars of each scored category (labelled: real stars imported
// with their known planets).
type Categories struct {
	Injected  CategoryCounts `json:"injected"`
	Untouched CategoryCounts `json:"untouched"`
	EB        CategoryCounts `json:"eb"`
	Labelled  CategoryCounts `json:"labelled"`
}

// Summary is the score of a set of stars (SPEC A5): the totals over all scored stars and their breakdowns by
// population, by the MES of the scored planets and by category. IgnoredStars counts the stars that are not scored
// (confirmed hosts, uncounted EBs) and IgnoredRows the counted rows on them, which count for nothing.
type Summary struct {
	Totals
	ByPopulation Populations `json:"by_population"`
	ByMESBin     MESBins     `json:"by_mes_bin"`
	ByCategory   Categories  `json:"by_category"`
	IgnoredStars int         `json:"ignored_stars"`
	IgnoredRows  int         `json:"ignored_rows"`
}

// Summarize scores the results of MatchStar over a set. Stars with Scored false contribute only to IgnoredStars
// and IgnoredRows. Each planet falls in the MES bin of its own MES. Scored stars of a category other than
// injected, untouched, eb and labelled count in the totals but in no category breakdown.
func Summarize(results []StarResult) Summary {
	var s Summary
	for i := range results {
		r := &results[i]
		if !r.Scored {
			s.IgnoredStars++
			s.IgnoredRows += len(r.Rows)
			continue
		}
		s.Totals.add(r)
		switch r.Population {
		case data.PopulationRandom:
			s.ByPopulation.Random.add(r)
		case data.PopulationFalseAlarm:
			s.ByPopulation.FalseAlarm.add(r)
		}
		bins := s.ByMESBin.Bins()
		for _, p := range r.Planets {
			b := bins[MESBinIndex(p.MES)]
			b.Planets++
			b.Credit += p.Credit
		}
		var c *CategoryCounts
		switch r.Category {
		case data.CategoryInjected:
			c = &s.ByCategory.Injected
		case data.CategoryUntouched:
			c = &s.ByCategory.Untouched
		case data.CategoryEB:
			c = &s.ByCategory.EB
		case data.CategoryLabelled:
			c = &s.ByCategory.Labelled
		}
		if c != nil {
			c.Stars++
			c.Rows += len(r.Rows)
			c.False += r.False
		}
	}
	s.Totals.finish()
	s.ByPopulation.Random.finish()
	s.ByPopulation.FalseAlarm.finish()
	for _, b := range s.ByMESBin.Bins() {
		b.C = ratio(b.Credit, b.Planets)
	}
	return s
}

func (t *Totals) add(r *StarResult) {
	t.ScoredStars++
	t.Planets += len(r.Planets)
	t.Credit += r.Credit
	t.False += r.False
	if r.CountedEB {
		t.CountedEBs++
		if r.EBWithRows {
			t.EBsWithRows++
		}
	}
}

func (t *Totals) finish() {
	t.S = ratio(t.Credit-float64(t.False), t.Planets)
	t.C = ratio(t.Credit, t.Planets)
	t.F = 100 * ratio(float64(t.False), t.ScoredStars)
	t.EBShare = ratio(float64(t.EBsWithRows), t.CountedEBs)
}

// ratio returns num/den, or 0 when den is 0.
func ratio(num float64, den int) float64 {
	if den == 0 {
		return 0
	}
	return num / float64(den)
}

// StandardErrorS is the standard error of S over the scored stars of results, from their contributions: with
// yᵢ = creditᵢ − falseᵢ and xᵢ = planetsᵢ on scored star i of n, S = Σy / Σx is a ratio of sums over stars,
// and its standard error for a draw of n stars from the same populations is the delta method's (the ratio
// estimator's linearisation)
//
//	SE(S) = √( n/(n−1) · Σ (yᵢ − S·xᵢ)² ) / Σx
//
// It says how far S on another set of the same composition may fall from this one: a change of S on the dev
// set smaller than about 2·SE is within the scatter of which stars were drawn. ok is false (and SE 0) with
// fewer than two scored stars or no planet.
func StandardErrorS(results []StarResult) (se float64, ok bool) {
	var n int
	var sy, sx float64
	for i := range results {
		if r := &results[i]; r.Scored {
			n++
			sy += r.Credit - float64(r.False)
			sx += float64(len(r.Planets))
		}
	}
	if n < 2 || sx == 0 {
		return 0, false
	}
	s := sy / sx
	var ss float64
	for i := range results {
		if r := &results[i]; r.Scored {
			d := r.Credit - float64(r.False) - s*float64(len(r.Planets))
			ss += d * d
		}
	}
	return math.Sqrt(float64(n)/float64(n-1)*ss) / sx, true
}
