package sets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainPlanetRecorded: the train pool's manifest records TrainPlanet (the other sets' do not), the opened
// set reports it, and a pool built with other train-only knobs is refused as stale with the rebuild command.
func TestTrainPlanetRecorded(t *testing.T) {
	home := t.TempDir()
	s := openFake(t, home, Train, Options{Composition: &small})
	if s.TrainPlanet == nil || *s.TrainPlanet != TrainPlanet {
		t.Fatalf("train pool's TrainPlanet %v, want %v", s.TrainPlanet, TrainPlanet)
	}
	if d := openFake(t, home, Dev, Options{Composition: &small}); d.TrainPlanet != nil {
		t.Errorf("dev records train-only knobs %v", d.TrainPlanet)
	}
	path := filepath.Join(setDir(home, Train), manifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.Replace(string(b), `"high_mes_share": 0.5`, `"high_mes_share": 0.25`, 1))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Open(home, Train, Options{gen: &fakeGen{}})
	if !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "--set train --force") {
		t.Errorf("a pool built with other train-only knobs: %v, want ErrStale with the rebuild command", err)
	}
}
