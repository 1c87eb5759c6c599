package sets

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"sync/atomic"

	"transitbench/data"
	"transitbench/engine/lc"
)

// fakeGen is a small, fast stand-in for the simulator: a 600-cadence calendar with a desaturation flag every
// 150 cadences, Gaussian flux, and answers that follow the category. Only tests use it; it keeps builds of
// hundreds of stars well under a second.
type fakeGen struct {
	ver   string
	calls atomic.Int64 // generate calls
	drift atomic.Bool  // when set, output changes between calls (a non-deterministic generator)
}

const fakeCadences = 600

func (g *fakeGen) version() string {
	if g.ver == "" {
		return "fake-1"
	}
	return g.ver
}

func (g *fakeGen) cadences(sp starSpec) ([]float64, []int32) {
	t := make([]float64, fakeCadences)
	q := make([]int32, fakeCadences)
	start := 131.5 + float64(sp.Seed%7)*0.01
	for i := range t {
		t[i] = start + float64(i)*lc.CadenceDays
		if i%150 == 149 {
			q[i] = lc.QDesaturation
		}
		if i%97 == 3 {
			q[i] |= lc.QRollingBand // not in the default mask: stays valid
		}
	}
	return t, q
}

func (g *fakeGen) generate(sp starSpec) (*starResult, error) {
	g.calls.Add(1)
	t, q := g.cadences(sp)
	r := rand.New(rand.NewPCG(sp.Seed, 1))
	c := &lc.LightCurve{Time: t, Quality: q, Flux: make([]float64, len(t)), FluxErr: make([]float64, len(t))}
	bump := 0.0
	if g.drift.Load() {
		bump = float64(g.calls.Load()) * 1e-3
	}
	for i := range t {
		c.FluxErr[i] = 1e-4
		c.Flux[i] = 1 + 1e-4*r.NormFloat64() + bump
		if q[i]&lc.DefaultQualityMask != 0 {
			c.Flux[i] = math.NaN()
		}
	}
	a := data.Answer{Category: sp.Category, Population: sp.Population}
	switch sp.Category {
	case data.CategoryInjected:
		a.Scored = true
		a.Planet = &data.Planet{PeriodDays: 1 + 3*r.Float64(), T0Days: 132, DurationDays: 0.1, Depth: 1e-3,
			RpRs: 0.03, B: 0.3, MES: 4 + 16*r.Float64(), NTransits: 3}
	case data.CategoryUntouched:
		a.Scored = true
	case data.CategoryEB:
		counted := r.IntN(2) == 0
		a.Scored = counted
		a.EB = &data.EB{PeriodDays: 2, T0Days: 132, PrimaryDepth: 0.1, Counted: counted, Morphology: "detached"}
		if counted {
			a.EB.Giveaway = []string{"secondary"}
		}
	case data.CategoryConfirmed:
		a.Confirmed = []data.Planet{{PeriodDays: 5, T0Days: 133, DurationDays: 0.1, Depth: 5e-4}}
	}
	st := data.Star{Kepmag: 12 + 4*r.Float64(), Teff: 5000 + 1000*r.Float64(), Logg: 4.4, RadiusRsun: 1,
		MassMsun: 1, CDPPppm: map[string]float64{"3.0": 100, "6.0": 70, "12.0": 50}, CadenceDays: lc.CadenceDays,
		TimeSystem: "BKJD"}
	return &starResult{Curve: c, Star: st, Answer: a}, nil
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
