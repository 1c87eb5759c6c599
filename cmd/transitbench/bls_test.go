package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeBoxCSV writes a 90-day light curve at the Kepler cadence with 200 ppm white noise and a 1000 ppm,
// 0.15 d box transit every 4.2 d from t0 = 171.3 BKJD, in the CSV format of a star directory.
func writeBoxCSV(t *testing.T) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString("time,flux,flux_err,quality\n")
	for x := 170.0; x < 260; x += 29.4244 / 1440 {
		f := 1 + 200e-6*rng.NormFloat64()
		if math.Abs(math.Remainder(x-171.3, 4.2)) < 0.075 {
			f -= 1000e-6
		}
		fmt.Fprintf(&b, "%.7f,%.8f,%.8f,0\n", x, f, 200e-6)
	}
	path := filepath.Join(t.TempDir(), "lc.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runBLSCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestBLSCommandJSON(t *testing.T) {
	path := writeBoxCSV(t)
	for _, extra := range [][]string{
		{"--pmin", "1", "--pmax", "20", "--periods", "3000", "--durations", "0.1,0.15,0.2", "--no-detrend"},
		{"--objective", "likelihood"}, // default grid, detrended
	} {
		out, err := runBLSCmd(t, append([]string{"bls", path, "--json", "--peaks", "3"}, extra...)...)
		if err != nil {
			t.Fatalf("%v: %v", extra, err)
		}
		var v blsJSON
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("bls --json is not JSON: %v\n%s", err, out)
		}
		if v.NPoints != 4405 || v.NPeriods == 0 || v.NDurations == 0 || !(v.Seconds > 0) || len(v.Peaks) == 0 {
			t.Fatalf("%v: unexpected summary %+v", extra, v)
		}
		p := v.Peaks[0]
		if math.Abs(p.PeriodDays/4.2-1) > 1e-3 || math.Abs(math.Remainder(p.T0Days-171.3, 4.2)) > 0.075 {
			t.Errorf("%v: strongest peak P = %.5f, t0 = %.4f; planted 4.2 d at 171.3", extra, p.PeriodDays, p.T0Days)
		}
		for i := 1; i < len(v.Peaks); i++ {
			if v.Peaks[i].Power > v.Peaks[i-1].Power {
				t.Errorf("%v: peaks not strongest first: %v", extra, v.Peaks)
			}
		}
	}
	// The same JSON keys as documented.
	out, _ := runBLSCmd(t, "bls", path, "--json", "--pmin", "1", "--pmax", "20", "--periods", "500", "--durations", "0.15")
	for _, key := range []string{`"n_points"`, `"n_periods"`, `"n_durations"`, `"seconds"`, `"peaks"`, `"period_days"`,
		`"t0_days"`, `"duration_days"`, `"depth"`, `"depth_err"`, `"snr"`, `"power"`, `"n_transits"`} {
		if !strings.Contains(out, key) {
			t.Errorf("bls --json lacks %s", key)
		}
	}
}

func TestBLSAndFoldExitCodes(t *testing.T) {
	path := writeBoxCSV(t)
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"bls", path, "--pmin", "1", "--pmax", "20", "--periods", "200", "--durations", "0.1"}, 0},
		{[]string{"bls", path, "--pmin", "3", "--pmax", "2"}, 2},
		{[]string{"bls", path, "--durations", "0.1,x"}, 2},
		{[]string{"bls", path, "--durations", "0.1,-0.2"}, 2},
		{[]string{"bls", path, "--pmin", "0.5", "--durations", "0.6"}, 2},
		{[]string{"bls", path, "--objective", "chi2"}, 2},
		{[]string{"bls", path, "--peaks", "0"}, 2},
		{[]string{"bls"}, 2},
		{[]string{"bls", filepath.Join(t.TempDir(), "missing.csv")}, 2}, // not_found
		{[]string{"fold", path, "--period", "4.2", "--t0", "171.3"}, 0},
		{[]string{"fold", path, "--period", "4.2"}, 2},
		{[]string{"fold", path, "--t0", "171.3"}, 2},
		{[]string{"fold", path, "--period", "-1", "--t0", "171.3"}, 2},
		{[]string{"fold", path, "--period", "4.2", "--t0", "171.3", "--bins", "0"}, 2},
		{[]string{"fold", filepath.Join(t.TempDir(), "missing.csv"), "--period", "4.2", "--t0", "171.3"}, 2}, // not_found
	}
	for _, c := range cases {
		if got := run(c.args); got != c.want {
			t.Errorf("transitbench %s: exit %d, want %d", strings.Join(c.args, " "), got, c.want)
		}
	}
}

func TestFoldCommandJSON(t *testing.T) {
	path := writeBoxCSV(t)
	out, err := runBLSCmd(t, "fold", path, "--period", "4.2", "--t0", "171.3", "--bins", "20", "--window", "1", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var v foldJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("fold --json is not JSON: %v\n%s", err, out)
	}
	if len(v.Bins) != 20 || v.NPoints != 4405 {
		t.Fatalf("want 20 bins of 4405 points, got %d bins, %d points", len(v.Bins), v.NPoints)
	}
	// Bins are 0.05 d wide over [−0.5, 0.5): the two central ones lie inside the 0.15 d box, the outer ones
	// well outside; the detrended depth is the planted 1000 ppm (within 5 standard errors).
	for _, j := range []int{9, 10} {
		b := v.Bins[j]
		if b.Flux == nil || math.Abs(*b.Flux-(1-1000e-6)) > 5**b.Err {
			t.Errorf("in-transit bin %d at %.3f d: flux %v, want 0.999", j, b.PhaseDays, b.Flux)
		}
	}
	for _, j := range []int{0, 1, 18, 19} {
		b := v.Bins[j]
		if b.Flux == nil || math.Abs(*b.Flux-1) > 5**b.Err {
			t.Errorf("out-of-transit bin %d at %.3f d: flux %v, want 1", j, b.PhaseDays, b.Flux)
		}
	}
}
