package baselines

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/engine/gbt"
	"transitbench/engine/pipeline"
)

// TestLabelPeakFollowsTheGrader: a peak at the true ephemeris (or a whole number of periods later) is a
// planet; at twice the period it earns half credit only, and at an unrelated period nothing: both are labelled
// not-planet.
func TestLabelPeakFollowsTheGrader(t *testing.T) {
	p := &data.Planet{PeriodDays: 5.3, T0Days: 172.1, DurationDays: 0.15, MES: 12, NTransits: 60}
	ans := data.Answer{ID: "x", Category: data.CategoryInjected, Population: data.PopulationRandom, Scored: true, Planet: p}
	var valid []float64
	for x := 170.0; x < 540; x += 0.0204336 {
		valid = append(valid, x)
	}
	cases := []struct {
		period, t0 float64
		want       bool
	}{
		{5.3, 172.1, true},
		{5.3, 172.1 + 10*5.3, true},
		{10.6, 172.1, false}, // 2P: half credit, not a planet row
		{3.1, 171.0, false},
	}
	for _, c := range cases {
		if got := LabelPeak(ans, valid, c.period, c.t0); got != c.want {
			t.Errorf("peak P %.4f t0 %.2f labelled %v, want %v", c.period, c.t0, got, c.want)
		}
	}
	// A period within 1 % that drifts: the last predicted transits are 0.002·5.3·70 = 0.74 d off. It fails f_true ≥ 0.75 (its predictions stay within τ = D/2 = 0.075 d only for
	// 0.075/(0.0106) ≈ 7 of 70 transits): the label follows the grader, not the period alone.
	if LabelPeak(ans, valid, 5.3*1.002, 172.1) {
		t.Error("a row whose transits drift off the true ones was labelled planet")
	}
}

// TestFitUsesTheFeatureNames: Fit trains on examples in the pipeline's feature order and a model that separates
// them (here by the MES feature alone) predicts accordingly.
func TestFitUsesTheFeatureNames(t *testing.T) {
	var ex []Example
	mes := indexOf(pipeline.FeatureNames, "log_mes")
	for i := range 200 {
		x := make([]float64, len(pipeline.FeatureNames))
		for j := range x {
			x[j] = math.NaN()
		}
		x[mes] = float64(i) / 10 // 0 … 20
		ex = append(ex, Example{X: x, Planet: x[mes] > 9})
	}
	m, err := Fit(ex, gbt.Params{Trees: 20}, 3)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := make([]float64, len(ex[0].X)), make([]float64, len(ex[0].X))
	lo[mes], hi[mes] = 3, 15
	if m.Predict(lo) > 0.2 || m.Predict(hi) < 0.8 {
		t.Errorf("P(MES 3) = %.2f, P(MES 15) = %.2f", m.Predict(lo), m.Predict(hi))
	}
}

func indexOf(s []string, x string) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	panic(x)
}

// TestTrainVetterRewritesTheSameModel trains twice on a small train pool: the two model files must be identical
// byte for byte (the stored training report carries no wall time), and the report must describe the pool.
func TestTrainVetterRewritesTheSameModel(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the vetter's search on a dozen train-pool stars twice")
	}
	home := t.TempDir()
	const stars = 12
	if _, err := sets.Open(home, sets.Train, sets.Options{Stars: stars}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{pipeline.NameLearnedVetter, pipeline.NameExpert} {
		t.Run(name, func(t *testing.T) { checkTrainingRewritesTheSameModel(t, home, name, stars) })
	}
	_, _, err := TrainVetter(context.Background(), TrainOptions{Home: home, Stars: stars + 1, Workers: 2})
	if err == nil || !strings.Contains(err.Error(), "--stars 13 --force") {
		t.Errorf("training on more stars than the pool holds: %v, want an error saying how to rebuild the pool", err)
	}
}

// checkTrainingRewritesTheSameModel trains the classifier of pipeline name twice on the first stars of home's
// train pool: the written examples refit to the same trees, the report names the pool (and the pipeline, for
// expert), and the two model files are byte for byte the same.
func checkTrainingRewritesTheSameModel(t *testing.T, home, name string, stars int) {
	var files [2][]byte
	var csvOut bytes.Buffer
	for i := range files {
		opt := TrainOptions{Home: home, Stars: stars, Workers: 2, Pipeline: name}
		if i == 0 {
			opt.Examples = func(ex []Example) error { return WriteExamplesCSV(&csvOut, ex) }
		}
		m, rep, err := TrainVetter(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			// The written examples are the training table: refitting them gives the same trees.
			ex, err := ReadExamplesCSV(&csvOut)
			if err != nil {
				t.Fatal(err)
			}
			if len(ex) != rep.Examples {
				t.Fatalf("%d examples written, the report counts %d", len(ex), rep.Examples)
			}
			refit, err := Fit(ex, gbt.Params{}, 1)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(refit)
			b, _ := json.Marshal(m.Model)
			if !bytes.Equal(a, b) {
				t.Error("a model refitted on the written examples differs from the trained one")
			}
		}
		if rep.StarsUsed != stars || rep.Pool != sets.Train || rep.PoolFingerprint == "" || rep.Examples == 0 {
			t.Fatalf("report %+v", rep)
		}
		if bytes.Contains(m.Training, []byte(`"seconds"`)) {
			t.Errorf("the stored training report holds the wall time: %s", m.Training)
		}
		if files[i], err = json.MarshalIndent(m, "", "  "); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("two trainings on the same pool, stars and seed wrote different models")
	}
	var stored TrainReport
	if err := json.Unmarshal(jsonField(t, files[0], "training"), &stored); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{pipeline.NameExpert: pipeline.NameExpert}[name]; stored.Pipeline != want {
		t.Errorf("the %s model's training report names pipeline %q, want %q", name, stored.Pipeline, want)
	}
}

// jsonField returns the raw value of an object's key.
func jsonField(t *testing.T, b []byte, key string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m[key]
}

// TestExamplesCSVRoundTrip: the CSV keeps every feature bit for bit (NaN included), and a file with other
// columns or a garbled value is refused with a message naming the problem.
func TestExamplesCSVRoundTrip(t *testing.T) {
	n := len(pipeline.FeatureNames)
	mk := func(id string, rank int, planet bool, base float64) Example {
		x := make([]float64, n)
		for i := range x {
			x[i] = base + float64(i)/3
		}
		x[1] = math.NaN()
		return Example{StarID: id, Rank: rank, Planet: planet, X: x}
	}
	in := []Example{mk("train-000001", 0, true, 1e-7), mk("train-000001", 1, false, -12345.678901234567), mk("train-000002", 0, false, math.Pi)}
	var buf bytes.Buffer
	if err := WriteExamplesCSV(&buf, in); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	out, err := ReadExamplesCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in) {
		t.Fatalf("%d examples back, want %d", len(out), len(in))
	}
	for i := range in {
		a, b := in[i], out[i]
		if a.StarID != b.StarID || a.Rank != b.Rank || a.Planet != b.Planet {
			t.Errorf("example %d: %+v back as %+v", i, a, b)
		}
		for j := range a.X {
			if math.Float64bits(a.X[j]) != math.Float64bits(b.X[j]) && !(math.IsNaN(a.X[j]) && math.IsNaN(b.X[j])) {
				t.Errorf("example %d feature %s: %v back as %v", i, pipeline.FeatureNames[j], a.X[j], b.X[j])
			}
		}
	}
	bad := map[string]string{
		"other columns": strings.Replace(text, "snr,", "sn,", 1),
		"garbled value": strings.Replace(text, "train-000002,0,0,", "train-000002,0,0,x", 1),
		"bad label":     strings.Replace(text, "train-000002,0,0,", "train-000002,0,yes,", 1),
	}
	for name, s := range bad {
		if _, err := ReadExamplesCSV(strings.NewReader(s)); err == nil {
			t.Errorf("%s: accepted", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}
