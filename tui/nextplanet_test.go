package tui

import (
	"math"
	"strings"
	"testing"
)

// TestStarViewNextPlanet presses n in the star view of the synthetic planet host: the search masks the
// strongest signal (the 5.3-d planet, its T14 fitted) and searches again; the periodogram panel says what came
// next, or that nothing passed the stop rule (measured MES), and a second n does not search again.
func TestStarViewNextPlanet(t *testing.T) {
	fb := newFakeBackend()
	d := driverOn(t, fb, "enter", stateStar)
	d.key("n")
	sv := d.m.star
	if sv.data.Next == nil || len(sv.data.Next) == 0 || sv.searching != "" {
		t.Fatalf("n: next %v, searching %q", sv.data.Next, sv.searching)
	}
	first := sv.data.Next[0]
	if math.Abs(first.Peak.PeriodDays/fakePeriod-1) > 0.01 || math.Abs(first.Fit.T14Days/fakeDuration-1) > 0.2 {
		t.Errorf("masked first: P %.4f d, T14 %.3f d; want %.1f d, %.2f d", first.Peak.PeriodDays, first.Fit.T14Days, fakePeriod, fakeDuration)
	}
	v := d.m.View()
	if i := nextPlanet(sv.data); i >= 0 {
		if sv.target.Kind != targetNext || !strings.Contains(v, "next after masking") {
			t.Errorf("a next planet at %.3f d, but target %+v", sv.data.Next[i].Peak.PeriodDays, sv.target)
		}
	} else if !strings.Contains(v, "nothing at MES") {
		t.Errorf("nothing found after masking, and the view does not say so")
	}
	n := len(sv.data.Next)
	d.key("n")
	if len(d.m.star.data.Next) != n || d.m.star.searching != "" {
		t.Errorf("second n searched again")
	}
}
