package grader

import (
	"fmt"
	"math"
	"slices"

	"transitbench/data"
	"transitbench/engine/lc"
	"transitbench/engine/stat"
)

// Matching rules (SPEC A5).
const (
	// PeriodTolerance is the relative period tolerance: P' is "within 1 % of X" when |P' − X| ≤ 0.01·X.
	PeriodTolerance = 0.01
	// MinFraction is the share of midtimes that must hit, f_true or f_pred or both depending on the rule.
	MinFraction = 0.75
	// MaxMidtimes bounds the midtimes of one ephemeris evaluated over the data span. An ephemeris with more
	// (a period under ≈ 0.5 ms over a year) is treated as having no observed midtime, so it cannot match. Rows
	// are only evaluated against a planet when P' is within 1 % of P/3…3P, so the bound never binds on real
	// answers; it keeps absurd inputs from costing time.
	MaxMidtimes = 1 << 20
	// HitEpsilonDays is added to τ in the hit test (SPEC A5: "≤ τ" is tested as ≤ τ + 1e-9 d), so that a row
	// exactly τ off in exact arithmetic hits on every transit instead of on those where float64 rounding of the
	// printed t0', of P·k and of the phase happened to fall inside τ. 1e-9 d (86 µs) is far below any timing a
	// light curve can resolve and far above the rounding (≈ 1e-13 d for midtimes near BKJD 500).
	HitEpsilonDays = 1e-9
)

// Row statuses (RowResult.Status).
const (
	StatusFull      = "full"       // credit 1: |P'/P − 1| ≤ 1 %, f_true ≥ 0.75 and f_pred ≥ 0.75
	StatusHalf2x    = "half_2x"    // credit ½: P' within 1 % of 2P, f_pred ≥ 0.75
	StatusHalf3x    = "half_3x"    // credit ½: P' within 1 % of 3P, f_pred ≥ 0.75
	StatusHalfHalf  = "half_half"  // credit ½: P' within 1 % of P/2, f_true ≥ 0.75
	StatusHalfThird = "half_third" // credit ½: P' within 1 % of P/3, f_true ≥ 0.75
	StatusFalse     = "false"      // a counted row on a scored star that claimed no planet: a false candidate
	StatusIgnored   = "ignored"    // a row on a star that is not scored (confirmed host, uncounted EB)
)

// Planet outcomes (PlanetResult.Status) besides the row statuses above.
const (
	StatusMissed = "missed" // no counted row claimed the planet
)

// RowResult is one counted row of a star and what it matched.
//
// Planet is the index in Answer.ScoredPlanets() of the planet the row claimed, or −1. For a claim, the counts and
// f values are those of the claim; for a false row whose period passed an alias gate of some planet, they are those
// of that attempt (so a viewer can see why it failed) and Note says why; otherwise they are zero.
// f_true = TrueHit/TrueObserved and f_pred = PredHit/PredObserved, 0 when the denominator is 0.
type RowResult struct {
	Row
	Rank         int     `json:"rank"` // 1 = highest score
	Status       string  `json:"status"`
	Credit       float64 `json:"credit"`
	Planet       int     `json:"planet"`
	FTrue        float64 `json:"f_true"`
	FPred        float64 `json:"f_pred"`
	TrueObserved int     `json:"true_observed"`
	TrueHit      int     `json:"true_hit"`
	PredObserved int     `json:"pred_observed"`
	PredHit      int     `json:"pred_hit"`
	Note         string  `json:"note,omitempty"`
}

// PlanetResult is one scored planet of a star and which row, if any, claimed it.
type PlanetResult struct {
	PeriodDays   float64 `json:"period_days"`
	T0Days       float64 `json:"t0_days"`
	DurationDays float64 `json:"duration_days"`
	MES          float64 `json:"mes"`
	Status       string  `json:"status"` // a row status of the claim, or "missed"
	Credit       float64 `json:"credit"`
	ClaimedBy    int     `json:"claimed_by"` // Rank of the claiming row, 0 when missed
}

// StarResult is the outcome of matching one star's rows against its answer.
type StarResult struct {
	StarID     string `json:"star_id"`
	Category   string `json:"category"`
	Population string `json:"population,omitempty"`
	Scored     bool   `json:"scored"`
	// MES is the MES of the star's scored planet (the first, when a star had several), 0 when it has none.
	MES float64 `json:"mes"`
	// RowsGiven counts all rows the solution gave for the star; Rows holds the counted ones (the top
	// MaxCountedRows by score), highest score first.
	RowsGiven int            `json:"rows_given"`
	Rows      []RowResult    `json:"rows"`
	Planets   []PlanetResult `json:"planets"`
	Credit    float64        `json:"credit"`
	False     int            `json:"false"`
	// CountedEB is true for a scored eclipsing binary; EBWithRows when such a star got at least one counted row.
	CountedEB  bool `json:"counted_eb"`
	EBWithRows bool `json:"eb_with_rows"`
}

// Outcome is a one-word summary of a star for browsing: "ignored" (not scored), "hit" (a row got full credit),
// "half" (a row got half credit), "false" (a false candidate and no credit), "missed" (a planet went unclaimed and
// no row was false), "quiet" (nothing to find and no rows). Earlier words win.
func (r *StarResult) Outcome() string {
	switch {
	case !r.Scored:
		return "ignored"
	case slices.ContainsFunc(r.Rows, func(x RowResult) bool { return x.Status == StatusFull }):
		return "hit"
	case r.Credit > 0:
		return "half"
	case r.False > 0:
		return "false"
	case len(r.Planets) > 0:
		return "missed"
	}
	return "quiet"
}

// MatchStar matches a star's rows against its answer (SPEC A5). validTimes are the times (BKJD days) of the
// star's valid cadences (finite flux, Quality & lc.DefaultQualityMask == 0), ascending (an unsorted slice is
// sorted in a copy; the times must be finite); rows are all the rows the solution gave, in output order.
//
// Only the top MaxCountedRows rows by score count (TopRows). On a star that is not scored (a confirmed-planet
// host, an uncounted EB) every counted row is "ignored": neither credit nor false. On a scored star the counted
// rows are taken highest score first; each claims, among the still-unclaimed planets of ans.ScoredPlanets(),
// the one giving the highest credit (full before half; a tie goes to the larger f_true + f_pred, then to the
// earlier planet), and a row that claims nothing is a false candidate. So on an untouched star or a counted EB
// every counted row is false, and a higher-scored half-credit row takes a planet before a lower-scored row that
// would have had full credit.
//
// Windows and hits, for a planet (P, t0, D = T14) and a row (P', t0'):
//   - the true midtimes are t0 + nP, the predicted ones t0' + mP', each over the data span widened by D/2 on
//     each side, [first valid time − D/2, last valid time + D/2], wherever t0' lies (t0' is reduced modulo P' into the span first; only a far-away t0' limits the
//     precision, through its own float64 rounding);
//   - a midtime tc is observed when a valid time lies in [tc − D/2, tc + D/2] (the true D for both);
//   - a midtime hits when the nearest midtime of the other ephemeris (any n or m, observed or not: the partner
//     of a hit need not be observed) is within τ = max(D/2, lc.CadenceDays), tested as ≤ τ + HitEpsilonDays so
//     that rounding never decides;
//   - f_true = observed true midtimes hit / observed true midtimes; f_pred = observed predicted midtimes that hit /
//     observed predicted midtimes; a share of no midtimes is 0, so a row that predicts no transit inside the data
//     cannot pass a rule that checks f_pred, and a planet with no observed transit cannot pass one that checks
//     f_true;
//   - P' is within 1 % of X when |P' − X| ≤ 0.01·X; full credit needs X = P and f_true, f_pred ≥ 0.75; half credit
//     X = 2P or 3P with f_pred ≥ 0.75, or X = P/2 or P/3 with f_true ≥ 0.75. The five ranges do not overlap, so a
//     row is tested against at most one alias of a planet, and only then are its midtimes counted.
//
// A planet whose period or duration is not a positive finite number, or a row whose fields are not finite or whose
// period is not positive (ParseRows never returns one), matches nothing. With no valid times nothing is
// observed, so nothing matches. Cost: at most O(M log N) per evaluated row for M midtimes in the span and N valid
// times.
func MatchStar(ans data.Answer, validTimes []float64, rows []Row) StarResult {
	res := StarResult{
		StarID:     ans.ID,
		Category:   ans.Category,
		Population: ans.Population,
		Scored:     ans.Scored,
		RowsGiven:  len(rows),
		CountedEB:  ans.Scored && ans.Category == data.CategoryEB,
		Planets:    []PlanetResult{}, // [] rather than null in JSON
	}
	top := TopRows(rows, MaxCountedRows)
	res.Rows = make([]RowResult, len(top))
	for i, r := range top {
		res.Rows[i] = RowResult{Row: r, Rank: i + 1, Planet: -1, Status: StatusIgnored}
	}
	if !ans.Scored {
		return res
	}
	res.EBWithRows = res.CountedEB && len(top) > 0

	planets := ans.ScoredPlanets()
	res.Planets = make([]PlanetResult, len(planets))
	for j, p := range planets {
		res.Planets[j] = PlanetResult{PeriodDays: p.PeriodDays, T0Days: p.T0Days, DurationDays: p.DurationDays,
			MES: p.MES, Status: StatusMissed}
	}
	if len(planets) > 0 {
		res.MES = planets[0].MES
	}

	// The times are checked for order only when a row needs them.
	var times []float64
	timesFor := func() []float64 {
		if times == nil {
			times = ascending(validTimes)
		}
		return times
	}

	for i := range res.Rows {
		rr := &res.Rows[i]
		rr.Status = StatusFalse
		best, bestJ := match{}, -1
		var attempt match // the best gated attempt, claimed planets included, for the report
		attemptJ := -1
		for j, p := range planets {
			m := evaluate(p, rr.Row, timesFor)
			if m.status == "" {
				continue
			}
			if attemptJ < 0 || m.better(attempt) {
				attempt, attemptJ = m, j
			}
			if res.Planets[j].ClaimedBy != 0 || m.credit == 0 {
				continue
			}
			if bestJ < 0 || m.better(best) {
				best, bestJ = m, j
			}
		}
		if bestJ >= 0 {
			best.fill(rr)
			rr.Status, rr.Credit, rr.Planet = best.status, best.credit, bestJ
			res.Planets[bestJ].Status, res.Planets[bestJ].Credit = best.status, best.credit
			res.Planets[bestJ].ClaimedBy = rr.Rank
			res.Credit += best.credit
			continue
		}
		res.False++
		switch {
		case len(planets) == 0:
			rr.Note = "no scored planet on this star"
		case attemptJ < 0:
			rr.Note = "period is not within 1 % of P, 2P, 3P, P/2 or P/3 of a planet"
		default:
			attempt.fill(rr)
			if c := res.Planets[attemptJ].ClaimedBy; c != 0 && attempt.credit > 0 {
				rr.Note = fmt.Sprintf("would earn %s on planet %d but row %d claimed it first", attempt.status, attemptJ, c)
			} else {
				rr.Note = attempt.failure()
			}
		}
	}
	return res
}

// alias is one of the period relations a row may have with a planet.
type alias struct {
	status     string
	factor     float64 // P' ≈ factor·P
	credit     float64
	checkTrue  bool // the rule needs f_true ≥ MinFraction
	checkPred  bool // the rule needs f_pred ≥ MinFraction
	periodText string
}

var aliases = [...]alias{
	{StatusFull, 1, 1, true, true, "P"},
	{StatusHalf2x, 2, 0.5, false, true, "2P"},
	{StatusHalf3x, 3, 0.5, false, true, "3P"},
	{StatusHalfHalf, 0.5, 0.5, true, false, "P/2"},
	{StatusHalfThird, 1.0 / 3, 0.5, true, false, "P/3"},
}

// match is a row evaluated against one planet. status is "" when the period fits no alias; credit is 0 when it
// fits one but the rule's f condition fails.
type match struct {
	status           string
	al               alias
	credit           float64
	trueObs, trueHit int
	predObs, predHit int
	fTrue, fPred     float64
}

func (m match) better(o match) bool {
	if m.credit != o.credit {
		return m.credit > o.credit
	}
	return m.fTrue+m.fPred > o.fTrue+o.fPred
}

func (m match) fill(rr *RowResult) {
	rr.FTrue, rr.FPred = m.fTrue, m.fPred
	rr.TrueObserved, rr.TrueHit, rr.PredObserved, rr.PredHit = m.trueObs, m.trueHit, m.predObs, m.predHit
}

// failure says why a gated match earned no credit.
func (m match) failure() string {
	if m.al.checkTrue && m.fTrue < MinFraction {
		return fmt.Sprintf("period within 1 %% of %s but f_true %d/%d < 0.75", m.al.periodText, m.trueHit, m.trueObs)
	}
	return fmt.Sprintf("period within 1 %% of %s but f_pred %d/%d < 0.75", m.al.periodText, m.predHit, m.predObs)
}

// evaluate tests row r against planet p over the valid times, which timesFor returns in ascending order.
func evaluate(p data.Planet, r Row, timesFor func() []float64) match {
	if !positiveFinite(p.PeriodDays) || !positiveFinite(p.DurationDays) || !stat.Finite(p.T0Days) ||
		!positiveFinite(r.PeriodDays) || !stat.Finite(r.T0Days) {
		return match{}
	}
	var m match
	for _, a := range aliases {
		x := a.factor * p.PeriodDays
		if math.Abs(r.PeriodDays-x) <= PeriodTolerance*x {
			m.al, m.status = a, a.status
			break
		}
	}
	if m.status == "" {
		return m
	}
	times := timesFor()
	if len(times) == 0 {
		return m // nothing observed: every share is 0
	}
	half := p.DurationDays / 2
	tau := max(half, lc.CadenceDays) + HitEpsilonDays
	lo, hi := times[0], times[len(times)-1]
	truth := newComb(p.T0Days, p.PeriodDays, lo)
	pred := newComb(r.T0Days, r.PeriodDays, lo)
	m.trueObs, m.trueHit = truth.count(times, lo, hi, half, pred, tau)
	m.predObs, m.predHit = pred.count(times, lo, hi, half, truth, tau)
	m.fTrue, m.fPred = share(m.trueHit, m.trueObs), share(m.predHit, m.predObs)
	if (!m.al.checkTrue || m.fTrue >= MinFraction) && (!m.al.checkPred || m.fPred >= MinFraction) {
		m.credit = m.al.credit
	}
	return m
}

// comb is the ephemeris ref + k·period (days), with ref reduced into [lo, lo + period).
type comb struct{ ref, period float64 }

func newComb(t0, period, lo float64) comb {
	off := math.Mod(t0-lo, period)
	if off < 0 {
		off += period
	}
	return comb{ref: lo + off, period: period}
}

// dist returns the distance (days) from t to the nearest midtime of c: |φ − round(φ)|·P with φ = (t − ref)/P.
// For t within the data span φ is at most a few thousand, so the rounding error is below 1e-12 d.
func (c comb) dist(t float64) float64 {
	phi := (t - c.ref) / c.period
	return math.Abs(phi-math.Round(phi)) * c.period
}

// count returns how many of c's midtimes within [lo − half, hi + half] are observed (a valid time within ±half)
// and how many of those lie within tau of a midtime of other (observed or not); tau includes HitEpsilonDays.
func (c comb) count(times []float64, lo, hi, half float64, other comb, tau float64) (observed, hit int) {
	k0 := math.Ceil((lo - half - c.ref) / c.period)
	k1 := math.Floor((hi + half - c.ref) / c.period)
	if !(k1-k0 < MaxMidtimes) {
		return 0, 0
	}
	start := 0 // midtimes ascend, so each search starts where the previous one ended
	for k := k0; k <= k1; k++ {
		tc := c.ref + k*c.period
		i := lowerBound(times, start, tc-half)
		start = i
		if i == len(times) || times[i] > tc+half {
			continue
		}
		observed++
		if other.dist(tc) <= tau {
			hit++
		}
	}
	return observed, hit
}

// ascending returns ts when it is in ascending order, else a sorted copy; never nil.
func ascending(ts []float64) []float64 {
	for i := 1; i < len(ts); i++ {
		if ts[i] < ts[i-1] {
			s := slices.Clone(ts)
			slices.Sort(s)
			return s
		}
	}
	if ts == nil {
		return []float64{}
	}
	return ts
}

// lowerBound returns the first index i ≥ from with times[i] ≥ x, or len(times). It gallops from `from` (steps 1,
// 2, 4, …) before bisecting, so successive midtimes a few hundred cadences apart cost O(log gap), not O(log N).
func lowerBound(times []float64, from int, x float64) int {
	n := len(times)
	if from >= n || times[from] >= x {
		return from
	}
	lo, step := from, 1 // invariant: times[lo] < x
	hi := lo + step
	for hi < n && times[hi] < x {
		lo, step = hi, step*2
		hi = lo + step
	}
	lo, hi = lo+1, min(hi, n)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if times[mid] < x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

func share(num, den int) float64 {
	if den == 0 {
		return 0
	}
	return float64(num) / float64(den)
}

func positiveFinite(x float64) bool { return stat.Finite(x) && x > 0 }
