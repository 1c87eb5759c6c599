package transit

import "math"

// ldTeff and ldLogg are the grid of the limb-darkening table; ldU1 and ldU2 hold the quadratic coefficients
// of the Kepler band at [M/H] = 0 and 2 km/s microturbulence, row per logg, column per Teff, rounded to 0.01.
//
// Sources. 3,500–4,500 K: Claret, Hauschildt & Witte (2012, A&A 546, A14), PHOENIX models, least-squares
// fit, Kepler band (table as distributed in john-livingston/limbdark, claret2012_all.txt). 5,000 K and above:
// approximations of Claret & Bloemen (2011, A&A 529, A75; ATLAS models, Kepler band) — u1 falling and u2
// rising with Teff, a Sun-like star near u1 ≈ 0.40, u2 ≈ 0.26 — not interpolated from that published grid:
// expect differences up to ≈ 0.05–0.1 per coefficient. Enough to give simulated transits a realistic shape;
// not meant for fitting real stars (use the published tables for that).
var (
	ldTeff = []float64{3500, 4000, 4500, 5000, 5500, 6000, 6500, 7000, 7500}
	ldLogg = []float64{3.5, 4.5}
	ldU1   = [][]float64{
		{0.66, 0.80, 0.70, 0.53, 0.46, 0.39, 0.33, 0.28, 0.25}, // logg 3.5
		{0.42, 0.51, 0.70, 0.51, 0.44, 0.37, 0.31, 0.27, 0.24}, // logg 4.5
	}
	ldU2 = [][]float64{
		{0.14, 0.00, 0.08, 0.18, 0.23, 0.27, 0.30, 0.32, 0.33}, // logg 3.5
		{0.32, 0.20, 0.05, 0.19, 0.24, 0.28, 0.31, 0.33, 0.34}, // logg 4.5
	}
)

// LimbDarkening returns the quadratic limb-darkening coefficients (u1, u2) of the Kepler band for a star of
// effective temperature teff (K) and surface gravity logg (cgs, log₁₀ of cm s⁻²), interpolated bilinearly in
// the table above and clamped to its edges (3,500–7,500 K, logg 3.5–4.5). A NaN input is taken as the Sun's
// value (5,772 K, logg 4.44).
func LimbDarkening(teff, logg float64) (u1, u2 float64) {
	if math.IsNaN(teff) {
		teff = 5772
	}
	if math.IsNaN(logg) {
		logg = 4.44
	}
	i, fx := gridIndex(ldTeff, teff)
	j, fy := gridIndex(ldLogg, logg)
	bilinear := func(tab [][]float64) float64 {
		lo := tab[j][i]*(1-fx) + tab[j][i+1]*fx
		hi := tab[j+1][i]*(1-fx) + tab[j+1][i+1]*fx
		return lo*(1-fy) + hi*fy
	}
	return bilinear(ldU1), bilinear(ldU2)
}

// gridIndex returns i and the fraction f ∈ [0, 1] with x ≈ grid[i]·(1−f) + grid[i+1]·f, clamped to the grid.
func gridIndex(grid []float64, x float64) (int, float64) {
	n := len(grid)
	if x <= grid[0] {
		return 0, 0
	}
	if x >= grid[n-1] {
		return n - 2, 1
	}
	i := 0
	for i < n-2 && x >= grid[i+1] {
		i++
	}
	return i, (x - grid[i]) / (grid[i+1] - grid[i])
}
