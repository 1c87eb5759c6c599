//go:build linux

package report

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"syscall"
	"testing"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/grader"
	"transitbench/grader/store"
	"transitbench/workspace"
)

// benchHome makes a data directory of 10 runs: 4 dev runs of a workspace on a 5-star dev set (run in the
// sandbox), and 2 gradings of it, each a run on A and on B of 500 hidden stars and a run on the dev stars. The
// 2,000 hidden-set outcomes go through the store as a grading stores them (sealed per star while the run runs);
// the second grading's B run was interrupted, so its 500 sealed states stay, and it shows no score.
func benchHome(b *testing.B) string {
	b.Helper()
	base := b.TempDir()
	home := filepath.Join(base, "home")
	comp := map[string]sets.Composition{sets.Dev: {Injected: 2, Untouched: 1, EB: 1, Confirmed: 1}}
	ws, err := workspace.Init(filepath.Join(base, "ws"), workspace.InitOptions{Home: home, Lang: "python", Compositions: comp})
	if err != nil {
		b.Fatal(err)
	}
	c := comp[sets.Dev]
	dev, err := sets.Open(home, sets.Dev, sets.Options{Composition: &c})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	opt := workspace.RunOptions{Home: home, Workers: 2, Compositions: comp}
	var last *workspace.Report
	for i := range 4 {
		if err := oracle(ws.SolutionDir(), "", dev.Answers, 1+i%2); err != nil {
			b.Fatal(err)
		}
		if last, err = ws.Dev(ctx, opt, nil); err != nil {
			b.Fatal(err)
		}
	}
	st, err := workspace.OpenStore(home)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	outs, err := st.Outcomes(ctx, last.RunID)
	if err != nil {
		b.Fatal(err)
	}
	for g := 1; g <= 2; g++ {
		for _, set := range []string{sets.A, sets.B} {
			fakeHiddenRun(b, st, ws.Root, set, g, g == 2 && set == sets.B)
		}
		id, err := st.CreateRun(ctx, store.Run{Kind: store.KindGrade, Set: sets.Dev, Label: ws.Root, Grading: g, Stars: len(outs)})
		if err != nil {
			b.Fatal(err)
		}
		for _, o := range outs {
			o.RunID = id
			if err := st.PutOutcome(ctx, o); err != nil {
				b.Fatal(err)
			}
		}
		if err := st.FinishRun(ctx, id, store.StatusDone, mustJSON(b, last)); err != nil {
			b.Fatal(err)
		}
	}
	return home
}

// fakeHiddenRun records a grading's run on a hidden set of 500 stars: a sealed state per star as the runner
// keeps it, then the run's aggregates when it finishes (unless interrupted).
func fakeHiddenRun(b *testing.B, st *store.Store, label, set string, grading int, interrupted bool) {
	b.Helper()
	ctx := context.Background()
	id, err := st.CreateRun(ctx, store.Run{Kind: store.KindGrade, Set: set, Label: label, Grading: grading, Stars: 500, Hidden: true})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(grading), uint64(len(set))))
	var results []grader.StarResult
	exits := map[string]int{}
	for i := range 500 {
		sr := grader.StarResult{Scored: true, Category: data.CategoryUntouched, Population: data.PopulationRandom}
		if i%2 == 0 {
			sr.Category, sr.Credit = data.CategoryInjected, float64(rng.IntN(2))
			sr.Planets = []grader.PlanetResult{{MES: 5 + 15*rng.Float64(), Credit: sr.Credit}}
		}
		results = append(results, sr)
		exits["ok"]++
		state := fmt.Appendf(nil, `{"scored":true,"category":%q,"rows":1,"credit":%g,"exit":"ok","runtime_ms":%d}`, sr.Category, sr.Credit, rng.IntN(5000))
		if err := st.PutHiddenOutcome(ctx, id, fmt.Sprintf("%s-%04d", set, i), state); err != nil {
			b.Fatal(err)
		}
	}
	if interrupted {
		if err := st.FinishRun(ctx, id, store.StatusCancelled, nil); err != nil {
			b.Fatal(err)
		}
		return
	}
	rep := &workspace.Report{RunID: id, Set: set, Hidden: true, StarsRun: 500, Summary: grader.Summarize(results), Exits: exits,
		Slowest: []float64{4.9, 4.8, 4.8, 4.7, 4.7}, Grading: grading, Complete: true, Seconds: 600}
	if err := st.FinishRun(ctx, id, store.StatusDone, mustJSON(b, rep)); err != nil {
		b.Fatal(err)
	}
}

// cpuSeconds is the user and system CPU time of this process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func mustJSON(b *testing.B, v any) json.RawMessage {
	j, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return j
}

// BenchmarkBuild writes the site of benchHome's data directory: 10 runs (2,000 hidden-set outcomes), 5 dev
// star pages. It fails when the site weighs 20 MB or more; MB/site is its weight.
func BenchmarkBuild(b *testing.B) {
	home := benchHome(b)
	site, err := Open(Options{Home: home, NoCache: true, Baselines: filepath.Join("..", "..", "results", "baselines.json")})
	if err != nil {
		b.Fatal(err)
	}
	defer site.Close()
	runs, err := site.runs(context.Background())
	if err != nil || len(runs) != 10 {
		b.Fatalf("the benchmark's data directory has %d runs (%v), want 10", len(runs), err)
	}
	var res *BuildResult
	cpu0 := cpuSeconds()
	for i := 0; b.Loop(); i++ {
		if res, err = site.Build(context.Background(), filepath.Join(b.TempDir(), fmt.Sprint(i)), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.Bytes)/1e6, "MB/site")
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op") // the wall time depends on what else the machine runs
	if res.Bytes >= 20e6 {
		b.Fatalf("the site weighs %.1f MB", float64(res.Bytes)/1e6)
	}
}
