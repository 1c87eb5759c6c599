package lc

import (
	"encoding/csv"
	"math"
	"strconv"
	"strings"
	"testing"
)

// keplerRows are cadences of kplr011442793-2009350155506_llc.fits (Kepler-90, quarter 3) as data.ReadKeplerFITS
// gives them (time BKJD, relative PDCSAP flux, its error, SAP_QUALITY), with a comment saying what the quality
// bits are; the last row is the quarter's first good cadence with the desaturation bit added, since in this
// file every cadence with a default-mask bit already has NaN flux.
const keplerRows = `260.22417199,NaN,NaN,0,no flux
264.45381610,NaN,NaN,32800,desaturation + no fine point
270.44069475,1.000546485258664,0.00016766248873821638,0,good
260.55110131,0.9999230763926731,0.0001670845177298462,8192,collateral cosmic ray
265.39373628,1.0005226208464737,0.00016761177151360253,128,aperture cosmic ray
271.48277832,1.000273022568154,0.00016760922848892205,16,zero crossing
271.52364434,NaN,NaN,20,coarse point + zero crossing
277.10185178,NaN,NaN,16384,detector anomaly
279.65597357,1.001598964519243,0.00016789118187321601,2176,impulsive outlier + aperture cosmic ray
319.21414326,0.9998923656327231,0.00016754265616207486,262144,rolling band in the mask
270.44069475,1.000546485258664,0.00016766248873821638,32,good cadence with desaturation added`

// fixture parses keplerRows into a light curve and the rows' notes.
func fixture(t *testing.T) (*LightCurve, []string) {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(keplerRows)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	c := &LightCurve{}
	var notes []string
	for _, r := range recs {
		var v [3]float64
		for j := range v {
			if v[j], err = strconv.ParseFloat(r[j], 64); err != nil {
				t.Fatal(err)
			}
		}
		q, err := strconv.ParseInt(r[3], 10, 32)
		if err != nil {
			t.Fatal(err)
		}
		c.Time = append(c.Time, v[0])
		c.Flux = append(c.Flux, v[1])
		c.FluxErr = append(c.FluxErr, v[2])
		c.Quality = append(c.Quality, int32(q))
		notes = append(notes, r[4])
	}
	return c, notes
}

// TestDefaultQualityMask checks the mask against lightkurve's documented default bitmask, 1130799
// (lightkurve.utils.KeplerQualityFlags.DEFAULT_BITMASK), and that it leaves out the bits only lightkurve's
// "hard" mask (1664431) adds: cosmic rays, sudden sensitivity dropouts and possible thruster firings.
func TestDefaultQualityMask(t *testing.T) {
	if DefaultQualityMask != 1130799 {
		t.Errorf("DefaultQualityMask = %d, lightkurve's default is 1130799", DefaultQualityMask)
	}
	const hard = 1664431
	if DefaultQualityMask&^hard != 0 {
		t.Errorf("DefaultQualityMask has bits %d outside lightkurve's hard mask", DefaultQualityMask&^hard)
	}
	for _, b := range []int32{QApertureCosmic, QCollateralCosmic, QSuddenSensDropout, QPossibleThruster} {
		if DefaultQualityMask&b != 0 || hard&b == 0 {
			t.Errorf("bit %d: want it in the hard mask only", b)
		}
	}
}

// TestGoodOnKeplerCadences applies the validity rule to the fixture: a cadence is good when time and flux are
// finite and no default-mask bit is set, whatever other bits it carries.
func TestGoodOnKeplerCadences(t *testing.T) {
	c, notes := fixture(t)
	want := []bool{false, false, true, true, true, true, false, false, true, true, false}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for i := range c.Time {
		if got := c.Good(i, DefaultQualityMask); got != want[i] {
			t.Errorf("row %d (%s, quality %d): Good = %v, want %v", i, notes[i], c.Quality[i], got, want[i])
		}
	}
	// With no mask only finiteness counts: the flagged rows with flux become good.
	for i := range c.Time {
		finite := !math.IsNaN(c.Flux[i])
		if got := c.Good(i, 0); got != finite {
			t.Errorf("row %d (%s): Good with mask 0 = %v, want %v", i, notes[i], got, finite)
		}
	}
}

// TestGoodNeedsFiniteTimeAndFlux checks the finiteness half of the rule on every kind of non-finite value.
func TestGoodNeedsFiniteTimeAndFlux(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	c := &LightCurve{
		Time:    []float64{300, nan, inf, 300, 300, 300},
		Flux:    []float64{1, 1, 1, nan, inf, math.Inf(-1)},
		FluxErr: make([]float64, 6),
		Quality: make([]int32, 6),
	}
	for i := range c.Time {
		if got := c.Good(i, DefaultQualityMask); got != (i == 0) {
			t.Errorf("time %v, flux %v: Good = %v, want %v", c.Time[i], c.Flux[i], got, i == 0)
		}
	}
}

// TestClean checks that Clean keeps exactly the good cadences, in order, with their four columns together.
func TestClean(t *testing.T) {
	c, _ := fixture(t)
	out := c.Clean(DefaultQualityMask)
	if err := out.Validate(); err != nil {
		t.Fatal(err)
	}
	j := 0
	for i := range c.Time {
		if !c.Good(i, DefaultQualityMask) {
			continue
		}
		if j >= out.Len() {
			t.Fatalf("Clean kept %d cadences, want more", out.Len())
		}
		if out.Time[j] != c.Time[i] || out.Flux[j] != c.Flux[i] || out.FluxErr[j] != c.FluxErr[i] || out.Quality[j] != c.Quality[i] {
			t.Errorf("kept cadence %d is (%v, %v, %v, %d), want row %d (%v, %v, %v, %d)", j, out.Time[j], out.Flux[j],
				out.FluxErr[j], out.Quality[j], i, c.Time[i], c.Flux[i], c.FluxErr[i], c.Quality[i])
		}
		j++
	}
	if j != out.Len() || j != 6 {
		t.Errorf("Clean kept %d cadences, the fixture has %d good ones (6 expected)", out.Len(), j)
	}
	if c.Len() != 11 {
		t.Errorf("Clean changed its input: %d cadences", c.Len())
	}
}

func TestValidate(t *testing.T) {
	c, _ := fixture(t)
	c.FluxErr = c.FluxErr[:3]
	if err := c.Validate(); err != ErrLengthMismatch {
		t.Errorf("Validate with a short error column: %v, want ErrLengthMismatch", err)
	}
	if err := (&LightCurve{}).Validate(); err != nil {
		t.Errorf("Validate of an empty light curve: %v", err)
	}
}

func TestSpan(t *testing.T) {
	c, _ := fixture(t)
	if first, last := c.Span(); first != 260.22417199 || last != 270.44069475 {
		t.Errorf("Span = %v, %v; want the first and last rows' times", first, last)
	}
	if first, last := (&LightCurve{}).Span(); !math.IsNaN(first) || !math.IsNaN(last) {
		t.Errorf("Span of nothing = %v, %v; want NaN, NaN", first, last)
	}
}

// TestCadenceDays checks the long cadence against two cadences of the fixture's quarter. The times are
// barycentric, so their spacing differs from the spacecraft's cadence by up to v/c ≈ 1e-4 of it (Earth's orbital
// speed, 30 km/s): 2e-6 d for one cadence.
func TestCadenceDays(t *testing.T) {
	if math.Abs(CadenceDays*1440-29.4244) > 1e-12 {
		t.Errorf("CadenceDays = %v min, want 29.4244", CadenceDays*1440)
	}
	c, _ := fixture(t)
	// Rows 5 and 6 are cadences 551 and 553 of the quarter, two long cadences apart.
	if d := c.Time[6] - c.Time[5]; math.Abs(d-2*CadenceDays) > 2*2e-6 {
		t.Errorf("two cadences in the quarter span %v d, want 2 × %v", d, CadenceDays)
	}
}
