package bls

import (
	"errors"
	"strings"
	"testing"
)

// TestGridRefusesHugeSpans builds the default grid for the time axes of the findings: times near 1e300 (which
// made OfirPeriods ask for a slice of negative capacity) and 17,000 cadences with times in seconds (span
// 3·10⁷, a grid of tens of GB). Both fail with ErrGridTooLarge before allocating.
func TestGridRefusesHugeSpans(t *testing.T) {
	seconds := make([]float64, 17000)
	for i := range seconds {
		seconds[i] = float64(i) * 1765.464 // Kepler's long cadence in seconds
	}
	for name, tt := range map[string][]float64{
		"1e300":    {1e300, 1e300 * (1 + 1e-15), 2e300},
		"seconds":  seconds,
		"0..1e300": {0, 1e300},
	} {
		g, err := DefaultGrid(tt, GridOptions{})
		if !errors.Is(err, ErrGridTooLarge) || !strings.Contains(err.Error(), "periods") || len(g.Periods) != 0 {
			t.Errorf("%s: %d periods, err %v; want ErrGridTooLarge", name, len(g.Periods), err)
		}
	}
	if p := OfirPeriods(0.5, 1e299, 1e300, 3, 1, 1); p != nil {
		t.Errorf("OfirPeriods for a 1e300 d span gave %d periods", len(p))
	}
	if n := OfirCount(0.5, 1e299, 1e300, 3, 1, 1); !(n > MaxGridWork) {
		t.Errorf("OfirCount = %g for a 1e300 d span", n)
	}
	if d := LogDurations(1e-300, 1, 1+1e-15); d != nil {
		t.Errorf("LogDurations with a step of 1+1e-15 gave %d durations", len(d))
	}
	// A year of Kepler cadences is far below the cap: 46,891 periods, 5.5·10⁵ pairs.
	year := keplerYear(372)
	g, err := DefaultGrid(year, GridOptions{})
	if err != nil || GridWork(g) > MaxGridWork/4 || len(g.Periods) == 0 {
		t.Errorf("one year: %d periods, work %d, err %v", len(g.Periods), GridWork(g), err)
	}
}

// TestSearchRefusesTooMuchWork hands Search an explicit grid above MaxGridWork.
func TestSearchRefusesTooMuchWork(t *testing.T) {
	tt := keplerYear(372)
	y, dy := boxLC(tt, 12.3456, 172.96, 0.15, 300e-6, 300e-6, 1)
	g := Grid{Periods: LogPeriodGrid(1, 100, MaxGridWork/2+1), Durations: []float64{0.1, 0.2}}
	_, err := Search(tt, y, dy, g, SNR)
	if !errors.Is(err, ErrGridTooLarge) || !strings.Contains(err.Error(), "5000002 (period, duration) pairs") {
		t.Errorf("got %v", err)
	}
	if w := GridWork(Grid{Periods: []float64{1, 2}, Durations: []float64{0.1, 0.2, 0.3}, DurLo: []int{0, 1}, DurHi: []int{1, 3}}); w != 3 {
		t.Errorf("GridWork of ranges [0,1) and [1,3) = %d, want 3", w)
	}
}
