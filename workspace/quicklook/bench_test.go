package quicklook

import (
	"testing"

	"transitbench/data"
	"transitbench/internal/testutil"
)

// BenchmarkSearchYear is the quick-look search (Search: the coarse periodogram of the binned year and the
// refinement of its peaks) of a prepared year of a Sun-like star (yearCurve), on one goroutine; cpu-ns/op is the
// process's CPU time per search.
//
//	go test -run '^$' -bench SearchYear -count 10 ./workspace/quicklook/
func BenchmarkSearchYear(b *testing.B) {
	star := &data.Star{RadiusRsun: 1, MassMsun: 1}
	t, y, dy := Prepare(yearCurve(), star, PrepareOptions{}).points()
	c0 := testutil.ProcessCPU()
	for b.Loop() {
		if _, _, pk, err := Search(t, y, dy, star, 1); err != nil || len(pk) == 0 {
			b.Fatal(err)
		}
	}
	testutil.ReportCPU(b, c0)
}
