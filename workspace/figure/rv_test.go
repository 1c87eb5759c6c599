package figure

import (
	"bytes"
	"errors"
	"image/png"
	"io"
	"math"
	"strings"
	"testing"

	"transitbench/workspace/internal/taskfixture"
	"transitbench/workspace/rvtrack"
)

// rvTestTask is the published two-instrument task real_007 analysed at its true planets: the residual
// periodogram as the TUI's task view shows it.
func rvTestTask(t *testing.T) *RVTask {
	t.Helper()
	task := taskfixture.Load(t, "real_007")
	d := task.Data()
	if len(d.Instruments) != 2 {
		t.Fatalf("real_007 has %d instruments, the test wants 2", len(d.Instruments))
	}
	a := rvtrack.Analyse(d, task.MedianSigma(), task.TruthPlanets(), 1, true)
	return &RVTask{ID: task.TaskID, Data: d, Analysis: a}
}

func TestWriteRVPNG(t *testing.T) {
	rt := rvTestTask(t)
	var buf bytes.Buffer
	if err := WriteRV(&buf, rt, 8, PNG); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	// 8 in × 8 in at 150 dpi.
	b := img.Bounds()
	if b.Dx() != 1200 || b.Dy() != 1200 {
		t.Fatalf("figure is %d×%d pixels, want 1200×1200", b.Dx(), b.Dy())
	}
	// The model curve (red) is drawn in the top third; the first instrument's points (blue) in the top two
	// thirds (data and residuals); the numbered periodogram peaks (red) in the bottom third.
	if n := countColour(img, 0, 0, b.Dy()/3, isRed); n < 100 {
		t.Errorf("%d red pixels in the velocity panel: no model curve drawn", n)
	}
	if n := countColour(img, 0, b.Dy()/3, 2*b.Dy()/3, isBlue); n < 50 {
		t.Errorf("%d blue pixels in the residual panel: no residuals of the first instrument", n)
	}
	if n := countColour(img, 0, 2*b.Dy()/3, b.Dy(), isRed); n < 20 {
		t.Errorf("%d red pixels in the periodogram panel: no peaks marked", n)
	}
	if n := countColour(img, 0, 0, b.Dy()/3, isOrange); n < 50 {
		t.Errorf("%d orange pixels in the velocity panel: the second instrument is not drawn", n)
	}
}

// TestWriteRVSVG checks the vector figure: a well-formed SVG document whose text holds the three plots' axis
// labels with units, both instruments' names in the legend, and the periodogram's title.
func TestWriteRVSVG(t *testing.T) {
	rt := rvTestTask(t)
	var buf bytes.Buffer
	if err := WriteRV(&buf, rt, 7, SVG); err != nil {
		t.Fatal(err)
	}
	text := svgText(t, buf.Bytes())
	for _, label := range []string{"days since the first observation", "radial velocity (m/s)", "residual (m/s)",
		"period (days)", "GLS power", "GLS periodogram of the residuals", "inst_A", "inst_B", "real_007"} {
		if !strings.Contains(text, label) {
			t.Errorf("the SVG's text has no %q", label)
		}
	}
}

func TestWriteRVRefusesBadInput(t *testing.T) {
	rt := rvTestTask(t)
	for _, w := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if err := WriteRV(io.Discard, rt, w, PNG); !errors.Is(err, ErrWidth) {
			t.Errorf("width %v: err %v, want ErrWidth", w, err)
		}
	}
	if err := WriteRV(io.Discard, &RVTask{ID: "x", Data: rt.Data}, 6, PNG); !errors.Is(err, ErrNoRVData) {
		t.Errorf("no analysis: err %v, want ErrNoRVData", err)
	}
	if err := WriteRV(io.Discard, rt, 6, Format(9)); err == nil {
		t.Error("an unknown format was accepted")
	}
}

func isOrange(r, g, b uint32) bool { return r > 0xd000 && g > 0x6000 && g < 0x9000 && b < 0x2000 }
