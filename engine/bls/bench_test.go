package bls

import "testing"

// benchmarkDefault searches a Kepler-like light curve of spanDays days (one planted box) over DefaultGrid.
func benchmarkDefault(b *testing.B, spanDays float64) {
	tt := keplerYear(spanDays)
	y, dy := boxLC(tt, 12.3456, 172.96, 0.15, 300e-6, 300e-6, 1)
	g, err := DefaultGrid(tt, GridOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(tt)), "points")
	b.ReportMetric(float64(len(g.Periods)), "periods")
	runSearches(b, tt, y, dy, g)
}

// runSearches runs the benchmark loop and reports the CPU seconds per search (see cpuSeconds).
func runSearches(b *testing.B, tt, y, dy []float64, g Grid) {
	c0 := cpuSeconds()
	for b.Loop() {
		if _, err := Search(tt, y, dy, g, SNR); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op")
}

// Size tiers of the default search: a quarter (≈ 4.4 k cadences), half a year and a Kepler year (≈ 17.6 k).
func BenchmarkSearchDefaultQuarter(b *testing.B)  { benchmarkDefault(b, 93) }
func BenchmarkSearchDefaultHalfYear(b *testing.B) { benchmarkDefault(b, 186) }
func BenchmarkSearchDefaultYear(b *testing.B)     { benchmarkDefault(b, 372) }

// BenchmarkSearchAstropyGrid is the side-by-side comparison grid: 20,000 periods log-spaced from 0.5 to 124 d
// and ten durations from 0.04 to 0.4 d at every period, one Kepler year, objective snr.
func BenchmarkSearchAstropyGrid(b *testing.B) {
	tt := keplerYear(372)
	y, dy := boxLC(tt, 12.3456, 172.96, 0.15, 300e-6, 300e-6, 1)
	g := Grid{
		Periods:   LogPeriodGrid(0.5, 124, 20000),
		Durations: []float64{0.04, 0.06, 0.08, 0.1, 0.13, 0.16, 0.2, 0.25, 0.3, 0.4},
	}
	b.ReportMetric(float64(len(tt)), "points")
	runSearches(b, tt, y, dy, g)
}
