package sim_test

import (
	"testing"

	"transitbench/data"
	"transitbench/data/sim"
)

// benchmarkGenerate generates a cycle of 16 different stars of one category and population.
func benchmarkGenerate(b *testing.B, category, population string) {
	k := sim.DefaultKnobs()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		spec := sim.Spec{Set: "bench", Index: i % 16, Seed: uint64(i%16) + 1, Category: category, Population: population, ID: "bench"}
		if _, err := sim.Generate(spec, k); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGenerateInjectedRandom(b *testing.B) {
	benchmarkGenerate(b, data.CategoryInjected, data.PopulationRandom)
}
func BenchmarkGenerateInjectedFalseAlarm(b *testing.B) {
	benchmarkGenerate(b, data.CategoryInjected, data.PopulationFalseAlarm)
}
func BenchmarkGenerateUntouchedRandom(b *testing.B) {
	benchmarkGenerate(b, data.CategoryUntouched, data.PopulationRandom)
}
func BenchmarkGenerateUntouchedFalseAlarm(b *testing.B) {
	benchmarkGenerate(b, data.CategoryUntouched, data.PopulationFalseAlarm)
}
func BenchmarkGenerateEB(b *testing.B)        { benchmarkGenerate(b, data.CategoryEB, "") }
func BenchmarkGenerateConfirmed(b *testing.B) { benchmarkGenerate(b, data.CategoryConfirmed, "") }

func BenchmarkCadences(b *testing.B) {
	k := sim.DefaultKnobs()
	for i := 0; b.Loop(); i++ {
		sim.Cadences(sim.Spec{Seed: uint64(i%16) + 1, Category: data.CategoryUntouched, Population: data.PopulationRandom}, k)
	}
}
