package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/grader/store"
	"transitbench/internal/testsets"
	"transitbench/internal/testutil"
	"transitbench/workspace"
)

// hiddenTestSets are the small compositions of the graded sets the tests share (testsets.Small), so that a
// real grading takes seconds.
var hiddenTestSets = testsets.Small()

// openTestDev opens the dev set of hiddenTestSets in the data directory home.
func openTestDev(t *testing.T, home string) *sets.Set {
	t.Helper()
	c := hiddenTestSets[sets.Dev]
	dev, err := sets.Open(home, sets.Dev, sets.Options{Composition: &c})
	if err != nil {
		t.Fatal(err)
	}
	return dev
}

// stderrMark is what the test's solution prints to stderr on every star, followed by the star's id.
const stderrMark = "SOLUTION-STDERR-MARK-"

// truthPeriods returns the periods of every planet, eclipsing binary and false alarm of the answers.
func truthPeriods(answers map[string]data.Answer) []float64 {
	var out []float64
	for _, a := range answers {
		if a.Planet != nil {
			out = append(out, a.Planet.PeriodDays)
		}
		for _, p := range a.Confirmed {
			out = append(out, p.PeriodDays)
		}
		if a.EB != nil {
			out = append(out, a.EB.PeriodDays)
		}
		if a.FalseAlarm != nil && a.FalseAlarm.PeriodDays > 0 {
			out = append(out, a.FalseAlarm.PeriodDays)
		}
	}
	return out
}

// periodForms are the ways a period is printed: the tables' %.4f and %.5f, %.6f, the solution's %.8f, and the
// shortest round-trip form JSON uses.
func periodForms(p float64) []string {
	return []string{fmt.Sprintf("%.4f", p), fmt.Sprintf("%.5f", p), fmt.Sprintf("%.6f", p), fmt.Sprintf("%.8f", p),
		strconv.FormatFloat(p, 'f', -1, 64), strconv.FormatFloat(p, 'g', -1, 64)}
}

// containsNumber reports whether the number f is written in b as a number of its own or the start of one: not
// preceded by a digit, so that a period of 1.0014 d is not found inside an unrelated 21.00147.
func containsNumber(b []byte, f string) bool {
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte(f))
		if j < 0 {
			return false
		}
		if at := i + j; at == 0 || b[at-1] < '0' || b[at-1] > '9' {
			return true
		}
		i += j + 1
	}
}

// leaks returns what of the truth periods and the stderr mark of the stars with the id prefix appears in b.
func leaks(b []byte, periods []float64, prefix string) []string {
	var found []string
	for _, p := range periods {
		for _, f := range periodForms(p) {
			if containsNumber(b, f) {
				found = append(found, "period "+f)
				break
			}
		}
	}
	if bytes.Contains(b, []byte(stderrMark+prefix)) {
		found = append(found, "stderr mark "+stderrMark+prefix)
	}
	return found
}

// oracleRun writes a solution (an executable `run`) that prints, on every star of the answers, the true
// ephemeris of each of its planets and binaries, and its id after stderrMark on stderr. The hidden sets' stars
// of home are recognised by their light curves; with home "", only stars whose star.json carries their id.
func oracleRun(t *testing.T, dir, home string, answers map[string]data.Answer) {
	t.Helper()
	rows := map[string][]string{}
	for id, a := range answers {
		if a.Planet != nil {
			rows[id] = append(rows[id], fmt.Sprintf("%.8f,%.8f,10", a.Planet.PeriodDays, a.Planet.T0Days))
		}
		for _, p := range a.Confirmed {
			rows[id] = append(rows[id], fmt.Sprintf("%.8f,%.8f,9", p.PeriodDays, p.T0Days))
		}
		if a.EB != nil {
			rows[id] = append(rows[id], fmt.Sprintf("%.8f,%.8f,8", a.EB.PeriodDays, a.EB.T0Days))
		}
	}
	before := "echo \"" + stderrMark + "$id\" >&2\n" + "head -c 300 \"$1/lightcurve.csv\" >&2\n"
	var curves map[string]string // "" for home: public stars only, known by their ids
	if home != "" {
		var err error
		if curves, err = testsets.CurveIDs(home, hiddenTestSets); err != nil {
			t.Fatal(err)
		}
	}
	testutil.WriteRunScript(t, dir, testsets.OracleScriptByCurve(rows, curves, before, ""))
}

// cliRun runs this test binary as 'transitbench args...' on the data directory home and returns its stdout,
// stderr and exit status.
func cliRun(t *testing.T, home string, args ...string) (stdout, stderr []byte, code int) {
	t.Helper()
	cmd := cliCommand(args...)
	cmd.Env = append(cmd.Env, "TRANSITBENCH_HOME="+home)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("transitbench %s: %v", strings.Join(args, " "), err)
	}
	return o.Bytes(), e.Bytes(), code
}

// TestHiddenTruthNeverShown grades a solution that prints every star's true ephemerides and a mark on stderr,
// then reads everything a contestant can read about the grading — the grade report as the command prints it
// (table and JSON), 'runs', 'failing', 'star' on hidden stars and hidden runs, every page of the results site
// (written with 'report --out' and served), and the bytes of results.db —
// and finds neither the hidden sets' periods (in any printed form) nor the mark the solution wrote on their
// stars. The same search on a dev run finds the dev set's periods and mark: the control that it would see a leak.
func TestHiddenTruthNeverShown(t *testing.T) {
	if testing.Short() {
		t.Skip("builds three small sets and grades on them: not in -short mode")
	}
	base := t.TempDir()
	home := filepath.Join(base, "home")
	pinSecretSeed(t, home)
	ws, err := workspace.Init(filepath.Join(base, "ws"), workspace.InitOptions{Home: home, Lang: "python", Compositions: hiddenTestSets})
	if err != nil {
		t.Fatal(err)
	}
	answers, all := openHiddenTestSets(t, home)
	hiddenPeriods := append(truthPeriods(answers[sets.A]), truthPeriods(answers[sets.B])...)
	oracleRun(t, ws.SolutionDir(), home, all)
	opt := workspace.RunOptions{Home: home, Workers: 2, Compositions: hiddenTestSets}
	devStar := checkDevControl(t, ws, opt, home, answers[sets.Dev])

	rep, err := ws.Grade(context.Background(), opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.A.Credit == 0 || rep.B.Credit == 0 || rep.Grading != 1 {
		t.Fatalf("the oracle's grading: A credit %.1f, B credit %.1f, grading #%d", rep.A.Credit, rep.B.Credit, rep.Grading)
	}
	if rep.A.Planets != answersPlanets(answers[sets.A]) || rep.A.ByCategory.Injected.Stars != hiddenTestSets[sets.A].Injected {
		t.Errorf("A's aggregates: %d planets, %d injected stars", rep.A.Planets, rep.A.ByCategory.Injected.Stars)
	}
	outputs := gradeOutputs(t, home, rep)
	checkHiddenRefused(t, home, hiddenRefusals(devStar, rep, answers), outputs)
	site := siteOutputs(t, home, rep, append(sortedIDs(answers[sets.A]), sortedIDs(answers[sets.B])...))
	checkSiteControl(t, site, answers[sets.Dev])
	for name, b := range site {
		if !strings.HasPrefix(name, "served star-A-") && !strings.HasPrefix(name, "served star-B-") {
			outputs[name] = b // a refusal names the star it refuses, as 'star A-0000' does
		}
	}
	for name, out := range outputs {
		if got := leaks(out, hiddenPeriods, "A-"); len(got) > 0 {
			t.Errorf("%s shows %v", name, got)
		}
		if got := leaks(out, nil, "B-"); len(got) > 0 {
			t.Errorf("%s shows %v", name, got)
		}
		if !strings.HasPrefix(name, "star ") && (bytes.Contains(out, []byte("A-0")) || bytes.Contains(out, []byte("B-0"))) {
			t.Errorf("%s names a hidden star:\n%s", name, out)
		}
	}
	raw := dbFiles(t, filepath.Join(home, store.FileName))
	if got := append(leaks(raw, hiddenPeriods, "A-"), leaks(raw, nil, "B-")...); len(got) > 0 {
		t.Errorf("results.db holds %v", got)
	}
	for _, name := range []string{sets.A, sets.B} {
		for id := range answers[name] {
			if bytes.Contains(raw, []byte(id)) {
				t.Errorf("results.db names the hidden star %s", id)
			}
		}
	}
	checkPrivate(t, home)
}

// hiddenTestSeed is the secret seed of TestHiddenTruthNeverShown's data directory: SHA-256 of the text
// "TestHiddenTruthNeverShown". With a seed drawn afresh each run the hidden sets' periods were new each run, and
// the search for them in every output (any number starting with a period's %.4f form) found one by chance when
// a period fell where other numbers lie, 1.0001 d among the flux values: the test failed one run in many.
// With this seed the hidden sets, and so the test, are the same every run.
const hiddenTestSeed = "16dfade41fbe22d85b11655e995e542d30571faa80087e066d65e16d388157f1"

// pinSecretSeed writes hiddenTestSeed as the secret seed of the data directory home, before any hidden set is
// built there.
func pinSecretSeed(t *testing.T, home string) {
	t.Helper()
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sets.SecretSeedPath(home), []byte(hiddenTestSeed+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// openHiddenTestSets opens the dev, A and B sets of hiddenTestSets in home and returns each set's answers and
// all answers together.
func openHiddenTestSets(t *testing.T, home string) (answers map[string]map[string]data.Answer, all map[string]data.Answer) {
	t.Helper()
	answers, all, err := testsets.Open(home, hiddenTestSets)
	if err != nil {
		t.Fatal(err)
	}
	return answers, all
}

// checkDevControl is the control of the leak test: a dev run's outcomes show the dev truth and the solution's
// stderr, both in 'star' and in results.db. It returns the first dev star with a scored planet.
func checkDevControl(t *testing.T, ws *workspace.Workspace, opt workspace.RunOptions, home string, dev map[string]data.Answer) string {
	t.Helper()
	devRep, err := ws.Dev(context.Background(), opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if devRep.Credit == 0 {
		t.Fatalf("the oracle found nothing on dev: %+v", devRep)
	}
	var devStar string // the first dev star with a scored planet: its outcome lists the planet and the rows
	for _, id := range sortedIDs(dev) {
		if a := dev[id]; len(a.ScoredPlanets()) > 0 {
			devStar = id
			break
		}
	}
	var devOut []byte
	for _, args := range [][]string{{"star", devStar}, {"star", devStar, "--json"}} {
		devOut = append(devOut, cliRunOK(t, home, args...)...)
	}
	devPeriods := truthPeriods(dev)
	if got := leaks(devOut, devPeriods, "dev-"); len(got) < 2 {
		t.Fatalf("the control failed: 'star %s' shows only %v of the dev truth and stderr mark", devStar, got)
	}
	if got := leaks(dbFiles(t, filepath.Join(home, store.FileName)), devPeriods, "dev-"); len(got) < 2 {
		t.Fatalf("the control failed: results.db holds only %v of the dev truth and stderr mark", got)
	}
	return devStar
}

// cliRunOK runs transitbench with args, fails the test unless it exits 0, and returns its stdout.
func cliRunOK(t *testing.T, home string, args ...string) []byte {
	t.Helper()
	o, e, code := cliRun(t, home, args...)
	if code != 0 {
		t.Fatalf("transitbench %v: exit %d: %s", args, code, e)
	}
	return o
}

// gradeOutputs returns, by command line, what the grade report and the commands allowed after a grading print.
func gradeOutputs(t *testing.T, home string, rep *workspace.GradeReport) map[string][]byte {
	t.Helper()
	outputs := map[string][]byte{}
	var report bytes.Buffer
	if err := printGradeReport(&report, rep, false); err != nil {
		t.Fatal(err)
	}
	outputs["grade"] = report.Bytes()
	if !strings.Contains(report.String(), "grading #1 of this workspace") {
		t.Errorf("grade output lacks the grading's number:\n%s", report.String())
	}
	report.Reset()
	if err := printGradeReport(&report, rep, true); err != nil {
		t.Fatal(err)
	}
	outputs["grade --json"] = append([]byte{}, report.Bytes()...)
	var asJSON struct {
		Grading int `json:"grading"`
		A       struct {
			Hidden bool `json:"hidden"`
		} `json:"A"`
	}
	if err := json.Unmarshal(report.Bytes(), &asJSON); err != nil || asJSON.Grading != 1 || !asJSON.A.Hidden {
		t.Errorf("grade --json: %v, %+v", err, asJSON)
	}
	for _, args := range [][]string{
		{"runs"}, {"runs", "--json"}, {"runs", "--set", "A", "--json"}, {"runs", "--kind", "grade"},
		{"failing", "--set", "dev"}, {"failing", "--set", "dev", "--json"},
	} {
		o, e, code := cliRun(t, home, args...)
		if code != 0 {
			t.Fatalf("transitbench %v: exit %d: %s", args, code, e)
		}
		outputs[strings.Join(args, " ")] = append(o, e...)
	}
	if o := outputs["runs --kind grade"]; !bytes.Contains(o, []byte("#1")) {
		t.Errorf("'runs' does not show the grading's number:\n%s", o)
	}
	return outputs
}

// hiddenRefusals lists the command lines that must be refused: every hidden star, with and without --json, with
// and without a run; runs on hidden sets; the hidden sets' failing stars.
func hiddenRefusals(devStar string, rep *workspace.GradeReport, answers map[string]map[string]data.Answer) [][]string {
	refused := [][]string{{"failing", "--set", "A"}, {"failing", "--set", "B", "--json"},
		{"star", devStar, "--run", strconv.FormatInt(rep.A.RunID, 10)},
		{"star", devStar, "--run", strconv.FormatInt(rep.B.RunID, 10), "--json"}}
	for _, name := range []string{sets.A, sets.B} {
		for id := range answers[name] {
			refused = append(refused, []string{"star", id, "--json"}, []string{"star", id, "--run", strconv.FormatInt(rep.A.RunID, 10)})
		}
	}
	return append(refused, []string{"star", "A-0000"})
}

// checkHiddenRefused runs each of refused, checks it exits 2 with the hidden error (the JSON one with --json), and
// adds what it printed to outputs.
func checkHiddenRefused(t *testing.T, home string, refused [][]string, outputs map[string][]byte) {
	t.Helper()
	for _, args := range refused {
		o, e, code := cliRun(t, home, args...)
		if code != 2 || !bytes.Contains(append(o, e...), []byte("hidden stars are not shown")) {
			t.Errorf("transitbench %v: exit %d, output %s %s; want exit 2 saying hidden stars are not shown", args, code, o, e)
		}
		if args[len(args)-1] == "--json" {
			var j jsonError
			if err := json.Unmarshal(o, &j); err != nil || j.Error.Code != "hidden" || !strings.Contains(j.Error.Message, "hidden stars are not shown") {
				t.Errorf("transitbench %v --json: stdout %q is not the hidden error (%v)", args, o, err)
			}
		}
		outputs[strings.Join(args, " ")] = append(o, e...)
	}
}

func sortedIDs(answers map[string]data.Answer) []string {
	ids := make([]string, 0, len(answers))
	for id := range answers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// answersPlanets counts the scored planets of a set's answers.
func answersPlanets(answers map[string]data.Answer) int {
	n := 0
	for _, a := range answers {
		n += len(a.ScoredPlanets())
	}
	return n
}

// dbFiles returns the bytes of the database, its write-ahead log and its shared-memory index.
func dbFiles(t *testing.T, path string) []byte {
	t.Helper()
	var all []byte
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		b, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// checkPrivate checks the modes of what holds answers or results in the data directory: the results database
// and its key 0600, the hidden sets' directories 0700 and files 0600, the secret seed 0600, frozen copies 0700.
func checkPrivate(t *testing.T, home string) {
	t.Helper()
	want := func(p string, mode os.FileMode) {
		fi, err := os.Stat(p)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return
			}
			t.Fatal(err)
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s has mode %v, want %v", strings.TrimPrefix(p, home), fi.Mode().Perm(), mode)
		}
	}
	for _, f := range []string{store.FileName, store.FileName + "-wal", store.FileName + "-shm", store.KeyFileName, "secret.seed"} {
		want(filepath.Join(home, f), 0o600)
	}
	want(filepath.Join(home, "frozen"), 0o700)
	for _, name := range []string{sets.A, sets.B} {
		filepath.Walk(filepath.Join(home, "sets", name), func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				t.Error(err)
				return nil
			}
			if fi.IsDir() {
				want(p, 0o700)
			} else {
				want(p, 0o600)
			}
			return nil
		})
	}
}
