package tui

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The star view's controls as plain functions: the light curve's time range (zoom and pan), the detrending
// window's steps and the ephemeris typed in.

// zoomOp is a change of the light curve's time range.
type zoomOp int

const (
	zoomIn zoomOp = iota
	zoomOut
	panLeft
	panRight
)

// minZoomDays is the shortest time range the light curve zooms to: a few hours of cadences still make a line.
const minZoomDays = 0.25

// zoomTime returns the time range [lo, hi] (BKJD days) after op, on a light curve spanning full; cur is the
// range shown, the zero range meaning all of it. Zooming in halves the range about its centre (down to
// minZoomDays), zooming out doubles it (up to full, which is then the zero range again); panning moves it by
// half its length, inside full. ok is false when op changes nothing, and why says why.
func zoomTime(full, cur [2]float64, op zoomOp) (out [2]float64, ok bool, why string) {
	if !(full[1] > full[0]) {
		return cur, false, "the light curve has no time range"
	}
	whole := cur == [2]float64{}
	if whole {
		cur = full
	}
	span, mid := cur[1]-cur[0], (cur[0]+cur[1])/2
	eps := 1e-9 * (full[1] - full[0]) // rounding of the sums below
	switch op {
	case zoomIn:
		if span <= minZoomDays*1.0001 {
			return out0(cur, whole), false, fmt.Sprintf("zoomed in as far as it goes (%g d)", minZoomDays)
		}
		span = math.Max(span/2, minZoomDays)
	case zoomOut:
		if whole {
			return [2]float64{}, false, "the whole light curve is shown"
		}
		span *= 2
	case panLeft:
		if whole || cur[0] <= full[0]+eps {
			return out0(cur, whole), false, "at the start of the light curve"
		}
		mid -= span / 2
	case panRight:
		if whole || cur[1] >= full[1]-eps {
			return out0(cur, whole), false, "at the end of the light curve"
		}
		mid += span / 2
	}
	if span >= full[1]-full[0]-eps {
		return [2]float64{}, true, ""
	}
	lo := math.Min(math.Max(mid-span/2, full[0]), full[1]-span)
	if lo < full[0]+eps {
		lo = full[0]
	}
	hi := lo + span
	if hi > full[1]-eps {
		lo, hi = full[1]-span, full[1]
	}
	return [2]float64{lo, hi}, true, ""
}

// out0 is cur, or the zero range when cur is the whole light curve.
func out0(cur [2]float64, whole bool) [2]float64 {
	if whole {
		return [2]float64{}
	}
	return cur
}

// timeSlice returns the index range [i, j) of the cadences of t (ascending; non-finite times anywhere) inside
// [lo, hi]; the zero range is all of t.
func timeSlice(t []float64, r [2]float64) (i, j int) {
	if r == [2]float64{} {
		return 0, len(t)
	}
	i, j = len(t), 0
	for k, x := range t {
		if x >= r[0] && x <= r[1] {
			i, j = min(i, k), k+1
		}
	}
	if j == 0 {
		return 0, 0
	}
	return i, j
}

// windowSteps are the detrending windows (days) the star view steps through, as lightkurve's flatten is
// usually tried; the star's own window (quicklook: three times its longest transit) lies among them or beside.
var windowSteps = []float64{0.5, 1, 1.5, 2, 3}

// stepWindow returns the window of windowSteps after cur (dir > 0: the next longer, else the next shorter);
// ok is false at the end of the steps, and why says why.
func stepWindow(cur float64, dir int) (w float64, ok bool, why string) {
	const eps = 1e-9
	if dir > 0 {
		for _, s := range windowSteps {
			if s > cur+eps {
				return s, true, ""
			}
		}
		return cur, false, fmt.Sprintf("the longest detrending window is %g d", windowSteps[len(windowSteps)-1])
	}
	for i := len(windowSteps) - 1; i >= 0; i-- {
		if windowSteps[i] < cur-eps {
			return windowSteps[i], true, ""
		}
	}
	return cur, false, fmt.Sprintf("the shortest detrending window is %g d", windowSteps[0])
}

// errEphemerisSyntax says what a typed ephemeris looks like.
var errEphemerisSyntax = errors.New("type the period in d and t0 in BKJD, and the duration T14 in h if you like: 5.3 102.1 3")

// parseEphemeris reads a typed ephemeris, "P t0 [T14]" separated by spaces or commas: the period in days, the
// mid-time of a transit in BKJD and optionally the duration in hours (else defaultDurationDays). The period
// must be positive and the duration positive and shorter than the period.
func parseEphemeris(s string) (ephemeris, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
	if len(fields) < 2 || len(fields) > 3 {
		return ephemeris{}, errEphemerisSyntax
	}
	var v [3]float64
	for i, f := range fields {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return ephemeris{}, fmt.Errorf("%q is not a number: %w", f, errEphemerisSyntax)
		}
		v[i] = x
	}
	e := ephemeris{Label: "typed", PeriodDays: v[0], T0Days: v[1], DurationDays: defaultDurationDays}
	if len(fields) == 3 {
		e.DurationDays = v[2] / 24
	}
	switch {
	case !(e.PeriodDays > 0):
		return ephemeris{}, fmt.Errorf("the period must be positive, not %s d", fields[0])
	case !(e.DurationDays > 0) || e.DurationDays >= e.PeriodDays:
		return ephemeris{}, fmt.Errorf("the duration must be positive and shorter than the period, not %g h", e.DurationDays*24)
	}
	return e, nil
}
