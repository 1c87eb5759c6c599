package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/internal/testsets"
	"transitbench/workspace"
)

// TestStarPageShowsTheFalseAlarm builds a small dev set and checks that the page of a false-alarm star names
// the planted signal as the set's answers state it (what star_info of the agent server shows), that a random
// star's page has none, and that a hidden star gets no page.
func TestStarPageShowsTheFalseAlarm(t *testing.T) {
	home := emptyHome(t)
	comp := map[string]sets.Composition{sets.Dev: testsets.Small()[sets.Dev]}
	answers, _, err := testsets.Open(home, comp)
	if err != nil {
		t.Fatal(err)
	}
	var fa, random string
	for id, a := range answers[sets.Dev] {
		switch {
		case a.FalseAlarm != nil && a.FalseAlarm.PeriodDays > 0 && fa == "":
			fa = id
		case a.Population == data.PopulationRandom && a.FalseAlarm == nil && random == "":
			random = id
		}
	}
	if fa == "" || random == "" {
		t.Fatalf("the small dev set has no periodic false-alarm star (%q) or no random star (%q)", fa, random)
	}
	s, err := Open(Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var page bytes.Buffer
	if err := s.writeStar(ctx, &page, fa, false); err != nil {
		t.Fatal(err)
	}
	want := answers[sets.Dev][fa].FalseAlarm
	line := fmt.Sprintf(`<dd id="false-alarm">%s: P = %.5f d`, want.Kind, want.PeriodDays)
	if !strings.Contains(page.String(), line) {
		t.Errorf("the page of %s lacks %q", fa, line)
	}
	page.Reset()
	if err := s.writeStar(ctx, &page, random, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.String(), `id="false-alarm"`) {
		t.Errorf("the page of random star %s shows a false-alarm signal", random)
	}
	if err := s.writeStar(ctx, &page, "A-0000", false); !errors.Is(err, workspace.ErrHiddenStar) {
		t.Errorf("a hidden star's page: %v, want ErrHiddenStar", err)
	}
}
