package sets

import (
	"path/filepath"
	"testing"
)

// benchmarkBuild builds set name with the real simulator in a fresh data directory per iteration. Besides the
// wall-clock time it reports the process's CPU time per build (cpu-s/op), which a busy machine does not inflate:
// on n idle cores the build takes about cpu-s/op ÷ n.
func benchmarkBuild(b *testing.B, name string) {
	var cpu float64
	n := 0
	for b.Loop() {
		b.StopTimer()
		home := b.TempDir()
		b.StartTimer()
		c0 := cpuSeconds()
		s, err := Open(home, name, Options{})
		if err != nil {
			b.Fatal(err)
		}
		cpu += cpuSeconds() - c0
		n++
		b.ReportMetric(float64(len(s.IDs)), "stars")
	}
	b.ReportMetric(cpu/float64(n), "cpu-s/op")
}

// BenchmarkBuildDev builds the 196-star dev set (SPEC A2); run with -benchtime=1x -count=5 for a median.
func BenchmarkBuildDev(b *testing.B) { benchmarkBuild(b, Dev) }

// BenchmarkBuildA builds the 1,000-star hidden set A; run with -benchtime=1x -count=3.
func BenchmarkBuildA(b *testing.B) { benchmarkBuild(b, A) }

// openSmall opens a 12-star simulated set for the per-star benchmarks.
func openSmall(b *testing.B) *Set {
	comp := Composition{Injected: 4, Untouched: 4, EB: 2, Confirmed: 2}
	s, err := Open(b.TempDir(), "bench", Options{Composition: &comp})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkStar materialises a star that is not in the cache (the simulator's cost per star).
func BenchmarkStar(b *testing.B) {
	s := openSmall(b)
	i := 0
	for b.Loop() {
		if _, _, err := s.Star(s.IDs[i%len(s.IDs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkValidTimes computes one star's valid times from its calendar alone.
func BenchmarkValidTimes(b *testing.B) {
	s := openSmall(b)
	i := 0
	for b.Loop() {
		if _, err := s.ValidTimes(s.IDs[i%len(s.IDs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkWriteStarDir writes one star's directory, regenerating it and checking its digest.
func BenchmarkWriteStarDir(b *testing.B) {
	s := openSmall(b)
	dir := b.TempDir()
	i := 0
	for b.Loop() {
		id := s.IDs[i%len(s.IDs)]
		if err := s.WriteStarDir(id, filepath.Join(dir, id)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkOpenA loads and checks a built 1,000-star hidden set (made by the fast test generator): manifest,
// checksums, fingerprint, secret seed and plan.
func BenchmarkOpenA(b *testing.B) {
	home := b.TempDir()
	if _, err := Open(home, A, Options{gen: &fakeGen{}}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Open(home, A, Options{gen: &fakeGen{}}); err != nil {
			b.Fatal(err)
		}
	}
}
