package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the module path of go.mod.
const module = "transitbench"

// A rule says which packages of the project the packages matching pkg may import. Patterns are paths inside
// the module: "x" is the package x, "x/..." is x and every package under it, "..." is every package.
type rule struct {
	pkg    string
	words  string   // the rule as docs/ARCHITECTURE.md states it
	may    []string // what it may import of the project (nil: nothing)
	mayNot []string // taken out of may
}

var anything = []string{"..."}

// rules are docs/ARCHITECTURE.md's dependency rules. The most specific pattern matching a package decides; a
// package that no pattern matches fails the test, so that a new top-level package comes with its rule here and
// in ARCHITECTURE.md.
var rules = []rule{
	{pkg: "engine/...", words: "engine imports nothing of the project but engine/...", may: []string{"engine/..."}},
	{pkg: "data/...", words: "data imports only engine/... and data/...", may: []string{"engine/...", "data/..."}},
	{pkg: "sandbox/...", words: "sandbox imports nothing of the project but sandbox/...", may: []string{"sandbox/..."}},
	{pkg: "grader/...", words: "grader imports only engine/..., data/... and grader/... (no sandbox)",
		may: []string{"engine/...", "data/...", "grader/..."}},
	{pkg: "workspace/...", words: "workspace imports anything but tui and cmd", may: anything,
		mayNot: []string{"tui/...", "cmd/..."}},
	{pkg: "workspace/starter/...", words: "the starter solutions import nothing of the project"},
	{pkg: "tui/...", words: "tui imports anything but cmd; nothing imports tui but cmd/transitbench", may: anything,
		mayNot: []string{"cmd/..."}},
	{pkg: "cmd/transitbench", words: "cmd/transitbench imports anything", may: anything},
	{pkg: "results", words: "results, the committed ladder compiled in, imports nothing of the project"},
	{pkg: "internal/archtest", words: "this check imports nothing of the project"},
	{pkg: "internal/termtext", words: "internal/termtext, the sanitiser of text shown on a terminal, imports nothing of the project"},
	{pkg: "internal/testutil", words: "the tests' shared helpers import nothing of the project; only _test.go files import them"},
	{pkg: "internal/testsets", words: "the tests' set fixtures import only engine/... and data/...; only _test.go files import them",
		may: []string{"engine/...", "data/..."}},
}

// testOnly are the packages that exist for tests: only _test.go files, and the other packages here, may import
// them; a non-test file of any other package importing one breaks the rules whatever its package's rule allows.
var testOnly = []string{"internal/testutil", "internal/testsets", "workspace/internal/taskfixture"}

// exceptions are the known breaks of the rules: each names the change that ends it, and the test fails once
// the import is gone, so that the line goes with it.
// There are none: the last one (the RV runner in grader/rv) ended when the runner moved to workspace/rvtrack.
var exceptions []struct{ pkg, imp, why string }

// noFileIO are the standard packages that read or write files (or reach the system): engine does no file I/O
// ("embed", which compiles data in, is not among them).
var noFileIO = []string{"os", "os/exec", "os/signal", "os/user", "io/ioutil", "io/fs", "path/filepath", "syscall",
	"golang.org/x/sys/unix", "net", "net/http", "plugin"}

// pkgInfo is what the check needs of a package: its import path and the packages its non-test files import.
type pkgInfo struct {
	ImportPath string
	Imports    []string
	Error      *struct{ Err string }
}

// match reports whether the module path rel matches the pattern.
func match(pattern, rel string) bool {
	if pattern == "..." {
		return true
	}
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		return rel == dir || strings.HasPrefix(rel, dir+"/")
	}
	return rel == pattern
}

func matchAny(patterns []string, rel string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return match(p, rel) })
}

// ruleFor returns the most specific rule matching the package rel.
func ruleFor(rel string) (rule, bool) {
	var best rule
	found := false
	for _, r := range rules {
		if match(r.pkg, rel) && (!found || len(r.pkg) > len(best.pkg)) {
			best, found = r, true
		}
	}
	return best, found
}

// inModule returns the import path relative to the module, and whether it is in the module.
func inModule(path string) (string, bool) {
	if path == module {
		return ".", true
	}
	return strings.CutPrefix(path, module+"/")
}

// check returns the rules the packages break, one line each, and the exceptions that excused an import.
func check(pkgs []pkgInfo) (violations []string, used map[int]bool) {
	used = map[int]bool{}
	for _, p := range pkgs {
		rel, ok := inModule(p.ImportPath)
		if !ok {
			continue
		}
		r, ok := ruleFor(rel)
		if !ok {
			violations = append(violations, fmt.Sprintf("%s has no rule: add its row to the rules here and its rule to docs/ARCHITECTURE.md", rel))
			continue
		}
	imports:
		for _, imp := range p.Imports {
			if match("engine/...", rel) && slices.Contains(noFileIO, imp) {
				violations = append(violations, fmt.Sprintf("%s imports %s: engine does no file I/O (the caller reads and passes the data)", rel, imp))
			}
			target, ok := inModule(imp)
			if !ok || target == rel {
				continue
			}
			if slices.Contains(testOnly, target) && !slices.Contains(testOnly, rel) {
				violations = append(violations, fmt.Sprintf("%s imports %s in a non-test file: only _test.go files may import it", rel, target))
				continue
			}
			if matchAny(r.may, target) && !matchAny(r.mayNot, target) {
				continue
			}
			for i, e := range exceptions {
				if e.pkg == rel && match(e.imp, target) {
					used[i] = true
					continue imports
				}
			}
			violations = append(violations, fmt.Sprintf("%s imports %s, against the rule %q", rel, target, r.words))
		}
	}
	return violations, used
}

// goList lists the module's packages with their imports.
func goList(t *testing.T) []pkgInfo {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	cmd := exec.Command(gobin, "list", "-e", "-json=ImportPath,Imports,Error", "./...")
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./... in the module root: %v\n%s", err, stderr.String())
	}
	var pkgs []pkgInfo
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p pkgInfo
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list's output: %v", err)
		}
		if p.Error != nil {
			t.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestDependencyRules checks every package of the module against the rules.
func TestDependencyRules(t *testing.T) {
	pkgs := goList(t)
	var seen []string
	for _, p := range pkgs {
		if rel, ok := inModule(p.ImportPath); ok {
			seen = append(seen, rel)
		}
	}
	for _, want := range []string{"engine/bls", "data", "sandbox", "grader", "workspace", "tui", "cmd/transitbench"} {
		if !slices.Contains(seen, want) {
			t.Fatalf("go list did not list %s (it listed %v): the check would prove nothing", want, seen)
		}
	}
	violations, used := check(pkgs)
	for _, v := range violations {
		t.Error(v)
	}
	for i, e := range exceptions {
		if !used[i] {
			t.Errorf("the known exception %s → %s (%s) is gone: remove its line from exceptions in %s", e.pkg, e.imp, e.why,
				"internal/archtest/arch_test.go")
		}
	}
}

// TestCheckFindsViolations runs the check on made-up packages that break each kind of rule.
func TestCheckFindsViolations(t *testing.T) {
	saved := exceptions
	defer func() { exceptions = saved }()
	exceptions = []struct{ pkg, imp, why string }{{"grader/rv", "sandbox", "an exception made up for the test"}}
	pkgs := []pkgInfo{
		{ImportPath: "transitbench/engine/bls", Imports: []string{"math", "os", "transitbench/engine/lc", "transitbench/data"}},
		{ImportPath: "transitbench/engine/pipeline", Imports: []string{"embed", "transitbench/engine/bls"}},
		{ImportPath: "transitbench/sandbox", Imports: []string{"os", "transitbench/data"}},
		{ImportPath: "transitbench/data/sets", Imports: []string{"os", "transitbench/data", "transitbench/tui"}},
		{ImportPath: "transitbench/grader/store", Imports: []string{"transitbench/grader", "transitbench/sandbox"}},
		{ImportPath: "transitbench/grader/rv", Imports: []string{"transitbench/data", "transitbench/sandbox"}},
		{ImportPath: "transitbench/workspace", Imports: []string{"transitbench/sandbox", "transitbench/tui/plot"}},
		{ImportPath: "transitbench/workspace/starter/go", Imports: []string{"os", "transitbench/engine/bls"}},
		{ImportPath: "transitbench/tui", Imports: []string{"transitbench/workspace", "transitbench/tui/plot"}},
		{ImportPath: "transitbench/cmd/transitbench", Imports: []string{"transitbench/tui", "transitbench/sandbox"}},
		{ImportPath: "transitbench/stars", Imports: []string{"transitbench/engine/lc"}},
		{ImportPath: "transitbench/workspace/rvtrack", Imports: []string{"transitbench/sandbox", "transitbench/internal/testutil"}},
		{ImportPath: "transitbench/internal/testutil", Imports: []string{"testing", "transitbench/engine/lc"}},
		{ImportPath: "transitbench/workspace/internal/taskfixture", Imports: []string{"transitbench/internal/testutil"}}, // allowed
		{ImportPath: "github.com/other/module", Imports: []string{"transitbench/tui"}},
	}
	want := []string{
		"engine/bls imports os: engine does no file I/O",
		"engine/bls imports data, against the rule",
		"sandbox imports data, against the rule",
		"data/sets imports tui, against the rule",
		"grader/store imports sandbox, against the rule",
		"workspace imports tui/plot, against the rule",
		"workspace/starter/go imports engine/bls, against the rule",
		"stars has no rule",
		"workspace/rvtrack imports internal/testutil in a non-test file",
		"internal/testutil imports engine/lc, against the rule",
	}
	got, used := check(pkgs)
	if len(got) != len(want) {
		t.Errorf("%d violations, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, w) }) {
			t.Errorf("no violation %q among:\n%s", w, strings.Join(got, "\n"))
		}
	}
	if !used[0] {
		t.Errorf("the exception %s → %s did not excuse grader/rv's import", exceptions[0].pkg, exceptions[0].imp)
	}
}
