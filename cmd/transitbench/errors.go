package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/data/stargazer"
	"transitbench/engine/bls"
	"transitbench/grader/rvgate"
	"transitbench/sandbox"
	"transitbench/workspace"
	"transitbench/workspace/rvtrack"
)

// The error codes of the --json error object {"error": {"code", "message"}}, which every command prints on
// stdout when it fails under --json (the message goes to stderr as well). Codes with exit status 2 mean the
// invocation was wrong and the same command will fail again until its arguments change; codes with exit status
// 1 mean the work itself failed or stopped.
const (
	codeUsage     = "usage"     // 2: unknown command or flag, a missing or malformed argument, a flag out of range
	codeNotFound  = "not_found" // 2: a named set, star, task, run, workspace or file does not exist
	codeBadInput  = "bad_input" // 2: a file given exists but its content cannot be used
	codeHidden    = "hidden"    // 2: the request would show a hidden set's stars or answers
	codeRefused   = "refused"   // 2: allowed only with a flag (--again, --allow-degraded) or after a step ('rv start')
	codeBudget    = "budget"    // 1: an RV task has no submissions left
	codeCancelled = "cancelled" // 1: interrupted (Ctrl-C, SIGTERM); finished work is kept
	codeFailed    = "failed"    // 1: the run or check failed
)

// errorCodes lists every code with its exit status; README's "For scripts and agents" section documents it.
var errorCodes = map[string]int{
	codeUsage: 2, codeNotFound: 2, codeBadInput: 2, codeHidden: 2, codeRefused: 2,
	codeBudget: 1, codeCancelled: 1, codeFailed: 1,
}

// cliError is an error with its --json code. A command returns one (through usageErrorf, notFoundf, …) when
// it knows the kind; errors from the packages are classified by their sentinels in classify.
type cliError struct {
	code string
	err  error
}

func (e *cliError) Error() string { return e.err.Error() }
func (e *cliError) Unwrap() error { return e.err }

func usageErrorf(format string, a ...any) error { return codedf(codeUsage, format, a...) }
func notFoundf(format string, a ...any) error   { return codedf(codeNotFound, format, a...) }
func badInputf(format string, a ...any) error   { return codedf(codeBadInput, format, a...) }
func hiddenf(format string, a ...any) error     { return codedf(codeHidden, format, a...) }

func codedf(code, format string, a ...any) error {
	return &cliError{code: code, err: fmt.Errorf(format, a...)}
}

// withCode gives err the code (nil stays nil).
func withCode(code string, err error) error {
	if err == nil {
		return nil
	}
	return &cliError{code: code, err: err}
}

// resultError is a failure that still has a result to report (a run interrupted after some stars, a verify that
// found differences): under --json the result is printed beside the error, {"error": {…}, "result": …}, so that
// stdout always holds exactly one JSON document.
type resultError struct {
	err    error
	result any
}

func (e *resultError) Error() string { return e.err.Error() }
func (e *resultError) Unwrap() error { return e.err }

// failWithResult returns err carrying result for the --json error object (nil stays nil).
func failWithResult(err error, result any) error {
	if err == nil {
		return nil
	}
	return &resultError{err: err, result: result}
}

// classify returns err's code and exit status.
func classify(err error) (string, int) {
	code := codeFailed
	var ce *cliError
	switch {
	case errors.As(err, &ce):
		code = ce.code
	case isCobraUsageError(err):
		code = codeUsage
	case errors.Is(err, context.Canceled), errors.Is(err, sets.ErrInterrupted):
		code = codeCancelled
	case errors.Is(err, sets.ErrBadName), errors.Is(err, workspace.ErrExists), errors.Is(err, workspace.ErrBadLabel):
		code = codeUsage
	case errors.Is(err, sets.ErrNotBuilt), errors.Is(err, stargazer.ErrUnknownTask),
		errors.Is(err, stargazer.ErrNoTasks), errors.Is(err, workspace.ErrNotWorkspace):
		code = codeNotFound
	case errors.Is(err, rvgate.ErrBadSubmission), errors.Is(err, data.ErrTimeUnits), errors.Is(err, data.ErrFluxScale),
		errors.Is(err, stargazer.ErrBadTask), errors.Is(err, bls.ErrGridTooLarge):
		code = codeBadInput
	case errors.Is(err, workspace.ErrAlreadyGraded), errors.Is(err, sandbox.ErrDegraded), errors.Is(err, workspace.ErrFrozenMismatch),
		errors.Is(err, workspace.ErrGradingCap), errors.Is(err, workspace.ErrFrozenTooLarge):
		code = codeRefused
	case errors.Is(err, rvtrack.ErrBudgetSpent):
		code = codeBudget
	case errors.Is(err, rvtrack.ErrNotStarted):
		code = codeRefused
	}
	exit, ok := errorCodes[code]
	if !ok {
		exit = 1
	}
	return code, exit
}

// jsonError is the --json error object.
type jsonError struct {
	Error  jsonErrorBody `json:"error"`
	Result any           `json:"result,omitempty"`
}

type jsonErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// reportError prints err on stderr (and, under --json, the error object on stdout) and returns the exit status.
func reportError(stdout, stderr io.Writer, err error, asJSON bool) int {
	code, exit := classify(err)
	fmt.Fprintln(stderr, "transitbench:", err)
	if asJSON {
		je := jsonError{Error: jsonErrorBody{Code: code, Message: err.Error()}}
		var re *resultError
		if errors.As(err, &re) {
			je.Result = re.result
		}
		if werr := writeJSON(stdout, je); werr != nil {
			fmt.Fprintln(stderr, "transitbench: cannot write the JSON error:", werr)
		}
	}
	return exit
}

// argsWantJSON reports whether args ask for --json, for errors found before cobra parsed the flags.
func argsWantJSON(args []string) bool {
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case a == "--json" || a == "--json=true" || a == "--json=1":
			return true
		}
	}
	return false
}

// isRegularFileArg checks that path names an existing file that is not a directory, for flags that read one:
// a missing path is not_found, a directory a usage error, each saying what the flag wants.
func isRegularFileArg(flag, path, want string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return notFoundf("%s %s does not exist: give %s", flag, path, want)
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, path, err)
	case fi.IsDir():
		return usageErrorf("%s %s is a directory: give %s", flag, path, want)
	}
	return nil
}

// checkInputs makes a light-curve argument that does not exist a not_found error.
func checkInputs(paths ...string) error {
	for _, p := range paths {
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			return notFoundf("%s does not exist: give a light curve (Kepler FITS, IPAC table, CSV or a star directory)", p)
		}
	}
	return nil
}

// checkOutFile checks that an output path is not a directory.
func checkOutFile(flag, path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usageErrorf("%s %s is a directory: give the path of a file to write", flag, path)
	}
	return nil
}

// knownSetNames returns the standard sets and the sets present in the data directory home.
func knownSetNames(home string) []string {
	names := append([]string{}, sets.Standard...)
	for _, st := range sets.List(home) {
		if !containsName(names, st.Set) {
			names = append(names, st.Set)
		}
	}
	return names
}

// checkSetName makes an unknown set name a usage error naming the sets there are.
func checkSetName(home, flag, name string) error {
	if name == "" || containsName(knownSetNames(home), name) {
		return nil
	}
	return usageErrorf("%s %q: no such set; use one of %s", flag, name, strings.Join(knownSetNames(home), ", "))
}
