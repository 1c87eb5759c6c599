package stargazer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"transitbench/data"
)

// EnvDir names the environment variable that points at the published task folder.
const EnvDir = "TRANSITBENCH_STARGAZER"

// sharedRel is where the published tasks sit relative to the repository root (the shared folder beside it).
var sharedRel = filepath.Join("..", "shared", "data", "stargazer")

// LocateDir returns the folder of published tasks. The 120 published tasks (CC-BY-4.0, ≈ 1.5 MB) are not
// embedded in the program: they ship beside the repository. The folder is, in order: flagDir when not empty;
// $TRANSITBENCH_STARGAZER; ../shared/data/stargazer relative to the working directory or to any of its parent
// directories (so it is found from the repository root and from inside it); the same relative to the
// executable's directory and its parents. When none holds task files it returns ErrNoTasks with what to do;
// generated tasks ('transitbench rv generate') work without it.
func LocateDir(flagDir string) (string, error) {
	if flagDir != "" {
		if !hasTasks(flagDir) {
			return "", fmt.Errorf("%w in %s (from --tasks): give the folder holding synthetic/ and real/ or task *.json files", ErrNoTasks, flagDir)
		}
		return flagDir, nil
	}
	if env := os.Getenv(EnvDir); env != "" {
		if !hasTasks(env) {
			return "", fmt.Errorf("%w in %s (from $%s): fix the variable or unset it", ErrNoTasks, env, EnvDir)
		}
		return env, nil
	}
	if dir := data.FindUp(sharedRel, hasTasks); dir != "" {
		return dir, nil
	}
	return "", fmt.Errorf("%w: the published tasks were not found (looked for ../shared/data/stargazer from the working directory and the executable); pass --tasks DIR or set $%s, or make new tasks with 'transitbench rv generate'", ErrNoTasks, EnvDir)
}

func hasTasks(dir string) bool {
	for _, sub := range []string{".", "synthetic", "real"} {
		if m, _ := filepath.Glob(filepath.Join(dir, sub, "*.json")); len(m) > 0 {
			return true
		}
	}
	return false
}

// IsNoTasks reports whether err says that no task files were found.
func IsNoTasks(err error) bool { return errors.Is(err, ErrNoTasks) }
