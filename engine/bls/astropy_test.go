package bls

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The side-by-side comparison with astropy's BoxLeastSquares: one Kepler year (≈ 17.6 k cadences) with the
// planted box of /work/shared/bench/make_lc.py (P = 12.3456 d, 0.15 d, 300 ppm in 300 ppm white noise), 20,000
// periods log-spaced from 0.5 to 124 d and ten durations from 0.04 to 0.4 d at every period, objective snr.
const (
	astropyPMin, astropyPMax, astropyPeriods = 0.5, 124.0, 20000
	astropyPlanted                           = 12.3456
)

var astropyDurations = []float64{0.04, 0.06, 0.08, 0.1, 0.13, 0.16, 0.2, 0.25, 0.3, 0.4}

// astropyLC returns the comparison's light curve.
func astropyLC() (t, y, dy []float64) {
	t = keplerYear(372)
	y, dy = boxLC(t, astropyPlanted, 172.96, 0.15, 300e-6, 300e-6, 1)
	return t, y, dy
}

// astropyGrid returns the comparison's grid: every duration at every period, one goroutine.
func astropyGrid() Grid {
	return Grid{Periods: LogPeriodGrid(astropyPMin, astropyPMax, astropyPeriods), Durations: astropyDurations}
}

// astropyRun is what testdata/astropy_bls.py prints.
type astropyRun struct {
	CPUSeconds     float64 `json:"cpu_seconds"`
	WallSeconds    float64 `json:"wall_seconds"`
	BestIndex      int     `json:"best_index"`
	BestPeriodDays float64 `json:"best_period_days"`
	NPoints        int     `json:"n_points"`
}

// haveAstropy reports whether Debian's python3 can import astropy (package python3-astropy).
func haveAstropy() bool {
	return exec.Command("/usr/bin/python3", "-c", "import astropy.timeseries").Run() == nil
}

// runAstropy writes the light curve to a CSV file in dir and runs testdata/astropy_bls.py on it over the
// comparison grid, with astropy's default oversampling, on one thread.
func runAstropy(dir string, t, y, dy []float64) (astropyRun, error) {
	var b strings.Builder
	b.WriteString("time,flux,flux_err\n")
	for i := range t {
		fmt.Fprintf(&b, "%s,%s,%s\n", strconv.FormatFloat(t[i], 'g', -1, 64),
			strconv.FormatFloat(y[i], 'g', -1, 64), strconv.FormatFloat(dy[i], 'g', -1, 64))
	}
	csv := filepath.Join(dir, "lc.csv")
	if err := os.WriteFile(csv, []byte(b.String()), 0o644); err != nil {
		return astropyRun{}, err
	}
	durs := make([]string, len(astropyDurations))
	for i, d := range astropyDurations {
		durs[i] = strconv.FormatFloat(d, 'g', -1, 64)
	}
	cmd := exec.Command("/usr/bin/python3", "testdata/astropy_bls.py", csv, fmt.Sprint(astropyPMin), fmt.Sprint(astropyPMax),
		strconv.Itoa(astropyPeriods), strings.Join(durs, ","))
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1")
	out, err := cmd.Output()
	if err != nil {
		return astropyRun{}, fmt.Errorf("astropy_bls.py: %w", err)
	}
	var r astropyRun
	err = json.Unmarshal(out, &r)
	return r, err
}

// argmax returns the index of the largest value of x (the first of equal ones).
func argmax(x []float64) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// TestAstropyGridSameBestPeriod searches the comparison's light curve over its grid: the highest power is at
// the grid period nearest the planted one, and astropy's BoxLeastSquares (when python3-astropy is installed
// and the test is not -short: it takes about 15 s) puts its highest power at the same grid period.
func TestAstropyGridSameBestPeriod(t *testing.T) {
	tt, y, dy := astropyLC()
	g := astropyGrid()
	r, err := Search(tt, y, dy, g, SNR)
	if err != nil {
		t.Fatal(err)
	}
	best := argmax(r.Power)
	// Neighbouring grid periods differ by a factor (124/0.5)^(1/19999) = 1.000276: 0.0034 d at 12.3 d, a phase
	// drift of 0.1 d over the 30 orbits of the year, so the planted box peaks within a step or two of 12.3456 d.
	if math.Abs(r.Periods[best]/astropyPlanted-1) > 3*0.000276 {
		t.Errorf("best period %.5f d (SNR %.1f), planted %.4f d", r.Periods[best], r.Power[best], astropyPlanted)
	}
	if testing.Short() || !haveAstropy() {
		t.Log("astropy comparison skipped (-short, or no python3-astropy)")
		return
	}
	a, err := runAstropy(t.TempDir(), tt, y, dy)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("astropy: best P = %.6f d (index %d), %.2f CPU-s; bls: best P = %.6f d (index %d)",
		a.BestPeriodDays, a.BestIndex, a.CPUSeconds, r.Periods[best], best)
	if a.NPoints != len(tt) || a.BestIndex != best {
		t.Errorf("astropy: %d points, best index %d (%.6f d); bls: %d points, best index %d (%.6f d)",
			a.NPoints, a.BestIndex, a.BestPeriodDays, len(tt), best, r.Periods[best])
	}
}

// BenchmarkSearchAstropyGrid is Search on the comparison's light curve and grid, on one core.
func BenchmarkSearchAstropyGrid(b *testing.B) {
	tt, y, dy := astropyLC()
	b.ReportMetric(float64(len(tt)), "points")
	runSearches(b, tt, y, dy, astropyGrid())
}

// BenchmarkAstropyBoxLeastSquares runs astropy's BoxLeastSquares on the same light curve and grid (run it
// with -benchtime 1x: a search takes about 15 s). It reports the CPU and wall seconds of the power() call
// alone, as testdata/astropy_bls.py measures them; ns/op also counts Python's start and the CSV. It is
// skipped without python3-astropy.
func BenchmarkAstropyBoxLeastSquares(b *testing.B) {
	if !haveAstropy() {
		b.Skip("no python3-astropy")
	}
	tt, y, dy := astropyLC()
	dir := b.TempDir()
	var cpu, wall float64
	for b.Loop() {
		a, err := runAstropy(dir, tt, y, dy)
		if err != nil {
			b.Fatal(err)
		}
		cpu, wall = cpu+a.CPUSeconds, wall+a.WallSeconds
	}
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
	b.ReportMetric(wall/float64(b.N), "search-s/op")
}
