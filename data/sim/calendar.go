package sim

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"transitbench/engine/lc"
)

// interval is a stretch of time [Start, End) in BKJD days.
type interval struct{ Start, End float64 }

// calendar is a star's observing year: the cadences that hold data, their quality flags, and the instrumental
// events the noise ingredients need to know about (where the quarters are, when data resumed after a gap, when
// the reaction wheels were desaturated, where sudden pixel sensitivity dropouts and outliers happened).
type calendar struct {
	time    []float64
	quality []int32
	quarter []int8 // quarter number 0–3 of each cadence

	quarters    []interval // the four quarters, gaps included
	resumes     []float64  // times at which data resume after a downlink, roll or safe mode, in order
	month       float64    // interval between downlinks, days
	monthly     []float64  // times at which data resume after a monthly downlink (not a roll), in order
	desat       []float64  // times of the reaction-wheel desaturations
	desatPeriod float64    // their interval, days
	spsd        []int      // cadence indices of sudden pixel sensitivity dropouts
	outliers    []int      // cadence indices of impulsive outliers (flagged 2048) and unflagged cosmic-ray hits
	bands       []interval // rolling-band episodes in the aperture (flag 131072), which ripple the flux
}

// Cadences returns the observing calendar of the star spec describes: the time of every cadence that holds a
// row (BKJD days, on the 29.4244-min long-cadence grid) and its Kepler quality flags. It uses only the calendar's
// own random stream, so it is cheap, and it equals the Time and Quality of Generate's light curve. The valid
// cadences are those with quality & lc.DefaultQualityMask == 0.
func Cadences(spec Spec, k *Knobs) (time []float64, quality []int32) {
	c := newCalendar(spec, k)
	return c.time, c.quality
}

// newCalendar draws the calendar from the stream "calendar" (and the rolling-band false alarm's own stream when
// the star carries one, since that false alarm is flagged).
func newCalendar(spec Spec, k *Knobs) *calendar {
	ck := &k.Calendar
	r := stream(spec.Seed, "calendar")
	c := &calendar{}
	start, end, gaps, downlinkGaps := c.drawGaps(r, ck)
	c.cadenceGrid(start, end, gaps)
	c.flagPointing(r, ck, start, end, downlinkGaps)
	c.flagCadences(r, ck)
	c.flagRollingBands(r, ck, start, end)
	if fa := planFalseAlarm(spec, k); fa.kind == KindRollingBand {
		for _, b := range fa.bands {
			c.flagSpan(b, lc.QRollingBand)
		}
	}
	return c
}

// drawGaps draws the year's span [start, end) and its gaps: twelve months of M days; a gap starts at the end of
// each of the first eleven (a downlink, or a roll after every third month); the quarters are three months each.
// It sets the quarters, resumes, month and monthly fields; gaps are sorted by start, downlinkGaps in time order.
func (c *calendar) drawGaps(r *rand.Rand, ck *CalendarKnobs) (start, end float64, gaps, downlinkGaps []interval) {
	month := uniform(r, ck.MonthDays.Lo, ck.MonthDays.Hi)
	start = uniform(r, ck.StartBKJD.Lo, ck.StartBKJD.Hi)
	end = start + 12*month
	for q := range 4 {
		c.quarters = append(c.quarters, interval{start + 3*float64(q)*month, start + 3*float64(q+1)*month})
	}
	for j := 1; j <= 11; j++ {
		g := interval{Start: start + float64(j)*month}
		if j%3 == 0 {
			g.End = g.Start + uniform(r, ck.RollGapDays.Lo, ck.RollGapDays.Hi)
		} else {
			g.End = g.Start + uniform(r, ck.DownlinkGapDays.Lo, ck.DownlinkGapDays.Hi)
		}
		downlinkGaps = append(downlinkGaps, g)
	}
	gaps = append(gaps, downlinkGaps...)
	for range poisson(r, ck.SafeModeRate) {
		s := uniform(r, start+5, end-5)
		gaps = append(gaps, interval{s, s + uniform(r, ck.SafeModeDays.Lo, ck.SafeModeDays.Hi)})
	}
	if r.Float64() < ck.ModuleLossProb {
		q := c.quarters[r.IntN(4)]
		gaps = append(gaps, interval{q.End - uniform(r, ck.ModuleLossDays.Lo, ck.ModuleLossDays.Hi), q.End})
	}
	slices.SortFunc(gaps, func(a, b interval) int { return cmp.Compare(a.Start, b.Start) })
	for _, g := range gaps {
		c.resumes = append(c.resumes, g.End)
	}
	c.month = month
	for j, g := range downlinkGaps {
		if (j+1)%3 != 0 {
			c.monthly = append(c.monthly, g.End)
		}
	}
	return start, end, gaps, downlinkGaps
}

// cadenceGrid sets the cadence grid from start to end, without the cadences inside gaps (sorted by start), and
// clears their quality flags.
func (c *calendar) cadenceGrid(start, end float64, gaps []interval) {
	n := int((end-start)/lc.CadenceDays) + 1
	c.time = make([]float64, 0, n)
	c.quarter = make([]int8, 0, n)
	g, q := 0, 0
	for i := 0; i < n; i++ {
		ti := start + float64(i)*lc.CadenceDays
		for g < len(gaps) && gaps[g].End <= ti {
			g++
		}
		if inAny(gaps[g:], ti) {
			continue
		}
		for q < 3 && ti >= c.quarters[q].End {
			q++
		}
		c.time = append(c.time, ti)
		c.quarter = append(c.quarter, int8(q))
	}
	c.quality = make([]int32, len(c.time))
}

// flagPointing flags the spacecraft's pointing events: Earth point before each downlink and roll, reaction-wheel
// desaturations, attitude tweaks, and coarse-point and no-fine-point episodes.
func (c *calendar) flagPointing(r *rand.Rand, ck *CalendarKnobs, start, end float64, downlinkGaps []interval) {
	for _, dg := range downlinkGaps {
		c.flagSpan(interval{dg.Start - uniform(r, ck.EarthPointDays.Lo, ck.EarthPointDays.Hi), dg.Start}, lc.QEarthPoint)
	}
	// Reaction-wheel desaturations: strictly periodic from a random phase.
	c.desatPeriod = uniform(r, ck.DesatIntervalDays.Lo, ck.DesatIntervalDays.Hi)
	two := ck.DesatTwoCadence
	for td := start + c.desatPeriod*r.Float64(); td < end; td += c.desatPeriod {
		c.desat = append(c.desat, td)
		if i := c.nearest(td); i >= 0 {
			c.quality[i] |= lc.QDesaturation
			if r.Float64() < two && i+1 < len(c.time) {
				c.quality[i+1] |= lc.QDesaturation
			}
		}
	}
	for range poisson(r, ck.AttitudeTweakRate) {
		if i := c.nearest(uniform(r, start, end)); i >= 0 {
			c.quality[i] |= lc.QAttitudeTweak
		}
	}
	c.flagEpisodes(r, ck.CoarsePointRate, start, end, ck.CoarsePointDays, lc.QCoarsePoint)
	c.flagEpisodes(r, ck.NoFinePointRate, start, end, ck.NoFinePointDays, lc.QNoFinePoint)
}

// flagEpisodes flags a Poisson number (rate a year) of episodes with bit, each starting uniformly in
// [start, end) and lasting a length drawn from days.
func (c *calendar) flagEpisodes(r *rand.Rand, rate, start, end float64, days Range, bit int32) {
	for range poisson(r, rate) {
		s := uniform(r, start, end)
		c.flagSpan(interval{s, s + uniform(r, days.Lo, days.Hi)}, bit)
	}
}

// flagCadences draws the per-cadence events: impulsive outliers and unflagged cosmic-ray hits (which touch the
// flux), flags that do not (corrected aperture and collateral cosmic rays, zero crossings, detector anomalies),
// and sudden pixel sensitivity dropouts.
func (c *calendar) flagCadences(r *rand.Rand, ck *CalendarKnobs) {
	for i := range c.time {
		u := r.Float64()
		switch {
		case u < ck.CosmicRate: // detected and corrected on board: flagged, flux untouched
			c.quality[i] |= lc.QApertureCosmic
		case u < ck.CosmicRate+ck.OutlierRate:
			c.quality[i] |= lc.QImpulsiveOutlier
			c.outliers = append(c.outliers, i)
		case u < ck.CosmicRate+ck.OutlierRate+ck.UnflaggedHitRate:
			c.outliers = append(c.outliers, i)
		}
		u = r.Float64()
		switch {
		case u < ck.CollateralRate:
			c.quality[i] |= lc.QCollateralCosmic
		case u < ck.CollateralRate+ck.ZeroCrossingRate:
			c.quality[i] |= lc.QZeroCrossing
		case u < ck.CollateralRate+ck.ZeroCrossingRate+ck.AnomalyRate:
			c.quality[i] |= lc.QDetectorAnomaly
		case u < ck.CollateralRate+ck.ZeroCrossingRate+ck.AnomalyRate+ck.ArgabrighteningRate:
			c.quality[i] |= lc.QArgabrightening | lc.QArgabrighteningCCD
		}
	}
	for range poisson(r, ck.SPSDRate) {
		i := r.IntN(len(c.time))
		c.quality[i] |= lc.QSuddenSensDropout
		c.spsd = append(c.spsd, i)
	}
	slices.Sort(c.spsd)
}

// flagRollingBands draws, for a star on a rolling-band channel, its rolling-band episodes: some touch only the
// pixel mask, the others ripple the flux and are kept in bands.
func (c *calendar) flagRollingBands(r *rand.Rand, ck *CalendarKnobs, start, end float64) {
	if !(r.Float64() < ck.RollingBandProb) {
		return
	}
	for range int(uniform(r, ck.RollingBandEpisodes.Lo, ck.RollingBandEpisodes.Hi+1)) {
		s := uniform(r, start, end)
		b := interval{s, s + uniform(r, ck.RollingBandDays.Lo, ck.RollingBandDays.Hi)}
		if r.Float64() < ck.RollingBandMaskOnly {
			c.flagSpan(b, lc.QRollingBandMask)
			continue
		}
		c.bands = append(c.bands, b)
		c.flagSpan(b, lc.QRollingBand)
	}
}

// flagSpan sets bit on every cadence inside iv.
func (c *calendar) flagSpan(iv interval, bit int32) {
	i, _ := slices.BinarySearch(c.time, iv.Start)
	for ; i < len(c.time) && c.time[i] < iv.End; i++ {
		c.quality[i] |= bit
	}
}

// nearest returns the index of the cadence within half a cadence of t, or −1 when t falls in a gap.
func (c *calendar) nearest(t float64) int {
	i, _ := slices.BinarySearch(c.time, t)
	best := -1
	for _, j := range []int{i - 1, i} {
		if j >= 0 && j < len(c.time) && math.Abs(c.time[j]-t) <= lc.CadenceDays/2 {
			best = j
		}
	}
	return best
}

// valid reports whether cadence i is usable under lc.DefaultQualityMask.
func (c *calendar) valid(i int) bool { return c.quality[i]&lc.DefaultQualityMask == 0 }

// inAny reports whether t lies in one of the sorted intervals (it checks until a start beyond t).
func inAny(ivs []interval, t float64) bool {
	for _, iv := range ivs {
		if iv.Start > t {
			return false
		}
		if t < iv.End {
			return true
		}
	}
	return false
}

// poisson draws a Poisson-distributed count with mean lambda (Knuth's product method; lambda is small here).
func poisson(r *rand.Rand, lambda float64) int {
	if lambda <= 0 {
		return 0
	}
	l, p, n := math.Exp(-lambda), 1.0, 0
	for {
		p *= r.Float64()
		if p <= l {
			return n
		}
		n++
	}
}
