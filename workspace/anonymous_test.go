package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/grader"
	"transitbench/internal/testutil"
	"transitbench/sandbox"
)

// capture is a Backend that runs the stars with Local and keeps, per set, what each star's solution printed
// (before the runner drops a hidden star's output) and the order the stars were handed to the sandbox.
type capture struct {
	mu     sync.Mutex
	seen   map[string][]sandbox.Result // by set
	orders map[string][][]string
}

func (c *capture) Run(ctx context.Context, job BackendJob, results chan<- sandbox.Result) error {
	c.mu.Lock()
	c.orders[job.Set.Name] = append(c.orders[job.Set.Name], slices.Clone(job.Stars))
	c.mu.Unlock()
	inner := make(chan sandbox.Result)
	errc := make(chan error, 1)
	go func() { errc <- (Local{}).Run(ctx, job, inner) }()
	for {
		select {
		case res := <-inner:
			c.mu.Lock()
			c.seen[job.Set.Name] = append(c.seen[job.Set.Name], res)
			c.mu.Unlock()
			results <- res
		case err := <-errc:
			return err
		}
	}
}

// nosyScript prints on stderr everything a solution can read about where it runs: star.json, its argv, its
// working directory, its environment, the mount table, its cgroup, the star directory's listing; and on
// stdout one fixed row, which depends on nothing the star says.
const nosyScript = `#!/bin/sh
{
echo "== star.json"; cat "$1/star.json"
echo "== argv $0 $*"
echo "== cwd $(pwd) $(readlink /proc/self/cwd)"
echo "== env"; env
echo "== mounts"; cat /proc/self/mountinfo
echo "== cgroup"; cat /proc/self/cgroup
echo "== ls"; ls -la "$1" "$1/.."
} >&2 2>/dev/null
echo period_days,t0_days,score
echo 3.3,171.0,5
`

// TestHiddenStarsAreAnonymous grades a solution that prints all it can read and checks that on A and B it
// learns no star's id, set or index: star.json carries a fresh random id (new at every grading), nothing
// else names a hidden star or its set, and the stars run in a shuffled order. The scores are what matching
// the same rows against each star's answers gives, identical across the two gradings.
func TestHiddenStarsAreAnonymous(t *testing.T) {
	ws, home := newTestWorkspace(t)
	testutil.WriteRunScript(t, ws.SolutionDir(), nosyScript)
	c := &capture{seen: map[string][]sandbox.Result{}, orders: map[string][][]string{}}
	opt := RunOptions{Home: home, Workers: 1, Compositions: small, Backend: c, AllowDegraded: true}
	first, err := ws.Grade(context.Background(), opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	opt.Again = true
	second, err := ws.Grade(context.Background(), opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	idPattern := regexp.MustCompile(`^star-[0-9a-f]{16}$`)
	var hiddenIDs []string
	for _, name := range []string{sets.A, sets.B} {
		set, err := openSmall(home, name)
		if err != nil {
			t.Fatal(err)
		}
		hiddenIDs = append(hiddenIDs, set.IDs...)
	}
	aliases := map[string]string{} // alias → star, over both gradings
	for _, name := range []string{sets.A, sets.B} {
		if n := len(c.seen[name]); n != 2*small[name].Total() {
			t.Fatalf("set %s: %d stars captured, want %d", name, n, 2*small[name].Total())
		}
		for _, res := range c.seen[name] {
			out := res.StderrTail
			if res.ExitReason != sandbox.ExitOK || !strings.Contains(out, "== mounts") {
				t.Fatalf("%s: the solution did not run as expected (%s): %s", res.StarID, res.ExitReason, out)
			}
			var st data.Star
			js := out[strings.Index(out, "{"):strings.Index(out, "== argv")]
			if err := json.Unmarshal([]byte(js), &st); err != nil {
				t.Fatalf("%s: star.json as seen: %v\n%s", res.StarID, err, js)
			}
			if !idPattern.MatchString(st.ID) {
				t.Errorf("%s: star.json says id %q, not an anonymous id", res.StarID, st.ID)
			}
			if prev, ok := aliases[st.ID]; ok {
				t.Errorf("alias %s given to %s and %s: ids must be fresh per run", st.ID, prev, res.StarID)
			}
			aliases[st.ID] = res.StarID
			for _, id := range hiddenIDs {
				if strings.Contains(out, id) {
					t.Errorf("%s: the solution reads hidden star id %s:\n%s", res.StarID, id, out)
				}
			}
			for _, leak := range []string{`"A-`, `"B-`, "sets/A", "sets/B", "/A/", "/B/", "A-0", "B-0"} {
				if strings.Contains(out, leak) {
					t.Errorf("%s: the solution reads %q:\n%s", res.StarID, leak, out)
				}
			}
		}
		orders := c.orders[name]
		if len(orders) != 2 || slices.Equal(orders[0], orders[1]) && slices.IsSorted(orders[0]) {
			t.Errorf("set %s: the stars ran in the same, sorted order twice: %v", name, orders)
		}
	}
	// The dev stars are public: they keep their ids.
	for _, res := range c.seen[sets.Dev] {
		if !strings.Contains(res.StderrTail, `"id": "`+res.StarID+`"`) {
			t.Errorf("dev star %s does not carry its id", res.StarID)
		}
	}
	for _, name := range []string{sets.A, sets.B} {
		set, err := openSmall(home, name)
		if err != nil {
			t.Fatal(err)
		}
		want := grader.Summarize(matchAll(t, set, "3.3,171.0,5"))
		for i, rep := range []*GradeReport{first, second} {
			got := rep.A
			if name == sets.B {
				got = rep.B
			}
			if got.S != want.S || got.Credit != want.Credit || got.False != want.False || got.ScoredStars != want.ScoredStars {
				t.Errorf("grading %d on %s: S %.3f credit %v false %d; matching the rows directly gives S %.3f credit %v false %d",
					i+1, name, got.S, got.Credit, got.False, want.S, want.Credit, want.False)
			}
		}
	}
}

// matchAll matches one row against every star of set, as the grader does, in id order.
func matchAll(t *testing.T, set *sets.Set, row string) []grader.StarResult {
	t.Helper()
	rows, _ := grader.ParseRows(strings.NewReader("period_days,t0_days,score\n" + row + "\n"))
	var out []grader.StarResult
	for _, id := range set.IDs {
		valid, err := set.ValidTimes(id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, grader.MatchStar(set.Answers[id], valid, rows))
	}
	if len(out) == 0 {
		t.Fatal(fmt.Sprintf("set %s is empty", set.Name))
	}
	return out
}
