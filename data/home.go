package data

import (
	"errors"
	"os"
	"path/filepath"
)

// Home returns the data directory: $TRANSITBENCH_HOME when set, else $XDG_DATA_HOME/transitbench, else
// ~/.local/share/transitbench. It does not create the directory.
func Home() (string, error) {
	if h := os.Getenv("TRANSITBENCH_HOME"); h != "" {
		return filepath.Abs(h)
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "transitbench"), nil
	}
	u, err := os.UserHomeDir()
	if err != nil || u == "" {
		return "", errors.New("data: cannot find a data directory: set TRANSITBENCH_HOME")
	}
	return filepath.Join(u, ".local", "share", "transitbench"), nil
}

// FindUp looks for rel in the working directory, then in the executable's directory, and in each of their
// parents, nearest first; it returns the first such path for which ok holds, or "" when there is none. It
// finds the files that ship beside the repository (the shared data folder, results/) from anywhere inside it.
func FindUp(rel string, ok func(path string) bool) string {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, s := range starts {
		for dir := s; ; dir = filepath.Dir(dir) {
			if cand := filepath.Join(dir, rel); ok(cand) {
				return cand
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return ""
}
