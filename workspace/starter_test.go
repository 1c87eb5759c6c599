package workspace

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writeBoxStar writes a star directory with spanDays of 29.4-min cadences (a 1-day gap every 30 days), white
// noise of sigma, and a box transit of the given depth, period, t0 and duration — the planted signal of
// ../shared/bench/make_lc.py, on a shorter span so the test stays quick.
func writeBoxStar(t *testing.T, dir string, spanDays, sigma, period, t0, dur, depth float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	b.WriteString("time,flux,flux_err,quality\n")
	const cadence = 29.4244 / 1440
	for x := 0.0; x < spanDays; x += cadence {
		if math.Mod(x, 30) > 29 {
			continue
		}
		tt := 170 + x
		f := 1 + sigma*rng.NormFloat64()
		ph := math.Mod(tt-t0+0.5*period, period) - 0.5*period
		if math.Abs(ph) < dur/2 {
			f -= depth
		}
		q := 0
		if rng.IntN(100) == 0 {
			q = 32 // a flagged desaturation cadence with a wild value the starter must ignore
			f = 0.9
		}
		fmt.Fprintf(&b, "%.7f,%.8f,%.8f,%d\n", tt, f, sigma, q)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lightcurve.csv"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkStarterOutput asserts that out holds the header and one row at the planted period and epoch.
func checkStarterOutput(t *testing.T, out string, period, t0, dur float64) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || lines[0] != "period_days,t0_days,score" {
		t.Fatalf("starter printed %q, want a header and one row", out)
	}
	f := strings.Split(lines[1], ",")
	p, _ := strconv.ParseFloat(f[0], 64)
	e, _ := strconv.ParseFloat(f[1], 64)
	s, _ := strconv.ParseFloat(f[2], 64)
	if math.Abs(p/period-1) > 1e-3 {
		t.Errorf("period %.5f, want %.5f within 0.1 %%", p, period)
	}
	dt := math.Mod(e-t0, period)
	if dt > period/2 {
		dt -= period
	} else if dt < -period/2 {
		dt += period
	}
	if math.Abs(dt) > dur/2 {
		t.Errorf("t0 %.4f is %.4f d from the planted %.4f (modulo P), more than half a duration", e, dt, t0)
	}
	if s < 8 {
		t.Errorf("score (SNR) %.2f below the starter's threshold 8", s)
	}
}

// The planted signal: 800 ppm deep, 0.15 d long, every 7.3 d, in 300 ppm white noise over 100 days: about
// 13 transits × 10 in-transit cadences, so SNR ≈ 800/300·√130 ≈ 30, well above 8.
const (
	plantP, plantT0, plantDur, plantDepth, plantSigma = 7.3, 172.1, 0.15, 800e-6, 300e-6
)

func TestGoStarterFindsPlantedTransit(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("the go tool is needed to build the Go starter")
	}
	dir := t.TempDir()
	if err := writeStarter(filepath.Join(dir, "solution"), "go"); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "starter")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join(dir, "solution")
	build.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the starter: %v\n%s", err, out)
	}
	star := filepath.Join(dir, "star")
	writeBoxStar(t, star, 100, plantSigma, plantP, plantT0, plantDur, plantDepth)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, star).Output()
	if err != nil {
		t.Fatalf("starter failed: %v", err)
	}
	checkStarterOutput(t, string(out), plantP, plantT0, plantDur)
}

func TestPythonStarterFindsPlantedTransit(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Fatalf("%s with numpy is needed (Debian: apt-get install python3-numpy): %v", py, err)
	}
	dir := t.TempDir()
	if err := writeStarter(filepath.Join(dir, "solution"), "python"); err != nil {
		t.Fatal(err)
	}
	star := filepath.Join(dir, "star")
	writeBoxStar(t, star, 100, plantSigma, plantP, plantT0, plantDur, plantDepth)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, py, filepath.Join(dir, "solution", "solution.py"), star).Output()
	if err != nil {
		t.Fatalf("starter failed: %v", err)
	}
	checkStarterOutput(t, string(out), plantP, plantT0, plantDur)
}

func TestPythonStarterQuietOnNoise(t *testing.T) {
	// On pure noise (the same star without its transit) the starter must print nothing but the header.
	dir := t.TempDir()
	star := filepath.Join(dir, "star")
	writeBoxStar(t, star, 60, plantSigma, plantP, plantT0, plantDur, 0)
	if err := writeStarter(filepath.Join(dir, "py"), "python"); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("/usr/bin/python3", filepath.Join(dir, "py", "solution.py"), star).Output()
	if err != nil {
		t.Fatalf("python starter failed: %v", err)
	}
	if strings.TrimSpace(string(out)) != "period_days,t0_days,score" {
		t.Errorf("python starter on pure noise printed %q, want only the header", out)
	}
}
