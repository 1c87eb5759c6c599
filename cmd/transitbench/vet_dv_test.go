package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVetDeepPlanetsFirstLines vets the five hot Jupiters of the Kepler DV light curves (four years each) at
// their KOI ephemerides: the lines vet prints first (the measured statistics, before the "box" section) flag
// neither an odd/even difference (≥ 3σ) nor a secondary eclipse (MES ≥ 7.1), and name no box statistic; the box
// statistics, printed last and labelled, are logged (on these deep transits they reach several σ from the
// systematics alone, which is why they are not what vet shows first).
func TestVetDeepPlanetsFirstLines(t *testing.T) {
	dv := filepath.Join("..", "..", "..", "shared", "data", "kepler", "dv")
	if _, err := os.Stat(dv); err != nil {
		t.Skipf("reference data not available: %v", err)
	}
	for _, k := range []struct {
		kic, name          string
		period, t0, durHrs float64
	}{
		{"006922244", "Kepler-8 b", 3.522498429, 121.1194228, 3.19843},
		{"005881688", "Kepler-696 b", 4.190425659, 171.4412200, 2.85890},
		{"008359498", "Kepler-77 b", 3.578780566, 134.0304187, 2.91089},
		{"007950644", "Kepler-427 b", 10.290994129, 137.0220594, 4.28889},
		{"010418224", "Kepler-40 b", 6.873166400, 172.5188260, 6.85690},
	} {
		path := filepath.Join(dv, "KIC"+k.kic+".tbl")
		args := []string{path, "--period", fmt.Sprint(k.period), "--t0", fmt.Sprint(k.t0), "--duration", fmt.Sprint(k.durHrs / 24)}
		out, _, err := execute(append([]string{"vet"}, args...)...)
		if err != nil {
			t.Fatalf("%s: %v", k.name, err)
		}
		first, _, ok := strings.Cut(out, "box (vetter inputs)")
		if !ok || !strings.HasPrefix(first, "measured") || strings.Contains(first, "\nbox") {
			t.Fatalf("%s: vet's output does not start with the measurement and end with the box section:\n%s", k.name, out)
		}
		rep := vetJSON(t, args...)
		m := rep.Measured
		t.Logf("%s: MES %.0f, T14 %.2f h; secondary MES %.1f, odd/even %.1fσ; box: secondary MES %.1f, odd/even %.1fσ",
			k.name, m.MES, 24*m.T14Days, m.SecondaryMES, m.OddEvenSigma, m.Box.SecondaryMES, m.Box.OddEvenSigma)
		if m.SecondaryMES >= 7.1 || m.OddEvenSigma >= 3 || m.MES < 100 {
			t.Errorf("%s: the first lines flag a planet (or miss it):\n%s", k.name, first)
		}
		for _, line := range strings.Split(first, "\n") {
			if strings.HasPrefix(line, "secondary") && !strings.Contains(line, fmt.Sprintf("(MES %.1f;", m.SecondaryMES)) ||
				strings.HasPrefix(line, "odd / even") && !strings.Contains(line, fmt.Sprintf("%.1fσ with", m.OddEvenSigma)) {
				t.Errorf("%s: the line %q is not the measured statistic", k.name, line)
			}
		}
	}
}
