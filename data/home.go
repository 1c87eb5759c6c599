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
