package figure

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image"
	"image/png"
	"io"
	"math"
	"strings"
	"testing"

	"transitbench/data"
	"transitbench/engine/lc"
	"transitbench/workspace/quicklook"
)

// testStar is 40 days of Kepler-cadence flux with a 0.5 % box transit every 4.2 days (T14 3 h) and a
// slow trend, analysed as the terminal UI does.
func testStar(t *testing.T) *Star {
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
	return &Star{Analysis: a, ID: "test-0001", Category: "injected", Population: "random"}
}

func TestDefaultEphemeris(t *testing.T) {
	d := testStar(t)
	// No answer: the strongest BLS peak, which is the planted 4.2-day transit.
	e := DefaultEphemeris(d)
	if e.Label != "BLS peak 1" || math.Abs(e.PeriodDays/4.2-1) > 0.01 {
		t.Errorf("unlabelled star folded at %+v, want the peak at 4.2 d", e)
	}
	d.Answer = &data.Answer{Category: "injected", Planet: &data.Planet{PeriodDays: 4.2, T0Days: 131.05, DurationDays: 0.125}}
	if e := DefaultEphemeris(d); e.Label != "truth" || e.T0Days != 131.05 {
		t.Errorf("labelled star folded at %+v, want the truth", e)
	}
	d.Answer = &data.Answer{Category: "untouched"}
	if e := DefaultEphemeris(d); e.Label != "BLS peak 1" {
		t.Errorf("untouched star folded at %+v, want the peak", e)
	}
}

// writeTestStar writes testStar's figure at its default ephemeris, 8 inches wide, in format f.
func writeTestStar(t *testing.T, f Format) *bytes.Buffer {
	t.Helper()
	d := testStar(t)
	var buf bytes.Buffer
	if err := Write(&buf, d, DefaultEphemeris(d), 8, f); err != nil {
		t.Fatal(err)
	}
	return &buf
}

func TestWritePNG(t *testing.T) {
	img, err := png.Decode(writeTestStar(t, PNG))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	// 8 in × 8.8 in at 150 dpi.
	if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 1320 {
		t.Errorf("figure is %d×%d pixels, want 1200×1320", b.Dx(), b.Dy())
	}
	// The binned folded curve (blue) sits in the bottom quarter, the peak markers (red) in the third quarter.
	if n := countColour(img, 0, 3*img.Bounds().Dy()/4, img.Bounds().Dy(), isBlue); n < 100 {
		t.Errorf("%d blue pixels in the folded panel: no binned curve drawn", n)
	}
	if n := countColour(img, 0, img.Bounds().Dy()/2, 3*img.Bounds().Dy()/4, isRed); n < 20 {
		t.Errorf("%d red pixels in the periodogram panel: no peaks marked", n)
	}
}

// TestWriteSVG checks the vector figure: a well-formed SVG document whose text holds the four plots' axis
// labels with their units, and the binned curve's colour (gonum's SVG canvas writes colours as #RRGGBB).
func TestWriteSVG(t *testing.T) {
	buf := writeTestStar(t, SVG)
	text := svgText(t, buf.Bytes())
	for _, label := range []string{"time (BKJD)", "relative flux", "period (days)", "SNR", "hours from mid-transit", "(ppm)", "folded at BLS peak 1"} {
		if !strings.Contains(text, label) {
			t.Errorf("the SVG's text has no %q", label)
		}
	}
	if !bytes.Contains(buf.Bytes(), []byte("stroke:#145AC8")) {
		t.Error("no binned folded curve (stroke #145AC8, RGB 20,90,200) in the SVG")
	}
}

func TestWriteRefusesBadWidth(t *testing.T) {
	d := testStar(t)
	for _, w := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if err := Write(io.Discard, d, DefaultEphemeris(d), w, PNG); !errors.Is(err, ErrWidth) {
			t.Errorf("width %v: err %v, want ErrWidth", w, err)
		}
	}
}

func isBlue(r, g, b uint32) bool { return b > 0xa000 && r < 0x4000 && g < 0x8000 }
func isRed(r, g, b uint32) bool  { return r > 0xa000 && g < 0x4000 && b < 0x6000 }

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

// svgText checks that doc is a well-formed XML document whose root element is svg and returns its text.
func svgText(t *testing.T, doc []byte) string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var root string
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch v := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = v.Name.Local
			}
		case xml.CharData:
			text.Write(v)
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return text.String()
}
