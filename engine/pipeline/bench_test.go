package pipeline

import (
	"testing"

	"transitbench/internal/testutil"
)

// benchLight is a prepared Kepler-like year (372 d, ≈ 17.4 k cadences, 300 ppm white noise) with a 300 ppm,
// 0.15 d box every 12.3456 d, as /work/shared/bench/make_lc.py plants it.
func benchLight(b *testing.B) *Light {
	l, err := Prepare(synth(372, 300e-6, 3, 1, box(12.3456, 172.96, 0.15, 300e-6)))
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// BenchmarkPeriodogramYear is the BLS search of one star's year, the periodogram Search computes for a Sun-like
// star (detrended for it beforehand), on one goroutine; cpu-ns/op is the process's CPU time per search.
//
//	go test -run '^$' -bench 'PeriodogramYear|SearchYear' -count 10 ./engine/pipeline/
func BenchmarkPeriodogramYear(b *testing.B) {
	l := benchLight(b).ForStar(sun)
	c0 := testutil.ProcessCPU()
	for b.Loop() {
		if r, err := l.periodogram(sun); err != nil || r == nil {
			b.Fatal(err)
		}
	}
	testutil.ReportCPU(b, c0)
}

// BenchmarkSearchYear is Search on the same year: the detrending for the star (a wider window than Prepare's
// for a Sun-like star), the periodogram and its peaks.
func BenchmarkSearchYear(b *testing.B) {
	l := benchLight(b)
	c0 := testutil.ProcessCPU()
	for b.Loop() {
		if pk, err := l.Search(sun, 3); err != nil || len(pk) == 0 {
			b.Fatal(err)
		}
	}
	testutil.ReportCPU(b, c0)
}
