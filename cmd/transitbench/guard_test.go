package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/internal/testutil"
)

// TestBLSGuards runs 'bls' on the inputs of the findings: 17,000 cadences with times in seconds (ran out of
// memory), times near 1e300 (panicked), a standardised flux (searched silently), and an explicit grid far
// above the cap. Each fails with a message saying what to do, and exit 2: a file that cannot be used is bad input, like a bad flag.
func TestBLSGuards(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
		code int
	}{
		{"seconds", []string{testutil.WriteLightCurveCSV(t, 17000, 0, 1765.464, func(int) float64 { return 1 })}, "times look like seconds or JD; BKJD days expected", 2},
		{"1e300", []string{testutil.WriteLightCurveCSV(t, 100, 1e300, 1e285, func(int) float64 { return 1 })}, "times look like seconds or JD", 2},
		{"standardised", []string{testutil.WriteLightCurveCSV(t, 3000, 170, 0.0204, func(i int) float64 { return float64(i%7) - 3 })},
			"flux looks standardised or differenced (median 0", 2},
		{"periods", []string{testutil.WriteLightCurveCSV(t, 3000, 170, 0.0204, func(int) float64 { return 1 }), "--periods", "100000000"},
			"the period grid is too large: --periods 100000000 × at least 1 duration", 2},
		// 3,000 cadences 30 d apart: a 90,000 d span (below the 10⁵ d of seconds) whose default grid is 4·10⁷ pairs.
		{"long span", []string{testutil.WriteLightCurveCSV(t, 3000, 170, 30, func(int) float64 { return 1 })},
			"1.31e+07 periods (0.5–29990 d) × up to 16 durations for a 8.997e+04 d span, above the cap of 5000000 (period, duration) pairs; raise --pmin, lower --pmax", 2},
	}
	for _, c := range cases {
		_, err := runBLSCmd(t, append([]string{"bls"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
		if code := run(append([]string{"bls"}, c.args...)); code != c.code {
			t.Errorf("%s: exit %d, want %d", c.name, code, c.code)
		}
	}
}

// TestBLSNormalisesRawFlux searches a flux in e⁻/s (median 15,000): it is divided by its median with a warning,
// and the box depth comes out as a fraction, as for a relative flux.
func TestBLSNormalisesRawFlux(t *testing.T) {
	p := testutil.WriteLightCurveCSV(t, 4400, 170, 29.4244/1440, func(i int) float64 {
		x := 170 + float64(i)*29.4244/1440
		if r := x - 171.3 - 4.2*float64(int((x-171.3)/4.2+0.5)); r > -0.075 && r < 0.075 {
			return 15000 * (1 - 1000e-6)
		}
		return 15000
	})
	root := newRootCmd()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs([]string{"bls", p, "--json", "--no-detrend", "--pmin", "1", "--pmax", "20", "--periods", "4000", "--durations", "0.1,0.15,0.2"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errb.String(), "the flux median is 15000, not ≈ 1; dividing flux and flux_err by it") {
		t.Errorf("no warning on stderr: %q", errb.String())
	}
	var v blsJSON
	if err := json.Unmarshal(out.Bytes(), &v); err != nil || len(v.Peaks) == 0 {
		t.Fatalf("%v: %s", err, out.String())
	}
	if d := v.Peaks[0].Depth; d < 900e-6 || d > 1100e-6 {
		t.Errorf("depth %g, want the 1000 ppm box", d)
	}
}

// TestRVListSkipsBadTask puts a task with e = 1 (which panicked every rv command) beside a good one: 'rv list'
// lists the good one, warns on stderr and names the bad file in the JSON warnings.
func TestRVListSkipsBadTask(t *testing.T) {
	dir := copyTask(t, "seed0_diff6")
	b, _ := os.ReadFile(filepath.Join(dir, "seed0_diff6.json"))
	var m map[string]any
	json.Unmarshal(b, &m)
	m["task_id"] = "bad_e"
	m["config"].(map[string]any)["planets"].([]any)[0].(map[string]any)["e"] = 1.0
	b, _ = json.Marshal(m)
	os.WriteFile(filepath.Join(dir, "bad_e.json"), b, 0o644)

	root := newRootCmd()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs([]string{"rv", "list", "--json", "--tasks", dir})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Tasks    []struct{ Task string } `json:"tasks"`
		Warnings []struct{ Path, Error string }
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Tasks) != 1 || v.Tasks[0].Task != "seed0_diff6" || len(v.Warnings) != 1 ||
		!strings.HasSuffix(v.Warnings[0].Path, "bad_e.json") || !strings.Contains(v.Warnings[0].Error, "config.planets[0].e = 1 must lie in [0, 1)") {
		t.Errorf("rv list: %s", out.String())
	}
	if !strings.Contains(errb.String(), "the file is left out, the other tasks load") || !strings.Contains(errb.String(), "bad_e.json") {
		t.Errorf("stderr: %q", errb.String())
	}
}
