package sets

import (
	"fmt"
	"slices"
	"testing"

	"transitbench/data"
)

func TestParseMiniTask(t *testing.T) {
	good := map[string]string{"mini-dev-00000000": Dev, "mini-dev-00000031": Dev, "mini-train-00000000": Train,
		"mini-train-12345678": Train, "mini-train-123456789": Train}
	for id, pool := range good {
		if p, _, err := ParseMiniTask(id); err != nil || p != pool {
			t.Errorf("ParseMiniTask(%q) = %q, %v", id, p, err)
		}
	}
	for _, id := range []string{"mini-dev-00000032", "mini-dev-7", "mini-train-0000001", "mini-train-000000001",
		"mini-train--0000001", "mini-train-+0000001", "mini-test-00000000", "dev-00000000", "mini-train-", ""} {
		if _, _, err := ParseMiniTask(id); err == nil {
			t.Errorf("ParseMiniTask(%q) accepted", id)
		}
	}
}

func TestMiniTasks(t *testing.T) {
	home := t.TempDir()
	opt := Options{gen: &fakeGen{}} // the standard dev composition, made by the fast fake generator
	seen := map[string]bool{}
	for i := range MiniDevTasks {
		id := fmt.Sprintf("mini-dev-%08d", i)
		m, err := OpenMiniTask(home, id, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Labelled) != MiniLabelled || len(m.Hidden) != MiniHidden || m.Pool != Dev ||
			m.HiddenSet.Name != MiniPool || !m.HiddenSet.Hidden() {
			t.Fatalf("%s: %d labelled, %d hidden, pool %s, hidden pool %s", id, len(m.Labelled), len(m.Hidden), m.Pool, m.HiddenSet.Name)
		}
		planets := 0
		for _, h := range m.Hidden {
			if _, public := m.Set.Answers[h]; public {
				t.Errorf("%s: hidden star %s is in the public pool", id, h)
			}
			a := m.HiddenSet.Answers[h]
			if !a.Scored {
				t.Errorf("%s: hidden star %s is not scored", id, h)
			}
			if a.Category == data.CategoryInjected {
				planets += len(a.ScoredPlanets())
			}
			if slices.Contains(m.Labelled, h) {
				t.Errorf("%s: %s is both labelled and hidden", id, h)
			}
		}
		if planets != MiniPlanets {
			t.Errorf("%s: hidden stars hold %d planets, want %d", id, planets, MiniPlanets)
		}
		key := fmt.Sprint(m.Hidden)
		if seen[key] {
			t.Errorf("%s repeats another task's hidden stars", id)
		}
		seen[key] = true
		again, _ := OpenMiniTask(home, id, opt)
		if !slices.Equal(again.Hidden, m.Hidden) || !slices.Equal(again.Labelled, m.Labelled) {
			t.Errorf("%s is not deterministic", id)
		}
	}
	m, err := OpenMiniTask(home, "mini-train-00004242", Options{Stars: 100, gen: &fakeGen{}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Pool != Train || m.Labelled[0][:6] != "train-" {
		t.Errorf("mini-train task drew from %s: %v", m.Pool, m.Labelled)
	}
	if _, err := OpenMiniTask(home, "mini-dev-00000099", opt); err == nil {
		t.Error("mini-dev-00000099 accepted")
	}
	if _, err := OpenMiniTask(t.TempDir(), "mini-train-00000001", Options{Stars: 100, gen: &fakeGen{},
		MiniPool: &Composition{Injected: 7, Untouched: 9, EB: 1, Confirmed: 1}}); err == nil {
		t.Error("a secret pool with 7 planets accepted for mini tasks")
	}
	// The hidden stars are a function of the secret seed: another data directory (another seed) draws the
	// task's hidden stars from another pool, while its labelled stars are the same public ones.
	other, err := OpenMiniTask(t.TempDir(), "mini-dev-00000003", opt)
	if err != nil {
		t.Fatal(err)
	}
	m, err = OpenMiniTask(home, "mini-dev-00000003", opt)
	if err != nil {
		t.Fatal(err)
	}
	if other.HiddenSet.Fingerprint == m.HiddenSet.Fingerprint || other.Set.Fingerprint != m.Set.Fingerprint ||
		!slices.Equal(other.Labelled, m.Labelled) {
		t.Errorf("secret pools %.12s and %.12s, public pools %.12s and %.12s", other.HiddenSet.Fingerprint,
			m.HiddenSet.Fingerprint, other.Set.Fingerprint, m.Set.Fingerprint)
	}
}

func TestMiniReward(t *testing.T) {
	// SPEC A8: clip((credit − false)/8, −1, 1).
	cases := []struct{ credit, fa, want float64 }{{8, 0, 1}, {4, 2, 0.25}, {0, 20, -1}, {8.5, 0, 1}, {0.5, 0, 0.0625}}
	for _, c := range cases {
		if got := MiniReward(c.credit, c.fa); got != c.want {
			t.Errorf("MiniReward(%v, %v) = %v, want %v", c.credit, c.fa, got, c.want)
		}
	}
}

// TestMiniPoolIsHidden checks that the secret pool counts as a hidden set everywhere IsHidden decides (star,
// failing, plots, the agent server's star_info, workspaces), alongside A and B, and that the public pools do not.
func TestMiniPoolIsHidden(t *testing.T) {
	for name, want := range map[string]bool{A: true, B: true, MiniPool: true, Dev: false, Train: false, "k90": false} {
		if IsHidden(name) != want {
			t.Errorf("IsHidden(%q) = %v, want %v", name, !want, want)
		}
	}
}
