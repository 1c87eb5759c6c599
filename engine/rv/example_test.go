package rv_test

import (
	"fmt"
	"math"

	"transitbench/engine/rv"
)

// Example shows the path a front end takes: a series, its periodogram, a fit from the strongest peak and the
// model's statistics.
func Example() {
	// A circular 12-day planet with K = 5 m/s, sampled every 1.7 days, no noise (σ = 1 m/s quoted).
	n := 60
	t, y, s := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		t[i] = 1.7 * float64(i)
		s[i] = 1
	}
	rv.Planet{PeriodDays: 12, KMS: 5, M0Rad: 1}.AddRV(y, t, t[0])
	d, _ := rv.NewData(t, y, s, nil)

	freq := rv.FrequencyGrid(d.Span(), 2, 300, 10)
	power := rv.GLS(nil, d.Times, d.RVs, d.Sigmas, freq)
	peak := rv.TopPeaks(freq, power, 1, 0.08)[0]
	fmt.Printf("peak at %.1f d, FAP < 1e-10: %v\n", peak.PeriodDays, rv.FAP(peak.Power, n, d.Span(), freq[len(freq)-1]-freq[0]) < 1e-10)

	k, m0 := rv.CircularStart(d, d.RVs, peak.PeriodDays)
	fit, _ := rv.Fit(d, []rv.Planet{{PeriodDays: peak.PeriodDays, KMS: k, M0Rad: m0}}, rv.FitOptions{})
	p := fit.Planets[0]
	fmt.Printf("P = %.3f d, K = %.3f m/s, rms %.0e m/s\n", p.PeriodDays, p.KMS, math.Round(fit.RMS*1e6)/1e6)
	// Output:
	// peak at 12.0 d, FAP < 1e-10: true
	// P = 12.000 d, K = 5.000 m/s, rms 0e+00 m/s
}
