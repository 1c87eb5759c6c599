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
