package stargazer

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/engine/rv"
)

// FuzzParseTask checks the task reader on arbitrary bytes, seeded with published tasks (the three smallest
// synthetic ones, a seven-planet one and two real ones). Parse must fail with ErrBadTask naming the file, or
// return a task whose series have equal lengths, finite times, RVs and σ > 0 within the limits, a positive star
// mass and truth planets with 0 < P, 0 ≤ e < 1, 0 < i ≤ π; converting it must then succeed or fail with the
// N-body step budget (never run unbounded), and leave finite RVs.
func FuzzParseTask(f *testing.F) {
	for _, id := range []string{"synthetic/seed49_diff5", "synthetic/seed36_diff8", "synthetic/seed33_diff7",
		"synthetic/seed10_diff10", "real/real_020", "real/real_010"} {
		b, err := os.ReadFile(filepath.Join(sharedDir, id+".json"))
		if err != nil {
			f.Fatalf("reference data missing (expected beside the repository in ../shared/data): %v", err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"observations":{"times_days":[0,1],"rvs_ms":[1,null],"sigmas_ms":[1,1]},"config":{"star":{"M_star_sun":1}}}`))
	f.Add([]byte(`{"observations":{"times_days":[0,1e308],"rvs_ms":[1,2],"sigmas_ms":[1,1]},"config":{"star":{"M_star_sun":1},"planets":[{"P_days":1,"e":0,"inc_rad":1,"m_sin_i_mjup":1,"omega_rad":0,"Omega_rad":0,"l_rad":0}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		task, err := Parse(b, "fuzz.json")
		if err != nil {
			if !errors.Is(err, ErrBadTask) || !strings.Contains(err.Error(), "fuzz.json") {
				t.Fatalf("error %q: want ErrBadTask naming the file", err)
			}
			return
		}
		o := task.Observations
		n := len(o.TimesDays)
		if n == 0 || len(o.RVsMS) != n || len(o.SigmasMS) != n || len(o.Instruments) != n {
			t.Fatalf("lengths %d %d %d %d", n, len(o.RVsMS), len(o.SigmasMS), len(o.Instruments))
		}
		for i := range n {
			if !(math.Abs(o.TimesDays[i]) <= MaxTimeDays) || !(math.Abs(o.RVsMS[i]) <= MaxVelocityMS) ||
				!(o.SigmasMS[i] >= MinSigmaMS && o.SigmasMS[i] <= MaxVelocityMS) {
				t.Fatalf("point %d accepted: t=%g rv=%g σ=%g", i, o.TimesDays[i], o.RVsMS[i], o.SigmasMS[i])
			}
		}
		if m := task.Config.Star.MStarSun; !(m > 0 && m <= MaxStarMassSun) {
			t.Fatalf("star mass %g accepted", m)
		}
		for k, p := range task.Config.Planets {
			if !(p.PDays > 0 && p.PDays <= MaxPeriodDays) || !(p.E >= 0 && p.E < 1) || !(p.IncRad > 0 && p.IncRad <= math.Pi) ||
				!(p.MSinIMJup > 0) {
				t.Fatalf("planet %d accepted: %+v", k, p)
			}
		}
		// The null model's χ² and likelihood stay finite (they are printed as JSON), and Data does not panic.
		if ev := task.Data().Evaluate(nil, 0); math.IsNaN(ev.LnL) || math.IsInf(ev.LnL, 0) || math.IsInf(ev.RMS, 0) {
			t.Fatalf("null model: lnL %g, rms %g", ev.LnL, ev.RMS)
		}
		checkConverts(t, task, "")
	})
}

// checkConverts converts task, which must end converted with finite RVs or stopped by the N-body step budget;
// a failure message starts with format filled in with args (the task's description).
func checkConverts(t *testing.T, task *Task, format string, args ...any) {
	t.Helper()
	if err := task.Convert(); err != nil {
		if !errors.Is(err, rv.ErrNBodySteps) {
			t.Fatalf(format+"conversion failed otherwise than by the step budget: %v", append(args, err)...)
		}
		return
	}
	for i, v := range task.Observations.RVsMS {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf(format+"converted RV %d is %g", append(args, i, v)...)
		}
	}
}

// FuzzTaskValues puts fuzzed numbers into one planet and one observation of a published task (seed10_diff10,
// the close pair at 296 and 300 d that needs the N-body conversion) and reads it as a file would be: Parse must
// refuse the values outside its limits with ErrBadTask, and for the values it accepts the conversion must end
// (converted, or stopped by the N-body step budget) with finite RVs. This reaches the integrator with what JSON
// mutation rarely builds: tiny periods, near-parabolic orbits, near-zero inclinations, large times.
func FuzzTaskValues(f *testing.F) {
	b, err := os.ReadFile(filepath.Join(sharedDir, "synthetic", "seed10_diff10.json"))
	if err != nil {
		f.Fatalf("reference data missing (expected beside the repository in ../shared/data): %v", err)
	}
	base, err := Parse(b, "seed10_diff10.json")
	if err != nil {
		f.Fatal(err)
	}
	p := base.Config.Planets[0]
	f.Add(p.PDays, p.E, p.IncRad, p.MSinIMJup, base.Observations.TimesDays[3], base.Observations.SigmasMS[3])
	f.Add(1e-6, 0.0, 1.5, 1.0, 10.0, 1.0)        // a period of 0.09 s
	f.Add(300.0, 0.999999, 1.5, 8.0, 10.0, 1.0)  // near-parabolic
	f.Add(296.0, 0.1, 1e-300, 1e-300, 10.0, 1.0) // edge-on mass from a vanishing inclination
	f.Add(296.0, 0.1, 1.5, 1.0, 9.9e6, 1.0)      // a time near the limit
	f.Fuzz(func(t *testing.T, pDays, e, inc, mSinI, time, sigma float64) {
		task := *base
		task.Config.Planets = append([]TruthPlanet(nil), base.Config.Planets...)
		task.Observations.TimesDays = append([]float64(nil), base.Observations.TimesDays...)
		task.Observations.SigmasMS = append([]float64(nil), base.Observations.SigmasMS...)
		pl := &task.Config.Planets[0]
		pl.PDays, pl.E, pl.IncRad, pl.MSinIMJup = pDays, e, inc, mSinI
		task.Observations.TimesDays[3], task.Observations.SigmasMS[3] = time, sigma
		js, err := json.Marshal(task)
		if err != nil {
			return // NaN or ±Inf cannot be written as JSON, so no file holds them
		}
		got, err := Parse(js, "fuzz.json")
		inside := pDays > 0 && pDays <= MaxPeriodDays && e >= 0 && e < 1 && inc > 0 && inc <= math.Pi && mSinI > 0 &&
			mSinI/math.Sin(inc) <= MaxTrueMassMJup && math.Abs(time) <= MaxTimeDays && sigma >= MinSigmaMS && sigma <= MaxVelocityMS
		if (err == nil) != inside {
			t.Fatalf("P=%g e=%g i=%g m=%g t=%g σ=%g: inside the limits %v, Parse error %v", pDays, e, inc, mSinI, time, sigma, inside, err)
		}
		if err != nil {
			if !errors.Is(err, ErrBadTask) {
				t.Fatalf("error %v does not wrap ErrBadTask", err)
			}
			return
		}
		checkConverts(t, got, "P=%g e=%g i=%g m=%g t=%g: ", pDays, e, inc, mSinI, time)
	})
}
