package stargazer

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// publishedTask is a published synthetic task as raw JSON, decoded into a generic tree so a test can change one
// field and encode it again.
func publishedTask(t testing.TB, id string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedDir, "synthetic", id+".json"))
	if err != nil {
		t.Fatalf("reference data missing (expected beside the repository in ../shared/data): %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// at returns the JSON object at a path of keys ("config", "planets", "0" for a list index).
func at(m map[string]any, keys ...string) map[string]any {
	var cur any = m
	for _, k := range keys {
		switch v := cur.(type) {
		case map[string]any:
			cur = v[k]
		case []any:
			i := 0
			for _, c := range k {
				i = 10*i + int(c-'0')
			}
			cur = v[i]
		}
	}
	return cur.(map[string]any)
}

// TestParseRefusesBadTasks changes one field of a published task at a time, as the findings did: e = 1
// (panicked), inc_rad 0 and P_days ≤ 0 (hung the conversion), a time of 1e308 (ran five minutes), null in
// rvs_ms (read as 0 m/s), and the other checks of Parse. Each error is one line naming the file, the field and
// the value, wraps ErrBadTask, and nothing panics or runs long (ReadFile converts what Parse lets through).
func TestParseRefusesBadTasks(t *testing.T) {
	cases := []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"e=1", func(m map[string]any) { at(m, "config", "planets", "0")["e"] = 1.0 }, "config.planets[0].e = 1 must lie in [0, 1)"},
		{"inc 0", func(m map[string]any) { at(m, "config", "planets", "0")["inc_rad"] = 0.0 }, "config.planets[0].inc_rad = 0 must lie in (0, 3.14159"},
		{"P 0", func(m map[string]any) { at(m, "config", "planets", "0")["P_days"] = 0.0 }, "config.planets[0].P_days = 0 must lie in (0, 1e+06]"},
		{"P<0", func(m map[string]any) { at(m, "config", "planets", "0")["P_days"] = -3.0 }, "config.planets[0].P_days = -3 must lie in (0"},
		{"e null", func(m map[string]any) { at(m, "config", "planets", "0")["e"] = nil }, "config.planets[0].e is null or missing"},
		{"time 1e308", func(m map[string]any) { at(m, "observations")["times_days"].([]any)[3] = 1e308 }, "observations.times_days[3] = 1e+308 must lie in [-1e+07, 1e+07]"},
		{"rv null", func(m map[string]any) { at(m, "observations")["rvs_ms"].([]any)[2] = nil }, "observations.rvs_ms[2] is null or missing; give a number"},
		{"sigma 0", func(m map[string]any) { at(m, "observations")["sigmas_ms"].([]any)[0] = 0.0 }, "observations.sigmas_ms[0] = 0 must lie in [0.001,"},
		{"short rvs", func(m map[string]any) {
			o := at(m, "observations")
			o["rvs_ms"] = o["rvs_ms"].([]any)[1:]
		}, "rvs_ms"},
		{"M star", func(m map[string]any) { at(m, "config", "star")["M_star_sun"] = -1.0 }, "config.star.M_star_sun = -1 must lie in (0, 1000]"},
		{"no times", func(m map[string]any) { delete(at(m, "observations"), "times_days") }, "observations.times_days is empty or missing"},
	}
	for _, c := range cases {
		m := publishedTask(t, "seed0_diff6")
		c.edit(m)
		b, _ := json.Marshal(m)
		p := filepath.Join(t.TempDir(), "seed0_diff6.json")
		os.WriteFile(p, b, 0o644)
		_, err := ReadFile(p)
		if !errors.Is(err, ErrBadTask) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) ||
			strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v\nwant one line naming %s and saying %q", c.name, err, p, c.want)
		}
	}
}

// TestConvertRefusesUnboundedIntegration converts a task whose times Parse accepts but whose integration
// would be long (absolute JD times in a synthetic task): the conversion fails with the N-body step budget and
// says how to mark the task real, instead of integrating 2.45·10⁶ days.
func TestConvertRefusesUnboundedIntegration(t *testing.T) {
	m := publishedTask(t, "seed0_diff6")
	ts := at(m, "observations")["times_days"].([]any)
	for i := range ts {
		ts[i] = ts[i].(float64) + 2455000
	}
	b, _ := json.Marshal(m)
	p := filepath.Join(t.TempDir(), "jd.json")
	os.WriteFile(p, b, 0o644)
	_, err := ReadFile(p)
	if !errors.Is(err, ErrBadTask) || !strings.Contains(err.Error(), "N-body integration needs too many steps") ||
		!strings.Contains(err.Error(), "rv_only") {
		t.Errorf("got %v", err)
	}
}

// TestLoadDirSkipsBadFiles puts one bad task (e = 1) and one duplicate id beside two good ones: the good ones
// load, and the others are listed with their file and problem.
func TestLoadDirSkipsBadFiles(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{"seed0_diff6", "seed101_diff9"} {
		b, err := os.ReadFile(filepath.Join(sharedDir, "synthetic", id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, id+".json"), b, 0o644)
		if id == "seed101_diff9" {
			os.WriteFile(filepath.Join(dir, "zz_copy.json"), b, 0o644) // same task_id
		}
	}
	m := publishedTask(t, "seed0_diff6")
	m["task_id"] = "bad_e"
	at(m, "config", "planets", "0")["e"] = 1.0
	b, _ := json.Marshal(m)
	os.WriteFile(filepath.Join(dir, "bad_e.json"), b, 0o644)

	tasks, skipped, err := LoadDir(dir)
	if err != nil || len(tasks) != 2 {
		t.Fatalf("%d tasks, err %v; want the 2 good ones", len(tasks), err)
	}
	if len(skipped) != 2 || !strings.HasSuffix(skipped[0].Path, "bad_e.json") || !strings.Contains(skipped[0].Error, "config.planets[0].e = 1") ||
		!strings.HasSuffix(skipped[1].Path, "zz_copy.json") || !strings.Contains(skipped[1].Error, "task id seed101_diff9 is also the id of") {
		t.Errorf("skipped %+v", skipped)
	}
	// A folder of bad files only fails, naming the first problem.
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "bad_e.json"), b, 0o644)
	if _, sk, err := LoadDir(bad); err == nil || len(sk) != 1 || !strings.Contains(err.Error(), "config.planets[0].e = 1") {
		t.Errorf("all bad: %v, %v", sk, err)
	}
}
