package sim_test

import (
	"syscall"
	"testing"
	"time"

	"transitbench/data"
	"transitbench/data/sim"
)

// benchmarkGenerate generates a cycle of 16 different stars of one category and population. Besides wall
// time it reports the process's CPU time per star (cpu-ms/op), which a busy machine inflates less.
func benchmarkGenerate(b *testing.B, category, population string) {
	k := sim.DefaultKnobs()
	b.ReportAllocs()
	cpu0 := cpuTime()
	n := 0
	for i := 0; b.Loop(); i++ {
		spec := sim.Spec{Set: "bench", Index: i % 16, Seed: uint64(i%16) + 1, Category: category, Population: population, ID: "bench"}
		if _, err := sim.Generate(spec, k); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(n), "cpu-ms/op")
}

// cpuTime returns the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
