package baselines

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"transitbench/results"
)

// LadderFileName is a data directory's own ladder: <home>/baselines.json, a table measured on that directory's
// sets ('transitbench baselines --out "$TRANSITBENCH_HOME/baselines.json"').
const LadderFileName = "baselines.json"

// Where a ladder came from (Ladder's source).
const (
	SourceDataDir  = "data directory"
	SourceEmbedded = "compiled in (results/baselines.json)"
)

// ReadTable reads a ladder table written by Run's caller ('transitbench baselines --out').
func ReadTable(path string) (*Table, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseTable(b, path)
}

func parseTable(b []byte, name string) (*Table, error) {
	var t Table
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("baselines: the ladder table %s: %w", name, err)
	}
	return &t, nil
}

// Ladder is the baseline ladder the front ends show (the results site, the agent server): the data directory's
// own table, <home>/LadderFileName, when it has one, else results/baselines.json as compiled into the program
// (results.Baselines). It never reads the working directory. source is SourceDataDir or SourceEmbedded.
func Ladder(home string) (t *Table, source string, err error) {
	if home != "" {
		path := filepath.Join(home, LadderFileName)
		t, err := ReadTable(path)
		if err == nil {
			return t, SourceDataDir, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, "", err
		}
	}
	t, err = parseTable(results.Baselines, "compiled into the program")
	return t, SourceEmbedded, err
}
