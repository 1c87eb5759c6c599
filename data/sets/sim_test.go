package sets

import (
	"testing"

	"transitbench/data"
	"transitbench/data/sim"
)

// TestSimulatedSet builds a small set with the real simulator in two data directories, with one and with three
// workers, and checks that the fingerprints agree, the answers follow the plan, and ValidTimes matches the
// materialised light curves.
func TestSimulatedSet(t *testing.T) {
	comp := Composition{Injected: 2, Untouched: 2, EB: 1, Confirmed: 1}
	var sets []*Set
	for _, workers := range []int{1, 3} { // the order stars finish in must not matter
		s, err := Open(t.TempDir(), "simtest", Options{Composition: &comp, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, s)
	}
	s := sets[0]
	if s.Fingerprint != sets[1].Fingerprint {
		t.Fatalf("two builds with the simulator differ: %s vs %s", s.Fingerprint, sets[1].Fingerprint)
	}
	if s.Generator != sim.Version {
		t.Errorf("generator %q, want %q", s.Generator, sim.Version)
	}
	sum := s.Summary()
	if sum.Categories != comp {
		t.Errorf("categories %+v, want %+v", sum.Categories, comp)
	}
	// Populations: ⌈n/2⌉ random among injected and among untouched stars.
	if sum.Populations != (Populations{Random: 2, FalseAlarm: 2}) {
		t.Errorf("populations %+v", sum.Populations)
	}
	for _, id := range s.IDs {
		a := s.Answers[id]
		if a.Category == data.CategoryInjected && (a.Planet == nil || !a.Scored) {
			t.Errorf("%s: injected star without a scored planet: %+v", id, a)
		}
		vt, err := s.ValidTimes(id)
		if err != nil {
			t.Fatal(err)
		}
		in, _ := s.Info(id)
		// SPEC A3: a year holds ≈ 16–17 k valid cadences; a loose band catches a broken calendar.
		if len(vt) != in.ValidCadences || len(vt) < 14000 || len(vt) > 19000 {
			t.Errorf("%s: %d valid times, info says %d", id, len(vt), in.ValidCadences)
		}
	}
	if err := s.WriteStarDir(s.IDs[0], t.TempDir()); err != nil {
		t.Errorf("regenerated star does not match its digest: %v", err)
	}
}
