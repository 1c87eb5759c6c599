// Package lc defines the light curve every part of TransitBench passes around: times in BKJD days,
// relative flux, its 1σ error and the Kepler quality bitmask, one entry per cadence.
package lc

import (
	"errors"
	"math"

	"transitbench/engine/stat"
)

// Kepler quality bits (Kepler Archive Manual, table 2-3).
const (
	QAttitudeTweak      int32 = 1
	QSafeMode           int32 = 2
	QCoarsePoint        int32 = 4
	QEarthPoint         int32 = 8
	QZeroCrossing       int32 = 16
	QDesaturation       int32 = 32
	QArgabrightening    int32 = 64
	QApertureCosmic     int32 = 128
	QManualExclude      int32 = 256
	QSuddenSensDropout  int32 = 1024
	QImpulsiveOutlier   int32 = 2048
	QArgabrighteningCCD int32 = 4096
	QCollateralCosmic   int32 = 8192
	QDetectorAnomaly    int32 = 16384
	QNoFinePoint        int32 = 32768
	QNoData             int32 = 65536
	QRollingBand        int32 = 131072
	QRollingBandMask    int32 = 262144
	QPossibleThruster   int32 = 524288
	QThrusterFiring     int32 = 1048576
)

// DefaultQualityMask is lightkurve's "default" bitmask (1130799): cadences with any of these bits set are not used.
const DefaultQualityMask = QAttitudeTweak | QSafeMode | QCoarsePoint | QEarthPoint | QDesaturation |
	QManualExclude | QDetectorAnomaly | QNoData | QThrusterFiring

// CadenceDays is the Kepler long cadence, 29.4244 min, in days.
const CadenceDays = 29.4244 / 1440.0

// LightCurve is one star's photometry. All slices have the same length. Time is BKJD (BJD − 2454833) in days;
// Flux is relative (median ≈ 1) and may be NaN where a cadence has no data; FluxErr is the 1σ error of Flux
// (NaN or 0 when unknown); Quality is the Kepler quality bitmask (0 = good).
type LightCurve struct {
	Time    []float64
	Flux    []float64
	FluxErr []float64
	Quality []int32
}

// ErrLengthMismatch is returned by Validate when the columns differ in length.
var ErrLengthMismatch = errors.New("lc: columns differ in length")

// Len returns the number of cadences.
func (c *LightCurve) Len() int { return len(c.Time) }

// Validate checks that the columns have equal lengths.
func (c *LightCurve) Validate() error {
	n := len(c.Time)
	if len(c.Flux) != n || len(c.FluxErr) != n || len(c.Quality) != n {
		return ErrLengthMismatch
	}
	return nil
}

// Good reports whether cadence i is usable: finite time and flux and no bit of mask set in its quality.
func (c *LightCurve) Good(i int, mask int32) bool {
	return stat.Finite(c.Time[i]) && stat.Finite(c.Flux[i]) && c.Quality[i]&mask == 0
}

// Clean returns a new light curve holding only the cadences that are Good under mask, in time order.
// Times must already be sorted; readers sort them.
func (c *LightCurve) Clean(mask int32) *LightCurve {
	out := &LightCurve{}
	for i := range c.Time {
		if c.Good(i, mask) {
			out.Time = append(out.Time, c.Time[i])
			out.Flux = append(out.Flux, c.Flux[i])
			out.FluxErr = append(out.FluxErr, c.FluxErr[i])
			out.Quality = append(out.Quality, c.Quality[i])
		}
	}
	return out
}

// Span returns the first and last time.
func (c *LightCurve) Span() (first, last float64) {
	if len(c.Time) == 0 {
		return math.NaN(), math.NaN()
	}
	return c.Time[0], c.Time[len(c.Time)-1]
}
