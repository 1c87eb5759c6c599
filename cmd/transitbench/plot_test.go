package main

import (
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/vg"

	"transitbench/data"
	"transitbench/engine/lc"
	"transitbench/workspace/quicklook"
)

// plotTestStar is 40 days of Kepler-cadence flux with a 0.5 % box transit every 4.2 days (T14 3 h) and a
// slow trend, analysed as the terminal UI does.
func plotTestStar(t *testing.T) *starFigure {
	t.Helper()
	c := &lc.LightCurve{}
	for i := 0; ; i++ {
		ti := 130 + float64(i)*lc.CadenceDays
		if ti > 170 {
			break
		}
		f := 1 + 3e-4*math.Sin(ti/5) + 1e-4*math.Sin(float64(i)*7.77)
		if ph := math.Mod(ti-131.05+4.2*10+2.1, 4.2) - 2.1; math.Abs(ph) < 0.0625 {
			f -= 0.005
		}
		q := int32(0)
		if i%200 == 0 {
			q = lc.QDesaturation
		}
		c.Time, c.Flux, c.FluxErr, c.Quality = append(c.Time, ti), append(c.Flux, f), append(c.FluxErr, 1e-4), append(c.Quality, q)
	}
	a, err := quicklook.Analyse(c, &data.Star{RadiusRsun: 1, MassMsun: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return &starFigure{Analysis: a, ID: "test-0001", Category: "injected", Population: "random"}
}

func TestStarFigureEphemeris(t *testing.T) {
	d := plotTestStar(t)
	// No answer: the strongest BLS peak, which is the planted 4.2-day transit.
	e := starFigureEphemeris(d)
	if e.label != "BLS peak 1" || math.Abs(e.period/4.2-1) > 0.01 {
		t.Errorf("unlabelled star folded at %+v, want the peak at 4.2 d", e)
	}
	d.Answer = &data.Answer{Category: "injected", Planet: &data.Planet{PeriodDays: 4.2, T0Days: 131.05, DurationDays: 0.125}}
	if e := starFigureEphemeris(d); e.label != "truth" || e.t0 != 131.05 {
		t.Errorf("labelled star folded at %+v, want the truth", e)
	}
	d.Answer = &data.Answer{Category: "untouched"}
	if e := starFigureEphemeris(d); e.label != "BLS peak 1" {
		t.Errorf("untouched star folded at %+v, want the peak", e)
	}
}

func TestWriteStarFigure(t *testing.T) {
	d := plotTestStar(t)
	out := filepath.Join(t.TempDir(), "star.png")
	if err := writeStarFigure(out, d, starFigureEphemeris(d), 8*vg.Inch); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	// 8 in × 8.8 in at 150 dpi.
	if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 1320 {
		t.Errorf("figure is %d×%d pixels, want 1200×1320", b.Dx(), b.Dy())
	}
	// The binned folded curve (blue) sits in the bottom quarter, the peak markers (red) in the third quarter.
	if n := countColour(img, 0, 3*img.Bounds().Dy()/4, img.Bounds().Dy(), isFigBlue); n < 100 {
		t.Errorf("%d blue pixels in the folded panel: no binned curve drawn", n)
	}
	if n := countColour(img, 0, img.Bounds().Dy()/2, 3*img.Bounds().Dy()/4, isFigRed); n < 20 {
		t.Errorf("%d red pixels in the periodogram panel: no peaks marked", n)
	}
}

func isFigBlue(r, g, b uint32) bool { return b > 0xa000 && r < 0x4000 && g < 0x8000 }
func isFigRed(r, g, b uint32) bool  { return r > 0xa000 && g < 0x4000 && b < 0x6000 }

func countColour(img image.Image, x0, y0, y1 int, match func(r, g, b uint32) bool) int {
	n := 0
	for y := y0; y < y1; y++ {
		for x := img.Bounds().Min.X + x0; x < img.Bounds().Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if match(r, g, b) {
				n++
			}
		}
	}
	return n
}

func TestPlotUsageErrors(t *testing.T) {
	t.Setenv("TRANSITBENCH_HOME", t.TempDir())
	for _, args := range [][]string{
		{"plot", "--out", "x.png"},
		{"plot", "--star", "dev-0000"},
		{"plot", "--star", "dev-0000", "--out", "x.jpg"},
		{"plot", "--star", "A-0000", "--set", "A", "--out", "x.png"},
	} {
		if code := run(args); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
