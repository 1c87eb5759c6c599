package sim

import (
	"fmt"
	"testing"
	"time"

	"transitbench/data"
	"transitbench/engine/lc"
)

func TestSmoke(t *testing.T) {
	k := DefaultKnobs()
	for _, cat := range []string{"injected", "untouched", "eb", "confirmed"} {
		pop := ""
		if cat == "injected" || cat == "untouched" {
			pop = data.PopulationRandom
		}
		var tot time.Duration
		counted := 0
		for i := 0; i < 20; i++ {
			p := pop
			if pop != "" && i%2 == 1 {
				p = data.PopulationFalseAlarm
			}
			s := Spec{Set: "x", Index: i, Seed: uint64(1000 + i), Category: cat, Population: p, ID: fmt.Sprint(i)}
			t0 := time.Now()
			res, err := Generate(s, k)
			tot += time.Since(t0)
			if err != nil {
				t.Fatal(err)
			}
			nv := 0
			for j := range res.Curve.Time {
				if res.Curve.Quality[j]&lc.DefaultQualityMask == 0 {
					nv++
				}
			}
			if i < 5 || cat == "eb" {
				line := fmt.Sprintf("%s %d n=%d valid=%d kp=%.1f teff=%.0f R=%.2f M=%.2f cdpp=%v", cat, i, len(res.Curve.Time), nv, res.Star.Kepmag, res.Star.Teff, res.Star.RadiusRsun, res.Star.MassMsun, res.Star.CDPPppm)
				if a := res.Answer.Planet; a != nil {
					line += fmt.Sprintf(" P=%.2f mes=%.2f k=%.4f dur=%.3f N=%d", a.PeriodDays, a.MES, a.RpRs, a.DurationDays, a.NTransits)
				}
				if a := res.Answer.EB; a != nil {
					line += fmt.Sprintf(" EB P=%.2f %s dp=%.4f ds=%.4f %v", a.PeriodDays, a.Morphology, a.PrimaryDepth, a.SecondaryDepth, a.Giveaway)
				}
				if a := res.Answer.FalseAlarm; a != nil {
					line += fmt.Sprintf(" FA %s P=%.3f", a.Kind, a.PeriodDays)
				}
				t.Log(line)
			}
			if res.Answer.EB != nil && res.Answer.EB.Counted {
				counted++
			}
		}
		t.Logf("%s: mean %v per star; counted %d", cat, tot/20, counted)
	}
}
