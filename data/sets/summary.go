package sets

import "transitbench/data"

// Summary counts a set's stars, as 'transitbench data summary --json' prints it. Categories counts stars by
// category; Populations counts the injected and untouched stars by population; ScoredStars the stars that count
// for scoring; Planets the scored planets (one per scored injected star); CountedEBs the eclipsing binaries
// whose year of data gives them away (SPEC A4).
type Summary struct {
	Set         string      `json:"set"`
	Kind        string      `json:"kind"`
	Generator   string      `json:"generator"`
	Hidden      bool        `json:"hidden"`
	Stars       int         `json:"stars"`
	Categories  Composition `json:"categories"`
	Populations Populations `json:"populations"`
	ScoredStars int         `json:"scored_stars"`
	Planets     int         `json:"planets"`
	CountedEBs  int         `json:"counted_ebs"`
	Fingerprint string      `json:"fingerprint"`
}

// Populations counts stars by population (SPEC A2).
type Populations struct {
	Random     int `json:"random"`
	FalseAlarm int `json:"false_alarm"`
}

// Summary counts the set's stars from its answers.
func (s *Set) Summary() Summary {
	out := Summary{Set: s.Name, Kind: s.Kind, Generator: s.Generator, Hidden: s.hidden, Stars: len(s.IDs),
		Fingerprint: s.Fingerprint}
	for _, id := range s.IDs {
		a := s.Answers[id]
		out.Categories.add(a.Category)
		if a.Category == data.CategoryEB && a.EB != nil && a.EB.Counted {
			out.CountedEBs++
		}
		switch a.Population {
		case data.PopulationRandom:
			out.Populations.Random++
		case data.PopulationFalseAlarm:
			out.Populations.FalseAlarm++
		}
		if a.Scored {
			out.ScoredStars++
		}
		out.Planets += len(a.ScoredPlanets())
	}
	return out
}
