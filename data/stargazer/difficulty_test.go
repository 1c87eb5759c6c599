package stargazer

import "testing"

// TestDifficultyMatchesPublished recomputes the difficulty of every published synthetic task from its
// configuration and observation times and compares it with the stored truth_difficulty and the stored
// raw_score of difficulty_details.
func TestDifficultyMatchesPublished(t *testing.T) {
	for _, task := range readRaw(t) {
		got, dd := Difficulty(task.Config.Planets, task.Config.Star.MStarSun, task.Config.Noise, task.Observations.TimesDays)
		if got != task.TruthDifficulty {
			t.Errorf("%s: difficulty %d, published %d (%+v)", task.TaskID, got, task.TruthDifficulty, dd)
		}
		if raw, ok := task.DifficultyDetails["raw_score"].(float64); !ok || int(raw) != dd.RawScore {
			t.Errorf("%s: raw score %d, published %v", task.TaskID, dd.RawScore, task.DifficultyDetails["raw_score"])
		}
		if n, _ := task.DifficultyDetails["resonances_detected"].(float64); int(n) != dd.ResonancesDetected {
			t.Errorf("%s: %d resonances, published %v", task.TaskID, dd.ResonancesDetected, n)
		}
	}
}

// TestDifficultyUnchangedByConversion checks that the load-time conversion leaves the difficulty alone (it
// changes l and Ω only, which the score does not use).
func TestDifficultyUnchangedByConversion(t *testing.T) {
	for _, task := range readRaw(t)[:10] {
		if err := task.Convert(); err != nil {
			t.Fatal(err)
		}
		if got, _ := Difficulty(task.Config.Planets, task.Config.Star.MStarSun, task.Config.Noise, task.Observations.TimesDays); got != task.TruthDifficulty {
			t.Errorf("%s: difficulty %d after conversion, published %d", task.TaskID, got, task.TruthDifficulty)
		}
	}
}
