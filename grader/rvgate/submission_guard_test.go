package rvgate

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestResolveRefusesAbsurdValues submits K_ms = 1e160 (which made the gate's sums of squares overflow to +Inf
// and the JSON output fail) and other values no planet has: each fails validation naming the planet and field.
func TestResolveRefusesAbsurdValues(t *testing.T) {
	cases := []struct{ in, want string }{
		{`[{"P_days": 10, "K_ms": 1e160, "e": 0.1, "omega_rad": 1, "M0_rad": 0}]`, "planet 1: K_ms = 1e+160 must lie in (0, 1e+06] m/s"},
		{`[{"P_days": 10, "K_ms": 5, "e": 0.1, "omega_rad": 1, "M0_rad": 0}, {"P_days": 1e300, "K_ms": 5, "e": 0, "omega_rad": 0, "M0_rad": 0}]`, "planet 2: P_days = 1e+300 must lie in (0, 1e+06] days"},
		{`[{"P_days": 10, "m_sin_i_mjup": 1e200, "e": 0.1, "omega_rad": 1, "M0_rad": 0}]`, "m_sin_i_mjup = 1e+200 gives K"},
		{`[{"P_days": 10, "K_ms": 5, "e": 0.1, "omega_rad": 1e300, "M0_rad": 0}]`, "omega_rad = 1e+300 must be an angle"},
		{`[{"P_days": 10, "K_ms": 5, "e": 0.1, "omega_rad": 1, "l_rad": -1e30}]`, "l_rad = -1e+30 must be an angle"},
		{`[{"P_days": 10, "K_ms": 5, "e": 0.1, "omega_rad": 1, "t_peri_days": 1e300}]`, "t_peri_days = 1e+300 must lie within 1e+07 d of t_ref = 0"},
		{`{"planets": [], "jitter_ms": 1e160}`, "jitter_ms = 1e+160 must lie in [0, 1e+06] m/s"},
	}
	for _, c := range cases {
		s, err := ParseSubmission([]byte(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		_, err = s.Resolve(1, 0)
		if !errors.Is(err, ErrBadSubmission) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.in, err, c.want)
		}
	}
	// At the bounds the gate's numbers stay finite and encode as JSON.
	task := load(t, "seed0_diff6")
	s, _ := ParseSubmission([]byte(`[{"P_days": 1e6, "K_ms": 1e6, "e": 0.99, "omega_rad": 1e4, "M0_rad": -1e4}]`))
	ps, err := s.Resolve(task.Config.Star.MStarSun, task.Observations.TimesDays[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(Evaluate(task, ps, 1e6)); err != nil {
		t.Errorf("gate result at the bounds does not encode: %v", err)
	}
}
